//! The search's staged move generators and the copy-make stack against the perft suites
//! (`tests/data/`), and the incremental Zobrist key against its full
//! recomputation after every move.

use shakmaty::{CastlingMode, Position as _};
use shears::position::{Position, full_hash};

/// Largest leaf count searched per position (keeps the suites well under a minute).
const MAX_NODES: u64 = 400_000;

fn suite(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// (fen, [(depth, nodes)]) per line of an EPD perft suite.
fn parse_suite(text: &str) -> Vec<(String, Vec<(u32, u64)>)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .filter_map(|p| {
                    let p = p.trim();
                    let (d, n) = p.strip_prefix('D')?.split_once(' ')?;
                    Some((d.parse().ok()?, n.trim().parse().ok()?))
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

/// Perft through the search's staged generators (evasions in check, else noisy then quiet
/// moves) and our own make/unmake, checking the key after every move.
fn perft(pos: &mut Position, depth: u32) -> u64 {
    let moves = pos.staged_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut n = 0;
    for m in moves {
        pos.make(m);
        assert_eq!(
            pos.hash(),
            full_hash(pos.board()),
            "key after {m:?} in {}",
            pos.fen()
        );
        n += perft(pos, depth - 1);
        pos.unmake();
    }
    n
}

fn run_suite(text: &str, mode: CastlingMode, every: usize) -> (usize, u64) {
    let mut positions = 0;
    let mut total = 0;
    for (fen, counts) in parse_suite(text).into_iter().step_by(every) {
        let mut pos = Position::from_fen(&fen, mode).unwrap_or_else(|e| panic!("{e}"));
        let (depth, expected) = counts
            .iter()
            .copied()
            .filter(|&(_, n)| n <= MAX_NODES)
            .max_by_key(|&(d, _)| d)
            .unwrap_or(counts[0]);
        let got = perft(&mut pos, depth);
        assert_eq!(got, expected, "perft {depth} of {fen}");
        assert_eq!(pos.search_ply(), 0);
        positions += 1;
        total += got;
    }
    (positions, total)
}

#[test]
fn perftsuite_all_positions() {
    let (positions, nodes) = run_suite(&suite("perftsuite.epd"), CastlingMode::Standard, 1);
    assert_eq!(positions, 126);
    assert!(nodes > 10_000_000, "{nodes}");
}

#[test]
fn chess960_sample() {
    let (positions, _) = run_suite(&suite("frcperftsuite.epd"), CastlingMode::Chess960, 10);
    assert!(positions >= 90);
}

#[test]
fn castling_moves_print_in_the_mode_of_the_position() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let std = Position::from_fen(fen, CastlingMode::Standard).unwrap();
    let c960 = Position::from_fen(fen, CastlingMode::Chess960).unwrap();
    let castle = std
        .legal_moves()
        .into_iter()
        .find(|m| m.is_castle() && m.to().file() == shakmaty::File::H)
        .unwrap();
    assert_eq!(std.move_to_uci(castle), "e1g1");
    assert_eq!(c960.move_to_uci(castle), "e1h1");
    // Both notations are understood in both modes.
    for pos in [&std, &c960] {
        assert_eq!(pos.parse_uci_move("e1g1").unwrap(), castle);
        assert_eq!(pos.parse_uci_move("e1h1").unwrap(), castle);
    }
    assert!(std.board().is_legal(castle));
}
