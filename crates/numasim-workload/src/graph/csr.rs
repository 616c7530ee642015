//! The graph as GAP stores it: CSR in a virtual address space.
//!
//! GAP's `CSRGraph` keeps an index array of pointers (8 B per vertex, n + 1 entries) and a
//! neighbour array (`NodeID` = 4 B, or `NodeWeight` = 8 B for weighted graphs). Synthetic graphs
//! are undirected: every edge is stored in both directions, self-loops and duplicates are
//! removed and neighbourhoods are sorted (GAP's `BuilderBase::SquishGraph`), so in- and
//! out-neighbourhoods are the same arrays.

use super::generate;
use crate::rng::{from_state, stream_state};
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

impl numasim_config::param::ParamKind for GraphKind {}

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
        let state = stream_state(seed, 0x6752_6170_6800);
        let (list, mut rng) = match kind {
            GraphKind::Kronecker => generate::kronecker(scale, edges, state),
            GraphKind::Uniform => {
                let mut rng = from_state(state);
                (generate::uniform(scale, edges, &mut rng), rng)
            }
        };
        let w = if weighted {
            generate::weights(list.len(), &mut rng)
        } else {
            Vec::new()
        };
        Self::from_edges(n, &list, weighted.then_some(&w[..]))
    }

    /// Builds the undirected CSR of an edge list (weights optional, one per edge).
    ///
    /// Up to [`crate::parallel::build_threads`] threads, each owning a range of vertices:
    /// every thread reads the whole edge list and writes only its own vertices' degrees and
    /// neighbourhood entries, in edge order, so every neighbourhood is the same as one thread
    /// builds it (no atomics, nothing depends on the thread count).
    pub fn from_edges(n: usize, edges: &[(u32, u32)], weights: Option<&[u32]>) -> Graph {
        // Every part reads the whole edge list, so parts beyond a few add reading, not speed.
        let parts = crate::parallel::parts_for(n.min(edges.len()), MIN_PER_PART).min(MAX_PARTS);
        let ranges = crate::parallel::split(n, parts);
        let mut deg = vec![0u64; n];
        crate::parallel::for_each_part(&ranges, &mut deg, |r, mine| {
            for &(u, v) in edges {
                if u != v {
                    for w in [u as usize, v as usize] {
                        if let Some(d) = mine.get_mut(w.wrapping_sub(r.start)) {
                            *d += 1;
                        }
                    }
                }
            }
        });
        let mut start = vec![0u64; n + 1];
        for u in 0..n {
            start[u + 1] = start[u] + deg[u];
        }
        drop(deg);
        // Neighbourhoods are sorted and deduplicated in place, then compacted in place, so the
        // peak is the edge list plus one array of entries (a scale-24 graph: 2 × 2.1 GB
        // unweighted). A weighted entry is `(v << 32) | w`: sorting it sorts by neighbour, then
        // weight, and the first of equal neighbours keeps the smallest weight, as sorting
        // `(v, w)` pairs does.
        let (neigh, wout, offsets) = match weights {
            None => {
                let (entries, offsets) = fill_sort_compact(edges, &start, &ranges, |_, other| other, |e: u32| e as u64);
                (entries, Vec::new(), offsets)
            }
            Some(w) => {
                let (entries, offsets) = fill_sort_compact(
                    edges,
                    &start,
                    &ranges,
                    |i, other| (other as u64) << 32 | w[i] as u64,
                    |e: u64| e >> 32,
                );
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

    /// GAP's `Builder::RelabelByDegree`: vertices renumbered by degree, the highest first
    /// (ties: the larger old id first, as GAP sorts `(degree, id)` pairs in descending order),
    /// every neighbourhood renamed and sorted again. The arrays keep their sizes, so the
    /// relabelled graph takes the original's place in the address space.
    pub fn relabel_by_degree(&self) -> Graph {
        let n = self.n;
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&v| std::cmp::Reverse((self.degree(v as usize), v)));
        let mut new_id = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        for &old in &order {
            offsets.push(offsets[offsets.len() - 1] + self.degree(old as usize));
        }
        let mut neigh = vec![0u32; self.neigh.len()];
        let mut weights = vec![0u32; self.weights.len()];
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (new, &old) in order.iter().enumerate() {
            let (lo, hi) = (offsets[new] as usize, offsets[new + 1] as usize);
            let (olo, ohi) = (
                self.offsets[old as usize] as usize,
                self.offsets[old as usize + 1] as usize,
            );
            if self.weights.is_empty() {
                for (d, &v) in neigh[lo..hi].iter_mut().zip(&self.neigh[olo..ohi]) {
                    *d = new_id[v as usize];
                }
                neigh[lo..hi].sort_unstable();
            } else {
                pairs.clear();
                pairs.extend((olo..ohi).map(|j| (new_id[self.neigh[j] as usize], self.weights[j])));
                pairs.sort_unstable();
                for (k, &(v, w)) in pairs.iter().enumerate() {
                    neigh[lo + k] = v;
                    weights[lo + k] = w;
                }
            }
        }
        Graph {
            n,
            offsets,
            neigh,
            weights,
            offsets_base: self.offsets_base,
            neigh_base: self.neigh_base,
            neigh_bytes: self.neigh_bytes,
            space: self.space.clone(),
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

/// Vertices (and edges) below which a CSR build is not split over threads.
const MIN_PER_PART: usize = 1 << 15;
/// At most this many parts: each reads all the edges (sequentially, a sixth or so of a
/// one-thread build's time), so 16 parts are at best about 5× faster than one.
const MAX_PARTS: usize = 16;

/// The entries of every neighbourhood (`entry(edge index, other end)`), each written in edge
/// order by the thread owning its vertex, then sorted; the first entry of each neighbour
/// (`neighbour(entry)`) is kept, the kept entries are moved down to close the gaps and the
/// rest truncated. Returns the entries and the CSR offsets of what is kept.
fn fill_sort_compact<T: Copy + Ord + Send + Default>(
    edges: &[(u32, u32)],
    start: &[u64],
    ranges: &[std::ops::Range<usize>],
    entry: impl Fn(usize, u32) -> T + Sync,
    neighbour: impl Fn(T) -> u64 + Sync,
) -> (Vec<T>, Vec<u64>) {
    let n = start.len() - 1;
    let mut entries = vec![T::default(); start[n] as usize];
    // kept[u + 1]: entries vertex u keeps; kept_in[k]: entries range k keeps.
    let mut kept = vec![0u64; n + 1];
    let mut kept_in = vec![0usize; ranges.len()];
    std::thread::scope(|s| {
        let (mut rest, mut rest_kept, mut rest_in) = (&mut entries[..], &mut kept[1..], &mut kept_in[..]);
        for (k, r) in ranges.iter().enumerate() {
            let lo = start[r.start] as usize;
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(start[r.end] as usize - lo);
            rest = tail;
            let (my_kept, tail) = std::mem::take(&mut rest_kept).split_at_mut(r.len());
            rest_kept = tail;
            let (my_in, tail) = std::mem::take(&mut rest_in).split_at_mut(1);
            rest_in = tail;
            let (entry, neighbour) = (&entry, &neighbour);
            let mut work = move || {
                let mut fill: Vec<usize> = start[r.start..r.end].iter().map(|&x| x as usize - lo).collect();
                for (i, &(u, v)) in edges.iter().enumerate() {
                    if u != v {
                        for (a, b) in [(u, v), (v, u)] {
                            if let Some(f) = fill.get_mut((a as usize).wrapping_sub(r.start)) {
                                mine[*f] = entry(i, b);
                                *f += 1;
                            }
                        }
                    }
                }
                drop(fill);
                let mut out = 0usize;
                for (j, u) in r.clone().enumerate() {
                    let (a, b) = (start[u] as usize - lo, start[u + 1] as usize - lo);
                    mine[a..b].sort_unstable();
                    let mut last = u64::MAX;
                    let before = out;
                    for i in a..b {
                        let e = mine[i];
                        if neighbour(e) != last {
                            last = neighbour(e);
                            mine[out] = e;
                            out += 1;
                        }
                    }
                    my_kept[j] = (out - before) as u64;
                }
                my_in[0] = out;
            };
            if k + 1 == ranges.len() {
                work();
            } else {
                s.spawn(work);
            }
        }
    });
    // Each range's kept entries sit at the start of its block; move them down in order (a
    // block's destination never passes its source).
    let mut to = 0usize;
    for (k, r) in ranges.iter().enumerate() {
        let from = start[r.start] as usize;
        if from != to {
            entries.copy_within(from..from + kept_in[k], to);
        }
        to += kept_in[k];
    }
    entries.truncate(to);
    entries.shrink_to_fit();
    for u in 0..n {
        kept[u + 1] += kept[u];
    }
    (entries, kept)
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

    /// Built on several threads, a graph is the one a single thread builds (weighted too).
    #[test]
    fn the_csr_is_the_same_with_any_number_of_threads() {
        for weighted in [false, true] {
            let one = Graph::generate(GraphKind::Kronecker, 17, 4, weighted, 5);
            for threads in [2, 3, 5] {
                let many = crate::parallel::with_build_threads(threads, || {
                    Graph::generate(GraphKind::Kronecker, 17, 4, weighted, 5)
                });
                assert!(one.offsets == many.offsets, "{threads} threads");
                assert!(
                    one.neigh == many.neigh && one.weights == many.weights,
                    "{threads} threads"
                );
            }
        }
    }
}
