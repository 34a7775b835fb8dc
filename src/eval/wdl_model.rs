//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 164676 positions of
//! data/gen6.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "81c54844ebe98ba969bd219c97e78b0410c69ca34e6003eb7731bfb196134bcd";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    124.526384,
    -102.839760,
    -334.836291,
    473.840601,
    -94.258780,
    62.676117,
    197.646211,
    48.777742,
];
