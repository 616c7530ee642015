//! `cc`: connected components by Afforest (Sutton et al., IPDPS'18), as GAP's `cc.cc`.
//!
//! `comp[v] = v`; for each of `neighbor_rounds` rounds, link every vertex with its r-th
//! neighbour and compress; sample `comp` to guess the giant component c; then link the
//! remaining neighbours of every vertex not in c, and compress. Link is GAP's lock-free
//! hooking (CAS of the higher root onto the lower). `comp` is 4 B per vertex. GAP's link and compress loops use
//! `schedule(dynamic, 16384)` (with `schedule = "gap"`), its initialisation a plain static
//! `parallel for`; the default is `static` (or `dynamic` with `chunk`) for the link and compress
//! loops.
//!
//! The accesses are those of GAP's loops compiled by `gcc -O3` (`objdump -d` of
//! `Afforest._omp_fn.*`, `Compress._omp_fn.0` and `Link`): `comp` is a `pvector` in the master
//! thread's stack frame and `g` a graph there too, and the loops reach them through the OpenMP
//! struct of shared-variable pointers, reloading the pointers where a compare-and-swap may
//! have changed memory: per sampled vertex `&g` and `g.out_index_`, per link `&comp` and
//! `comp.start_`; in the final link loop `&comp`, `comp.start_` and `comp[u]` again before
//! every edge, and `&g`, `g.out_index_` per vertex outside the giant component; `Compress`
//! loads them once per chunk. Every thread entering a loop reads `&g` and `g.num_nodes()`.
//! `Link`'s retry reads `comp[comp[high]]` from the `comp[high]` it has just read. Each
//! outlined function pushes its return address and callee-saved registers on the thread's
//! stack and pops them at its end; the sampling loop calls `Link` (a push and a pop), the
//! others inline it; the initialisation loop stores 16 B (four labels) at a time.

use super::cost::*;
use super::{
    common_docs, enter_function, frame_addr, leave_function, split_params, stack_addr, store_vectorised, Graph,
    GraphParams, FRAME_LOAD,
};
use crate::omp::{Kernel, Loop, OmpSource, Sched, ScheduleName};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;
use rand::Rng as _;
use std::sync::Arc;

/// GAP's sample size for the most frequent component.
const SAMPLES: usize = 1024;
/// GAP's link and compress loops: `schedule(dynamic, 16384)`.
const GAP_SCHEDULE: Sched = Sched::Dynamic(16384);
/// The master's frame: the OpenMP struct (`&g`, `&comp` slots), `g`'s fields, `comp`'s data
/// pointer.
const SLOT_G: u64 = 0x00;
const SLOT_COMP: u64 = 0x08;
const G_NODES: u64 = 0x108;
const G_INDEX: u64 = 0x118;
const COMP_DATA: u64 = 0x180;
/// Where a call from a loop's outlined function pushes its return address.
const RETURN_ADDRESS: u64 = 0x0f8;

numasim_config::declare_params! {
    pub section struct CcParams {
        /// Afforest sampling rounds (one neighbour per vertex each)
        neighbor_rounds: u32 = 2, unit "rounds", Check::Range(0.0, 64.0);
        /// runs of the whole kernel, each from `comp[v] = v` (GAP's `-n`)
        trials: u32 = 1, unit "trials", Check::Range(1.0, u32::MAX as f64);
    }
}

/// Every key with its default (the registry's documentation test).
pub fn defaults() -> serde_json::Value {
    super::graph_defaults::<CcParams>(ScheduleName::Static)
}

pub fn info() -> GeneratorInfo {
    let mut params = common_docs(ScheduleName::Static);
    params.extend(CcParams::defs());
    GeneratorInfo {
        name: "cc",
        summary: "GAP connected components (Afforest) on a Kronecker or uniform graph",
        paper: "StarNUMA (GAP suite)",
        params,
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let (common, own): (GraphParams, CcParams) =
        split_params(table, &["neighbor_rounds", "trials"], ScheduleName::Static)?;
    let g = common.build_graph(false, seed);
    let (threads, wait) = (common.threads, common.wait_policy);
    Ok(Box::new(
        OmpSource::new(Cc::new(g, common, own, seed), threads).with_wait(wait),
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Init,
    Sample(u32),
    Compress(u32),
    Pick,
    Finish,
    FinalCompress,
    Done,
}

pub struct Cc {
    g: Arc<Graph>,
    common: GraphParams,
    p: CcParams,
    seed: u64,
    rng: Rng,
    sched: Sched,
    step: Step,
    /// Trials finished.
    trial: u32,
    /// Component label of every vertex (final: the smallest vertex id of its component's root).
    pub comp: Vec<u32>,
    comp_base: u64,
    giant: u32,
}

impl Cc {
    pub fn new(g: Arc<Graph>, common: GraphParams, p: CcParams, seed: u64) -> Cc {
        let mut space = g.space.clone();
        let comp_base = space.alloc(g.n as u64 * 4);
        Cc {
            sched: common.sched(GAP_SCHEDULE),
            comp: vec![0; g.n],
            comp_base,
            common,
            p,
            seed,
            rng: stream(seed, 0xCC),
            step: Step::Start,
            trial: 0,
            giant: 0,
            g,
        }
    }

    #[inline(always)]
    fn at(&self, v: u32) -> u64 {
        self.comp_base + v as u64 * 4
    }

    #[inline(always)]
    fn load(&self, v: u32, cost: u64, e: &mut Emitter) -> u32 {
        e.read(cost, self.at(v), 4);
        self.comp[v as usize]
    }

    /// Callee-saved registers the current loop's outlined function pushes (`objdump -d`).
    fn saved_registers(&self) -> u64 {
        match self.step {
            Step::Init => 2,
            Step::Sample(_) => 5,
            Step::Finish => 6,
            _ => 3,
        }
    }

    #[inline(always)]
    fn frame(e: &mut Emitter, offset: u64) {
        e.read(FRAME_LOAD, frame_addr(offset), 8);
    }

    /// GAP `Link(u, v, comp)` called by thread `t` (a call: return address pushed and
    /// popped; `comp.start_` loaded first).
    fn link(&mut self, t: usize, u: u32, v: u32, e: &mut Emitter) {
        e.write(2, stack_addr(t, RETURN_ADDRESS), 8);
        Self::frame(e, COMP_DATA);
        let p1 = self.load(u, 3, e);
        self.link_from(p1, v, e);
        e.read(2, stack_addr(t, RETURN_ADDRESS), 8);
    }

    /// `Link` once `comp[u]` is known to be `p1`. Instructions per access as compiled.
    fn link_from(&mut self, mut p1: u32, v: u32, e: &mut Emitter) {
        let mut p2 = self.load(v, 1, e);
        while p1 != p2 {
            let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
            let p_high = self.load(high, 10, e);
            if p_high == low {
                break;
            }
            if p_high == high {
                // compare_and_swap(comp[high], high, low) succeeds (no concurrent writer here).
                self.comp[high as usize] = low;
                e.write(5, self.at(high), 4);
                break;
            }
            p1 = self.load(p_high, 6, e);
            p2 = self.load(low, 1, e);
        }
    }

    /// The number of distinct components.
    pub fn components(&self) -> usize {
        let mut roots: Vec<u32> = self.comp.clone();
        roots.sort_unstable();
        roots.dedup();
        roots.len()
    }
}

impl Kernel for Cc {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.g.n;
        let all = |sched| Some(Loop { items: n, sched });
        self.step = match self.step {
            Step::Start => Step::Init,
            Step::Init if self.p.neighbor_rounds == 0 => Step::Pick,
            Step::Init => Step::Sample(0),
            Step::Sample(r) => Step::Compress(r),
            Step::Compress(r) if r + 1 < self.p.neighbor_rounds => Step::Sample(r + 1),
            Step::Compress(_) => Step::Pick,
            Step::Pick => Step::Finish,
            Step::Finish => Step::FinalCompress,
            // GAP's trials: the kernel again from the start.
            Step::FinalCompress if self.trial + 1 < self.p.trials => {
                self.trial += 1;
                Step::Init
            }
            Step::FinalCompress | Step::Done => Step::Done,
        };
        match self.step {
            Step::Init => all(Sched::Static),
            Step::Sample(_) | Step::Compress(_) | Step::Finish | Step::FinalCompress => all(self.sched),
            Step::Pick => Some(Loop {
                items: SAMPLES,
                sched: Sched::Serial,
            }),
            Step::Start | Step::Done => None,
        }
    }

    fn start_thread(&mut self, t: usize, e: &mut Emitter) {
        if self.step != Step::Pick {
            enter_function(t, self.saved_registers(), e);
            Self::frame(e, SLOT_G);
            Self::frame(e, G_NODES);
        }
    }

    fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
        if self.step != Step::Pick {
            leave_function(t, self.saved_registers(), e);
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let g = Arc::clone(&self.g);
        match self.step {
            Step::Init => {
                Self::frame(e, SLOT_COMP);
                Self::frame(e, COMP_DATA);
                for v in lo..hi {
                    self.comp[v] = v as u32;
                }
                store_vectorised(self.comp_base, lo, hi, 6, e);
            }
            Step::Sample(r) => {
                for u in lo..hi {
                    e.read(5, frame_addr(SLOT_G), 8);
                    Self::frame(e, G_INDEX);
                    e.read(1, g.offset_addr(u + 1), 8);
                    e.read(1, g.offset_addr(u), 8);
                    e.compute(8);
                    if g.degree(u) > r as u64 {
                        let j = g.offsets[u] + r as u64;
                        Self::frame(e, SLOT_COMP);
                        e.read(1, g.neigh_addr(j), 4);
                        self.link(t, u as u32, g.neigh[j as usize], e);
                    }
                }
            }
            Step::Compress(_) | Step::FinalCompress => {
                Self::frame(e, SLOT_COMP);
                Self::frame(e, COMP_DATA);
                for v in lo..hi {
                    let mut c = self.load(v as u32, 7, e);
                    loop {
                        let cc = self.load(c, 2, e);
                        e.compute(2);
                        if c == cc {
                            break;
                        }
                        self.comp[v] = cc;
                        e.write(1, self.at(v as u32), 4);
                        c = self.load(v as u32, 3, e);
                    }
                }
            }
            Step::Pick => {
                // SampleFrequentElement: count labels of random vertices, keep the most frequent.
                if lo == 0 {
                    let mut counts: std::collections::BTreeMap<u32, u32> = Default::default();
                    for _ in 0..SAMPLES {
                        let v = self.rng.gen_range(0..g.n) as u32;
                        let c = self.load(v, PROP_READ, e);
                        *counts.entry(c).or_default() += 1;
                    }
                    self.giant = counts
                        .iter()
                        .max_by_key(|(c, k)| (**k, std::cmp::Reverse(**c)))
                        .map_or(0, |(c, _)| *c);
                }
            }
            Step::Finish => {
                let skip = self.p.neighbor_rounds as u64;
                for u in lo..hi {
                    e.read(5, frame_addr(SLOT_COMP), 8);
                    Self::frame(e, COMP_DATA);
                    let mut cu = self.load(u as u32, 1, e);
                    if cu == self.giant {
                        continue;
                    }
                    e.read(3, frame_addr(SLOT_G), 8);
                    Self::frame(e, G_INDEX);
                    e.read(1, g.offset_addr(u + 1), 8);
                    e.read(1, g.offset_addr(u), 8);
                    e.compute(8);
                    let edges = g.offsets[u] + skip.min(g.degree(u))..g.offsets[u + 1];
                    let last = edges.end;
                    for j in edges {
                        e.read(2, g.neigh_addr(j), 4);
                        self.link_from(cu, g.neigh[j as usize], e);
                        e.compute(2);
                        if j + 1 < last {
                            e.read(3, frame_addr(SLOT_COMP), 8);
                            Self::frame(e, COMP_DATA);
                            cu = self.load(u as u32, 1, e);
                        }
                    }
                }
            }
            Step::Start | Step::Done => {}
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "cc", "seed": self.seed, "params": self.common, "kernel": self.p,
            "vertices": self.g.n, "edges_directed": self.g.edges() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphKind;
    use numasim_trace::collect_all;

    fn union_find_components(g: &Graph) -> usize {
        let mut p: Vec<usize> = (0..g.n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for u in 0..g.n {
            for &v in g.neighbours(u) {
                let (a, b) = (find(&mut p, u), find(&mut p, v as usize));
                p[a] = b;
            }
        }
        (0..g.n).filter(|&x| find(&mut p, x) == x).count()
    }

    #[test]
    fn component_count_matches_union_find() {
        for (kind, sched, threads, seed) in [
            (GraphKind::Kronecker, "static", 4, 1),
            (GraphKind::Uniform, "dynamic", 5, 2),
        ] {
            let common = GraphParams {
                graph: kind,
                scale: 10,
                degree: 2,
                threads,
                schedule: toml::Value::String(sched.into()).try_into().unwrap(),
                chunk: 32,
                wait_policy: Default::default(),
            };
            let g = common.build_graph(false, seed);
            let mut src = OmpSource::new(Cc::new(g.clone(), common, CcParams::default(), seed), threads);
            src.run_to_end();
            let cc = src.kernel();
            assert_eq!(cc.components(), union_find_components(&g));
            for u in 0..g.n {
                for &v in g.neighbours(u) {
                    assert_eq!(cc.comp[u], cc.comp[v as usize]);
                }
            }
        }
    }

    #[test]
    fn each_trial_repeats_the_kernel_from_the_start() {
        let run = |trials: u32| {
            let t: toml::Table =
                toml::from_str(&format!("scale = 9\ndegree = 4\nthreads = 2\ntrials = {trials}")).unwrap();
            collect_all(&mut build(t, 3).unwrap()).unwrap()
        };
        let (one, two) = (run(1), run(2));
        let count = |s: &Vec<Vec<numasim_trace::Access>>| s.iter().map(Vec::len).sum::<usize>();
        // The second trial re-initialises every label and links again: about as much work
        // as the first (only the sampled giant component may differ).
        let (n1, n2) = (count(&one), count(&two));
        assert!(n2 > n1 * 3 / 2 && n2 < n1 * 5 / 2, "{n1} then {n2}");
        // The first trial is the one-trial run.
        assert_eq!(&two[0][..one[0].len()], &one[0][..]);
        let t: toml::Table = toml::from_str("scale = 8\ndegree = 4\nthreads = 2\ntrials = 0").unwrap();
        assert!(build(t, 1).is_err());
    }

    #[test]
    fn deterministic_seeded_and_monotonic() {
        let run = |seed| {
            let t: toml::Table = toml::from_str("scale = 8\ndegree = 4\nthreads = 3").unwrap();
            collect_all(&mut build(t, seed).unwrap()).unwrap()
        };
        let a = run(1);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        assert!(a.iter().all(|s| s.windows(2).all(|w| w[0].instr < w[1].instr)));
    }
}
