//! The per-ply search stack, padded in front so a node can look a few plies back.

use crate::history::PieceTo;
use crate::moves::Move16;
use crate::score::MAX_PLY;

/// How many entries stand before ply 0 (so `ply - 4` is always valid).
const PAD: usize = 4;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StackEntry {
    /// Corrected static evaluation (meaningless when in check).
    pub static_eval: i32,
    /// Moved piece and destination of the move played from this ply (`None` for a null move).
    pub piece_to: Option<PieceTo>,
    pub killers: [Move16; 2],
    /// Move excluded by a singular-extension search.
    pub excluded: Move16,
    pub in_check: bool,
    /// Double extensions on the path to this ply.
    pub double_extensions: i32,
    /// This ply's move was a null move.
    pub null_move: bool,
}

pub(crate) struct SearchStack {
    entries: Vec<StackEntry>,
}

impl Default for SearchStack {
    fn default() -> Self {
        SearchStack {
            entries: vec![StackEntry::default(); MAX_PLY + PAD + 4],
        }
    }
}

impl SearchStack {
    pub(crate) fn reset(&mut self) {
        self.entries.fill(StackEntry::default());
    }

    /// Entry of `ply` (0 = root).
    #[inline]
    pub fn at(&self, ply: usize) -> &StackEntry {
        &self.entries[ply + PAD]
    }

    #[inline]
    pub(crate) fn at_mut(&mut self, ply: usize) -> &mut StackEntry {
        &mut self.entries[ply + PAD]
    }

    /// Entry `back` plies before `ply` (may be padding before the root).
    #[inline]
    pub fn back(&self, ply: usize, back: usize) -> &StackEntry {
        &self.entries[ply + PAD - back]
    }
}
