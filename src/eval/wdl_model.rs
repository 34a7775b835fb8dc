//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 165593 positions of
//! data/gen7.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "9b7151ba0d9a4d18b7b2a729a6b164339c16d0161f3e2401b061254e57534865";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    113.666624,
    -115.897726,
    -314.785156,
    487.155646,
    -100.463317,
    51.539190,
    199.534709,
    61.564241,
];
