//! Command-line entry: no arguments runs the UCI loop; `bench`, `perft` and `spsa` are tools;
//! anything else is run as UCI commands (Stockfish-style) and the program exits when done.

use std::sync::Arc;

use shears::engine::{AUTHOR, Engine, NAME, VERSION};
use shears::{bench, params, uci};

const USAGE: &str = "usage:
  shears                      UCI loop on standard input
  shears bench [depth]        fixed-depth benchmark; last line: '<N> nodes <M> nps'
  shears perft <depth> [fen]  count leaf nodes of the legal move tree
  shears smp-bench [depth] [threads] [hash] [NAME=VALUE ...]
                              time to depth over the bench positions with several threads
  shears soak [--games N] [--tc BASE_MS+INC_MS] [--threads MAX] [--seed N] [--book FILE] [--slack MS]
                              fast self-play with random options and parameters; checks
                              legality and time use, exits 1 on any failure
  shears epd FILE [--movetime MS] [--depth D] [--nodes N] [--threads N] [--hash MB] [--set NAME=VALUE]... [--quiet]
                              runs an EPD test suite (bm/am operations), prints solved/total;
                              --nodes (1 thread) gives the same result on any machine
  shears techniques           each search technique and the parameter settings that switch it off
  shears spsa [--json]        tunable parameters as OpenBench SPSA input (or weather-factory JSON)
  shears <uci commands>       e.g. shears \"position startpos moves e2e4\" \"go depth 12\"";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        None => {
            println!("{NAME} {VERSION} by {AUTHOR}");
            let mut session = uci::UciSession::new(Engine::new(), Arc::new(uci::Stdout));
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            session.run_loop(&mut input);
            0
        }
        Some("bench") => cmd_bench(args.get(1)),
        Some("perft") => cmd_perft(&args[1..]),
        Some("smp-bench") => cmd_smp_bench(&args[1..]),
        Some("soak") => cmd_soak(&args[1..]),
        Some("epd") => cmd_epd(&args[1..]),
        Some("techniques") => {
            // One line per search technique: `name|NAME=value NAME=value` switches it off.
            for (name, settings) in params::TECHNIQUES {
                let kv: Vec<String> = settings.iter().map(|(n, v)| format!("{n}={v}")).collect();
                println!("{name}|{}", kv.join(" "));
            }
            0
        }
        Some("spsa") => {
            if args.iter().any(|a| a == "--json") {
                print!("{}", params::weather_factory_json());
            } else {
                print!("{}", params::openbench_spsa());
            }
            0
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            0
        }
        Some(_) => run_commands(&args),
    };
    std::process::exit(code);
}

fn cmd_bench(depth: Option<&String>) -> i32 {
    let depth = match depth.map(|d| d.parse::<i32>()) {
        None => bench::DEFAULT_DEPTH,
        Some(Ok(d)) if (1..=64).contains(&d) => d,
        Some(_) => {
            eprintln!("bench depth must be an integer from 1 to 64");
            return 2;
        }
    };
    let r = bench::run(depth);
    println!("{}", r.summary());
    0
}

fn cmd_smp_bench(args: &[String]) -> i32 {
    let num =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let depth = num(0, 12) as i32;
    let threads = num(1, num_cpus::get()).clamp(1, shears::engine::MAX_THREADS);
    let hash = num(2, 64).clamp(1, 65536);
    // Arguments after the first three are `NAME=VALUE` options (e.g. `SMP_SKIP_BLOCKS=0`).
    let options: Vec<(String, String)> =
        match args.iter().skip(3).map(|a| parse_setting(a)).collect() {
            Ok(options) => options,
            Err(e) => {
                eprintln!("{e}");
                return 2;
            }
        };
    let runs = match bench::time_to_depth(depth, threads, hash, &options) {
        Ok(runs) => runs,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let total_ms: f64 = runs.iter().map(|r| r.0).sum();
    let nodes: u64 = runs.iter().map(|r| r.1).sum();
    let geo =
        (runs.iter().map(|r| r.0.max(0.01).ln()).sum::<f64>() / runs.len().max(1) as f64).exp();
    println!(
        "depth {depth} threads {threads}: total {total_ms:.0} ms, geometric mean {geo:.1} ms per position, {nodes} nodes, {} nps",
        (nodes as f64 * 1000.0 / total_ms.max(1.0)) as u64
    );
    0
}

/// The argument after `name` (e.g. the value of `--games`).
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// The number after `name`, `None` when the flag is absent, an error when it is not a number.
fn num_flag(args: &[String], name: &str) -> Result<Option<u64>, String> {
    flag(args, name)
        .map(|v| {
            v.parse()
                .map_err(|_| format!("{name}: '{v}' is not a number"))
        })
        .transpose()
}

/// A `NAME=VALUE` option setting.
fn parse_setting(arg: &str) -> Result<(String, String), String> {
    arg.split_once('=')
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .ok_or_else(|| format!("'{arg}' is not NAME=VALUE"))
}

fn cmd_soak(args: &[String]) -> i32 {
    let num = |name: &str, default: u64| num_flag(args, name).map(|v| v.unwrap_or(default));
    let parsed = (|| -> Result<shears::soak::SoakConfig, String> {
        let (base, inc) = flag(args, "--tc")
            .unwrap_or("500+5")
            .split_once('+')
            .unwrap_or(("500", "5"));
        Ok(shears::soak::SoakConfig {
            games: num("--games", 100)? as usize,
            base_ms: base.parse().map_err(|_| "--tc: bad base".to_string())?,
            inc_ms: inc.parse().map_err(|_| "--tc: bad increment".to_string())?,
            max_threads: num("--threads", 4)? as usize,
            seed: num("--seed", 1)?,
            book: shears::soak::book(flag(args, "--book"))?,
            slack_ms: num("--slack", 50)?,
        })
    })();
    let cfg = match parsed {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let report = shears::soak::run(&cfg, |r| {
        if r.games % 25 == 0 {
            eprintln!("{}", r.summary());
        }
    });
    println!("{}", report.summary());
    for e in &report.errors {
        println!("error: {e}");
    }
    if report.passed() { 0 } else { 1 }
}

fn cmd_epd(args: &[String]) -> i32 {
    let Some(path) = args.first() else {
        eprintln!(
            "usage: shears epd FILE [--movetime MS] [--depth D] [--nodes N] [--threads N] [--hash MB]"
        );
        return 2;
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return 2;
        }
    };
    let mut cases = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match shears::epd::parse_line(line) {
            Ok(c) => cases.push(c),
            Err(e) => eprintln!("skipped: {e}"),
        }
    }
    let setup = || -> Result<(Engine, shears::Limits), String> {
        let mut engine = Engine::new();
        for (opt, name) in [("--threads", "Threads"), ("--hash", "Hash")] {
            if let Some(v) = num_flag(args, opt)? {
                engine.set_option(name, Some(&v.to_string()))?;
            }
        }
        for (i, a) in args.iter().enumerate() {
            if a == "--set" {
                let setting = args.get(i + 1).map_or("", String::as_str);
                let (name, value) = parse_setting(setting)?;
                engine.set_option(&name, Some(&value))?;
            }
        }
        let limits = match (
            num_flag(args, "--depth")?,
            num_flag(args, "--nodes")?,
            num_flag(args, "--movetime")?,
        ) {
            (Some(d), _, _) => shears::Limits::depth(d.clamp(1, 100) as i32),
            (None, Some(n), _) => shears::Limits::nodes(n.max(1)),
            (None, None, mt) => shears::Limits::movetime(mt.unwrap_or(1000)),
        };
        Ok((engine, limits))
    };
    let (mut engine, limits) = match setup() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let verbose = !args.iter().any(|a| a == "--quiet");
    let start = std::time::Instant::now();
    let (ok, total) = shears::epd::run_suite(&mut engine, &cases, &limits, verbose);
    println!(
        "solved {ok} of {total} in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    0
}

fn cmd_perft(args: &[String]) -> i32 {
    let Some(Ok(depth)) = args.first().map(|d| d.parse::<u32>()) else {
        eprintln!("usage: shears perft <depth> [fen]");
        return 2;
    };
    let fen = args[1..].join(" ");
    let mut engine = Engine::new();
    let fen = (!fen.is_empty()).then_some(fen.as_str());
    if let Err(e) = engine.set_position(fen, &[]) {
        eprintln!("{e}");
        return 2;
    }
    let start = std::time::Instant::now();
    let mut pos = engine.position().clone();
    let nodes = shears::movegen::perft(&mut pos, depth);
    let ms = start.elapsed().as_millis().max(1) as u64;
    println!("{nodes} nodes {} nps", nodes * 1000 / ms);
    0
}

/// Runs arguments as UCI commands: each argument that contains a space is one command,
/// otherwise all arguments together form one. A search with limits is awaited before the next
/// command; at the end the program waits for the last search and exits.
fn run_commands(args: &[String]) -> i32 {
    let commands: Vec<String> = if args.iter().any(|a| a.contains(' ')) {
        args.to_vec()
    } else {
        vec![args.join(" ")]
    };
    let mut session = uci::UciSession::new(Engine::new(), Arc::new(uci::Stdout));
    for c in &commands {
        if session.execute(c) == uci::Flow::Quit {
            break;
        }
        session.finish();
    }
    session.finish();
    0
}
