//! The functional simulator: where every access goes, phase by phase, with no clock.
//!
//! Threads interleave deterministically by instruction count: time advances in quanta of
//! `quantum_instructions`; in each quantum every thread, in thread order, runs its accesses
//! whose instruction count falls before the quantum's end. A phase ends when every thread has
//! passed `phase_instructions` more instructions (or finished). Results depend only on the
//! access streams and these two lengths, never on how a source batches its output.
//!
//! Per access: optional per-socket LLC filter → page table (placement on first touch) → one
//! increment in the (socket × node) matrix and the page's per-socket counter. Everything else
//! is derived at phase boundaries, where migration policies will also act.

use crate::cache::{Outcome, SharerMap};
use crate::mem::memory::line_state_budget_bytes;
use crate::mem::{Memory, Placement, PlacementError};
use crate::profile::Observer;
use crate::stats::PhaseCounts;
use crate::system::System;
use numasim_trace::{Access, AccessSource, SourceError};

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Placement(#[from] PlacementError),
    #[error("the access source has {source_threads} threads but the thread mapping lists {mapped}")]
    ThreadCount { source_threads: usize, mapped: usize },
    #[error(
        "measure = \"roi\": the workload declares no region of interest (generators with a set-up: \
         cg, mg, ft, ep, is, bt, sp, lu; one workload, not [[process]]), or its run ends before it"
    )]
    NoRegionOfInterest,
}

/// The set-up a run measured from the region of interest ran but did not count
/// (`measure = "roi"`): where the region began and what the set-up did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SetupReport {
    /// Instruction count (per thread) at which the region of interest began; phases count
    /// from here.
    pub roi_start_instruction: u64,
    /// Accesses, memory accesses (LLC misses) and instructions of the set-up, over threads.
    pub accesses: u64,
    pub llc_misses: u64,
    pub instructions: u64,
    /// Pages the set-up first touched (placed where it touched them).
    pub pages: u64,
    /// Pages the region of interest reached memory for, filled in at the end of the run (with
    /// the LLC filter on, a page whose every access hit is not among them): the run's
    /// footprint in its similarity numbers.
    pub region_pages: u64,
}

/// Settings of the functional simulator.
#[derive(Debug, Clone)]
pub struct FunctionalConfig {
    pub phase_instructions: u64,
    pub quantum_instructions: u64,
    /// Per socket (size_bytes, ways) of the LLC filter; `None` turns the filter off.
    pub llc: Option<Vec<(u64, usize)>>,
    pub page_bytes: u64,
    /// Count accesses per page and run the migration profiler's observer on a thread of its
    /// own (see `ObserverPipe`). Results do not depend on it.
    pub observer_thread: bool,
}

/// One access as the observer sees it (handed to the observer thread in batches).
#[derive(Debug, Clone, Copy)]
struct ObservedAccess {
    access: Access,
    page: u32,
    socket: u32,
    mem: bool,
}

/// Accesses per batch handed to the observer thread (32 B each: 512 KiB per batch).
const OBSERVED_BATCH: usize = 16 << 10;
/// Batches in flight between the engine and the observer thread (bounds its lag and memory).
const OBSERVED_BATCHES: usize = 4;

/// The engine's end of the observer thread, alive for one [`FunctionalSim::run_to`] call.
///
/// That thread counts memory accesses per page and socket (`PageStats::record`, a host cache
/// miss per access at large footprints) and runs the observer, if any. Why this is exact:
/// within a span both are pure sinks. The engine never reads them between accesses (only at
/// phase boundaries, after the span), so handing them the same calls in the same order on
/// another thread gives the same state: the thread replays the batches in the order they were
/// filled, and the span ends only after it has replayed the last one. New pages get their
/// counter rows there too, in page-id order (every page is counted by the access that maps it).
struct ObserverPipe {
    batch: Vec<ObservedAccess>,
    full: std::sync::mpsc::SyncSender<Vec<ObservedAccess>>,
    empty: std::sync::mpsc::Receiver<Vec<ObservedAccess>>,
}

impl ObserverPipe {
    #[inline]
    fn push(&mut self, e: ObservedAccess) {
        self.batch.push(e);
        if self.batch.len() == OBSERVED_BATCH {
            self.hand_over();
        }
    }

    #[cold]
    fn hand_over(&mut self) {
        // The observer thread sends every batch back, so one is always on its way once all
        // OBSERVED_BATCHES are out; a closed channel means that thread panicked (re-raised at
        // the join).
        let next = self.empty.recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        let _ = self.full.send(full);
    }
}

struct ThreadCursor {
    buf: Vec<Access>,
    pos: usize,
    done: bool,
    /// Instruction count of the last access consumed.
    instr: u64,
}

/// The engine's own state: the threads' places, the phase's counters and the sharer masks.
/// The machine's state (memory, LLCs, observer) is a [`System`] lent to every call that runs
/// accesses.
pub struct FunctionalSim {
    sockets: usize,
    nodes: usize,
    thread_socket: Vec<usize>,
    llc_on: bool,
    /// Which sockets' LLCs may hold each line (LLC on only): a store invalidates the others.
    sharers: SharerMap,
    /// log2 of the lines in a page.
    lines_per_page_shift: u32,
    counts: PhaseCounts,
    threads: Vec<ThreadCursor>,
    /// Run totals of every thread (per-process results).
    thread_totals: Vec<crate::stats::ThreadTotals>,
    phase_instructions: u64,
    quantum_instructions: u64,
    phase: u64,
    thread_instr_at_phase_start: Vec<u64>,
    /// Whether a migration profiler watches accesses (one predictable branch per access; set
    /// from the system at the start of each span).
    observing: bool,
    observer_thread: bool,
    /// Set while a span runs with the observer on its own thread.
    pipe: Option<ObserverPipe>,
    /// LLC off: the accesses of a quantum in the order they run (see [`Self::run_quantum`]).
    sched: Vec<Scheduled>,
    /// [`SCHEDULE_MIN_ROW_BYTES`] (tests lower it to exercise the schedule on few pages).
    schedule_min_row_bytes: usize,
    /// `measure = "roi"`: run the source's set-up uncounted before the first phase.
    measure_roi: bool,
    /// Instruction count phases are counted from (the region of interest's start, or 0).
    origin: u64,
    /// The set-up run before the first phase, once it has run.
    setup: Option<SetupReport>,
}

/// One access of a quantum's schedule and the socket of its thread.
#[derive(Debug, Clone, Copy)]
struct Scheduled {
    access: Access,
    socket: u32,
}

/// Per-page counter rows (bytes) from which the LLC-off engine runs quanta from a schedule with
/// lookahead. Below, rows stay in the host's caches and thread by thread without lookahead is
/// faster (measured on a 55 M-access BFS trace of 7.5 K pages: 16 % less CPU time); both give
/// the same results.
const SCHEDULE_MIN_ROW_BYTES: usize = 4 << 20;

/// Most accesses a schedule holds before they are run (bounds its memory when a quantum holds
/// many accesses: 32 B each, 512 KiB).
const SCHEDULE_CAP: usize = 16 << 10;

impl FunctionalSim {
    /// The engine for threads on `thread_socket`; it runs on a [`System`] from
    /// [`Self::system`] (or, under sampled timing, the timing engine's).
    pub fn new(cfg: &FunctionalConfig, sockets: usize, nodes: usize, thread_socket: Vec<usize>) -> Self {
        let threads = thread_socket.len();
        FunctionalSim {
            sockets,
            nodes,
            thread_socket,
            llc_on: cfg.llc.is_some(),
            sharers: SharerMap::new(sockets),
            lines_per_page_shift: (cfg.page_bytes / 64).max(1).trailing_zeros(),
            counts: PhaseCounts::new(sockets, nodes),
            threads: (0..threads)
                .map(|_| ThreadCursor {
                    buf: Vec::with_capacity(4096),
                    pos: 0,
                    done: false,
                    instr: 0,
                })
                .collect(),
            thread_totals: vec![Default::default(); threads],
            phase_instructions: cfg.phase_instructions.max(1),
            quantum_instructions: cfg.quantum_instructions.max(1),
            phase: 0,
            thread_instr_at_phase_start: vec![0; threads],
            observing: false,
            observer_thread: cfg.observer_thread,
            pipe: None,
            sched: Vec::new(),
            schedule_min_row_bytes: SCHEDULE_MIN_ROW_BYTES,
            measure_roi: false,
            origin: 0,
            setup: None,
        }
    }

    /// The machine state this engine runs on alone: memory with `placement` (and its sharer
    /// masks' bytes per line declared, LLC on), and the LLC tag arrays of `cfg`. Reports,
    /// instead of aborting, when the tag arrays cannot be allocated.
    pub fn system(
        cfg: &FunctionalConfig,
        sockets: usize,
        placement: Placement,
    ) -> Result<System, crate::cache::TagArrayError> {
        let llcs = System::llcs_of(cfg.llc.as_deref().unwrap_or_default())?;
        let mut memory = Memory::new(cfg.page_bytes, sockets, placement);
        if cfg.llc.is_some() {
            memory.keep_line_state(SharerMap::new(sockets).bytes_per_line(), line_state_budget_bytes());
        }
        Ok(System::new(memory, llcs))
    }

    /// Run totals of every thread so far.
    pub fn thread_totals(&self) -> &[crate::stats::ThreadTotals] {
        &self.thread_totals
    }

    pub fn thread_socket(&self) -> &[usize] {
        &self.thread_socket
    }

    /// Phases run so far (a merged empty stretch counts each phase it spans).
    pub fn phase_index(&self) -> u64 {
        self.phase
    }

    /// Measures from the source's region of interest (`measure = "roi"`): before the first
    /// phase, the set-up runs (pages are placed where it first touches them, the LLC and the
    /// profiler's TLB state warm up) without being counted, and phases count from the region's
    /// first instruction. [`Self::setup`] reports what the set-up did.
    pub fn measure_from_roi(&mut self) {
        self.measure_roi = true;
    }

    /// The set-up run uncounted before the first phase (`measure = "roi"`), once it has run.
    pub fn setup(&self) -> Option<SetupReport> {
        self.setup
    }

    /// Runs the source's set-up up to its region of interest and forgets what it counted:
    /// the phase's counters, per-page counts, every thread's totals and the profiler's samples
    /// (a boundary without moves); page placement, LLC contents and sharer state stay.
    fn run_setup(&mut self, sys: &mut System, src: &mut dyn AccessSource) -> Result<(), SimError> {
        let roi = src.roi_start()?.ok_or(SimError::NoRegionOfInterest)?;
        let counts = self.run_to(sys, src, roi)?;
        sys.memory.pages.discard_phase();
        let pages = sys.memory.table.pages();
        if let Some(o) = sys.observer_mut() {
            o.end_phase(pages, &[], 0);
        }
        self.thread_totals.fill(Default::default());
        self.origin = roi;
        self.setup = Some(SetupReport {
            roi_start_instruction: roi,
            accesses: counts.accesses,
            llc_misses: counts.llc_misses,
            instructions: counts.instructions,
            pages: pages as u64,
            region_pages: 0,
        });
        Ok(())
    }

    /// Runs one phase. Returns `None` once every thread has finished. A stretch of phases in
    /// which no thread has an access (an instruction-count gap) is returned as one empty
    /// phase spanning them all; [`Self::phase_index`] tells how many phases a call covered.
    pub fn run_phase(&mut self, sys: &mut System, src: &mut dyn AccessSource) -> Result<Option<PhaseCounts>, SimError> {
        if src.threads() != self.threads.len() {
            return Err(SimError::ThreadCount {
                source_threads: src.threads(),
                mapped: self.threads.len(),
            });
        }
        if self.measure_roi && self.setup.is_none() {
            self.run_setup(sys, src)?;
        }
        // Prime buffers so "finished" is known before deciding a phase exists.
        for t in 0..self.threads.len() {
            self.refill_if_empty(t, src)?;
        }
        if self.threads.iter().all(|c| c.done) {
            return Ok(None);
        }
        let origin = self.origin;
        let (next_phase, phase_end) = crate::sim::phase_window(
            self.phase,
            self.phase_instructions,
            self.threads
                .iter()
                .filter(|c| !c.done)
                .map(|c| c.buf[c.pos].instr.saturating_sub(origin)),
        );
        let counts = self.run_to(sys, src, phase_end.saturating_add(origin))?;
        self.phase = next_phase;
        Ok(Some(counts))
    }

    /// Runs every thread up to instruction `phase_end` (exclusive) and returns the counts of
    /// that span. [`Self::run_phase`] is this over a phase window; sampled timing
    /// (the driver) runs the part of a phase after its timed window with it.
    pub fn run_to(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
        phase_end: u64,
    ) -> Result<PhaseCounts, SimError> {
        self.observing = sys.observer.is_some();
        if self.llc_on {
            // Pages another engine touched on this system have no sharer masks here yet.
            self.sharers
                .grow_to(sys.memory.table.pages(), 1 << self.lines_per_page_shift);
        }
        if !self.observer_thread {
            return self.run_span(sys, src, phase_end);
        }
        // Page counts and the observer run on their own thread for this span (see
        // `ObserverPipe`); the system's page statistics stand in with no rows meanwhile.
        let mut observer = sys.observer.take();
        let mut stats = std::mem::replace(&mut sys.memory.pages, crate::stats::PageStats::new(0));
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<ObservedAccess>>(OBSERVED_BATCHES);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Vec<ObservedAccess>>(OBSERVED_BATCHES + 1);
        for _ in 0..OBSERVED_BATCHES {
            let _ = empty_tx.send(Vec::with_capacity(OBSERVED_BATCH));
        }
        let result = std::thread::scope(|scope| {
            let (o, stats) = (&mut observer, &mut stats);
            let worker = scope.spawn(move || {
                for mut batch in full_rx {
                    replay(&batch, stats, o.as_deref_mut());
                    batch.clear();
                    let _ = empty_tx.send(batch);
                }
            });
            self.pipe = Some(ObserverPipe {
                batch: Vec::with_capacity(OBSERVED_BATCH),
                full: full_tx,
                empty: empty_rx,
            });
            let result = self.run_span(sys, src, phase_end);
            let pipe = self.pipe.take().expect("set above");
            if !pipe.batch.is_empty() {
                let _ = pipe.full.send(pipe.batch);
            }
            drop(pipe.full); // ends the worker's loop once it has replayed every batch
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
            result
        });
        sys.observer = observer;
        sys.memory.pages = stats;
        result
    }

    /// [`Self::run_to`] with the observer (if any) called in line.
    fn run_span(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
        phase_end: u64,
    ) -> Result<PhaseCounts, SimError> {
        for t in 0..self.threads.len() {
            self.refill_if_empty(t, src)?;
        }
        // Each quantum starts at the earliest pending access (skips idle stretches).
        while let Some(earliest) = self
            .threads
            .iter()
            .filter(|c| !c.done)
            .map(|c| c.buf[c.pos].instr)
            .min()
            .filter(|&e| e < phase_end)
        {
            let limit = (earliest - earliest % self.quantum_instructions)
                .saturating_add(self.quantum_instructions)
                .min(phase_end);
            if self.llc_on {
                for t in 0..self.threads.len() {
                    self.run_thread::<true>(sys, t, limit, src)?;
                }
            } else if sys.memory.table.pages().saturating_mul(self.sockets * 4) < self.schedule_min_row_bytes {
                for t in 0..self.threads.len() {
                    self.run_thread::<false>(sys, t, limit, src)?;
                }
            } else {
                self.run_quantum(sys, limit, src)?;
            }
        }
        let mut counts = std::mem::replace(&mut self.counts, PhaseCounts::new(self.sockets, self.nodes));
        for (t, c) in self.threads.iter().enumerate() {
            // A thread's instructions count up to the phase end, or to its last access if it ended.
            let at_end = if c.done {
                c.instr
            } else {
                c.instr.max(phase_end.min(c.buf[c.pos].instr))
            };
            // Saturating: a merged stretch of empty phases may span nearly 2^64 instructions
            // per thread.
            counts.instructions = counts
                .instructions
                .saturating_add(at_end.saturating_sub(self.thread_instr_at_phase_start[t]));
            self.thread_instr_at_phase_start[t] = at_end;
        }
        Ok(counts)
    }

    /// Hands every thread's place in its stream to another engine (sampled timing): the
    /// accesses read but not yet run, and the instruction count reached. The threads here are
    /// left empty until [`Self::give_threads`].
    pub fn take_threads(&mut self) -> Vec<crate::sim::ThreadPlace> {
        self.threads
            .iter_mut()
            .zip(&self.thread_instr_at_phase_start)
            .map(|(c, &at)| {
                let mut pending = std::mem::take(&mut c.buf);
                pending.drain(..c.pos.min(pending.len()));
                c.pos = 0;
                crate::sim::ThreadPlace {
                    pending,
                    instr: at,
                    done: c.done,
                }
            })
            .collect()
    }

    /// Takes back threads' places from another engine (see [`Self::take_threads`]).
    pub fn give_threads(&mut self, places: Vec<crate::sim::ThreadPlace>) {
        for ((c, at), p) in self
            .threads
            .iter_mut()
            .zip(&mut self.thread_instr_at_phase_start)
            .zip(places)
        {
            c.buf = p.pending;
            c.pos = 0;
            c.done = p.done;
            c.instr = p.instr;
            *at = p.instr;
        }
    }

    /// The sharer masks (LLC on) or `None`, grown to every page of `memory`, for sampled
    /// timing to reconcile with the timing engine's directory.
    pub fn sharers_mut(&mut self, memory: &Memory) -> Option<&mut SharerMap> {
        if !self.llc_on {
            return None;
        }
        self.sharers
            .grow_to(memory.table.pages(), 1 << self.lines_per_page_shift);
        Some(&mut self.sharers)
    }

    fn refill_if_empty(&mut self, t: usize, src: &mut dyn AccessSource) -> Result<(), SourceError> {
        let c = &mut self.threads[t];
        if c.done || c.pos < c.buf.len() {
            return Ok(());
        }
        src.next_batch(t, &mut c.buf)?;
        crate::sim::clamp_instructions(&mut c.buf);
        c.pos = 0;
        if c.buf.is_empty() {
            c.done = true;
        }
        Ok(())
    }

    /// Runs one quantum with the LLC filter off: every thread's accesses before `limit`, thread
    /// by thread, as [`Self::run_thread`] would. They are first copied into one schedule in
    /// that order, so the lookahead ([`Self::lookahead_pages`]) reaches across threads: each
    /// access's page state is requested a fixed number of accesses before it runs, however
    /// few accesses a thread has in a quantum. The source is read in the same order as thread
    /// by thread; an error reading it is returned after the accesses read before it have run.
    fn run_quantum(&mut self, sys: &mut System, limit: u64, src: &mut dyn AccessSource) -> Result<(), SimError> {
        let mut sched = std::mem::take(&mut self.sched);
        sched.clear();
        let mut result = Ok(());
        'threads: for t in 0..self.threads.len() {
            let socket = self.thread_socket[t] as u32;
            loop {
                if let Err(e) = self.refill_if_empty(t, src) {
                    result = Err(SimError::from(e));
                    break 'threads;
                }
                let c = &mut self.threads[t];
                if c.done {
                    break;
                }
                let start = c.pos;
                let room = SCHEDULE_CAP.saturating_sub(sched.len()).max(1);
                let span = &c.buf[start..c.buf.len().min(start + room)];
                let n = span.iter().position(|a| a.instr >= limit).unwrap_or(span.len());
                let span = &span[..n];
                sched.extend(span.iter().map(|&access| Scheduled { access, socket }));
                let tt = &mut self.thread_totals[t];
                tt.accesses += n as u64;
                tt.llc_misses += n as u64;
                tt.flops += span.iter().map(|a| u64::from(a.flops)).sum::<u64>();
                if let Some(last) = span.last() {
                    c.instr = last.instr;
                }
                c.pos = start + n;
                let reached_limit = c.pos < c.buf.len() && c.buf[c.pos].instr >= limit;
                if sched.len() >= SCHEDULE_CAP {
                    if let Err(e) = self.run_schedule(sys, &sched) {
                        self.sched = sched;
                        return Err(e);
                    }
                    sched.clear();
                }
                if reached_limit {
                    break;
                }
            }
        }
        let ran = self.run_schedule(sys, &sched);
        self.sched = sched;
        ran?;
        result
    }

    /// Runs a schedule's accesses in order (LLC filter off).
    fn run_schedule(&mut self, sys: &mut System, sched: &[Scheduled]) -> Result<(), SimError> {
        for (i, e) in sched.iter().enumerate() {
            self.lookahead_pages(sys, sched, i);
            self.access::<false>(sys, e.socket as usize, &e.access)?;
        }
        Ok(())
    }

    fn run_thread<const LLC: bool>(
        &mut self,
        sys: &mut System,
        t: usize,
        limit: u64,
        src: &mut dyn AccessSource,
    ) -> Result<(), SimError> {
        let socket = self.thread_socket[t];
        loop {
            self.refill_if_empty(t, src)?;
            if self.threads[t].done {
                return Ok(());
            }
            let buf = std::mem::take(&mut self.threads[t].buf);
            let mut pos = self.threads[t].pos;
            let span_start = pos;
            let misses_before = self.counts.llc_misses;
            let mut last_instr = self.threads[t].instr;
            let mut result = Ok(());
            while pos < buf.len() {
                let a = buf[pos];
                if a.instr >= limit {
                    break;
                }
                if LLC {
                    lookahead(sys, socket, &buf, pos);
                }
                if let Err(e) = self.access::<LLC>(sys, socket, &a) {
                    result = Err(e);
                    break;
                }
                last_instr = a.instr;
                pos += 1;
            }
            let reached_limit = pos < buf.len();
            let tt = &mut self.thread_totals[t];
            tt.accesses += (pos - span_start) as u64;
            tt.flops += buf[span_start..pos].iter().map(|a| u64::from(a.flops)).sum::<u64>();
            tt.llc_misses += self.counts.llc_misses - misses_before;
            let c = &mut self.threads[t];
            c.buf = buf;
            c.pos = pos;
            c.instr = last_instr;
            result?;
            if reached_limit {
                return Ok(());
            }
        }
    }

    /// With the LLC filter off every access reaches its page's table slot (id and home) and
    /// counter row, two dependent host cache misses when pages are touched at random over a
    /// large footprint. Two stages: the slot of an access `FAR` positions ahead is prefetched;
    /// the slot of one `NEAR` ahead (prefetched earlier, so now cached) is read and, if its
    /// page is mapped, that page's counter row is prefetched. Read-only: a page mapped in
    /// between is just not prefetched.
    #[inline(always)]
    fn lookahead_pages(&self, sys: &mut System, buf: &[Scheduled], pos: usize) {
        const FAR: usize = 24;
        const NEAR: usize = 12;
        if let Some(far) = buf.get(pos + FAR) {
            sys.memory.table.prefetch_slot(far.access.vaddr);
        }
        if let Some(near) = buf.get(pos + NEAR) {
            if self.pipe.is_none() {
                if let Some(page) = sys.memory.table.lookup(near.access.vaddr) {
                    crate::prefetch::read(sys.memory.pages.row_ptr(page));
                }
            }
        }
    }

    #[inline(always)]
    fn access<const LLC: bool>(&mut self, sys: &mut System, socket: usize, a: &Access) -> Result<(), SimError> {
        let c = &mut self.counts;
        c.accesses += 1;
        let write = a.is_write();
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
        if LLC {
            match sys.llcs[socket].access(a.vaddr >> 6, write) {
                Outcome::Hit { .. } => {
                    self.counts.llc_hits += 1;
                    // A read hit is already a sharer (only another socket's store clears it,
                    // and that store also invalidated this copy); a store hit takes the line.
                    if write {
                        self.store_hit(sys, socket, a.vaddr);
                    }
                    if self.observing {
                        self.observe_hit(sys, socket, a);
                    }
                    return Ok(());
                }
                Outcome::Miss { writeback } => {
                    if let Some(line) = writeback {
                        self.writeback(&mut sys.memory, socket, line << 6);
                    }
                }
            }
        }
        self.counts.llc_misses += 1;
        let (page, node, new) = sys.memory.touch_home(socket, a.vaddr)?;
        if new {
            self.counts.new_pages += 1;
            if LLC {
                self.sharers.push_page(1 << self.lines_per_page_shift);
            }
        }
        if LLC {
            let idx = self.line_index(page, a.vaddr);
            if write {
                let (line, llcs) = (a.vaddr >> 6, &mut sys.llcs);
                self.sharers.make_exclusive(idx, socket, |o| {
                    llcs[o].invalidate(line);
                });
            } else {
                self.sharers.add(idx, socket);
            }
        }
        self.counts.demand[socket * self.nodes + node] += 1;
        if let Some(pipe) = self.pipe.as_mut() {
            pipe.push(ObservedAccess {
                access: *a,
                page,
                socket: socket as u32,
                mem: true,
            });
        } else {
            sys.memory.pages.record(page, socket);
            if self.observing {
                observe(sys, socket, page, a);
            }
        }
        Ok(())
    }

    /// Index of the line holding `vaddr` of page id `page` in the sharer map.
    #[inline(always)]
    fn line_index(&self, page: u32, vaddr: u64) -> usize {
        ((page as usize) << self.lines_per_page_shift)
            | ((vaddr >> 6) as usize & ((1 << self.lines_per_page_shift) - 1))
    }

    /// A store that hit in `socket`'s LLC: other sockets' copies of the line are invalidated.
    #[inline]
    fn store_hit(&mut self, sys: &mut System, socket: usize, vaddr: u64) {
        // A hit line was filled by a demand miss, so its page is mapped.
        if let Some(page) = sys.memory.table.lookup(vaddr) {
            let idx = self.line_index(page, vaddr);
            let (line, llcs) = (vaddr >> 6, &mut sys.llcs);
            self.sharers.make_exclusive(idx, socket, |o| {
                llcs[o].invalidate(line);
            });
        }
    }

    /// Profiler hook for an LLC hit (TLB-level sources see every access).
    #[inline(never)]
    fn observe_hit(&mut self, sys: &mut System, socket: usize, a: &Access) {
        // A hit line was filled by a demand miss, so its page is mapped.
        let Some(page) = sys.memory.table.lookup(a.vaddr) else {
            return;
        };
        if let Some(pipe) = self.pipe.as_mut() {
            pipe.push(ObservedAccess {
                access: *a,
                page,
                socket: socket as u32,
                mem: false,
            });
        } else if let Some(o) = sys.observer_mut() {
            o.observe(socket, page, a, false);
        }
    }

    fn writeback(&mut self, memory: &mut Memory, socket: usize, vaddr: u64) {
        self.counts.writebacks += 1;
        // The line was filled by a demand miss, so its page is mapped.
        if let Some(page) = memory.table.lookup(vaddr) {
            let node = memory.home[page as usize] as usize;
            self.counts.writeback_to[socket * self.nodes + node] += 1;
        }
    }
}

/// Prefetches what an access a few positions ahead will need: its LLC set and page-table
/// slot. Not its page's counter row and home: with the LLC filter on most accesses hit
/// (94 % on the 64-thread BFS trace) and never read them, and prefetching them for every
/// access competed with the sets' prefetches for the host's line-fill buffers (dropping
/// them saved 5-7 % of CPU time there).
#[inline(always)]
fn lookahead(sys: &mut System, socket: usize, buf: &[Access], pos: usize) {
    const AHEAD: usize = 32;
    if let Some(far) = buf.get(pos + AHEAD) {
        sys.llcs[socket].prefetch(far.vaddr >> 6);
        sys.memory.table.prefetch_slot(far.vaddr);
    }
}

/// Profiler hook for an access that reached memory (out of line: off the hot path).
#[inline(never)]
fn observe(sys: &mut System, socket: usize, page: u32, a: &Access) {
    if let Some(o) = sys.observer_mut() {
        o.observe(socket, page, a, true);
    }
}

/// The observer thread's work on one batch: per-page counts of the accesses that reached
/// memory (rows of pages new to `stats` added first, and prefetched a few accesses ahead),
/// then the observer, both in batch order.
fn replay(batch: &[ObservedAccess], stats: &mut crate::stats::PageStats, mut observer: Option<&mut Observer>) {
    const AHEAD: usize = 16;
    for (i, e) in batch.iter().enumerate() {
        if let Some(far) = batch.get(i + AHEAD) {
            if (far.page as usize) < stats.pages() {
                crate::prefetch::read(stats.row_ptr(far.page));
            }
        }
        if e.mem {
            while stats.pages() <= e.page as usize {
                stats.push_page();
            }
            stats.record(e.page, e.socket as usize);
        }
        if let Some(o) = observer.as_deref_mut() {
            o.observe(e.socket as usize, e.page, &e.access, e.mem);
        }
    }
}

#[cfg(test)]
mod tests;
