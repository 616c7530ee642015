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

use crate::experiment::{resolve, Experiment};
use crate::sim::{FunctionalConfig, FunctionalSim, SimError};
use crate::stats::{PhaseCounts, SharingBuckets};
use numasim_config::{ConfigError, Source};
use serde::Serialize;
use std::path::{Path, PathBuf};

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
    /// Interleaving quantum used, in instructions (1 = exact per-instruction order).
    pub quantum_instructions: u64,
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

/// What the inputs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    Experiment,
    Native,
    Starnuma,
}

/// One native trace; one StarNUMA thread file (named `memtrace_t<N>.out`/`mtrace_t<N>_<P>.out`)
/// or one experiment (any other name); several inputs are StarNUMA per-thread files.
fn input_kind(inputs: &[PathBuf]) -> Result<InputKind, AnalyzeError> {
    let Some(first) = inputs.first() else {
        return Err(AnalyzeError::Input("no input given".into()));
    };
    for p in inputs {
        if !p.exists() {
            return Err(AnalyzeError::Input(format!("{}: no such file", p.display())));
        }
    }
    if inputs.len() == 1 && is_native_trace(first) {
        return Ok(InputKind::Native);
    }
    if inputs.len() == 1 && numasim_trace::starnuma::thread_from_name(first).is_none() {
        return Ok(InputKind::Experiment);
    }
    if let Some(p) = inputs
        .iter()
        .find(|p| is_native_trace(p) || p.extension().is_some_and(|e| e == "toml"))
    {
        return Err(AnalyzeError::Input(format!(
            "{}: give one native trace or one experiment on its own (several inputs are StarNUMA thread files)",
            p.display()
        )));
    }
    Ok(InputKind::Starnuma)
}

/// The experiment to analyse: the file itself, or a one-line experiment around a trace.
fn experiment_of(inputs: &[PathBuf], kind: InputKind, opts: &SharingOptions) -> Result<Experiment, AnalyzeError> {
    let input = &inputs[0];
    let mut exp = if kind == InputKind::Experiment {
        let mut exp = Experiment::load(input)?;
        if let Some(m) = &opts.machine {
            exp.spec.machine = m.clone();
        }
        exp
    } else {
        let machine = opts.machine.clone().ok_or_else(|| {
            AnalyzeError::Input(format!(
                "{}: a trace needs --machine (a preset name or machine file)",
                input.display()
            ))
        })?;
        let mut t = toml::Table::new();
        t.insert("machine".into(), machine.into());
        let mut w = toml::Table::new();
        let paths: Vec<toml::Value> = inputs
            .iter()
            .map(|p| toml::Value::from(p.to_string_lossy().into_owned()))
            .collect();
        if kind == InputKind::Native {
            w.insert("trace".into(), paths[0].clone());
        } else {
            w.insert("trace".into(), toml::Value::Array(paths));
            w.insert("format".into(), "starnuma".into());
        }
        t.insert("workload".into(), w.into());
        let text = toml::to_string(&t).map_err(|e| AnalyzeError::Input(e.to_string()))?;
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned());
        Experiment::from_source(
            Source::from_text(input.display().to_string(), text),
            &stem.unwrap_or_else(|| "trace".into()),
        )?
    };
    // First touch with the machine's own capacities, no migration.
    exp.spec.placement = Default::default();
    exp.spec.llc.enabled = opts.llc;
    exp.spec.phase_instructions = PHASE_INSTRUCTIONS;
    exp.spec.max_phases = None;
    if let Some(q) = opts.quantum_instructions {
        if q == 0 {
            return Err(AnalyzeError::Input("--quantum must be at least 1 instruction".into()));
        }
        exp.spec.quantum_instructions = q;
    }
    Ok(exp)
}

/// Runs the analysis on a native trace or an experiment file.
pub fn analyze_sharing(input: &Path, opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    analyze_sharing_inputs(&[input.to_path_buf()], opts)
}

/// Runs the analysis on one native trace, one experiment file, or StarNUMA per-thread files.
pub fn analyze_sharing_inputs(inputs: &[PathBuf], opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    let kind = input_kind(inputs)?;
    let exp = experiment_of(inputs, kind, opts)?;
    let machine = resolve::machine(&exp)?;
    let mut source = resolve::source(&exp)?;
    let threads = source.threads();
    let sockets = machine.sockets.len();
    let thread_sockets = match (opts.threads_per_socket, kind != InputKind::Experiment) {
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
        input: inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        machine: machine.name.clone(),
        sockets,
        threads,
        thread_sockets,
        llc: opts.llc,
        quantum_instructions: exp.spec.quantum_instructions,
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
