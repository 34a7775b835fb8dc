//! Move generation for the search: all legal moves (evasions in check), and when not in check
//! the two stages the move picker asks for one after the other, the noisy moves (captures,
//! en passant, queen promotions) and the rest; check detection for a move before it is made.
//! Built on shakmaty's attack tables; `perft` counts through exactly these generators.

use shakmaty::attacks;
use shakmaty::{Bitboard, Color, Move, MoveList, Position as _, Role, Square};

use crate::position::Position;

/// The checks one side to move can give: see [`Position::check_info`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct CheckInfo {
    /// Their king.
    king: Square,
    /// Our pieces standing alone between one of our sliders and their king.
    blockers: Bitboard,
    /// Squares from which our piece of each role would attack their king, indexed by
    /// `Role as usize - 1` (pawn to queen).
    squares: [Bitboard; 5],
}

impl Position {
    #[inline]
    /// Every legal move, in generation order.
    pub fn legal_moves(&self) -> MoveList {
        self.board().legal_moves()
    }

    /// What both staged generators need: our king, our pinned pieces and the board sets.
    fn gen_context(&self) -> Option<GenContext<'_>> {
        let pos = self.board();
        let b = pos.board();
        let turn = pos.turn();
        let king = b.king_of(turn)?;
        let us = b.by_color(turn);
        let them = b.by_color(!turn);
        let snipers = (attacks::rook_attacks(king, Bitboard(0)) & (b.rooks() | b.queens())
            | attacks::bishop_attacks(king, Bitboard(0)) & (b.bishops() | b.queens()))
            & them;
        let mut pinned = Bitboard(0);
        for sniper in snipers {
            let between = attacks::between(king, sniper) & b.occupied();
            if !between.more_than_one() {
                pinned |= between & us;
            }
        }
        Some(GenContext {
            b,
            turn,
            king,
            pinned,
            us,
            them,
            occupied: b.occupied(),
        })
    }

    /// Legal captures, en passant and queen promotions (the quiescence moves; captures that
    /// under-promote are left out), appended to `moves`. Only valid when the side to move is
    /// not in check (evasions come from [`Position::legal_moves`]).
    pub(crate) fn noisy_moves(&self, moves: &mut MoveList) {
        debug_assert!(!self.in_check());
        let Some(g) = self.gen_context() else {
            return;
        };
        let (b, turn) = (g.b, g.turn);
        g.piece_moves(moves, g.them);

        let last_rank = g.last_rank();
        let forward = g.forward();
        for from in b.pawns() & g.us {
            let promotion = |to: Square| last_rank.contains(to).then_some(Role::Queen);
            for to in attacks::pawn_attacks(turn, from) & g.them {
                if g.allowed(from, to) {
                    moves.push(Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture: b.role_at(to),
                        to,
                        promotion: promotion(to),
                    });
                }
            }
            if let Some(to) = from.offset(forward)
                && last_rank.contains(to)
                && !g.occupied.contains(to)
                && g.allowed(from, to)
            {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: None,
                    to,
                    promotion: Some(Role::Queen),
                });
            }
        }

        if self.board().maybe_ep_square().is_some() {
            moves.extend(self.board().en_passant_moves());
        }
        g.king_moves(moves, g.them);
    }

    /// Every legal move that [`Position::noisy_moves`] leaves out (quiet moves, castling,
    /// under-promotions), appended to `moves`. Only valid when not in check.
    pub(crate) fn quiet_moves(&self, moves: &mut MoveList) {
        debug_assert!(!self.in_check());
        let Some(g) = self.gen_context() else {
            return;
        };
        let (b, turn) = (g.b, g.turn);
        let empty = !g.occupied;
        g.piece_moves(moves, empty);

        let last_rank = g.last_rank();
        let double_rank =
            Bitboard::from_rank(turn.fold_wb(shakmaty::Rank::Second, shakmaty::Rank::Seventh));
        let forward = g.forward();
        const UNDER: [Role; 3] = [Role::Knight, Role::Bishop, Role::Rook];
        for from in b.pawns() & g.us {
            if let Some(to) = from.offset(forward)
                && empty.contains(to)
            {
                if g.allowed(from, to) {
                    if last_rank.contains(to) {
                        for r in UNDER {
                            moves.push(Move::Normal {
                                role: Role::Pawn,
                                from,
                                capture: None,
                                to,
                                promotion: Some(r),
                            });
                        }
                    } else {
                        moves.push(Move::Normal {
                            role: Role::Pawn,
                            from,
                            capture: None,
                            to,
                            promotion: None,
                        });
                    }
                }
                if double_rank.contains(from)
                    && let Some(to2) = to.offset(forward)
                    && empty.contains(to2)
                    && g.allowed(from, to2)
                {
                    moves.push(Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture: None,
                        to: to2,
                        promotion: None,
                    });
                }
            }
            if last_rank.intersects(attacks::pawn_attacks(turn, from)) {
                for to in attacks::pawn_attacks(turn, from) & g.them {
                    if g.allowed(from, to) {
                        for r in UNDER {
                            moves.push(Move::Normal {
                                role: Role::Pawn,
                                from,
                                capture: b.role_at(to),
                                to,
                                promotion: Some(r),
                            });
                        }
                    }
                }
            }
        }

        g.king_moves(moves, empty);
        let pos = self.board();
        if pos.castles().has_color(turn) {
            for side in [
                shakmaty::CastlingSide::KingSide,
                shakmaty::CastlingSide::QueenSide,
            ] {
                moves.extend(pos.castling_moves(side));
            }
        }
    }

    /// What [`Position::gives_check_with`] needs to answer for any move of this node: the
    /// squares from which each of our pieces would check their king, and our pieces whose
    /// move off the line would uncover a check. `None` without their king.
    pub(crate) fn check_info(&self) -> Option<CheckInfo> {
        let pos = self.board();
        let b = pos.board();
        let us = pos.turn();
        let king = b.king_of(!us)?;
        let occupied = b.occupied();
        let ours = b.by_color(us);
        let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & (b.rooks() | b.queens())
            | attacks::bishop_attacks(king, Bitboard::EMPTY) & (b.bishops() | b.queens()))
            & ours;
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(king, sniper) & occupied;
            if !between.more_than_one() {
                blockers |= between & ours;
            }
        }
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        Some(CheckInfo {
            king,
            blockers,
            squares: [
                attacks::pawn_attacks(!us, king),
                attacks::knight_attacks(king),
                bishop,
                rook,
                bishop | rook,
            ],
        })
    }

    /// [`Position::gives_check`] for a node that tries many moves: ordinary moves are looked
    /// up in the node's [`CheckInfo`], the rest go the general way.
    #[inline]
    pub(crate) fn gives_check_with(&self, info: Option<&CheckInfo>, m: Move) -> bool {
        if let (
            Some(ci),
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            },
        ) = (info, m)
        {
            // Direct: a slider cannot have stood between `to` and the king on the line it
            // moves along (it would be giving check now), so the squares seen from the king
            // on the current board are exact.
            if role != Role::King && ci.squares[role as usize - 1].contains(to) {
                return true;
            }
            // Discovered: a blocker leaving its line.
            return ci.blockers.contains(from) && !attacks::aligned(from, to, ci.king);
        }
        self.gives_check(m)
    }

    /// Does the legal move `m` give check? Direct and discovered checks are found from attack
    /// sets; castling and en passant (rare) are played on a copy.
    pub(crate) fn gives_check(&self, m: Move) -> bool {
        let pos = self.board();
        let b = pos.board();
        let us = pos.turn();
        let Some(king) = b.king_of(!us) else {
            return false;
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let occupied =
                    (b.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
                let piece = promotion.unwrap_or(role);
                let direct = match piece {
                    Role::Pawn => attacks::pawn_attacks(us, to),
                    Role::King => Bitboard(0),
                    r => attacks::attacks(to, r.of(us), occupied),
                };
                if direct.contains(king) {
                    return true;
                }
                let ours = b.by_color(us) & !Bitboard::from_square(from);
                let sliders = (attacks::bishop_attacks(king, occupied)
                    & (b.bishops() | b.queens())
                    | attacks::rook_attacks(king, occupied) & (b.rooks() | b.queens()))
                    & ours;
                sliders.any()
            }
            _ => {
                let mut copy = pos.clone();
                copy.play_unchecked(m);
                copy.is_check()
            }
        }
    }

    /// Every legal move, generated as the search generates them: evasions in check, else the
    /// noisy stage followed by the quiet stage.
    pub fn staged_moves(&self) -> MoveList {
        if self.in_check() {
            return self.legal_moves();
        }
        let mut moves = MoveList::new();
        self.noisy_moves(&mut moves);
        self.quiet_moves(&mut moves);
        moves
    }
}

/// Leaves of the legal move tree `depth` plies deep, through the staged generators.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let moves = pos.staged_moves();
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    let mut n = 0;
    for m in moves {
        pos.make(m);
        n += perft(pos, depth - 1);
        pos.unmake();
    }
    n
}

/// The board sets and pins the staged move generators share.
struct GenContext<'a> {
    b: &'a shakmaty::Board,
    turn: Color,
    king: Square,
    pinned: Bitboard,
    us: Bitboard,
    them: Bitboard,
    occupied: Bitboard,
}

impl GenContext<'_> {
    /// May the piece on `from` go to `to` without exposing our king?
    #[inline]
    fn allowed(&self, from: Square, to: Square) -> bool {
        !self.pinned.contains(from) || attacks::aligned(self.king, from, to)
    }

    fn last_rank(&self) -> Bitboard {
        Bitboard::from_rank(
            self.turn
                .fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First),
        )
    }

    fn forward(&self) -> i32 {
        self.turn.fold_wb(8, -8)
    }

    /// Knight, bishop, rook and queen moves to `targets`.
    fn piece_moves(&self, moves: &mut MoveList, targets: Bitboard) {
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in self.b.by_role(role) & self.us {
                for to in attacks::attacks(from, role.of(self.turn), self.occupied) & targets {
                    if self.allowed(from, to) {
                        moves.push(Move::Normal {
                            role,
                            from,
                            capture: self.b.role_at(to),
                            to,
                            promotion: None,
                        });
                    }
                }
            }
        }
    }

    /// King moves to `targets` that do not walk into an attack.
    fn king_moves(&self, moves: &mut MoveList, targets: Bitboard) {
        let without_king = self.occupied ^ Bitboard::from_square(self.king);
        for to in attacks::king_attacks(self.king) & targets {
            if self.b.attacks_to(to, !self.turn, without_king).is_empty() {
                moves.push(Move::Normal {
                    role: Role::King,
                    from: self.king,
                    capture: self.b.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::START_FEN;
    use shakmaty::CastlingMode;

    #[test]
    fn staged_generators_match_the_legal_moves() {
        fn walk(pos: &mut Position, depth: u32, checked: &mut u32) {
            if !pos.in_check() {
                let is_noisy = |m: &Move| {
                    m.promotion().is_none_or(|r| r == Role::Queen)
                        && (m.is_capture() || m.is_promotion())
                };
                let key = |m: &Move| crate::moves::Move16::from_move(*m).0;
                let mut legal: Vec<Move> = pos.legal_moves().into_iter().collect();
                let mut want_noisy: Vec<Move> = legal.iter().copied().filter(is_noisy).collect();
                let mut noisy = MoveList::new();
                pos.noisy_moves(&mut noisy);
                let mut noisy: Vec<Move> = noisy.into_iter().collect();
                want_noisy.sort_by_key(key);
                noisy.sort_by_key(key);
                assert_eq!(noisy, want_noisy, "noisy in {}", pos.fen());
                let mut all = MoveList::new();
                pos.noisy_moves(&mut all);
                pos.quiet_moves(&mut all);
                let mut all: Vec<Move> = all.into_iter().collect();
                all.sort_by_key(key);
                legal.sort_by_key(key);
                assert_eq!(all, legal, "all in {}", pos.fen());
                let info = pos.check_info();
                for &m in &legal {
                    pos.make(m);
                    let check = pos.in_check();
                    pos.unmake();
                    assert_eq!(pos.gives_check(m), check, "{m:?} in {}", pos.fen());
                    assert_eq!(
                        pos.gives_check_with(info.as_ref(), m),
                        check,
                        "{m:?} with check info in {}",
                        pos.fen()
                    );
                }
                *checked += 1;
            }
            if depth == 0 {
                return;
            }
            for m in pos.legal_moves() {
                pos.make(m);
                walk(pos, depth - 1, checked);
                pos.unmake();
            }
        }
        let mut checked = 0;
        for (fen, mode) in [
            (START_FEN, CastlingMode::Standard),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                CastlingMode::Standard,
            ),
            (
                "8/8/3k4/3p4/2BPb3/8/3K4/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            ("4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2", CastlingMode::Standard),
            (
                "n1r1r1b1/1P1P1P1P/1N1N1N2/2RnQrRq/2pKp3/3BNQbQ/k7/4Bq2 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
            (
                "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
                CastlingMode::Chess960,
            ),
        ] {
            let mut pos = Position::from_fen(fen, mode).unwrap();
            walk(&mut pos, 2, &mut checked);
        }
        assert!(checked > 5000, "{checked}");
    }
}
