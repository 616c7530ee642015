//! `pr`: PageRank, pull direction, as GAP's `pr.cc` `PageRankPullGS` (Gauss-Seidel).
//!
//! `scores[v] = 1/n` (`pvector::fill`, a static `parallel for`) and `contrib[v] = scores[v] /
//! degree(v)` (static); then per iteration one pull loop: every vertex u sums its
//! in-neighbours' `contrib`, writes `scores[u] = (1 - d)/n + d·sum`, accumulates the L1 change
//! and writes its own `contrib[u] = scores[u] / degree(u)` at once, so later vertices of the
//! same iteration read it (Gauss-Seidel); stops after `iterations` or when the change drops
//! below `tolerance`. `score` and `contrib` are 4 B floats (`ScoreT = float`). GAP's pull loop
//! is `schedule(dynamic, 16384)`, used with `schedule = "gap"` (default `static`, or `dynamic`
//! with `chunk`); the two initial loops are static.
//!
//! Accesses and instructions per vertex and per edge are those of GAP's pull loop compiled by
//! `gcc -O3` (`objdump -d` of `PageRankPullGS._omp_fn.1`): `index[u+1]`, `index[u]`, per edge
//! the neighbour id and its `contrib` (5 instructions an edge), then `scores[u]`, the degree
//! from `index[u+1] - index[u]`, stores of `scores[u]` and `contrib[u]` (23 instructions a
//! vertex outside its edges). The array pointers are loaded from the master thread's stack
//! frame once per chunk; every thread entering a loop reads the struct of shared variables
//! there, and the pull loop's `reduction(+: error)` ends with a compare-and-swap of the
//! master's `error` by every thread; entering and leaving each outlined function, every thread
//! pushes and pops its return address and callee-saved registers on its own stack.

use super::cost::*;
use super::{
    common_docs, enter_function, frame_addr, leave_function, split_params, store_vectorised, Graph, GraphParams,
    FRAME_LOAD,
};
use crate::omp::{Kernel, Loop, OmpSource, Sched, ScheduleName};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;
use std::sync::Arc;

/// GAP's pull loop: `schedule(dynamic, 16384)`.
const GAP_PULL: Sched = Sched::Dynamic(16384);
/// The master's frame: the OpenMP struct (`&g` slot, the `error` reduction variable), then
/// `g`'s fields and the `pvector`s' data pointers.
const SLOT_G: u64 = 0x00;
const SLOT_SCORES: u64 = 0x08;
const SLOT_CONTRIB: u64 = 0x10;
const ERROR: u64 = 0x18;
const G_NODES: u64 = 0x108;
const G_INDEX: u64 = 0x118;
const SCORES_DATA: u64 = 0x180;
const CONTRIB_DATA: u64 = 0x1a0;

numasim_config::declare_params! {
    pub section struct PrParams {
        /// maximum iterations (GAP -i)
        iterations: u32 = 10, unit "iterations", Check::Range(1.0, u32::MAX as f64);
        /// stop when the L1 change of scores drops below this (GAP -t)
        tolerance: f64 = 1e-4, unit "-", Check::Range(0.0, f64::MAX);
        /// damping factor d
        damping: f64 = 0.85, unit "-", Check::Below(0.0, 1.0);
    }
}

/// Every key with its default (the registry's documentation test).
pub fn defaults() -> serde_json::Value {
    super::graph_defaults::<PrParams>(ScheduleName::Static)
}

pub fn info() -> GeneratorInfo {
    let mut params = common_docs(ScheduleName::Static);
    params.extend(PrParams::defs());
    GeneratorInfo {
        name: "pr",
        summary: "GAP PageRank (pull, Gauss-Seidel) on a Kronecker or uniform graph",
        paper: "StarNUMA (GAP suite)",
        params,
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let (common, own): (GraphParams, PrParams) =
        split_params(table, &["iterations", "tolerance", "damping"], ScheduleName::Static)?;
    let g = common.build_graph(false, seed);
    let (threads, wait) = (common.threads, common.wait_policy);
    Ok(Box::new(
        OmpSource::new(Pr::new(g, common, own, seed), threads).with_wait(wait),
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Fill,
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

    /// Callee-saved registers the current loop's outlined function pushes.
    fn saved_registers(&self) -> u64 {
        match self.step {
            Step::Fill => 4,
            _ => 3,
        }
    }

    fn frame(e: &mut Emitter, offset: u64) {
        e.read(FRAME_LOAD, frame_addr(offset), 8);
    }
}

impl Kernel for Pr {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.g.n;
        self.step = match self.step {
            Step::Start => Step::Fill,
            Step::Fill => Step::Contrib,
            Step::Contrib => Step::Pull,
            Step::Pull => {
                self.iter += 1;
                self.iterations_done = self.iter;
                if self.error < self.p.tolerance || self.iter >= self.p.iterations {
                    Step::Done
                } else {
                    Step::Pull
                }
            }
            Step::Done => Step::Done,
        };
        let sched = match self.step {
            Step::Pull => {
                self.error = 0.0;
                self.common.sched(GAP_PULL)
            }
            Step::Done | Step::Start => return None,
            Step::Fill | Step::Contrib => Sched::Static,
        };
        Some(Loop { items: n, sched })
    }

    fn start_thread(&mut self, t: usize, e: &mut Emitter) {
        // The outlined function saves registers and reads its shared variables: `&g`, then
        // `g.num_nodes()`.
        enter_function(t, self.saved_registers(), e);
        Self::frame(e, SLOT_G);
        Self::frame(e, G_NODES);
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let g = Arc::clone(&self.g);
        let n = g.n as f32;
        match self.step {
            Step::Fill => {
                Self::frame(e, SCORES_DATA);
                Self::frame(e, SCORES_DATA + 8);
                self.scores[lo..hi].fill(1.0 / n);
                store_vectorised(self.score_base, lo, hi, 4, e);
            }
            Step::Contrib => {
                Self::frame(e, SLOT_CONTRIB);
                Self::frame(e, G_INDEX);
                Self::frame(e, CONTRIB_DATA);
                for v in lo..hi {
                    e.read(1, g.offset_addr(v + 1), 8);
                    e.read(1, g.offset_addr(v), 8);
                    let d = g.degree(v);
                    self.contrib[v] = if d > 0 { (1.0 / n) / d as f32 } else { f32::INFINITY };
                    e.flops(1);
                    e.write(6, self.contrib_base + v as u64 * 4, 4);
                    e.compute(3);
                }
            }
            Step::Pull => {
                // The chunk's set-up: the arrays' pointers from the master's frame.
                for slot in [
                    SLOT_G,
                    SLOT_SCORES,
                    G_INDEX,
                    G_INDEX,
                    SLOT_CONTRIB,
                    SCORES_DATA,
                    CONTRIB_DATA,
                ] {
                    Self::frame(e, slot);
                }
                let base = (1.0 - self.p.damping as f32) / n;
                let mut err = 0.0f64;
                for u in lo..hi {
                    e.read(4, g.offset_addr(u + 1), 8);
                    e.read(1, g.offset_addr(u), 8);
                    let mut sum = 0.0f32;
                    let mut cost = 4;
                    for j in g.offsets[u]..g.offsets[u + 1] {
                        e.read(cost, g.neigh_addr(j), 4);
                        let v = g.neigh[j as usize] as usize;
                        e.flops(1);
                        e.read(2, self.contrib_base + v as u64 * 4, 4);
                        sum += self.contrib[v];
                        cost = 3;
                    }
                    e.read(5, self.score_base + u as u64 * 4, 4);
                    e.read(1, g.offset_addr(u + 1), 8);
                    e.read(1, g.offset_addr(u), 8);
                    let old = self.scores[u];
                    let new = base + self.p.damping as f32 * sum;
                    self.scores[u] = new;
                    err += (new - old).abs() as f64;
                    e.flops(2);
                    e.write(3, self.score_base + u as u64 * 4, 4);
                    let d = g.degree(u);
                    self.contrib[u] = if d > 0 { new / d as f32 } else { f32::INFINITY };
                    e.flops(2);
                    e.write(8, self.contrib_base + u as u64 * 4, 4);
                }
                self.error += err;
            }
            Step::Start | Step::Done => {}
        }
    }

    fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
        if self.step == Step::Pull {
            // `reduction(+: error)`: every thread adds its part to the master's `error`.
            e.read(FRAME_LOAD, frame_addr(ERROR), 8);
            e.write(CAS, frame_addr(ERROR), 8);
        }
        leave_function(t, self.saved_registers(), e);
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
    fn scores_sum_to_one_and_match_sequential_gauss_seidel() {
        let common = GraphParams {
            graph: GraphKind::Uniform,
            scale: 8,
            degree: 16,
            threads: 4,
            schedule: toml::Value::String("dynamic".into()).try_into().unwrap(),
            chunk: 16,
            wait_policy: Default::default(),
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
        // Reference: the same 20 Gauss-Seidel sweeps in f64, in vertex order (the order the
        // runtime hands out the dynamic chunks), each vertex's contribution updated at once.
        let n = g.n as f64;
        let mut s = vec![1.0 / n; g.n];
        let mut c: Vec<f64> = (0..g.n).map(|v| s[v] / g.degree(v) as f64).collect();
        for _ in 0..20 {
            for u in 0..g.n {
                s[u] = 0.15 / n + 0.85 * g.neighbours(u).iter().map(|&v| c[v as usize]).sum::<f64>();
                c[u] = s[u] / g.degree(u) as f64;
            }
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
