//! The win/draw/loss model of `UCI_ShowWDL`, written by `shears-tune wdl-fit` (see
//! `tuning/src/wdl_fit.rs`) from 318230 self-play positions.

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    196.701639,
    -63.048917,
    -562.161468,
    517.557911,
    109.264000,
    -68.355250,
    -143.211472,
    218.951685,
];
