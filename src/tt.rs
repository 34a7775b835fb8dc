//! The lockless transposition table shared by every search thread.
//!
//! Each slot is two `AtomicU64`: `key ^ data` and `data` (Hyatt and Mann's lockless hashing).
//! A probe accepts a slot only if `stored_key ^ data == key`: a slot torn by two racing writers
//! (key word of one write, data word of another) fails that check and is treated as empty, so
//! no thread ever uses an entry that was not written as a whole. Relaxed ordering suffices: the
//! XOR check is the guard, and nothing else is published through the table.
//!
//! Bit map of the data word (bit 0 is the least significant):
//!
//! ```text
//!  63      59 58 57 56 55      48 47             32 31             16 15              0
//! +----------+--+-----+----------+-----------------+-----------------+-----------------+
//! |generation|pv|bound|  depth   |   static eval   |      score      |      move       |
//! |  5 bits  |1 | 2   |  8 bits  |     i16         |      i16        |   Move16        |
//! +----------+--+-----+----------+-----------------+-----------------+-----------------+
//! ```
//!
//! Depth is stored with an offset so quiescence depths (<= 0) fit. Mate scores are stored relative
//! to the storing node (see [`crate::score::to_tt`]). Four slots form a 64-byte bucket, one cache
//! line; a key maps to a bucket by multiply-shift, so any table size works.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::moves::Move16;
use crate::score::{from_tt, to_tt};

const MOVE_SHIFT: u32 = 0;
const SCORE_SHIFT: u32 = 16;
const EVAL_SHIFT: u32 = 32;
const DEPTH_SHIFT: u32 = 48;
const BOUND_SHIFT: u32 = 56;
const PV_SHIFT: u32 = 58;
const GEN_SHIFT: u32 = 59;
const MASK16: u64 = 0xFFFF;
const DEPTH_MASK: u64 = 0xFF;
const BOUND_MASK: u64 = 0b11;
const GEN_MASK: u64 = 0b1_1111;
const GEN_CYCLE: u8 = 32;
/// A result of this search for the same position is kept against a non-exact one this many
/// plies shallower or more: a much shallower bound adds less than the deep one it would erase.
const KEEP_DEEPER_BY: i32 = 4;
/// When choosing the slot to replace, one search of age counts as this many plies of depth:
/// entries of earlier searches go first unless they are far deeper.
const AGE_WEIGHT: i32 = 8;
/// Stored depth = depth + DEPTH_OFFSET, so depths down to -DEPTH_OFFSET fit.
const DEPTH_OFFSET: i32 = 4;

pub(crate) const SLOTS_PER_BUCKET: usize = 4;
pub(crate) const MAX_HASH_MB: usize = 1 << 20;

/// What a stored or reported score says about the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Nothing stored.
    None = 0,
    /// The score is at most this (fail low).
    Upper = 1,
    /// The score is at least this (fail high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

impl Bound {
    /// Does a score of this bound end a node searched with the window `(alpha, beta)`?
    #[inline]
    pub(crate) fn cuts(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
            Bound::None => false,
        }
    }

    fn from_bits(b: u64) -> Bound {
        match b & BOUND_MASK {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// An unpacked entry. `score` is already converted to be relative to the probing ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub mv: Move16,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    pub pv: bool,
    pub generation: u8,
}

/// Packs an entry into its data word. Scores and evals are clamped to i16.
pub(crate) fn pack(
    mv: Move16,
    score: i32,
    eval: i32,
    depth: i32,
    bound: Bound,
    pv: bool,
    generation: u8,
) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let eval = eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = (depth + DEPTH_OFFSET).clamp(0, DEPTH_MASK as i32) as u64;
    (u64::from(mv.0) << MOVE_SHIFT)
        | (score << SCORE_SHIFT)
        | (eval << EVAL_SHIFT)
        | (depth << DEPTH_SHIFT)
        | ((bound as u64) << BOUND_SHIFT)
        | (u64::from(pv) << PV_SHIFT)
        | ((u64::from(generation) & GEN_MASK) << GEN_SHIFT)
}

/// Unpacks a data word (score left as stored, relative to the storing node).
pub(crate) fn unpack(data: u64) -> Entry {
    Entry {
        mv: Move16(((data >> MOVE_SHIFT) & MASK16) as u16),
        score: i32::from(((data >> SCORE_SHIFT) & MASK16) as u16 as i16),
        eval: i32::from(((data >> EVAL_SHIFT) & MASK16) as u16 as i16),
        depth: ((data >> DEPTH_SHIFT) & DEPTH_MASK) as i32 - DEPTH_OFFSET,
        bound: Bound::from_bits(data >> BOUND_SHIFT),
        pv: (data >> PV_SHIFT) & 1 == 1,
        generation: ((data >> GEN_SHIFT) & GEN_MASK) as u8,
    }
}

#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    slots: [Slot; SLOTS_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);
const _: () = assert!(std::mem::size_of::<Slot>() == 16);

pub(crate) struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
    megabytes: usize,
}

impl TranspositionTable {
    /// Allocates a table of `megabytes` MiB, filling it with `threads` threads. Fails (instead
    /// of aborting) when the memory cannot be had.
    pub fn new(megabytes: usize, threads: usize) -> Result<TranspositionTable, String> {
        if megabytes == 0 || megabytes > MAX_HASH_MB {
            return Err(format!(
                "Hash must be between 1 and {MAX_HASH_MB} MB, not {megabytes}"
            ));
        }
        let count = megabytes * 1024 * 1024 / std::mem::size_of::<Bucket>();
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate {megabytes} MB for the hash table"))?;
        {
            let spare = &mut buckets.spare_capacity_mut()[..count];
            let threads = threads.clamp(1, 256);
            let chunk = count.div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                for part in spare.chunks_mut(chunk) {
                    scope.spawn(move || {
                        for b in part {
                            b.write(Bucket::default());
                        }
                    });
                }
            });
        }
        // SAFETY: `try_reserve_exact` gave capacity for `count` buckets, and the scoped threads
        // above initialised every one of the first `count` slots (the chunks cover
        // `spare[..count]` exactly) before the scope joined them. Filling in parallel makes
        // large tables ready faster (see `docs/smp.md` for the measurement).
        unsafe { buckets.set_len(count) };
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
            megabytes,
        })
    }

    pub(crate) fn megabytes(&self) -> usize {
        self.megabytes
    }

    /// Zeroes every slot, splitting the work over `threads` threads.
    pub fn clear(&self, threads: usize) {
        let threads = threads.clamp(1, 256);
        let chunk = self.buckets.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            for part in self.buckets.chunks(chunk) {
                scope.spawn(move || {
                    for b in part {
                        for s in &b.slots {
                            s.key.store(0, Relaxed);
                            s.data.store(0, Relaxed);
                        }
                    }
                });
            }
        });
        self.generation.store(0, Relaxed);
    }

    /// Ages the table: called once at the start of each search.
    pub(crate) fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) % GEN_CYCLE, Relaxed);
    }

    #[inline]
    pub fn generation(&self) -> u8 {
        self.generation.load(Relaxed)
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Starts loading `key`'s bucket into the cache, so that a probe a little later finds it
    /// there instead of waiting on memory. Only a hint: it changes no result.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = self.bucket(key);
            // SAFETY: a prefetch reads nothing the program sees and never faults; `bucket`
            // points at a live bucket of this table besides. SSE is part of x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up; `ply` converts mate scores back to root-relative ones.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<Entry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Relaxed);
            let check = slot.key.load(Relaxed);
            if check ^ data == key {
                let mut e = unpack(data);
                if e.bound == Bound::None {
                    return None;
                }
                e.score = from_tt(e.score, ply);
                return Some(e);
            }
        }
        None
    }

    /// Stores a search result. Replaces the same key's slot (keeping its move when the new
    /// result has none) when the new result is exact, deep enough or from a newer search;
    /// otherwise the slot that is shallowest and oldest.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn store(
        &self,
        key: u64,
        mv: Move16,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
        ply: usize,
    ) {
        let generation = self.generation();
        let bucket = self.bucket(key);
        let mut target = &bucket.slots[0];
        let mut target_worth = i32::MAX;
        let mut mv = mv;
        for slot in &bucket.slots {
            let data = slot.data.load(Relaxed);
            let check = slot.key.load(Relaxed);
            let old = unpack(data);
            if check ^ data == key && old.bound != Bound::None {
                // Same position: keep a deeper result of this search unless the new one is exact.
                if bound != Bound::Exact
                    && old.generation == generation
                    && depth + KEEP_DEEPER_BY <= old.depth
                {
                    return;
                }
                if mv.is_none() {
                    mv = old.mv;
                }
                target = slot;
                break;
            }
            // Otherwise replace the shallowest, oldest slot.
            let age = (GEN_CYCLE + generation - old.generation) % GEN_CYCLE;
            let worth = if old.bound == Bound::None {
                i32::MIN
            } else {
                old.depth - AGE_WEIGHT * i32::from(age)
            };
            if worth < target_worth {
                target_worth = worth;
                target = slot;
            }
        }
        let data = pack(mv, to_tt(score, ply), eval, depth, bound, pv, generation);
        target.key.store(key ^ data, Relaxed);
        target.data.store(data, Relaxed);
    }

    /// Share of the first thousand slots used by the current search, in per mille.
    pub fn hashfull(&self) -> usize {
        let generation = self.generation();
        let buckets = (1000 / SLOTS_PER_BUCKET).min(self.buckets.len());
        let mut used = 0;
        for b in &self.buckets[..buckets] {
            for s in &b.slots {
                let e = unpack(s.data.load(Relaxed));
                if e.bound != Bound::None && e.generation == generation {
                    used += 1;
                }
            }
        }
        used * 1000 / (buckets * SLOTS_PER_BUCKET)
    }

    #[cfg(test)]
    fn slot_words(&self, key: u64, i: usize) -> (&AtomicU64, &AtomicU64) {
        let s = &self.bucket(key).slots[i];
        (&s.key, &s.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{mate_in, mated_in};
    use std::sync::Arc;

    #[test]
    fn pack_unpack_round_trip() {
        for (mv, score, eval, depth, bound, pv, generation) in [
            (Move16(0x1234), 123, -45, 17, Bound::Exact, true, 31u8),
            (Move16(0), -32000, 32000, -3, Bound::Upper, false, 0),
            (Move16(0xFFFF), 31_000, -1, 250, Bound::Lower, true, 7),
        ] {
            let e = unpack(pack(mv, score, eval, depth, bound, pv, generation));
            assert_eq!(
                e,
                Entry {
                    mv,
                    score,
                    eval,
                    depth,
                    bound,
                    pv,
                    generation
                }
            );
        }
    }

    #[test]
    fn store_then_probe() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        let key = 0xDEAD_BEEF_1234_5678;
        assert!(tt.probe(key, 0).is_none());
        tt.store(key, Move16(77), 42, 10, 6, Bound::Lower, false, 0);
        let e = tt.probe(key, 0).unwrap();
        assert_eq!((e.mv, e.score, e.eval, e.depth), (Move16(77), 42, 10, 6));
        assert_eq!(e.bound, Bound::Lower);
        assert!(tt.probe(key ^ 1, 0).is_none());
        tt.clear(2);
        assert!(tt.probe(key, 0).is_none());
    }

    #[test]
    fn torn_slot_is_rejected() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        let key = 0x0123_4567_89AB_CDEF;
        tt.store(key, Move16(5), 100, 0, 8, Bound::Exact, false, 0);
        let (k, d) = tt.slot_words(key, 0);
        assert_eq!(k.load(Relaxed) ^ d.load(Relaxed), key);
        // Data word from another write, key word from the first: the check must fail.
        d.store(pack(Move16(9), -300, 0, 2, Bound::Exact, false, 0), Relaxed);
        assert!(tt.probe(key, 0).is_none());
    }

    #[test]
    fn mate_scores_round_trip_across_plies() {
        let tt = TranspositionTable::new(1, 1).unwrap();
        let key = 99;
        // Mate in 5 plies from a node at ply 3 (root-relative: mate_in(8)).
        tt.store(key, Move16(1), mate_in(8), 0, 5, Bound::Exact, false, 3);
        assert_eq!(tt.probe(key, 3).unwrap().score, mate_in(8));
        // The same node reached at ply 7: the mate is 4 plies further from the root.
        assert_eq!(tt.probe(key, 7).unwrap().score, mate_in(12));
        tt.store(key, Move16(1), mated_in(6), 0, 5, Bound::Exact, false, 2);
        assert_eq!(tt.probe(key, 4).unwrap().score, mated_in(8));
    }

    #[test]
    fn hash_size_limits() {
        assert!(TranspositionTable::new(0, 1).is_err());
        assert!(TranspositionTable::new(MAX_HASH_MB + 1, 1).is_err());
        assert_eq!(TranspositionTable::new(3, 2).unwrap().megabytes(), 3);
    }

    /// Writers store entries whose every field derives from the key; readers must never see a
    /// mix of two writes.
    #[test]
    fn concurrent_hammering_never_yields_a_torn_entry() {
        let tt = Arc::new(TranspositionTable::new(1, 1).unwrap());
        // 64 keys sharing their top 32 bits land in one bucket of four slots: writers of
        // different keys race for the same slots all the time.
        let keys: Vec<u64> = (0..64u64)
            .map(|i| 0xABCD_EF01_0000_0000 | (crate::position::mix(i + 1) & 0xFFFF_FFFF))
            .collect();
        let fields = |key: u64| {
            let mv = Move16((key & 0xFFFF) as u16 | 1);
            let score = ((key >> 16) & 0x3FFF) as i32 - 8000;
            let eval = ((key >> 8) & 0x3FFF) as i32 - 8000;
            let depth = ((key >> 20) & 0x3F) as i32;
            (mv, score, eval, depth)
        };
        let keys = Arc::new(keys);
        let mut handles = Vec::new();
        for t in 0..4u64 {
            let tt = Arc::clone(&tt);
            let keys = Arc::clone(&keys);
            handles.push(std::thread::spawn(move || {
                let mut hits = 0u64;
                for i in 0..200_000u64 {
                    let pick = crate::position::mix(i * 4 + t) % keys.len() as u64;
                    let key = keys[pick as usize];
                    if (i + t) % 2 == 0 {
                        let (mv, score, eval, depth) = fields(key);
                        tt.store(key, mv, score, eval, depth, Bound::Exact, false, 0);
                    } else if let Some(e) = tt.probe(key, 0) {
                        hits += 1;
                        let (mv, score, eval, depth) = fields(key);
                        assert_eq!((e.mv, e.score, e.eval, e.depth), (mv, score, eval, depth));
                    }
                }
                hits
            }));
        }
        let hits: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert!(hits > 1000, "the readers found almost nothing ({hits})");
    }
}
