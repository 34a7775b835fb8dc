//! Search limits and the time manager (soft and hard limits).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::Color;

use crate::params::Params;

/// What a `go` command asked for. Times are in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// White's clock, ms.
    pub wtime: Option<u64>,
    /// Black's clock, ms.
    pub btime: Option<u64>,
    /// White's increment, ms.
    pub winc: Option<u64>,
    /// Black's increment, ms.
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u64>,
    /// Search to this depth.
    pub depth: Option<i32>,
    /// Search this many nodes.
    pub nodes: Option<u64>,
    /// Start no new iteration once this many nodes are searched (data generation); `nodes`
    /// stays the hard limit.
    pub soft_nodes: Option<u64>,
    /// Search exactly this long, ms.
    pub movetime: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<i32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder: the clock starts at `ponderhit`.
    pub ponder: bool,
    /// Restrict the root to these moves (UCI text), if not empty.
    pub searchmoves: Vec<String>,
}

impl Limits {
    /// Search to `depth`.
    pub fn depth(depth: i32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Search for `ms` milliseconds.
    pub fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(ms),
            ..Limits::default()
        }
    }
}

/// Milliseconds a search may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Do not start another iteration after this much time (scaled by the search's confidence).
    pub soft: u64,
    /// Stop at once after this much time.
    pub hard: u64,
    /// A fixed time (`go movetime`): search until `hard`, never stop early on confidence.
    pub fixed: bool,
}

/// Computes the time budget for the side to move, or `None` when the search is not timed.
pub(crate) fn budget(limits: &Limits, turn: Color, overhead: u64, p: &Params) -> Option<Budget> {
    if let Some(mt) = limits.movetime {
        let t = mt.saturating_sub(overhead).max(1);
        return Some(Budget {
            soft: t,
            hard: t,
            fixed: true,
        });
    }
    let (time, inc) = match turn {
        Color::White => (limits.wtime?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime?, limits.binc.unwrap_or(0)),
    };
    // What may be spent at all: keep the overhead in reserve on every move.
    let left = time.saturating_sub(overhead).max(1);
    let permille = |x: u64, k: i32| x.saturating_mul(k.max(0) as u64) / 1000;
    let base = match limits.movestogo {
        Some(mtg) if mtg > 0 => left / mtg.min(50) + permille(inc, p.TM_INC_PERMILLE),
        _ => permille(left, p.TM_BASE_PERMILLE) + permille(inc, p.TM_INC_PERMILLE),
    };
    let cap = permille(left, p.TM_MAX_PERMILLE).max(1);
    let hard = permille(base, p.TM_HARD_PERMILLE).clamp(1, cap);
    let soft = permille(base, p.TM_SOFT_PERMILLE).clamp(1, hard);
    Some(Budget {
        soft,
        hard,
        fixed: false,
    })
}

/// The clock of one search, shared by its threads.
pub struct Clock {
    start: Instant,
    /// Milliseconds after `start` at which the clock started counting (the `ponderhit`).
    counted_from: AtomicU64,
    pondering: AtomicBool,
    budget: Option<Budget>,
}

impl Clock {
    /// A clock for a search with `budget` (none: no time limit), started now.
    pub fn new(budget: Option<Budget>, pondering: bool) -> Clock {
        Clock {
            start: Instant::now(),
            counted_from: AtomicU64::new(0),
            pondering: AtomicBool::new(pondering),
            budget,
        }
    }

    /// Milliseconds since `go`.
    pub(crate) fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Milliseconds that count against our clock (since `ponderhit` when pondering).
    pub(crate) fn used_ms(&self) -> u64 {
        self.elapsed_ms()
            .saturating_sub(self.counted_from.load(Relaxed))
    }

    /// The search is pondering (no time limit until `ponderhit`).
    pub fn pondering(&self) -> bool {
        self.pondering.load(Relaxed)
    }

    /// The opponent played the expected move: our clock runs from now.
    pub fn ponderhit(&self) {
        self.counted_from.store(self.elapsed_ms(), Relaxed);
        self.pondering.store(false, Relaxed);
    }

    pub(crate) fn budget(&self) -> Option<Budget> {
        self.budget
    }

    /// Past the hard limit (never while pondering).
    pub(crate) fn hard_expired(&self) -> bool {
        match self.budget {
            Some(b) if !self.pondering() => self.used_ms() >= b.hard,
            _ => false,
        }
    }

    /// Past the soft limit scaled by `scale_permille` (never while pondering). A fixed
    /// budget is not scaled: `go movetime` searches for all of its time.
    pub(crate) fn soft_expired(&self, scale_permille: u64) -> bool {
        match self.budget {
            Some(b) if !self.pondering() => {
                let limit = if b.fixed {
                    b.hard
                } else {
                    (b.soft.saturating_mul(scale_permille) / 1000).min(b.hard)
                };
                self.used_ms() >= limit
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time: u64, inc: u64, mtg: Option<u64>, overhead: u64) -> Budget {
        let limits = Limits {
            wtime: Some(time),
            btime: Some(time),
            winc: Some(inc),
            binc: Some(inc),
            movestogo: mtg,
            ..Limits::default()
        };
        budget(&limits, Color::White, overhead, &Params::default()).unwrap()
    }

    #[test]
    fn never_more_than_the_clock_minus_overhead() {
        for time in [1u64, 5, 10, 30, 100, 1000, 10_000, 600_000] {
            for inc in [0u64, 10, 100, 5000, 60_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    for overhead in [0u64, 10, 50] {
                        let b = clock(time, inc, mtg, overhead);
                        assert!(b.soft <= b.hard);
                        assert!(b.hard >= 1);
                        let left = time.saturating_sub(overhead).max(1);
                        assert!(b.hard <= left, "{time} {inc} {mtg:?} {overhead}: {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn more_time_more_budget() {
        assert!(clock(60_000, 0, None, 10).soft > clock(10_000, 0, None, 10).soft);
        assert!(clock(10_000, 1000, None, 10).soft > clock(10_000, 0, None, 10).soft);
    }

    #[test]
    fn movetime_and_untimed() {
        let p = Params::default();
        let b = budget(&Limits::movetime(500), Color::Black, 20, &p).unwrap();
        assert_eq!(
            b,
            Budget {
                soft: 480,
                hard: 480,
                fixed: true
            }
        );
        assert!(budget(&Limits::depth(5), Color::White, 10, &p).is_none());
        // Only the other side's clock given: not timed for us.
        let l = Limits {
            btime: Some(1000),
            ..Limits::default()
        };
        assert!(budget(&l, Color::White, 10, &p).is_none());
    }

    #[test]
    fn a_fixed_movetime_is_not_cut_short_by_confidence() {
        let budget = |fixed| Budget {
            soft: 60_000,
            hard: 60_000,
            fixed,
        };
        // Scale 0: a confident search on the clock stops after any iteration.
        assert!(Clock::new(Some(budget(false)), false).soft_expired(0));
        // `go movetime` runs until its hard limit whatever the scale.
        let c = Clock::new(Some(budget(true)), false);
        assert!(!c.soft_expired(0));
        assert!(!c.soft_expired(1000));
    }

    #[test]
    fn ponder_clock_starts_at_ponderhit() {
        let c = Clock::new(
            Some(Budget {
                soft: 1,
                hard: 1,
                fixed: false,
            }),
            true,
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(!c.hard_expired(), "no limit while pondering");
        c.ponderhit();
        assert!(c.used_ms() <= 1);
    }
}
