//! The UCI text protocol: commands parse into [`Command`] (or an error, answered with
//! `info string` while the engine keeps its state), search output is printed here. No search
//! logic lives in this module.

use std::io::{BufRead, Write};
use std::sync::Arc;

use crate::engine::{self, Engine};
use crate::score::mate_moves;
use crate::search::{Reporter, SearchInfo, SearchResult};
use crate::time::Limits;
use crate::tt::Bound;

/// Longest input line accepted; longer lines are rejected whole.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// One parsed UCI command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `setoption name N [value V]`.
    SetOption {
        /// The option's name.
        name: String,
        /// Its value, if given.
        value: Option<String>,
    },
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos|fen F [moves ...]`.
    Position {
        /// The FEN (`None`: the start position).
        fen: Option<String>,
        /// Moves played from it.
        moves: Vec<String>,
    },
    /// The limits, and complaints about tokens that were ignored.
    Go {
        /// What the search may use.
        limits: Limits,
        /// Tokens that were ignored, for `info string`.
        warnings: Vec<String>,
    },
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// Extensions: show the board, the static evaluation, run bench or perft.
    Display,
    /// `eval`: the static evaluation.
    Eval,
    /// `bench [depth]`.
    Bench(Option<i32>),
    /// `perft depth`.
    Perft(u32),
}

/// Parses one line. `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let cmd = match head {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "debug" => match rest.first().copied() {
            Some("on") | None => Command::Debug(true),
            Some("off") => Command::Debug(false),
            Some(x) => return Err(format!("debug takes on or off, not '{x}'")),
        },
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => parse_go(&rest),
        "d" => Command::Display,
        "eval" => Command::Eval,
        "bench" => match rest.first() {
            None => Command::Bench(None),
            Some(d) => Command::Bench(Some(
                d.parse::<i32>()
                    .ok()
                    .filter(|d| (1..=64).contains(d))
                    .ok_or_else(|| format!("bench depth must be 1 to 64, not '{d}'"))?,
            )),
        },
        "perft" => {
            let d = rest.first().ok_or("perft needs a depth")?;
            Command::Perft(
                d.parse::<u32>()
                    .ok()
                    .filter(|d| (1..=12).contains(d))
                    .ok_or_else(|| format!("perft depth must be 1 to 12, not '{d}'"))?,
            )
        }
        _ => return Err(format!("unknown command '{}'", truncate(head, 64))),
    };
    Ok(Some(cmd))
}

fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

fn parse_setoption(rest: &[&str]) -> Result<Command, String> {
    if rest.first() != Some(&"name") {
        return Err("setoption must be 'setoption name <name> [value <value>]'".to_string());
    }
    let body = &rest[1..];
    let split = body.iter().position(|&t| t == "value");
    let (name_tokens, value_tokens) = match split {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let name = name_tokens.join(" ");
    if name.is_empty() {
        return Err("setoption needs an option name".to_string());
    }
    let value = value_tokens.map(|v| v.join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_position(rest: &[&str]) -> Result<Command, String> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &rest[rest.len()..]),
    };
    let fen = match setup.first().copied() {
        Some("startpos") if setup.len() == 1 => None,
        Some("startpos") => return Err("unexpected text after 'position startpos'".to_string()),
        Some("fen") if setup.len() > 1 => Some(setup[1..].join(" ")),
        Some("fen") => return Err("position fen needs a FEN".to_string()),
        _ => return Err("position must be followed by startpos or fen".to_string()),
    };
    Ok(Command::Position {
        fen,
        moves: moves.iter().map(|s| s.to_string()).collect(),
    })
}

/// Parses `go` arguments. Bad numbers are reported and ignored (negative times count as 0),
/// so that every `go` still gets its `bestmove`.
fn parse_go(rest: &[&str]) -> Command {
    let mut limits = Limits::default();
    let mut warnings = Vec::new();
    let mut i = 0;
    // A millisecond or count argument: negative clamps to 0, junk is ignored.
    let number = |i: &mut usize, name: &str, warnings: &mut Vec<String>| -> Option<u64> {
        *i += 1;
        let Some(text) = rest.get(*i) else {
            warnings.push(format!("go {name} needs a value"));
            return None;
        };
        match text.parse::<i128>() {
            Ok(v) if v < 0 => {
                warnings.push(format!("go {name} {text} is negative; using 0"));
                Some(0)
            }
            Ok(v) => Some(v.min(i128::from(u64::MAX)) as u64),
            Err(_) => {
                warnings.push(format!(
                    "go {name}: '{}' is not a number; ignored",
                    truncate(text, 32)
                ));
                None
            }
        }
    };
    while i < rest.len() {
        match rest[i] {
            "wtime" => limits.wtime = number(&mut i, "wtime", &mut warnings).or(limits.wtime),
            "btime" => limits.btime = number(&mut i, "btime", &mut warnings).or(limits.btime),
            "winc" => limits.winc = number(&mut i, "winc", &mut warnings).or(limits.winc),
            "binc" => limits.binc = number(&mut i, "binc", &mut warnings).or(limits.binc),
            "movestogo" => {
                limits.movestogo = number(&mut i, "movestogo", &mut warnings).or(limits.movestogo)
            }
            "movetime" => {
                limits.movetime = number(&mut i, "movetime", &mut warnings).or(limits.movetime)
            }
            "nodes" => limits.nodes = number(&mut i, "nodes", &mut warnings).or(limits.nodes),
            "depth" => {
                if let Some(d) = number(&mut i, "depth", &mut warnings) {
                    limits.depth = Some(d.clamp(1, 1000) as i32);
                }
            }
            "mate" => {
                if let Some(m) = number(&mut i, "mate", &mut warnings) {
                    limits.mate = Some(m.clamp(1, 1000) as i32);
                }
            }
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while let Some(&t) = rest.get(i + 1) {
                    if is_go_keyword(t) {
                        break;
                    }
                    limits.searchmoves.push(t.to_string());
                    i += 1;
                }
            }
            other => warnings.push(format!(
                "go: unknown token '{}'; ignored",
                truncate(other, 32)
            )),
        }
        i += 1;
    }
    if limits.nodes == Some(0) {
        limits.nodes = Some(1);
    }
    Command::Go { limits, warnings }
}

fn is_go_keyword(t: &str) -> bool {
    matches!(
        t,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "movetime"
            | "infinite"
            | "ponder"
            | "searchmoves"
    )
}

/// `info ...` line of an iteration.
pub(crate) fn format_info(info: &SearchInfo) -> String {
    let score = match mate_moves(info.score) {
        Some(m) => format!("mate {m}"),
        None => format!("cp {}", crate::eval::wdl::to_uci_cp(info.score)),
    };
    let bound = match info.bound {
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
        _ => "",
    };
    let wdl = info
        .wdl
        .map_or(String::new(), |[w, d, l]| format!(" wdl {w} {d} {l}"));
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {score}{bound}{wdl} nodes {} nps {} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time_ms
    );
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}

pub(crate) fn format_bestmove(r: &SearchResult) -> String {
    match (&r.best_move, &r.ponder_move) {
        (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
        (Some(b), None) => format!("bestmove {b}"),
        (None, _) => "bestmove (none)".to_string(),
    }
}

/// Where protocol output goes: standard output for a GUI, memory for tests.
pub trait Sink: Send + Sync {
    /// Writes one whole line.
    fn line(&self, text: &str);
}

/// Standard output, flushed after every line.
pub struct Stdout;

impl Sink for Stdout {
    fn line(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        // Nothing useful can be done if the GUI closed our output.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// Collects lines in memory.
#[derive(Default)]
pub struct Memory(pub std::sync::Mutex<Vec<String>>);

impl Sink for Memory {
    fn line(&self, text: &str) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(text.to_string());
        }
    }
}

impl Memory {
    /// Takes the lines written so far.
    pub fn take(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default()
    }
}

/// Prints search output as UCI.
pub(crate) struct UciReporter(pub Arc<dyn Sink>);

impl Reporter for UciReporter {
    fn info(&self, info: &SearchInfo) {
        self.0.line(&format_info(info));
    }

    fn bestmove(&self, result: &SearchResult) {
        self.0.line(&format_bestmove(result));
    }

    fn message(&self, text: &str) {
        self.0.line(&format!("info string {text}"));
    }

    fn currmove(&self, depth: i32, mv: &str, number: usize) {
        self.0.line(&format!(
            "info depth {depth} currmove {mv} currmovenumber {number}"
        ));
    }
}

/// What the loop should do after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// Leave the loop.
    Quit,
}

/// An engine talking UCI to one sink.
pub struct UciSession {
    /// The engine the commands drive.
    pub engine: Engine,
    out: Arc<dyn Sink>,
}

impl UciSession {
    /// A session of `engine` writing to `out`.
    pub fn new(engine: Engine, out: Arc<dyn Sink>) -> UciSession {
        UciSession { engine, out }
    }

    fn emit(&self, text: &str) {
        self.out.line(text);
    }

    fn fail(&self, e: &str) {
        self.emit(&format!("info string error: {e}"));
    }

    /// Executes one input line.
    pub fn execute(&mut self, line: &str) -> Flow {
        match parse(line) {
            Ok(Some(cmd)) => self.run_command(cmd),
            Ok(None) => Flow::Continue,
            Err(e) => {
                self.fail(&e);
                Flow::Continue
            }
        }
    }

    fn run_command(&mut self, cmd: Command) -> Flow {
        match cmd {
            Command::Uci => {
                self.emit(&format!("id name {} {}", engine::NAME, engine::VERSION));
                self.emit(&format!("id author {}", engine::AUTHOR));
                for line in engine::uci_options() {
                    self.emit(&line);
                }
                self.emit("uciok");
            }
            Command::IsReady => {
                for note in self.engine.take_notes() {
                    self.emit(&format!("info string {note}"));
                }
                self.emit("readyok");
            }
            Command::Debug(on) => self.engine.set_debug(on),
            Command::SetOption { name, value } => {
                if let Err(e) = self.engine.set_option(&name, value.as_deref()) {
                    self.fail(&e);
                }
            }
            Command::UciNewGame => {
                if let Err(e) = self.engine.new_game() {
                    self.fail(&e);
                }
            }
            Command::Position { fen, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = self.engine.set_position(fen.as_deref(), &moves) {
                    self.fail(&format!("{e}; position unchanged"));
                }
            }
            Command::Go { limits, warnings } => {
                for w in warnings {
                    self.fail(&w);
                }
                self.engine
                    .go(limits, Arc::new(UciReporter(Arc::clone(&self.out))));
            }
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => return Flow::Quit,
            Command::Display => {
                let pos = self.engine.position();
                self.emit(&format!("info string fen {}", pos.fen()));
                self.emit(&format!("info string key {:016x}", pos.hash()));
            }
            Command::Eval => {
                let (e, by) = self.engine.static_eval();
                self.emit(&format!(
                    "info string static eval {} cp (side to move, normalised; {e} in the search's units), {by}",
                    crate::eval::wdl::to_uci_cp(e)
                ));
            }
            Command::Bench(depth) => {
                if self.engine.is_searching() {
                    self.fail("cannot bench while searching");
                } else {
                    // A fresh engine (1 thread, 16 MB) with this session's parameters and
                    // evaluation, so that `setoption` then `bench` measures what was set.
                    let mut bench_engine = crate::engine::Engine::new();
                    bench_engine.use_eval_of(&self.engine);
                    match bench_engine.set_params(self.engine.params().clone()) {
                        Ok(()) => {
                            let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                            let r = crate::bench::run_with(depth, &mut bench_engine);
                            self.emit(&r.summary());
                        }
                        Err(e) => self.fail(&e),
                    }
                }
            }
            Command::Perft(depth) => {
                if self.engine.is_searching() {
                    self.fail("cannot run perft while searching");
                } else {
                    let mut pos = self.engine.position().clone();
                    let start = std::time::Instant::now();
                    let n = crate::movegen::perft(&mut pos, depth);
                    let ms = start.elapsed().as_millis().max(1);
                    self.emit(&format!("info string perft {depth} nodes {n} time {ms}"));
                }
            }
        }
        Flow::Continue
    }

    /// The UCI loop. At end of input a search with limits of its own is allowed to finish;
    /// an infinite or pondering one is stopped.
    pub fn run_loop(&mut self, input: &mut impl BufRead) {
        while let Some(line) = read_line(input) {
            match line {
                Ok(line) => {
                    if self.execute(&line) == Flow::Quit {
                        self.engine.stop();
                        self.engine.wait();
                        return;
                    }
                }
                Err(e) => self.fail(&e),
            }
        }
        self.finish();
    }

    /// Lets a finite search end (stopping one that would wait for `stop`), then waits for it.
    pub fn finish(&mut self) {
        if self.engine.is_searching() && self.engine.current_waits_for_stop() {
            self.engine.stop();
        }
        self.engine.wait();
    }
}

/// Reads one line of at most [`MAX_LINE_BYTES`]; `None` at end of input. Invalid UTF-8 is
/// replaced, an overlong line comes back as an error (its rest is skipped).
pub fn read_line(input: &mut impl BufRead) -> Option<Result<String, String>> {
    let mut buf = Vec::new();
    let mut overlong = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if chunk.is_empty() {
            if buf.is_empty() && !overlong {
                return None;
            }
            break;
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !overlong {
            if buf.len() + take > MAX_LINE_BYTES {
                overlong = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(take);
        if done {
            break;
        }
    }
    if overlong {
        return Some(Err(format!(
            "input line longer than {MAX_LINE_BYTES} bytes ignored"
        )));
    }
    Some(Ok(String::from_utf8_lossy(&buf).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> (Limits, Vec<String>) {
        match parse(line).unwrap().unwrap() {
            Command::Go { limits, warnings } => (limits, warnings),
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn go_parses_every_limit() {
        let (l, w) = go(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 7 nodes 99 movetime 50 mate 3 ponder infinite searchmoves e2e4 d2d4",
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(l.wtime, Some(1000));
        assert_eq!(l.btime, Some(2000));
        assert_eq!(l.winc, Some(10));
        assert_eq!(l.binc, Some(20));
        assert_eq!(l.movestogo, Some(5));
        assert_eq!(l.depth, Some(7));
        assert_eq!(l.nodes, Some(99));
        assert_eq!(l.movetime, Some(50));
        assert_eq!(l.mate, Some(3));
        assert!(l.ponder && l.infinite);
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn go_with_bad_numbers_warns_and_still_searches() {
        let (l, w) = go("go wtime -5 btime abc depth");
        assert_eq!(l.wtime, Some(0));
        assert_eq!(l.btime, None);
        assert_eq!(w.len(), 3, "{w:?}");
        let (l, w) = go("go depth 99999999999999999999999 bogus");
        assert_eq!(l.depth, Some(1000));
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        assert_eq!(
            parse("setoption name Clear Hash").unwrap(),
            Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(
            parse("setoption name Move Overhead value 30").unwrap(),
            Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert!(parse("setoption").is_err());
        assert!(parse("setoption name").is_err());
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            parse("position startpos moves e2e4 e7e5").unwrap(),
            Some(Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1").unwrap(),
            Some(Command::Position {
                fen: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec![]
            })
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position startpos e2e4").is_err());
    }

    #[test]
    fn unknown_and_blank() {
        assert!(parse("xyzzy").is_err());
        assert_eq!(parse("   \r").unwrap(), None);
        assert_eq!(parse("isready\r").unwrap(), Some(Command::IsReady));
    }

    #[test]
    fn info_lines() {
        let mut info = SearchInfo {
            multipv: 1,
            depth: 3,
            seldepth: 5,
            score: crate::score::mate_in(3),
            bound: Bound::Exact,
            wdl: None,
            nodes: 10,
            nps: 100,
            hashfull: 1,
            tbhits: 0,
            time_ms: 100,
            pv: vec!["e2e4".into()],
        };
        assert_eq!(
            format_info(&info),
            "info depth 3 seldepth 5 multipv 1 score mate 2 nodes 10 nps 100 hashfull 1 tbhits 0 time 100 pv e2e4"
        );
        // Centipawns are printed normalised: the search's a(1) is +100.
        let pawn = crate::eval::wdl::pawn_value().round() as i32;
        info.score = -pawn;
        info.bound = Bound::Lower;
        assert!(format_info(&info).contains("score cp -100 lowerbound nodes"));
        info.wdl = Some([120, 500, 380]);
        info.multipv = 3;
        info.tbhits = 7;
        let line = format_info(&info);
        assert!(line.contains("multipv 3 score cp -100 lowerbound wdl 120 500 380 nodes"));
        assert!(line.contains("tbhits 7 time"));
    }

    #[test]
    fn read_line_handles_crlf_binary_and_overlong_lines() {
        let mut data = b"isready\r\n\xff\xfe junk\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        data.extend_from_slice(b"\nquit");
        let mut input = std::io::BufReader::with_capacity(1024, &data[..]);
        assert_eq!(read_line(&mut input), Some(Ok("isready\r\n".to_string())));
        let junk = read_line(&mut input).unwrap().unwrap();
        assert!(junk.contains("junk"));
        assert!(read_line(&mut input).unwrap().is_err());
        assert_eq!(read_line(&mut input), Some(Ok("quit".to_string())));
        assert_eq!(read_line(&mut input), None);
    }
}
