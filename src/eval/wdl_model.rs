//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 164252 positions of
//! data/gen9.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "5f5b068f1e568552218c62d0e1c11ad9a1349a83c4595239f01487368c78d157";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    98.022203,
    -87.523009,
    -300.162598,
    459.379560,
    -87.217069,
    60.418703,
    193.956694,
    47.109377,
];
