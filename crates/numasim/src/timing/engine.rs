//! The timing engine: cores, private caches, LLCs, directory, links and DRAM on one
//! deterministic clock (see the module docs of [`super`] for the model).
//!
//! Why transactions are computed whole at issue rather than hop by hop as events: a
//! discrete-event engine pays a priority-queue push and pop for every hop of every message
//! (5–10 per LLC miss), which held it near 1 M accesses/s. Here a core issues an access at
//! its own clock and the whole transaction — request legs, DRAM, forwards, the data legs —
//! is booked at once on the [`Timeline`](super::timeline::Timeline) of every resource it
//! crosses, so its completion time is known at issue. Cores are interleaved in time order (a
//! heap of cores, each running up to `lookahead_ns` past the slowest), so resources see
//! requests nearly in time order, and the timelines' gap filling makes the remaining disorder
//! harmless: an early request presented late still uses the idle time it arrived in.

use super::directory::{Directory, NO_OWNER};
use super::dram::{ps, MemoryController};
use super::link::{Fabric, Path};
use super::params::{DramTiming, TimingSpec};
use crate::cache::{Outcome, SetAssocCache};
use crate::mem::{Memory, Placement};
use crate::migrate::mechanism::CostParams;
use crate::profile::Observer;
use crate::sim::SimError;
use crate::stats::PhaseCounts;
use numasim_machine::Machine;
use numasim_trace::{Access, AccessSource};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// How many accesses ahead a core prefetches its L2 and LLC sets (host-side hint only).
const PREFETCH_DISTANCE: usize = 12;
/// Most sockets the directory's sharer masks can name.
pub const MAX_SOCKETS: usize = 64;
/// The simulated clock stops here (2^62 ps, 53 days): every latency the validated machine and
/// `[timing]` allow, added to it, still fits a u64.
pub const MAX_CLOCK_PS: u64 = 1 << 62;

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

/// Latency of one booked transaction, ps.
#[derive(Debug, Clone, Copy, Default)]
struct Latency {
    done_ps: u64,
    unloaded_ps: u64,
    wait_ps: u64,
}

struct Core {
    socket: usize,
    /// Issue clock: time the last access issued (ps).
    t: u64,
    last_instr: u64,
    buf: Vec<Access>,
    pos: usize,
    source_done: bool,
    finished: bool,
    /// Tracked accesses in flight or not yet retired: (instruction, completion ps).
    rob: VecDeque<(u64, u64)>,
    /// Completion times of outstanding LLC-miss loads (≤ `mshrs`).
    mshr: Vec<u64>,
    /// Completion times of LLC-miss stores in flight (≤ `store_buffer_entries`).
    store_buffer: Vec<u64>,
    /// Latest completion of anything this core issued.
    last_done: u64,
    /// The line and page of the last access: MRU in L1 and the TLB, so a repeat needs no
    /// lookup (reset when another socket invalidates or cleans the line).
    last_line: u64,
    last_line_dirty: bool,
    last_vpage: u64,
    instructions: u64,
    instr_at_phase_start: u64,
    llc_misses: u64,
    end_ps: u64,
    cpi_milli_ps: u64,
}

/// Whole-run or per-phase timing counters.
#[derive(Debug, Clone, Default)]
pub struct TimingCounts {
    /// Indexed like [`TimingSim::class_names`].
    pub classes: Vec<ClassSums>,
    pub block_transfers_3hop: u64,
    pub block_transfers_4hop: u64,
    pub invalidations: u64,
    pub tlb_misses: u64,
    /// LLC misses that waited for a page still being migrated, and how long in all (ps).
    pub migration_stalls: u64,
    pub migration_stall_ps: u64,
    pub start_ps: u64,
    pub end_ps: u64,
}

/// Time (ps) to issue `instructions` non-memory instructions at `cpi_milli_ps` (thousandths of
/// a ps per instruction). Saturating: a hostile trace may jump its instruction count by 2^60.
#[inline]
fn compute_ps(instructions: u64, cpi_milli_ps: u64) -> u64 {
    instructions.saturating_mul(cpi_milli_ps).saturating_add(500) / 1000
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

/// Why a core stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Yield {
    /// Ran `lookahead_ns` past the slowest core: requeue at its clock.
    Later,
    /// Next access belongs to the next phase.
    Barrier,
    /// Source exhausted.
    Done,
}

/// The engine. Public fields are read by the report and by migration at phase boundaries.
pub struct TimingSim {
    pub spec: TimingSpec,
    sockets: usize,
    nodes: usize,
    /// Page table, homes and frames, placement and per-page statistics (shared with the
    /// functional engine).
    pub memory: Memory,
    llcs: Vec<SetAssocCache>,
    llc_on: bool,
    /// Socket-level coherence directory.
    dir: Directory,
    pub fabric: Fabric,
    pub mem: Vec<MemoryController>,
    /// Per node: fixed on-chip latency = access_latency − lookup path − DRAM row miss (ps).
    pub fixed_ps: Vec<u64>,
    /// Per node: by how much the closed form exceeds the machine's access latency (0 = exact).
    pub mismatch_ps: Vec<u64>,
    /// Per socket: L1 + L2 (+ LLC) tag path of an LLC miss, ps.
    pub lookup_ps: Vec<u64>,
    l1_ps: Vec<u64>,
    l2_ps: Vec<u64>,
    walk_ps: Vec<u64>,
    snoop_ps: u64,
    header: u32,
    data: u32,
    cores: Vec<Core>,
    /// Every core's private L1-D, L2 and TLB, one part per core (see
    /// [`SetAssocCache::partitioned`]).
    l1: SetAssocCache,
    l2: SetAssocCache,
    tlb: SetAssocCache,
    socket_cores: Vec<Vec<u32>>,
    is_pool: Vec<bool>,
    class_of: Vec<u16>,
    pub class_names: Vec<String>,
    bt_class: u16,
    /// Cores ready to run, by (clock, core id): ties break by id, so runs are deterministic.
    ready: BinaryHeap<Reverse<(u64, u32)>>,
    /// The slowest running core's clock: no request is booked before it (timeline horizon).
    now: u64,
    /// Latest completion of any transaction (the phase barrier waits for it).
    latest_ps: u64,
    /// Per page id: summed latency of the phase's LLC-miss loads to it (HyDM's progress).
    page_mem_ps: Vec<u64>,
    /// Per page id: time its migration copy lands (empty until a page moves).
    page_ready_ps: Vec<u64>,
    /// Moves chosen at this boundary, not yet charged: (page, from, to, old frame).
    pending_moves: Vec<(u32, u16, u16, u32)>,
    /// Socket each memory node is attached to (`None`: the pool).
    node_socket: Vec<Option<usize>>,
    /// ps per core cycle, per socket.
    cycle_ps: Vec<f64>,
    observer: Option<Box<Observer>>,
    observing: bool,
    counts: PhaseCounts,
    pub timing: TimingCounts,
    phase: u64,
    /// Phase length the driver runs (per thread), from [`TimingConfig`].
    phase_instructions: u64,
    lookahead_ps: u64,
    rob_w: u64,
    mshrs: u32,
    store_buffer: u32,
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
        let cyc = |s: usize, c: u32| ps(f64::from(c) / m.sockets[s].freq_ghz);
        let l1_ps: Vec<u64> = (0..sockets).map(|s| cyc(s, spec.l1_latency_cycles)).collect();
        let l2_ps: Vec<u64> = (0..sockets).map(|s| cyc(s, spec.l2_latency_cycles)).collect();
        let llc_ps: Vec<u64> = (0..sockets)
            .map(|s| if cfg.llc { cyc(s, spec.llc_latency_cycles) } else { 0 })
            .collect();
        let walk_ps = (0..sockets).map(|s| cyc(s, spec.page_walk_cycles)).collect();
        let lookup_ps: Vec<u64> = (0..sockets).map(|s| l1_ps[s] + l2_ps[s] + llc_ps[s]).collect();
        let line_bytes = m.sockets.first().map_or(64, |s| s.line_bytes);
        let mut mem = Vec::with_capacity(nodes);
        let mut fixed_ps = Vec::with_capacity(nodes);
        let mut mismatch_ps = Vec::with_capacity(nodes);
        for n in &m.memory_nodes {
            let t = DramTiming::preset(n.dram, line_bytes);
            let mc = MemoryController::new(&t, n.channels, cfg.page_bytes, spec.dram_row_bytes, spec.dram_refresh);
            let lookup = lookup_ps[n.attached_socket.unwrap_or(0)];
            let need = lookup + mc.t.row_miss();
            let have = ps(n.access_latency_ns);
            fixed_ps.push(have.saturating_sub(need));
            mismatch_ps.push(need.saturating_sub(have));
            mem.push(mc);
        }
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
        let cores = thread_socket
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                socket_cores[s].push(i as u32);
                Core {
                    socket: s,
                    t: 0,
                    last_instr: 0,
                    buf: Vec::with_capacity(4096),
                    pos: 0,
                    source_done: false,
                    finished: false,
                    rob: VecDeque::with_capacity(spec.rob_entries as usize),
                    mshr: Vec::with_capacity(spec.mshrs as usize),
                    store_buffer: Vec::with_capacity(spec.store_buffer_entries as usize),
                    last_done: 0,
                    last_line: u64::MAX,
                    last_line_dirty: false,
                    last_vpage: u64::MAX,
                    instructions: 0,
                    instr_at_phase_start: 0,
                    llc_misses: 0,
                    end_ps: 0,
                    cpi_milli_ps: (spec.base_cpi / m.sockets[s].freq_ghz * 1e6).round() as u64,
                }
            })
            .collect();
        let classes = class_names.len();
        Ok(TimingSim {
            sockets,
            nodes,
            memory: Memory::new(cfg.page_bytes, sockets, nodes, placement),
            llcs: if cfg.llc {
                m.sockets
                    .iter()
                    .map(|s| SetAssocCache::try_partitioned(1, s.llc_bytes, s.llc_ways as usize))
                    .collect::<Result<_, _>>()?
            } else {
                Vec::new()
            },
            llc_on: cfg.llc,
            dir: Directory::new(cfg.page_bytes),
            fabric: Fabric::new(m, spec.link_bandwidth_scale),
            mem,
            fixed_ps,
            mismatch_ps,
            lookup_ps,
            l1_ps,
            l2_ps,
            walk_ps,
            snoop_ps: ps(spec.owner_snoop_ns),
            header: spec.header_bytes,
            data: spec.header_bytes + line_bytes,
            l1: SetAssocCache::try_partitioned(thread_socket.len(), spec.l1_bytes, spec.l1_ways as usize)
                .map_err(|e| format!("timing.l1_bytes: {e}"))?,
            l2: SetAssocCache::try_partitioned(thread_socket.len(), spec.l2_bytes, spec.l2_ways as usize)
                .map_err(|e| format!("timing.l2_bytes: {e}"))?,
            tlb: SetAssocCache::try_partitioned(
                thread_socket.len(),
                u64::from(spec.tlb_entries) * 64,
                spec.tlb_ways as usize,
            )
            .map_err(|e| format!("timing.tlb_entries: {e}"))?,
            cores,
            socket_cores,
            is_pool: m.memory_nodes.iter().map(|n| n.attached_socket.is_none()).collect(),
            class_of,
            class_names,
            bt_class,
            ready: BinaryHeap::new(),
            now: 0,
            latest_ps: 0,
            page_mem_ps: Vec::new(),
            page_ready_ps: Vec::new(),
            pending_moves: Vec::new(),
            node_socket: m.memory_nodes.iter().map(|n| n.attached_socket).collect(),
            cycle_ps: m.sockets.iter().map(|s| 1000.0 / s.freq_ghz).collect(),
            observer: None,
            observing: false,
            counts: PhaseCounts::new(sockets, nodes),
            timing: TimingCounts {
                classes: vec![ClassSums::default(); classes],
                ..Default::default()
            },
            phase: 0,
            phase_instructions: cfg.phase_instructions,
            lookahead_ps: ps(spec.lookahead_ns),
            rob_w: u64::from(spec.rob_entries),
            mshrs: spec.mshrs,
            store_buffer: spec.store_buffer_entries,
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

    pub fn threads(&self) -> usize {
        self.cores.len()
    }
    pub fn now_ps(&self) -> u64 {
        self.now
    }
    pub fn core_socket(&self, c: usize) -> usize {
        self.cores[c].socket
    }
    /// (instructions, LLC misses, finish time ps) of a core.
    pub fn core_stats(&self, c: usize) -> (u64, u64, u64) {
        let k = &self.cores[c];
        (k.instructions, k.llc_misses, k.end_ps.max(k.t))
    }

    /// Runs one phase (`phase_instructions` more per thread; a barrier at its end). Returns
    /// the phase's functional counts and timing counters, or `None` once every thread is done.
    pub fn run_phase(
        &mut self,
        src: &mut dyn AccessSource,
        phase_instructions: u64,
    ) -> Result<Option<(PhaseCounts, TimingCounts)>, SimError> {
        if src.threads() != self.cores.len() {
            return Err(SimError::ThreadCount {
                source_threads: src.threads(),
                mapped: self.cores.len(),
            });
        }
        for c in 0..self.cores.len() {
            self.refill(c, src)?;
        }
        if self.cores.iter().all(|c| c.source_done) {
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
        let start = self.now;
        for c in 0..self.cores.len() {
            if !self.cores[c].finished {
                let k = &mut self.cores[c];
                k.t = k.t.max(start);
                self.ready.push(Reverse((k.t, c as u32)));
            }
        }
        while let Some(Reverse((t, c))) = self.ready.pop() {
            self.now = t;
            let until = t.saturating_add(self.lookahead_ps);
            if self.run_core(c as usize, phase_end, until, src)? == Yield::Later {
                self.ready.push(Reverse((self.cores[c as usize].t, c)));
            }
        }
        // Barrier: the next phase starts when everything issued in this one has completed.
        let end = self
            .cores
            .iter()
            .map(|k| k.t.max(k.last_done))
            .fold(self.latest_ps.max(start), u64::max);
        self.now = end;
        let mut counts = std::mem::replace(&mut self.counts, PhaseCounts::new(self.sockets, self.nodes));
        for c in &mut self.cores {
            let at_end = if c.source_done {
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
        self.l1.clear();
        self.l2.clear();
        self.tlb.clear();
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
                // The instructions between the core's last access and the phase end run before
                // the barrier (they are counted in this phase, so their time belongs here too).
                if k.last_instr < phase_end {
                    k.t =
                        k.t.saturating_add(compute_ps(phase_end - k.last_instr, k.cpi_milli_ps))
                            .min(MAX_CLOCK_PS);
                    k.last_instr = phase_end;
                }
                return Ok(Yield::Barrier);
            }
            if k.t > until {
                return Ok(Yield::Later);
            }
            // Non-memory instructions since the last access, then in-order retirement: the
            // ROB holds W instructions, so everything at or before `instr − W` must be done.
            // Saturating: a hostile trace may jump its instruction count by 2^60.
            // The clock stops at MAX_CLOCK_PS, so adding the bounded latencies of one access
            // to it can never overflow.
            let mut t_issue =
                k.t.saturating_add(compute_ps(a.instr.saturating_sub(k.last_instr), k.cpi_milli_ps))
                    .min(MAX_CLOCK_PS);
            while let Some(&(instr, done)) = k.rob.front() {
                if instr.saturating_add(self.rob_w) > a.instr {
                    break;
                }
                t_issue = t_issue.max(done);
                k.rob.pop_front();
            }
            k.t = t_issue;
            k.last_instr = a.instr;
            k.pos += 1;
            // The simulated L2 and LLC tag arrays far exceed the host's caches: ask for the
            // sets a later access of this core will probe (the LLC's only when it is modelled).
            if let Some(next) = k.buf.get(k.pos + PREFETCH_DISTANCE) {
                let line = next.vaddr >> 6;
                if line != k.last_line {
                    self.l2.prefetch_in(c, line);
                    if self.llc_on {
                        self.llcs[k.socket].prefetch(line);
                    }
                }
            }
            self.access(c, &a)?;
        }
    }

    /// Records a tracked access completing at `done` in the core's ROB (only if it can still
    /// hold up retirement).
    #[inline]
    fn push_rob(&mut self, c: usize, instr: u64, done: u64) {
        let k = &mut self.cores[c];
        if done > k.t {
            k.rob.push_back((instr, done));
        }
        k.last_done = k.last_done.max(done);
    }

    /// DRAM row at `node` holding byte `vaddr` of page id `page` (in its current frame).
    #[inline]
    fn dram_row(&self, node: usize, page: u32, vaddr: u64) -> u64 {
        let offset = vaddr & ((1u64 << self.memory.table.page_shift()) - 1);
        self.mem[node].row_of(u64::from(self.memory.frame[page as usize]), offset)
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
            if let Outcome::Miss { .. } = self.tlb.access_in(c, vpage, false) {
                t0 += self.walk_ps[socket];
                self.timing.tlb_misses += 1;
            }
        }
        k.last_line = line;
        k.last_line_dirty = write;
        // L1
        let r1 = self.l1.access_in(c, line, write);
        if let Outcome::Miss { writeback: Some(v) } = r1 {
            self.l2_victim(c, v, t);
        }
        if let Outcome::Hit { was_dirty } = r1 {
            self.cores[c].last_line_dirty |= was_dirty;
            self.counts.llc_hits += 1;
            if write && !was_dirty {
                self.store_ownership(socket, a.vaddr, t0)?;
            }
            if t0 != t {
                self.push_rob(c, a.instr, t0 + self.l1_ps[socket]);
            }
            return Ok(false);
        }
        // L2
        let r2 = self.l2.access_in(c, line, write);
        if let Outcome::Miss { writeback: Some(v) } = r2 {
            self.llc_victim(socket, v, t);
        }
        if let Outcome::Hit { was_dirty } = r2 {
            self.counts.llc_hits += 1;
            if write && !was_dirty {
                self.store_ownership(socket, a.vaddr, t0)?;
            }
            self.push_rob(c, a.instr, t0 + self.l1_ps[socket] + self.l2_ps[socket]);
            return Ok(false);
        }
        // LLC
        if self.llc_on {
            match self.llcs[socket].access(line, false) {
                Outcome::Hit { .. } => {
                    self.counts.llc_hits += 1;
                    if write {
                        self.store_ownership(socket, a.vaddr, t0)?;
                    }
                    self.push_rob(c, a.instr, t0 + self.lookup_ps[socket]);
                    return Ok(false);
                }
                Outcome::Miss { writeback: Some(v) } => self.writeback(socket, v, t),
                Outcome::Miss { writeback: None } => {}
            }
        }
        // Memory (or another socket's cache).
        self.counts.llc_misses += 1;
        self.cores[c].llc_misses += 1;
        let page = self.page_of(socket, a.vaddr)?;
        let node = self.memory.home[page as usize] as usize;
        self.counts.demand[socket * self.nodes + node] += 1;
        self.memory.pages.record(page, socket);
        let di = self.dir.index(page, line);
        let owner = self.dir.owner(di);
        let bt = owner != NO_OWNER && owner as usize != socket;
        let mut inval = 0;
        if write {
            let others = self.dir.write(di, socket).others;
            self.invalidate_sockets(line, others);
            // The owner (if any) loses its copy by supplying the data; the rest get messages.
            let owner_bit = if owner == NO_OWNER { 0 } else { 1u64 << owner };
            inval = others & !if bt { owner_bit } else { 0 };
        } else {
            if bt {
                for &k in &self.socket_cores[owner as usize] {
                    self.l1.clean_in(k as usize, line);
                    self.l2.clean_in(k as usize, line);
                    let k = &mut self.cores[k as usize];
                    if k.last_line == line {
                        k.last_line_dirty = false;
                    }
                }
            }
            self.dir.read(di, socket);
        }
        if bt {
            if self.is_pool[node] {
                self.timing.block_transfers_4hop += 1;
            } else {
                self.timing.block_transfers_3hop += 1;
            }
        }
        // A load needs an MSHR, a store a store-buffer entry: with all taken it waits for the
        // earliest to free, and the in-order issue stalls with it.
        {
            let k = &mut self.cores[c];
            let (slots, limit) = if write {
                (&mut k.store_buffer, self.store_buffer as usize)
            } else {
                (&mut k.mshr, self.mshrs as usize)
            };
            // Completed entries are dropped only when the slots look full (same decision, and
            // no scan per miss).
            if slots.len() >= limit {
                slots.retain(|&d| d > t0);
            }
            if slots.len() >= limit {
                let (i, &first) = slots.iter().enumerate().min_by_key(|&(_, d)| *d).unwrap_or((0, &t0));
                slots.swap_remove(i);
                t0 = t0.max(first);
                k.t = k.t.max(first);
            }
        }
        let t_request = t0;
        // A page still being copied by a migration: the access waits until it lands.
        if let Some(&r) = self.page_ready_ps.get(page as usize) {
            if r > t0 {
                self.timing.migration_stalls += 1;
                self.timing.migration_stall_ps += r - t0;
                t0 = r;
            }
        }
        let row = self.dram_row(node, page, a.vaddr);
        let lat = self.fetch(socket, node, if bt { owner } else { NO_OWNER }, inval, row, t0);
        if !write {
            let class = if bt {
                self.bt_class
            } else {
                self.class_of[socket * self.nodes + node]
            };
            let cs = &mut self.timing.classes[class as usize];
            cs.count += 1;
            cs.unloaded_ps += lat.unloaded_ps;
            cs.wait_ps += lat.wait_ps;
            self.cores[c].mshr.push(lat.done_ps);
            if self.observing {
                let p = page as usize;
                if self.page_mem_ps.len() <= p {
                    self.page_mem_ps.resize(self.memory.home.len(), 0);
                }
                self.page_mem_ps[p] += lat.done_ps - t_request;
            }
            self.push_rob(c, a.instr, lat.done_ps);
        } else {
            let k = &mut self.cores[c];
            k.store_buffer.push(lat.done_ps);
            k.last_done = k.last_done.max(lat.done_ps);
        }
        Ok(true)
    }

    /// Books `bytes` along `path` from `t`; returns the arrival time and adds queueing to `wait`.
    #[inline]
    fn traverse(&mut self, path: Path, bytes: u32, mut t: u64, wait: &mut u64) -> u64 {
        for i in 0..path.len {
            let h = self.fabric.hop(path, i);
            let (start, w) = self.fabric.dirs[h.dir as usize].reserve(t, bytes, self.now);
            *wait += w;
            t = start + h.after_ps;
        }
        self.latest_ps = self.latest_ps.max(t);
        t
    }

    /// A line fetch issued by socket `req` at `t0` (after its private lookups start): request to
    /// the home `node`, directory + DRAM there, invalidations of `inval`, then the data from
    /// memory or — a block transfer — from `owner`'s cache.
    fn fetch(&mut self, req: usize, node: usize, owner: u8, inval: u64, row: u64, t0: u64) -> Latency {
        let mut wait = 0;
        let mut unloaded = self.lookup_ps[req];
        let p = self.fabric.to_mem(req, node);
        unloaded += p.latency_ps;
        let t = self.traverse(p, self.header, t0 + self.lookup_ps[req], &mut wait);
        // Home: fixed on-chip time (directory lookup included), then DRAM.
        let fixed = self.fixed_ps[node];
        let r = self.mem[node].access_at(t + fixed, row, self.now);
        unloaded += fixed + r.service_ps;
        wait += r.wait_ps;
        let mut t = r.done_ps;
        if inval != 0 {
            self.send_invals(node, req, inval, t);
        }
        let data = self.data;
        if owner != NO_OWNER {
            let owner = owner as usize;
            let p = self.fabric.from_mem(node, owner);
            unloaded += p.latency_ps + self.snoop_ps;
            t = self.traverse(p, self.header, t, &mut wait) + self.snoop_ps;
            if self.is_pool[node] {
                // A CXL pool's directory has no socket to forward through: owner → pool → requester.
                let p = self.fabric.to_mem(owner, node);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
                let p = self.fabric.from_mem(node, req);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
            } else {
                let p = self.fabric.between(owner, req);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
            }
        } else {
            let p = self.fabric.from_mem(node, req);
            unloaded += p.latency_ps;
            t = self.traverse(p, data, t, &mut wait);
        }
        debug_assert_eq!(t, t0 + unloaded + wait);
        Latency {
            done_ps: t,
            unloaded_ps: unloaded,
            wait_ps: wait,
        }
    }

    /// Invalidations home → each sharer in `mask`, acks sharer → requester (traffic only).
    fn send_invals(&mut self, home: usize, req: usize, mut mask: u64, t: u64) {
        let mut ignored = 0;
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let p = self.fabric.from_mem(home, s);
            let at = self.traverse(p, self.header, t, &mut ignored);
            let p = self.fabric.between(s, req);
            self.traverse(p, self.header, at, &mut ignored);
        }
    }

    fn invalidate_sockets(&mut self, line: u64, mut mask: u64) {
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.timing.invalidations += 1;
            if self.llc_on {
                self.llcs[s].invalidate(line);
            }
            for &k in &self.socket_cores[s] {
                self.l1.invalidate_in(k as usize, line);
                self.l2.invalidate_in(k as usize, line);
                let k = &mut self.cores[k as usize];
                if k.last_line == line {
                    k.last_line = u64::MAX;
                }
            }
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
        self.invalidate_sockets(line, others);
        let node = self.memory.home[page as usize] as usize;
        let mut ignored = 0;
        let p = self.fabric.to_mem(socket, node);
        let at = self.traverse(p, self.header, t + self.lookup_ps[socket], &mut ignored);
        self.send_invals(node, socket, others, at);
        Ok(())
    }

    fn l2_victim(&mut self, c: usize, v: u64, t: u64) {
        if let Outcome::Miss { writeback: Some(v2) } = self.l2.access_in(c, v, true) {
            let s = self.cores[c].socket;
            self.llc_victim(s, v2, t);
        }
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
        let mut ignored = 0;
        let p = self.fabric.to_mem(socket, node);
        let at = self.traverse(p, self.data, t, &mut ignored);
        let r = self.mem[node].access_at(at + self.fixed_ps[node], row, self.now);
        self.latest_ps = self.latest_ps.max(r.done_ps);
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
    pub fn charge_moves(&mut self, cost: &CostParams, scan_cycles: u64) -> MoveTiming {
        let moves = std::mem::take(&mut self.pending_moves);
        // The boundary has read this phase's memory time; the next phase starts afresh.
        self.page_mem_ps.iter_mut().for_each(|t| *t = 0);
        let t0 = self.now;
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
        let page_bytes = 1u64 << self.memory.table.page_shift();
        let mut last = t0;
        let mut ignored = 0;
        for &(page, from, to, old_frame) in &moves {
            let (from, to) = (from as usize, to as usize);
            let s = self.node_socket[to].or(self.node_socket[from]).unwrap_or(0);
            let new_frame = u64::from(self.memory.frame[page as usize]);
            let mut landed = t0;
            for off in (0..page_bytes).step_by(64) {
                let row = self.mem[from].row_of(u64::from(old_frame), off);
                let r = self.mem[from].access_at(t0 + self.fixed_ps[from], row, t0);
                let at = self.traverse(self.fabric.from_mem(from, s), self.data, r.done_ps, &mut ignored);
                let at = self.traverse(self.fabric.to_mem(s, to), self.data, at, &mut ignored);
                let row = self.mem[to].row_of(new_frame, off);
                let w = self.mem[to].access_at(at + self.fixed_ps[to], row, t0);
                landed = landed.max(w.done_ps);
            }
            self.page_ready_ps[page as usize] = landed;
            last = last.max(landed);
            let vpage = self.memory.table.vpage(page);
            for (c, k) in self.cores.iter_mut().enumerate() {
                self.tlb.invalidate_in(c, vpage);
                if k.last_vpage == vpage {
                    k.last_vpage = u64::MAX;
                }
            }
        }
        self.latest_ps = self.latest_ps.max(last);
        timing.copy_span_ps = last - t0;
        let n = moves.len() as u64;
        let software = cost.shootdown == crate::migrate::mechanism::Shootdown::Software;
        for (i, k) in self.cores.iter_mut().enumerate() {
            let cycles = if i == 0 {
                n * cost.shootdown_initiator_cycles + scan_cycles
            } else if software {
                n * cost.shootdown_handler_cycles
            } else {
                0
            };
            let stall = (cycles as f64 * self.cycle_ps[k.socket]).round() as u64;
            k.t = k.t.max(t0) + stall;
            timing.core_stall_ps += stall;
        }
        timing
    }

    /// Time a single isolated load would take right now (tests and calibration): socket
    /// `req` reads a line homed at `home`, owned dirty by `owner` if given. Returns (total,
    /// unloaded, wait) in ps; the clock then moves past it, so successive probes do not meet.
    pub fn probe_load(&mut self, req: usize, home: usize, owner: Option<usize>, row: u64) -> (u64, u64, u64) {
        let t0 = self.now;
        let lat = self.fetch(req, home, owner.map_or(NO_OWNER, |o| o as u8), 0, row, t0);
        self.now = self.latest_ps.max(lat.done_ps);
        (lat.done_ps - t0, lat.unloaded_ps, lat.wait_ps)
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
}
