//! Test suites in EPD: `shears epd FILE` searches each position and checks its `bm` (best
//! moves, in SAN) or `am` (avoid moves) operation.

use shakmaty::CastlingMode;
use shakmaty::san::SanPlus;

use crate::engine::Engine;
use crate::position::Position;
use crate::time::Limits;

/// One suite position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdCase {
    /// The position.
    pub fen: String,
    /// The record's `id`.
    pub id: String,
    /// Best moves, in UCI.
    pub best: Vec<String>,
    /// Moves to avoid, in UCI.
    pub avoid: Vec<String>,
}

/// Parses an EPD line: four FEN fields, then `op value...;` operations.
pub fn parse_line(line: &str) -> Result<EpdCase, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("short EPD line '{line}'"));
    }
    let fen = format!("{} 0 1", fields[..4].join(" "));
    let pos = Position::from_fen(&fen, CastlingMode::Standard)?;
    let rest = fields[4..].join(" ");
    let mut case = EpdCase {
        fen,
        id: String::new(),
        best: Vec::new(),
        avoid: Vec::new(),
    };
    for op in rest.split(';') {
        let mut words = op.split_whitespace();
        let Some(name) = words.next() else { continue };
        let values: Vec<&str> = words.collect();
        let sans = |list: &[&str]| -> Result<Vec<String>, String> {
            list.iter()
                .map(|san| {
                    let m = SanPlus::from_ascii(san.as_bytes())
                        .map_err(|_| format!("bad SAN '{san}'"))?
                        .san
                        .to_move(pos.board())
                        .map_err(|_| format!("illegal SAN '{san}' in {}", pos.fen()))?;
                    Ok(pos.move_to_uci(m))
                })
                .collect()
        };
        match name {
            "bm" => case.best = sans(&values)?,
            "am" => case.avoid = sans(&values)?,
            "id" => case.id = values.join(" ").trim_matches('"').to_string(),
            _ => {}
        }
    }
    Ok(case)
}

/// Did the engine's move solve the case?
pub fn solved(case: &EpdCase, mv: Option<&str>) -> bool {
    let Some(mv) = mv else { return false };
    (case.best.is_empty() || case.best.iter().any(|b| b == mv))
        && !case.avoid.iter().any(|a| a == mv)
}

/// Runs a suite; returns (solved, total) and prints one line per case when `verbose`.
pub fn run_suite(
    engine: &mut Engine,
    cases: &[EpdCase],
    limits: &Limits,
    verbose: bool,
) -> (usize, usize) {
    let mut ok = 0;
    for case in cases {
        if engine.set_position(Some(&case.fen), &[]).is_err() || engine.new_game().is_err() {
            continue;
        }
        let r = engine.search(limits.clone());
        let good = solved(case, r.best_move.as_deref());
        ok += usize::from(good);
        if verbose {
            println!(
                "{} {:<10} played {:<6} want {:<12} depth {:>2} score {}",
                if good { "ok  " } else { "FAIL" },
                case.id,
                r.best_move.as_deref().unwrap_or("-"),
                case.best.join(","),
                r.depth,
                r.score
            );
        }
    }
    (ok, cases.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_wac_style_lines() {
        let c = parse_line(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";",
        )
        .unwrap();
        assert_eq!(c.best, vec!["g3g6"]);
        assert_eq!(c.id, "WAC.001");
        assert!(solved(&c, Some("g3g6")));
        assert!(!solved(&c, Some("f1e1")));
        let c = parse_line("4k3/8/8/8/8/8/8/4K2R w K - am O-O; bm Rh8+;").unwrap();
        assert_eq!(c.avoid, vec!["e1g1"]);
        assert_eq!(c.best, vec!["h1h8"]);
        assert!(parse_line("8/8/8 w").is_err());
    }
}
