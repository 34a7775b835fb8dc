//! `shears-tune nnue`: trains the engine's network, `(768 K -> H) x 2 -> B` with SCReLU, B
//! output buckets by piece count and K king buckets (`--inputs`: `plain` and `mirrored` have
//! one, `kings4` four), on the CPU with every core, from viriformat self-play games.
//!
//! - Loss: squared error in sigmoid space, `(sigmoid(out) - target)^2`, where the network's
//!   output `out` is in units of `SCALE` (400) centipawns and the target blends the game
//!   result with the search score: `wdl * result + (1 - wdl) * sigmoid(score / 400)`.
//!   `--loss-power P` trains on `|sigmoid(out) - target|^P` instead (2 by default, the squared
//!   error); the losses reported stay the squared error, so runs of any power compare.
//! - AdamW (decoupled weight decay), a learning rate that falls by cosine from `--lr` to
//!   `--lr * --lr-end` over the run, batches split over `--threads` threads.
//! - After every step the weights are clipped to `[-WEIGHT_CLIP, WEIGHT_CLIP]`, so the
//!   quantised net (`QA` 255 for the feature layer, `QB` 64 for the output) stays in range.
//! - Augmentation (`--mirror`, default `all`): every epoch each training position is used
//!   mirrored left to right with chance 1/2 (`exact`: only those where neither side may castle,
//!   the exact symmetry). It lowered the validation loss by 5% on gen0 (docs/nnue.md). The
//!   mirrored layouts (`mirrored`, `kings4`) see both alike, so there it is off.
//! - Factoriser (`--factoriser`, layouts of more than one king bucket): while training, every
//!   feature also adds a row shared by all king buckets, so the buckets learn what they have
//!   in common from every position; the net written holds each bucket's row plus the shared
//!   row, the shape a net trained without it has.
//! - One game in twenty is held out (whole games, so no position leaks into both); the
//!   validation loss is measured after every epoch.
//! - Checkpoints (`DIR/checkpoint.bin`: weights and optimiser state) after every epoch; a run
//!   with the same `--out` resumes from it. The quantised net of every epoch is written as
//!   `DIR/epoch-N.nnue`, the best by validation loss as `DIR/best.nnue`; `DIR/loss.csv` and
//!   `DIR/loss.png` hold the loss curves.
//!
//! Written for this engine from the published descriptions of the method (bullet, Carp,
//! Viridithas' notes); no code of theirs.

use std::io::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use shakmaty::{Chess, Color, Position as _};
use shears::eval::nnue::{self, Layout, Network, QA, QB, SCALE, WEIGHT_CLIP};

use crate::nnue_data::skip_reason;
use crate::recipe::{Pinned, Recipe};
#[cfg(test)]
use crate::viriformat;

/// Most pieces on a board: features per perspective.
const MAX_FEATURES: usize = 32;

/// One training position: the active features of the side to move's view and of the other
/// side's, the search score and the game result, both from the side to move's view.
#[derive(Clone, Copy)]
pub struct Sample {
    us: [u16; MAX_FEATURES],
    them: [u16; MAX_FEATURES],
    count: u8,
    /// Centipawns, side to move's view.
    score: i16,
    /// 0 loss, 1 draw, 2 win for the side to move.
    result: u8,
    /// Neither side may castle: the position mirrored left to right (files a and h swapped) is
    /// the same position for the rules, with the same score and result.
    no_castling: bool,
}

impl Sample {
    pub fn new(pos: &Chess, white_score: i16, white_result: u8, layout: Layout) -> Sample {
        let stm = pos.turn();
        let mut s = Sample {
            us: [0; MAX_FEATURES],
            them: [0; MAX_FEATURES],
            count: 0,
            score: if stm == Color::White {
                white_score
            } else {
                white_score.saturating_neg()
            },
            result: if stm == Color::White {
                white_result
            } else {
                2 - white_result
            },
            no_castling: !pos.castles().any(),
        };
        for (i, (a, b)) in nnue::features(pos, stm, layout)
            .zip(nnue::features(pos, !stm, layout))
            .take(MAX_FEATURES)
            .enumerate()
        {
            s.us[i] = a as u16;
            s.them[i] = b as u16;
            s.count = i as u8 + 1;
        }
        s
    }

    /// Swaps files a and h, b and g, ... of every feature (the file is a feature's low three
    /// bits); twice is the identity.
    fn mirror_files(&mut self) {
        for f in self.us.iter_mut().chain(self.them.iter_mut()) {
            *f ^= 7;
        }
    }

    fn target(&self, wdl: f32) -> f32 {
        let result = f32::from(self.result) / 2.0;
        let score = sigmoid(f32::from(self.score) / SCALE as f32);
        wdl * result + (1.0 - wdl) * score
    }
}

/// Rows of input weights of a model of `layout`, with shared rows or not.
fn rows_of(layout: Layout, factorised: bool) -> usize {
    layout.inputs() + if factorised { nnue::INPUTS } else { 0 }
}

/// The rows of input weights that `features` add up: their own, then, when the model is
/// factorised (`shared`: its first shared row), their shared rows. The shared rows come in a
/// pass of their own, so that a model without them runs the loop it always ran.
#[inline(always)]
fn feature_rows(features: &[u16], shared: Option<usize>) -> impl Iterator<Item = usize> + '_ {
    let own = features.iter().map(|&f| usize::from(f));
    let shared = shared.into_iter().flat_map(move |s| {
        features
            .iter()
            .map(move |&f| s + usize::from(f) % nnue::INPUTS)
    });
    own.chain(shared)
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Which training positions a pass may use mirrored left to right (each with chance 1/2,
/// drawn again every epoch): none, those with no castling rights (an exact symmetry), or all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirror {
    Off,
    Exact,
    All,
}

impl std::str::FromStr for Mirror {
    type Err = String;
    fn from_str(s: &str) -> Result<Mirror, String> {
        match s {
            "off" => Ok(Mirror::Off),
            "exact" => Ok(Mirror::Exact),
            "all" => Ok(Mirror::All),
            _ => Err(format!("--mirror: {s}: not off, exact or all")),
        }
    }
}

impl Mirror {
    /// Whether a pass may use `s` mirrored.
    fn allows(self, s: &Sample) -> bool {
        match self {
            Mirror::Off => false,
            Mirror::Exact => s.no_castling,
            Mirror::All => true,
        }
    }
}

/// Mirrors each allowed sample with chance 1/2 (from whatever state it is in, so the result is
/// a fresh fair draw every call).
fn remirror(samples: &mut [Sample], mirror: Mirror, rng: &mut StdRng) {
    if mirror == Mirror::Off {
        return;
    }
    for s in samples {
        if mirror.allows(s) && rng.random_bool(0.5) {
            s.mirror_files();
        }
    }
}

/// Puts `samples` in the order, and each in the mirroring, that `epochs` rounds of
/// `shuffle` then `remirror` with `rng` leave them in, drawing the same numbers from `rng`.
/// A resumed run replays the epochs already done this way. Done on the samples themselves,
/// each round moves every sample at random across memory (about 37 s an epoch at 64 M
/// positions); here the rounds shuffle 32-bit indices, and the samples move once.
fn replay_epochs(samples: &mut [Sample], epochs: usize, mirror: Mirror, rng: &mut StdRng) {
    let n = samples.len();
    if epochs == 0 || u32::try_from(n).is_err() {
        for _ in 0..epochs {
            samples.shuffle(rng);
            remirror(samples, mirror, rng);
        }
        return;
    }
    // `order[j]` is the first index of the sample that ends at `j`; `flip[i]`, whether the
    // sample first at `i` ends mirrored. `shuffle` draws the same numbers for any element type.
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut flip = vec![false; n];
    let may_flip: Vec<bool> = samples.iter().map(|s| mirror.allows(s)).collect();
    for _ in 0..epochs {
        order.shuffle(rng);
        if mirror != Mirror::Off {
            for &i in &order {
                let i = i as usize;
                if may_flip[i] && rng.random_bool(0.5) {
                    flip[i] = !flip[i];
                }
            }
        }
    }
    // Mirror in place first, while every sample is still at its first index.
    for (s, f) in samples.iter_mut().zip(flip) {
        if f {
            s.mirror_files();
        }
    }
    // Follow each cycle of the permutation once; a placed slot's `order` entry becomes its own
    // index, which marks it done.
    for start in 0..n {
        if order[start] as usize == start {
            continue;
        }
        let first = samples[start];
        let mut j = start;
        loop {
            let from = order[j] as usize;
            order[j] = j as u32;
            if from == start {
                samples[j] = first;
                break;
            }
            samples[j] = samples[from];
            j = from;
        }
    }
}

/// Loads the positions of the given data files (raw or packed, as `store::resolve` lists and
/// checks them) that a trainer keeps
/// (see `nnue_data::skip_reason`), split into training and validation by game (one in 20,
/// chosen by a hash of the game: `nnue_data::is_validation`). With `validation_only` the
/// training games are passed over (the first vector stays empty).
pub fn load(
    files: &[PathBuf],
    limit: usize,
    layout: Layout,
    validation_only: bool,
) -> Result<(Vec<Sample>, Vec<Sample>), String> {
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    crate::store::for_each_game_in(files, |g| {
        let into = if crate::nnue_data::is_validation(g) {
            &mut valid
        } else if validation_only {
            return ControlFlow::Continue(());
        } else {
            &mut train
        };
        for (pos, m, score) in g.positions() {
            if skip_reason(&pos, &m, score).is_none() {
                into.push(Sample::new(&pos, score, g.result, layout));
            }
        }
        if train.len() + valid.len() >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok((train, valid))
}

/// What a backward pass needs: the gradient to add to, and the loss's derivative by the
/// output as a function of the output.
type Backward<'a> = (&'a mut [f32], &'a dyn Fn(f32) -> f32);

/// The float network being trained.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub hidden: usize,
    /// Output buckets, chosen by the number of pieces (`nnue::output_bucket`).
    pub buckets: usize,
    /// How the features were computed (`nnue::Layout`).
    pub layout: Layout,
    /// Training only (`--factoriser`): `nnue::INPUTS` more rows of input weights, one per
    /// feature of a king bucket, shared by every bucket. A feature's weight is its bucket's row
    /// plus its shared row, so what all buckets have in common is learnt from every position,
    /// and each bucket's own rows learn only how it differs; the net written merges the two.
    pub factorised: bool,
    /// `rows()` rows of `hidden` input weights, then `hidden` biases, then `2 * hidden` output
    /// weights per bucket, then the output bias per bucket: one flat vector, so the optimiser
    /// treats every weight alike.
    pub w: Vec<f32>,
}

impl Model {
    pub fn new(hidden: usize, buckets: usize, layout: Layout, seed: u64) -> Model {
        let mut rng = StdRng::seed_from_u64(seed);
        let inputs = layout.inputs();
        let n = Self::len(inputs, hidden, buckets);
        let mut w = vec![0.0f32; n];
        let ft = 1.0 / (MAX_FEATURES as f32).sqrt();
        let out = 1.0 / ((2 * hidden) as f32).sqrt();
        for (i, x) in w.iter_mut().enumerate() {
            *x = if i < inputs * hidden {
                rng.random_range(-ft..ft)
            } else if i < (inputs + 1) * hidden {
                0.0
            } else if i < (inputs + 1 + 2 * buckets) * hidden {
                rng.random_range(-out..out)
            } else {
                0.0
            };
        }
        Model {
            hidden,
            buckets,
            layout,
            factorised: false,
            w,
        }
    }

    /// `rows` rows of input weights.
    fn len(rows: usize, hidden: usize, buckets: usize) -> usize {
        (rows + 1 + 2 * buckets) * hidden + buckets
    }

    /// Rows of input weights: the layout's inputs, and the shared rows when factorised.
    fn rows(&self) -> usize {
        rows_of(self.layout, self.factorised)
    }

    /// The first shared row, when factorised.
    #[inline(always)]
    fn shared_at(&self) -> Option<usize> {
        self.factorised.then(|| self.layout.inputs())
    }

    fn ft_bias_at(&self) -> usize {
        self.rows() * self.hidden
    }

    fn out_at(&self) -> usize {
        (self.rows() + 1) * self.hidden
    }

    fn bias_at(&self) -> usize {
        (self.rows() + 1 + 2 * self.buckets) * self.hidden
    }

    /// This model with shared rows added, all zero (`--factoriser`): it evaluates every
    /// position as before. Refused for a layout of one king bucket, where the shared rows
    /// would only repeat the bucket's.
    pub fn with_shared_rows(&self) -> Result<Model, String> {
        if self.factorised {
            return Err("--factoriser: the model is factorised already".into());
        }
        if self.layout.king_buckets() < 2 {
            return Err(format!(
                "--factoriser: the {} inputs have one king bucket, nothing to factorise",
                self.layout.name()
            ));
        }
        let at = self.ft_bias_at();
        let mut w = Vec::with_capacity(self.w.len() + nnue::INPUTS * self.hidden);
        w.extend_from_slice(&self.w[..at]);
        w.resize(at + nnue::INPUTS * self.hidden, 0.0);
        w.extend_from_slice(&self.w[at..]);
        Ok(Model {
            factorised: true,
            w,
            ..self.clone()
        })
    }

    /// The output (units of `SCALE` centipawns) and, when `grad` is given, adds
    /// `g * d(out)/d(w)` to it for the `g` that `dloss` returns from the output.
    /// Always inlined, so that `kernels`' AVX2 copies compile it with AVX2.
    #[inline(always)]
    fn forward_backward(&self, s: &Sample, acc: &mut [f32], grad: Option<Backward<'_>>) -> f32 {
        let h = self.hidden;
        let (au, at) = acc.split_at_mut(h);
        let bias = &self.w[self.ft_bias_at()..self.ft_bias_at() + h];
        au.copy_from_slice(bias);
        at.copy_from_slice(bias);
        let n = usize::from(s.count);
        let shared = self.shared_at();
        for (acc, features) in [(&mut *au, &s.us[..n]), (&mut *at, &s.them[..n])] {
            for r in feature_rows(features, shared) {
                for (a, w) in acc.iter_mut().zip(&self.w[r * h..(r + 1) * h]) {
                    *a += w;
                }
            }
        }
        // The pieces on the board: one feature each.
        let bucket = nnue::output_bucket(n, self.buckets);
        let out_at = self.out_at() + bucket * 2 * h;
        let bias_at = self.bias_at() + bucket;
        let out_w = &self.w[out_at..out_at + 2 * h];
        let mut out = self.w[bias_at];
        for (a, w) in au.iter().zip(&out_w[..h]) {
            let c = a.clamp(0.0, 1.0);
            out += c * c * w;
        }
        for (a, w) in at.iter().zip(&out_w[h..]) {
            let c = a.clamp(0.0, 1.0);
            out += c * c * w;
        }
        let Some((g, dloss)) = grad else {
            return out;
        };
        let d = dloss(out);
        let ft_at = self.ft_bias_at();
        g[bias_at] += d;
        // Output weights, and the accumulators' gradients in place of their values.
        for side in 0..2 {
            let a = if side == 0 { &mut *au } else { &mut *at };
            let ow = &out_w[side * h..(side + 1) * h];
            let go = &mut g[out_at + side * h..out_at + (side + 1) * h];
            for ((x, w), gw) in a.iter_mut().zip(ow).zip(go.iter_mut()) {
                let c = x.clamp(0.0, 1.0);
                *gw += d * c * c;
                *x = if *x > 0.0 && *x < 1.0 {
                    d * w * 2.0 * c
                } else {
                    0.0
                };
            }
        }
        for j in 0..h {
            g[ft_at + j] += au[j] + at[j];
        }
        for (acc, features) in [(&*au, &s.us[..n]), (&*at, &s.them[..n])] {
            for r in feature_rows(features, shared) {
                for (gw, x) in g[r * h..(r + 1) * h].iter_mut().zip(acc) {
                    *gw += x;
                }
            }
        }
        out
    }

    /// The output in centipawns (side to move's view), in floats.
    #[cfg(test)]
    fn eval_cp(&self, s: &Sample) -> f32 {
        let mut acc = vec![0.0; 2 * self.hidden];
        self.forward_backward(s, &mut acc, None) * SCALE as f32
    }

    /// The quantised network.
    /// The float model a quantised net stands for (each weight divided by its scale), for a
    /// run that starts from an earlier net (`--init`): quantising it again gives the same net.
    pub fn from_network(net: &Network) -> Model {
        let (ft_w, ft_b, out_w, out_b) = net.parts();
        let (qa, qb) = (QA as f32, QB as f32);
        let mut w = Vec::with_capacity(Self::len(
            net.layout().inputs(),
            net.hidden(),
            net.buckets(),
        ));
        w.extend(ft_w.iter().chain(ft_b).map(|&x| f32::from(x) / qa));
        w.extend(out_w.iter().map(|&x| f32::from(x) / qb));
        w.extend(out_b.iter().map(|&x| x as f32 / (qa * qb)));
        Model {
            hidden: net.hidden(),
            buckets: net.buckets(),
            layout: net.layout(),
            factorised: false,
            w,
        }
    }

    /// This model with `hidden` neurons, more than it has: the first ones are this model's,
    /// the new ones get random input weights and zero output weights, so the wider model
    /// evaluates every position exactly as this one does until training moves them
    /// (`--init` with a narrower net: a wider net that starts from what the narrow one knows).
    pub fn widened(&self, hidden: usize, seed: u64) -> Result<Model, String> {
        let old = self.hidden;
        if hidden <= old {
            return Err(format!("cannot widen a net of H={old} to H={hidden}"));
        }
        let mut m = Model::new(hidden, self.buckets, self.layout, seed);
        if self.factorised {
            m = m.with_shared_rows()?;
        }
        for i in 0..=self.rows() {
            // The rows of input weights, then the row of biases: the old ones first.
            // (`Model::new` gives the new neurons random input weights and zero biases.)
            m.w[i * hidden..i * hidden + old].copy_from_slice(&self.w[i * old..(i + 1) * old]);
        }
        for b in 0..self.buckets {
            for side in 0..2 {
                let to = m.out_at() + b * 2 * hidden + side * hidden;
                let from = self.out_at() + b * 2 * old + side * old;
                m.w[to..to + old].copy_from_slice(&self.w[from..from + old]);
                m.w[to + old..to + hidden].fill(0.0);
            }
            let (to, from) = (m.bias_at() + b, self.bias_at() + b);
            m.w[to] = self.w[from];
        }
        Ok(m)
    }

    #[cfg(test)]
    pub fn quantise(&self) -> Result<Network, String> {
        self.quantise_scaled(1.0)
    }

    /// The quantised network with the output layer (weights and biases) multiplied by `scale`
    /// first: every evaluation times `scale`, rounded once. `--output-scale` uses it to give a
    /// net the scale the search's margins were tuned for (`eval-scale` measures the factor).
    /// Refused when a scaled output weight would pass `WEIGHT_CLIP` (the engine's products
    /// must stay in i16).
    pub fn quantise_scaled(&self, scale: f32) -> Result<Network, String> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!("--output-scale {scale}: not a positive number"));
        }
        let h = self.hidden;
        let q = |x: f32, k: i32| (x * k as f32).round().clamp(-32767.0, 32767.0) as i16;
        // A factorised model's feature weight is its row plus its shared row, clamped to the
        // clip that holds each of them (the engine's accumulators count on it; a sum past it
        // is rare, and the only place the net written differs from the float model beyond
        // rounding).
        let (inputs, shared_at) = (self.layout.inputs(), self.shared_at());
        let ft_w = (0..inputs * h)
            .map(|i| {
                let shared =
                    shared_at.map_or(0.0, |s| self.w[(s + (i / h) % nnue::INPUTS) * h + i % h]);
                q((self.w[i] + shared).clamp(-WEIGHT_CLIP, WEIGHT_CLIP), QA)
            })
            .collect();
        let ft_b = self.w[self.ft_bias_at()..self.ft_bias_at() + h]
            .iter()
            .map(|&x| q(x, QA))
            .collect();
        let out_w = self.w[self.out_at()..self.bias_at()]
            .iter()
            .map(|&x| {
                let x = x * scale;
                if x.abs() > WEIGHT_CLIP {
                    Err(format!(
                        "--output-scale {scale} takes an output weight to {x}, past the limit {WEIGHT_CLIP}"
                    ))
                } else {
                    Ok(q(x, QB))
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let out_b = self.w[self.bias_at()..]
            .iter()
            .map(|&x| (x * scale * (QA * QB) as f32).round() as i32)
            .collect();
        Network::from_parts(h, self.layout, ft_w, ft_b, out_w, out_b)
    }

    fn clip(&mut self) {
        let bias_at = self.bias_at();
        for x in &mut self.w[..bias_at] {
            *x = x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

/// What a run fits: the target's blend (`--wdl`) and the power of the error it minimises
/// (`--loss-power`).
#[derive(Clone, Copy)]
pub(crate) struct Fit {
    pub(crate) wdl: f32,
    pub(crate) power: f32,
}

impl Fit {
    /// The squared error's fit: the trainer's loss before `--loss-power`.
    #[cfg(test)]
    fn squared(wdl: f32) -> Fit {
        Fit { wdl, power: 2.0 }
    }

    /// `d|e|^power / de`. At power 2 exactly `2e`, the same bits as before the power existed.
    #[inline(always)]
    fn d_error(self, e: f32) -> f32 {
        if self.power == 2.0 {
            2.0 * e
        } else {
            self.power * e.abs().powf(self.power - 1.0).copysign(e)
        }
    }
}

/// The per-thread loops of training and validation. The portable bodies are compiled twice:
/// as they are, and with AVX2 enabled, chosen at run time. The AVX2 copy trains 2.5x as
/// many positions a second on this project's host (an AMD EPYC; 151,000 against 385,000 at
/// H 512, docs/nnue.md) and writes the same bytes: the loops only widen their vectors, the
/// order of every sum stays as written, and Rust never fuses a multiply and an add on its
/// own.
mod kernels {
    use super::{Fit, Model, Sample, sigmoid};

    /// Adds the batch gradient of `part`'s loss under `fit` (each sample's times `scale`) to
    /// `g`, cleared first; returns the summed squared error, whatever the power.
    pub(super) fn grad_part(
        m: &Model,
        part: &[Sample],
        fit: Fit,
        scale: f32,
        g: &mut [f32],
    ) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: `avx2::grad_part` only enables AVX2, which the CPU has just been
            // reported to have.
            return unsafe { avx2::grad_part(m, part, fit, scale, g) };
        }
        grad_part_portable(m, part, fit, scale, g)
    }

    /// The summed squared error over `part`.
    pub(super) fn loss_part(m: &Model, part: &[Sample], wdl: f32) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as in `grad_part`.
            return unsafe { avx2::loss_part(m, part, wdl) };
        }
        loss_part_portable(m, part, wdl)
    }

    #[inline(always)]
    pub(super) fn grad_part_portable(
        m: &Model,
        part: &[Sample],
        fit: Fit,
        scale: f32,
        g: &mut [f32],
    ) -> f64 {
        g.fill(0.0);
        let mut acc = vec![0.0; 2 * m.hidden];
        let mut sum = 0.0f64;
        for s in part {
            let t = s.target(fit.wdl);
            let dloss = |out: f32| {
                let p = sigmoid(out);
                fit.d_error(p - t) * p * (1.0 - p) * scale
            };
            let out = m.forward_backward(s, &mut acc, Some((&mut *g, &dloss)));
            sum += f64::from((sigmoid(out) - t).powi(2));
        }
        sum
    }

    #[inline(always)]
    pub(super) fn loss_part_portable(m: &Model, part: &[Sample], wdl: f32) -> f64 {
        let mut acc = vec![0.0; 2 * m.hidden];
        part.iter()
            .map(|s| {
                let p = sigmoid(m.forward_backward(s, &mut acc, None));
                f64::from((p - s.target(wdl)).powi(2))
            })
            .sum::<f64>()
    }

    #[cfg(target_arch = "x86_64")]
    pub(super) mod avx2 {
        use super::super::{Fit, Model, Sample};

        #[target_feature(enable = "avx2")]
        pub(in super::super) fn grad_part(
            m: &Model,
            part: &[Sample],
            fit: Fit,
            scale: f32,
            g: &mut [f32],
        ) -> f64 {
            super::grad_part_portable(m, part, fit, scale, g)
        }

        #[target_feature(enable = "avx2")]
        pub(in super::super) fn loss_part(m: &Model, part: &[Sample], wdl: f32) -> f64 {
            super::loss_part_portable(m, part, wdl)
        }
    }
}

/// The powers of the error whose means an `--init` net's epoch 0 reports on the held-out
/// games: a higher power says more of the large errors, where a move is lost.
const REPORTED_POWERS: [f64; 5] = [1.0, 2.0, 2.5, 3.0, 4.0];

/// The mean of `|sigmoid(out) - target|^p` over `samples` for each `p` of
/// [`REPORTED_POWERS`] (in parallel, in doubles).
fn error_means(model: &Model, samples: &[Sample], wdl: f32, threads: usize) -> [f64; 5] {
    if samples.is_empty() {
        return [0.0; 5];
    }
    let part_sums = |part: &[Sample]| {
        let mut acc = vec![0.0; 2 * model.hidden];
        let mut sums = [0.0f64; 5];
        for s in part {
            let p = sigmoid(model.forward_backward(s, &mut acc, None));
            let e = f64::from((p - s.target(wdl)).abs());
            for (sum, q) in sums.iter_mut().zip(REPORTED_POWERS) {
                *sum += e.powf(q);
            }
        }
        sums
    };
    let mut total = [0.0f64; 5];
    for sums in over_parts(samples, threads, part_sums) {
        for (t, x) in total.iter_mut().zip(sums) {
            *t += x;
        }
    }
    total.map(|t| t / samples.len() as f64)
}

/// `f` of each of `threads` consecutive parts of `samples`, each on its own thread, in the
/// parts' order (a part whose thread panicked gives `T::default()`).
fn over_parts<T: Send + Default>(
    samples: &[Sample],
    threads: usize,
    f: impl Fn(&[Sample]) -> T + Sync,
) -> Vec<T> {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| scope.spawn(move || f(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Mean loss over `samples` (in parallel).
pub fn loss(model: &Model, samples: &[Sample], wdl: f32, threads: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = over_parts(samples, threads, |part| {
        kernels::loss_part(model, part, wdl)
    })
    .into_iter()
    .sum();
    total / samples.len() as f64
}

/// Optimiser state: AdamW first and second moments.
#[derive(Clone, Debug, PartialEq)]
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: u64,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One AdamW step, with the pulls of `pulls`.
    fn step(&mut self, w: &mut [f32], g: &[f32], lr: f32, pulls: Pulls<'_>) {
        let Pulls { decay, anchor } = pulls;
        self.t += 1;
        let b1 = 1.0 - BETA1.powi(self.t.min(100_000) as i32);
        let b2 = 1.0 - BETA2.powi(self.t.min(100_000) as i32);
        for (i, (((w, g), m), v)) in w
            .iter_mut()
            .zip(g)
            .zip(&mut self.m)
            .zip(&mut self.v)
            .enumerate()
        {
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            let mh = *m / b1;
            let vh = *v / b2;
            let pull = anchor.map_or(0.0, |(w0, a)| a * (*w - w0[i]));
            *w -= lr * (mh / (vh.sqrt() + 1e-8) + decay * *w + pull);
        }
    }
}

/// What pulls the weights besides the gradient, decoupled from it as AdamW's decay is.
#[derive(Clone, Copy)]
struct Pulls<'a> {
    /// Towards zero (`--decay`).
    decay: f32,
    /// Towards the starting net's weights, with this strength (`--anchor`: a fine-tuned net
    /// stays near the net it started from, as L2-SP does).
    anchor: Option<(&'a [f32], f32)>,
}

/// One optimiser step over a batch: gradients from every thread, summed, then AdamW.
fn train_batch(
    model: &mut Model,
    adam: &mut Adam,
    batch: &[Sample],
    fit: Fit,
    lr: f32,
    pulls: Pulls<'_>,
    grads: &mut [Vec<f32>],
) -> f64 {
    let threads = grads.len();
    let chunk = batch.len().div_ceil(threads);
    let scale = 1.0 / batch.len() as f32;
    let m: &Model = model;
    let loss_sum: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(chunk)
            .zip(grads.iter_mut())
            .map(|(part, g)| scope.spawn(move || kernels::grad_part(m, part, fit, scale, g)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    let (first, rest) = grads.split_at_mut(1);
    for other in rest.iter() {
        for (a, b) in first[0].iter_mut().zip(other) {
            *a += b;
        }
    }
    adam.step(&mut model.w, &first[0], lr, pulls);
    model.clip();
    loss_sum / batch.len() as f64
}

pub struct Config {
    pub data: Vec<PathBuf>,
    /// Where the validation positions come from (the held-out games of these directories)
    /// when not from `data`'s: nets trained on different data then compare on one set. The
    /// held-out games of `data` are never trained on either way.
    pub valid: Option<Vec<PathBuf>>,
    pub out: PathBuf,
    pub hidden: usize,
    /// Output buckets (1 to `nnue::MAX_BUCKETS`).
    pub buckets: usize,
    /// The input layout; under a mirrored one the `--mirror` augmentation is off (a position
    /// and its left-right mirror have the same features there).
    pub layout: Layout,
    /// Train with shared rows (`Model::with_shared_rows`); the nets written are the same shape
    /// either way.
    pub factoriser: bool,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// Final learning rate as a fraction of `lr`.
    pub lr_end: f32,
    pub wdl: f32,
    /// The power of the error minimised (2: squared); the losses reported are squared
    /// errors whatever it is.
    pub loss_power: f32,
    pub decay: f32,
    /// Strength of the pull towards the `--init` net's weights (0: none).
    pub anchor: f32,
    /// Factor on the output layer of every net written (1: none); see `quantise_scaled`.
    pub output_scale: f32,
    pub mirror: Mirror,
    pub threads: usize,
    pub seed: u64,
    pub limit: usize,
    pub progress: bool,
    /// A net file to start from instead of random weights (fine-tuning an earlier net on new
    /// data); a checkpoint in `out` still takes precedence (resume).
    pub init: Option<PathBuf>,
    /// Stop after this epoch, keeping the schedule of `epochs` (the same command without it
    /// resumes): a long run in pieces, one per sitting.
    pub pause_after: Option<usize>,
}

/// A model read from `source` (a checkpoint, or a net given to `--init`) must have the shape
/// the run asks for.
fn check_shape(m: &Model, cfg: &Config, source: &Path) -> Result<(), String> {
    let (has, wants) = (
        (m.hidden, m.buckets, m.layout, m.factorised),
        (cfg.hidden, cfg.buckets, cfg.layout, cfg.factoriser),
    );
    if has == wants {
        return Ok(());
    }
    let shared = |f: bool| if f { ", factorised" } else { "" };
    Err(format!(
        "{} holds a net of H={} with {} output bucket(s) and {:?} inputs{}, not H={} with {} and {:?}{}",
        source.display(),
        has.0,
        has.1,
        has.2,
        shared(has.3),
        wants.0,
        wants.1,
        wants.2,
        shared(wants.3)
    ))
}

/// Version 3 adds the input layout to the header, version 2 the output buckets (version 1:
/// one bucket, plain inputs; every version is still read).
const CHECKPOINT_MAGIC: &[u8; 8] = b"SHCKPT03";
const CHECKPOINT_MAGIC_V2: &[u8; 8] = b"SHCKPT02";
const CHECKPOINT_MAGIC_V1: &[u8; 8] = b"SHCKPT01";
/// In version 3's layout field: the model has shared rows (`--factoriser`). A trainer from
/// before them reads such a checkpoint as an unknown layout and refuses it.
const FACTORISED: u64 = 1 << 8;

fn save_checkpoint(path: &Path, model: &Model, adam: &Adam, epoch: usize) -> Result<(), String> {
    let mut out = Vec::with_capacity(48 + 12 * model.w.len());
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&(model.hidden as u64).to_le_bytes());
    out.extend_from_slice(&(model.buckets as u64).to_le_bytes());
    let code = u64::from(model.layout.code()) | if model.factorised { FACTORISED } else { 0 };
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(epoch as u64).to_le_bytes());
    out.extend_from_slice(&adam.t.to_le_bytes());
    for x in model.w.iter().chain(&adam.m).chain(&adam.v) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    // Write then rename: a kill during the write leaves the previous checkpoint whole.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &out).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

fn load_checkpoint(path: &Path) -> Result<(Model, Adam, usize), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = || format!("{}: not a checkpoint of this trainer", path.display());
    let header = match bytes.get(..8) {
        Some(m) if m == CHECKPOINT_MAGIC => 48,
        Some(m) if m == CHECKPOINT_MAGIC_V2 => 40,
        Some(m) if m == CHECKPOINT_MAGIC_V1 => 32,
        _ => return Err(bad()),
    };
    if bytes.len() < header {
        return Err(bad());
    }
    let u = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[i..i + 8]);
        u64::from_le_bytes(b)
    };
    let (hidden, buckets) = (u(8) as usize, if header >= 40 { u(16) as usize } else { 1 });
    let (layout, factorised) = if header == 48 {
        let code = u(24);
        let layout = u32::try_from(code & !FACTORISED)
            .ok()
            .and_then(Layout::from_code)
            .ok_or_else(bad)?;
        (layout, code & FACTORISED != 0)
    } else {
        (Layout::Plain, false)
    };
    let (epoch, t) = (u(header - 16) as usize, u(header - 8));
    if hidden == 0 || hidden > nnue::MAX_HIDDEN || buckets == 0 || buckets > nnue::MAX_BUCKETS {
        return Err(bad());
    }
    let n = Model::len(rows_of(layout, factorised), hidden, buckets);
    if bytes.len() != header + 12 * n {
        return Err(bad());
    }
    let floats: Vec<f32> = bytes[header..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((
        Model {
            hidden,
            buckets,
            layout,
            factorised,
            w: floats[..n].to_vec(),
        },
        Adam {
            m: floats[n..2 * n].to_vec(),
            v: floats[2 * n..].to_vec(),
            t,
        },
        epoch,
    ))
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

fn mirror_name(mirror: Mirror) -> &'static str {
    match mirror {
        Mirror::Off => "off",
        Mirror::Exact => "exact",
        Mirror::All => "all",
    }
}

/// The settings a recipe records, by the trainer's flag names.
const RECIPE_SETTINGS: [&str; 17] = [
    "hidden",
    "buckets",
    "inputs",
    "factoriser",
    "epochs",
    "batch",
    "lr",
    "lr-end",
    "wdl",
    "decay",
    "mirror",
    "threads",
    "seed",
    "limit",
    "anchor",
    "output-scale",
    "loss-power",
];

/// Settings added after the first recipes were written, with the value a recipe without them
/// means (the trainer's behaviour before they existed).
const LATER_SETTINGS: [(&str, f32); 3] =
    [("anchor", 0.0), ("output-scale", 1.0), ("loss-power", 2.0)];

/// The recipe of a run of `cfg` that reads `data` and `valid` (the resolved files).
fn recipe_of(cfg: &Config, data: &[PathBuf], valid: Option<&[PathBuf]>) -> Result<Recipe, String> {
    let pin_all = |files: &[PathBuf]| files.iter().map(|f| Pinned::of(f)).collect();
    let values = [
        cfg.hidden.to_string(),
        cfg.buckets.to_string(),
        cfg.layout.name().to_string(),
        on_off(cfg.factoriser).to_string(),
        cfg.epochs.to_string(),
        cfg.batch.to_string(),
        cfg.lr.to_string(),
        cfg.lr_end.to_string(),
        cfg.wdl.to_string(),
        cfg.decay.to_string(),
        mirror_name(cfg.mirror).to_string(),
        cfg.threads.max(1).to_string(),
        cfg.seed.to_string(),
        cfg.limit.to_string(),
        cfg.anchor.to_string(),
        cfg.output_scale.to_string(),
        cfg.loss_power.to_string(),
    ];
    Ok(Recipe {
        commit: crate::gamedata::COMMIT.to_string(),
        data: pin_all(data)?,
        valid: valid.map(pin_all).transpose()?,
        init: cfg.init.as_deref().map(Pinned::of).transpose()?,
        settings: RECIPE_SETTINGS
            .iter()
            .zip(values)
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        nets: Vec::new(),
    })
}

/// The training run a recipe describes, writing to `out`.
pub fn config_of(recipe: &Recipe, out: &Path, progress: bool) -> Result<Config, String> {
    if let Some((k, _)) = recipe
        .settings
        .iter()
        .find(|(k, _)| !RECIPE_SETTINGS.contains(&k.as_str()))
    {
        return Err(format!(
            "the recipe's setting '{k}' is not one this trainer knows"
        ));
    }
    let paths = |v: &[Pinned]| v.iter().map(|p| p.path.clone()).collect();
    let later = |key: &str| -> Result<f32, String> {
        match LATER_SETTINGS.iter().find(|(k, _)| *k == key) {
            Some((_, default)) if recipe.setting(key).is_err() => Ok(*default),
            _ => recipe.num(key),
        }
    };
    Ok(Config {
        data: paths(&recipe.data),
        valid: recipe.valid.as_deref().map(paths),
        out: out.to_path_buf(),
        hidden: recipe.num("hidden")?,
        buckets: recipe.num("buckets")?,
        layout: {
            let name = recipe.setting("inputs")?;
            Layout::from_name(name)
                .ok_or_else(|| format!("the recipe's inputs '{name}' are unknown"))?
        },
        // Off in recipes from before the factoriser.
        factoriser: match recipe.setting("factoriser") {
            Err(_) => false,
            Ok("on") => true,
            Ok("off") => false,
            Ok(other) => return Err(format!("the recipe's factoriser '{other}': not on or off")),
        },
        epochs: recipe.num("epochs")?,
        batch: recipe.num("batch")?,
        lr: recipe.num("lr")?,
        lr_end: recipe.num("lr-end")?,
        wdl: recipe.num("wdl")?,
        decay: recipe.num("decay")?,
        anchor: later("anchor")?,
        output_scale: later("output-scale")?,
        loss_power: later("loss-power")?,
        mirror: recipe.setting("mirror")?.parse()?,
        threads: recipe.num("threads")?,
        seed: recipe.num("seed")?,
        limit: recipe.num("limit")?,
        progress,
        init: recipe.init.as_ref().map(|p| p.path.clone()),
        pause_after: None,
    })
}

pub fn run(cfg: &Config) -> Result<(), String> {
    if cfg.buckets == 0 || cfg.buckets > nnue::MAX_BUCKETS {
        return Err(format!(
            "--buckets {}: between 1 and {}",
            cfg.buckets,
            nnue::MAX_BUCKETS
        ));
    }
    if !(cfg.loss_power >= 1.0 && cfg.loss_power <= 4.0) {
        return Err(format!("--loss-power {}: between 1 and 4", cfg.loss_power));
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let t0 = Instant::now();
    // The files are resolved (and checked against their manifests) once, and those are the
    // files read and pinned in the run's recipe.
    let data_files = crate::store::resolve(&cfg.data)?;
    let valid_files = cfg
        .valid
        .as_deref()
        .map(crate::store::resolve)
        .transpose()?;
    let mut recipe = recipe_of(cfg, &data_files, valid_files.as_deref())?;
    let recipe_path = cfg.out.join("recipe.txt");
    write_file(&recipe_path, recipe.to_text().as_bytes())?;
    let (mut train, mut valid) = load(&data_files, cfg.limit, cfg.layout, false)?;
    if let Some(files) = &valid_files {
        valid = load(files, usize::MAX, cfg.layout, true)?.1;
    }
    if train.is_empty() {
        return Err("no training positions".into());
    }
    eprintln!(
        "nnue: {} training and {} validation positions loaded in {:.1} s; {} -> {} x 2 -> 1, {} output bucket(s), {:?} inputs{}",
        train.len(),
        valid.len(),
        t0.elapsed().as_secs_f64(),
        cfg.layout.inputs(),
        cfg.hidden,
        cfg.buckets,
        cfg.layout,
        if cfg.factoriser { ", factorised" } else { "" }
    );
    let mirror = if cfg.layout.mirrored() {
        Mirror::Off
    } else {
        cfg.mirror
    };
    let checkpoint = cfg.out.join("checkpoint.bin");
    // A new model (from random weights or the --init net) gets the run's shared rows.
    let with_factoriser = |m: Model| {
        if cfg.factoriser {
            m.with_shared_rows()
        } else {
            Ok(m)
        }
    };
    // The --init net: where a new run starts and, on any run, what --anchor pulls towards.
    let init = match &cfg.init {
        Some(path) => {
            let mut m = Model::from_network(&nnue::load_file(path)?);
            if m.hidden < cfg.hidden && (m.buckets, m.layout) == (cfg.buckets, cfg.layout) {
                eprintln!(
                    "nnue: widening {} from H={} to H={}",
                    path.display(),
                    m.hidden,
                    cfg.hidden
                );
                m = m.widened(cfg.hidden, cfg.seed)?;
            }
            let m = with_factoriser(m)?;
            check_shape(&m, cfg, path)?;
            Some((path, m))
        }
        None => None,
    };
    let (mut model, mut adam, start_epoch) = if checkpoint.exists() {
        let (m, a, e) = load_checkpoint(&checkpoint)?;
        check_shape(&m, cfg, &checkpoint)?;
        eprintln!("nnue: resuming after epoch {e}");
        (m, a, e)
    } else if let Some((path, m)) = &init {
        let m = m.clone();
        eprintln!("nnue: starting from {}", path.display());
        let n = m.w.len();
        (m, Adam::new(n), 0)
    } else {
        let m = with_factoriser(Model::new(cfg.hidden, cfg.buckets, cfg.layout, cfg.seed))?;
        let n = m.w.len();
        (m, Adam::new(n), 0)
    };
    let anchor = match &init {
        _ if !(cfg.anchor >= 0.0 && cfg.anchor.is_finite()) => {
            return Err(format!("--anchor {}: not a number >= 0", cfg.anchor));
        }
        _ if cfg.anchor == 0.0 => None,
        Some((_, start)) => Some((start.w.as_slice(), cfg.anchor)),
        None => return Err("--anchor pulls towards the --init net: give one".into()),
    };
    let pulls = Pulls {
        decay: cfg.decay,
        anchor,
    };
    let fit = Fit {
        wdl: cfg.wdl,
        power: cfg.loss_power,
    };
    // A factor that is no positive number fails now, not after the first epoch (one that
    // takes a grown output weight past the clip can still fail at a later epoch's net).
    model.quantise_scaled(cfg.output_scale)?;
    let threads = cfg.threads.max(1);
    let mut grads = vec![vec![0.0f32; model.w.len()]; threads];
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ 0x5eed);
    // A resumed run replays the shuffles of the epochs already done, so it trains on the same
    // order as a run that was never stopped (and makes the same bytes).
    replay_epochs(&mut train, start_epoch, mirror, &mut rng);
    let batches_per_epoch = train.len().div_ceil(cfg.batch);
    let total_batches = (cfg.epochs * batches_per_epoch) as u64;
    let bar = if cfg.progress {
        ProgressBar::new(total_batches)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent}% {msg} ETA {eta}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    bar.set_position((start_epoch * batches_per_epoch) as u64);
    let csv_path = cfg.out.join("loss.csv");
    let mut history = read_history(&csv_path);
    history.retain(|r| r.0 <= start_epoch);
    if start_epoch == 0 && cfg.init.is_some() {
        // The starting net is epoch 0: the line every fine-tuning epoch has to beat.
        let train_loss = loss(&model, &train, cfg.wdl, threads);
        let valid_loss = loss(&model, &valid, cfg.wdl, threads);
        history = vec![(0, train_loss, valid_loss)];
        write_history(&csv_path, &history)?;
        eprintln!(
            "epoch 0 (the --init net): train loss {train_loss:.6}, validation loss {valid_loss:.6}"
        );
        let means = error_means(&model, &valid, cfg.wdl, threads);
        let shown: Vec<String> = REPORTED_POWERS
            .iter()
            .zip(means)
            .map(|(p, m)| format!("p{p} {m:.6e}"))
            .collect();
        eprintln!(
            "epoch 0 (the --init net): validation mean |error|^p: {}",
            shown.join(", ")
        );
    }
    let mut best = history.iter().map(|r| r.2).fold(f64::INFINITY, f64::min);
    let started = Instant::now();
    let mut seen = 0u64;
    let last = cfg.pause_after.map_or(cfg.epochs, |p| p.min(cfg.epochs));
    for epoch in start_epoch + 1..=last {
        train.shuffle(&mut rng);
        remirror(&mut train, mirror, &mut rng);
        let mut epoch_loss = 0.0;
        for (b, batch) in train.chunks(cfg.batch).enumerate() {
            let progress = ((epoch - 1) * batches_per_epoch + b) as f32 / total_batches as f32;
            let lr = cfg.lr
                * (cfg.lr_end
                    + (1.0 - cfg.lr_end) * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
            let l = train_batch(&mut model, &mut adam, batch, fit, lr, pulls, &mut grads);
            epoch_loss += l * batch.len() as f64;
            seen += batch.len() as u64;
            bar.inc(1);
            bar.set_message(format!(
                "epoch {epoch}/{} loss {l:.5} {:.0} pos/s",
                cfg.epochs,
                seen as f64 / started.elapsed().as_secs_f64().max(1e-3)
            ));
        }
        let train_loss = epoch_loss / train.len() as f64;
        let valid_loss = loss(&model, &valid, cfg.wdl, threads);
        history.push((epoch, train_loss, valid_loss));
        let net = model.quantise_scaled(cfg.output_scale)?;
        let bytes = net.to_bytes();
        let file = cfg.out.join(format!("epoch-{epoch}.nnue"));
        write_file(&file, &bytes)?;
        if valid_loss < best {
            best = valid_loss;
            let best_file = cfg.out.join("best.nnue");
            write_file(&best_file, &bytes)?;
        }
        save_checkpoint(&checkpoint, &model, &adam, epoch)?;
        recipe.nets = (1..=epoch)
            .map(|e| format!("epoch-{e}.nnue"))
            .chain(std::iter::once("best.nnue".to_string()))
            .filter(|name| cfg.out.join(name).is_file())
            .map(|name| Ok((name.clone(), Pinned::of(&cfg.out.join(&name))?.sha256)))
            .collect::<Result<_, String>>()?;
        write_file(&recipe_path, recipe.to_text().as_bytes())?;
        write_history(&csv_path, &history)?;
        crate::plot::write_loss_png(&cfg.out.join("loss.png"), &history)?;
        let line = format!(
            "epoch {epoch}: train loss {train_loss:.6}, validation loss {valid_loss:.6}{}",
            if valid_loss <= best { " (best)" } else { "" }
        );
        if cfg.progress {
            bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }
    bar.finish();
    if cfg.init.is_some() && !history.iter().any(|r| r.0 > 0 && r.2 <= best) {
        eprintln!("nnue: no epoch beat the --init net's validation loss; no best.nnue written");
    }
    eprintln!(
        "nnue: {:.0} s, {:.0} positions/s; best validation loss {best:.6}; nets in {}",
        started.elapsed().as_secs_f64(),
        seen as f64 / started.elapsed().as_secs_f64().max(1e-3),
        cfg.out.display()
    );
    Ok(())
}

/// `shears-tune nnue-quantise`: the net a checkpoint's weights make with another
/// `--output-scale`, written to `out`; returns the checkpoint's epoch. The scale acts only at
/// quantisation, so this is byte for byte the net a run with that scale writes for the same
/// epoch (a candidate whose `eval-scale` factor moved is rescaled without training again).
pub fn requantise(checkpoint: &Path, output_scale: f32, out: &Path) -> Result<usize, String> {
    let (model, _, epoch) = load_checkpoint(checkpoint)?;
    let net = model.quantise_scaled(output_scale)?;
    write_file(out, &net.to_bytes())?;
    Ok(epoch)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_history(path: &Path) -> Vec<(usize, f64, f64)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split(',');
            Some((
                f.next()?.parse().ok()?,
                f.next()?.parse().ok()?,
                f.next()?.parse().ok()?,
            ))
        })
        .collect()
}

fn write_history(path: &Path, history: &[(usize, f64, f64)]) -> Result<(), String> {
    let mut f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::from("epoch,train_loss,validation_loss\n");
    for (e, t, v) in history {
        text.push_str(&format!("{e},{t:.8},{v:.8}\n"));
    }
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The position of a FEN the test wrote.
#[cfg(test)]
fn chess(fen: &str) -> Chess {
    fen.parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap()
}

/// A sample from a FEN, for tests.
#[cfg(test)]
fn sample(fen: &str, white_score: i16, white_result: u8) -> Sample {
    Sample::new(&chess(fen), white_score, white_result, Layout::Plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic positions whose score is their material balance: a net can learn it.
    fn synthetic(n: usize, seed: u64, layout: Layout) -> Vec<Sample> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let plies = rng.random_range(4..40);
            let Some(fen) =
                crate::openings::random_walk(shears::position::START_FEN, plies, &mut rng)
            else {
                continue;
            };
            let pos = chess(&fen);
            let b = pos.board();
            let value = |c: Color| {
                let s = b.by_color(c);
                (b.pawns() & s).count() as i32 * 100
                    + ((b.knights() | b.bishops()) & s).count() as i32 * 300
                    + (b.rooks() & s).count() as i32 * 500
                    + (b.queens() & s).count() as i32 * 900
            };
            let score = (value(Color::White) - value(Color::Black)).clamp(-2000, 2000) as i16;
            let result = if score > 150 {
                viriformat::WHITE_WIN
            } else if score < -150 {
                viriformat::BLACK_WIN
            } else {
                viriformat::DRAW
            };
            out.push(Sample::new(&pos, score, result, layout));
        }
        out
    }

    /// `epochs` passes over `data` in batches of 256 (wdl 0.3, learning rate 0.01, 2 threads).
    fn train_for(model: &mut Model, data: &[Sample], epochs: usize) {
        let mut adam = Adam::new(model.w.len());
        let mut grads = vec![vec![0.0; model.w.len()]; 2];
        for _ in 0..epochs {
            for batch in data.chunks(256) {
                let pulls = Pulls {
                    decay: 0.0,
                    anchor: None,
                };
                train_batch(
                    model,
                    &mut adam,
                    batch,
                    Fit::squared(0.3),
                    0.01,
                    pulls,
                    &mut grads,
                );
            }
        }
    }

    #[test]
    fn training_lowers_the_loss_on_synthetic_data() {
        let data = synthetic(3000, 1, Layout::Plain);
        for buckets in [1, 4] {
            let mut model = Model::new(16, buckets, Layout::Plain, 2);
            let before = loss(&model, &data, 0.3, 2);
            train_for(&mut model, &data, 30);
            let after = loss(&model, &data, 0.3, 2);
            assert!(
                after < before * 0.5,
                "{buckets} buckets: loss {before} -> {after}"
            );
        }
    }

    /// The features of a sample as sets (order aside).
    fn feature_sets(s: &Sample) -> (Vec<u16>, Vec<u16>) {
        let n = usize::from(s.count);
        let (mut us, mut them) = (s.us[..n].to_vec(), s.them[..n].to_vec());
        us.sort_unstable();
        them.sort_unstable();
        (us, them)
    }

    #[test]
    fn mirroring_a_sample_gives_the_mirrored_position() {
        let mut s = sample(
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            40,
            viriformat::DRAW,
        );
        assert!(s.no_castling);
        let mirrored = sample(
            "8/5p2/4p3/r5PK/k1p3R1/8/1P1P4/8 w - - 0 1",
            40,
            viriformat::DRAW,
        );
        let original = feature_sets(&s);
        s.mirror_files();
        assert_eq!(feature_sets(&s), feature_sets(&mirrored));
        assert_ne!(feature_sets(&s), original);
        s.mirror_files();
        assert_eq!(feature_sets(&s), original);
        let castling = sample(shears::position::START_FEN, 0, viriformat::DRAW);
        assert!(!castling.no_castling);
    }

    #[test]
    fn remirror_leaves_castling_positions_alone_unless_told() {
        let start = sample(shears::position::START_FEN, 0, viriformat::DRAW);
        let mut rng = StdRng::seed_from_u64(4);
        let mut data = vec![start; 64];
        remirror(&mut data, Mirror::Exact, &mut rng);
        assert!(data.iter().all(|s| s.us == start.us));
        remirror(&mut data, Mirror::All, &mut rng);
        let flipped = data.iter().filter(|s| s.us != start.us).count();
        assert!((16..=48).contains(&flipped), "{flipped} of 64 mirrored");
    }

    /// The AVX2 copies of the training loops give the portable loops' bits: every gradient,
    /// every loss (what lets a recipe rebuild its net on any x86-64 machine).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_kernels_give_the_portable_kernels_bits() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: this CPU has no AVX2");
            return;
        }
        let data = synthetic(300, 11, Layout::Plain);
        // H 40: a width that is not a multiple of AVX2's 8 lanes, so the tails are covered.
        let mut model = Model::new(40, 8, Layout::Plain, 5);
        for j in 0..40 {
            let at = model.ft_bias_at() + j;
            model.w[at] = 0.02 * j as f32;
        }
        let (mut a, mut b) = (vec![1.0; model.w.len()], vec![-1.0; model.w.len()]);
        let sa = kernels::grad_part_portable(&model, &data, Fit::squared(0.3), 1.0 / 300.0, &mut a);
        // SAFETY: AVX2 was reported above.
        let sb = unsafe {
            kernels::avx2::grad_part(&model, &data, Fit::squared(0.3), 1.0 / 300.0, &mut b)
        };
        assert_eq!(sa.to_bits(), sb.to_bits());
        assert!(a.iter().any(|x| *x != 0.0), "a gradient that could differ");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b));
        let la = kernels::loss_part_portable(&model, &data, 0.3);
        // SAFETY: as above.
        let lb = unsafe { kernels::avx2::loss_part(&model, &data, 0.3) };
        assert_eq!(la.to_bits(), lb.to_bits());
        assert_eq!(
            la.to_bits(),
            sa.to_bits(),
            "the loss is the training loop's"
        );
    }

    #[test]
    fn the_error_means_hold_the_squared_loss_and_fall_with_the_power() {
        let layout = Layout::Plain;
        let data = synthetic(400, 21, layout);
        let model = Model::new(16, 2, layout, 4);
        let means = error_means(&model, &data, 0.3, 3);
        let squared = loss(&model, &data, 0.3, 2);
        assert!(
            (means[1] - squared).abs() < 1e-6 * squared,
            "{} {squared}",
            means[1]
        );
        // Errors under 1 shrink with each power; the first is the mean absolute error.
        assert!(means.windows(2).all(|w| w[0] > w[1]), "{means:?}");
        let mut acc = vec![0.0; 32];
        let mae = data
            .iter()
            .map(|s| {
                let p = sigmoid(model.forward_backward(s, &mut acc, None));
                f64::from((p - s.target(0.3)).abs())
            })
            .sum::<f64>()
            / data.len() as f64;
        assert!((means[0] - mae).abs() < 1e-9, "{} {mae}", means[0]);
        assert_eq!(error_means(&model, &[], 0.3, 2), [0.0; 5]);
    }

    #[test]
    fn the_error_power_has_the_derivative_of_its_loss() {
        for power in [1.5f32, 2.0, 2.5, 3.0] {
            let fit = Fit { wdl: 0.1, power };
            for e in [-0.6f32, -0.2, -0.01, 0.03, 0.3, 0.7] {
                let f = |x: f64| x.abs().powf(f64::from(power));
                let h = 1e-6;
                let numeric = (f(f64::from(e) + h) - f(f64::from(e) - h)) / (2.0 * h);
                let analytic = f64::from(fit.d_error(e));
                assert!(
                    (numeric - analytic).abs() < 1e-4 + 1e-3 * numeric.abs(),
                    "power {power}, error {e}: analytic {analytic}, numeric {numeric}"
                );
            }
        }
        // The squared error's derivative to the bit, so that power 2 trains as before.
        for e in [-0.37f32, 1e-7, 0.123_456_7] {
            assert_eq!(Fit::squared(0.1).d_error(e).to_bits(), (2.0 * e).to_bits());
        }
        // A higher power weighs a large error more and a small one less.
        let at = |p: f32, e: f32| Fit { wdl: 0.0, power: p }.d_error(e) / (2.0 * e);
        assert!(at(2.5, 0.8) > 1.0 && at(2.5, 0.05) < 0.5);
    }

    #[test]
    fn gradients_match_finite_differences() {
        gradients_match(Layout::Plain, false);
        gradients_match(Layout::Kings4, true);
    }

    fn gradients_match(layout: Layout, factorised: bool) {
        // 26 pieces: with 8 output buckets, bucket 6 (26-29 pieces).
        let s = Sample::new(
            &chess("r1bqk2r/pp3ppp/2n2n2/4p3/2B5/5N2/PP3PPP/RNBQK2R w KQkq - 0 8"),
            35,
            viriformat::DRAW,
            layout,
        );
        assert_eq!(nnue::output_bucket(usize::from(s.count), 8), 6);
        let mut model = Model::new(8, 8, layout, 3);
        if factorised {
            model = model.with_shared_rows().unwrap();
            // Shared rows of some weight, so that they count in the accumulators.
            let mut rng = StdRng::seed_from_u64(8);
            let shared = layout.inputs() * 8..model.ft_bias_at();
            for x in &mut model.w[shared] {
                *x = rng.random_range(-0.1..0.1);
            }
        }
        // Put some accumulators inside (0, 1), where SCReLU has a gradient.
        for j in 0..8 {
            let at = model.ft_bias_at() + j;
            model.w[at] = 0.3;
        }
        let mut g = vec![0.0; model.w.len()];
        let mut acc = vec![0.0; 16];
        let one = |_: f32| 1.0f32;
        model.forward_backward(&s, &mut acc, Some((&mut g, &one)));
        let bucket_at = model.out_at() + 6 * 16;
        let mut probe = vec![
            usize::from(s.us[0]) * 8 + 1,
            usize::from(s.them[3]) * 8 + 5,
            model.ft_bias_at() + 2,
            bucket_at + 4,
            bucket_at + 8 + 6,
            model.bias_at() + 6,
            // Another bucket's weight and bias: no gradient from this position.
            model.out_at() + 4,
            model.bias_at() + 3,
        ];
        if let Some(shared) = model.shared_at() {
            // The shared rows of two active features, at a neuron with a gradient: the
            // gradient of the features' bucket rows.
            for f in [s.us[0], s.them[3]] {
                let f = usize::from(f);
                let j = (0..8)
                    .find(|&j| g[f * 8 + j] != 0.0)
                    .expect("a neuron with a gradient");
                let r = (shared + f % nnue::INPUTS) * 8 + j;
                assert_eq!(g[r], g[f * 8 + j]);
                probe.extend([f * 8 + j, r]);
            }
        }
        for &i in &probe {
            let eps = 1e-3;
            let mut up = model.clone();
            up.w[i] += eps;
            let mut down = model.clone();
            down.w[i] -= eps;
            let numeric = (up.forward_backward(&s, &mut acc, None)
                - down.forward_backward(&s, &mut acc, None))
                / (2.0 * eps);
            assert!(
                (numeric - g[i]).abs() < 2e-3 + 0.02 * numeric.abs(),
                "weight {i}: analytic {} numeric {numeric}",
                g[i]
            );
        }
    }

    #[test]
    fn the_quantised_net_matches_the_float_net() {
        // Every layout: the trainer's features are the engine's.
        for layout in Layout::ALL {
            quantised_matches_float(layout, false);
        }
        // Factorised: the net written merges the shared rows into every bucket's.
        quantised_matches_float(Layout::Kings4, true);
    }

    fn quantised_matches_float(layout: Layout, factorised: bool) {
        let data = synthetic(2000, 5, layout);
        // Eight output buckets, and positions of 32 down to 3 pieces.
        let mut model = Model::new(32, 8, layout, 6);
        if factorised {
            model = model.with_shared_rows().unwrap();
        }
        train_for(&mut model, &data, 5);
        if factorised {
            // The shared rows learnt something, so the merge is tested.
            let shared = &model.w[layout.inputs() * 32..model.ft_bias_at()];
            assert!(shared.iter().filter(|x| x.abs() > 1e-3).count() > 1000);
        }
        let net = Network::from_bytes(&model.quantise().unwrap().to_bytes()).unwrap();
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        ];
        for fen in fens {
            let pos = chess(fen);
            let float = model.eval_cp(&Sample::new(&pos, 0, 1, layout));
            let quant = net.evaluate(&pos) as f32;
            // Rounding to 255ths and 64ths: within 12 cp and 5% here (measured: 0 to 9 cp on
            // these five; the output weights of a young net are small, so their 64ths are
            // coarse).
            assert!(
                (float - quant).abs() <= 12.0 + 0.05 * float.abs(),
                "{layout:?} {fen}: float {float} quantised {quant}"
            );
        }
    }

    #[test]
    fn a_factorised_model_starts_as_its_unfactorised_self_and_learns_across_buckets() {
        let data = synthetic(300, 21, Layout::Kings4);
        let plain = Model::new(16, 8, Layout::Kings4, 4);
        let model = plain.with_shared_rows().unwrap();
        assert_eq!(model.w.len(), plain.w.len() + nnue::INPUTS * 16);
        // The shared rows start at zero: the same outputs, and the same net written.
        for s in &data[..50] {
            assert_eq!(model.eval_cp(s), plain.eval_cp(s));
        }
        assert_eq!(
            model.quantise().unwrap().to_bytes(),
            plain.quantise().unwrap().to_bytes()
        );
        // One bucket or factorised already: refused.
        assert!(
            Model::new(8, 1, Layout::Plain, 1)
                .with_shared_rows()
                .is_err()
        );
        assert!(
            Model::new(8, 1, Layout::Mirrored, 1)
                .with_shared_rows()
                .is_err()
        );
        assert!(model.with_shared_rows().is_err());
        // A position's gradient reaches its features' shared rows: a step on positions
        // whose kings both stand in bucket 1 (home, d1 after the flip) moves the other
        // buckets' merged weights too.
        let bucket = |f: u16| usize::from(f) / nnue::INPUTS;
        let home: Vec<Sample> = data
            .iter()
            .copied()
            .filter(|s| bucket(s.us[0]) == 1 && bucket(s.them[0]) == 1)
            .collect();
        assert!(home.len() > 20, "{}", home.len());
        let (mut a, mut b) = (model.clone(), plain.clone());
        train_for(&mut a, &home, 1);
        train_for(&mut b, &home, 1);
        let bucket3 = |m: &Model| {
            let net = m.quantise().unwrap();
            net.parts().0[3 * nnue::INPUTS * 16..4 * nnue::INPUTS * 16].to_vec()
        };
        assert_eq!(
            bucket3(&b),
            bucket3(&plain),
            "no shared rows: bucket 3 untouched"
        );
        assert_ne!(bucket3(&a), bucket3(&model), "shared rows: bucket 3 moved");
    }

    #[test]
    fn the_anchor_pulls_towards_the_starting_weights() {
        // No gradient: only the pulls act. The anchor takes each weight a fraction lr * a of
        // the way back to its start per step; the decay alone pulls towards zero instead.
        let start = vec![0.5f32, -1.0, 0.25];
        let moved = vec![1.5f32, -2.0, 0.25];
        let zero = vec![0.0f32; 3];
        let mut w = moved.clone();
        let mut adam = Adam::new(3);
        for _ in 0..100 {
            let pulls = Pulls {
                decay: 0.0,
                anchor: Some((&start, 5.0)),
            };
            adam.step(&mut w, &zero, 0.01, pulls);
        }
        for ((w, s), m) in w.iter().zip(&start).zip(&moved) {
            let expected = s + (m - s) * 0.95f32.powi(100);
            assert!((w - expected).abs() < 1e-4, "{w} against {expected}");
        }
        let mut w = moved.clone();
        let mut adam = Adam::new(3);
        for _ in 0..100 {
            let pulls = Pulls {
                decay: 5.0,
                anchor: None,
            };
            adam.step(&mut w, &zero, 0.01, pulls);
        }
        assert!((w[0] - 1.5 * 0.95f32.powi(100)).abs() < 1e-4, "{}", w[0]);
    }

    #[test]
    fn an_anchored_fine_tune_stays_nearer_its_start() {
        let data = synthetic(2000, 21, Layout::Plain);
        let start = Model::new(16, 2, Layout::Plain, 22);
        let distance = |anchor: Option<f32>| {
            let mut model = start.clone();
            let mut adam = Adam::new(model.w.len());
            let mut grads = vec![vec![0.0; model.w.len()]; 2];
            for _ in 0..5 {
                for batch in data.chunks(256) {
                    let pulls = Pulls {
                        decay: 0.0,
                        anchor: anchor.map(|a| (start.w.as_slice(), a)),
                    };
                    train_batch(
                        &mut model,
                        &mut adam,
                        batch,
                        Fit::squared(0.3),
                        0.01,
                        pulls,
                        &mut grads,
                    );
                }
            }
            let d: f32 = model
                .w
                .iter()
                .zip(&start.w)
                .map(|(a, b)| (a - b).powi(2))
                .sum();
            d.sqrt()
        };
        let (free, anchored) = (distance(None), distance(Some(20.0)));
        assert!(free > 0.0);
        assert!(anchored < 0.5 * free, "anchored {anchored}, free {free}");
    }

    #[test]
    fn a_widened_net_evaluates_as_the_narrow_one_and_then_learns_with_its_new_neurons() {
        let data = synthetic(1000, 41, Layout::Plain);
        let mut narrow = Model::new(8, 4, Layout::Plain, 42);
        train_for(&mut narrow, &data, 3);
        let mut wide = narrow.widened(24, 43).unwrap();
        assert_eq!(
            (wide.hidden, wide.buckets, wide.layout),
            (24, 4, Layout::Plain)
        );
        assert_eq!(wide.w.len(), Model::len(nnue::INPUTS, 24, 4));
        for s in &data[..200] {
            let (a, b) = (narrow.eval_cp(s), wide.eval_cp(s));
            assert!((a - b).abs() < 1e-3, "narrow {a}, widened {b}");
        }
        // The new neurons' input weights are random (they can learn), their outputs zero.
        let inputs = wide.layout.inputs();
        let new_inputs = (0..inputs).flat_map(|i| &wide.w[i * 24 + 8..(i + 1) * 24]);
        assert!(new_inputs.filter(|&&x| x != 0.0).count() > inputs * 8);
        let before = wide.w.clone();
        train_for(&mut wide, &data, 1);
        let moved = (0..4).any(|b| {
            let at = wide.out_at() + b * 48;
            (8..24).any(|k| wide.w[at + k] != before[at + k])
        });
        assert!(moved, "training never reached the new neurons");
        // Widening to the same or a smaller size is refused.
        assert!(narrow.widened(8, 1).is_err());
        assert!(narrow.widened(4, 1).is_err());
    }

    #[test]
    fn an_output_scale_scales_the_evaluation_and_nothing_else() {
        let data = synthetic(1000, 31, Layout::Plain);
        let mut model = Model::new(16, 4, Layout::Plain, 32);
        train_for(&mut model, &data, 5);
        let plain = model.quantise_scaled(1.0).unwrap();
        assert!(plain == model.quantise().unwrap());
        let half = model.quantise_scaled(0.5).unwrap();
        assert_eq!(half.parts().0, plain.parts().0);
        assert_eq!(half.parts().1, plain.parts().1);
        // Every output weight and bias is halved, rounded once from the float (so within one
        // step of half the unscaled integer).
        for (h, p) in half.parts().2.iter().zip(plain.parts().2) {
            assert!(
                (i32::from(*h) * 2 - i32::from(*p)).abs() <= 2,
                "{h} against {p}"
            );
        }
        assert!(half.parts().2.iter().any(|&w| w != 0));
        for (h, p) in half.parts().3.iter().zip(plain.parts().3) {
            assert!((h * 2 - p).abs() <= 2, "bias {h} against {p}");
        }
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = chess(fen);
            let float = model.eval_cp(&Sample::new(&pos, 0, 1, Layout::Plain));
            let scaled = half.evaluate(&pos) as f32;
            assert!(
                (float / 2.0 - scaled).abs() <= 12.0 + 0.05 * float.abs(),
                "{fen}: float {float}, at half scale {scaled}"
            );
        }
        // A scale that would take an output weight past the clip, or no scale at all, is
        // refused.
        assert!(model.quantise_scaled(1000.0).is_err());
        assert!(model.quantise_scaled(0.0).is_err());
        assert!(model.quantise_scaled(f32::NAN).is_err());
    }

    #[test]
    fn a_recipe_from_before_anchor_output_scale_and_loss_power_means_none() {
        let text = "commit abc\n\
            data data/gen4/0001.vf.xz 0000000000000000000000000000000000000000000000000000000000000000\n\
            set hidden 128\nset buckets 8\nset inputs plain\nset epochs 2\nset batch 16384\n\
            set lr 0.002\nset lr-end 0.05\nset wdl 0.3\nset decay 0.1\nset mirror all\n\
            set threads 1\nset seed 1\nset limit 100\n";
        let recipe = Recipe::parse(text, "old").unwrap();
        let cfg = config_of(&recipe, Path::new("/tmp/unused"), false).unwrap();
        assert_eq!(
            (cfg.anchor, cfg.output_scale, cfg.loss_power),
            (0.0, 1.0, 2.0)
        );
        let newer = Recipe::parse(
            &format!("{text}set anchor 3\nset output-scale 0.9\nset loss-power 2.5\n"),
            "new",
        )
        .unwrap();
        let cfg = config_of(&newer, Path::new("/tmp/unused"), false).unwrap();
        assert_eq!(
            (cfg.anchor, cfg.output_scale, cfg.loss_power),
            (3.0, 0.9, 2.5)
        );
    }

    #[test]
    fn a_net_read_back_as_floats_quantises_to_itself() {
        let layout = Layout::Plain;
        let data = synthetic(500, 11, layout);
        let mut model = Model::new(16, 8, layout, 12);
        train_for(&mut model, &data, 3);
        let net = model.quantise().unwrap();
        let back = Model::from_network(&net);
        assert_eq!((back.hidden, back.buckets, back.layout), (16, 8, layout));
        assert_eq!(back.w.len(), model.w.len());
        // Every weight within half a quantisation step of the trained one (the output bias:
        // of QA * QB).
        let step = |i: usize| {
            if i < back.out_at() {
                0.5 / QA as f32
            } else if i < back.bias_at() {
                0.5 / QB as f32
            } else {
                0.5 / (QA * QB) as f32
            }
        };
        for (i, (a, b)) in model.w.iter().zip(&back.w).enumerate() {
            assert!(
                (a - b).abs() <= step(i) + 1e-6,
                "weight {i}: {a} against {b}"
            );
        }
        assert!(back.quantise().unwrap() == net);
    }

    #[test]
    fn a_checkpoint_round_trips_and_resumes_the_same_model() {
        let dir = crate::nnue_data::scratch_dir("nnue-ckpt");
        let path = dir.join("checkpoint.bin");
        let models = [
            Model::new(8, 4, Layout::Mirrored, 9),
            Model::new(8, 4, Layout::Kings4, 9),
            Model::new(8, 4, Layout::Kings4, 9)
                .with_shared_rows()
                .unwrap(),
        ];
        for model in models {
            let mut adam = Adam::new(model.w.len());
            adam.t = 17;
            adam.m[3] = 0.25;
            save_checkpoint(&path, &model, &adam, 4).unwrap();
            let (m, a, e) = load_checkpoint(&path).unwrap();
            assert_eq!((m, a, e), (model, adam, 4));
        }
        // A checkpoint of the first version (no bucket count: one bucket) still resumes.
        let old = Model::new(8, 1, Layout::Plain, 9);
        let mut v1 = b"SHCKPT01".to_vec();
        for x in [8u64, 3, 17] {
            v1.extend_from_slice(&x.to_le_bytes());
        }
        for x in old.w.iter().chain(&vec![0.0f32; 2 * old.w.len()]) {
            v1.extend_from_slice(&x.to_le_bytes());
        }
        std::fs::write(&path, &v1).unwrap();
        let (m, a, e) = load_checkpoint(&path).unwrap();
        assert_eq!((m, a.t, e), (old, 17, 3));
        std::fs::write(&path, b"SHCKPT01 but short").unwrap();
        assert!(load_checkpoint(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_requantised_checkpoint_is_the_net_its_scale_would_have_written() {
        let dir = crate::nnue_data::scratch_dir("nnue-requant");
        let (ckpt, out) = (dir.join("checkpoint.bin"), dir.join("net.nnue"));
        let model = Model::new(16, 2, Layout::Plain, 5);
        save_checkpoint(&ckpt, &model, &Adam::new(model.w.len()), 7).unwrap();
        assert_eq!(requantise(&ckpt, 0.8, &out).unwrap(), 7);
        let written = std::fs::read(&out).unwrap();
        assert_eq!(written, model.quantise_scaled(0.8).unwrap().to_bytes());
        assert_ne!(written, model.quantise_scaled(1.0).unwrap().to_bytes());
        assert!(requantise(&ckpt, -1.0, &out).is_err());
        std::fs::write(&ckpt, b"not a checkpoint").unwrap();
        assert!(requantise(&ckpt, 0.8, &out).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `load` of every position of some directories, plain inputs.
    fn load_dirs(
        dirs: &[PathBuf],
        validation_only: bool,
    ) -> Result<(Vec<Sample>, Vec<Sample>), String> {
        load(
            &crate::store::resolve(dirs)?,
            usize::MAX,
            Layout::Plain,
            validation_only,
        )
    }

    #[test]
    fn validation_from_other_directories_comes_from_their_held_out_games_only() {
        let dir = crate::nnue_data::scratch_dir("nnue-valid");
        let (a, b) = (dir.join("a"), dir.join("b"));
        for (d, seed) in [(&a, 1), (&b, 2)] {
            std::fs::create_dir_all(d).unwrap();
            let bytes: Vec<u8> = (0..300)
                .flat_map(|i| {
                    crate::nnue_data::test_game(seed * 1000 + i, 10 + i as usize % 30).to_bytes()
                })
                .collect();
            std::fs::write(d.join("games.vf"), bytes).unwrap();
        }
        let key = |s: &Sample| (feature_sets(s), s.score, s.result);
        let keys = |v: &[Sample]| v.iter().map(key).collect::<Vec<_>>();
        let (train_b, valid_b) = load_dirs(std::slice::from_ref(&b), false).unwrap();
        let (none, only_b) = load_dirs(std::slice::from_ref(&b), true).unwrap();
        assert!(none.is_empty());
        assert!(!valid_b.is_empty() && !train_b.is_empty());
        assert_eq!(keys(&only_b), keys(&valid_b));
        // Two directories: each game on the same side as when its directory is read alone.
        let (train_ab, valid_ab) = load_dirs(&[a.clone(), b], false).unwrap();
        let (train_a, valid_a) = load_dirs(&[a], false).unwrap();
        assert_eq!(keys(&train_ab), [keys(&train_a), keys(&train_b)].concat());
        assert_eq!(keys(&valid_ab), [keys(&valid_a), keys(&valid_b)].concat());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_from_an_init_net_reports_that_net_as_epoch_0() {
        let dir = crate::nnue_data::scratch_dir("nnue-init");
        let data = dir.join("data");
        std::fs::create_dir_all(&data).unwrap();
        let bytes: Vec<u8> = (0..200)
            .flat_map(|i| crate::nnue_data::test_game(7000 + i, 12 + i as usize % 20).to_bytes())
            .collect();
        std::fs::write(data.join("games.vf"), bytes).unwrap();
        let net = Model::new(8, 2, Layout::Plain, 3).quantise().unwrap();
        let init = dir.join("init.nnue");
        std::fs::write(&init, net.to_bytes()).unwrap();
        let cfg = Config {
            data: vec![data.clone()],
            valid: None,
            out: dir.join("out"),
            hidden: 8,
            buckets: 2,
            layout: Layout::Plain,
            factoriser: false,
            epochs: 1,
            batch: 256,
            lr: 0.001,
            lr_end: 0.1,
            wdl: 0.3,
            decay: 0.0,
            anchor: 0.0,
            output_scale: 1.0,
            loss_power: 2.0,
            mirror: Mirror::Off,
            threads: 1,
            seed: 1,
            limit: usize::MAX,
            progress: false,
            init: Some(init),
            pause_after: None,
        };
        run(&cfg).unwrap();
        let history = read_history(&cfg.out.join("loss.csv"));
        assert_eq!(history.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1]);
        // Epoch 0 is the init net's own validation loss, on the run's held-out games.
        let (_, valid) = load_dirs(&cfg.data, false).unwrap();
        let expected = loss(&Model::from_network(&net), &valid, 0.3, 1);
        assert!(
            (history[0].2 - expected).abs() < 1e-6,
            "{history:?} {expected}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn replayed_epochs_leave_the_samples_as_the_epochs_did() {
        // Random walks from the start (castling rights kept) and king-and-rook endings (none).
        let mut samples = synthetic(150, 3, Layout::Plain);
        for i in 0..60i16 {
            let fen = format!(
                "8/8/4k3/8/{}/4K3/8/8 w - - 0 1",
                ["R7", "1R6", "2R5"][i as usize % 3]
            );
            samples.push(sample(&fen, 10 * i, viriformat::DRAW));
        }
        assert!(samples.iter().any(|s| s.no_castling));
        assert!(samples.iter().any(|s| !s.no_castling));
        for mirror in [Mirror::Off, Mirror::Exact, Mirror::All] {
            for epochs in [0, 1, 2, 5] {
                let (mut slow, mut fast) = (samples.clone(), samples.clone());
                let mut a = StdRng::seed_from_u64(9);
                let mut b = StdRng::seed_from_u64(9);
                for _ in 0..epochs {
                    slow.shuffle(&mut a);
                    remirror(&mut slow, mirror, &mut a);
                }
                replay_epochs(&mut fast, epochs, mirror, &mut b);
                let key = |s: &Sample| (s.us, s.them, s.count, s.score, s.result);
                assert!(
                    slow.iter().map(key).eq(fast.iter().map(key)),
                    "{mirror:?}, {epochs} epochs"
                );
                // The generators are left in the same state too.
                assert_eq!(a.random::<u64>(), b.random::<u64>());
            }
        }
    }

    #[test]
    fn a_recipe_makes_the_same_bytes_again_and_so_does_a_resumed_run() {
        recipe_remakes_its_nets(Layout::Plain, false);
        // A factorised run's checkpoint keeps its shared rows, and its recipe says so.
        recipe_remakes_its_nets(Layout::Kings4, true);
    }

    fn recipe_remakes_its_nets(layout: Layout, factoriser: bool) {
        let dir = crate::nnue_data::scratch_dir(&format!("nnue-recipe-{}", layout.name()));
        let data = dir.join("data");
        std::fs::create_dir_all(&data).unwrap();
        for (file, first) in [("a.vf", 100), ("b.vf", 500)] {
            let bytes: Vec<u8> = (0..120)
                .flat_map(|i| {
                    crate::nnue_data::test_game(first + i, 12 + i as usize % 20).to_bytes()
                })
                .collect();
            std::fs::write(data.join(file), bytes).unwrap();
        }
        let cfg = Config {
            // One file given alone, one through its directory would read it twice: give both
            // alone, in the order the recipe must keep.
            data: vec![data.join("b.vf"), data.join("a.vf")],
            valid: None,
            out: dir.join("first"),
            hidden: 8,
            buckets: 2,
            layout,
            factoriser,
            epochs: 3,
            batch: 128,
            lr: 0.002,
            lr_end: 0.1,
            wdl: 0.3,
            decay: 0.01,
            anchor: 0.0,
            output_scale: 1.0,
            loss_power: 2.0,
            mirror: Mirror::All,
            threads: 2,
            seed: 5,
            limit: usize::MAX,
            progress: false,
            init: None,
            pause_after: None,
        };
        run(&cfg).unwrap();
        let recipe = Recipe::read(&cfg.out.join("recipe.txt")).unwrap();
        assert_eq!(
            recipe.setting("factoriser").unwrap(),
            if factoriser { "on" } else { "off" }
        );
        assert_eq!(
            recipe
                .data
                .iter()
                .map(|p| p.path.clone())
                .collect::<Vec<_>>(),
            cfg.data
        );
        let names: Vec<&str> = recipe.nets.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["epoch-1.nnue", "epoch-2.nnue", "epoch-3.nnue", "best.nnue"]
        );

        // The recipe alone makes the same nets.
        recipe.check_inputs().unwrap();
        let again = config_of(&recipe, &dir.join("again"), false).unwrap();
        run(&again).unwrap();
        assert_eq!(recipe.compare_nets(&again.out).unwrap().len(), 4);

        // Stopped after epoch 1 and resumed: the same nets too.
        let paused = Config {
            out: dir.join("paused"),
            pause_after: Some(1),
            ..again
        };
        run(&paused).unwrap();
        assert!(!paused.out.join("epoch-2.nnue").exists());
        run(&Config {
            pause_after: None,
            ..paused
        })
        .unwrap();
        assert_eq!(recipe.compare_nets(&dir.join("paused")).unwrap().len(), 4);

        // Another seed is another net, and the comparison says so.
        let other = Config {
            out: dir.join("other"),
            seed: 6,
            pause_after: None,
            ..config_of(&recipe, &dir.join("unused"), false).unwrap()
        };
        run(&other).unwrap();
        assert!(recipe.compare_nets(&other.out).is_err());

        // So is another loss power, and the recipe records it; a power out of range is refused.
        let powered = Config {
            out: dir.join("powered"),
            loss_power: 2.5,
            ..config_of(&recipe, &dir.join("unused"), false).unwrap()
        };
        run(&powered).unwrap();
        assert!(recipe.compare_nets(&powered.out).is_err());
        let again = Recipe::read(&powered.out.join("recipe.txt")).unwrap();
        assert_eq!(again.setting("loss-power").unwrap(), "2.5");
        assert_eq!(recipe.setting("loss-power").unwrap(), "2");
        let e = run(&Config {
            out: dir.join("too-high"),
            loss_power: 5.0,
            ..config_of(&recipe, &dir.join("unused"), false).unwrap()
        })
        .unwrap_err();
        assert!(e.contains("--loss-power 5"), "{e}");

        // A data file that changed is named, and nothing is trained.
        let mut bytes = std::fs::read(data.join("a.vf")).unwrap();
        bytes.truncate(bytes.len() - 7);
        std::fs::write(data.join("a.vf"), bytes).unwrap();
        let e = recipe.check_inputs().unwrap_err();
        assert!(e.contains("a.vf") && e.contains("the recipe says"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
