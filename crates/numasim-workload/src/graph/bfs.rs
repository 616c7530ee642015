//! `bfs`: direction-optimising breadth-first search, as GAP's `bfs.cc` (Beamer et al., SC'12).
//!
//! Per trial: `parent[v] = -degree(v)` (parallel), then top-down steps over a sliding queue
//! (CAS on `parent`, thread-local queue buffers flushed into the shared queue) until the
//! frontier's out-edges exceed `edges_to_check / alpha`; then bottom-up steps over bitmaps
//! (every unvisited vertex scans its neighbours for one in the frontier) while the frontier
//! grows or exceeds `n / beta`; then back to the queue; when the queue is empty, a static loop
//! turns every unvisited `parent` entry into -1. Arrays and element sizes as GAP: index 8 B,
//! neighbours 4 B, parent 4 B, queue 4 B, bitmaps of 8 B words, per-thread `QueueBuffer`s of
//! 16384 entries. `parent`, the queue and the two bitmaps are heap arrays allocated one after
//! another ([`heap_arrays`]), so no array starts on a page: a bottom-up chunk of 1024 vertices
//! (4 KiB of `parent`) spans two pages, as in the compiled program. Setting a bit is a load and
//! a store (`or` into memory in the bottom-up step, load and compare-and-swap in the
//! conversion). Used by StarNUMA (GAP BFS on Kronecker graphs).
//!
//! Loop schedules with `schedule = "gap"` (the default), as GAP's pragmas: the bottom-up step
//! is `schedule(dynamic, 1024)`; the top-down step (`omp for` over the queue with no schedule
//! clause), parent initialisation and the queue/bitmap conversions are plain `parallel for`,
//! i.e. the implementation's default schedule, static in libgomp and LLVM's runtime; the bitmap
//! resets are serial (`std::fill`). `schedule = "static"` or `"dynamic"` (with `chunk`) puts
//! both the top-down and the bottom-up step under that one schedule instead (studies); the
//! other loops stay as above.
//!
//! `frame_loads = true` (the default) adds the loads GAP's compiled steps make of the kernel's
//! shared objects, which live in the master thread's stack frame (read from `gcc -O3` code of
//! GAP's `bfs.cc`: the OpenMP outlined functions reach `g`, `parent`, `front` and `next` through the struct of
//! shared-variable pointers the master builds, and reload the objects' array pointers in their
//! loops): per top-down frontier vertex the `&g` slot and `g.out_index_`; per top-down edge the
//! `&parent` slot and `parent.data()`; per bottom-up unvisited vertex `g.in_index_`, and
//! `front.start_` when it has neighbours; per vertex found bottom-up the `&next` slot and
//! `next.start_`; per vertex of both conversions the `&bm` slot and `front.start_`. Every thread
//! reads that one page of the master's stack, so in the traced program it is the most shared
//! page (a fifth of the accesses of a 16-thread g14 run).

use super::cost::*;
use super::{common_docs, split_params, Graph, GraphParams};
use crate::omp::{Kernel, Loop, OmpSource, Sched, ScheduleName};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{heap_arrays, private_base, MALLOC_HEADER};
use numasim_trace::AccessSource;
use std::sync::Arc;

/// GAP's `QueueBuffer` capacity.
const LOCAL_QUEUE: usize = 16384;
/// The master thread's stack frame holding the kernel's shared objects (`frame_loads`): in
/// thread 0's private window, clear of its local queue.
const FRAME_OFFSET: u64 = 0x1000_0000;
/// Offsets in the frame: the OpenMP struct of shared-variable pointers (`&g`, `&parent`,
/// `&next` slots), then the objects' array pointers.
const SLOT_G: u64 = 0x00;
const SLOT_PARENT: u64 = 0x08;
const SLOT_NEXT: u64 = 0x18;
const G_INDEX: u64 = 0x100;
const PARENT_DATA: u64 = 0x180;
const FRONT_START: u64 = 0x1c0;
const NEXT_START: u64 = 0x1e0;
/// The `&bm` slot of the conversions' shared-variable struct.
const SLOT_BITMAP: u64 = 0x48;
/// Instructions of one such load (a plain `mov`).
const FRAME_LOAD: u64 = 1;
/// Instructions per iteration of GAP's compiled loops (`objdump -d` of `bfs.cc` built with
/// `g++ -O3 -fopenmp`, x86-64), from one iteration's first instruction to the next's. The
/// accesses' costs ([`super::cost`]) count the loads, stores and compare-and-branch around
/// them; the loop's own increment and bound test (and the degree's sign in `InitParent`) are
/// charged as computation. `InitParent`: two index loads, cmp/je, sub/sar/neg, the store,
/// add/cmp/jg.
const INIT_ITER: u64 = 11;
/// `BUStep`, up to the test of `parent[u]`: mov/add/cmp/jle/add, the load, test/jns.
const BU_VERTEX: u64 = 8;
/// `TDStep`, per edge whose end is visited: the `&parent` slot, the neighbour, `parent.data()`,
/// mov/lea, the load of `parent[v]`, test/jns, add/cmp/je.
const TD_EDGE: u64 = 11;
/// `BitmapToQueue`, per vertex not in the frontier: the `&bm` slot, `bm.start_`, mov/shr, the
/// word, bt/jae, add/cmp/je.
const B2Q_ITER: u64 = 11;
/// The final loop: cmpl/jge, add/cmp/jne.
const FINISH_ITER: u64 = 5;
/// GAP's `TDStep` loop: `#pragma omp for reduction(+ : scout_count) nowait`, no schedule clause.
const GAP_TOP_DOWN: Sched = Sched::Static;
/// GAP's `BUStep` loop: `schedule(dynamic, 1024)`.
const GAP_BOTTOM_UP: Sched = Sched::Dynamic(1024);

numasim_config::declare_params! {
    pub section struct BfsParams {
        /// searches, each from a random source of non-zero degree
        trials: u32 = 1, unit "trials", Check::Range(1.0, u32::MAX as f64);
        /// fixed source vertex for every trial
        source_vertex: Option<u64> = None, unit "vertex", Check::Any, unset "random";
        /// switch to bottom-up when frontier edges > unexplored edges / alpha
        alpha: u64 = 15, unit "-", Check::Range(1.0, u64::MAX as f64);
        /// back to top-down when the frontier shrinks below n / beta
        beta: u64 = 18, unit "-", Check::Range(1.0, u64::MAX as f64);
        /// loads of the shared objects (graph, parent, bitmaps) in the master's stack frame, as GAP's compiled steps make them
        frame_loads: bool = true, unit "-", Check::Any;
    }
}

/// Every key with its default (the registry's documentation test).
pub fn defaults() -> serde_json::Value {
    super::graph_defaults::<BfsParams>(ScheduleName::Gap)
}

pub fn info() -> GeneratorInfo {
    let mut params = common_docs(ScheduleName::Gap);
    params.extend(BfsParams::defs());
    GeneratorInfo {
        name: "bfs",
        summary: "GAP direction-optimising BFS on a Kronecker or uniform graph (CSR)",
        paper: "StarNUMA (GAP suite)",
        params,
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let (common, own): (GraphParams, BfsParams) = split_params(table, BfsParams::KEYS, ScheduleName::Gap)?;
    let g = common.build_graph(false, seed);
    Ok(Box::new(source(g, &common, own, seed)?))
}

/// The generator on an existing graph (benchmarks share one graph between runs).
pub fn source(g: Arc<Graph>, common: &GraphParams, p: BfsParams, seed: u64) -> Result<OmpSource<Bfs>, WorkloadError> {
    crate::params::in_range(&p)?;
    super::check_source_vertex(&g, p.source_vertex)?;
    check((0..g.n).any(|u| g.degree(u) > 0), "degree", "the graph has no edges")?;
    let threads = common.threads;
    Ok(OmpSource::new(Bfs::new(g, common.clone(), p, seed, threads), threads).with_wait(common.wait_policy))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    TrialStart,
    InitParent,
    Setup,
    TopDown,
    QueueToBitmap,
    ResetNext,
    BottomUp,
    BitmapToQueue,
    /// The loop after the search: `parent[v] < -1` (unvisited) becomes -1.
    Finish,
}

/// The BFS state: GAP's data structures, real values.
pub struct Bfs {
    g: Arc<Graph>,
    common: GraphParams,
    p: BfsParams,
    seed: u64,
    rng: Rng,
    /// Schedules of the top-down and bottom-up steps.
    td_sched: Sched,
    bu_sched: Sched,
    step: Step,
    trial: u32,
    /// The current trial's source.
    pub source: usize,
    /// `parent[v]`: parent id, or `-degree` (or -1) if unvisited.
    pub parent: Vec<i32>,
    parent_base: u64,
    queue: Vec<u32>,
    queue_base: u64,
    /// Sliding window `q_start..q_end` is the current frontier; `q_in` is the next free slot.
    q_start: usize,
    q_end: usize,
    q_in: usize,
    front: Vec<u64>,
    front_base: u64,
    next: Vec<u64>,
    next_base: u64,
    local: Vec<Vec<u32>>,
    scout: Vec<u64>,
    awake: Vec<u64>,
    edges_to_check: u64,
    scout_count: u64,
    awake_count: u64,
    old_awake_count: u64,
    /// Steps run so far, by direction (for tests and descriptions).
    pub top_down_steps: u64,
    pub bottom_up_steps: u64,
}

impl Bfs {
    fn new(g: Arc<Graph>, common: GraphParams, p: BfsParams, seed: u64, threads: usize) -> Bfs {
        let n = g.n;
        let mut space = g.space.clone();
        let words = n.div_ceil(64);
        // In GAP's order: `parent`, the queue, `curr` (here `next`), `front`.
        let [parent_base, queue_base, next_base, front_base] = heap_arrays(
            &mut space,
            [n as u64 * 4, n as u64 * 4, words as u64 * 8, words as u64 * 8],
        );
        Bfs {
            td_sched: common.sched(GAP_TOP_DOWN),
            bu_sched: common.sched(GAP_BOTTOM_UP),
            common,
            p,
            seed,
            rng: stream(seed, 0xBF5),
            step: Step::TrialStart,
            trial: 0,
            source: 0,
            parent: vec![-1; n],
            parent_base,
            queue: vec![0; n],
            queue_base,
            q_start: 0,
            q_end: 0,
            q_in: 0,
            front: vec![0; words],
            front_base,
            next: vec![0; words],
            next_base,
            local: (0..threads).map(|_| Vec::with_capacity(LOCAL_QUEUE)).collect(),
            scout: vec![0; threads],
            awake: vec![0; threads],
            edges_to_check: 0,
            scout_count: 0,
            awake_count: 0,
            old_awake_count: 0,
            top_down_steps: 0,
            bottom_up_steps: 0,
            g,
        }
    }

    /// Index entry `u`: GAP's index array is a heap array too, 16 bytes past its chunk's start.
    #[inline(always)]
    fn index_addr(g: &Graph, u: usize) -> u64 {
        g.offset_addr(u) + MALLOC_HEADER
    }

    /// Neighbour entry `j`, likewise.
    #[inline(always)]
    fn neigh_addr(g: &Graph, j: u64) -> u64 {
        g.neigh_addr(j) + MALLOC_HEADER
    }

    #[inline(always)]
    fn parent_addr(&self, v: usize) -> u64 {
        self.parent_base + v as u64 * 4
    }

    /// Setting a bit in the bitmap word at `word`: a load and a store of it (both of GAP's
    /// set-bit forms compile to that), `BITMAP_WRITE` instructions in all.
    #[inline(always)]
    fn set_bit_access(word: u64, e: &mut Emitter) {
        e.read(BITMAP_WRITE - 1, word, 8);
        e.write(1, word, 8);
    }

    /// A load of the master's frame at `offset` (only with `frame_loads`).
    #[inline(always)]
    fn frame_load(&self, offset: u64, e: &mut Emitter) {
        if self.p.frame_loads {
            e.read(FRAME_LOAD, private_base(0) + FRAME_OFFSET + offset, 8);
        }
    }

    #[inline(always)]
    fn local_addr(t: usize, i: usize) -> u64 {
        private_base(t) + i as u64 * 4
    }

    /// `QueueBuffer::flush`: reserve a range of the shared queue and copy the local entries.
    fn flush(&mut self, t: usize, e: &mut Emitter) {
        let start = self.q_in;
        for (i, &v) in self.local[t].iter().enumerate() {
            e.read(COPY, Self::local_addr(t, i), 4);
            e.write(COPY, self.queue_base + (start + i) as u64 * 4, 4);
            self.queue[start + i] = v;
        }
        self.q_in += self.local[t].len();
        self.local[t].clear();
    }

    #[inline(always)]
    fn push_local(&mut self, t: usize, v: u32, e: &mut Emitter) {
        let i = self.local[t].len();
        e.write(QUEUE_PUSH, Self::local_addr(t, i), 4);
        self.local[t].push(v);
        if self.local[t].len() == LOCAL_QUEUE {
            self.flush(t, e);
        }
    }

    fn slide_window(&mut self) {
        self.q_start = self.q_end;
        self.q_end = self.q_in;
    }

    /// Decides the next step at the head of GAP's `while (!queue.empty())` loop.
    fn loop_head(&mut self) -> Option<Loop> {
        if self.q_start == self.q_end {
            self.step = Step::Finish;
            return Some(Loop {
                items: self.g.n,
                sched: Sched::Static,
            });
        }
        let frontier = self.q_end - self.q_start;
        if self.scout_count > self.edges_to_check / self.p.alpha {
            self.step = Step::QueueToBitmap;
            return Some(Loop {
                items: frontier,
                sched: Sched::Static,
            });
        }
        self.edges_to_check = self.edges_to_check.saturating_sub(self.scout_count);
        self.step = Step::TopDown;
        self.top_down_steps += 1;
        self.scout.iter_mut().for_each(|s| *s = 0);
        Some(Loop {
            items: frontier,
            sched: self.td_sched,
        })
    }

    fn reset_next(&mut self) -> Option<Loop> {
        self.step = Step::ResetNext;
        Some(Loop {
            items: self.next.len(),
            sched: Sched::Serial,
        })
    }
}

impl Kernel for Bfs {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.g.n;
        match self.step {
            Step::TrialStart | Step::Finish => {
                if self.trial >= self.p.trials {
                    return None;
                }
                self.trial += 1;
                self.source = super::trial_source(&self.g, self.p.source_vertex, &mut self.rng);
                self.step = Step::InitParent;
                Some(Loop {
                    items: n,
                    sched: Sched::Static,
                })
            }
            Step::InitParent => {
                // parent[source] = source; queue.push_back(source); curr.reset(); front.reset()
                self.step = Step::Setup;
                Some(Loop {
                    items: self.front.len(),
                    sched: Sched::Serial,
                })
            }
            Step::Setup => {
                self.edges_to_check = self.g.edges();
                self.scout_count = self.g.degree(self.source);
                self.loop_head()
            }
            Step::TopDown => {
                self.scout_count = self.scout.iter().sum();
                self.slide_window();
                self.loop_head()
            }
            Step::QueueToBitmap => {
                self.awake_count = (self.q_end - self.q_start) as u64;
                self.slide_window();
                self.old_awake_count = self.awake_count;
                self.reset_next()
            }
            Step::ResetNext => {
                self.step = Step::BottomUp;
                self.bottom_up_steps += 1;
                self.awake.iter_mut().for_each(|a| *a = 0);
                Some(Loop {
                    items: n,
                    sched: self.bu_sched,
                })
            }
            Step::BottomUp => {
                self.awake_count = self.awake.iter().sum();
                std::mem::swap(&mut self.front, &mut self.next);
                std::mem::swap(&mut self.front_base, &mut self.next_base);
                if self.awake_count >= self.old_awake_count || self.awake_count > n as u64 / self.p.beta {
                    self.old_awake_count = self.awake_count;
                    return self.reset_next();
                }
                self.step = Step::BitmapToQueue;
                Some(Loop {
                    items: n,
                    sched: Sched::Static,
                })
            }
            Step::BitmapToQueue => {
                self.slide_window();
                self.scout_count = 1;
                self.loop_head()
            }
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let g = Arc::clone(&self.g);
        match self.step {
            Step::InitParent => {
                for u in lo..hi {
                    e.compute(INIT_ITER - VERTEX_START - VERTEX_END - PROP_WRITE);
                    e.read(VERTEX_START, Self::index_addr(&g, u), 8);
                    e.read(VERTEX_END, Self::index_addr(&g, u + 1), 8);
                    let d = g.degree(u) as i32;
                    self.parent[u] = if d != 0 { -d } else { -1 };
                    e.write(PROP_WRITE, self.parent_addr(u), 4);
                }
            }
            Step::Setup => {
                if lo == 0 {
                    self.parent[self.source] = self.source as i32;
                    e.write(PROP_WRITE, self.parent_addr(self.source), 4);
                    self.q_start = 0;
                    self.q_end = 0;
                    self.q_in = 0;
                    self.queue[0] = self.source as u32;
                    self.q_in = 1;
                    e.write(QUEUE_PUSH, self.queue_base, 4);
                    self.slide_window();
                }
                for w in lo..hi {
                    self.next[w] = 0;
                    e.write(PROP_WRITE, self.next_base + w as u64 * 8, 8);
                    self.front[w] = 0;
                    e.write(PROP_WRITE, self.front_base + w as u64 * 8, 8);
                }
            }
            Step::TopDown => {
                let mut scout = 0u64;
                for i in self.q_start + lo..self.q_start + hi {
                    e.read(PROP_READ, self.queue_base + i as u64 * 4, 4);
                    let u = self.queue[i];
                    self.frame_load(SLOT_G, e);
                    self.frame_load(G_INDEX, e);
                    e.read(VERTEX_START, Self::index_addr(&g, u as usize), 8);
                    e.read(VERTEX_END, Self::index_addr(&g, u as usize + 1), 8);
                    let (s, end) = (g.offsets[u as usize], g.offsets[u as usize + 1]);
                    for j in s..end {
                        e.compute(TD_EDGE - EDGE - 2 * FRAME_LOAD - PROP_READ);
                        e.read(EDGE, Self::neigh_addr(&g, j), 4);
                        let v = g.neigh[j as usize] as usize;
                        self.frame_load(SLOT_PARENT, e);
                        self.frame_load(PARENT_DATA, e);
                        e.read(PROP_READ, self.parent_addr(v), 4);
                        let curr = self.parent[v];
                        if curr < 0 {
                            self.parent[v] = u as i32;
                            e.write(CAS, self.parent_addr(v), 4);
                            self.push_local(t, v as u32, e);
                            scout += (-curr) as u64;
                        }
                    }
                }
                self.scout[t] += scout;
            }
            Step::QueueToBitmap => {
                for i in self.q_start + lo..self.q_start + hi {
                    e.read(PROP_READ, self.queue_base + i as u64 * 4, 4);
                    let u = self.queue[i] as usize;
                    self.frame_load(SLOT_BITMAP, e);
                    self.frame_load(FRONT_START, e);
                    // `set_bit_atomic`: load the word, then compare-and-swap it.
                    Self::set_bit_access(self.front_base + (u / 64) as u64 * 8, e);
                    self.front[u / 64] |= 1 << (u % 64);
                }
            }
            Step::ResetNext => {
                for w in lo..hi {
                    self.next[w] = 0;
                    e.write(PROP_WRITE, self.next_base + w as u64 * 8, 8);
                }
            }
            Step::BottomUp => {
                let mut awake = 0u64;
                for u in lo..hi {
                    e.compute(BU_VERTEX - PROP_READ);
                    e.read(PROP_READ, self.parent_addr(u), 4);
                    if self.parent[u] >= 0 {
                        continue;
                    }
                    self.frame_load(G_INDEX, e);
                    e.read(VERTEX_START, Self::index_addr(&g, u), 8);
                    e.read(VERTEX_END, Self::index_addr(&g, u + 1), 8);
                    let (s, end) = (g.offsets[u], g.offsets[u + 1]);
                    if s != end {
                        self.frame_load(FRONT_START, e);
                    }
                    for j in s..end {
                        e.read(EDGE, Self::neigh_addr(&g, j), 4);
                        let v = g.neigh[j as usize] as usize;
                        e.read(BITMAP_READ, self.front_base + (v / 64) as u64 * 8, 8);
                        if self.front[v / 64] & (1 << (v % 64)) != 0 {
                            self.parent[u] = v as i32;
                            e.write(PROP_WRITE, self.parent_addr(u), 4);
                            awake += 1;
                            self.frame_load(SLOT_NEXT, e);
                            self.frame_load(NEXT_START, e);
                            // `next.set_bit(u)`: an `or` into memory.
                            Self::set_bit_access(self.next_base + (u / 64) as u64 * 8, e);
                            self.next[u / 64] |= 1 << (u % 64);
                            break;
                        }
                    }
                }
                self.awake[t] += awake;
            }
            Step::BitmapToQueue => {
                for u in lo..hi {
                    e.compute(B2Q_ITER - 2 * FRAME_LOAD - BITMAP_READ);
                    self.frame_load(SLOT_BITMAP, e);
                    self.frame_load(FRONT_START, e);
                    e.read(BITMAP_READ, self.front_base + (u / 64) as u64 * 8, 8);
                    if self.front[u / 64] & (1 << (u % 64)) != 0 {
                        self.push_local(t, u as u32, e);
                    }
                }
            }
            Step::Finish => {
                for u in lo..hi {
                    e.compute(FINISH_ITER - PROP_READ);
                    e.read(PROP_READ, self.parent_addr(u), 4);
                    if self.parent[u] < -1 {
                        self.parent[u] = -1;
                        e.write(PROP_WRITE, self.parent_addr(u), 4);
                    }
                }
            }
            Step::TrialStart => {}
        }
    }

    fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
        if matches!(self.step, Step::TopDown | Step::BitmapToQueue) {
            self.flush(t, e);
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "generator": "bfs",
            "seed": self.seed,
            "params": self.common,
            "kernel": self.p,
            "vertices": self.g.n,
            "edges_directed": self.g.edges(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphKind;
    use numasim_trace::collect_all;
    use std::collections::VecDeque;

    fn reference_depths(g: &Graph, s: usize) -> Vec<i64> {
        let mut d = vec![-1i64; g.n];
        d[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &v in g.neighbours(u) {
                if d[v as usize] < 0 {
                    d[v as usize] = d[u] + 1;
                    q.push_back(v as usize);
                }
            }
        }
        d
    }

    fn check_tree(kind: GraphKind, schedule: &str, threads: usize, seed: u64) -> (u64, u64) {
        let common = GraphParams {
            graph: kind,
            scale: 11,
            degree: 8,
            threads,
            schedule: toml::Value::String(schedule.into()).try_into().unwrap(),
            chunk: 16,
            wait_policy: Default::default(),
        };
        let g = common.build_graph(false, seed);
        let mut src = source(g.clone(), &common, BfsParams::default(), seed).unwrap();
        src.run_to_end();
        let bfs = src.kernel();
        let depth = reference_depths(&g, bfs.source);
        for v in 0..g.n {
            let p = bfs.parent[v];
            if depth[v] < 0 {
                assert_eq!(p, -1, "unreachable {v}: the final loop leaves -1");
            } else if v == bfs.source {
                assert_eq!(p, v as i32);
            } else {
                assert!(p >= 0, "reachable {v} unvisited");
                assert!(g.neighbours(v).contains(&(p as u32)));
                assert_eq!(depth[p as usize], depth[v] - 1, "parent of {v} not one level up");
            }
        }
        (bfs.top_down_steps, bfs.bottom_up_steps)
    }

    #[test]
    fn parents_form_a_bfs_tree() {
        let (td, bu) = check_tree(GraphKind::Kronecker, "static", 4, 1);
        assert!(
            td >= 1 && bu >= 1,
            "direction optimising uses both directions: {td} {bu}"
        );
        check_tree(GraphKind::Kronecker, "dynamic", 7, 2);
        let (td, bu) = check_tree(GraphKind::Kronecker, "gap", 5, 5);
        assert!(td >= 1 && bu >= 1, "{td} {bu}");
        check_tree(GraphKind::Uniform, "static", 3, 3);
        check_tree(GraphKind::Uniform, "dynamic", 1, 4);
    }

    fn run(seed: u64) -> Vec<Vec<numasim_trace::Access>> {
        let t: toml::Table = toml::from_str("scale = 9\ndegree = 8\nthreads = 4\ntrials = 2").unwrap();
        collect_all(&mut build(t, seed).unwrap()).unwrap()
    }

    #[test]
    fn frame_loads_add_reads_of_one_master_page_that_every_thread_makes_and_change_nothing_else() {
        let streams = |frame: bool| {
            let t: toml::Table = toml::from_str(&format!(
                "scale = 11\ndegree = 8\nthreads = 4\nschedule = \"static\"\nframe_loads = {frame}"
            ))
            .unwrap();
            collect_all(&mut build(t, 3).unwrap()).unwrap()
        };
        let (plain, framed) = (streams(false), streams(true));
        let frame_page = (private_base(0) + FRAME_OFFSET) >> 12;
        for (t, (p, f)) in plain.iter().zip(&framed).enumerate() {
            let (on_frame, rest): (Vec<&numasim_trace::Access>, Vec<_>) =
                f.iter().partition(|a| a.vaddr >> 12 == frame_page);
            assert!(!on_frame.is_empty(), "thread {t} reads the master's frame");
            assert!(on_frame.iter().all(|a| !a.is_write() && a.size_bytes == 8));
            let key = |a: &&numasim_trace::Access| (a.vaddr, a.is_write(), a.size_bytes);
            assert!(
                rest.iter().map(key).eq(p.iter().map(|a| key(&a))),
                "thread {t}: the other accesses are the same, in the same order"
            );
            assert!(f.windows(2).all(|w| w[0].instr < w[1].instr));
        }
        assert!(plain.iter().flatten().all(|a| a.vaddr >> 12 != frame_page));
    }

    /// `parent`, the queue and the bitmaps are consecutive heap arrays: a 1024-vertex chunk of
    /// `parent` (4 KiB) spans two pages, and the bitmaps follow the queue 16 bytes apart.
    #[test]
    fn the_arrays_are_laid_out_as_consecutive_heap_allocations() {
        let t: toml::Table = toml::from_str("scale = 12\ndegree = 8\nthreads = 4").unwrap();
        let (common, p): (GraphParams, BfsParams) = split_params(t, BfsParams::KEYS, ScheduleName::Gap).unwrap();
        let g = common.build_graph(false, 1);
        let (n, words) = (g.n as u64, g.n.div_ceil(64) as u64);
        let b = Bfs::new(g, common, p, 1, 4);
        assert_eq!(b.parent_base % 4096, crate::vspace::MALLOC_HEADER);
        assert_eq!(b.queue_base, b.parent_base + n * 4 + 16);
        assert_eq!(b.next_base, b.queue_base + n * 4 + 16);
        assert_eq!(b.front_base, b.next_base + words * 8 + 16);
        let chunk_pages = |k: u64| {
            (
                b.parent_addr(k as usize * 1024) >> 12,
                b.parent_addr(k as usize * 1024 + 1023) >> 12,
            )
        };
        assert!((0..n / 1024).all(|k| chunk_pages(k).1 == chunk_pages(k).0 + 1));
    }

    #[test]
    fn deterministic_seeded_and_monotonic() {
        let a = run(5);
        assert_eq!(a, run(5));
        assert_ne!(a, run(6));
        for s in &a {
            assert!(!s.is_empty());
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr));
        }
    }

    /// Delegates to [`Bfs`], recording every loop the runtime starts (with the BFS step it
    /// runs) and every piece `(loop, thread, lo, hi)` it hands out.
    struct Rec {
        bfs: Bfs,
        loops: Vec<(Step, Loop)>,
        pieces: Vec<(usize, usize, usize, usize)>,
    }

    impl Kernel for Rec {
        fn next_loop(&mut self) -> Option<Loop> {
            let l = self.bfs.next_loop()?;
            self.loops.push((self.bfs.step, l));
            Some(l)
        }
        fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
            self.pieces.push((self.loops.len() - 1, t, lo, hi));
            self.bfs.run(t, lo, hi, e);
        }
        fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
            self.bfs.finish_thread(t, e);
        }
        fn describe(&self) -> serde_json::Value {
            self.bfs.describe()
        }
    }

    /// Runs BFS on a scale-13 Kronecker graph (8192 vertices) with `threads` threads under the
    /// given `[workload]` schedule keys, recording loops and pieces.
    fn record(schedule_keys: &str, threads: usize) -> (OmpSource<Rec>, usize) {
        let t: toml::Table =
            toml::from_str(&format!("scale = 13\ndegree = 8\nthreads = {threads}\n{schedule_keys}")).unwrap();
        let (common, p): (GraphParams, BfsParams) = split_params(t, BfsParams::KEYS, ScheduleName::Gap).unwrap();
        let g = common.build_graph(false, 7);
        let n = g.n;
        let rec = Rec {
            bfs: Bfs::new(g, common, p, 7, threads),
            loops: Vec::new(),
            pieces: Vec::new(),
        };
        let mut src = OmpSource::new(rec, threads);
        src.run_to_end();
        (src, n)
    }

    /// The pieces of loop `i`, in the order they were handed out.
    fn pieces_of(r: &Rec, i: usize) -> Vec<(usize, usize, usize)> {
        r.pieces
            .iter()
            .filter(|p| p.0 == i)
            .map(|&(_, t, lo, hi)| (t, lo, hi))
            .collect()
    }

    /// libgomp's `schedule(static)`: thread t covers exactly its contiguous block, in order.
    fn assert_static_split(pieces: &[(usize, usize, usize)], items: usize, threads: usize, what: &str) {
        let (q, r) = (items / threads, items % threads);
        let mut start = 0;
        for t in 0..threads {
            let len = q + usize::from(t < r);
            let mine: Vec<_> = pieces.iter().filter(|p| p.0 == t).collect();
            let mut next = start;
            for &&(_, lo, hi) in &mine {
                assert_eq!(lo, next, "{what}: thread {t} piece out of its static block");
                next = hi;
            }
            assert_eq!(next, start + len, "{what}: thread {t} does not cover its static block");
            start += len;
        }
    }

    /// `schedule(dynamic, chunk)`: chunks of `chunk` items handed out in order.
    fn assert_dynamic_chunks(pieces: &[(usize, usize, usize)], items: usize, chunk: usize, what: &str) {
        assert_eq!(pieces.len(), items.div_ceil(chunk), "{what}: chunk count");
        for (k, &(_, lo, hi)) in pieces.iter().enumerate() {
            assert_eq!((lo, hi), (k * chunk, ((k + 1) * chunk).min(items)), "{what}: chunk {k}");
        }
    }

    #[test]
    fn gap_schedules_are_per_loop_as_in_bfs_cc() {
        let threads = 4;
        let (src, n) = record("", threads);
        let r = src.kernel();
        let mut seen = [0usize; 9];
        let mut bu_threads = std::collections::BTreeSet::new();
        for (i, &(step, l)) in r.loops.iter().enumerate() {
            let pieces = pieces_of(r, i);
            seen[step as usize] += 1;
            match step {
                Step::BottomUp => {
                    assert_eq!(l.sched, Sched::Dynamic(1024), "BUStep is schedule(dynamic, 1024)");
                    assert_eq!(l.items, n);
                    assert_dynamic_chunks(&pieces, n, 1024, "bottom-up");
                    bu_threads.extend(pieces.iter().map(|p| p.0));
                }
                Step::TopDown | Step::InitParent | Step::QueueToBitmap | Step::BitmapToQueue | Step::Finish => {
                    assert_eq!(l.sched, Sched::Static, "{step:?} is a static parallel for");
                    assert_static_split(&pieces, l.items, threads, &format!("{step:?}"));
                }
                Step::Setup | Step::ResetNext => {
                    assert_eq!(l.sched, Sched::Serial, "{step:?} is serial");
                    assert!(pieces.iter().all(|p| p.0 == 0));
                }
                Step::TrialStart => unreachable!("not a loop"),
            }
        }
        assert!(seen[Step::TopDown as usize] >= 2, "top-down steps: {seen:?}");
        assert!(seen[Step::BottomUp as usize] >= 1, "bottom-up steps: {seen:?}");
        assert!(seen[Step::BitmapToQueue as usize] >= 1, "conversions: {seen:?}");
        assert!(
            bu_threads.len() > 1,
            "bottom-up chunks go to several threads: {bu_threads:?}"
        );
    }

    #[test]
    fn static_and_dynamic_put_both_steps_under_one_schedule() {
        let threads = 3;
        let (src, n) = record("schedule = \"dynamic\"\nchunk = 64", threads);
        let r = src.kernel();
        for (i, &(step, l)) in r.loops.iter().enumerate() {
            let pieces = pieces_of(r, i);
            match step {
                Step::TopDown | Step::BottomUp => {
                    assert_eq!(l.sched, Sched::Dynamic(64), "{step:?}");
                    assert_dynamic_chunks(&pieces, l.items, 64, &format!("{step:?}"));
                }
                Step::InitParent | Step::QueueToBitmap | Step::BitmapToQueue | Step::Finish => {
                    assert_eq!(l.sched, Sched::Static, "{step:?}");
                }
                _ => assert_eq!(l.sched, Sched::Serial, "{step:?}"),
            }
        }
        let (src, _) = record("schedule = \"static\"", threads);
        let r = src.kernel();
        for (i, &(step, l)) in r.loops.iter().enumerate() {
            if matches!(step, Step::TopDown | Step::BottomUp) {
                assert_eq!(l.sched, Sched::Static, "{step:?}");
                let what = format!("{step:?}");
                assert_static_split(&pieces_of(r, i), l.items, threads, &what);
            }
        }
        assert!(r.loops.iter().any(|l| l.0 == Step::BottomUp && l.1.items == n));
    }

    #[test]
    fn gap_is_the_default_schedule() {
        let t: toml::Table = toml::from_str("scale = 6\ndegree = 4\nthreads = 2").unwrap();
        assert_eq!(build(t, 1).unwrap().describe()["params"]["schedule"], "gap");
        let doc = info().params.into_iter().find(|p| p.name == "schedule").unwrap();
        assert_eq!(doc.default_text(), "\"gap\"");
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let t: toml::Table = toml::from_str("scale = 4\nsource_vertex = 99").unwrap();
        assert_eq!(build(t, 1).err().unwrap().key, "source_vertex");
        let t: toml::Table = toml::from_str("scael = 4").unwrap();
        assert_eq!(build(t, 1).err().unwrap().key, "scael");
        let t: toml::Table = toml::from_str("alpha = 0").unwrap();
        assert_eq!(build(t, 1).err().unwrap().key, "alpha");
        let t: toml::Table = toml::from_str("schedule = \"guided\"").unwrap();
        assert_eq!(build(t, 1).err().unwrap().key, "schedule");
    }
}
