//! `shears soak`: many very fast self-play games with random `Threads`, `Hash` and tunable
//! values (each within its range), every move checked for legality with shakmaty and every
//! search's time checked against its own hard limit and the clock.

use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::engine::Engine;
use crate::params::{PARAM_SPECS, Params};
use crate::selfplay::{Adjudication, Termination, TimeControl, play_game, read_book};
use crate::time::{Limits, budget};

/// A soak run: games of the engine against itself at a fast clock, with random thread counts.
pub struct SoakConfig {
    /// Games to play.
    pub games: usize,
    /// Base time per side, ms.
    pub base_ms: u64,
    /// Increment per move, ms.
    pub inc_ms: u64,
    /// Most threads a side may get.
    pub max_threads: usize,
    /// Seed of the thread counts and openings.
    pub seed: u64,
    /// Openings (FEN per line); the start position when empty.
    pub book: Vec<String>,
    /// Milliseconds a search may exceed its hard limit before it counts as an overrun
    /// (scheduling noise with more threads than cores).
    pub slack_ms: u64,
}

/// What a soak run saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SoakReport {
    /// Games played.
    pub games: usize,
    /// Moves played.
    pub moves: usize,
    /// Illegal moves (must be 0).
    pub illegal_moves: usize,
    /// Games lost on time (must be 0).
    pub time_losses: usize,
    /// Searches that ran past their hard limit plus the slack.
    pub overruns: usize,
    /// Worst (time used - hard limit) seen, in ms.
    pub worst_excess_ms: i64,
    /// Other failures, described.
    pub errors: Vec<String>,
    /// Seconds the run took.
    pub seconds: f64,
}

impl SoakReport {
    /// No illegal move, no time loss, no error.
    pub fn passed(&self) -> bool {
        self.illegal_moves == 0
            && self.time_losses == 0
            && self.overruns == 0
            && self.errors.is_empty()
    }

    /// One line for the log.
    pub fn summary(&self) -> String {
        format!(
            "soak: {} games, {} moves, {} illegal moves, {} time losses, {} overruns (worst {} ms past the hard limit), {} errors, {:.0} s",
            self.games,
            self.moves,
            self.illegal_moves,
            self.time_losses,
            self.overruns,
            self.worst_excess_ms,
            self.errors.len(),
            self.seconds
        )
    }
}

/// Random parameters: each tunable within its range, about a third of them changed.
pub(crate) fn random_params(rng: &mut StdRng) -> Params {
    let mut p = Params::default();
    for s in PARAM_SPECS {
        if rng.random_bool(0.33) {
            let v = rng.random_range(s.min..=s.max);
            // In range by construction.
            let _ = p.set(s.name, i64::from(v));
        }
    }
    p
}

fn randomise(engine: &mut Engine, rng: &mut StdRng, max_threads: usize) -> Result<Params, String> {
    let threads = rng.random_range(1..=max_threads.max(1));
    let hash = [1, 2, 4, 8, 16, 32][rng.random_range(0..6)];
    engine.set_option("Threads", Some(&threads.to_string()))?;
    engine.set_option("Hash", Some(&hash.to_string()))?;
    let params = random_params(rng);
    engine.set_params(params.clone())?;
    Ok(params)
}

/// Plays `cfg.games` games, calling `progress` after each.
pub fn run(cfg: &SoakConfig, mut progress: impl FnMut(&SoakReport)) -> SoakReport {
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut report = SoakReport::default();
    let start = Instant::now();
    let mut white = Engine::new();
    let mut black = Engine::new();
    let adj = Adjudication {
        max_plies: 400,
        ..Adjudication::default()
    };
    for game in 0..cfg.games {
        let pw = randomise(&mut white, &mut rng, cfg.max_threads);
        let pb = randomise(&mut black, &mut rng, cfg.max_threads);
        let (Ok(pw), Ok(pb)) = (pw, pb) else {
            report
                .errors
                .push(format!("game {game}: could not set options"));
            continue;
        };
        let opening = if cfg.book.is_empty() {
            None
        } else {
            Some(cfg.book[rng.random_range(0..cfg.book.len())].clone())
        };
        let tc = TimeControl::Clock {
            base_ms: cfg.base_ms,
            inc_ms: cfg.inc_ms,
        };
        let record = match play_game(&mut white, &mut black, opening.as_deref(), tc, &adj) {
            Ok(r) => r,
            Err(e) => {
                report.errors.push(format!("game {game}: {e}"));
                continue;
            }
        };
        report.games += 1;
        report.moves += record.plies.len();
        match record.termination {
            Termination::IllegalMove => report.illegal_moves += 1,
            Termination::Time => report.time_losses += 1,
            _ => {}
        }
        // Each search against the hard limit its own time manager set.
        let white_first = record.start_fen.split_whitespace().nth(1) == Some("w");
        for (i, ply) in record.plies.iter().enumerate() {
            let white_moves = (i % 2 == 0) == white_first;
            let Some(clock) = ply.clock_ms else { continue };
            let limits = Limits {
                wtime: Some(clock),
                btime: Some(clock),
                winc: Some(cfg.inc_ms),
                binc: Some(cfg.inc_ms),
                ..Limits::default()
            };
            let params = if white_moves { &pw } else { &pb };
            let turn = if white_moves {
                shakmaty::Color::White
            } else {
                shakmaty::Color::Black
            };
            let overhead = if white_moves {
                white.options().move_overhead
            } else {
                black.options().move_overhead
            };
            if let Some(b) = budget(&limits, turn, overhead, params) {
                let excess = ply.time_ms as i64 - b.hard as i64;
                report.worst_excess_ms = report.worst_excess_ms.max(excess);
                if excess > cfg.slack_ms as i64 {
                    report.overruns += 1;
                }
            }
        }
        report.seconds = start.elapsed().as_secs_f64();
        progress(&report);
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// Reads a book file for the soak, if one is given.
pub fn book(path: Option<&str>) -> Result<Vec<String>, String> {
    match path {
        None => Ok(Vec::new()),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
            Ok(read_book(&text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_params_stay_in_range() {
        let mut rng = StdRng::seed_from_u64(9);
        for _ in 0..50 {
            let p = random_params(&mut rng);
            for s in PARAM_SPECS {
                let v = p.get(s.name).unwrap();
                assert!(s.min <= v && v <= s.max, "{} = {v}", s.name);
            }
        }
    }

    /// Random parameters once made a search thread panic (an overflow), which hung the
    /// engine: the soak runs under a watchdog so that shows as a failure, not a stuck CI.
    #[test]
    fn a_short_soak_passes() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let cfg = SoakConfig {
                games: 2,
                base_ms: 1000,
                inc_ms: 10,
                max_threads: 3,
                seed: 4,
                book: Vec::new(),
                slack_ms: 250,
            };
            let _ = tx.send(run(&cfg, |_| {}));
        });
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(300))
            .expect("soak hung: a search thread probably panicked");
        assert_eq!(r.games, 2);
        assert!(r.moves > 0);
        assert_eq!(r.illegal_moves, 0);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }
}
