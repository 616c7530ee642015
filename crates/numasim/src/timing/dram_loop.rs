//! One memory controller driven alone, closed loop: the controller-level measurement DRAM
//! simulators report (Ramulator 2's trace front ends, DRAMsim3's), used by `numasim bench
//! dram` and by the side-by-side comparison with Ramulator 2 (`benches/ramulator-peer.sh`).
//!
//! Why closed loop: a trace front end keeps the controller's queue full, so what it measures
//! is what the controller sustains, not what the trace asks for. Here `in_flight` requests are
//! outstanding at any time; the next one is presented when the earliest outstanding one
//! completes (a read when its data has returned, a posted write when the write queue accepted
//! it). `in_flight = 1` measures unloaded latency. Posted writes still queued at the end are
//! drained so their bus time counts.

use super::dram::MemoryController;
use super::dram_window::RequestWindow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a closed-loop run measured, in the controller's time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// When the last request completed (the last drained write included), ps.
    pub end_ps: u64,
    /// Sum over reads of completion minus presentation, ps.
    pub read_latency_ps_total: u64,
    /// Reads and writes that found their row open.
    pub row_hits: u64,
}

impl LoopStats {
    /// Line bytes moved per second over the run, GB/s (10⁹ B/s).
    pub fn bandwidth_gbps(&self, line_bytes: u64) -> f64 {
        if self.end_ps == 0 {
            return 0.0;
        }
        (self.requests * line_bytes) as f64 / (self.end_ps as f64 * 1e-12) / 1e9
    }

    /// Mean read latency (presentation to data returned), ns.
    pub fn mean_read_latency_ns(&self) -> f64 {
        if self.reads == 0 {
            return 0.0;
        }
        self.read_latency_ps_total as f64 / self.reads as f64 / 1000.0
    }
}

/// Runs `requests` (line address, write) through `m` with `in_flight` outstanding (at least 1).
pub fn closed_loop(
    m: &mut MemoryController,
    requests: impl IntoIterator<Item = (u64, bool)>,
    in_flight: usize,
) -> LoopStats {
    let k = in_flight.max(1);
    let hits_before = m.row_hits;
    // Completion times of the outstanding requests; the earliest frees the next slot.
    let mut outstanding: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(k + 1);
    let mut s = LoopStats::default();
    for (line, write) in requests {
        let full = outstanding.len() >= k;
        let at = if full {
            outstanding.peek().map_or(0, |&Reverse(t)| t)
        } else {
            0
        };
        // Later requests are presented no earlier than this one (the heap only grows later).
        let r = m.access_at(at, line, write, at);
        if !full {
            outstanding.push(Reverse(r.done_ps));
        } else if let Some(mut top) = outstanding.peek_mut() {
            // The completion that freed the slot is replaced in place (one sift, not two).
            *top = Reverse(r.done_ps);
        }
        s.requests += 1;
        if write {
            s.writes += 1;
        } else {
            s.reads += 1;
            s.read_latency_ps_total += r.done_ps - at;
        }
        s.end_ps = s.end_ps.max(r.done_ps);
    }
    // Posted writes still queued: drained from the last presentation on.
    let last = outstanding.peek().map_or(0, |r| r.0);
    if m.queued_writes() > 0 {
        s.end_ps = s.end_ps.max(m.drain_all_writes(last));
    }
    s.row_hits = m.row_hits - hits_before;
    s
}

/// Runs `requests` through `m` behind a read queue of `window` reads with FR-FCFS
/// ([`RequestWindow`], `bypass_cap` as there): the front end of a trace-driven DRAM simulator. A
/// read is presented as soon as the queue has room, which is when a queued one issues its
/// column command (it has then left the queue, as in Ramulator 2's controller); a write is
/// posted to the controller's write queue when its turn in the trace comes. Latency is
/// presentation to data returned.
pub fn windowed_loop(
    m: &mut MemoryController,
    requests: impl IntoIterator<Item = (u64, bool)>,
    window: usize,
    bypass_cap: Option<u32>,
) -> LoopStats {
    let hits_before = m.row_hits;
    let mut w = RequestWindow::new(window, bypass_cap);
    let mut s = LoopStats::default();
    let mut requests = requests.into_iter();
    let mut now = 0u64;
    let mut last_write = 0u64;
    let mut last_start = 0u64;
    loop {
        while !w.is_full() {
            let Some((line, write)) = requests.next() else {
                break;
            };
            s.requests += 1;
            if write {
                s.writes += 1;
                let r = m.access_at(now, line, true, now);
                s.end_ps = s.end_ps.max(r.done_ps);
                last_write = now;
            } else {
                s.reads += 1;
                w.push(m, now, now, line, false, now);
            }
        }
        // Decisions come in start order: none starts before the last one did.
        let Some(d) = w.decide(m, last_start, last_start, u64::MAX) else {
            break;
        };
        s.read_latency_ps_total += d.result.done_ps - d.token;
        s.end_ps = s.end_ps.max(d.result.done_ps);
        now = now.max(d.slot.cas_ps);
        last_start = d.slot.start_ps;
    }
    if m.queued_writes() > 0 {
        s.end_ps = s.end_ps.max(m.drain_all_writes(now.max(last_write)));
    }
    s.row_hits = m.row_hits - hits_before;
    s
}

/// Generated request patterns of the DRAM comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Reads of uniformly random lines.
    Random,
    /// Reads of consecutive lines from line 0.
    Stream,
    /// Random lines, two reads then one write, repeating.
    Mix,
}

/// `n` requests (line address below `lines`, write) of `pattern`. The generator is xorshift64*
/// seeded from `seed`, fixed so that a trace written from these requests for another simulator
/// and the requests numasim's own tests replay are the same.
pub fn pattern_requests(pattern: Pattern, n: u64, lines: u64, seed: u64) -> impl Iterator<Item = (u64, bool)> {
    let lines = lines.max(1);
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    (0..n).map(move |i| match pattern {
        Pattern::Random => (next() % lines, false),
        Pattern::Stream => (i % lines, false),
        Pattern::Mix => (next() % lines, i % 3 == 2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::dram::DramConfig;
    use numasim_machine::DramKind;

    fn controller(refresh: bool, write_queue: bool) -> MemoryController {
        let kind = DramKind::Ddr4_2400Cl16;
        let cfg = DramConfig {
            refresh,
            write_queue_high: if write_queue { 26 } else { 0 },
            write_queue_low: if write_queue { 6 } else { 0 },
            ..DramConfig::one_channel(8 << 30)
        };
        MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg)
    }

    #[test]
    fn one_in_flight_gives_the_unloaded_closed_form() {
        // Requests to one bank, alternating rows: every access is a row miss, one at a time.
        let mut m = controller(false, false);
        let lines_per_row = 128;
        let banks = 16;
        let reqs = (0..100u64).map(|i| ((i % 2) * banks * lines_per_row, false));
        let s = closed_loop(&mut m, reqs, 1);
        let t = m.t;
        assert_eq!(s.reads, 100);
        assert_eq!(s.row_hits, 0);
        // Back to back on one bank a miss waits for the previous activate's tRAS too; the
        // latency is at least a row miss and the run at least 100 of them.
        assert!(s.mean_read_latency_ns() * 1000.0 >= t.row_miss() as f64);
        assert!(s.end_ps >= 100 * t.row_miss());
        // A row-hit stream, one at a time: exactly tCL + tBL each after the first.
        let mut m = controller(false, false);
        let s = closed_loop(&mut m, (0..64u64).map(|i| (i, false)), 1);
        let t = m.t;
        assert_eq!(s.row_hits, 63);
        assert_eq!(s.end_ps, t.first_access() + 63 * t.row_hit());
    }

    #[test]
    fn a_stream_with_many_in_flight_runs_at_the_bus_peak() {
        // Under RoBaRaCoCh a row's lines are consecutive, so a stream is row hits in one bank
        // (one bank group), spaced by max(tBL, tCCD_L).
        let mut m = controller(false, false);
        let n = 10_000u64;
        let s = closed_loop(&mut m, (0..n).map(|i| (i, false)), 32);
        let t = m.t;
        let per_line = t.t_bl.max(t.t_ccd_l);
        let expect = 64.0 / (per_line as f64 * 1e-3);
        let got = s.bandwidth_gbps(64);
        assert!(
            (got - expect).abs() / expect < 0.02,
            "stream {got} GB/s, closed form {expect}"
        );
    }

    #[test]
    fn queued_writes_are_drained_and_counted() {
        let mut m = controller(true, true);
        let s = closed_loop(&mut m, (0..10u64).map(|i| (i * 4096, true)), 32);
        assert_eq!(s.writes, 10);
        assert_eq!(m.queued_writes(), 0);
        assert_eq!(m.writes, 10);
        assert!(s.end_ps > 0);
    }

    #[test]
    fn results_do_not_depend_on_anything_but_the_requests() {
        let reqs: Vec<(u64, bool)> = (0..5000u64)
            .map(|i| ((i * 2_654_435_761) % (1 << 27), i % 3 == 2))
            .collect();
        let a = closed_loop(&mut controller(true, true), reqs.iter().copied(), 32);
        let b = closed_loop(&mut controller(true, true), reqs.iter().copied(), 32);
        assert_eq!(a, b);
        assert_eq!(a.requests, 5000);
    }
}
