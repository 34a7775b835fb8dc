//! The principal variation search, as numbered steps in the order a node takes them.

use shakmaty::Move;

use super::{Node, NonPv, Pv};
use crate::eval;
use crate::history::PieceTo;
use crate::movepick::{MovePicker, is_noisy};
use crate::moves::Move16;
use crate::params::Params;
use crate::score::{DRAW, INFINITE, MAX_PLY, mate_in, mated_in};
use crate::thread::{SearchShared, ThreadData};
use crate::tt::{Bound, Entry};

/// Static eval stored for nodes in check (there is none).
pub const EVAL_NONE: i32 = -INFINITE;

/// Most moves of one kind remembered at a node for history maluses.
const TRIED_CAP: usize = 64;

#[inline]
pub fn history_bonus(p: &Params, depth: i32) -> i32 {
    (p.HIST_BONUS_MUL * depth - p.HIST_BONUS_BASE).clamp(0, p.HIST_BONUS_MAX)
}

#[inline]
pub fn history_malus(p: &Params, depth: i32) -> i32 {
    (p.HIST_MALUS_MUL * depth - p.HIST_MALUS_BASE).clamp(0, p.HIST_MALUS_MAX)
}

/// Can a TT entry of this bound and score end the node?
#[inline]
pub fn tt_cuts(e: &Entry, alpha: i32, beta: i32) -> bool {
    match e.bound {
        Bound::Exact => true,
        Bound::Lower => e.score >= beta,
        Bound::Upper => e.score <= alpha,
        Bound::None => false,
    }
}

impl ThreadData {
    /// `pv[ply] = m + pv[ply + 1]`.
    pub(crate) fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// The TT move, if the entry has one that is legal here.
    #[inline]
    pub(crate) fn tt_move(&self, entry: Option<Entry>) -> Option<Move> {
        entry
            .and_then(|e| e.mv.to_move(self.pos.board()))
            .filter(|&m| self.pos.is_legal(m))
    }

    /// Continuation-history keys: the moves 1 and 2 plies before this node.
    #[inline]
    pub(crate) fn cont_keys(&self, ply: usize) -> [Option<PieceTo>; 2] {
        [
            self.stack.back(ply, 1).piece_to,
            self.stack.back(ply, 2).piece_to,
        ]
    }

    #[allow(clippy::only_used_in_recursion)]
    pub(crate) fn negamax<N: Node>(
        &mut self,
        sh: &SearchShared,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        cut_node: bool,
    ) -> i32 {
        let ply = self.pos.search_ply();

        // Step 1. At the horizon, resolve captures with the quiescence search.
        if depth <= 0 {
            return if N::PV {
                self.qsearch::<Pv>(sh, alpha, beta)
            } else {
                self.qsearch::<NonPv>(sh, alpha, beta)
            };
        }

        // Step 2. Count the node; unwind if the search is over.
        self.pv[ply].clear();
        if self.count_node_and_check(sh) {
            return 0;
        }
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let in_check = self.pos.in_check();

        // Step 3. Draws, the ply limit, mate distance pruning.
        if !N::ROOT {
            if self.pos.is_draw() || self.pos.is_insufficient_material() {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check {
                    DRAW
                } else {
                    eval::evaluate(&self.pos)
                };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Transposition table lookup; cutoff at non-PV nodes.
        let excluded = self.stack.at(ply).excluded;
        let key = self.pos.hash();
        let entry = if excluded.is_none() {
            sh.tt.probe(key, ply)
        } else {
            None
        };
        let tt_move = self.tt_move(entry);
        if !N::PV
            && let Some(e) = entry
            && e.depth >= depth
            && self.pos.halfmoves() < 90
            && tt_cuts(&e, alpha, beta)
        {
            return e.score;
        }

        // Step 5. Static evaluation.
        let raw_eval = if in_check {
            EVAL_NONE
        } else {
            match entry {
                Some(e) if e.eval != EVAL_NONE => e.eval,
                _ => eval::evaluate(&self.pos),
            }
        };
        {
            let ss = self.stack.at_mut(ply);
            ss.static_eval = raw_eval;
            ss.in_check = in_check;
        }

        // Step 6. The moves.
        let cont = self.cont_keys(ply);
        let killers = self.stack.at(ply).killers;
        let counter = self.hist.counter(cont[0]);
        let mut picker = MovePicker::new(tt_move, killers, counter, cont);
        let mut best = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets: [Option<Move>; TRIED_CAP] = [None; TRIED_CAP];
        let mut captures: [Option<Move>; TRIED_CAP] = [None; TRIED_CAP];
        let (mut n_quiets, mut n_captures) = (0, 0);

        while let Some(m) = picker.next(&self.pos, &self.hist) {
            if Move16::from_move(m) == excluded {
                continue;
            }
            if N::ROOT && !sh.root_moves.contains(&m) {
                continue;
            }
            move_count += 1;
            let is_quiet = !is_noisy(m);

            // Step 7. Make the move; extend checks.
            self.stack.at_mut(ply).piece_to = Some(PieceTo::of(self.pos.turn(), m));
            self.pos.make(m);
            let gives_check = self.pos.in_check();
            let extension = i32::from(gives_check);
            let new_depth = depth - 1 + extension;

            // Step 8. Principal variation search: the first move with the full window, the
            // rest with a null window, re-searched when they beat alpha.
            let mut score;
            if N::PV && move_count == 1 {
                score = -self.negamax::<Pv>(sh, -beta, -alpha, new_depth, false);
            } else {
                score = -self.negamax::<NonPv>(sh, -alpha - 1, -alpha, new_depth, !cut_node);
                if N::PV && score > alpha && score < beta {
                    score = -self.negamax::<Pv>(sh, -beta, -alpha, new_depth, false);
                }
            }
            self.pos.unmake();
            if self.aborted(sh) {
                return 0;
            }

            // Step 9. New best move?
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    if N::PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
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

        // Step 10. Checkmate and stalemate.
        if move_count == 0 {
            return if excluded.is_some() {
                alpha
            } else if in_check {
                mated_in(ply)
            } else {
                DRAW
            };
        }

        // Step 11. Reward the move that cut, punish those tried before it.
        if best >= beta
            && let Some(bm) = best_move
        {
            self.update_histories(ply, bm, depth, &quiets[..n_quiets], &captures[..n_captures]);
        }

        // Step 12. Store the result.
        if excluded.is_none() {
            let bound = if best >= beta {
                Bound::Lower
            } else if N::PV && best_move.is_some() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            sh.tt.store(
                key,
                best_move.map_or(Move16::NONE, Move16::from_move),
                best,
                raw_eval,
                depth,
                bound,
                N::PV,
                ply,
            );
        }
        best
    }

    /// History, killer and counter-move updates after a beta cutoff by `best`.
    fn update_histories(
        &mut self,
        ply: usize,
        best: Move,
        depth: i32,
        quiets: &[Option<Move>],
        captures: &[Option<Move>],
    ) {
        let bonus = history_bonus(&self.params, depth);
        let malus = history_malus(&self.params, depth);
        let turn = self.pos.turn();
        let cont = self.cont_keys(ply);
        if is_noisy(best) {
            self.hist.update_capture(turn, best, bonus);
        } else {
            let ss = self.stack.at_mut(ply);
            let b16 = Move16::from_move(best);
            if ss.killers[0] != b16 {
                ss.killers[1] = ss.killers[0];
                ss.killers[0] = b16;
            }
            self.hist.set_counter(cont[0], best);
            self.update_quiet(turn, best, &cont, bonus);
            for &m in quiets.iter().flatten() {
                self.update_quiet(turn, m, &cont, -malus);
            }
        }
        for &m in captures.iter().flatten() {
            self.hist.update_capture(turn, m, -malus);
        }
    }

    fn update_quiet(
        &mut self,
        turn: shakmaty::Color,
        m: Move,
        cont: &[Option<PieceTo>; 2],
        bonus: i32,
    ) {
        self.hist.update_butterfly(turn, m, bonus);
        let pt = PieceTo::of(turn, m);
        for &c in cont {
            self.hist.update_continuation(c, pt, bonus);
        }
    }
}
