//! `shears-tune verify`: plays a set of parameter values (an SPSA run's result) against the
//! defaults, or against another set, in game pairs in this process, and prints the Elo
//! difference with its 95% error bar and the likelihood of superiority from the pentanomial
//! counts of the pairs (the statistics fastchess and OpenBench print). Either side can also
//! evaluate with a net file of its own (`--net`, `--base-net`): a quick screen of candidate
//! nets at a node limit, where nets of one shape search at the same speed.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use shears::Engine;
use shears::params::{ParamSpec, Params};
use shears::selfplay::{
    Adjudication, Outcome, Termination, TimeControl, play_game_odds, read_book,
};

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

fn params_of(values: &[(&'static ParamSpec, i32)]) -> Result<Params, String> {
    let mut p = Params::default();
    for (s, v) in values {
        p.set(s.name, i64::from(*v)).map_err(|e| e.to_string())?;
    }
    Ok(p)
}

#[derive(Clone)]
pub struct Config {
    /// The values under test, and what they play against (empty: the defaults).
    pub values: Vec<(&'static ParamSpec, i32)>,
    pub base: Vec<(&'static ParamSpec, i32)>,
    /// Net files for the side under test and for the base (`None`: the built-in net).
    pub net: Option<PathBuf>,
    pub base_net: Option<PathBuf>,
    pub games: usize,
    pub tc: TimeControl,
    /// The side under test's own time control (`--net-tc`; `None`: `tc` for both), e.g.
    /// nodes scaled by its net's speed against the base's.
    pub net_tc: Option<TimeControl>,
    pub concurrency: usize,
    pub book: PathBuf,
    pub seed: u64,
    pub hash_mb: usize,
    pub adjudication: Adjudication,
    pub progress: bool,
    /// A file that gets one line per finished pair: a killed run loses only the pairs in
    /// flight, and the same command resumes it (a file of another configuration is refused).
    pub log: Option<PathBuf>,
    /// Where every game goes, in viriformat, for training nets (`--data-out DIR`).
    pub games_out: Option<std::sync::Arc<crate::gamedata::GameWriter>>,
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
    /// Pairs read back from the pair log (played by an earlier sitting of the run).
    pub logged_pairs: u32,
}

impl Tally {
    /// Counts one pair: the first side's points in its two games, and the games forfeited.
    fn add_pair(&mut self, p1: f64, p2: f64, forfeits: u32) {
        self.penta.add(p1, p2);
        for p in [p1, p2] {
            if p > 0.75 {
                self.wins += 1;
            } else if p < 0.25 {
                self.losses += 1;
            } else {
                self.draws += 1;
            }
        }
        self.forfeits += forfeits;
    }
}

/// The first line of a pair log: what was played, so a resumed run plays the same.
fn log_header(cfg: &Config) -> String {
    log_header_with_book(cfg, &cfg.book.display().to_string())
}

/// The header with the book written as `book` (the header names the book's path as given).
fn log_header_with_book(cfg: &Config, book: &str) -> String {
    let list = |v: &[(&'static ParamSpec, i32)]| -> String {
        v.iter()
            .map(|(s, x)| format!("{}={x}", s.name))
            .collect::<Vec<_>>()
            .join(",")
    };
    // Each side's net by its checksum as well: a log resumed by a binary with another
    // built-in net, or with another file at the same path, is another verification. (An
    // unreadable file is refused when the engines load it.)
    let net = |n: &Option<PathBuf>| {
        let name = n
            .as_ref()
            .map_or("<default>".to_string(), |p| p.display().to_string());
        let sha = crate::gamedata::net_sha256(&name).unwrap_or_else(|_| "unreadable".into());
        format!(" | net {name} sha256 {}", &sha[..sha.len().min(16)])
    };
    // Written only when given, so that the logs of runs without it resume as before.
    let net_tc = match cfg.net_tc {
        Some(tc) => format!(" tc {tc:?}"),
        None => String::new(),
    };
    format!(
        "# shears-tune verify: values {}{}{net_tc} | base {}{} | tc {:?} | book {} | seed {} | hash {} | {:?}",
        list(&cfg.values),
        net(&cfg.net),
        if cfg.base.is_empty() {
            "defaults".to_string()
        } else {
            list(&cfg.base)
        },
        net(&cfg.base_net),
        cfg.tc,
        book,
        cfg.seed,
        cfg.hash_mb,
        cfg.adjudication
    )
}

/// Reads a pair log's text (empty: a new log): the pairs already played
/// (`pair,first,second,forfeits` lines) and their tally. A line cut off by a kill is ignored;
/// a log of another configuration is an error.
fn read_log(
    cfg: &Config,
    path: &std::path::Path,
    text: &str,
) -> Result<(Vec<bool>, Tally), String> {
    let pairs = cfg.games.div_ceil(2).max(1);
    let mut done = vec![false; pairs];
    let mut tally = Tally::default();
    let mut lines = text.lines();
    if let Some(first) = lines.next()
        && first != log_header(cfg)
        && !same_book_written_otherwise(cfg, first)
    {
        return Err(format!(
            "{} is the log of another verification ({first}); give another --log or the same settings",
            path.display()
        ));
    }
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let [k, p1, p2, forfeits] = f[..] else {
            continue;
        };
        let (Ok(k), Ok(p1), Ok(p2), Ok(forfeits)) = (
            k.parse::<usize>(),
            p1.parse::<f64>(),
            p2.parse::<f64>(),
            forfeits.parse::<u32>(),
        ) else {
            continue;
        };
        if k < pairs && !done[k] {
            done[k] = true;
            tally.add_pair(p1, p2, forfeits);
            tally.logged_pairs += 1;
        }
    }
    Ok((done, tally))
}

/// Whether `header` is this configuration's header with the same book file reached by
/// another path (`../shared/...` against `/work/shared/...`): both paths resolve to one file.
fn same_book_written_otherwise(cfg: &Config, header: &str) -> bool {
    let Some((_, rest)) = header.split_once(" | book ") else {
        return false;
    };
    let Some((logged, _)) = rest.rsplit_once(" | seed ") else {
        return false;
    };
    let resolve = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    resolve(std::path::Path::new(logged)).is_some_and(|a| resolve(&cfg.book) == Some(a))
        && header == log_header_with_book(cfg, logged)
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
    for path in [&cfg.net, &cfg.base_net].into_iter().flatten() {
        // A file that is no net stops the run here, not in every game thread.
        Engine::new().set_option("EvalFile", Some(&path.to_string_lossy()))?;
    }
    let pairs = cfg.games.div_ceil(2).max(1);
    let bar = crate::progress::games_bar((pairs * 2) as u64, cfg.progress)?;
    let (done, resumed, log) = match &cfg.log {
        Some(path) => {
            let io = |e: std::io::Error| format!("{}: {e}", path.display());
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let (done, resumed) = read_log(cfg, path, &text)?;
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(io)?;
            if text.is_empty() {
                writeln!(file, "{}", log_header(cfg)).map_err(io)?;
            } else if !text.ends_with('\n') {
                // A line cut off by a kill: the next pair starts a line of its own.
                writeln!(file).map_err(io)?;
            }
            (done, resumed, Some(file))
        }
        None => (vec![false; pairs], Tally::default(), None),
    };
    let played_before = done.iter().filter(|&&d| d).count();
    bar.set_position((played_before * 2) as u64);
    let todo: Vec<usize> = (0..pairs).filter(|&k| !done[k]).collect();
    let next = AtomicUsize::new(0);
    let tally = Mutex::new((resumed, None::<String>));
    let log = Mutex::new(log);
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency.max(1) {
            let (next, tally, book, bar, tuned, base, todo, log) =
                (&next, &tally, &book, &bar, &tuned, &base, &todo, &log);
            scope.spawn(move || {
                let mut a = Engine::new();
                let mut b = Engine::new();
                let setup =
                    |e: &mut Engine, p: &Params, net: &Option<PathBuf>| -> Result<(), String> {
                        e.set_option("Hash", Some(&cfg.hash_mb.to_string()))?;
                        if let Some(path) = net {
                            e.set_option("EvalFile", Some(&path.to_string_lossy()))?;
                        }
                        e.set_params(p.clone())
                    };
                if let Err(e) =
                    setup(&mut a, tuned, &cfg.net).and_then(|()| setup(&mut b, base, &cfg.base_net))
                {
                    if let Ok(mut t) = tally.lock() {
                        t.1 = Some(e);
                    }
                    return;
                }
                loop {
                    let Some(&k) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    // Each pair's opening depends on the seed and the pair only.
                    let mut rng = StdRng::seed_from_u64(
                        cfg.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    let played = random_start(book, 0, &mut rng)
                        .ok_or_else(|| "no usable opening".to_string())
                        .and_then(|fen| {
                            let (a_tc, b_tc) = (cfg.net_tc.unwrap_or(cfg.tc), cfg.tc);
                            let adj = &cfg.adjudication;
                            let first =
                                play_game_odds(&mut a, &mut b, Some(&fen), [a_tc, b_tc], adj)?;
                            crate::gamedata::keep(cfg.games_out.as_deref(), &first)?;
                            let second =
                                play_game_odds(&mut b, &mut a, Some(&fen), [b_tc, a_tc], adj)?;
                            crate::gamedata::keep(cfg.games_out.as_deref(), &second)?;
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
                    let forfeits = [&first, &second]
                        .iter()
                        .filter(|g| {
                            matches!(g.termination, Termination::Time | Termination::IllegalMove)
                        })
                        .count() as u32;
                    t.0.add_pair(p1, p2, forfeits);
                    if let Ok(mut log) = log.lock()
                        && let Some(file) = log.as_mut()
                        && let Err(e) = writeln!(file, "{k},{p1},{p2},{forfeits}")
                    {
                        t.1 = Some(format!("pair log: {e}"));
                    }
                    let e = t.0.penta.estimate();
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
    let net = |n: &Option<PathBuf>| match n {
        Some(path) => format!(" with net {}", path.display()),
        None => String::new(),
    };
    let odds = match cfg.net_tc {
        Some(tc) => format!(" at {tc:?} (the base at {:?})", cfg.tc),
        None => String::new(),
    };
    let (tested, base) = (
        if cfg.values.is_empty() {
            format!("the defaults{}{odds}", net(&cfg.net))
        } else {
            format!("{} tuned values{}{odds}", cfg.values.len(), net(&cfg.net))
        },
        format!("{base}{}", net(&cfg.base_net)),
    );
    let now = games.saturating_sub(2 * t.logged_pairs);
    let logged = if t.logged_pairs > 0 {
        format!(", {} of them from the pair log", 2 * t.logged_pairs)
    } else {
        String::new()
    };
    format!(
        "{tested} against {base}, {games} games ({} pairs{logged}); {now} in {:.0} s ({:.1} games/min)\n\
         wins {} losses {} draws {} (score {:.1}%), pentanomial {:?}, forfeits {}\n\
         Elo {:+.2} +/- {:.2} (95%), LOS {:.1}%\n",
        e.pairs,
        seconds,
        f64::from(now) * 60.0 / seconds.max(1e-9),
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
    let text = report(cfg, &tally, start.elapsed().as_secs_f64());
    crate::report::print_report(&text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder for one test, holding `book.epd` with these lines.
    fn scratch_with_book(name: &str, lines: &str) -> (PathBuf, PathBuf) {
        let dir = crate::nnue_data::scratch_dir(name);
        let book = dir.join("book.epd");
        std::fs::write(&book, lines).unwrap();
        (dir, book)
    }

    /// The tests' settings: the defaults on both sides, six games at 300 nodes, two threads.
    fn test_config(book: PathBuf) -> Config {
        Config {
            values: Vec::new(),
            base: Vec::new(),
            net: None,
            base_net: None,
            games: 6,
            tc: TimeControl::Nodes(300),
            net_tc: None,
            concurrency: 2,
            book,
            seed: 3,
            hash_mb: 1,
            adjudication: Adjudication::default(),
            progress: false,
            log: None,
            games_out: None,
        }
    }

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
    fn a_short_verification_plays_every_pair() {
        let (dir, book) = scratch_with_book(
            "verify",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
             rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n",
        );
        let spec = Params::spec("LMR_MIN_DEPTH").unwrap();
        let cfg = Config {
            values: vec![(spec, spec.max)],
            ..test_config(book)
        };
        // With `--data-out`: every game, from both threads, lands whole in the data file.
        let data = dir.join("games");
        let t = play(&Config {
            games_out: crate::gamedata::writer_for(Some(&data), "verify", "<default>").unwrap(),
            ..cfg.clone()
        })
        .unwrap();
        assert_eq!(t.penta.0.iter().sum::<u32>(), 3);
        assert_eq!(t.wins + t.losses + t.draws, 6);
        assert_eq!(t.forfeits, 0);
        assert!(report(&cfg, &t, 1.0).contains("6 games (3 pairs)"));
        let (counts, unfinished) = crate::datagen::stats_with(&data, true).unwrap();
        assert_eq!((counts.games, unfinished), (6, 0));
        // The games' results are the tally's: as many draws, as many decided games.
        assert_eq!(counts.draws, u64::from(t.draws));
        assert_eq!(
            counts.white_wins + counts.black_wins,
            u64::from(t.wins + t.losses)
        );

        // With a pair log: a run cut short (here: fewer games asked), resumed with more, plays
        // only the missing pairs and counts the logged ones; the whole equals one long run.
        let log = dir.join("pairs.csv");
        let whole = play(&Config {
            games: 8,
            ..cfg.clone()
        })
        .unwrap();
        let first = play(&Config {
            games: 4,
            log: Some(log.clone()),
            ..cfg.clone()
        });
        // Another number of games is another configuration only in how many pairs are due,
        // so the header does not name it.
        assert_eq!(first.unwrap().penta.0.iter().sum::<u32>(), 2);
        let mut text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        // A line cut off by a kill is ignored.
        text.push_str("2,0.");
        std::fs::write(&log, &text).unwrap();
        let resumed = play(&Config {
            games: 8,
            log: Some(log.clone()),
            ..cfg.clone()
        })
        .unwrap();
        assert_eq!(resumed.penta, whole.penta);
        assert_eq!(
            (resumed.wins, resumed.losses, resumed.draws),
            (whole.wins, whole.losses, whole.draws)
        );
        assert_eq!(resumed.logged_pairs, 2);
        assert!(
            report(&cfg, &resumed, 1.0)
                .contains("8 games (4 pairs, 4 of them from the pair log); 4 in")
        );
        // The same book by another path resumes the log; another book with the same name
        // elsewhere does not.
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let same_book = sub.join("..").join("book.epd");
        let again = play(&Config {
            games: 8,
            log: Some(log.clone()),
            book: same_book,
            ..cfg.clone()
        })
        .unwrap();
        assert_eq!(again.logged_pairs, 4);
        assert_eq!(again.penta, whole.penta);
        std::fs::copy(&cfg.book, sub.join("book.epd")).unwrap();
        let elsewhere = play(&Config {
            games: 8,
            log: Some(log.clone()),
            book: sub.join("book.epd"),
            ..cfg.clone()
        });
        assert!(
            elsewhere
                .err()
                .is_some_and(|e| e.contains("another verification"))
        );
        // Other settings with the same log are refused.
        let other = play(&Config {
            games: 8,
            seed: 4,
            log: Some(log.clone()),
            ..cfg.clone()
        });
        assert!(
            other
                .err()
                .is_some_and(|e| e.contains("another verification"))
        );
        // So is a log of another net: the header names each net by its checksum, the built-in
        // net included, so a file rewritten at the same path is another verification.
        let builtin = crate::gamedata::net_sha256("<default>").unwrap();
        assert!(log_header(&cfg).contains(&format!("net <default> sha256 {}", &builtin[..16])));
        let net_file = dir.join("candidate.nnue");
        std::fs::write(&net_file, b"first net").unwrap();
        let with_file = Config {
            net: Some(net_file.clone()),
            ..cfg.clone()
        };
        let logged = format!("{}\n0,1,0.5,0\n", log_header(&with_file));
        let (done, _) = read_log(&with_file, &log, &logged).unwrap();
        assert!(done[0]);
        std::fs::write(&net_file, b"second net").unwrap();
        assert!(
            read_log(&with_file, &log, &logged)
                .err()
                .is_some_and(|e| e.contains("another verification"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_side_under_test_can_play_its_own_time_control() {
        let (dir, book) = scratch_with_book(
            "verify-odds",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
        );
        // The same engine on both sides, the tested one with 40 times the nodes.
        let cfg = Config {
            tc: TimeControl::Nodes(100),
            net_tc: Some(TimeControl::Nodes(4000)),
            seed: 5,
            ..test_config(book)
        };
        let t = play(&cfg).unwrap();
        assert_eq!(t.wins + t.losses + t.draws, 6);
        assert!(t.penta.estimate().score > 0.7, "{t:?}");
        assert!(report(&cfg, &t, 1.0).contains("at Nodes(4000) (the base at Nodes(100))"));
        // A pair log of the run without odds is another verification; without `--net-tc`
        // the header is what it was before the flag existed.
        let even = Config {
            net_tc: None,
            ..cfg.clone()
        };
        assert_ne!(log_header(&cfg), log_header(&even));
        assert!(
            log_header(&cfg).contains("sha256 ")
                && log_header(&cfg).contains(" tc Nodes(4000) | base")
        );
        assert!(
            log_header(&even).starts_with("# shears-tune verify: values  | net <default> sha256 ")
        );
        assert!(!log_header(&even).contains("Nodes(4000)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nets_can_be_compared_and_a_bad_net_file_stops_the_run() {
        let (dir, book) = scratch_with_book(
            "verify-nets",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
        );
        // The built-in net's file against a net of random weights of the same shape.
        let trained = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/default.nnue");
        let random = dir.join("random.nnue");
        let model = crate::nnue_train::Model::new(128, 8, shears::eval::nnue::Layout::Plain, 5);
        std::fs::write(&random, model.quantise().unwrap().to_bytes()).unwrap();
        let cfg = Config {
            net: Some(trained),
            base_net: Some(random.clone()),
            tc: TimeControl::Nodes(2000),
            ..test_config(book)
        };
        let t = play(&cfg).unwrap();
        assert_eq!(t.wins + t.losses + t.draws, 6);
        assert!(t.penta.estimate().score > 0.75, "{t:?}");
        let r = report(&cfg, &t, 1.0);
        assert!(r.starts_with("the defaults with net "), "{r}");
        assert!(r.contains("random.nnue"), "{r}");
        // A file that is no net is refused before any game.
        std::fs::write(&random, b"not a net").unwrap();
        assert!(play(&cfg).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
