//! Graph analytics as in the GAP benchmark suite (Beamer, Asanović, Patterson).
//!
//! StarNUMA evaluates GAP's kernels on Kronecker graphs; their irregular accesses to a few
//! hot, widely shared pages (hub neighbourhoods, frontier bitmaps, property arrays) are what
//! makes "vagabond pages". Each generator builds a synthetic graph ([`generate`], [`csr`]),
//! lays it out in a virtual address space, and *executes* the GAP kernel on it through the
//! OpenMP-like runtime ([`crate::omp`]), emitting every load and store of the graph and
//! property arrays in program order with instruction counts from [`cost`].
//!
//! Shared parameters of every graph kernel (kernel parameters are documented per kernel):
//! `graph` (kronecker | uniform), `scale` (2^scale vertices), `degree` (generated edges per
//! vertex; each is stored in both directions, so the CSR holds about 2·degree entries per
//! vertex, as GAP's `-k`), `threads`, `schedule` and `chunk`. `schedule = "gap"` gives every
//! loop the schedule GAP's source gives it (each kernel documents its loops; the default of
//! `bfs`); `"static"` or `"dynamic"` with `chunk` put every main loop under one schedule for
//! studies (the default of the other kernels). `wait_policy` says what waiting threads do
//! (see [`crate::omp::WaitPolicy`]): `passive` to compare with a program traced with
//! `OMP_WAIT_POLICY=passive`.
//! The experiment seed drives graph generation and source selection.

pub mod bfs;
pub mod cache;
pub mod cc;
pub mod cost;
pub mod csr;
pub mod generate;
pub mod pr;
pub mod sssp;
pub mod tc;

pub use csr::{Graph, GraphKind};

/// The master thread's stack frame, where GAP's kernels keep their shared objects (the
/// OpenMP struct of shared-variable pointers, the graph, the `pvector`s): in thread 0's private
/// window, clear of what the kernels keep there.
pub(crate) fn frame_addr(offset: u64) -> u64 {
    crate::vspace::private_base(0) + FRAME_OFFSET + offset
}
const FRAME_OFFSET: u64 = 0x1000_0000;
/// Instructions of a load of the frame (a plain `mov`).
pub(crate) const FRAME_LOAD: u64 = 1;

/// Address `offset` bytes into thread `t`'s stack frame (in its private window).
pub(crate) fn stack_addr(t: usize, offset: u64) -> u64 {
    crate::vspace::private_base(t) + STACK_OFFSET + offset
}
const STACK_OFFSET: u64 = 0x2000_0000;
/// Where a thread's outlined function saves registers, below its locals.
const SAVE_AREA: u64 = 0x100;

/// Thread `t` enters a loop's outlined function: the call pushes its return address and the
/// function `saved` callee-saved registers.
pub(crate) fn enter_function(t: usize, saved: u64, e: &mut crate::thread_emit::ThreadEmitter) {
    for i in 0..=saved {
        e.write(1, stack_addr(t, SAVE_AREA + 8 * (saved - i)), 8);
    }
}

/// A loop storing 4 B elements `lo..hi` of the array at `base` as `gcc -O3` vectorises it:
/// 16 B stores of four elements (`cost` instructions each), then the last one to three one
/// by one (`cost` each).
pub(crate) fn store_vectorised(base: u64, lo: usize, hi: usize, cost: u64, e: &mut crate::thread_emit::ThreadEmitter) {
    let mut i = lo;
    while i + 4 <= hi {
        e.write(cost, base + i as u64 * 4, 16);
        i += 4;
    }
    for j in i..hi {
        e.write(cost, base + j as u64 * 4, 4);
    }
}

/// Thread `t` leaves it: the registers popped, then the return address.
pub(crate) fn leave_function(t: usize, saved: u64, e: &mut crate::thread_emit::ThreadEmitter) {
    for i in 0..=saved {
        e.read(1, stack_addr(t, SAVE_AREA + 8 * i), 8);
    }
}

use crate::omp::{Sched, ScheduleName, WaitPolicy};
use crate::params::{check, parse};
use crate::registry::WorkloadError;
use numasim_config::param::ParamDef;
use serde::de::DeserializeOwned;
use serde::Serialize;

numasim_config::declare_params! {
    /// Parameters every graph kernel takes.
    pub section struct GraphParams {
        /// kronecker (Graph500 A=0.57 B=0.19 C=0.19, ids permuted) | uniform
        graph: GraphKind = GraphKind::Kronecker, unit "-", Check::Any;
        /// 2^scale vertices
        scale: u32 = 16, unit "log2 vertices", Check::Range(1.0, 26.0);
        /// generated edges per vertex (stored both ways, as GAP -k)
        degree: u32 = 16, unit "edges per vertex", Check::Range(1.0, 1024.0);
        /// OpenMP threads (access streams)
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// gap: each loop as in GAP's source | static | dynamic: one schedule for the main loops
        schedule: ScheduleName = ScheduleName::Static, unit "-", Check::Any;
        /// chunk size of schedule = "dynamic"
        chunk: usize = 64, unit "iterations", Check::Range(1.0, u64::MAX as f64);
        /// threads waiting at a barrier: active (spin, retiring instructions) | passive (sleep, as OMP_WAIT_POLICY=passive)
        wait_policy: WaitPolicy = WaitPolicy::Active, unit "-", Check::Any;
    }
}

impl GraphParams {
    /// The schedule of a main loop that GAP's source declares `gap` (see [`Sched::from_param`]).
    pub fn sched(&self, gap: Sched) -> Sched {
        Sched::from_param(self.schedule, self.chunk, gap)
    }

    /// The graph these parameters describe (kept for reuse when [`cache::keep_graphs`] asks).
    pub fn build_graph(&self, weighted: bool, seed: u64) -> std::sync::Arc<Graph> {
        let key = cache::GraphKey {
            kind: self.graph,
            scale: self.scale,
            degree: self.degree,
            weighted,
            seed,
        };
        cache::get_or_build(key, || {
            Graph::generate(self.graph, self.scale, self.degree, weighted, seed)
        })
    }
}

/// `source_vertex`, when given, names a vertex of `g` (bfs and sssp).
pub fn check_source_vertex(g: &Graph, source_vertex: Option<u64>) -> Result<(), WorkloadError> {
    match source_vertex {
        Some(s) => check(
            (s as usize) < g.n,
            "source_vertex",
            format!("must be below {} vertices", g.n),
        ),
        None => Ok(()),
    }
}

/// A trial's source: the fixed `source_vertex`, or as GAP's `SourcePicker` draws it, a random
/// vertex of non-zero degree (the caller has checked that one exists).
pub fn trial_source(g: &Graph, source_vertex: Option<u64>, rng: &mut crate::rng::Rng) -> usize {
    match source_vertex {
        Some(s) => s as usize,
        None => loop {
            let s = rand::Rng::gen_range(rng, 0..g.n);
            if g.degree(s) > 0 {
                break s;
            }
        },
    }
}

/// Every key a graph kernel accepts with its default (the shared ones, `schedule` as the
/// kernel's own, then the kernel's), for the registry's documentation test.
pub fn graph_defaults<K: Serialize + Default>(schedule: ScheduleName) -> serde_json::Value {
    let common = GraphParams {
        schedule,
        ..GraphParams::default()
    };
    let mut v = serde_json::to_value(common).unwrap_or_default();
    if let (Some(m), serde_json::Value::Object(own)) = (
        v.as_object_mut(),
        serde_json::to_value(K::default()).unwrap_or_default(),
    ) {
        m.extend(own);
    }
    v
}

/// Documentation of the shared parameters, for `numasim workload list`; `schedule` is the
/// kernel's default schedule (as passed to [`split_params`]).
pub fn common_docs(schedule: ScheduleName) -> Vec<ParamDef> {
    let mut docs = GraphParams::defs();
    let default = numasim_config::param::ParamDefault::of(&schedule, "");
    crate::params::adjust_doc(&mut docs, "schedule", Some(default), None);
    docs
}

/// Splits a `[workload]` table into the shared parameters and the kernel's own (`kernel_keys`);
/// `schedule` defaults to `default_schedule`.
pub fn split_params<K: DeserializeOwned + numasim_config::param::ParamSection>(
    mut table: toml::Table,
    kernel_keys: &[&str],
    default_schedule: ScheduleName,
) -> Result<(GraphParams, K), WorkloadError> {
    if !table.contains_key("schedule") {
        let v = toml::Value::try_from(default_schedule).expect("a schedule name serialises");
        table.insert("schedule".into(), v);
    }
    let mut own = toml::Table::new();
    for k in kernel_keys {
        if let Some(v) = table.remove(*k) {
            own.insert((*k).to_string(), v);
        }
    }
    let common: GraphParams = parse(table)?;
    let kernel: K = parse(own)?;
    Ok((common, kernel))
}
