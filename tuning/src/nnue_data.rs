//! Which self-play positions a network is trained on.

use shakmaty::{Chess, Move, Position};

use crate::viriformat::Game;

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

/// One game in this many is held out for validation.
pub const VALIDATION_EVERY: u64 = 20;

/// Whether a game belongs to the validation set: decided by a hash of the game's bytes, so the
/// split stays the same as a data set grows and whatever order its files are read in (a game
/// that a net was validated on never moves into a later net's training set, and the reverse),
/// and copies of one game fall on the same side.
pub fn is_validation(game: &Game) -> bool {
    // FNV-1a over the bytes, then a final mix so the low bits depend on all of them.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in game.to_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    shears::position::mix(h).is_multiple_of(VALIDATION_EVERY)
}

/// A fresh, empty scratch folder for one test: `shears-<tag>-<pid>-<n>` in the system's
/// temporary folder, where `n` counts the calls in this process, so no two tests share one.
#[cfg(test)]
pub(crate) fn scratch_dir(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("shears-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder in the temporary folder");
    dir
}

/// A game of `plies` legal moves picked by `seed`, with scores and a result from it (tests).
#[cfg(test)]
pub(crate) fn test_game(seed: u64, plies: usize) -> Game {
    let start = Chess::default();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for i in 0..plies {
        let legal = pos.legal_moves();
        let Some(m) = legal.get((seed as usize + i) % legal.len().max(1)).cloned() else {
            break;
        };
        moves.push((m, (seed as i16).wrapping_mul(7)));
        pos.play_unchecked(m);
    }
    Game {
        start,
        result: (seed % 3) as u8,
        moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validation_split_is_about_one_in_twenty_and_depends_on_the_game_only() {
        let games: Vec<Game> = (0..4000).map(|s| test_game(s, 12)).collect();
        let held: Vec<bool> = games.iter().map(is_validation).collect();
        let n = held.iter().filter(|&&v| v).count();
        assert!((140..=260).contains(&n), "{n} of 4000 held out");
        // Read in another order, each game falls on the same side.
        for (g, &v) in games.iter().zip(&held).rev() {
            assert_eq!(is_validation(g), v);
        }
    }
}
