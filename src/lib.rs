//! Shears: a Lazy-SMP UCI chess engine with a pruning-heavy PVS search whose every margin is a
//! UCI `spin` parameter.

#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod engine;
pub mod epd;
pub mod eval;
mod history;
pub mod movegen;
mod movepick;
mod moves;
pub mod params;
pub mod position;
pub mod score;
pub mod search;
mod see;
pub mod selfplay;
pub mod soak;
pub mod tb;
mod thread;
pub mod time;
mod tt;
pub mod uci;

pub use engine::Engine;
pub use params::Params;
pub use time::Limits;
