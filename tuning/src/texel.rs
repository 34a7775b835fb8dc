//! Texel tuning of the evaluation weights.
//!
//! Each position's evaluation is traced into its terms (the evaluation is linear in its
//! weights), so the model here is exactly the engine's. The weights minimise the mean squared
//! error between `sigmoid(K * eval / 400)` and a target mixing the game result with the
//! search score: `lambda * result + (1 - lambda) * sigmoid(K * score / 400)`. K is fitted to
//! the starting weights first; the optimiser is Adam on the full batch, split over threads,
//! with an optional L2 pull towards the starting weights. Every tenth position is held out:
//! the weights kept are those with the lowest loss on it (early stopping).

use std::fmt::Write as _;
use std::path::PathBuf;

use shakmaty::{CastlingMode, Chess, Position as _};
use shears::eval::{self, GROUPS, MAX_PHASE, S, Trace, WEIGHTS};

pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub epochs: usize,
    pub lr: f64,
    pub lambda: f64,
    pub threads: usize,
    pub limit: usize,
    /// L2 pull towards the starting weights (per weight, per position).
    pub reg: f64,
}

/// One position: its terms (White's counts), phase, endgame scale and target.
#[derive(Debug, Clone)]
pub struct Sample {
    pub start: u32,
    pub len: u16,
    pub phase: u8,
    pub scale: u8,
    pub result: f32,
    pub score: f32,
}

pub struct Dataset {
    pub samples: Vec<Sample>,
    pub terms: Vec<(u16, i16)>,
}

struct Collect(Vec<(u16, i16)>);

impl Trace for Collect {
    fn add(&mut self, term: usize, count: i32) {
        self.0.push((term as u16, count as i16));
    }
}

impl Dataset {
    pub fn new() -> Dataset {
        Dataset {
            samples: Vec::new(),
            terms: Vec::new(),
        }
    }

    /// Adds `fen | score | result` lines; returns how many were taken.
    pub fn add_text(&mut self, text: &str, limit: usize) -> usize {
        let mut taken = 0;
        for line in text.lines() {
            if self.samples.len() >= limit {
                break;
            }
            let mut parts = line.split('|').map(str::trim);
            let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Ok(score), Ok(result)) = (score.parse::<f32>(), result.parse::<f32>()) else {
                continue;
            };
            let Ok(fen) = shakmaty::fen::Fen::from_ascii(fen.as_bytes()) else {
                continue;
            };
            let Ok(pos) = fen.into_position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            self.add_position(&pos, score, result);
            taken += 1;
        }
        taken
    }

    pub fn add_position(&mut self, pos: &Chess, score: f32, result: f32) {
        let board = pos.board();
        let mut c = Collect(Vec::with_capacity(96));
        let (sum, phase) = eval::evaluate_terms(board, pos.turn(), &mut c);
        // Merge repeated terms.
        c.0.sort_unstable_by_key(|&(t, _)| t);
        let start = self.terms.len() as u32;
        for &(t, n) in &c.0 {
            let own = self.terms.len() as u32 > start;
            match self.terms.last_mut() {
                Some((lt, ln)) if own && *lt == t => *ln += n,
                _ => self.terms.push((t, n)),
            }
        }
        self.terms.retain_from(start as usize, |&(_, n)| n != 0);
        let len = (self.terms.len() as u32 - start) as u16;
        self.samples.push(Sample {
            start,
            len,
            phase: phase as u8,
            scale: eval::endgame_scale(board, sum.eg) as u8,
            result,
            score,
        });
    }
}

trait RetainFrom<T> {
    fn retain_from(&mut self, start: usize, keep: impl FnMut(&T) -> bool);
}

impl<T: Copy> RetainFrom<T> for Vec<T> {
    fn retain_from(&mut self, start: usize, mut keep: impl FnMut(&T) -> bool) {
        let mut w = start;
        for r in start..self.len() {
            let x = self[r];
            if keep(&x) {
                self[w] = x;
                w += 1;
            }
        }
        self.truncate(w);
    }
}

/// Weights as floats: `[mg0, eg0, mg1, eg1, ...]`.
pub fn to_floats(w: &[S]) -> Vec<f64> {
    w.iter()
        .flat_map(|s| [f64::from(s.mg), f64::from(s.eg)])
        .collect()
}

#[inline]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The model's evaluation of a sample, White's view, in centipawns.
#[inline]
fn model_eval(d: &Dataset, s: &Sample, w: &[f64]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(t, n) in &d.terms[s.start as usize..s.start as usize + s.len as usize] {
        mg += w[2 * t as usize] * f64::from(n);
        eg += w[2 * t as usize + 1] * f64::from(n);
    }
    let phase = f64::from(s.phase);
    let max = f64::from(MAX_PHASE);
    (mg * phase + eg * (max - phase) * f64::from(s.scale) / 64.0) / max
}

#[inline]
fn target(s: &Sample, k: f64, lambda: f64) -> f64 {
    lambda * f64::from(s.result) + (1.0 - lambda) * sigmoid(k * f64::from(s.score) / 400.0)
}

/// Mean squared error over `samples`.
pub fn loss(d: &Dataset, samples: &[Sample], w: &[f64], k: f64, lambda: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let e = sigmoid(k * model_eval(d, s, w) / 400.0) - target(s, k, lambda);
            e * e
        })
        .sum();
    sum / samples.len() as f64
}

/// Gradient of the loss over `samples` (not divided by their count).
fn gradient(d: &Dataset, samples: &[Sample], w: &[f64], k: f64, lambda: f64) -> Vec<f64> {
    let mut g = vec![0.0; w.len()];
    let max = f64::from(MAX_PHASE);
    for s in samples {
        let sig = sigmoid(k * model_eval(d, s, w) / 400.0);
        let common = 2.0 * (sig - target(s, k, lambda)) * sig * (1.0 - sig) * k / 400.0;
        let phase = f64::from(s.phase);
        let gm = common * phase / max;
        let ge = common * (max - phase) * f64::from(s.scale) / 64.0 / max;
        for &(t, n) in &d.terms[s.start as usize..s.start as usize + s.len as usize] {
            g[2 * t as usize] += gm * f64::from(n);
            g[2 * t as usize + 1] += ge * f64::from(n);
        }
    }
    g
}

fn parallel_gradient(
    d: &Dataset,
    samples: &[Sample],
    w: &[f64],
    k: f64,
    lambda: f64,
    threads: usize,
) -> Vec<f64> {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| scope.spawn(move || gradient(d, part, w, k, lambda)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| vec![0.0; w.len()]))
            .collect()
    });
    let mut g = vec![0.0; w.len()];
    for p in parts {
        for (a, b) in g.iter_mut().zip(p) {
            *a += b;
        }
    }
    let n = samples.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= n);
    g
}

/// The K that best fits the starting weights to the results.
pub fn fit_k(d: &Dataset, samples: &[Sample], w: &[f64], lambda: f64) -> f64 {
    let (mut lo, mut hi) = (0.2f64, 4.0f64);
    for _ in 0..40 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if loss(d, samples, w, m1, lambda) < loss(d, samples, w, m2, lambda) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    (lo + hi) / 2.0
}

/// Adam on the full batch. Returns the final weights.
pub fn optimise(
    d: &Dataset,
    train: &[Sample],
    start: &[f64],
    k: f64,
    cfg: &Config,
    mut report: impl FnMut(usize, &[f64]),
) -> Vec<f64> {
    let mut w = start.to_vec();
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    for epoch in 1..=cfg.epochs {
        let mut g = parallel_gradient(d, train, &w, k, cfg.lambda, cfg.threads);
        for i in 0..w.len() {
            g[i] += 2.0 * cfg.reg * (w[i] - start[i]);
        }
        for i in 0..w.len() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(epoch as i32));
            let vh = v[i] / (1.0 - b2.powi(epoch as i32));
            w[i] -= cfg.lr * mh / (vh.sqrt() + eps);
        }
        report(epoch, &w);
    }
    w
}

/// Rust source of `src/eval_weights.rs` for the weights `w`.
pub fn weights_source(w: &[f64]) -> String {
    let mut out = String::from(
        "//! Evaluation weights, generated by `shears-tune texel` (see tuning/README.md); the layout\n\
         //! of the terms is in `eval.rs`. Do not edit by hand: rerun the tuner.\n\n\
         use crate::eval::{NUM_TERMS, S, s};\n\n#[rustfmt::skip]\npub const WEIGHTS: [S; NUM_TERMS] = [\n",
    );
    for &(name, first, len) in GROUPS {
        let _ = writeln!(out, "    // {name}");
        for row in (first..first + len).collect::<Vec<_>>().chunks(8) {
            out.push_str("   ");
            for &i in row {
                let _ = write!(
                    out,
                    " s({}, {}),",
                    w[2 * i].round() as i32,
                    w[2 * i + 1].round() as i32
                );
            }
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

pub fn run(cfg: &Config) -> Result<(), String> {
    let mut data = Dataset::new();
    for path in &cfg.data {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let n = data.add_text(&text, cfg.limit);
        eprintln!("{}: {n} positions", path.display());
    }
    if data.samples.len() < 100 {
        return Err("too few positions to tune on".to_string());
    }
    // Every tenth position is held out to watch for over-fitting.
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, s) in data.samples.iter().enumerate() {
        if i % 10 == 9 {
            valid.push(s.clone());
        } else {
            train.push(s.clone());
        }
    }
    let start = to_floats(&WEIGHTS);
    let k = fit_k(&data, &train, &start, cfg.lambda);
    let l0 = loss(&data, &train, &start, k, cfg.lambda);
    let v0 = loss(&data, &valid, &start, k, cfg.lambda);
    eprintln!(
        "{} training, {} validation positions; K = {k:.4}; start loss {l0:.6} (validation {v0:.6})",
        train.len(),
        valid.len()
    );
    let every = (cfg.epochs / 20).max(1);
    let mut best = (v0, 0, start.clone());
    optimise(&data, &train, &start, k, cfg, |epoch, w| {
        if epoch % 10 == 0 || epoch == cfg.epochs {
            let v = loss(&data, &valid, w, k, cfg.lambda);
            if v < best.0 {
                best = (v, epoch, w.to_vec());
            }
            if epoch % every == 0 || epoch == cfg.epochs {
                eprintln!(
                    "epoch {epoch}: loss {:.6} validation {v:.6}",
                    loss(&data, &train, w, k, cfg.lambda)
                );
            }
        }
    });
    let (v, epoch, w) = best;
    eprintln!("kept the weights of epoch {epoch} (validation loss {v:.6})");
    std::fs::write(&cfg.out, weights_source(&w))
        .map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    eprintln!("wrote {}", cfg.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(lines: &str) -> Dataset {
        let mut d = Dataset::new();
        d.add_text(lines, usize::MAX);
        d
    }

    #[test]
    fn model_matches_the_engine_evaluation() {
        let fens = [
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4r1k1/1q3ppp/p7/1p6/3Q4/1P5P/P4PP1/4R1K1 w - - 0 1",
        ];
        let text: String = fens.iter().map(|f| format!("{f} | 0 | 0.5\n")).collect();
        let d = dataset(&text);
        assert_eq!(d.samples.len(), 3);
        let w = to_floats(&WEIGHTS);
        for (s, fen) in d.samples.iter().zip(fens) {
            let pos = shears::position::Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let engine = eval::evaluate(&pos);
            let white = if pos.turn() == shakmaty::Color::White {
                engine
            } else {
                -engine
            };
            let model = model_eval(&d, s, &w);
            assert!(
                (model - f64::from(white)).abs() <= 1.5,
                "{fen}: {model} vs {white}"
            );
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let text = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9 | 30 | 1\n\
                    4r1k1/1q3ppp/p7/1p6/3Q4/1P5P/P4PP1/4R1K1 w - - 0 1 | -50 | 0\n";
        let d = dataset(text);
        let w = to_floats(&WEIGHTS);
        let g = gradient(&d, &d.samples, &w, 1.2, 0.7);
        let n = d.samples.len() as f64;
        // A material weight and a PST weight, midgame and endgame.
        for i in [
            2 * eval::MATERIAL + 2,
            2 * eval::MATERIAL + 3,
            2 * (eval::PST + 64 + 18),
        ] {
            let h = 1e-3;
            let (mut up, mut down) = (w.clone(), w.clone());
            up[i] += h;
            down[i] -= h;
            let numeric = (loss(&d, &d.samples, &up, 1.2, 0.7)
                - loss(&d, &d.samples, &down, 1.2, 0.7))
                / (2.0 * h);
            assert!(
                (g[i] / n - numeric).abs() < 1e-9,
                "term {i}: {} vs {numeric}",
                g[i] / n
            );
        }
    }

    #[test]
    fn optimiser_fits_a_consistent_dataset() {
        // A pawn up wins, a pawn down loses, equal draws: the loss must fall well below
        // where the starting weights put it.
        let mut text = String::new();
        for _ in 0..50 {
            text.push_str("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 | 0 | 1\n");
            text.push_str("4k3/4p3/8/8/8/8/8/4K3 w - - 0 1 | 0 | 0\n");
            text.push_str("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1 | 0 | 0.5\n");
        }
        let d = dataset(&text);
        let start = to_floats(&WEIGHTS);
        let cfg = Config {
            data: vec![],
            out: PathBuf::new(),
            epochs: 200,
            lr: 2.0,
            lambda: 1.0,
            threads: 2,
            limit: usize::MAX,
            reg: 0.0,
        };
        let before = loss(&d, &d.samples, &start, 1.0, 1.0);
        let w = optimise(&d, &d.samples, &start, 1.0, &cfg, |_, _| {});
        let after = loss(&d, &d.samples, &w, 1.0, 1.0);
        assert!(after < before * 0.5, "{before} -> {after}");
    }

    #[test]
    fn generated_source_has_every_term() {
        let src = weights_source(&to_floats(&WEIGHTS));
        assert_eq!(src.matches("s(").count(), eval::NUM_TERMS);
        assert_eq!(
            GROUPS.iter().map(|g| g.2).sum::<usize>(),
            eval::NUM_TERMS,
            "groups cover the vector"
        );
    }
}
