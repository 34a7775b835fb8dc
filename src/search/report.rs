//! What a search tells the outside world: `info` lines and the result, through a [`Reporter`]
//! (the UCI layer prints them; tests and the tuner collect them).

use crate::tt::Bound;

/// One line of search output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchInfo {
    /// Completed iteration depth.
    pub depth: i32,
    /// Which line of a MultiPV search (1 = the best).
    pub multipv: usize,
    /// Deepest ply reached.
    pub seldepth: i32,
    /// Score from the side to move's view, in the search's units (mate scores beyond `MATE_BOUND`).
    pub score: i32,
    /// Whether the score is exact or a bound.
    pub bound: Bound,
    /// Win, draw and loss chances in per mille (`UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
    /// Nodes searched so far by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Transposition table fill, per mille.
    pub hashfull: usize,
    /// Tablebase probes that gave a result.
    pub tbhits: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// The principal variation, in UCI move text.
    pub pv: Vec<String>,
}

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play (`None` when there is none).
    pub best_move: Option<String>,
    /// The move expected in reply, to ponder on.
    pub ponder_move: Option<String>,
    /// Score of the chosen line, search units.
    pub score: i32,
    /// Depth of the chosen line.
    pub depth: i32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Milliseconds spent.
    pub time_ms: u64,
    /// Which thread's result was chosen.
    pub thread: usize,
}

/// Where a search sends its output (the UCI layer prints it; tests and the tuner collect it).
pub trait Reporter: Send + Sync {
    /// An iteration finished (or a MultiPV line of it).
    fn info(&self, info: &SearchInfo);
    /// The search finished: the move to play.
    fn bestmove(&self, result: &SearchResult);
    /// A free-text note (printed as `info string`).
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
