//! Openings for self-play: a start position followed by random legal moves.

use rand::RngExt;
use rand::rngs::StdRng;
use shakmaty::CastlingMode;
use shears::position::Position;

/// A book position followed by `plies` random legal moves (`None` if the game ends).
pub fn random_start(book: &[String], plies: u32, rng: &mut StdRng) -> Option<String> {
    let fen = &book[rng.random_range(0..book.len())];
    random_walk(fen, plies, rng)
}

/// `fen` followed by `plies` random legal moves; `None` if the game ends on the way.
pub fn random_walk(fen: &str, plies: u32, rng: &mut StdRng) -> Option<String> {
    let mut pos = Position::from_fen(fen, CastlingMode::Standard).ok()?;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let m = moves[rng.random_range(0..moves.len())];
        pos.play_game_move(m);
    }
    (!pos.legal_moves().is_empty()).then(|| pos.fen())
}
