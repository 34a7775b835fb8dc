//! SPSA as OpenBench runs it.
//!
//! For N iterations and A = `a_ratio` * N, each parameter gets
//! `c = c_end * N^gamma`, `a_end = r_end * c_end^2` and `a = a_end * (A + N)^alpha`.
//! Iteration k (from 1) plays game pairs between `theta + c_k * flip` and `theta - c_k * flip`
//! (flip = +-1 per parameter, integer values rounded as `floor(x + u)` with one uniform `u`
//! per parameter for both sides, then clipped to [min, max]), where
//! `c_k = max(c / k^gamma, 0.5)` and `r_k = a / (A + k)^alpha / c_k^2`. With `W - L` the result
//! of the `+` side, every parameter moves by `r_k * c_k * (W - L) * flip` and is clipped again.

use rand::RngExt;

/// One tuned parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub start: f64,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub c_end: f64,
    pub r_end: f64,
    /// `c_end * N^gamma`.
    pub c: f64,
    /// `r_end * c_end^2 * (A + N)^alpha`.
    pub a: f64,
}

/// The SPSA hyper-parameters (OpenBench's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub iterations: usize,
    pub alpha: f64,
    pub gamma: f64,
    /// A as a share of the iterations.
    pub a_ratio: f64,
}

impl Schedule {
    pub fn new(iterations: usize) -> Schedule {
        Schedule {
            iterations,
            alpha: 0.602,
            gamma: 0.101,
            a_ratio: 0.1,
        }
    }

    pub fn big_a(&self) -> f64 {
        self.a_ratio * self.iterations as f64
    }
}

/// One iteration's probe: the values each side plays with.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub iteration: usize,
    pub flips: Vec<f64>,
    /// `theta + c_k * flip`, rounded and clipped.
    pub plus: Vec<i32>,
    /// `theta - c_k * flip`, rounded and clipped.
    pub minus: Vec<i32>,
    pub c: Vec<f64>,
    pub r: Vec<f64>,
}

pub struct Spsa {
    pub schedule: Schedule,
    pub params: Vec<Param>,
}

impl Spsa {
    /// `(name, start, min, max, c_end, r_end)` per parameter.
    pub fn new(schedule: Schedule, specs: &[(String, f64, f64, f64, f64, f64)]) -> Spsa {
        let n = schedule.iterations as f64;
        let params = specs
            .iter()
            .map(|(name, start, min, max, c_end, r_end)| Param {
                name: name.clone(),
                start: *start,
                value: *start,
                min: *min,
                max: *max,
                c_end: *c_end,
                r_end: *r_end,
                c: c_end * n.powf(schedule.gamma),
                a: r_end * c_end * c_end * (schedule.big_a() + n).powf(schedule.alpha),
            })
            .collect();
        Spsa { schedule, params }
    }

    /// `(c_k, r_k)` of every parameter at iteration `k` (from 1).
    pub fn coefficients(&self, k: usize) -> Vec<(f64, f64)> {
        let s = &self.schedule;
        let c_compression = (k as f64).powf(s.gamma);
        let r_compression = (s.big_a() + k as f64).powf(s.alpha);
        self.params
            .iter()
            .map(|p| {
                let c = (p.c / c_compression).max(0.5);
                (c, p.a / r_compression / (c * c))
            })
            .collect()
    }

    /// The probe of iteration `k`, with random flips and roundings from `rng`.
    pub fn probe(&self, k: usize, rng: &mut impl rand::Rng) -> Probe {
        let coef = self.coefficients(k);
        let mut probe = Probe {
            iteration: k,
            flips: Vec::new(),
            plus: Vec::new(),
            minus: Vec::new(),
            c: Vec::new(),
            r: Vec::new(),
        };
        for (p, &(c, r)) in self.params.iter().zip(&coef) {
            let flip = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let u: f64 = rng.random();
            let (plus, minus) = round_pair(p, flip, c, u);
            probe.flips.push(flip);
            probe.plus.push(plus);
            probe.minus.push(minus);
            probe.c.push(c);
            probe.r.push(r);
        }
        probe
    }

    /// Applies one result (`wins - losses` of the `+` side over the probe's games).
    pub fn update(&mut self, probe: &Probe, result: f64) {
        for (i, p) in self.params.iter_mut().enumerate() {
            let delta = probe.r[i] * probe.c[i] * result * probe.flips[i];
            p.value = (p.value + delta).clamp(p.min, p.max);
        }
    }
}

/// `theta +- c * flip`, rounded as `floor(x + u)` and clipped.
pub fn round_pair(p: &Param, flip: f64, c: f64, u: f64) -> (i32, i32) {
    let plus = ((p.value + flip * c) + u).floor().clamp(p.min, p.max);
    let minus = ((p.value - flip * c) + u).floor().clamp(p.min, p.max);
    (plus as i32, minus as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn one(start: f64, min: f64, max: f64, c_end: f64, r_end: f64, n: usize) -> Spsa {
        Spsa::new(
            Schedule::new(n),
            &[("X".to_string(), start, min, max, c_end, r_end)],
        )
    }

    /// Every number below was computed by hand from the OpenBench formulas.
    #[test]
    fn coefficients_match_hand_computation() {
        // N = 1000, A = 100, c_end = 10, r_end = 0.002.
        let s = one(100.0, 0.0, 200.0, 10.0, 0.002, 1000);
        let p = &s.params[0];
        // c = 10 * 1000^0.101 = 10 * 2.009093 = 20.09093
        assert!((p.c - 20.09093).abs() < 1e-4, "{}", p.c);
        // a_end = 0.002 * 10^2 = 0.2; a = 0.2 * 1100^0.602 = 0.2 * 67.75142 = 13.55028
        assert!((p.a - 13.55028).abs() < 1e-4, "{}", p.a);
        // k = 1: c_1 = c; r_1 = a / 101^0.602 / c^2 = 13.55028 / 16.09168 / 403.6454
        let (c1, r1) = s.coefficients(1)[0];
        assert!((c1 - 20.09093).abs() < 1e-4);
        assert!((r1 - 0.00208616).abs() < 1e-7, "{r1}");
        // k = N: c_N = c_end, r_N = a_end * ((A + N) / (A + N))^alpha / c_end^2 = r_end.
        let (cn, rn) = s.coefficients(1000)[0];
        assert!((cn - 10.0).abs() < 1e-9);
        assert!((rn - 0.002).abs() < 1e-9);
    }

    #[test]
    fn small_perturbations_are_floored_at_half() {
        let s = one(5.0, 0.0, 10.0, 0.2, 0.002, 100);
        let (c, _) = s.coefficients(100)[0];
        assert_eq!(c, 0.5);
    }

    #[test]
    fn update_rounding_and_clipping() {
        let mut s = one(100.0, 0.0, 120.0, 10.0, 0.002, 1000);
        let probe = Probe {
            iteration: 1,
            flips: vec![1.0],
            plus: vec![110],
            minus: vec![90],
            c: vec![10.0],
            r: vec![0.05],
        };
        // +3 net wins for the + side: 100 + 0.05 * 10 * 3 * 1 = 101.5.
        s.update(&probe, 3.0);
        assert!((s.params[0].value - 101.5).abs() < 1e-12);
        // A huge result is clipped at the maximum.
        s.update(&probe, 1000.0);
        assert_eq!(s.params[0].value, 120.0);
        // Rounding: 101.5 + 2.3 = 103.8; with u = 0.1 -> floor(103.9) = 103; with u = 0.3
        // -> floor(104.1) = 104. The minus side: 99.2 + 0.1 -> 99; 99.2 + 0.3 -> 99.
        let p = Param {
            value: 101.5,
            ..s.params[0].clone()
        };
        assert_eq!(round_pair(&p, 1.0, 2.3, 0.1), (103, 99));
        assert_eq!(round_pair(&p, 1.0, 2.3, 0.3), (104, 99));
        assert_eq!(round_pair(&p, -1.0, 2.3, 0.9), (100, 104));
        // Clipping of probes at the bounds.
        let edge = Param {
            value: 119.0,
            ..p.clone()
        };
        assert_eq!(round_pair(&edge, 1.0, 5.0, 0.0).0, 120);
    }

    #[test]
    fn probabilistic_rounding_is_unbiased() {
        let s = one(10.3, 0.0, 100.0, 2.0, 0.002, 100);
        let mut rng = StdRng::seed_from_u64(5);
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let p = s.probe(100, &mut rng);
            sum += f64::from(p.plus[0] + p.minus[0]) / 2.0;
        }
        let mean = sum / f64::from(n);
        assert!((mean - 10.3).abs() < 0.02, "{mean}");
    }

    /// A noisy objective with a known optimum: the + side wins a game with probability
    /// `sigmoid(f(+) - f(-))`, where `f` peaks at the optimum. SPSA must get close to it.
    #[test]
    fn converges_on_a_noisy_objective() {
        let optimum = [70.0, 20.0, 300.0];
        let specs: Vec<(String, f64, f64, f64, f64, f64)> = vec![
            ("A".into(), 40.0, 0.0, 100.0, 4.0, 0.002),
            ("B".into(), 35.0, 0.0, 50.0, 2.0, 0.002),
            ("C".into(), 200.0, 100.0, 500.0, 20.0, 0.002),
        ];
        let scales = [30.0, 15.0, 150.0];
        let f = |x: &[i32]| -> f64 {
            -x.iter()
                .zip(optimum.iter().zip(scales))
                .map(|(&v, (&o, s))| ((f64::from(v) - o) / s).powi(2))
                .sum::<f64>()
        };
        let iterations = 3000;
        let mut s = Spsa::new(Schedule::new(iterations), &specs);
        let mut rng = StdRng::seed_from_u64(11);
        for k in 1..=iterations {
            let probe = s.probe(k, &mut rng);
            let p_win = 1.0 / (1.0 + (-(f(&probe.plus) - f(&probe.minus)) * 2.0).exp());
            let mut result = 0.0;
            for _ in 0..2 {
                result += if rng.random_bool(p_win) { 1.0 } else { -1.0 };
            }
            s.update(&probe, result);
        }
        for (i, p) in s.params.iter().enumerate() {
            let err = (p.value - optimum[i]).abs() / scales[i];
            assert!(err < 0.35, "{}: {} vs {}", p.name, p.value, optimum[i]);
        }
    }
}
