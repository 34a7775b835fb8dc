//! Static exchange evaluation on shakmaty's attack sets.

use shakmaty::attacks;
use shakmaty::{Bitboard, Chess, Color, Move, Position as _, Role, Square};

/// Piece values for exchanges (pawn, knight, bishop, rook, queen, king).
pub(crate) const SEE_VALUES: [i32; 6] = [100, 300, 300, 500, 900, 0];

#[inline]
pub fn value(role: Role) -> i32 {
    SEE_VALUES[role as usize - 1]
}

/// Material a move wins at once, before any recapture (captured piece and promotion gain).
#[inline]
pub(crate) fn immediate_gain(m: Move) -> i32 {
    match m {
        Move::Normal {
            capture, promotion, ..
        } => capture.map_or(0, value) + promotion.map_or(0, |p| value(p) - value(Role::Pawn)),
        Move::EnPassant { .. } => value(Role::Pawn),
        _ => 0,
    }
}

fn least_valuable(board: &shakmaty::Board, attackers: Bitboard) -> Option<(Square, Role)> {
    for role in Role::ALL {
        if let Some(sq) = (attackers & board.by_role(role)).first() {
            return Some((sq, role));
        }
    }
    None
}

/// Does `m` win at least `threshold` after the best sequence of captures on its destination?
/// Both sides may stop capturing when it suits them. Castling counts as a gain of zero.
pub(crate) fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        _ => return threshold <= 0,
    };
    let board = pos.board();

    // What we win if the opponent does not recapture.
    let mut swap = immediate_gain(m) - threshold;
    if swap < 0 {
        return false;
    }
    // What we lose if they do: the piece now standing on `to`.
    let on_square = match m {
        Move::Normal {
            promotion: Some(p), ..
        } => p,
        _ => m.role(),
    };
    swap = value(on_square) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from_square(from) | Bitboard::from_square(to);
    if let Move::EnPassant { .. } = m {
        let captured = Square::from_coords(to.file(), from.rank());
        occupied ^= Bitboard::from_square(captured);
    }
    let diagonal = board.bishops() | board.queens();
    let straight = board.rooks() | board.queens();
    let mut attackers = (board.attacks_to(to, Color::White, occupied)
        | board.attacks_to(to, Color::Black, occupied))
        & occupied;
    let mut side = pos.turn();
    let mut result = true;

    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        let Some((sq, role)) = least_valuable(board, ours) else {
            break;
        };
        result = !result;
        if role == Role::King {
            // The king may only take last: if the other side still attacks, it cannot.
            if (attackers & board.by_color(!side)).any() {
                result = !result;
            }
            break;
        }
        swap = value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        occupied ^= Bitboard::from_square(sq);
        // Uncover sliders behind the piece that just captured.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= attacks::bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= attacks::rook_attacks(to, occupied) & straight;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exchange value of `m`, by bisection on [`see_ge`] (for tests and reports).
    fn see_value(pos: &Chess, m: Move) -> i32 {
        let (mut lo, mut hi) = (-2000i32, 2000i32);
        while lo < hi {
            let mid = (lo + hi + 1).div_euclid(2);
            if see_ge(pos, m, mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
    use crate::position::Position;
    use shakmaty::CastlingMode;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        see_value(pos.board(), m)
    }

    /// Exchanges checked by hand.
    #[test]
    fn hand_checked_exchanges() {
        let cases: &[(&str, &str, i32)] = &[
            // Rook takes an undefended pawn.
            (
                "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1",
                "e1e5",
                100,
            ),
            // Knight takes a pawn defended by a pawn: N for P.
            (
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5",
                -200,
            ),
            // Pawn takes a knight defended by a pawn: +300 - 100 = 200.
            ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 200),
            // Queen takes a pawn defended by a rook: -800.
            ("4k3/4r3/8/8/8/8/4p3/4Q1K1 w - - 0 1", "e1e2", -800),
            // Rook takes a rook; the queen behind it x-rays: R for R, then the queen recaptures.
            ("3rk3/3r4/8/8/8/8/3R4/3QK3 w - - 0 1", "d2d7", 0),
            // Knight moves to a safe square, then to one a pawn attacks.
            ("4k3/8/6p1/8/3N4/8/8/4K3 w - - 0 1", "d4c6", 0),
            ("4k3/8/6p1/8/3N4/8/8/4K3 w - - 0 1", "d4f5", -300),
            // En passant wins a pawn.
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", 100),
            // Promotion with capture of a rook, defended by nothing: +500 + 800.
            ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 1300),
            // Rook takes a pawn the king defends: the king recaptures.
            ("4k3/4p3/8/8/8/8/8/4RK2 w - - 0 1", "e1e7", -400),
            // Same, but a second rook behind: the king may not recapture.
            ("4k3/4p3/8/8/8/8/4R3/4RK2 w - - 0 1", "e2e7", 100),
        ];
        for (fen, mv, want) in cases {
            assert_eq!(see_of(fen, mv), *want, "{fen} {mv}");
        }
    }

    #[test]
    fn threshold_is_monotone() {
        let fen = "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let m = pos.parse_uci_move("d3e5").unwrap();
        assert!(see_ge(pos.board(), m, -200));
        assert!(!see_ge(pos.board(), m, -199));
    }
}
