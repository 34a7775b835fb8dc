//! Iterative deepening with aspiration windows, the roles of the main and helper threads,
//! and the `info` lines of each completed depth.

use shakmaty::Move;

use super::node::Root;
use super::report::{SearchInfo, SearchResult};
use super::shared::SearchShared;
use super::smp::{ThreadResult, aspiration_spread, select_best_thread, skips_depth};
use super::worker::Worker;
use crate::params::Params;
use crate::score::{INFINITE, MAX_DEPTH, MAX_PLY, mate_moves};
use crate::tt::Bound;

/// Iterations in a row with the same best move counted by the time manager, at most.
const STABILITY_CAP: i32 = 8;

impl Worker {
    pub(crate) fn main_search(&mut self, sh: &SearchShared) {
        self.prepare(sh);
        if sh.root_moves.is_empty() {
            // Mated or stalemated: say so, and there is no move to play.
            let score = if self.state.pos.in_check() {
                crate::score::mated_in(0)
            } else {
                0
            };
            sh.reporter.info(&SearchInfo {
                depth: 0,
                multipv: 1,
                seldepth: 0,
                score,
                bound: Bound::Exact,
                wdl: None,
                nodes: 0,
                nps: 0,
                hashfull: 0,
                tbhits: 0,
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
        sh.finish_thread(self.id, self.state.result.clone());
        let results = sh.wait_for_threads();
        let p = crate::params::active(&sh.params);
        // With several lines the main thread's are the ones printed: its best line is played.
        let vote = p.SMP_VOTE != 0 && sh.multipv == 1;
        let chosen = select_best_thread(&results, vote, p.SMP_VOTE_BASE);
        let best = &results[chosen];
        let to_uci = |m: Move| self.state.pos.move_to_uci(m);
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

    pub(crate) fn helper_search(&mut self, sh: &SearchShared) {
        self.prepare(sh);
        if !sh.root_moves.is_empty() {
            self.iterative_deepening(sh);
        }
        sh.finish_thread(self.id, self.state.result.clone());
    }

    fn iterative_deepening(&mut self, sh: &SearchShared) {
        let max_depth = sh.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut score = 0;
        let mut stability = 0;
        for depth in 1..=max_depth {
            if skips_depth(self.id, crate::params::active(&sh.params), depth) {
                continue;
            }
            self.state.seldepth = 0;
            self.state.root_depth = depth;
            let s = self.aspiration(sh, depth, score);
            if self.aborted(sh) {
                break;
            }
            let previous = std::mem::take(&mut self.state.result);
            let pv = self.state.pv[0].clone();
            self.state.result = ThreadResult {
                best_move: pv.first().copied(),
                pv,
                score: s,
                depth,
            };
            self.state.completed_depth = depth;
            if self.id != 0 {
                score = s;
                continue;
            }
            stability = if previous.best_move == self.state.result.best_move {
                (stability + 1).min(STABILITY_CAP)
            } else {
                0
            };
            let drop = if depth > 1 { score - s } else { 0 };
            score = s;
            if sh.multipv > 1 {
                if !self.other_lines(sh, depth) {
                    break;
                }
            } else {
                self.report(
                    sh,
                    depth,
                    score,
                    Bound::Exact,
                    &self.state.result.pv.clone(),
                );
            }
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

    /// MultiPV, main thread, after the best line of `depth`: the next best lines, each searched
    /// with its own aspiration window around its score of the previous depth and without the
    /// root moves of the lines above it; then every line is reported, best first. False when
    /// the search was stopped part way (the lines of the last complete depth stand).
    fn other_lines(&mut self, sh: &SearchShared, depth: i32) -> bool {
        let count = sh.multipv.min(sh.root_moves.len());
        let first = self.state.result.clone();
        let mut lines = vec![(first.score, first.pv)];
        self.state.excluded_root.clear();
        self.state.excluded_root.extend(lines[0].1.first().copied());
        let mut complete = true;
        while lines.len() < count {
            let k = lines.len();
            let previous = self.state.lines.get(k).map_or(lines[k - 1].0, |l| l.0);
            let s = self.aspiration(sh, depth, previous);
            if self.aborted(sh) {
                complete = false;
                break;
            }
            let pv = self.state.pv[0].clone();
            let Some(&m) = pv.first() else {
                break;
            };
            self.state.excluded_root.push(m);
            lines.push((s, pv));
        }
        self.state.excluded_root.clear();
        if !complete {
            return false;
        }
        // A later line may have come out better than the first (search instability): order
        // them, and the best is the thread's result.
        lines.sort_by_key(|l| std::cmp::Reverse(l.0));
        for (k, (s, pv)) in lines.iter().enumerate() {
            self.report_line(sh, k + 1, depth, *s, Bound::Exact, pv);
        }
        self.state.result = ThreadResult {
            best_move: lines[0].1.first().copied(),
            pv: lines[0].1.clone(),
            score: lines[0].0,
            depth,
        };
        self.state.lines = lines;
        true
    }

    /// How much of the soft limit to use (permille): more when the best move keeps changing,
    /// the score drops, or the best move got a small share of the nodes.
    fn time_scale(&self, p: &Params, stability: i32, drop: i32) -> u64 {
        let stable = (p.TM_STABLE_BASE - p.TM_STABLE_MUL * stability).max(100);
        let dropped = 1000 + (drop * p.TM_DROP_MUL).clamp(0, p.TM_DROP_MAX);
        let total = self.state.nodes.max(1);
        let share = (self.root_nodes_of(self.state.result.best_move) * 1000 / total) as i32;
        let nodes = (p.TM_NODES_BASE - p.TM_NODES_MUL * share / 1000).max(100);
        (i64::from(stable) * i64::from(dropped) / 1000 * i64::from(nodes) / 1000).max(1) as u64
    }

    fn stats_report(&self) -> String {
        let s = &self.state.stats;
        let first = (s.first_move_cutoffs * 1000)
            .checked_div(s.beta_cutoffs)
            .unwrap_or(0);
        format!(
            "stats thread 0: nodes {} tt_cuts {} razor {} rfp {} nmp {}/{} probcut {} iir {} lmp {} futility {} history {} see {} singular {} double {} multicut {} negative_ext {} lmr {} lmr_researches {} qs_delta {} beta_cutoffs {} first_move_cutoff_permille {}",
            self.state.nodes,
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
        let mut delta = p.ASP_MARGIN + aspiration_spread(self.id, p);
        let (mut alpha, mut beta) = if depth >= p.ASP_MIN_DEPTH {
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

    /// Bound lines only from the main thread, and only in long searches. They belong to the
    /// line being searched: under MultiPV, the one after the lines whose moves are excluded.
    fn report_bound(&self, sh: &SearchShared, depth: i32, score: i32, bound: Bound) {
        if self.id == 0 && sh.clock.elapsed_ms() > 3000 {
            let pv = self.state.pv[0].clone();
            let line = self.state.excluded_root.len() + 1;
            self.report_line(sh, line, depth, score, bound, &pv);
        }
    }

    fn report(&self, sh: &SearchShared, depth: i32, score: i32, bound: Bound, pv: &[Move]) {
        self.report_line(sh, 1, depth, score, bound, pv);
    }

    /// One `info` line: line `multipv` of a MultiPV search (1 otherwise).
    fn report_line(
        &self,
        sh: &SearchShared,
        multipv: usize,
        depth: i32,
        score: i32,
        bound: Bound,
        pv: &[Move],
    ) {
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
        // A root in the tables shows their value (exact) unless the search has found a mate.
        let tb = sh
            .root_tb
            .as_ref()
            .filter(|_| !crate::score::is_mate_score(score));
        let (score, bound) = tb.map_or((score, bound), |tb| (tb.score, Bound::Exact));
        let wdl = sh.show_wdl.then(|| {
            tb.map_or_else(
                || crate::eval::wdl::wdl(score, crate::eval::wdl::material(sh.root.board())),
                crate::tb::RootTb::wdl,
            )
        });
        sh.reporter.info(&SearchInfo {
            depth,
            multipv,
            seldepth: self.state.seldepth as i32,
            score,
            bound,
            wdl,
            nodes,
            nps: nodes * 1000 / time_ms.max(1),
            hashfull: sh.tt.hashfull(),
            tbhits: sh.tbhits.load(std::sync::atomic::Ordering::Relaxed),
            time_ms,
            pv: line,
        });
    }
}
