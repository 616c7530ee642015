//! What a run produces: the types results.json is written from.

use crate::sim::SimError;
use crate::stats::{PhaseSummary, SharingBuckets};
use numasim_config::ConfigError;
use numasim_machine::Machine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which engine runs the accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Functional,
    Timing,
}

/// Version of the results.json layout. Bump on incompatible changes.
pub const RESULTS_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    #[error("writing results: {0}")]
    Io(#[from] std::io::Error),
}

/// Reported once the workload is set up (`phases_done` = 0) and after every phase (for
/// progress bars).
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub phases_done: u64,
    pub accesses: u64,
    /// The run's phase limit (`max_phases`), when it has one: the bar's length.
    pub max_phases: Option<u64>,
    /// Seconds spent setting up the workload (graph generation, trace opening).
    pub setup_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MachineBrief {
    pub name: String,
    pub sockets: Vec<String>,
    pub memory_nodes: Vec<String>,
}

impl MachineBrief {
    pub fn of(machine: &Machine) -> Self {
        MachineBrief {
            name: machine.name.clone(),
            sockets: machine.sockets.iter().map(|s| s.name.clone()).collect(),
            memory_nodes: machine.memory_nodes.iter().map(|n| n.name.clone()).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SharingReport {
    pub pages_by_sharers: Vec<u64>,
    pub accesses_by_sharers: Vec<u64>,
    pub page_buckets: SharingBuckets,
    pub access_buckets: SharingBuckets,
}

#[derive(Debug, Clone, Serialize)]
pub struct PhaseRecord {
    pub index: u64,
    /// Phases of `phase_instructions` this record covers: 1, or more when no thread had an
    /// access in a stretch of phases (an instruction-count gap), which is merged into this one
    /// empty record. Written only when it is not 1.
    #[serde(skip_serializing_if = "is_one")]
    pub phases_spanned: u64,
    #[serde(flatten)]
    pub summary: PhaseSummary,
    pub sharing: SharingReport,
    /// Pages on each memory node at the end of the phase.
    pub pages_per_node: BTreeMap<String, u64>,
    /// Where the touched address space lives at the end of the phase, in at most
    /// [`crate::stats::DEFAULT_MAP_BINS`] virtual-address bins (see [`crate::mem::PlacementMap`]).
    pub placement_map: crate::mem::PlacementMap,
    /// What the migration policy did at the end of this phase, and its costs.
    pub migration: crate::migrate::PhaseMigration,
    /// Timing mode only: the phase's simulated time and AMAT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::timing::PhaseTiming>,
    /// Sampled timing only: which instructions of the phase were timed (`timing` covers those).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampled: Option<super::TimedWindow>,
    /// Multi-process runs: each process's share of the phase, in `processes` order (the
    /// roofline's points: flops over LLC-miss bytes, flops over the phase's time).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<PhaseProcess>,
}

/// One process's counts in one phase.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PhaseProcess {
    pub accesses: u64,
    pub flops: u64,
    pub llc_misses: u64,
}

/// Per-process counts of a phase: the threads' run totals now minus at the previous boundary
/// (`last` is updated).
pub(crate) fn phase_processes<E: super::Engine>(
    processes: &[super::ProcessInfo],
    sim: &E,
    last: &mut Vec<crate::stats::ThreadTotals>,
) -> Vec<PhaseProcess> {
    if processes.is_empty() {
        return Vec::new();
    }
    let now = sim.thread_totals();
    last.resize(now.len(), Default::default());
    let out = processes
        .iter()
        .map(|info| {
            let mut p = PhaseProcess {
                accesses: 0,
                flops: 0,
                llc_misses: 0,
            };
            for t in info.threads.clone() {
                let (n, l) = (
                    now.get(t).copied().unwrap_or_default(),
                    last.get(t).copied().unwrap_or_default(),
                );
                p.accesses += n.accesses - l.accesses;
                p.flops += n.flops - l.flops;
                p.llc_misses += n.llc_misses - l.llc_misses;
            }
            p
        })
        .collect();
    *last = now;
    out
}

#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    #[serde(flatten)]
    pub summary: PhaseSummary,
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    pub phases: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Perf {
    /// Simulation wall time, s (setup excluded).
    pub wall_s: f64,
    pub accesses_per_s: f64,
    /// Workload setup wall time (graph generation, trace opening), s.
    pub setup_s: f64,
    /// Sampled timing only: accesses per second in the timing engine (warm-ups and windows)
    /// and in the functional engine (the rest of each phase).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing_accesses_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functional_accesses_per_s: Option<f64>,
    /// Peak resident memory of this process so far, MiB (Linux `VmHWM`; absent elsewhere).
    /// One run per process (`numasim run`): the run's peak, workload data, page table and
    /// caches. Several runs in one process (`numasim repro` batches): the largest so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_mib: Option<f64>,
}

/// This process's peak resident set, MiB, from `/proc/self/status` (None where there is none).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// Everything results.json holds.
#[derive(Debug, Clone, Serialize)]
pub struct RunResults {
    pub schema_version: u32,
    pub numasim_version: &'static str,
    pub name: String,
    pub seed: u64,
    pub mode: Mode,
    pub machine: MachineBrief,
    pub workload: serde_json::Value,
    pub threads: usize,
    /// Socket name of every thread.
    pub thread_sockets: Vec<String>,
    pub llc_enabled: bool,
    pub page_bytes: u64,
    pub totals: Totals,
    /// Whole-run sharing distribution of memory accesses.
    pub sharing: SharingReport,
    pub pages_per_node: BTreeMap<String, u64>,
    pub phases: Vec<PhaseRecord>,
    /// Migration policy, profiler and run-long moves and costs.
    pub migration: crate::migrate::RunMigration,
    /// Wall-clock figures; the only part that differs between identical runs.
    pub perf: Perf,
    /// Timing mode only: AMAT, IPC, utilisations (see `numasim::timing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::timing::TimingResults>,
    /// Sampled timing only (`[timing] sample_instructions`): what was timed. `timing` then
    /// covers the timed windows, `totals` and `phases` every instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<super::SamplingReport>,
    /// Multi-process experiments (`[[process]]`): each process's share of the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessResults>,
    /// The run's dimensionless numbers (and the paper's, with `[similarity]`): how faithfully
    /// the run is scaled (see [`crate::similarity`]).
    pub similarity: crate::similarity::SimilarityReport,
    /// `measure = "roi"` only: the set-up that ran uncounted before the first phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup: Option<crate::sim::SetupReport>,
}

/// One process of a multi-process run. Counts sum to the run's totals over the processes.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessResults {
    pub name: String,
    pub threads: usize,
    /// Its first thread among the run's (`thread_sockets` order).
    pub first_thread: usize,
    pub accesses: u64,
    /// Floating-point operations its accesses carried.
    pub flops: u64,
    /// Accesses that reached memory.
    pub llc_misses: u64,
    /// Pages it touched, and where they are at the end of the run.
    pub footprint_pages: u64,
    pub pages_per_node: BTreeMap<String, u64>,
    /// Timing mode (not sampled): when its last thread finished, ns from the run's start
    /// (a late start included), and the AMAT of its LLC-miss loads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_time_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amat_ns: Option<f64>,
}

/// Per-process results from the engine's thread totals and page homes.
pub(crate) fn process_results<E: super::Engine>(
    processes: &[super::ProcessInfo],
    sim: &E,
    memory: &crate::mem::Memory,
    node_names: &[String],
) -> Vec<ProcessResults> {
    if processes.is_empty() {
        return Vec::new();
    }
    let totals = sim.thread_totals();
    let (table, home) = (&memory.table, &memory.home);
    let shift = table.page_shift();
    let mut pages = vec![vec![0u64; node_names.len()]; processes.len()];
    for (p, &node) in home.iter().enumerate().take(table.pages()) {
        let proc_ = numasim_trace::processes::process_of_vpage(table.vpage(p as u32), shift);
        if let Some(row) = pages.get_mut(proc_) {
            row[node as usize] += 1;
        }
    }
    processes
        .iter()
        .zip(pages)
        .map(|(info, per_node)| {
            let mut sum = crate::stats::ThreadTotals::default();
            for t in totals.get(info.threads.clone()).unwrap_or(&[]) {
                sum.add(t);
            }
            let timed = sim.timed_totals();
            ProcessResults {
                name: info.name.clone(),
                threads: info.threads.len(),
                first_thread: info.threads.start,
                accesses: sum.accesses,
                flops: sum.flops,
                llc_misses: sum.llc_misses,
                footprint_pages: per_node.iter().sum(),
                pages_per_node: node_names.iter().cloned().zip(per_node).collect(),
                finish_time_ns: timed.then(|| sum.finish_ps as f64 / 1000.0),
                amat_ns: (timed && sum.miss_loads > 0)
                    .then(|| sum.miss_load_ps as f64 / 1000.0 / sum.miss_loads as f64),
            }
        })
        .collect()
}

pub(crate) fn sharing_report(h: crate::stats::SharingHistogram) -> SharingReport {
    SharingReport {
        page_buckets: h.page_buckets(),
        access_buckets: h.access_buckets(),
        pages_by_sharers: h.pages_by_sharers,
        accesses_by_sharers: h.accesses_by_sharers,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod peak_rss_tests {
    #[test]
    fn peak_rss_is_read_from_proc_on_linux() {
        let before = super::peak_rss_mib().expect("VmHWM on Linux");
        // Touch 64 MiB so the high-water mark must reach at least that much.
        let v = vec![1u8; 64 << 20];
        assert!(v.iter().step_by(4096).all(|&b| b == 1));
        let after = super::peak_rss_mib().unwrap();
        assert!(after >= before && after >= 64.0, "{before} -> {after}");
    }
}
