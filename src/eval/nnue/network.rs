//! The network: its constants and input layouts, the integer inference kernels, and the
//! accumulators the search updates along a line (the format is `file.rs`).

use arrayvec::ArrayVec;
use shakmaty::{Chess, Color, Piece, Position as _, Role, Square};

use crate::position::Position;

/// Board features of one king bucket: 2 colours (relative) x 6 piece types x 64 squares.
pub const INPUTS: usize = 768;
/// Scale of the feature weights and biases (and of the clipped activations).
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 64;
/// Centipawns per output unit.
pub const SCALE: i32 = 400;
/// Largest float weight the quantised formats hold: `QB * 1.98 < 127` keeps `v * w` (with
/// `v <= QA`) inside an i16, and 32 features of `QA * 1.98` inside the accumulator.
pub const WEIGHT_CLIP: f32 = 1.98;
/// Hidden sizes a net file may declare.
pub const MAX_HIDDEN: usize = 4096;
/// Output buckets a net file may declare.
pub const MAX_BUCKETS: usize = 8;

/// How a perspective's features are laid out (a net file says which its net was trained on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Piece, relative colour and square (mirrored vertically for Black).
    Plain,
    /// As `Plain`, flipped left to right when the viewer's king is on files e-h.
    Mirrored,
    /// As `Mirrored`, with four king buckets: a set of `INPUTS` features for each of four
    /// groups of the viewer's own king square ([`KINGS4`]).
    Kings4,
}

/// `Kings4`'s bucket of the viewer's king square, seen from the viewer (rank 1 its own back
/// rank) and flipped to files a-d: the back rank's corner files a-b (a king castled short,
/// g1 or h1, is seen on b1 or a1), the back rank's files c-d (a king at home, or castled
/// long), the second rank, and the rest of the board.
#[rustfmt::skip]
const KINGS4: [u8; 64] = [
    0, 0, 1, 1, 1, 1, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3,
];

/// How one perspective sees the board under a layout: flipped left to right or not, and in
/// which king bucket. A view's features change wholesale when this changes (its accumulator
/// is then rebuilt from scratch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Files a and h swapped (the viewer's king is on files e-h, in a mirrored layout).
    pub flip: bool,
    /// The king bucket: which of the layout's sets of `INPUTS` features this view uses.
    pub bucket: u8,
}

impl Layout {
    /// Every layout, in the order of their codes.
    pub const ALL: [Layout; 3] = [Layout::Plain, Layout::Mirrored, Layout::Kings4];

    /// The layout's number in net files.
    pub fn code(self) -> u32 {
        match self {
            Layout::Plain => 0,
            Layout::Mirrored => 1,
            Layout::Kings4 => 2,
        }
    }

    /// The layout of a file's layout code; `None` for an unknown code.
    pub fn from_code(code: u32) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.code() == code)
    }

    /// The layout's name in trainer flags and recipes.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Mirrored => "mirrored",
            Layout::Kings4 => "kings4",
        }
    }

    /// The layout of a name ([`Layout::name`]); `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether a view is flipped left to right when its king is on files e-h.
    pub fn mirrored(self) -> bool {
        self != Layout::Plain
    }

    /// King buckets: sets of `INPUTS` features, one of which a view uses at a time.
    pub fn king_buckets(self) -> usize {
        match self {
            Layout::Plain | Layout::Mirrored => 1,
            Layout::Kings4 => 4,
        }
    }

    /// Input features per perspective (rows of the feature transformer).
    pub fn inputs(self) -> usize {
        INPUTS * self.king_buckets()
    }

    /// `perspective`'s view of `board` (a board without that king: unflipped, bucket 0).
    #[inline]
    pub fn view(self, board: &Chess, perspective: Color) -> View {
        // Plain views never change: no king lookup on the search's every update.
        if self == Layout::Plain {
            return View::default();
        }
        let Some(king) = board.board().king_of(perspective) else {
            return View::default();
        };
        let flip = self.mirrored() && king.file() >= shakmaty::File::E;
        let bucket = match self {
            Layout::Plain | Layout::Mirrored => 0,
            Layout::Kings4 => KINGS4[relative(perspective, flip, king)],
        };
        View { flip, bucket }
    }
}

/// The output bucket of a board with `pieces` pieces (kings included) among `buckets`: the
/// piece counts 2..=32 in runs of `ceil(32 / buckets)` (with 8 buckets: 2-5, 6-9, ..., 30-32).
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    let run = 32usize.div_ceil(buckets.max(1));
    (pieces.saturating_sub(2) / run).min(buckets.saturating_sub(1))
}

/// `sq` as `perspective` sees it: mirrored vertically for Black, and left to right when
/// `flip`.
#[inline]
fn relative(perspective: Color, flip: bool, sq: Square) -> usize {
    let vertical = match perspective {
        Color::White => 0,
        Color::Black => 56,
    };
    sq as usize ^ vertical ^ if flip { 7 } else { 0 }
}

/// The input feature of `piece` on `sq`, seen from `perspective` in `view`
/// ([`Layout::view`]).
#[inline]
pub fn feature(perspective: Color, view: View, piece: Piece, sq: Square) -> usize {
    let theirs = usize::from(piece.color != perspective);
    usize::from(view.bucket) * INPUTS
        + theirs * 384
        + (piece.role as usize - 1) * 64
        + relative(perspective, view.flip, sq)
}

/// Every active feature of `board` from `perspective` in `layout`, for trainers.
pub fn features(
    board: &Chess,
    perspective: Color,
    layout: Layout,
) -> impl Iterator<Item = usize> + '_ {
    let b = board.board();
    let view = layout.view(board, perspective);
    b.occupied()
        .into_iter()
        .filter_map(move |sq| b.piece_at(sq).map(|p| feature(perspective, view, p, sq)))
}

/// A quantised network.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub(super) hidden: usize,
    pub(super) buckets: usize,
    pub(super) layout: Layout,
    /// Feature weights, `layout.inputs()` rows of `hidden`.
    pub(super) ft_weights: Vec<i16>,
    pub(super) ft_bias: Vec<i16>,
    /// Output weights per bucket: the side to move's `hidden`, then the other side's.
    pub(super) out_weights: Vec<i16>,
    /// Output bias per bucket.
    pub(super) out_bias: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({} -> {} x 2 -> 1, {} output bucket(s), {:?} inputs)",
            self.layout.inputs(),
            self.hidden,
            self.buckets,
            self.layout
        )
    }
}

impl Network {
    /// A network from quantised parts; an error when the sizes do not fit together.
    pub fn from_parts(
        hidden: usize,
        layout: Layout,
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: Vec<i32>,
    ) -> Result<Network, String> {
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!("hidden size {hidden} is outside 1..={MAX_HIDDEN}"));
        }
        let buckets = out_bias.len();
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!(
                "{buckets} output buckets, outside 1..={MAX_BUCKETS}"
            ));
        }
        if ft_weights.len() != layout.inputs() * hidden
            || ft_bias.len() != hidden
            || out_weights.len() != 2 * hidden * buckets
        {
            return Err("layer sizes do not match the hidden size".into());
        }
        Ok(Network {
            hidden,
            buckets,
            layout,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
        })
    }

    /// The quantised layers, in `from_parts`' order: feature weights, feature biases, output
    /// weights, output biases (a trainer starts from them).
    pub fn parts(&self) -> (&[i16], &[i16], &[i16], &[i32]) {
        (
            &self.ft_weights,
            &self.ft_bias,
            &self.out_weights,
            &self.out_bias,
        )
    }

    /// Neurons of the feature transformer (per perspective).
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Output buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Input layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    #[inline]
    fn row(&self, f: usize) -> &[i16] {
        &self.ft_weights[f * self.hidden..(f + 1) * self.hidden]
    }

    /// Both accumulators of `board` from scratch: `out[..H]` White's view, `out[H..]` Black's.
    fn refresh(&self, board: &Chess, out: &mut [i16]) {
        let (white, black) = out.split_at_mut(self.hidden);
        self.refresh_view(board, Color::White, white);
        self.refresh_view(board, Color::Black, black);
    }

    /// `perspective`'s accumulator of `board` from scratch.
    fn refresh_view(&self, board: &Chess, perspective: Color, out: &mut [i16]) {
        out.copy_from_slice(&self.ft_bias);
        let view = self.layout.view(board, perspective);
        let b = board.board();
        for sq in b.occupied() {
            if let Some(p) = b.piece_at(sq) {
                add(out, self.row(feature(perspective, view, p, sq)));
            }
        }
    }

    /// The output for the side to move's accumulator `us` and the other's `them` on `board`
    /// (which picks the output bucket), in centipawns from the side to move's view.
    #[inline]
    fn output(&self, board: &Chess, us: &[i16], them: &[i16]) -> i32 {
        let h = self.hidden;
        let bucket = output_bucket(board.board().occupied().count(), self.buckets);
        let w = &self.out_weights[bucket * 2 * h..(bucket + 1) * 2 * h];
        let sum = screlu_dot(us, &w[..h]) + screlu_dot(them, &w[h..]);
        let raw = sum / QA + self.out_bias[bucket];
        (i64::from(raw) * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// Evaluates `board` from scratch (the side to move's view, centipawns).
    pub fn evaluate(&self, board: &Chess) -> i32 {
        let mut acc = vec![0i16; 2 * self.hidden];
        self.refresh(board, &mut acc);
        let (white, black) = acc.split_at(self.hidden);
        match board.turn() {
            Color::White => self.output(board, white, black),
            Color::Black => self.output(board, black, white),
        }
    }
}

// The three kernels below are written once, portably; on x86-64 each is also compiled with
// AVX2 enabled (the `avx2` module) and chosen at run time when the CPU has it. Integer
// arithmetic with wrapping throughout, so both versions give the same numbers (tested).

#[inline]
fn add(acc: &mut [i16], row: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `avx2::add` only enables AVX2, which the CPU has just been reported to have.
        return unsafe { avx2::add(acc, row) };
    }
    add_portable(acc, row);
}

#[inline]
fn sub(acc: &mut [i16], row: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `add`.
        return unsafe { avx2::sub(acc, row) };
    }
    sub_portable(acc, row);
}

#[inline]
fn screlu_dot(acc: &[i16], weights: &[i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `add`.
        return unsafe { avx2::screlu_dot(acc, weights) };
    }
    screlu_dot_portable(acc, weights)
}

#[inline]
fn add_sub(out: &mut [i16], parent: &[i16], a: &[i16], s: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `add`.
        return unsafe { avx2::add_sub(out, parent, a, s) };
    }
    add_sub_portable(out, parent, a, s);
}

#[inline]
fn add_sub2(out: &mut [i16], parent: &[i16], a: &[i16], s1: &[i16], s2: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `add`.
        return unsafe { avx2::add_sub2(out, parent, a, s1, s2) };
    }
    add_sub2_portable(out, parent, a, s1, s2);
}

#[inline]
fn add2_sub2(out: &mut [i16], parent: &[i16], adds: [&[i16]; 2], subs: [&[i16]; 2]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as in `add`.
        return unsafe { avx2::add2_sub2(out, parent, adds, subs) };
    }
    add2_sub2_portable(out, parent, adds, subs);
}

#[inline(always)]
fn add_portable(acc: &mut [i16], row: &[i16]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline(always)]
fn sub_portable(acc: &mut [i16], row: &[i16]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

/// `out = parent + a - s`, one pass over the memory instead of a copy and two updates (a
/// quiet move).
#[inline(always)]
fn add_sub_portable(out: &mut [i16], parent: &[i16], a: &[i16], s: &[i16]) {
    let n = out.len();
    let (parent, a, s) = (&parent[..n], &a[..n], &s[..n]);
    for i in 0..n {
        out[i] = parent[i].wrapping_add(a[i]).wrapping_sub(s[i]);
    }
}

/// `out = parent + a - s1 - s2` (a capture, en passant or a promotion that captures).
#[inline(always)]
fn add_sub2_portable(out: &mut [i16], parent: &[i16], a: &[i16], s1: &[i16], s2: &[i16]) {
    let n = out.len();
    let (parent, a, s1, s2) = (&parent[..n], &a[..n], &s1[..n], &s2[..n]);
    for i in 0..n {
        out[i] = parent[i]
            .wrapping_add(a[i])
            .wrapping_sub(s1[i])
            .wrapping_sub(s2[i]);
    }
}

/// `out = parent + a1 + a2 - s1 - s2` (castling).
#[inline(always)]
fn add2_sub2_portable(
    out: &mut [i16],
    parent: &[i16],
    [a1, a2]: [&[i16]; 2],
    [s1, s2]: [&[i16]; 2],
) {
    let n = out.len();
    let (parent, a1, a2, s1, s2) = (&parent[..n], &a1[..n], &a2[..n], &s1[..n], &s2[..n]);
    for i in 0..n {
        out[i] = parent[i]
            .wrapping_add(a1[i])
            .wrapping_add(a2[i])
            .wrapping_sub(s1[i])
            .wrapping_sub(s2[i]);
    }
}

/// `sum(clamp(a, 0, QA)^2 * w)`, computed as `(v * w) * v` so the first product stays in an
/// i16 (with `|w| <= 127`) and the loop vectorises as i16 multiplies into i32 sums.
#[inline(always)]
fn screlu_dot_portable(acc: &[i16], weights: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (a, w) in acc.iter().zip(weights) {
        let v = (*a).clamp(0, QA as i16);
        let vw = v.wrapping_mul(*w);
        sum = sum.wrapping_add(i32::from(vw) * i32::from(v));
    }
    sum
}

/// The portable kernels compiled with AVX2 enabled (the compiler vectorises them 16 lanes
/// wide instead of SSE2's 8).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub(super) fn add(acc: &mut [i16], row: &[i16]) {
        super::add_portable(acc, row);
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn sub(acc: &mut [i16], row: &[i16]) {
        super::sub_portable(acc, row);
    }

    /// The output's dot product, written with AVX2 intrinsics: left to itself the compiler
    /// vectorises the portable loop only 8 lanes wide here (its i32 sums fill the 256-bit
    /// registers before the i16 inputs do), where `vpmaddwd` on 256 bits takes 16 at a time.
    /// Same wrapping sums as the portable loop, in another order (tested).
    #[target_feature(enable = "avx2")]
    pub(super) fn screlu_dot(acc: &[i16], weights: &[i16]) -> i32 {
        use std::arch::x86_64::{
            __m256i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_shuffle_epi32, _mm256_add_epi32,
            _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
            _mm256_madd_epi16, _mm256_max_epi16, _mm256_min_epi16, _mm256_mullo_epi16,
            _mm256_set1_epi16, _mm256_setzero_si256,
        };
        const LANES: usize = 16;
        let n = acc.len().min(weights.len());
        let body = n - n % LANES;
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(super::QA as i16);
        let load = |chunk: &[i16]| -> __m256i {
            debug_assert_eq!(chunk.len(), LANES);
            // SAFETY: `chunk` is 16 i16s, the 32 bytes read; `loadu` needs no alignment.
            unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
        };
        let mut sum = _mm256_setzero_si256();
        for (a, w) in acc[..body]
            .chunks_exact(LANES)
            .zip(weights[..body].chunks_exact(LANES))
        {
            let v = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), top);
            let vw = _mm256_mullo_epi16(v, load(w));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        let half = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256::<1>(sum),
        );
        let quarter = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let one = _mm_add_epi32(quarter, _mm_shuffle_epi32::<0b10_11_00_01>(quarter));
        _mm_cvtsi128_si32(one)
            .wrapping_add(super::screlu_dot_portable(&acc[body..n], &weights[body..n]))
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn add_sub(out: &mut [i16], parent: &[i16], a: &[i16], s: &[i16]) {
        super::add_sub_portable(out, parent, a, s);
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn add_sub2(out: &mut [i16], parent: &[i16], a: &[i16], s1: &[i16], s2: &[i16]) {
        super::add_sub2_portable(out, parent, a, s1, s2);
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn add2_sub2(out: &mut [i16], parent: &[i16], adds: [&[i16]; 2], subs: [&[i16]; 2]) {
        super::add2_sub2_portable(out, parent, adds, subs);
    }
}

/// The search's accumulators, one pair per ply of the position's stack, each tagged with the
/// key of the board it was computed for.
#[derive(Default)]
pub(crate) struct AccumulatorStack {
    hidden: usize,
    values: Vec<i16>,
    keys: Vec<Option<u64>>,
}

/// An accumulator more than this many plies from an up-to-date ancestor is refreshed.
const MAX_UPDATE_CHAIN: usize = 16;

const PIECES: [Piece; 12] = {
    let mut out = [Piece {
        color: Color::White,
        role: Role::Pawn,
    }; 12];
    let roles = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    let mut i = 0;
    while i < 12 {
        out[i] = Piece {
            color: if i < 6 { Color::White } else { Color::Black },
            role: roles[i % 6],
        };
        i += 1;
    }
    out
};

impl AccumulatorStack {
    /// Forgets every accumulator (at the start of a search: the net may have changed).
    pub(crate) fn clear(&mut self) {
        self.keys.fill(None);
    }

    fn slot(&mut self, i: usize) -> &mut [i16] {
        let w = 2 * self.hidden;
        &mut self.values[i * w..(i + 1) * w]
    }

    /// The evaluation of `pos` from the side to move's view, updating the accumulators of
    /// every ply up to the current one that is not up to date.
    pub(crate) fn evaluate(&mut self, net: &Network, pos: &Position) -> i32 {
        let h = net.hidden();
        let depth = pos.stack_len();
        if self.hidden != h {
            self.hidden = h;
            self.values.clear();
            self.keys.clear();
        }
        if self.keys.len() < depth {
            self.keys.resize(depth, None);
            self.values.resize(depth * 2 * h, 0);
        }
        let top = depth - 1;
        let fresh = |s: &Self, i: usize| s.keys[i] == Some(pos.hash_at(i));
        let mut base = top;
        while !fresh(self, base) && base > 0 && top - base < MAX_UPDATE_CHAIN {
            base -= 1;
        }
        if !fresh(self, base) {
            base = top;
            net.refresh(
                pos.board_at(top),
                &mut self.values[top * 2 * h..(top + 1) * 2 * h],
            );
            self.keys[top] = Some(pos.hash_at(top));
        }
        for i in base + 1..=top {
            let w = 2 * h;
            let (before, rest) = self.values.split_at_mut(i * w);
            let parent = &before[(i - 1) * w..];
            let child = &mut rest[..w];
            apply_difference(net, pos.board_at(i - 1), pos.board_at(i), parent, child);
            self.keys[i] = Some(pos.hash_at(i));
        }
        let acc = self.slot(top);
        let (white, black) = acc.split_at(h);
        let board = pos.board_at(top);
        match pos.turn() {
            Color::White => net.output(board, white, black),
            Color::Black => net.output(board, black, white),
        }
    }
}

/// Room for the features one move adds, or removes, in one view: at most two (castling's
/// king and rook), with room to spare.
const MAX_CHANGES: usize = 4;

/// The features that left (`subs`) and arrived (`adds`) between two boards, for one view.
/// Consecutive boards of a game differ by one move, so at most [`MAX_CHANGES`] each way;
/// a bigger difference sets `overflow` and the view is refreshed instead.
#[derive(Default)]
struct Changes {
    adds: ArrayVec<usize, MAX_CHANGES>,
    subs: ArrayVec<usize, MAX_CHANGES>,
    overflow: bool,
}

impl Changes {
    fn add(&mut self, f: usize) {
        self.overflow |= self.adds.try_push(f).is_err();
    }

    fn sub(&mut self, f: usize) {
        self.overflow |= self.subs.try_push(f).is_err();
    }

    /// Writes `parent` with these changes applied into `out`: in one fused pass for the
    /// shapes of a quiet move, a capture and castling, and by a copy and one pass a feature
    /// otherwise (a null move changes nothing).
    fn apply(&self, net: &Network, parent: &[i16], out: &mut [i16]) {
        let (adds, subs) = (self.adds.as_slice(), self.subs.as_slice());
        match (adds, subs) {
            ([a], [s]) => add_sub(out, parent, net.row(*a), net.row(*s)),
            ([a], [s1, s2]) => add_sub2(out, parent, net.row(*a), net.row(*s1), net.row(*s2)),
            ([a1, a2], [s1, s2]) => add2_sub2(
                out,
                parent,
                [net.row(*a1), net.row(*a2)],
                [net.row(*s1), net.row(*s2)],
            ),
            _ => {
                out.copy_from_slice(parent);
                for &f in adds {
                    add(out, net.row(f));
                }
                for &f in subs {
                    sub(out, net.row(f));
                }
            }
        }
    }
}

/// Computes `child` (both views) from `parent`, the accumulators of the board `before`, for
/// the board `after`, by the pieces that left or arrived on each square; a view that changed
/// ([`Layout::view`]: its king crossed between files d and e in a mirrored layout, or into
/// another king bucket) is refreshed instead.
fn apply_difference(
    net: &Network,
    before: &Chess,
    after: &Chess,
    parent: &[i16],
    child: &mut [i16],
) {
    let h = net.hidden();
    let (white, black) = child.split_at_mut(h);
    let (white_parent, black_parent) = parent.split_at(h);
    let view = |c: Color| net.layout.view(after, c);
    let (white_view, black_view) = (view(Color::White), view(Color::Black));
    // A view that changed is rebuilt; the other takes the difference below.
    let white_moved = white_view != net.layout.view(before, Color::White);
    let black_moved = black_view != net.layout.view(before, Color::Black);
    let (mut white_changes, mut black_changes) = (Changes::default(), Changes::default());
    let (b0, b1) = (before.board(), after.board());
    for piece in PIECES {
        let old = b0.by_piece(piece);
        let new = b1.by_piece(piece);
        if old == new {
            continue;
        }
        for sq in old & !new {
            white_changes.sub(feature(Color::White, white_view, piece, sq));
            black_changes.sub(feature(Color::Black, black_view, piece, sq));
        }
        for sq in new & !old {
            white_changes.add(feature(Color::White, white_view, piece, sq));
            black_changes.add(feature(Color::Black, black_view, piece, sq));
        }
    }
    if white_moved || white_changes.overflow {
        net.refresh_view(after, Color::White, white);
    } else {
        white_changes.apply(net, white_parent, white);
    }
    if black_moved || black_changes.overflow {
        net.refresh_view(after, Color::Black, black);
    } else {
        black_changes.apply(net, black_parent, black);
    }
}

/// A network of small random weights with one output bucket, for tests (deterministic from
/// `seed`).
#[cfg(test)]
pub(crate) fn random_network(hidden: usize, seed: u64) -> Network {
    random_network_with(hidden, 1, Layout::Plain, seed)
}

/// As [`random_network`], with `buckets` output buckets and the input `layout`.
#[cfg(test)]
pub(crate) fn random_network_with(
    hidden: usize,
    buckets: usize,
    layout: Layout,
    seed: u64,
) -> Network {
    let mut x = seed | 1;
    let mut next = |range: i32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 33) as i32 % (2 * range + 1) - range) as i16
    };
    let ft_weights = (0..layout.inputs() * hidden).map(|_| next(300)).collect();
    let ft_bias = (0..hidden).map(|_| next(200)).collect();
    let out_weights = (0..2 * hidden * buckets).map(|_| next(120)).collect();
    let out_bias = (0..buckets).map(|_| i32::from(next(500))).collect();
    #[allow(clippy::unwrap_used)]
    Network::from_parts(hidden, layout, ft_weights, ft_bias, out_weights, out_bias).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    /// Positions of the perft suite (castling, en passant and promotions on the board).
    fn suite_positions() -> Vec<(String, CastlingMode)> {
        let text = include_str!("../../../tests/data/perftsuite.epd");
        let mut out: Vec<(String, CastlingMode)> = text
            .lines()
            .filter_map(|l| l.split(';').next())
            .map(|f| (f.trim().to_string(), CastlingMode::Standard))
            .collect();
        let frc = include_str!("../../../tests/data/frcperftsuite.epd");
        out.extend(
            frc.lines()
                .step_by(40)
                .filter_map(|l| l.split(';').next())
                .map(|f| (f.trim().to_string(), CastlingMode::Chess960)),
        );
        out
    }

    #[test]
    fn output_buckets_split_the_piece_counts_evenly() {
        assert_eq!(output_bucket(32, 1), 0);
        assert_eq!(output_bucket(2, 1), 0);
        let eight: Vec<usize> = (2..=32).map(|n| output_bucket(n, 8)).collect();
        assert_eq!(&eight[..4], &[0, 0, 0, 0]);
        assert_eq!(eight[4], 1);
        assert_eq!(*eight.last().unwrap(), 7);
        assert!(eight.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        for b in 1..=MAX_BUCKETS {
            assert_eq!(output_bucket(32, b), b - 1, "{b} buckets");
            assert_eq!(output_bucket(2, b), 0);
        }
    }

    #[test]
    fn incremental_accumulators_equal_a_refresh_along_random_walks() {
        for layout in Layout::ALL {
            walk_and_compare(layout);
        }
    }

    fn walk_and_compare(layout: Layout) {
        // Eight output buckets: the bucket follows the board as pieces come off.
        let net = random_network_with(32, 8, layout, 7);
        let mut stack = AccumulatorStack::default();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let (mut checked, mut bucket_changes) = (0, 0);
        for (fen, mode) in suite_positions() {
            let mut pos = Position::from_fen(&fen, mode).unwrap();
            pos.set_root();
            stack.clear();
            let mut buckets = [Color::White, Color::Black].map(|c| layout.view(pos.board(), c));
            for step in 0..24 {
                let now = [Color::White, Color::Black].map(|c| layout.view(pos.board(), c));
                bucket_changes += (0..2)
                    .filter(|&i| now[i].bucket != buckets[i].bucket)
                    .count();
                buckets = now;
                assert_eq!(
                    stack.evaluate(&net, &pos),
                    net.evaluate(pos.board()),
                    "{layout:?}: step {step} of a walk from {fen}: {}",
                    pos.fen()
                );
                checked += 1;
                let moves = pos.legal_moves();
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                // Now and then a null move, now and then a step back.
                if rng.is_multiple_of(11) && !pos.in_check() {
                    pos.make_null();
                } else if rng.is_multiple_of(7) && pos.search_ply() > 0 {
                    pos.unmake();
                } else if moves.is_empty() {
                    break;
                } else {
                    pos.make(moves[(rng >> 8) as usize % moves.len()]);
                }
            }
        }
        assert!(checked > 2000, "{checked}");
        // With king buckets, the walks must cross between them (a refresh on each crossing).
        if layout.king_buckets() > 1 {
            assert!(
                bucket_changes > 100,
                "{layout:?}: {bucket_changes} bucket changes"
            );
        }
    }

    #[test]
    fn a_position_and_its_colour_flipped_mirror_evaluate_the_same() {
        for layout in Layout::ALL {
            let net = random_network_with(16, 8, layout, 3);
            let mut compared = 0;
            for (fen, mode) in suite_positions().into_iter().take(60) {
                let pos = Position::from_fen(&fen, mode).unwrap();
                let board = pos.board().clone();
                let setup = board.to_setup(shakmaty::EnPassantMode::Always);
                let mut flipped = setup.clone();
                flipped.mirror();
                let Ok(mirror) = <Chess as shakmaty::FromSetup>::from_setup(flipped, mode) else {
                    continue;
                };
                assert_eq!(
                    net.evaluate(&board),
                    net.evaluate(&mirror),
                    "{layout:?} {fen}"
                );
                compared += 1;
            }
            assert!(compared >= 50, "only {compared} positions mirrored");
        }
    }

    /// The board flipped left to right (files a and h swapped), castling rights dropped.
    fn flip_files(board: &Chess) -> Option<Chess> {
        let mut setup = board.to_setup(shakmaty::EnPassantMode::Always);
        setup.board.flip_horizontal();
        setup.castling_rights = shakmaty::Bitboard::EMPTY;
        setup.ep_square = setup.ep_square.map(|sq| sq.flip_horizontal());
        <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard).ok()
    }

    #[test]
    fn the_mirrored_layouts_see_a_board_and_its_left_right_mirror_alike() {
        let mirrored = random_network_with(16, 8, Layout::Mirrored, 9);
        let kings = random_network_with(16, 8, Layout::Kings4, 9);
        let plain = random_network_with(16, 8, Layout::Plain, 9);
        let (mut compared, mut differ) = (0, 0);
        for (fen, mode) in suite_positions() {
            let Ok(pos) = Position::from_fen(&fen, mode) else {
                continue;
            };
            // A flip drops the castling rights (they are not features); compare two flips.
            let Some(board) = flip_files(pos.board()) else {
                continue;
            };
            let Some(flipped) = flip_files(&board) else {
                continue;
            };
            for net in [&mirrored, &kings] {
                assert_eq!(net.evaluate(&board), net.evaluate(&flipped), "{fen}");
            }
            differ += usize::from(plain.evaluate(&board) != plain.evaluate(&flipped));
            compared += 1;
        }
        assert!(compared >= 100, "only {compared} positions flipped");
        // The plain layout has no such symmetry (so the comparison above can fail).
        assert!(differ * 2 > compared, "{differ} of {compared}");
    }

    #[test]
    fn features_are_mirrored_for_black() {
        let wp = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let bk = Piece {
            color: Color::Black,
            role: Role::King,
        };
        let plain = View::default();
        let flipped = View {
            flip: true,
            bucket: 0,
        };
        assert_eq!(feature(Color::White, plain, wp, Square::E2), 12);
        assert_eq!(feature(Color::Black, plain, wp, Square::E2), 384 + 52);
        assert_eq!(feature(Color::Black, plain, bk, Square::E8), 5 * 64 + 4);
        assert_eq!(
            feature(Color::White, plain, bk, Square::E8),
            384 + 5 * 64 + 60
        );
        // Flipped left to right: e2 is seen on d2 (and by Black on d7).
        assert_eq!(feature(Color::White, flipped, wp, Square::E2), 11);
        assert_eq!(feature(Color::Black, flipped, wp, Square::E2), 384 + 51);
        // The flip follows the viewer's own king.
        let board = board("4k3/8/8/8/8/8/8/3K4 w - - 0 1");
        assert!(!Layout::Mirrored.view(&board, Color::White).flip);
        assert!(Layout::Mirrored.view(&board, Color::Black).flip);
        assert!(!Layout::Plain.view(&board, Color::Black).flip);
        for layout in Layout::ALL {
            assert_eq!(Layout::from_code(layout.code()), Some(layout));
            assert_eq!(Layout::from_name(layout.name()), Some(layout));
        }
        assert_eq!(Layout::from_code(3), None);
        assert_eq!(Layout::from_name("kings"), None);
    }

    fn board(fen: &str) -> Chess {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn king_buckets_follow_the_viewers_own_king() {
        let k4 = Layout::Kings4;
        let bucket = |fen: &str, c: Color| k4.view(&board(fen), c).bucket;
        // Castled short (g1, and g8 for Black, seen from its own side) and long; at home.
        let castled = "2kr4/8/8/8/8/8/8/6K1 w - - 0 1";
        assert_eq!(bucket(castled, Color::White), 0);
        assert_eq!(bucket(castled, Color::Black), 1);
        assert_eq!(bucket("4k3/8/8/8/8/8/8/4K3 w - - 0 1", Color::White), 1);
        assert_eq!(bucket("6k1/8/8/8/8/8/8/4K3 w - - 0 1", Color::Black), 0);
        // The second rank from each side, then the rest of the board.
        assert_eq!(bucket("8/4k3/8/8/8/8/3K4/8 w - - 0 1", Color::White), 2);
        assert_eq!(bucket("8/4k3/8/8/8/8/3K4/8 w - - 0 1", Color::Black), 2);
        assert_eq!(bucket("8/8/4k3/8/8/8/8/K7 w - - 0 1", Color::Black), 3);
        assert_eq!(bucket("8/8/4k3/8/8/8/8/K7 w - - 0 1", Color::White), 0);
        assert_eq!(bucket("k7/8/8/8/4K3/8/8/8 w - - 0 1", Color::White), 3);
        // The bucket picks the block of features: a pawn on e2 in bucket 3, flipped to d2.
        let wp = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let view = k4.view(&board("k7/8/8/8/4K3/8/8/8 w - - 0 1"), Color::White);
        assert_eq!(
            view,
            View {
                flip: true,
                bucket: 3
            }
        );
        assert_eq!(feature(Color::White, view, wp, Square::E2), 3 * INPUTS + 11);
        assert_eq!(k4.inputs(), 4 * INPUTS);
        assert_eq!(Layout::Mirrored.inputs(), INPUTS);
        // Every feature of every view stays inside the layout's inputs.
        for (fen, mode) in suite_positions() {
            let pos = Position::from_fen(&fen, mode).unwrap();
            for c in [Color::White, Color::Black] {
                assert!(
                    features(pos.board(), c, k4).all(|f| f < k4.inputs()),
                    "{fen}"
                );
            }
        }
    }

    #[test]
    fn a_difference_bigger_than_a_move_is_refreshed_correctly() {
        // Two unrelated boards differ by far more than MAX_CHANGES features a view: the
        // update must fall back to a refresh, not drop the changes it has no room for.
        let net = random_network(32, 3);
        let before = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let after = board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let mut parent = vec![0i16; 64];
        net.refresh(&before, &mut parent);
        let (mut child, mut want) = (vec![0i16; 64], vec![0i16; 64]);
        apply_difference(&net, &before, &after, &parent, &mut child);
        net.refresh(&after, &mut want);
        assert_eq!(child, want);
    }

    #[test]
    fn the_avx2_kernels_give_the_portable_numbers() {
        #[cfg(target_arch = "x86_64")]
        {
            if !std::arch::is_x86_feature_detected!("avx2") {
                eprintln!("no AVX2 on this CPU: only the portable kernels run here");
                return;
            }
            let net = random_network(200, 7);
            // Lengths that are and are not multiples of the vector width; values across the
            // clamp's range and beyond it, so wrapping and clamping are both exercised.
            for len in [1usize, 15, 16, 17, 31, 32, 33, 128, 200] {
                let acc: Vec<i16> = net.ft_weights[..len]
                    .iter()
                    .map(|w| w.wrapping_mul(7))
                    .collect();
                let row = &net.ft_weights[len..2 * len];
                let weights: Vec<i16> = row.iter().map(|w| w % 128).collect();
                // SAFETY: AVX2 was reported above.
                let fast = unsafe { avx2::screlu_dot(&acc, &weights) };
                assert_eq!(fast, screlu_dot_portable(&acc, &weights), "len {len}");
                let (mut a, mut b) = (acc.clone(), acc.clone());
                // SAFETY: as above.
                unsafe { avx2::add(&mut a, row) };
                add_portable(&mut b, row);
                assert_eq!(a, b, "add, len {len}");
                // SAFETY: as above.
                unsafe { avx2::sub(&mut a, row) };
                sub_portable(&mut b, row);
                assert_eq!(a, b, "sub, len {len}");
                assert_eq!(a, acc);
                // The fused kernels: against the portable ones and against the unfused
                // updates they replace.
                let rows: Vec<&[i16]> = (2..6)
                    .map(|k| &net.ft_weights[k * len..(k + 1) * len])
                    .collect();
                let unfused = |adds: &[&[i16]], subs: &[&[i16]]| {
                    let mut out = acc.clone();
                    adds.iter().for_each(|r| add_portable(&mut out, r));
                    subs.iter().for_each(|r| sub_portable(&mut out, r));
                    out
                };
                let (mut fast, mut slow) = (vec![0i16; len], vec![0i16; len]);
                // SAFETY: as above.
                unsafe { avx2::add_sub(&mut fast, &acc, rows[0], rows[1]) };
                add_sub_portable(&mut slow, &acc, rows[0], rows[1]);
                assert_eq!(fast, slow, "add_sub, len {len}");
                assert_eq!(fast, unfused(&rows[..1], &rows[1..2]), "add_sub, len {len}");
                // SAFETY: as above.
                unsafe { avx2::add_sub2(&mut fast, &acc, rows[0], rows[1], rows[2]) };
                add_sub2_portable(&mut slow, &acc, rows[0], rows[1], rows[2]);
                assert_eq!(fast, slow, "add_sub2, len {len}");
                assert_eq!(
                    fast,
                    unfused(&rows[..1], &rows[1..3]),
                    "add_sub2, len {len}"
                );
                let (adds, subs) = ([rows[0], rows[1]], [rows[2], rows[3]]);
                // SAFETY: as above.
                unsafe { avx2::add2_sub2(&mut fast, &acc, adds, subs) };
                add2_sub2_portable(&mut slow, &acc, adds, subs);
                assert_eq!(fast, slow, "add2_sub2, len {len}");
                assert_eq!(fast, unfused(&adds, &subs), "add2_sub2, len {len}");
            }
        }
    }
}
