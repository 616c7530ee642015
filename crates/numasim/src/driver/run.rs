//! [`Run`]: an experiment resolved once into typed, validated parts the engines take.
//!
//! The experiment layer above (`experiment`) parses the TOML and turns every name into an
//! index (machine, memory nodes, sockets, policies) with errors located at file, line and key;
//! what comes out is this struct. Nothing below the experiment layer sees the TOML: engines,
//! the migration stack and the analyses take a `Run`, so a second pass (the static oracle) or
//! an analysis re-uses the same resolved parts instead of resolving again.

use super::Mode;
use crate::mem::Placement;
use crate::sim::FunctionalConfig;
use crate::stats::phase::AccessClasses;
use crate::timing::TimingConfig;
use numasim_config::{ConfigError, Source};
use numasim_machine::Machine;
use numasim_trace::AccessSource;

/// Opens a fresh access source of the run (generators are deterministic by seed, so every
/// opening yields the same streams).
pub type SourceOpener = Box<dyn Fn() -> Result<Box<dyn AccessSource>, ConfigError> + Send + Sync>;

/// One program of a multi-process experiment: its name and its threads (a range of the run's
/// threads; its pages are those whose number carries its tag, [`numasim_trace::processes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub name: String,
    pub threads: std::ops::Range<usize>,
}

/// Which part of the workload a run measures (`measure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Every access, from the program's first.
    #[default]
    Run,
    /// From the workload's region of interest: its set-up (building and first writing the
    /// data) runs first, placing pages where it touches them, but is not counted, and the
    /// first phase starts where the region does (functional mode).
    Roi,
}

impl Measure {
    pub fn is_run(&self) -> bool {
        *self == Measure::Run
    }
}

/// Everything an engine needs, resolved and validated: the settings ([`RunParts`], read
/// through `Deref`, so `run.machine` is `run.settings.machine`) and what opening the source
/// told.
pub struct Run {
    pub settings: RunParts,
    /// Class, node and link names of every (socket, memory node) pair.
    pub classes: AccessClasses,
    /// Threads of the access source.
    pub threads: usize,
    first_source: Option<Box<dyn AccessSource>>,
    /// Seconds it took to open `first_source` (counted once, as setup, by the first taker).
    first_open_s: f64,
    reopen: SourceOpener,
}

/// The parts of a [`Run`] that are plain settings (the experiment layer fills them in).
pub struct RunParts {
    pub name: String,
    pub seed: u64,
    pub mode: Mode,
    pub machine: Machine,
    /// Socket of every thread.
    pub thread_sockets: Vec<usize>,
    /// Placement state before the first access (each engine starts from a copy).
    pub placement: Placement,
    pub functional: FunctionalConfig,
    pub timing: TimingConfig,
    /// `[migration]` validated, every default filled in.
    pub migration: crate::migrate::Resolved,
    pub phase_instructions: u64,
    /// Whether phases and statistics start at the workload's region of interest.
    pub measure: Measure,
    /// Timing mode: phases in simulated time instead (see [`crate::timing::TimingSim::run_phase_timed`]).
    pub phase_ns: Option<u64>,
    pub max_phases: Option<u64>,
    pub page_bytes: u64,
    pub llc_enabled: bool,
    /// The experiment file, for located errors found only when an engine is built.
    pub origin: Source,
    /// Multi-process experiments: every process (empty for one workload).
    pub processes: Vec<ProcessInfo>,
    /// `[similarity]`: the paper's experiment this run stands for, if declared.
    pub similarity: Option<crate::similarity::Reference>,
}

impl std::ops::Deref for Run {
    type Target = RunParts;
    fn deref(&self) -> &RunParts {
        &self.settings
    }
}

impl std::ops::DerefMut for Run {
    fn deref_mut(&mut self) -> &mut RunParts {
        &mut self.settings
    }
}

impl Run {
    /// A run over `source` (already opened, so its thread count is known); `reopen` opens it
    /// again for a second pass.
    pub fn new(settings: RunParts, source: Box<dyn AccessSource>, reopen: SourceOpener) -> Self {
        Run {
            classes: AccessClasses::of(&settings.machine),
            threads: source.threads(),
            settings,
            first_source: Some(source),
            first_open_s: 0.0,
            reopen,
        }
    }

    /// Records how long opening the first source took (it was opened while resolving).
    pub fn with_first_open_s(mut self, seconds: f64) -> Self {
        self.first_open_s = seconds;
        self
    }

    /// The first source's opening time, once (0 afterwards): a driver adds it to its setup.
    pub fn take_first_open_s(&mut self) -> f64 {
        std::mem::take(&mut self.first_open_s)
    }

    /// The run's access source: the one opened while resolving, then fresh ones.
    pub fn open_source(&mut self) -> Result<Box<dyn AccessSource>, ConfigError> {
        match self.first_source.take() {
            Some(s) => Ok(s),
            None => (self.reopen)(),
        }
    }

    /// Sockets and memory nodes of the machine.
    pub fn shape(&self) -> (usize, usize) {
        (self.machine.sockets.len(), self.machine.memory_nodes.len())
    }

    /// A functional engine over this run's settings and the system it runs on.
    pub fn functional_sim(&self) -> Result<(crate::sim::FunctionalSim, crate::system::System), ConfigError> {
        let system = crate::sim::FunctionalSim::system(&self.functional, self.shape().0, self.placement.clone())
            .map_err(|e| self.origin.error("llc", e.to_string()))?;
        Ok((self.functional_engine(), system))
    }

    /// A functional engine over this run's settings, without a system of its own (sampled
    /// timing runs it on the timing engine's).
    pub fn functional_engine(&self) -> crate::sim::FunctionalSim {
        let (sockets, nodes) = self.shape();
        let mut sim = crate::sim::FunctionalSim::new(&self.functional, sockets, nodes, self.thread_sockets.clone());
        if self.measure == Measure::Roi {
            sim.measure_from_roi();
        }
        sim
    }

    /// A timing engine over this run's settings and the system it runs on (errors located at
    /// the experiment's `mode`).
    pub fn timing_sim(&self) -> Result<(crate::timing::TimingSim, crate::system::System), ConfigError> {
        let located = |e: crate::timing::SetupError| self.origin.error("mode", e.to_string());
        let mut sim =
            crate::timing::TimingSim::new(&self.timing, &self.machine, self.thread_sockets.clone()).map_err(located)?;
        let system =
            crate::timing::TimingSim::system(&self.timing, &self.machine, self.placement.clone()).map_err(located)?;
        let ranges: Vec<_> = self.processes.iter().map(|p| p.threads.clone()).collect();
        sim.set_processes(&ranges);
        sim.set_phase_ns(self.phase_ns);
        Ok((sim, system))
    }
}
