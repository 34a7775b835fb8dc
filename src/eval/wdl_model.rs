//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 293795 positions of
//! data/gen11.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "b05289b1a91f3d0dd52f2865f2e854265731a25a6cd6157951dcb0390df62a61";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    117.038457,
    -125.210425,
    -294.790305,
    474.549116,
    -108.664593,
    62.118966,
    215.630320,
    40.174942,
];
