//! `shears bench`: a fixed set of positions searched to a fixed depth with one thread and a
//! 16 MB table, each from a cleared state. The node count is the search's signature (commits that
//! change search behaviour carry it as `Bench: <nodes>`); the last line is `<N> nodes <M> nps`,
//! the form OpenBench reads.

use std::time::Instant;

use crate::engine::Engine;
use crate::time::Limits;

/// Depth of `bench` without an argument.
pub const DEFAULT_DEPTH: i32 = 12;

/// Openings, middlegames (some from Win At Chess), endgames and perft test positions.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9",
    "r2q1rk1/1p1nbppp/p2pbn2/4p3/4P1P1/1NN1BP2/PPPQ3P/2KR1B1R b - - 0 11",
    "rn1q1rk1/p1p2ppp/bp2pn2/6B1/3P4/P4N2/1PQ1PPPP/R3KB1R b KQ - 3 10",
    "rn3rk1/p1p1qpp1/1p2b2p/3p4/3P4/4PN2/PP3PPP/2RQKB1R w K - 2 12",
    "r1b1k1r1/ppq1np1Q/2n1p3/3pP3/3p1P2/P1P5/2P1N1PP/R1B1KB1R b KQq - 0 11",
    "r2qkb1r/pp1nnppp/4p3/2p1Pb2/2pP4/N3BN2/PP2BPPP/R2Q1RK1 b kq - 1 9",
    "r2q1rk1/ppp1bppp/1nn1b3/4p3/1P6/P1NP1NP1/4PPBP/R1BQ1RK1 b - - 0 10",
    "r1bq1rk1/ppp1n1bp/3p1np1/3Pp3/2P1PpP1/2NN1P2/PP1BB2P/R2Q1RK1 b - g3 0 13",
    "r1bqk2r/pppp1ppp/2n5/3P4/2B1n3/2b2N2/PP3PPP/R1BQ1RK1 b kq - 0 9",
    "r1bqkb1r/5p1p/p1np4/1p1Npp2/4P3/N7/PPP2PPP/R2QKB1R w KQkq - 0 11",
    "r2q1rk1/pp1n1ppp/2p1pn2/7b/Pb1PP3/2NB1N2/1P2QPPP/R1B2RK1 w - - 3 12",
    "r2qr1k1/ppp1bppp/2n5/3p1b2/2PP4/P1P2N2/4BPPP/R1BQR1K1 w - - 3 14",
    "r1bq1rk1/3nbppp/2n1p3/ppppP3/7P/3P1NP1/PPP2PB1/R1BQRNK1 b - - 0 11",
    "rn2k2r/pp3ppp/2p1pn2/q4b2/1bBP4/2N2N2/PPPBQPPP/2KR3R b kq - 3 9",
    "r2q1rk1/p2nbppp/bpp1p3/3p4/2PP4/1PB3P1/P2NPPBP/R2Q1RK1 b - - 3 12",
    "r1bq1rk1/pp2npbp/3pp1p1/2p1P3/3n1P2/2NPBNP1/PPP3BP/R2Q1RK1 b - - 0 10",
    "rnbqk2r/ppp2p1p/3b4/3PN2n/2BP1ppP/8/PPP3P1/RNBQK2R w KQkq - 1 9",
    "r1b1qrk1/1pp1b1pp/n2ppn2/p4p2/2PP4/BPN2NP1/P3PPBP/R2Q1RK1 w - - 2 10",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1",
    "r2qk2r/pb4pp/1n2Pb2/2B2Q2/p1p5/2P5/2B2PPP/RN2R1K1 w - - 1 1",
    "2r3k1/1q3ppp/p3p3/1p6/3P4/P3Q1P1/1P3P1P/2R3K1 w - - 0 1",
    "r4rk1/1b3ppp/p1q1p3/1p6/3Pn3/1B2P3/PP1N1PPP/2RQ1RK1 w - - 0 1",
    "3r2k1/5ppp/8/8/8/8/5PPP/2R3K1 w - - 0 1",
    "8/pp3k2/2p1p3/3pPp2/3P1P2/2P2K2/PP6/8 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "8/8/r3k3/8/4PK2/8/8/1R6 b - - 0 1",
    "8/8/1p4k1/p1p3p1/P1P3P1/1P3K2/8/8 w - - 0 1",
    "8/5pk1/6p1/8/4B3/6P1/5PK1/8 w - - 0 1",
    "8/3k4/8/2KP4/8/8/8/8 w - - 0 1",
    "8/8/8/8/4k3/8/Q7/4K3 w - - 0 1",
    "6k1/6p1/8/6KQ/1r6/q2b4/8/8 w - - 0 70",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 2 48",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/p3q2p/1nr3pB/8/3Q1P2/6P1/PP5P/3R2K1 b - - 0 1",
    "r4rk1/pp3ppp/2n1b3/q1pp2B1/8/P1Q2NP1/1PP1PP1P/2KR3R w - - 0 15",
    "2kr3r/pp1q1ppp/5n2/1Nb5/2Pp1B2/7Q/P4PPP/1R3RK1 w - - 0 1",
    "r1bqk2r/pppp1Npp/8/2b5/2B1n3/8/PPPP1PPP/RNBQK2R b KQkq - 0 6",
    "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24",
    "r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42",
    "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44",
    "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
];

/// Nodes and time of one bench run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched over all positions.
    pub nodes: u64,
    /// Milliseconds spent.
    pub ms: u64,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.ms.max(1)
    }

    /// The line `bench` prints: nodes and nps.
    pub fn summary(&self) -> String {
        format!("{} nodes {} nps", self.nodes, self.nps())
    }
}

/// Runs the bench at `depth` with default parameters.
pub fn run(depth: i32) -> BenchResult {
    run_with(depth, &mut Engine::new())
}

/// Runs the bench on `engine` (its parameters; one thread, 16 MB, cleared before each position).
pub(crate) fn run_with(depth: i32, engine: &mut Engine) -> BenchResult {
    let setup = [("Threads", "1"), ("Hash", "16")];
    for (name, value) in setup {
        // Both values are always valid.
        let _ = engine.set_option(name, Some(value));
    }
    let mut nodes = 0;
    let start = Instant::now();
    for fen in POSITIONS {
        if engine.set_position(Some(fen), &[]).is_err() || engine.new_game().is_err() {
            continue;
        }
        nodes += engine.search(Limits::depth(depth)).nodes;
    }
    BenchResult {
        nodes,
        ms: start.elapsed().as_millis() as u64,
    }
}

/// Time to depth with several threads: each position from a cleared state, searched to
/// `depth` with `threads` threads, after setting `options` (name, value). Returns per-position
/// (milliseconds, nodes), or the error of an option that was refused.
pub fn time_to_depth(
    depth: i32,
    threads: usize,
    hash_mb: usize,
    options: &[(String, String)],
) -> Result<Vec<(f64, u64)>, String> {
    let mut engine = Engine::new();
    engine.set_option("Threads", Some(&threads.to_string()))?;
    engine.set_option("Hash", Some(&hash_mb.to_string()))?;
    for (name, value) in options {
        engine.set_option(name, Some(value))?;
    }
    let mut out = Vec::new();
    for fen in POSITIONS {
        if engine.set_position(Some(fen), &[]).is_err() || engine.new_game().is_err() {
            continue;
        }
        let start = Instant::now();
        let r = engine.search(Limits::depth(depth));
        out.push((start.elapsed().as_secs_f64() * 1000.0, r.nodes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use shakmaty::CastlingMode;

    #[test]
    fn positions_are_legal_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for fen in POSITIONS {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            assert!(!pos.legal_moves().is_empty(), "{fen}");
            assert!(seen.insert(pos.hash()), "duplicate {fen}");
        }
        assert_eq!(POSITIONS.len(), 50);
    }

    #[test]
    fn bench_is_deterministic() {
        let a = run(4);
        let b = run(4);
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes > 1000);
    }
}
