//! Running an experiment: resolve → simulate phase by phase → write the results directory.

use super::config::{Experiment, Mode};
use super::resolve;
use super::results_dir::ResultsDir;
use crate::sim::{FunctionalSim, SimError};
use crate::stats::{PhaseCounts, PhaseSummary, SharingBuckets};
use numasim_config::ConfigError;
use numasim_machine::Machine;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

/// Reported after every phase (for progress bars).
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub phases_done: u64,
    pub accesses: u64,
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
    #[serde(flatten)]
    pub summary: PhaseSummary,
    pub sharing: SharingReport,
    /// Pages on each memory node at the end of the phase.
    pub pages_per_node: BTreeMap<String, u64>,
    /// Where the touched address space lives at the end of the phase, in at most
    /// [`crate::stats::DEFAULT_MAP_BINS`] virtual-address bins (see [`crate::stats::PlacementMap`]).
    pub placement_map: crate::stats::PlacementMap,
    /// What the migration policy did at the end of this phase, and its costs.
    pub migration: crate::migrate::PhaseMigration,
    /// Timing mode only: the phase's simulated time and AMAT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::timing::PhaseTiming>,
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
    pub wall_s: f64,
    pub accesses_per_s: f64,
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
}

pub(crate) fn sharing_report(h: crate::stats::SharingHistogram) -> SharingReport {
    SharingReport {
        page_buckets: h.page_buckets(),
        access_buckets: h.access_buckets(),
        pages_by_sharers: h.pages_by_sharers,
        accesses_by_sharers: h.accesses_by_sharers,
    }
}

/// Simulates an experiment in memory.
pub fn simulate(exp: &Experiment, progress: &mut dyn FnMut(&Progress)) -> Result<(Machine, RunResults), RunError> {
    if exp.spec.mode == Mode::Timing {
        return crate::timing::simulate(exp, progress);
    }
    let machine = resolve::machine(exp)?;
    let mut source = resolve::source(exp)?;
    let threads = source.threads();
    let thread_sockets = resolve::thread_sockets(exp, &machine, threads)?;
    let placement = resolve::placement(exp, &machine)?;
    let classes = resolve::access_classes(&machine);
    let spec = &exp.spec;
    let cfg = resolve::functional_config(exp, &machine);
    let (sockets, nodes) = (machine.sockets.len(), machine.memory_nodes.len());
    let mut sim = FunctionalSim::new(&cfg, sockets, nodes, thread_sockets.clone(), placement);
    let mut migrator = crate::migrate::Migrator::new(&exp.migration, &machine, spec.placement.page_bytes, spec.seed);
    if let Some(observer) = migrator.observer() {
        sim.set_observer(observer);
    }
    if migrator.policy() == crate::migrate::PolicyKind::OracleStatic {
        sim.fixed_home = crate::migrate::oracle::learn(exp, &machine)?;
    }
    let node_names: Vec<String> = machine.memory_nodes.iter().map(|n| n.name.clone()).collect();
    let per_node = |v: Vec<u64>| -> BTreeMap<String, u64> { node_names.iter().cloned().zip(v).collect() };

    let started = Instant::now();
    let mut total = PhaseCounts::new(sockets, nodes);
    let mut phases = Vec::new();
    let mut mapper = crate::stats::PlacementMapper::default();
    while spec.max_phases.is_none_or(|m| (phases.len() as u64) < m) {
        let Some(counts) = sim.run_phase(&mut *source)? else {
            break;
        };
        // Phase boundary: migration policies act here.
        let summary = classes.summarize(&counts);
        let sharing = sharing_report(sim.pages.phase_sharing());
        if migrator.policy() != crate::migrate::PolicyKind::None {
            mapper.before_boundary(&sim.home);
        }
        let migration = migrator.boundary(&mut sim, &summary, phases.len() as u64 + 1);
        phases.push(PhaseRecord {
            index: phases.len() as u64,
            summary,
            sharing,
            pages_per_node: per_node(sim.pages_per_node()),
            placement_map: mapper.map(&sim.table, &sim.home),
            migration,
            timing: None,
        });
        total.add(&counts);
        sim.pages.end_phase();
        progress(&Progress {
            phases_done: phases.len() as u64,
            accesses: total.accesses,
        });
    }
    let wall_s = started.elapsed().as_secs_f64();
    let footprint_pages = sim.table.pages() as u64;
    let results = RunResults {
        schema_version: RESULTS_SCHEMA_VERSION,
        numasim_version: env!("CARGO_PKG_VERSION"),
        name: exp.name.clone(),
        seed: spec.seed,
        mode: spec.mode,
        machine: MachineBrief::of(&machine),
        workload: source.describe(),
        threads,
        thread_sockets: thread_sockets
            .iter()
            .map(|&s| machine.sockets[s].name.clone())
            .collect(),
        llc_enabled: spec.llc.enabled,
        page_bytes: spec.placement.page_bytes,
        totals: Totals {
            summary: classes.summarize(&total),
            footprint_pages,
            footprint_bytes: footprint_pages * spec.placement.page_bytes,
            phases: phases.len() as u64,
        },
        sharing: sharing_report(sim.pages.run_sharing()),
        pages_per_node: per_node(sim.pages_per_node()),
        phases,
        migration: migrator.finish(),
        perf: Perf {
            wall_s,
            accesses_per_s: if wall_s > 0.0 {
                total.accesses as f64 / wall_s
            } else {
                0.0
            },
        },
        timing: None,
    };
    Ok((machine, results))
}

/// Default results directory of an experiment: `results/<name>`.
pub fn default_out_dir(exp: &Experiment) -> PathBuf {
    PathBuf::from("results").join(&exp.name)
}

/// Runs an experiment and writes its results directory; returns the directory and results.
pub fn run(
    exp: &Experiment,
    out: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(PathBuf, RunResults), RunError> {
    let dir = ResultsDir::begin(out)?;
    let (machine, results) = simulate(exp, progress)?;
    dir.write("experiment.resolved.toml", exp.resolved_toml())?;
    dir.write("machine.json", machine.summary().to_json_pretty())?;
    let json = serde_json::to_string_pretty(&results).map_err(std::io::Error::other)?;
    dir.write("phases.csv", phases_csv(&results)?)?;
    dir.write("results.json", json + "\n")?;
    let path = dir.finish()?;
    Ok((path, results))
}

/// Migration columns of phases.csv (after the per-node page columns), then `moves_to_<node>`.
const MIGRATION_COLUMNS: [&str; 11] = [
    "moves",
    "ping_pongs",
    "pool_move_fraction",
    "non_local_fraction",
    "stalled_accesses",
    "copy_bytes",
    "shootdown_cycles",
    "scan_entries",
    "tracker_update_accesses",
    "profile_accuracy",
    "home_match",
];

/// One row per phase; class and node columns are the union over the run, in sorted order.
pub fn phases_csv(r: &RunResults) -> std::io::Result<Vec<u8>> {
    let classes: std::collections::BTreeSet<&String> =
        r.phases.iter().flat_map(|p| p.summary.by_class.keys()).collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "phase",
        "instructions",
        "accesses",
        "reads",
        "writes",
        "llc_hits",
        "llc_misses",
        "writebacks",
        "new_pages",
        "local_fraction",
        "llc_mpki",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(classes.iter().map(|c| format!("class_{c}")));
    header.extend(r.machine.memory_nodes.iter().map(|n| format!("accesses_{n}")));
    header.extend(r.machine.memory_nodes.iter().map(|n| format!("pages_{n}")));
    let timed = r.timing.is_some();
    if timed {
        header.extend(
            [
                "sim_time_ns",
                "amat_ns",
                "amat_unloaded_ns",
                "amat_contention_ns",
                "block_transfers",
                "ipc_mean_of_sockets",
                "link_utilisation_max",
                "link_utilisation_mean",
                "migration_copy_span_ns",
                "migration_core_stall_ns",
                "migration_inflight_stall_ns",
            ]
            .map(String::from),
        );
    }
    header.extend(MIGRATION_COLUMNS.iter().map(|c| c.to_string()));
    header.extend(r.machine.memory_nodes.iter().map(|n| format!("moves_to_{n}")));
    w.write_record(&header).map_err(std::io::Error::other)?;
    for p in &r.phases {
        let s = &p.summary;
        let mut row: Vec<String> = vec![
            p.index.to_string(),
            s.instructions.to_string(),
            s.accesses.to_string(),
            s.reads.to_string(),
            s.writes.to_string(),
            s.llc_hits.to_string(),
            s.llc_misses.to_string(),
            s.writebacks.to_string(),
            s.new_pages.to_string(),
            format!("{:.6}", s.local_fraction),
            format!("{:.4}", s.llc_mpki),
        ];
        row.extend(
            classes
                .iter()
                .map(|c| s.by_class.get(*c).copied().unwrap_or(0).to_string()),
        );
        row.extend(
            r.machine
                .memory_nodes
                .iter()
                .map(|n| s.by_node.get(n).copied().unwrap_or(0).to_string()),
        );
        row.extend(
            r.machine
                .memory_nodes
                .iter()
                .map(|n| p.pages_per_node.get(n).copied().unwrap_or(0).to_string()),
        );
        if timed {
            let t = p.timing.as_ref();
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.sim_time_ns)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.amat_ns.total)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.amat_ns.unloaded)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.amat_ns.contention)));
            row.push(t.map_or(0, |t| t.block_transfers).to_string());
            let ipc = t.map_or(0.0, |t| {
                t.ipc_per_socket.values().sum::<f64>() / t.ipc_per_socket.len().max(1) as f64
            });
            row.push(format!("{ipc:.4}"));
            row.push(format!("{:.4}", t.map_or(0.0, |t| t.link_utilisation.max)));
            row.push(format!("{:.4}", t.map_or(0.0, |t| t.link_utilisation.mean)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.migration.copy_span_ns)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.migration.core_stall_ns)));
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.migration.inflight_stall_ns)));
        }
        let m = &p.migration;
        let opt = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
        row.extend([
            m.moves.to_string(),
            m.ping_pongs.to_string(),
            format!("{:.6}", m.pool_move_fraction),
            format!("{:.6}", m.non_local_fraction),
            m.costs.stalled_accesses.to_string(),
            m.costs.copy_bytes.to_string(),
            m.costs.shootdown_cycles.to_string(),
            m.costs.scan_entries.to_string(),
            m.costs.tracker_update_accesses.to_string(),
            opt(m.profile_accuracy),
            opt(m.home_match),
        ]);
        row.extend(
            r.machine
                .memory_nodes
                .iter()
                .map(|n| m.moves_to.get(n).copied().unwrap_or(0).to_string()),
        );
        w.write_record(&row).map_err(std::io::Error::other)?;
    }
    w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))
}
