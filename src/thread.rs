//! The thread pool: persistent search threads, each owning one [`Worker`], fed jobs over a
//! channel. A `go` hands every thread an `Arc` of one [`SearchShared`]; thread 0 is the main
//! thread (it owns time and output, stops the helpers, picks the result and reports
//! `bestmove`). The pool knows nothing of how a search runs: that is `search/`.

use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::search::Worker;
use crate::search::shared::SearchShared;
use crate::search::smp::{NodeCounters, ThreadResult};

/// Stack size of a search thread: deep recursion with a move list per frame.
const THREAD_STACK_BYTES: usize = 64 * 1024 * 1024;

enum Job {
    Search(Arc<SearchShared>),
    Clear,
    Exit,
}

/// One pool thread: its job queue and its handle.
struct PoolThread {
    jobs: mpsc::Sender<Job>,
    handle: Option<JoinHandle<()>>,
}

/// The persistent search threads. Created when `Threads` changes, not per search.
pub(crate) struct ThreadPool {
    workers: Vec<PoolThread>,
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
            workers.push(PoolThread {
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

    pub(crate) fn node_counters(&self) -> Arc<NodeCounters> {
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
    let mut worker = Box::new(Worker::new(id));
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Search(shared) => {
                if id == 0 {
                    worker.main_search(&shared);
                } else {
                    worker.helper_search(&shared);
                }
            }
            Job::Clear => worker.new_game(),
            Job::Exit => break,
        }
    }
}
