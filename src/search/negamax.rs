//! The principal variation search, as numbered steps in the order a node takes them.
//! Every margin comes from the parameter table through the small functions below.

use shakmaty::{Bitboard, Move};

use super::node::{Node, NonPv, PLY, Pv};
use super::shared::SearchShared;
use super::worker::Worker;
use crate::history::{ContKeys, PieceTo, QuietKeys};
use crate::movepick::{MovePicker, is_noisy, quiet_score};
use crate::moves::Move16;
use crate::params::{Params, at_or_below};
use crate::score::{DRAW, INFINITE, MATE_BOUND, MAX_PLY, is_mate_score, mate_in, mated_in};
use crate::see;
use crate::tt::{Bound, Entry};

/// What the steps of one node share once its TT entry and static eval are known.
#[derive(Clone, Copy)]
struct NodeInfo {
    ply: usize,
    /// The node's depth (after internal iterative reduction, once that has run).
    depth: i32,
    key: u64,
    entry: Option<Entry>,
    tt_move: Option<Move>,
    /// Static eval before correction (what the TT stores).
    raw_eval: i32,
    /// Corrected static eval.
    static_eval: i32,
    /// Best estimate: the TT score where its bound points past the static eval.
    eval: i32,
    tt_pv: bool,
    cut_node: bool,
}

/// Static eval stored for nodes in check (there is none).
pub(crate) const EVAL_NONE: i32 = -INFINITE;

/// No TT cutoffs this close to the 50-move rule: a stored score does not know how many
/// reversible moves led to the position, and may be a win that the rule turns into a draw.
const TT_CUT_MAX_HALFMOVES: u32 = 90;

/// The main thread names each root move it searches once a search is this old.
const CURRMOVE_AFTER_MS: u64 = 3000;

/// A tablebase result is stored this much deeper than its node: no search overrules it.
const TB_DEPTH_BONUS: i32 = 6;

/// Most moves of one kind remembered at a node for history maluses.
const TRIED_CAP: usize = 64;

#[inline]
pub(crate) fn history_bonus(p: &Params, depth: i32) -> i32 {
    (p.HIST_BONUS_MUL * depth - p.HIST_BONUS_BASE).clamp(0, p.HIST_BONUS_MAX)
}

#[inline]
pub(crate) fn history_malus(p: &Params, depth: i32) -> i32 {
    (p.HIST_MALUS_MUL * depth - p.HIST_MALUS_BASE).clamp(0, p.HIST_MALUS_MAX)
}

#[inline]
fn rfp_margin(p: &Params, depth: i32, improving: bool) -> i32 {
    p.RFP_MUL * depth - p.RFP_IMPROVING_MARGIN * i32::from(improving)
}

#[inline]
fn razor_margin(p: &Params, depth: i32) -> i32 {
    p.RAZOR_BASE + p.RAZOR_MUL * depth
}

#[inline]
fn nmp_reduction(p: &Params, depth: i32, eval: i32, beta: i32) -> i32 {
    p.NMP_BASE + depth / p.NMP_DEPTH_DIV + ((eval - beta) / p.NMP_EVAL_DIV).min(p.NMP_EVAL_MAX)
}

#[inline]
fn lmp_limit(p: &Params, depth: i32, improving: bool) -> i32 {
    let limit = (p.LMP_BASE + p.LMP_MUL * depth * depth) / 100;
    if improving {
        limit
    } else {
        limit * p.LMP_WORSENING_PCT / 100
    }
}

#[inline]
fn futility_margin(p: &Params, lmr_depth: i32) -> i32 {
    p.FP_BASE + p.FP_MUL * lmr_depth
}

#[inline]
fn see_threshold(p: &Params, depth: i32, quiet: bool) -> i32 {
    if quiet {
        -p.SEE_QUIET_MUL * depth
    } else {
        -p.SEE_NOISY_MUL * depth * depth
    }
}

/// Is a TT entry's score a better estimate than `eval` (its bound points past it)?
#[inline]
pub(crate) fn tt_refines(e: &Entry, eval: i32) -> bool {
    !is_mate_score(e.score)
        && match e.bound {
            Bound::Exact => true,
            Bound::Lower => e.score > eval,
            Bound::Upper => e.score < eval,
            Bound::None => false,
        }
}

/// Can a TT entry of this bound and score end the node?
#[inline]
pub(crate) fn tt_cuts(e: &Entry, alpha: i32, beta: i32) -> bool {
    e.bound.cuts(e.score, alpha, beta)
}

impl Worker {
    /// `pv[ply] = m + pv[ply + 1]`.
    pub(crate) fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.state.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// The TT move, if the entry has one that is legal here.
    #[inline]
    pub(crate) fn tt_move(&self, entry: Option<Entry>) -> Option<Move> {
        entry
            .and_then(|e| e.mv.to_move(self.state.pos.board()))
            .filter(|&m| self.state.pos.is_legal(m))
    }

    /// Continuation-history keys: the moves 1, 2 and (with `HIST_CONT4`) 4 plies before this
    /// node.
    #[inline]
    pub(crate) fn cont_keys(&self, p: &Params, ply: usize) -> ContKeys {
        let stack = &self.state.stack;
        [
            stack.back(ply, 1).piece_to,
            stack.back(ply, 2).piece_to,
            if p.HIST_CONT4 != 0 {
                stack.back(ply, 4).piece_to
            } else {
                None
            },
        ]
    }

    /// Raw static evaluation plus the correction history's estimate of its error.
    #[inline]
    pub(crate) fn corrected_eval(&self, p: &Params, raw: i32) -> i32 {
        self.game.eval.corrected(p, &self.state.pos, raw)
    }

    /// Makes `m`, recording it on the stack for continuation history and prefetching the
    /// hash table bucket the child probes first.
    #[inline]
    fn make_move(&mut self, sh: &SearchShared, ply: usize, m: Move) {
        let ss = self.state.stack.at_mut(ply);
        ss.piece_to = Some(PieceTo::of(self.state.pos.turn(), m));
        ss.null_move = false;
        self.state
            .pos
            .make_and_announce(m, |key| sh.tt.prefetch(key));
    }

    pub(crate) fn negamax<N: Node>(
        &mut self,
        sh: &SearchShared,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        cut_node: bool,
    ) -> i32 {
        let ply = self.state.pos.search_ply();
        let p = crate::params::active(&sh.params);

        // Step 1. At the horizon, resolve captures with the quiescence search.
        if depth <= 0 {
            return if N::PV {
                self.qsearch::<Pv>(sh, alpha, beta, true)
            } else {
                self.qsearch::<NonPv>(sh, alpha, beta, true)
            };
        }

        // Step 2. Count the node; unwind if the search is over.
        self.state.pv[ply].clear();
        if self.count_node_and_check(sh) {
            return 0;
        }
        if N::PV {
            self.state.seldepth = self.state.seldepth.max(ply + 1);
        }
        let in_check = self.state.pos.in_check();

        // Step 3. Draws, the ply limit, mate distance pruning.
        if !N::ROOT {
            if self.state.pos.is_draw() || self.state.pos.is_insufficient_material() {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { DRAW } else { self.evaluate(sh) };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Transposition table lookup; cutoff at non-PV nodes.
        let excluded = self.state.stack.at(ply).excluded;
        let singular_search = excluded.is_some();
        let key = self.state.pos.hash();
        let entry = if singular_search {
            None
        } else {
            sh.tt.probe(key, ply)
        };
        let tt_move = self.tt_move(entry);
        let tt_capture = tt_move.is_some_and(is_noisy);
        let tt_pv = N::PV || entry.is_some_and(|e| e.pv);
        if !N::PV
            && let Some(e) = entry
            && e.depth >= depth
            && self.state.pos.halfmoves() < TT_CUT_MAX_HALFMOVES
            && tt_cuts(&e, alpha, beta)
        {
            self.state.stats.tt_cuts += 1;
            // A quiet TT move that fails high is a good move here: reward it.
            if e.score >= beta
                && let Some(m) = tt_move
                && !is_noisy(m)
            {
                let bonus = history_bonus(p, depth);
                let keys = self.quiet_keys(p, ply);
                self.game
                    .hist
                    .update_quiet(self.state.pos.turn(), m, &keys, bonus);
            }
            return e.score;
        }

        // Step 4b. Tablebases: right after a capture or pawn move, a position in the tables
        // has a known result; it ends the node where its bound allows.
        if !N::ROOT
            && !singular_search
            && let Some(score) = self.probe_tablebases(sh, key, depth, ply, alpha, beta, tt_pv)
        {
            return score;
        }

        // Step 5. Static evaluation, corrected; a TT score is a better estimate when its bound
        // points the right way. `improving`: better than two plies ago.
        let (raw_eval, static_eval, eval) = self.static_eval(sh, p, in_check, entry);
        let improving = !in_check && self.improving(ply, static_eval);
        {
            let ss = self.state.stack.at_mut(ply);
            ss.static_eval = static_eval;
            ss.in_check = in_check;
        }
        self.state.stack.at_mut(ply + 1).killers = [Move16::NONE; 2];
        let mut node = NodeInfo {
            ply,
            depth,
            key,
            entry,
            tt_move,
            raw_eval,
            static_eval,
            eval,
            tt_pv,
            cut_node,
        };

        let prunable = !N::PV && !in_check && !singular_search;

        // Step 6. Razoring: hopeless nodes near the horizon go straight to quiescence.
        if prunable
            && at_or_below(depth, p.RAZOR_MAX_DEPTH)
            && eval + razor_margin(p, depth) <= alpha
        {
            let score = self.qsearch::<NonPv>(sh, alpha, alpha + 1, true);
            if score <= alpha {
                self.state.stats.razor += 1;
                return score;
            }
        }

        // Step 7. Reverse futility pruning: far enough above beta that no move will fall
        // below it.
        if prunable
            && at_or_below(depth, p.RFP_MAX_DEPTH)
            && !is_mate_score(beta)
            && eval - rfp_margin(p, depth, improving) >= beta
        {
            self.state.stats.rfp += 1;
            return (eval + beta) / 2;
        }

        // Step 8. Null move pruning: if passing still fails high, so would a real move.
        // Never twice in a row, not with only pawns, verified at high depth.
        if prunable
            && depth >= p.NMP_MIN_DEPTH
            && eval >= beta
            && static_eval >= beta
            && !is_mate_score(beta)
            && !self.state.stack.back(ply, 1).null_move
            && ply >= self.state.nmp_min_ply
            && self.state.pos.has_non_pawn_material(self.state.pos.turn())
            && let Some(score) = self.null_move_pruning(sh, &node, beta)
        {
            return score;
        }

        // Step 9. ProbCut: a capture that beats beta by a margin in a shallow search most
        // likely beats beta in the full one.
        if prunable
            && depth >= p.PROBCUT_MIN_DEPTH
            && !is_mate_score(beta)
            && let Some(score) = self.probcut(sh, &node, beta)
        {
            return score;
        }

        // Step 10. Internal iterative reduction: without a TT move this node is poorly
        // ordered; search it shallower.
        if (N::PV || cut_node) && !singular_search && tt_move.is_none() && depth >= p.IIR_MIN_DEPTH
        {
            self.state.stats.iir += 1;
            depth -= 1;
            node.depth = depth;
        }

        // Step 11. The moves.
        let keys = self.quiet_keys(p, ply);
        let killers = self.state.stack.at(ply).killers;
        let counter = self.game.hist.counter(keys.cont[0]);
        let mut picker = MovePicker::new(tt_move, killers, counter, keys, in_check);
        picker.set_escape_base(p.ORDER_ESCAPE_BASE);
        let mut best = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets: [Option<Move>; TRIED_CAP] = [None; TRIED_CAP];
        let mut captures: [Option<Move>; TRIED_CAP] = [None; TRIED_CAP];
        let (mut n_quiets, mut n_captures) = (0, 0);
        let turn = self.state.pos.turn();
        let check_info = self.state.pos.check_info();

        while let Some(m) = picker.next(&self.state.pos, &self.game.hist) {
            if Move16::from_move(m) == excluded {
                continue;
            }
            if N::ROOT && (!sh.root_moves.contains(&m) || self.state.excluded_root.contains(&m)) {
                continue;
            }
            move_count += 1;
            if N::ROOT && self.id == 0 && sh.clock.elapsed_ms() > CURRMOVE_AFTER_MS {
                let text = self.state.pos.move_to_uci(m);
                sh.reporter.currmove(depth, &text, move_count as usize);
            }
            let is_quiet = !is_noisy(m);
            let gives_check = self.state.pos.gives_check_with(check_info.as_ref(), m);
            let stat = if is_quiet {
                quiet_score(&self.state.pos, &self.game.hist, &keys, m)
            } else {
                self.game.hist.capture(turn, m)
            };
            let base_r = self.state.lmr[depth.min(63) as usize][move_count.min(63) as usize];
            let lmr_depth = (depth - 1 - base_r / PLY).max(0);

            // Step 12. Prune late and losing moves near the horizon, once a move has kept us
            // out of being mated. Checking moves are exempt from all but SEE pruning (with the
            // captures' threshold).
            if !N::ROOT && best > -MATE_BOUND && self.state.pos.has_non_pawn_material(turn) {
                // Late move pruning: enough quiets tried; no more quiets from the picker.
                if is_quiet
                    && at_or_below(depth, p.LMP_MAX_DEPTH)
                    && move_count >= lmp_limit(p, depth, improving)
                {
                    self.state.stats.lmp += 1;
                    picker.skip_quiets(check_info);
                    if !gives_check {
                        continue;
                    }
                }
                if is_quiet && !gives_check {
                    // Futility pruning: even a good quiet will not reach alpha.
                    if !in_check
                        && at_or_below(lmr_depth, p.FP_MAX_DEPTH)
                        && static_eval + futility_margin(p, lmr_depth) <= alpha
                    {
                        self.state.stats.futility += 1;
                        picker.skip_quiets(check_info);
                        continue;
                    }
                    // History pruning: quiets that keep failing here.
                    if at_or_below(lmr_depth, p.HP_MAX_DEPTH) && stat < -p.HP_MUL * depth {
                        self.state.stats.history_pruned += 1;
                        continue;
                    }
                }
                // SEE pruning: moves that lose too much material.
                let quiet_rule = is_quiet && !gives_check;
                let see_depth = if quiet_rule { lmr_depth } else { depth };
                if at_or_below(depth, p.SEE_MAX_DEPTH)
                    && !see::see_ge(
                        self.state.pos.board(),
                        m,
                        see_threshold(p, see_depth, quiet_rule),
                    )
                {
                    self.state.stats.see_pruned += 1;
                    continue;
                }
            }

            // Step 13. Extensions: singular (only the TT move holds), check.
            let mut extension = 0;
            if !N::ROOT
                && Some(m) == tt_move
                && depth >= p.SE_MIN_DEPTH
                && let Some(e) = entry
                && e.depth >= depth - p.SE_TT_DEPTH_MARGIN
                && e.bound != Bound::Upper
                && !is_mate_score(e.score)
                && ply < 2 * self.state.root_depth as usize
            {
                match self.singular_extension(sh, &node, N::PV, e, m, beta) {
                    Ok(ext) => extension = ext,
                    Err(score) => return score,
                }
            }

            // Step 14. Make the move.
            let nodes_before = self.state.nodes;
            self.make_move(sh, ply, m);
            if extension == 0 && gives_check {
                extension = p.EXT_CHECK;
            }
            {
                let doubles =
                    self.state.stack.at(ply).double_extensions + i32::from(extension >= 2);
                self.state.stack.at_mut(ply + 1).double_extensions = doubles;
            }
            let new_depth = depth - 1 + extension;

            // Step 15. Late move reductions, then the principal variation search: the first
            // move with the full window, the rest with a null window, re-searched when they
            // beat alpha.
            let mut score = 0;
            let full_window_first = N::PV && move_count == 1;
            let lmr_moves = p.LMR_MOVES + i32::from(N::PV);
            let mut needs_full = !full_window_first;
            let mut reduced_search = false;
            if depth >= p.LMR_MIN_DEPTH && move_count > lmr_moves && !full_window_first {
                reduced_search = true;
                let mut r = base_r;
                r -= p.LMR_PV * i32::from(tt_pv);
                r += p.LMR_IMPROVING * i32::from(!improving);
                r += p.LMR_CUTNODE * i32::from(cut_node);
                r += p.LMR_TT_CAPTURE * i32::from(tt_capture && is_quiet);
                r -= p.LMR_NOISY * i32::from(!is_quiet);
                r -= p.LMR_CHECK * i32::from(gives_check);
                r -= stat * PLY / p.LMR_HIST_DIV;
                let reduced = (new_depth - r / PLY).clamp(1, new_depth.max(1));
                self.state.stats.lmr_searches += 1;
                score = -self.negamax::<NonPv>(sh, -alpha - 1, -alpha, reduced, true);
                needs_full = score > alpha && reduced < new_depth;
                if needs_full {
                    self.state.stats.lmr_researches += 1;
                }
            }
            let mut search_depth = new_depth;
            if needs_full {
                if reduced_search && score > best + p.LMR_DEEPER_MARGIN {
                    search_depth += 1;
                }
                score = -self.negamax::<NonPv>(sh, -alpha - 1, -alpha, search_depth, !cut_node);
            }
            if N::PV && (full_window_first || (score > alpha && score < beta)) {
                score = -self.negamax::<Pv>(sh, -beta, -alpha, search_depth.max(new_depth), false);
            }
            self.state.pos.unmake();
            if self.aborted(sh) {
                return 0;
            }
            if N::ROOT {
                self.add_root_nodes(m, self.state.nodes - nodes_before);
            }

            // Step 16. New best move?
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if N::PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        self.state.stats.beta_cutoffs += 1;
                        if move_count == 1 {
                            self.state.stats.first_move_cutoffs += 1;
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if is_quiet && n_quiets < TRIED_CAP {
                quiets[n_quiets] = Some(m);
                n_quiets += 1;
            } else if !is_quiet && n_captures < TRIED_CAP {
                captures[n_captures] = Some(m);
                n_captures += 1;
            }
        }

        // Step 17. Checkmate and stalemate.
        if move_count == 0 {
            return if singular_search {
                alpha
            } else if in_check {
                mated_in(ply)
            } else {
                DRAW
            };
        }

        // Step 18. Reward the move that cut, punish those tried before it.
        if best >= beta
            && let Some(bm) = best_move
        {
            self.update_histories(
                p,
                ply,
                &keys,
                bm,
                depth,
                (&quiets[..n_quiets], &captures[..n_captures]),
            );
        }

        let bound = if best >= beta {
            Bound::Lower
        } else if N::PV && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };

        // Step 19. Teach the correction history how far the static eval was off.
        if crate::eval::correction_on(p) && !in_check && !singular_search {
            self.learn_eval_error(p, &node, bound, best, best_move);
        }

        // Step 20. Store the result (not for a MultiPV line after the first: its best move is
        // only the best of the moves left).
        let multipv_line = N::ROOT && !self.state.excluded_root.is_empty();
        if !singular_search && !multipv_line {
            sh.tt.store(
                key,
                best_move.map_or(Move16::NONE, Move16::from_move),
                best,
                raw_eval,
                depth,
                bound,
                tt_pv,
                ply,
            );
        }
        best
    }

    /// Step 4b: a WDL probe where the tables cover the position and the 50-move counter was
    /// just reset (the WDL tables assume that); `Some` when its bound ends the node. The
    /// result is stored in the TT, deeper than this node, as it is exact knowledge.
    #[allow(clippy::too_many_arguments)]
    fn probe_tablebases(
        &mut self,
        sh: &SearchShared,
        key: u64,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        tt_pv: bool,
    ) -> Option<i32> {
        // No tables (the usual case) costs one test per node.
        let tb = sh.tb.as_ref()?;
        if self.state.pos.halfmoves() != 0 {
            return None;
        }
        let (score, bound) = tb.probe_in_tree(self.state.pos.board(), &sh.tb_config, depth, ply)?;
        sh.tbhits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !bound.cuts(score, alpha, beta) {
            return None;
        }
        sh.tt.store(
            key,
            Move16::NONE,
            score,
            EVAL_NONE,
            (depth + TB_DEPTH_BONUS).min(MAX_PLY as i32 - 1),
            bound,
            tt_pv,
            ply,
        );
        Some(score)
    }

    /// Step 5: the raw static eval (from the TT entry when it has one), the corrected static
    /// eval, and the best estimate of the node's value (the TT score where its bound points
    /// past the static eval). All `EVAL_NONE` in check.
    #[inline]
    fn static_eval(
        &mut self,
        sh: &SearchShared,
        p: &Params,
        in_check: bool,
        entry: Option<Entry>,
    ) -> (i32, i32, i32) {
        if in_check {
            return (EVAL_NONE, EVAL_NONE, EVAL_NONE);
        }
        let raw_eval = match entry {
            Some(e) if e.eval != EVAL_NONE => e.eval,
            _ => self.evaluate(sh),
        };
        let static_eval = self.corrected_eval(p, raw_eval);
        let mut eval = static_eval;
        if let Some(e) = entry
            && e.depth > 0
            && tt_refines(&e, eval)
        {
            eval = e.score;
        }
        (raw_eval, static_eval, eval)
    }

    /// Is the static eval better than two plies ago (four, when two plies ago was in check)?
    #[inline]
    fn improving(&self, ply: usize, static_eval: i32) -> bool {
        let two = self.state.stack.back(ply, 2);
        let four = self.state.stack.back(ply, 4);
        if ply >= 2 && !two.in_check {
            static_eval > two.static_eval
        } else if ply >= 4 && !four.in_check {
            static_eval > four.static_eval
        } else {
            true
        }
    }

    /// Step 8: passes the move and searches reduced with a null window around beta. `Some` is
    /// the node's score when it fails high (verified at high depth), or 0 when the search is
    /// stopped.
    fn null_move_pruning(&mut self, sh: &SearchShared, node: &NodeInfo, beta: i32) -> Option<i32> {
        let p = crate::params::active(&sh.params);
        let (ply, depth) = (node.ply, node.depth);
        self.state.stats.nmp_tries += 1;
        let r = nmp_reduction(p, depth, node.eval, beta);
        {
            let ss = self.state.stack.at_mut(ply);
            ss.piece_to = None;
            ss.null_move = true;
        }
        if !self.state.pos.make_null() {
            self.state.stack.at_mut(ply).null_move = false;
            return None;
        }
        let score = -self.negamax::<NonPv>(sh, -beta, -beta + 1, depth - r, !node.cut_node);
        self.state.pos.unmake();
        self.state.stack.at_mut(ply).null_move = false;
        if self.aborted(sh) {
            return Some(0);
        }
        if score < beta {
            return None;
        }
        // Mate scores from a null move prove nothing.
        let score = if is_mate_score(score) { beta } else { score };
        if depth < p.NMP_VERIFY_MIN_DEPTH || self.state.nmp_min_ply > 0 {
            self.state.stats.nmp_cuts += 1;
            return Some(score);
        }
        // Verification: search again without null moves for the next plies.
        self.state.nmp_min_ply = ply + ((depth - r) * p.NMP_VERIFY_PLY_PCT / 100).max(0) as usize;
        let v = self.negamax::<NonPv>(sh, beta - 1, beta, depth - r, false);
        self.state.nmp_min_ply = 0;
        if v >= beta {
            self.state.stats.nmp_cuts += 1;
            return Some(score);
        }
        None
    }

    /// Step 9: captures that pass SEE by the margin are tried with a quiescence search, then
    /// a reduced search, against a raised beta. `Some` is the node's score when one holds
    /// (stored in the TT), or 0 when the search is stopped.
    fn probcut(&mut self, sh: &SearchShared, node: &NodeInfo, beta: i32) -> Option<i32> {
        let p = crate::params::active(&sh.params);
        let ply = node.ply;
        let probcut_beta = beta + p.PROBCUT_MARGIN;
        // The confirming search's depth; its result, one ply up, is worth that depth plus one.
        let probcut_depth = node.depth - p.PROBCUT_REDUCTION;
        let probcut_tt_depth = probcut_depth + 1;
        if node
            .entry
            .is_some_and(|e| e.depth >= probcut_tt_depth && e.score < probcut_beta)
        {
            return None;
        }
        let keys = QuietKeys {
            cont: self.cont_keys(p, ply),
            ..QuietKeys::default()
        };
        let mut picker = MovePicker::new_qsearch(node.tt_move, false, keys);
        let threshold = probcut_beta - node.static_eval;
        while let Some(m) = picker.next(&self.state.pos, &self.game.hist) {
            if !see::see_ge(self.state.pos.board(), m, threshold) {
                continue;
            }
            self.make_move(sh, ply, m);
            let mut score = -self.qsearch::<NonPv>(sh, -probcut_beta, -probcut_beta + 1, false);
            if score >= probcut_beta {
                score = -self.negamax::<NonPv>(
                    sh,
                    -probcut_beta,
                    -probcut_beta + 1,
                    probcut_depth,
                    !node.cut_node,
                );
            }
            self.state.pos.unmake();
            if self.aborted(sh) {
                return Some(0);
            }
            if score >= probcut_beta {
                self.state.stats.probcut += 1;
                sh.tt.store(
                    node.key,
                    Move16::from_move(m),
                    score,
                    node.raw_eval,
                    probcut_tt_depth,
                    Bound::Lower,
                    node.tt_pv,
                    ply,
                );
                return Some(score);
            }
        }
        None
    }

    /// Step 13: the TT move `m` is searched around its TT score with every other move, at
    /// half depth. `Ok` is its extension: 1 when nothing else comes near (2 when far below,
    /// off PV nodes, a limited number of times per path), -1 when the TT score is above beta
    /// anyway, `-SE_CUTNODE_REDUCTION` at a cut node, else 0. `Err` ends the node with that
    /// score: multi-cut when the other moves beat beta too, or 0 when the search is stopped.
    fn singular_extension(
        &mut self,
        sh: &SearchShared,
        node: &NodeInfo,
        pv: bool,
        e: Entry,
        m: Move,
        beta: i32,
    ) -> Result<i32, i32> {
        let p = crate::params::active(&sh.params);
        let (ply, depth) = (node.ply, node.depth);
        let singular_beta = e.score - depth * p.SE_BETA_MUL / 64;
        let singular_depth = (depth - 1) / 2;
        self.state.stack.at_mut(ply).excluded = Move16::from_move(m);
        let score = self.negamax::<NonPv>(
            sh,
            singular_beta - 1,
            singular_beta,
            singular_depth,
            node.cut_node,
        );
        self.state.stack.at_mut(ply).excluded = Move16::NONE;
        if self.aborted(sh) {
            return Err(0);
        }
        if score < singular_beta {
            self.state.stats.singular += 1;
            let doubles = self.state.stack.at(ply).double_extensions;
            if !pv && score < singular_beta - p.SE_DOUBLE_MARGIN && doubles < p.SE_DOUBLE_MAX {
                self.state.stats.double_ext += 1;
                return Ok(2);
            }
            Ok(1)
        } else if singular_beta >= beta {
            // Multi-cut: several moves beat beta.
            self.state.stats.multicut += 1;
            Err(singular_beta)
        } else if e.score >= beta {
            self.state.stats.negative_ext += 1;
            Ok(-1)
        } else if node.cut_node && p.SE_CUTNODE_REDUCTION > 0 {
            // Expected to fail high, and another move nearly does: the TT move need not be
            // searched as deep.
            self.state.stats.negative_ext += 1;
            Ok(-p.SE_CUTNODE_REDUCTION)
        } else {
            Ok(0)
        }
    }

    /// Step 19: teaches the correction history how far the static eval was off, from quiet
    /// positions only and only when the bound says which way.
    fn learn_eval_error(
        &mut self,
        p: &Params,
        node: &NodeInfo,
        bound: Bound,
        best: i32,
        best_move: Option<Move>,
    ) {
        let eval_error_known = match bound {
            Bound::Lower => best > node.static_eval,
            Bound::Upper => best < node.static_eval,
            _ => true,
        };
        let quiet_best = best_move.is_none_or(|m| !is_noisy(m));
        if quiet_best && eval_error_known && !is_mate_score(best) {
            self.game
                .eval
                .learn(p, &self.state.pos, node.static_eval, best, node.depth);
        }
    }

    /// History, killer and counter-move updates after a beta cutoff by `best`, with the node's
    /// quiet keys (built once for its move loop) and the quiets and captures tried before it.
    fn update_histories(
        &mut self,
        p: &Params,
        ply: usize,
        keys: &QuietKeys,
        best: Move,
        depth: i32,
        (quiets, captures): (&[Option<Move>], &[Option<Move>]),
    ) {
        let bonus = history_bonus(p, depth);
        let malus = history_malus(p, depth);
        let turn = self.state.pos.turn();
        if is_noisy(best) {
            self.game.hist.update_capture(turn, best, bonus);
        } else {
            let ss = self.state.stack.at_mut(ply);
            let b16 = Move16::from_move(best);
            if ss.killers[0] != b16 {
                ss.killers[1] = ss.killers[0];
                ss.killers[0] = b16;
            }
            self.game.hist.set_counter(keys.cont[0], best);
            self.game.hist.update_quiet(turn, best, keys, bonus);
            for &m in quiets.iter().flatten() {
                self.game.hist.update_quiet(turn, m, keys, -malus);
            }
        }
        for &m in captures.iter().flatten() {
            self.game.hist.update_capture(turn, m, -malus);
        }
    }

    /// The keys of this node's quiet histories, each only while its switch is on: the moves
    /// 1, 2 and 4 plies back, the squares the other side attacks, the pawn structure.
    #[inline]
    pub(crate) fn quiet_keys(&self, p: &Params, ply: usize) -> QuietKeys {
        let pos = &self.state.pos;
        QuietKeys {
            cont: self.cont_keys(p, ply),
            threats: if p.HIST_THREATS != 0 {
                pos.threats()
            } else {
                Bitboard::EMPTY
            },
            pawn: (p.HIST_PAWN != 0).then(|| QuietKeys::pawn_slot(pos.pawn_key())),
        }
    }
}
