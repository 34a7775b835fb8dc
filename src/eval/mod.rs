//! Where a position becomes a score: everything between a board and the number the search
//! compares, and between that number and what a GUI prints.
//!
//! - [`nnue`]: the network (format, inference kernels, the accumulators along a line).
//! - `correction`: correction history, what this game's searches have learnt about the net's
//!   errors, added to its raw output.
//! - [`wdl`]: the win/draw/loss model fitted on the net's own games, and the normalisation of
//!   printed centipawns (+100 = half the games won at the model's reference material).
//!
//! The search calls one thing, an [`Evaluator`]: `raw` (the net's output, which the table
//! stores) and `corrected` (what the search prunes and reduces with), and teaches it with
//! `learn`. It does not know how the score is made.

mod correction;
pub mod nnue;
pub mod wdl;

use crate::params::Params;
use crate::position::Position;
use crate::score::MATE_BOUND;

use correction::Correction;
use nnue::{AccumulatorStack, Network};

/// One search thread's evaluation: the net's accumulators along the current line and the
/// correction tables of the game.
#[derive(Default)]
pub(crate) struct Evaluator {
    acc: AccumulatorStack,
    correction: Correction,
}

/// Correction history is in use (on by default; both weights 0 switch it off): when it is not,
/// neither the lookup nor the update is worth its three keys and table accesses per node.
#[inline]
pub(crate) fn correction_on(p: &Params) -> bool {
    p.CORR_PAWN_WEIGHT != 0 || p.CORR_NONPAWN_WEIGHT != 0
}

impl Evaluator {
    /// Forgets the accumulators (at the start of a search: the net may have changed).
    pub(crate) fn new_search(&mut self) {
        self.acc.clear();
    }

    /// Forgets what the game taught (`ucinewgame`).
    pub(crate) fn new_game(&mut self) {
        self.correction.clear();
    }

    /// The net's evaluation of `pos`, side to move's view, in the search's centipawns.
    #[inline]
    pub(crate) fn raw(&mut self, net: &Network, pos: &Position) -> i32 {
        self.acc.evaluate(net, pos)
    }

    /// `raw` (of `pos`, perhaps from the table) plus the correction history's estimate of its
    /// error, kept below mate scores.
    #[inline]
    pub(crate) fn corrected(&self, p: &Params, pos: &Position, raw: i32) -> i32 {
        let c = if correction_on(p) {
            self.correction
                .of(pos, [p.CORR_PAWN_WEIGHT, p.CORR_NONPAWN_WEIGHT])
        } else {
            0
        };
        (raw + c).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Teaches the correction that a search of `pos` to `depth` found `score` where the
    /// corrected evaluation said `corrected`. The search calls it only while
    /// [`correction_on`], and skips the work of deciding what to teach otherwise.
    #[inline]
    pub(crate) fn learn(
        &mut self,
        p: &Params,
        pos: &Position,
        corrected: i32,
        score: i32,
        depth: i32,
    ) {
        let step = correction::Step::of(p);
        self.correction.learn(step, pos, score - corrected, depth);
    }
}
