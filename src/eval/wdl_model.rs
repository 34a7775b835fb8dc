//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 207090 positions of
//! data/gen14.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "9c1e52162870635c65a6d78d687193b7ec5ef55f7c411224ee7238024c135756";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    121.009967,
    -99.988388,
    -342.665195,
    486.607432,
    -107.310163,
    73.778813,
    218.485847,
    54.405590,
];
