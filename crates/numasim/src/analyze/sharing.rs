//! Sharing-degree analysis of a workload (StarNUMA Fig. 2 and Fig. 13 style).
//!
//! Answers "how many sockets touch each page, and where do the accesses go?" for a trace or an
//! experiment's workload, before any placement policy is studied: the distribution of pages and
//! of accesses by sharer count (distinct sockets whose threads touch the page), footprint,
//! read/write mix and the fraction of accesses that first-touch placement makes local. It runs
//! the ordinary functional simulator with first-touch placement (no migration, phases only as counting units), counting every
//! access (LLC filter off) unless `llc` asks for LLC misses only, so its numbers are exactly
//! those a first-touch experiment would report.

use crate::experiment::{resolve, Experiment};
use crate::sim::{FunctionalConfig, FunctionalSim, SimError};
use crate::stats::{PhaseCounts, SharingBuckets};
use numasim_config::{ConfigError, Source};
use serde::Serialize;
use std::path::Path;

/// Phases only bound the per-phase counters (u32) that are folded into run totals.
const PHASE_INSTRUCTIONS: u64 = 100_000_000;

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    #[error("{0}")]
    Input(String),
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
}

fn is_native_trace(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == numasim_trace::native::FILE_MAGIC)
        .unwrap_or(false)
}

/// The experiment to analyse: the file itself, or a one-line experiment around a native trace.
fn experiment_of(input: &Path, opts: &SharingOptions) -> Result<Experiment, AnalyzeError> {
    if !input.exists() {
        return Err(AnalyzeError::Input(format!("{}: no such file", input.display())));
    }
    let mut exp = if is_native_trace(input) {
        let machine = opts.machine.clone().ok_or_else(|| {
            AnalyzeError::Input(format!(
                "{}: a trace needs --machine (a preset name or machine file)",
                input.display()
            ))
        })?;
        let mut t = toml::Table::new();
        t.insert("machine".into(), machine.into());
        let mut w = toml::Table::new();
        w.insert("trace".into(), input.to_string_lossy().into_owned().into());
        t.insert("workload".into(), w.into());
        let text = toml::to_string(&t).map_err(|e| AnalyzeError::Input(e.to_string()))?;
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned());
        Experiment::from_source(
            Source::from_text(input.display().to_string(), text),
            &stem.unwrap_or_else(|| "trace".into()),
        )?
    } else {
        let mut exp = Experiment::load(input)?;
        if let Some(m) = &opts.machine {
            exp.spec.machine = m.clone();
        }
        exp
    };
    // First touch with the machine's own capacities, no migration.
    exp.spec.placement = Default::default();
    exp.spec.llc.enabled = opts.llc;
    exp.spec.phase_instructions = PHASE_INSTRUCTIONS;
    exp.spec.max_phases = None;
    Ok(exp)
}

/// Runs the analysis on a native trace or an experiment file.
pub fn analyze_sharing(input: &Path, opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    let exp = experiment_of(input, opts)?;
    let machine = resolve::machine(&exp)?;
    let mut source = resolve::source(&exp)?;
    let threads = source.threads();
    let sockets = machine.sockets.len();
    let thread_sockets = match (opts.threads_per_socket, is_native_trace(input)) {
        (Some(0), _) => return Err(AnalyzeError::Input("--threads-per-socket must be at least 1".into())),
        (Some(k), _) => (0..threads).map(|t| t / k).collect(),
        (None, true) => {
            let k = threads.div_ceil(sockets).max(1);
            (0..threads).map(|t| t / k).collect()
        }
        (None, false) => resolve::thread_sockets(&exp, &machine, threads)?,
    };
    if let Some(t) = thread_sockets.iter().position(|&s| s >= sockets) {
        return Err(AnalyzeError::Input(format!(
            "thread {t} maps to socket {} but machine `{}` has {sockets} sockets (lower --threads-per-socket or threads)",
            thread_sockets[t], machine.name
        )));
    }
    let placement = resolve::placement(&exp, &machine)?;
    let cfg = FunctionalConfig {
        phase_instructions: PHASE_INSTRUCTIONS,
        quantum_instructions: exp.spec.quantum_instructions,
        llc: opts.llc.then(|| {
            machine
                .sockets
                .iter()
                .map(|s| (s.llc_bytes, s.llc_ways as usize))
                .collect()
        }),
        page_bytes: exp.spec.placement.page_bytes,
    };
    let nodes = machine.memory_nodes.len();
    let mut sim = FunctionalSim::new(&cfg, sockets, nodes, thread_sockets.clone(), placement);
    let mut total = PhaseCounts::new(sockets, nodes);
    while let Some(counts) = sim.run_phase(&mut *source)? {
        total.add(&counts);
        sim.pages.end_phase();
    }
    let summary = resolve::access_classes(&machine).summarize(&total);
    let h = sim.pages.run_sharing();
    let pages = sim.table.pages() as u64;
    Ok(SharingAnalysis {
        input: input.display().to_string(),
        machine: machine.name.clone(),
        sockets,
        threads,
        thread_sockets,
        llc: opts.llc,
        page_bytes: exp.spec.placement.page_bytes,
        page_buckets: h.page_buckets(),
        access_buckets: h.access_buckets(),
        accesses: h.accesses(),
        pages_by_sharers: h.pages_by_sharers,
        accesses_by_sharers: h.accesses_by_sharers,
        pages,
        footprint_bytes: pages * exp.spec.placement.page_bytes,
        reads: total.reads,
        writes: total.writes,
        instructions: total.instructions,
        first_touch_local_fraction: summary.local_fraction,
    })
}
