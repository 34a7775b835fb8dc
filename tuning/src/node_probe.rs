//! `shears-tune node-probe`: what datagen's node limit buys (issue 38, item 3).
//!
//! Datagen labels every position with the score of a search of `--soft-nodes` nodes (no new
//! iteration past it). A lower limit makes more positions an hour and noisier labels; a higher
//! one the reverse. This tool takes positions a trainer keeps from the validation games of a
//! data set, searches each from an empty hash at every limit asked for and at a much larger
//! reference limit, and reports for each limit: the nodes and time a search takes (so the
//! positions an hour it allows), and how far its labels are from the reference's in the
//! trainer's own terms, `sigmoid(score / 400)` (the part of the target the scores give).
//! It does not train a net: it measures the labels a net would be trained on.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use shears::Engine;
use shears::time::Limits;

use crate::nnue_data::{is_validation, skip_reason};
use crate::report::say;

pub struct Config {
    pub data: Vec<PathBuf>,
    pub positions: usize,
    /// Soft node limits to compare (each search's hard limit is 20 times its soft one).
    pub limits: Vec<u64>,
    /// The soft node limit of the reference labels.
    pub reference: u64,
    pub threads: usize,
    pub net: String,
}

/// One search's label and cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// Side to move's view, centipawns as datagen stores them.
    pub score: i32,
    pub best: Option<String>,
    pub nodes: u64,
    pub micros: u64,
}

/// The trainer's score target (`nnue_train`'s `SCALE` of 400).
fn target(score: i32) -> f64 {
    1.0 / (1.0 + (-f64::from(score) / f64::from(shears::eval::nnue::SCALE)).exp())
}

/// Every `step`-th trainable position of the validation games of `data`, up to `n`: spread
/// over the data rather than the first games' openings.
pub fn sample(data: &[PathBuf], n: usize, step: usize) -> Result<Vec<Chess>, String> {
    let mut out = Vec::new();
    let mut seen = 0usize;
    crate::store::for_each_game(data, |g| {
        if !is_validation(g) {
            return ControlFlow::Continue(());
        }
        for (pos, m, score) in g.positions() {
            if skip_reason(&pos, &m, score).is_none() {
                if seen.is_multiple_of(step.max(1)) {
                    out.push(pos);
                }
                seen += 1;
            }
        }
        if out.len() >= n {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    out.truncate(n);
    Ok(out)
}

/// Searches `pos` from an empty hash with soft limit `soft`.
pub fn label(engine: &mut Engine, pos: &Chess, soft: u64) -> Result<Label, String> {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    engine.new_game()?;
    engine.set_position(Some(&fen), &[])?;
    let t = Instant::now();
    let r = engine.search(Limits {
        soft_nodes: Some(soft),
        nodes: Some(soft.saturating_mul(20)),
        ..Limits::default()
    });
    Ok(Label {
        score: r.score,
        best: r.best_move,
        nodes: r.nodes,
        micros: t.elapsed().as_micros() as u64,
    })
}

/// Per limit: labels of every position (`[limit][position]`), the reference last.
fn label_all(cfg: &Config, positions: &[Chess]) -> Result<Vec<Vec<Label>>, String> {
    let soft: Vec<u64> = cfg.limits.iter().copied().chain([cfg.reference]).collect();
    let chunk = positions.len().div_ceil(cfg.threads.max(1)).max(1);
    let parts: Vec<Result<Vec<Vec<Label>>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(chunk)
            .map(|part| {
                let soft = &soft;
                scope.spawn(move || -> Result<Vec<Vec<Label>>, String> {
                    let mut engine = Engine::new();
                    engine.set_option("EvalFile", Some(&cfg.net))?;
                    let mut out = vec![Vec::with_capacity(part.len()); soft.len()];
                    for pos in part {
                        for (column, &s) in out.iter_mut().zip(soft) {
                            column.push(label(&mut engine, pos, s)?);
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a probe thread panicked".into()))
            })
            .collect()
    });
    let mut all = vec![Vec::with_capacity(positions.len()); soft.len()];
    for part in parts {
        for (column, labels) in all.iter_mut().zip(part?) {
            column.extend(labels);
        }
    }
    Ok(all)
}

/// How one limit's labels compare with the reference's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub mean_nodes: f64,
    pub mean_micros: f64,
    /// Root mean square of `target(score) - target(reference)`.
    pub rms_target: f64,
    /// Share of positions where the best move is the reference's.
    pub same_move: f64,
}

pub fn summarise(labels: &[Label], reference: &[Label]) -> Summary {
    let n = labels.len().min(reference.len()).max(1) as f64;
    let mut s = Summary {
        mean_nodes: 0.0,
        mean_micros: 0.0,
        rms_target: 0.0,
        same_move: 0.0,
    };
    for (l, r) in labels.iter().zip(reference) {
        s.mean_nodes += l.nodes as f64 / n;
        s.mean_micros += l.micros as f64 / n;
        s.rms_target += (target(l.score) - target(r.score)).powi(2) / n;
        s.same_move += f64::from(u8::from(l.best.is_some() && l.best == r.best)) / n;
    }
    s.rms_target = s.rms_target.sqrt();
    s
}

pub fn run(cfg: &Config) -> Result<(), String> {
    if cfg.limits.is_empty() {
        return Err("--limits needs at least one node limit".into());
    }
    let positions = sample(&cfg.data, cfg.positions, 37)?;
    if positions.is_empty() {
        return Err("no validation positions in the data".into());
    }
    say!(
        "node-probe: {} positions (every 37th trainable position of the validation games), {} threads, net {}; limits {:?}, reference {}",
        positions.len(),
        cfg.threads,
        cfg.net,
        cfg.limits,
        cfg.reference
    )?;
    let t = Instant::now();
    let all = label_all(cfg, &positions)?;
    let (reference, rest) = all.split_last().ok_or("no labels")?;
    say!(
        "soft nodes   mean nodes   ms/search   searches/h/thread   rms target error   same best move"
    )?;
    for (&soft, labels) in cfg
        .limits
        .iter()
        .zip(rest)
        .chain([(&cfg.reference, reference)])
    {
        let s = summarise(labels, reference);
        say!(
            "{soft:>10}   {:>10.0}   {:>9.2}   {:>17.0}   {:>16.4}   {:>13.1}%",
            s.mean_nodes,
            s.mean_micros / 1000.0,
            3.6e9 / s.mean_micros.max(1.0),
            s.rms_target,
            100.0 * s.same_move
        )?;
    }
    say!("{:.0} s", t.elapsed().as_secs_f64())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(score: i32, nodes: u64) -> Label {
        Label {
            score,
            best: None,
            nodes,
            micros: 1000,
        }
    }

    #[test]
    fn labels_equal_to_the_reference_have_no_error_and_others_do() {
        let mut reference = [l(0, 100), l(400, 100)];
        for r in &mut reference {
            r.best = Some("e2e4".into());
        }
        let same = summarise(&reference, &reference);
        assert_eq!(same.rms_target, 0.0);
        assert_eq!(same.same_move, 1.0);
        assert_eq!(same.mean_nodes, 100.0);
        // One label off by 400 cp at 0: sigmoid(1) - sigmoid(0) = 0.2311; rms over 2 = /sqrt 2.
        let off = summarise(&[l(400, 50), l(400, 50)], &reference);
        assert!((off.rms_target - 0.231_058_6 / 2f64.sqrt()).abs() < 1e-6);
        assert_eq!(off.mean_nodes, 50.0);
        assert_eq!(off.same_move, 0.0, "no move is not the reference's move");
    }

    #[test]
    fn a_larger_limit_searches_more_nodes_and_finds_the_mate() {
        // White mates in one (Qd8#); the labels are the side to move's view.
        let pos: Chess = "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut engine = Engine::new();
        let small = label(&mut engine, &pos, 50).unwrap();
        let big = label(&mut engine, &pos, 20_000).unwrap();
        assert!(big.nodes > small.nodes);
        assert!(big.score >= shears::score::MATE_BOUND, "{big:?}");
    }
}
