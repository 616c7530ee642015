//! Sampled timing: StarNUMA's own methodology (§IV-A, Fig. 6), so a paper-scale study costs
//! functional speed rather than timing speed.
//!
//! Each phase of `phase_instructions` per thread runs in three spans, all on the run's one
//! [`System`] (page table and per-page counters, LLC tag arrays, profiler observer), lent to
//! whichever engine runs the span:
//!
//! ```text
//! phase k:  [ warm-up W | timed window S |  rest of the phase, functional  ]
//!             timing,     timing,           FunctionalSim (LLC filter, profiler)
//!             discarded   recorded
//! ```
//!
//! - **Warm-up with timing discarded**, not functional warm-up: the functional engine has no
//!   private caches, TLB or directory to hand over, so the timing engine's own caches are
//!   brought up to date by running the first W instructions through it and dropping their
//!   figures (AMAT, IPC, utilisations). The paper primes each window with 10–20 M of its
//!   100 M instructions the same way. Between windows the timing engine keeps its caches and
//!   directory as the last window left them; the warm-up replaces the lines the phase uses.
//! - **The functional rest** sees every access, so migration decisions (Algorithm 1, the
//!   perfect baseline) are made on the whole phase, as the paper's trace simulation makes them.
//!   Both engines use the system's LLC tag arrays, so the LLC holds one continuous state; the
//!   timing engine's private caches are not told what the functional part did (they are
//!   dropped and the warm-up refills them). Each engine keeps its own directory; at each
//!   switch the sharer masks are merged both ways, so a store still invalidates every copy.
//! - **Migrations** are decided at the boundary on the whole phase and all re-home their pages
//!   at once; the first `charged_migration_fraction` of them (default `S / phase`: the paper
//!   models "only the first 10 % migrations of each phase" with 100 M of 1 B instructions
//!   timed) are charged in time at the start of the next timed window (copies on links and
//!   DRAM, shootdowns, waits for pages in flight). Their cost appears in the next phase's
//!   record (`timing.migration`), not in the phase that decided them as in full timing.
//!
//! What results.json then holds: `totals` and every phase's counters are the whole run's
//! functional counts (window accesses counted by the timing engine, the rest by the
//! functional one); `timing` holds only the timed windows (AMAT, IPC over window instructions
//! and window time, `sim_time_ns` = the timed windows' summed duration); `sampling` and every
//! phase's `sampled` record which instructions were timed.

use super::{Engine, Mode};
use crate::migrate::mechanism::CostParams;
use crate::migrate::{Migrator, PhaseMigration};
use crate::sim::{FunctionalSim, SimError, ThreadPlace};
use crate::stats::PhaseCounts;
use crate::system::System;
use crate::timing::engine::TimingCounts;
use crate::timing::report::{MigrationTime, PhaseTracker};
use crate::timing::{PhaseTiming, TimingResults, TimingSim};
use numasim_machine::Machine;
use numasim_output::stat::Stats;
use numasim_trace::AccessSource;
use serde::Serialize;

/// Which instructions of a phase were timed (per thread, instruction counts `[from, to)`).
#[derive(Debug, Clone, Serialize)]
pub struct TimedWindow {
    pub warmup: [u64; 2],
    pub timed: [u64; 2],
    pub functional: [u64; 2],
    /// Moves decided at the previous boundary, and how many of them were charged in time at
    /// the start of this window.
    pub moves_decided: u64,
    pub moves_charged: u64,
}

/// The run's sampling settings and what they timed (results.json `sampling`).
#[derive(Debug, Clone, Serialize)]
pub struct SamplingReport {
    pub sample_instructions: u64,
    pub warmup_instructions: u64,
    pub charged_migration_fraction: f64,
    /// Instructions over all threads: timed, run with timing discarded, run functionally.
    pub timed_instructions: u64,
    pub warmup_instructions_run: u64,
    pub functional_instructions: u64,
    /// Simulated time of the timed windows and of the warm-ups, summed, ns.
    pub timed_ns: f64,
    pub warmup_ns: f64,
    /// Accesses simulated by the timing engine (warm-ups and windows) and by the functional one.
    pub timing_accesses: u64,
    pub functional_accesses: u64,
    /// Wall time in each engine, s (not compared between runs: like `perf`).
    #[serde(skip)]
    pub timing_wall_s: f64,
    #[serde(skip)]
    pub functional_wall_s: f64,
}

/// One phase's figures: the timed window's counters and record, and where the window lay.
pub struct SampledPhase {
    timing: TimingCounts,
    record: PhaseTiming,
    window: Option<TimedWindow>,
}

/// Run-long state of the sampled engine's report.
#[derive(Default)]
pub struct SampledReport {
    total: TimingCounts,
    migration: MigrationTime,
}

/// The timing engine for the windows and the functional engine for the rest of each phase,
/// both on the system the driver lends for the phase.
pub struct SampledSim {
    timing: TimingSim,
    functional: FunctionalSim,
    machine: Machine,
    places: Vec<ThreadPlace>,
    phase_instructions: u64,
    sample: u64,
    warmup: u64,
    charge_fraction: f64,
    phase: u64,
    tracker: PhaseTracker,
    /// The last boundary's cost parameters and scan cycles, charged at the next window.
    cost: Option<CostParams>,
    scan_cycles: u64,
    moves_decided: u64,
    moves_kept: u64,
    /// Per core over the timed windows: instructions, LLC misses, time (ps).
    win_instr: Vec<u64>,
    win_misses: Vec<u64>,
    win_ps: Vec<u64>,
    stats: SamplingReport,
    /// Summed durations of the timed windows and of the warm-ups, ps.
    timed_ps: u64,
    warmup_ps: u64,
}

impl SampledSim {
    /// Sampled timing over `timing` and `functional` (built from the same run), with the
    /// `[timing]` sampling keys of `timing`'s spec.
    pub fn new(timing: TimingSim, functional: FunctionalSim, machine: Machine, phase_instructions: u64) -> Self {
        let spec = &timing.spec;
        let sample = spec.sample_instructions.unwrap_or(phase_instructions).max(1);
        let warmup = spec.warmup_instructions.unwrap_or(0);
        let charge_fraction = spec
            .charged_migration_fraction
            .unwrap_or((sample as f64 / phase_instructions.max(1) as f64).min(1.0));
        let threads = timing.threads();
        SampledSim {
            functional,
            machine,
            places: vec![ThreadPlace::default(); threads],
            phase_instructions: phase_instructions.max(1),
            sample,
            warmup,
            charge_fraction,
            phase: 0,
            tracker: PhaseTracker::default(),
            cost: None,
            scan_cycles: 0,
            moves_decided: 0,
            moves_kept: 0,
            win_instr: vec![0; threads],
            win_misses: vec![0; threads],
            win_ps: vec![0; threads],
            stats: SamplingReport {
                sample_instructions: sample,
                warmup_instructions: warmup,
                charged_migration_fraction: charge_fraction,
                timed_instructions: 0,
                warmup_instructions_run: 0,
                functional_instructions: 0,
                timed_ns: 0.0,
                warmup_ns: 0.0,
                timing_accesses: 0,
                functional_accesses: 0,
                timing_wall_s: 0.0,
                functional_wall_s: 0.0,
            },
            timed_ps: 0,
            warmup_ps: 0,
            timing,
        }
    }

    /// What was timed so far.
    pub fn sampling(&self) -> &SamplingReport {
        &self.stats
    }

    fn refill(&mut self, src: &mut dyn AccessSource) -> Result<(), SimError> {
        for (t, p) in self.places.iter_mut().enumerate() {
            if !p.done && p.pending.is_empty() {
                src.next_batch(t, &mut p.pending)?;
                crate::sim::clamp_instructions(&mut p.pending);
                p.done = p.pending.is_empty();
            }
        }
        Ok(())
    }

    /// Runs the functional engine on `sys` up to `end`; the directories' sharer masks are
    /// merged both ways around it.
    fn functional_to(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
        end: u64,
    ) -> Result<PhaseCounts, SimError> {
        let wall = std::time::Instant::now();
        if let Some(map) = self.functional.sharers_mut(&sys.memory) {
            map.merge(self.timing.directory_sharers());
        }
        self.functional.give_threads(std::mem::take(&mut self.places));
        let r = self.functional.run_to(sys, src, end);
        self.places = self.functional.take_threads();
        let map = self.functional.sharers_mut(&sys.memory).map(|m| &*m);
        self.timing.resume_after_functional(sys, |dir| {
            if let Some(m) = map {
                m.merge_into(dir);
            }
        });
        let c = r?;
        self.stats.functional_instructions = self.stats.functional_instructions.saturating_add(c.instructions);
        self.stats.functional_accesses += c.accesses;
        self.stats.functional_wall_s += wall.elapsed().as_secs_f64();
        Ok(c)
    }

    /// Runs the timing engine on `sys` up to `end`.
    fn timing_to(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
        end: u64,
    ) -> Result<(PhaseCounts, TimingCounts), SimError> {
        let wall = std::time::Instant::now();
        self.timing.give_threads(std::mem::take(&mut self.places));
        let r = self.timing.run_to(sys, src, end);
        self.places = self.timing.take_threads();
        let r = r?;
        self.stats.timing_accesses += r.0.accesses;
        self.stats.timing_wall_s += wall.elapsed().as_secs_f64();
        Ok(r)
    }

    fn core_stats(&self) -> Vec<(u64, u64)> {
        (0..self.timing.threads())
            .map(|c| {
                let (i, m, _) = self.timing.core_stats(c);
                (i, m)
            })
            .collect()
    }
}

fn ns(ps: u64) -> f64 {
    ps as f64 / 1000.0
}

impl Engine for SampledSim {
    type Phase = SampledPhase;
    type Report = SampledReport;

    fn run_phase(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
    ) -> Result<Option<(PhaseCounts, SampledPhase)>, SimError> {
        if src.threads() != self.places.len() {
            return Err(SimError::ThreadCount {
                source_threads: src.threads(),
                mapped: self.places.len(),
            });
        }
        self.refill(src)?;
        if self.places.iter().all(|p| p.done) {
            return Ok(None);
        }
        let (next, end) = crate::sim::phase_window(
            self.phase,
            self.phase_instructions,
            self.places.iter().filter(|p| !p.done).map(|p| p.pending[0].instr),
        );
        let (sockets, nodes) = (self.machine.sockets.len(), self.machine.memory_nodes.len());
        let mut counts = PhaseCounts::new(sockets, nodes);
        if next != self.phase + 1 {
            // A merged stretch of empty phases: nothing to time.
            counts.add(&self.functional_to(sys, src, end)?);
            self.phase = next;
            let now = self.timing.now_ps();
            let timing = TimingCounts {
                start_ps: now,
                end_ps: now,
                ..Default::default()
            };
            let record = self.tracker.phase(&self.timing, &self.machine, &timing);
            return Ok(Some((
                counts,
                SampledPhase {
                    timing,
                    record,
                    window: None,
                },
            )));
        }
        let start = end.saturating_sub(self.phase_instructions);
        let warm_end = start.saturating_add(self.warmup).min(end);
        let win_end = warm_end.saturating_add(self.sample).min(end);
        if warm_end > start {
            let (c, t) = self.timing_to(sys, src, warm_end)?;
            counts.add(&c);
            self.stats.warmup_instructions_run = self.stats.warmup_instructions_run.saturating_add(c.instructions);
            self.warmup_ps += t.end_ps - t.start_ps;
            self.stats.warmup_ns = ns(self.warmup_ps);
            // Brings the tracker's snapshots past the warm-up: the window's record holds the
            // window alone.
            self.tracker.phase(&self.timing, &self.machine, &t);
        }
        // The previous boundary's moves, charged from the window's start.
        let moved = match &self.cost {
            Some(cost) => self.timing.charge_moves(sys, cost, self.scan_cycles),
            None => Default::default(),
        };
        let before = self.core_stats();
        let (c, t) = self.timing_to(sys, src, win_end)?;
        counts.add(&c);
        let mut record = self.tracker.phase(&self.timing, &self.machine, &t);
        record.migration = MigrationTime::of(&moved, &t, self.timing.threads());
        let dur = t.end_ps - t.start_ps;
        for (k, (i, m)) in self.core_stats().into_iter().enumerate() {
            self.win_instr[k] += i - before[k].0;
            self.win_misses[k] += m - before[k].1;
            self.win_ps[k] += dur;
        }
        self.stats.timed_instructions = self.stats.timed_instructions.saturating_add(c.instructions);
        self.timed_ps += dur;
        self.stats.timed_ns = ns(self.timed_ps);
        if win_end < end {
            counts.add(&self.functional_to(sys, src, end)?);
        }
        self.phase = next;
        let window = TimedWindow {
            warmup: [start, warm_end],
            timed: [warm_end, win_end],
            functional: [win_end, end],
            moves_decided: self.moves_decided,
            moves_charged: self.moves_kept,
        };
        Ok(Some((
            counts,
            SampledPhase {
                timing: t,
                record,
                window: Some(window),
            },
        )))
    }
    fn phase_index(&self) -> u64 {
        self.phase
    }
    fn move_page(&mut self, sys: &mut System, page: u32, node: usize) {
        self.timing.move_page(sys, page, node)
    }
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        Some(self.timing.page_memory_time_ps())
    }
    /// Counts over both engines; no time (the timed windows cover a sample of each phase).
    fn thread_totals(&self) -> Vec<crate::stats::ThreadTotals> {
        let mut all = self.timing.thread_totals();
        for (t, f) in all.iter_mut().zip(self.functional.thread_totals()) {
            t.add(f);
            t.finish_ps = 0;
            t.miss_loads = 0;
            t.miss_load_ps = 0;
        }
        all
    }
    fn phase_report(
        &mut self,
        _report: &mut SampledReport,
        _machine: &Machine,
        phase: &SampledPhase,
    ) -> Option<PhaseTiming> {
        Some(phase.record.clone())
    }
    fn window(&self, phase: &SampledPhase) -> Option<TimedWindow> {
        phase.window.clone()
    }
    fn after_boundary(
        &mut self,
        _sys: &mut System,
        report: &mut SampledReport,
        migrator: &Migrator,
        migration: &PhaseMigration,
        record: &mut Option<PhaseTiming>,
        phase: SampledPhase,
    ) {
        // Keep the first share of the moves (they are in the policy's order) for the next
        // window; every move has already re-homed its page.
        let decided = self.timing.keep_pending_moves(usize::MAX);
        let kept = (decided as f64 * self.charge_fraction).ceil() as usize;
        self.timing.keep_pending_moves(kept);
        self.moves_decided = decided as u64;
        self.moves_kept = kept.min(decided) as u64;
        self.cost = Some(migrator.cost_params().clone());
        self.scan_cycles = migration.costs.scan_cycles;
        if let Some(r) = record.as_ref() {
            report.migration.add(&r.migration);
        }
        report.total.add(&phase.timing);
    }
    fn sampling(&self) -> Option<SamplingReport> {
        Some(self.stats.clone())
    }
    fn run_report(&self, report: SampledReport, machine: &Machine) -> Option<TimingResults> {
        let mut r = crate::timing::report::run(&self.timing, machine, &report.total, report.migration);
        // IPC and per-thread figures over the timed windows only (the engine's own counters
        // include the warm-ups).
        let mut sock: Vec<(u64, f64)> = vec![(0, 0.0); machine.sockets.len()];
        for (c, t) in r.threads.iter_mut().enumerate() {
            let s = self.timing.core_socket(c);
            let (instr, misses, time_ps) = (self.win_instr[c], self.win_misses[c], self.win_ps[c]);
            let cycles = ns(time_ps) * machine.sockets[s].freq_ghz;
            let ipc = if cycles > 0.0 { instr as f64 / cycles } else { 0.0 };
            t.instructions = instr;
            t.llc_misses = misses;
            t.llc_mpki = if instr > 0 {
                misses as f64 * 1000.0 / instr as f64
            } else {
                0.0
            };
            t.ipc = ipc;
            t.time_ns = ns(time_ps);
            r.ipc.per_core[c] = ipc;
            sock[s].0 += 1;
            sock[s].1 += ipc;
        }
        r.ipc.mean = r.ipc.per_core.iter().sum::<f64>() / r.ipc.per_core.len().max(1) as f64;
        r.ipc.per_socket = machine
            .sockets
            .iter()
            .zip(&sock)
            .filter(|(_, (n, _))| *n > 0)
            .map(|(s, (n, sum))| (s.name.clone(), sum / *n as f64))
            .collect();
        r.sim_time_ns = self.stats.timed_ns;
        Some(r)
    }
}

/// Whether a run in `mode` with these timing settings uses sampled timing.
pub fn is_sampled(mode: Mode, spec: &crate::timing::TimingSpec) -> bool {
    mode == Mode::Timing && spec.sample_instructions.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{Capacity, Placement, PlacementPolicy};
    use crate::sim::FunctionalConfig;
    use crate::timing::{TimingConfig, TimingSpec};
    use numasim_trace::{Access, VecSource};

    /// Sampled timing on `two-socket` with LLCs, phases of 1000 instructions, the first 200 of
    /// each timed (no warm-up); thread t on socket t.
    fn sampled(m: &Machine) -> (SampledSim, System) {
        let nearest = (0..m.sockets.len())
            .map(|s| m.nearest_memory_order(s).to_vec())
            .collect();
        let placement = Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(1 << 20); m.memory_nodes.len()],
            nearest,
        );
        let cfg = TimingConfig {
            spec: TimingSpec {
                sample_instructions: Some(200),
                ..TimingSpec::default()
            },
            phase_instructions: 1000,
            page_bytes: 4096,
            llc: true,
        };
        let fcfg = FunctionalConfig {
            phase_instructions: 1000,
            quantum_instructions: 100,
            llc: Some(m.sockets.iter().map(|s| (s.llc_bytes, s.llc_ways as usize)).collect()),
            page_bytes: 4096,
            observer_thread: false,
        };
        let (sockets, nodes) = (m.sockets.len(), m.memory_nodes.len());
        let timing = TimingSim::new(&cfg, m, vec![0, 1]).unwrap();
        let functional = FunctionalSim::new(&fcfg, sockets, nodes, vec![0, 1]);
        let system = TimingSim::system(&cfg, m, placement).unwrap();
        (SampledSim::new(timing, functional, m.clone(), 1000), system)
    }

    #[test]
    fn the_next_timed_window_sees_the_page_and_the_line_the_functional_part_left() {
        let m = Machine::load("two-socket").unwrap();
        let (mut sim, mut system) = sampled(&m);
        let a = 0x10_0000u64;
        // Phase 0: thread 0 reads line `a` in the functional part (instructions 200-1000),
        // which places its page on socket 0's node and fills socket 0's LLC. Phase 1's timed
        // window (1000-1200): thread 0 reads the line again, thread 1 reads the next line.
        let streams = vec![
            vec![Access::read(500, a, 8), Access::read(1100, a, 8)],
            vec![Access::read(1150, a + 64, 8)],
        ];
        let mut src = VecSource::new(streams);
        let (first, p0) = sim.run_phase(&mut system, &mut src).unwrap().unwrap();
        let w0 = p0.window.expect("a timed phase");
        assert_eq!((w0.timed, w0.functional), ([0, 200], [200, 1000]));
        assert_eq!((first.accesses, first.new_pages, first.llc_misses), (1, 1, 1));
        assert_eq!(system.memory.table.pages(), 1);
        assert!(system.llcs[0].contains(a >> 6), "the functional part filled the LLC");
        let home = system.memory.home[0] as usize;
        assert_eq!(home, m.nearest_memory_order(0)[0]);

        let (second, p1) = sim.run_phase(&mut system, &mut src).unwrap().unwrap();
        assert_eq!(p1.window.expect("a timed phase").timed, [1000, 1200]);
        // Both accesses ran in the timing engine; neither touched a page first, thread 0's hit
        // in the LLC the functional part filled (the timing engine's private caches were
        // dropped after it), thread 1's went to the page's first-touch home.
        assert_eq!(second.accesses, 2);
        assert_eq!(second.new_pages, 0, "the page is the system's, placed in phase 0");
        assert_eq!((second.llc_hits, second.llc_misses), (1, 1));
        assert_eq!(second.demand[m.memory_nodes.len() + home], 1);
        assert_eq!(system.memory.table.pages(), 1);
    }
}
