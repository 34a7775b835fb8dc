//! Self-play data for training networks: whole games in viriformat (see `viriformat.rs`),
//! so bullet and other trainers of the field read them as they are.
//!
//! Each thread plays its own games with Shears' search (one search thread per game) at a soft
//! node limit per move, from openings of a few random legal plies (from the start position or
//! a book); an opening that a short search scores beyond `--opening-limit` is dropped. Games
//! end by the rules or by adjudication on both sides' scores.
//!
//! Crash safety and resumption: every run writes new files `DIR/<seed>-<thread>.vf` beside
//! `DIR/<seed>.run.json` (command, commit, net; see `gamedata`), one `write` of a whole game at
//! a time, so a killed run loses only its games in flight (a reader drops a game cut off at
//! the end of a file), and a later run adds files beside the old ones: data accumulates over
//! sittings. `--stats DIR` counts what a directory holds; `data pack` moves it into `data/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shears::Engine;
use shears::selfplay::{Adjudication, TimeControl, play_game, read_book};
use shears::time::Limits;

use crate::gamedata::{self, Counts, GameWriter, RunInfo};
use crate::viriformat::Game;

#[derive(Clone)]
pub struct Config {
    pub out: PathBuf,
    /// Games to play in this run (`u64::MAX`: until killed).
    pub games: u64,
    pub soft_nodes: u64,
    pub hard_nodes: u64,
    pub threads: usize,
    /// Openings from this book; from the start position when `None`.
    pub book: Option<PathBuf>,
    /// Random legal plies after the start: this many or one more, at random.
    pub random_plies: u32,
    /// Openings a short search scores beyond this (centipawns) are dropped.
    pub opening_limit: i32,
    pub seed: Option<u64>,
    pub hash_mb: usize,
    /// Both sides evaluate with this net (`EvalFile`: a path or `<default>`, the built-in
    /// one).
    pub net: String,
    pub progress: bool,
}

/// A search engine as data generation configures it.
fn new_engine(cfg: &Config) -> Result<Engine, String> {
    let mut e = Engine::new();
    e.set_option("Hash", Some(&cfg.hash_mb.to_string()))?;
    e.set_option("EvalFile", Some(&cfg.net))?;
    Ok(e)
}

/// The adjudication of data generation: a win when both sides' scores agree beyond 15 pawns
/// for 4 moves each (mates are found long before the end in such positions), a draw when after
/// move 35 both stay within 0.15 pawns for 8 moves each.
pub fn adjudication() -> Adjudication {
    Adjudication {
        resign_score: Some(1500),
        resign_moves: 4,
        draw_score: Some(15),
        draw_moves: 8,
        draw_after: 35,
        max_plies: 500,
    }
}

/// An opening: `plies` or `plies + 1` random legal moves from `start`; `None` if the game
/// ends on the way.
pub fn random_opening(start: &str, plies: u32, rng: &mut StdRng) -> Option<String> {
    let n = plies + rng.random_range(0..2u32);
    crate::openings::random_walk(start, n, rng)
}

struct Counters {
    games: AtomicU64,
    positions: AtomicU64,
    dropped_openings: AtomicU64,
    failed: AtomicU64,
}

pub fn run(cfg: &Config) -> Result<(), String> {
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let starts = match &cfg.book {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let book = read_book(&text);
            if book.is_empty() {
                return Err(format!("no positions in {}", path.display()));
            }
            book
        }
        None => vec![shears::position::START_FEN.to_string()],
    };
    let seed = cfg.seed.unwrap_or_else(gamedata::fresh_seed);
    let (before, _) = stats_with(&cfg.out, false)?;
    // A net that does not load stops the run here, before any thread starts.
    new_engine(cfg)?;
    let run = RunInfo::new(seed, "datagen", &cfg.net)?;
    eprintln!(
        "datagen: seed {seed}, {} threads, evaluation {}, soft {} / hard {} nodes per move; {} already holds {} games, {} positions",
        cfg.threads,
        cfg.net,
        cfg.soft_nodes,
        cfg.hard_nodes,
        cfg.out.display(),
        before.games,
        before.positions
    );
    if let Some(line) = crate::autogroup::follow_nice() {
        eprintln!("datagen: {line}");
    }
    let counters = Counters {
        games: AtomicU64::new(0),
        positions: AtomicU64::new(0),
        dropped_openings: AtomicU64::new(0),
        failed: AtomicU64::new(0),
    };
    let claimed = AtomicU64::new(0);
    let start = Instant::now();
    let bar = if cfg.progress {
        let bar = if cfg.games == u64::MAX {
            ProgressBar::new_spinner()
        } else {
            ProgressBar::new(cfg.games)
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos} games, {msg}, ETA {eta}",
            )
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let result: Result<(), String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..cfg.threads.max(1))
            .map(|t| {
                let (starts, counters, claimed, run) = (&starts, &counters, &claimed, &run);
                scope.spawn(move || -> Result<(), String> {
                    let file = GameWriter::create(&cfg.out, run, t)?;
                    let mut rng = StdRng::seed_from_u64(shears::position::mix(
                        seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    ));
                    let mut engine = new_engine(cfg)?;
                    let mut other = new_engine(cfg)?;
                    while claimed.fetch_add(1, Relaxed) < cfg.games {
                        let game = play_one(cfg, starts, &mut rng, &mut engine, &mut other);
                        match game {
                            Ok(Some(g)) => {
                                // One write per game: a kill loses at most this game.
                                file.write(&g)?;
                                counters.games.fetch_add(1, Relaxed);
                                counters.positions.fetch_add(g.moves.len() as u64, Relaxed);
                            }
                            Ok(None) => {
                                counters.dropped_openings.fetch_add(1, Relaxed);
                                claimed.fetch_sub(1, Relaxed);
                            }
                            Err(_) => {
                                counters.failed.fetch_add(1, Relaxed);
                            }
                        }
                    }
                    file.sync()?;
                    Ok(())
                })
            })
            .collect();
        // Progress from this thread while the workers play.
        while !handles.iter().all(|h| h.is_finished()) {
            let g = counters.games.load(Relaxed);
            let p = counters.positions.load(Relaxed);
            let secs = start.elapsed().as_secs_f64().max(1e-3);
            bar.set_position(g);
            bar.set_message(format!(
                "{p} positions, {:.0} pos/s, {} openings dropped",
                p as f64 / secs,
                counters.dropped_openings.load(Relaxed)
            ));
            std::thread::sleep(Duration::from_millis(250));
        }
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err("a datagen thread panicked".into()))
        })
    });
    bar.finish();
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    let p = counters.positions.load(Relaxed);
    eprintln!(
        "datagen: {} games, {p} positions in {secs:.0} s ({:.0} positions/s, {:.0} per hour); {} openings dropped, {} games failed",
        counters.games.load(Relaxed),
        p as f64 / secs,
        p as f64 / secs * 3600.0,
        counters.dropped_openings.load(Relaxed),
        counters.failed.load(Relaxed),
    );
    result
}

/// One game, or `None` when the opening is dropped.
fn play_one(
    cfg: &Config,
    starts: &[String],
    rng: &mut StdRng,
    engine: &mut Engine,
    other: &mut Engine,
) -> Result<Option<Game>, String> {
    let start = &starts[rng.random_range(0..starts.len())];
    let Some(opening) = random_opening(start, cfg.random_plies, rng) else {
        return Ok(None);
    };
    engine.new_game()?;
    engine.set_position(Some(&opening), &[])?;
    let probe = engine.search(Limits {
        soft_nodes: Some(cfg.soft_nodes),
        nodes: Some(cfg.hard_nodes),
        ..Limits::default()
    });
    if probe.score.abs() > cfg.opening_limit {
        return Ok(None);
    }
    let tc = TimeControl::SoftNodes {
        soft: cfg.soft_nodes,
        hard: cfg.hard_nodes,
    };
    let record = play_game(engine, other, Some(&opening), tc, &adjudication())?;
    gamedata::to_viriformat(&record).map(Some)
}

/// What a data directory holds, and the bytes at the ends of its raw files that belong to
/// games cut off by a killed run.
pub fn stats_with(dir: &Path, filter: bool) -> Result<(Counts, u64), String> {
    let mut s = Counts::default();
    if !dir.exists() {
        return Ok((s, 0));
    }
    let unfinished = crate::store::for_each_game(&[dir.to_path_buf()], |g| {
        s.add(g, filter);
        std::ops::ControlFlow::Continue(())
    })?;
    Ok((s, unfinished))
}

/// `--stats DIR`: prints what a directory holds.
pub fn print_stats(dir: &Path) -> Result<(), String> {
    crate::report::print_report(&stats_report(dir)?)
}

/// What `--stats DIR` prints.
fn stats_report(dir: &Path) -> Result<String, String> {
    let (s, unfinished) = stats_with(dir, true)?;
    let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
    let (w, d, b) = s.result_split();
    let mut out = format!(
        "{}: {} files\n\
         games      {:>12}  (white wins {w:.1}%, draws {d:.1}%, black wins {b:.1}%)\n\
         positions  {:>12}  ({:.1} per game)\n\
         kept       {:>12}  ({:.1}%; left out: in check {}, noisy best move {}, mate score {})\n",
        dir.display(),
        gamedata::data_files(dir)?.len(),
        s.games,
        s.positions,
        s.positions as f64 / s.games.max(1) as f64,
        s.kept,
        pct(s.kept, s.positions),
        s.in_check,
        s.noisy,
        s.mate_scores
    );
    if unfinished > 0 {
        out += &format!(
            "unfinished {unfinished:>12}  bytes of games cut off by a killed run (ignored)\n"
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viriformat;
    use shakmaty::fen::Fen;
    use shakmaty::{Chess, Color, EnPassantMode, Position as _};

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn datagen_writes_games_that_replay_legally_with_the_right_result() {
        let dir = crate::nnue_data::scratch_dir("datagen");
        let cfg = Config {
            out: dir.clone(),
            games: 3,
            soft_nodes: 300,
            hard_nodes: 3000,
            threads: 1,
            book: None,
            random_plies: 8,
            opening_limit: 1000,
            seed: Some(7),
            hash_mb: 1,
            net: "<default>".to_string(),
            progress: false,
        };
        run(&cfg).unwrap();
        // A second run appends: data accumulates.
        run(&Config {
            seed: Some(8),
            games: 1,
            ..cfg.clone()
        })
        .unwrap();
        // A net that does not load stops a run before it writes anything.
        assert!(
            run(&Config {
                seed: Some(9),
                net: "/no/such/net.nnue".to_string(),
                ..cfg
            })
            .is_err()
        );
        let (s, unfinished) = stats_with(&dir, true).unwrap();
        assert_eq!(s.games, 4);
        assert_eq!(gamedata::data_files(&dir).unwrap().len(), 2);
        assert_eq!(unfinished, 0);
        // Each run left its info: the seed, the net and this build's commit.
        let info = RunInfo::load(&dir, 7).unwrap();
        assert_eq!(
            (info.source.as_str(), info.net.as_str()),
            ("datagen", "<default>")
        );
        assert_eq!(info.commit, gamedata::COMMIT);
        assert_eq!(s.kept + s.in_check + s.noisy + s.mate_scores, s.positions);
        for path in gamedata::data_files(&dir).unwrap() {
            let bytes = std::fs::read(&path).unwrap();
            let (games, _) = Game::read_all(&bytes).unwrap();
            for g in games {
                // Openings of 8 or 9 plies from the start position.
                assert!(
                    matches!(g.start.fullmoves().get(), 5 | 6),
                    "{}",
                    fen(&g.start)
                );
                // Replay every move legally, then check the result against the final
                // position wherever the rules decided the game.
                let mut pos = g.start.clone();
                for (m, _) in &g.moves {
                    assert!(pos.is_legal(*m));
                    pos.play_unchecked(*m);
                }
                if pos.is_checkmate() {
                    let expected = if pos.turn() == Color::White {
                        viriformat::BLACK_WIN
                    } else {
                        viriformat::WHITE_WIN
                    };
                    assert_eq!(g.result, expected);
                }
                if pos.is_stalemate() || pos.is_insufficient_material() {
                    assert_eq!(g.result, viriformat::DRAW);
                }
                // The last scores point to the winner when the game was adjudicated.
                if g.result != viriformat::DRAW
                    && !pos.is_checkmate()
                    && let Some((_, last)) = g.moves.last()
                {
                    assert_eq!(*last > 0, g.result == viriformat::WHITE_WIN);
                }
            }
        }
        // `--stats` reports the same four games.
        let report = stats_report(&dir).unwrap();
        assert!(
            report
                .lines()
                .any(|l| l.split_whitespace().take(2).eq(["games", "4"])),
            "{report}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
