//! Score constants and mate-distance conversions.

/// Deepest ply the search can reach (search stack and PV sizes).
pub(crate) const MAX_PLY: usize = 128;
/// Deepest iteration the iterative deepening runs.
pub(crate) const MAX_DEPTH: i32 = MAX_PLY as i32 - 8;

pub(crate) const INFINITE: i32 = 32_000;
/// Score of being mated at the root; mated in `ply` plies is `-MATE + ply`.
pub(crate) const MATE: i32 = 31_000;
/// Scores beyond this (in absolute value) are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Score of a draw.
pub const DRAW: i32 = 0;

#[inline]
pub(crate) fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

#[inline]
pub(crate) fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

#[inline]
/// `score` is a mate (for either side).
pub fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Stored scores are relative to the node, not the root: a mate found `ply` plies below the root
/// is stored as a distance from the storing node.
#[inline]
pub(crate) fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
pub(crate) fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// `score mate N` in moves (negative when mated), or `None` for a centipawn score.
pub fn mate_moves(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_in_moves() {
        assert_eq!(mate_moves(mate_in(1)), Some(1));
        assert_eq!(mate_moves(mate_in(3)), Some(2));
        assert_eq!(mate_moves(mated_in(0)), Some(0));
        assert_eq!(mate_moves(mated_in(2)), Some(-1));
        assert_eq!(mate_moves(mated_in(4)), Some(-2));
        assert_eq!(mate_moves(120), None);
    }

    #[test]
    fn tt_conversion_round_trips() {
        for ply in [0usize, 1, 7, 60] {
            for score in [mate_in(ply + 3), mated_in(ply + 4), 0, 250, -999] {
                assert_eq!(from_tt(to_tt(score, ply), ply), score);
            }
        }
        // A mate stored at ply 5 and found again at ply 9 is 4 plies further from the root.
        assert_eq!(from_tt(to_tt(mate_in(12), 5), 9), mate_in(16));
    }
}
