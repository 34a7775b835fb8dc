//! Tapered hand-crafted evaluation.
//!
//! The evaluation is linear in one weight vector [`WEIGHTS`] (a midgame and an endgame value per
//! term, blended by game phase), so every term can be traced and tuned; only the final endgame
//! scaling for drawish material is outside it. Its weights are not search parameters: they live
//! here, not in `params.rs`.

use shakmaty::attacks;
use shakmaty::{Bitboard, Board, Color, Role, Square};

use crate::position::Position;

/// A midgame/endgame pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl std::ops::AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl std::ops::Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}

/// Game phase weight of each role (pawn, knight, bishop, rook, queen, king).
pub const PHASE_WEIGHTS: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

// Term layout of the weight vector.
pub const MATERIAL: usize = 0;
pub const PST: usize = MATERIAL + 6;
pub const MOB_KNIGHT: usize = PST + 6 * 64;
pub const MOB_BISHOP: usize = MOB_KNIGHT + 9;
pub const MOB_ROOK: usize = MOB_BISHOP + 14;
pub const MOB_QUEEN: usize = MOB_ROOK + 15;
pub const BISHOP_PAIR: usize = MOB_QUEEN + 28;
pub const DOUBLED_PAWN: usize = BISHOP_PAIR + 1;
pub const ISOLATED_PAWN: usize = DOUBLED_PAWN + 1;
pub const PASSED_PAWN: usize = ISOLATED_PAWN + 1;
pub const ROOK_OPEN_FILE: usize = PASSED_PAWN + 8;
pub const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
pub const KING_SHELTER: usize = ROOK_SEMI_OPEN_FILE + 1;
pub const KING_DANGER: usize = KING_SHELTER + 4;
pub const KING_DANGER_SIZE: usize = 32;
pub const TEMPO: usize = KING_DANGER + KING_DANGER_SIZE;
pub const NUM_TERMS: usize = TEMPO + 1;

/// Attack-unit weights of the pieces that reach the enemy king zone (N, B, R, Q).
const KING_ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

const fn centrality(sq: usize) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    let df = if f < 7 - f { f } else { 7 - f };
    let dr = if r < 7 - r { r } else { 7 - r };
    df + dr
}

const fn default_weights() -> [S; NUM_TERMS] {
    let mut w = [s(0, 0); NUM_TERMS];
    let material = [
        s(85, 110),
        s(330, 290),
        s(355, 315),
        s(470, 530),
        s(1010, 960),
        s(0, 0),
    ];
    let mut i = 0;
    while i < 6 {
        w[MATERIAL + i] = material[i];
        i += 1;
    }
    // Piece-square tables, from White's side, a1 = 0.
    let king_mg_back = [15, 25, 5, -10, -5, 5, 30, 15];
    let mut sq = 0;
    while sq < 64 {
        let f = sq % 8;
        let r = (sq / 8) as i32;
        let c = centrality(sq);
        let central_file = f >= 2 && f <= 5;
        // Pawns: advance, especially in the centre; endgame pushes are worth more.
        let pawn_mg = if r == 0 || r == 7 {
            0
        } else if central_file {
            (r - 1) * 6
                + if (f == 3 || f == 4) && (r == 3 || r == 4) {
                    12
                } else {
                    0
                }
        } else {
            (r - 1) * 3
        };
        let pawn_eg = if r == 0 || r == 7 { 0 } else { (r - 1) * 8 };
        w[PST + sq] = s(pawn_mg, pawn_eg);
        w[PST + 64 + sq] = s(7 * c - 24, 6 * c - 20);
        w[PST + 2 * 64 + sq] = s(4 * c - 10, 4 * c - 12);
        let rook_mg = if r == 6 { 18 } else { 0 } + if f == 3 || f == 4 { 6 } else { 0 };
        w[PST + 3 * 64 + sq] = s(rook_mg, if r == 6 { 12 } else { 0 });
        w[PST + 4 * 64 + sq] = s(2 * c - 6, 5 * c - 15);
        let king_mg = if r == 0 {
            king_mg_back[f]
        } else if r == 1 {
            king_mg_back[f] / 2 - 10
        } else {
            -25 - 12 * (r - 2)
        };
        w[PST + 5 * 64 + sq] = s(king_mg, 10 * c - 30);
        sq += 1;
    }
    // Mobility: linear around a typical count.
    let mut n = 0;
    while n < 9 {
        w[MOB_KNIGHT + n] = s(4 * (n as i32 - 4), 4 * (n as i32 - 4));
        n += 1;
    }
    n = 0;
    while n < 14 {
        w[MOB_BISHOP + n] = s(5 * (n as i32 - 6), 5 * (n as i32 - 6));
        n += 1;
    }
    n = 0;
    while n < 15 {
        w[MOB_ROOK + n] = s(2 * (n as i32 - 7), 4 * (n as i32 - 7));
        n += 1;
    }
    n = 0;
    while n < 28 {
        w[MOB_QUEEN + n] = s(n as i32 - 13, 2 * (n as i32 - 13));
        n += 1;
    }
    w[BISHOP_PAIR] = s(30, 50);
    w[DOUBLED_PAWN] = s(-10, -20);
    w[ISOLATED_PAWN] = s(-10, -12);
    let passed = [
        s(0, 0),
        s(0, 5),
        s(5, 12),
        s(10, 25),
        s(20, 45),
        s(40, 80),
        s(65, 120),
        s(0, 0),
    ];
    i = 0;
    while i < 8 {
        w[PASSED_PAWN + i] = passed[i];
        i += 1;
    }
    w[ROOK_OPEN_FILE] = s(25, 10);
    w[ROOK_SEMI_OPEN_FILE] = s(12, 6);
    let shelter = [s(-30, 0), s(-10, 0), s(5, 0), s(10, 0)];
    i = 0;
    while i < 4 {
        w[KING_SHELTER + i] = shelter[i];
        i += 1;
    }
    i = 0;
    while i < KING_DANGER_SIZE {
        let u = i as i32;
        w[KING_DANGER + i] = s(u * u * 7 / 10, u * 2);
        i += 1;
    }
    w[TEMPO] = s(18, 6);
    w
}

/// The evaluation weights.
pub static WEIGHTS: [S; NUM_TERMS] = default_weights();

/// Receives every term the evaluation counts, for tuning. `count` is from White's side.
pub trait Trace {
    fn add(&mut self, term: usize, count: i32);
}

/// The evaluation with no tracing.
pub struct NoTrace;

impl Trace for NoTrace {
    #[inline(always)]
    fn add(&mut self, _term: usize, _count: i32) {}
}

/// Static evaluation from the side to move's point of view, in centipawns.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_board(
        shakmaty::Position::board(pos.board()),
        pos.turn(),
        &mut NoTrace,
    )
}

/// Game phase, 0 (bare kings and pawns) to [`MAX_PHASE`] (all pieces).
pub fn phase(board: &Board) -> i32 {
    let p = board.knights().count() as i32 * PHASE_WEIGHTS[1]
        + board.bishops().count() as i32 * PHASE_WEIGHTS[2]
        + board.rooks().count() as i32 * PHASE_WEIGHTS[3]
        + board.queens().count() as i32 * PHASE_WEIGHTS[4];
    p.min(MAX_PHASE)
}

struct Acc<'a, T: Trace> {
    score: S,
    trace: &'a mut T,
}

impl<T: Trace> Acc<'_, T> {
    #[inline(always)]
    fn add(&mut self, color: Color, term: usize, count: i32) {
        let v = WEIGHTS[term] * count;
        if color == Color::White {
            self.score += v;
            self.trace.add(term, count);
        } else {
            self.score -= v;
            self.trace.add(term, -count);
        }
    }
}

#[inline]
fn relative(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

fn pawn_attacks_of(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(shakmaty::File::A);
    let not_h = !Bitboard::from_file(shakmaty::File::H);
    match color {
        Color::White => ((pawns & not_a).shift(7)) | ((pawns & not_h).shift(9)),
        Color::Black => ((pawns & not_a).shift(-9)) | ((pawns & not_h).shift(-7)),
    }
}

/// Squares in front of a pawn on its own file and the two beside it, up to promotion.
fn passed_span(color: Color, sq: Square) -> Bitboard {
    let file = sq.file() as i32;
    let mut files = Bitboard::from_file(sq.file());
    if file > 0 {
        files |= Bitboard::from_file(shakmaty::File::new((file - 1) as u32));
    }
    if file < 7 {
        files |= Bitboard::from_file(shakmaty::File::new((file + 1) as u32));
    }
    let rank = sq.rank() as u32;
    let ahead = match color {
        Color::White => {
            if rank >= 7 {
                Bitboard(0)
            } else {
                Bitboard(!0u64 << (8 * (rank + 1)))
            }
        }
        Color::Black => Bitboard((1u64 << (8 * rank)) - 1),
    };
    files & ahead
}

fn adjacent_files(sq: Square) -> Bitboard {
    let file = sq.file() as i32;
    let mut files = Bitboard(0);
    if file > 0 {
        files |= Bitboard::from_file(shakmaty::File::new((file - 1) as u32));
    }
    if file < 7 {
        files |= Bitboard::from_file(shakmaty::File::new((file + 1) as u32));
    }
    files
}

/// Evaluates `board` from `turn`'s point of view, reporting every term to `trace`.
pub fn evaluate_board<T: Trace>(board: &Board, turn: Color, trace: &mut T) -> i32 {
    let mut acc = Acc {
        score: S::default(),
        trace,
    };
    let occupied = board.occupied();

    let pawn_attacks = [
        pawn_attacks_of(Color::White, board.pawns() & board.white()),
        pawn_attacks_of(Color::Black, board.pawns() & board.black()),
    ];

    for color in Color::ALL {
        let us = board.by_color(color);
        let them_color = !color;
        let our_pawns = board.pawns() & us;
        let their_pawns = board.pawns() & board.by_color(them_color);
        let enemy_pawn_attacks = pawn_attacks[them_color as usize];
        let mobility_area = !(us | enemy_pawn_attacks);
        let their_king = board.king_of(them_color);
        let king_zone = their_king.map_or(Bitboard(0), |k| {
            let near = attacks::king_attacks(k) | Bitboard::from_square(k);
            near | match them_color {
                Color::White => near.shift(8),
                Color::Black => near.shift(-8),
            }
        });
        let mut attack_units = 0;

        for role in Role::ALL {
            let pieces = board.by_role(role) & us;
            let ri = role as usize - 1;
            for sq in pieces {
                let rsq = relative(color, sq);
                acc.add(color, MATERIAL + ri, 1);
                acc.add(color, PST + ri * 64 + rsq, 1);
                let att = match role {
                    Role::Knight => attacks::knight_attacks(sq),
                    Role::Bishop => attacks::bishop_attacks(sq, occupied),
                    Role::Rook => attacks::rook_attacks(sq, occupied),
                    Role::Queen => attacks::queen_attacks(sq, occupied),
                    Role::Pawn | Role::King => continue,
                };
                let mob = (att & mobility_area).count();
                let base = match role {
                    Role::Knight => MOB_KNIGHT,
                    Role::Bishop => MOB_BISHOP,
                    Role::Rook => MOB_ROOK,
                    _ => MOB_QUEEN,
                };
                acc.add(color, base + mob, 1);
                let hits = (att & king_zone).count() as i32;
                if hits > 0 {
                    attack_units += KING_ATTACK_UNITS[role as usize - 1] * hits.min(3);
                }
                if role == Role::Rook {
                    let file = Bitboard::from_file(sq.file());
                    if (file & our_pawns).is_empty() {
                        if (file & their_pawns).is_empty() {
                            acc.add(color, ROOK_OPEN_FILE, 1);
                        } else {
                            acc.add(color, ROOK_SEMI_OPEN_FILE, 1);
                        }
                    }
                }
            }
        }
        if attack_units > 0 {
            let idx = (attack_units as usize).min(KING_DANGER_SIZE - 1);
            acc.add(color, KING_DANGER + idx, 1);
        }

        if (board.bishops() & us).more_than_one() {
            acc.add(color, BISHOP_PAIR, 1);
        }

        // Pawn structure.
        for sq in our_pawns {
            let file = Bitboard::from_file(sq.file());
            if (adjacent_files(sq) & our_pawns).is_empty() {
                acc.add(color, ISOLATED_PAWN, 1);
            }
            if (passed_span(color, sq) & their_pawns).is_empty()
                && (passed_span(color, sq) & file & our_pawns).is_empty()
            {
                let rank = relative(color, sq) / 8;
                acc.add(color, PASSED_PAWN + rank, 1);
            }
        }
        for f in shakmaty::File::ALL {
            let n = (Bitboard::from_file(f) & our_pawns).count() as i32;
            if n > 1 {
                acc.add(color, DOUBLED_PAWN, n - 1);
            }
        }

        // Pawn shelter in front of our king.
        if let Some(k) = board.king_of(color) {
            let files = Bitboard::from_file(k.file()) | adjacent_files(k);
            let front = match color {
                Color::White => {
                    let r1 = Bitboard::from_square(k).shift(8);
                    let r2 = r1.shift(8);
                    (r1 | r2).0
                }
                Color::Black => {
                    let r1 = Bitboard::from_square(k).shift(-8);
                    let r2 = r1.shift(-8);
                    (r1 | r2).0
                }
            };
            // Ranks of the two squares ahead, spread over the king's and adjacent files.
            let ranks = rank_mask(front);
            let shelter = (files & ranks & our_pawns).count().min(3);
            acc.add(color, KING_SHELTER + shelter, 1);
        }
    }

    let side = turn;
    acc.add(side, TEMPO, 1);

    let phase = phase(board);
    let score = acc.score;
    let eg = score.eg * endgame_scale(board, score.eg) / 64;
    let tapered = (score.mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    match turn {
        Color::White => tapered,
        Color::Black => -tapered,
    }
}

/// All squares on the ranks that the bits of `bits` occupy.
fn rank_mask(bits: u64) -> Bitboard {
    let mut mask = 0u64;
    for r in 0..8 {
        if bits & (0xFFu64 << (8 * r)) != 0 {
            mask |= 0xFFu64 << (8 * r);
        }
    }
    Bitboard(mask)
}

/// Endgame scale in 64ths: drawish material gets less.
pub fn endgame_scale(board: &Board, eg: i32) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let us = board.by_color(strong);
    let them = board.by_color(!strong);
    let our_pawns = (board.pawns() & us).count();
    let npm = |c: Bitboard| -> i32 {
        (board.knights() & c).count() as i32 * 3
            + (board.bishops() & c).count() as i32 * 3
            + (board.rooks() & c).count() as i32 * 5
            + (board.queens() & c).count() as i32 * 9
    };
    let (ours, theirs) = (npm(us), npm(them));
    if our_pawns == 0 && ours - theirs <= 3 {
        // A minor piece up (or less) with no pawns rarely wins.
        return if ours <= 3 { 0 } else { 8 };
    }
    // Opposite-coloured bishops alone.
    let wb = board.bishops() & board.white();
    let bb = board.bishops() & board.black();
    if ours == 3
        && theirs == 3
        && wb.count() == 1
        && bb.count() == 1
        && (wb & Bitboard::LIGHT_SQUARES).any() != (bb & Bitboard::LIGHT_SQUARES).any()
    {
        return 32;
    }
    64
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn eval_fen(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen, CastlingMode::Standard).unwrap())
    }

    fn mirror(fen: &str) -> String {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut setup = shakmaty::Position::to_setup(pos.board(), shakmaty::EnPassantMode::Legal);
        setup.mirror();
        let chess: shakmaty::Chess = setup
            .position(CastlingMode::Standard)
            .expect("mirror of a legal position is legal");
        Position::from_board(chess, CastlingMode::Standard).fen()
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4r1k1/1q3ppp/p7/1p6/3Q4/1P5P/P4PP1/4R1K1 w - - 0 1",
        ] {
            assert_eq!(eval_fen(fen), eval_fen(&mirror(fen)), "{fen}");
        }
    }

    #[test]
    fn material_matters() {
        let up_queen = eval_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(up_queen > 700, "{up_queen}");
        let start = eval_fen(shakmaty_start());
        assert!(start.abs() < 40, "{start}");
    }

    fn shakmaty_start() -> &'static str {
        crate::position::START_FEN
    }

    #[test]
    fn lone_minor_is_scaled_to_a_draw() {
        // Only the midgame part (one phase unit of 24) survives the endgame scale of 0.
        assert!(eval_fen("8/8/4k3/8/8/3NK3/8/8 w - - 0 1").abs() < 25);
        assert!(eval_fen("8/8/4k3/8/8/3RK3/8/8 w - - 0 1") > 400);
    }
}
