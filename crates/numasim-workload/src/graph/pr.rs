//! `pr`: PageRank, pull direction (Jacobi), as GAP's `pr.cc` `PageRankPull`.
//!
//! Per iteration: `contrib[v] = score[v] / degree(v)` for every vertex (parallel), then every
//! vertex sums its in-neighbours' contributions and writes `score[u] = (1 - d)/n + d·sum`,
//! accumulating the L1 change; stops after `iterations` or when the change drops below
//! `tolerance`. `score` and `contrib` are 4 B floats as in GAP (`ScoreT = float`). Flops: one
//! per edge (the add), three per vertex update, one for the division. Schedules: the
//! contribution loop is a static `parallel for`; GAP's pull loop is `schedule(dynamic, 16384)`,
//! used with `schedule = "gap"` (default `static`, or `dynamic` with `chunk`).

use super::cost::*;
use super::{common_docs, split_params, Graph, GraphParams};
use crate::omp::{Kernel, Loop, OmpSource, Sched, ScheduleName};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;
use std::sync::Arc;

/// GAP's pull loop: `schedule(dynamic, 16384)`.
const GAP_PULL: Sched = Sched::Dynamic(16384);

crate::workload_params! {
    pub struct PrParams {
        iterations: u32 = 10 => "maximum iterations (GAP -i)";
        tolerance: f64 = 1e-4 => "stop when the L1 change of scores drops below this (GAP -t)";
        damping: f64 = 0.85 => "damping factor d";
    }
}

/// Every key with its default (the registry's documentation test).
pub fn defaults() -> serde_json::Value {
    super::graph_defaults::<PrParams>(ScheduleName::Static)
}

pub fn info() -> GeneratorInfo {
    let mut params = common_docs(ScheduleName::Static);
    params.extend(PrParams::param_docs());
    GeneratorInfo {
        name: "pr",
        summary: "GAP PageRank (pull, Jacobi) on a Kronecker or uniform graph",
        paper: "StarNUMA (GAP suite)",
        params,
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let (common, own): (GraphParams, PrParams) =
        split_params(table, &["iterations", "tolerance", "damping"], ScheduleName::Static)?;
    check(own.iterations >= 1, "iterations", "must be at least 1")?;
    check(own.tolerance >= 0.0, "tolerance", "must not be negative")?;
    check((0.0..1.0).contains(&own.damping), "damping", "must be within 0..1")?;
    let g = common.build_graph(false, seed);
    let threads = common.threads;
    Ok(Box::new(OmpSource::new(Pr::new(g, common, own, seed), threads)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Init,
    Contrib,
    Pull,
    Done,
}

pub struct Pr {
    g: Arc<Graph>,
    common: GraphParams,
    p: PrParams,
    seed: u64,
    step: Step,
    iter: u32,
    pub scores: Vec<f32>,
    contrib: Vec<f32>,
    score_base: u64,
    contrib_base: u64,
    error: f64,
    /// Iterations run.
    pub iterations_done: u32,
}

impl Pr {
    pub fn new(g: Arc<Graph>, common: GraphParams, p: PrParams, seed: u64) -> Pr {
        let mut space = g.space.clone();
        let score_base = space.alloc(g.n as u64 * 4);
        let contrib_base = space.alloc(g.n as u64 * 4);
        Pr {
            scores: vec![0.0; g.n],
            contrib: vec![0.0; g.n],
            score_base,
            contrib_base,
            common,
            p,
            seed,
            step: Step::Start,
            iter: 0,
            error: 0.0,
            iterations_done: 0,
            g,
        }
    }
}

impl Kernel for Pr {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.g.n;
        self.step = match self.step {
            Step::Start => Step::Init,
            Step::Init => Step::Contrib,
            Step::Contrib => {
                self.error = 0.0;
                Step::Pull
            }
            Step::Pull => {
                self.iter += 1;
                self.iterations_done = self.iter;
                if self.error < self.p.tolerance || self.iter >= self.p.iterations {
                    Step::Done
                } else {
                    Step::Contrib
                }
            }
            Step::Done => Step::Done,
        };
        let sched = match self.step {
            Step::Pull => self.common.sched(GAP_PULL),
            Step::Done | Step::Start => return None,
            _ => Sched::Static,
        };
        Some(Loop { items: n, sched })
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let g = Arc::clone(&self.g);
        let n = g.n as f32;
        match self.step {
            Step::Init => {
                for v in lo..hi {
                    self.scores[v] = 1.0 / n;
                    e.write(PROP_WRITE, self.score_base + v as u64 * 4, 4);
                }
            }
            Step::Contrib => {
                for v in lo..hi {
                    e.read(PROP_READ, self.score_base + v as u64 * 4, 4);
                    e.read(VERTEX_START, g.offset_addr(v), 8);
                    e.read(VERTEX_END, g.offset_addr(v + 1), 8);
                    let d = g.degree(v);
                    self.contrib[v] = if d > 0 { self.scores[v] / d as f32 } else { 0.0 };
                    e.flops(1);
                    e.write(PROP_WRITE + FLOP, self.contrib_base + v as u64 * 4, 4);
                }
            }
            Step::Pull => {
                let base = (1.0 - self.p.damping as f32) / n;
                let mut err = 0.0f64;
                for u in lo..hi {
                    e.read(VERTEX_START, g.offset_addr(u), 8);
                    e.read(VERTEX_END, g.offset_addr(u + 1), 8);
                    let mut sum = 0.0f32;
                    for j in g.offsets[u]..g.offsets[u + 1] {
                        e.read(EDGE, g.neigh_addr(j), 4);
                        let v = g.neigh[j as usize] as usize;
                        e.flops(1);
                        e.read(PROP_READ + FLOP, self.contrib_base + v as u64 * 4, 4);
                        sum += self.contrib[v];
                    }
                    e.read(PROP_READ, self.score_base + u as u64 * 4, 4);
                    let old = self.scores[u];
                    let new = base + self.p.damping as f32 * sum;
                    self.scores[u] = new;
                    err += (new - old).abs() as f64;
                    e.flops(3);
                    e.write(PROP_WRITE + 3 * FLOP, self.score_base + u as u64 * 4, 4);
                }
                self.error += err;
            }
            Step::Start | Step::Done => {}
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "pr", "seed": self.seed, "params": self.common, "kernel": self.p,
            "vertices": self.g.n, "edges_directed": self.g.edges() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphKind;
    use numasim_trace::collect_all;

    #[test]
    fn scores_sum_to_one_and_match_power_iteration() {
        let common = GraphParams {
            graph: GraphKind::Uniform,
            scale: 8,
            degree: 16,
            threads: 4,
            schedule: toml::Value::String("dynamic".into()).try_into().unwrap(),
            chunk: 16,
        };
        let g = common.build_graph(false, 2);
        assert!(
            (0..g.n).all(|v| g.degree(v) > 0),
            "test graph must have no dangling vertex"
        );
        let p = PrParams {
            iterations: 20,
            tolerance: 0.0,
            damping: 0.85,
        };
        let mut src = OmpSource::new(Pr::new(g.clone(), common, p, 2), 4);
        src.run_to_end();
        let pr = src.kernel();
        let sum: f64 = pr.scores.iter().map(|&s| s as f64).sum();
        assert!((sum - 1.0).abs() < 1e-3, "sum {sum}");
        // Reference: the same 20 Jacobi iterations in f64.
        let n = g.n as f64;
        let mut s = vec![1.0 / n; g.n];
        for _ in 0..20 {
            let c: Vec<f64> = (0..g.n).map(|v| s[v] / g.degree(v) as f64).collect();
            s = (0..g.n)
                .map(|u| 0.15 / n + 0.85 * g.neighbours(u).iter().map(|&v| c[v as usize]).sum::<f64>())
                .collect();
        }
        for (got, want) in pr.scores.iter().zip(&s) {
            assert!((*got as f64 - want).abs() < 1e-5);
        }
    }

    #[test]
    fn deterministic_seeded_and_monotonic() {
        let run = |seed| {
            let t: toml::Table = toml::from_str("scale = 7\ndegree = 4\nthreads = 3\niterations = 3").unwrap();
            collect_all(&mut build(t, seed).unwrap()).unwrap()
        };
        let a = run(1);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        assert!(a.iter().all(|s| s.windows(2).all(|w| w[0].instr < w[1].instr)));
        assert!(a.iter().flatten().any(|x| x.flops > 0));
    }
}
