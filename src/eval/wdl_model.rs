//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 180105 positions of
//! data/gen10.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "5a5359681d554b631ace7b234f20d8786928d12bbbd28bda47d38c862da5e898";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    130.775494,
    -149.810353,
    -288.975885,
    474.324168,
    -73.734059,
    51.524747,
    153.274606,
    65.689808,
];
