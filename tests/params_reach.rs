//! Every technique's "off" setting (set through the same path as `setoption`) changes the
//! node count of a fixed-depth search, and so does the "on" setting of each technique that is
//! off by default: the parameters really reach the search threads.

use shears::bench::POSITIONS;
use shears::params::{DEFAULT_OFF, TECHNIQUES};
use shears::{Engine, Limits};

/// Nodes of a depth-`depth` search over a sample of the bench positions, from cleared state.
fn nodes(settings: &[(&str, i32)], depth: i32) -> u64 {
    let mut e = Engine::new();
    for (name, value) in settings {
        e.set_option(name, Some(&value.to_string())).unwrap();
    }
    let mut total = 0;
    for fen in POSITIONS.iter().step_by(4) {
        e.set_position(Some(fen), &[]).unwrap();
        e.new_game().unwrap();
        total += e.search(Limits::depth(depth)).nodes;
    }
    total
}

#[test]
fn every_off_switch_changes_the_search() {
    let depth = 9;
    let default = nodes(&[], depth);
    assert_eq!(default, nodes(&[], depth), "searches are deterministic");
    for (technique, settings) in TECHNIQUES {
        if settings.iter().any(|(n, _)| *n == "NMP_VERIFY_MIN_DEPTH") {
            // Verification only runs from depth 12 on: compare it switched on everywhere with
            // switched off.
            let everywhere = nodes(&[("NMP_VERIFY_MIN_DEPTH", 1)], depth);
            assert_ne!(
                everywhere,
                nodes(settings, depth),
                "{technique} changed nothing"
            );
            continue;
        }
        let off = nodes(settings, depth);
        assert_ne!(off, default, "switching off {technique} changed nothing");
    }
    for (technique, settings) in DEFAULT_OFF {
        let on = nodes(settings, depth);
        assert_ne!(on, default, "switching on {technique} changed nothing");
    }
}

#[test]
fn the_correction_steps_reach_the_search() {
    let depth = 9;
    let default = nodes(&[], depth);
    for setting in [
        ("CORR_STEP_DIV", 16),
        ("CORR_STEP_DEPTH_MAX", 2),
        ("CORR_STEP_MAX", 1),
        ("CORR_ENTRY_MAX", 4),
    ] {
        assert_ne!(
            nodes(&[setting], depth),
            default,
            "{setting:?} changed nothing"
        );
    }
}
