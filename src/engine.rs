//! The engine: position, transposition table, thread pool, parameters and options in one value,
//! so several engines can live in one process. UCI, bench, tests and the tuner all drive it.

use std::sync::Arc;

use shakmaty::{CastlingMode, Move};

use crate::eval::nnue::{self, Network};
use crate::params::{self, Params};
use crate::position::Position;
use crate::search::shared::SearchShared;
use crate::search::{Reporter, SearchResult, Silent};
use crate::tb::{Tablebases, TbConfig};
use crate::thread::ThreadPool;
use crate::time::{Clock, Limits, budget};
use crate::tt::{MAX_HASH_MB, TranspositionTable};

/// The engine's name (`id name`).
pub const NAME: &str = "Shears";
/// Its authors (`id author`).
pub const AUTHOR: &str = "the Shears developers";
/// The crate's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub(crate) const DEFAULT_HASH_MB: usize = 16;
/// Most threads `Threads` accepts.
pub const MAX_THREADS: usize = 1024;
pub(crate) const DEFAULT_MOVE_OVERHEAD: u64 = 10;
pub(crate) const MAX_MOVE_OVERHEAD: u64 = 5000;
pub(crate) const MAX_MULTIPV: usize = 256;
/// The `UCI_Elo` range. The low end is Stockfish 16's; Debian's Stockfish 15.1, the opponent
/// the scale is calibrated against, starts at 1350, so 1320-1350 is extrapolated.
pub(crate) const MIN_ELO: u32 = 1320;
pub(crate) const MAX_ELO: u32 = 3000;

/// Nodes a move may search at a `UCI_Elo` setting: 175 at 1600, doubling every 87 Elo
/// (about 19 at the bottom of the range, 4,200 at 2000, 103,000 at 2400; from about 2500-2600, a
/// computed estimate, a blitz search stops on time before the cap). Fitted to games of net 14
/// against Debian's Stockfish 15.1 at its own `UCI_Elo`: docs/analysis.md has the games, 240 of
/// them at three settings and two anchors (net 13's fit, 250 nodes, sat +64 above).
pub fn elo_nodes(elo: u32) -> u64 {
    const ANCHOR_ELO: f64 = 1600.0;
    const ANCHOR_NODES: f64 = 175.0;
    const ELO_PER_DOUBLING: f64 = 87.0;
    let steps = (f64::from(elo.clamp(MIN_ELO, MAX_ELO)) - ANCHOR_ELO) / ELO_PER_DOUBLING;
    (ANCHOR_NODES * steps.exp2()).round() as u64
}

/// Engine options that are not search parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Transposition table size in MB (`Hash`).
    pub hash_mb: usize,
    /// Search threads (`Threads`).
    pub threads: usize,
    /// Milliseconds kept back from every move (`Move Overhead`).
    pub move_overhead: u64,
    /// `UCI_Chess960`.
    pub chess960: bool,
    /// `Ponder`.
    pub ponder: bool,
    /// Lines to search and report.
    pub multipv: usize,
    /// Win/draw/loss chances after the score.
    pub show_wdl: bool,
    /// Play at `elo` strength (`UCI_LimitStrength`, `UCI_Elo`).
    pub limit_strength: bool,
    /// `UCI_Elo`, used when `limit_strength` is set.
    pub elo: u32,
    /// The net file loaded (`<default>`: the built-in net).
    pub eval_file: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
            chess960: false,
            ponder: false,
            multipv: 1,
            show_wdl: false,
            limit_strength: false,
            elo: MAX_ELO,
            eval_file: DEFAULT_NET.to_string(),
        }
    }
}

/// An engine: options, parameters, the position, the net and the threads that search it.
pub struct Engine {
    position: Position,
    /// Syzygy tables of `SyzygyPath`, shared by every search thread.
    tb: Option<Arc<Tablebases>>,
    tb_config: TbConfig,
    /// What `isready` reports once: the net and tables loaded since the last `isready`.
    notes: Vec<String>,
    /// The net of `EvalFile`: the evaluation.
    net: Arc<Network>,
    tt: Arc<TranspositionTable>,
    pool: ThreadPool,
    params: Params,
    options: Options,
    debug: bool,
    current: Option<Arc<SearchShared>>,
}

/// `option ...` lines of every engine option and every parameter, in UCI form.
pub(crate) fn uci_options() -> Vec<String> {
    let mut lines = vec![
        format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"),
        format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
        "option name Clear Hash type button".to_string(),
        format!(
            "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD} min 0 max {MAX_MOVE_OVERHEAD}"
        ),
        "option name Ponder type check default false".to_string(),
        "option name UCI_Chess960 type check default false".to_string(),
        format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
        "option name UCI_ShowWDL type check default false".to_string(),
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {MAX_ELO} min {MIN_ELO} max {MAX_ELO}"),
        format!("option name EvalFile type string default {DEFAULT_NET}"),
        "option name SyzygyPath type string default <empty>".to_string(),
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100".to_string(),
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string(),
        "option name Syzygy50MoveRule type check default true".to_string(),
    ];
    lines.extend(params::uci_option_lines());
    lines
}

fn parse_spin(name: &str, value: Option<&str>, min: i64, max: i64) -> Result<i64, String> {
    let text = value.ok_or_else(|| format!("option {name} needs a value"))?;
    let v: i64 = text
        .trim()
        .parse()
        .map_err(|_| format!("value '{text}' for {name} is not an integer"))?;
    if v < min || v > max {
        return Err(format!("value {v} for {name} is outside [{min}, {max}]"));
    }
    Ok(v)
}

/// The `EvalFile` value that names the net built into the binary.
pub(crate) const DEFAULT_NET: &str = "<default>";

/// The path of a string option; `None` for an empty value or `<empty>` (unset).
fn path_value(value: Option<&str>) -> Option<&str> {
    value
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "<empty>")
}

fn parse_check(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(format!("value '{v}' for {name} must be true or false")),
        None => Err(format!("option {name} needs true or false")),
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with default options (1 thread, 16 MB hash).
    ///
    /// Panics only if the machine cannot give 16 MB and one thread, when nothing could run.
    #[allow(clippy::expect_used)]
    pub fn new() -> Engine {
        let options = Options::default();
        // The defaults are small: failing here means the machine cannot run anything.
        let tt = TranspositionTable::new(options.hash_mb, 1).expect("16 MB hash table");
        let pool = ThreadPool::new(1).expect("one search thread");
        // Part of the binary, not input: a test checks that it loads.
        let net = Arc::new(nnue::embedded().expect("the built-in net"));
        Engine {
            position: Position::default(),
            tb: None,
            tb_config: TbConfig::default(),
            notes: Vec::new(),
            net,
            tt: Arc::new(tt),
            pool,
            params: Params::default(),
            options,
            debug: false,
            current: None,
        }
    }

    /// The position set by the last `position` command.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The search parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The UCI options in use.
    pub fn options(&self) -> &Options {
        &self.options
    }

    pub(crate) fn set_debug(&mut self, on: bool) {
        self.debug = on;
    }

    fn castling_mode(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// Does the current search run until `stop` (`go infinite` or `go ponder` not yet hit)?
    pub(crate) fn current_waits_for_stop(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|s| s.limits.infinite || s.clock.pondering())
    }

    /// Is a search running (not yet published its result)?
    pub(crate) fn is_searching(&self) -> bool {
        self.current.as_ref().is_some_and(|s| !s.is_done())
    }

    /// Refuses state changes during a search, unless it was already told to stop (then waits).
    fn ensure_idle(&mut self, what: &str) -> Result<(), String> {
        if let Some(s) = &self.current
            && !s.is_done()
        {
            if s.stopped() {
                s.wait();
            } else {
                return Err(format!("cannot {what} while searching; send stop first"));
            }
        }
        Ok(())
    }

    /// `position startpos|fen ... [moves ...]`. On any error nothing changes.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        let mode = self.castling_mode();
        let mut pos = match fen {
            None => Position::startpos(mode),
            Some(f) => Position::from_fen(f, mode)?,
        };
        for (i, text) in moves.iter().enumerate() {
            let m = pos
                .parse_uci_move(text)
                .map_err(|e| format!("{e} (move {} of the position command)", i + 1))?;
            pos.play_game_move(m);
        }
        self.position = pos;
        Ok(())
    }

    /// `ucinewgame`: forget the hash table and the histories.
    pub fn new_game(&mut self) -> Result<(), String> {
        self.ensure_idle("start a new game")?;
        self.tt.clear(self.options.threads);
        self.pool.clear();
        Ok(())
    }

    /// `setoption name N [value V]`; names are case-insensitive. On error nothing changes.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let key = name.trim().to_ascii_lowercase();
        if key.is_empty() {
            return Err("setoption needs a name".to_string());
        }
        self.ensure_idle("change options")?;
        match key.as_str() {
            "hash" => {
                let mb = parse_spin("Hash", value, 1, MAX_HASH_MB as i64)? as usize;
                if mb != self.tt.megabytes() {
                    let tt = TranspositionTable::new(mb, self.options.threads)?;
                    self.tt = Arc::new(tt);
                }
                self.options.hash_mb = mb;
            }
            "threads" => {
                let n = parse_spin("Threads", value, 1, MAX_THREADS as i64)? as usize;
                if n != self.pool.len() {
                    // Join the old threads before starting the new ones.
                    self.pool = ThreadPool::new(1)?;
                    self.pool = ThreadPool::new(n)?;
                }
                self.options.threads = n;
            }
            "clear hash" => self.tt.clear(self.options.threads),
            "move overhead" => {
                self.options.move_overhead =
                    parse_spin("Move Overhead", value, 0, MAX_MOVE_OVERHEAD as i64)? as u64;
            }
            "ponder" => self.options.ponder = parse_check("Ponder", value)?,
            "uci_showwdl" => self.options.show_wdl = parse_check("UCI_ShowWDL", value)?,
            "uci_limitstrength" => {
                self.options.limit_strength = parse_check("UCI_LimitStrength", value)?;
            }
            "uci_elo" => {
                self.options.elo =
                    parse_spin("UCI_Elo", value, i64::from(MIN_ELO), i64::from(MAX_ELO))? as u32;
            }
            "multipv" => {
                self.options.multipv =
                    parse_spin("MultiPV", value, 1, MAX_MULTIPV as i64)? as usize;
            }
            "evalfile" => {
                // `<empty>` (or nothing) is the built-in net, as `<default>` is: there is no
                // evaluation without a net.
                let path = path_value(value).unwrap_or(DEFAULT_NET);
                // Refused files leave the current net in place.
                let net = if path == DEFAULT_NET {
                    nnue::embedded()?
                } else {
                    nnue::load_file(std::path::Path::new(path))?
                };
                self.notes.push(format!("loaded net {path} ({net:?})"));
                self.net = Arc::new(net);
                self.options.eval_file = path.to_string();
            }
            "syzygypath" => {
                let Some(path) = path_value(value) else {
                    self.tb = None;
                    return Ok(());
                };
                // Directories that cannot be read are reported; the others are used.
                let (tb, errors) = Tablebases::load(path)?;
                self.notes.push(format!("loaded {}", tb.describe()));
                self.tb = Some(Arc::new(tb));
                if !errors.is_empty() {
                    return Err(errors.join("; "));
                }
            }
            "syzygyprobedepth" => {
                self.tb_config.probe_depth = parse_spin("SyzygyProbeDepth", value, 1, 100)? as i32;
            }
            "syzygyprobelimit" => {
                self.tb_config.probe_limit = parse_spin("SyzygyProbeLimit", value, 0, 7)? as usize;
            }
            "syzygy50moverule" => {
                self.tb_config.rule50 = parse_check("Syzygy50MoveRule", value)?;
            }
            "uci_chess960" => {
                self.options.chess960 = parse_check("UCI_Chess960", value)?;
                let fen = self.position.fen();
                // Re-read the current position in the new castling notation.
                if let Ok(p) = Position::from_fen(&fen, self.castling_mode()) {
                    self.position = p;
                }
            }
            _ => {
                let v = parse_spin(name.trim(), value, i64::MIN, i64::MAX);
                if params::Params::spec(&key).is_none() {
                    return Err(format!("unknown option '{}'", name.trim()));
                }
                self.params.set(&key, v?).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    /// What was loaded since the last call (for `isready`).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Evaluates as `other` does (its net).
    pub(crate) fn use_eval_of(&mut self, other: &Engine) {
        self.net = Arc::clone(&other.net);
        self.options.eval_file = other.options.eval_file.clone();
    }

    /// The static evaluation of the current position (side to move's view) and what gave it.
    pub fn static_eval(&self) -> (i32, String) {
        (
            self.net.evaluate(self.position.board()),
            format!("net {} ({:?})", self.options.eval_file, self.net),
        )
    }

    /// Replaces every parameter at once (the tuner does this).
    pub fn set_params(&mut self, params: Params) -> Result<(), String> {
        self.ensure_idle("change parameters")?;
        self.params = params;
        Ok(())
    }

    /// Starts a search; output goes to `reporter`. A search already running is stopped first
    /// (it still reports its own `bestmove`). Unknown `searchmoves` are left out, with a
    /// message; if none is left, every legal move is searched.
    pub fn go(&mut self, mut limits: Limits, reporter: Arc<dyn Reporter>) {
        if self.options.limit_strength {
            let cap = elo_nodes(self.options.elo);
            limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
        }
        if let Some(s) = &self.current
            && !s.is_done()
        {
            s.request_stop();
            s.wait();
        }
        let legal: Vec<Move> = self.position.legal_moves().into_iter().collect();
        let mut root_moves: Vec<Move> = Vec::new();
        for text in &limits.searchmoves {
            match self.position.parse_uci_move(text) {
                Ok(m) if !root_moves.contains(&m) => root_moves.push(m),
                Ok(_) => {}
                Err(e) => reporter.message(&format!("searchmoves: {e}; ignored")),
            }
        }
        if root_moves.is_empty() {
            root_moves = legal;
        }
        // In the tables: search only the moves that keep the result they promise, and show
        // the tables' value.
        let root_tb = self
            .tb
            .as_ref()
            .and_then(|tb| tb.rank_root(self.position.board(), &root_moves, &self.tb_config));
        if let Some(r) = &root_tb {
            root_moves.clone_from(&r.moves);
        }
        self.tt.new_search();
        let b = budget(
            &limits,
            self.position.turn(),
            self.options.move_overhead,
            &self.params,
        );
        let clock = Clock::new(b, limits.ponder);
        let shared = Arc::new(SearchShared::new(
            Arc::clone(&self.tt),
            clock,
            limits,
            self.position.clone(),
            root_moves,
            self.params.clone(),
            Arc::clone(&self.net),
            self.tb.clone(),
            root_tb,
            self.tb_config,
            self.pool.node_counters(),
            self.pool.len(),
            self.options.multipv,
            self.options.show_wdl,
            reporter,
            self.debug,
        ));
        self.pool.start(&shared);
        self.current = Some(shared);
    }

    /// `stop`: the search ends and reports as soon as it can.
    pub fn stop(&self) {
        if let Some(s) = &self.current {
            s.request_stop();
        }
    }

    /// `ponderhit`: the pondering search becomes a normal timed one.
    pub fn ponderhit(&self) {
        if let Some(s) = &self.current {
            s.clock.ponderhit();
        }
    }

    /// Waits for the current search (if any) and returns its result.
    pub fn wait(&self) -> Option<SearchResult> {
        self.current.as_ref().map(|s| s.wait())
    }

    /// Searches the current position to the limits and returns the result (no output).
    pub fn search(&mut self, limits: Limits) -> SearchResult {
        self.search_with(limits, Arc::new(Silent))
    }

    /// Searches with the given reporter and waits for the result.
    pub fn search_with(&mut self, limits: Limits, reporter: Arc<dyn Reporter>) -> SearchResult {
        self.go(limits, reporter);
        // `go` always sets `current`.
        self.wait().unwrap_or(SearchResult {
            best_move: None,
            ponder_move: None,
            score: 0,
            depth: 0,
            nodes: 0,
            time_ms: 0,
            thread: 0,
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(s) = &self.current {
            s.request_stop();
            s.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_file_refuses_bad_input_and_keeps_its_state() {
        let mut e = Engine::new();
        // The built-in net is loaded at start and evaluates.
        assert_eq!(e.options().eval_file, DEFAULT_NET);
        let (built_in, by) = e.static_eval();
        assert!(by.contains(DEFAULT_NET), "{by}");
        let built_in_nodes = e.search(Limits::depth(6)).nodes;
        // A file that is not a net, and one that does not exist: errors, the net kept.
        let dir = std::env::temp_dir().join(format!("shears-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("junk.nnue");
        std::fs::write(&junk, b"SHNN but not a net").unwrap();
        assert!(e.set_option("EvalFile", junk.to_str()).is_err());
        assert!(
            e.set_option("EvalFile", Some("/no/such/file.nnue"))
                .is_err()
        );
        assert_eq!(e.options().eval_file, DEFAULT_NET);
        assert_eq!(e.static_eval().0, built_in);
        // Another net loads and evaluates, and a later bad file keeps it.
        let good = dir.join("good.nnue");
        std::fs::write(&good, nnue::random_network(16, 11).to_bytes()).unwrap();
        e.set_option("EvalFile", good.to_str()).unwrap();
        let (net_eval, by) = e.static_eval();
        assert!(by.contains("good.nnue"), "{by}");
        assert_ne!(net_eval, built_in);
        assert!(e.set_option("EvalFile", junk.to_str()).is_err());
        assert_eq!(e.static_eval().0, net_eval);
        // The search evaluates with it: a different tree than the built-in net's.
        assert_ne!(e.search(Limits::depth(6)).nodes, built_in_nodes);
        // `<empty>` is the built-in net again, as `<default>` is; `Use NNUE` is gone.
        for value in ["<empty>", DEFAULT_NET] {
            e.set_option("EvalFile", good.to_str()).unwrap();
            e.set_option("EvalFile", Some(value)).unwrap();
            assert_eq!(e.options().eval_file, DEFAULT_NET);
            assert_eq!(e.static_eval().0, built_in);
        }
        assert!(e.set_option("Use NNUE", Some("false")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
