//! Drives the `shears` binary over pipes, as a GUI would.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

pub struct Uci {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far.
    pub log: Vec<String>,
}

impl Uci {
    pub fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shears"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start shears");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut uci = Uci {
            child,
            stdin,
            lines: rx,
            log: Vec::new(),
        };
        let banner = uci.next_line(Duration::from_secs(10)).expect("banner");
        assert!(banner.starts_with("Shears "), "banner: {banner}");
        uci
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().expect("flush");
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.flush().expect("flush");
    }

    /// Closes the engine's input (EOF).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Next line, or `None` after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.log.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads until a line starting with `prefix`; returns every line read (that one last).
    pub fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) => {
                    let done = l.starts_with(prefix);
                    out.push(l);
                    if done {
                        return out;
                    }
                }
                None => panic!("no '{prefix}' within {timeout:?}; got {out:?}"),
            }
        }
    }

    /// Sends `isready` and waits for `readyok`; returns the lines before it.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until("readyok", Duration::from_secs(20));
        lines.pop();
        lines
    }

    /// Sends a `go` and returns the info lines and the bestmove line.
    pub fn go(&mut self, go: &str) -> (Vec<String>, String) {
        self.send(go);
        let mut lines = self.read_until("bestmove", Duration::from_secs(120));
        let best = lines.pop().expect("bestmove line");
        (lines, best)
    }

    pub fn quit(mut self) -> std::process::ExitStatus {
        if self.stdin.is_some() {
            self.send("quit");
        }
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "engine did not exit after quit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Uci {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line (`None` for `(none)`).
pub fn best_of(line: &str) -> Option<String> {
    let mv = line.split_whitespace().nth(1)?;
    (mv != "(none)").then(|| mv.to_string())
}

/// The score of the last `info ... score` line: ("cp"|"mate", value).
pub fn last_score(lines: &[String]) -> Option<(String, i32)> {
    lines.iter().rev().find_map(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i = t.iter().position(|&x| x == "score")?;
        Some((t.get(i + 1)?.to_string(), t.get(i + 2)?.parse().ok()?))
    })
}

/// Is `mv` legal in the position given by `fen` (None: start position) after `moves`?
pub fn is_legal(fen: Option<&str>, moves: &[&str], mv: &str) -> bool {
    let mut pos = match fen {
        Some(f) => {
            shears::position::Position::from_fen(f, shakmaty::CastlingMode::Standard).expect("fen")
        }
        None => shears::position::Position::default(),
    };
    for m in moves {
        let m = pos.parse_uci_move(m).expect("move");
        pos.play_game_move(m);
    }
    pos.parse_uci_move(mv).is_ok()
}

/// Collects the `info` lines of a search run through the engine API.
#[derive(Default)]
pub struct Collect(std::sync::Mutex<Vec<shears::search::SearchInfo>>);

impl Collect {
    pub fn infos(&self) -> Vec<shears::search::SearchInfo> {
        self.0.lock().unwrap().clone()
    }
}

impl shears::search::Reporter for Collect {
    fn info(&self, info: &shears::search::SearchInfo) {
        self.0.lock().unwrap().push(info.clone());
    }
    fn bestmove(&self, _: &shears::search::SearchResult) {}
}
