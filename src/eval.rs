//! Tapered hand-crafted evaluation.
//!
//! The evaluation that played before the network (docs/nnue.md): linear in one weight vector
//! (a midgame and an endgame value per term, blended by game phase), with an endgame scale for
//! drawish material outside the linear part. Its weights (`eval_weights.rs`) were fitted to game
//! results by a Texel tuner that was removed once the network became the default; they are
//! frozen. It evaluates when no net is loaded (`EvalFile <empty>` or `Use NNUE false`) and plays
//! `shears-tune datagen --net hce`, which made generation 0 of the network's data.

use shakmaty::attacks;
use shakmaty::{Bitboard, Board, ByColor, Color, Role, Square};

use crate::position::Position;

/// A midgame/endgame pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct S {
    pub(crate) mg: i32,
    pub(crate) eg: i32,
}

pub(crate) const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl std::ops::AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl std::ops::Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}

/// Game phase weight of each role (pawn, knight, bishop, rook, queen, king).
pub(crate) const PHASE_WEIGHTS: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub(crate) const MAX_PHASE: i32 = 24;

// Term layout of the weight vector: each constant is the first index of a group.
pub(crate) const MATERIAL: usize = 0;
pub(crate) const PST: usize = MATERIAL + 6;
pub(crate) const MOB_KNIGHT: usize = PST + 6 * 64;
pub(crate) const MOB_BISHOP: usize = MOB_KNIGHT + 9;
pub(crate) const MOB_ROOK: usize = MOB_BISHOP + 14;
pub(crate) const MOB_QUEEN: usize = MOB_ROOK + 15;
pub(crate) const BISHOP_PAIR: usize = MOB_QUEEN + 28;
pub(crate) const DOUBLED_PAWN: usize = BISHOP_PAIR + 1;
pub(crate) const ISOLATED_PAWN: usize = DOUBLED_PAWN + 1;
/// By relative rank of the pawn.
pub(crate) const CONNECTED_PAWN: usize = ISOLATED_PAWN + 1;
/// By relative rank of the passed pawn.
pub(crate) const PASSED_PAWN: usize = CONNECTED_PAWN + 8;
/// By distance of our king to the square in front of a passed pawn.
pub(crate) const PASSED_OWN_KING: usize = PASSED_PAWN + 8;
/// By distance of their king to the square in front of a passed pawn.
pub(crate) const PASSED_THEIR_KING: usize = PASSED_OWN_KING + 8;
/// A passed pawn whose next square is occupied.
pub(crate) const PASSED_BLOCKED: usize = PASSED_THEIR_KING + 8;
pub(crate) const ROOK_OPEN_FILE: usize = PASSED_BLOCKED + 1;
pub(crate) const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
/// Enemy pieces attacked by our pawns, by victim role.
pub(crate) const THREAT_BY_PAWN: usize = ROOK_SEMI_OPEN_FILE + 1;
/// Enemy pieces attacked by our knights or bishops, by victim role.
pub(crate) const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 6;
/// Enemy pieces attacked by our rooks, by victim role.
pub(crate) const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 6;
/// Enemy pieces (not pawns) we attack and they do not defend.
pub(crate) const HANGING: usize = THREAT_BY_ROOK + 6;
/// By number of our pawns (0-3) on the two squares ahead of our king and beside them.
pub(crate) const KING_SHELTER: usize = HANGING + 1;
/// By attack units on the enemy king zone.
pub(crate) const KING_DANGER: usize = KING_SHELTER + 4;
pub(crate) const KING_DANGER_SIZE: usize = 32;
pub(crate) const TEMPO: usize = KING_DANGER + KING_DANGER_SIZE;
pub(crate) const NUM_TERMS: usize = TEMPO + 1;

/// Attack-unit weights of the pieces that reach the enemy king zone (N, B, R, Q).
const KING_ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// The evaluation weights.
pub(crate) static WEIGHTS: [S; NUM_TERMS] = crate::eval_weights::WEIGHTS;

// ---------------------------------------------------------------------------------------------
// Precomputed masks.

const fn file_mask(f: usize) -> u64 {
    0x0101_0101_0101_0101u64 << f
}

const fn adjacent_files_mask(f: usize) -> u64 {
    let mut m = 0;
    if f > 0 {
        m |= file_mask(f - 1);
    }
    if f < 7 {
        m |= file_mask(f + 1);
    }
    m
}

/// Squares strictly ahead of rank `r` for `white` (towards rank 8) or black.
const fn ahead_mask(r: usize, white: bool) -> u64 {
    if white {
        if r >= 7 { 0 } else { !0u64 << (8 * (r + 1)) }
    } else if r == 0 {
        0
    } else {
        (1u64 << (8 * r)) - 1
    }
}

const fn build_square_table(kind: u8) -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let white = c == 1;
        let mut sq = 0;
        while sq < 64 {
            let f = sq % 8;
            let r = sq / 8;
            t[c][sq] = match kind {
                // Passed-pawn span: own and adjacent files, ahead.
                0 => (file_mask(f) | adjacent_files_mask(f)) & ahead_mask(r, white),
                // Own file ahead.
                1 => file_mask(f) & ahead_mask(r, white),
                // King shelter: the next two ranks ahead over the king's and adjacent files.
                _ => {
                    let files = file_mask(f) | adjacent_files_mask(f);
                    let mut ranks = 0u64;
                    let mut k = 1;
                    while k <= 2 {
                        let rr = if white { r as i32 + k } else { r as i32 - k };
                        if rr >= 0 && rr < 8 {
                            ranks |= 0xFFu64 << (8 * rr);
                        }
                        k += 1;
                    }
                    files & ranks
                }
            };
            sq += 1;
        }
        c += 1;
    }
    t
}

/// Indexed by colour (`Color as usize`: black 0, white 1) and square.
static PASSED_SPAN: [[u64; 64]; 2] = build_square_table(0);
static FRONT_FILE: [[u64; 64]; 2] = build_square_table(1);
static SHELTER: [[u64; 64]; 2] = build_square_table(2);

#[inline(always)]
fn bb(x: u64) -> Bitboard {
    Bitboard(x)
}

// ---------------------------------------------------------------------------------------------

/// Static evaluation from the side to move's point of view, in centipawns.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    let board = shakmaty::Position::board(pos.board());
    let (score, phase) = terms(board, pos.turn(), None);
    finish(board, pos.turn(), score, phase)
}

/// [`evaluate`] with a pawn-structure cache (what the search uses).
#[inline]
pub(crate) fn evaluate_cached(pos: &Position, cache: &mut PawnCache) -> i32 {
    let board = shakmaty::Position::board(pos.board());
    let (score, phase) = terms(board, pos.turn(), Some((cache, pos.pawn_key())));
    finish(board, pos.turn(), score, phase)
}

/// The pawn-only terms of a pawn structure and its passed pawns.
#[derive(Debug, Clone, Copy, Default)]
struct PawnEntry {
    key: u64,
    score: S,
    /// Passed pawns, indexed by `Color as usize`.
    passed: [Bitboard; 2],
}

/// Per-thread cache of pawn-structure evaluations, indexed by the pawn key.
pub(crate) struct PawnCache {
    entries: Vec<PawnEntry>,
}

const PAWN_CACHE_SIZE: usize = 8192;

impl Default for PawnCache {
    fn default() -> Self {
        PawnCache {
            entries: vec![PawnEntry::default(); PAWN_CACHE_SIZE],
        }
    }
}

impl PawnCache {
    pub fn clear(&mut self) {
        self.entries.fill(PawnEntry::default());
    }
}

/// Game phase, 0 (bare kings and pawns) to [`MAX_PHASE`] (all pieces).
pub(crate) fn phase(board: &Board) -> i32 {
    let p = board.knights().count() as i32 * PHASE_WEIGHTS[1]
        + board.bishops().count() as i32 * PHASE_WEIGHTS[2]
        + board.rooks().count() as i32 * PHASE_WEIGHTS[3]
        + board.queens().count() as i32 * PHASE_WEIGHTS[4];
    p.min(MAX_PHASE)
}

/// Blends the midgame and endgame sums (White's view) into the side to move's score.
#[inline]
pub(crate) fn finish(board: &Board, turn: Color, score: S, phase: i32) -> i32 {
    let eg = score.eg * endgame_scale(board, score.eg) / 64;
    let tapered = (score.mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    match turn {
        Color::White => tapered,
        Color::Black => -tapered,
    }
}

/// White's midgame and endgame sums.
struct Acc {
    score: S,
}

impl Acc {
    #[inline(always)]
    fn add(&mut self, color: Color, term: usize, count: i32) {
        let v = WEIGHTS[term] * count;
        if color == Color::White {
            self.score += v;
        } else {
            self.score -= v;
        }
    }
}

#[inline(always)]
fn relative(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

#[inline(always)]
fn pawn_attacks_of(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(shakmaty::File::A);
    let not_h = !Bitboard::from_file(shakmaty::File::H);
    match color {
        Color::White => ((pawns & not_a).shift(7)) | ((pawns & not_h).shift(9)),
        Color::Black => ((pawns & not_a).shift(-9)) | ((pawns & not_h).shift(-7)),
    }
}

/// Attacks of one side, gathered while counting mobility.
#[derive(Default, Clone, Copy)]
struct Attacks {
    all: Bitboard,
    pawns: Bitboard,
    minors: Bitboard,
    rooks: Bitboard,
}

/// Pawn-only terms (isolated, doubled, connected, passed by rank) of one side; returns its
/// passed pawns.
#[inline(always)]
fn pawn_terms(acc: &mut Acc, board: &Board, color: Color) -> Bitboard {
    let c = color as usize;
    let our_pawns = board.pawns() & board.by_color(color);
    let their_pawns = board.pawns() & board.by_color(!color);
    let mut passed_pawns = Bitboard(0);
    for sq in our_pawns {
        let f = sq.file() as usize;
        let rank = relative(color, sq) / 8;
        if our_pawns.0 & adjacent_files_mask(f) == 0 {
            acc.add(color, ISOLATED_PAWN, 1);
        }
        let neighbours = Bitboard::from_square(sq).shift(1) | Bitboard::from_square(sq).shift(-1);
        let phalanx = neighbours & our_pawns & Bitboard::from_rank(sq.rank());
        let defended = attacks::pawn_attacks(!color, sq) & our_pawns;
        if (phalanx | defended).any() {
            acc.add(color, CONNECTED_PAWN + rank, 1);
        }
        if PASSED_SPAN[c][sq as usize] & their_pawns.0 == 0
            && FRONT_FILE[c][sq as usize] & our_pawns.0 == 0
        {
            acc.add(color, PASSED_PAWN + rank, 1);
            passed_pawns |= Bitboard::from_square(sq);
        }
    }
    for f in 0..8 {
        let n = (our_pawns.0 & file_mask(f)).count_ones() as i32;
        if n > 1 {
            acc.add(color, DOUBLED_PAWN, n - 1);
        }
    }
    passed_pawns
}

/// The linear part (White's sums) and the phase, optionally with a pawn cache and the
/// position's pawn key.
#[inline(always)]
fn terms(board: &Board, turn: Color, cache: Option<(&mut PawnCache, u64)>) -> (S, i32) {
    let mut acc = Acc {
        score: S::default(),
    };
    // Pawn structure, from the cache when there is one.
    let passed = match cache {
        Some((cache, key)) => {
            let slot = &mut cache.entries[key as usize % PAWN_CACHE_SIZE];
            if slot.key != key || key == 0 {
                let mut local = Acc {
                    score: S::default(),
                };
                let passed = ByColor::new_with(|c| pawn_terms(&mut local, board, c));
                *slot = PawnEntry {
                    key,
                    score: local.score,
                    passed: [passed.black, passed.white],
                };
            }
            acc.score += slot.score;
            slot.passed
        }
        None => {
            let passed = ByColor::new_with(|c| pawn_terms(&mut acc, board, c));
            [passed.black, passed.white]
        }
    };
    let occupied = board.occupied();
    let pawn_attacks = ByColor::new_with(|c| pawn_attacks_of(c, board.pawns() & board.by_color(c)));
    let mut attacks_of = ByColor::new_with(|c| Attacks {
        all: *pawn_attacks.get(c) | board.king_of(c).map_or(Bitboard(0), attacks::king_attacks),
        pawns: *pawn_attacks.get(c),
        ..Attacks::default()
    });

    for color in Color::ALL {
        let us = board.by_color(color);
        let them = !color;
        let our_pawns = board.pawns() & us;
        let their_pawns = board.pawns() & board.by_color(them);
        let mobility_area = !(us | *pawn_attacks.get(them));
        let king_zone = board.king_of(them).map_or(Bitboard(0), |k| {
            attacks::king_attacks(k)
                | Bitboard::from_square(k)
                | bb(SHELTER[them as usize][k as usize])
        });
        let mut attack_units = 0;
        let mut seen = attacks_of.get(color).to_owned();

        for role in Role::ALL {
            let ri = role as usize - 1;
            for sq in board.by_role(role) & us {
                acc.add(color, MATERIAL + ri, 1);
                acc.add(color, PST + ri * 64 + relative(color, sq), 1);
                let (att, base) = match role {
                    Role::Knight => (attacks::knight_attacks(sq), MOB_KNIGHT),
                    Role::Bishop => (attacks::bishop_attacks(sq, occupied), MOB_BISHOP),
                    Role::Rook => (attacks::rook_attacks(sq, occupied), MOB_ROOK),
                    Role::Queen => (attacks::queen_attacks(sq, occupied), MOB_QUEEN),
                    Role::Pawn | Role::King => continue,
                };
                acc.add(color, base + (att & mobility_area).count(), 1);
                seen.all |= att;
                match role {
                    Role::Knight | Role::Bishop => seen.minors |= att,
                    Role::Rook => seen.rooks |= att,
                    _ => {}
                }
                let hits = (att & king_zone).count() as i32;
                if hits > 0 {
                    attack_units += KING_ATTACK_UNITS[ri] * hits.min(3);
                }
                if role == Role::Rook {
                    let file = Bitboard::from_file(sq.file());
                    if (file & our_pawns).is_empty() {
                        let term = if (file & their_pawns).is_empty() {
                            ROOK_OPEN_FILE
                        } else {
                            ROOK_SEMI_OPEN_FILE
                        };
                        acc.add(color, term, 1);
                    }
                }
            }
        }
        *attacks_of.get_mut(color) = seen;
        if attack_units > 0 {
            let idx = (attack_units as usize).min(KING_DANGER_SIZE - 1);
            acc.add(color, KING_DANGER + idx, 1);
        }
        if (board.bishops() & us).more_than_one() {
            acc.add(color, BISHOP_PAIR, 1);
        }

        // Passed pawns: king distances to the square in front, and blockers.
        let c = color as usize;
        let our_king = board.king_of(color);
        let their_king = board.king_of(them);
        for sq in passed[c] {
            let front = match color {
                Color::White => sq.offset(8),
                Color::Black => sq.offset(-8),
            };
            if let Some(front) = front {
                if let Some(k) = our_king {
                    acc.add(color, PASSED_OWN_KING + k.distance(front) as usize, 1);
                }
                if let Some(k) = their_king {
                    acc.add(color, PASSED_THEIR_KING + k.distance(front) as usize, 1);
                }
                if occupied.contains(front) {
                    acc.add(color, PASSED_BLOCKED, 1);
                }
            }
        }

        // Pawn shelter in front of our king.
        if let Some(k) = our_king {
            let shelter = (bb(SHELTER[c][k as usize]) & our_pawns).count().min(3);
            acc.add(color, KING_SHELTER + shelter, 1);
        }
    }

    // Threats, now that both sides' attacks are known.
    for color in Color::ALL {
        let them = board.by_color(!color);
        let ours = attacks_of.get(color);
        let theirs = attacks_of.get(!color);
        for role in [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            let victims = them & board.by_role(role);
            let ri = role as usize - 1;
            let n = (victims & ours.pawns).count() as i32;
            if n > 0 {
                acc.add(color, THREAT_BY_PAWN + ri, n);
            }
            let n = (victims & ours.minors).count() as i32;
            if n > 0 && role != Role::Knight && role != Role::Bishop {
                acc.add(color, THREAT_BY_MINOR + ri, n);
            }
            let n = (victims & ours.rooks).count() as i32;
            if n > 0 && role == Role::Queen {
                acc.add(color, THREAT_BY_ROOK + ri, n);
            }
        }
        let hanging = them & !board.pawns() & !board.kings() & ours.all & !theirs.all;
        let n = hanging.count() as i32;
        if n > 0 {
            acc.add(color, HANGING, n);
        }
    }

    acc.add(turn, TEMPO, 1);
    (acc.score, phase(board))
}

/// Endgame scale in 64ths: drawish material gets less.
pub(crate) fn endgame_scale(board: &Board, eg: i32) -> i32 {
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

    const FENS: &[&str] = &[
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
        "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
        "4r1k1/1q3ppp/p7/1p6/3Q4/1P5P/P4PP1/4R1K1 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];

    #[test]
    fn evaluation_is_colour_symmetric() {
        for fen in FENS {
            assert_eq!(eval_fen(fen), eval_fen(&mirror(fen)), "{fen}");
        }
    }

    #[test]
    fn cached_evaluation_is_the_same() {
        let mut cache = PawnCache::default();
        for _ in 0..2 {
            for fen in FENS {
                let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                assert_eq!(evaluate_cached(&pos, &mut cache), evaluate(&pos), "{fen}");
            }
        }
    }

    #[test]
    fn material_matters() {
        let up_queen = eval_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(up_queen > 700, "{up_queen}");
        let start = eval_fen(crate::position::START_FEN);
        assert!(start.abs() < 40, "{start}");
    }

    #[test]
    fn lone_minor_is_scaled_to_a_draw() {
        // Only the midgame part (one phase unit of 24) survives the endgame scale of 0.
        assert!(eval_fen("8/8/4k3/8/8/3NK3/8/8 w - - 0 1").abs() < 25);
        assert!(eval_fen("8/8/4k3/8/8/3RK3/8/8 w - - 0 1") > 400);
    }

    #[test]
    fn masks() {
        // White pawn on e4: its passed span is d5-f8.
        let span = Bitboard(PASSED_SPAN[Color::White as usize][Square::E4 as usize]);
        assert!(span.contains(Square::D5) && span.contains(Square::F8));
        assert!(!span.contains(Square::E4) && !span.contains(Square::C5));
        // Black king on g8: shelter on f7-h6.
        let shelter = Bitboard(SHELTER[Color::Black as usize][Square::G8 as usize]);
        assert_eq!(shelter.count(), 6);
        assert!(shelter.contains(Square::H6) && !shelter.contains(Square::G8));
    }
}
