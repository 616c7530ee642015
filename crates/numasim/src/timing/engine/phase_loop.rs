//! The phase loop: cores interleaved in time order up to a barrier or a time boundary, with
//! the read queues' decisions taken in the same order.

use super::*;

impl TimingSim {
    /// Checks the source's thread count and fills every core's buffer; `false` once every
    /// thread is done (the start of both kinds of phase).
    pub(super) fn begin_phase(&mut self, src: &mut dyn AccessSource) -> Result<bool, SimError> {
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
        sys: &mut System,
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
        let r = self.run_to(sys, src, phase_end)?;
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
        sys: &mut System,
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
        let r = self.run_to(sys, src, u64::MAX);
        self.boundary_ps = u64::MAX;
        // Every thread finished inside the phase: the run ends before its boundary.
        self.boundary_reached = self.cores.iter().any(|k| !k.finished);
        self.phase = next_phase;
        Ok(Some(r?))
    }

    /// Runs every core up to instruction `phase_end` (exclusive), then the barrier; returns
    /// the span's counts and timing counters. [`Self::run_phase`] is this over a phase window;
    /// sampled timing (the driver) runs its warm-up and timed window with it.
    pub fn run_to(
        &mut self,
        sys: &mut System,
        src: &mut dyn AccessSource,
        phase_end: u64,
    ) -> Result<(PhaseCounts, TimingCounts), SimError> {
        self.observing = sys.observer.is_some();
        // Pages another engine touched on this system: nobody holds their lines yet.
        self.dir.grow_to(sys.memory.table.pages());
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
                            self.finish_chain_wait(sys, token, &lat, &mut ready);
                        }
                        continue;
                    }
                }
                if let Some((e, node)) = self.book.next_dram_decision() {
                    if top_t.is_none_or(|t| e <= t) {
                        self.book.horizon_ps = self.book.horizon_ps.max(e);
                        if let Some(d) = self.book.decide_read(node, top_t.unwrap_or(u64::MAX)) {
                            self.finish_queued_miss(sys, d.token as u32, &d.result, &mut ready);
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
                if self.run_core(sys, c as usize, phase_end, until, src)? == Yield::Later {
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

    pub(super) fn refill(&mut self, c: usize, src: &mut dyn AccessSource) -> Result<(), SimError> {
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
    pub(super) fn run_core(
        &mut self,
        sys: &mut System,
        c: usize,
        phase_end: u64,
        until: u64,
        src: &mut dyn AccessSource,
    ) -> Result<Yield, SimError> {
        let boundary = self.boundary_ps;
        if let Some(m) = self.miss_cont[c].take() {
            self.finish_miss(sys, c, m)?;
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
                        sys.llcs[k.socket].prefetch(line);
                    }
                }
            }
            self.access(sys, c, &a)?;
            if self.waiting[c] != Wait::Running {
                return Ok(Yield::Blocked);
            }
        }
    }
}
