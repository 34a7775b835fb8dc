//! Evaluation by an efficiently updatable neural network.
//!
//! Architecture `(768 -> H) x 2 -> 1`: each side's view of the board (piece colour relative to
//! the viewer, piece type, square mirrored vertically for Black) feeds one shared feature
//! transformer of `H` neurons; the side to move's accumulator and the other side's are
//! concatenated, squared-clipped (SCReLU: `clamp(x, 0, 1)^2`) and summed by one output
//! neuron, chosen among `B` output buckets by the number of pieces on the board (`B` = 1: one
//! output neuron for every position). In integers: feature weights and biases are scaled by `QA` (255) and kept in i16,
//! output weights by `QB` (64); the output is `sum(clamp(a, 0, QA)^2 * w) / QA + b`, in units
//! of `QA * QB`, times `SCALE` (400) centipawns per unit. The trainer (`shears-tune nnue`)
//! clips float weights to `[-WEIGHT_CLIP, WEIGHT_CLIP]` so every product below stays in range.
//!
//! Input layouts ([`Layout`]): `Plain` is the above; `Mirrored` also flips each view left to
//! right (files a and h swapped) when the viewer's king stands on files e-h, so every view
//! sees its own king on files a-d and the net's first layer learns one half of the board's
//! king positions instead of two. A perspective whose king crosses between files d and e is
//! refreshed from scratch. `Kings4` is `Mirrored` with four king buckets: four sets of 768
//! features, one for each group of the viewer's king squares (`KINGS4`: the back rank's
//! corners, its middle, the second rank, the rest), so the first layer can weigh a piece by
//! where its own side's king stands; a view whose king changes bucket is refreshed too.
//!
//! The accumulators of the search are updated lazily ([`AccumulatorStack`]): the one of a
//! ply is computed when that ply is evaluated, from the nearest ancestor that is up to date,
//! by the pieces that differ between the two boards (a move, a capture, a promotion, castling,
//! en passant or a null move all come out of the same comparison).

//!
//! `network.rs` holds the net and its kernels, `file.rs` its file format; this file declares
//! them and what they show outside.

mod file;
mod network;

pub(crate) use file::embedded;
pub use file::load_file;
pub(crate) use network::AccumulatorStack;
#[cfg(test)]
pub(crate) use network::random_network;
pub use network::{
    INPUTS, Layout, MAX_BUCKETS, MAX_HIDDEN, Network, QA, QB, SCALE, View, WEIGHT_CLIP, feature,
    features, output_bucket,
};
