//! What a search tells the outside world: `info` lines and the result, through a [`Reporter`]
//! (the UCI layer prints them; tests and the tuner collect them).

use crate::tt::Bound;

/// One line of search output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: i32,
    /// Which line of a MultiPV search (1 = the best).
    pub multipv: usize,
    pub seldepth: i32,
    pub score: i32,
    pub bound: Bound,
    /// Win, draw and loss chances in per mille (`UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: usize,
    /// Tablebase probes that gave a result.
    pub tbhits: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
}

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    pub best_move: Option<String>,
    pub ponder_move: Option<String>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time_ms: u64,
    /// Which thread's result was chosen.
    pub thread: usize,
}

/// Where a search sends its output (the UCI layer prints it; tests and the tuner collect it).
pub trait Reporter: Send + Sync {
    fn info(&self, info: &SearchInfo);
    fn bestmove(&self, result: &SearchResult);
    fn message(&self, _text: &str) {}
    /// The root move being searched (long searches only): its UCI text and its number.
    fn currmove(&self, _depth: i32, _mv: &str, _number: usize) {}
}

/// A reporter that drops everything.
pub(crate) struct Silent;

impl Reporter for Silent {
    fn info(&self, _info: &SearchInfo) {}
    fn bestmove(&self, _result: &SearchResult) {}
}
