//! MultiPV through the engine API: distinct, ordered, legal lines; the first agrees with a
//! single-line search; `searchmoves` restricts them; several threads stay legal.

mod common;

use std::sync::Arc;

use common::Collect;
use shakmaty::CastlingMode;
use shears::position::Position;
use shears::search::{SearchInfo, SearchResult};
use shears::{Engine, Limits};

/// The result and the lines of the last depth that printed all of them.
fn multipv(
    fen: &str,
    lines: usize,
    threads: usize,
    limits: Limits,
) -> (SearchResult, Vec<SearchInfo>) {
    let mut e = Engine::new();
    e.set_option("MultiPV", Some(&lines.to_string())).unwrap();
    e.set_option("Threads", Some(&threads.to_string())).unwrap();
    e.set_position(Some(fen), &[]).unwrap();
    let c = Arc::new(Collect::default());
    let r = e.search_with(limits, c.clone());
    let infos = c.infos();
    // The deepest iteration that printed as many lines as any did.
    let most = infos.iter().map(|i| i.multipv).max().unwrap();
    assert!(most <= lines);
    let last = infos
        .iter()
        .filter(|i| i.multipv == most)
        .map(|i| i.depth)
        .max()
        .unwrap();
    let at_last: Vec<SearchInfo> = infos.into_iter().filter(|i| i.depth == last).collect();
    (r, at_last)
}

fn legal_count(fen: &str) -> usize {
    Position::from_fen(fen, CastlingMode::Standard)
        .unwrap()
        .legal_moves()
        .len()
}

fn is_legal_line(fen: &str, pv: &[String]) -> bool {
    let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
    pv.iter().all(|m| match pos.parse_uci_move(m) {
        Ok(mv) => {
            pos.play_game_move(mv);
            true
        }
        Err(_) => false,
    })
}

/// Positions with one clearly best move (a mate, a free queen) and quiet ones.
const POSITIONS: &[(&str, Option<&str>)] = &[
    (
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        Some("d5f6"),
    ),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", Some("d1d8")),
    (
        "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/2N5/PPP1PPPP/R1BQKBNR w KQkq - 2 3",
        Some("c1g5"),
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        None,
    ),
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        None,
    ),
];

#[test]
fn lines_are_distinct_ordered_legal_and_the_first_is_the_best_move() {
    for &(fen, best) in POSITIONS {
        let (r, lines) = multipv(fen, 4, 1, Limits::depth(8));
        assert_eq!(lines.len(), 4, "{fen}");
        let ks: Vec<usize> = lines.iter().map(|l| l.multipv).collect();
        assert_eq!(ks, vec![1, 2, 3, 4], "{fen}");
        let firsts: Vec<&String> = lines.iter().map(|l| &l.pv[0]).collect();
        for (i, a) in firsts.iter().enumerate() {
            assert!(
                !firsts[i + 1..].contains(a),
                "{fen}: {a} twice in {firsts:?}"
            );
        }
        for pair in lines.windows(2) {
            assert!(pair[0].score >= pair[1].score, "{fen}: not ordered");
        }
        for l in &lines {
            assert!(is_legal_line(fen, &l.pv), "{fen}: {:?}", l.pv);
        }
        assert_eq!(r.best_move.as_ref(), Some(&lines[0].pv[0]), "{fen}");
        if let Some(b) = best {
            assert_eq!(lines[0].pv[0], b, "{fen}");
            let (single, _) = multipv(fen, 1, 1, Limits::depth(8));
            assert_eq!(single.best_move.as_deref(), Some(b), "{fen}");
        }
    }
}

#[test]
fn more_lines_than_moves_gives_every_move_once() {
    // Three legal moves.
    let fen = "7k/8/8/8/8/8/6PP/7K w - - 0 1";
    let n = legal_count(fen);
    let (_, lines) = multipv(fen, 10, 1, Limits::depth(6));
    assert_eq!(lines.len(), n);
}

#[test]
fn searchmoves_restrict_the_lines() {
    let fen = POSITIONS[3].0;
    let limits = Limits {
        depth: Some(6),
        searchmoves: vec!["a2a3".into(), "h2h4".into(), "g1f3".into()],
        ..Limits::default()
    };
    let (_, lines) = multipv(fen, 5, 1, limits);
    let mut firsts: Vec<String> = lines.iter().map(|l| l.pv[0].clone()).collect();
    firsts.sort();
    assert_eq!(firsts, vec!["a2a3", "g1f3", "h2h4"]);
}

#[test]
fn several_threads_print_legal_distinct_lines() {
    for &(fen, _) in POSITIONS {
        let (r, lines) = multipv(fen, 3, 3, Limits::depth(9));
        assert_eq!(lines.len(), 3, "{fen}");
        for l in &lines {
            assert!(is_legal_line(fen, &l.pv), "{fen}: {:?}", l.pv);
        }
        assert_ne!(lines[0].pv[0], lines[1].pv[0]);
        assert!(r.best_move.is_some());
    }
}
