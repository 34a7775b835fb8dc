//! Training data that lasts: the generations kept in the repository under `data/genN/`.
//!
//! Raw games are made on a scratch disk (`datagen`, `spsa`/`verify --data-out`); `shears-tune
//! data pack --from SCRATCH --to data/genN` moves the finished games that are not packed yet
//! into one new xz-compressed viriformat file, `data/genN/NNNN.vf.xz`, and records it in
//! `data/genN/manifest.json`: its sha256, bytes and counts, and where each of its games came
//! from (raw file, first game, games), with the runs that made them (command, seed, commit,
//! net and the net's sha256). Packing again later adds a file and never rewrites one, so git
//! keeps each byte once; the raw directory can be packed from as often as one likes while
//! its jobs run (a game still being written is left for the next pack).
//!
//! `shears-tune data check` compares every manifest with its files (checksums, sizes, no
//! file unlisted; `--deep` also decodes every file and recounts it); readers check a
//! manifest before reading its directory ([`for_each_game`]).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::gamedata::{self, Counts, RunInfo};
use crate::report::say;

/// The data files `sources` name, in the order they are read: a directory gives its data
/// files in name order, a data root (see [`directories_of`]) its generations' files by
/// generation number, a file itself.
/// Every directory involved (a source, a generation, or the directory of a file given
/// alone) is checked against its manifest first, once (see [`check_files`]), so a file given
/// alone is still one its manifest vouches for.
pub fn resolve(sources: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut checked: Vec<PathBuf> = Vec::new();
    let mut check = |dir: &Path| -> Result<(), String> {
        if !checked.iter().any(|d| d == dir) {
            check_files(dir)?;
            checked.push(dir.to_path_buf());
        }
        Ok(())
    };
    let mut files = Vec::new();
    for source in sources {
        if source.is_dir() {
            for dir in directories_of(source)? {
                check(&dir)?;
                files.extend(gamedata::data_files(&dir)?);
            }
        } else if gamedata::is_raw(source) || gamedata::is_packed(source) {
            if !source.is_file() {
                return Err(format!("{}: no such data file", source.display()));
            }
            // A bare file name's parent is "": the current directory.
            let dir = source.parent().filter(|d| !d.as_os_str().is_empty());
            check(dir.unwrap_or(Path::new(".")))?;
            files.push(source.clone());
        } else {
            return Err(format!(
                "{}: neither a directory nor a data file (.vf, .vf.xz)",
                source.display()
            ));
        }
    }
    Ok(files)
}

/// Calls `f` with every finished game of every data file `sources` name (see [`resolve`]:
/// directories and single files, each checked against its manifest first), file by file,
/// until it returns `Break`. Returns the bytes at the ends of raw files that belong to games
/// cut off by a killed run (ignored).
pub fn for_each_game(
    sources: &[PathBuf],
    f: impl FnMut(&crate::viriformat::Game) -> ControlFlow<()>,
) -> Result<u64, String> {
    for_each_game_in(&resolve(sources)?, f)
}

/// [`for_each_game`] over files already resolved (and checked) by [`resolve`].
pub fn for_each_game_in(
    files: &[PathBuf],
    mut f: impl FnMut(&crate::viriformat::Game) -> ControlFlow<()>,
) -> Result<u64, String> {
    let mut unfinished = 0;
    for path in files {
        let (games, rest) = gamedata::read_games(path)?;
        unfinished += rest as u64;
        for g in &games {
            if f(g).is_break() {
                return Ok(unfinished);
            }
        }
    }
    Ok(unfinished)
}

/// The name of a generation's manifest.
pub const MANIFEST: &str = "manifest.json";

/// The games of one raw file that went into a packed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The raw file's name (`<seed>-<n>.vf`).
    pub file: String,
    /// Its first game packed here (0 is the file's first game), and how many.
    pub first_game: u64,
    pub games: u64,
}

/// One packed file of a generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedFile {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
    /// The xz preset it was written at.
    pub level: u32,
    /// When it was packed (seconds since 1970, UTC).
    pub packed: u64,
    pub counts: Counts,
    pub sources: Vec<Source>,
}

/// A generation's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub generation: u32,
    /// Whose games these are, in words (the producing net and the commit that made it the
    /// default).
    pub about: String,
    pub format: String,
    /// Every run that contributed games, by seed.
    pub runs: Vec<RunInfo>,
    pub files: Vec<PackedFile>,
    /// The sums over `files`.
    pub totals: Counts,
    pub bytes: u64,
    /// Bytes stored per position (packed bytes over positions).
    pub bytes_per_position: f64,
}

impl Manifest {
    fn path(dir: &Path) -> PathBuf {
        dir.join(MANIFEST)
    }

    /// Reads a generation's manifest; `None` when the directory has none.
    pub fn load(dir: &Path) -> Result<Option<Manifest>, String> {
        let path = Self::path(dir);
        if !path.exists() {
            return Ok(None);
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The runs that made a directory's games: its manifest's (packed data) and the run
    /// files of its raw data, once each.
    pub fn runs_of(dir: &Path) -> Result<Vec<RunInfo>, String> {
        let mut runs = Self::load(dir)?.map_or_else(Vec::new, |m| m.runs);
        for file in gamedata::data_files(dir)? {
            if let Some(seed) = gamedata::seed_of(&file).filter(|_| gamedata::is_raw(&file))
                && !runs.iter().any(|r| r.seed == seed)
            {
                runs.push(RunInfo::load(dir, seed)?);
            }
        }
        Ok(runs)
    }

    /// Writes the manifest (through a temporary file, so a kill leaves the old one whole).
    fn save(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(&Self::path(dir), (text + "\n").as_bytes())
    }

    /// Recomputes the totals from the files.
    fn update_totals(&mut self) {
        self.totals = self
            .files
            .iter()
            .fold(Counts::default(), |t, f| t.plus(&f.counts));
        self.bytes = self.files.iter().map(|f| f.bytes).sum();
        self.bytes_per_position =
            (self.bytes as f64 / self.totals.positions.max(1) as f64 * 1000.0).round() / 1000.0;
    }

    /// Games of each raw file already packed.
    fn packed_games(&self) -> BTreeMap<&str, u64> {
        let mut done = BTreeMap::new();
        for s in self.files.iter().flat_map(|f| &f.sources) {
            let end = s.first_game + s.games;
            let e = done.entry(s.file.as_str()).or_insert(0);
            *e = (*e).max(end);
        }
        done
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What `data pack` is asked to do.
pub struct PackConfig {
    pub from: PathBuf,
    pub to: PathBuf,
    /// For a new generation: its number and description (taken from the manifest otherwise).
    pub generation: Option<u32>,
    pub about: Option<String>,
    pub level: u32,
}

/// Packs the finished games of `from` that `to` does not hold yet into one new file; returns
/// its entry, or `None` when there was nothing new.
pub fn pack(cfg: &PackConfig) -> Result<Option<PackedFile>, String> {
    let mut manifest = match Manifest::load(&cfg.to)? {
        Some(m) => {
            if cfg.generation.is_some_and(|g| g != m.generation) {
                return Err(format!(
                    "{} holds generation {}, not {}",
                    cfg.to.display(),
                    m.generation,
                    cfg.generation.unwrap_or_default()
                ));
            }
            check_files(&cfg.to)?;
            m
        }
        None => Manifest {
            generation: cfg
                .generation
                .ok_or("a new generation needs --generation N")?,
            about: cfg
                .about
                .clone()
                .ok_or("a new generation needs --about TEXT")?,
            format: "viriformat games, xz (LZMA2, lc=0 lp=2 pb=2)".to_string(),
            runs: Vec::new(),
            files: Vec::new(),
            totals: Counts::default(),
            bytes: 0,
            bytes_per_position: 0.0,
        },
    };
    if let Some(about) = &cfg.about {
        manifest.about.clone_from(about);
    }
    let done = manifest.packed_games();
    let mut raw = Vec::new();
    let mut counts = Counts::default();
    let mut sources = Vec::new();
    let mut new_runs = Vec::new();
    for path in gamedata::data_files(&cfg.from)? {
        if !gamedata::is_raw(&path) {
            continue;
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{}: not a file name", path.display()))?
            .to_string();
        let (games, _) = gamedata::read_games(&path)?;
        let first = done.get(name.as_str()).copied().unwrap_or(0);
        let new = games.get(first as usize..).unwrap_or_default();
        if new.is_empty() {
            continue;
        }
        let seed = gamedata::seed_of(&path)
            .ok_or_else(|| format!("{}: not named <seed>-<n>.vf", path.display()))?;
        if !manifest
            .runs
            .iter()
            .chain(&new_runs)
            .any(|r| r.seed == seed)
        {
            new_runs.push(RunInfo::load(&cfg.from, seed)?);
        }
        for g in new {
            raw.extend_from_slice(&g.to_bytes());
            counts.add(g, true);
        }
        sources.push(Source {
            file: name,
            first_game: first,
            games: new.len() as u64,
        });
    }
    if sources.is_empty() {
        return Ok(None);
    }
    let packed = gamedata::compress(&raw, cfg.level)?;
    let index = manifest.files.len() + 1;
    let name = format!("{index:04}{}", gamedata::PACKED_SUFFIX);
    let path = cfg.to.join(&name);
    if path.exists() {
        return Err(format!(
            "{}: exists but the manifest does not list it",
            path.display()
        ));
    }
    std::fs::create_dir_all(&cfg.to).map_err(|e| format!("{}: {e}", cfg.to.display()))?;
    write_atomically(&path, &packed)?;
    let entry = PackedFile {
        name,
        bytes: packed.len() as u64,
        sha256: gamedata::sha256_hex(&packed),
        level: cfg.level,
        packed: now(),
        counts,
        sources,
    };
    manifest.runs.extend(new_runs);
    manifest.files.push(entry.clone());
    manifest.update_totals();
    manifest.save(&cfg.to)?;
    Ok(Some(entry))
}

/// Checks a directory against its manifest, if it has one: every listed file present with its
/// size and sha256, no packed file unlisted, the totals the sums of the files. Fast (no
/// decoding); `check_deep` also recounts.
pub fn check_files(dir: &Path) -> Result<(), String> {
    let Some(m) = Manifest::load(dir)? else {
        return Ok(());
    };
    check_manifest(dir, &m)
}

fn check_manifest(dir: &Path, m: &Manifest) -> Result<(), String> {
    for f in &m.files {
        let path = dir.join(&f.name);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() as u64 != f.bytes {
            return Err(format!(
                "{}: {} bytes, the manifest says {}",
                path.display(),
                bytes.len(),
                f.bytes
            ));
        }
        let sum = gamedata::sha256_hex(&bytes);
        if sum != f.sha256 {
            return Err(format!(
                "{}: sha256 {sum}, the manifest says {}",
                path.display(),
                f.sha256
            ));
        }
    }
    for path in gamedata::data_files(dir)? {
        let listed = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| m.files.iter().any(|f| f.name == n));
        if !listed {
            return Err(format!(
                "{}: a data file {} does not list",
                path.display(),
                Manifest::path(dir).display()
            ));
        }
    }
    let mut expect = m.clone();
    expect.update_totals();
    if expect.totals != m.totals || expect.bytes != m.bytes {
        return Err(format!(
            "{}: the totals are not the sums of the files",
            Manifest::path(dir).display()
        ));
    }
    let seeds: Vec<u64> = m.runs.iter().map(|r| r.seed).collect();
    for s in m.files.iter().flat_map(|f| &f.sources) {
        let seed = gamedata::seed_of(Path::new(&s.file));
        if !seed.is_some_and(|seed| seeds.contains(&seed)) {
            return Err(format!(
                "{}: source {} has no run",
                Manifest::path(dir).display(),
                s.file
            ));
        }
    }
    Ok(())
}

/// [`check_files`], then every file decoded and counted again against its entry.
pub fn check_deep(dir: &Path) -> Result<(), String> {
    let m = Manifest::load(dir)?.ok_or_else(|| format!("{}: no {MANIFEST}", dir.display()))?;
    check_manifest(dir, &m)?;
    for f in &m.files {
        let path = dir.join(&f.name);
        let (games, _) = gamedata::read_games(&path)?;
        let mut c = Counts::default();
        for g in &games {
            c.add(g, true);
        }
        if c != f.counts {
            return Err(format!(
                "{}: holds {c:?}, the manifest says {:?}",
                path.display(),
                f.counts
            ));
        }
        let sourced: u64 = f.sources.iter().map(|s| s.games).sum();
        if sourced != c.games {
            return Err(format!(
                "{}: {} games, its sources add up to {sourced}",
                path.display(),
                c.games
            ));
        }
    }
    Ok(())
}

/// The generation directories under a data root (`data/gen*` with a manifest), by number.
pub fn generations(root: &Path) -> Result<Vec<(u32, PathBuf)>, String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))? {
        let path = e.map_err(|e| e.to_string())?.path();
        let n = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("gen"))
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(n) = n
            && Manifest::path(&path).exists()
        {
            out.push((n, path));
        }
    }
    out.sort();
    Ok(out)
}

/// The directories a path stands for: a data root (no manifest of its own, generations
/// under it, as `data/`) its generations by number; anything else (a generation, a scratch
/// folder of raw files) itself.
fn directories_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !Manifest::path(path).exists() {
        let gens = generations(path)?;
        if !gens.is_empty() {
            return Ok(gens.into_iter().map(|(_, dir)| dir).collect());
        }
    }
    Ok(vec![path.to_path_buf()])
}

/// `data check [ROOT|GEN] [--deep]`: checks one generation, or every generation under a root,
/// and prints what each holds.
pub fn run_check(path: &Path, deep: bool) -> Result<(), String> {
    let dirs = directories_of(path)?;
    if !dirs.iter().all(|d| Manifest::path(d).exists()) {
        return Err(format!(
            "{}: no generation with a {MANIFEST}",
            path.display()
        ));
    }
    for dir in dirs {
        if deep {
            check_deep(&dir)?;
        } else {
            check_files(&dir)?;
        }
        if let Some(m) = Manifest::load(&dir)? {
            print_manifest(&dir, &m)?;
        }
    }
    Ok(())
}

/// One generation in a few lines.
pub fn print_manifest(dir: &Path, m: &Manifest) -> Result<(), String> {
    let t = &m.totals;
    let (w, d, b) = t.result_split();
    say!(
        "{}: generation {}, {} files, {} runs: {} games, {} positions ({} kept), white {w:.1}% / draws {d:.1}% / black {b:.1}%; {} bytes, {:.3} bytes per position — ok",
        dir.display(),
        m.generation,
        m.files.len(),
        m.runs.len(),
        t.games,
        t.positions,
        t.kept,
        m.bytes,
        m.bytes_per_position
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gamedata::GameWriter;
    use crate::nnue_data::{scratch_dir, test_game};

    fn count_games(source: &Path) -> usize {
        let mut n = 0;
        for_each_game(&[source.to_path_buf()], |_| {
            n += 1;
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        n
    }

    /// Flips one bit in the middle of a file; returns the file as it was.
    fn damage(path: &Path) -> Vec<u8> {
        let good = std::fs::read(path).unwrap();
        let mut bad = good.clone();
        bad[good.len() / 2] ^= 1;
        std::fs::write(path, &bad).unwrap();
        good
    }

    fn cfg(from: &Path, to: &Path) -> PackConfig {
        PackConfig {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            generation: Some(7),
            about: Some("test games".into()),
            level: 1,
        }
    }

    #[test]
    fn packing_adds_only_new_games_and_the_check_catches_every_damage() {
        let (scratch, store) = (scratch_dir("store-scratch"), scratch_dir("store-gen7"));
        let run = RunInfo::new(9, "test", "<default>").unwrap();
        let w = GameWriter::create(&scratch, &run, 0).unwrap();
        for i in 0..4 {
            w.write(&test_game(i, 20)).unwrap();
        }
        // A game cut off by a kill at the end of the raw file: not packed.
        let cut = test_game(99, 20).to_bytes();
        std::fs::OpenOptions::new()
            .append(true)
            .open(scratch.join("9-0.vf"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, &cut[..cut.len() - 5]))
            .unwrap();
        let first = pack(&cfg(&scratch, &store)).unwrap().unwrap();
        assert_eq!(first.name, "0001.vf.xz");
        assert_eq!(first.counts.games, 4);
        assert_eq!(first.counts.positions, 80);
        assert!(
            pack(&cfg(&scratch, &store)).unwrap().is_none(),
            "nothing new"
        );

        // More games from a second run and the first: one more file, only the new games.
        let run2 = RunInfo::new(11, "test", "<default>").unwrap();
        let w2 = GameWriter::create(&scratch, &run2, 1).unwrap();
        w2.write(&test_game(5, 30)).unwrap();
        let second = pack(&cfg(&scratch, &store)).unwrap().unwrap();
        assert_eq!(second.name, "0002.vf.xz");
        assert_eq!(second.counts.games, 1);
        let m = Manifest::load(&store).unwrap().unwrap();
        assert_eq!(m.totals.games, 5);
        assert_eq!(m.totals.positions, 110);
        assert_eq!(m.runs.len(), 2);
        check_deep(&store).unwrap();
        assert_eq!(count_games(&store), 5);

        // One byte changed: the check and every reader name the file.
        let path = store.join("0001.vf.xz");
        let good = damage(&path);
        let err = check_files(&store).unwrap_err();
        assert!(
            err.contains("0001.vf.xz") && err.contains("sha256"),
            "{err}"
        );
        let err = for_each_game(std::slice::from_ref(&store), |_| {
            std::ops::ControlFlow::Continue(())
        })
        .unwrap_err();
        assert!(err.contains("0001.vf.xz"), "{err}");
        // Cut short: the size disagrees.
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(check_files(&store).unwrap_err().contains("bytes"));
        std::fs::write(&path, &good).unwrap();
        check_files(&store).unwrap();
        // A file the manifest does not list.
        std::fs::write(store.join("0003.vf.xz"), &good).unwrap();
        assert!(check_files(&store).unwrap_err().contains("does not list"));
        std::fs::remove_file(store.join("0003.vf.xz")).unwrap();
        // A manifest whose counts were edited: only the deep check can see it.
        let mut m2 = m.clone();
        m2.files[1].counts.positions += 1;
        m2.update_totals();
        m2.save(&store).unwrap();
        check_files(&store).unwrap();
        assert!(check_deep(&store).unwrap_err().contains("0002.vf.xz"));
        let _ = std::fs::remove_dir_all(&scratch);
        let _ = std::fs::remove_dir_all(&store);
    }

    /// A data root reads as its generations, by number (gen2 before gen10), each checked.
    #[test]
    fn a_data_root_reads_as_its_generations_in_number_order() {
        let (scratch, root) = (scratch_dir("store-root-scratch"), scratch_dir("store-root"));
        let run = RunInfo::new(3, "test", "<default>").unwrap();
        let w = GameWriter::create(&scratch, &run, 0).unwrap();
        for (seed, plies, gen_number) in [(0, 20, 10), (1, 30, 2)] {
            w.write(&test_game(seed, plies)).unwrap();
            let mut c = cfg(&scratch, &root.join(format!("gen{gen_number}")));
            c.generation = Some(gen_number);
            pack(&c).unwrap().unwrap();
        }
        let files = resolve(std::slice::from_ref(&root)).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["gen2/0001.vf.xz", "gen10/0001.vf.xz"]);
        // gen2 packed both games (the scratch held two by then), gen10 the first.
        assert_eq!(count_games(&root), 3);
        // A damaged generation fails the root too.
        damage(&root.join("gen10/0001.vf.xz"));
        let err = resolve(std::slice::from_ref(&root)).unwrap_err();
        assert!(err.contains("gen10"), "{err}");
        let _ = std::fs::remove_dir_all(&scratch);
        let _ = std::fs::remove_dir_all(&root);
    }

    /// The generations kept in the repository agree with their manifests (checksums, sizes,
    /// nothing unlisted, totals), so data damaged or half-committed fails CI.
    #[test]
    fn the_repositorys_data_matches_its_manifests() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let gens = generations(&root).unwrap();
        assert!(!gens.is_empty(), "no generation under {}", root.display());
        for (_, dir) in gens {
            check_files(&dir).unwrap();
        }
    }
}
