//! What a score means to a user: the chances of a win, a draw and a loss (`UCI_ShowWDL`), from a
//! model of Stockfish's form fitted on the built-in net's own games by `shears-tune wdl-fit`
//! (`tuning/src/wdl_fit.rs`), and the centipawns printed to a GUI, normalised by the same model.
//!
//! The search keeps the net's scale; what `info score cp` and `eval` print is that score divided
//! by the model's `a(1)` (the score that wins half the games at 58 points of material, pawn 1,
//! minor 3, rook 5, queen 9) times 100: a printed +100 is a 50% chance to win at that material,
//! Stockfish's convention since 15.1. Mate scores and tablebase scores print unchanged. The model
//! names the net it belongs to (`NET_SHA256`); a test fails when the built-in net is another, so a
//! promoted net needs `wdl-fit` on its own games.

use shakmaty::{Chess, Position as _};

use crate::score::{MAX_PLY, is_mate_score, mate_moves};
use crate::tb::TB_WIN;

#[path = "wdl_model.rs"]
mod model;

/// sha256 of the net whose games the model was fitted on (the built-in net's, tests check).
pub use model::NET_SHA256 as MODEL_NET_SHA256;

/// Material at which a printed +100 wins half the games (the model's `m = 1`).
pub const NORMALISE_MATERIAL: i32 = 58;

/// The search score that wins half the games at [`NORMALISE_MATERIAL`]: the model's `a(1)`.
pub fn pawn_value() -> f64 {
    let p = &model::WDL_PARAMS;
    p[0] + p[1] + p[2] + p[3]
}

/// A score is beyond every evaluation: a mate or a tablebase result (printed as it is).
fn beyond_eval(score: i32) -> bool {
    is_mate_score(score) || score.abs() >= TB_WIN - MAX_PLY as i32
}

/// The centipawns a GUI is shown for a search score: +100 is a 50% chance to win at
/// [`NORMALISE_MATERIAL`]. Mate and tablebase scores are returned unchanged.
pub fn to_uci_cp(score: i32) -> i32 {
    if beyond_eval(score) {
        return score;
    }
    (f64::from(score) * 100.0 / pawn_value()).round() as i32
}

/// Material as the model counts it: pawn 1, knight and bishop 3, rook 5, queen 9.
pub fn material(pos: &Chess) -> i32 {
    let b = pos.board();
    (b.pawns().count() + 3 * (b.knights().count() + b.bishops().count())) as i32
        + 5 * b.rooks().count() as i32
        + 9 * b.queens().count() as i32
}

/// The model with coefficients `p` (`a(m)`'s, highest power first, then `b(m)`'s): the
/// chances of a win and of a loss at `score` with `material` on the board. The fitter
/// (`shears-tune wdl-fit`) evaluates the same function.
pub fn win_loss(p: &[f64; 8], material: i32, score: f64) -> (f64, f64) {
    let m = f64::from(material.clamp(17, 78)) / 58.0;
    let a = ((p[0] * m + p[1]) * m + p[2]) * m + p[3];
    let b = (((p[4] * m + p[5]) * m + p[6]) * m + p[7]).max(1.0);
    let w = 1.0 / (1.0 + ((a - score) / b).exp());
    let l = 1.0 / (1.0 + ((a + score) / b).exp());
    (w, l)
}

/// Chances of a win, a draw and a loss for the side the score is for, in per mille (summing
/// to 1000), with `material` on the board.
pub fn wdl(score: i32, material: i32) -> [u32; 3] {
    if beyond_eval(score) {
        let win = mate_moves(score).map_or(score > 0, |m| m > 0);
        return if win { [1000, 0, 0] } else { [0, 0, 1000] };
    }
    let (w, l) = win_loss(&model::WDL_PARAMS, material, f64::from(score));
    let w = (1000.0 * w).round() as u32;
    let l = (1000.0 * l).round() as u32;
    let l = l.min(1000 - w);
    [w, 1000 - w - l, l]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_sum_to_a_thousand_and_grow_with_the_score() {
        for material in [4, 17, 30, 45, 58, 78, 90] {
            let mut last = [0, 0, 1000];
            for score in (-3000..=3000).step_by(7) {
                let [w, d, l] = wdl(score, material);
                assert_eq!(w + d + l, 1000, "{score} {material}");
                assert!(w >= last[0] && l <= last[2], "{score} {material}");
                last = [w, d, l];
            }
            assert_eq!(wdl(0, material)[0], wdl(0, material)[2], "symmetric at 0");
        }
        assert_eq!(wdl(crate::score::mate_in(5), 40), [1000, 0, 0]);
        assert_eq!(wdl(crate::score::mated_in(4), 40), [0, 0, 1000]);
        assert_eq!(wdl(TB_WIN - 3, 10), [1000, 0, 0]);
    }

    #[test]
    fn a_printed_hundred_wins_half_the_games_at_the_reference_material() {
        let a = pawn_value();
        assert!((100.0..250.0).contains(&a), "a(1) = {a}");
        let internal = a.round() as i32;
        assert_eq!(to_uci_cp(internal), 100);
        assert_eq!(to_uci_cp(-internal), -100);
        assert_eq!(to_uci_cp(0), 0);
        let [w, _, l] = wdl(internal, NORMALISE_MATERIAL);
        assert!((495..=505).contains(&w), "{w}");
        assert!(l < w, "{l}");
        // Monotone, and beyond-eval scores untouched.
        let mut last = i32::MIN;
        for s in (-3000..=3000).step_by(13) {
            assert!(to_uci_cp(s) >= last);
            last = to_uci_cp(s);
        }
        for s in [
            TB_WIN - 1,
            1 - TB_WIN,
            crate::score::mate_in(3),
            crate::score::mated_in(2),
        ] {
            assert_eq!(to_uci_cp(s), s);
        }
    }

    /// The model is fitted on the built-in net's games: a promoted net needs
    /// `shears-tune wdl-fit --data data/genN` on its own games (tuning/src/wdl_fit.rs).
    #[test]
    fn the_shipped_model_belongs_to_the_shipped_net() {
        use sha2::Digest as _;
        let net = include_bytes!("../../nets/default.nnue");
        let sha: String = sha2::Sha256::digest(net)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            sha,
            model::NET_SHA256,
            "src/eval/wdl_model.rs was fitted on another net's games: refit it with `shears-tune wdl-fit`"
        );
    }

    /// The model against the self-play data it was fitted on (`tests/data/wdl_bins.csv`), in
    /// groups of 15 material points and 100 cp with at least 400 positions: the win and loss
    /// rates it predicts are off by 0.03 or less on average (weighted by positions; 0.015
    /// measured for the fit on net 5's games, 0.018 for net 2's, 0.040 for the first fit on the
    /// hand-written evaluation's) and by less than 0.15 in every group (0.075 measured; net 2's
    /// fit 0.109, with little material and scores near +-850; the first fit's 0.289 would fail).
    #[test]
    fn the_model_reproduces_the_win_rates_of_its_data() {
        let text = include_str!("../../tests/data/wdl_bins.csv");
        // (material group, score group of 100 cp) -> observed [l, d, w] and predicted sums.
        let mut groups: std::collections::BTreeMap<(i32, i32), ([f64; 3], [f64; 3])> =
            Default::default();
        for line in text.lines().skip(1) {
            let f: Vec<i64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            let (m, x) = (f[0] as i32, f[1] as i32);
            let n = (f[2] + f[3] + f[4]) as f64;
            let [w, d, l] = wdl(x, m);
            let g = groups.entry((m / 15, x.div_euclid(100))).or_default();
            for k in 0..3 {
                g.0[k] += f[2 + k] as f64;
            }
            g.1[0] += n * f64::from(l) / 1000.0;
            g.1[1] += n * f64::from(d) / 1000.0;
            g.1[2] += n * f64::from(w) / 1000.0;
        }
        let mut checked = 0;
        let (mut error, mut weight) = (0.0, 0.0);
        for (key, (obs, pred)) in &groups {
            let n: f64 = obs.iter().sum();
            if n < 400.0 {
                continue;
            }
            for k in [0, 2] {
                let (o, p) = (obs[k] / n, pred[k] / n);
                assert!(
                    (o - p).abs() < 0.15,
                    "group {key:?}: observed {o:.3} predicted {p:.3}"
                );
                error += n * (o - p).abs();
                weight += n;
            }
            checked += 1;
        }
        assert!(checked >= 20, "{checked} groups");
        assert!(error / weight <= 0.03, "mean error {}", error / weight);
    }
}
