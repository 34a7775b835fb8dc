//! The search: iterative deepening with aspiration windows and the roles of the main and
//! helper threads (`iterate.rs`), the principal variation search (`negamax.rs`), the
//! quiescence search (`qsearch.rs`), node kinds and reductions (`node.rs`), each thread's state
//! (`worker.rs`), what the threads of one search share (`shared.rs`), the Lazy-SMP policy
//! (`smp.rs`) and what a search reports (`report.rs`). The thread pool that runs workers is
//! `thread.rs`, above this module. This file only declares the parts and what they show
//! outside; the parts import one another, never this file.

mod iterate;
mod negamax;
mod node;
mod qsearch;
pub mod report;
pub(crate) mod shared;
pub(crate) mod smp;
mod stack;
mod stats;
mod worker;

pub use crate::tt::Bound;
pub(crate) use report::Silent;
pub use report::{Reporter, SearchInfo, SearchResult};
pub(crate) use worker::Worker;
