//! Game data on disk: the one place that finds, reads and writes the viriformat files that
//! datagen, the tuner's games (`spsa`, `verify` with `--data-out`), the trainer, `stats`,
//! `eval-scale` and `wdl-fit` share.
//!
//! A data directory holds two kinds of file:
//! - `*.vf`: raw viriformat, written one whole game at a time by a running job, so a killed
//!   writer leaves at most one cut-off game at the end, which readers drop. Each run's files
//!   are `<seed>-<n>.vf` beside `<seed>.run.json`, the run's [`RunInfo`].
//! - `*.vf.xz`: packed files (`shears-tune data pack`, see `store.rs`): whole games only,
//!   xz-compressed, listed with their sha256 in the directory's `manifest.json`. A packed
//!   file that does not decode to whole games is an error naming it, never read in part.
//!
//! This module knows files; directories with manifests are `store.rs`, whose reader
//! (`store::for_each_game`) checks a directory's manifest before it reads it with
//! [`read_games`]: a file whose checksum disagrees, or a packed file the manifest does not
//! list, stops the read with an error naming the file.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::nnue_data::{Skip, skip_reason};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position as _};

use crate::viriformat::{self, Game};

/// The name a raw file ends with.
pub const RAW_SUFFIX: &str = ".vf";
/// The name a packed file ends with.
pub const PACKED_SUFFIX: &str = ".vf.xz";

/// The data files of a directory (raw and packed), sorted by name, so every reader sees the
/// games in one order.
pub fn data_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_raw(p) || is_packed(p))
        .collect();
    files.sort();
    Ok(files)
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Whether a path names a raw viriformat file.
pub fn is_raw(path: &Path) -> bool {
    name_of(path).ends_with(RAW_SUFFIX)
}

/// Whether a path names a packed (compressed) viriformat file.
pub fn is_packed(path: &Path) -> bool {
    name_of(path).ends_with(PACKED_SUFFIX)
}

/// Compresses viriformat bytes for a packed file: xz (LZMA2 at `preset`, 0-9) with the
/// literal and position bits set for 4-byte records (`lc=0,lp=2,pb=2`, as `xz --lzma2=`
/// names them), which viriformat's move-and-score pairs are: 3% smaller than the plain
/// preset, 17% smaller than zstd -19 on the same games (docs/nnue.md, "Data that lasts").
/// A packed file is a standard `.xz` stream: `xz -dc` reads it.
pub fn compress(bytes: &[u8], preset: u32) -> Result<Vec<u8>, String> {
    let xz = |e: liblzma::stream::Error| format!("xz: {e}");
    let mut opts = liblzma::stream::LzmaOptions::new_preset(preset).map_err(xz)?;
    opts.literal_context_bits(0)
        .literal_position_bits(2)
        .position_bits(2);
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&opts);
    let stream =
        liblzma::stream::Stream::new_stream_encoder(&filters, liblzma::stream::Check::Crc64)
            .map_err(xz)?;
    let mut enc =
        liblzma::write::XzEncoder::new_stream(Vec::with_capacity(bytes.len() / 2), stream);
    enc.write_all(bytes).map_err(|e| format!("xz: {e}"))?;
    enc.finish().map_err(|e| format!("xz: {e}"))
}

/// Decompresses a packed file's bytes; a damaged or cut-off stream is an error (the format's
/// CRC64 catches a changed byte even where no manifest is at hand).
fn decompress(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| format!("not a whole xz stream ({e})"))?;
    Ok(out)
}

/// The finished games of one data file, and the bytes after them (a game still being written
/// when a run was killed, only ever in a raw file); errors name the file.
pub fn read_games(path: &Path) -> Result<(Vec<Game>, usize), String> {
    let named = |e: String| format!("{}: {e}", path.display());
    let bytes = std::fs::read(path).map_err(|e| named(e.to_string()))?;
    if !is_packed(path) {
        return Game::read_all(&bytes).map_err(named);
    }
    let raw = decompress(&bytes).map_err(named)?;
    let (games, rest) = Game::read_all(&raw).map_err(named)?;
    if rest != 0 {
        return Err(named(format!(
            "a packed file ends inside a game ({rest} bytes left over): damaged, refused"
        )));
    }
    Ok((games, 0))
}

/// The sha256 of some bytes, as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a set of games holds: games, results, positions, and which positions a trainer keeps.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub games: u64,
    pub positions: u64,
    /// Games won by White, drawn, won by Black.
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Positions a trainer keeps (not in check, quiet best move, no mate score).
    pub kept: u64,
    pub in_check: u64,
    pub noisy: u64,
    pub mate_scores: u64,
}

impl Counts {
    /// Adds one game; `filter` also sorts its positions by what a trainer does with them.
    pub fn add(&mut self, g: &Game, filter: bool) {
        self.games += 1;
        self.positions += g.moves.len() as u64;
        match g.result {
            viriformat::WHITE_WIN => self.white_wins += 1,
            viriformat::BLACK_WIN => self.black_wins += 1,
            _ => self.draws += 1,
        }
        if filter {
            for (pos, m, score) in g.positions() {
                match skip_reason(&pos, &m, score) {
                    Some(Skip::InCheck) => self.in_check += 1,
                    Some(Skip::Noisy) => self.noisy += 1,
                    Some(Skip::Mate) => self.mate_scores += 1,
                    None => self.kept += 1,
                }
            }
        }
    }

    /// The sum of two counts.
    pub fn plus(mut self, o: &Counts) -> Counts {
        self.games += o.games;
        self.positions += o.positions;
        self.white_wins += o.white_wins;
        self.draws += o.draws;
        self.black_wins += o.black_wins;
        self.kept += o.kept;
        self.in_check += o.in_check;
        self.noisy += o.noisy;
        self.mate_scores += o.mate_scores;
        self
    }

    /// The results as percentages: White wins, draws, Black wins.
    pub fn result_split(&self) -> (f64, f64, f64) {
        let pct = |n: u64| 100.0 * n as f64 / self.games.max(1) as f64;
        (pct(self.white_wins), pct(self.draws), pct(self.black_wins))
    }
}

/// Where a run's games came from, kept beside its raw files (`<seed>.run.json`) and copied
/// into the manifest of the generation its games are packed into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The seed that names the run's files.
    pub seed: u64,
    /// `datagen`, `spsa` or `verify`.
    pub source: String,
    /// The command line that started the run.
    pub command: String,
    /// The commit the writing binary was built from (`-dirty` when the tree had changes).
    pub commit: String,
    /// The net of the games (`<default>` or a path), and the sha256 of its bytes.
    pub net: String,
    pub net_sha256: String,
    /// When the run started (seconds since 1970, UTC).
    pub started: u64,
}

/// The commit this binary was built from (see build.rs).
pub const COMMIT: &str = env!("SHEARS_TUNE_COMMIT");

/// The bytes of `nets/default.nnue` as this binary embeds them (what `<default>` loads).
const DEFAULT_NET: &[u8] = include_bytes!("../../nets/default.nnue");

/// The sha256 of a net's bytes: `<default>` is the built-in net; otherwise a file, which must
/// be readable.
pub fn net_sha256(net: &str) -> Result<String, String> {
    Ok(match net {
        "<default>" => sha256_hex(DEFAULT_NET),
        path => sha256_hex(&std::fs::read(path).map_err(|e| format!("{path}: {e}"))?),
    })
}

impl RunInfo {
    /// A run of this process: its command line, this binary's commit, and `net`'s checksum
    /// (`<default>`: the built-in net; otherwise the file, which must be readable).
    pub fn new(seed: u64, source: &str, net: &str) -> Result<RunInfo, String> {
        let net_sha256 = net_sha256(net)?;
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(RunInfo {
            seed,
            source: source.to_string(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            commit: COMMIT.to_string(),
            net: net.to_string(),
            net_sha256,
            started,
        })
    }

    /// The file that keeps a run's info in its raw directory.
    pub fn path(dir: &Path, seed: u64) -> PathBuf {
        dir.join(format!("{seed}.run.json"))
    }

    /// Writes the run's info into `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let path = Self::path(dir, self.seed);
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads a run's info; a missing or unreadable file is an error naming it.
    pub fn load(dir: &Path, seed: u64) -> Result<RunInfo, String> {
        let path = Self::path(dir, seed);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The seed in a raw file's name (`<seed>-<n>.vf`).
pub fn seed_of(path: &Path) -> Option<u64> {
    name_of(path).split('-').next()?.parse().ok()
}

/// A played game in viriformat: its start, each move with the mover's score turned to
/// White's view, and the result.
pub fn to_viriformat(record: &shears::selfplay::GameRecord) -> Result<Game, String> {
    let start: Chess = record
        .start_fen
        .parse::<Fen>()
        .map_err(|e| format!("{}: {e}", record.start_fen))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("{}: {e}", record.start_fen))?;
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(record.plies.len());
    for ply in &record.plies {
        let m = ply
            .uci
            .parse::<UciMove>()
            .map_err(|e| format!("{}: {e}", ply.uci))?
            .to_move(&pos)
            .map_err(|e| format!("{}: {e}", ply.uci))?;
        let white = if pos.turn() == Color::White {
            ply.score
        } else {
            -ply.score
        };
        moves.push((m, viriformat::clamp_score(white)));
        pos.play_unchecked(m);
    }
    Ok(Game {
        start,
        result: viriformat::result_code(record.outcome.white_score()),
        moves,
    })
}

/// A seed from the clock and the process id: every run's files get a name of their own.
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    shears::position::mix(t ^ u64::from(std::process::id()))
}

/// A writer for `--data-out DIR` of `spsa` and `verify`: the run's games, each game as it
/// ends, in `DIR/<fresh seed>-0.vf` (the run's `--seed` picks openings and is reused; the
/// file name must not be).
pub fn writer_for(
    dir: Option<&Path>,
    source: &str,
    net: &str,
) -> Result<Option<std::sync::Arc<GameWriter>>, String> {
    let Some(dir) = dir else { return Ok(None) };
    let run = RunInfo::new(fresh_seed(), source, net)?;
    Ok(Some(std::sync::Arc::new(GameWriter::create(dir, &run, 0)?)))
}

/// Writes a played game to `out`, if there is one.
pub fn keep(out: Option<&GameWriter>, record: &shears::selfplay::GameRecord) -> Result<(), String> {
    match out {
        Some(w) => w.write(&to_viriformat(record)?),
        None => Ok(()),
    }
}

/// Appends games to one raw file, one `write` per game, from any number of threads: a
/// killed run loses only the games in flight.
pub struct GameWriter {
    path: PathBuf,
    file: Mutex<File>,
}

impl GameWriter {
    /// Opens (or continues) `dir/<seed>-<n>.vf`, creating `dir` and the run's info file.
    pub fn create(dir: &Path, run: &RunInfo, n: usize) -> Result<GameWriter, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !RunInfo::path(dir, run.seed).exists() {
            run.save(dir)?;
        }
        let path = dir.join(format!("{}-{n}{RAW_SUFFIX}", run.seed));
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(GameWriter {
            path,
            file: Mutex::new(file),
        })
    }

    /// Appends one game.
    pub fn write(&self, game: &Game) -> Result<(), String> {
        self.file
            .lock()
            .map_err(|_| format!("{}: a writer panicked", self.path.display()))?
            .write_all(&game.to_bytes())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// Flushes the file to disk.
    pub fn sync(&self) -> Result<(), String> {
        self.file
            .lock()
            .map_err(|_| format!("{}: a writer panicked", self.path.display()))?
            .sync_all()
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue_data::{scratch_dir, test_game};

    #[test]
    fn a_packed_file_reads_back_the_same_games_and_a_cut_one_is_refused() {
        let dir = scratch_dir("gamedata-packed");
        let games: Vec<Game> = (0..5).map(|i| test_game(i, 30 + i as usize)).collect();
        let raw: Vec<u8> = games.iter().flat_map(|g| g.to_bytes()).collect();
        let path = dir.join(format!("a{PACKED_SUFFIX}"));
        let packed = compress(&raw, 9).unwrap();
        std::fs::write(&path, &packed).unwrap();
        let (back, rest) = read_games(&path).unwrap();
        assert_eq!(rest, 0);
        assert_eq!(back.len(), 5);
        assert!(
            back.iter()
                .zip(&games)
                .all(|(a, b)| a.to_bytes() == b.to_bytes())
        );

        // A compressed stream cut short: refused, naming the file.
        std::fs::write(&path, &packed[..packed.len() - 7]).unwrap();
        let err = read_games(&path).unwrap_err();
        assert!(err.contains("a.vf.xz"), "{err}");

        // A whole stream of a cut-off game: refused too (a raw file would drop the tail).
        let cut = compress(&raw[..raw.len() - 3], 1).unwrap();
        std::fs::write(&path, cut).unwrap();
        let err = read_games(&path).unwrap_err();
        assert!(err.contains("ends inside a game"), "{err}");
        let raw_path = dir.join("b.vf");
        std::fs::write(&raw_path, &raw[..raw.len() - 3]).unwrap();
        let (g, rest) = read_games(&raw_path).unwrap();
        assert_eq!((g.len(), rest > 0), (4, true));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_writer_appends_whole_games_and_keeps_its_run_info() {
        let dir = scratch_dir("gamedata-writer");
        let run = RunInfo::new(42, "test", "<default>").unwrap();
        assert_eq!(run.net_sha256.len(), 64);
        let w = GameWriter::create(&dir, &run, 3).unwrap();
        w.write(&test_game(1, 20)).unwrap();
        w.write(&test_game(2, 25)).unwrap();
        w.sync().unwrap();
        let files = data_files(&dir).unwrap();
        assert_eq!(files, [dir.join("42-3.vf")]);
        assert_eq!(seed_of(&files[0]), Some(42));
        assert_eq!(RunInfo::load(&dir, 42).unwrap(), run);
        let mut n = Counts::default();
        crate::store::for_each_game(std::slice::from_ref(&dir), |g| {
            n.add(g, true);
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(n.games, 2);
        assert_eq!(n.positions, 45);
        assert_eq!(n.kept + n.in_check + n.noisy + n.mate_scores, 45);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
