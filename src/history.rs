//! History tables for move ordering and pruning, with one gravity update rule.
//!
//! Every table holds `i16` scores in `[-HISTORY_MAX, HISTORY_MAX]` and is updated with
//! [`gravity`]: a bonus moves an entry towards the bound it points at, by less the closer the
//! entry already is, so the tables never saturate and old knowledge fades.

use shakmaty::{Color, Move, Role, Square};

use crate::moves::{Move16, piece_index};

pub(crate) const HISTORY_MAX: i32 = 16_384;
/// Entries of each correction-history table (per side to move).
pub(crate) const CORR_SIZE: usize = 16_384;
/// Correction history values are in units of 1/CORR_GRAIN centipawn.
pub(crate) const CORR_GRAIN: i32 = 256;
pub(crate) const CORR_MAX: i32 = CORR_GRAIN * 64;

/// Moves `entry` towards `bonus`'s bound: `e += b - e * |b| / MAX`.
#[inline]
pub(crate) fn gravity(entry: &mut i16, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let e = i32::from(*entry);
    *entry = (e + b - e * b.abs() / HISTORY_MAX) as i16;
}

/// Key of a move for continuation history: the moved piece and its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PieceTo(u16);

impl PieceTo {
    #[inline]
    pub fn new(color: Color, role: Role, to: Square) -> PieceTo {
        PieceTo((piece_index(color, role) * 64 + to as usize) as u16)
    }

    #[inline]
    pub fn of(color: Color, m: Move) -> PieceTo {
        // The king's destination square for castling (the move's `to` is the rook).
        let to = match m {
            Move::Castle { king, rook } => {
                let rank = king.rank();
                let file = if rook.file() > king.file() {
                    shakmaty::File::G
                } else {
                    shakmaty::File::C
                };
                Square::from_coords(file, rank)
            }
            _ => m.to(),
        };
        PieceTo::new(color, m.role(), to)
    }

    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

const PIECE_TO: usize = 12 * 64;

/// Per-thread history tables. Reset on `ucinewgame`, kept across the moves of a game.
pub(crate) struct Histories {
    /// Quiet moves by side, from-square and to-square.
    butterfly: Vec<i16>,
    /// Captures by moving piece, destination and captured role.
    capture: Vec<i16>,
    /// Quiet moves by the (piece, to) of the move 1 or 2 plies earlier and their own (piece, to).
    continuation: Vec<i16>,
    /// The quiet reply that refuted a (piece, to), for the counter-move stage.
    counter: Vec<Move16>,
    /// Static-eval correction by pawn structure, per side to move.
    corr_pawn: Vec<i16>,
    /// Static-eval correction by each side's non-pawn pieces, per side to move.
    corr_nonpawn: Vec<i16>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            butterfly: vec![0; 2 * 64 * 64],
            capture: vec![0; PIECE_TO * 6],
            continuation: vec![0; PIECE_TO * PIECE_TO],
            counter: vec![Move16::NONE; PIECE_TO],
            corr_pawn: vec![0; 2 * CORR_SIZE],
            corr_nonpawn: vec![0; 2 * 2 * CORR_SIZE],
        }
    }
}

#[inline]
fn from_to(m: Move) -> usize {
    let from = m.from().map_or(0, |s| s as usize);
    from * 64 + m.to() as usize
}

#[inline]
fn captured_index(m: Move) -> usize {
    match m {
        Move::Normal {
            capture: Some(r), ..
        } => r as usize - 1,
        _ => 0,
    }
}

impl Histories {
    pub fn clear(&mut self) {
        self.butterfly.fill(0);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.counter.fill(Move16::NONE);
        self.corr_pawn.fill(0);
        self.corr_nonpawn.fill(0);
    }

    #[inline]
    pub(crate) fn butterfly(&self, color: Color, m: Move) -> i32 {
        i32::from(self.butterfly[color as usize * 4096 + from_to(m)])
    }

    #[inline]
    pub(crate) fn update_butterfly(&mut self, color: Color, m: Move, bonus: i32) {
        gravity(
            &mut self.butterfly[color as usize * 4096 + from_to(m)],
            bonus,
        );
    }

    #[inline]
    pub fn capture(&self, color: Color, m: Move) -> i32 {
        let pt = PieceTo::of(color, m).index();
        i32::from(self.capture[pt * 6 + captured_index(m)])
    }

    #[inline]
    pub(crate) fn update_capture(&mut self, color: Color, m: Move, bonus: i32) {
        let pt = PieceTo::of(color, m).index();
        gravity(&mut self.capture[pt * 6 + captured_index(m)], bonus);
    }

    #[inline]
    pub(crate) fn continuation(&self, prev: Option<PieceTo>, cur: PieceTo) -> i32 {
        prev.map_or(0, |p| {
            i32::from(self.continuation[p.index() * PIECE_TO + cur.index()])
        })
    }

    #[inline]
    pub(crate) fn update_continuation(&mut self, prev: Option<PieceTo>, cur: PieceTo, bonus: i32) {
        if let Some(p) = prev {
            gravity(
                &mut self.continuation[p.index() * PIECE_TO + cur.index()],
                bonus,
            );
        }
    }

    #[inline]
    pub(crate) fn counter(&self, prev: Option<PieceTo>) -> Move16 {
        prev.map_or(Move16::NONE, |p| self.counter[p.index()])
    }

    #[inline]
    pub(crate) fn set_counter(&mut self, prev: Option<PieceTo>, m: Move) {
        if let Some(p) = prev {
            self.counter[p.index()] = Move16::from_move(m);
        }
    }

    #[inline]
    fn corr_indices(color: Color, pawn_key: u64, nonpawn: [u64; 2]) -> [usize; 3] {
        let c = color as usize;
        [
            c * CORR_SIZE + (pawn_key as usize % CORR_SIZE),
            (c * 2) * CORR_SIZE + (nonpawn[0] as usize % CORR_SIZE),
            (c * 2 + 1) * CORR_SIZE + (nonpawn[1] as usize % CORR_SIZE),
        ]
    }

    /// Correction to add to the raw static eval, in centipawns, with the pawn and non-pawn
    /// parts weighted by `weights` (percent).
    #[inline]
    pub(crate) fn correction(
        &self,
        color: Color,
        pawn_key: u64,
        nonpawn: [u64; 2],
        weights: [i32; 2],
    ) -> i32 {
        let [p, w, b] = Self::corr_indices(color, pawn_key, nonpawn);
        let pawn = i32::from(self.corr_pawn[p]);
        let nonpawn = i32::from(self.corr_nonpawn[w]) + i32::from(self.corr_nonpawn[b]);
        (pawn * weights[0] + nonpawn * weights[1]) / (100 * CORR_GRAIN)
    }

    /// Moves the correction entries towards `diff` (search score minus static eval, cp),
    /// weighted by depth.
    #[inline]
    pub(crate) fn update_correction(
        &mut self,
        color: Color,
        pawn_key: u64,
        nonpawn: [u64; 2],
        diff: i32,
        depth: i32,
    ) {
        let [p, w, b] = Self::corr_indices(color, pawn_key, nonpawn);
        let target = (diff * CORR_GRAIN).clamp(-CORR_MAX, CORR_MAX);
        let weight = (depth + 1).min(16);
        let blend = |entry: &mut i16| {
            let e = i32::from(*entry);
            let v = (e * (256 - weight) + target * weight) / 256;
            *entry = v.clamp(-CORR_MAX, CORR_MAX) as i16;
        };
        blend(&mut self.corr_pawn[p]);
        blend(&mut self.corr_nonpawn[w]);
        blend(&mut self.corr_nonpawn[b]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_stays_within_bounds_and_saturates_smoothly() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 2000);
            assert!(i32::from(e) <= HISTORY_MAX);
        }
        assert!(i32::from(e) > HISTORY_MAX - 100);
        for _ in 0..1000 {
            gravity(&mut e, -50_000);
            assert!(i32::from(e) >= -HISTORY_MAX);
        }
        assert_eq!(i32::from(e), -HISTORY_MAX);
    }

    #[test]
    fn first_bonus_is_taken_whole() {
        let mut e = 0i16;
        gravity(&mut e, 300);
        assert_eq!(e, 300);
        gravity(&mut e, -300);
        // 300 - 300 - 300*300/16384 = -5
        assert_eq!(e, -5);
    }

    #[test]
    fn correction_moves_towards_the_error() {
        let mut h = Histories::default();
        for _ in 0..200 {
            h.update_correction(Color::White, 5, [6, 7], 40, 10);
        }
        // 40 from the pawn table at 50% plus 40 + 40 from the two non-pawn tables at 25%.
        let c = h.correction(Color::White, 5, [6, 7], [50, 25]);
        assert!((39..=40).contains(&c), "{c}");
        assert_eq!(h.correction(Color::Black, 5, [6, 7], [100, 50]), 0);
    }
}
