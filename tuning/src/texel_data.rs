//! Self-play data for tuning the evaluation: positions from fixed-node games, each labelled
//! with the game's result.
//!
//! Output lines: `<fen> | <search score, White's view> | <result for White: 1, 0.5 or 0>`.
//! Positions in check, with a capture or promotion as best move, or with a mate score are left
//! out (the evaluation is meant for quiet positions).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::CastlingMode;
use shears::Engine;
use shears::position::Position;
use shears::score::is_mate_score;
use shears::selfplay::{Adjudication, TimeControl, play_game, read_book};

pub struct Config {
    pub games: u64,
    pub nodes: u64,
    pub threads: usize,
    pub book: PathBuf,
    pub out: PathBuf,
    /// Random legal moves played after the book position, for variety.
    pub random_plies: u32,
    pub seed: u64,
}

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

pub fn run(cfg: &Config) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&cfg.book).map_err(|e| format!("{}: {e}", cfg.book.display()))?;
    let book = read_book(&text);
    if book.is_empty() {
        return Err(format!("no positions in {}", cfg.book.display()));
    }
    let file = File::create(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let out = Mutex::new(BufWriter::new(file));
    let played = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    let start = Instant::now();
    let adj = Adjudication {
        resign_score: Some(1000),
        resign_moves: 3,
        draw_score: Some(10),
        draw_moves: 10,
        draw_after: 40,
        max_plies: 400,
    };
    std::thread::scope(|scope| {
        for t in 0..cfg.threads.max(1) {
            let (book, out, played, positions, adj) = (&book, &out, &played, &positions, &adj);
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(cfg.seed ^ (t as u64).wrapping_mul(0x9E37));
                let mut white = Engine::new();
                let mut black = Engine::new();
                while played.fetch_add(1, Relaxed) < cfg.games {
                    let Some(fen) = random_start(book, cfg.random_plies, &mut rng) else {
                        continue;
                    };
                    let Ok(game) = play_game(
                        &mut white,
                        &mut black,
                        Some(&fen),
                        TimeControl::Nodes(cfg.nodes),
                        adj,
                    ) else {
                        continue;
                    };
                    let result = game.outcome.white_score();
                    let mut lines = String::new();
                    let mut white_to_move = fen.split_whitespace().nth(1) == Some("w");
                    for ply in &game.plies {
                        let white_score = if white_to_move { ply.score } else { -ply.score };
                        white_to_move = !white_to_move;
                        if ply.in_check || ply.noisy || is_mate_score(ply.score) {
                            continue;
                        }
                        lines.push_str(&format!("{} | {} | {}\n", ply.fen, white_score, result));
                        positions.fetch_add(1, Relaxed);
                    }
                    if let Ok(mut w) = out.lock() {
                        let _ = w.write_all(lines.as_bytes());
                    }
                    let n = played.load(Relaxed).min(cfg.games);
                    if n % 500 == 0 {
                        eprintln!(
                            "{n} games, {} positions, {:.0} s",
                            positions.load(Relaxed),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    out.lock()
        .map_err(|_| "output lock poisoned".to_string())?
        .flush()
        .map_err(|e| e.to_string())?;
    eprintln!(
        "done: {} positions in {:.0} s",
        positions.load(Relaxed),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
