//! `shears-tune eval-scale`: does a centipawn of a net mean what a centipawn of another net
//! (by default the built-in one) means?
//!
//! Every search margin (futility, razoring, ProbCut, aspiration windows, ...) is a number of
//! centipawns tuned against the default net's scale. A net trained on other scores may grow or
//! shrink that scale (net 5 fine-tuned on generation 4 did: K 290 against 264). This tool takes
//! the positions a trainer keeps from the validation games of a data set (one game in 20,
//! chosen by a hash of the game as `shears-tune nnue` chooses them: the nets have not seen
//! them), evaluates each statically with both nets, and fits for each the `K` of `expected
//! score = 1 / (1 + exp(-eval / K))` that best predicts the game results. Equal `K` means equal
//! winning chances at equal scores. It also prints the least-squares slope of the net's
//! evaluation on the base net's, and the same fit for the search scores stored in the data
//! (what the nets were trained to reproduce).

use std::ops::ControlFlow;
use std::path::PathBuf;

use shakmaty::{Chess, Position as _};

use shears::eval::nnue::{Network, load_file};

use crate::nnue_data::skip_reason;
use crate::report::say;

pub struct Config {
    pub data: Vec<PathBuf>,
    pub net: PathBuf,
    /// The net it is compared with.
    pub base_net: PathBuf,
    pub limit: usize,
}

/// One validation position, every number from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub base: f64,
    pub net: f64,
    pub search: f64,
    /// 0 loss, 0.5 draw, 1 win.
    pub result: f64,
}

/// Mean cross-entropy of the results against `sigmoid(x / k)`.
fn cross_entropy(points: &[Point], x: impl Fn(&Point) -> f64, k: f64) -> f64 {
    let mut sum = 0.0;
    for p in points {
        let q = (1.0 / (1.0 + (-x(p) / k).exp())).clamp(1e-9, 1.0 - 1e-9);
        sum -= p.result * q.ln() + (1.0 - p.result) * (1.0 - q).ln();
    }
    sum / points.len().max(1) as f64
}

/// The `K` in [20, 2000] that minimises the cross-entropy (golden-section search: the loss is
/// unimodal in `K` for any data with both wins and losses).
pub fn fit_k(points: &[Point], x: impl Fn(&Point) -> f64 + Copy) -> f64 {
    let (mut lo, mut hi) = (20.0f64, 2000.0f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if cross_entropy(points, x, a) < cross_entropy(points, x, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Least-squares slope through the origin of `y` on `x`.
pub fn slope(points: &[Point], x: impl Fn(&Point) -> f64, y: impl Fn(&Point) -> f64) -> f64 {
    let (mut xy, mut xx) = (0.0, 0.0);
    for p in points {
        xy += x(p) * y(p);
        xx += x(p) * x(p);
    }
    if xx == 0.0 { 0.0 } else { xy / xx }
}

fn point(nets: [&Network; 2], pos: &Chess, white_score: i16, white_result: u8) -> Point {
    let white = pos.turn().is_white();
    let result = f64::from(white_result) / 2.0;
    let [net, base] = nets;
    Point {
        base: f64::from(base.evaluate(pos)),
        net: f64::from(net.evaluate(pos)),
        search: if white {
            f64::from(white_score)
        } else {
            -f64::from(white_score)
        },
        result: if white { result } else { 1.0 - result },
    }
}

pub fn collect(dirs: &[PathBuf], nets: [&Network; 2], limit: usize) -> Result<Vec<Point>, String> {
    let mut points = Vec::new();
    crate::store::for_each_game(dirs, |g| {
        // The trainer's validation games (see `nnue_data::is_validation`).
        if !crate::nnue_data::is_validation(g) {
            return ControlFlow::Continue(());
        }
        for (pos, m, score) in g.positions() {
            if skip_reason(&pos, &m, score).is_none() {
                points.push(point(nets, &pos, score, g.result));
            }
        }
        if points.len() >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(points)
}

fn expected(k: f64, cp: f64) -> f64 {
    100.0 / (1.0 + (-cp / k).exp())
}

pub fn run(cfg: &Config) -> Result<(), String> {
    let (net, base) = (load_file(&cfg.net)?, load_file(&cfg.base_net)?);
    let points = collect(&cfg.data, [&net, &base], cfg.limit)?;
    say!(
        "net {}, base net {}",
        cfg.net.display(),
        cfg.base_net.display()
    )?;
    if points.is_empty() {
        return Err("no validation positions".into());
    }
    let wins = points.iter().filter(|p| p.result == 1.0).count();
    let losses = points.iter().filter(|p| p.result == 0.0).count();
    say!(
        "{} validation positions ({wins} won, {losses} lost, {} drawn for the side to move)",
        points.len(),
        points.len() - wins - losses
    )?;
    say!("evaluation        K   cross-entropy  expected score at +100 / +300")?;
    type Column = fn(&Point) -> f64;
    let rows: [(&str, Column); 3] = [
        ("base net", |p| p.base),
        ("net", |p| p.net),
        ("search (data)", |p| p.search),
    ];
    let mut k_of = [0.0; 3];
    for ((name, x), k_out) in rows.into_iter().zip(&mut k_of) {
        let k = fit_k(&points, x);
        *k_out = k;
        say!(
            "{name:<14} {k:6.1}   {:.5}        {:.1}% / {:.1}%",
            cross_entropy(&points, x, k),
            expected(k, 100.0),
            expected(k, 300.0)
        )?;
    }
    say!(
        "slope of the net on the base net: {:.3}; on the search scores: {:.3}",
        slope(&points, |p| p.base, |p| p.net),
        slope(&points, |p| p.search, |p| p.net)
    )?;
    // What `shears-tune nnue --output-scale` needs to give the net the base net's K: the search
    // margins were tuned on the base net's scale.
    say!(
        "the net matches the base net's K with its output layer times {:.4} (--output-scale)",
        k_of[0] / k_of[1]
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn synthetic(k: f64) -> Vec<Point> {
        // Results drawn so that the win frequency at each score follows sigmoid(x / k): at
        // each score, 1000 positions, the first round(1000 q) of them won.
        let mut points = Vec::new();
        for i in -20..=20 {
            let x = f64::from(i) * 50.0;
            let q = 1.0 / (1.0 + (-x / k).exp());
            let won = (q * 1000.0).round() as usize;
            for j in 0..1000 {
                points.push(Point {
                    base: x,
                    net: 2.0 * x,
                    search: x,
                    result: if j < won { 1.0 } else { 0.0 },
                });
            }
        }
        points
    }

    #[test]
    fn fit_k_recovers_the_scale_of_the_data() {
        let points = synthetic(250.0);
        let k = fit_k(&points, |p| p.base);
        assert!((k - 250.0).abs() < 3.0, "K {k}");
        // The net's evaluation is twice as large: its K is twice as large too.
        let k_net = fit_k(&points, |p| p.net);
        assert!((k_net - 500.0).abs() < 6.0, "K {k_net}");
        assert!((slope(&points, |p| p.base, |p| p.net) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn points_take_the_side_to_moves_view() {
        let net = shears::eval::nnue::Network::from_bytes(
            &std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../nets/default.nnue")).unwrap(),
        )
        .unwrap();
        // Black to move, a queen up for Black; White's score -900, Black won (result 0).
        let fen = "4k3/8/8/8/8/8/q7/4K3 b - - 0 1";
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let p = point([&net, &net], &pos, -900, 0);
        assert_eq!(p.search, 900.0);
        assert_eq!(p.result, 1.0);
        assert!(p.net > 300.0, "net {}", p.net);
        assert_eq!(p.base, p.net);
    }
}
