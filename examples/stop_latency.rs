//! Stop latency: the time from writing `stop` to reading `bestmove`, measured over pipes the
//! way a GUI sees it.
//!
//! cargo run --release --example stop_latency -- [threads] [runs] [engine]
//! (engine defaults to target/release/shears)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(2);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let engine = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "target/release/shears".to_string());
    let mut child = Command::new(&engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {engine}: {e}"));
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut send = |text: &str| {
        writeln!(input, "{text}").expect("write");
        input.flush().expect("flush");
    };
    let mut wait_for = |prefix: &str, out: &mut BufReader<_>| loop {
        line.clear();
        if out.read_line(&mut line).expect("read") == 0 {
            panic!("engine closed its output");
        }
        if line.starts_with(prefix) {
            return;
        }
    };
    send(&format!("setoption name Threads value {threads}"));
    send("isready");
    wait_for("readyok", &mut output);
    let mut samples = Vec::with_capacity(runs);
    for i in 0..runs {
        send("position startpos moves e2e4 e7e5 g1f3 b8c6");
        send("go infinite");
        // Let the search get going (deep enough that it is not in its first iterations).
        std::thread::sleep(Duration::from_millis(50 + (i as u64 * 37) % 100));
        let start = Instant::now();
        send("stop");
        wait_for("bestmove", &mut output);
        samples.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    send("quit");
    let _ = child.wait();
    samples.sort_by(|a, b| a.total_cmp(b));
    let median = samples[samples.len() / 2];
    let worst = samples[samples.len() - 1];
    println!(
        "threads {threads}: {runs} stops, median {median:.2} ms, worst {worst:.2} ms, p90 {:.2} ms",
        samples[samples.len() * 9 / 10]
    );
}
