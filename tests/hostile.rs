//! Hostile and edge-case input: illegal positions are refused with a clear error and the
//! engine keeps its state; edge positions get correct results; resource limits fail safely.

mod common;

use std::time::{Duration, Instant};

use common::{Uci, best_of, is_legal, last_score};
use shears::score::mate_moves;
use shears::{Engine, Limits};

/// Positions that must be refused.
const ILLEGAL: &[(&str, &str)] = &[
    ("8/8/8/8/8/8/8/K7 w - - 0 1", "no black king"),
    ("k7/8/8/8/8/8/8/KK6 w - - 0 1", "two white kings"),
    ("k7/8/8/8/8/8/8/KP6 w - - 0 1", "pawn on the first rank"),
    ("kP6/8/8/8/8/8/8/K7 w - - 0 1", "pawn on the eighth rank"),
    (
        "k7/8/8/8/8/8/8/K6r b - - 0 1",
        "the side not to move is in check",
    ),
    (
        "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
        "castling rights without rooks",
    ),
    (
        "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
        "impossible en passant square",
    ),
    (
        "qqqqkqqq/qqqqqqqq/8/8/8/8/QQQQQQQQ/QQQQKQQQ w - - 0 1",
        "too many pieces",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
        "seven ranks",
    ),
    (
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "a rank of nine",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        "unknown piece",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
        "halfmove clock not a number",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
        "too many fields",
    ),
];

#[test]
fn illegal_positions_are_refused_and_state_survives() {
    let mut e = Engine::new();
    e.set_position(None, &["e2e4", "e7e5"]).unwrap();
    let before = e.position().fen();
    for (fen, why) in ILLEGAL {
        assert!(e.set_position(Some(fen), &[]).is_err(), "accepted: {why}");
        assert_eq!(e.position().fen(), before, "state changed by: {why}");
    }
    let r = e.search(Limits::depth(4));
    assert!(is_legal(None, &["e2e4", "e7e5"], &r.best_move.unwrap()));
}

#[test]
fn refusals_are_explained_through_uci() {
    let mut u = Uci::start();
    for (fen, why) in ILLEGAL {
        u.send(&format!("position fen {fen}"));
        let lines = u.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string error")),
            "{why}: {lines:?}"
        );
    }
    u.quit();
}

#[test]
fn only_legal_move_is_played() {
    let mut e = Engine::new();
    e.set_position(Some("7k/8/8/8/8/8/1q6/K7 w - - 0 1"), &[])
        .unwrap();
    assert_eq!(
        e.search(Limits::depth(6)).best_move.as_deref(),
        Some("a1b2")
    );
    // Also with a clock: it must not think long about a forced move.
    let start = Instant::now();
    let r = e.search(Limits {
        wtime: Some(60_000),
        btime: Some(60_000),
        ..Limits::default()
    });
    assert_eq!(r.best_move.as_deref(), Some("a1b2"));
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn mate_and_stalemate_roots() {
    let mut u = Uci::start();
    u.send("position fen k7/8/8/8/8/8/r7/1r5K w - - 0 1");
    let (infos, best) = u.go("go depth 3");
    assert_eq!(best_of(&best), None);
    assert_eq!(last_score(&infos), Some(("mate".into(), 0)));
    u.send("position fen 7K/5k2/6q1/8/8/8/8/8 w - - 0 1");
    let (infos, best) = u.go("go wtime 1000 btime 1000");
    assert_eq!(best_of(&best), None);
    assert_eq!(last_score(&infos), Some(("cp".into(), 0)));
    u.quit();
}

#[test]
fn fifty_move_edges() {
    let mut e = Engine::new();
    // The 100th half-move: nothing but a draw remains.
    e.set_position(Some("8/8/4k3/8/8/4K3/8/R7 w - - 100 80"), &[])
        .unwrap();
    assert_eq!(e.search(Limits::depth(8)).score, 0);
    // ... unless the move that reaches it mates.
    e.set_position(Some("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 80"), &[])
        .unwrap();
    let r = e.search(Limits::depth(5));
    assert_eq!(mate_moves(r.score), Some(1));
    assert_eq!(r.best_move.as_deref(), Some("d1d8"));
}

#[test]
fn long_game_histories_and_deep_searches_are_safe() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/long_game_400_plies.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let moves: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(moves.len(), 400);
    let mut e = Engine::new();
    e.set_position(None, &moves).unwrap();
    // Depth far beyond the ply limit, bounded by nodes: the search stays inside its stack.
    let r = e.search(Limits {
        depth: Some(1000),
        nodes: Some(300_000),
        ..Limits::default()
    });
    assert!(is_legal(None, &moves, &r.best_move.unwrap()));
    // Lone rook endgames run to the maximum depth quickly.
    e.set_position(Some("8/8/4k3/8/8/4K3/8/R7 w - - 0 1"), &[])
        .unwrap();
    let r = e.search(Limits {
        depth: Some(1000),
        nodes: Some(2_000_000),
        ..Limits::default()
    });
    assert!(r.best_move.is_some());
}

#[test]
fn hash_larger_than_memory_is_refused_and_the_old_table_kept() {
    let mut e = Engine::new();
    e.set_option("Hash", Some("32")).unwrap();
    let err = e.set_option("Hash", Some("1048576")).unwrap_err();
    assert!(err.contains("cannot allocate"), "{err}");
    assert_eq!(e.options().hash_mb, 32);
    assert!(e.search(Limits::depth(5)).best_move.is_some());
}

#[test]
fn the_maximum_thread_count_works() {
    let mut e = Engine::new();
    e.set_option("Threads", Some("1024")).unwrap();
    let r = e.search(Limits::movetime(300));
    assert!(is_legal(None, &[], &r.best_move.unwrap()));
    e.set_option("Threads", Some("1")).unwrap();
    assert!(e.search(Limits::depth(3)).best_move.is_some());
}

/// Tiny clocks, `movestogo 1`, no overhead: the engine answers in time. The bound is loose
/// (ten times the clock plus scheduling slack); the match soak measures the real margins.
#[test]
fn tiny_clocks_are_respected() {
    let mut e = Engine::new();
    e.set_option("Move Overhead", Some("0")).unwrap();
    for (time, inc, mtg) in [
        (5u64, 0u64, None),
        (20, 0, Some(1)),
        (50, 1000, None),
        (1, 0, Some(1)),
    ] {
        let start = Instant::now();
        let r = e.search(Limits {
            wtime: Some(time),
            btime: Some(time),
            winc: Some(inc),
            binc: Some(inc),
            movestogo: mtg,
            ..Limits::default()
        });
        let ms = start.elapsed().as_millis() as u64;
        assert!(r.best_move.is_some());
        assert!(ms <= 10 * time + 200, "{ms} ms with {time} ms on the clock");
    }
}
