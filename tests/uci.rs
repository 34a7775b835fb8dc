//! The UCI protocol through the binary, as a GUI drives it.

mod common;

use std::time::{Duration, Instant};

use common::{Uci, best_of, is_legal};

#[test]
fn handshake_lists_options_and_ends_with_uciok() {
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.read_until("uciok", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.starts_with("id name Shears")));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for opt in [
        "Hash",
        "Threads",
        "Clear Hash",
        "Move Overhead",
        "UCI_Chess960",
        "Ponder",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {opt} type"))),
            "{opt}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name ASP_MARGIN type spin"))
    );
    assert!(e.quit().success());
}

#[test]
fn go_depth_returns_a_legal_move_with_info_lines() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4 e7e5 g1f3");
    let (infos, best) = e.go("go depth 6");
    let mv = best_of(&best).expect("a move");
    assert!(is_legal(None, &["e2e4", "e7e5", "g1f3"], &mv), "{mv}");
    let last = infos.last().expect("info lines");
    for field in [
        "depth 6", "seldepth", "score", "nodes", "nps", "hashfull", "time", " pv ",
    ] {
        assert!(last.contains(field), "{field} missing in {last}");
    }
    e.quit();
}

/// Every bad input gets an `info string`, and the engine keeps its position and options.
#[test]
fn bad_input_is_reported_and_state_survives() {
    let mut e = Uci::start();
    e.send("position startpos moves d2d4 d7d5");
    e.send("setoption name Move Overhead value 30");
    let bad = [
        "position fen this is not a fen",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen kk6/8/8/8/8/8/8/K7 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e5",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves zz9",
        "position",
        "position startpos moves e2e4 e7e5 e1e3 junk",
        "setoption name NoSuchOption value 3",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Threads value 100000",
        "setoption name ASP_MARGIN value 100000",
        "setoption name UCI_Chess960 value maybe",
        "setoption",
        "foo bar",
        "debug sideways",
        "perft 99",
    ];
    for cmd in bad {
        e.send(cmd);
        let lines = e.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string")),
            "no info string for '{cmd}': {lines:?}"
        );
    }
    // The position is still the one before the bad commands.
    let (_, best) = e.go("go depth 4");
    let mv = best_of(&best).unwrap();
    assert!(is_legal(None, &["d2d4", "d7d5"], &mv), "{mv}");
    e.quit();
}

#[test]
fn go_with_negative_or_junk_numbers_still_answers() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go wtime -1000 btime -1000 winc x");
    let lines = e.read_until("bestmove", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.starts_with("info string")));
    assert!(best_of(lines.last().unwrap()).is_some());
    assert!(e.sync().is_empty());
    e.quit();
}

#[test]
fn isready_is_answered_during_a_search_and_stop_ends_it() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    e.send("isready");
    let lines = e.read_until("readyok", Duration::from_secs(5));
    assert!(start.elapsed() < Duration::from_secs(1));
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    let lines = e.read_until("bestmove", Duration::from_secs(5));
    assert!(is_legal(
        None,
        &[],
        &best_of(lines.last().unwrap()).unwrap()
    ));
    e.quit();
}

#[test]
fn ponder_then_ponderhit_plays_a_move() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let lines = e.read_until("readyok", Duration::from_secs(5));
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "no bestmove while pondering"
    );
    e.send("ponderhit");
    let lines = e.read_until("bestmove", Duration::from_secs(5));
    assert!(is_legal(
        None,
        &["e2e4"],
        &best_of(lines.last().unwrap()).unwrap()
    ));
    e.quit();
}

#[test]
fn nodes_search_is_reproducible_after_ucinewgame() {
    let mut e = Uci::start();
    e.send("setoption name Threads value 1");
    let mut run = || {
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 c7c5 g1f3");
        let (infos, best) = e.go("go nodes 30000");
        let nodes: u64 = infos
            .last()
            .unwrap()
            .split_whitespace()
            .skip_while(|&t| t != "nodes")
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        (nodes, best)
    };
    let a = run();
    let b = run();
    assert_eq!(a, b);
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Uci::start();
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let (infos, best) = e.go("go depth 5");
    assert_eq!(best, "bestmove (none)");
    assert!(infos.iter().any(|l| l.contains("score cp 0")));
    e.send("position fen 5Q1k/8/6K1/8/8/8/8/8 b - - 0 1");
    let (infos, best) = e.go("go depth 5");
    assert_eq!(best, "bestmove (none)");
    assert!(infos.iter().any(|l| l.contains("score mate 0")));
    e.quit();
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut e = Uci::start();
    e.send("setoption name UCI_Chess960 value true");
    // Only castling and king moves: the king must be able to castle with the h-rook.
    e.send("position fen 4k3/8/8/8/8/8/PPPPPP2/4K2R w K - 0 1 moves e1h1");
    assert!(e.sync().is_empty(), "castling as e1h1 accepted");
    e.send("position fen 4k3/8/8/8/8/8/PPPPPP2/4K2R w K - 0 1");
    e.send("go depth 1 searchmoves e1h1");
    let lines = e.read_until("bestmove", Duration::from_secs(5));
    assert_eq!(best_of(lines.last().unwrap()).as_deref(), Some("e1h1"));
    e.quit();
}

#[test]
fn eof_lets_a_finite_search_finish() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go depth 5");
    e.close_input();
    let lines = e.read_until("bestmove", Duration::from_secs(20));
    assert!(best_of(lines.last().unwrap()).is_some());
    assert!(e.quit().success());
}

#[test]
fn commands_as_arguments() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shears"))
        .args(["position startpos moves e2e4", "go depth 5"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let best = text.lines().find(|l| l.starts_with("bestmove")).unwrap();
    assert!(is_legal(None, &["e2e4"], &best_of(best).unwrap()));
}

#[test]
fn bench_command_uses_the_parameters_that_were_set() {
    let mut e = Uci::start();
    let nodes = |e: &mut Uci| -> u64 {
        e.send("bench 5");
        let lines = e.sync();
        let line = lines
            .iter()
            .find(|l| l.ends_with(" nps"))
            .expect("bench line");
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    let default = nodes(&mut e);
    e.send("setoption name LMR_MIN_DEPTH value 64");
    let without_lmr = nodes(&mut e);
    e.send(&format!(
        "setoption name LMR_MIN_DEPTH value {}",
        shears::params::Params::DEFAULTS.LMR_MIN_DEPTH
    ));
    let again = nodes(&mut e);
    assert_ne!(default, without_lmr, "bench ignored setoption");
    assert_eq!(default, again, "bench is not deterministic");
    assert!(e.quit().success());
}

#[test]
fn long_searches_name_the_root_move_and_analysis_options_work() {
    let mut e = Uci::start();
    e.send("setoption name MultiPV value 2");
    e.send("setoption name UCI_ShowWDL value true");
    e.send("position startpos moves e2e4");
    e.sync();
    // After 3 s, each root move as it is searched: `info depth D currmove M currmovenumber
    // N`, legal moves numbered from 1. (A fixed movetime could end before the next root move
    // starts after the 3 s: the search runs until one has been named.)
    e.send("go infinite");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while Instant::now() < deadline && !lines.iter().any(|l: &String| l.contains(" currmove ")) {
        if let Some(l) = e.next_line(Duration::from_millis(100)) {
            lines.push(l);
        }
    }
    e.send("stop");
    lines.extend(e.read_until("bestmove", Duration::from_secs(10)));
    let best = lines.pop().expect("bestmove line");
    assert!(is_legal(None, &["e2e4"], &best_of(&best).unwrap()));
    let current: Vec<&String> = lines.iter().filter(|l| l.contains(" currmove ")).collect();
    assert!(!current.is_empty(), "no currmove line");
    for l in &current {
        let t: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(
            (t[0], t[1], t[3], t[5]),
            ("info", "depth", "currmove", "currmovenumber")
        );
        assert!(is_legal(None, &["e2e4"], t[4]), "{l}");
        assert!(t[6].parse::<usize>().unwrap() >= 1);
    }
    // Two lines per depth, each with its win/draw/loss chances.
    let scored: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(scored.iter().any(|l| l.contains(" multipv 2 ")));
    for l in &scored {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i = t.iter().position(|x| *x == "wdl").expect("wdl");
        let sum: u32 = t[i + 1..i + 4]
            .iter()
            .map(|x| x.parse::<u32>().unwrap())
            .sum();
        assert_eq!(sum, 1000, "{l}");
    }
    assert!(e.quit().success());
}
