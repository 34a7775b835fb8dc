//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 229968 positions of
//! data/gen15.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "3b4fa4778e5ae41ba383a37730b8cc64ab24e7126d9e1b6526aa90e3e56646ae";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    153.297364,
    -152.431588,
    -358.719732,
    532.696537,
    -59.625633,
    51.741961,
    144.461665,
    86.746318,
];
