//! A request queue in front of one memory controller: FR-FCFS over a window of requests.
//!
//! Why: placing each read when it is presented (book-at-issue) fixes its slot before the
//! controller has seen the requests a real scheduler would let bypass it. A DDR4 controller
//! picks, among the requests in its queue, one whose next command can issue now ("first
//! ready"), the oldest on ties. On a stream that crosses a row boundary that interleaves the
//! next bank group's reads (tCCD_S apart) with the current one's (tCCD_L apart); on random
//! reads it takes a bank that may activate now instead of waiting out tFAW in arrival order.
//! Without a window numasim measured 6–15 % below Ramulator 2 under saturation, with one it is
//! within 1.2 % (docs/architecture.md, "Validated side by side").
//!
//! How, on top of the exact placement of [`MemoryController`]: each queued request carries
//! the start [`MemoryController::probe`] last gave it. Booking more only moves a probe later
//! (the busy lists only grow), so a cached start is a lower bound, and the request with the
//! smallest cached start (oldest on ties) is re-probed: if its start did not move it is the
//! earliest of all and is booked ([`MemoryController::commit`]); otherwise its new start is
//! cached and the search repeats (lazy greedy). Decisions therefore come in non-decreasing
//! start order, as a cycle-level scheduler's commands do.
//!
//! The queue holds `capacity` requests: requests are kept in arrival order and only the
//! first `capacity` are candidates (later arrivals wait outside, in the fabric). A request
//! bypassed `bypass_cap` times by younger ones to its bank goes before every younger one of
//! its bank (the cap keeps row hits from starving a row miss; other banks go on; `None` is
//! uncapped, as Ramulator 2's FRFCFS).
//!
//! Approximations, both inherited from the placement: a request's outcome (hit, miss) is
//! decided against the bank's last booked row, and a refresh that closes a row can make a
//! re-probe earlier than its cached start. Either only makes a choice slightly less greedy;
//! neither can break a constraint (every booking uses a fresh probe).

use super::dram::{DramResult, MemoryController, Slot};

/// One request waiting in the window.
#[derive(Debug, Clone, Copy)]
struct Queued {
    arrive_ps: u64,
    addr: u64,
    write: bool,
    /// Bank index in the controller (the bypass cap counts per bank).
    bank: u32,
    /// Lower bound of the request's start (its last probe).
    start_ps: u64,
    /// Decisions that took a younger request instead of this one.
    bypassed: u32,
    /// The caller's name for the request, handed back when it is decided.
    token: u64,
}

/// A request decided by [`RequestWindow::decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decided {
    pub token: u64,
    pub slot: Slot,
    pub result: DramResult,
}

/// The request queue of one controller (module docs).
#[derive(Debug, Clone)]
pub struct RequestWindow {
    capacity: usize,
    bypass_cap: Option<u32>,
    /// In arrival order (then presentation order).
    queued: Vec<Queued>,
}

impl RequestWindow {
    /// A queue of `capacity` requests (at least 1); `bypass_cap` as in the module docs
    /// (`Some(0)`: arrival order).
    pub fn new(capacity: usize, bypass_cap: Option<u32>) -> Self {
        let capacity = capacity.max(1);
        RequestWindow {
            capacity,
            bypass_cap,
            queued: Vec::with_capacity(capacity),
        }
    }

    pub fn len(&self) -> usize {
        self.queued.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queued.is_empty()
    }

    /// Whether `capacity` requests wait (more may be presented; they wait behind).
    pub fn is_full(&self) -> bool {
        self.queued.len() >= self.capacity
    }

    /// Presents an access to line address `addr` arriving at `arrive_ps`; it cannot start
    /// before `not_before_ps` (the caller's horizon, see [`MemoryController::probe_from`]).
    pub fn push(
        &mut self,
        m: &mut MemoryController,
        arrive_ps: u64,
        not_before_ps: u64,
        addr: u64,
        write: bool,
        token: u64,
    ) {
        let slot = m.probe_from(arrive_ps, not_before_ps, addr, write);
        let q = Queued {
            arrive_ps,
            addr,
            write,
            bank: slot.place.bank as u32,
            start_ps: slot.start_ps,
            bypassed: 0,
            token,
        };
        // Requests come nearly in arrival order: search for the place from the back.
        let at = self
            .queued
            .iter()
            .rposition(|o| o.arrive_ps <= arrive_ps)
            .map_or(0, |i| i + 1);
        self.queued.insert(at, q);
    }

    /// Lower bound of the start of the next decision (`None` when empty): a request that
    /// arrives later cannot go before it.
    pub fn next_start_bound_ps(&self) -> Option<u64> {
        // The read `decide` would try first (the cap may hold back one with a smaller start):
        // a bound taken over reads it cannot take would let a caller wait on it forever.
        self.pick().map(|i| self.queued[i].start_ps)
    }

    #[inline]
    fn candidates(&self) -> &[Queued] {
        &self.queued[..self.queued.len().min(self.capacity)]
    }

    /// Books the queued request that can start first (oldest on ties; the bypass cap may hold
    /// some back) and removes it, if it starts no later than `limit_ps` (what the
    /// caller knows no later arrival can precede); `None` when empty or when it would start
    /// after `limit_ps` (its start is then cached for the next call). `not_before_ps` and
    /// `horizon_ps` as for [`MemoryController::probe_from`] and [`MemoryController::commit`].
    pub fn decide(
        &mut self,
        m: &mut MemoryController,
        not_before_ps: u64,
        horizon_ps: u64,
        limit_ps: u64,
    ) -> Option<Decided> {
        let (i, slot) = loop {
            let i = self.pick()?;
            let q = self.queued[i];
            if q.start_ps > limit_ps {
                return None;
            }
            let slot = m.probe_from(q.arrive_ps, not_before_ps, q.addr, q.write);
            if slot.start_ps <= q.start_ps {
                if slot.start_ps > limit_ps {
                    self.queued[i].start_ps = slot.start_ps;
                    return None;
                }
                break (i, slot);
            }
            self.queued[i].start_ps = slot.start_ps;
        };
        let q = self.queued.remove(i);
        // Everything before it in the queue is older (or arrived with it, presented first);
        // the cap counts bypasses within a bank.
        for other in &mut self.queued[..i] {
            if other.bank == q.bank {
                other.bypassed += 1;
            }
        }
        let result = m.commit(&slot, horizon_ps);
        Some(Decided {
            token: q.token,
            slot,
            result,
        })
    }

    #[inline]
    fn forced(&self, q: &Queued) -> bool {
        self.bypass_cap.is_some_and(|cap| q.bypassed >= cap)
    }

    /// Index of the request to try next among the candidates: the smallest cached start,
    /// oldest on ties, skipping a request whose bank holds an older one at the bypass cap
    /// (that one goes first in its bank; other banks are not held up).
    fn pick(&self) -> Option<usize> {
        let c = self.candidates();
        let mut best: Option<usize> = None;
        for (i, q) in c.iter().enumerate() {
            // Strictly smaller: an earlier index is older, so ties keep the oldest.
            if best.is_some_and(|b| q.start_ps >= c[b].start_ps) {
                continue;
            }
            if self.bypass_cap.is_some() && c[..i].iter().any(|o| o.bank == q.bank && self.forced(o)) {
                continue;
            }
            best = Some(i);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::dram::DramConfig;
    use numasim_machine::DramKind;

    fn controller() -> MemoryController {
        let kind = DramKind::Ddr4_2400Cl16;
        let cfg = DramConfig {
            refresh: false,
            ..DramConfig::one_channel(8 << 30)
        };
        MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg)
    }

    /// Line address of column `col` of row `row` in bank `bank` (RoBaRaCoCh, 8 KiB rows,
    /// 16 banks).
    fn line(bank: u64, row: u64, col: u64) -> u64 {
        (row * 16 + bank) * 128 + col
    }

    #[test]
    fn a_row_hit_goes_before_an_older_row_miss_to_the_same_bank() {
        let mut m = controller();
        // Open row 1 of bank 0, then queue a miss (row 2) and a younger hit (row 1).
        let first = m.probe(0, line(0, 1, 0), false);
        m.commit(&first, 0);
        let mut w = RequestWindow::new(32, None);
        w.push(&mut m, 0, 0, line(0, 2, 0), false, 1);
        w.push(&mut m, 0, 0, line(0, 1, 1), false, 2);
        let a = w.decide(&mut m, 0, 0, u64::MAX).unwrap();
        let b = w.decide(&mut m, 0, 0, u64::MAX).unwrap();
        assert_eq!((a.token, b.token), (2, 1), "first ready: the hit bypasses the miss");
        assert!(a.result.row_hit && !b.result.row_hit);
        assert!(a.slot.start_ps <= b.slot.start_ps, "decisions come in start order");
    }

    #[test]
    fn a_bypass_cap_of_zero_is_arrival_order() {
        let mut m = controller();
        let first = m.probe(0, line(0, 1, 0), false);
        m.commit(&first, 0);
        let mut w = RequestWindow::new(32, Some(0));
        w.push(&mut m, 0, 0, line(0, 2, 0), false, 1);
        w.push(&mut m, 0, 0, line(0, 1, 1), false, 2);
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 1);
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 2);
    }

    #[test]
    fn the_cap_stops_row_hits_from_starving_an_older_miss_in_their_bank_only() {
        for (cap, miss_after) in [(None, 6), (Some(2), 2)] {
            let mut m = controller();
            let first = m.probe(0, line(0, 1, 0), false);
            m.commit(&first, 0);
            let mut w = RequestWindow::new(32, cap);
            // An older miss in bank 0, then six younger hits to the open row.
            w.push(&mut m, 0, 0, line(0, 2, 0), false, 100);
            for c in 1..=6 {
                w.push(&mut m, 0, 0, line(0, 1, c), false, c);
            }
            let order: Vec<u64> = std::iter::from_fn(|| w.decide(&mut m, 0, 0, u64::MAX).map(|d| d.token)).collect();
            let at = order.iter().position(|&t| t == 100).unwrap();
            assert_eq!(at, miss_after, "cap {cap:?}: {order:?}");
        }
    }

    #[test]
    fn only_the_first_capacity_requests_are_candidates() {
        let mut m = controller();
        let first = m.probe(0, line(0, 1, 0), false);
        m.commit(&first, 0);
        // Capacity 1: the younger hit waits outside the queue, so the miss goes first.
        let mut w = RequestWindow::new(1, None);
        w.push(&mut m, 0, 0, line(0, 2, 0), false, 1);
        w.push(&mut m, 0, 0, line(0, 1, 1), false, 2);
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 1);
    }

    #[test]
    fn requests_are_ordered_by_arrival_not_presentation() {
        let mut m = controller();
        let mut w = RequestWindow::new(1, Some(0));
        w.push(&mut m, 5_000_000, 0, line(1, 1, 0), false, 1);
        w.push(&mut m, 1_000_000, 0, line(2, 1, 0), false, 2);
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 2);
    }

    #[test]
    fn nothing_is_decided_past_the_limit() {
        let mut m = controller();
        let mut w = RequestWindow::new(32, None);
        w.push(&mut m, 1_000_000, 0, line(3, 1, 0), false, 7);
        assert!(w.decide(&mut m, 0, 0, 999_999).is_none());
        assert_eq!(w.len(), 1);
        let d = w.decide(&mut m, 0, 0, 1_000_000).unwrap();
        assert_eq!((d.token, d.slot.start_ps), (7, 1_000_000));
        assert!(w.is_empty());
    }
}
