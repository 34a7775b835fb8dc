//! Lazy SMP through the engine API: every thread count gives legal moves, searches start and
//! stop cleanly many times over, thread counts change between searches, node limits hold.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::is_legal;
use shears::search::{Reporter, SearchInfo, SearchResult};
use shears::{Engine, Limits};

/// Counts `bestmove`s and remembers the moves.
#[derive(Default)]
struct Count {
    bestmoves: AtomicUsize,
    moves: Mutex<Vec<Option<String>>>,
}

impl Reporter for Count {
    fn info(&self, _: &SearchInfo) {}
    fn bestmove(&self, r: &SearchResult) {
        self.bestmoves.fetch_add(1, Ordering::SeqCst);
        self.moves.lock().unwrap().push(r.best_move.clone());
    }
}

const MIDGAME: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9";

fn engine(threads: usize) -> Engine {
    let mut e = Engine::new();
    e.set_option("Threads", Some(&threads.to_string())).unwrap();
    e.set_position(Some(MIDGAME), &[]).unwrap();
    e
}

#[test]
fn every_thread_count_gives_legal_moves() {
    for threads in [1, 2, 4, 8, 16] {
        let mut e = engine(threads);
        for limits in [
            Limits::depth(6),
            Limits::nodes(20_000),
            Limits::movetime(50),
        ] {
            let r = e.search(limits.clone());
            let mv = r
                .best_move
                .unwrap_or_else(|| panic!("{threads} threads {limits:?}"));
            assert!(is_legal(Some(MIDGAME), &[], &mv), "{threads} threads: {mv}");
        }
    }
}

#[test]
fn many_infinite_stop_cycles_give_one_bestmove_each() {
    let mut e = engine(4);
    let count = Arc::new(Count::default());
    let start = Instant::now();
    for i in 0..200 {
        e.go(
            Limits {
                infinite: true,
                ..Limits::default()
            },
            count.clone(),
        );
        if i % 10 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
        e.stop();
        let r = e.wait().unwrap();
        assert!(r.best_move.is_some());
    }
    assert_eq!(count.bestmoves.load(Ordering::SeqCst), 200);
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn many_short_movetime_searches_give_one_bestmove_each() {
    let mut e = engine(4);
    let count = Arc::new(Count::default());
    for _ in 0..200 {
        e.go(Limits::movetime(5), count.clone());
        e.wait().unwrap();
    }
    assert_eq!(count.bestmoves.load(Ordering::SeqCst), 200);
    for mv in count.moves.lock().unwrap().iter() {
        assert!(is_legal(Some(MIDGAME), &[], mv.as_deref().unwrap()));
    }
}

#[test]
fn a_new_go_stops_the_running_search_first() {
    let mut e = engine(2);
    let count = Arc::new(Count::default());
    e.go(
        Limits {
            infinite: true,
            ..Limits::default()
        },
        count.clone(),
    );
    e.go(Limits::depth(3), count.clone());
    e.wait().unwrap();
    assert_eq!(count.bestmoves.load(Ordering::SeqCst), 2);
}

#[test]
fn thread_count_changes_between_searches() {
    let mut e = engine(1);
    for threads in [1, 8, 2, 16, 1] {
        e.set_option("Threads", Some(&threads.to_string())).unwrap();
        assert_eq!(e.options().threads, threads);
        let r = e.search(Limits::depth(5));
        assert!(is_legal(Some(MIDGAME), &[], &r.best_move.unwrap()));
    }
}

#[test]
fn node_limit_holds_with_four_threads() {
    let mut e = engine(4);
    for n in [10_000u64, 100_000] {
        let r = e.search(Limits::nodes(n));
        assert!(r.nodes >= n, "{} < {n}", r.nodes);
        assert!(r.nodes <= n + 4 * 1024, "{} overshoots {n}", r.nodes);
    }
}

#[test]
fn more_threads_than_cores_work() {
    let cores = num_cpus::get();
    let mut e = engine(cores * 4);
    let r = e.search(Limits::depth(7));
    assert!(is_legal(Some(MIDGAME), &[], &r.best_move.unwrap()));
}
