//! Quiescence search: captures and queen promotions until the position is quiet, with stand
//! pat; all evasions when in check; quiet checks at its first ply when `QS_CHECKS` is on.

use super::negamax::{EVAL_NONE, tt_cuts, tt_refines};
use super::node::Node;
use super::shared::SearchShared;
use super::worker::Worker;
use crate::history::{PieceTo, QuietKeys};
use crate::movepick::MovePicker;
use crate::moves::Move16;
use crate::score::{DRAW, INFINITE, MATE_BOUND, MAX_PLY, mated_in};
use crate::see;
use crate::tt::Bound;

impl Worker {
    /// `checks`: this is the first quiescence ply below the main search, where quiet checks
    /// are searched too when `QS_CHECKS` is on.
    pub(crate) fn qsearch<N: Node>(
        &mut self,
        sh: &SearchShared,
        mut alpha: i32,
        beta: i32,
        checks: bool,
    ) -> i32 {
        let ply = self.state.pos.search_ply();
        let p = crate::params::active(&sh.params);

        // Step 1. Count the node; unwind if the search is over.
        self.state.pv[ply].clear();
        if self.count_node_and_check(sh) {
            return 0;
        }
        if N::PV {
            self.state.seldepth = self.state.seldepth.max(ply + 1);
        }

        // Step 2. Draws and the ply limit.
        if self.state.pos.is_draw() || self.state.pos.is_insufficient_material() {
            return DRAW;
        }
        let in_check = self.state.pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.evaluate(sh) };
        }

        // Step 3. Transposition table: any depth is deep enough here.
        let key = self.state.pos.hash();
        let entry = sh.tt.probe(key, ply);
        if !N::PV
            && let Some(e) = entry
            && tt_cuts(&e, alpha, beta)
        {
            return e.score;
        }
        let tt_move = self.tt_move(entry);

        // Step 4. Stand pat: the side to move may decline every capture. The corrected static
        // eval, or the TT score when its bound says it is a better estimate.
        let raw_eval;
        let mut best;
        let mut static_eval = EVAL_NONE;
        if in_check {
            raw_eval = EVAL_NONE;
            best = -INFINITE;
        } else {
            raw_eval = match entry {
                Some(e) if e.eval != EVAL_NONE => e.eval,
                _ => self.evaluate(sh),
            };
            static_eval = self.corrected_eval(p, raw_eval);
            best = static_eval;
            if let Some(e) = entry
                && tt_refines(&e, best)
            {
                best = e.score;
            }
            if best >= beta {
                if entry.is_none() {
                    sh.tt.store(
                        key,
                        Move16::NONE,
                        best,
                        raw_eval,
                        0,
                        Bound::Lower,
                        false,
                        ply,
                    );
                }
                return best;
            }
            alpha = alpha.max(best);
        }

        // Step 5. Captures (or evasions), pruned by SEE and by delta: a capture that cannot
        // lift the eval near alpha even with the captured piece and a margin (unless it gives
        // check: a capture that mates gains far more than the piece).
        // Quiet evasions are ordered by every quiet history; quiet checks by continuation.
        let keys = if in_check {
            self.quiet_keys(p, ply)
        } else {
            QuietKeys {
                cont: self.cont_keys(p, ply),
                ..QuietKeys::default()
            }
        };
        let mut picker = if checks && !in_check && p.QS_CHECKS != 0 {
            MovePicker::new_qsearch_checks(tt_move, keys, self.state.pos.check_info())
        } else {
            MovePicker::new_qsearch(tt_move, in_check, keys)
        };
        let mut best_move = None;
        let mut move_count = 0;
        while let Some(m) = picker.next(&self.state.pos, &self.game.hist) {
            move_count += 1;
            if !in_check && best > -MATE_BOUND {
                if !see::see_ge(self.state.pos.board(), m, -p.QS_SEE_MARGIN) {
                    continue;
                }
                if !m.is_promotion()
                    && static_eval + see::immediate_gain(m) + p.QS_DELTA_MARGIN <= alpha
                    && !self.state.pos.gives_check(m)
                {
                    self.state.stats.qs_delta += 1;
                    continue;
                }
            }
            self.state.stack.at_mut(ply).piece_to = Some(PieceTo::of(self.state.pos.turn(), m));
            self.state.stack.at_mut(ply).null_move = false;
            self.state
                .pos
                .make_and_announce(m, |key| sh.tt.prefetch(key));
            let score = -self.qsearch::<N>(sh, -beta, -alpha, false);
            self.state.pos.unmake();
            if self.aborted(sh) {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }

        // Step 6. Mated.
        if in_check && move_count == 0 {
            return mated_in(ply);
        }

        // Step 7. Store.
        let bound = if best >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        sh.tt.store(
            key,
            best_move.map_or(Move16::NONE, Move16::from_move),
            best,
            raw_eval,
            0,
            bound,
            N::PV,
            ply,
        );
        best
    }
}
