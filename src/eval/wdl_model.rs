//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 1008275 positions of
//! data/gen4.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "3701585fe54054a7ab221981daeae034b1976c82a8a352934e0839100f1b391e";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    180.681886,
    -128.094191,
    -458.772299,
    551.842923,
    -40.529162,
    26.996247,
    108.278430,
    104.027323,
];
