//! The graph as GAP stores it: CSR in a virtual address space.
//!
//! GAP's `CSRGraph` keeps an index array of pointers (8 B per vertex, n + 1 entries) and a
//! neighbour array (`NodeID` = 4 B, or `NodeWeight` = 8 B for weighted graphs). Synthetic graphs
//! are undirected: every edge is stored in both directions, self-loops and duplicates are
//! removed and neighbourhoods are sorted (GAP's `BuilderBase::SquishGraph`), so in- and
//! out-neighbourhoods are the same arrays.

use super::generate;
use crate::rng::stream;
use crate::vspace::AddressSpace;
use serde::{Deserialize, Serialize};

/// Which synthetic graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GraphKind {
    #[default]
    Kronecker,
    Uniform,
}

/// A CSR graph with the virtual addresses of its arrays.
#[derive(Debug, Clone)]
pub struct Graph {
    pub n: usize,
    /// `offsets[u]..offsets[u + 1]` indexes `neigh` (GAP's index array, 8 B entries).
    pub offsets: Vec<u64>,
    pub neigh: Vec<u32>,
    /// Edge weights beside `neigh` (empty for unweighted graphs).
    pub weights: Vec<u32>,
    pub offsets_base: u64,
    pub neigh_base: u64,
    /// 4 (NodeID) or 8 (NodeWeight: id + weight).
    pub neigh_bytes: u8,
    /// Where kernels allocate their property arrays.
    pub space: AddressSpace,
}

impl Graph {
    /// Generates a graph: `2^scale` vertices, `2^scale · degree` generated edges (each stored
    /// both ways after symmetrisation), seeded by `seed`.
    pub fn generate(kind: GraphKind, scale: u32, degree: u32, weighted: bool, seed: u64) -> Graph {
        let n = 1usize << scale;
        let edges = (n as u64) * degree as u64;
        let mut rng = stream(seed, 0x6752_6170_6800);
        let list = match kind {
            GraphKind::Kronecker => generate::kronecker(scale, edges, &mut rng),
            GraphKind::Uniform => generate::uniform(scale, edges, &mut rng),
        };
        let w = if weighted {
            generate::weights(list.len(), &mut rng)
        } else {
            Vec::new()
        };
        Self::from_edges(n, &list, weighted.then_some(&w[..]))
    }

    /// Builds the undirected CSR of an edge list (weights optional, one per edge).
    pub fn from_edges(n: usize, edges: &[(u32, u32)], weights: Option<&[u32]>) -> Graph {
        let mut deg = vec![0u64; n + 1];
        for &(u, v) in edges {
            if u != v {
                deg[u as usize] += 1;
                deg[v as usize] += 1;
            }
        }
        let mut start = vec![0u64; n + 1];
        for u in 0..n {
            start[u + 1] = start[u] + deg[u];
        }
        let m = start[n] as usize;
        // Neighbourhoods are sorted and deduplicated in place, then compacted in place, so the
        // peak is the edge list plus one array of entries (a scale-24 graph: 2 × 2.1 GB
        // unweighted). A weighted entry is `(v << 32) | w`: sorting it sorts by neighbour, then
        // weight, and the first of equal neighbours keeps the smallest weight, as sorting
        // `(v, w)` pairs does.
        let mut fill = start.clone();
        let (neigh, wout, offsets) = match weights {
            None => {
                let mut entries = vec![0u32; m];
                for &(u, v) in edges {
                    if u != v {
                        entries[fill[u as usize] as usize] = v;
                        fill[u as usize] += 1;
                        entries[fill[v as usize] as usize] = u;
                        fill[v as usize] += 1;
                    }
                }
                let offsets = sort_dedup_compact(&mut entries, &start, |e| e as u64);
                (entries, Vec::new(), offsets)
            }
            Some(w) => {
                let mut entries = vec![0u64; m];
                for (i, &(u, v)) in edges.iter().enumerate() {
                    if u != v {
                        entries[fill[u as usize] as usize] = (v as u64) << 32 | w[i] as u64;
                        fill[u as usize] += 1;
                        entries[fill[v as usize] as usize] = (u as u64) << 32 | w[i] as u64;
                        fill[v as usize] += 1;
                    }
                }
                let offsets = sort_dedup_compact(&mut entries, &start, |e| e >> 32);
                let neigh = entries.iter().map(|&e| (e >> 32) as u32).collect();
                let wout = entries.iter().map(|&e| e as u32).collect();
                (neigh, wout, offsets)
            }
        };
        let neigh_bytes: u8 = if weights.is_some() { 8 } else { 4 };
        let mut space = AddressSpace::new();
        let offsets_base = space.alloc((n as u64 + 1) * 8);
        let neigh_base = space.alloc(neigh.len() as u64 * neigh_bytes as u64);
        Graph {
            n,
            offsets,
            neigh,
            weights: wout,
            offsets_base,
            neigh_base,
            neigh_bytes,
            space,
        }
    }

    /// Directed edge entries (twice the undirected edges).
    pub fn edges(&self) -> u64 {
        self.neigh.len() as u64
    }

    #[inline(always)]
    pub fn degree(&self, u: usize) -> u64 {
        self.offsets[u + 1] - self.offsets[u]
    }

    #[inline(always)]
    pub fn neighbours(&self, u: usize) -> &[u32] {
        &self.neigh[self.offsets[u] as usize..self.offsets[u + 1] as usize]
    }

    /// Address of index entry `u`.
    #[inline(always)]
    pub fn offset_addr(&self, u: usize) -> u64 {
        self.offsets_base + u as u64 * 8
    }

    /// Address of neighbour entry `j` (position in `neigh`).
    #[inline(always)]
    pub fn neigh_addr(&self, j: u64) -> u64 {
        self.neigh_base + j * self.neigh_bytes as u64
    }
}

/// Sorts each neighbourhood `entries[start[u]..start[u + 1]]`, keeps the first entry of each
/// neighbour (`neighbour(entry)`), moves the kept entries down to close the gaps and truncates;
/// returns the CSR offsets of what is kept.
fn sort_dedup_compact<T: Copy + Ord>(entries: &mut Vec<T>, start: &[u64], neighbour: impl Fn(T) -> u64) -> Vec<u64> {
    let n = start.len() - 1;
    let mut offsets = vec![0u64; n + 1];
    let mut kept = 0usize;
    for u in 0..n {
        let (lo, hi) = (start[u] as usize, start[u + 1] as usize);
        entries[lo..hi].sort_unstable();
        let mut last = u64::MAX;
        for i in lo..hi {
            let e = entries[i];
            if neighbour(e) != last {
                last = neighbour(e);
                entries[kept] = e;
                kept += 1;
            }
        }
        offsets[u + 1] = kept as u64;
    }
    entries.truncate(kept);
    entries.shrink_to_fit();
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_sorted_without_loops_or_duplicates() {
        let g = Graph::from_edges(4, &[(0, 1), (1, 0), (2, 2), (3, 1), (0, 1)], None);
        assert_eq!(g.neighbours(0), &[1]);
        assert_eq!(g.neighbours(1), &[0, 3]);
        assert_eq!(g.neighbours(2), &[] as &[u32]);
        assert_eq!(g.edges(), 4);
        let k = Graph::generate(GraphKind::Kronecker, 10, 8, false, 3);
        for u in 0..k.n {
            let nb = k.neighbours(u);
            assert!(nb.windows(2).all(|w| w[0] < w[1]));
            for &v in nb {
                assert!(k.neighbours(v as usize).binary_search(&(u as u32)).is_ok());
            }
        }
    }

    #[test]
    fn kronecker_is_skewed_and_uniform_is_not() {
        let k = Graph::generate(GraphKind::Kronecker, 12, 16, false, 1);
        let u = Graph::generate(GraphKind::Uniform, 12, 16, false, 1);
        let max = |g: &Graph| (0..g.n).map(|v| g.degree(v)).max().unwrap();
        assert!(max(&k) > 10 * max(&u), "kron {} uniform {}", max(&k), max(&u));
    }
}
