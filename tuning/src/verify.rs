//! `shears-tune verify`: plays a set of parameter values (an SPSA run's result) against the
//! defaults, or against another set, in game pairs in this process, and prints the Elo
//! difference with its 95% error bar and the likelihood of superiority from the pentanomial
//! counts of the pairs (the statistics fastchess and OpenBench print).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::StdRng;
use shears::Engine;
use shears::params::{ParamSpec, Params};
use shears::selfplay::{Adjudication, Outcome, Termination, TimeControl, play_game, read_book};

use crate::openings::random_start;

/// Counts of game pairs by the first side's points in the pair: 0, 0.5, 1, 1.5, 2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

/// What a set of pairs says about the first side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    pub pairs: u32,
    /// Mean points per game.
    pub score: f64,
    pub elo: f64,
    /// Half the width of the 95% interval, in Elo.
    pub error: f64,
    /// Likelihood of superiority: the chance that the first side is the stronger.
    pub los: f64,
}

/// Elo of a mean score (logistic), clamped away from 0 and 1.
fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The standard normal distribution function (Abramowitz and Stegun 7.1.26 for erf).
fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

impl Pentanomial {
    /// Adds a pair from the first side's points in its two games (each 0, 0.5 or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[half_points] += 1;
    }

    /// Mean, 95% interval and likelihood of superiority, with the variance of the pair
    /// scores (pairs played from one opening are not independent games).
    pub fn estimate(&self) -> EloEstimate {
        let pairs: u32 = self.0.iter().sum();
        if pairs == 0 {
            return EloEstimate {
                pairs,
                score: 0.5,
                elo: 0.0,
                error: f64::INFINITY,
                los: 0.5,
            };
        }
        let n = f64::from(pairs);
        let pair_score = |i: usize| i as f64 / 4.0;
        let score: f64 = (0..5)
            .map(|i| f64::from(self.0[i]) * pair_score(i))
            .sum::<f64>()
            / n;
        let var: f64 = (0..5)
            .map(|i| f64::from(self.0[i]) * (pair_score(i) - score).powi(2))
            .sum::<f64>()
            / n;
        let sd = (var / n).sqrt();
        let error = (elo_of(score + 1.959_964 * sd) - elo_of(score - 1.959_964 * sd)) / 2.0;
        let los = if sd > 0.0 {
            normal_cdf((score - 0.5) / sd)
        } else if score > 0.5 {
            1.0
        } else if score < 0.5 {
            0.0
        } else {
            0.5
        };
        EloEstimate {
            pairs,
            score,
            elo: elo_of(score),
            error,
            los,
        }
    }
}

/// Reads parameter values: `NAME, value` lines (the `result.txt` of `shears-tune spsa`, and
/// OpenBench's output form; other lines are skipped), or `NAME=value,NAME=value`. Unknown
/// names and values outside a parameter's range are errors.
pub fn parse_values(text: &str) -> Result<Vec<(&'static ParamSpec, i32)>, String> {
    let mut out = Vec::new();
    let pairs: Vec<(&str, &str)> = if text.contains('=') && !text.contains('\n') {
        text.split(',')
            .map(|kv| {
                kv.split_once('=')
                    .ok_or_else(|| format!("'{kv}' is not NAME=value"))
            })
            .collect::<Result<_, _>>()?
    } else {
        text.lines().filter_map(|l| l.split_once(',')).collect()
    };
    for (name, value) in pairs {
        let (name, value) = (name.trim(), value.trim());
        let Ok(v) = value.parse::<i32>() else {
            continue;
        };
        let spec = Params::spec(name).ok_or_else(|| format!("unknown parameter '{name}'"))?;
        if v < spec.min || v > spec.max {
            return Err(format!(
                "{name} = {v} is outside [{}, {}]",
                spec.min, spec.max
            ));
        }
        out.push((spec, v));
    }
    if out.is_empty() {
        return Err("no parameter values found".to_string());
    }
    Ok(out)
}

/// `--values` / `--base` as given: a file of `NAME, value` lines or `NAME=value,...`.
pub fn read_values(arg: &str) -> Result<Vec<(&'static ParamSpec, i32)>, String> {
    let path = std::path::Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{arg}: {e}"))?;
        parse_values(&text).map_err(|e| format!("{arg}: {e}"))
    } else {
        parse_values(arg)
    }
}

fn params_of(values: &[(&'static ParamSpec, i32)]) -> Result<Params, String> {
    let mut p = Params::default();
    for (s, v) in values {
        p.set(s.name, i64::from(*v)).map_err(|e| e.to_string())?;
    }
    Ok(p)
}

pub struct Config {
    /// The values under test, and what they play against (empty: the defaults).
    pub values: Vec<(&'static ParamSpec, i32)>,
    pub base: Vec<(&'static ParamSpec, i32)>,
    pub games: usize,
    pub tc: TimeControl,
    pub concurrency: usize,
    pub book: PathBuf,
    pub seed: u64,
    pub hash_mb: usize,
    pub adjudication: Adjudication,
    pub progress: bool,
}

/// Everything a verification run counted.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub penta: Pentanomial,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    /// Games lost on time or by an illegal move, by either side: a sound engine has none.
    pub forfeits: u32,
}

fn points(outcome: Outcome, white: bool) -> f64 {
    match (outcome, white) {
        (Outcome::Draw, _) => 0.5,
        (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 1.0,
        _ => 0.0,
    }
}

pub fn play(cfg: &Config) -> Result<Tally, String> {
    let text =
        std::fs::read_to_string(&cfg.book).map_err(|e| format!("{}: {e}", cfg.book.display()))?;
    let book = read_book(&text);
    if book.is_empty() {
        return Err(format!("no positions in {}", cfg.book.display()));
    }
    let (tuned, base) = (params_of(&cfg.values)?, params_of(&cfg.base)?);
    let pairs = cfg.games.div_ceil(2).max(1);
    let bar = if cfg.progress {
        ProgressBar::new((pairs * 2) as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games | {msg} | elapsed {elapsed_precise} | left {eta_precise}",
        )
        .map_err(|e| e.to_string())?,
    );
    let next = AtomicUsize::new(0);
    let tally = Mutex::new((Tally::default(), None::<String>));
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency.max(1) {
            let (next, tally, book, bar, tuned, base) = (&next, &tally, &book, &bar, &tuned, &base);
            scope.spawn(move || {
                let mut a = Engine::new();
                let mut b = Engine::new();
                let setup = |e: &mut Engine, p: &Params| -> Result<(), String> {
                    e.set_option("Hash", Some(&cfg.hash_mb.to_string()))?;
                    e.set_params(p.clone())
                };
                if let Err(e) = setup(&mut a, tuned).and_then(|()| setup(&mut b, base)) {
                    if let Ok(mut t) = tally.lock() {
                        t.1 = Some(e);
                    }
                    return;
                }
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= pairs {
                        return;
                    }
                    // Each pair's opening depends on the seed and the pair only.
                    let mut rng = StdRng::seed_from_u64(
                        cfg.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    let played = random_start(book, 0, &mut rng)
                        .ok_or_else(|| "no usable opening".to_string())
                        .and_then(|fen| {
                            let first =
                                play_game(&mut a, &mut b, Some(&fen), cfg.tc, &cfg.adjudication)?;
                            let second =
                                play_game(&mut b, &mut a, Some(&fen), cfg.tc, &cfg.adjudication)?;
                            Ok((first, second))
                        });
                    let Ok(mut t) = tally.lock() else { return };
                    let (first, second) = match played {
                        Ok(games) => games,
                        Err(e) => {
                            t.1 = Some(e);
                            return;
                        }
                    };
                    let (p1, p2) = (points(first.outcome, true), points(second.outcome, false));
                    let tl = &mut t.0;
                    tl.penta.add(p1, p2);
                    for (p, g) in [(p1, &first), (p2, &second)] {
                        if p > 0.75 {
                            tl.wins += 1;
                        } else if p < 0.25 {
                            tl.losses += 1;
                        } else {
                            tl.draws += 1;
                        }
                        if matches!(g.termination, Termination::Time | Termination::IllegalMove) {
                            tl.forfeits += 1;
                        }
                    }
                    let e = tl.penta.estimate();
                    bar.inc(2);
                    bar.set_message(format!("{:+.1} +/- {:.1} Elo", e.elo, e.error));
                    if t.1.is_some() {
                        return;
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    let (tally, error) = tally.into_inner().map_err(|_| "a game thread panicked")?;
    match error {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

pub fn report(cfg: &Config, t: &Tally, seconds: f64) -> String {
    let e = t.penta.estimate();
    let games = t.wins + t.losses + t.draws;
    let base = if cfg.base.is_empty() {
        "the defaults".to_string()
    } else {
        format!("{} base values", cfg.base.len())
    };
    format!(
        "{} tuned values against {base}, {games} games ({} pairs) in {:.0} s ({:.1} games/min)\n\
         wins {} losses {} draws {} (score {:.1}%), pentanomial {:?}, forfeits {}\n\
         Elo {:+.2} +/- {:.2} (95%), LOS {:.1}%\n",
        cfg.values.len(),
        e.pairs,
        seconds,
        f64::from(games) * 60.0 / seconds.max(1e-9),
        t.wins,
        t.losses,
        t.draws,
        e.score * 100.0,
        t.penta.0,
        t.forfeits,
        e.elo,
        e.error,
        e.los * 100.0
    )
}

pub fn run(cfg: &Config) -> Result<(), String> {
    let start = Instant::now();
    let tally = play(cfg)?;
    print!("{}", report(cfg, &tally, start.elapsed().as_secs_f64()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentanomial_statistics_match_fastchess() {
        // fastchess printed for net 2 against the hand-written evaluation (300 games):
        // Ptnml [11, 31, 53, 33, 22], Elo 27.85 +/- 31.76, LOS 95.83%.
        let e = Pentanomial([11, 31, 53, 33, 22]).estimate();
        assert_eq!(e.pairs, 150);
        assert!((e.score - 0.54).abs() < 1e-12);
        assert!((e.elo - 27.85).abs() < 0.01, "{e:?}");
        assert!((e.error - 31.76).abs() < 0.01, "{e:?}");
        assert!((e.los - 0.9583).abs() < 0.0005, "{e:?}");
        // Mirrored counts give the opposite Elo, the same error, the complementary LOS.
        let m = Pentanomial([22, 33, 53, 31, 11]).estimate();
        assert!((m.elo + e.elo).abs() < 1e-9);
        assert!((m.error - e.error).abs() < 1e-9);
        assert!((m.los + e.los - 1.0).abs() < 1e-6);
        // Only drawn pairs: zero, no spread, undecided.
        let d = Pentanomial([0, 0, 40, 0, 0]).estimate();
        assert_eq!((d.elo, d.error, d.los), (0.0, 0.0, 0.5));
    }

    #[test]
    fn pairs_are_counted_by_points() {
        let mut p = Pentanomial::default();
        p.add(1.0, 1.0);
        p.add(1.0, 0.5);
        p.add(0.5, 0.5);
        p.add(1.0, 0.0);
        p.add(0.0, 0.5);
        p.add(0.0, 0.0);
        assert_eq!(p.0, [1, 1, 2, 1, 1]);
    }

    #[test]
    fn values_are_read_in_both_forms_and_checked() {
        let spec = &shears::params::PARAM_SPECS[0];
        let file = format!(
            "{}, {}\n\nparameter old new\n{} 1 2\n",
            spec.name, spec.min, spec.name
        );
        let v = parse_values(&file).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].0.name, v[0].1), (spec.name, spec.min));
        let v = parse_values(&format!("{}={}", spec.name, spec.max)).unwrap();
        assert_eq!(v[0].1, spec.max);
        assert!(parse_values("NO_SUCH_PARAM=3").is_err());
        assert!(parse_values(&format!("{}={}", spec.name, i64::from(spec.max) + 1)).is_err());
        assert!(parse_values("nothing here").is_err());
    }

    #[test]
    fn a_short_verification_plays_every_pair() {
        let dir = std::env::temp_dir().join(format!("shears-verify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.epd");
        std::fs::write(
            &book,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
             rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n",
        )
        .unwrap();
        let spec = Params::spec("LMR_MIN_DEPTH").unwrap();
        let cfg = Config {
            values: vec![(spec, spec.max)],
            base: Vec::new(),
            games: 6,
            tc: TimeControl::Nodes(300),
            concurrency: 2,
            book,
            seed: 3,
            hash_mb: 1,
            adjudication: Adjudication::default(),
            progress: false,
        };
        let t = play(&cfg).unwrap();
        assert_eq!(t.penta.0.iter().sum::<u32>(), 3);
        assert_eq!(t.wins + t.losses + t.draws, 6);
        assert_eq!(t.forfeits, 0);
        assert!(report(&cfg, &t, 1.0).contains("6 games (3 pairs)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
