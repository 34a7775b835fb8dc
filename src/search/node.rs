//! Node kinds as types, the unit of reductions and the late-move reduction table: what every
//! part of the search counts in.

use crate::params::Params;

/// Node kinds as types, so one generic search compiles into specialised copies.
pub(crate) trait Node {
    const PV: bool;
    const ROOT: bool;
}

pub(crate) struct Root;
pub(crate) struct Pv;
pub(crate) struct NonPv;

impl Node for Root {
    const PV: bool = true;
    const ROOT: bool = true;
}

impl Node for Pv {
    const PV: bool = true;
    const ROOT: bool = false;
}

impl Node for NonPv {
    const PV: bool = false;
    const ROOT: bool = false;
}

/// Reductions are counted in 1/1024 plies, so fractional adjustments add up before rounding.
pub(crate) const PLY: i32 = 1024;

/// Late-move reduction table in 1/1024 plies: `base + ln(depth) * ln(moves) / div`.
pub(crate) fn lmr_table(p: &Params) -> Vec<[i32; 64]> {
    let mut t = vec![[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, cell) in row.iter_mut().enumerate().skip(1) {
            let r = f64::from(p.LMR_BASE) / 100.0
                + (d as f64).ln() * (m as f64).ln() / (f64::from(p.LMR_DIV) / 100.0);
            *cell = (r * f64::from(PLY)) as i32;
        }
    }
    t
}
