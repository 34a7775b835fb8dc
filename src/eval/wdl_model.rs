//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 210526 positions of
//! data/gen13.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "5aeb590d56bc646f0f436010c7e1bfb33dd212e6b3e42c0967398115c1670f63";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    130.432347,
    -132.315619,
    -330.395052,
    505.515173,
    -66.463773,
    32.880504,
    165.291920,
    59.413294,
];
