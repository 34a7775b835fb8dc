//! `shears-tune`: the local tuning tools of Shears.
//!
//! - `shears-tune spsa ...`: SPSA over the search parameters (see tuning/README.md).
//! - `shears-tune datagen ...`: self-play games in viriformat for training networks.
//! - `shears-tune data pack|check ...`: keeps training data in the repository (`data/genN`).
//! - `shears-tune nnue ...`: trains the evaluation network on such games.
//! - `shears-tune nnue-quantise ...`: quantises a training checkpoint with another output scale.
//! - `shears-tune verify ...`: plays tuned values against the defaults, Elo with error bars.
//! - `shears-tune eval-scale ...`: compares the scale of a net's evaluation with another net's.
//! - `shears-tune wdl-fit ...`: fits the win/draw/loss model of `UCI_ShowWDL` to games.
//! - `shears-tune node-probe ...`: what datagen's node limit costs and buys in label quality.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod autogroup;
mod datagen;
mod eval_scale;
mod gamedata;
mod nnue_data;
mod nnue_train;
mod node_probe;
mod openings;
mod plot;
mod progress;
mod recipe;
mod report;
mod spsa;
mod store;
mod tune;
mod values;
mod verify;
mod viriformat;
mod wdl_fit;

use std::path::PathBuf;

use report::say;

const USAGE: &str = "usage:
  shears-tune spsa --book FILE --out DIR [--params all|NAME,NAME] [--iterations N|--hours H] [--pairs N]
                   [--tc 8+0.08|nodes=N|depth=N] [--concurrency N] [--hash MB] [--seed N]
                   [--runner inprocess|fastchess] [--fastchess CMD] [--engine PATH]
                   [--start FILE|NAME=V,...] [--fixed FILE|NAME=V,...] [--r-end R]
                   [--resign CP] [--draw CP] [--data-out DIR] [--quiet]
  shears-tune spsa-plot --csv RUN/values.csv [--out RUN/plot.png]
  shears-tune verify --values RUN/result.txt|NAME=V,... [--base FILE|NAME=V,...] --book FILE
                     [--net FILE] [--base-net FILE] (either instead of --values: nets compared)
                     [--games 400] [--tc 8+0.08|nodes=N] [--net-tc TC] [--concurrency N] [--hash MB]
                     [--seed N]
                     [--resign CP] [--draw CP] [--log FILE] [--data-out DIR] [--quiet]
  shears-tune datagen --out DIR [--games N] [--soft-nodes 2500] [--hard-nodes 20x soft] [--threads N]
                      [--book FILE] [--random-plies N] [--opening-limit CP] [--seed N] [--hash MB]
                      [--net <default>|FILE] [--quiet]
  shears-tune datagen --stats DIR
  shears-tune data pack --from SCRATCH --to data/genN [--generation N --about TEXT] [--level 0-9]
  shears-tune data check [data|data/genN] [--deep]
  shears-tune nnue --data SRC[,SRC...] [--valid SRC[,SRC...]] --out DIR [--hidden 128] [--buckets 1] [--inputs plain|mirrored|kings4 [--factoriser]] [--epochs 10] [--batch 16384]
                   [--lr 0.001] [--lr-end 0.05] [--wdl 0.3] [--loss-power 2] [--decay 0.01] [--mirror all|exact|off] [--threads N]
                   [--seed N] [--limit N] [--init NET [--anchor A]] [--output-scale F]
                   [--pause-after EPOCH] [--quiet]
                   (SRC: a data directory or one data file; every run writes DIR/recipe.txt;
                    an --init NET narrower than --hidden is widened, its outputs unchanged)
  shears-tune nnue --recipe FILE --out DIR [--quiet]   (trains again, compares the nets' checksums)
  shears-tune nnue-quantise --checkpoint DIR/checkpoint.bin --output-scale F --out FILE
                   (the checkpoint's epoch quantised with another output scale)
  shears-tune eval-scale --data DIR[,DIR...] [--net FILE] [--base-net nets/default.nnue] [--limit N]
  shears-tune wdl-fit --data DIR[,DIR...] [--net nets/default.nnue] [--out src/eval/wdl_model.rs] [--bins tests/data/wdl_bins.csv] [--iterations N]
  shears-tune node-probe --data DIR[,DIR...] [--positions 400] [--limits 1250,2500,5000,10000,20000]
                         [--reference 200000] [--threads N] [--net <default>|FILE]
  shears-tune CMD --help   (CMD's own usage lines; `shears-tune --help` or `help`: all of them)";

/// `--name value` pairs after the subcommand.
struct Args(Vec<String>);

impl Args {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .map(String::as_str)
    }

    /// Whether a flag without a value (e.g. `--quiet`) was given.
    fn has(&self, flag: &str) -> bool {
        self.0.iter().any(|a| a == flag)
    }

    fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("{name}: '{v}' is not a number")),
        }
    }

    fn path(&self, name: &str) -> Result<PathBuf, String> {
        self.get(name)
            .map(expand_home)
            .ok_or_else(|| format!("{name} is required"))
    }

    /// Score adjudication of `--resign CP` and `--draw CP` (off when not given).
    fn adjudication(&self) -> Result<shears::selfplay::Adjudication, String> {
        let cp = |name: &str| -> Result<Option<i32>, String> {
            self.get(name)
                .map(str::parse)
                .transpose()
                .map_err(|_| format!("{name}: not a number"))
        };
        Ok(shears::selfplay::Adjudication {
            resign_score: cp("--resign")?,
            draw_score: cp("--draw")?,
            ..Default::default()
        })
    }

    /// A required comma-separated list of paths.
    fn paths(&self, name: &str) -> Result<Vec<PathBuf>, String> {
        Ok(self
            .get(name)
            .ok_or_else(|| format!("{name} is required"))?
            .split(',')
            .map(expand_home)
            .collect())
    }
}

/// The net a verification's games are played with, for its data's run info: one file (or
/// `<default>`) when both sides share it; otherwise the tested side's, the base's named in
/// the run's command line.
fn net_name(net: Option<&std::path::Path>, base: Option<&std::path::Path>) -> String {
    match (net, base) {
        (Some(n), _) => n.to_string_lossy().into_owned(),
        (None, Some(b)) => b.to_string_lossy().into_owned(),
        (None, None) => "<default>".to_string(),
    }
}

/// The lines of `USAGE` that belong to one subcommand: from each line that starts
/// `shears-tune CMD` up to the next `shears-tune` (empty for a word that is no subcommand).
fn usage_lines(cmd: &str) -> Vec<&'static str> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in USAGE.lines().skip(1) {
        if let Some(rest) = line.trim_start().strip_prefix("shears-tune ") {
            inside = rest.split_whitespace().next() == Some(cmd);
        }
        if inside {
            lines.push(line);
        }
    }
    lines
}

/// Whether the words ask for help: `--help` or `-h` anywhere among them.
fn wants_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help" || a == "-h")
}

/// The flags on one subcommand's usage lines (`usage_lines`), each with whether it takes a
/// value: a flag written `[--quiet]` (a `]` straight after its name) is a switch; any other
/// takes the word after it.
fn usage_flags(cmd: &str) -> Vec<(&'static str, bool)> {
    let mut flags: Vec<(&'static str, bool)> = Vec::new();
    for line in usage_lines(cmd).into_iter().map(str::trim_start) {
        // `[--iterations N|--hours H]`: alternatives share a word.
        for word in line.split_whitespace().flat_map(|w| w.split('|')) {
            let word = word.trim_start_matches(['[', '(']);
            if !word.starts_with("--") {
                continue;
            }
            let name = word.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '-'));
            let takes_value = !word[name.len()..].starts_with(']');
            match flags.iter_mut().find(|(n, _)| *n == name) {
                Some(known) => known.1 |= takes_value,
                None => flags.push((name, takes_value)),
            }
        }
    }
    flags
}

/// Refuses the words a subcommand would otherwise ignore without a word: a flag its own usage
/// does not name (a typo such as `--hiden`, or another subcommand's flag) and a bare word that
/// follows no flag's value (`--data a b`, where lists take commas: `b` would be dropped and the
/// run would train on `a` alone; `--quiet foo`, a switch takes no value). `data` takes its
/// action and, for `data check`, a path before the flags.
fn check_words(cmd: &str, args: &[String]) -> Result<(), String> {
    let known = usage_flags(cmd);
    if known.is_empty() {
        return Ok(()); // not a subcommand: `main` says so
    }
    let leading = match cmd {
        "data" => 2,
        _ => 0,
    };
    for (i, word) in args.iter().enumerate() {
        if word.starts_with("--") {
            if !known.iter().any(|(name, _)| name == word) {
                return Err(format!("{cmd}: unknown flag '{word}'"));
            }
        } else if i >= leading {
            let Some(before) = i.checked_sub(1).map(|j| args[j].as_str()) else {
                return Err(format!("{cmd}: '{word}' is not a flag"));
            };
            match known.iter().find(|(name, _)| *name == before) {
                Some((_, true)) => {}
                Some((flag, false)) => {
                    return Err(format!(
                        "{cmd}: '{word}' follows '{flag}', which takes no value"
                    ));
                }
                None => {
                    return Err(format!(
                        "{cmd}: '{word}' follows '{before}', a flag's one value (lists take commas)"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A path with a leading `~/` taken from `$HOME`: the shell expands `~` only at the start of a
/// word, so in `--data ~/a,~/b` the second one arrives as written.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

fn main() {
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() {
        eprintln!("{USAGE}");
        std::process::exit(2);
    }
    let cmd = argv.remove(0);
    // `shears-tune --help`, `shears-tune help` and `shears-tune CMD --help`: the usage asked
    // for goes to stdout with status 0 (all of it, or the subcommand's own lines).
    if matches!(cmd.as_str(), "--help" | "-h" | "help") {
        println!("{USAGE}");
        return;
    }
    if wants_help(&argv) {
        let lines = usage_lines(&cmd);
        if !lines.is_empty() {
            println!("usage:\n{}", lines.join("\n"));
            return;
        }
    }
    if let Err(e) = check_words(&cmd, &argv) {
        eprintln!("error: {e}\n{USAGE}");
        std::process::exit(2);
    }
    let args = Args(argv);
    let result = match cmd.as_str() {
        "datagen" => (|| {
            if let Some(dir) = args.get("--stats") {
                return datagen::print_stats(&PathBuf::from(dir));
            }
            // 2,500 since 2026-12-03: at equal machine time it made the better net
            // (tuning/runs/datagen-2026-12-03-nodes).
            let soft_nodes = args.num("--soft-nodes", 2500)?;
            datagen::run(&datagen::Config {
                out: args.path("--out")?,
                games: args.num("--games", u64::MAX)?,
                soft_nodes,
                hard_nodes: args.num("--hard-nodes", soft_nodes.saturating_mul(20))?,
                threads: args.num("--threads", 1)?,
                book: args.get("--book").map(PathBuf::from),
                random_plies: args.num("--random-plies", 8)?,
                opening_limit: args.num("--opening-limit", 1000)?,
                seed: args
                    .get("--seed")
                    .map(str::parse)
                    .transpose()
                    .map_err(|_| "--seed: not a number")?,
                hash_mb: args.num("--hash", 16)?,
                net: args.get("--net").unwrap_or("<default>").to_string(),
                progress: !args.has("--quiet"),
            })
        })(),
        "data" => (|| {
            let sub = args.0.first().map(String::as_str).unwrap_or("");
            match sub {
                "pack" => {
                    let cfg = store::PackConfig {
                        from: args.path("--from")?,
                        to: args.path("--to")?,
                        generation: args
                            .get("--generation")
                            .map(str::parse)
                            .transpose()
                            .map_err(|_| "--generation: not a number")?,
                        about: args.get("--about").map(str::to_string),
                        level: args.num("--level", 9)?,
                    };
                    match store::pack(&cfg)? {
                        None => say!("nothing new to pack in {}", cfg.from.display())?,
                        Some(f) => say!(
                            "packed {} games, {} positions ({} kept) into {} ({} bytes, {:.3} per position)",
                            f.counts.games,
                            f.counts.positions,
                            f.counts.kept,
                            cfg.to.join(&f.name).display(),
                            f.bytes,
                            f.bytes as f64 / f.counts.positions.max(1) as f64
                        )?,
                    }
                    store::run_check(&cfg.to, false)
                }
                "check" => {
                    let path = match args.0.get(1).filter(|a| !a.starts_with("--")) {
                        Some(p) => expand_home(p),
                        None => PathBuf::from("data"),
                    };
                    store::run_check(&path, args.has("--deep"))
                }
                other => Err(format!("data: '{other}' is not pack or check\n{USAGE}")),
            }
        })(),
        "nnue" if args.get("--recipe").is_some() => (|| {
            let path = args.path("--recipe")?;
            let recipe = recipe::Recipe::read(&path)?;
            let out = args.path("--out")?;
            recipe.check_inputs()?;
            nnue_train::run(&nnue_train::config_of(&recipe, &out, !args.has("--quiet"))?)?;
            for line in recipe.compare_nets(&out)? {
                say!("{line}")?;
            }
            Ok(())
        })(),
        "nnue" => (|| {
            let data = args.paths("--data")?;
            let valid = match args.get("--valid") {
                Some(_) => Some(args.paths("--valid")?),
                None => None,
            };
            nnue_train::run(&nnue_train::Config {
                data,
                valid,
                out: args.path("--out")?,
                hidden: args.num("--hidden", 128)?,
                buckets: args.num("--buckets", 1)?,
                layout: {
                    let name = args.get("--inputs").unwrap_or("plain");
                    shears::eval::nnue::Layout::from_name(name)
                        .ok_or_else(|| format!("--inputs: {name}: not plain, mirrored or kings4"))?
                },
                factoriser: args.has("--factoriser"),
                epochs: args.num("--epochs", 10)?,
                batch: args.num("--batch", 16384)?,
                lr: args.num("--lr", 0.001)?,
                lr_end: args.num("--lr-end", 0.05)?,
                wdl: args.num("--wdl", 0.3)?,
                loss_power: args.num("--loss-power", 2.0)?,
                decay: args.num("--decay", 0.01)?,
                anchor: args.num("--anchor", 0.0)?,
                output_scale: args.num("--output-scale", 1.0)?,
                mirror: args.get("--mirror").unwrap_or("all").parse()?,
                threads: args.num(
                    "--threads",
                    std::thread::available_parallelism().map_or(1, |n| n.get()),
                )?,
                seed: args.num("--seed", 1)?,
                limit: args.num("--limit", usize::MAX)?,
                progress: !args.has("--quiet"),
                init: args.get("--init").map(PathBuf::from),
                pause_after: args
                    .get("--pause-after")
                    .map(str::parse)
                    .transpose()
                    .map_err(|_| "--pause-after: not a number".to_string())?,
            })
        })(),
        "nnue-quantise" => (|| {
            let checkpoint = args.path("--checkpoint")?;
            let out = args.path("--out")?;
            // No default: a forgotten factor would write the checkpoint's net unscaled.
            let scale: f32 = args
                .get("--output-scale")
                .ok_or("--output-scale F is required")?
                .parse()
                .map_err(|_| "--output-scale: not a number".to_string())?;
            let epoch = nnue_train::requantise(&checkpoint, scale, &out)?;
            say!(
                "{}: epoch {epoch} of {} with --output-scale {scale}",
                out.display(),
                checkpoint.display()
            )
        })(),
        "eval-scale" => (|| {
            eval_scale::run(&eval_scale::Config {
                data: args.paths("--data")?,
                net: PathBuf::from(args.get("--net").unwrap_or("nets/default.nnue")),
                base_net: PathBuf::from(args.get("--base-net").unwrap_or("nets/default.nnue")),
                limit: args.num("--limit", 200_000)?,
            })
        })(),
        "node-probe" => (|| {
            let limits = args
                .get("--limits")
                .unwrap_or("1250,2500,5000,10000,20000")
                .split(',')
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--limits: '{v}' is not a node count"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            node_probe::run(&node_probe::Config {
                data: args.paths("--data")?,
                positions: args.num("--positions", 400)?,
                limits,
                reference: args.num("--reference", 200_000)?,
                threads: args.num(
                    "--threads",
                    std::thread::available_parallelism().map_or(1, |n| n.get()),
                )?,
                net: args.get("--net").unwrap_or("<default>").to_string(),
            })
        })(),
        "wdl-fit" => (|| {
            let data = args.paths("--data")?;
            wdl_fit::run(&wdl_fit::Config {
                data,
                net: PathBuf::from(args.get("--net").unwrap_or("nets/default.nnue")),
                out: PathBuf::from(args.get("--out").unwrap_or("src/eval/wdl_model.rs")),
                bins: PathBuf::from(args.get("--bins").unwrap_or("tests/data/wdl_bins.csv")),
                iterations: args.num("--iterations", 2000)?,
            })
        })(),
        "spsa" => (|| {
            let runner = match args.get("--runner").unwrap_or("inprocess") {
                "inprocess" => tune::Runner::InProcess,
                "fastchess" => tune::Runner::Fastchess {
                    fastchess: args.get("--fastchess").unwrap_or("fastchess").to_string(),
                    engine: args
                        .get("--engine")
                        .map(PathBuf::from)
                        .unwrap_or_else(|| PathBuf::from("target/release/shears")),
                },
                other => return Err(format!("unknown runner '{other}'")),
            };
            let adjudication = args.adjudication()?;
            let data_out = args.get("--data-out").map(expand_home);
            if data_out.is_some() && !matches!(runner, tune::Runner::InProcess) {
                return Err("--data-out needs the in-process runner".to_string());
            }
            tune::run(&tune::Config {
                params: tune::select_params(args.get("--params").unwrap_or("all"))?,
                iterations: args.num("--iterations", 1000)?,
                budget_s: args
                    .get("--hours")
                    .map(|h| h.parse::<f64>().map(|h| h * 3600.0))
                    .transpose()
                    .map_err(|_| "--hours: not a number")?,
                pairs: args.num("--pairs", 1)?,
                tc: tune::parse_tc(args.get("--tc").unwrap_or("nodes=5000"))?,
                concurrency: args.num("--concurrency", 1)?,
                book: args.path("--book")?,
                out: args.path("--out")?,
                runner,
                seed: args.num("--seed", 1)?,
                hash_mb: args.num("--hash", 16)?,
                adjudication,
                progress: !args.has("--quiet"),
                start: match args.get("--start") {
                    Some(v) => values::read_values(v)?,
                    None => Vec::new(),
                },
                fixed: match args.get("--fixed") {
                    Some(v) => values::read_values(v)?,
                    None => Vec::new(),
                },
                r_end: args.num("--r-end", shears::params::DEFAULT_R_END)?,
                games_out: gamedata::writer_for(data_out.as_deref(), "spsa", "<default>")?,
            })
            .map(|_| ())
        })(),
        "verify" => (|| {
            let (net, base_net) = (
                args.get("--net").map(PathBuf::from),
                args.get("--base-net").map(PathBuf::from),
            );
            let values = match args.get("--values") {
                Some(v) => values::read_values(v)?,
                None if net.is_some() || base_net.is_some() => Vec::new(),
                None => return Err("--values (or --net / --base-net) is required".to_string()),
            };
            let base = match args.get("--base") {
                Some(b) => values::read_values(b)?,
                None => Vec::new(),
            };
            let games_out = gamedata::writer_for(
                args.get("--data-out").map(expand_home).as_deref(),
                "verify",
                &net_name(net.as_deref(), base_net.as_deref()),
            )?;
            verify::run(&verify::Config {
                values,
                base,
                net,
                base_net,
                games: args.num("--games", 400)?,
                tc: tune::parse_tc(args.get("--tc").unwrap_or("8+0.08"))?,
                net_tc: args.get("--net-tc").map(tune::parse_tc).transpose()?,
                concurrency: args.num("--concurrency", 1)?,
                book: args.path("--book")?,
                seed: args.num("--seed", 1)?,
                hash_mb: args.num("--hash", 16)?,
                adjudication: args.adjudication()?,
                progress: !args.has("--quiet"),
                log: args.get("--log").map(PathBuf::from),
                games_out,
            })
        })(),
        "spsa-plot" => (|| {
            let csv = args.path("--csv")?;
            let out = match args.get("--out") {
                Some(o) => PathBuf::from(o),
                None => csv.with_file_name("plot.png"),
            };
            tune::replot(&csv, &out)
        })(),
        _ => Err(format!("unknown command '{cmd}'\n{USAGE}")),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn every_flag_the_code_reads_is_in_its_usage() {
        // A flag the code reads but no usage line names would be refused by `check_words`
        // (as `--hours` once was): every `"--name"` in this file's code must be on some usage
        // line. Which subcommand reads it is not checked here.
        let code = include_str!("main.rs");
        let code = &code[..code.find("#[cfg(test)]").unwrap_or(code.len())];
        let commands: Vec<&str> = USAGE
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("shears-tune "))
            .filter_map(|rest| rest.split_whitespace().next())
            .collect();
        assert!(commands.contains(&"spsa") && commands.contains(&"node-probe"));
        let named: Vec<&str> = commands
            .iter()
            .flat_map(|c| usage_flags(c))
            .map(|(name, _)| name)
            .collect();
        let mut read = 0;
        for piece in code.split("\"--").skip(1) {
            let Some(end) = piece.find('"') else { continue };
            let flag = &piece[..end];
            if flag.is_empty() || !flag.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                continue;
            }
            read += 1;
            let flag = format!("--{flag}");
            assert!(
                named.contains(&flag.as_str()),
                "{flag} is read but not in USAGE"
            );
        }
        assert!(read > 40, "only {read} flags found");
    }

    #[test]
    fn each_subcommand_has_its_own_usage_lines() {
        let spsa = usage_lines("spsa");
        assert_eq!(spsa.len(), 5, "{spsa:?}");
        assert!(spsa[0].trim_start().starts_with("shears-tune spsa --book"));
        assert!(spsa.iter().all(|l| !l.contains("spsa-plot")));
        // `datagen` has two usage lines apart: the run and `--stats`.
        let datagen = usage_lines("datagen");
        assert!(datagen.iter().any(|l| l.contains("--stats")));
        assert!(datagen.iter().all(|l| !l.contains("data pack")));
        assert!(usage_lines("nope").is_empty());
        assert!(usage_lines("usage:").is_empty());
        assert!(wants_help(&words("--out d -h")) && !wants_help(&words("--out d")));
    }

    #[test]
    fn stray_words_and_unknown_flags_are_refused() {
        let ok = |cmd: &str, s: &str| check_words(cmd, &words(s));
        assert!(ok("nnue", "--data a,b --out d --hidden 768 --quiet").is_ok());
        assert!(ok("nnue", "--data a,b --lr -0.5 --out d").is_ok());
        assert!(ok("data", "check data/gen9 --deep").is_ok());
        assert!(ok("data", "pack --from x --to data/gen14").is_ok());
        let stray = ok("nnue", "--data a b --out d").unwrap_err();
        assert!(stray.contains("'b' follows 'a'"), "{stray}");
        let typo = ok("nnue", "--data a --hiden 768").unwrap_err();
        assert!(typo.contains("'--hiden'"), "{typo}");
        assert!(ok("data", "check data extra").is_err());
        assert!(ok("verify", "extra --book b").is_err());
        // Each subcommand knows only its own flags, and a switch takes no value.
        let other = ok("spsa", "--book b --out d --hidden 768").unwrap_err();
        assert!(other.contains("'--hidden'"), "{other}");
        assert!(ok("nnue", "--data a --out d --hidden 768").is_ok());
        let switch = ok("nnue", "--data a --out d --quiet foo").unwrap_err();
        assert!(switch.contains("'foo' follows '--quiet'"), "{switch}");
        assert!(ok("data", "check data --deep extra").is_err());
        assert!(ok("nnue", "--recipe r.txt --out d --quiet").is_ok());
        assert!(ok("datagen", "--stats /tmp/x").is_ok());
        assert!(ok("spsa", "--book b --out d --hours 2 --quiet").is_ok());
        assert!(ok("nnue-quantise", "--checkpoint c --output-scale 1.1 --out f").is_ok());
        assert!(ok("nnue-quantise", "--checkpoint c --hidden 8 --out f").is_err());
    }

    #[test]
    fn a_leading_tilde_in_a_path_list_is_the_home_directory() {
        let Some(home) = std::env::var_os("HOME") else {
            return;
        };
        let args = Args(vec!["--data".into(), "~/a,~/b,c/~/d,~e".into()]);
        let home = PathBuf::from(home);
        assert_eq!(
            args.paths("--data").unwrap(),
            [
                home.join("a"),
                home.join("b"),
                PathBuf::from("c/~/d"),
                PathBuf::from("~e")
            ]
        );
    }
}
