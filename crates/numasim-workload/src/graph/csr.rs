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
        let mut pairs: Vec<(u32, u32)> = vec![(0, 0); m];
        let mut fill = start.clone();
        for (i, &(u, v)) in edges.iter().enumerate() {
            if u == v {
                continue;
            }
            let w = weights.map_or(0, |w| w[i]);
            pairs[fill[u as usize] as usize] = (v, w);
            fill[u as usize] += 1;
            pairs[fill[v as usize] as usize] = (u, w);
            fill[v as usize] += 1;
        }
        // Sort each neighbourhood, drop duplicates (keeping the first weight), compact.
        let mut offsets = vec![0u64; n + 1];
        let mut neigh = Vec::with_capacity(m);
        let mut wout = Vec::new();
        for u in 0..n {
            let s = &mut pairs[start[u] as usize..start[u + 1] as usize];
            s.sort_unstable();
            let mut last = u32::MAX;
            for &(v, w) in s.iter() {
                if v != last {
                    neigh.push(v);
                    if weights.is_some() {
                        wout.push(w);
                    }
                    last = v;
                }
            }
            offsets[u + 1] = neigh.len() as u64;
        }
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
