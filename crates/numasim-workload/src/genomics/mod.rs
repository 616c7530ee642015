//! Genomics kernels from StarNUMA's evaluation (§IV-E): FM-index backward search (FMI) and
//! partial-order alignment (POA). FMI's index is large, read-only and shared by every thread;
//! POA works almost entirely on per-thread private graphs and DP matrices. They bracket the
//! sharing spectrum StarNUMA's pool targets.

pub mod fmi;
pub mod poa;

use crate::rng::Rng;
use rand::Rng as _;

/// A random DNA sequence over codes 0..4 (A, C, G, T).
pub fn random_dna(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.gen_range(0..4u8)).collect()
}
