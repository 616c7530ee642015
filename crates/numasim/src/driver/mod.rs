//! One driver for both engines: phase by phase, migration at each boundary, results at the end.
//!
//! ```text
//! experiment (TOML) ──resolve once──► Run ──► Engine (FunctionalSim | TimingSim | SampledSim)
//!                                              │ run_phase(&mut System) ─► boundary: Migrator ─► record
//!                                              ▼
//!                                          RunResults
//! ```
//! The driver owns the machine's state (a [`System`]: memory, LLCs, observer) and lends it to
//! the engine for each phase; migration at a boundary works on the pair ([`Lent`]).
//! The engines differ in what they model, not in how a run proceeds, so the loop is written
//! once, generic over [`Engine`]: the phase loop ([`for_each_phase`]) is shared by the full run
//! ([`simulate`]), the static oracle's first pass ([`learn_oracle_homes`]) and the analyses
//! (`analyze sharing`, `analyze profile`). What only the timing engine has (a clock: the
//! phase's timing record, charging the moves in time) are [`Engine`]'s hooks with empty
//! defaults.

mod lookahead;
mod results;
mod run;
mod sampled;

pub use lookahead::{learn_lookahead, Lookahead};
pub(crate) use results::sharing_report;
pub use results::{
    MachineBrief, Mode, Perf, PhaseRecord, ProcessResults, Progress, RunError, RunResults, SharingReport, Totals,
    RESULTS_SCHEMA_VERSION,
};
pub use run::{Measure, ProcessInfo, Run, RunParts, SourceOpener};
pub use sampled::{SampledSim, SamplingReport, TimedWindow};

use crate::mem::{FixedHomes, Memory};
use crate::migrate::{FirstPass, Migrator, PageHost, PhaseMigration, PolicyKind, Role};
use crate::profile::Observer;
use crate::sim::{FunctionalSim, SimError};
use crate::stats::PhaseCounts;
use crate::system::System;
use crate::timing::{PhaseTiming, TimingResults, TimingSim};
use numasim_machine::Machine;
use numasim_output::stat::Stats;
use numasim_trace::AccessSource;
use std::collections::BTreeMap;
use std::time::Instant;

/// What the driver needs of an engine. The machine's state is not the engine's: every call
/// that runs accesses or moves pages is lent the run's [`System`].
pub trait Engine {
    /// Counters of a phase besides [`PhaseCounts`] (the timing engine's clock figures).
    type Phase;
    /// Run-long state of the engine's own report (the timing engine's per-phase deltas).
    type Report: Default;

    /// Runs one phase on `system`; `None` once every thread is done.
    fn run_phase(
        &mut self,
        system: &mut System,
        src: &mut dyn AccessSource,
    ) -> Result<Option<(PhaseCounts, Self::Phase)>, SimError>;
    /// Phases run so far; one [`Engine::run_phase`] covers several when it merges a stretch of
    /// empty phases (see [`crate::sim::phase_window`]).
    fn phase_index(&self) -> u64;
    /// Re-homes `page` on `node` for a migration policy (the caller has checked capacity); the
    /// timing engine also queues the copy's cost.
    fn move_page(&mut self, system: &mut System, page: u32, node: usize) {
        let _ = system.memory.move_page(page, node);
    }
    /// Per page id: time its LLC-miss loads of the phase took, summed (ps); `None` without a
    /// clock.
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        None
    }

    /// The phase's record of engine figures, taken before the migration step.
    fn phase_report(
        &mut self,
        _report: &mut Self::Report,
        _machine: &Machine,
        _phase: &Self::Phase,
    ) -> Option<PhaseTiming> {
        None
    }
    /// After the migration step: what the moves cost the engine (the timing engine charges
    /// them in time and adds that to the phase's record).
    fn after_boundary(
        &mut self,
        _system: &mut System,
        _report: &mut Self::Report,
        _migrator: &Migrator,
        _migration: &PhaseMigration,
        _record: &mut Option<PhaseTiming>,
        _phase: Self::Phase,
    ) {
    }
    /// The run's record of engine figures.
    fn run_report(&self, _report: Self::Report, _machine: &Machine) -> Option<TimingResults> {
        None
    }
    /// What every thread did over the run (per-process results).
    fn thread_totals(&self) -> Vec<crate::stats::ThreadTotals>;
    /// Whether [`Engine::thread_totals`] carries time (timing mode over every instruction).
    fn timed_totals(&self) -> bool {
        false
    }
    /// Whether the phase just run ended at a migration boundary: always with instruction
    /// phases; with phases in simulated time not when the run finished before the phase's
    /// boundary (no migration step then, see [`crate::migrate::Migrator::boundary_if`]).
    fn boundary_reached(&self) -> bool {
        true
    }
    /// Sampled timing only: which instructions of the phase were timed.
    fn window(&self, _phase: &Self::Phase) -> Option<TimedWindow> {
        None
    }
    /// Sampled timing only: the run's sampling settings and what they timed.
    fn sampling(&self) -> Option<SamplingReport> {
        None
    }
    /// `measure = "roi"` (functional engine): the set-up run before the first phase.
    fn setup(&self) -> Option<crate::sim::SetupReport> {
        None
    }
}

impl Engine for FunctionalSim {
    type Phase = ();
    type Report = ();

    fn run_phase(
        &mut self,
        system: &mut System,
        src: &mut dyn AccessSource,
    ) -> Result<Option<(PhaseCounts, ())>, SimError> {
        Ok(FunctionalSim::run_phase(self, system, src)?.map(|c| (c, ())))
    }
    fn phase_index(&self) -> u64 {
        FunctionalSim::phase_index(self)
    }
    fn thread_totals(&self) -> Vec<crate::stats::ThreadTotals> {
        FunctionalSim::thread_totals(self).to_vec()
    }
    fn setup(&self) -> Option<crate::sim::SetupReport> {
        FunctionalSim::setup(self)
    }
}

/// The timing engine's run-long report state.
#[derive(Default)]
pub struct TimingReport {
    tracker: crate::timing::report::PhaseTracker,
    total: crate::timing::engine::TimingCounts,
    migration: crate::timing::report::MigrationTime,
}

impl Engine for TimingSim {
    type Phase = crate::timing::engine::TimingCounts;
    type Report = TimingReport;

    fn run_phase(
        &mut self,
        system: &mut System,
        src: &mut dyn AccessSource,
    ) -> Result<Option<(PhaseCounts, Self::Phase)>, SimError> {
        match self.phase_ps() {
            Some(phase_ps) => TimingSim::run_phase_timed(self, system, src, phase_ps),
            None => {
                let phase_instructions = self.phase_instructions();
                TimingSim::run_phase(self, system, src, phase_instructions)
            }
        }
    }
    fn phase_index(&self) -> u64 {
        TimingSim::phase_index(self)
    }
    fn boundary_reached(&self) -> bool {
        TimingSim::boundary_reached(self)
    }
    fn move_page(&mut self, system: &mut System, page: u32, node: usize) {
        TimingSim::move_page(self, system, page, node)
    }
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        Some(TimingSim::page_memory_time_ps(self))
    }
    fn thread_totals(&self) -> Vec<crate::stats::ThreadTotals> {
        TimingSim::thread_totals(self)
    }
    fn timed_totals(&self) -> bool {
        true
    }
    fn phase_report(
        &mut self,
        report: &mut TimingReport,
        machine: &Machine,
        phase: &Self::Phase,
    ) -> Option<PhaseTiming> {
        let mut timing = report.tracker.phase(self, machine, phase);
        if self.phase_ps().is_some() {
            // Timed phases: where each phase lies on the simulated clock.
            timing.span_ns = Some([phase.start_ps as f64 / 1000.0, phase.end_ps as f64 / 1000.0]);
        }
        Some(timing)
    }
    fn after_boundary(
        &mut self,
        system: &mut System,
        report: &mut TimingReport,
        migrator: &Migrator,
        migration: &PhaseMigration,
        record: &mut Option<PhaseTiming>,
        phase: Self::Phase,
    ) {
        let moved = self.charge_moves(system, migrator.cost_params(), migration.costs.scan_cycles);
        if let Some(timing) = record.as_mut() {
            timing.migration = crate::timing::report::MigrationTime::of(&moved, &phase, TimingSim::threads(self));
            report.migration.add(&timing.migration);
        }
        report.total.add(&phase);
    }
    fn run_report(&self, report: TimingReport, machine: &Machine) -> Option<TimingResults> {
        Some(crate::timing::report::run(
            self,
            machine,
            &report.total,
            report.migration,
        ))
    }
}

/// An engine with the system lent to it: what migration works on at a boundary (the page
/// table, homes and counters are the system's; moving a page is also the engine's business).
pub struct Lent<'a, E> {
    pub engine: &'a mut E,
    pub system: &'a mut System,
}

impl<E: Engine> PageHost for Lent<'_, E> {
    fn memory(&self) -> &Memory {
        &self.system.memory
    }
    fn observer_mut(&mut self) -> Option<&mut Observer> {
        self.system.observer_mut()
    }
    fn move_page(&mut self, page: u32, node: usize) {
        self.engine.move_page(self.system, page, node)
    }
    fn place_page(&mut self, page: u32, node: usize) {
        let _ = self.system.memory.move_page(page, node);
    }
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        self.engine.page_memory_time_ps()
    }
}

/// Runs `engine` on `system` over `source` phase by phase (at most `max_phases`), calling
/// `each` after every phase and resetting the per-phase page counters after it. Returns the
/// phases run.
pub fn for_each_phase<E: Engine, F>(
    engine: &mut E,
    system: &mut System,
    source: &mut dyn AccessSource,
    max_phases: Option<u64>,
    mut each: F,
) -> Result<u64, RunError>
where
    F: FnMut(Lent<'_, E>, PhaseCounts, E::Phase) -> Result<(), RunError>,
{
    let mut phases = 0u64;
    while max_phases.is_none_or(|m| phases < m) {
        let Some((counts, extra)) = engine.run_phase(system, source)? else {
            break;
        };
        phases += 1;
        each(Lent { engine, system }, counts, extra)?;
        system.memory.pages.end_phase();
    }
    Ok(phases)
}

/// Simulates a run on the engine its mode names.
pub fn simulate(run: &mut Run, progress: &mut dyn FnMut(&Progress)) -> Result<RunResults, RunError> {
    match run.mode {
        Mode::Functional => {
            let (sim, system) = run.functional_sim()?;
            drive(run, sim, system, progress)
        }
        Mode::Timing if sampled::is_sampled(run.mode, &run.timing.spec) => {
            // Both engines run on the timing engine's system (its LLCs have the same shape).
            let (timing, system) = run.timing_sim()?;
            let sim = SampledSim::new(
                timing,
                run.functional_engine(),
                run.machine.clone(),
                run.phase_instructions,
            );
            drive(run, sim, system, progress)
        }
        Mode::Timing => {
            let (sim, system) = run.timing_sim()?;
            drive(run, sim, system, progress)
        }
    }
}

/// The full run on `sim` over `system`: phases, a migration step at each boundary, per-phase
/// records and run totals.
pub fn drive<E: Engine>(
    run: &mut Run,
    mut sim: E,
    mut system: System,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunResults, RunError> {
    let setup = Instant::now();
    let mut source = run.open_source()?;
    let setup_s = setup.elapsed().as_secs_f64() + run.take_first_open_s();
    progress(&Progress {
        phases_done: 0,
        accesses: 0,
        max_phases: run.max_phases,
        setup_s,
    });
    let (mut migrator, mut lookahead) = prepare_migration(run, &mut system)?;
    let machine = &run.machine;
    let classes = &run.classes;
    let (sockets, nodes) = run.shape();

    let started = Instant::now();
    let mut total = PhaseCounts::new(sockets, nodes);
    let mut phases: Vec<PhaseRecord> = Vec::new();
    let mut mapper = crate::mem::PlacementMapper::default();
    let mut report = E::Report::default();
    let mut phase_index = sim.phase_index();
    let mut thread_totals_before = Vec::new();
    for_each_phase(
        &mut sim,
        &mut system,
        &mut *source,
        run.max_phases,
        |mut lent, counts, extra| {
            let spanned = lent.engine.phase_index() - phase_index;
            phase_index = lent.engine.phase_index();
            // Phase boundary: migration policies act here.
            let summary = classes.summarize(&counts);
            let sharing = sharing_report(lent.page_stats().phase_sharing());
            let mut timing = lent.engine.phase_report(&mut report, machine, &extra);
            let sampled = lent.engine.window(&extra);
            if migrator.policy() != PolicyKind::None {
                mapper.before_boundary(lent.home());
            }
            if let Some(la) = lookahead.as_mut() {
                let next = la.profile(phases.len() + 1, lent.table());
                if let Some(o) = lent.observer_mut() {
                    o.set_lookahead(next);
                }
            }
            let acting = lent.engine.boundary_reached();
            let migration = migrator.boundary_if(&mut lent, &summary, phases.len() as u64 + 1, acting);
            let Lent { engine: sim, system } = lent;
            sim.after_boundary(system, &mut report, &migrator, &migration, &mut timing, extra);
            phases.push(PhaseRecord {
                index: phases.len() as u64,
                phases_spanned: spanned,
                summary,
                sharing,
                pages_per_node: per_node(machine, system.memory.placement.used_pages()),
                placement_map: mapper.map(&system.memory.table, &system.memory.home),
                migration,
                timing,
                sampled,
                processes: results::phase_processes(&run.processes, &*sim, &mut thread_totals_before),
            });
            total.add(&counts);
            progress(&Progress {
                phases_done: phases.len() as u64,
                accesses: total.accesses,
                max_phases: run.max_phases,
                setup_s,
            });
            Ok(())
        },
    )?;
    let finished = Finished {
        wall_s: started.elapsed().as_secs_f64(),
        setup_s,
        total,
        phases,
        migrator,
    };
    Ok(run_results(run, &sim, &system, report, &*source, finished))
}

/// The run's migrator, its observer installed in `system`, and the first passes the policy's
/// role (a static placement's) and the profiler (a look-ahead) declare they need.
fn prepare_migration(run: &mut Run, system: &mut System) -> Result<(Migrator, Option<Lookahead>), RunError> {
    let mut migrator = Migrator::new(
        &run.migration,
        &run.machine,
        run.page_bytes,
        run.seed,
        run.processes.len().max(1),
    );
    migrator.set_process_threads(run.processes.iter().map(|p| p.threads.len() as u64).collect());
    if let Some(observer) = migrator.observer() {
        system.set_observer(observer);
    }
    match run.migration.policy.role() {
        Role::StaticOracle(FirstPass::AccessCounts) => system.memory.fixed_home = learn_oracle_homes(run)?,
        Role::StaticOracle(FirstPass::Profile) => system.memory.fixed_home = learn_profile_homes(run)?,
        Role::Off | Role::AtBoundaries => {}
    }
    let lookahead = if migrator.observer().is_some() && run.migration.profiler.looks_ahead() {
        Some(learn_lookahead(run)?)
    } else {
        None
    };
    Ok((migrator, lookahead))
}

/// `v` per memory node, keyed by the node's name.
fn per_node(machine: &Machine, v: &[u64]) -> BTreeMap<String, u64> {
    machine
        .memory_nodes
        .iter()
        .map(|n| n.name.clone())
        .zip(v.iter().copied())
        .collect()
}

/// What the phase loop leaves for the results.
struct Finished {
    wall_s: f64,
    setup_s: f64,
    total: PhaseCounts,
    phases: Vec<PhaseRecord>,
    migrator: Migrator,
}

/// The results of a finished run.
fn run_results<E: Engine>(
    run: &Run,
    sim: &E,
    system: &System,
    report: E::Report,
    source: &dyn AccessSource,
    f: Finished,
) -> RunResults {
    let memory = &system.memory;
    let machine = &run.machine;
    let Finished {
        wall_s,
        setup_s,
        total,
        phases,
        migrator,
    } = f;
    let processes = results::process_results(&run.processes, sim, memory, &node_names(machine));
    let footprint_pages = memory.table.pages() as u64;
    let setup = sim.setup().map(|s| crate::sim::SetupReport {
        region_pages: memory.pages.total.iter().filter(|&&n| n > 0).count() as u64,
        ..s
    });
    let sampling = sim.sampling();
    let timing = sim.run_report(report, machine);
    let rate = |accesses: u64, s: f64| if s > 0.0 { Some(accesses as f64 / s) } else { None };
    let migration = migrator.finish();
    let summary = run.classes.summarize(&total);
    let facts = similarity_facts(
        run,
        &SimilarityInputs {
            // Measured from the region of interest: the region's pages, as a paper's footprint
            // is its computation's data.
            footprint_pages: setup.map_or(footprint_pages, |s| s.region_pages),
            instructions: summary.counts.instructions,
            phases: &phases,
            timing: timing.as_ref(),
            sampling: sampling.as_ref(),
            capacity_pages: node_names(machine)
                .into_iter()
                .enumerate()
                .map(|(n, name)| (name, memory.placement.capacity_pages(n, footprint_pages) as f64))
                .collect(),
        },
    );
    let similarity = crate::similarity::SimilarityReport::new(&facts, run.similarity.as_ref());
    RunResults {
        schema_version: RESULTS_SCHEMA_VERSION,
        numasim_version: env!("CARGO_PKG_VERSION"),
        name: run.name.clone(),
        seed: run.seed,
        mode: run.mode,
        machine: MachineBrief::of(machine),
        workload: source.describe(),
        threads: run.threads,
        thread_sockets: run
            .thread_sockets
            .iter()
            .map(|&s| machine.sockets[s].name.clone())
            .collect(),
        llc_enabled: run.llc_enabled,
        page_bytes: run.page_bytes,
        totals: Totals {
            summary,
            footprint_pages,
            footprint_bytes: footprint_pages * run.page_bytes,
            phases: phases.len() as u64,
        },
        sharing: sharing_report(memory.pages.run_sharing()),
        pages_per_node: per_node(machine, memory.placement.used_pages()),
        phases,
        migration,
        perf: Perf {
            wall_s,
            setup_s,
            accesses_per_s: if wall_s > 0.0 {
                total.accesses as f64 / wall_s
            } else {
                0.0
            },
            timing_accesses_per_s: sampling.as_ref().and_then(|x| rate(x.timing_accesses, x.timing_wall_s)),
            functional_accesses_per_s: sampling
                .as_ref()
                .and_then(|x| rate(x.functional_accesses, x.functional_wall_s)),
            peak_rss_mib: results::peak_rss_mib(),
        },
        timing,
        sampling,
        processes,
        similarity,
        setup,
    }
}

fn node_names(machine: &Machine) -> Vec<String> {
    machine.memory_nodes.iter().map(|n| n.name.clone()).collect()
}

/// What [`similarity_facts`] reads of a finished run.
struct SimilarityInputs<'a> {
    footprint_pages: u64,
    instructions: u64,
    phases: &'a [PhaseRecord],
    timing: Option<&'a TimingResults>,
    sampling: Option<&'a SamplingReport>,
    capacity_pages: BTreeMap<String, f64>,
}

/// The run's own figures the similarity numbers are computed from.
fn similarity_facts(run: &Run, i: &SimilarityInputs) -> crate::similarity::RunFacts {
    let spanned: u64 = i.phases.iter().map(|p| p.phases_spanned).sum();
    let profiled = run.migration.policy.role() == Role::AtBoundaries;
    // Sampled timing: the share of instructions timed; its clock covers only those, so the
    // run's simulated length is the timed time over that share.
    let timed_share = match (i.sampling, i.timing) {
        (Some(s), _) => {
            let all = s.timed_instructions + s.warmup_instructions_run + s.functional_instructions;
            (all > 0).then(|| s.timed_instructions as f64 / all as f64)
        }
        (None, Some(_)) => Some(1.0),
        (None, None) => None,
    };
    let sim_ns = match (i.timing, timed_share) {
        (Some(t), Some(share)) if share > 0.0 => Some(t.sim_time_ns / share),
        _ => None,
    };
    // Time the moves cost: the copies' spans plus the cores' stalls per core.
    let migration_ns = i.timing.map(|t| {
        let m = &t.migration;
        m.copy_span_ns + m.core_stall_ns / run.threads.max(1) as f64
    });
    let llc_bytes = if run.llc_enabled {
        run.machine.sockets.iter().map(|s| s.llc_bytes as f64).sum()
    } else {
        0.0
    };
    crate::similarity::RunFacts {
        footprint_bytes: (i.footprint_pages * run.page_bytes) as f64,
        page_bytes: run.page_bytes as f64,
        instructions: i.instructions as f64,
        phases_spanned: spanned as f64,
        profiled_phases: if profiled { spanned as f64 } else { 0.0 },
        profiler_samples: i.phases.iter().map(|p| p.migration.profiler_samples as f64).sum(),
        migration_limit_pages: run
            .migration
            .params
            .get("migration_limit_pages")
            .and_then(|v| v.as_integer())
            .map(|v| v as f64),
        capacity_pages: i.capacity_pages.clone(),
        timed_share,
        sim_ns,
        migration_ns,
        llc_bytes,
    }
}

/// The static oracle's first pass: runs the workload on the functional engine without
/// migration and returns the oracle home of every virtual page (see [`crate::migrate::oracle`]).
pub fn learn_oracle_homes(run: &mut Run) -> Result<FixedHomes, RunError> {
    let mut source = run.open_source()?;
    let (mut sim, mut system) = run.functional_sim()?;
    let sockets = run.machine.sockets.len();
    let mut totals: Vec<u64> = Vec::new();
    for_each_phase(&mut sim, &mut system, &mut *source, run.max_phases, |lent, _, ()| {
        let memory = &lent.system.memory;
        let pages = memory.table.pages();
        totals.resize(pages * sockets, 0);
        for (t, &c) in totals.iter_mut().zip(&memory.pages.phase_counts[..pages * sockets]) {
            *t += u64::from(c);
        }
        Ok(())
    })?;
    Ok(fixed_homes(run, &system.memory, |mach, capacity| {
        crate::migrate::oracle::best_homes(&totals, mach, capacity)
    }))
}

/// A first pass's homes, chosen by `choose` from the machine and each node's capacity at the
/// pass's footprint, keyed by virtual page: page ids follow first-touch order, which differs
/// between the functional first pass and a timing-mode run.
fn fixed_homes(
    run: &Run,
    memory: &Memory,
    choose: impl FnOnce(&crate::migrate::MachineInfo, &[u64]) -> Vec<u16>,
) -> FixedHomes {
    let mach = crate::migrate::MachineInfo::from_machine(&run.machine, run.page_bytes);
    let footprint = memory.table.pages() as u64;
    let capacity: Vec<u64> = (0..run.machine.memory_nodes.len())
        .map(|n| memory.placement.capacity_pages(n, footprint))
        .collect();
    let homes = choose(&mach, &capacity);
    FixedHomes::from_pairs(
        homes
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n != u16::MAX)
            .map(|(id, &n)| (memory.table.vpage(id as u32), n)),
    )
}

/// Profile-driven static placement's first run: the workload without migration on the
/// functional engine with the experiment's profiler observing it; its per-phase profiles summed
/// over the run choose the homes (see [`crate::migrate::profile_static`]). Nothing of the run
/// that follows is seen.
pub fn learn_profile_homes(run: &mut Run) -> Result<FixedHomes, RunError> {
    let mut source = run.open_source()?;
    let (mut sim, mut system) = run.functional_sim()?;
    let sockets = run.machine.sockets.len();
    system.set_observer(Observer::new(run.migration.profiler, sockets, &run.migration.params));
    let mut total = crate::profile::PageProfile::new(sockets, 0);
    for_each_phase(&mut sim, &mut system, &mut *source, run.max_phases, |lent, _, ()| {
        let system = lent.system;
        let pages = system.memory.table.pages();
        let exact = system.memory.pages.phase_counts[..pages * sockets].to_vec();
        let o = system.observer_mut().expect("installed above");
        total.add(&o.profile(&exact, pages));
        o.end_phase(pages, &[], 0);
        Ok(())
    })?;
    Ok(fixed_homes(run, &system.memory, |mach, capacity| {
        crate::migrate::profile_static::homes_from_profile(&total, mach, capacity)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{Capacity, Placement, PlacementPolicy};
    use crate::sim::FunctionalConfig;
    use crate::timing::{TimingConfig, TimingSpec};
    use numasim_trace::{Access, VecSource};

    fn streams() -> Vec<Vec<Access>> {
        (0..4u64)
            .map(|t| {
                (0..300u64)
                    .map(|i| {
                        let vaddr = ((i * 7 + t) % 64) * 4096 + (i % 64) * 64;
                        if i % 3 == 0 {
                            Access::write(i * 10 + 1, vaddr, 8)
                        } else {
                            Access::read(i * 10 + 1, vaddr, 8)
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn placement(m: &Machine) -> Placement {
        let nearest = (0..m.sockets.len())
            .map(|s| m.nearest_memory_order(s).to_vec())
            .collect();
        Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(1 << 20); m.memory_nodes.len()],
            nearest,
        )
    }

    /// Phases run and accesses seen, through the shared loop.
    fn drive_counts<E: Engine>(sim: &mut E, system: &mut System, max: Option<u64>) -> (u64, u64, u64, u64) {
        let mut src = VecSource::new(streams());
        let (mut accesses, mut spanned_before) = (0, sim.phase_index());
        let mut per_phase_pages = 0;
        let phases = for_each_phase(sim, system, &mut src, max, |lent, counts, _| {
            accesses += counts.accesses;
            assert!(lent.engine.phase_index() > spanned_before);
            spanned_before = lent.engine.phase_index();
            // The page counters hold this phase only: reset after each call.
            per_phase_pages = per_phase_pages.max(lent.page_stats().phase_counts.iter().map(|&c| u64::from(c)).sum());
            Ok(())
        })
        .unwrap();
        (phases, accesses, system.memory.table.pages() as u64, per_phase_pages)
    }

    fn functional(m: &Machine, sockets: Vec<usize>) -> (FunctionalSim, System) {
        let cfg = FunctionalConfig {
            phase_instructions: 1000,
            quantum_instructions: 100,
            llc: None,
            page_bytes: 4096,
            observer_thread: false,
        };
        let system = FunctionalSim::system(&cfg, m.sockets.len(), placement(m)).unwrap();
        (
            FunctionalSim::new(&cfg, m.sockets.len(), m.memory_nodes.len(), sockets),
            system,
        )
    }

    #[test]
    fn one_loop_drives_both_engines_over_the_same_accesses() {
        let m = Machine::load("two-socket").unwrap();
        let sockets = vec![0, 0, 1, 1];
        let (mut f, mut fs) = functional(&m, sockets.clone());
        let cfg = TimingConfig {
            spec: TimingSpec::default(),
            phase_instructions: 1000,
            page_bytes: 4096,
            llc: false,
        };
        let mut t = TimingSim::new(&cfg, &m, sockets).unwrap();
        let mut ts = TimingSim::system(&cfg, &m, placement(&m)).unwrap();
        let fc = drive_counts(&mut f, &mut fs, None);
        let tc = drive_counts(&mut t, &mut ts, None);
        // 300 accesses per thread, one every 10 instructions: 3 phases of 1000.
        assert_eq!((fc.0, fc.1, fc.2), (3, 1200, 64));
        assert_eq!(
            (tc.0, tc.1, tc.2),
            (fc.0, fc.1, fc.2),
            "same phases, accesses and pages"
        );
        // Without an LLC filter every functional access reaches memory and is counted per
        // page, phase by phase (400 per phase); the timing engine's private caches absorb some.
        assert_eq!(fc.3, 400);
        assert!(tc.3 > 0 && tc.3 <= 400, "{}", tc.3);
    }

    #[test]
    fn max_phases_stops_the_loop() {
        let m = Machine::load("two-socket").unwrap();
        let (mut f, mut fs) = functional(&m, vec![0, 0, 1, 1]);
        let (phases, accesses, _, _) = drive_counts(&mut f, &mut fs, Some(2));
        assert_eq!((phases, accesses), (2, 800));
    }
}
