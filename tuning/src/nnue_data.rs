//! Which self-play positions a network is trained on.

use shakmaty::{Chess, Move, Position};

/// Why a position is left out of training.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// The side to move is in check: the static evaluation is never asked there.
    InCheck,
    /// The best move captures or promotes: the score rests on a tactic, not on the position.
    Noisy,
    /// A mate score: no evaluation should try to reproduce it.
    Mate,
}

/// Scores at or beyond this (White's view, absolute) are mate scores.
pub const MATE_SCORE: i16 = shears::score::MATE_BOUND as i16;

/// Whether (and why) a position with its best move and score is left out of training.
pub fn skip_reason(pos: &Chess, best: &Move, score: i16) -> Option<Skip> {
    if pos.is_check() {
        Some(Skip::InCheck)
    } else if best.is_capture() || best.is_promotion() {
        Some(Skip::Noisy)
    } else if score.unsigned_abs() >= MATE_SCORE as u16 {
        Some(Skip::Mate)
    } else {
        None
    }
}
