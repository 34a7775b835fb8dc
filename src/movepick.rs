//! Staged move picker: TT move, good captures (by SEE, victim value and capture history),
//! killers, counter move, quiets by history, bad captures.
//!
//! Moves are generated in stages (`movegen.rs`), after the TT move has been tried: the legal
//! captures and queen promotions ("noisy" moves) first, the quiet moves only when the picker
//! reaches them, so a cutoff by the TT move or a capture never generates the quiets. In check
//! all legal evasions are generated at once.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Move, MoveList, Role};

use crate::history::{Histories, QuietKeys};
use crate::movegen::CheckInfo;
use crate::moves::Move16;
use crate::position::Position;
use crate::see;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    TtMove,
    Generate,
    GoodNoisy,
    GenerateQuiets,
    Killer1,
    Killer2,
    Counter,
    ScoreQuiets,
    Quiets,
    BadNoisy,
    Done,
}

/// Captures and queen promotions.
#[inline]
pub(crate) fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.promotion() == Some(Role::Queen)
}

/// Ordering score of a noisy move: victim first, then capture history.
#[inline]
pub(crate) fn noisy_score(pos: &Position, hist: &Histories, m: Move) -> i32 {
    let victim = match m {
        Move::EnPassant { .. } => see::value(Role::Pawn),
        _ => m.capture().map_or(0, see::value),
    };
    let promo = if m.promotion() == Some(Role::Queen) {
        see::value(Role::Queen)
    } else {
        0
    };
    (victim + promo) * 16 + hist.capture(pos.turn(), m) / 8
}

/// History score of a quiet move ([`Histories::quiet`]), under-promotions last.
#[inline]
pub(crate) fn quiet_score(pos: &Position, hist: &Histories, keys: &QuietKeys, m: Move) -> i32 {
    let mut score = hist.quiet(pos.turn(), m, keys);
    if m.is_promotion() {
        // Under-promotions last.
        score -= 100_000;
    }
    score
}

/// Ordering term of a quiet move by the threats of cheaper pieces (`lesser`, from
/// [`Position::lesser_threats`]): a minor piece attacked by a pawn, a rook by a pawn or minor,
/// a queen by anything but a queen or king that moves to a square out of such reach gains
/// `base` times its weight (minor 1, rook 1.5, queen 3); one that stands safe and moves into
/// such reach loses as much. Pawns and the king: 0.
#[inline]
pub(crate) fn escape_score(m: Move, lesser: &[Bitboard; 3], base: i32) -> i32 {
    let (reach, half_weight) = match m.role() {
        Role::Knight | Role::Bishop => (lesser[0], 2),
        Role::Rook => (lesser[1], 3),
        Role::Queen => (lesser[2], 6),
        Role::Pawn | Role::King => return 0,
    };
    let from = m.from().is_some_and(|s| reach.contains(s));
    match (from, reach.contains(m.to())) {
        (true, false) => base * half_weight / 2,
        (false, true) => -(base * half_weight / 2),
        _ => 0,
    }
}

pub(crate) struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    killer16: [Move16; 2],
    counter16: Move16,
    keys: QuietKeys,
    moves: MoveList,
    /// Scores of `moves[..scores.len()]` (noisy moves first, quiets once reached).
    scores: ArrayVec<i32, 256>,
    noisy_end: usize,
    bad_end: usize,
    idx: usize,
    /// Only noisy moves (quiescence search not in check).
    noisy_only: bool,
    skip_quiets: bool,
    /// Evasions come from the full generator, split afterwards.
    in_check: bool,
    /// The node's check squares, to find the checking quiets once quiets are skipped.
    check_info: Option<CheckInfo>,
    /// `ORDER_ESCAPE_BASE`: the ordering bonus of a quiet that takes a piece out of a cheaper
    /// attacker's reach (0: off, and the threats are not computed).
    escape_base: i32,
}

impl MovePicker {
    /// Picker for the main search. `tt_move` must be legal in the position.
    pub fn new(
        tt_move: Option<Move>,
        killers: [Move16; 2],
        counter: Move16,
        keys: QuietKeys,
        in_check: bool,
    ) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers: [None; 2],
            counter: None,
            killer16: killers,
            counter16: counter,
            keys,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            noisy_end: 0,
            bad_end: 0,
            idx: 0,
            noisy_only: false,
            skip_quiets: false,
            in_check,
            check_info: None,
            escape_base: 0,
        }
    }

    /// Score quiets also by the threats of cheaper pieces (`ORDER_ESCAPE_BASE`, see
    /// [`escape_score`]); 0 leaves the history order alone.
    pub(crate) fn set_escape_base(&mut self, base: i32) {
        self.escape_base = base;
    }

    /// Picker for the quiescence search: noisy moves only, unless in check (all evasions).
    pub(crate) fn new_qsearch(tt_move: Option<Move>, in_check: bool, keys: QuietKeys) -> Self {
        let tt_move = tt_move.filter(|&m| in_check || is_noisy(m));
        let mut mp = MovePicker::new(tt_move, [Move16::NONE; 2], Move16::NONE, keys, in_check);
        mp.noisy_only = !in_check;
        mp
    }

    /// Picker for the first quiescence ply not in check with quiet checks on: noisy moves,
    /// then the quiet moves that give check (found with the node's `check_info`).
    pub(crate) fn new_qsearch_checks(
        tt_move: Option<Move>,
        keys: QuietKeys,
        check_info: Option<CheckInfo>,
    ) -> Self {
        let tt_move = tt_move.filter(|&m| is_noisy(m));
        let mut mp = MovePicker::new(tt_move, [Move16::NONE; 2], Move16::NONE, keys, false);
        mp.skip_quiets(check_info);
        mp
    }

    /// Stop returning quiet moves (late move pruning), except those that give check (found
    /// with the node's `check_info` where given); captures still come.
    pub(crate) fn skip_quiets(&mut self, check_info: Option<CheckInfo>) {
        self.skip_quiets = true;
        self.check_info = check_info;
    }

    /// Noisy moves first (all legal moves when in check, split noisy-first).
    fn generate(&mut self, pos: &Position, hist: &Histories) {
        self.moves.clear();
        if self.in_check {
            self.moves = pos.legal_moves();
            let mut n = 0;
            for i in 0..self.moves.len() {
                if is_noisy(self.moves[i]) {
                    self.moves.swap(i, n);
                    n += 1;
                }
            }
            self.noisy_end = n;
        } else {
            pos.noisy_moves(&mut self.moves);
            self.noisy_end = self.moves.len();
        }
        self.scores.clear();
        for &m in &self.moves[..self.noisy_end] {
            self.scores.push(noisy_score(pos, hist, m));
        }
        self.idx = 0;
        self.bad_end = 0;
    }

    /// Quiet moves (already there when in check); then the killers and the counter move,
    /// kept only if they are legal quiet moves here.
    fn generate_quiets(&mut self, pos: &Position) {
        if !self.in_check {
            pos.quiet_moves(&mut self.moves);
        }
        let board = pos.board();
        let quiets = &self.moves[self.noisy_end..];
        let find = |m16: Move16| -> Option<Move> {
            let m = m16.to_move(board)?;
            (!is_noisy(m) && quiets.contains(&m)).then_some(m)
        };
        let k0 = find(self.killer16[0]);
        let k1 = find(self.killer16[1]).filter(|&m| Some(m) != k0);
        let c = find(self.counter16).filter(|&m| Some(m) != k0 && Some(m) != k1);
        self.killers = [k0, k1];
        self.counter = c;
    }

    /// Index of the best-scored move in `[from, to)`.
    /// Ties go to the earliest. One slice, so the scan has no bounds checks.
    fn best_index(&self, from: usize, to: usize) -> usize {
        let Some((&first, rest)) = self.scores[from..to].split_first() else {
            return from;
        };
        let (mut best, mut best_score) = (0, first);
        for (i, &score) in rest.iter().enumerate() {
            if score > best_score {
                (best, best_score) = (i + 1, score);
            }
        }
        from + best
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.moves.swap(a, b);
        self.scores.swap(a, b);
    }

    fn is_special(&self, m: Move) -> bool {
        Some(m) == self.tt_move
            || Some(m) == self.killers[0]
            || Some(m) == self.killers[1]
            || Some(m) == self.counter
    }

    /// The next move to search, or `None` when all are done.
    pub fn next(&mut self, pos: &Position, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::Generate => {
                    self.generate(pos, hist);
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.idx >= self.noisy_end {
                        if self.noisy_only {
                            self.stage = Stage::BadNoisy;
                            self.idx = 0;
                        } else {
                            self.stage = Stage::GenerateQuiets;
                        }
                        continue;
                    }
                    let best = self.best_index(self.idx, self.noisy_end);
                    self.swap(self.idx, best);
                    let m = self.moves[self.idx];
                    if Some(m) == self.tt_move {
                        self.idx += 1;
                        continue;
                    }
                    if !see::see_ge(pos.board(), m, 0) {
                        // Keep it for the bad-capture stage, in score order.
                        self.swap(self.idx, self.bad_end);
                        self.bad_end += 1;
                        self.idx += 1;
                        continue;
                    }
                    self.idx += 1;
                    return Some(m);
                }
                Stage::GenerateQuiets => {
                    self.stage = Stage::Killer1;
                    self.generate_quiets(pos);
                }
                Stage::Killer1 | Stage::Killer2 | Stage::Counter => {
                    let m = match self.stage {
                        Stage::Killer1 => self.killers[0],
                        Stage::Killer2 => self.killers[1],
                        _ => self.counter,
                    };
                    self.stage = match self.stage {
                        Stage::Killer1 => Stage::Killer2,
                        Stage::Killer2 => Stage::Counter,
                        _ => Stage::ScoreQuiets,
                    };
                    if let Some(m) = m.filter(|&m| Some(m) != self.tt_move)
                        && (!self.skip_quiets || pos.gives_check_with(self.check_info.as_ref(), m))
                    {
                        return Some(m);
                    }
                }
                Stage::ScoreQuiets => {
                    self.stage = Stage::Quiets;
                    self.idx = self.noisy_end;
                    if !self.skip_quiets {
                        let lesser = (self.escape_base != 0).then(|| pos.lesser_threats());
                        for &m in &self.moves[self.noisy_end..] {
                            let mut score = quiet_score(pos, hist, &self.keys, m);
                            if let Some(lesser) = &lesser {
                                score += escape_score(m, lesser, self.escape_base);
                            }
                            self.scores.push(score);
                        }
                    }
                }
                Stage::Quiets => {
                    if self.idx >= self.moves.len() {
                        self.stage = Stage::BadNoisy;
                        self.idx = 0;
                        continue;
                    }
                    if self.skip_quiets {
                        // Only checking quiets from here on, in list order.
                        let m = self.moves[self.idx];
                        self.idx += 1;
                        // Most quiets give no check: ask that first.
                        if pos.gives_check_with(self.check_info.as_ref(), m) && !self.is_special(m)
                        {
                            return Some(m);
                        }
                        continue;
                    }
                    let best = self.best_index(self.idx, self.moves.len());
                    self.swap(self.idx, best);
                    let m = self.moves[self.idx];
                    self.idx += 1;
                    if !self.is_special(m) {
                        return Some(m);
                    }
                }
                Stage::BadNoisy => {
                    if self.idx < self.bad_end {
                        let m = self.moves[self.idx];
                        self.idx += 1;
                        if Some(m) != self.tt_move {
                            return Some(m);
                        }
                        continue;
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::PieceTo;
    use shakmaty::CastlingMode;
    use std::collections::HashSet;

    fn all_moves(mp: &mut MovePicker, pos: &Position, hist: &Histories) -> Vec<Move> {
        let mut out = Vec::new();
        while let Some(m) = mp.next(pos, hist) {
            out.push(m);
        }
        out
    }

    /// A main-search picker with no TT move, killers, counter move or history keys.
    fn bare_picker() -> MovePicker {
        MovePicker::new(
            None,
            [Move16::NONE; 2],
            Move16::NONE,
            QuietKeys::default(),
            false,
        )
    }

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn quiet_score_adds_every_key() {
        let pos = Position::from_fen(KIWIPETE, CastlingMode::Standard).unwrap();
        let turn = pos.turn();
        let m = pos.parse_uci_move("a2a3").unwrap();
        let pt = PieceTo::of(turn, m);
        let prev = [
            PieceTo::new(shakmaty::Color::Black, Role::Knight, shakmaty::Square::D5),
            PieceTo::new(shakmaty::Color::White, Role::Bishop, shakmaty::Square::D2),
            PieceTo::new(shakmaty::Color::White, Role::Queen, shakmaty::Square::F3),
        ];
        // The to-square attacked: butterfly set 1.
        let threats = Bitboard::from_square(shakmaty::Square::A3);
        let slot = QuietKeys::pawn_slot(pos.pawn_key());
        let all = QuietKeys {
            cont: prev.map(Some),
            threats,
            pawn: Some(slot),
        };
        // Each table learns a different amount (a first bonus is taken whole), so the sum
        // tells which were read.
        let mut hist = Histories::default();
        hist.update_continuation(Some(prev[0]), pt, 100);
        hist.update_continuation(Some(prev[1]), pt, 20);
        hist.update_continuation(Some(prev[2]), pt, 3);
        hist.update_butterfly(turn, m, threats, 1000);
        hist.update_pawn(turn, m, slot, 4000);
        assert_eq!(quiet_score(&pos, &hist, &all, m), 5123);
        // A key that is off (HIST_CONT4, HIST_THREATS, HIST_PAWN) adds nothing of its table.
        let mut off = all;
        off.cont[2] = None;
        assert_eq!(quiet_score(&pos, &hist, &off, m), 5120);
        off.threats = Bitboard::EMPTY;
        assert_eq!(quiet_score(&pos, &hist, &off, m), 4120);
        off.pawn = None;
        assert_eq!(quiet_score(&pos, &hist, &off, m), 120);
        // An update reaches every table its keys name, and no other.
        let mut hist = Histories::default();
        hist.update_quiet(turn, m, &all, 500);
        assert_eq!(hist.quiet(turn, m, &all), 5 * 500);
        assert_eq!(hist.quiet(turn, m, &QuietKeys::default()), 0);
    }

    #[test]
    fn every_legal_move_exactly_once() {
        let pos = Position::from_fen(KIWIPETE, CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let legal: HashSet<Move> = pos.legal_moves().into_iter().collect();
        let tt = pos.parse_uci_move("e2a6").unwrap();
        let killer = Move16::from_move(pos.parse_uci_move("a2a3").unwrap());
        let bogus_killer = Move16::from_move(pos.parse_uci_move("e5f7").unwrap());
        let mut mp = MovePicker::new(
            Some(tt),
            [killer, bogus_killer],
            killer,
            QuietKeys::default(),
            false,
        );
        let got = all_moves(&mut mp, &pos, &hist);
        assert_eq!(got[0], tt);
        assert_eq!(got.len(), legal.len());
        assert_eq!(got.iter().copied().collect::<HashSet<_>>(), legal);
    }

    #[test]
    fn good_captures_before_quiets_before_bad_captures() {
        let pos = Position::from_fen(KIWIPETE, CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let mut mp = bare_picker();
        let got = all_moves(&mut mp, &pos, &hist);
        let kind = |m: Move| {
            if !is_noisy(m) {
                1
            } else if see::see_ge(pos.board(), m, 0) {
                0
            } else {
                2
            }
        };
        let kinds: Vec<i32> = got.iter().map(|&m| kind(m)).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted);
        assert!(kinds.contains(&2), "Kiwipete has losing captures");
    }

    #[test]
    fn qsearch_returns_only_noisy_moves_unless_in_check() {
        let pos = Position::from_fen(KIWIPETE, CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let mut mp = MovePicker::new_qsearch(None, false, QuietKeys::default());
        let got = all_moves(&mut mp, &pos, &hist);
        assert!(got.iter().all(|&m| is_noisy(m)));
        assert_eq!(
            got.len(),
            pos.legal_moves().iter().filter(|&&m| is_noisy(m)).count()
        );

        let check =
            Position::from_fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", CastlingMode::Standard).unwrap();
        let mut mp = MovePicker::new_qsearch(None, true, QuietKeys::default());
        assert_eq!(
            all_moves(&mut mp, &check, &hist).len(),
            check.legal_moves().len()
        );
    }

    #[test]
    fn qsearch_checks_returns_noisy_moves_and_exactly_the_quiet_checks() {
        let hist = Histories::default();
        for fen in [
            // Direct quiet checks by the a1 rook and the knight, discovered ones by the
            // knight in front of the e1 rook.
            "4k3/8/2p5/8/4N3/8/1B6/R3RK2 w - - 0 1",
            // Castling that checks (the general path).
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            // An under-promotion to a knight that checks (quiet: only queen promotions are
            // noisy).
            "8/5P2/4k3/8/8/8/8/4K3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let legal = pos.legal_moves();
            let want: HashSet<Move> = legal
                .iter()
                .copied()
                .filter(|&m| is_noisy(m) || pos.gives_check(m))
                .collect();
            assert!(
                want.iter().any(|&m| !is_noisy(m)),
                "{fen}: the position should have a quiet check"
            );
            let mut mp =
                MovePicker::new_qsearch_checks(None, QuietKeys::default(), pos.check_info());
            let got = all_moves(&mut mp, &pos, &hist);
            assert_eq!(got.len(), want.len(), "{fen}: a move twice or missing");
            assert_eq!(got.iter().copied().collect::<HashSet<_>>(), want, "{fen}");
        }
    }

    #[test]
    fn skip_quiets_keeps_captures() {
        let pos = Position::from_fen(KIWIPETE, CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let mut mp = bare_picker();
        mp.skip_quiets(None);
        let got = all_moves(&mut mp, &pos, &hist);
        assert!(got.iter().all(|&m| is_noisy(m)));
        assert_eq!(
            got.len(),
            pos.legal_moves().iter().filter(|&&m| is_noisy(m)).count()
        );
    }

    #[test]
    fn escape_score_rewards_leaving_and_punishes_entering_a_cheaper_attackers_reach() {
        use shakmaty::Square::*;
        let quiet = |role, from, to| Move::Normal {
            role,
            from,
            capture: None,
            to,
            promotion: None,
        };
        // A pawn attacks d4; a minor attacks d4 and e5; a rook also attacks f6.
        let lesser = [
            Bitboard::from_square(D4),
            Bitboard::from_square(D4) | Bitboard::from_square(E5),
            Bitboard::from_square(D4) | Bitboard::from_square(E5) | Bitboard::from_square(F6),
        ];
        let base = 1000;
        // Out of reach: minor 1x, rook 1.5x, queen 3x the base.
        assert_eq!(
            escape_score(quiet(Role::Knight, D4, B3), &lesser, base),
            1000
        );
        assert_eq!(escape_score(quiet(Role::Rook, E5, E1), &lesser, base), 1500);
        assert_eq!(
            escape_score(quiet(Role::Queen, F6, A1), &lesser, base),
            3000
        );
        // Into reach from safety: as much taken off.
        assert_eq!(
            escape_score(quiet(Role::Bishop, A1, D4), &lesser, base),
            -1000
        );
        assert_eq!(
            escape_score(quiet(Role::Queen, A1, F6), &lesser, base),
            -3000
        );
        // A rook on e5 is in a minor's reach, a knight there is not in a pawn's.
        assert_eq!(escape_score(quiet(Role::Knight, E5, C6), &lesser, base), 0);
        // Within reach to within reach, or a pawn or king move: nothing.
        assert_eq!(escape_score(quiet(Role::Rook, E5, D4), &lesser, base), 0);
        assert_eq!(escape_score(quiet(Role::Pawn, D4, D5), &lesser, base), 0);
        assert_eq!(escape_score(quiet(Role::King, E5, E6), &lesser, base), 0);
    }

    #[test]
    fn escape_base_orders_the_attacked_knights_flight_squares_first() {
        // The knight on e4 stands attacked by the pawn on d5; c3, c5, g3 and g5 are out of any
        // pawn's reach, d6 and f6 are not.
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4N3/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let quiets = |base: i32| -> Vec<String> {
            let mut mp = bare_picker();
            mp.set_escape_base(base);
            all_moves(&mut mp, &pos, &hist)
                .into_iter()
                .filter(|&m| !is_noisy(m))
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect()
        };
        let on = quiets(4096);
        let first: HashSet<&str> = on[..4].iter().map(String::as_str).collect();
        assert_eq!(
            first,
            HashSet::from(["e4c3", "e4c5", "e4g3", "e4g5"]),
            "{on:?}"
        );
        // Off, the same moves in another order (no history: generation order).
        let off = quiets(0);
        assert_ne!(off[..4], on[..4]);
        let (mut a, mut b) = (on.clone(), off.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}
