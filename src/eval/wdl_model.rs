//! The win/draw/loss model of `UCI_ShowWDL` and the scale of printed centipawns, written
//! by `shears-tune wdl-fit` (see `tuning/src/wdl_fit.rs`) from 171537 positions of
//! data/gen8.

/// sha256 of the net whose games the model is fitted on (the engine's tests check that
/// it is the built-in net's).
pub const NET_SHA256: &str = "5c890677c903e0a66374895bb25cfff4b9e9db62be26a24c4297b71de4f27133";

/// Coefficients of `a(m)` (cubic, highest power first), then of `b(m)`.
pub(crate) const WDL_PARAMS: [f64; 8] = [
    118.817144,
    -114.442621,
    -304.192772,
    469.969264,
    -63.268942,
    47.738416,
    148.177573,
    76.501761,
];
