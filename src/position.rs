//! The game position of the search: a copy-make stack of shakmaty boards with incremental
//! Zobrist keys, repetition and 50-move detection, null moves, and UCI
//! move text. Move generation for it is `movegen.rs`.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, Move, Piece, Position as _,
    PositionError, Square, attacks,
};

/// The standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// One entry of the copy-make stack.
#[derive(Clone, Debug)]
struct State {
    board: Chess,
    hash: u64,
    /// Plies since the last null move (repetitions never reach across one).
    plies_from_null: u32,
}

/// A game position: the current board, the Zobrist keys of every earlier position of the game
/// (for repetitions), and the boards of the search line above the root (copy-make).
#[derive(Clone, Debug)]
pub struct Position {
    stack: Vec<State>,
    /// Key of every position since the game's start, the current one last.
    keys: Vec<u64>,
    /// Index in `keys` of the search root: repetitions at or after it count at once.
    root_index: usize,
    mode: CastlingMode,
}

/// Full Zobrist key of a board (en passant only where it is a legal capture).
pub fn full_hash(board: &Chess) -> u64 {
    board.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

impl Default for Position {
    fn default() -> Self {
        Position::from_board(Chess::default(), CastlingMode::Standard)
    }
}

impl Position {
    pub(crate) fn from_board(board: Chess, mode: CastlingMode) -> Position {
        let hash = full_hash(&board);
        Position {
            stack: vec![State {
                board,
                hash,
                plies_from_null: 0,
            }],
            keys: vec![hash],
            root_index: 0,
            mode,
        }
    }

    /// Parses a FEN (X-FEN or Shredder-FEN castling in Chess960 mode) and checks that the
    /// position is legal.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Position, String> {
        let parsed = Fen::from_ascii(fen.trim().as_bytes())
            .map_err(|e| format!("invalid FEN '{}': {e}", fen.trim()))?;
        // A check no legal game can reach (two sliders on one line) still gives a playable
        // position, as in composed problems and perft suites; every other error is refused.
        let board: Chess = parsed
            .into_position(mode)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| format!("illegal position '{}': {e}", fen.trim()))?;
        Ok(Position::from_board(board, mode))
    }

    /// The standard starting position, with castling written in `mode`.
    pub fn startpos(mode: CastlingMode) -> Position {
        Position::from_board(Chess::default(), mode)
    }

    #[inline]
    fn top(&self) -> &State {
        // The stack is never empty: `unmake` refuses to pop the last state.
        &self.stack[self.stack.len() - 1]
    }

    #[inline]
    /// The board (shakmaty's position).
    pub fn board(&self) -> &Chess {
        &self.top().board
    }

    /// Boards on the stack: the search root (or the game's position) and one per ply above.
    #[inline]
    pub(crate) fn stack_len(&self) -> usize {
        self.stack.len()
    }

    /// The board `i` plies above the bottom of the stack (`stack_len() - 1` is the current).
    #[inline]
    pub(crate) fn board_at(&self, i: usize) -> &Chess {
        &self.stack[i].board
    }

    /// The key of [`Position::board_at`]`(i)`.
    #[inline]
    pub(crate) fn hash_at(&self, i: usize) -> u64 {
        self.stack[i].hash
    }

    #[inline]
    /// Zobrist key of the position.
    pub fn hash(&self) -> u64 {
        self.top().hash
    }

    #[inline]
    /// The side to move.
    pub fn turn(&self) -> Color {
        self.board().turn()
    }

    #[inline]
    /// The side to move is in check.
    pub fn in_check(&self) -> bool {
        self.board().is_check()
    }

    #[inline]
    /// `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        self.board().is_legal(m)
    }

    #[inline]
    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board().board().piece_at(sq)
    }

    #[inline]
    /// Half-moves since the last capture or pawn move (fifty-move rule).
    pub fn halfmoves(&self) -> u32 {
        self.board().halfmoves()
    }

    /// Plies played above the search root.
    #[inline]
    pub fn search_ply(&self) -> usize {
        self.stack.len() - 1
    }

    /// Pawn-structure key (for correction history and any pawn cache).
    #[inline]
    pub(crate) fn pawn_key(&self) -> u64 {
        let b = self.board().board();
        let white = (b.pawns() & b.white()).0;
        let black = (b.pawns() & b.black()).0;
        mix(white ^ mix(black.wrapping_add(0x9E37_79B9_7F4A_7C15)))
    }

    /// Key of the non-pawn pieces of one colour (for correction history).
    #[inline]
    pub(crate) fn non_pawn_key(&self, color: Color) -> u64 {
        let b = self.board().board();
        let us = b.by_color(color).0;
        let minors = (b.knights().0 & us).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (b.bishops().0 & us).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let majors = (b.rooks().0 & us).wrapping_mul(0x1656_67B1_9E37_79F9)
            ^ (b.queens().0 & us).wrapping_mul(0x27D4_EB2F_1656_67C5)
            ^ (b.kings().0 & us).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        mix(minors ^ majors.rotate_left(29) ^ color as u64)
    }

    /// Squares the pawns of the side not to move attack, all at once: one shift per capture
    /// direction, off the edge files.
    #[inline]
    fn their_pawn_attacks(&self) -> Bitboard {
        let b = self.board().board();
        let them = !self.turn();
        let pawns = b.pawns() & b.by_color(them);
        let (west, east) = (
            pawns & !Bitboard::from_file(File::A),
            pawns & !Bitboard::from_file(File::H),
        );
        match them {
            Color::White => west.shift(7) | east.shift(9),
            Color::Black => west.shift(-9) | east.shift(-7),
        }
    }

    /// Squares the side not to move attacks: what threatens the side to move's pieces. The
    /// sliders see through nothing (every piece blocks, the king to move included).
    pub(crate) fn threats(&self) -> Bitboard {
        let b = self.board().board();
        let theirs = b.by_color(!self.turn());
        let occupied = b.occupied();
        let mut t = self.their_pawn_attacks();
        for sq in b.knights() & theirs {
            t |= attacks::knight_attacks(sq);
        }
        for sq in (b.bishops() | b.queens()) & theirs {
            t |= attacks::bishop_attacks(sq, occupied);
        }
        for sq in (b.rooks() | b.queens()) & theirs {
            t |= attacks::rook_attacks(sq, occupied);
        }
        for sq in b.kings() & theirs {
            t |= attacks::king_attacks(sq);
        }
        t
    }

    /// Squares the side not to move attacks with a piece worth less than a minor, a rook
    /// and a queen of the side to move: `[pawns, pawns and minors, pawns, minors and rooks]`.
    /// A piece of the side to move on its set stands to lose material to a cheaper attacker
    /// (the ordering bonus for moving it away, `ORDER_ESCAPE_BASE`).
    pub(crate) fn lesser_threats(&self) -> [Bitboard; 3] {
        let b = self.board().board();
        let theirs = b.by_color(!self.turn());
        let occupied = b.occupied();
        let by_pawn = self.their_pawn_attacks();
        let mut by_minor = by_pawn;
        for sq in b.knights() & theirs {
            by_minor |= attacks::knight_attacks(sq);
        }
        for sq in b.bishops() & theirs {
            by_minor |= attacks::bishop_attacks(sq, occupied);
        }
        let mut by_rook = by_minor;
        for sq in b.rooks() & theirs {
            by_rook |= attacks::rook_attacks(sq, occupied);
        }
        [by_pawn, by_minor, by_rook]
    }

    /// Does the side to move have a piece other than pawns and the king?
    #[inline]
    pub(crate) fn has_non_pawn_material(&self, color: Color) -> bool {
        let b = self.board().board();
        (b.by_color(color) & !b.pawns() & !b.kings()).any()
    }

    /// Plays a legal move on top of the stack (copy-make).
    #[inline]
    pub fn make(&mut self, m: Move) {
        self.make_and_announce(m, |_| ());
    }

    /// [`Position::make`], calling `announce` once with the new position's key as soon as it
    /// is known: before the board is copied and the move played when the incremental update
    /// gives the key, after it when the key needs the new board (a double push next to an
    /// enemy pawn). The search prefetches its hash table bucket there.
    #[inline]
    pub(crate) fn make_and_announce(&mut self, m: Move, mut announce: impl FnMut(u64)) {
        let top = self.top();
        let hash = top
            .board
            .update_zobrist_hash(Zobrist64(top.hash), m, EnPassantMode::Legal);
        if let Some(h) = hash {
            announce(h.0);
        }
        let mut next = top.clone();
        next.board.play_unchecked(m);
        next.hash = match hash {
            Some(h) => h.0,
            None => {
                let h = full_hash(&next.board);
                announce(h);
                h
            }
        };
        next.plies_from_null += 1;
        self.keys.push(next.hash);
        self.stack.push(next);
    }

    /// Takes back the last `make` or `make_null`.
    #[inline]
    pub fn unmake(&mut self) {
        debug_assert!(self.stack.len() > 1);
        if self.stack.len() > 1 {
            self.stack.pop();
            self.keys.pop();
        }
    }

    /// Passes the move (never in check). Returns false, changing nothing, if the position
    /// cannot be passed (the side to move is in check).
    pub(crate) fn make_null(&mut self) -> bool {
        let top = self.top();
        if top.board.is_check() {
            return false;
        }
        let mut hash = top.hash ^ Zobrist64::zobrist_for_white_turn().0;
        if let Some(ep) = top.board.legal_ep_square() {
            hash ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
        }
        let Ok(board) = top.board.clone().swap_turn() else {
            return false;
        };
        let next = State {
            board,
            hash,
            plies_from_null: 0,
        };
        self.keys.push(hash);
        self.stack.push(next);
        true
    }

    /// Plays a game move for good: it becomes part of the history before the root.
    pub fn play_game_move(&mut self, m: Move) {
        self.make(m);
        self.set_root();
    }

    /// Parses a move in UCI notation (`e1g1` or king-takes-rook `e1h1` for castling) and
    /// checks it is legal here.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, String> {
        let uci =
            UciMove::from_ascii(text.as_bytes()).map_err(|_| format!("malformed move '{text}'"))?;
        uci.to_move(self.board())
            .map_err(|_| format!("illegal move '{text}'"))
    }

    /// The UCI text of a move in this position's castling mode.
    pub fn move_to_uci(&self, m: Move) -> String {
        m.to_uci(self.mode).to_string()
    }

    /// Makes the current position the search root: repetitions of positions at or after it
    /// count as draws at once, earlier ones only when the position occurred twice before.
    pub(crate) fn set_root(&mut self) {
        let last = self.stack.len() - 1;
        self.stack.drain(..last);
        self.root_index = self.keys.len() - 1;
    }

    /// Draw by the 50-move rule (unless mated on the 100th ply) or by repetition.
    #[inline]
    pub(crate) fn is_draw(&self) -> bool {
        let top = self.top();
        if top.board.halfmoves() >= 100 && !(top.board.is_check() && top.board.is_checkmate()) {
            return true;
        }
        self.is_repetition()
    }

    /// Twofold repetition within the search line, or threefold counting the game history.
    pub(crate) fn is_repetition(&self) -> bool {
        let top = self.top();
        let n = self.keys.len() - 1;
        let reach = (top.board.halfmoves().min(top.plies_from_null) as usize).min(n);
        let mut seen_before_root = 0;
        let mut back = 4;
        while back <= reach {
            let i = n - back;
            if self.keys[i] == top.hash {
                if i >= self.root_index {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// Neither side can ever mate (K v K, K+minor v K, same-coloured bishops).
    pub fn is_insufficient_material(&self) -> bool {
        let b = self.board().board();
        if b.occupied().count() > 4 && (b.pawns() | b.rooks() | b.queens()).any() {
            return false;
        }
        self.board().is_insufficient_material()
    }

    /// FEN of the current position.
    pub fn fen(&self) -> String {
        Fen::from_position(self.board(), EnPassantMode::Legal).to_string()
    }
}

/// A 64-bit finaliser (splitmix64), used to hash bitboards.
#[inline]
pub fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(pos: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = pos.parse_uci_move(m).unwrap();
            pos.play_game_move(mv);
        }
    }

    #[test]
    fn threats_are_the_squares_the_other_side_attacks() {
        for fen in [
            START_FEN,
            // Both sides' pawns on the edge files, each side to move.
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
            "4k3/8/8/3q4/8/8/1P6/R3K2R b KQ - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen, CastlingMode::Standard).expect("fen");
            let b = pos.board().board();
            let them = !pos.turn();
            let mut expected = Bitboard::EMPTY;
            for sq in Square::ALL {
                if b.attacks_to(sq, them, b.occupied()).any() {
                    expected.add(sq);
                }
            }
            assert_eq!(pos.threats(), expected, "{fen}");
            assert!(pos.threats().any(), "{fen}");
        }
    }

    #[test]
    fn lesser_threats_are_the_cheaper_attackers_squares() {
        for fen in [
            START_FEN,
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R b KQkq - 1 5",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen, CastlingMode::Standard).expect("fen");
            let b = pos.board().board();
            let theirs = b.by_color(!pos.turn());
            let cheaper = [
                b.pawns(),
                b.pawns() | b.knights() | b.bishops(),
                b.pawns() | b.knights() | b.bishops() | b.rooks(),
            ];
            let got = pos.lesser_threats();
            for (i, attackers) in cheaper.into_iter().enumerate() {
                let mut expected = Bitboard::EMPTY;
                for sq in Square::ALL {
                    if (b.attacks_to(sq, !pos.turn(), b.occupied()) & theirs & attackers).any() {
                        expected.add(sq);
                    }
                }
                assert_eq!(got[i], expected, "{fen}: set {i}");
            }
            // Each set holds the one before, and all lie inside the full threats.
            assert!(
                got[0].is_subset(got[1]) && got[1].is_subset(got[2]),
                "{fen}"
            );
            assert!(got[2].is_subset(pos.threats()), "{fen}");
        }
    }

    #[test]
    fn incremental_hash_matches_full_hash_along_a_game() {
        let mut pos = Position::default();
        play(
            &mut pos,
            "e2e4 d7d5 e4d5 g8f6 f1b5 c7c6 d5c6 d8a5 c6b7 a5b5 b7a8q e8d8 g1f3 c8g4 d2d3 e7e6 e1g1",
        );
        assert_eq!(pos.hash(), full_hash(pos.board()));
    }

    #[test]
    fn announced_key_is_the_key_after_the_move() {
        // Every legal move of positions with castling, en passant and promotions: the key
        // `make_and_announce` hands out early (for the hash table prefetch) is the new key.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let mut pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            for m in pos.board().legal_moves() {
                let mut announced = None;
                pos.make_and_announce(m, |key| announced = Some(key));
                assert_eq!(announced, Some(pos.hash()), "{fen} {m}");
                pos.unmake();
            }
        }
    }

    #[test]
    fn en_passant_only_hashed_when_legal() {
        // After e2e4 no black pawn can capture en passant: same key as without the ep square.
        let a = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let b = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        assert_eq!(a.hash(), b.hash());
    }

    #[test]
    fn threefold_needs_two_earlier_occurrences_before_root() {
        let mut pos = Position::default();
        play(&mut pos, "g1f3 g8f6 f3g1 f6g8");
        // Start position occurred twice (now and at ply 0): not yet a draw at the root.
        assert!(!pos.is_repetition());
        play(&mut pos, "g1f3 g8f6 f3g1 f6g8");
        assert!(pos.is_repetition());
    }

    #[test]
    fn twofold_inside_the_search_is_a_draw() {
        let mut pos = Position::default();
        pos.set_root();
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            let mv = pos.parse_uci_move(m).unwrap();
            pos.make(mv);
        }
        assert!(pos.is_repetition());
        for _ in 0..4 {
            pos.unmake();
        }
        assert!(!pos.is_repetition());
        assert_eq!(pos.search_ply(), 0);
    }

    #[test]
    fn null_move_flips_side_and_key() {
        let mut pos = Position::default();
        let before = pos.hash();
        assert!(pos.make_null());
        assert_eq!(pos.turn(), Color::Black);
        assert_eq!(pos.hash(), full_hash(pos.board()));
        pos.unmake();
        assert_eq!(pos.hash(), before);
    }

    /// The staged generators agree with shakmaty's: noisy moves are exactly the captures
    /// (without under-promotion) and queen promotions, quiet moves exactly the rest, over every
    /// position of small trees from tricky roots, Chess960 castling included.
    #[test]
    fn fifty_move_rule() {
        let pos = Position::from_fen("8/8/4k3/8/8/4K3/8/R7 w - - 100 80", CastlingMode::Standard)
            .unwrap();
        assert!(pos.is_draw());
        let pos =
            Position::from_fen("8/8/4k3/8/8/4K3/8/R7 w - - 99 80", CastlingMode::Standard).unwrap();
        assert!(!pos.is_draw());
    }

    #[test]
    fn bad_fens_are_errors() {
        for fen in [
            "",
            "not a fen",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "kk6/8/8/8/8/8/8/K7 w - - 0 1",
        ] {
            assert!(
                Position::from_fen(fen, CastlingMode::Standard).is_err(),
                "{fen}"
            );
        }
    }
}
