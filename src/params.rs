//! The table of tunables.
//!
//! Every margin, reduction and threshold of the search and the time manager is one line of
//! [`define_params!`] below: name, default, minimum, maximum, SPSA step (`c_end`) and a one-line
//! doc. The macro generates the [`Params`] struct, its `Default`, the UCI `spin` option lines, the
//! range-checked setter and the SPSA exports, so a name is written exactly once.
//!
//! Naming: a prefix says the technique (`RFP_`, `NMP_`, `LMR_`, ...), a suffix what the number
//! does, and every name follows it:
//! - `_MIN_DEPTH`: the technique works from this depth on (its maximum switches it off);
//! - `_MAX_DEPTH`: the technique works at or below this depth (0 switches it off);
//! - `_BASE`: a flat term; `_MUL`: a factor per ply of depth (or per unit the doc names);
//! - `_MARGIN`: a flat allowance (centipawns, or plies where the doc says so);
//! - `_DIV`: a divisor; `_PCT` / `_PERMILLE`: a fraction; `_MAX`: a cap; `_WEIGHT`: a weight;
//! - `_REDUCTION`: plies a search is made shallower; `_MOVES`: a count of moves;
//! - no suffix: an on/off switch (0/1; `EXT_CHECK` is the plies of its extension, 0 or 1) or,
//!   for `LMR_`, an adjustment of the reduction in 1/1024 plies.
//!
//! Each technique has an "off" setting inside its range (usually a depth threshold of 0, or a
//! margin at its extreme); `docs/search.md` lists them with every measurement behind a default.

use std::fmt::Write as _;

/// One row of the table, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// UCI option name (also the SPSA name).
    pub name: &'static str,
    /// Default value.
    pub default: i32,
    /// Smallest value.
    pub min: i32,
    /// Largest value.
    pub max: i32,
    /// SPSA perturbation size at the end of a run (OpenBench `c_end`).
    pub step: i32,
    /// What it does, one line.
    pub doc: &'static str,
}

/// OpenBench's default learning rate at the end of a run (`r_end`).
pub const DEFAULT_R_END: f64 = 0.002;

/// Why a `setoption` for a parameter was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// No parameter has this name.
    Unknown(String),
    /// The value is outside the parameter's range.
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: i64,
        /// Its smallest value.
        min: i32,
        /// Its largest value.
        max: i32,
    },
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamError::Unknown(name) => write!(f, "unknown parameter '{name}'"),
            ParamError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(f, "value {value} for {name} is outside [{min}, {max}]"),
        }
    }
}

/// The parameters the search reads. Normally `live`, the values set by `setoption`. A build with
/// the `fixed-params` feature reads the compile-time defaults instead, which the compiler folds
/// into the code as constants: `bench` on both builds (same node count, compare NPS) shows what
/// reading the table at run time costs.
#[inline(always)]
pub(crate) fn active(live: &Params) -> &Params {
    #[cfg(feature = "fixed-params")]
    {
        let _ = live;
        &Params::DEFAULTS
    }
    #[cfg(not(feature = "fixed-params"))]
    {
        live
    }
}

macro_rules! define_params {
    ($( $name:ident = $default:literal, $min:literal, $max:literal, $step:literal, $doc:literal; )*) => {
        /// Values of every tunable. Copied by value into each search thread at `go`.
        #[allow(non_snake_case)]
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Params {
            $( #[doc = $doc] pub $name: i32, )*
        }

        impl Params {
            /// The table's defaults, as a constant.
            pub const DEFAULTS: Params = Params { $( $name: $default, )* };
        }

        impl Default for Params {
            fn default() -> Self {
                Params::DEFAULTS
            }
        }

        /// The table as data, in declaration order.
        pub const PARAM_SPECS: &[ParamSpec] = &[
            $( ParamSpec { name: stringify!($name), default: $default, min: $min, max: $max, step: $step, doc: $doc }, )*
        ];

        impl Params {
            /// Current value by (case-insensitive) name.
            pub fn get(&self, name: &str) -> Option<i32> {
                $( if name.eq_ignore_ascii_case(stringify!($name)) { return Some(self.$name); } )*
                None
            }

            /// Mutable slot by (case-insensitive) name, with its spec.
            fn slot_mut(&mut self, name: &str) -> Option<(&mut i32, &'static ParamSpec)> {
                let mut index = 0usize;
                $(
                    if name.eq_ignore_ascii_case(stringify!($name)) {
                        return Some((&mut self.$name, &PARAM_SPECS[index]));
                    }
                    index += 1;
                )*
                let _ = index;
                None
            }
        }
    };
}

define_params! {
    // Aspiration windows.
    ASP_MIN_DEPTH        =    4,    1,    64,   1, "aspiration windows from this depth on (64: off)";
    ASP_MARGIN           =   24,    5,   200,   2, "initial half-width of the aspiration window (cp)";
    ASP_WIDEN_PCT        =   50,   10,   300,   5, "window growth per fail, percent of its width";

    // Extensions (the check extension is off by default: docs/search.md).
    EXT_CHECK            =    0,    0,     1,   1, "plies a checking move is extended (0: off)";
    SE_MIN_DEPTH         =    7,    4,    64,   1, "singular extensions from this depth on (64: off)";
    SE_TT_DEPTH_MARGIN   =    3,    1,     8,   1, "TT entry may be this much shallower than the node";
    SE_BETA_MUL          =   64,    8,   256,   8, "singular beta = tt score - depth * MUL / 64";
    SE_DOUBLE_MARGIN     =   28,    0,   200,   5, "double extension when this far below singular beta (cp)";
    SE_DOUBLE_MAX        =    6,    0,    16,   1, "most double extensions on one path";
    SE_CUTNODE_REDUCTION =    0,    0,     2,   1, "TT move searched this much shallower at cut nodes when not singular (0: off)";

    // Reverse futility pruning (static null move).
    RFP_MAX_DEPTH        =    8,    0,    16,   1, "at or below this depth (0: off)";
    RFP_MUL              =   98,   20,   200,   5, "margin per ply of depth (cp)";
    RFP_IMPROVING_MARGIN =   72,    0,   200,   5, "margin taken off when the eval improves (cp)";

    // Razoring (off by default; the margins are the better of the two measured:
    // docs/search.md).
    RAZOR_MAX_DEPTH      =    0,    0,     8,   1, "at or below this depth (0: off)";
    RAZOR_BASE           =  400,    0,   800,  20, "flat margin (cp)";
    RAZOR_MUL            =  300,   50,   600,  20, "margin per ply of depth (cp)";

    // Null move pruning.
    NMP_MIN_DEPTH        =    3,    1,    64,   1, "from this depth on (64: off)";
    NMP_BASE             =    4,    1,     8,   1, "flat depth reduction";
    NMP_DEPTH_DIV        =    4,    1,    12,   1, "extra reduction: depth / DIV";
    NMP_EVAL_DIV         =  234,   50,   800,  25, "extra reduction: (eval - beta) / DIV, at most NMP_EVAL_MAX";
    NMP_EVAL_MAX         =    3,    0,     8,   1, "cap on the eval part of the reduction (plies)";
    NMP_VERIFY_PLY_PCT   =   75,    0,   100,   5, "verification: no null move for this share of its depth";
    NMP_VERIFY_MIN_DEPTH =   12,    1,    64,   1, "verification search from this depth on (64: off)";

    // ProbCut.
    PROBCUT_MIN_DEPTH    =    5,    2,    64,   1, "from this depth on (64: off)";
    PROBCUT_MARGIN       =  266,   50,   600,  20, "beta margin of the shallow capture search (cp)";
    PROBCUT_REDUCTION    =    4,    2,     8,   1, "the confirming search is this much shallower";

    // Internal iterative reduction (off by default: docs/search.md).
    IIR_MIN_DEPTH        =   64,    2,    64,   1, "reduce nodes without TT move from this depth on (64: off)";

    // Move-loop pruning of late and bad moves (depths are reduced depths).
    LMP_MAX_DEPTH        =    8,    0,    16,   1, "late move pruning at or below this depth (0: off)";
    LMP_BASE             =  363,  100,  1000,  25, "move-count limit: (LMP_BASE + LMP_MUL * depth^2) / 100";
    LMP_MUL              =   99,   25,   300,  10, "move-count limit: quadratic factor (1/100)";
    LMP_WORSENING_PCT    =   50,   10,   100,   5, "move-count limit when not improving, percent";
    FP_MAX_DEPTH         =    8,    0,    16,   1, "futility pruning of quiets at or below this depth (0: off)";
    FP_BASE              =  109,    0,   400,  10, "futility margin: flat part (cp)";
    FP_MUL               =  109,   20,   300,  10, "futility margin per ply (cp)";
    HP_MAX_DEPTH         =    3,    0,    12,   1, "history pruning of quiets at or below this depth (0: off)";
    HP_MUL               = 2067,  250,  8000, 250, "prune when history < -HP_MUL * depth";
    SEE_MAX_DEPTH        =    8,    0,    16,   1, "SEE pruning at or below this depth (0: off)";
    SEE_QUIET_MUL        =   60,   10,   200,   5, "quiet SEE threshold: -MUL * depth (cp)";
    SEE_NOISY_MUL        =   19,    5,   100,   3, "capture SEE threshold: -MUL * depth^2 (cp)";

    // Late move reductions (table in 1/100 plies; adjustments in 1/1024 plies).
    LMR_MIN_DEPTH        =    3,    1,    64,   1, "reduce from this depth on (64: off)";
    LMR_MOVES            =    2,    1,    16,   1, "moves searched fully before reductions (+1 at PV nodes)";
    LMR_BASE             =   86,    0,   300,  10, "reduction table: flat part (1/100 ply)";
    LMR_DIV              =  230,  100,   500,  10, "reduction table: divisor of ln(depth)*ln(moves) (1/100)";
    LMR_PV               = 1024,    0,  3072, 128, "less reduction at PV nodes";
    LMR_IMPROVING        = 1024,    0,  3072, 128, "more reduction when not improving";
    LMR_CUTNODE          = 1536,    0,  4096, 128, "more reduction at expected cut nodes";
    LMR_TT_CAPTURE       = 1024,    0,  3072, 128, "more reduction for quiets when the TT move is a capture";
    LMR_NOISY            = 1024,    0,  3072, 128, "less reduction for captures";
    LMR_CHECK            = 3072,    0,  4096, 128, "less reduction for checking moves";
    LMR_HIST_DIV         = 7645, 1024, 32768, 512, "reduction -= history * 1024 / DIV";
    LMR_DEEPER_MARGIN    =   49,    0,   200,   5, "re-search one ply deeper when this far above best (cp)";

    // Quiescence search (delta pruning and quiet checks are off by default: docs/search.md).
    QS_SEE_MARGIN        =    0,    0,   300,  10, "skip captures whose SEE is below -MARGIN";
    QS_DELTA_MARGIN      = 1000,    0,  1000,  25, "delta pruning margin over the captured piece (cp; 1000: off in effect)";
    QS_CHECKS            =    0,    0,     1,   1, "quiet checks at the first quiescence ply (0: off)";

    // History updates: bonus = clamp(MUL * depth - BASE, 0, MAX).
    HIST_BONUS_MUL       =  288,   50,  1000,  20, "history bonus per ply of depth";
    HIST_BONUS_BASE      =  250,    0,  1000,  25, "history bonus offset";
    HIST_BONUS_MAX       = 2500,  500,  8000, 100, "history bonus cap";
    HIST_MALUS_MUL       =  300,   50,  1000,  20, "history malus per ply of depth";
    HIST_MALUS_BASE      =  250,    0,  1000,  25, "history malus offset";
    HIST_MALUS_MAX       = 2500,  500,  8000, 100, "history malus cap";
    HIST_THREATS         =    0,    0,     1,   1, "butterfly history split by threatened from/to squares (0: off)";
    HIST_CONT4           =    0,    0,     1,   1, "continuation history of the move 4 plies back too (0: off)";
    HIST_PAWN            =    0,    0,     1,   1, "quiet history by pawn structure too (0: off)";
    ORDER_ESCAPE_BASE    =    0,    0, 16384, 512, "quiet order: bonus for moving a piece out of a cheaper attacker's reach (0: off)";

    // Static-eval correction history (percent weights; both 0 switch it off: docs/search.md).
    CORR_PAWN_WEIGHT     =  100,    0,   300,  10, "weight of the pawn-structure correction";
    CORR_NONPAWN_WEIGHT  =   50,    0,   300,  10, "weight of the non-pawn correction";
    CORR_STEP_DIV        =   64,   16,   256,   8, "correction step: residual x min(depth, CORR_STEP_DEPTH_MAX) / this";
    CORR_STEP_DEPTH_MAX  =   16,    1,    32,   2, "depth from which a correction step stops growing";
    CORR_STEP_MAX        =    8,    1,    32,   1, "cap of one correction step, per table (cp)";
    CORR_ENTRY_MAX       =   32,    4,   120,   4, "bound of one correction entry, by gravity (cp)";

    // Lazy SMP (helper threads only; one thread is unaffected).
    SMP_SKIP_BLOCKS      =    1,    0,     1,   1, "helpers skip iterations in staggered blocks (0: off)";
    SMP_ASP_MUL          =    4,    0,    40,   2, "helper aspiration window widened by (id mod 4) * SMP_ASP_MUL (cp)";
    SMP_VOTE             =    1,    0,     1,   1, "choose the move by a vote of all threads (0: main thread)";
    SMP_VOTE_BASE        =   20,    1,   200,   5, "vote weight = (score - worst score + BASE) * depth";

    // Time manager (fractions in permille).
    TM_BASE_PERMILLE     =   50,   10,   200,   4, "base share of the remaining time per move (no movestogo)";
    TM_INC_PERMILLE      =  800,  100,  1000,  40, "share of the increment added to the base time";
    TM_SOFT_PERMILLE     =  600,  200,  1500,  40, "soft limit as a share of the base time";
    TM_HARD_PERMILLE     = 2500, 1000,  6000, 150, "hard limit as a multiple (permille) of the base time";
    TM_MAX_PERMILLE      =  500,  100,   900,  25, "cap on one move's hard limit, share of the clock";
    TM_STABLE_BASE       = 1250,  500,  2000,  50, "soft scale with an unstable best move";
    TM_STABLE_MUL        =   60,    0,   200,   5, "soft scale taken off per stable iteration (max 8)";
    TM_DROP_MUL          =   10,    0,    50,   1, "soft scale added per cp the score dropped";
    TM_DROP_MAX          =  600,    0,  1500,  50, "cap on the score-drop scale";
    TM_NODES_BASE        = 1500,  500,  3000,  50, "soft scale: TM_NODES_BASE - TM_NODES_MUL * share of nodes on the best move";
    TM_NODES_MUL         = 1000,    0,  2000,  50, "soft scale per share of nodes on the best move";
}

/// The `_MAX_DEPTH` rule in one place: a technique with threshold `max` works at `depth` when
/// `depth <= max`, and `max == 0` switches it off even where the depth it is given can be 0
/// (futility and history pruning gate on the reduced depth of late move reductions).
#[inline]
pub(crate) fn at_or_below(depth: i32, max: i32) -> bool {
    max > 0 && depth <= max
}

/// Each search technique and the parameter settings that switch it off (every value inside
/// its parameter's range, so a `setoption` does it in the release build).
pub const TECHNIQUES: &[(&str, &[(&str, i32)])] = &[
    ("aspiration windows", &[("ASP_MIN_DEPTH", 64)]),
    ("singular extensions", &[("SE_MIN_DEPTH", 64)]),
    ("reverse futility pruning", &[("RFP_MAX_DEPTH", 0)]),
    ("null move pruning", &[("NMP_MIN_DEPTH", 64)]),
    ("null move verification", &[("NMP_VERIFY_MIN_DEPTH", 64)]),
    ("probcut", &[("PROBCUT_MIN_DEPTH", 64)]),
    ("late move pruning", &[("LMP_MAX_DEPTH", 0)]),
    ("futility pruning", &[("FP_MAX_DEPTH", 0)]),
    ("history pruning", &[("HP_MAX_DEPTH", 0)]),
    ("SEE pruning", &[("SEE_MAX_DEPTH", 0)]),
    ("late move reductions", &[("LMR_MIN_DEPTH", 64)]),
    (
        "correction history",
        &[("CORR_PAWN_WEIGHT", 0), ("CORR_NONPAWN_WEIGHT", 0)],
    ),
];

/// Techniques that stay in the search, off by default because games did not prove them, and
/// the settings that switch them on (for tuners and for the next measurement).
pub const DEFAULT_OFF: &[(&str, &[(&str, i32)])] = &[
    ("razoring", &[("RAZOR_MAX_DEPTH", 3)]),
    ("check extension", &[("EXT_CHECK", 1)]),
    ("internal iterative reduction", &[("IIR_MIN_DEPTH", 4)]),
    ("quiescence delta pruning", &[("QS_DELTA_MARGIN", 200)]),
    ("quiescence checks", &[("QS_CHECKS", 1)]),
    ("threat-aware history", &[("HIST_THREATS", 1)]),
    ("4-ply continuation history", &[("HIST_CONT4", 1)]),
    ("pawn history", &[("HIST_PAWN", 1)]),
    ("threat escape ordering", &[("ORDER_ESCAPE_BASE", 8192)]),
    (
        "singular cut-node reduction",
        &[("SE_CUTNODE_REDUCTION", 1)],
    ),
];

impl Params {
    /// Range-checked set by (case-insensitive) name.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
        let (slot, spec) = self
            .slot_mut(name)
            .ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        if value < i64::from(spec.min) || value > i64::from(spec.max) {
            return Err(ParamError::OutOfRange {
                name: spec.name,
                value,
                min: spec.min,
                max: spec.max,
            });
        }
        // In range of an i32 by the check above.
        *slot = value as i32;
        Ok(())
    }

    /// The spec row for a name, if it is a parameter.
    pub fn spec(name: &str) -> Option<&'static ParamSpec> {
        PARAM_SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }
}

/// `option name X type spin default D min A max B` lines for every parameter.
pub(crate) fn uci_option_lines() -> Vec<String> {
    PARAM_SPECS
        .iter()
        .map(|s| {
            format!(
                "option name {} type spin default {} min {} max {}",
                s.name, s.default, s.min, s.max
            )
        })
        .collect()
}

/// OpenBench SPSA input: `NAME, int, default, min, max, c_end, r_end`, one line per parameter.
pub fn openbench_spsa() -> String {
    let mut out = String::new();
    for s in PARAM_SPECS {
        let _ = writeln!(
            out,
            "{}, int, {}, {}, {}, {}, {}",
            s.name, s.default, s.min, s.max, s.step, DEFAULT_R_END
        );
    }
    out
}

/// Weather-factory config: `{"NAME": {"value", "min_value", "max_value", "step"}}`.
pub fn weather_factory_json() -> String {
    let mut out = String::from("{\n");
    for (i, s) in PARAM_SPECS.iter().enumerate() {
        let comma = if i + 1 == PARAM_SPECS.len() { "" } else { "," };
        let _ = writeln!(
            out,
            "    \"{}\": {{\"value\": {}, \"min_value\": {}, \"max_value\": {}, \"step\": {}}}{}",
            s.name, s.default, s.min, s.max, s.step, comma
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_depth_zero_is_off_at_every_depth_including_zero() {
        for d in 0..=64 {
            assert!(!at_or_below(d, 0), "max 0 must be off at depth {d}");
        }
        assert!(at_or_below(0, 3) && at_or_below(3, 3));
        assert!(!at_or_below(4, 3));
    }

    #[test]
    fn every_name_follows_the_naming_rule() {
        const SUFFIXES: [&str; 12] = [
            "_MIN_DEPTH",
            "_MAX_DEPTH",
            "_BASE",
            "_MUL",
            "_MARGIN",
            "_DIV",
            "_PCT",
            "_PERMILLE",
            "_MAX",
            "_WEIGHT",
            "_REDUCTION",
            "_MOVES",
        ];
        const SWITCHES: [&str; 7] = [
            "EXT_CHECK",
            "QS_CHECKS",
            "HIST_THREATS",
            "HIST_CONT4",
            "HIST_PAWN",
            "SMP_SKIP_BLOCKS",
            "SMP_VOTE",
        ];
        for s in PARAM_SPECS {
            let ok = SUFFIXES.iter().any(|x| s.name.ends_with(x))
                || SWITCHES.contains(&s.name)
                || (s.name.starts_with("LMR_") && s.doc.contains("reduction"));
            assert!(
                ok,
                "{} does not follow the naming rule of params.rs",
                s.name
            );
            if SWITCHES.contains(&s.name) {
                assert_eq!((s.min, s.max), (0, 1), "{} is a switch", s.name);
            }
            if s.name.ends_with("_MIN_DEPTH") {
                assert!(
                    s.doc.contains("from this depth on"),
                    "{}: {}",
                    s.name,
                    s.doc
                );
            }
            if s.name.ends_with("_MAX_DEPTH") {
                assert!(s.doc.contains("at or below"), "{}: {}", s.name, s.doc);
            }
        }
    }

    use std::collections::HashSet;

    #[test]
    fn names_are_unique_case_insensitively() {
        let mut seen = HashSet::new();
        for s in PARAM_SPECS {
            assert!(
                seen.insert(s.name.to_ascii_lowercase()),
                "duplicate {}",
                s.name
            );
        }
    }

    #[test]
    fn defaults_lie_within_range_and_steps_are_positive() {
        for s in PARAM_SPECS {
            assert!(s.min <= s.default && s.default <= s.max, "{}", s.name);
            assert!(s.step > 0, "{}", s.name);
            assert!(s.min < s.max, "{}", s.name);
        }
        let p = Params::default();
        for s in PARAM_SPECS {
            assert_eq!(p.get(s.name), Some(s.default));
        }
    }

    #[test]
    fn setter_accepts_bounds_and_refuses_outside() {
        for s in PARAM_SPECS {
            let mut p = Params::default();
            p.set(s.name, i64::from(s.min)).unwrap();
            assert_eq!(p.get(s.name), Some(s.min));
            p.set(&s.name.to_ascii_lowercase(), i64::from(s.max))
                .unwrap();
            assert_eq!(p.get(s.name), Some(s.max));
            let before = p.clone();
            assert!(p.set(s.name, i64::from(s.max) + 1).is_err());
            assert!(p.set(s.name, i64::from(s.min) - 1).is_err());
            assert_eq!(p, before, "a refused set must not change anything");
        }
        assert!(matches!(
            Params::default().set("NO_SUCH_PARAM", 1),
            Err(ParamError::Unknown(_))
        ));
    }

    #[test]
    fn technique_switches_are_valid_parameter_values() {
        // Off settings of the techniques on by default, on settings of those off by default:
        // each is in range and differs from the default.
        let switches = TECHNIQUES
            .iter()
            .map(|t| (t, "off"))
            .chain(DEFAULT_OFF.iter().map(|t| (t, "on")));
        for ((technique, settings), state) in switches {
            for (name, value) in *settings {
                let mut p = Params::default();
                assert!(
                    p.set(name, i64::from(*value)).is_ok(),
                    "{technique}: {name}"
                );
                assert_ne!(
                    p,
                    Params::default(),
                    "{technique}: {name} is already {state}"
                );
            }
        }
    }

    #[test]
    fn exports_have_one_line_per_parameter() {
        assert_eq!(openbench_spsa().lines().count(), PARAM_SPECS.len());
        assert_eq!(uci_option_lines().len(), PARAM_SPECS.len());
        let json = weather_factory_json();
        for s in PARAM_SPECS {
            assert!(json.contains(&format!("\"{}\": {{\"value\": {}", s.name, s.default)));
        }
    }
}
