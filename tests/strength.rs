//! UCI_LimitStrength: a lower UCI_Elo plays measurably weaker (the ordering; the calibration
//! against Stockfish is a measurement in docs/analysis.md, not a test).

use shears::Engine;
use shears::selfplay::{Adjudication, Outcome, TimeControl, play_game};

fn at_elo(elo: u32) -> Engine {
    let mut e = Engine::new();
    e.set_option("UCI_LimitStrength", Some("true")).unwrap();
    e.set_option("UCI_Elo", Some(&elo.to_string())).unwrap();
    e
}

#[test]
fn a_lower_elo_scores_less_and_searches_fewer_nodes() {
    assert!(shears::engine::elo_nodes(1400) < shears::engine::elo_nodes(2000));
    let (weak, strong) = (1400, 2000);
    let adj = Adjudication {
        resign_score: Some(800),
        resign_moves: 2,
        draw_score: Some(10),
        draw_moves: 8,
        draw_after: 30,
        max_plies: 300,
    };
    let mut points = 0.0;
    let games = 8;
    for (i, fen) in shears::bench::POSITIONS.iter().take(games / 2).enumerate() {
        for strong_is_white in [true, false] {
            let (mut s, mut w) = (at_elo(strong), at_elo(weak));
            let (white, black) = if strong_is_white {
                (&mut s, &mut w)
            } else {
                (&mut w, &mut s)
            };
            let g = play_game(
                white,
                black,
                Some(fen),
                TimeControl::Nodes(10_000_000),
                &adj,
            )
            .unwrap_or_else(|e| panic!("game {i}: {e}"));
            points += match (g.outcome, strong_is_white) {
                (Outcome::Draw, _) => 0.5,
                (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 1.0,
                _ => 0.0,
            };
            // The cap holds: no move searched more than its nodes.
            let cap = shears::engine::elo_nodes(strong);
            assert!(g.plies.iter().all(|p| p.nodes <= cap + 64), "game {i}");
        }
    }
    assert!(points >= 0.75 * games as f64, "{points} of {games}");
}

#[test]
fn full_strength_when_off() {
    let mut e = Engine::new();
    e.set_option("UCI_Elo", Some("1320")).unwrap();
    let r = e.search(shears::Limits::depth(8));
    assert!(r.nodes > shears::engine::elo_nodes(1320) * 10);
    assert!(e.set_option("UCI_Elo", Some("1000")).is_err());
    assert!(e.set_option("UCI_Elo", Some("3001")).is_err());
}
