//! Sharing-degree analysis of a workload (StarNUMA Fig. 2 and Fig. 13 style).
//!
//! Answers "how many sockets touch each page, and where do the accesses go?" for a trace or an
//! experiment's workload, before any placement policy is studied: the distribution of pages and
//! of accesses by sharer count (distinct sockets whose threads touch the page), footprint,
//! read/write mix and the fraction of accesses that first-touch placement makes local. It runs
//! the ordinary functional simulator with first-touch placement (no migration, phases only as counting units), counting every
//! access (LLC filter off) unless `llc` asks for LLC misses only, so its numbers are exactly
//! those a first-touch experiment would report.
//!
//! Inputs: an experiment TOML, a native trace, or StarNUMA per-thread files (read directly,
//! thread numbers from their names). Threads interleave as in the functional simulator: in
//! each quantum of `quantum_instructions`, every thread in thread order runs its accesses whose
//! instruction count falls in the quantum. With a quantum of 1 that is the exact
//! per-instruction order: accesses ordered by (instruction count, thread, program order), the
//! definition a first-touch reference that replays traces instruction by instruction uses.
//! Larger quanta run faster and shift first-touch owners only where threads race for a page
//! within one quantum.

use crate::driver::{for_each_phase, Run, RunError};
use crate::sim::SimError;
use crate::stats::{PhaseCounts, SharingBuckets};
use numasim_config::ConfigError;
use numasim_output::stat::Stats;
use serde::Serialize;

/// Phases only bound the per-phase counters (u32) that are folded into run totals.
pub const PHASE_INSTRUCTIONS: u64 = 100_000_000;

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    #[error("{0}")]
    Input(String),
}

impl From<RunError> for AnalyzeError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Config(e) => AnalyzeError::Config(e),
            RunError::Sim(e) => AnalyzeError::Sim(e),
            RunError::Io(e) => AnalyzeError::Input(e.to_string()),
        }
    }
}

/// How to map threads to sockets and what to count.
#[derive(Debug, Clone, Default)]
pub struct SharingOptions {
    /// Machine preset or file; required for a trace, overrides an experiment's machine.
    pub machine: Option<String>,
    /// Threads per socket K: thread t runs on socket t / K. Default: the experiment's mapping,
    /// or ceil(threads / sockets) for a trace.
    pub threads_per_socket: Option<usize>,
    /// Count LLC misses only (the machine's per-socket LLC) instead of every access.
    pub llc: bool,
    /// Interleaving quantum in instructions (see the module docs; 1 = exact per-instruction
    /// order). Default: the experiment's `quantum_instructions`, or its default for a trace.
    pub quantum_instructions: Option<u64>,
}

/// The result, as printed and written by `numasim analyze sharing`.
#[derive(Debug, Clone, Serialize)]
pub struct SharingAnalysis {
    pub input: String,
    pub machine: String,
    pub sockets: usize,
    pub threads: usize,
    /// Socket index of every thread.
    pub thread_sockets: Vec<usize>,
    pub llc: bool,
    pub page_bytes: u64,
    /// Indexed by sharer count 0..=sockets (index 0 unused).
    pub pages_by_sharers: Vec<u64>,
    pub accesses_by_sharers: Vec<u64>,
    pub page_buckets: SharingBuckets,
    pub access_buckets: SharingBuckets,
    /// Distinct pages touched (the footprint).
    pub pages: u64,
    pub footprint_bytes: u64,
    /// Accesses counted in the histograms (every access, or LLC misses with `llc`).
    pub accesses: u64,
    /// All accesses of the stream, by kind.
    pub reads: u64,
    pub writes: u64,
    pub instructions: u64,
    /// Share of counted accesses served by the requester's own socket memory under first touch.
    pub first_touch_local_fraction: f64,
    /// Interleaving quantum used, in instructions (1 = exact per-instruction order).
    pub quantum_instructions: u64,
}

/// Runs the analysis on a resolved run of `input` (the experiment layer's
/// `analyze_sharing` loads a trace or experiment file into one, with first
/// touch, no migration, phases of [`PHASE_INSTRUCTIONS`] and the LLC as `opts` asks).
/// `trace_input`: the input is a trace (threads spread evenly unless `opts` maps them).
pub fn analyze_run(
    run: &mut Run,
    input: &str,
    trace_input: bool,
    opts: &SharingOptions,
) -> Result<SharingAnalysis, AnalyzeError> {
    let threads = run.threads;
    let sockets = run.machine.sockets.len();
    let thread_sockets = match (opts.threads_per_socket, trace_input) {
        (Some(0), _) => return Err(AnalyzeError::Input("--threads-per-socket must be at least 1".into())),
        (Some(k), _) => (0..threads).map(|t| t / k).collect(),
        (None, true) => {
            let k = threads.div_ceil(sockets).max(1);
            (0..threads).map(|t| t / k).collect()
        }
        (None, false) => run.thread_sockets.clone(),
    };
    if let Some(t) = thread_sockets.iter().position(|&s| s >= sockets) {
        return Err(AnalyzeError::Input(format!(
            "thread {t} maps to socket {} but machine `{}` has {sockets} sockets (lower --threads-per-socket or threads)",
            thread_sockets[t], run.machine.name
        )));
    }
    run.thread_sockets = thread_sockets.clone();
    let mut source = run.open_source()?;
    let nodes = run.machine.memory_nodes.len();
    let (mut sim, mut system) = run.functional_sim()?;
    let mut total = PhaseCounts::new(sockets, nodes);
    for_each_phase(&mut sim, &mut system, &mut *source, None, |_, counts, ()| {
        total.add(&counts);
        Ok(())
    })?;
    let summary = run.classes.summarize(&total);
    let h = system.memory.pages.run_sharing();
    let pages = system.memory.table.pages() as u64;
    Ok(SharingAnalysis {
        input: input.to_string(),
        machine: run.machine.name.clone(),
        sockets,
        threads,
        thread_sockets,
        llc: opts.llc,
        page_bytes: run.page_bytes,
        quantum_instructions: run.functional.quantum_instructions,
        page_buckets: h.page_buckets(),
        access_buckets: h.access_buckets(),
        accesses: h.accesses(),
        pages_by_sharers: h.pages_by_sharers,
        accesses_by_sharers: h.accesses_by_sharers,
        pages,
        footprint_bytes: pages * run.page_bytes,
        reads: total.reads,
        writes: total.writes,
        instructions: total.instructions,
        first_touch_local_fraction: summary.local_fraction,
    })
}
