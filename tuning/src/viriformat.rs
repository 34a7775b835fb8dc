//! Games in viriformat, the self-play format of the Viridithas engine that the bullet trainer
//! reads: a marlinformat board (32 bytes) for the game's first recorded position, then one
//! `(move, score)` pair of 16-bit words per ply, then four zero bytes. All integers are
//! little-endian; squares run A1 = 0 .. H8 = 63.
//!
//! Written here from the format's public specification (the `viriformat` crate's README), so
//! the data generator needs no second chess library; the unit tests check the specification's
//! own example byte for byte.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    Role, Setup, Square,
};

/// Bytes of a packed board.
pub const BOARD_BYTES: usize = 32;
/// The result byte: a black win is 0, a draw 1, a white win 2.
pub const BLACK_WIN: u8 = 0;
pub const DRAW: u8 = 1;
pub const WHITE_WIN: u8 = 2;
/// Scores are stored as i16, White's view; mate scores are clamped to this.
pub const SCORE_LIMIT: i32 = 32_000;

/// Piece code of a rook that still carries a castling right.
const UNMOVED_ROOK: u8 = 6;

/// One game: its first recorded position, the result, and each ply's move with the search's
/// score (White's view).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub start: Chess,
    /// `BLACK_WIN`, `DRAW` or `WHITE_WIN`.
    pub result: u8,
    pub moves: Vec<(Move, i16)>,
}

fn role_code(role: Role) -> u8 {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

fn code_role(code: u8) -> Option<Role> {
    Some(match code {
        0 => Role::Pawn,
        1 => Role::Knight,
        2 => Role::Bishop,
        3 | UNMOVED_ROOK => Role::Rook,
        4 => Role::Queen,
        5 => Role::King,
        _ => return None,
    })
}

/// Clamps a score to what the format stores.
pub fn clamp_score(score: i32) -> i16 {
    score.clamp(-SCORE_LIMIT, SCORE_LIMIT) as i16
}

/// The 32-byte marlinformat board of `pos`, with a score (White's view) and a result.
pub fn pack_board(pos: &Chess, score: i16, result: u8) -> [u8; BOARD_BYTES] {
    let mut out = [0u8; BOARD_BYTES];
    let board = pos.board();
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
    let rights = pos.castles().castling_rights();
    for (i, sq) in occupied.into_iter().enumerate() {
        let Some(piece) = board.piece_at(sq) else {
            continue;
        };
        let mut code = if piece.role == Role::Rook && rights.contains(sq) {
            UNMOVED_ROOK
        } else {
            role_code(piece.role)
        };
        if piece.color == Color::Black {
            code |= 8;
        }
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    let ep = pos
        .ep_square(EnPassantMode::Legal)
        .map_or(64u8, |sq| sq as u8);
    out[24] = ep | if pos.turn() == Color::Black { 0x80 } else { 0 };
    out[25] = pos.halfmoves().min(255) as u8;
    out[26..28]
        .copy_from_slice(&(pos.fullmoves().get().min(u32::from(u16::MAX)) as u16).to_le_bytes());
    out[28..30].copy_from_slice(&score.to_le_bytes());
    out[30] = result;
    out
}

/// The position, score and result of a packed board; an error for anything that is not a
/// legal chess position in the format.
pub fn unpack_board(bytes: &[u8; BOARD_BYTES]) -> Result<(Chess, i16, u8), String> {
    let mut occ_bytes = [0u8; 8];
    occ_bytes.copy_from_slice(&bytes[0..8]);
    let occupied = Bitboard(u64::from_le_bytes(occ_bytes));
    if occupied.count() > 32 {
        return Err("more than 32 pieces".into());
    }
    let mut board = Board::empty();
    let mut rights = Bitboard::EMPTY;
    for (i, sq) in occupied.into_iter().enumerate() {
        let code = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0xF;
        let role = code_role(code & 7).ok_or_else(|| format!("bad piece code {code}"))?;
        if code & 7 == UNMOVED_ROOK {
            rights.add(sq);
        }
        let color = if code & 8 != 0 {
            Color::Black
        } else {
            Color::White
        };
        board.set_piece_at(sq, Piece { color, role });
    }
    let ep = bytes[24] & 0x7F;
    let turn = if bytes[24] & 0x80 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let ep_square = match ep {
        64 => None,
        s @ 0..64 => Some(Square::new(u32::from(s))),
        s => return Err(format!("bad en-passant square {s}")),
    };
    let fullmoves = u32::from(u16::from_le_bytes([bytes[26], bytes[27]])).max(1);
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights: rights,
        ep_square,
        remaining_checks: None,
        halfmoves: u32::from(bytes[25]),
        fullmoves: NonZeroU32::new(fullmoves).unwrap_or(NonZeroU32::MIN),
    };
    let pos = Chess::from_setup(setup, CastlingMode::Chess960)
        .map_err(|e| format!("illegal position: {e}"))?;
    let score = i16::from_le_bytes([bytes[28], bytes[29]]);
    let result = bytes[30];
    if result > WHITE_WIN {
        return Err(format!("bad result {result}"));
    }
    Ok((pos, score, result))
}

/// The 16-bit code of a move: from (6 bits), to (6), promotion (2), kind (2: en passant 1,
/// castling 2 as king takes rook, promotion 3).
pub fn pack_move(m: &Move) -> u16 {
    let (from, to, promo, kind) = match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => match promotion {
            Some(role) => (from, to, role_code(role).saturating_sub(1), 3),
            None => (from, to, 0, 0),
        },
        Move::EnPassant { from, to } => (from, to, 0, 1),
        Move::Castle { king, rook } => (king, rook, 0, 2),
        Move::Put { to, .. } => (to, to, 0, 0),
    };
    (from as u16) | ((to as u16) << 6) | (u16::from(promo) << 12) | (kind << 14)
}

/// The legal move of `pos` that `code` stands for.
pub fn unpack_move(pos: &Chess, code: u16) -> Result<Move, String> {
    let from = Square::new(u32::from(code & 63));
    let to = Square::new(u32::from((code >> 6) & 63));
    let promo = (code >> 12) & 3;
    let kind = code >> 14;
    pos.legal_moves()
        .into_iter()
        .find(|m| match *m {
            Move::Normal {
                from: f,
                to: t,
                promotion,
                ..
            } => {
                f == from
                    && t == to
                    && match promotion {
                        Some(r) => kind == 3 && u16::from(role_code(r)) == promo + 1,
                        None => kind == 0,
                    }
            }
            Move::EnPassant { from: f, to: t } => kind == 1 && f == from && t == to,
            Move::Castle { king, rook } => kind == 2 && king == from && rook == to,
            Move::Put { .. } => false,
        })
        .ok_or_else(|| format!("move code {code:#06x} is not legal in {}", fen_of(pos)))
}

fn fen_of(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

impl Game {
    /// The game as viriformat bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(BOARD_BYTES + 4 * self.moves.len() + 4);
        out.extend_from_slice(&pack_board(&self.start, 0, self.result));
        for (m, score) in &self.moves {
            out.extend_from_slice(&pack_move(m).to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
        }
        out.extend_from_slice(&[0; 4]);
        out
    }

    /// Reads one game from the front of `bytes`; returns it and the bytes it took, or `None`
    /// when `bytes` ends before the game does (a file cut off by a killed writer).
    pub fn read(bytes: &[u8]) -> Result<Option<(Game, usize)>, String> {
        let Some(head) = bytes.get(..BOARD_BYTES) else {
            return Ok(None);
        };
        let mut board = [0u8; BOARD_BYTES];
        board.copy_from_slice(head);
        let (start, _, result) = unpack_board(&board)?;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let mut at = BOARD_BYTES;
        loop {
            let Some(pair) = bytes.get(at..at + 4) else {
                return Ok(None);
            };
            at += 4;
            let code = u16::from_le_bytes([pair[0], pair[1]]);
            let score = i16::from_le_bytes([pair[2], pair[3]]);
            if code == 0 && score == 0 {
                break;
            }
            let m = unpack_move(&pos, code)?;
            pos.play_unchecked(m);
            moves.push((m, score));
        }
        Ok(Some((
            Game {
                start,
                result,
                moves,
            },
            at,
        )))
    }

    /// Every game in `bytes`, and how many bytes at the end belong to an unfinished game.
    pub fn read_all(bytes: &[u8]) -> Result<(Vec<Game>, usize), String> {
        let mut games = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            match Game::read(&bytes[at..]).map_err(|e| format!("game at byte {at}: {e}"))? {
                Some((g, n)) => {
                    games.push(g);
                    at += n;
                }
                None => return Ok((games, bytes.len() - at)),
            }
        }
        Ok((games, 0))
    }

    /// Each position of the game (before each move) with its move and score.
    pub fn positions(&self) -> Vec<(Chess, Move, i16)> {
        let mut pos = self.start.clone();
        let mut out = Vec::with_capacity(self.moves.len());
        for (m, score) in &self.moves {
            out.push((pos.clone(), *m, *score));
            pos.play_unchecked(*m);
        }
        out
    }
}

/// The side that won, in the format's terms, from a score for White (1, 0.5 or 0).
pub fn result_code(white_score: f64) -> u8 {
    if white_score > 0.75 {
        WHITE_WIN
    } else if white_score < 0.25 {
        BLACK_WIN
    } else {
        DRAW
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn hex(text: &str) -> Vec<u8> {
        text.split_whitespace()
            .flat_map(|w| {
                (0..w.len())
                    .step_by(2)
                    .map(move |i| u8::from_str_radix(&w[i..i + 2], 16).unwrap())
            })
            .collect()
    }

    #[test]
    fn the_specifications_example_byte_for_byte() {
        // The README of the format: 1. e4 (+10) e5 (+20) 2. Qh5 (-30) Ke7 (+32767)
        // 3. Qxe5# (+32767), a white win, from the start position. The README's dump shows
        // each piece byte with its two nibbles swapped: the crate's code (and every reader
        // of the format) puts the piece of the lower square in the low nibble, so the
        // example is compared with those bytes' nibbles swapped back.
        let mut expected = hex(
            "ffff 0000 0000 ffff 6124 5216 0000 0000 8888 8888 e9ac da9e 40 00 0100 0000 02 00
             0c07 0a00 3409 1400 c309 e2ff 3c0d ff7f 2709 ff7f 0000 0000",
        );
        for b in &mut expected[8..24] {
            *b = b.rotate_left(4);
        }
        assert_eq!(
            expected[8], 0x16,
            "a1: unmoved rook (6) low, b1: knight (1) high"
        );
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for (uci, score) in [
            ("e2e4", 10),
            ("e7e5", 20),
            ("d1h5", -30),
            ("e8e7", 32767),
            ("h5e5", 32767),
        ] {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push((m, score));
        }
        let game = Game {
            start: Chess::default(),
            result: WHITE_WIN,
            moves,
        };
        assert_eq!(game.to_bytes(), expected);
        let (back, used) = Game::read(&expected).unwrap().unwrap();
        assert_eq!(used, expected.len());
        assert_eq!(back, game);
    }

    #[test]
    fn special_moves_round_trip() {
        // Castling both ways, en passant, promotions with and without capture.
        let cases = [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 9", "e8c8"),
            ("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2", "d5e6"),
            ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n"),
            ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"),
            ("4k3/8/8/8/8/8/p7/4K3 b - - 0 1", "a2a1r"),
        ];
        for (fen, uci) in cases {
            let pos: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            assert_eq!(unpack_move(&pos, pack_move(&m)).unwrap(), m, "{fen} {uci}");
            let packed = pack_board(&pos, -123, DRAW);
            let (back, score, result) = unpack_board(&packed).unwrap();
            assert_eq!(fen_of(&back), fen_of(&pos));
            assert_eq!((score, result), (-123, DRAW));
        }
    }

    #[test]
    fn a_cut_off_game_is_reported_as_unfinished() {
        let g = Game {
            start: Chess::default(),
            result: DRAW,
            moves: vec![],
        };
        let mut bytes = g.to_bytes();
        bytes.extend_from_slice(&g.to_bytes()[..20]);
        let (games, rest) = Game::read_all(&bytes).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(rest, 20);
        // Garbage is an error, not a panic.
        let mut bad = g.to_bytes();
        bad[8] = 0x77; // piece code 7
        assert!(Game::read_all(&bad).is_err());
    }
}
