//! A 16-bit move for the transposition table, killers and history keys.
//!
//! Layout: bits 0-5 from-square, 6-11 to-square (the rook's square for castling), 12-15 kind:
//! 0 normal, 1 en passant, 2 castling, 4-7 promotion to knight, bishop, rook, queen.
//! Zero (a1a1, normal) is never a legal move and serves as "no move".

use shakmaty::{Chess, Move, Position as _, Role, Square};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Move16(pub u16);

const KIND_EN_PASSANT: u16 = 1;
const KIND_CASTLE: u16 = 2;
const KIND_PROMOTION: u16 = 4;

impl Move16 {
    pub(crate) const NONE: Move16 = Move16(0);

    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub fn is_some(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub(crate) fn from_move(m: Move) -> Move16 {
        let (from, to, kind) = match m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (
                from,
                to,
                promotion.map_or(0, |r| KIND_PROMOTION + (r as u16 - Role::Knight as u16)),
            ),
            Move::EnPassant { from, to } => (from, to, KIND_EN_PASSANT),
            Move::Castle { king, rook } => (king, rook, KIND_CASTLE),
            Move::Put { to, .. } => (to, to, 0),
        };
        Move16(from as u16 | (to as u16) << 6 | kind << 12)
    }

    #[inline]
    pub(crate) fn origin(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    #[inline]
    pub(crate) fn to_sq(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    /// Rebuilds the full move on `board`. The result is only pseudo-plausible: the caller
    /// checks legality before playing it.
    pub fn to_move(self, board: &Chess) -> Option<Move> {
        if self.is_none() {
            return None;
        }
        let from = self.origin();
        let to = self.to_sq();
        let kind = self.0 >> 12;
        let b = board.board();
        let role = b.role_at(from)?;
        if b.color_at(from) != Some(board.turn()) {
            return None;
        }
        Some(match kind {
            KIND_EN_PASSANT => Move::EnPassant { from, to },
            KIND_CASTLE => Move::Castle {
                king: from,
                rook: to,
            },
            0 => Move::Normal {
                role,
                from,
                capture: b.role_at(to),
                to,
                promotion: None,
            },
            k if (KIND_PROMOTION..KIND_PROMOTION + 4).contains(&k) => Move::Normal {
                role,
                from,
                capture: b.role_at(to),
                to,
                promotion: Some(promotion_role(k - KIND_PROMOTION)),
            },
            _ => return None,
        })
    }
}

fn promotion_role(i: u16) -> Role {
    match i {
        0 => Role::Knight,
        1 => Role::Bishop,
        2 => Role::Rook,
        _ => Role::Queen,
    }
}

/// Index of a piece (colour and role) in 0..12 for history tables.
#[inline]
pub(crate) fn piece_index(color: shakmaty::Color, role: Role) -> usize {
    (color as usize) * 6 + (role as usize - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    #[test]
    fn every_legal_move_round_trips() {
        for fen in [
            crate::position::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let pos: Chess = Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for m in pos.legal_moves() {
                let m16 = Move16::from_move(m);
                assert!(m16.is_some());
                assert_eq!(m16.to_move(&pos), Some(m), "{fen} {m:?}");
            }
        }
    }

    #[test]
    fn none_decodes_to_nothing() {
        assert_eq!(Move16::NONE.to_move(&Chess::default()), None);
    }
}
