//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 273114 positions of
//! data/gen12.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "8326463d7890db90a0eabb75d7a559dd7932050514412656a106e6c2f5518a8b";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    116.452416,
    -98.348019,
    -315.662547,
    460.968087,
    -73.104749,
    45.524715,
    168.468281,
    58.242543,
];
