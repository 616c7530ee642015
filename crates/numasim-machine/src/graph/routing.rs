//! Deterministic shortest-latency routing.
//!
//! Routes are *derived*, never typed in a machine file: typing them invites inconsistency between
//! the topology and the latency matrix. For one source socket we run Dijkstra over the key
//! `(one-way latency in ps, links crossed)`; the cost of leaving a vertex u ≠ source along a link is
//! `transit(u) + latency(link)`, so a route's latency is the sum of its link latencies plus the
//! transit latencies of its intermediate vertices (a socket reached only to use its attached memory
//! is not an intermediate: no transit is added). Vertices that do not forward (memory nodes,
//! sockets with `forwards = false`) are never expanded unless they are the source, so e.g. a CXL
//! pool linked to every socket cannot become a shortcut between sockets.
//!
//! Ties are broken exactly: equal latency → fewer links → lexicographically smaller sequence of
//! global vertex indices. Lexicographic minima are prefix-closed (if the best path to t passes v,
//! its prefix is the best path to v, because all tight paths to v have the same key and are
//! simple), so choosing, for each vertex in key order, the tight predecessor with the smallest
//! path yields the optimum for every target at once.

use super::{Edge, Graph};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A path found from the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path {
    pub nodes: Vec<usize>,
    /// Edges taken (copied from the graph), in order.
    pub edges: Vec<Edge>,
    pub latency_ps: u64,
    pub hops: u32,
}

/// Shortest paths from `src` to every vertex (`None` = unreachable).
pub(crate) fn shortest_paths(g: &Graph, src: usize) -> Vec<Option<Path>> {
    let n = g.len();
    // A vertex passes traffic on along links only if it is the source or forwards; a socket's
    // edge to its own attached memory is always usable and adds no transit (not forwarding).
    let can_take = |u: usize, e: &Edge| u == src || g.forwards[u] || e.link.is_none();
    let step = |u: usize, e: &Edge| -> (u64, u32) {
        let transit = if u == src || e.link.is_none() {
            0
        } else {
            g.transit_ps[u]
        };
        (e.latency_ps + transit, u32::from(e.link.is_some()))
    };

    // 1. Dijkstra on (latency, hops).
    let mut dist: Vec<Option<(u64, u32)>> = vec![None; n];
    let mut done = vec![false; n];
    let mut heap = BinaryHeap::new();
    dist[src] = Some((0, 0));
    heap.push(Reverse((0u64, 0u32, src)));
    while let Some(Reverse((ps, hops, u))) = heap.pop() {
        if done[u] {
            continue;
        }
        done[u] = true;
        for e in g.adj[u].iter().filter(|e| can_take(u, e)) {
            let (w, h) = step(u, e);
            let cand = (ps + w, hops + h);
            if dist[e.to].is_none_or(|d| cand < d) {
                dist[e.to] = Some(cand);
                heap.push(Reverse((cand.0, cand.1, e.to)));
            }
        }
    }

    // 2. Tie-break: visit vertices in key order (non-forwarding after forwarding at equal key,
    //    since only zero-cost edges lead into memory) and pick the lexicographically smallest
    //    tight predecessor path.
    let mut order: Vec<usize> = (0..n).filter(|&v| dist[v].is_some()).collect();
    order.sort_by_key(|&v| (dist[v], !g.forwards[v], v));
    let mut paths: Vec<Option<Path>> = vec![None; n];
    for v in order {
        if v == src {
            paths[v] = Some(Path {
                nodes: vec![src],
                edges: Vec::new(),
                latency_ps: 0,
                hops: 0,
            });
            continue;
        }
        let dv = dist[v].expect("ordered vertices are reached");
        let mut best: Option<(usize, usize)> = None;
        for &(u, ei) in &g.rev[v] {
            let e = &g.adj[u][ei];
            if !can_take(u, e) {
                continue;
            }
            let (Some(du), Some(pu)) = (dist[u], paths[u].as_ref()) else {
                continue;
            };
            let (w, h) = step(u, e);
            if (du.0 + w, du.1 + h) != dv {
                continue;
            }
            let better = match best {
                None => true,
                Some((bu, bei)) => {
                    let bp = paths[bu].as_ref().expect("best has a path");
                    match pu.nodes.cmp(&bp.nodes) {
                        std::cmp::Ordering::Less => true,
                        std::cmp::Ordering::Equal => {
                            // Parallel links between the same pair: smaller link index.
                            e.link.map(|l| l.0) < g.adj[bu][bei].link.map(|l| l.0)
                        }
                        std::cmp::Ordering::Greater => false,
                    }
                }
            };
            if better {
                best = Some((u, ei));
            }
        }
        let (u, ei) = best.expect("a reached vertex has a tight predecessor");
        let pu = paths[u].as_ref().expect("predecessor path");
        let mut nodes = pu.nodes.clone();
        nodes.push(v);
        let mut edges = pu.edges.clone();
        edges.push(g.adj[u][ei]);
        paths[v] = Some(Path {
            nodes,
            edges,
            latency_ps: dv.0,
            hops: dv.1,
        });
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize, lat: u64) -> Graph {
        let mut g = Graph::new(vec![0; n], vec![true; n]);
        for i in 0..n {
            g.add_link(i, i, (i + 1) % n, lat);
        }
        g
    }

    #[test]
    fn ring_tie_prefers_smaller_indices() {
        // 4-ring: 0→2 can go via 1 or via 3 with equal cost; via 1 wins.
        let g = ring(4, 1000);
        let p = shortest_paths(&g, 0);
        assert_eq!(p[2].as_ref().unwrap().nodes, vec![0, 1, 2]);
        assert_eq!(p[2].as_ref().unwrap().latency_ps, 2000);
    }

    #[test]
    fn fewer_hops_win_at_equal_latency() {
        // 0-1-2 with 500+500 versus direct 0-2 with 1000: direct wins (1 hop).
        let mut g = Graph::new(vec![0; 3], vec![true; 3]);
        g.add_link(0, 0, 1, 500);
        g.add_link(1, 1, 2, 500);
        g.add_link(2, 0, 2, 1000);
        let p = shortest_paths(&g, 0);
        assert_eq!(p[2].as_ref().unwrap().nodes, vec![0, 2]);
    }

    #[test]
    fn non_forwarding_vertex_is_not_a_shortcut() {
        // 0 -10- 1(memory) -10- 2, and 0 -100- 2.
        let mut g = Graph::new(vec![0; 3], vec![true, false, true]);
        g.add_link(0, 0, 1, 10);
        g.add_link(1, 1, 2, 10);
        g.add_link(2, 0, 2, 100);
        let p = shortest_paths(&g, 0);
        assert_eq!(p[2].as_ref().unwrap().nodes, vec![0, 2]);
        assert_eq!(p[1].as_ref().unwrap().latency_ps, 10);
    }

    #[test]
    fn transit_counts_only_for_intermediates() {
        let mut g = Graph::new(vec![7, 100, 9], vec![true; 3]);
        g.add_link(0, 0, 1, 10);
        g.add_link(1, 1, 2, 10);
        let p = shortest_paths(&g, 0);
        assert_eq!(p[2].as_ref().unwrap().latency_ps, 120);
    }
}
