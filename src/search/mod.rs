//! Iterative deepening with aspiration windows, reporting, and the roles of the main and
//! helper threads.

pub mod negamax;
pub mod qsearch;
pub mod stack;

use shakmaty::Move;

use crate::params::Params;
use crate::score::{INFINITE, MAX_DEPTH, MAX_PLY, mate_moves};
use crate::thread::{SearchInfo, SearchResult, SearchShared, ThreadData, ThreadResult};
use crate::tt::Bound;

/// Node kinds as types, so one generic search compiles into specialised copies.
pub trait Node {
    const PV: bool;
    const ROOT: bool;
}

pub struct Root;
pub struct Pv;
pub struct NonPv;

impl Node for Root {
    const PV: bool = true;
    const ROOT: bool = true;
}

impl Node for Pv {
    const PV: bool = true;
    const ROOT: bool = false;
}

impl Node for NonPv {
    const PV: bool = false;
    const ROOT: bool = false;
}

/// Late-move reduction table in 1/1024 plies: `base + ln(depth) * ln(moves) / div`.
pub fn lmr_table(p: &Params) -> Vec<[i32; 64]> {
    let mut t = vec![[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, cell) in row.iter_mut().enumerate().skip(1) {
            let r = f64::from(p.LMR_BASE) / 100.0
                + (d as f64).ln() * (m as f64).ln() / (f64::from(p.LMR_DIV) / 100.0);
            *cell = (r * 1024.0) as i32;
        }
    }
    t
}

impl ThreadData {
    /// Readies this thread for a new search of `sh.root`.
    fn prepare(&mut self, sh: &SearchShared) {
        self.pos = sh.root.clone();
        self.pos.set_root();
        self.params = sh.params.clone();
        self.lmr = lmr_table(crate::params::active(&self.params));
        self.nodes = 0;
        self.seldepth = 0;
        self.stack.reset();
        self.result = ThreadResult::default();
        self.completed_depth = 0;
        self.root_depth = 0;
        self.nmp_min_ply = 0;
        self.root_nodes.clear();
        self.stats = Default::default();
        for line in &mut self.pv {
            line.clear();
        }
    }

    /// Adds to the nodes spent on root move `m`.
    pub(crate) fn add_root_nodes(&mut self, m: Move, nodes: u64) {
        match self.root_nodes.iter_mut().find(|(rm, _)| *rm == m) {
            Some((_, n)) => *n += nodes,
            None => self.root_nodes.push((m, nodes)),
        }
    }

    fn root_nodes_of(&self, m: Option<Move>) -> u64 {
        self.root_nodes
            .iter()
            .find(|(rm, _)| Some(*rm) == m)
            .map_or(0, |(_, n)| *n)
    }

    /// Counts a node and polls the limits; true when the search must unwind.
    #[inline]
    pub(crate) fn count_node_and_check(&mut self, sh: &SearchShared) -> bool {
        self.nodes += 1;
        sh.nodes.set(self.id, self.nodes);
        if let Some(limit) = sh.limits.nodes {
            if sh.threads == 1 {
                if self.nodes >= limit {
                    sh.request_stop();
                }
            } else if self.nodes & 255 == 0 && sh.nodes.total() >= limit {
                sh.request_stop();
            }
        }
        if self.id == 0 && self.nodes & 1023 == 0 && sh.clock.hard_expired() {
            sh.request_stop();
        }
        self.aborted(sh)
    }

    /// The current iteration is being abandoned (never before depth 1 is complete, so there is
    /// always a move to play).
    #[inline]
    pub(crate) fn aborted(&self, sh: &SearchShared) -> bool {
        self.completed_depth > 0 && sh.stopped()
    }

    pub fn main_search(&mut self, sh: &SearchShared) {
        self.prepare(sh);
        if sh.root_moves.is_empty() {
            // Mated or stalemated: say so, and there is no move to play.
            let score = if self.pos.in_check() {
                crate::score::mated_in(0)
            } else {
                0
            };
            sh.reporter.info(&SearchInfo {
                depth: 0,
                seldepth: 0,
                score,
                bound: Bound::Exact,
                nodes: 0,
                nps: 0,
                hashfull: 0,
                time_ms: 0,
                pv: Vec::new(),
            });
        } else {
            self.iterative_deepening(sh);
        }
        // `go infinite` and `go ponder` report only after `stop` (or `ponderhit`).
        while !sh.stopped() && (sh.limits.infinite || sh.clock.pondering()) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        sh.request_stop();
        sh.finish_thread(self.id, self.result.clone());
        let results = sh.wait_for_threads();
        let chosen = select_best_thread(&results, sh.params.SMP_VOTE != 0, sh.params.SMP_VOTE_BASE);
        let best = &results[chosen];
        let to_uci = |m: Move| self.pos.move_to_uci(m);
        let best_move = best.best_move.or_else(|| sh.root_moves.first().copied());
        let result = SearchResult {
            best_move: best_move.map(to_uci),
            ponder_move: best.pv.get(1).copied().map(to_uci),
            score: best.score,
            depth: best.depth,
            nodes: sh.nodes.total(),
            time_ms: sh.clock.elapsed_ms(),
            thread: chosen,
        };
        if chosen != 0 && best.depth > 0 {
            // The chosen line was not the last one printed: print it.
            self.report(sh, best.depth, best.score, Bound::Exact, &best.pv);
        }
        sh.publish(result.clone());
        sh.reporter.bestmove(&result);
        sh.mark_reported();
    }

    pub fn helper_search(&mut self, sh: &SearchShared) {
        self.prepare(sh);
        if !sh.root_moves.is_empty() {
            self.iterative_deepening(sh);
        }
        sh.finish_thread(self.id, self.result.clone());
    }

    fn iterative_deepening(&mut self, sh: &SearchShared) {
        let max_depth = sh.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut score = 0;
        let mut stability = 0;
        for depth in 1..=max_depth {
            if self.skips_depth(crate::params::active(&sh.params), depth) {
                continue;
            }
            self.seldepth = 0;
            self.root_depth = depth;
            let s = self.aspiration(sh, depth, score);
            if self.aborted(sh) {
                break;
            }
            let previous = std::mem::take(&mut self.result);
            let pv = self.pv[0].clone();
            self.result = ThreadResult {
                best_move: pv.first().copied(),
                pv,
                score: s,
                depth,
            };
            self.completed_depth = depth;
            if self.id != 0 {
                score = s;
                continue;
            }
            stability = if previous.best_move == self.result.best_move {
                (stability + 1).min(8)
            } else {
                0
            };
            let drop = if depth > 1 { score - s } else { 0 };
            score = s;
            self.report(sh, depth, score, Bound::Exact, &self.result.pv.clone());
            let scale = self.time_scale(crate::params::active(&sh.params), stability, drop);
            if self.should_stop_after_iteration(sh, score, scale) {
                break;
            }
        }
        if self.id == 0 {
            sh.request_stop();
            if sh.debug {
                sh.reporter.message(&self.stats_report());
            }
        }
    }

    /// Helpers do not all search the same depth at once: helper `i` skips iterations in
    /// blocks whose size and phase depend on `i` (the skip-blocks schedule of older
    /// Stockfish versions). The main thread never skips.
    fn skips_depth(&self, p: &Params, depth: i32) -> bool {
        const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
        const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
        if self.id == 0 || p.SMP_SKIP_BLOCKS == 0 || depth <= 1 {
            return false;
        }
        let i = (self.id - 1) % 20;
        ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
    }

    /// How much of the soft limit to use (permille): more when the best move keeps changing,
    /// the score drops, or the best move got a small share of the nodes.
    fn time_scale(&self, p: &Params, stability: i32, drop: i32) -> u64 {
        let stable = (p.TM_STABLE_BASE - p.TM_STABLE_MUL * stability).max(100);
        let dropped = 1000 + (drop * p.TM_DROP_MUL).clamp(0, p.TM_DROP_MAX);
        let total = self.nodes.max(1);
        let share = (self.root_nodes_of(self.result.best_move) * 1000 / total) as i32;
        let nodes = (p.TM_NODES_BASE - p.TM_NODES_MUL * share / 1000).max(100);
        (i64::from(stable) * i64::from(dropped) / 1000 * i64::from(nodes) / 1000).max(1) as u64
    }

    fn stats_report(&self) -> String {
        let s = &self.stats;
        let first = (s.first_move_cutoffs * 1000)
            .checked_div(s.beta_cutoffs)
            .unwrap_or(0);
        format!(
            "stats thread 0: nodes {} tt_cuts {} razor {} rfp {} nmp {}/{} probcut {} iir {} lmp {} futility {} history {} see {} singular {} double {} multicut {} negative_ext {} lmr {} lmr_researches {} qs_delta {} beta_cutoffs {} first_move_cutoff_permille {}",
            self.nodes,
            s.tt_cuts,
            s.razor,
            s.rfp,
            s.nmp_cuts,
            s.nmp_tries,
            s.probcut,
            s.iir,
            s.lmp,
            s.futility,
            s.history_pruned,
            s.see_pruned,
            s.singular,
            s.double_ext,
            s.multicut,
            s.negative_ext,
            s.lmr_searches,
            s.lmr_researches,
            s.qs_delta,
            s.beta_cutoffs,
            first
        )
    }

    /// Main thread, between iterations: is it time to stop?
    fn should_stop_after_iteration(&self, sh: &SearchShared, score: i32, scale: u64) -> bool {
        if sh.stopped() {
            return true;
        }
        if sh.limits.soft_nodes.is_some_and(|n| sh.nodes.total() >= n) {
            return true;
        }
        if let (Some(n), Some(m)) = (sh.limits.mate, mate_moves(score))
            && m > 0
            && m <= n
        {
            return true;
        }
        // One legal move: nothing to decide, save the clock (but `go movetime` searches on).
        if sh.clock.budget().is_some_and(|b| !b.fixed)
            && !sh.clock.pondering()
            && sh.root_moves.len() == 1
        {
            return true;
        }
        sh.clock.soft_expired(scale)
    }

    fn aspiration(&mut self, sh: &SearchShared, depth: i32, prev: i32) -> i32 {
        let p = crate::params::active(&sh.params);
        let spread = if self.id == 0 {
            0
        } else {
            (self.id % 4) as i32 * p.SMP_ASP_SPREAD
        };
        let mut delta = p.ASP_WINDOW + spread;
        let (mut alpha, mut beta) = if depth >= p.ASP_DEPTH {
            ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.negamax::<Root>(sh, alpha, beta, depth, false);
            if self.aborted(sh) {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
                self.report_bound(sh, depth, score, Bound::Upper);
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
                self.report_bound(sh, depth, score, Bound::Lower);
            } else {
                return score;
            }
            delta += delta * p.ASP_WIDEN_PCT / 100;
        }
    }

    /// Bound lines only from the main thread, and only in long searches.
    fn report_bound(&self, sh: &SearchShared, depth: i32, score: i32, bound: Bound) {
        if self.id == 0 && sh.clock.elapsed_ms() > 3000 {
            let pv = self.pv[0].clone();
            self.report(sh, depth, score, bound, &pv);
        }
    }

    fn report(&self, sh: &SearchShared, depth: i32, score: i32, bound: Bound, pv: &[Move]) {
        let nodes = sh.nodes.total();
        let time_ms = sh.clock.elapsed_ms();
        // Replay the line to print it, and stop at anything that is not legal (defensive).
        let mut pos = sh.root.clone();
        let mut line = Vec::with_capacity(pv.len());
        for &m in pv.iter().take(MAX_PLY) {
            if !pos.is_legal(m) {
                break;
            }
            line.push(pos.move_to_uci(m));
            pos.play_game_move(m);
        }
        sh.reporter.info(&SearchInfo {
            depth,
            seldepth: self.seldepth as i32,
            score,
            bound,
            nodes,
            nps: nodes * 1000 / time_ms.max(1),
            hashfull: sh.tt.hashfull(),
            time_ms,
            pv: line,
        });
    }
}

/// The thread whose result to play. With voting, every thread's last completed iteration
/// votes for its move with weight `(score - worst + base) * depth`, and the move with the most
/// weight wins (played from the thread that backs it best); a found mate wins outright, the
/// shortest first. Without voting, the main thread's result (a helper's only if the main
/// thread has none).
pub fn select_best_thread(results: &[ThreadResult], vote: bool, base: i32) -> usize {
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
