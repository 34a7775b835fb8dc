//! The win/draw/loss model of `UCI_ShowWDL`, written by `shears-tune wdl-fit` (see
//! `tuning/src/wdl_fit.rs`) from 1466723 self-play positions.

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    162.939761,
    -118.142680,
    -433.187497,
    535.880239,
    -55.593742,
    31.374663,
    125.047203,
    99.449602,
];
