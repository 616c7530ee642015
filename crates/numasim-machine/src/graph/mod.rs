//! The machine as a graph: vertices are sockets, memory nodes and switches (global index order
//! sockets `0..S`, then memory `S..S+M`, then switches), edges are links (both directions) plus an
//! implicit zero-latency, zero-hop edge from a socket to each memory node attached to it.
//!
//! Latencies are integer picoseconds so that equal-latency alternatives compare exactly and the
//! tie-breaks in [`routing`] are deterministic across platforms.

pub mod routing;

/// One directed edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edge {
    pub to: usize,
    pub latency_ps: u64,
    /// `(link index, crossed a→b)`; `None` for a socket→attached-memory edge.
    pub link: Option<(usize, bool)>,
}

#[derive(Debug, Clone)]
pub(crate) struct Graph {
    /// One-way latency added when passing through a vertex.
    pub transit_ps: Vec<u64>,
    /// Whether a vertex may pass traffic on (memory nodes never do).
    pub forwards: Vec<bool>,
    pub adj: Vec<Vec<Edge>>,
    /// Reverse adjacency: for vertex v, `(u, index into adj[u])` of every edge u→v.
    pub rev: Vec<Vec<(usize, usize)>>,
}

impl Graph {
    pub fn new(transit_ps: Vec<u64>, forwards: Vec<bool>) -> Self {
        let n = transit_ps.len();
        Graph {
            transit_ps,
            forwards,
            adj: vec![Vec::new(); n],
            rev: vec![Vec::new(); n],
        }
    }

    pub fn len(&self) -> usize {
        self.adj.len()
    }

    pub fn add_edge(&mut self, from: usize, edge: Edge) {
        self.rev[edge.to].push((from, self.adj[from].len()));
        self.adj[from].push(edge);
    }

    /// Adds a link as two directed edges.
    pub fn add_link(&mut self, link: usize, a: usize, b: usize, latency_ps: u64) {
        self.add_edge(
            a,
            Edge {
                to: b,
                latency_ps,
                link: Some((link, true)),
            },
        );
        self.add_edge(
            b,
            Edge {
                to: a,
                latency_ps,
                link: Some((link, false)),
            },
        );
    }
}

/// Nanoseconds to integer picoseconds (inputs are validated finite, non-negative and capped).
pub(crate) fn ns_to_ps(ns: f64) -> u64 {
    (ns * 1000.0).round() as u64
}

pub(crate) fn ps_to_ns(ps: u64) -> f64 {
    ps as f64 / 1000.0
}
