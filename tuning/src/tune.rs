//! The local SPSA tuner: plays game pairs between `theta + c * flip` and `theta - c * flip`,
//! in-process by default (two `Engine`s in one process), or through fastchess.
//!
//! Every finished iteration appends the parameter values to `values.csv` in the output
//! folder, so a stopped run resumes where it was; the run ends with `plot.png` and
//! `result.txt` (`NAME, value` lines in OpenBench's form, then old against new values).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use shears::Engine;
use shears::params::{PARAM_SPECS, ParamSpec, Params};
use shears::selfplay::{Adjudication, Outcome, TimeControl, play_game, read_book};

use crate::openings::random_start;
use crate::plot;
use crate::spsa::{Probe, Schedule, Spsa};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    InProcess,
    /// fastchess on the PATH (or the given command), driving this engine binary.
    Fastchess {
        fastchess: String,
        engine: PathBuf,
    },
}

#[derive(Clone)]
pub struct Config {
    pub params: Vec<&'static ParamSpec>,
    /// Iterations of the run, unless `budget_s` sets them.
    pub iterations: usize,
    /// A wall-clock budget in seconds: the iterations are those that fit, measured by a short
    /// calibration at the defaults when the run starts (kept in `iterations.txt`, so a resumed
    /// run keeps its schedule).
    pub budget_s: Option<f64>,
    pub pairs: usize,
    pub tc: TimeControl,
    pub concurrency: usize,
    pub book: PathBuf,
    pub out: PathBuf,
    pub runner: Runner,
    pub seed: u64,
    pub hash_mb: usize,
    pub adjudication: Adjudication,
    pub progress: bool,
    /// Where the tuned parameters start (those not named start at their defaults), e.g. margins
    /// rescaled for a new evaluation. Kept in `start.txt`, so a resumed run keeps it.
    pub start: Vec<(&'static ParamSpec, i32)>,
    /// Parameters set on both sides and not tuned (those not named keep their defaults), e.g.
    /// the result of an earlier stage of a campaign. Kept in `fixed.txt`, so a resumed run keeps
    /// them.
    pub fixed: Vec<(&'static ParamSpec, i32)>,
    /// The learning rate at the end of the run (OpenBench's `r_end`, 0.002 by default).
    pub r_end: f64,
    /// Where every game played in this process goes, in viriformat, for training nets
    /// (`--data-out DIR`; see `gamedata::writer_for`).
    pub games_out: Option<std::sync::Arc<crate::gamedata::GameWriter>>,
}

/// Parses `all` or a comma-separated list of parameter names.
pub fn select_params(list: &str) -> Result<Vec<&'static ParamSpec>, String> {
    if list.eq_ignore_ascii_case("all") {
        return Ok(PARAM_SPECS.iter().collect());
    }
    list.split(',')
        .map(|n| Params::spec(n.trim()).ok_or_else(|| format!("unknown parameter '{n}'")))
        .collect()
}

/// Parses `8+0.08` (seconds) or `nodes=N` / `depth=N`.
pub fn parse_tc(text: &str) -> Result<TimeControl, String> {
    if let Some(n) = text.strip_prefix("nodes=") {
        return n
            .parse()
            .map(TimeControl::Nodes)
            .map_err(|_| format!("bad node count '{n}'"));
    }
    if let Some(d) = text.strip_prefix("depth=") {
        return d
            .parse()
            .map(TimeControl::Depth)
            .map_err(|_| format!("bad depth '{d}'"));
    }
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let secs = |s: &str| {
        s.parse::<f64>()
            .map_err(|_| format!("bad time control '{text}'"))
    };
    let (base, inc) = (secs(base)?, secs(inc)?);
    if base <= 0.0 || inc < 0.0 {
        return Err(format!("bad time control '{text}'"));
    }
    Ok(TimeControl::Clock {
        base_ms: (base * 1000.0) as u64,
        inc_ms: (inc * 1000.0) as u64,
    })
}

fn tc_text(tc: TimeControl) -> String {
    match tc {
        TimeControl::Nodes(n) => format!("nodes={n}"),
        TimeControl::SoftNodes { soft, hard } => format!("softnodes={soft}/{hard}"),
        TimeControl::Depth(d) => format!("depth={d}"),
        TimeControl::Clock { base_ms, inc_ms } => {
            format!("{}+{}", base_ms as f64 / 1000.0, inc_ms as f64 / 1000.0)
        }
    }
}

/// Parameters for one side of a probe: the defaults, with the fixed ones and then the tuned
/// ones replaced.
fn params_with(cfg: &Config, values: &[i32]) -> Params {
    let mut p = Params::default();
    for (s, v) in &cfg.fixed {
        // Checked against the spec's range when read.
        let _ = p.set(s.name, i64::from(*v));
    }
    for (s, &v) in cfg.params.iter().zip(values) {
        // Values are clipped to the spec's range by the probe.
        let _ = p.set(s.name, i64::from(v));
    }
    p
}

/// Result of a set of game pairs from the `+` side's point of view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Score {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Score {
    fn add(&mut self, plus_is_white: bool, outcome: Outcome) {
        match (outcome, plus_is_white) {
            (Outcome::Draw, _) => self.draws += 1,
            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => self.wins += 1,
            _ => self.losses += 1,
        }
    }

    pub fn net(&self) -> f64 {
        f64::from(self.wins) - f64::from(self.losses)
    }
}

/// Plays `pairs` game pairs in this process.
fn play_pairs_in_process(
    cfg: &Config,
    book: &[String],
    probe: &Probe,
    engines: &mut (Engine, Engine),
    rng: &mut StdRng,
) -> Result<Score, String> {
    let (plus, minus) = engines;
    plus.set_params(params_with(cfg, &probe.plus))?;
    minus.set_params(params_with(cfg, &probe.minus))?;
    let mut score = Score::default();
    for _ in 0..cfg.pairs {
        let fen = random_start(book, 0, rng).ok_or("no usable opening")?;
        let g = play_game(plus, minus, Some(&fen), cfg.tc, &cfg.adjudication)?;
        score.add(true, g.outcome);
        crate::gamedata::keep(cfg.games_out.as_deref(), &g)?;
        let g = play_game(minus, plus, Some(&fen), cfg.tc, &cfg.adjudication)?;
        score.add(false, g.outcome);
        crate::gamedata::keep(cfg.games_out.as_deref(), &g)?;
    }
    Ok(score)
}

/// Plays `pairs` game pairs with fastchess and reads its tally.
fn play_pairs_fastchess(
    cfg: &Config,
    fastchess: &str,
    engine: &Path,
    probe: &Probe,
    seed: u64,
) -> Result<Score, String> {
    let mut cmd = Command::new(fastchess);
    for (name, values) in [("plus", &probe.plus), ("minus", &probe.minus)] {
        cmd.arg("-engine")
            .arg(format!("cmd={}", engine.display()))
            .arg(format!("name={name}"))
            .arg(format!("option.Hash={}", cfg.hash_mb));
        for (s, v) in &cfg.fixed {
            cmd.arg(format!("option.{}={v}", s.name));
        }
        for (s, v) in cfg.params.iter().zip(values.iter()) {
            cmd.arg(format!("option.{}={v}", s.name));
        }
    }
    let each = match cfg.tc {
        TimeControl::Nodes(n) => format!("tc=1000+1 nodes={n}"),
        TimeControl::Depth(d) => format!("tc=1000+1 depth={d}"),
        tc => format!("tc={}", tc_text(tc)),
    };
    cmd.arg("-each").args(each.split(' '));
    cmd.args(["-games", "2", "-repeat", "-concurrency", "1", "-rounds"])
        .arg(cfg.pairs.to_string())
        .arg("-openings")
        .arg(format!("file={}", cfg.book.display()))
        .args(["format=epd", "order=random"])
        .arg("-srand")
        .arg(seed.to_string());
    // fastchess saves its state to config.json in the working directory unless told where.
    let state =
        std::env::temp_dir().join(format!("shears-tune-fastchess-{}.json", std::process::id()));
    cmd.arg("-config")
        .arg(format!("outname={}", state.display()));
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {fastchess}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_fastchess_tally(&text).ok_or_else(|| {
        format!(
            "no result in fastchess output: {}",
            text.lines().last().unwrap_or("")
        )
    })
}

/// Reads the last `Games: N, Wins: W, Losses: L, Draws: D` line of fastchess output.
pub fn parse_fastchess_tally(text: &str) -> Option<Score> {
    let line = text.lines().rev().find(|l| l.contains("Wins:"))?;
    let field = |name: &str| -> Option<u32> {
        let rest = &line[line.find(name)? + name.len()..];
        rest.trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some(Score {
        wins: field("Wins:")?,
        losses: field("Losses:")?,
        draws: field("Draws:")?,
    })
}

/// The CSV header of a run over these parameters.
fn csv_header(specs: &[&ParamSpec]) -> String {
    let mut h = String::from("iteration,wins,losses,draws");
    for s in specs {
        h.push(',');
        h.push_str(s.name);
    }
    h
}

/// Where an existing run stopped: the highest iteration written (workers finish out of order)
/// and the values of the last row, which are the latest. `None` for a new run.
pub fn resume_point(
    path: &Path,
    specs: &[&ParamSpec],
) -> Result<Option<(usize, Vec<f64>)>, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let mut lines = text.lines();
    match lines.next() {
        None => return Ok(None),
        Some(h) if h == csv_header(specs) => {}
        Some(_) => {
            return Err(format!(
                "{} belongs to a run over other parameters; choose another --out",
                path.display()
            ));
        }
    }
    let rows: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    let Some(last) = rows.last() else {
        return Ok(None);
    };
    let mut iteration = 0;
    for row in &rows {
        let k = row
            .split(',')
            .next()
            .and_then(|k| k.parse::<usize>().ok())
            .ok_or_else(|| format!("bad iteration in {}", path.display()))?;
        iteration = iteration.max(k);
    }
    let fields: Vec<&str> = last.split(',').collect();
    let values = fields[4..]
        .iter()
        .map(|v| v.parse::<f64>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| format!("bad value in {}", path.display()))?;
    if values.len() != specs.len() {
        return Err(format!("{} has a short line", path.display()));
    }
    Ok(Some((iteration, values)))
}

/// Reads every value row of a run's CSV (for the plot).
fn read_history(path: &Path, n: usize) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut columns = vec![Vec::new(); n];
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != n + 4 {
            continue;
        }
        for (i, v) in fields[4..].iter().enumerate() {
            if let Ok(x) = v.parse() {
                columns[i].push(x);
            }
        }
    }
    columns
}

/// The value a list of `NAME, value` pairs gives a parameter (the last, if named twice).
fn value_in(values: &[(&'static ParamSpec, i32)], p: &ParamSpec) -> Option<i32> {
    values
        .iter()
        .rev()
        .find(|(s, _)| s.name == p.name)
        .map(|&(_, v)| v)
}

/// The start values in the `start.txt` beside a run's `values.csv` (none: the run began at the
/// defaults, or predates `--start`).
fn started_values(csv: &Path) -> Vec<(&'static ParamSpec, i32)> {
    csv.parent()
        .map(|dir| dir.join("start.txt"))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| crate::values::parse_values(&text).ok())
        .unwrap_or_default()
}

/// Draws the plot of a run from its `values.csv` (while it runs, or after): each parameter's
/// path against the iterations, started from the run's `start.txt` beside the CSV where there
/// is one (`--start`), else from the parameter's current default, with its range and `c_end`
/// from `src/params.rs`. A parameter no longer there (renamed since the run) is drawn from its
/// first value, with no band.
pub fn replot(csv: &Path, out: &Path) -> Result<(), String> {
    let started = started_values(csv);
    let start_of = |p: &ParamSpec| value_in(&started, p).unwrap_or(p.default);
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    let header = text.lines().next().unwrap_or_default();
    let names: Vec<&str> = header.split(',').skip(4).collect();
    if names.is_empty() || !header.starts_with("iteration,") {
        return Err(format!(
            "{}: not the values.csv of a tuning run",
            csv.display()
        ));
    }
    let history = read_history(csv, names.len());
    let series: Vec<plot::Series> = names
        .iter()
        .zip(&history)
        .map(|(name, values)| match Params::spec(name) {
            Some(p) => plot::Series {
                name,
                min: f64::from(p.min),
                max: f64::from(p.max),
                start: f64::from(start_of(p)),
                c_end: f64::from(p.step),
                values,
            },
            None => plot::Series {
                name,
                min: f64::NEG_INFINITY,
                max: f64::INFINITY,
                start: values.first().copied().unwrap_or(0.0),
                c_end: 0.0,
                values,
            },
        })
        .collect();
    plot::write_png(out, &series)
}

/// How a parameter's path ended: its move over the last fifth of the iterations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drift {
    /// `value(end) - value(start of the last fifth)`.
    pub last_fifth: f64,
    /// Whether that move stays within `c_end`: the path ends flat inside its band.
    pub settled: bool,
}

/// The drift of one parameter's path (its values at every finished iteration).
pub fn drift(values: &[f64], c_end: f64) -> Option<Drift> {
    let (&end, n) = (values.last()?, values.len());
    let from = values[n - n.div_ceil(5).max(1)..]
        .first()
        .copied()
        .unwrap_or(end);
    let last_fifth = end - from;
    Some(Drift {
        last_fifth,
        settled: n >= 5 && last_fifth.abs() <= c_end,
    })
}

/// `NAME, value` lines (OpenBench's output form), then a table of old against new values with
/// each change in units of `c_end` and the drift over the last fifth of the run (`history`:
/// each parameter's values at every iteration, as `values.csv` holds them).
pub fn result_text(spsa: &Spsa, history: &[Vec<f64>]) -> String {
    let mut out = String::new();
    for p in &spsa.params {
        let _ = writeln!(out, "{}, {}", p.name, p.value.round() as i64);
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<22} {:>8} {:>8} {:>8} {:>8} {:>11}  {:<9} range",
        "parameter", "old", "new", "change", "/ c_end", "last fifth", "settled"
    );
    for (i, p) in spsa.params.iter().enumerate() {
        let d = history.get(i).and_then(|h| drift(h, p.c_end));
        let (last, settled) = match d {
            Some(d) => (
                format!("{:+.1}", d.last_fifth),
                if d.settled { "yes" } else { "no" },
            ),
            None => ("-".to_string(), "-"),
        };
        let _ = writeln!(
            out,
            "{:<22} {:>8} {:>8} {:>+8} {:>+8.1} {:>11}  {:<9} [{}, {}]",
            p.name,
            p.start.round() as i64,
            p.value.round() as i64,
            (p.value.round() - p.start.round()) as i64,
            (p.value - p.start) / p.c_end,
            last,
            settled,
            p.min,
            p.max
        );
    }
    out
}

/// Seconds per iteration of this machine and runner: every worker plays iterations' pairs at
/// the defaults at once, at least two and for at least `min_s` seconds; the wall time over the
/// iterations played.
fn calibrate(cfg: &Config, book: &[String], start: &[i32], min_s: f64) -> Result<f64, String> {
    let probe = Probe {
        iteration: 0,
        flips: vec![1.0; start.len()],
        plus: start.to_vec(),
        minus: start.to_vec(),
        c: vec![0.0; cfg.params.len()],
        r: vec![0.0; cfg.params.len()],
    };
    let workers = cfg.concurrency.max(1);
    let start = Instant::now();
    let results: Vec<Result<u64, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let probe = &probe;
                scope.spawn(move || -> Result<u64, String> {
                    let mut engines = (Engine::new(), Engine::new());
                    for e in [&mut engines.0, &mut engines.1] {
                        e.set_option("Hash", Some(&cfg.hash_mb.to_string()))?;
                    }
                    let mut rng = StdRng::seed_from_u64(cfg.seed ^ 0xCA11 ^ w as u64);
                    let mut played = 0u64;
                    while played < 2 || start.elapsed().as_secs_f64() < min_s {
                        match &cfg.runner {
                            Runner::InProcess => {
                                play_pairs_in_process(cfg, book, probe, &mut engines, &mut rng)?;
                            }
                            Runner::Fastchess { fastchess, engine } => {
                                play_pairs_fastchess(
                                    cfg,
                                    fastchess,
                                    engine,
                                    probe,
                                    cfg.seed ^ played,
                                )?;
                            }
                        }
                        played += 1;
                    }
                    Ok(played)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a worker panicked".to_string()))
            })
            .collect()
    });
    let mut iterations = 0;
    for r in results {
        iterations += r?;
    }
    Ok(start.elapsed().as_secs_f64() / iterations.max(1) as f64)
}

/// The iterations of a run: `cfg.iterations`, or with a budget those in `iterations.txt`, or
/// those that fit the budget after a calibration (then written there).
fn iterations_of(cfg: &Config, book: &[String], start: &[i32]) -> Result<usize, String> {
    let Some(budget) = cfg.budget_s else {
        return Ok(cfg.iterations);
    };
    let path = cfg.out.join("iterations.txt");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return text
            .trim()
            .parse()
            .map_err(|_| format!("{}: not a number of iterations", path.display()));
    }
    // The calibration takes 2% of the budget (at least two iterations per worker) out of it.
    let clock = Instant::now();
    let per_iteration = calibrate(cfg, book, start, budget * 0.02)?;
    let left = budget - clock.elapsed().as_secs_f64();
    let n = ((left / per_iteration).floor() as usize).max(1);
    eprintln!(
        "calibration: {per_iteration:.2} s per iteration on {} workers; {n} iterations fit the {left:.0} s left",
        cfg.concurrency.max(1)
    );
    std::fs::write(&path, format!("{n}\n")).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(n)
}

/// The tuned parameters' start values: `start.txt` of a run being resumed, else `cfg.start`
/// over the defaults (then written to `start.txt`). A resumed run given other start values
/// than it began with is refused.
fn start_values(cfg: &Config) -> Result<Vec<i32>, String> {
    for (spec, _) in &cfg.start {
        if !cfg.params.iter().any(|p| p.name == spec.name) {
            return Err(format!("--start names {}, which is not tuned", spec.name));
        }
    }
    let given: Vec<i32> = cfg
        .params
        .iter()
        .map(|p| value_in(&cfg.start, p).unwrap_or(p.default))
        .collect();
    let path = cfg.out.join("start.txt");
    match std::fs::read_to_string(&path) {
        Ok(kept) => {
            let kept_values = crate::values::parse_values(&kept)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let values: Vec<i32> = cfg
                .params
                .iter()
                .map(|p| {
                    value_in(&kept_values, p)
                        .ok_or_else(|| format!("{}: no start for {}", path.display(), p.name))
                })
                .collect::<Result<_, _>>()?;
            if !cfg.start.is_empty() && values != given {
                return Err(format!(
                    "{} began from other start values ({}); resume it without --start or with the same",
                    cfg.out.display(),
                    path.display()
                ));
            }
            Ok(values)
        }
        Err(_) => {
            let text: String = cfg
                .params
                .iter()
                .zip(&given)
                .map(|(p, v)| format!("{}, {v}\n", p.name))
                .collect();
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(given)
        }
    }
}

/// The parameters fixed on both sides: `fixed.txt` of a run being resumed (none there: a run
/// from before `--fixed`, or one without), else `cfg.fixed` (then written to `fixed.txt`). A
/// resumed run given other fixed values than it began with is refused, as is a fixed parameter
/// that is also tuned.
fn fixed_values(cfg: &Config) -> Result<Vec<(&'static ParamSpec, i32)>, String> {
    for (spec, _) in &cfg.fixed {
        if cfg.params.iter().any(|p| p.name == spec.name) {
            return Err(format!("--fixed names {}, which is tuned", spec.name));
        }
    }
    let path = cfg.out.join("fixed.txt");
    let text = |values: &[(&ParamSpec, i32)]| -> String {
        values
            .iter()
            .map(|(p, v)| format!("{}, {v}\n", p.name))
            .collect()
    };
    let resuming = cfg.out.join("values.csv").exists();
    match std::fs::read_to_string(&path) {
        Ok(kept) => {
            let kept_values = if kept.trim().is_empty() {
                Vec::new()
            } else {
                crate::values::parse_values(&kept)
                    .map_err(|e| format!("{}: {e}", path.display()))?
            };
            if !cfg.fixed.is_empty() && text(&kept_values) != text(&cfg.fixed) {
                return Err(format!(
                    "{} began with other fixed values ({}); resume it without --fixed or with the same",
                    cfg.out.display(),
                    path.display()
                ));
            }
            Ok(kept_values)
        }
        Err(_) if resuming && !cfg.fixed.is_empty() => Err(format!(
            "{} began without fixed values; resume it without --fixed",
            cfg.out.display()
        )),
        Err(_) => {
            std::fs::write(&path, text(&cfg.fixed))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(cfg.fixed.clone())
        }
    }
}

/// What plays the games, by checksum: this binary's built-in net (in-process), or the engine
/// binary fastchess drives (which carries its net). Kept in `net.txt`, one line `net <default>
/// SHA256` or `engine PATH SHA256`. A run resumed with another is refused, as is a run from
/// before `net.txt` (its games' net is unknown): an SPSA path is only meaningful on one net.
fn check_net(cfg: &Config) -> Result<(), String> {
    let (kind, name) = match &cfg.runner {
        Runner::InProcess => ("net", "<default>".to_string()),
        Runner::Fastchess { engine, .. } => ("engine", engine.to_string_lossy().into_owned()),
    };
    let sha = crate::gamedata::net_sha256(&name)?;
    let path = cfg.out.join("net.txt");
    match std::fs::read_to_string(&path) {
        Ok(kept) => {
            let words: Vec<&str> = kept.split_whitespace().collect();
            if words.first() == Some(&kind) && words.last() == Some(&sha.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "{} began with another {kind} ({}: {}); this one is {name} {}: start a new --out folder",
                    cfg.out.display(),
                    path.display(),
                    kept.trim(),
                    &sha[..16]
                ))
            }
        }
        Err(_) if cfg.out.join("values.csv").exists() => Err(format!(
            "{} has no net.txt: it began before runs recorded their net, so the net of its games \
             is unknown; start a new --out folder",
            cfg.out.display()
        )),
        Err(_) => std::fs::write(&path, format!("{kind} {name} {sha}\n"))
            .map_err(|e| format!("{}: {e}", path.display())),
    }
}

pub fn run(cfg: &Config) -> Result<Spsa, String> {
    if cfg.params.is_empty() {
        return Err("no parameters to tune".to_string());
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    check_net(cfg)?;
    let cfg = &Config {
        fixed: fixed_values(cfg)?,
        ..cfg.clone()
    };
    let text =
        std::fs::read_to_string(&cfg.book).map_err(|e| format!("{}: {e}", cfg.book.display()))?;
    let book = read_book(&text);
    if book.is_empty() {
        return Err(format!("no positions in {}", cfg.book.display()));
    }

    let start = start_values(cfg)?;
    let specs: Vec<(String, f64, f64, f64, f64, f64)> = cfg
        .params
        .iter()
        .zip(&start)
        .map(|(s, &v)| {
            (
                s.name.to_string(),
                f64::from(v),
                f64::from(s.min),
                f64::from(s.max),
                f64::from(s.step),
                cfg.r_end,
            )
        })
        .collect();
    let iterations = iterations_of(cfg, &book, &start)?;
    let mut spsa = Spsa::new(Schedule::new(iterations), &specs);
    let csv_path = cfg.out.join("values.csv");
    let mut done = 0;
    if let Some((iteration, values)) = resume_point(&csv_path, &cfg.params)? {
        for (p, v) in spsa.params.iter_mut().zip(values) {
            p.value = v;
        }
        done = iteration;
        eprintln!(
            "resuming after iteration {iteration} from {}",
            csv_path.display()
        );
    } else {
        std::fs::write(&csv_path, csv_header(&cfg.params) + "\n")
            .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    }

    let bar = crate::progress::games_bar((iterations * cfg.pairs * 2) as u64, cfg.progress)?;
    bar.set_position((done * cfg.pairs * 2) as u64);
    bar.reset_eta();

    struct Shared {
        spsa: Spsa,
        next: usize,
        finished: usize,
        csv: std::fs::File,
        error: Option<String>,
    }
    let csv = std::fs::OpenOptions::new()
        .append(true)
        .open(&csv_path)
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    let shared = Mutex::new(Shared {
        spsa,
        next: done + 1,
        finished: done,
        csv,
        error: None,
    });
    let start = Instant::now();

    std::thread::scope(|scope| {
        for worker in 0..cfg.concurrency.max(1) {
            let (shared, book, bar) = (&shared, &book, &bar);
            scope.spawn(move || {
                let mut engines = (Engine::new(), Engine::new());
                for e in [&mut engines.0, &mut engines.1] {
                    let _ = e.set_option("Hash", Some(&cfg.hash_mb.to_string()));
                }
                loop {
                    let (probe, seed) = {
                        let Ok(mut s) = shared.lock() else { return };
                        if s.next > iterations || s.error.is_some() {
                            return;
                        }
                        let k = s.next;
                        s.next += 1;
                        let seed = cfg.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                        let mut rng = StdRng::seed_from_u64(seed);
                        (s.spsa.probe(k, &mut rng), seed)
                    };
                    let mut rng = StdRng::seed_from_u64(seed ^ 0xABCD ^ worker as u64);
                    let score = match &cfg.runner {
                        Runner::InProcess => {
                            play_pairs_in_process(cfg, book, &probe, &mut engines, &mut rng)
                        }
                        Runner::Fastchess { fastchess, engine } => {
                            play_pairs_fastchess(cfg, fastchess, engine, &probe, seed)
                        }
                    };
                    let Ok(mut s) = shared.lock() else { return };
                    let score = match score {
                        Ok(score) => score,
                        Err(e) => {
                            s.error = Some(e);
                            return;
                        }
                    };
                    s.spsa.update(&probe, score.net());
                    s.finished += 1;
                    let mut row = format!(
                        "{},{},{},{}",
                        probe.iteration, score.wins, score.losses, score.draws
                    );
                    for p in &s.spsa.params {
                        let _ = write!(row, ",{:.4}", p.value);
                    }
                    let _ = writeln!(s.csv, "{row}");
                    bar.inc((cfg.pairs * 2) as u64);
                    bar.set_message(format!("iteration {}/{}", s.finished, iterations));
                }
            });
        }
    });
    bar.finish();
    let Shared { spsa, error, .. } = shared.into_inner().map_err(|_| "a worker panicked")?;
    if let Some(e) = error {
        return Err(e);
    }

    let history = read_history(&csv_path, spsa.params.len());
    let series: Vec<plot::Series> = spsa
        .params
        .iter()
        .zip(&history)
        .map(|(p, values)| plot::Series {
            name: &p.name,
            min: p.min,
            max: p.max,
            start: p.start,
            c_end: p.c_end,
            values,
        })
        .collect();
    plot::write_png(&cfg.out.join("plot.png"), &series)?;
    let result = result_text(&spsa, &history);
    std::fs::write(cfg.out.join("result.txt"), &result)
        .map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    eprintln!(
        "{} iterations in {:.0} s ({} games)",
        iterations - done,
        start.elapsed().as_secs_f64(),
        (iterations - done) * cfg.pairs * 2
    );
    crate::report::print_report(&result)?;
    Ok(spsa)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        assert_eq!(
            parse_tc("8+0.08").unwrap(),
            TimeControl::Clock {
                base_ms: 8000,
                inc_ms: 80
            }
        );
        assert_eq!(parse_tc("nodes=5000").unwrap(), TimeControl::Nodes(5000));
        assert_eq!(parse_tc("depth=6").unwrap(), TimeControl::Depth(6));
        assert!(parse_tc("x+1").is_err());
        assert!(parse_tc("-5+1").is_err());
    }

    #[test]
    fn fastchess_tally_is_read() {
        let out = "Results of plus vs minus (8+0.08, 1t, 16MB, book.epd):\n\
                   Elo: 3.47 +/- 20.3, nElo: 5.1 +/- 30.0\n\
                   Games: 8, Wins: 3, Losses: 2, Draws: 3, Points: 4.5 (56.25 %)\n";
        assert_eq!(
            parse_fastchess_tally(out),
            Some(Score {
                wins: 3,
                losses: 2,
                draws: 3
            })
        );
        assert_eq!(parse_fastchess_tally("nothing here"), None);
    }

    #[test]
    fn parameters_are_selected_by_name() {
        assert_eq!(select_params("all").unwrap().len(), PARAM_SPECS.len());
        let two = select_params("rfp_mul, NMP_BASE").unwrap();
        assert_eq!(two[0].name, "RFP_MUL");
        assert_eq!(two[1].name, "NMP_BASE");
        assert!(select_params("NOPE").is_err());
    }

    /// A real (tiny) tuning run: two iterations of in-process games, then a resumed third.
    #[test]
    fn a_short_run_finishes_and_resumes() {
        let dir = crate::nnue_data::scratch_dir("spsa");
        let book = dir.join("book.epd");
        std::fs::write(
            &book,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n\
             rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n",
        )
        .unwrap();
        let mut cfg = Config {
            params: select_params("RFP_MUL,LMR_BASE").unwrap(),
            iterations: 2,
            budget_s: None,
            pairs: 1,
            tc: TimeControl::Nodes(300),
            concurrency: 2,
            book,
            out: dir.join("run"),
            runner: Runner::InProcess,
            seed: 3,
            hash_mb: 1,
            adjudication: Adjudication {
                max_plies: 120,
                ..Adjudication::default()
            },
            progress: false,
            start: Vec::new(),
            fixed: Vec::new(),
            r_end: shears::params::DEFAULT_R_END,
            games_out: None,
        };
        run(&cfg).unwrap();
        let csv = std::fs::read_to_string(cfg.out.join("values.csv")).unwrap();
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(cfg.out.join("plot.png").exists());
        let result = std::fs::read_to_string(cfg.out.join("result.txt")).unwrap();
        assert!(result.starts_with("RFP_MUL, "));
        // Resume into a longer run: only the missing iteration is played.
        cfg.iterations = 3;
        run(&cfg).unwrap();
        let csv = std::fs::read_to_string(cfg.out.join("values.csv")).unwrap();
        assert_eq!(csv.lines().count(), 4, "{csv}");
        // A budget instead of a count: the calibration fixes the iterations, written down so a
        // resumed run keeps them (here one already played: nothing is left).
        cfg.out = dir.join("budget");
        cfg.budget_s = Some(2.0);
        run(&cfg).unwrap();
        let n: usize = std::fs::read_to_string(cfg.out.join("iterations.txt"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(n >= 1);
        let csv = std::fs::read_to_string(cfg.out.join("values.csv")).unwrap();
        assert_eq!(csv.lines().count(), n + 1, "{csv}");
        run(&cfg).unwrap();
        let again = std::fs::read_to_string(cfg.out.join("values.csv")).unwrap();
        assert_eq!(again, csv);
        // A run from other start values: the first probes straddle them, start.txt keeps them,
        // and resuming with different ones is refused.
        cfg.out = dir.join("start");
        cfg.budget_s = None;
        cfg.iterations = 1;
        cfg.start = crate::values::parse_values("RFP_MUL=150").unwrap();
        let spsa = run(&cfg).unwrap();
        assert_eq!(spsa.params[0].start, 150.0);
        assert!((spsa.params[0].value - 150.0).abs() < 10.0);
        let kept = std::fs::read_to_string(cfg.out.join("start.txt")).unwrap();
        let started = started_values(&cfg.out.join("values.csv"));
        assert_eq!(started.len(), 2);
        assert_eq!((started[0].0.name, started[0].1), ("RFP_MUL", 150));
        assert!(
            started_values(&dir.join("run").join("values.csv"))
                .iter()
                .all(|(s, v)| *v == s.default)
        );
        let lmr_default = select_params("LMR_BASE").unwrap()[0].default;
        assert_eq!(kept, format!("RFP_MUL, 150\nLMR_BASE, {lmr_default}\n"));
        cfg.iterations = 2;
        cfg.start = Vec::new();
        assert_eq!(run(&cfg).unwrap().params[0].start, 150.0);
        cfg.start = crate::values::parse_values("RFP_MUL=100").unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("other start values"))
        );
        cfg.start = crate::values::parse_values("NMP_BASE=3").unwrap();
        assert!(run(&cfg).err().is_some_and(|e| e.contains("not tuned")));
        // Values fixed on both sides: kept in fixed.txt, kept on resume, others refused, and a
        // tuned parameter cannot be fixed.
        cfg.start = Vec::new();
        cfg.out = dir.join("fixed");
        cfg.iterations = 1;
        cfg.fixed = crate::values::parse_values("NMP_BASE=3,FP_BASE=150").unwrap();
        run(&cfg).unwrap();
        let kept = std::fs::read_to_string(cfg.out.join("fixed.txt")).unwrap();
        assert_eq!(kept, "NMP_BASE, 3\nFP_BASE, 150\n");
        cfg.iterations = 2;
        cfg.fixed = Vec::new();
        run(&cfg).unwrap();
        cfg.fixed = crate::values::parse_values("NMP_BASE=4").unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("other fixed values"))
        );
        // A run begun without them (fixed.txt empty), or from before `--fixed` (no file).
        cfg.out = dir.join("run");
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("other fixed values"))
        );
        std::fs::remove_file(cfg.out.join("fixed.txt")).unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("began without fixed values"))
        );
        cfg.out = dir.join("fixed-tuned");
        cfg.fixed = crate::values::parse_values("RFP_MUL=100").unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("which is tuned"))
        );
        // The net of the games: net.txt names the built-in net by checksum; a run begun with
        // another net (its line rewritten here) or before net.txt existed is refused.
        cfg.out = dir.join("run");
        cfg.fixed = Vec::new();
        let net_txt = cfg.out.join("net.txt");
        let kept = std::fs::read_to_string(&net_txt).unwrap();
        let builtin = crate::gamedata::net_sha256("<default>").unwrap();
        assert_eq!(kept, format!("net <default> {builtin}\n"));
        std::fs::write(&net_txt, format!("net <default> {}\n", "0".repeat(64))).unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("began with another net"))
        );
        std::fs::remove_file(&net_txt).unwrap();
        assert!(
            run(&cfg)
                .err()
                .is_some_and(|e| e.contains("has no net.txt"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Both sides of a probe carry the fixed values; the tuned ones override the defaults.
    #[test]
    fn a_probe_plays_the_fixed_values_on_both_sides() {
        let cfg = Config {
            params: select_params("RFP_MUL").unwrap(),
            iterations: 1,
            budget_s: None,
            pairs: 1,
            tc: TimeControl::Nodes(300),
            concurrency: 1,
            book: PathBuf::new(),
            out: PathBuf::new(),
            runner: Runner::InProcess,
            seed: 1,
            hash_mb: 1,
            adjudication: Adjudication::default(),
            progress: false,
            start: Vec::new(),
            fixed: crate::values::parse_values("NMP_BASE=3").unwrap(),
            r_end: shears::params::DEFAULT_R_END,
            games_out: None,
        };
        let p = params_with(&cfg, &[123]);
        assert_eq!(p.RFP_MUL, 123);
        assert_eq!(p.NMP_BASE, 3);
        assert_eq!(p.LMR_BASE, Params::default().LMR_BASE);
    }

    /// Under fastchess, net.txt names the engine binary (which carries its net) by checksum: the
    /// same bytes resume, a rebuilt binary or a run begun in process is refused.
    #[test]
    fn a_fastchess_run_keeps_its_engine_binary() {
        let dir = crate::nnue_data::scratch_dir("checknet");
        let engine = dir.join("engine-bin");
        std::fs::write(&engine, b"first build").unwrap();
        let mut cfg = Config {
            params: select_params("RFP_MUL").unwrap(),
            iterations: 1,
            budget_s: None,
            pairs: 1,
            tc: TimeControl::Nodes(300),
            concurrency: 1,
            book: PathBuf::new(),
            out: dir.join("run"),
            runner: Runner::Fastchess {
                fastchess: "fastchess".to_string(),
                engine: engine.clone(),
            },
            seed: 1,
            hash_mb: 1,
            adjudication: Adjudication::default(),
            progress: false,
            start: Vec::new(),
            fixed: Vec::new(),
            r_end: shears::params::DEFAULT_R_END,
            games_out: None,
        };
        std::fs::create_dir_all(&cfg.out).unwrap();
        check_net(&cfg).unwrap();
        let kept = std::fs::read_to_string(cfg.out.join("net.txt")).unwrap();
        let sha = crate::gamedata::net_sha256(&engine.to_string_lossy()).unwrap();
        assert_eq!(kept, format!("engine {} {sha}\n", engine.display()));
        check_net(&cfg).unwrap();
        // The same path, other bytes: a rebuild with another net (or other code).
        std::fs::write(&engine, b"second build").unwrap();
        assert!(
            check_net(&cfg)
                .err()
                .is_some_and(|e| e.contains("began with another engine"))
        );
        // The first bytes again resume; an in-process runner on this folder is refused.
        std::fs::write(&engine, b"first build").unwrap();
        check_net(&cfg).unwrap();
        cfg.runner = Runner::InProcess;
        assert!(
            check_net(&cfg)
                .err()
                .is_some_and(|e| e.contains("began with another net"))
        );
        // A missing engine binary is an error, not a fresh net.txt.
        cfg.runner = Runner::Fastchess {
            fastchess: "fastchess".to_string(),
            engine: dir.join("no-such-engine"),
        };
        cfg.out = dir.join("other");
        std::fs::create_dir_all(&cfg.out).unwrap();
        assert!(check_net(&cfg).is_err());
        assert!(!cfg.out.join("net.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn drift_says_whether_a_path_ended_flat() {
        // Climbed, then flat within c_end over the last fifth: settled.
        let flat: Vec<f64> = (0..100).map(|i| f64::from(i.min(70))).collect();
        let d = drift(&flat, 2.0).unwrap();
        assert_eq!(d.last_fifth, 0.0);
        assert!(d.settled);
        // Still climbing at the end: 20 over the last 20 iterations.
        let climbing: Vec<f64> = (0..100).map(f64::from).collect();
        let d = drift(&climbing, 2.0).unwrap();
        assert_eq!(d.last_fifth, 19.0);
        assert!(!d.settled);
        // Too short a path says nothing is settled; an empty one has no drift.
        assert!(!drift(&[1.0, 1.0], 2.0).unwrap().settled);
        assert!(drift(&[], 2.0).is_none());
    }
}
