//! Synthetic edge lists as GAP generates them (GAP `generator.h`).
//!
//! - Kronecker (Graph500): each of the `2^scale · degree` edges picks, `scale` times, one
//!   quadrant of the adjacency matrix with probabilities A = 0.57, B = 0.19, C = 0.19,
//!   D = 0.05; vertex ids are then permuted at random so hubs are scattered over the id space
//!   (as Graph500 and GAP do), which is what makes hubs' pages shared by every thread.
//! - Uniform (Erdős–Rényi-like): both endpoints uniform over the vertices.
//!
//! Weights (for SSSP) are uniform integers in 1..=255, GAP's range.

use crate::rng::Rng;
use rand::Rng as _;

/// Graph500 Kronecker initiator probabilities.
pub const KRON_A: f64 = 0.57;
pub const KRON_B: f64 = 0.19;
pub const KRON_C: f64 = 0.19;
/// GAP's maximum edge weight.
pub const MAX_WEIGHT: u32 = 255;

/// Edges below which the Kronecker draws are not split (a thread's start-up costs more).
const MIN_EDGES_PER_PART: usize = 1 << 16;

/// `edges` Kronecker edges over `2^scale` vertices, ids permuted, drawn from the xoshiro256
/// stream at `state`; returns them with the generator where the draws left it.
///
/// The draws are split into up to [`crate::parallel::build_threads`] consecutive parts, each
/// started from the stream jumped to its first draw ([`crate::rng::jump`]: every edge takes
/// exactly `scale` draws), so the edges are the same as one thread drawing them in order. The
/// permutation's draws (rejection sampling: a variable count) stay on one thread.
pub fn kronecker(scale: u32, edges: u64, state: [u64; 4]) -> (Vec<(u32, u32)>, Rng) {
    let n = 1u64 << scale;
    let mut out = vec![(0u32, 0u32); edges as usize];
    let parts = crate::parallel::parts_for(out.len(), MIN_EDGES_PER_PART);
    let ranges = crate::parallel::split(out.len(), parts);
    crate::parallel::for_each_part(&ranges, &mut out, |r, slice| {
        let mut rng = crate::rng::from_state(crate::rng::jump::jumped(state, r.start as u64 * scale as u64));
        for e in slice {
            *e = kronecker_edge(scale, &mut rng);
        }
    });
    let mut rng = crate::rng::from_state(crate::rng::jump::jumped(state, edges * scale as u64));
    // Fisher-Yates permutation of vertex ids.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..perm.len()).rev() {
        let j = rng.gen_range(0..=i);
        perm.swap(i, j);
    }
    crate::parallel::for_each_part(&ranges, &mut out, |_, slice| {
        for e in slice {
            *e = (perm[e.0 as usize], perm[e.1 as usize]);
        }
    });
    (out, rng)
}

/// One Kronecker edge: `scale` draws, one quadrant each.
#[inline]
fn kronecker_edge(scale: u32, rng: &mut Rng) -> (u32, u32) {
    let (ab, abc) = (KRON_A + KRON_B, KRON_A + KRON_B + KRON_C);
    let (mut u, mut v) = (0u32, 0u32);
    for _ in 0..scale {
        let p: f64 = rng.gen();
        // Branch-free (the quadrant is random, so branches mispredict half the time):
        // row bit set in C and D (p >= A + B), column bit set in B (A < p < A + B) and D
        // (p > A + B + C); the same edges as the branching form, draw for draw.
        let row = p >= ab;
        let col = (p > KRON_A) & !row | (p > abc);
        u = (u << 1) | row as u32;
        v = (v << 1) | col as u32;
    }
    (u, v)
}

/// `edges` edges with uniform endpoints over `2^scale` vertices.
pub fn uniform(scale: u32, edges: u64, rng: &mut Rng) -> Vec<(u32, u32)> {
    let n = 1u32 << scale;
    (0..edges).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect()
}

/// One weight per edge, uniform in 1..=255.
pub fn weights(edges: usize, rng: &mut Rng) -> Vec<u32> {
    (0..edges).map(|_| rng.gen_range(1..=MAX_WEIGHT)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quadrant choice as Graph500 writes it, with branches.
    fn kronecker_edge_branching(scale: u32, rng: &mut Rng) -> (u32, u32) {
        let (ab, abc) = (KRON_A + KRON_B, KRON_A + KRON_B + KRON_C);
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let p: f64 = rng.gen();
            u <<= 1;
            v <<= 1;
            if p < ab {
                if p > KRON_A {
                    v += 1;
                }
            } else {
                u += 1;
                if p > abc {
                    v += 1;
                }
            }
        }
        (u, v)
    }

    #[test]
    fn branch_free_kronecker_draws_the_same_edges_as_the_branching_form() {
        let (scale, edges) = (10, 5000);
        let state = crate::rng::stream_state(7, 1);
        let (got, mut after) = kronecker(scale, edges, state);
        let mut rng = crate::rng::stream(7, 1);
        let raw: Vec<(u32, u32)> = (0..edges).map(|_| kronecker_edge_branching(scale, &mut rng)).collect();
        let mut perm: Vec<u32> = (0..1u32 << scale).collect();
        for i in (1..perm.len()).rev() {
            let j = rng.gen_range(0..=i);
            perm.swap(i, j);
        }
        let want: Vec<(u32, u32)> = raw.iter().map(|&(u, v)| (perm[u as usize], perm[v as usize])).collect();
        assert_eq!(got, want);
        assert_eq!(
            after.gen::<u64>(),
            rng.gen::<u64>(),
            "the generator is left where the draws left it"
        );
        // All four quadrants occur, so every branch of the reference was exercised.
        assert!(raw.iter().any(|&(u, v)| u & 1 == 1 && v & 1 == 1));
        assert!(raw.iter().any(|&(u, v)| u & 1 == 0 && v & 1 == 1));
    }

    /// Split over threads, the edges and the generator after them are those of one thread.
    #[test]
    fn kronecker_is_the_same_with_any_number_of_threads() {
        let state = crate::rng::stream_state(11, 2);
        let (scale, edges) = (12, 3 * MIN_EDGES_PER_PART as u64 + 12_345);
        let (one, one_rng) = kronecker(scale, edges, state);
        for threads in [2, 3, 8] {
            let (many, mut many_rng) = crate::parallel::with_build_threads(threads, || kronecker(scale, edges, state));
            assert!(one == many, "{threads} threads");
            assert_eq!(one_rng.clone().gen::<u64>(), many_rng.gen::<u64>());
        }
    }
}
