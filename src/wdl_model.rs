//! The win/draw/loss model of `UCI_ShowWDL`, written by `shears-tune wdl-fit` (see
//! `tuning/src/wdl_fit.rs`) from 1957735 self-play positions.

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    186.102111,
    -107.331801,
    -499.733410,
    544.236661,
    -1.991369,
    -2.911118,
    46.162229,
    137.769778,
];
