//! In-process games between two [`Engine`]s: the local SPSA tuner, the soak test and data
//! generation play through this, so they need no other tool.
//!
//! Each move is checked for legality with shakmaty; a game ends by mate, stalemate, threefold
//! repetition, the 50-move rule, insufficient material, a loss on time, an illegal or missing
//! move, or (optionally) resign and draw adjudication on the engines' own scores.

use std::time::Instant;

use shakmaty::CastlingMode;

use crate::engine::Engine;
use crate::position::Position;
use crate::time::Limits;

/// How long each move may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeControl {
    /// A fixed node budget per move (reproducible with one thread).
    Nodes(u64),
    /// No new iteration after `soft` nodes, a hard stop at `hard` (data generation).
    SoftNodes {
        /// No iteration starts after this many nodes.
        soft: u64,
        /// The search stops at this many.
        hard: u64,
    },
    /// A fixed depth per move.
    Depth(i32),
    /// A clock per side in milliseconds, with an increment per move.
    Clock {
        /// Time per side at the start, ms.
        base_ms: u64,
        /// Increment per move, ms.
        inc_ms: u64,
    },
}

/// Optional adjudication on the engines' scores (from White's point of view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adjudication {
    /// Resign when both engines agree the score is beyond this for `resign_moves` moves each.
    pub resign_score: Option<i32>,
    /// Moves each engine must score beyond `resign_score` in a row.
    pub resign_moves: u32,
    /// Draw when, after `draw_after` full moves, both scores stay within this for
    /// `draw_moves` moves each.
    pub draw_score: Option<i32>,
    /// Moves each engine must score within `draw_score` in a row.
    pub draw_moves: u32,
    /// Full moves before a draw may be adjudicated.
    pub draw_after: u32,
    /// Draw at this many plies regardless.
    pub max_plies: usize,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            resign_score: None,
            resign_moves: 3,
            draw_score: None,
            draw_moves: 8,
            draw_after: 40,
            max_plies: 600,
        }
    }
}

/// A game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

impl Outcome {
    /// Score for White: 1, 0.5 or 0.
    pub fn white_score(self) -> f64 {
        match self {
            Outcome::WhiteWins => 1.0,
            Outcome::BlackWins => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no move and is not in check.
    Stalemate,
    /// Threefold repetition.
    Repetition,
    /// Fifty moves without capture or pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The side to move ran out of time.
    Time,
    /// The side to move returned no move, or an illegal one.
    IllegalMove,
    /// Adjudicated as lost by the scores.
    Resign,
    /// Adjudicated as drawn by the scores.
    DrawAdjudication,
    /// The game reached the length limit.
    MaxLength,
}

/// One move of a game, with what the engine said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlyRecord {
    /// The position before the move.
    pub fen: String,
    /// The move played, in UCI text.
    pub uci: String,
    /// Score from the mover's point of view.
    pub score: i32,
    /// Depth the move was searched to.
    pub depth: i32,
    /// Nodes spent on the move.
    pub nodes: u64,
    /// Milliseconds spent on the move.
    pub time_ms: u64,
    /// Milliseconds the mover had on its clock before the move (clock games).
    pub clock_ms: Option<u64>,
    /// The side to move was in check.
    pub in_check: bool,
    /// The move captured or promoted.
    pub noisy: bool,
}

/// A whole game as played: start, every ply, result.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// The starting position.
    pub start_fen: String,
    /// Every ply in order.
    pub plies: Vec<PlyRecord>,
    /// The result.
    pub outcome: Outcome,
    /// How it ended.
    pub termination: Termination,
}

/// Plays one game from `start_fen` (the start position if `None`). Both engines must already
/// have their options and parameters set; each gets `ucinewgame` first.
pub fn play_game(
    white: &mut Engine,
    black: &mut Engine,
    start_fen: Option<&str>,
    tc: TimeControl,
    adj: &Adjudication,
) -> Result<GameRecord, String> {
    play_game_odds(white, black, start_fen, [tc, tc], adj)
}

/// [`play_game`] with a time control for each side, `[white's, black's]`: node or time odds,
/// e.g. nodes scaled by each net's speed so that a screen at fixed nodes sees what a slower
/// net costs at a clock.
pub fn play_game_odds(
    white: &mut Engine,
    black: &mut Engine,
    start_fen: Option<&str>,
    tcs: [TimeControl; 2],
    adj: &Adjudication,
) -> Result<GameRecord, String> {
    let mut pos = match start_fen {
        Some(f) => Position::from_fen(f, CastlingMode::Standard)?,
        None => Position::default(),
    };
    let start = pos.fen();
    for e in [&mut *white, &mut *black] {
        e.new_game()?;
    }
    let mut moves: Vec<String> = Vec::new();
    let mut plies: Vec<PlyRecord> = Vec::new();
    let [white_tc, black_tc] = tcs;
    let tc_of = |turn: shakmaty::Color| turn.fold_wb(white_tc, black_tc);
    // Indexed by colour (`Color as usize`), as `side` below.
    let mut clocks = [0i64; 2];
    for turn in shakmaty::Color::ALL {
        if let TimeControl::Clock { base_ms, .. } = tc_of(turn) {
            clocks[turn as usize] = base_ms as i64;
        }
    }
    let (mut resign_streak, mut draw_streak) = (0u32, 0u32);

    let (outcome, termination) = loop {
        let turn = pos.turn();
        let side = turn as usize;
        let tc = tc_of(turn);
        let mover_loses = |t| {
            if turn == shakmaty::Color::White {
                (Outcome::BlackWins, t)
            } else {
                (Outcome::WhiteWins, t)
            }
        };
        // Game-ending positions.
        if pos.legal_moves().is_empty() {
            break if pos.in_check() {
                mover_loses(Termination::Checkmate)
            } else {
                (Outcome::Draw, Termination::Stalemate)
            };
        }
        if pos.halfmoves() >= 100 {
            break (Outcome::Draw, Termination::FiftyMoves);
        }
        if pos.is_repetition() {
            break (Outcome::Draw, Termination::Repetition);
        }
        if pos.is_insufficient_material() {
            break (Outcome::Draw, Termination::InsufficientMaterial);
        }
        if plies.len() >= adj.max_plies {
            break (Outcome::Draw, Termination::MaxLength);
        }

        let engine: &mut Engine = if turn == shakmaty::Color::White {
            white
        } else {
            black
        };
        let move_refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        engine.set_position(Some(&start), &move_refs)?;
        let limits = match tc {
            TimeControl::Nodes(n) => Limits::nodes(n),
            TimeControl::SoftNodes { soft, hard } => Limits {
                soft_nodes: Some(soft),
                nodes: Some(hard),
                ..Limits::default()
            },
            TimeControl::Depth(d) => Limits::depth(d),
            TimeControl::Clock { .. } => {
                // Each side's own increment (the other side's clock may be a node budget).
                let inc = |turn| match tc_of(turn) {
                    TimeControl::Clock { inc_ms, .. } => inc_ms,
                    _ => 0,
                };
                Limits {
                    wtime: Some(clocks[shakmaty::Color::White as usize].max(0) as u64),
                    btime: Some(clocks[shakmaty::Color::Black as usize].max(0) as u64),
                    winc: Some(inc(shakmaty::Color::White)),
                    binc: Some(inc(shakmaty::Color::Black)),
                    ..Limits::default()
                }
            }
        };
        let clock_before =
            matches!(tc, TimeControl::Clock { .. }).then(|| clocks[side].max(0) as u64);
        let t0 = Instant::now();
        let result = engine.search(limits);
        let used = t0.elapsed().as_millis() as i64;
        if let TimeControl::Clock { inc_ms, .. } = tc {
            clocks[side] -= used;
            if clocks[side] < 0 {
                break mover_loses(Termination::Time);
            }
            clocks[side] += inc_ms as i64;
        }
        let Some(uci) = result.best_move.clone() else {
            break mover_loses(Termination::IllegalMove);
        };
        let Ok(m) = pos.parse_uci_move(&uci) else {
            break mover_loses(Termination::IllegalMove);
        };
        plies.push(PlyRecord {
            fen: pos.fen(),
            uci: uci.clone(),
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            time_ms: used.max(0) as u64,
            clock_ms: clock_before,
            in_check: pos.in_check(),
            noisy: crate::movepick::is_noisy(m),
        });
        pos.play_game_move(m);
        moves.push(uci);

        // Score adjudication: both sides must agree over consecutive moves.
        let white_score = if turn == shakmaty::Color::White {
            result.score
        } else {
            -result.score
        };
        if let Some(r) = adj.resign_score {
            if white_score.abs() >= r && plies.len() >= 2 && same_sign_beyond(&plies, r) {
                resign_streak += 1;
            } else {
                resign_streak = 0;
            }
            if resign_streak >= 2 * adj.resign_moves {
                break if white_score > 0 {
                    (Outcome::WhiteWins, Termination::Resign)
                } else {
                    (Outcome::BlackWins, Termination::Resign)
                };
            }
        }
        if let Some(d) = adj.draw_score {
            if plies.len() >= 2 * adj.draw_after as usize && white_score.abs() <= d {
                draw_streak += 1;
            } else {
                draw_streak = 0;
            }
            if draw_streak >= 2 * adj.draw_moves {
                break (Outcome::Draw, Termination::DrawAdjudication);
            }
        }
    };

    Ok(GameRecord {
        start_fen: start,
        plies,
        outcome,
        termination,
    })
}

/// Do the last two moves' scores (one per side, each from its mover's view) agree on a
/// winner by at least `r`?
fn same_sign_beyond(plies: &[PlyRecord], r: i32) -> bool {
    let n = plies.len();
    let last = plies[n - 1].score;
    let before = -plies[n - 2].score; // the other side, turned to the same point of view
    last.abs() >= r && before.abs() >= r && (last > 0) == (before > 0)
}

/// Reads the positions of an EPD or FEN-per-line book (the first four or six fields of each
/// line); lines that do not parse are skipped.
pub fn read_book(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 4 {
                return None;
            }
            let fen = if fields.len() >= 6
                && fields[4].parse::<u32>().is_ok()
                && fields[5].parse::<u32>().is_ok()
            {
                fields[..6].join(" ")
            } else {
                format!("{} 0 1", fields[..4].join(" "))
            };
            Position::from_fen(&fen, CastlingMode::Standard)
                .ok()
                .map(|_| fen)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(fen: &str, tc: TimeControl) -> GameRecord {
        quick_with(fen, tc, &[])
    }

    /// A game between two engines given the same UCI options.
    fn quick_with(fen: &str, tc: TimeControl, options: &[(&str, &str)]) -> GameRecord {
        let mut w = Engine::new();
        let mut b = Engine::new();
        for e in [&mut w, &mut b] {
            for (name, value) in options {
                e.set_option(name, Some(value)).unwrap();
            }
        }
        play_game(&mut w, &mut b, Some(fen), tc, &Adjudication::default()).unwrap()
    }

    #[test]
    fn checkmate_is_adjudicated() {
        // White mates in one.
        let g = quick(
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
            TimeControl::Depth(4),
        );
        assert_eq!(g.outcome, Outcome::WhiteWins);
        assert_eq!(g.termination, Termination::Checkmate);
        assert_eq!(g.plies.len(), 1);
        // Already mated.
        let g = quick("5Q1k/8/6K1/8/8/8/8/8 b - - 0 1", TimeControl::Depth(2));
        assert_eq!(
            (g.outcome, g.termination),
            (Outcome::WhiteWins, Termination::Checkmate)
        );
    }

    #[test]
    fn stalemate_is_a_draw() {
        let g = quick("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", TimeControl::Depth(2));
        assert_eq!(
            (g.outcome, g.termination),
            (Outcome::Draw, Termination::Stalemate)
        );
    }

    #[test]
    fn fifty_moves_and_insufficient_material() {
        let g = quick("8/8/4k3/8/8/4K3/8/4R3 w - - 100 80", TimeControl::Depth(2));
        assert_eq!(
            (g.outcome, g.termination),
            (Outcome::Draw, Termination::FiftyMoves)
        );
        let g = quick("8/8/4k3/8/8/4KN2/8/8 w - - 0 1", TimeControl::Depth(2));
        assert_eq!(
            (g.outcome, g.termination),
            (Outcome::Draw, Termination::InsufficientMaterial)
        );
        // A capture that leaves bare kings ends the game at once.
        let g = quick("8/8/4k3/4n3/8/4K3/8/8 w - - 0 1", TimeControl::Depth(2));
        assert_eq!(g.termination, Termination::InsufficientMaterial);
        assert!(g.plies.len() <= 3);
    }

    #[test]
    fn drawn_endings_end_in_a_draw() {
        // Bare kings: insufficient material at once.
        let g = quick("7k/8/6K1/8/8/8/8/8 w - - 0 1", TimeControl::Depth(1));
        assert_eq!(
            (g.outcome, g.termination),
            (Outcome::Draw, Termination::InsufficientMaterial)
        );
        assert!(g.plies.is_empty());
        // A knight each: neither side can force anything, so the game is drawn by repetition
        // (or the 50-move rule, or a knight traded off).
        let g = quick("4k3/8/8/8/8/8/8/1n2K1N1 w - - 0 1", TimeControl::Depth(3));
        assert_eq!(g.outcome, Outcome::Draw);
        assert!(
            matches!(
                g.termination,
                Termination::Repetition
                    | Termination::FiftyMoves
                    | Termination::InsufficientMaterial
            ),
            "{:?}",
            g.termination
        );
    }

    #[test]
    fn resign_adjudication() {
        let adj = Adjudication {
            resign_score: Some(600),
            resign_moves: 2,
            ..Adjudication::default()
        };
        let mut w = Engine::new();
        let mut b = Engine::new();
        // White is a queen up.
        let g = play_game(
            &mut w,
            &mut b,
            Some("3qk3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1"),
            TimeControl::Nodes(2000),
            &adj,
        )
        .unwrap();
        assert_eq!(g.outcome, Outcome::WhiteWins);
        assert!(
            matches!(g.termination, Termination::Resign | Termination::Checkmate),
            "{:?}",
            g.termination
        );
    }

    #[test]
    fn each_side_plays_its_own_time_control() {
        let mut w = Engine::new();
        let mut b = Engine::new();
        let g = play_game_odds(
            &mut w,
            &mut b,
            None,
            [TimeControl::Nodes(3000), TimeControl::Nodes(300)],
            &Adjudication {
                max_plies: 40,
                ..Adjudication::default()
            },
        )
        .unwrap();
        assert!(g.plies.len() >= 10, "{} plies", g.plies.len());
        let most = |white: bool| {
            g.plies
                .iter()
                .skip(usize::from(!white))
                .step_by(2)
                .map(|p| p.nodes)
                .max()
                .unwrap_or(0)
        };
        // White (to move first from the start position) searched past Black's whole budget.
        assert!(most(true) > 1000, "white {}", most(true));
        assert!(most(false) <= 400, "black {}", most(false));
        // Time odds: the clocks start apart, and each side sees its own.
        let g = play_game_odds(
            &mut w,
            &mut b,
            None,
            [
                TimeControl::Clock {
                    base_ms: 5000,
                    inc_ms: 50,
                },
                TimeControl::Clock {
                    base_ms: 1000,
                    inc_ms: 10,
                },
            ],
            &Adjudication {
                max_plies: 6,
                ..Adjudication::default()
            },
        )
        .unwrap();
        let clocks: Vec<u64> = g.plies.iter().filter_map(|p| p.clock_ms).collect();
        assert_eq!(clocks.len(), g.plies.len());
        assert_eq!(clocks[..2], [5000, 1000]);
    }

    #[test]
    fn book_lines_parse() {
        let book = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"x\";\n\
                    garbage\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n";
        let fens = read_book(book);
        assert_eq!(fens.len(), 2);
        assert!(fens[0].ends_with("b KQkq - 0 1"));
    }
}
