//! The Lazy-SMP policy: what makes the threads of one search differ (skipped iterations, wider
//! aspiration windows), how their node counts add up, and which thread's result is played.
//! The threads themselves are `thread.rs`'s pool; everything here is the search's side.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;
use shakmaty::Move;

use crate::params::Params;

/// What one thread found: its last completed iteration.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThreadResult {
    pub best_move: Option<Move>,
    pub pv: Vec<Move>,
    pub score: i32,
    pub depth: i32,
}

/// Per-thread node counters, each on its own cache line, summed on demand.
pub(crate) struct NodeCounters(Vec<CachePadded<AtomicU64>>);

impl NodeCounters {
    pub fn new(threads: usize) -> NodeCounters {
        NodeCounters(
            (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        )
    }

    #[inline]
    pub fn set(&self, thread: usize, nodes: u64) {
        self.0[thread].store(nodes, Relaxed);
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|c| c.load(Relaxed)).sum()
    }

    pub(crate) fn reset(&self) {
        for c in &self.0 {
            c.store(0, Relaxed);
        }
    }
}

/// Helpers do not all search the same depth at once: helper `i` skips iterations in
/// blocks whose size and phase depend on `i` (the skip-blocks schedule of older
/// Stockfish versions). The main thread never skips.
pub(crate) fn skips_depth(id: usize, p: &Params, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    if id == 0 || p.SMP_SKIP_BLOCKS == 0 || depth <= 1 {
        return false;
    }
    let i = (id - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}

/// The aspiration window of helper `id` is wider by this much (helpers spread over 4 widths).
pub(crate) fn aspiration_spread(id: usize, p: &Params) -> i32 {
    if id == 0 {
        0
    } else {
        (id % 4) as i32 * p.SMP_ASP_MUL
    }
}

/// The thread whose result to play. With voting, every thread's last completed iteration
/// votes for its move with weight `(score - worst + base) * depth`, and the move with the most
/// weight wins (played from the thread that backs it best); a found mate wins outright, the
/// shortest first. Without voting, the main thread's result (a helper's only if the main
/// thread has none).
pub(crate) fn select_best_thread(results: &[ThreadResult], vote: bool, base: i32) -> usize {
    let usable: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].best_move.is_some())
        .collect();
    let Some(&first) = usable.first() else {
        return 0;
    };
    if !vote {
        return first;
    }
    let mate_found = |r: &ThreadResult| crate::score::is_mate_score(r.score) && r.score > 0;
    if let Some(&m) = usable
        .iter()
        .filter(|&&i| mate_found(&results[i]))
        .max_by_key(|&&i| (results[i].score, results[i].depth))
    {
        return m;
    }
    let worst = usable.iter().map(|&i| results[i].score).min().unwrap_or(0);
    let weight = |r: &ThreadResult| i64::from(r.score - worst + base) * i64::from(r.depth);
    let mut votes: Vec<(Move, i64)> = Vec::new();
    for &i in &usable {
        let r = &results[i];
        let Some(m) = r.best_move else { continue };
        match votes.iter_mut().find(|(vm, _)| *vm == m) {
            Some((_, v)) => *v += weight(r),
            None => votes.push((m, weight(r))),
        }
    }
    let votes_for = |i: usize| {
        votes
            .iter()
            .find(|(m, _)| Some(*m) == results[i].best_move)
            .map_or(0, |(_, v)| *v)
    };
    let mut best = first;
    for &i in &usable {
        let (vi, vb) = (votes_for(i), votes_for(best));
        if vi > vb || (vi == vb && weight(&results[i]) > weight(&results[best])) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn result(to: Square, score: i32, depth: i32) -> ThreadResult {
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to,
            promotion: None,
        };
        ThreadResult {
            best_move: Some(m),
            pv: vec![m],
            score,
            depth,
        }
    }

    #[test]
    fn the_majority_move_wins_the_vote() {
        let r = [
            result(Square::F3, 30, 10),
            result(Square::H3, 35, 10),
            result(Square::H3, 34, 11),
        ];
        let best = select_best_thread(&r, true, 20);
        assert_eq!(r[best].best_move, r[1].best_move);
        assert_eq!(best, 2, "the deeper thread backs it best");
        assert_eq!(select_best_thread(&r, false, 20), 0);
    }

    #[test]
    fn a_mate_wins_outright() {
        let mate = crate::score::mate_in(5);
        let r = [
            result(Square::F3, 30, 20),
            result(Square::H3, 35, 20),
            result(Square::E2, mate, 8),
        ];
        assert_eq!(select_best_thread(&r, true, 20), 2);
    }

    #[test]
    fn threads_without_a_move_do_not_vote() {
        let mut r = vec![ThreadResult::default(), result(Square::F3, 10, 3)];
        assert_eq!(select_best_thread(&r, true, 20), 1);
        r[1].best_move = None;
        assert_eq!(select_best_thread(&r, true, 20), 0);
    }
}
