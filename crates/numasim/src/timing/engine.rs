//! The timing engine: cores, private caches, LLCs, directory, links and DRAM on one
//! deterministic clock (see the module docs of [`super`] for the model).
//!
//! This file is the orchestration only: the phase loop that interleaves cores in time order,
//! and the path of one access through the parts, each in its own module with its own tests —
//! the core model ([`super::core`]: clock, ROB, MSHRs, store buffer), the private caches
//! ([`super::private`]), the directory ([`super::directory`]), and the fabric and DRAM
//! booking with the latency calibration ([`super::booking`]). Migration charging lives here
//! because every part meets there. The machine's state shared with the functional engine (page
//! table, LLCs, observer) is a [`System`] lent to each call that runs accesses.
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
use crate::cache::Outcome;
use crate::mem::{Memory, Placement};
use crate::migrate::mechanism::CostParams;
use crate::sim::SimError;
use crate::stats::PhaseCounts;
use crate::system::System;
use numasim_machine::Machine;
use numasim_trace::{Access, AccessSource};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod access;
mod coherence;
mod lending;
mod miss;
mod moves;
mod phase_loop;
#[cfg(test)]
mod tests;

/// How many accesses ahead a core prefetches its L2 and LLC sets (host-side hint only).
const PREFETCH_DISTANCE: usize = 12;
/// Most sockets the directory's sharer masks can name.
pub const MAX_SOCKETS: usize = 64;
pub use super::core::MAX_CLOCK_PS;

/// A page move chosen at a boundary and not yet charged: (page, from node, to node, old frame).
type PendingMove = (u32, u16, u16, u32);

/// Settings of the timing engine besides `[timing]`.
#[derive(Debug, Clone)]
pub struct TimingConfig {
    pub spec: TimingSpec,
    pub phase_instructions: u64,
    pub page_bytes: u64,
    /// Model the shared per-socket LLC (size and ways from the machine).
    pub llc: bool,
}

numasim_output::declare_stats! {
    /// Per-class latency sums of LLC-miss loads.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct ClassSums {
        /// LLC-miss loads of the class
        count: u64, Sum, unit "loads";
        /// their summed unloaded latency (fixed latencies and their own DRAM command times)
        unloaded_ps: u64, Sum, unit "ps";
        /// their summed queueing waits
        wait_ps: u64, Sum, unit "ps";
    }
}

numasim_output::declare_stats! {
    /// Whole-run or per-phase timing counters.
    #[derive(Debug, Clone, Default)]
    pub struct TimingCounts {
        /// LLC-miss loads by data-source class, indexed like the engine's class names
        classes: Vec<ClassSums>, Sum, unit "loads";
        /// block transfers through the home's directory
        block_transfers_3hop: u64, Sum, unit "loads";
        /// block transfers through a pool's directory
        block_transfers_4hop: u64, Sum, unit "loads";
        /// MESI: write-backs of block transfers' suppliers (`coherence = "mesi"`)
        sharing_writebacks: u64, Sum, unit "lines";
        /// block-transfer loads (the AMAT's `block_transfer` class) whose home is a pool
        bt_loads_via_pool: u64, Sum, unit "loads";
        /// invalidations sent
        invalidations: u64, Sum, unit "messages";
        /// TLB misses of the cores' TLBs
        tlb_misses: u64, Sum, unit "misses";
        /// LLC misses that waited for a page still being migrated
        migration_stalls: u64, Sum, unit "accesses";
        /// their summed wait
        migration_stall_ps: u64, Sum, unit "ps";
        /// the phase's start on the simulated clock
        start_ps: u64, Keep, unit "ps";
        /// its end (its barrier)
        end_ps: u64, Max, unit "ps";
    }
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

/// The engine's own state (cores, private caches, directory, fabric and DRAM bookings).
/// Public fields are read by the report.
pub struct TimingSim {
    pub spec: TimingSpec,
    /// The directory's protocol and where it was chosen (`[timing] coherence`, else the
    /// machine file's).
    pub coherence: CoherenceChoice,
    sockets: usize,
    nodes: usize,
    /// log2 of the page size (the system's page table's).
    page_shift: u32,
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
    pending_moves: Vec<PendingMove>,
    /// Socket each memory node is attached to (`None`: the pool).
    node_socket: Vec<Option<usize>>,
    /// ps per core cycle, per socket.
    cycle_ps: Vec<f64>,
    /// Multi-process runs: the process of every core's thread (empty: one process). A TLB
    /// shootdown interrupts only the cores running the moved page's process.
    core_process: Vec<u32>,
    /// Multi-process runs: page-number shift that leaves the process number.
    process_shift: u32,
    /// Whether the system has a profiler's observer (set at the start of each span).
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
    /// The engine for threads on `thread_socket`; it runs on a [`System`] from
    /// [`Self::system`].
    pub fn new(cfg: &TimingConfig, m: &Machine, thread_socket: Vec<usize>) -> Result<Self, super::SetupError> {
        let spec = cfg.spec.clone();
        let (sockets, nodes) = (m.sockets.len(), m.memory_nodes.len());
        if sockets > MAX_SOCKETS {
            return Err(super::SetupError::TooManySockets {
                max: MAX_SOCKETS,
                machine: m.name.clone(),
                sockets,
            });
        }
        spec.check_core_caches(thread_socket.len())?;
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
        Ok(TimingSim {
            sockets,
            nodes,
            page_shift: cfg.page_bytes.trailing_zeros(),
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

    /// The machine state this engine runs on: memory with `placement` (the directory's bytes
    /// per line declared) and, with an LLC, the sockets' tag arrays.
    pub fn system(cfg: &TimingConfig, m: &Machine, placement: Placement) -> Result<System, super::SetupError> {
        let shape: Vec<(u64, usize)> = if cfg.llc {
            m.sockets.iter().map(|s| (s.llc_bytes, s.llc_ways as usize)).collect()
        } else {
            Vec::new()
        };
        let llcs = System::llcs_of(&shape)?;
        let mut memory = Memory::new(cfg.page_bytes, m.sockets.len(), placement);
        memory.keep_line_state(Directory::BYTES_PER_LINE, crate::mem::memory::line_state_budget_bytes());
        Ok(System::new(memory, llcs))
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
        let page_shift = self.page_shift.min(numasim_trace::PROCESS_SHIFT);
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

    /// Profiler hook (out of line: off the hot path). `mem`: the access reached memory.
    #[inline(never)]
    fn observe(&mut self, sys: &mut System, socket: usize, a: &Access, mem: bool) {
        // Every cached line was filled by a miss, so its page is mapped.
        if let (Some(page), Some(o)) = (sys.memory.table.lookup(a.vaddr), sys.observer.as_deref_mut()) {
            o.observe(socket, page, a, mem);
        }
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

impl TimingSim {
    /// Per page id: time its LLC-miss loads of the phase took, summed (ps); HyDM measures
    /// progress as flops per this time.
    pub fn page_memory_time_ps(&self) -> &[u64] {
        &self.page_mem_ps
    }

    /// Re-homes the page on a fresh frame of `node`; the copy is charged by
    /// [`TimingSim::charge_moves`] once the policy has chosen every move of the boundary.
    pub fn move_page(&mut self, sys: &mut System, page: u32, node: usize) {
        if let Some(m) = sys.memory.move_page(page, node) {
            self.pending_moves.push((page, m.from as u16, node as u16, m.old_frame));
        }
    }
}
