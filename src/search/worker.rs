//! A search thread's state, in two parts by lifetime: [`GameState`], what it learns over a game
//! (kept from move to move, cleared by `ucinewgame`), and [`SearchState`], what one `go` needs
//! (reset in one call when the search starts).

use shakmaty::Move;

use super::shared::SearchShared;
use super::smp::ThreadResult;
use super::stack::SearchStack;
use super::stats::Stats;
use crate::eval::Evaluator;
use crate::history::Histories;
use crate::params::Params;
use crate::position::Position;
use crate::score::MAX_PLY;

/// Kept across the moves of a game; cleared by `ucinewgame`.
pub(crate) struct GameState {
    pub(crate) hist: Histories,
    /// The evaluation: the net's accumulators and the game's correction history.
    pub(crate) eval: Evaluator,
}

/// Everything one search of one thread uses; reset at every `go`.
pub(crate) struct SearchState {
    pub(crate) pos: Position,
    pub(crate) stack: SearchStack,
    /// Triangular PV table: `pv[ply]` is the best line found from `ply`.
    pub(crate) pv: Vec<Vec<Move>>,
    pub(crate) nodes: u64,
    pub(crate) seldepth: usize,
    /// Late-move reduction table (in 1/1024 plies), built from the search's parameters.
    pub(crate) lmr: Vec<[i32; 64]>,
    /// Result of the last completed iteration.
    pub(crate) result: ThreadResult,
    pub(crate) completed_depth: i32,
    /// Depth of the iteration in progress.
    pub(crate) root_depth: i32,
    /// Null move pruning is off above this ply (during a verification search).
    pub(crate) nmp_min_ply: usize,
    /// Nodes spent on each root move in this search.
    pub(crate) root_nodes: Vec<(Move, u64)>,
    pub(crate) stats: Stats,
    /// MultiPV: root moves of the lines already searched at this depth (skipped at the root).
    pub(crate) excluded_root: Vec<Move>,
    /// MultiPV: the lines of the last complete depth, best first (score, PV).
    pub(crate) lines: Vec<(i32, Vec<Move>)>,
}

impl SearchState {
    fn new() -> SearchState {
        SearchState {
            pos: Position::default(),
            stack: SearchStack::default(),
            pv: (0..=MAX_PLY + 1)
                .map(|_| Vec::with_capacity(MAX_PLY + 1))
                .collect(),
            nodes: 0,
            seldepth: 0,
            lmr: vec![[0; 64]; 64],
            result: ThreadResult::default(),
            completed_depth: 0,
            root_depth: 0,
            nmp_min_ply: 0,
            root_nodes: Vec::new(),
            stats: Stats::default(),
            excluded_root: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// Ready for a new search of `root` with `params` (keeps the allocations).
    fn reset(&mut self, root: &Position, params: &Params) {
        self.pos = root.clone();
        self.pos.set_root();
        self.stack.reset();
        for line in &mut self.pv {
            line.clear();
        }
        self.nodes = 0;
        self.seldepth = 0;
        self.lmr = super::node::lmr_table(params);
        self.result = ThreadResult::default();
        self.completed_depth = 0;
        self.root_depth = 0;
        self.nmp_min_ply = 0;
        self.root_nodes.clear();
        self.stats = Stats::default();
        self.excluded_root.clear();
        self.lines.clear();
    }
}

/// One search thread's state. The parameters are not here: every thread reads the one copy
/// of its search (`SearchShared::params`).
pub(crate) struct Worker {
    pub(crate) id: usize,
    pub(crate) game: GameState,
    pub(crate) state: SearchState,
}

impl Worker {
    pub(crate) fn new(id: usize) -> Worker {
        Worker {
            id,
            game: GameState {
                hist: Histories::default(),
                eval: Evaluator::default(),
            },
            state: SearchState::new(),
        }
    }

    /// Forget everything learnt in this game (`ucinewgame`).
    pub(crate) fn new_game(&mut self) {
        self.game.hist.clear();
        self.game.eval.new_game();
    }

    /// Readies this thread for a new search of `sh.root`.
    pub(crate) fn prepare(&mut self, sh: &SearchShared) {
        self.state
            .reset(&sh.root, crate::params::active(&sh.params));
        self.game.eval.new_search();
    }

    /// Adds to the nodes spent on root move `m`.
    pub(crate) fn add_root_nodes(&mut self, m: Move, nodes: u64) {
        match self.state.root_nodes.iter_mut().find(|(rm, _)| *rm == m) {
            Some((_, n)) => *n += nodes,
            None => self.state.root_nodes.push((m, nodes)),
        }
    }

    pub(crate) fn root_nodes_of(&self, m: Option<Move>) -> u64 {
        self.state
            .root_nodes
            .iter()
            .find(|(rm, _)| Some(*rm) == m)
            .map_or(0, |(_, n)| *n)
    }

    /// The raw static evaluation of the current position, side to move's view.
    #[inline]
    pub(crate) fn evaluate(&mut self, sh: &SearchShared) -> i32 {
        self.game.eval.raw(&sh.net, &self.state.pos)
    }

    /// Counts a node and polls the limits; true when the search must unwind.
    #[inline]
    pub(crate) fn count_node_and_check(&mut self, sh: &SearchShared) -> bool {
        self.state.nodes += 1;
        let nodes = self.state.nodes;
        sh.nodes.set(self.id, nodes);
        if let Some(limit) = sh.limits.nodes {
            if sh.threads == 1 {
                if nodes >= limit {
                    sh.request_stop();
                }
            } else if nodes & 255 == 0 && sh.nodes.total() >= limit {
                sh.request_stop();
            }
        }
        if self.id == 0 && nodes & 1023 == 0 && sh.clock.hard_expired() {
            sh.request_stop();
        }
        self.aborted(sh)
    }

    /// The current iteration is being abandoned (never before depth 1 is complete, so there is
    /// always a move to play).
    #[inline]
    pub(crate) fn aborted(&self, sh: &SearchShared) -> bool {
        self.state.completed_depth > 0 && sh.stopped()
    }
}
