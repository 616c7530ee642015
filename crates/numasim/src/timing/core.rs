//! The core model: one in-order-issue core per thread with a bounded window of memory-level
//! parallelism (see the module docs of [`super`] for the rules).
//!
//! A [`Core`] owns its clock, its slice of the trace, and the three structures that bound how
//! far it runs ahead of its misses: the ROB (an access cannot issue before every tracked access
//! `rob_entries` instructions older has completed), the MSHRs (outstanding LLC-miss loads) and
//! the store buffer (LLC-miss stores in flight). Why it is kept apart from the caches and the
//! memory system: these rules are the whole of what "a core" means in this model, and they
//! can be tested with made-up completion times, without any machine.
//!
//! The blocking core (`core = "blocking"`, Talbot & Kelly's CPI-1 processor) is the same core
//! with no window: before an access issues, every access it has issued must be complete —
//! misses (loads and stores alike) and tracked hits — and the non-memory instructions before
//! the access run after that wait, not under it. So at most one miss is ever outstanding, and
//! the limits below are one slot each.

use super::params::TimingSpec;
use numasim_trace::Access;
use std::collections::VecDeque;

/// The simulated clock stops here (2^62 ps, 53 days): every latency the validated machine and
/// `[timing]` allow, added to it, still fits a u64.
pub const MAX_CLOCK_PS: u64 = 1 << 62;

/// A completion time not known yet: a read waiting in a memory node's read queue. The low
/// bits name it (the engine's token); real times stay below [`MAX_CLOCK_PS`] plus bounded
/// latencies, far under this bit.
pub const PENDING: u64 = 1 << 63;

/// Whether completion time `done` is [`PENDING`].
#[inline]
pub fn is_pending(done: u64) -> bool {
    done & PENDING != 0
}

/// Sizes of the structures that bound a core's memory-level parallelism.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreLimits {
    /// ROB entries W (instructions).
    pub rob_instructions: u64,
    pub mshrs: usize,
    pub store_buffer: usize,
    /// The blocking core: nothing overlaps an outstanding access.
    pub blocking: bool,
}

impl CoreLimits {
    pub fn of(spec: &TimingSpec) -> Self {
        match spec.core.unwrap_or_default() {
            super::params::CoreModel::Ooo => CoreLimits {
                rob_instructions: u64::from(spec.rob_entries),
                mshrs: spec.mshrs as usize,
                store_buffer: spec.store_buffer_entries as usize,
                blocking: false,
            },
            // A window of no instructions: an access waits for every tracked access before it,
            // even one of its own instruction.
            super::params::CoreModel::Blocking => CoreLimits {
                rob_instructions: 0,
                mshrs: 1,
                store_buffer: 1,
                blocking: true,
            },
        }
    }
}

/// One core: clock, trace buffer, ROB, MSHRs, store buffer and the MRU line/page filter.
pub struct Core {
    pub socket: usize,
    /// Issue clock: time the last access issued (ps).
    pub t: u64,
    pub last_instr: u64,
    pub buf: Vec<Access>,
    pub pos: usize,
    pub source_done: bool,
    pub finished: bool,
    /// Tracked accesses in flight or not yet retired: (instruction, completion ps).
    rob: VecDeque<(u64, u64)>,
    /// Completion times of outstanding LLC-miss loads (≤ `mshrs`).
    mshr: Vec<u64>,
    /// Completion times of LLC-miss stores in flight (≤ `store_buffer_entries`).
    store_buffer: Vec<u64>,
    /// Latest completion of anything this core issued.
    pub last_done: u64,
    /// The line and page of the last access: MRU in L1 and the TLB, so a repeat needs no
    /// lookup (reset when another socket invalidates or cleans the line).
    pub last_line: u64,
    pub last_line_dirty: bool,
    pub last_vpage: u64,
    pub instructions: u64,
    pub instr_at_phase_start: u64,
    pub llc_misses: u64,
    /// Run totals for per-process results: accesses issued, their flops, LLC-miss loads and
    /// their summed latency (ps).
    pub accesses: u64,
    pub flops: u64,
    pub miss_loads: u64,
    pub miss_load_ps: u64,
    pub end_ps: u64,
    /// Thousandths of a ps per non-memory instruction (base CPI at the socket's clock), rounded
    /// up so the core never runs faster than `base_cpi`.
    pub cpi_milli_ps: u64,
    /// Compute time the clock is ahead of the instructions it has run, thousandths of a ps
    /// (< 1000): each advance is rounded up to a whole ps and the excess carried to the next,
    /// so rounding neither speeds a core past its IPC ceiling (1 / `base_cpi`) nor slows it by
    /// more than 1 ps. A stall that moves the clock further drops it.
    pub compute_credit_milli: u64,
    limits: CoreLimits,
}

impl Core {
    pub fn new(socket: usize, base_cpi: f64, freq_ghz: f64, limits: CoreLimits) -> Self {
        Core {
            socket,
            t: 0,
            last_instr: 0,
            buf: Vec::with_capacity(4096),
            pos: 0,
            source_done: false,
            finished: false,
            rob: VecDeque::with_capacity(limits.rob_instructions as usize),
            mshr: Vec::with_capacity(limits.mshrs),
            store_buffer: Vec::with_capacity(limits.store_buffer),
            last_done: 0,
            last_line: u64::MAX,
            last_line_dirty: false,
            last_vpage: u64::MAX,
            instructions: 0,
            instr_at_phase_start: 0,
            llc_misses: 0,
            accesses: 0,
            flops: 0,
            miss_loads: 0,
            miss_load_ps: 0,
            end_ps: 0,
            cpi_milli_ps: (base_cpi / freq_ghz * 1e6).ceil() as u64,
            compute_credit_milli: 0,
            limits,
        }
    }

    /// The pending completion (if any) that the access at instruction `instr` must wait for
    /// before it can issue: an access `W` instructions older still in a read queue.
    #[inline]
    pub fn issue_waits_on(&self, instr: u64) -> Option<u64> {
        self.rob
            .iter()
            .take_while(|&&(i, _)| i.saturating_add(self.limits.rob_instructions) <= instr)
            .map(|&(_, done)| done)
            .find(|&d| is_pending(d))
    }

    /// The pending completion (if any) a miss needing a slot at `t0` must wait for: every
    /// slot taken and the earliest to free is still in a read queue.
    #[inline]
    pub fn miss_slot_waits_on(&mut self, write: bool, t0: u64) -> Option<u64> {
        let (slots, limit) = if write {
            (&mut self.store_buffer, self.limits.store_buffer)
        } else {
            (&mut self.mshr, self.limits.mshrs)
        };
        if slots.len() < limit {
            return None;
        }
        slots.retain(|&d| d > t0);
        if slots.len() < limit {
            return None;
        }
        // Pending times sort above every real one: the minimum is pending only if all are.
        slots.iter().copied().min().filter(|&d| is_pending(d))
    }

    /// A pending completion is known: `done` replaces `token` (a [`PENDING`] value) in the
    /// slots and, for a load issued at instruction `load_instr`, in its ROB entry (the ROB is
    /// in instruction order: a binary search, not a scan of hundreds of entries).
    pub fn resolve(&mut self, token: u64, done: u64, load_instr: Option<u64>) {
        if let Some(instr) = load_instr {
            if let Ok(i) = self.rob.binary_search_by_key(&instr, |e| e.0) {
                if self.rob[i].1 == token {
                    self.rob[i].1 = done;
                }
            }
        }
        if load_instr.is_none() && self.limits.blocking {
            // The blocking core's store waits in the ROB too.
            for e in self.rob.iter_mut().filter(|e| e.1 == token) {
                e.1 = done;
            }
        }
        let slots = if load_instr.is_some() {
            &mut self.mshr
        } else {
            &mut self.store_buffer
        };
        for d in slots.iter_mut().filter(|d| **d == token) {
            *d = done;
        }
        self.last_done = self.last_done.max(done);
        if self.finished {
            self.end_ps = self.end_ps.max(done);
        }
    }

    /// Moves the clock to the issue of the access at instruction `instr`: the non-memory
    /// instructions since the last access, then in-order retirement (everything at or before
    /// `instr − W` must be done). Returns the issue time.
    #[inline]
    pub fn issue(&mut self, instr: u64) -> u64 {
        if self.limits.blocking {
            self.block_until_idle();
        }
        // Saturating: a hostile trace may jump its instruction count by 2^60. The clock stops
        // at MAX_CLOCK_PS, so adding the bounded latencies of one access can never overflow.
        let (advance, credit) = self.compute_advance(instr.saturating_sub(self.last_instr));
        let computed = self.t.saturating_add(advance).min(MAX_CLOCK_PS);
        let mut t_issue = computed;
        while let Some(&(i, done)) = self.rob.front() {
            if i.saturating_add(self.limits.rob_instructions) > instr {
                break;
            }
            t_issue = t_issue.max(done);
            self.rob.pop_front();
        }
        self.compute_credit_milli = if t_issue > computed { 0 } else { credit };
        self.t = t_issue;
        self.last_instr = instr;
        t_issue
    }

    /// The blocking core stops at its outstanding access: the clock moves to the completion of
    /// everything issued (the ROB holds every tracked access, stores included) before the
    /// instructions after it run.
    #[inline(never)]
    fn block_until_idle(&mut self) {
        let mut t = self.t;
        for &(_, done) in &self.rob {
            t = t.max(done);
        }
        for &done in self.mshr.iter().chain(&self.store_buffer) {
            t = t.max(done);
        }
        self.rob.clear();
        self.mshr.clear();
        self.store_buffer.clear();
        if t > self.t {
            self.t = t;
            self.compute_credit_milli = 0;
        }
    }

    /// The clock advance (ps) for `instructions` non-memory instructions, and the credit left
    /// after it ([`Self::compute_credit_milli`]).
    #[inline]
    pub fn compute_advance(&self, instructions: u64) -> (u64, u64) {
        let need = u128::from(instructions) * u128::from(self.cpi_milli_ps);
        let credit = u128::from(self.compute_credit_milli);
        if need <= credit {
            return (0, (credit - need) as u64);
        }
        let rest = need - credit;
        let ps = rest.div_ceil(1000);
        (u64::try_from(ps).unwrap_or(u64::MAX), (ps * 1000 - rest) as u64)
    }

    /// Runs the instructions between the last access and the phase end `phase_end` (they are
    /// counted in this phase, so their time belongs to it too).
    #[inline]
    pub fn run_to_barrier(&mut self, phase_end: u64) {
        if self.last_instr < phase_end {
            let (advance, credit) = self.compute_advance(phase_end - self.last_instr);
            self.t = self.t.saturating_add(advance).min(MAX_CLOCK_PS);
            self.compute_credit_milli = credit;
            self.last_instr = phase_end;
        }
    }

    /// A timed phase's boundary falls before the access at `instr` can issue (timing mode's
    /// `phase_ns`): the clock and instruction count go back to `(t, last_instr)`, before that
    /// access's [`Self::issue`], and the core runs the non-memory instructions up to the
    /// boundary (rounded up to a whole instruction, so the clock lands at or just past it and
    /// no fraction of an instruction's time is lost at the barrier); the rest run in the next
    /// phase. The ROB entries `issue` retired complete before the barrier the next phase starts
    /// from, so dropping them changes nothing.
    #[inline(never)]
    pub fn stop_at_boundary(&mut self, t: u64, last_instr: u64, instr: u64, boundary_ps: u64) {
        // The credit left before that issue is lost with it (under 1 ps, rounded up here).
        self.compute_credit_milli = 0;
        let gap = instr.saturating_sub(last_instr);
        let fit = if self.cpi_milli_ps == 0 {
            gap
        } else {
            let room = u128::from(boundary_ps.saturating_sub(t)) * 1000;
            u64::try_from(room.div_ceil(u128::from(self.cpi_milli_ps)))
                .unwrap_or(u64::MAX)
                .min(gap)
        };
        let (advance, credit) = self.compute_advance(fit);
        self.t = t.saturating_add(advance).min(MAX_CLOCK_PS);
        self.compute_credit_milli = credit;
        self.last_instr = last_instr + fit;
    }

    /// Records a tracked access completing at `done` in the ROB (only if it can still hold up
    /// retirement).
    #[inline]
    pub fn push_rob(&mut self, instr: u64, done: u64) {
        if done > self.t {
            self.rob.push_back((instr, done));
        }
        if !is_pending(done) {
            self.last_done = self.last_done.max(done);
        }
    }

    /// A load needs an MSHR, a store a store-buffer entry: with all taken the miss wants at
    /// `t0` waits for the earliest to free, and the in-order issue stalls with it. Returns
    /// when the miss may go.
    #[inline]
    pub fn take_miss_slot(&mut self, write: bool, mut t0: u64) -> u64 {
        let (slots, limit) = if write {
            (&mut self.store_buffer, self.limits.store_buffer)
        } else {
            (&mut self.mshr, self.limits.mshrs)
        };
        // Completed entries are dropped only when the slots look full (same decision, and no
        // scan per miss).
        if slots.len() >= limit {
            slots.retain(|&d| d > t0);
        }
        if slots.len() >= limit {
            let (i, &first) = slots.iter().enumerate().min_by_key(|&(_, d)| *d).unwrap_or((0, &t0));
            slots.swap_remove(i);
            t0 = t0.max(first);
            self.t = self.t.max(first);
        }
        t0
    }

    /// An LLC-miss load issued at instruction `instr` completes at `done`.
    #[inline]
    pub fn miss_load_done(&mut self, instr: u64, done: u64) {
        self.mshr.push(done);
        self.push_rob(instr, done);
    }

    /// An LLC-miss store issued at instruction `instr` completes at `done` (it holds a
    /// store-buffer entry, not the ROB; the blocking core waits for it as for a load).
    #[inline]
    pub fn miss_store_done(&mut self, instr: u64, done: u64) {
        if self.limits.blocking {
            self.rob.push_back((instr, done));
        }
        self.store_buffer.push(done);
        if !is_pending(done) {
            self.last_done = self.last_done.max(done);
        }
    }

    /// Another socket took the line: the MRU filter must look it up again.
    #[inline]
    pub fn forget_line(&mut self, line: u64) {
        if self.last_line == line {
            self.last_line = u64::MAX;
        }
    }

    /// Another socket read the line this core holds dirty: it is clean now.
    #[inline]
    pub fn clean_line(&mut self, line: u64) {
        if self.last_line == line {
            self.last_line_dirty = false;
        }
    }

    /// A TLB shootdown of `vpage`.
    #[inline]
    pub fn forget_vpage(&mut self, vpage: u64) {
        if self.last_vpage == vpage {
            self.last_vpage = u64::MAX;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(rob: u64, mshrs: usize, sb: usize) -> Core {
        // CPI 1 at 1 GHz: 1000 ps per instruction.
        Core::new(
            0,
            1.0,
            1.0,
            CoreLimits {
                rob_instructions: rob,
                mshrs,
                store_buffer: sb,
                blocking: false,
            },
        )
    }

    /// Talbot & Kelly's processor: CPI 1 at 1 GHz, blocking.
    fn blocking() -> Core {
        let spec = TimingSpec {
            core: Some(super::super::params::CoreModel::Blocking),
            ..TimingSpec::default()
        };
        Core::new(0, 1.0, 1.0, CoreLimits::of(&spec))
    }

    #[test]
    fn the_blocking_core_runs_the_instructions_after_a_miss_only_once_it_completes() {
        let mut k = blocking();
        assert_eq!(k.issue(10), 10_000);
        let t0 = k.take_miss_slot(false, 10_000);
        k.miss_load_done(10, t0 + 500_000);
        // Two instructions later: the out-of-order core would issue at max(12 000, 510 000);
        // this one stops at the miss and runs the two instructions after it.
        assert_eq!(k.issue(12), 512_000);
        // A store miss holds it the same way.
        let t1 = k.take_miss_slot(true, 512_000);
        k.miss_store_done(12, t1 + 300_000);
        assert_eq!(k.issue(12), 812_000, "even an access of the same instruction waits");
    }

    #[test]
    fn the_blocking_core_never_has_two_misses_outstanding() {
        // Random program: gaps of 0–3 instructions, loads and stores, misses of 1–900 ns and
        // tracked hits of 5 ns; every miss's interval [issue, done) must be disjoint from the
        // others'.
        let mut k = blocking();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut instr, mut misses) = (0u64, Vec::new());
        for _ in 0..5_000 {
            instr += next() % 4;
            let t = k.issue(instr);
            let r = next();
            let write = r & 1 == 1;
            match (r >> 1) % 3 {
                0 => k.push_rob(instr, t + 5_000),
                _ => {
                    let t0 = k.take_miss_slot(write, t);
                    let done = t0 + 1_000 + (r >> 8) % 900_000;
                    if write {
                        k.miss_store_done(instr, done);
                    } else {
                        k.miss_load_done(instr, done);
                    }
                    misses.push((t0, done));
                }
            }
        }
        assert!(misses.len() > 3_000);
        for w in misses.windows(2) {
            assert!(
                w[1].0 >= w[0].1,
                "a miss issued at {} while one was outstanding until {}",
                w[1].0,
                w[0].1
            );
        }
        // The same program on the out-of-order core overlaps its misses (the check bites).
        let mut o = core(256, 16, 56);
        let mut overlapped = false;
        let mut last_done = 0;
        for i in 0..100u64 {
            let t = o.issue(i);
            let t0 = o.take_miss_slot(false, t);
            overlapped |= t0 < last_done;
            last_done = t0 + 500_000;
            o.miss_load_done(i, last_done);
        }
        assert!(overlapped);
    }

    #[test]
    fn the_blocking_core_waits_for_a_queued_store_until_it_is_resolved() {
        let mut k = blocking();
        k.issue(1);
        let token = PENDING | 4;
        k.take_miss_slot(true, 1_000);
        k.miss_store_done(1, token);
        assert_eq!(k.issue_waits_on(2), Some(token));
        k.resolve(token, 90_000, None);
        assert_eq!(k.issue_waits_on(2), None);
        assert_eq!(k.issue(2), 91_000);
    }

    #[test]
    fn compute_time_is_instructions_times_cpi_and_saturates() {
        let k = core(4, 1, 1);
        assert_eq!(k.compute_advance(3), (3000, 0));
        assert_eq!(k.compute_advance(u64::MAX).0, u64::MAX, "saturates");
        let mut k = core(4, 1, 1);
        k.cpi_milli_ps = 333;
        // 0.666 ps: 1 ps on the clock, 0.334 ps of credit for the next instructions.
        assert_eq!(k.compute_advance(2), (1, 334));
        k.compute_credit_milli = 334;
        assert_eq!(k.compute_advance(1), (0, 1));
        let mut k = core(4, 1, 1);
        k.t = MAX_CLOCK_PS - 10;
        assert_eq!(k.issue(1 << 62), MAX_CLOCK_PS, "the clock stops at MAX_CLOCK_PS");
    }

    /// Base CPI 0.5 at 1.4 GHz is 357.142857 ps per instruction, not a whole number of ps:
    /// however the accesses fall, the clock runs no faster than that (IPC ≤ 2) and at most
    /// 1 ps slower in all.
    #[test]
    fn rounding_never_lifts_a_core_above_its_ipc_ceiling() {
        let limits = CoreLimits {
            rob_instructions: 256,
            mshrs: 16,
            store_buffer: 16,
            blocking: false,
        };
        for gaps in [&[1u64][..], &[1, 2, 3], &[2], &[3, 1], &[7, 1, 1]] {
            let mut k = Core::new(0, 0.5, 1.4, limits);
            let mut instr = 0;
            for i in 0..100_000 {
                instr += gaps[i % gaps.len()];
                k.issue(instr);
            }
            let exact_ps = instr as f64 * 0.5 / 1.4 * 1000.0;
            let t = k.t as f64;
            assert!(t >= exact_ps - 1e-6, "{gaps:?}: {t} ps < {exact_ps}");
            assert!(
                t <= exact_ps + 1.0 + instr as f64 * 1e-3,
                "{gaps:?}: {t} ps vs {exact_ps}"
            );
            let ipc = instr as f64 / (t / 1000.0 * 1.4);
            assert!(ipc <= 2.0, "{gaps:?}: IPC {ipc}");
        }
    }

    #[test]
    fn issue_waits_for_the_access_w_instructions_older() {
        let mut k = core(4, 16, 16);
        assert_eq!(k.issue(10), 10_000);
        k.push_rob(10, 500_000);
        // Instruction 13 is within the window of 10 (13 < 10 + 4): no wait.
        assert_eq!(k.issue(13), 13_000);
        // Instruction 14 needs 10 retired: it issues when 10 completes.
        assert_eq!(k.issue(14), 500_000);
        // Later ones continue from there.
        assert_eq!(k.issue(15), 501_000);
    }

    #[test]
    fn an_access_done_before_the_clock_never_enters_the_rob() {
        let mut k = core(1, 16, 16);
        k.issue(100);
        k.push_rob(100, 50);
        assert_eq!(k.issue(200), 200_000);
        assert_eq!(k.last_done, 50);
    }

    #[test]
    fn a_full_mshr_file_stalls_until_the_earliest_miss_completes() {
        let mut k = core(1000, 2, 1);
        assert_eq!(k.take_miss_slot(false, 0), 0);
        k.miss_load_done(0, 700);
        assert_eq!(k.take_miss_slot(false, 0), 0);
        k.miss_load_done(1, 300);
        // Two in flight: a third waits for the earlier (300), and so does the core's clock.
        assert_eq!(k.take_miss_slot(false, 100), 300);
        assert_eq!(k.t, 300);
        k.miss_load_done(2, 900);
        // At 800 the 700 one has completed: no wait.
        assert_eq!(k.take_miss_slot(false, 800), 800);
    }

    #[test]
    fn stores_use_the_store_buffer_not_the_mshrs_or_the_rob() {
        let mut k = core(1, 1, 1);
        k.take_miss_slot(true, 0);
        k.miss_store_done(0, 5_000);
        // A load is free to go (the MSHR is empty) and retirement ignores the store.
        assert_eq!(k.take_miss_slot(false, 10), 10);
        assert_eq!(k.issue(50), 50_000);
        // A second store waits for the first.
        assert_eq!(k.take_miss_slot(true, 1_000), 5_000);
        assert_eq!(k.last_done, 5_000);
    }

    #[test]
    fn a_read_still_queued_holds_issue_and_slots_until_it_is_resolved() {
        let mut k = core(4, 2, 1);
        k.issue(10);
        let (a, b) = (PENDING | 3, PENDING | 9);
        k.take_miss_slot(false, 10_000);
        k.miss_load_done(10, a);
        assert_eq!(k.last_done, 0, "an unknown completion is not a completion");
        // Within the ROB window nothing waits; the access W instructions younger does.
        assert_eq!(k.issue_waits_on(13), None);
        assert_eq!(k.issue_waits_on(14), Some(a));
        // One MSHR of two taken: a second miss goes; a third finds both unknown.
        assert_eq!(k.miss_slot_waits_on(false, 11_000), None);
        k.take_miss_slot(false, 11_000);
        k.miss_load_done(11, b);
        assert_eq!(k.miss_slot_waits_on(false, 12_000), Some(a));
        // Stores use the store buffer, which is free.
        assert_eq!(k.miss_slot_waits_on(true, 12_000), None);
        // Resolved: the ROB waits for the real time, the slot frees at it.
        k.resolve(a, 400_000, Some(10));
        assert_eq!(k.issue_waits_on(14), None);
        assert_eq!(k.issue(14), 400_000);
        assert_eq!(
            k.miss_slot_waits_on(false, 12_000),
            None,
            "the earliest slot is known now"
        );
        assert_eq!(k.take_miss_slot(false, 12_000), 400_000);
        assert_eq!(k.last_done, 400_000);
        k.resolve(b, 500_000, Some(11));
        assert_eq!(k.last_done, 500_000);
    }

    #[test]
    fn the_barrier_runs_the_remaining_instructions() {
        let mut k = core(4, 1, 1);
        k.issue(10);
        k.run_to_barrier(25);
        assert_eq!((k.t, k.last_instr), (25_000, 25));
        k.run_to_barrier(20);
        assert_eq!(k.t, 25_000, "already past: nothing to run");
    }

    #[test]
    fn the_mru_filter_forgets_only_its_own_line_and_page() {
        let mut k = core(4, 1, 1);
        k.last_line = 7;
        k.last_line_dirty = true;
        k.last_vpage = 3;
        k.clean_line(8);
        k.forget_line(8);
        k.forget_vpage(4);
        assert_eq!((k.last_line, k.last_line_dirty, k.last_vpage), (7, true, 3));
        k.clean_line(7);
        assert!(!k.last_line_dirty);
        k.forget_line(7);
        k.forget_vpage(3);
        assert_eq!((k.last_line, k.last_vpage), (u64::MAX, u64::MAX));
    }
}
