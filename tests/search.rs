//! Search results through the engine API: mate scores, draws, determinism, limits.

mod common;

use std::sync::Arc;

use common::Collect;
use shears::score::mate_moves;
use shears::search::{SearchInfo, SearchResult};
use shears::{Engine, Limits};

fn search(fen: &str, moves: &[&str], limits: Limits) -> (SearchResult, Vec<SearchInfo>) {
    let mut e = Engine::new();
    e.set_position(Some(fen), moves).unwrap();
    let c = Arc::new(Collect::default());
    let r = e.search_with(limits, c.clone());
    let infos = c.infos();
    (r, infos)
}

const MATE_IN_2: &str = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
const MATE_IN_3: &[&str] = &[
    "r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1",
    "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1",
    "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
];

#[test]
fn mate_in_two() {
    let (r, _) = search(MATE_IN_2, &[], Limits::depth(6));
    assert_eq!(mate_moves(r.score), Some(2));
    assert_eq!(r.best_move.as_deref(), Some("d5f6"));
}

#[test]
fn mate_in_three() {
    for fen in MATE_IN_3 {
        let (r, _) = search(fen, &[], Limits::depth(8));
        assert_eq!(mate_moves(r.score), Some(3), "{fen}");
    }
}

#[test]
fn being_mated_is_a_negative_mate_score() {
    let (r, _) = search(MATE_IN_2, &["d5f6"], Limits::depth(5));
    assert_eq!(mate_moves(r.score), Some(-1));
}

#[test]
fn go_mate_stops_once_the_mate_is_found() {
    let (r, infos) = search(
        MATE_IN_3[0],
        &[],
        Limits {
            mate: Some(3),
            ..Limits::default()
        },
    );
    assert_eq!(mate_moves(r.score), Some(3));
    assert!(infos.last().unwrap().depth < 20);
}

#[test]
fn checkmated_and_stalemated_roots_have_no_move() {
    let (r, infos) = search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &[], Limits::depth(5));
    assert_eq!(r.best_move, None);
    assert_eq!(infos[0].score, 0, "stalemate scores 0");
    let (r, infos) = search("5Q1k/8/6K1/8/8/8/8/8 b - - 0 1", &[], Limits::depth(5));
    assert_eq!(r.best_move, None);
    assert_eq!(mate_moves(infos[0].score), Some(0));
}

#[test]
fn threefold_repetition_scores_zero() {
    // White is a pawn down and can repeat the position a third time with Kd1-e1.
    let fen = "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1";
    let moves = ["e8d8", "e1d1", "d8e8", "d1e1", "e8d8", "e1d1", "d8e8"];
    let (r, _) = search(fen, &moves, Limits::depth(8));
    assert_eq!(r.score, 0, "{r:?}");
    assert_eq!(r.best_move.as_deref(), Some("d1e1"));
}

#[test]
fn winning_side_avoids_the_repetition() {
    // White is a queen up and must not repeat into a draw.
    let fen = "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1";
    let moves = [
        "d2d3", "e8e7", "d3d2", "e7e8", "d2d3", "e8e7", "d3d2", "e7e8",
    ];
    let (r, _) = search(fen, &moves, Limits::depth(8));
    assert!(r.score > 500, "{r:?}");
}

#[test]
fn nodes_limit_is_deterministic_after_a_new_game() {
    let mut e = Engine::new();
    let mut run = || {
        e.new_game().unwrap();
        e.set_position(None, &["e2e4", "c7c5"]).unwrap();
        e.search(Limits::nodes(50_000))
    };
    let a = run();
    let b = run();
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.best_move, b.best_move);
    assert!(a.nodes >= 50_000 && a.nodes < 52_000, "{}", a.nodes);
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::new();
    let r = e.search(Limits {
        depth: Some(6),
        searchmoves: vec!["a2a3".into(), "h2h3".into()],
        ..Limits::default()
    });
    let best = r.best_move.unwrap();
    assert!(best == "a2a3" || best == "h2h3", "{best}");
}

#[test]
fn movetime_is_respected() {
    let mut e = Engine::new();
    let start = std::time::Instant::now();
    let r = e.search(Limits::movetime(200));
    let ms = start.elapsed().as_millis();
    assert!(r.best_move.is_some());
    assert!(ms < 600, "{ms} ms for movetime 200");
}

#[test]
fn movetime_searches_all_its_time_even_with_one_root_move() {
    // `go movetime` is a fixed time: no early stop for a stable best move or a single
    // (here: searchmoves-restricted) root move, as under a clock.
    let mut e = Engine::new();
    let start = std::time::Instant::now();
    let r = e.search(Limits {
        movetime: Some(300),
        searchmoves: vec!["e2e4".into()],
        ..Limits::default()
    });
    let ms = start.elapsed().as_millis();
    assert_eq!(r.best_move.as_deref(), Some("e2e4"));
    assert!(r.depth >= 4, "stopped at depth {}", r.depth);
    assert!(ms >= 200, "stopped after {ms} ms of 300");
}

#[test]
fn pv_moves_are_legal() {
    let (_, infos) = search(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[],
        Limits::depth(7),
    );
    let info = infos.last().unwrap();
    assert!(info.pv.len() >= 2);
    let mut e = Engine::new();
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let pv: Vec<&str> = info.pv.iter().map(String::as_str).collect();
    e.set_position(Some(fen), &pv).unwrap();
}
