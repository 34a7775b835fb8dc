//! Syzygy endgame tablebases through `shakmaty-syzygy`: one table set shared by every search
//! thread, WDL probes in the tree and DTZ ranking of the root moves.

use std::path::Path;

use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::{AmbiguousWdl, Tablebase, Wdl};

use crate::tt::Bound;

/// Score of a tablebase win (less the plies to it), far from the mate scores.
pub(crate) const TB_WIN: i32 = 20_000;

/// What the tables say about a root they cover: the moves to search, the score to show, and
/// the probes it took (counted in `tbhits`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RootTb {
    /// The moves that keep the best result (never empty).
    pub(crate) moves: Vec<Move>,
    /// The root's value as a search score: `TB_WIN - 1` won, `-(TB_WIN - 1)` lost, 0 drawn,
    /// and with the 50-move rule on, 1 / -1 for a win / loss it spoils (as in the tree).
    pub(crate) score: i32,
    pub(crate) probes: u64,
}

impl RootTb {
    /// Win, draw and loss per mille as the tables have them: certain, unlike the model's.
    pub(crate) fn wdl(&self) -> [u32; 3] {
        match self.score {
            s if s >= TB_WIN - 1 => [1000, 0, 0],
            s if s <= 1 - TB_WIN => [0, 0, 1000],
            _ => [0, 1000, 0],
        }
    }
}

/// The loaded tables and how the search uses them.
pub(crate) struct Tablebases {
    tables: Tablebase<Chess>,
    /// Tables loaded, and the directories they came from.
    files: usize,
    paths: Vec<String>,
}

/// Probing settings (UCI options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TbConfig {
    /// Probe in the tree only at this depth or deeper (positions with fewer pieces than the
    /// limit are probed at any depth).
    pub(crate) probe_depth: i32,
    /// Most pieces of a position probed (also capped by the largest table loaded).
    pub(crate) probe_limit: usize,
    /// Wins and losses that the 50-move rule turns into draws count as draws.
    pub(crate) rule50: bool,
}

impl Default for TbConfig {
    fn default() -> Self {
        TbConfig {
            probe_depth: 1,
            probe_limit: 7,
            rule50: true,
        }
    }
}

/// The separator of several directories in `SyzygyPath`.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

impl Tablebases {
    /// Loads every table of the directories in `path` (separated by [`PATH_SEPARATOR`]).
    /// Returns the tables of the directories that could be read, and one message for each
    /// that could not; `Err` when nothing could be loaded.
    pub(crate) fn load(path: &str) -> Result<(Tablebases, Vec<String>), String> {
        let mut tables = Tablebase::new();
        let mut files = 0;
        let mut paths = Vec::new();
        let mut errors = Vec::new();
        for dir in path
            .split(PATH_SEPARATOR)
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            if !Path::new(dir).is_dir() {
                errors.push(format!("SyzygyPath: '{dir}' is not a directory"));
                continue;
            }
            match tables.add_directory(dir) {
                Ok(0) => errors.push(format!("SyzygyPath: no tables in '{dir}'")),
                Ok(n) => {
                    files += n;
                    paths.push(dir.to_string());
                }
                Err(e) => errors.push(format!("SyzygyPath: '{dir}': {e}")),
            }
        }
        if files == 0 {
            return Err(if errors.is_empty() {
                "SyzygyPath: no directory given".to_string()
            } else {
                errors.join("; ")
            });
        }
        Ok((
            Tablebases {
                tables,
                files,
                paths,
            },
            errors,
        ))
    }

    /// Pieces of the largest table loaded.
    pub(crate) fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    pub(crate) fn describe(&self) -> String {
        format!(
            "{} Syzygy files up to {} pieces from {}",
            self.files,
            self.max_pieces(),
            self.paths.join(&PATH_SEPARATOR.to_string())
        )
    }

    /// Pieces on the board if `pos` can be probed under `cfg`.
    #[inline]
    fn covered_pieces(&self, pos: &Chess, cfg: &TbConfig) -> Option<usize> {
        let pieces = pos.board().occupied().count();
        (pieces <= cfg.probe_limit.min(self.max_pieces()) && !pos.castles().any()).then_some(pieces)
    }

    /// The WDL value of `pos` (side to move's view), which the caller has reached right after
    /// a capture or pawn move, as a search score and the bound it is: `None` when the tables
    /// do not cover it, the search is too shallow to probe it (`SyzygyProbeDepth`, waived
    /// below the largest tables), or the probe fails.
    pub(crate) fn probe_in_tree(
        &self,
        pos: &Chess,
        cfg: &TbConfig,
        depth: i32,
        ply: usize,
    ) -> Option<(i32, Bound)> {
        let pieces = self.covered_pieces(pos, cfg)?;
        if depth < cfg.probe_depth && pieces >= cfg.probe_limit.min(self.max_pieces()) {
            return None;
        }
        let wdl = self.tables.probe_wdl_after_zeroing(pos).ok()?;
        let ply = ply as i32;
        Some(match (wdl, cfg.rule50) {
            (Wdl::Win, _) | (Wdl::CursedWin, false) => (TB_WIN - ply, Bound::Lower),
            (Wdl::Loss, _) | (Wdl::BlessedLoss, false) => (-TB_WIN + ply, Bound::Upper),
            (Wdl::CursedWin, true) => (1, Bound::Exact),
            (Wdl::BlessedLoss, true) => (-1, Bound::Exact),
            (Wdl::Draw, _) => (0, Bound::Exact),
        })
    }

    /// The WDL value of `pos` (side to move's view) with its 50-move counter.
    #[cfg(test)]
    fn wdl(&self, pos: &Chess) -> Option<AmbiguousWdl> {
        self.tables.probe_wdl(pos).ok()
    }

    /// The DTZ value of `pos` (side to move's view; rounded tables may be one off).
    #[cfg(test)]
    fn dtz(&self, pos: &Chess) -> Option<i32> {
        self.tables
            .probe_dtz(pos)
            .ok()
            .map(|d| d.ignore_rounding().0)
    }

    /// The root moves that keep the best result the tables promise: when winning, the moves
    /// that reach a zeroing move soonest (so the win is converted under the 50-move rule);
    /// when drawing, every move that keeps the draw; when losing, the moves that resist
    /// longest. Never empty; `None` when the position is not covered or a probe fails. With
    /// them, the root's own value (one WDL probe) as the score a GUI is shown.
    pub(crate) fn rank_root(&self, pos: &Chess, moves: &[Move], cfg: &TbConfig) -> Option<RootTb> {
        if self.covered_pieces(pos, cfg).is_none() || moves.is_empty() {
            return None;
        }
        let win = TB_WIN - 1;
        let score = match (self.tables.probe_wdl(pos).ok()?, cfg.rule50) {
            (AmbiguousWdl::Win, _) | (AmbiguousWdl::CursedWin | AmbiguousWdl::MaybeWin, false) => {
                win
            }
            (AmbiguousWdl::Loss, _)
            | (AmbiguousWdl::BlessedLoss | AmbiguousWdl::MaybeLoss, false) => -win,
            (AmbiguousWdl::CursedWin | AmbiguousWdl::MaybeWin, true) => 1,
            (AmbiguousWdl::BlessedLoss | AmbiguousWdl::MaybeLoss, true) => -1,
            (AmbiguousWdl::Draw, _) => 0,
        };
        let mut probes = 1;
        const WIN: i64 = 1_000_000;
        let mut ranked = Vec::with_capacity(moves.len());
        for &m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.is_checkmate() {
                ranked.push((m, 2 * WIN));
                continue;
            }
            let dtz = self.tables.probe_dtz(&after).ok()?;
            probes += 1;
            let theirs = AmbiguousWdl::from_dtz_and_halfmoves(dtz, after.halfmoves());
            // Plies to the next capture or pawn move: none after one (the counter is reset,
            // which is what a win under the 50-move rule needs), else the opponent's DTZ.
            let zeroing = m.is_capture() || m.role() == shakmaty::Role::Pawn;
            let distance = if zeroing {
                0
            } else {
                i64::from(dtz.ignore_rounding().0.abs())
            };
            let rank = match theirs {
                AmbiguousWdl::Loss => WIN - distance,
                AmbiguousWdl::MaybeLoss => WIN / 2 - distance,
                AmbiguousWdl::BlessedLoss if !cfg.rule50 => WIN / 2 - distance,
                AmbiguousWdl::CursedWin if !cfg.rule50 => -WIN / 2 + distance,
                AmbiguousWdl::BlessedLoss | AmbiguousWdl::Draw | AmbiguousWdl::CursedWin => 0,
                AmbiguousWdl::MaybeWin => -WIN / 2 + distance,
                AmbiguousWdl::Win => -WIN + distance,
            };
            ranked.push((m, rank));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        let keep: Vec<Move> = ranked
            .iter()
            .filter(|r| if best == 0 { r.1 >= 0 } else { r.1 == best })
            .map(|r| r.0)
            .collect();
        Some(RootTb {
            moves: keep,
            score,
            probes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn tables() -> Tablebases {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        Tablebases::load(dir).unwrap().0
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn three_piece_values_checked_by_hand() {
        let tb = tables();
        assert_eq!(tb.max_pieces(), 3);
        // KQvK, a mate in one: DTZ 1 for the winner.
        let p = pos("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1");
        assert_eq!(tb.wdl(&p), Some(AmbiguousWdl::Win));
        assert_eq!(tb.dtz(&p), Some(1));
        // The defender of a KRvK position is lost.
        let p = pos("8/8/8/4k3/8/8/8/R3K3 b - - 0 1");
        assert_eq!(tb.wdl(&p), Some(AmbiguousWdl::Loss));
        // KPvK: the defender in front of a rook pawn holds; a king in front of its pawn
        // with the opposition wins.
        let p = pos("7k/8/8/8/8/8/7P/7K w - - 0 1");
        assert_eq!(tb.wdl(&p), Some(AmbiguousWdl::Draw));
        let p = pos("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1");
        assert_eq!(tb.wdl(&p), Some(AmbiguousWdl::Win));
        // Bare minor pieces cannot win.
        assert_eq!(
            tb.wdl(&pos("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1")),
            Some(AmbiguousWdl::Draw)
        );
        assert_eq!(
            tb.wdl(&pos("8/8/8/4k3/8/8/8/1N2K3 w - - 0 1")),
            Some(AmbiguousWdl::Draw)
        );
        // Four pieces are not in the repository's tables.
        assert_eq!(tb.wdl(&pos("8/8/8/4k3/8/8/3PP3/4K3 w - - 0 1")), None);
    }

    /// Moves that mate at once (not probed).
    fn mates(p: &Chess, moves: &[Move]) -> u64 {
        moves
            .iter()
            .filter(|m| {
                let mut after = p.clone();
                after.play_unchecked(**m);
                after.is_checkmate()
            })
            .count() as u64
    }

    #[test]
    fn the_root_keeps_the_moves_that_keep_the_result() {
        let tb = tables();
        let cfg = TbConfig::default();
        // KQvK: only mate is kept when mate is on the board.
        let p = pos("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1");
        let moves: Vec<Move> = p.legal_moves().into_iter().collect();
        let root = tb.rank_root(&p, &moves, &cfg).unwrap();
        assert!(!root.moves.is_empty());
        for m in &root.moves {
            let mut after = p.clone();
            after.play_unchecked(*m);
            assert!(after.is_checkmate(), "{m:?}");
        }
        // A won root: shown as a win, one probe for the root and one per move.
        assert_eq!(root.score, TB_WIN - 1);
        assert_eq!(root.wdl(), [1000, 0, 0]);
        assert_eq!(root.probes, moves.len() as u64 + 1 - mates(&p, &moves));
        // Every kept move keeps the best result any move keeps (the opponent's WDL after it
        // is the lowest), in won, drawn and lost positions.
        for fen in [
            "8/8/8/4k3/8/8/4P3/4K3 b - - 0 1",
            "8/8/4k3/8/4P3/4K3/8/8 b - - 0 1",
            "4k3/8/4K3/4P3/8/8/8/8 b - - 0 1",
            "8/8/8/8/8/2k5/8/K6R b - - 0 1",
            "8/8/3k4/8/8/8/1K6/7R w - - 0 1",
        ] {
            let p = pos(fen);
            let moves: Vec<Move> = p.legal_moves().into_iter().collect();
            let theirs = |m: &Move| {
                let mut after = p.clone();
                after.play_unchecked(*m);
                tb.wdl(&after).map(|w| w.signum())
            };
            let best = moves.iter().filter_map(theirs).min().unwrap();
            let root = tb.rank_root(&p, &moves, &cfg).unwrap();
            assert!(!root.moves.is_empty(), "{fen}");
            for m in &root.moves {
                assert_eq!(theirs(m), Some(best), "{fen}: {m:?}");
            }
            // The root's score is the negation of the best result it leaves the opponent.
            let expect = match best {
                -1 => TB_WIN - 1,
                0 => 0,
                _ => 1 - TB_WIN,
            };
            assert_eq!(root.score, expect, "{fen}");
        }
        // Positions with castling rights or too many pieces are not ranked.
        let start = Chess::default();
        let moves: Vec<Move> = start.legal_moves().into_iter().collect();
        assert!(tb.rank_root(&start, &moves, &cfg).is_none());
    }

    #[test]
    fn bad_paths_are_errors_and_good_ones_still_load() {
        assert!(Tablebases::load("/no/such/dir").is_err());
        assert!(Tablebases::load("").is_err());
        let good = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        let (tb, errors) =
            Tablebases::load(&format!("/no/such/dir{PATH_SEPARATOR}{good}")).unwrap();
        assert_eq!(errors.len(), 1);
        assert_eq!(tb.max_pieces(), 3);
        // A directory of files that are not tables.
        let junk = std::env::temp_dir().join(format!("shears-tb-junk-{}", std::process::id()));
        std::fs::create_dir_all(&junk).unwrap();
        std::fs::write(junk.join("KQvK.rtbw"), b"not a table").unwrap();
        if let Ok((tb, _)) = Tablebases::load(junk.to_str().unwrap()) {
            // Accepted by name: probing it fails cleanly, no panic.
            assert_eq!(tb.wdl(&pos("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1")), None);
        }
        std::fs::remove_dir_all(&junk).unwrap();
    }
}
