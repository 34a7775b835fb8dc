//! Correction history: what the search has learnt about the net's errors in this game, by
//! pawn structure and by each side's non-pawn pieces, added to the net's raw evaluation.
//!
//! Values are kept in `1/CORR_GRAIN` centipawns. Each search node whose bound says which way
//! the corrected static evaluation was wrong nudges its three entries (pawn key, white
//! non-pawn key, black non-pawn key, per side to move) by the *residual*: the search's score
//! minus the corrected evaluation, so the three tables are fitted jointly, each one learning
//! what the others have not explained (a step of stochastic gradient descent on the squared
//! error of their weighted sum). The step grows with the node's depth and is capped, and
//! each entry is held inside `±CORR_ENTRY_MAX` by gravity: a step moves it by less the closer it
//! already is to the bound it points at.

use shakmaty::Color;

use crate::history::gravity_within;
use crate::params::Params;
use crate::position::Position;

/// Entries of each correction table (per side to move).
const CORR_SIZE: usize = 16_384;
/// Values are in units of 1/CORR_GRAIN centipawn.
const CORR_GRAIN: i32 = 256;

/// How far one search teaches the tables, from the `CORR_STEP_*` and `CORR_ENTRY_MAX`
/// parameters, in table units.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    /// A step is `residual x min(depth, depth_max) / div` in each table: at the defaults (64,
    /// 16) at most a quarter of the residual per table, half of it in the weighted sum at
    /// weights 100 and 50.
    div: i32,
    /// Depth at which a step reaches its largest share of the residual.
    depth_max: i32,
    /// Bound of one step.
    step_max: i32,
    /// Bound of one entry, held by gravity.
    entry_max: i32,
}

impl Step {
    /// The step of `p`'s settings (each inside its parameter's range, so nothing here can
    /// overflow: an entry's bound is at most 120 cp, inside `i16` at this grain).
    pub(crate) fn of(p: &Params) -> Step {
        Step {
            div: p.CORR_STEP_DIV.max(1),
            depth_max: p.CORR_STEP_DEPTH_MAX.max(1),
            step_max: p.CORR_STEP_MAX * CORR_GRAIN,
            entry_max: (p.CORR_ENTRY_MAX * CORR_GRAIN).clamp(CORR_GRAIN, i32::from(i16::MAX)),
        }
    }
}

/// The correction tables of one search thread. Kept across the moves of a game, cleared by
/// `ucinewgame`.
pub(crate) struct Correction {
    /// By pawn structure, per side to move.
    pawn: Vec<i16>,
    /// By each side's non-pawn pieces, per side to move.
    nonpawn: Vec<i16>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction {
            pawn: vec![0; 2 * CORR_SIZE],
            nonpawn: vec![0; 2 * 2 * CORR_SIZE],
        }
    }
}

/// The keys of `pos` the tables are indexed by.
#[inline]
fn keys(pos: &Position) -> (Color, u64, [u64; 2]) {
    (
        pos.turn(),
        pos.pawn_key(),
        [
            pos.non_pawn_key(Color::White),
            pos.non_pawn_key(Color::Black),
        ],
    )
}

impl Correction {
    pub(crate) fn clear(&mut self) {
        self.pawn.fill(0);
        self.nonpawn.fill(0);
    }

    #[inline]
    fn indices(color: Color, pawn_key: u64, nonpawn: [u64; 2]) -> [usize; 3] {
        let c = color as usize;
        [
            c * CORR_SIZE + (pawn_key as usize % CORR_SIZE),
            (c * 2) * CORR_SIZE + (nonpawn[0] as usize % CORR_SIZE),
            (c * 2 + 1) * CORR_SIZE + (nonpawn[1] as usize % CORR_SIZE),
        ]
    }

    /// Correction to add to the raw evaluation, in centipawns, with the pawn and non-pawn
    /// parts weighted by `weights` (percent).
    #[inline]
    pub(crate) fn of(&self, pos: &Position, weights: [i32; 2]) -> i32 {
        let (color, pawn_key, nonpawn) = keys(pos);
        self.by_keys(color, pawn_key, nonpawn, weights)
    }

    #[inline]
    fn by_keys(&self, color: Color, pawn_key: u64, nonpawn: [u64; 2], weights: [i32; 2]) -> i32 {
        let [p, w, b] = Self::indices(color, pawn_key, nonpawn);
        let pawn = i32::from(self.pawn[p]);
        let nonpawn = i32::from(self.nonpawn[w]) + i32::from(self.nonpawn[b]);
        (pawn * weights[0] + nonpawn * weights[1]) / (100 * CORR_GRAIN)
    }

    /// Nudges the entries of `pos` by `residual` (search score minus the corrected
    /// evaluation, cp), more the deeper the search.
    #[inline]
    pub(crate) fn learn(&mut self, step: Step, pos: &Position, residual: i32, depth: i32) {
        let (color, pawn_key, nonpawn) = keys(pos);
        self.learn_by_keys(step, color, pawn_key, nonpawn, residual, depth);
    }

    #[inline]
    fn learn_by_keys(
        &mut self,
        step: Step,
        color: Color,
        pawn_key: u64,
        nonpawn: [u64; 2],
        residual: i32,
        depth: i32,
    ) {
        let [p, w, b] = Self::indices(color, pawn_key, nonpawn);
        let weight = depth.clamp(1, step.depth_max);
        // Clamped first so that the product stays in range; the step's own cap is far below.
        let delta = (residual.clamp(-2_000, 2_000) * CORR_GRAIN / step.div * weight)
            .clamp(-step.step_max, step.step_max);
        gravity_within(&mut self.pawn[p], delta, step.entry_max);
        gravity_within(&mut self.nonpawn[w], delta, step.entry_max);
        gravity_within(&mut self.nonpawn[b], delta, step.entry_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step() -> Step {
        Step::of(&Params::default())
    }

    /// Plays `n` searches of one position whose net says `raw` and whose search says
    /// `score`, each teaching the residual of the correction so far.
    fn settle(h: &mut Correction, key: (Color, u64, [u64; 2]), raw: i32, score: i32, n: usize) {
        let (c, p, np) = key;
        for _ in 0..n {
            let corrected = raw + h.by_keys(c, p, np, [100, 50]);
            h.learn_by_keys(step(), c, p, np, score - corrected, 10);
        }
    }

    #[test]
    fn the_tables_together_learn_the_error_once() {
        let mut h = Correction::default();
        let key = (Color::White, 5, [6, 7]);
        settle(&mut h, key, 0, 40, 200);
        // Fitted jointly: the weighted sum, not each table, converges on the 40 cp error.
        let c = h.by_keys(Color::White, 5, [6, 7], [100, 50]);
        assert!((37..=40).contains(&c), "{c}");
        assert_eq!(h.by_keys(Color::Black, 5, [6, 7], [100, 50]), 0);
        // A new error is followed, not averaged with the old one for ever.
        settle(&mut h, key, 0, -20, 200);
        let c = h.by_keys(Color::White, 5, [6, 7], [100, 50]);
        assert!((-20..=-17).contains(&c), "{c}");
    }

    #[test]
    fn entries_stay_bounded_and_one_step_is_capped() {
        let mut h = Correction::default();
        let key = (Color::Black, 1, [2, 3]);
        h.learn_by_keys(step(), key.0, key.1, key.2, 10_000, 30);
        // One step moves each table by at most 8 cp: 8 + 8 x 0.5 x 2 in the sum.
        assert_eq!(h.by_keys(key.0, key.1, key.2, [100, 50]), 16);
        settle(&mut h, key, 0, 5_000, 2_000);
        let c = h.by_keys(key.0, key.1, key.2, [100, 50]);
        assert!((60..=64).contains(&c), "{c}");
        settle(&mut h, key, 0, -5_000, 2_000);
        let c = h.by_keys(key.0, key.1, key.2, [100, 50]);
        assert!((-64..=-60).contains(&c), "{c}");
    }

    #[test]
    fn the_step_and_the_bound_follow_their_parameters() {
        let mut p = Params::default();
        p.set("CORR_STEP_MAX", 1).unwrap();
        p.set("CORR_ENTRY_MAX", 4).unwrap();
        let step = Step::of(&p);
        let mut h = Correction::default();
        let (c, k, np) = (Color::White, 9, [10, 11]);
        h.learn_by_keys(step, c, k, np, 10_000, 30);
        // 1 cp a table in one step: 1 + 1 x 0.5 x 2 in the sum.
        assert_eq!(h.by_keys(c, k, np, [100, 50]), 2);
        for _ in 0..2_000 {
            h.learn_by_keys(step, c, k, np, 10_000, 30);
        }
        let pawn = h.by_keys(c, k, np, [100, 0]);
        assert!((3..=4).contains(&pawn), "{pawn}");
        // A smaller divisor takes a larger share of a small residual.
        p.set("CORR_STEP_MAX", 32).unwrap();
        p.set("CORR_STEP_DIV", 16).unwrap();
        let mut h = Correction::default();
        h.learn_by_keys(Step::of(&p), c, k, np, 2, 16);
        assert_eq!(h.pawn[Correction::indices(c, k, np)[0]], 2 * 256 / 16 * 16);
    }

    #[test]
    fn a_position_learns_its_own_entries() {
        let mut h = Correction::default();
        let pos = Position::default();
        for _ in 0..200 {
            let residual = -30 - h.of(&pos, [100, 0]);
            h.learn(step(), &pos, residual, 12);
        }
        assert!(
            (-30..=-28).contains(&h.of(&pos, [100, 0])),
            "{}",
            h.of(&pos, [100, 0])
        );
        h.clear();
        assert_eq!(h.of(&pos, [100, 100]), 0);
    }
}
