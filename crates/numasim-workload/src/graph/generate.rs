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

/// `edges` Kronecker edges over `2^scale` vertices, ids permuted.
pub fn kronecker(scale: u32, edges: u64, rng: &mut Rng) -> Vec<(u32, u32)> {
    let n = 1u64 << scale;
    let mut out = Vec::with_capacity(edges as usize);
    let (ab, abc) = (KRON_A + KRON_B, KRON_A + KRON_B + KRON_C);
    for _ in 0..edges {
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
        out.push((u, v));
    }
    // Fisher-Yates permutation of vertex ids.
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..perm.len()).rev() {
        let j = rng.gen_range(0..=i);
        perm.swap(i, j);
    }
    for e in &mut out {
        *e = (perm[e.0 as usize], perm[e.1 as usize]);
    }
    out
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
    use rand::SeedableRng;

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
        let got = kronecker(scale, edges, &mut Rng::seed_from_u64(7));
        let mut rng = Rng::seed_from_u64(7);
        let raw: Vec<(u32, u32)> = (0..edges).map(|_| kronecker_edge_branching(scale, &mut rng)).collect();
        let mut perm: Vec<u32> = (0..1u32 << scale).collect();
        for i in (1..perm.len()).rev() {
            let j = rng.gen_range(0..=i);
            perm.swap(i, j);
        }
        let want: Vec<(u32, u32)> = raw.iter().map(|&(u, v)| (perm[u as usize], perm[v as usize])).collect();
        assert_eq!(got, want);
        // All four quadrants occur, so every branch of the reference was exercised.
        assert!(raw.iter().any(|&(u, v)| u & 1 == 1 && v & 1 == 1));
        assert!(raw.iter().any(|&(u, v)| u & 1 == 0 && v & 1 == 1));
    }
}
