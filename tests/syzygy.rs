//! Syzygy tablebases through the engine: won endings are converted within the 50-move rule,
//! drawn ones held, bad paths reported. The 3-piece tables are in `tests/data/syzygy`; the
//! 4-piece tests use `../shared/syzygy` and are skipped, with a message, without it.

mod common;

use std::path::PathBuf;

use common::Collect;
use shears::Engine;
use shears::selfplay::{Adjudication, Outcome, Termination, TimeControl, play_game};

fn repo_tables() -> String {
    format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"))
}

fn shared_tables() -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy");
    if p.join("KRPvK.rtbw").exists() || p.join("KQvKR.rtbw").exists() {
        Some(p.to_string_lossy().into_owned())
    } else {
        eprintln!("skipped: ../shared/syzygy (the 4-piece tables) is not there");
        None
    }
}

fn engine(tables: Option<&str>) -> Engine {
    let mut e = Engine::new();
    if let Some(t) = tables {
        e.set_option("SyzygyPath", Some(t)).unwrap();
    }
    e
}

/// Plays `fen` out, both sides with the same tables, 3,000 nodes a move.
fn play(fen: &str, tables: Option<&str>) -> (Outcome, Termination, usize) {
    let mut w = engine(tables);
    let mut b = engine(tables);
    let g = play_game(
        &mut w,
        &mut b,
        Some(fen),
        TimeControl::Nodes(3000),
        &Adjudication::default(),
    )
    .unwrap();
    (g.outcome, g.termination, g.plies.len())
}

#[test]
fn kqk_and_krk_are_won_within_the_fifty_move_rule() {
    let t = repo_tables();
    for fen in [
        "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/8/3k4/8/8/8/K6R w - - 0 1",
        "k7/8/8/8/8/8/8/4K2R b - - 0 1",
    ] {
        let (outcome, termination, plies) = play(fen, Some(&t));
        assert_eq!(
            (outcome, termination),
            (Outcome::WhiteWins, Termination::Checkmate),
            "{fen} after {plies} plies"
        );
        assert!(plies < 100, "{fen}: {plies} plies");
    }
}

#[test]
fn a_drawn_kpk_is_held_and_a_won_one_won() {
    let t = repo_tables();
    // Black holds the rook pawn from in front of it.
    let (outcome, _, _) = play("7k/8/8/8/8/8/7P/6K1 w - - 0 1", Some(&t));
    assert_eq!(outcome, Outcome::Draw);
    // King in front of its pawn with the opposition: the tables make it a win.
    let (outcome, termination, _) = play("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", Some(&t));
    assert_eq!(
        (outcome, termination),
        (Outcome::WhiteWins, Termination::Checkmate)
    );
}

#[test]
fn tbhits_are_counted_and_bad_paths_reported() {
    let mut e = Engine::new();
    let err = e
        .set_option("SyzygyPath", Some("/no/such/dir"))
        .unwrap_err();
    assert!(err.contains("not a directory"), "{err}");
    // One good directory among bad ones: reported, and the good one is used.
    let t = repo_tables();
    let err = e
        .set_option(
            "SyzygyPath",
            Some(&format!("/no/such/dir{}{t}", shears::tb::PATH_SEPARATOR)),
        )
        .unwrap_err();
    assert!(err.contains("/no/such/dir"), "{err}");
    assert!(e.take_notes().iter().any(|n| n.contains("10 Syzygy files")));
    // A capture into KQvK in the tree is probed.
    e.set_position(Some("8/8/8/4k3/8/3n4/8/3QK3 w - - 0 1"), &[])
        .unwrap();
    let c = std::sync::Arc::new(Collect::default());
    e.search_with(shears::Limits::depth(6), c.clone());
    let hits = c.infos().iter().map(|i| i.tbhits).max().unwrap();
    assert!(hits > 0);
    // Options at their bounds.
    for (name, v) in [
        ("SyzygyProbeDepth", "1"),
        ("SyzygyProbeDepth", "100"),
        ("SyzygyProbeLimit", "0"),
        ("SyzygyProbeLimit", "7"),
        ("Syzygy50MoveRule", "false"),
    ] {
        e.set_option(name, Some(v)).unwrap();
    }
    assert!(e.set_option("SyzygyProbeLimit", Some("8")).is_err());
}

#[test]
fn four_piece_endings_with_the_shared_tables() {
    let Some(t) = shared_tables() else {
        return;
    };
    // KQvKR: the queen wins; KRvKR: a draw; KBNvK: a win that needs the tables' help.
    let (outcome, termination, plies) = play("8/8/8/3rk3/8/8/8/3QK3 w - - 0 1", Some(&t));
    assert_eq!(
        outcome,
        Outcome::WhiteWins,
        "KQvKR: {termination:?} after {plies} plies"
    );
    let (outcome, _, _) = play("8/8/8/3rk3/8/8/8/3RK3 w - - 0 1", Some(&t));
    assert_eq!(outcome, Outcome::Draw);
    let (outcome, termination, plies) = play("8/8/8/4k3/8/8/8/2BNK3 w - - 0 1", Some(&t));
    assert_eq!(
        (outcome, termination),
        (Outcome::WhiteWins, Termination::Checkmate),
        "KBNvK after {plies} plies"
    );
}

/// The value of `key` in an `info` line (the word after it).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()
}

/// A root in the tables, through the binary: every `info` line shows the tables' value (a
/// win beyond every normal score and below the mate scores, or a mate once the search finds
/// one), counts the root's probes in `tbhits`, and `UCI_ShowWDL` agrees; drawn and lost roots
/// likewise. Without tables the same won root shows an ordinary score and no hits.
#[test]
fn a_root_in_the_tables_shows_their_value() {
    for (fen, expect) in [
        ("8/8/8/8/8/8/3k4/KQ6 w - - 0 1", "win"),
        ("8/8/8/8/8/8/4k3/KN6 w - - 0 1", "draw"),
        ("K7/8/8/8/8/8/3k4/1q6 w - - 0 1", "loss"),
    ] {
        for tables in [true, false] {
            let mut e = common::Uci::start();
            e.send("setoption name UCI_ShowWDL value true");
            if tables {
                e.send(&format!(
                    "setoption name SyzygyPath value {}",
                    repo_tables()
                ));
            }
            e.send(&format!("position fen {fen}"));
            let (lines, best) = e.go("go depth 6");
            assert!(common::best_of(&best).is_some(), "{fen}: {best}");
            let infos: Vec<&String> = lines
                .iter()
                .filter(|l| l.starts_with("info") && l.contains(" score "))
                .collect();
            assert!(!infos.is_empty(), "{fen}: {lines:?}");
            for l in infos {
                let hits: u64 = field(l, "tbhits").and_then(|v| v.parse().ok()).unwrap();
                let kind = field(l, "score").unwrap();
                let value: i32 = field(l, kind).and_then(|v| v.parse().ok()).unwrap();
                let wdl: Vec<&str> = l
                    .split(" wdl ")
                    .nth(1)
                    .map(|w| w.split_whitespace().take(3).collect())
                    .unwrap_or_default();
                if !tables {
                    assert_eq!(hits, 0, "{l}");
                    if expect == "win" {
                        assert!(kind == "cp" && value < 10_000, "{l}");
                    }
                    continue;
                }
                assert!(hits > 0, "{l}");
                assert!(!l.contains("bound"), "{l}");
                match (expect, kind) {
                    ("win", "mate") => assert!(value > 0, "{l}"),
                    ("loss", "mate") => assert!(value < 0, "{l}"),
                    ("win", _) => assert!(value >= 19_000, "{l}"),
                    ("loss", _) => assert!(value <= -19_000, "{l}"),
                    _ => assert_eq!((kind, value), ("cp", 0), "{l}"),
                }
                let want = match expect {
                    "win" => ["1000", "0", "0"],
                    "loss" => ["0", "0", "1000"],
                    _ => ["0", "1000", "0"],
                };
                assert_eq!(wdl, want, "{l}");
            }
        }
    }
}
