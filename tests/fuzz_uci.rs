//! Fuzzing the UCI layer with random and mutated command streams.
//!
//! Streams mix valid commands in any order (`go` before `position`, `stop` and `ponderhit`
//! while idle, searches left running) with mutations: truncated and overlong lines, binary
//! bytes, `\r\n`, huge and negative numbers, unknown tokens. After every stream:
//! no panic or hang, exactly one `bestmove` per `go`, every `isready` answered, and every
//! `bestmove` and every PV legal in the position that `go` searched.
//!
//! `SHEARS_FUZZ_STREAMS` sets the number of in-process streams (default 150) and
//! `SHEARS_FUZZ_SEED` the first seed, for long runs outside CI.

mod common;

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shears::Engine;
use shears::position::Position;
use shears::uci::{Command, Memory, UciSession, parse};

const FENS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "5Q1k/8/6K1/8/8/8/8/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/8/8/8/6k1/4K2R w K - 99 80",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kk6/8/8/8/8/8/8/K7 w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "P7/8/8/8/8/8/8/K1k5 w - - 0 1",
];

const OPTIONS: &[&str] = &[
    "Hash",
    "Threads",
    "Clear Hash",
    "Move Overhead",
    "Ponder",
    "UCI_Chess960",
    "RFP_MUL",
    "LMR_DIV",
    "NMP_BASE",
    "ASP_MARGIN",
    "SEE_QUIET_MUL",
    "Nonexistent",
];

fn number(rng: &mut StdRng) -> String {
    match rng.random_range(0..10) {
        0 => "-1".into(),
        1 => "99999999999999999999999999".into(),
        2 => "0".into(),
        3 => "abc".into(),
        4 => format!("{}", rng.random_range(-100_000i64..100_000)),
        _ => format!("{}", rng.random_range(1..6)),
    }
}

/// Some legal moves from the start position or a listed FEN, occasionally broken.
fn moves(rng: &mut StdRng, fen: Option<&str>) -> String {
    let mut pos = match fen.map(|f| Position::from_fen(f, shakmaty::CastlingMode::Standard)) {
        Some(Ok(p)) => p,
        Some(Err(_)) => return "e2e4".into(),
        None => Position::default(),
    };
    let mut out = Vec::new();
    for _ in 0..rng.random_range(0..12) {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.random_range(0..legal.len())];
        out.push(pos.move_to_uci(m));
        pos.play_game_move(m);
    }
    if rng.random_bool(0.1) {
        out.push(["e1e8", "zz", "a7a8k", "e2e4e5", ""][rng.random_range(0..5)].into());
    }
    out.join(" ")
}

fn command(rng: &mut StdRng) -> String {
    match rng.random_range(0..16) {
        0 => "uci".into(),
        1 | 2 => "isready".into(),
        3 => "ucinewgame".into(),
        4 => format!("position startpos moves {}", moves(rng, None)),
        5 => {
            let fen = FENS[rng.random_range(0..FENS.len())];
            format!("position fen {fen} moves {}", moves(rng, Some(fen)))
        }
        6 | 7 => {
            let kind = rng.random_range(0..7);
            match kind {
                0 => format!("go depth {}", number(rng)),
                1 => format!("go nodes {}", rng.random_range(1..4000)),
                2 => format!("go movetime {}", rng.random_range(0..15)),
                3 => format!(
                    "go wtime {} btime {} winc {} binc {}",
                    number(rng),
                    number(rng),
                    number(rng),
                    number(rng)
                ),
                4 => "go infinite".into(),
                5 => "go ponder wtime 100 btime 100".into(),
                _ => format!("go depth 3 searchmoves {}", moves(rng, None)),
            }
        }
        8 | 9 => "stop".into(),
        10 => "ponderhit".into(),
        11 => {
            let name = OPTIONS[rng.random_range(0..OPTIONS.len())];
            let value = match name {
                "Hash" => rng.random_range(0..40).to_string(),
                "Threads" => rng.random_range(0..5).to_string(),
                "Ponder" | "UCI_Chess960" => {
                    ["true", "false", "maybe"][rng.random_range(0..3)].into()
                }
                _ => number(rng),
            };
            format!("setoption name {name} value {value}")
        }
        12 => ["debug on", "debug off", "d", "eval"][rng.random_range(0..4)].into(),
        13 => "quit_not".into(),
        14 => "".into(),
        _ => (0..rng.random_range(1..40))
            .map(|_| char::from(rng.random_range(32u8..127)))
            .collect(),
    }
}

/// Mutates a line: truncation, binary bytes, CR, doubled or unknown tokens, huge length.
fn mutate(rng: &mut StdRng, line: String) -> Vec<u8> {
    let mut bytes = line.into_bytes();
    match rng.random_range(0..12) {
        0 if !bytes.is_empty() => {
            let cut = rng.random_range(0..bytes.len());
            bytes.truncate(cut);
        }
        1 => {
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(0..=bytes.len());
                bytes.insert(at, rng.random::<u8>());
            }
            bytes.retain(|&b| b != b'\n');
        }
        2 => bytes.push(b'\r'),
        3 => bytes.extend_from_slice(b" bogus 123 -5"),
        4 => {
            let copy = bytes.clone();
            bytes.push(b' ');
            bytes.extend(copy);
        }
        5 if rng.random_bool(0.05) => bytes.extend(std::iter::repeat_n(b'9', 5000)),
        _ => {}
    }
    bytes
}

/// Runs one stream in-process and checks the invariants. Returns the number of commands.
fn run_stream(seed: u64) -> Result<usize, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let out = Arc::new(Memory::default());
    let mut session = UciSession::new(Engine::new(), out.clone());
    let mut searched: Vec<Position> = Vec::new();
    let mut isready = 0;
    let n = rng.random_range(5..40);
    for _ in 0..n {
        let cmd = command(&mut rng);
        let bytes = mutate(&mut rng, cmd);
        let line = String::from_utf8_lossy(&bytes).into_owned();
        let parsed = parse(&line);
        let before = session.engine.position().clone();
        if let Ok(Some(Command::Go { .. })) = parsed {
            searched.push(before);
        }
        if let Ok(Some(Command::IsReady)) = parsed {
            isready += 1;
        }
        if rng.random_bool(0.3) {
            std::thread::sleep(Duration::from_millis(rng.random_range(0..3)));
        }
        if std::env::var("SHEARS_FUZZ_TRACE").is_ok() {
            eprintln!("> {line:?}");
        }
        session.execute(&line);
    }
    // End of input: stop whatever runs and wait.
    session.engine.stop();
    session.finish();
    let lines = out.take();

    let readyok = lines.iter().filter(|l| *l == "readyok").count();
    if readyok != isready {
        return Err(format!("{isready} isready, {readyok} readyok"));
    }
    let mut search = 0;
    for line in &lines {
        if let Some(rest) = line.strip_prefix("bestmove ") {
            let Some(pos) = searched.get(search) else {
                return Err(format!("more bestmoves than go commands: {line}"));
            };
            let mv = rest.split_whitespace().next().unwrap_or("");
            if mv == "(none)" {
                if !pos.legal_moves().is_empty() {
                    return Err(format!("bestmove (none) with legal moves in {}", pos.fen()));
                }
            } else if pos.parse_uci_move(mv).is_err() {
                return Err(format!("illegal bestmove {mv} in {}", pos.fen()));
            }
            search += 1;
        } else if line.starts_with("info depth")
            && let Some(pv) = line.split(" pv ").nth(1)
        {
            let Some(pos) = searched.get(search) else {
                return Err(format!("info line after the last search: {line}"));
            };
            let mut p = pos.clone();
            for m in pv.split_whitespace() {
                let Ok(mv) = p.parse_uci_move(m) else {
                    return Err(format!("illegal pv move {m} in {line} from {}", pos.fen()));
                };
                p.play_game_move(mv);
            }
        }
    }
    if search != searched.len() {
        return Err(format!("{} go, {search} bestmove", searched.len()));
    }
    Ok(n)
}

#[test]
fn random_command_streams_keep_every_invariant() {
    let streams: u64 = std::env::var("SHEARS_FUZZ_STREAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let first: u64 = std::env::var("SHEARS_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let start = Instant::now();
    let mut commands = 0;
    for seed in first..first + streams {
        // A stream that hangs (or panics in a search thread) must fail, not block CI.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(run_stream(seed));
        });
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(n)) => commands += n,
            Ok(Err(e)) => panic!("seed {seed}: {e}"),
            Err(_) => panic!("seed {seed}: stream hung or panicked"),
        }
    }
    eprintln!(
        "fuzz: {streams} streams, {commands} commands, {:.1} s, 0 failures",
        start.elapsed().as_secs_f64()
    );
}

/// The same through the binary, closing input at random points (EOF during a search).
#[test]
fn the_binary_survives_garbage_and_eof() {
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let mut e = common::Uci::start();
        let mut gos = 0;
        for _ in 0..rng.random_range(3..25) {
            let line = command(&mut rng);
            let bytes = mutate(&mut rng, line);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Ok(Some(Command::Go { .. })) = parse(&text) {
                gos += 1;
            }
            if matches!(parse(&text), Ok(Some(Command::Quit))) {
                continue;
            }
            let mut raw = bytes;
            raw.push(b'\n');
            e.send_raw(&raw);
        }
        e.close_input();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut bestmoves = 0;
        while let Some(l) = e.next_line(deadline.saturating_duration_since(Instant::now())) {
            if l.starts_with("bestmove") {
                bestmoves += 1;
            }
        }
        let status = e.quit();
        assert!(status.success(), "seed {seed}: exit {status:?}");
        assert_eq!(bestmoves, gos, "seed {seed}");
    }
}
