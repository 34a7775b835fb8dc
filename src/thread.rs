//! Lazy SMP: a persistent pool of search threads, the state each owns, and what one search
//! shares between them.
//!
//! Every thread owns a [`ThreadData`] (histories, search stack, PV, node counter) that persists
//! between searches and is reset on `ucinewgame`. A `go` hands each thread an `Arc` of one
//! [`SearchShared`] (the transposition table, stop flag, clock, limits, parameters); thread 0 is
//! the main thread: it owns time and output, and when it is done it stops the helpers, waits
//! for them, picks the best thread's move and reports `bestmove`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crossbeam_utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use crate::eval::PawnCache;
use crate::history::Histories;
use crate::params::Params;
use crate::position::Position;
use crate::score::MAX_PLY;
use crate::search::negamax::Stats;
use crate::search::stack::SearchStack;
use crate::time::{Clock, Limits};
use crate::tt::{Bound, TranspositionTable};

/// Stack size of a search thread: deep recursion with a move list per frame.
const THREAD_STACK_BYTES: usize = 64 * 1024 * 1024;

/// One line of search output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub score: i32,
    pub bound: Bound,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: usize,
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
}

/// A reporter that drops everything.
pub struct Silent;

impl Reporter for Silent {
    fn info(&self, _info: &SearchInfo) {}
    fn bestmove(&self, _result: &SearchResult) {}
}

/// What one thread found: its last completed iteration.
#[derive(Debug, Clone, Default)]
pub struct ThreadResult {
    pub best_move: Option<Move>,
    pub pv: Vec<Move>,
    pub score: i32,
    pub depth: i32,
}

/// Per-thread node counters, each on its own cache line, summed on demand.
pub struct NodeCounters(Vec<CachePadded<AtomicU64>>);

impl NodeCounters {
    pub fn new(threads: usize) -> NodeCounters {
        NodeCounters(
            (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        )
    }

    #[inline]
    pub fn set(&self, thread: usize, nodes: u64) {
        self.0[thread].store(nodes, Relaxed);
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|c| c.load(Relaxed)).sum()
    }

    pub fn reset(&self) {
        for c in &self.0 {
            c.store(0, Relaxed);
        }
    }
}

/// Everything the threads of one search share.
pub struct SearchShared {
    pub tt: Arc<TranspositionTable>,
    pub stop: AtomicBool,
    pub clock: Clock,
    pub limits: Limits,
    pub root: Position,
    /// Root moves to search (all legal moves, or the `searchmoves`).
    pub root_moves: Vec<Move>,
    pub params: Params,
    pub nodes: Arc<NodeCounters>,
    pub threads: usize,
    pub reporter: Arc<dyn Reporter>,
    pub debug: bool,
    /// Helpers still searching.
    running: AtomicUsize,
    results: Mutex<Vec<Option<ThreadResult>>>,
    finished: Condvar,
    /// The result, and whether its `bestmove` has been reported.
    outcome: Mutex<(Option<SearchResult>, bool)>,
    outcome_ready: Condvar,
}

impl SearchShared {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tt: Arc<TranspositionTable>,
        clock: Clock,
        limits: Limits,
        root: Position,
        root_moves: Vec<Move>,
        params: Params,
        nodes: Arc<NodeCounters>,
        threads: usize,
        reporter: Arc<dyn Reporter>,
        debug: bool,
    ) -> SearchShared {
        SearchShared {
            tt,
            stop: AtomicBool::new(false),
            clock,
            limits,
            root,
            root_moves,
            params,
            nodes,
            threads,
            reporter,
            debug,
            running: AtomicUsize::new(threads),
            results: Mutex::new(vec![None; threads]),
            finished: Condvar::new(),
            outcome: Mutex::new((None, false)),
            outcome_ready: Condvar::new(),
        }
    }

    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    pub fn request_stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// A thread is done: publish its result.
    pub fn finish_thread(&self, id: usize, result: ThreadResult) {
        let mut results = self.results.lock();
        results[id] = Some(result);
        self.running.fetch_sub(1, Relaxed);
        self.finished.notify_all();
    }

    /// Main thread: wait until every thread has published its result, then take them.
    pub fn wait_for_threads(&self) -> Vec<ThreadResult> {
        let mut results = self.results.lock();
        while self.running.load(Relaxed) > 0 {
            self.finished.wait(&mut results);
        }
        results
            .iter()
            .map(|r| r.clone().unwrap_or_default())
            .collect()
    }

    /// Main thread: the search is over (every thread has stopped); the engine may take new
    /// commands from now on, even before `bestmove` is written.
    pub fn publish(&self, result: SearchResult) {
        self.outcome.lock().0 = Some(result);
        self.outcome_ready.notify_all();
    }

    /// Main thread: `bestmove` has been written.
    pub fn mark_reported(&self) {
        self.outcome.lock().1 = true;
        self.outcome_ready.notify_all();
    }

    /// Has the search published its result?
    pub fn is_done(&self) -> bool {
        self.outcome.lock().0.is_some()
    }

    /// Blocks until the search is over and its `bestmove` written.
    pub fn wait(&self) -> SearchResult {
        let mut outcome = self.outcome.lock();
        loop {
            if let (Some(r), true) = (&outcome.0, outcome.1) {
                return r.clone();
            }
            self.outcome_ready.wait(&mut outcome);
        }
    }
}

/// Per-thread state, persistent across searches.
pub struct ThreadData {
    pub id: usize,
    pub pos: Position,
    pub hist: Histories,
    pub stack: SearchStack,
    /// Triangular PV table: `pv[ply]` is the best line found from `ply`.
    pub pv: Vec<Vec<Move>>,
    pub nodes: u64,
    pub seldepth: usize,
    pub params: Params,
    /// Late-move reduction table (in 1/1024 plies), rebuilt from `params` at each search.
    pub lmr: Vec<[i32; 64]>,
    /// Result of the last completed iteration.
    pub result: ThreadResult,
    pub completed_depth: i32,
    /// Depth of the iteration in progress.
    pub root_depth: i32,
    /// Null move pruning is off above this ply (during a verification search).
    pub nmp_min_ply: usize,
    /// Nodes spent on each root move in this search.
    pub root_nodes: Vec<(Move, u64)>,
    pub stats: Stats,
    pub pawn_cache: PawnCache,
}

impl ThreadData {
    pub fn new(id: usize) -> ThreadData {
        ThreadData {
            id,
            pos: Position::default(),
            hist: Histories::default(),
            stack: SearchStack::default(),
            pv: (0..=MAX_PLY + 1)
                .map(|_| Vec::with_capacity(MAX_PLY + 1))
                .collect(),
            nodes: 0,
            seldepth: 0,
            params: Params::default(),
            lmr: vec![[0; 64]; 64],
            result: ThreadResult::default(),
            completed_depth: 0,
            root_depth: 0,
            nmp_min_ply: 0,
            root_nodes: Vec::new(),
            stats: Stats::default(),
            pawn_cache: PawnCache::default(),
        }
    }

    /// Forget everything learnt in this game (`ucinewgame`).
    pub fn clear(&mut self) {
        self.hist.clear();
    }
}

enum Job {
    Search(Arc<SearchShared>),
    Clear,
    Exit,
}

struct Worker {
    jobs: mpsc::Sender<Job>,
    handle: Option<JoinHandle<()>>,
}

/// The persistent search threads. Created when `Threads` changes, not per search.
pub struct ThreadPool {
    workers: Vec<Worker>,
    nodes: Arc<NodeCounters>,
}

impl ThreadPool {
    pub fn new(threads: usize) -> Result<ThreadPool, String> {
        let threads = threads.max(1);
        let mut workers = Vec::with_capacity(threads);
        for id in 0..threads {
            let (tx, rx) = mpsc::channel::<Job>();
            let handle = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(THREAD_STACK_BYTES)
                .spawn(move || worker_loop(id, &rx))
                .map_err(|e| format!("cannot start search thread {id}: {e}"))?;
            workers.push(Worker {
                jobs: tx,
                handle: Some(handle),
            });
        }
        Ok(ThreadPool {
            workers,
            nodes: Arc::new(NodeCounters::new(threads)),
        })
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    pub fn node_counters(&self) -> Arc<NodeCounters> {
        Arc::clone(&self.nodes)
    }

    /// Starts a search on every thread.
    pub fn start(&self, shared: &Arc<SearchShared>) {
        self.nodes.reset();
        for w in &self.workers {
            // A worker that is gone would be a bug; the search then runs without it and
            // `wait_for_threads` would hang, so count it as finished at once.
            if w.jobs.send(Job::Search(Arc::clone(shared))).is_err() {
                shared.finish_thread(0, ThreadResult::default());
            }
        }
    }

    /// Resets every thread's histories (queued behind any running search).
    pub fn clear(&self) {
        for w in &self.workers {
            let _ = w.jobs.send(Job::Clear);
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        for w in &self.workers {
            let _ = w.jobs.send(Job::Exit);
        }
        for w in &mut self.workers {
            if let Some(h) = w.handle.take() {
                let _ = h.join();
            }
        }
    }
}

fn worker_loop(id: usize, jobs: &mpsc::Receiver<Job>) {
    let mut td = Box::new(ThreadData::new(id));
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Search(shared) => {
                if id == 0 {
                    td.main_search(&shared);
                } else {
                    td.helper_search(&shared);
                }
            }
            Job::Clear => td.clear(),
            Job::Exit => break,
        }
    }
}
