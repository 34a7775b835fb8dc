//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 193699 positions of
//! data/gen5.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "a2376a268563e178dc266a92647c6777cccd9c7ff1fd7ea3d503e024eb55d1fc";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    122.200438,
    -77.371586,
    -373.943892,
    489.644654,
    -64.432597,
    34.639919,
    167.843269,
    73.757550,
];
