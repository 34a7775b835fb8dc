//! History tables for move ordering and pruning, with one gravity update rule.
//!
//! Every table holds `i16` scores in `[-HISTORY_MAX, HISTORY_MAX]` and is updated with
//! [`gravity`]: a bonus moves an entry towards the bound it points at, by less the closer the
//! entry already is, so the tables never saturate and old knowledge fades.

use shakmaty::{Bitboard, CastlingSide, Color, Move, Role, Square};

use crate::moves::{Move16, piece_index};

pub(crate) const HISTORY_MAX: i32 = 16_384;

/// Moves `entry` towards `bonus`'s bound: `e += b - e * |b| / HISTORY_MAX`.
#[inline]
pub(crate) fn gravity(entry: &mut i16, bonus: i32) {
    gravity_within(entry, bonus, HISTORY_MAX);
}

/// [`gravity`] inside `±max` (at most `i16::MAX`): `e += b - e * |b| / max`, with `b` held
/// inside `±max`, so an entry inside the bound stays inside it.
#[inline]
pub(crate) fn gravity_within(entry: &mut i16, bonus: i32, max: i32) {
    let b = bonus.clamp(-max, max);
    let e = i32::from(*entry);
    *entry = (e + b - e * b.abs() / max) as i16;
}

/// The continuation keys of a node: the (piece, to) of the moves 1, 2 and 4 plies earlier
/// (`None` for a null move, before the root, or for ply 4 while `HIST_CONT4` is off).
pub(crate) type ContKeys = [Option<PieceTo>; 3];

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
        MoveParts::of(m).piece_to(color)
    }

    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

const PIECE_TO: usize = 12 * 64;

/// Pawn structures the pawn history tells apart (by their key's low bits).
pub(crate) const PAWN_SLOTS: usize = 512;

/// What a node's quiet moves are scored and updated by, besides the move itself: built once
/// per node.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QuietKeys {
    pub cont: ContKeys,
    /// Squares the other side attacks: the butterfly set (empty while `HIST_THREATS` is off).
    pub threats: Bitboard,
    /// The pawn structure's slot in the pawn history (`None` while `HIST_PAWN` is off).
    pub pawn: Option<u16>,
}

impl QuietKeys {
    /// The slot of a pawn-structure key.
    #[inline]
    pub(crate) fn pawn_slot(pawn_key: u64) -> u16 {
        (pawn_key % PAWN_SLOTS as u64) as u16
    }
}

/// Per-thread history tables. Reset on `ucinewgame`, kept across the moves of a game.
pub(crate) struct Histories {
    /// Quiet moves by side, whether the from- and to-squares are attacked by the other side
    /// (four sets, see [`threat_set`]; only the first while `HIST_THREATS` is off), from-square
    /// and to-square.
    butterfly: Vec<i16>,
    /// Captures by moving piece, destination and captured role.
    capture: Vec<i16>,
    /// Quiet moves by the (piece, to) of the move 1, 2 or 4 plies earlier and their own (piece,
    /// to): one table for the three, as the keys are alike.
    continuation: Vec<i16>,
    /// The quiet reply that refuted a (piece, to), for the counter-move stage.
    counter: Vec<Move16>,
    /// Quiet moves by pawn structure ([`QuietKeys::pawn_slot`]) and (piece, to).
    pawn: Vec<i16>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            butterfly: vec![0; 2 * 4 * 64 * 64],
            capture: vec![0; PIECE_TO * 6],
            continuation: vec![0; PIECE_TO * PIECE_TO],
            counter: vec![Move16::NONE; PIECE_TO],
            pawn: vec![0; PAWN_SLOTS * PIECE_TO],
        }
    }
}

/// What the quiet tables need of a move, read with one look at shakmaty's `Move`: each of
/// its accessors is a match of its own, and a quiet move's score used to ask for them seven
/// times (role, from twice, to four times counting the castling check).
#[derive(Clone, Copy)]
struct MoveParts {
    role: Role,
    from: Option<Square>,
    /// `Move::to`: the rook's square for castling.
    to: Square,
    /// Where the piece lands: the king's destination square for castling.
    lands: Square,
}

impl MoveParts {
    #[inline]
    fn of(m: Move) -> MoveParts {
        match m {
            Move::Normal { role, from, to, .. } => MoveParts {
                role,
                from: Some(from),
                to,
                lands: to,
            },
            Move::EnPassant { from, to } => MoveParts {
                role: Role::Pawn,
                from: Some(from),
                to,
                lands: to,
            },
            Move::Castle { king, rook } => MoveParts {
                role: Role::King,
                from: Some(king),
                to: rook,
                lands: Square::from_coords(
                    CastlingSide::from_king_side(king < rook).king_to_file(),
                    king.rank(),
                ),
            },
            Move::Put { role, to } => MoveParts {
                role,
                from: None,
                to,
                lands: to,
            },
        }
    }

    #[inline]
    fn piece_to(self, color: Color) -> PieceTo {
        PieceTo::new(color, self.role, self.lands)
    }

    /// The butterfly slot: the side, one of four sets, then from-to. The set says whether the
    /// from-square is attacked by the other side (a piece moving out of a threat), whether
    /// the to-square is (into one), both or neither. `threats` is empty while `HIST_THREATS`
    /// is off, so every move uses set 0.
    #[inline]
    fn butterfly_index(self, color: Color, threats: Bitboard) -> usize {
        let from_threat = self.from.is_some_and(|s| threats.contains(s));
        let set = 2 * usize::from(from_threat) + usize::from(threats.contains(self.to));
        let from_to = self.from.map_or(0, |s| s as usize) * 64 + self.to as usize;
        (color as usize * 4 + set) * 4096 + from_to
    }
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
        self.pawn.fill(0);
    }

    #[cfg(test)]
    pub(crate) fn butterfly(&self, color: Color, m: Move, threats: Bitboard) -> i32 {
        i32::from(self.butterfly[MoveParts::of(m).butterfly_index(color, threats)])
    }

    #[cfg(test)]
    pub(crate) fn update_butterfly(
        &mut self,
        color: Color,
        m: Move,
        threats: Bitboard,
        bonus: i32,
    ) {
        self.update_butterfly_at(color, MoveParts::of(m), threats, bonus);
    }

    #[inline]
    fn update_butterfly_at(
        &mut self,
        color: Color,
        parts: MoveParts,
        threats: Bitboard,
        bonus: i32,
    ) {
        gravity(
            &mut self.butterfly[parts.butterfly_index(color, threats)],
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

    /// The history score of a quiet move: butterfly, every continuation key and the pawn
    /// structure's entry.
    #[inline]
    pub(crate) fn quiet(&self, color: Color, m: Move, keys: &QuietKeys) -> i32 {
        let parts = MoveParts::of(m);
        let pt = parts.piece_to(color);
        let pawn = keys.pawn.map_or(0, |slot| {
            i32::from(self.pawn[usize::from(slot) * PIECE_TO + pt.index()])
        });
        i32::from(self.butterfly[parts.butterfly_index(color, keys.threats)])
            + keys
                .cont
                .iter()
                .map(|&c| self.continuation(c, pt))
                .sum::<i32>()
            + pawn
    }

    /// Moves every table of [`Histories::quiet`] towards `bonus`'s bound.
    #[inline]
    pub(crate) fn update_quiet(&mut self, color: Color, m: Move, keys: &QuietKeys, bonus: i32) {
        let parts = MoveParts::of(m);
        self.update_butterfly_at(color, parts, keys.threats, bonus);
        let pt = parts.piece_to(color);
        for &c in &keys.cont {
            self.update_continuation(c, pt, bonus);
        }
        if let Some(slot) = keys.pawn {
            self.update_pawn_at(slot, pt, bonus);
        }
    }

    #[cfg(test)]
    pub(crate) fn update_pawn(&mut self, color: Color, m: Move, slot: u16, bonus: i32) {
        self.update_pawn_at(slot, PieceTo::of(color, m), bonus);
    }

    #[inline]
    fn update_pawn_at(&mut self, slot: u16, pt: PieceTo, bonus: i32) {
        gravity(
            &mut self.pawn[usize::from(slot) * PIECE_TO + pt.index()],
            bonus,
        );
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use shakmaty::CastlingMode;

    #[test]
    fn move_parts_agree_with_shakmaty_on_every_kind_of_move() {
        // Both castlings, en passant (b4xa3 after a2-a4), promotions and plain moves; white
        // to move, then black.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 0 1",
        ];
        let (mut castles, mut en_passant) = (0, 0);
        for fen in fens {
            let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let turn = pos.turn();
            for m in pos.legal_moves() {
                let parts = MoveParts::of(m);
                assert_eq!(parts.role, m.role(), "{m:?}");
                assert_eq!(parts.from, m.from(), "{m:?}");
                assert_eq!(parts.to, m.to(), "{m:?}");
                castles += usize::from(m.is_castle());
                en_passant += usize::from(m.is_en_passant());
                // Standard UCI names a castling by the king's own squares (e1g1), so its
                // destination is where the piece lands for every kind of move.
                let uci = pos.move_to_uci(m);
                assert_eq!(parts.lands.to_string(), uci[2..4], "{m:?}");
                // And that square holds the moved piece (or what it promoted to) after it.
                pos.make(m);
                let landed = pos.piece_at(parts.lands).map(|p| (p.color, p.role));
                pos.unmake();
                assert_eq!(
                    landed,
                    Some((turn, m.promotion().unwrap_or(parts.role))),
                    "{m:?}"
                );
            }
        }
        // Two castlings in each of the first two; in the third, b7's pawn guards c8.
        assert_eq!((castles, en_passant), (5, 1));
    }

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
    fn butterfly_sets_split_moves_by_threatened_squares() {
        let mut h = Histories::default();
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let none = Bitboard::EMPTY;
        let from = Bitboard::from_square(Square::G1);
        let to = Bitboard::from_square(Square::F3);
        h.update_butterfly(Color::White, m, from, 1000);
        assert_eq!(h.butterfly(Color::White, m, from), 1000);
        // The other three sets, and the other side, are untouched.
        for t in [none, to, from | to] {
            assert_eq!(h.butterfly(Color::White, m, t), 0);
        }
        assert_eq!(h.butterfly(Color::Black, m, from), 0);
        // Threats elsewhere on the board do not change the set.
        let elsewhere = Bitboard::from_square(Square::A8);
        assert_eq!(h.butterfly(Color::White, m, from | elsewhere), 1000);
        h.update_butterfly(Color::White, m, none, -500);
        assert_eq!(h.butterfly(Color::White, m, none), -500);
        assert_eq!(h.butterfly(Color::White, m, from), 1000);
    }
}
