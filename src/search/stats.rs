//! Counters of what each technique did, for `debug on` reports.

/// How often each technique fired, for `debug on` reports.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub tt_cuts: u64,
    pub razor: u64,
    pub rfp: u64,
    pub nmp_tries: u64,
    pub nmp_cuts: u64,
    pub probcut: u64,
    pub iir: u64,
    pub lmp: u64,
    pub futility: u64,
    pub history_pruned: u64,
    pub see_pruned: u64,
    pub singular: u64,
    pub double_ext: u64,
    pub multicut: u64,
    pub negative_ext: u64,
    pub lmr_searches: u64,
    pub lmr_researches: u64,
    pub beta_cutoffs: u64,
    pub first_move_cutoffs: u64,
    pub qs_delta: u64,
}
