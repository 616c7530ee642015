//! Running an experiment: resolve → simulate phase by phase → write the results directory.

use super::config::Experiment;
use super::results_dir::ResultsDir;
use numasim_machine::Machine;
use std::path::{Path, PathBuf};

pub use crate::driver::{
    MachineBrief, Perf, PhaseRecord, Progress, RunError, RunResults, SharingReport, Totals, RESULTS_SCHEMA_VERSION,
};

/// Simulates an experiment in memory: resolves it once into a [`crate::driver::Run`] and
/// drives the engine its mode names.
pub fn simulate(exp: &Experiment, progress: &mut dyn FnMut(&Progress)) -> Result<(Machine, RunResults), RunError> {
    let mut run = exp.resolve()?;
    let results = crate::driver::simulate(&mut run, progress)?;
    Ok((run.settings.machine, results))
}

/// The machine as simulated, beside the results (a machine file, overrides applied).
pub const MACHINE_RESOLVED: &str = "machine.resolved.toml";

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
    let dir = ResultsDir::begin_with_inputs(out, &inputs(exp))?;
    let (machine, results) = simulate(exp, progress)?;
    dir.write("experiment.resolved.toml", exp.resolved_toml())?;
    dir.write("machine.json", machine.summary().to_json_pretty())?;
    // The machine as simulated, overrides applied: loads again as a machine file.
    let (_, machine_source) = super::resolve::machine_and_source(exp)?;
    dir.write(
        MACHINE_RESOLVED,
        numasim_machine::overrides::resolved_text(&machine_source),
    )?;
    let json = serde_json::to_string_pretty(&results).map_err(std::io::Error::other)?;
    dir.write("phases.csv", phases_csv(&results)?)?;
    dir.write("results.json", json + "\n")?;
    let path = dir.finish()?;
    Ok((path, results))
}

/// The files a run reads (experiment, machine file, traces): a results directory holding one of
/// them is never replaced.
fn inputs(exp: &Experiment) -> Vec<PathBuf> {
    let mut files = super::resolve::input_files(exp);
    let origin = PathBuf::from(&exp.source.origin);
    if origin.is_file() {
        files.push(origin);
    }
    files
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
    // Phases in simulated time (`phase_ns`): where each lies on the clock.
    let spans = r
        .phases
        .iter()
        .any(|p| p.timing.as_ref().is_some_and(|t| t.span_ns.is_some()));
    if spans {
        header.extend(["start_ns", "end_ns"].map(String::from));
    }
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
        if spans {
            let span = p.timing.as_ref().and_then(|t| t.span_ns).unwrap_or_default();
            row.extend(span.map(|x| format!("{x:.3}")));
        }
        if timed {
            let t = p.timing.as_ref();
            row.push(format!("{:.3}", t.map_or(0.0, |t| t.sim_time_ns)));
            // An empty cell when the phase timed no LLC-miss load: no data, not 0 ns.
            let cell = |v: Option<f64>| v.map_or_else(String::new, |x| format!("{x:.3}"));
            row.push(cell(t.and_then(|t| t.amat_ns.total)));
            row.push(cell(t.and_then(|t| t.amat_ns.unloaded)));
            row.push(cell(t.and_then(|t| t.amat_ns.contention)));
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
