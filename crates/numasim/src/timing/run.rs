//! Timing mode's experiment driver: resolve → simulate phase by phase → [`RunResults`].

use super::engine::{TimingConfig, TimingCounts, TimingSim};
use crate::experiment::config::Experiment;
use crate::experiment::resolve;
use crate::experiment::run::{sharing_report, MachineBrief, Perf, PhaseRecord, Progress, RunError, RunResults, Totals};
use crate::stats::PhaseCounts;
use numasim_machine::Machine;
use std::collections::BTreeMap;
use std::time::Instant;

/// Simulates a `mode = "timing"` experiment in memory.
pub fn simulate(exp: &Experiment, progress: &mut dyn FnMut(&Progress)) -> Result<(Machine, RunResults), RunError> {
    let machine = resolve::machine(exp)?;
    let mut source = resolve::source(exp)?;
    let threads = source.threads();
    let thread_sockets = resolve::thread_sockets(exp, &machine, threads)?;
    let placement = resolve::placement(exp, &machine)?;
    let classes = resolve::access_classes(&machine);
    let spec = &exp.spec;
    let cfg = TimingConfig {
        spec: spec.timing.clone(),
        phase_instructions: spec.phase_instructions,
        page_bytes: spec.placement.page_bytes,
        llc: spec.llc.enabled,
    };
    let mut sim =
        TimingSim::new(&cfg, &machine, thread_sockets.clone(), placement).map_err(|m| exp.source.error("mode", m))?;
    let mut migrator = crate::migrate::Migrator::new(&exp.migration, &machine, spec.placement.page_bytes, spec.seed);
    if let Some(observer) = migrator.observer() {
        sim.set_observer(observer);
    }
    if migrator.policy() == crate::migrate::PolicyKind::OracleStatic {
        sim.fixed_home = crate::migrate::oracle::learn(exp, &machine)?;
    }
    let mut run_migration = super::report::MigrationTime::default();
    let node_names: Vec<String> = machine.memory_nodes.iter().map(|n| n.name.clone()).collect();
    let (sockets, nodes) = (machine.sockets.len(), machine.memory_nodes.len());
    let per_node = |v: &[u64]| -> BTreeMap<String, u64> { node_names.iter().cloned().zip(v.iter().copied()).collect() };

    let started = Instant::now();
    let mut total = PhaseCounts::new(sockets, nodes);
    let mut total_t = TimingCounts::default();
    let mut phases = Vec::new();
    let mut tracker = super::report::PhaseTracker::default();
    while spec.max_phases.is_none_or(|m| (phases.len() as u64) < m) {
        let Some((counts, t)) = sim.run_phase(&mut *source, spec.phase_instructions)? else {
            break;
        };
        let summary = classes.summarize(&counts);
        let sharing = sharing_report(sim.pages.phase_sharing());
        let mut timing = tracker.phase(&sim, &machine, &t);
        if migrator.policy() != crate::migrate::PolicyKind::None {
            tracker.before_boundary(&sim);
        }
        let migration = migrator.boundary(&mut sim, &summary, phases.len() as u64 + 1);
        let moved = sim.charge_moves(migrator.cost_params(), migration.costs.scan_cycles);
        timing.migration = super::report::MigrationTime::of(&moved, &t);
        run_migration.add(&timing.migration);
        phases.push(PhaseRecord {
            index: phases.len() as u64,
            summary,
            sharing,
            pages_per_node: per_node(sim.placement.used_pages()),
            placement_map: tracker.placement_map(&sim),
            migration,
            timing: Some(timing),
        });
        total.add(&counts);
        total_t.add(&t);
        sim.pages.end_phase();
        progress(&Progress {
            phases_done: phases.len() as u64,
            accesses: total.accesses,
        });
    }
    let wall_s = started.elapsed().as_secs_f64();
    let footprint_pages = sim.table.pages() as u64;
    let timing = super::report::run(&sim, &machine, &total_t, run_migration);
    let results = RunResults {
        schema_version: crate::experiment::run::RESULTS_SCHEMA_VERSION,
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
        pages_per_node: per_node(sim.placement.used_pages()),
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
        timing: Some(timing),
    };
    Ok((machine, results))
}
