//! Correction history: what the search has learnt about the net's errors in this game, by
//! pawn structure and by each side's non-pawn pieces, added to the net's raw evaluation.
//!
//! Values are kept in `1/CORR_GRAIN` centipawns. Each search node whose bound says which way
//! the static evaluation was wrong moves three entries (pawn key, white non-pawn key, black
//! non-pawn key, per side to move) towards the error, by more the deeper the node.

use shakmaty::Color;

use crate::position::Position;

/// Entries of each correction table (per side to move).
const CORR_SIZE: usize = 16_384;
/// Values are in units of 1/CORR_GRAIN centipawn.
const CORR_GRAIN: i32 = 256;
const CORR_MAX: i32 = CORR_GRAIN * 64;

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

    /// Moves the entries of `pos` towards `error` (search score minus raw evaluation, cp),
    /// weighted by depth.
    #[inline]
    pub(crate) fn learn(&mut self, pos: &Position, error: i32, depth: i32) {
        let (color, pawn_key, nonpawn) = keys(pos);
        self.learn_by_keys(color, pawn_key, nonpawn, error, depth);
    }

    #[inline]
    fn learn_by_keys(
        &mut self,
        color: Color,
        pawn_key: u64,
        nonpawn: [u64; 2],
        error: i32,
        depth: i32,
    ) {
        let [p, w, b] = Self::indices(color, pawn_key, nonpawn);
        let target = (error * CORR_GRAIN).clamp(-CORR_MAX, CORR_MAX);
        let weight = (depth + 1).min(16);
        let blend = |entry: &mut i16| {
            let e = i32::from(*entry);
            let v = (e * (256 - weight) + target * weight) / 256;
            *entry = v.clamp(-CORR_MAX, CORR_MAX) as i16;
        };
        blend(&mut self.pawn[p]);
        blend(&mut self.nonpawn[w]);
        blend(&mut self.nonpawn[b]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correction_moves_towards_the_error() {
        let mut h = Correction::default();
        for _ in 0..200 {
            h.learn_by_keys(Color::White, 5, [6, 7], 40, 10);
        }
        // 40 from the pawn table at 50% plus 40 + 40 from the two non-pawn tables at 25%.
        let c = h.by_keys(Color::White, 5, [6, 7], [50, 25]);
        assert!((39..=40).contains(&c), "{c}");
        assert_eq!(h.by_keys(Color::Black, 5, [6, 7], [100, 50]), 0);
    }

    #[test]
    fn a_position_learns_its_own_entries() {
        let mut h = Correction::default();
        let pos = Position::default();
        for _ in 0..200 {
            h.learn(&pos, -30, 12);
        }
        assert!((-30..=-29).contains(&h.of(&pos, [100, 0])));
        h.clear();
        assert_eq!(h.of(&pos, [100, 100]), 0);
    }
}
