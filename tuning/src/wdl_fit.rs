//! `shears-tune wdl-fit`: fits the win/draw/loss model that `UCI_ShowWDL` prints, on
//! self-play games (viriformat), as Stockfish does for its own: with `x` the search score
//! (centipawns, side to move) and `m` the material on the board (pawn 1, minor 3, rook 5,
//! queen 9, both sides, clamped to [17, 78], divided by 58),
//!
//! ```text
//! a(m) = a0 m^3 + a1 m^2 + a2 m + a3        b(m) = b0 m^3 + b1 m^2 + b2 m + b3
//! P(win) = 1 / (1 + exp((a - x) / b))       P(loss) = 1 / (1 + exp((a + x) / b))
//! ```
//!
//! `a` is the score that wins half the games, `b` how fast the chance grows with the score.
//! The fit maximises the likelihood of the games' results with Adam over positions binned by
//! (material, score); it writes `src/eval/wdl_model.rs` and the bins
//! (`tests/data/wdl_bins.csv`), against which the engine's tests check the model.
//!
//! The model belongs to one net: the one whose games it is fitted on. `--net` (the default net
//! unless given) must be the net every run of the data names (its run info's `net_sha256`);
//! its checksum goes into the model file, and the engine's tests fail when the built-in net is
//! another. The engine prints centipawns divided by `a(1)`, the score that wins half the games
//! at 58 points of material, times 100 (`shears::eval::wdl::to_uci_cp`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use shakmaty::{Color, Position as _};

use shears::eval::wdl::win_loss;

use crate::viriformat;

/// Score bins of this many centipawns.
const SCORE_BIN: i32 = 20;
/// Scores beyond this are left out (they say little about the model's middle).
const SCORE_MAX: i32 = 1000;

pub struct Config {
    pub data: Vec<PathBuf>,
    /// The net the games were played by (its checksum goes into the model file).
    pub net: PathBuf,
    pub out: PathBuf,
    pub bins: PathBuf,
    pub iterations: usize,
}

/// (material, score bin) -> [losses, draws, wins], side to move's view.
type Bins = BTreeMap<(i32, i32), [u64; 3]>;

fn collect(dirs: &[PathBuf]) -> Result<Bins, String> {
    let mut bins = Bins::new();
    crate::store::for_each_game(dirs, |g| {
        for (pos, _, score) in g.positions() {
            let white = pos.turn() == Color::White;
            let x = if white {
                i32::from(score)
            } else {
                -i32::from(score)
            };
            if x.abs() > SCORE_MAX || pos.is_check() {
                continue;
            }
            let result = match (g.result, white) {
                (viriformat::DRAW, _) => 1,
                (viriformat::WHITE_WIN, true) | (viriformat::BLACK_WIN, false) => 2,
                _ => 0,
            };
            let m = shears::eval::wdl::material(&pos).clamp(17, 78);
            let bin = (x + SCORE_BIN / 2).div_euclid(SCORE_BIN) * SCORE_BIN;
            bins.entry((m, bin)).or_insert([0; 3])[result] += 1;
        }
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(bins)
}

fn neg_log_likelihood(p: &[f64; 8], bins: &Bins) -> f64 {
    let mut nll = 0.0;
    for (&(m, x), c) in bins {
        let (w, l) = win_loss(p, m, f64::from(x));
        let d = (1.0 - w - l).max(1e-9);
        nll -=
            c[0] as f64 * l.max(1e-9).ln() + c[1] as f64 * d.ln() + c[2] as f64 * w.max(1e-9).ln();
    }
    nll
}

/// Maximum likelihood by Adam with numerical gradients (8 parameters, a few thousand bins).
pub fn fit(bins: &Bins, iterations: usize) -> [f64; 8] {
    let total: f64 = bins.values().map(|c| c.iter().sum::<u64>() as f64).sum();
    let mut p = [0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 0.0, 80.0];
    let (mut m1, mut m2) = ([0.0f64; 8], [0.0f64; 8]);
    let lr = 2.0;
    for t in 1..=iterations {
        let mut g = [0.0; 8];
        for i in 0..8 {
            let h = 1e-3;
            let mut up = p;
            up[i] += h;
            let mut down = p;
            down[i] -= h;
            g[i] = (neg_log_likelihood(&up, bins) - neg_log_likelihood(&down, bins))
                / (2.0 * h)
                / total;
        }
        for i in 0..8 {
            m1[i] = 0.9 * m1[i] + 0.1 * g[i];
            m2[i] = 0.999 * m2[i] + 0.001 * g[i] * g[i];
            let mh = m1[i] / (1.0 - 0.9f64.powi(t as i32));
            let vh = m2[i] / (1.0 - 0.999f64.powi(t as i32));
            p[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
    }
    p
}

/// The checksum of `net`, after checking that every run of the data was played by it.
fn net_of_the_data(cfg: &Config) -> Result<String, String> {
    let bytes = std::fs::read(&cfg.net).map_err(|e| format!("{}: {e}", cfg.net.display()))?;
    let sha = crate::gamedata::sha256_hex(&bytes);
    for dir in &cfg.data {
        let runs = crate::store::Manifest::runs_of(dir)?;
        if runs.is_empty() {
            return Err(format!(
                "{}: no run info says which net played these games",
                dir.display()
            ));
        }
        if let Some(r) = runs.iter().find(|r| r.net_sha256 != sha) {
            return Err(format!(
                "{}: run {} was played by net {} (sha256 {}), not {} ({sha}): the model must be fitted on the net's own games",
                dir.display(),
                r.seed,
                r.net,
                r.net_sha256,
                cfg.net.display()
            ));
        }
    }
    Ok(sha)
}

pub fn run(cfg: &Config) -> Result<(), String> {
    let net_sha256 = net_of_the_data(cfg)?;
    let bins = collect(&cfg.data)?;
    let positions: u64 = bins.values().map(|c| c.iter().sum::<u64>()).sum();
    if positions == 0 {
        return Err("no positions".into());
    }
    eprintln!("wdl-fit: {positions} positions in {} bins", bins.len());
    let p = fit(&bins, cfg.iterations);
    let cubic = |c: &[f64]| {
        format!(
            "{:.3} m^3 + {:.3} m^2 + {:.3} m + {:.3}",
            c[0], c[1], c[2], c[3]
        )
    };
    eprintln!(
        "wdl-fit: a = {}; b = {}; mean log loss {:.5}",
        cubic(&p[..4]),
        cubic(&p[4..]),
        neg_log_likelihood(&p, &bins) / positions as f64
    );
    let data: Vec<String> = cfg.data.iter().map(|d| d.display().to_string()).collect();
    let coefficients: String = p.iter().map(|c| format!("    {c:.6},\n")).collect();
    let source = format!(
        "//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written\n\
         //! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from {positions} positions of\n\
         //! {}.\n\
         \n\
         /// sha256 of the net whose games the model is fitted on (the engine's tests check that\n\
         /// it is the built-in net's).\n\
         pub const NET_SHA256: &str = \"{net_sha256}\";\n\
         \n\
         /// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.\n\
         pub(crate) const WDL_PARAMS: [f64; 8] = [\n{coefficients}];\n",
        data.join(", "),
    );
    std::fs::write(&cfg.out, source).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let mut csv = String::from("material,score,losses,draws,wins\n");
    for (&(m, x), c) in &bins {
        csv.push_str(&format!("{m},{x},{},{},{}\n", c[0], c[1], c[2]));
    }
    std::fs::write(&cfg.bins, csv).map_err(|e| format!("{}: {e}", cfg.bins.display()))?;
    eprintln!(
        "wdl-fit: wrote {} and {}",
        cfg.out.display(),
        cfg.bins.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_known_model() {
        // Results drawn from a known model's expected counts: the fit must find a model
        // that predicts the same chances.
        let truth = [0.0, 0.0, 60.0, 120.0, 0.0, 0.0, -20.0, 90.0];
        let mut bins = Bins::new();
        for m in (20..=78).step_by(6) {
            for x in (-600..=600).step_by(SCORE_BIN as usize) {
                let (w, l) = win_loss(&truth, m, f64::from(x));
                let n = 1000.0;
                bins.insert(
                    (m, x),
                    [
                        (l * n).round() as u64,
                        ((1.0 - w - l) * n).round() as u64,
                        (w * n).round() as u64,
                    ],
                );
            }
        }
        let p = fit(&bins, 3000);
        for m in [20, 40, 60, 78] {
            for x in [-300.0, -100.0, 0.0, 100.0, 300.0] {
                let (w0, l0) = win_loss(&truth, m, x);
                let (w1, l1) = win_loss(&p, m, x);
                assert!(
                    (w0 - w1).abs() < 0.03 && (l0 - l1).abs() < 0.03,
                    "m {m} x {x}"
                );
            }
        }
    }
}
