//! The timing engine: cores, private caches, LLCs, directory, links and DRAM on one
//! deterministic clock (see the module docs of [`super`] for the model).
//!
//! This file is the orchestration only: the phase loop that interleaves cores in time order,
//! and the path of one access through the parts, each in its own module with its own tests —
//! the core model ([`super::core`]: clock, ROB, MSHRs, store buffer), the private caches
//! ([`super::private`]), the directory ([`super::directory`]), and the fabric and DRAM
//! booking with the latency calibration ([`super::booking`]). The shared LLCs, the page table
//! ([`crate::mem::Memory`]) and migration charging live here because every part meets there.
//!
//! Why transactions are computed whole at issue rather than hop by hop as events: a
//! discrete-event engine pays a priority-queue push and pop for every hop of every message
//! (5–10 per LLC miss), which held it near 1 M accesses/s. Here a core issues an access at
//! its own clock and the whole transaction — request legs, DRAM, forwards, the data legs —
//! is booked at once on the [`Timeline`](super::timeline::Timeline) of every resource it
//! crosses, so its completion time is known at issue. Cores are interleaved in time order (a
//! heap of cores, each running up to `lookahead_ns` past the slowest), so resources see
//! requests nearly in time order, and the timelines' gap filling softens the remaining
//! disorder: an early request presented late still uses an idle gap it fits in whole (what
//! that disorder costs is measured against an exact engine in `super::reference`).
//!
//! The one exception is a demand miss's DRAM read when read queues are on (the default): it
//! waits in its home's FR-FCFS queue and the rest of its transaction is booked when the queue
//! decides it. The phase loop then takes queue decisions and core steps in one time order, and
//! a core whose ROB or miss slots need an undecided read leaves the heap until it is decided
//! (module docs of [`super`], "Read queues").

use super::booking::{Booking, FetchInFlight, Latency};
use super::core::{Core, CoreLimits, PENDING};
use super::directory::{Directory, NO_OWNER};
use super::dram::ps;
use super::params::{Coherence, CoherenceChoice, TimingSpec};
use super::private::{Level, PrivateCaches};
use crate::cache::{Outcome, SetAssocCache};
use crate::mem::{Memory, Placement};
use crate::migrate::mechanism::CostParams;
use crate::profile::Observer;
use crate::sim::SimError;
use crate::stats::PhaseCounts;
use numasim_machine::Machine;
use numasim_trace::{Access, AccessSource};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How many accesses ahead a core prefetches its L2 and LLC sets (host-side hint only).
const PREFETCH_DISTANCE: usize = 12;
/// Most sockets the directory's sharer masks can name.
pub const MAX_SOCKETS: usize = 64;
pub use super::core::MAX_CLOCK_PS;

/// Settings of the timing engine besides `[timing]`.
#[derive(Debug, Clone)]
pub struct TimingConfig {
    pub spec: TimingSpec,
    pub phase_instructions: u64,
    pub page_bytes: u64,
    /// Model the shared per-socket LLC (size and ways from the machine).
    pub llc: bool,
}

/// Per-class latency sums, ps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassSums {
    pub count: u64,
    pub unloaded_ps: u64,
    pub wait_ps: u64,
}

/// Whole-run or per-phase timing counters.
#[derive(Debug, Clone, Default)]
pub struct TimingCounts {
    /// Indexed like [`TimingSim::class_names`].
    pub classes: Vec<ClassSums>,
    pub block_transfers_3hop: u64,
    pub block_transfers_4hop: u64,
    /// MESI: write-backs of block transfers' suppliers (`coherence = "mesi"`).
    pub sharing_writebacks: u64,
    /// Block-transfer *loads* (the AMAT's `block_transfer` class) whose home is a pool.
    pub bt_loads_via_pool: u64,
    pub invalidations: u64,
    pub tlb_misses: u64,
    /// LLC misses that waited for a page still being migrated, and how long in all (ps).
    pub migration_stalls: u64,
    pub migration_stall_ps: u64,
    pub start_ps: u64,
    pub end_ps: u64,
}

/// What the moves of one migration step cost in time (ps), charged from the phase barrier.
#[derive(Debug, Clone, Copy, Default)]
pub struct MoveTiming {
    pub pages: u64,
    /// Barrier → last copied page landed (reads, link transfers and writes of every page,
    /// contending with each other and with the next phase's traffic).
    pub copy_span_ps: u64,
    /// Core time lost to TLB shootdowns and the OS thread's scan, summed over cores.
    pub core_stall_ps: u64,
}

/// A hit in a core's private caches or its socket's LLC.
#[derive(Debug, Clone, Copy)]
struct CacheHit {
    /// Load-to-use latency of the level that hit, ps.
    latency_ps: u64,
    /// Whether it is tracked in the ROB (L1 hits are hidden by the base CPI).
    tracked: bool,
    /// The line was dirty in that level (a store needs no ownership request).
    was_dirty: bool,
    /// The private caches missed and were filled from the LLC.
    filled: bool,
}

/// Why a core stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Yield {
    /// Ran `lookahead_ns` past the slowest core: requeue at its clock.
    Later,
    /// Next access belongs to the next phase.
    Barrier,
    /// Source exhausted.
    Done,
    /// Waits for a read still in a memory node's read queue (see [`TimingSim::waiting`]).
    Blocked,
}

/// What a core off the ready heap waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// Nothing: it is on the heap, or finished.
    Running,
    /// The read with this token (a [`PENDING`] value) must retire before the next issue.
    Retire(u64),
    /// Every MSHR (or store-buffer) slot waits on a read: the first of them decided frees one.
    Slot,
}

/// An LLC miss past its directory step, before it takes its MSHR or store-buffer slot: kept
/// when every slot waits on a read still in a read queue, and finished when one is decided.
#[derive(Debug, Clone, Copy)]
struct MissCont {
    access: Access,
    socket: usize,
    t0: u64,
    page: u32,
    node: usize,
    bt: bool,
    supplier: u8,
    inval_msgs: u64,
}

/// A demand miss whose DRAM read waits in its home's read queue.
#[derive(Debug, Clone, Copy)]
struct QueuedMiss {
    fetch: FetchInFlight,
    core: u32,
    write: bool,
    /// The load's instruction (its ROB entry).
    instr: u64,
    /// AMAT class of a load.
    class: u16,
    page: u32,
    /// When the miss wanted memory (after its slot; the page-latency statistic's start).
    t_request: u64,
}

/// A read waiting on a proxy's pending chain (Talbot & Kelly): what its completion needs.
#[derive(Debug, Clone, Copy)]
struct ChainWait {
    core: u32,
    instr: u64,
    class: u16,
    page: u32,
    t_request: u64,
}

/// Tokens of reads waiting on a pending chain carry this bit (read-queue tokens do not).
const CHAIN_TOKEN: u64 = 1 << 62;

/// The engine. Public fields are read by the report and by migration at phase boundaries.
pub struct TimingSim {
    pub spec: TimingSpec,
    /// The directory's protocol and where it was chosen (`[timing] coherence`, else the
    /// machine file's).
    pub coherence: CoherenceChoice,
    sockets: usize,
    nodes: usize,
    /// Page table, homes and frames, placement and per-page statistics (shared with the
    /// functional engine).
    pub memory: Memory,
    llcs: Vec<SetAssocCache>,
    llc_on: bool,
    /// Socket-level coherence directory (and which cores may hold each line privately).
    dir: Directory,
    /// Whether the directory's per-core marks are complete (invalidations then probe only the
    /// cores they name; else every core of an invalidated socket).
    private_tracked: bool,
    /// Links, memory controllers, calibration; the booking horizon and latest completion.
    pub book: Booking,
    cores: Vec<Core>,
    /// Every core's private L1-D, L2 and TLB.
    private: PrivateCaches,
    socket_cores: Vec<Vec<u32>>,
    class_of: Vec<u16>,
    pub class_names: Vec<String>,
    bt_class: u16,
    /// Cores ready to run, by (clock, core id): ties break by id, so runs are deterministic.
    ready: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per page id: summed latency of the phase's LLC-miss loads to it (HyDM's progress).
    page_mem_ps: Vec<u64>,
    /// Per page id: time its migration copy lands (empty until a page moves).
    page_ready_ps: Vec<u64>,
    /// move-pages: per moved page, when its copy begins and where it was until then (node,
    /// frame); empty for the other mechanisms.
    page_before_copy: Vec<(u64, u16, u32)>,
    /// move-pages: when the migration daemon finishes the copies it has been given.
    daemon_free_ps: u64,
    /// The machine has a core no simulated thread runs on (where a migration daemon's
    /// `move_pages` call runs without taking an application core).
    spare_core: bool,
    /// Moves chosen at this boundary, not yet charged: (page, from, to, old frame).
    pending_moves: Vec<(u32, u16, u16, u32)>,
    /// Socket each memory node is attached to (`None`: the pool).
    node_socket: Vec<Option<usize>>,
    /// ps per core cycle, per socket.
    cycle_ps: Vec<f64>,
    /// Multi-process runs: the process of every core's thread (empty: one process). A TLB
    /// shootdown interrupts only the cores running the moved page's process.
    core_process: Vec<u32>,
    /// Multi-process runs: page-number shift that leaves the process number.
    process_shift: u32,
    observer: Option<Box<Observer>>,
    observing: bool,
    counts: PhaseCounts,
    pub timing: TimingCounts,
    phase: u64,
    /// Phase length the driver runs (per thread), from [`TimingConfig`].
    phase_instructions: u64,
    /// Phases in simulated time (`phase_ns`, ps): `None` runs phases of `phase_instructions`.
    phase_ps: Option<u64>,
    /// The last phase ended at its boundary (false: a timed phase the run finished before it).
    boundary_reached: bool,
    /// The running phase's time boundary: a core stops before an access that would issue at
    /// or after it (`u64::MAX`, never, outside [`Self::run_phase_timed`]).
    boundary_ps: u64,
    lookahead_ps: u64,
    /// Per core: what it waits for, off the ready heap (see [`Wait`]).
    waiting: Vec<Wait>,
    /// Per core: the miss it stopped in, waiting for a slot (see [`MissCont`]).
    miss_cont: Vec<Option<MissCont>>,
    /// Misses whose reads wait in read queues, by token (index; free ones listed below).
    queued_misses: Vec<QueuedMiss>,
    free_tokens: Vec<u32>,
    /// Reads waiting on pending chains, by token index, and the free indices.
    chain_waits: Vec<ChainWait>,
    free_chain_waits: Vec<u32>,
}

impl TimingSim {
    pub fn new(
        cfg: &TimingConfig,
        m: &Machine,
        thread_socket: Vec<usize>,
        placement: Placement,
    ) -> Result<Self, String> {
        let spec = cfg.spec.clone();
        let (sockets, nodes) = (m.sockets.len(), m.memory_nodes.len());
        if sockets > MAX_SOCKETS {
            return Err(format!(
                "timing mode supports at most {MAX_SOCKETS} sockets; machine `{}` has {sockets}",
                m.name
            ));
        }
        spec.check_core_caches(thread_socket.len())?;
        let llcs = if cfg.llc {
            m.sockets
                .iter()
                .map(|s| SetAssocCache::try_partitioned(1, s.llc_bytes, s.llc_ways as usize))
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        let private = PrivateCaches::new(&spec, m, thread_socket.len())?;
        let lookup_ps: Vec<u64> = (0..sockets)
            .map(|s| {
                let llc = if cfg.llc {
                    ps(f64::from(spec.llc_latency_cycles) / m.sockets[s].freq_ghz)
                } else {
                    0
                };
                private.l1_ps[s] + private.l2_ps[s] + llc
            })
            .collect();
        let book = Booking::new(&spec, m, cfg.page_bytes, lookup_ps);
        let mut class_names: Vec<String> = Vec::new();
        let mut class_of = Vec::with_capacity(sockets * nodes);
        for s in 0..sockets {
            for n in 0..m.memory_nodes.len() {
                let name = m.access_class(s, n).name();
                let id = class_names.iter().position(|c| *c == name).unwrap_or_else(|| {
                    class_names.push(name);
                    class_names.len() - 1
                });
                class_of.push(id as u16);
            }
        }
        class_names.push(numasim_machine::BLOCK_TRANSFER.into());
        let bt_class = (class_names.len() - 1) as u16;
        let mut socket_cores = vec![Vec::new(); sockets];
        let limits = CoreLimits::of(&spec);
        let cores = thread_socket
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                socket_cores[s].push(i as u32);
                Core::new(s, spec.base_cpi, m.sockets[s].freq_ghz, limits)
            })
            .collect();
        let classes = class_names.len();
        let mut memory = Memory::new(cfg.page_bytes, sockets, placement);
        memory.keep_line_state(Directory::BYTES_PER_LINE, crate::mem::memory::line_state_budget_bytes());
        Ok(TimingSim {
            sockets,
            nodes,
            memory,
            llcs,
            llc_on: cfg.llc,
            dir: Directory::new(cfg.page_bytes),
            private_tracked: true,
            book,
            cores,
            private,
            socket_cores,
            class_of,
            class_names,
            bt_class,
            ready: BinaryHeap::new(),
            page_mem_ps: Vec::new(),
            page_ready_ps: Vec::new(),
            page_before_copy: Vec::new(),
            daemon_free_ps: 0,
            spare_core: m.total_cores() > thread_socket.len() as u64,
            pending_moves: Vec::new(),
            node_socket: m.memory_nodes.iter().map(|n| n.attached_socket).collect(),
            cycle_ps: m.sockets.iter().map(|s| 1000.0 / s.freq_ghz).collect(),
            core_process: Vec::new(),
            process_shift: 64,
            observer: None,
            observing: false,
            counts: PhaseCounts::new(sockets, nodes),
            timing: TimingCounts {
                classes: vec![ClassSums::default(); classes],
                ..Default::default()
            },
            phase: 0,
            phase_instructions: cfg.phase_instructions,
            phase_ps: None,
            boundary_reached: true,
            boundary_ps: u64::MAX,
            lookahead_ps: ps(spec.lookahead_ns),
            waiting: vec![Wait::Running; thread_socket.len()],
            miss_cont: vec![None; thread_socket.len()],
            queued_misses: Vec::new(),
            free_tokens: Vec::new(),
            chain_waits: Vec::new(),
            free_chain_waits: Vec::new(),
            coherence: CoherenceChoice::of(&spec, m),
            spec,
        })
    }

    /// Phases run so far (a merged empty stretch counts each phase it spans; see
    /// [`crate::sim::phase_window`]).
    pub fn phase_index(&self) -> u64 {
        self.phase
    }

    /// Phase length in instructions per thread, as configured.
    pub fn phase_instructions(&self) -> u64 {
        self.phase_instructions
    }

    /// Phases in simulated time: each ends at the next multiple of `phase_ns` (see
    /// [`Self::run_phase_timed`]); `None` goes back to phases of `phase_instructions`.
    pub fn set_phase_ns(&mut self, phase_ns: Option<u64>) {
        self.phase_ps = phase_ns.map(|n| n.saturating_mul(1000).max(1));
    }

    /// Whether the last phase ended at its boundary: false only for a timed phase in which every
    /// thread finished (the run ended first; its timer never fired).
    pub fn boundary_reached(&self) -> bool {
        self.boundary_reached
    }

    /// Phase length in simulated time (ps), when phases are timed.
    pub fn phase_ps(&self) -> Option<u64> {
        self.phase_ps
    }

    pub fn threads(&self) -> usize {
        self.cores.len()
    }
    pub fn now_ps(&self) -> u64 {
        self.book.horizon_ps
    }
    pub fn core_socket(&self, c: usize) -> usize {
        self.cores[c].socket
    }
    /// Multi-process runs: the threads of every process, so that a page's TLB shootdown
    /// interrupts only the cores of its own process (Linux sends the IPIs to the CPUs in the
    /// page's address-space mask).
    pub fn set_processes(&mut self, threads: &[std::ops::Range<usize>]) {
        if threads.len() < 2 {
            return;
        }
        self.core_process = vec![0; self.cores.len()];
        for (p, r) in threads.iter().enumerate() {
            for c in r.clone() {
                if let Some(x) = self.core_process.get_mut(c) {
                    *x = p as u32;
                }
            }
        }
        let page_shift = self.memory.table.page_shift().min(numasim_trace::PROCESS_SHIFT);
        self.process_shift = numasim_trace::PROCESS_SHIFT - page_shift;
    }

    /// Run totals of every core's thread (per-process results).
    pub fn thread_totals(&self) -> Vec<crate::stats::ThreadTotals> {
        self.cores
            .iter()
            .map(|k| crate::stats::ThreadTotals {
                accesses: k.accesses,
                flops: k.flops,
                llc_misses: k.llc_misses,
                // A finished core's clock may still be moved by later barriers and stalls.
                finish_ps: if k.finished { k.end_ps } else { k.end_ps.max(k.t) },
                miss_loads: k.miss_loads,
                miss_load_ps: k.miss_load_ps,
            })
            .collect()
    }

    /// (instructions, LLC misses, finish time ps) of a core.
    pub fn core_stats(&self, c: usize) -> (u64, u64, u64) {
        let k = &self.cores[c];
        (k.instructions, k.llc_misses, k.end_ps.max(k.t))
    }

    /// Checks the source's thread count and fills every core's buffer; `false` once every
    /// thread is done (the start of both kinds of phase).
    fn begin_phase(&mut self, src: &mut dyn AccessSource) -> Result<bool, SimError> {
        if src.threads() != self.cores.len() {
            return Err(SimError::ThreadCount {
                source_threads: src.threads(),
                mapped: self.cores.len(),
            });
        }
        for c in 0..self.cores.len() {
            self.refill(c, src)?;
        }
        Ok(!self.cores.iter().all(|c| c.source_done))
    }

    /// Runs one phase (`phase_instructions` more per thread; a barrier at its end). Returns
    /// the phase's functional counts and timing counters, or `None` once every thread is done.
    pub fn run_phase(
        &mut self,
        src: &mut dyn AccessSource,
        phase_instructions: u64,
    ) -> Result<Option<(PhaseCounts, TimingCounts)>, SimError> {
        if !self.begin_phase(src)? {
            return Ok(None);
        }
        let (next_phase, phase_end) = crate::sim::phase_window(
            self.phase,
            phase_instructions,
            self.cores.iter().filter(|c| !c.source_done).map(|c| c.buf[c.pos].instr),
        );
        let r = self.run_to(src, phase_end)?;
        self.phase = next_phase;
        Ok(Some(r))
    }

    /// Runs one phase in simulated time (`phase_ps` ps; timing mode's `phase_ns`), or `None`
    /// once every thread is done.
    ///
    /// The phase ends at the first multiple of `phase_ps` after its start (the previous
    /// barrier), for every thread alike: each core stops before its first access whose issue
    /// time is at or past that boundary (the non-memory instructions before that access are
    /// counted in this phase), so fast and slow threads stay in step in time, not in
    /// instructions. Then the barrier, as in [`Self::run_phase`]. A finished thread does not
    /// hold the phase; an idle one (a long instruction gap) reaches the boundary in its compute
    /// time. Multiples of `phase_ps` passed during a barrier or migration stall belong to the
    /// phase that follows it (its record spans them). If no thread can issue before the
    /// boundary (the earliest possible issue, clock plus compute time, lies beyond it), the
    /// phases up to the one holding that issue are merged into one empty phase ending where
    /// that phase starts, as [`crate::sim::phase_window`] does for instruction gaps. Phase
    /// indices ([`Self::phase_index`]) count multiples of `phase_ps`.
    pub fn run_phase_timed(
        &mut self,
        src: &mut dyn AccessSource,
        phase_ps: u64,
    ) -> Result<Option<(PhaseCounts, TimingCounts)>, SimError> {
        if !self.begin_phase(src)? {
            return Ok(None);
        }
        let start = self.book.horizon_ps;
        // Lower bound of each core's next issue: the ROB can only delay it further.
        let earliest = self
            .cores
            .iter()
            .filter(|k| !k.source_done)
            .map(|k| {
                let gap = k.buf[k.pos].instr.saturating_sub(k.last_instr);
                k.t.max(start)
                    .saturating_add(k.compute_advance(gap).0)
                    .min(MAX_CLOCK_PS)
            })
            .min();
        let (next_phase, boundary) = time_window(self.phase, phase_ps, start, earliest);
        self.boundary_ps = boundary;
        let r = self.run_to(src, u64::MAX);
        self.boundary_ps = u64::MAX;
        // Every thread finished inside the phase: the run ends before its boundary.
        self.boundary_reached = self.cores.iter().any(|k| !k.finished);
        self.phase = next_phase;
        Ok(Some(r?))
    }

    /// Runs every core up to instruction `phase_end` (exclusive), then the barrier; returns
    /// the span's counts and timing counters. [`Self::run_phase`] is this over a phase window;
    /// sampled timing (`crate::driver`) runs its warm-up and timed window with it.
    pub fn run_to(
        &mut self,
        src: &mut dyn AccessSource,
        phase_end: u64,
    ) -> Result<(PhaseCounts, TimingCounts), SimError> {
        for c in 0..self.cores.len() {
            self.refill(c, src)?;
        }
        let start = self.book.horizon_ps;
        for c in 0..self.cores.len() {
            if !self.cores[c].finished {
                let k = &mut self.cores[c];
                k.t = k.t.max(start);
                self.ready.push(Reverse((k.t, c as u32)));
            }
        }
        // The heap is taken out while cores run (they never touch it). A core that yields
        // `Later` gets its new key in place at the top (one sift down instead of a pop and a
        // push); keys (clock, id) are unique, so the order of runs is the same either way.
        let mut ready = std::mem::take(&mut self.ready);
        let run = (|| {
            loop {
                // Read-queue decisions and cores in one time order (a conservative event
                // loop: a decision is taken once no core can present a read that arrives
                // before the read it picks could start).
                let top_t = ready.peek().map(|r| r.0 .0);
                // A pending chain closes once no core can still reach its proxy before the
                // data lands there (a core issues no earlier than its clock).
                if let Some(e) = self.book.next_chain_close() {
                    if top_t.is_none_or(|t| e <= t) {
                        self.book.horizon_ps = self.book.horizon_ps.max(e);
                        for (token, lat) in self.book.close_next_chain() {
                            self.finish_chain_wait(token, &lat, &mut ready);
                        }
                        continue;
                    }
                }
                if let Some((e, node)) = self.book.next_dram_decision() {
                    if top_t.is_none_or(|t| e <= t) {
                        self.book.horizon_ps = self.book.horizon_ps.max(e);
                        if let Some(d) = self.book.decide_read(node, top_t.unwrap_or(u64::MAX)) {
                            self.finish_queued_miss(d.token as u32, &d.result, &mut ready);
                        }
                        continue;
                    }
                }
                let Some(mut top) = ready.peek_mut() else {
                    break;
                };
                let Reverse((t, c)) = *top;
                self.book.horizon_ps = t;
                let until = t.saturating_add(self.lookahead_ps);
                if self.run_core(c as usize, phase_end, until, src)? == Yield::Later {
                    *top = Reverse((self.cores[c as usize].t, c));
                } else {
                    std::collections::binary_heap::PeekMut::pop(top);
                }
            }
            Ok::<(), SimError>(())
        })();
        ready.clear();
        self.ready = ready;
        run?;
        let timed = self.boundary_ps != u64::MAX;
        // Barrier: the next phase starts when everything issued in this one has completed. A
        // timed phase ends at its boundary for everyone: a core whose clock is already past it
        // (stalled by a shootdown, or computing across it) carries its own clock into the next
        // phase instead of holding every other core (or process) back until then.
        let mut end = self
            .cores
            .iter()
            .map(|k| {
                if timed {
                    k.t.min(self.boundary_ps).max(k.last_done)
                } else {
                    k.t.max(k.last_done)
                }
            })
            .fold(self.book.latest_ps.max(start), u64::max);
        if timed && self.cores.iter().any(|k| !k.finished) {
            // A timed phase lasts to its boundary even if every core stopped short of it
            // (computing, or waiting on its ROB, across it).
            end = end.max(self.boundary_ps);
        }
        self.book.horizon_ps = end;
        let mut counts = std::mem::replace(&mut self.counts, PhaseCounts::new(self.sockets, self.nodes));
        for c in &mut self.cores {
            let at_end = if c.source_done || timed {
                c.last_instr
            } else {
                c.last_instr.max(phase_end.min(c.buf[c.pos].instr))
            };
            let d = at_end.saturating_sub(c.instr_at_phase_start);
            // Saturating: a merged stretch of empty phases may span nearly 2^64 instructions.
            counts.instructions = counts.instructions.saturating_add(d);
            c.instructions = c.instructions.saturating_add(d);
            c.instr_at_phase_start = at_end;
        }
        let classes = self.class_names.len();
        let mut timing = std::mem::replace(
            &mut self.timing,
            TimingCounts {
                classes: vec![ClassSums::default(); classes],
                ..Default::default()
            },
        );
        timing.start_ps = start;
        timing.end_ps = end;
        Ok((counts, timing))
    }

    /// Hands every core's place in its stream to another engine (sampled timing; see
    /// [`crate::sim::ThreadPlace`]). The cores keep their clocks and caches.
    pub fn take_threads(&mut self) -> Vec<crate::sim::ThreadPlace> {
        self.cores
            .iter_mut()
            .map(|k| {
                let mut pending = std::mem::take(&mut k.buf);
                pending.drain(..k.pos.min(pending.len()));
                k.pos = 0;
                crate::sim::ThreadPlace {
                    pending,
                    instr: k.instr_at_phase_start,
                    done: k.source_done,
                }
            })
            .collect()
    }

    /// Takes back the cores' places: each resumes at the instruction count it is given, with
    /// no gap charged for the instructions another engine ran meanwhile.
    pub fn give_threads(&mut self, places: Vec<crate::sim::ThreadPlace>) {
        for (k, p) in self.cores.iter_mut().zip(places) {
            k.buf = p.pending;
            k.pos = 0;
            k.last_instr = p.instr;
            k.instr_at_phase_start = p.instr;
            if p.done && !k.finished {
                k.finished = true;
                k.end_ps = k.t.max(k.last_done);
            }
            k.source_done = p.done;
        }
    }

    /// Exchanges the memory system with another engine's (sampled timing); the directory grows
    /// to the pages the other engine touched.
    pub fn swap_memory(&mut self, memory: &mut Memory) {
        std::mem::swap(&mut self.memory, memory);
        self.dir.grow_to(self.memory.table.pages());
    }

    /// After another engine ran (sampled timing): drops every core's private caches and TLB,
    /// which did not see its accesses and could hit on lines it wrote, and lets `merge` add
    /// the sockets that may hold each line to the directory's sharer masks (so a store
    /// invalidates them).
    pub fn resume_after_functional(&mut self, merge: impl FnOnce(&mut [u64])) {
        self.private.clear();
        for k in &mut self.cores {
            k.last_line = u64::MAX;
            k.last_line_dirty = false;
            k.last_vpage = u64::MAX;
        }
        merge(self.dir.sharers_mut());
    }

    /// Every line's directory sharer mask (sampled timing hands them to the functional
    /// engine's sharer map).
    pub fn directory_sharers(&mut self) -> &mut [u64] {
        self.dir.sharers_mut()
    }

    /// The per-socket LLC tag arrays (empty without an LLC), for sampled timing to hand to
    /// the functional engine and back.
    pub fn llcs_mut(&mut self) -> &mut Vec<SetAssocCache> {
        &mut self.llcs
    }

    /// Exchanges the profiler's observer with another engine's.
    pub fn swap_observer(&mut self, observer: &mut Option<Box<Observer>>) {
        std::mem::swap(&mut self.observer, observer);
        self.observing = self.observer.is_some();
    }

    /// Keeps only the first `n` moves of the boundary for [`Self::charge_moves`] (sampled
    /// timing charges the share of a phase's moves that falls in its timed window).
    pub fn keep_pending_moves(&mut self, n: usize) -> usize {
        let all = self.pending_moves.len();
        self.pending_moves.truncate(n);
        all
    }

    fn refill(&mut self, c: usize, src: &mut dyn AccessSource) -> Result<(), SimError> {
        let k = &mut self.cores[c];
        if k.source_done || k.pos < k.buf.len() {
            return Ok(());
        }
        src.next_batch(c, &mut k.buf)?;
        crate::sim::clamp_instructions(&mut k.buf);
        k.pos = 0;
        if k.buf.is_empty() {
            k.source_done = true;
        }
        Ok(())
    }

    /// Issues core `c`'s accesses until its clock passes `until`, the phase ends, or its
    /// source runs dry.
    fn run_core(
        &mut self,
        c: usize,
        phase_end: u64,
        until: u64,
        src: &mut dyn AccessSource,
    ) -> Result<Yield, SimError> {
        let boundary = self.boundary_ps;
        if let Some(m) = self.miss_cont[c].take() {
            self.finish_miss(c, m)?;
            if self.waiting[c] != Wait::Running {
                return Ok(Yield::Blocked);
            }
        }
        loop {
            self.refill(c, src)?;
            let k = &mut self.cores[c];
            if k.source_done {
                k.finished = true;
                k.end_ps = k.t.max(k.last_done);
                return Ok(Yield::Done);
            }
            let a = k.buf[k.pos];
            if a.instr >= phase_end {
                k.run_to_barrier(phase_end);
                return Ok(Yield::Barrier);
            }
            if k.t > until {
                return Ok(Yield::Later);
            }
            if self.book.has_read_queues() || self.book.defers_chains() {
                if let Some(token) = k.issue_waits_on(a.instr) {
                    self.waiting[c] = Wait::Retire(token);
                    return Ok(Yield::Blocked);
                }
            }
            // A timed phase ends before the first access issuing at its boundary (never with
            // instruction phases: the clock stops at MAX_CLOCK_PS); the core computes up to it.
            let (t_before, instr_before) = (k.t, k.last_instr);
            if k.issue(a.instr) >= boundary {
                k.stop_at_boundary(t_before, instr_before, a.instr, boundary);
                return Ok(Yield::Barrier);
            }
            k.pos += 1;
            k.accesses += 1;
            k.flops += u64::from(a.flops);
            // The simulated L2 and LLC tag arrays far exceed the host's caches: ask for the
            // sets a later access of this core will probe (the LLC's only when it is modelled).
            if let Some(next) = k.buf.get(k.pos + PREFETCH_DISTANCE) {
                let line = next.vaddr >> 6;
                if line != k.last_line {
                    self.private.prefetch(c, line);
                    if self.llc_on {
                        self.llcs[k.socket].prefetch(line);
                    }
                }
            }
            self.access(c, &a)?;
            if self.waiting[c] != Wait::Running {
                return Ok(Yield::Blocked);
            }
        }
    }

    /// DRAM row at `node` holding byte `vaddr` of page id `page` (in its current frame).
    #[inline]
    fn dram_row(&self, node: usize, page: u32, vaddr: u64) -> u64 {
        let offset = vaddr & ((1u64 << self.memory.table.page_shift()) - 1);
        self.book
            .row_of(node, u64::from(self.memory.frame[page as usize]), offset)
    }

    fn page_of(&mut self, socket: usize, vaddr: u64) -> Result<u32, SimError> {
        let (page, new) = self.memory.touch(socket, vaddr)?;
        if new {
            self.counts.new_pages += 1;
            self.dir.add_page();
        }
        Ok(page)
    }

    /// One access of core `c` issuing at the core's clock.
    fn access(&mut self, c: usize, a: &Access) -> Result<(), SimError> {
        let reached_memory = self.access_path(c, a)?;
        if self.observing {
            let socket = self.cores[c].socket;
            self.observe(socket, a, reached_memory);
        }
        Ok(())
    }

    /// The access through TLB, L1, L2, LLC and, on a miss, the directory and memory; returns
    /// whether it reached memory (what the profilers distinguish).
    fn access_path(&mut self, c: usize, a: &Access) -> Result<bool, SimError> {
        let t = self.cores[c].t;
        let socket = self.cores[c].socket;
        let write = a.is_write();
        let line = a.vaddr >> 6;
        self.counts.accesses += 1;
        if write {
            self.counts.writes += 1;
        } else {
            self.counts.reads += 1;
        }
        // The same line again (common: sequential words): an L1 hit with nothing to update.
        let k = &mut self.cores[c];
        if line == k.last_line && (!write || k.last_line_dirty) {
            self.counts.llc_hits += 1;
            return Ok(false);
        }
        let mut t0 = t;
        let vpage = a.vaddr >> self.memory.table.page_shift();
        if vpage != k.last_vpage {
            k.last_vpage = vpage;
            if self.private.tlb_miss(c, vpage) {
                t0 += self.private.walk_ps[socket];
                self.timing.tlb_misses += 1;
            }
        }
        k.last_line = line;
        k.last_line_dirty = write;
        if let Some(hit) = self.private_and_llc(c, socket, line, write, t) {
            self.counts.llc_hits += 1;
            if hit.filled {
                self.note_private_fill(c, line);
            }
            if write && !hit.was_dirty {
                self.store_ownership(socket, a.vaddr, t0)?;
            }
            // An L1 hit is hidden by the base CPI unless its TLB walk made it late.
            if hit.tracked || t0 != t {
                self.cores[c].push_rob(a.instr, t0 + hit.latency_ps);
            }
            return Ok(false);
        }
        self.memory_access(c, socket, a, t0)?;
        Ok(true)
    }

    /// Core `c`'s private caches, then its socket's LLC (spilling dirty victims at `t`);
    /// `None` on an LLC miss.
    #[inline]
    fn private_and_llc(&mut self, c: usize, socket: usize, line: u64, write: bool, t: u64) -> Option<CacheHit> {
        let r = self.private.lookup(c, line, write);
        for v in r.spill.into_iter().flatten() {
            self.llc_victim(socket, v, t);
        }
        match r.level {
            Level::L1 { was_dirty } => {
                self.cores[c].last_line_dirty |= was_dirty;
                return Some(CacheHit {
                    latency_ps: self.private.l1_ps[socket],
                    tracked: false,
                    was_dirty,
                    filled: false,
                });
            }
            Level::L2 { was_dirty } => {
                return Some(CacheHit {
                    latency_ps: self.private.l1_ps[socket] + self.private.l2_ps[socket],
                    tracked: true,
                    was_dirty,
                    filled: false,
                });
            }
            Level::Miss => {}
        }
        if self.llc_on {
            match self.llcs[socket].access(line, false) {
                // The LLC does not track private dirtiness: a store always asks for ownership.
                Outcome::Hit { .. } => {
                    return Some(CacheHit {
                        latency_ps: self.book.lookup_ps[socket],
                        tracked: true,
                        was_dirty: false,
                        filled: true,
                    })
                }
                Outcome::Miss { writeback: Some(v) } => self.writeback(socket, v, t),
                Outcome::Miss { writeback: None } => {}
            }
        }
        None
    }

    /// An LLC miss of core `c` wanting memory at `t0`: directory, MSHR or store-buffer slot,
    /// migration wait, then the booked transaction.
    fn memory_access(&mut self, c: usize, socket: usize, a: &Access, t0: u64) -> Result<(), SimError> {
        let write = a.is_write();
        let line = a.vaddr >> 6;
        self.counts.llc_misses += 1;
        self.cores[c].llc_misses += 1;
        let page = self.page_of(socket, a.vaddr)?;
        let node = self.memory.home[page as usize] as usize;
        self.counts.demand[socket * self.nodes + node] += 1;
        self.memory.pages.record(page, socket);
        let di = self.dir.index(page, line);
        let miss = self.dir.miss(di, socket, write);
        let bt = miss.supplier != NO_OWNER;
        if write {
            self.invalidate_sockets(di, line, miss.drop);
        } else if bt {
            // The supplier keeps the line Owned; the private copies of its cores that may
            // hold it become clean.
            let holders = self.dir.private_holders(di);
            for &k in &self.socket_cores[miss.supplier as usize] {
                if !self.private_tracked || holders & (1u64 << (k % 64)) != 0 {
                    self.private.clean(k as usize, line);
                    self.cores[k as usize].clean_line(line);
                }
            }
            if self.coherence.protocol == Coherence::Mesi {
                self.share_clean(miss.supplier as usize, node, page, di, line, t0);
            }
        }
        self.dir.fill_private(di, c);
        if bt {
            if self.book.is_pool(node) {
                self.timing.block_transfers_4hop += 1;
            } else {
                self.timing.block_transfers_3hop += 1;
            }
        }
        self.finish_miss(
            c,
            MissCont {
                access: *a,
                socket,
                t0,
                page,
                node,
                bt,
                supplier: miss.supplier,
                inval_msgs: miss.inval_msgs,
            },
        )
    }

    /// The rest of an LLC miss: its MSHR or store-buffer slot, the wait for a page being
    /// migrated, then the transaction (booked whole, or its read queued at the home).
    fn finish_miss(&mut self, c: usize, m: MissCont) -> Result<(), SimError> {
        let MissCont {
            access: a,
            socket,
            mut t0,
            page,
            mut node,
            bt,
            supplier,
            inval_msgs,
        } = m;
        let write = a.is_write();
        if (self.book.has_read_queues() || self.book.defers_chains())
            && self.cores[c].miss_slot_waits_on(write, t0).is_some()
        {
            self.miss_cont[c] = Some(m);
            self.waiting[c] = Wait::Slot;
            return Ok(());
        }
        t0 = self.cores[c].take_miss_slot(write, t0);
        let t_request = t0;
        // A page still being copied by a migration: the access waits until it lands.
        let mut old_frame = None;
        if let Some(&r) = self.page_ready_ps.get(page as usize) {
            if r > t0 {
                match self.page_before_copy.get(page as usize) {
                    // move-pages, or a dedicated OS core: the page's turn has not come, so it
                    // is still mapped at its old home.
                    Some(&(start, from, frame)) if t0 < start => {
                        node = from as usize;
                        old_frame = Some(frame);
                    }
                    _ => {
                        self.timing.migration_stalls += 1;
                        self.timing.migration_stall_ps += r - t0;
                        t0 = r;
                    }
                }
            }
        }
        let row = match old_frame {
            Some(f) => {
                let offset = a.vaddr & ((1u64 << self.memory.table.page_shift()) - 1);
                self.book.row_of(node, u64::from(f), offset)
            }
            None => self.dram_row(node, page, a.vaddr),
        };
        let class = if bt {
            if !write && self.book.is_pool(node) {
                self.timing.bt_loads_via_pool += 1;
            }
            self.bt_class
        } else {
            self.class_of[socket * self.nodes + node]
        };
        if self.book.has_read_queues() {
            let fetch = self.book.fetch_request(socket, node, supplier, inval_msgs, t0);
            let q = QueuedMiss {
                fetch,
                core: c as u32,
                write,
                instr: a.instr,
                class,
                page,
                t_request,
            };
            let token = match self.free_tokens.pop() {
                Some(i) => {
                    self.queued_misses[i as usize] = q;
                    i
                }
                None => {
                    self.queued_misses.push(q);
                    (self.queued_misses.len() - 1) as u32
                }
            };
            self.book.present_read(&fetch, row, u64::from(token));
            let pending = PENDING | u64::from(token);
            if write {
                self.cores[c].miss_store_done(a.instr, pending);
            } else {
                self.cores[c].miss_load_done(a.instr, pending);
            }
            return Ok(());
        }
        let lat = if self.book.nc.is_some() {
            let chain_token = self.book.defers_chains().then(|| {
                let i = self
                    .free_chain_waits
                    .last()
                    .copied()
                    .unwrap_or(self.chain_waits.len() as u32);
                PENDING | CHAIN_TOKEN | u64::from(i)
            });
            let (lat, fill) = self.book.fetch_nc_chained(
                socket,
                node,
                supplier,
                inval_msgs,
                row,
                t0,
                a.vaddr,
                write,
                &mut self.llcs,
                chain_token,
            );
            if let Some(f) = fill {
                // The proxy allocated the line in its SLC: it is a sharer like any other (a
                // store invalidates it), and the line it displaced leaves as any victim does.
                let di = self.dir.index(page, a.vaddr >> 6);
                self.dir.read(di, f.proxy);
                if let Some(v) = f.victim {
                    self.writeback(f.proxy, v, f.at_ps);
                }
            }
            match (lat, chain_token) {
                (Some(lat), _) => lat,
                (None, Some(token)) => {
                    // Waits on its pending chain (only reads go via proxies).
                    let w = ChainWait {
                        core: c as u32,
                        instr: a.instr,
                        class,
                        page,
                        t_request,
                    };
                    match self.free_chain_waits.pop() {
                        Some(i) => self.chain_waits[i as usize] = w,
                        None => self.chain_waits.push(w),
                    }
                    self.cores[c].miss_load_done(a.instr, token);
                    return Ok(());
                }
                (None, None) => unreachable!("a read joins a chain only with a token"),
            }
        } else {
            self.book.fetch(socket, node, supplier, inval_msgs, row, t0)
        };
        self.miss_done(c, write, a.instr, class, page, t_request, &lat);
        Ok(())
    }

    /// A miss's transaction is complete (`lat`): the core's slot and ROB entry, and a load's
    /// latency statistics.
    #[allow(clippy::too_many_arguments)]
    fn miss_done(&mut self, c: usize, write: bool, instr: u64, class: u16, page: u32, t_request: u64, lat: &Latency) {
        if write {
            self.cores[c].miss_store_done(instr, lat.done_ps);
            return;
        }
        self.account_load(c, class, page, t_request, lat);
        self.cores[c].miss_load_done(instr, lat.done_ps);
    }

    /// A load's latency in its AMAT class, its core's and (profiling) its page's sums.
    fn account_load(&mut self, c: usize, class: u16, page: u32, t_request: u64, lat: &Latency) {
        let cs = &mut self.timing.classes[class as usize];
        cs.count += 1;
        cs.unloaded_ps += lat.unloaded_ps;
        cs.wait_ps += lat.wait_ps;
        let k = &mut self.cores[c];
        k.miss_loads += 1;
        k.miss_load_ps += lat.unloaded_ps + lat.wait_ps;
        if self.observing {
            let p = page as usize;
            if self.page_mem_ps.len() <= p {
                self.page_mem_ps.resize(self.memory.home.len(), 0);
            }
            self.page_mem_ps[p] += lat.done_ps - t_request;
        }
    }

    /// A read-queue decision: the rest of miss `token`'s transaction is booked, its core
    /// learns the completion and, if it was waiting, goes back on the ready heap.
    fn finish_queued_miss(
        &mut self,
        token: u32,
        r: &super::dram::DramResult,
        ready: &mut BinaryHeap<Reverse<(u64, u32)>>,
    ) {
        let q = self.queued_misses[token as usize];
        self.free_tokens.push(token);
        let lat = self.book.fetch_response(&q.fetch, r);
        let c = q.core as usize;
        if !q.write {
            self.account_load(c, q.class, q.page, q.t_request, &lat);
        }
        let pending = PENDING | u64::from(token);
        let k = &mut self.cores[c];
        k.resolve(pending, lat.done_ps, (!q.write).then_some(q.instr));
        // Back on the heap at a key no earlier than anything it will do next (the event loop
        // relies on it): the retirement it waits for, or the slot this read frees.
        match self.waiting[c] {
            Wait::Retire(t) if t == pending => {}
            Wait::Slot if self.miss_cont[c].is_some_and(|m| m.access.is_write() == q.write) => {
                // The first of its slots decided is the one it takes (in decision order: a
                // read decided later may complete earlier; the core does not wait for it).
                k.t = k.t.max(lat.done_ps);
                if let Some(m) = &mut self.miss_cont[c] {
                    m.t0 = m.t0.max(lat.done_ps);
                }
            }
            _ => return,
        }
        self.waiting[c] = Wait::Running;
        ready.push(Reverse((k.t.max(lat.done_ps), q.core)));
    }

    /// A read that waited on a pending chain got its data (`lat`): as a read-queue decision,
    /// its core learns the completion and, if it waited for it, goes back on the ready heap.
    fn finish_chain_wait(&mut self, token: u64, lat: &Latency, ready: &mut BinaryHeap<Reverse<(u64, u32)>>) {
        let i = (token & !(PENDING | CHAIN_TOKEN)) as u32;
        let w = self.chain_waits[i as usize];
        self.free_chain_waits.push(i);
        let c = w.core as usize;
        self.account_load(c, w.class, w.page, w.t_request, lat);
        let k = &mut self.cores[c];
        k.resolve(token, lat.done_ps, Some(w.instr));
        match self.waiting[c] {
            Wait::Retire(t) if t == token => {}
            Wait::Slot if self.miss_cont[c].is_some_and(|m| !m.access.is_write()) => {
                k.t = k.t.max(lat.done_ps);
                if let Some(m) = &mut self.miss_cont[c] {
                    m.t0 = m.t0.max(lat.done_ps);
                }
            }
            _ => return,
        }
        self.waiting[c] = Wait::Running;
        ready.push(Reverse((k.t.max(lat.done_ps), w.core)));
    }

    /// Core `c`'s private caches were filled with `line` from its socket's LLC: the directory
    /// notes it may hold it (the page exists: the LLC got the line from a miss to it).
    #[inline]
    fn note_private_fill(&mut self, c: usize, line: u64) {
        match self.memory.table.lookup(line << 6) {
            Some(page) => {
                let di = self.dir.index(page, line);
                self.dir.fill_private(di, c);
            }
            // Not expected; if it happens, invalidations go back to probing every core.
            None => self.private_tracked = false,
        }
    }

    /// Drops `line` (directory entry `di`) from the LLC of every socket in `mask` and from
    /// the private caches of their cores that may hold it.
    fn invalidate_sockets(&mut self, di: usize, line: u64, mut mask: u64) {
        let holders = self.dir.private_holders(di);
        let mut dropped = 0;
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.timing.invalidations += 1;
            if self.llc_on {
                self.llcs[s].invalidate(line);
            }
            for &k in &self.socket_cores[s] {
                let bit = 1u64 << (k % 64);
                if !self.private_tracked || holders & bit != 0 {
                    self.private.invalidate(k as usize, line);
                    self.cores[k as usize].forget_line(line);
                    dropped |= bit;
                }
            }
        }
        // A bit may stand for cores of several sockets (more than 64 cores): clear only bits
        // whose every core was invalidated.
        if self.cores.len() <= 64 {
            self.dir.drop_private(di, dropped);
        }
    }

    /// A store to a line this socket holds but may not own exclusively: an ownership request
    /// to the home, which invalidates the other holders (the store itself does not wait).
    fn store_ownership(&mut self, socket: usize, vaddr: u64, t: u64) -> Result<(), SimError> {
        let page = self.page_of(socket, vaddr)?;
        let line = vaddr >> 6;
        let di = self.dir.index(page, line);
        let others = self.dir.write(di, socket).others;
        if others == 0 {
            return Ok(()); // exclusive already (E → M): silent
        }
        self.invalidate_sockets(di, line, others);
        let node = self.memory.home[page as usize] as usize;
        self.book.ownership(socket, node, others, t);
        Ok(())
    }

    fn llc_victim(&mut self, socket: usize, v: u64, t: u64) {
        if self.llc_on {
            if let Outcome::Miss { writeback: Some(w) } = self.llcs[socket].access(v, true) {
                self.writeback(socket, w, t);
            }
        } else {
            self.writeback(socket, v, t);
        }
    }

    /// MESI: the block transfer's `supplier` writes `line` back to its home `node` and keeps a
    /// clean shared copy (its LLC copy is cleaned; its private copies already were).
    #[inline(never)]
    fn share_clean(&mut self, supplier: usize, node: usize, page: u32, di: usize, line: u64, t: u64) {
        self.dir.share_clean(di);
        if self.llc_on {
            self.llcs[supplier].clean(line);
        }
        self.timing.sharing_writebacks += 1;
        let row = self.dram_row(node, page, line << 6);
        self.book.writeback(supplier, node, row, t);
    }

    /// A dirty line leaves the socket: data to the home, a posted DRAM write.
    fn writeback(&mut self, socket: usize, line: u64, t: u64) {
        let Some(page) = self.memory.table.lookup(line << 6) else {
            return;
        };
        self.counts.writebacks += 1;
        let node = self.memory.home[page as usize] as usize;
        self.counts.writeback_to[socket * self.nodes + node] += 1;
        let di = self.dir.index(page, line);
        self.dir.write_back(di, socket);
        let row = self.dram_row(node, page, line << 6);
        self.book.writeback(socket, node, row, t);
    }

    /// Profiler hook (out of line: off the hot path). `mem`: the access reached memory.
    #[inline(never)]
    fn observe(&mut self, socket: usize, a: &Access, mem: bool) {
        // Every cached line was filled by a miss, so its page is mapped.
        if let (Some(page), Some(o)) = (self.memory.table.lookup(a.vaddr), self.observer.as_mut()) {
            o.observe(socket, page, a, mem);
        }
    }

    /// Installs a migration profiler's observer.
    pub fn set_observer(&mut self, observer: Observer) {
        self.observer = Some(Box::new(observer));
        self.observing = true;
    }

    /// Charges in time the moves chosen at the boundary that just passed: each page's lines
    /// are read at the old home, carried to the copying socket (the destination's, else the
    /// source's) and written at the new home, booked from the barrier on the same links,
    /// banks and buses as demand traffic; an LLC miss to the page before its last line lands
    /// waits for it. Every core's TLB drops the page (a shootdown): the initiating core (core
    /// 0, standing in for the OS thread, which also pays `scan_cycles`) stalls
    /// `shootdown_initiator_cycles` per page, and with software shootdowns every other core
    /// stalls `shootdown_handler_cycles` per page. Cached lines stay valid: caches are tagged
    /// by virtual line here, and the copy reads memory (dirty cached data is not flushed first).
    /// With `shootdown = "dedicated"` no core stalls: the scan and the per-page initiator
    /// cycles run on an OS core of their own, which reaches the k-th page after the scan and
    /// k − 1 shootdowns: until then the page is read at its old home, from then its accesses
    /// wait for its shootdown and copy. That core runs beside the program, like the move-pages daemon on a
    /// spare core: the phase barrier does not wait for its copies, and a boundary's work
    /// queues behind the previous boundary's.
    ///
    /// `shootdown = "move-pages"` charges Linux `move_pages(2)` instead (HyDM's mechanism on
    /// KNL): one kernel thread handles the pages one after another, each page's lines booked
    /// when the previous page is done plus `shootdown_initiator_cycles` of kernel work (unmap,
    /// flush, remap); a page is waited for only from its own turn on (before that it is still
    /// mapped at its old home and its accesses are timed there). Every application core but
    /// the caller pays `shootdown_handler_cycles` per page (IPIs). The caller is a daemon on a
    /// spare core when the machine has more cores than threads: it runs beside the program (the
    /// phase barrier does not wait for it; a boundary's copies queue behind the previous
    /// boundary's) and core 0 only pays the IPIs. Without a spare core it is core 0, busy for
    /// the whole copy.
    pub fn charge_moves(&mut self, cost: &CostParams, scan_cycles: u64) -> MoveTiming {
        let moves = std::mem::take(&mut self.pending_moves);
        // The boundary has read this phase's memory time; the next phase starts afresh.
        self.page_mem_ps.iter_mut().for_each(|t| *t = 0);
        let t0 = self.book.horizon_ps;
        let mut timing = MoveTiming {
            pages: moves.len() as u64,
            ..Default::default()
        };
        if moves.is_empty() && scan_cycles == 0 {
            return timing;
        }
        if self.page_ready_ps.len() < self.memory.home.len() {
            self.page_ready_ps.resize(self.memory.home.len(), 0);
        }
        let move_pages = cost.shootdown == crate::migrate::mechanism::Shootdown::MovePages;
        let dedicated = cost.shootdown == crate::migrate::mechanism::Shootdown::Dedicated;
        if (move_pages || dedicated) && self.page_before_copy.len() < self.memory.home.len() {
            self.page_before_copy.resize(self.memory.home.len(), (0, 0, 0));
        }
        // move_pages(2): one kernel thread unmaps, copies and remaps one page after another,
        // paying `shootdown_initiator_cycles` of kernel work per page (on core 0's clock).
        let kernel_page_ps = (cost.shootdown_initiator_cycles as f64
            * self.cycle_ps[self.cores.first().map_or(0, |k| k.socket)])
        .round() as u64;
        // The daemon calling move_pages runs on a spare core when there is one; else on core 0.
        let daemon_on_core0 = move_pages && !self.spare_core;
        let page_bytes = 1u64 << self.memory.table.page_shift();
        let mut last = t0;
        // A dedicated OS core (socket 0's clock) scans, then shoots pages down one by one.
        let os_ps = |cycles: u64| (cycles as f64 * self.cycle_ps[0]).round() as u64;
        let (scan_ps, per_page_ps) = (os_ps(scan_cycles), os_ps(cost.shootdown_initiator_cycles));
        // One daemon: this boundary's pages wait for the previous boundary's (on core 0 the
        // previous copy is over, core 0 having stalled through it).
        let mut start = if move_pages && !daemon_on_core0 {
            t0.max(self.daemon_free_ps)
        } else {
            t0
        };
        let latest_before = self.book.latest_ps;
        // The dedicated OS core works through one boundary's scan and shootdowns after the
        // previous boundary's.
        let os_start = if dedicated { t0.max(self.daemon_free_ps) } else { t0 };
        for (k, &(page, from, to, old_frame)) in moves.iter().enumerate() {
            let (from, to) = (from as usize, to as usize);
            let s = self.node_socket[to].or(self.node_socket[from]).unwrap_or(0);
            let new_frame = u64::from(self.memory.frame[page as usize]);
            if dedicated {
                // The OS core reaches the page after the scan and the k pages before it: until
                // then the page is still mapped at its old home; from then it is unmapped, shot
                // down and copied.
                start = os_start + scan_ps + k as u64 * per_page_ps;
                self.page_before_copy[page as usize] = (start, from as u16, old_frame);
            }
            let mut landed = start;
            for off in (0..page_bytes).step_by(64) {
                let from_row = self.book.row_of(from, u64::from(old_frame), off);
                let to_row = self.book.row_of(to, new_frame, off);
                landed = landed.max(self.book.copy_line(from, from_row, s, to, to_row, start));
            }
            if move_pages {
                // Before its turn the page is still mapped at its old home: no wait.
                self.page_before_copy[page as usize] = (start, from as u16, old_frame);
                landed += kernel_page_ps;
                start = landed;
            }
            if dedicated {
                landed = landed.max(start + per_page_ps);
            }
            self.page_ready_ps[page as usize] = landed;
            last = last.max(landed);
            let vpage = self.memory.table.vpage(page);
            for (c, k) in self.cores.iter_mut().enumerate() {
                self.private.shootdown(c, vpage);
                k.forget_vpage(vpage);
            }
        }
        if move_pages && !daemon_on_core0 {
            // The daemon runs beside the program: the phase barrier does not wait for it.
            self.book.latest_ps = latest_before;
            self.daemon_free_ps = last;
        } else if dedicated {
            // So does the dedicated OS core (StarNUMA §IV-C): the copies and shootdowns go on
            // into the next phase, where misses to a page still in flight wait for it; a
            // phase (a sampled window) is not stretched to the last page's landing, so moves
            // are charged as far as they fall in it.
            self.book.latest_ps = latest_before;
            self.daemon_free_ps = os_start + scan_ps + moves.len() as u64 * per_page_ps;
        } else {
            self.book.latest_ps = self.book.latest_ps.max(last);
        }
        timing.copy_span_ps = last - t0;
        let n = moves.len() as u64;
        let software = cost.shootdown.is_software();
        // Moves per process: a core takes the IPIs of its own process's pages only.
        let mut per_process = Vec::new();
        if !self.core_process.is_empty() {
            per_process = vec![0u64; self.core_process.iter().max().map_or(1, |&p| p as usize + 1)];
            for &(page, ..) in moves.iter() {
                let p = (self.memory.table.vpage(page) >> self.process_shift) as usize;
                if let Some(x) = per_process.get_mut(p) {
                    *x += 1;
                }
            }
        }
        for (i, k) in self.cores.iter_mut().enumerate() {
            let interrupted = match self.core_process.get(i) {
                Some(&p) => per_process[p as usize],
                None => n,
            };
            let cycles = if dedicated {
                0
            } else if i == 0 && !move_pages {
                n * cost.shootdown_initiator_cycles + scan_cycles
            } else if i == 0 && daemon_on_core0 {
                // The calling thread is busy in the kernel for the whole copy.
                scan_cycles
            } else if software {
                interrupted * cost.shootdown_handler_cycles
            } else {
                0
            };
            let mut stall = (cycles as f64 * self.cycle_ps[k.socket]).round() as u64;
            if i == 0 && daemon_on_core0 {
                stall += last - t0;
            }
            k.t = k.t.max(t0) + stall;
            timing.core_stall_ps += stall;
        }
        timing
    }

    /// Time a single isolated load would take right now (tests and calibration): socket
    /// `req` reads a line homed at `home`, owned dirty by `owner` if given. Returns (total,
    /// unloaded, wait) in ps; the clock then moves past it, so successive probes do not meet.
    pub fn probe_load(&mut self, req: usize, home: usize, owner: Option<usize>, row: u64) -> (u64, u64, u64) {
        let t0 = self.book.horizon_ps;
        let lat = self
            .book
            .fetch(req, home, owner.map_or(NO_OWNER, |o| o as u8), 0, row, t0);
        self.book.horizon_ps = self.book.latest_ps.max(lat.done_ps);
        (lat.done_ps - t0, lat.unloaded_ps, lat.wait_ps)
    }
}

/// The timed phase that starts at `start_ps` after `phase` multiples of `phase_ps`, given the
/// earliest time any thread can issue (`None`: every thread is done). Returns `(multiples
/// passed at its end, its boundary in ps)`: normally the first multiple after the start; when
/// the earliest issue lies at or past that, one empty phase up to the multiple at or below the
/// earliest issue (see [`TimingSim::run_phase_timed`]).
pub fn time_window(phase: u64, phase_ps: u64, start_ps: u64, earliest_ps: Option<u64>) -> (u64, u64) {
    let p = phase_ps.max(1);
    let next = (start_ps / p).saturating_add(1).max(phase.saturating_add(1));
    let end = next.saturating_mul(p);
    match earliest_ps {
        Some(e) if e >= end => {
            let first_busy = e / p;
            (first_busy, first_busy.saturating_mul(p))
        }
        _ => (next, end),
    }
}

impl crate::migrate::PageHost for TimingSim {
    fn memory(&self) -> &Memory {
        &self.memory
    }
    fn observer_mut(&mut self) -> Option<&mut Observer> {
        self.observer.as_deref_mut()
    }
    /// Re-homes the page on a fresh frame of `node`; the copy is charged by
    /// [`TimingSim::charge_moves`] once the policy has chosen every move of the boundary.
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        Some(&self.page_mem_ps)
    }

    fn move_page(&mut self, page: u32, node: usize) {
        if let Some(m) = self.memory.move_page(page, node) {
            self.pending_moves.push((page, m.from as u16, node as u16, m.old_frame));
        }
    }
    fn place_page(&mut self, page: u32, node: usize) {
        let _ = self.memory.move_page(page, node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{Capacity, PlacementPolicy};
    use numasim_trace::VecSource;

    /// First-touch placement over every memory node of `m`, nearest first.
    fn first_touch(m: &Machine) -> Placement {
        let nearest = (0..m.sockets.len())
            .map(|s| m.nearest_memory_order(s).to_vec())
            .collect();
        Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(1 << 20); m.memory_nodes.len()],
            nearest,
        )
    }

    /// Threads alternate between the two sockets of `two-socket` (2.8 GHz); base CPI 2.8, so
    /// one non-memory instruction takes exactly 1000 ps.
    fn sim(threads: usize) -> TimingSim {
        let s = sim_with(TimingSpec::default(), (0..threads).map(|t| t % 2).collect());
        assert_eq!(s.cores[0].cpi_milli_ps, 1_000_000);
        s
    }

    /// The two-socket machine at CPI 2.8 (1 ns per instruction), first touch, LLCs on, with
    /// `spec`'s other settings and threads on `thread_socket`.
    fn sim_with(spec: TimingSpec, thread_socket: Vec<usize>) -> TimingSim {
        sim_on("two-socket", spec, thread_socket)
    }

    /// [`sim_with`] on machine `machine`.
    fn sim_on(machine: &str, spec: TimingSpec, thread_socket: Vec<usize>) -> TimingSim {
        let m = Machine::load(machine).unwrap();
        let cfg = TimingConfig {
            spec: TimingSpec { base_cpi: 2.8, ..spec },
            phase_instructions: 1_000_000,
            page_bytes: 4096,
            llc: true,
        };
        TimingSim::new(&cfg, &m, thread_socket, first_touch(&m)).unwrap()
    }

    /// Every phase of the run: (counts, timing counters, phase index after it).
    fn phases(s: &mut TimingSim, src: &mut VecSource, phase_ps: u64) -> Vec<(PhaseCounts, TimingCounts, u64)> {
        let mut out = Vec::new();
        while let Some((c, t)) = s.run_phase_timed(src, phase_ps).unwrap() {
            out.push((c, t, s.phase_index()));
            assert!(out.len() < 10_000, "the run must end");
        }
        out
    }

    /// A line socket 0 wrote, read by socket 1 and then by socket 2: under MOESI socket 0
    /// keeps it Owned and supplies both (two block transfers, no write-back); under MESI it
    /// writes the line back while supplying socket 1 and memory serves socket 2 (one block
    /// transfer, one sharing write-back, whose DRAM write the home's controller receives).
    #[test]
    fn mesi_sends_the_second_reader_to_memory_where_moesi_keeps_the_owner_supplying() {
        let run = |coherence: Coherence| {
            let spec = TimingSpec {
                coherence: Some(coherence),
                ..TimingSpec::default()
            };
            let mut s = sim_on("starnuma16-baseline", spec, vec![0, 1, 2]);
            let line = 0x40_0000;
            let streams = vec![
                vec![Access::write(1, line, 8)],
                vec![Access::read(20_000, line, 8)],
                vec![Access::read(40_000, line, 8)],
            ];
            let mut src = VecSource::new(streams);
            let mut total = TimingCounts::default();
            while let Some((_, t)) = s.run_phase(&mut src, 1_000_000).unwrap() {
                total.add(&t);
            }
            // Written, or posted and still queued.
            let writes: u64 = s.book.mem.iter().map(|m| m.writes + m.queued_writes() as u64).sum();
            (
                total.block_transfers_3hop + total.block_transfers_4hop,
                total.sharing_writebacks,
                writes,
            )
        };
        assert_eq!(run(Coherence::Moesi), (2, 0, 0));
        assert_eq!(run(Coherence::Mesi), (1, 1, 1));
    }

    #[test]
    fn invalidating_only_the_tracked_private_holders_changes_nothing() {
        // Six threads on two sockets, reads and writes over 48 lines of 4 pages: the run
        // with the per-core marks must match one that probes every core of an invalidated
        // socket, phase by phase and core by core.
        let run = |tracked: bool| {
            let mut s = sim(6);
            s.private_tracked = tracked;
            let mut x = 0x1234_5678_9abc_def1u64;
            let streams = (0..6)
                .map(|_| {
                    (0..3000u64)
                        .map(|i| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            let addr = 0x10_0000 + (x % 48) * 64 + (x >> 60) * 4096;
                            if x >> 62 == 0 {
                                Access::write(i * 3 + 1, addr, 8)
                            } else {
                                Access::read(i * 3 + 1, addr, 8)
                            }
                        })
                        .collect()
                })
                .collect();
            let mut src = VecSource::new(streams);
            let mut out = Vec::new();
            while let Some((c, t)) = s.run_phase(&mut src, 2000).unwrap() {
                out.push((c.llc_hits, c.llc_misses, t.invalidations, t.end_ps));
            }
            (out, (0..6).map(|c| s.core_stats(c)).collect::<Vec<_>>())
        };
        let (a, b) = (run(true), run(false));
        assert!(a.0.len() > 3);
        let invalidations: u64 = a.0.iter().map(|p| p.2).sum();
        assert!(invalidations > 100, "stores must invalidate: {:?}", a.0);
        assert_eq!(a, b);
    }

    /// Read queues defer when a miss completes, never whether it happens: cold misses to lines
    /// each thread owns (the footprint fits the LLCs, so the order cores run in cannot change
    /// a hit) give the same counts with and without queues, every load is accounted exactly
    /// once, every queued read is decided by the end of each phase, and queueing shows up
    /// only in the times.
    #[test]
    fn read_queues_defer_completions_but_decide_every_read_each_phase() {
        let run = |queue: u32| {
            let spec = TimingSpec {
                dram_read_queue: queue,
                ..TimingSpec::default()
            };
            let mut s = sim_with(spec, (0..8).map(|t| t % 2).collect());
            assert_eq!(s.book.has_read_queues(), queue > 0);
            let streams = (0..8u64)
                .map(|t| {
                    (0..2000u64)
                        .map(|i| {
                            let addr = (1 << 30) + t * (1 << 22) + i * 64 * 17 % (1 << 21);
                            if i % 5 == 4 {
                                Access::write(i * 2 + 1, addr, 8)
                            } else {
                                Access::read(i * 2 + 1, addr, 8)
                            }
                        })
                        .collect()
                })
                .collect();
            let mut src = VecSource::new(streams);
            let mut out = Vec::new();
            while let Some((c, t)) = s.run_phase(&mut src, 500).unwrap() {
                assert_eq!(s.free_tokens.len(), s.queued_misses.len(), "a read left undecided");
                assert!(s.waiting.iter().all(|w| *w == Wait::Running) && s.miss_cont.iter().all(Option::is_none));
                let loads: u64 = t.classes.iter().map(|k| k.count).sum();
                let latency: u64 = t.classes.iter().map(|k| k.unloaded_ps + k.wait_ps).sum();
                out.push(((c.accesses, c.llc_hits, c.llc_misses, loads), (latency, t.end_ps)));
            }
            out
        };
        let (queued, placed) = (run(32), run(0));
        assert!(queued.len() >= 4);
        let counts = |v: &Vec<_>| {
            v.iter()
                .map(|p: &(_, (u64, u64))| p.0)
                .collect::<Vec<(u64, u64, u64, u64)>>()
        };
        assert_eq!(counts(&queued), counts(&placed));
        assert!(queued.iter().all(|p| p.0 .3 > 0), "every phase has miss loads");
        assert_ne!(queued, placed, "the queue must change some completion time");
    }

    /// With one read in flight a queue has nothing to reorder: a lone core with one MSHR gets
    /// exactly the times of reads placed when presented, phase by phase (the event loop decides
    /// each read at once and the core resumes at the same completion). Refresh is off: a queue
    /// judges whether a refresh closed the row at the read's decision rather than its arrival,
    /// which can turn a row miss into an access to a closed bank (same completion, another
    /// unloaded/contention split).
    #[test]
    fn one_read_in_flight_times_the_same_with_or_without_a_queue() {
        let run = |queue: u32| {
            let spec = TimingSpec {
                mshrs: 1,
                dram_refresh: false,
                dram_read_queue: queue,
                ..TimingSpec::default()
            };
            let mut s = sim_with(spec, vec![0]);
            let stream = (0..3000u64)
                .map(|i| Access::read(i * 4 + 1, (1 << 30) + (i * 7919 % 4096) * 4160, 8))
                .collect();
            let mut src = VecSource::new(vec![stream]);
            let mut out = Vec::new();
            while let Some((c, t)) = s.run_phase(&mut src, 1000).unwrap() {
                let lat: Vec<_> = t.classes.iter().map(|k| (k.count, k.unloaded_ps, k.wait_ps)).collect();
                out.push((c.llc_misses, lat, t.end_ps));
            }
            out
        };
        let queued = run(32);
        assert!(queued.len() >= 10 && queued.iter().all(|p| p.0 > 0));
        assert_eq!(queued, run(0));
    }

    /// Talbot & Kelly's proxies through the engine: a proxy's copy of a line is in its SLC
    /// and listed in the directory, so a store invalidates it like any sharer (counted as an
    /// invalidation and an invalidation message), and the next proxy read fetches from the
    /// home again; without the store, that read is a hit in the proxy's SLC.
    #[test]
    fn a_store_invalidates_a_proxy_copy_through_the_directory() {
        let run = |store_again: bool| {
            let m = Machine::load("talbot64").unwrap();
            let placement = first_touch(&m);
            let cfg = TimingConfig {
                spec: TimingSpec {
                    base_cpi: 1.0,
                    node_controller_cycle_ns: Some(10.0),
                    proxies: Some(crate::timing::params::ProxyMode::Basic),
                    // Only the shared line is proxied (each thread's own reads go home).
                    proxy_ranges: Some(vec![[0x10_0000, 0x10_0040]]),
                    ..TimingSpec::default()
                },
                phase_instructions: 1_000_000,
                page_bytes: 8192,
                llc: true,
            };
            let mut s = TimingSim::new(&cfg, &m, (0..64).collect(), placement).unwrap();
            // Line 0x4000: proxy 0x4000 mod 21 = 4 for requesters 0..21 (cluster 0).
            let vaddr = 0x10_0000u64;
            let line = vaddr >> 6;
            let proxy = s.book.nc.as_ref().unwrap().proxy_of(line, 5);
            assert_eq!(proxy, 4);
            // Socket 0 first-touches (home 0) and owns the line; socket 5 reads it via the
            // proxy; socket 0 may store again; socket 6 reads it via the same proxy. Each also
            // reads a line of its own every 500 instructions, so the engine (which lets a core
            // issue an access before yielding) processes the accesses in time order.
            let mut streams = vec![Vec::new(); 64];
            for t in [0usize, 5, 6] {
                let stream = &mut streams[t];
                for i in 1..30u64 {
                    let at = i * 500;
                    match (t, at) {
                        (0, 500) => stream.push(Access::write(at, vaddr, 8)),
                        (0, 6_000) if store_again => stream.push(Access::write(at, vaddr, 8)),
                        (5, 2_000) | (6, 12_000) => stream.push(Access::read(at, vaddr, 8)),
                        _ => stream.push(Access::read(at, 0x100_0000 * (t as u64 + 1), 8)),
                    }
                }
            }
            let mut src = VecSource::new(streams);
            let mut invalidations = 0;
            while let Some((_, t)) = s.run_phase(&mut src, 1_000_000).unwrap() {
                invalidations += t.invalidations;
            }
            let nc = s.book.nc.as_ref().unwrap().stats.clone();
            (nc, invalidations, s.llcs[proxy].contains(line))
        };
        let (nc, invalidations, held) = run(false);
        assert_eq!((nc.proxy_reads, nc.proxy_fetches, nc.proxy_hits), (2, 1, 1), "{nc:?}");
        assert_eq!(invalidations, 0);
        assert!(held);
        let (nc, invalidations, held) = run(true);
        assert_eq!((nc.proxy_reads, nc.proxy_fetches, nc.proxy_hits), (2, 2, 0), "{nc:?}");
        // Socket 5 and the proxy lose the line: two invalidations, two messages.
        assert_eq!(invalidations, 2);
        assert_eq!(nc.messages[super::super::node_controller::Msg::Inval as usize], 2);
        assert!(held, "socket 6's read put it back");
    }

    #[test]
    fn time_window_is_the_next_multiple_or_a_merged_empty_stretch() {
        // From 0: the first multiple.
        assert_eq!(time_window(0, 100, 0, Some(0)), (1, 100));
        // A barrier that ended at 105 (past the boundary 100): the next phase ends at 200.
        assert_eq!(time_window(1, 100, 105, Some(105)), (2, 200));
        // A migration stall that carried the clock past 300: multiples 2 and 3 are spanned.
        assert_eq!(time_window(1, 100, 350, Some(350)), (4, 400));
        // Nobody can issue before 1050: one empty phase up to 1000, then the busy one.
        assert_eq!(time_window(0, 100, 0, Some(1050)), (10, 1000));
        // Every thread done: still a boundary after the start.
        assert_eq!(time_window(2, 100, 250, None), (3, 300));
        // Phase lengths near the top of u64 saturate instead of wrapping.
        assert_eq!(time_window(0, u64::MAX, 5, Some(5)), (1, u64::MAX));
    }

    #[test]
    fn a_fixed_cost_stream_puts_the_closed_form_count_in_each_phase() {
        // One thread re-reading one line every 10 instructions (10 ns apart once the first
        // access, a miss, has retired): a phase of 10 µs holds exactly 1000 accesses and
        // 10 000 instructions, and starts and ends within one instruction (1 ns) of its
        // multiple of 10 µs.
        let mut s = sim(1);
        let phase_ps = 10_000_000;
        let n = 5500u64;
        let mut src = VecSource::new(vec![(0..n).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect()]);
        let out = phases(&mut s, &mut src, phase_ps);
        let counts: Vec<u64> = out.iter().map(|p| p.0.accesses).collect();
        assert_eq!(out.len(), 6, "{counts:?}");
        assert_eq!(counts.iter().sum::<u64>(), n);
        let last = counts.len() - 1;
        assert!(
            counts[0] < 1000 && counts[0] > 900,
            "{counts:?}: the first miss delays phase 0"
        );
        assert!(counts[1..last].iter().all(|&c| c == 1000), "{counts:?}");
        for (k, (c, t, index)) in out.iter().enumerate() {
            let k = k as u64;
            assert_eq!(*index, k + 1, "one multiple of phase_ns per phase");
            assert!(
                t.start_ps >= k * phase_ps && t.start_ps < k * phase_ps + 1000,
                "phase {k}"
            );
            if k < last as u64 {
                let b = (k + 1) * phase_ps;
                assert!(t.end_ps >= b && t.end_ps < b + 1000, "phase {k}: {} vs {b}", t.end_ps);
                if k > 0 {
                    assert_eq!(c.instructions, 10_000, "phase {k}");
                }
            }
        }
        assert_eq!(out.iter().map(|p| p.0.instructions).sum::<u64>(), (n - 1) * 10 + 1);
    }

    #[test]
    fn threads_of_unequal_speed_stay_in_step_in_time() {
        // Thread 0 re-reads one line every 10 instructions (fast); thread 1 reads a new line
        // every 2 (memory misses, bounded by its MSHRs: slow). Both stop at the same boundary, so thread 0 gets through many more
        // instructions per phase; with instruction phases they would get the same.
        let mut s = sim(2);
        let n = 20_000u64;
        let fast: Vec<Access> = (0..n).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect();
        let slow: Vec<Access> = (0..n).map(|i| Access::read(i * 2 + 1, (1 << 30) + i * 64, 8)).collect();
        let mut src = VecSource::new(vec![fast, slow]);
        let phase_ps = 5_000_000; // 5 µs
        let mut before = [0u64; 2];
        let mut ratios = Vec::new();
        let mut k = 0u64;
        while let Some((_, t)) = s.run_phase_timed(&mut src, phase_ps).unwrap() {
            k += 1;
            assert_eq!(s.phase_index(), k);
            let boundary = k * phase_ps;
            let mut d = [0u64; 2];
            for (c, core) in s.cores.iter().enumerate() {
                d[c] = core.instructions - before[c];
                before[c] = core.instructions;
                if !core.finished {
                    // Stopped at the boundary (computing or waiting across it), not much later.
                    assert!(core.t < boundary + phase_ps / 5, "phase {k} core {c}: {}", core.t);
                }
            }
            if s.cores.iter().any(|c| !c.finished) {
                assert!(t.end_ps >= boundary && t.end_ps < boundary + phase_ps / 5, "phase {k}");
            }
            if !s.cores[0].finished && !s.cores[1].finished {
                ratios.push(d[0] as f64 / d[1].max(1) as f64);
            }
        }
        assert!(ratios.len() >= 2, "{ratios:?}");
        assert!(
            ratios.iter().all(|&r| r > 2.0),
            "the fast thread runs ahead in instructions: {ratios:?}"
        );
        // Every instruction is counted once, split or not.
        assert_eq!(s.cores[0].instructions, (n - 1) * 10 + 1);
        assert_eq!(s.cores[1].instructions, (n - 1) * 2 + 1);
    }

    #[test]
    fn idle_and_finished_threads_end_and_gaps_merge_into_one_empty_phase() {
        // Thread 0 finishes early; thread 1 computes for 10^12 instructions (1000 s) before its
        // last access: three phases (busy, one merged empty stretch, busy), not 10^9.
        let mut s = sim(2);
        let a: Vec<Access> = (0..50).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect();
        let gap = 1_000_000_000_000;
        let b = vec![Access::read(1, 0x2000, 8), Access::read(gap, 0x2000, 8)];
        let mut src = VecSource::new(vec![a, b]);
        let phase_ps = 1_000_000; // 1 µs
        let out = phases(&mut s, &mut src, phase_ps);
        let accesses: Vec<u64> = out.iter().map(|p| p.0.accesses).collect();
        assert_eq!(accesses, vec![51, 0, 1]);
        // Phase 0 ends at 1 µs although thread 1 is mid-gap: the finished thread does not end
        // it early and the idle one does not stretch it.
        assert!(out[0].1.end_ps >= phase_ps && out[0].1.end_ps < phase_ps + 1000);
        // The empty phase ends at the multiple holding thread 1's next issue (10^15 ps).
        let issue_ps = gap * 1000;
        assert_eq!(out[1].2, issue_ps / phase_ps);
        assert!(out[1].1.end_ps >= (issue_ps / phase_ps) * phase_ps && out[1].1.end_ps <= issue_ps);
        assert_eq!(out[2].2, issue_ps / phase_ps + 1);
        assert_eq!(out.iter().map(|p| p.0.instructions).sum::<u64>(), 491 + gap);
        assert!(s.run_phase_timed(&mut src, phase_ps).unwrap().is_none());
    }
}
