//! `sssp`: single-source shortest paths by delta-stepping (Meyer & Sanders), as GAP's `sssp.cc`.
//!
//! Weighted graph (neighbour entries are GAP's 8 B `NodeWeight`, weights 1..=255). `dist` is
//! 4 B per vertex. Each iteration processes the shared frontier (vertices of the current bin)
//! in parallel, relaxing edges with CAS on `dist` and pushing improved vertices into
//! thread-local bins (`new_dist / delta`); then the smallest non-empty bin over all threads
//! becomes the next bin and every thread copies its local bin into the shared frontier.
//! Local bins live in thread-private memory. GAP's frontier loop is `schedule(dynamic, 64)`,
//! used with `schedule = "gap"` (default `static`, or `dynamic` with `chunk`).

use super::cost::*;
use super::{common_docs, split_params, Graph, GraphParams};
use crate::omp::{Kernel, Loop, OmpSource, Sched, ScheduleName};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::private_base;
use numasim_trace::AccessSource;
use rand::Rng as _;
use std::sync::Arc;

/// GAP's "infinite" distance.
pub const INF: u32 = i32::MAX as u32;
/// Bytes of private memory reserved per local bin (addresses wrap inside it).
const BIN_WINDOW: u64 = 16 << 20;
const BIN_WINDOWS: usize = 64;
/// GAP's frontier loop: `schedule(dynamic, 64)`.
const GAP_SCHEDULE: Sched = Sched::Dynamic(64);

crate::workload_params! {
    pub struct SsspParams {
        delta: u32 = 1 => "bucket width of delta-stepping (GAP -d)";
        trials: u32 = 1 => "searches, each from a random source of non-zero degree";
        source_vertex: Option<u64> = None => "fixed source vertex for every trial", shown "random";
    }
}

/// Every key with its default (the registry's documentation test).
pub fn defaults() -> serde_json::Value {
    super::graph_defaults::<SsspParams>(ScheduleName::Static)
}

pub fn info() -> GeneratorInfo {
    let mut params = common_docs(ScheduleName::Static);
    params.extend(SsspParams::param_docs());
    GeneratorInfo {
        name: "sssp",
        summary: "GAP delta-stepping SSSP on a weighted Kronecker or uniform graph",
        paper: "StarNUMA (GAP suite)",
        params,
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let (common, own): (GraphParams, SsspParams) =
        split_params(table, &["delta", "trials", "source_vertex"], ScheduleName::Static)?;
    let g = common.build_graph(true, seed);
    Ok(Box::new(source(g, &common, own, seed)?))
}

pub fn source(g: Arc<Graph>, common: &GraphParams, p: SsspParams, seed: u64) -> Result<OmpSource<Sssp>, WorkloadError> {
    check(p.delta >= 1, "delta", "must be at least 1")?;
    check(p.trials >= 1, "trials", "must be at least 1")?;
    if let Some(s) = p.source_vertex {
        check(
            (s as usize) < g.n,
            "source_vertex",
            format!("must be below {} vertices", g.n),
        )?;
    }
    check((0..g.n).any(|u| g.degree(u) > 0), "degree", "the graph has no edges")?;
    check(
        !g.weights.is_empty() || g.edges() == 0,
        "graph",
        "sssp needs a weighted graph",
    )?;
    let threads = common.threads;
    let mut space = g.space.clone();
    let dist_base = space.alloc(g.n as u64 * 4);
    let frontier_base = space.alloc(g.edges().max(1) * 4);
    let k = Sssp {
        sched: common.sched(GAP_SCHEDULE),
        common: common.clone(),
        rng: stream(seed, 0x555),
        seed,
        step: Step::TrialStart,
        trial: 0,
        source: 0,
        dist: vec![INF; g.n],
        dist_base,
        frontier: vec![0; g.edges().max(1) as usize],
        frontier_base,
        tail: 0,
        next_tail: 0,
        bin: 0,
        next_bin: usize::MAX,
        bins: (0..threads).map(|_| Vec::new()).collect(),
        p,
        g,
    };
    Ok(OmpSource::new(k, threads).with_wait(common.wait_policy))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    TrialStart,
    Init,
    Relax,
    Copy,
}

pub struct Sssp {
    g: Arc<Graph>,
    common: GraphParams,
    p: SsspParams,
    seed: u64,
    rng: Rng,
    sched: Sched,
    step: Step,
    trial: u32,
    pub source: usize,
    /// Distances of the last trial (`INF` = unreachable).
    pub dist: Vec<u32>,
    dist_base: u64,
    frontier: Vec<u32>,
    frontier_base: u64,
    tail: usize,
    next_tail: usize,
    bin: usize,
    next_bin: usize,
    /// Thread-local bins: `bins[t][b]`.
    bins: Vec<Vec<Vec<u32>>>,
}

impl Sssp {
    #[inline(always)]
    fn bin_addr(t: usize, b: usize, i: usize) -> u64 {
        private_base(t) + (b % BIN_WINDOWS) as u64 * BIN_WINDOW + (i as u64 * 4) % BIN_WINDOW
    }

    fn start_relax(&mut self) -> Option<Loop> {
        self.step = Step::Relax;
        Some(Loop {
            items: self.tail,
            sched: self.sched,
        })
    }
}

impl Kernel for Sssp {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.g.n;
        match self.step {
            Step::TrialStart => {
                if self.trial >= self.p.trials {
                    return None;
                }
                self.trial += 1;
                self.source = match self.p.source_vertex {
                    Some(s) => s as usize,
                    None => loop {
                        let s = self.rng.gen_range(0..n);
                        if self.g.degree(s) > 0 {
                            break s;
                        }
                    },
                };
                self.step = Step::Init;
                Some(Loop {
                    items: n,
                    sched: Sched::Static,
                })
            }
            Step::Init => {
                self.dist[self.source] = 0;
                self.frontier[0] = self.source as u32;
                self.tail = 1;
                self.bin = 0;
                self.start_relax()
            }
            Step::Relax => {
                // Smallest non-empty local bin at or after the current one, over all threads.
                self.next_bin = self
                    .bins
                    .iter()
                    .filter_map(|b| (self.bin..b.len()).find(|&i| !b[i].is_empty()))
                    .min()
                    .unwrap_or(usize::MAX);
                if self.next_bin == usize::MAX {
                    self.step = Step::TrialStart;
                    return self.next_loop();
                }
                self.next_tail = 0;
                self.step = Step::Copy;
                Some(Loop {
                    items: self.bins.len(),
                    sched: Sched::PerThread,
                })
            }
            Step::Copy => {
                self.bin = self.next_bin;
                self.tail = self.next_tail;
                self.start_relax()
            }
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let g = Arc::clone(&self.g);
        let delta = self.p.delta as u64;
        match self.step {
            Step::Init => {
                for v in lo..hi {
                    self.dist[v] = INF;
                    e.write(PROP_WRITE, self.dist_base + v as u64 * 4, 4);
                }
                if lo == 0 && t == 0 {
                    e.write(PROP_WRITE, self.dist_base + self.source as u64 * 4, 4);
                    e.write(QUEUE_PUSH, self.frontier_base, 4);
                }
            }
            Step::Relax => {
                for i in lo..hi {
                    e.read(PROP_READ, self.frontier_base + i as u64 * 4, 4);
                    let u = self.frontier[i] as usize;
                    e.read(PROP_READ, self.dist_base + u as u64 * 4, 4);
                    let du = self.dist[u] as u64;
                    if du < delta * self.bin as u64 {
                        continue;
                    }
                    e.read(VERTEX_START, g.offset_addr(u), 8);
                    e.read(VERTEX_END, g.offset_addr(u + 1), 8);
                    for j in g.offsets[u]..g.offsets[u + 1] {
                        e.read(EDGE + 1, g.neigh_addr(j), 8);
                        let (v, w) = (g.neigh[j as usize] as usize, g.weights[j as usize] as u64);
                        e.read(PROP_READ + 1, self.dist_base + v as u64 * 4, 4);
                        let new = du + w;
                        if new < self.dist[v] as u64 {
                            self.dist[v] = new as u32;
                            e.write(CAS, self.dist_base + v as u64 * 4, 4);
                            let b = (new / delta) as usize;
                            let bins = &mut self.bins[t];
                            if b >= bins.len() {
                                bins.resize_with(b + 1, Vec::new);
                            }
                            e.write(QUEUE_PUSH, Self::bin_addr(t, b, bins[b].len()), 4);
                            bins[b].push(v as u32);
                        }
                    }
                }
            }
            Step::Copy => {
                let b = self.next_bin;
                if b < self.bins[t].len() {
                    let start = self.next_tail;
                    let local = std::mem::take(&mut self.bins[t][b]);
                    for (k, &v) in local.iter().enumerate() {
                        e.read(COPY, Self::bin_addr(t, b, k), 4);
                        e.write(COPY, self.frontier_base + (start + k) as u64 * 4, 4);
                        self.frontier[start + k] = v;
                    }
                    self.next_tail += local.len();
                    let mut local = local;
                    local.clear();
                    self.bins[t][b] = local;
                }
            }
            Step::TrialStart => {}
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "sssp", "seed": self.seed, "params": self.common, "kernel": self.p,
            "vertices": self.g.n, "edges_directed": self.g.edges() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphKind;
    use numasim_trace::collect_all;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    fn dijkstra(g: &Graph, s: usize) -> Vec<u32> {
        let mut d = vec![INF; g.n];
        d[s] = 0;
        let mut h = BinaryHeap::from([Reverse((0u32, s))]);
        while let Some(Reverse((du, u))) = h.pop() {
            if du > d[u] {
                continue;
            }
            for j in g.offsets[u]..g.offsets[u + 1] {
                let (v, w) = (g.neigh[j as usize] as usize, g.weights[j as usize]);
                if du + w < d[v] {
                    d[v] = du + w;
                    h.push(Reverse((d[v], v)));
                }
            }
        }
        d
    }

    #[test]
    fn distances_match_dijkstra() {
        for (kind, delta, threads, sched) in [
            (GraphKind::Kronecker, 1, 4, "static"),
            (GraphKind::Uniform, 40, 3, "dynamic"),
        ] {
            let common = GraphParams {
                graph: kind,
                scale: 9,
                degree: 4,
                threads,
                schedule: toml::Value::String(sched.into()).try_into().unwrap(),
                chunk: 8,
                wait_policy: Default::default(),
            };
            let g = common.build_graph(true, 3);
            let p = SsspParams {
                delta,
                ..Default::default()
            };
            let mut src = source(g.clone(), &common, p, 3).unwrap();
            src.run_to_end();
            assert_eq!(src.kernel().dist, dijkstra(&g, src.kernel().source));
        }
    }

    #[test]
    fn deterministic_seeded_and_monotonic() {
        let run = |seed| {
            let t: toml::Table = toml::from_str("scale = 7\ndegree = 4\nthreads = 3\ndelta = 16").unwrap();
            collect_all(&mut build(t, seed).unwrap()).unwrap()
        };
        let a = run(1);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        assert!(a.iter().all(|s| s.windows(2).all(|w| w[0].instr < w[1].instr)));
    }
}
