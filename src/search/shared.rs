//! What the threads of one search share: the table, the stop flag, the clock, the limits, the
//! root, the parameters, the node counters, the reporter, and the rendezvous at the end.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

use parking_lot::{Condvar, Mutex};
use shakmaty::Move;

use super::report::{Reporter, SearchResult};
use super::smp::{NodeCounters, ThreadResult};
use crate::eval::nnue::Network;
use crate::params::Params;
use crate::position::Position;
use crate::tb::{RootTb, Tablebases, TbConfig};
use crate::time::{Clock, Limits};
use crate::tt::TranspositionTable;

/// Everything the threads of one search share.
pub(crate) struct SearchShared {
    pub tt: Arc<TranspositionTable>,
    pub stop: AtomicBool,
    pub clock: Clock,
    pub limits: Limits,
    pub root: Position,
    /// Root moves to search (all legal moves, or the `searchmoves`).
    pub root_moves: Vec<Move>,
    pub params: Params,
    /// The network that evaluates.
    pub net: Arc<Network>,
    /// Syzygy tables and how to probe them.
    pub tb: Option<Arc<Tablebases>>,
    /// The tables' verdict on the root, when they cover it.
    pub root_tb: Option<RootTb>,
    pub tb_config: TbConfig,
    /// Tablebase probes that gave a result, all threads and the root's.
    pub tbhits: AtomicU64,
    pub nodes: Arc<NodeCounters>,
    pub threads: usize,
    /// Lines to search and report (`MultiPV`), at least 1.
    pub multipv: usize,
    /// Report win/draw/loss chances (`UCI_ShowWDL`).
    pub show_wdl: bool,
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
        net: Arc<Network>,
        tb: Option<Arc<Tablebases>>,
        root_tb: Option<RootTb>,
        tb_config: TbConfig,
        nodes: Arc<NodeCounters>,
        threads: usize,
        multipv: usize,
        show_wdl: bool,
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
            net,
            tb,
            // The root's probes count, as Stockfish counts them.
            tbhits: AtomicU64::new(root_tb.as_ref().map_or(0, |r| r.probes)),
            root_tb,
            tb_config,
            nodes,
            threads,
            multipv: multipv.max(1),
            show_wdl,
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

    pub(crate) fn request_stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// A thread is done: publish its result.
    pub(crate) fn finish_thread(&self, id: usize, result: ThreadResult) {
        let mut results = self.results.lock();
        results[id] = Some(result);
        self.running.fetch_sub(1, Relaxed);
        self.finished.notify_all();
    }

    /// Main thread: wait until every thread has published its result, then take them.
    pub(crate) fn wait_for_threads(&self) -> Vec<ThreadResult> {
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
    pub(crate) fn publish(&self, result: SearchResult) {
        self.outcome.lock().0 = Some(result);
        self.outcome_ready.notify_all();
    }

    /// Main thread: `bestmove` has been written.
    pub(crate) fn mark_reported(&self) {
        self.outcome.lock().1 = true;
        self.outcome_ready.notify_all();
    }

    /// Has the search published its result?
    pub(crate) fn is_done(&self) -> bool {
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
