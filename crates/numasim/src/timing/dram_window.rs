//! A request queue in front of one memory controller: FR-FCFS over a window of requests.
//!
//! Why: placing each read when it is presented (book-at-issue) fixes its slot before the
//! controller has seen the requests a real scheduler would let bypass it. A DDR4 controller
//! picks, among the requests in its queue, one whose next command can issue now ("first
//! ready"), the oldest on ties. On a stream that crosses a row boundary that interleaves the
//! next bank group's reads (tCCD_S apart) with the current one's (tCCD_L apart); on random
//! reads it takes a bank that may activate now instead of waiting out tFAW in arrival order.
//! Without a window numasim measured 6–15 % below Ramulator 2 under saturation, with one it is
//! within 1.2 % (docs/validation/peers.md).
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

//!
//! Speed: the same decisions (and the same cached starts) as that loop, in fewer steps.
//! - Each request is placed ([`MemoryController::place`]) once, when it is pushed.
//! - Within one decision nothing is booked, and the only state a probe changes is a bank
//!   entering a new refresh period (`MemoryController::refresh_closes` counts those). While
//!   no probe does, every probe gives the same slot whenever it runs, so the loop's outcome is
//!   fixed by the probes alone (`decide_in_order` says how) and one walk over the queue finds
//!   it, where the loop rescanned the queue at every step; and a probe is shared by the
//!   requests of one bank with the same row outcome (hit or not), direction and start bound
//!   (`max(arrival, not_before)`): nothing else of the request enters a probe. On a stream
//!   every queued read shares one (one row of one bank, all arrived before the last
//!   decision's start): one real probe per decision where the loop ran one per read; on
//!   random reads, a second row miss to a bank shares the first's (10–12 % less CPU on
//!   random reads and the 2:1 mix, stream unchanged; decisions byte-identical).
//! - When some probe would move a bank into a new refresh period (rare: once per bank per
//!   tREFI at most), the loop runs step by step, as written above.
//!
//! A younger request to the same place and direction as an older one never starts before it
//! (a probe is monotone in its start bound), but it is still probed: the loop caches its
//! probe, and a cached start that a refresh later makes too high changes later choices, so
//! leaving it out would not always give the same decisions.

use super::dram::{DramResult, MemoryController, Place, Slot};
use std::collections::VecDeque;

/// One request waiting in the window.
#[derive(Debug, Clone, Copy)]
struct Queued {
    arrive_ps: u64,
    /// Where the request's line lives (placed once, at push).
    place: Place,
    write: bool,
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

/// The last probe of a decision, reusable while nothing it depends on changed (module docs):
/// its place, direction, start bound and `MemoryController::refresh_closes`, and its slot
/// (whose `arrive_ps` may be another request's).
#[derive(Debug, Clone, Copy)]
struct LastProbe {
    key: (Place, bool, u64, u64),
    slot: Slot,
}

impl LastProbe {
    fn key(m: &MemoryController, q: &Queued, not_before_ps: u64) -> (Place, bool, u64, u64) {
        (q.place, q.write, q.arrive_ps.max(not_before_ps), m.refresh_closes)
    }

    /// The first probe of a decision.
    fn new(m: &mut MemoryController, q: &Queued, not_before_ps: u64) -> Self {
        let slot = m.probe_place(q.place, q.arrive_ps, not_before_ps, q.write);
        LastProbe {
            key: Self::key(m, q, not_before_ps),
            slot,
        }
    }

    /// Probes `q` (again, unless it repeats the last probe): its start.
    #[inline]
    fn probe(&mut self, m: &mut MemoryController, q: &Queued, not_before_ps: u64) -> u64 {
        if self.key != Self::key(m, q, not_before_ps) {
            // Written in place: a slot is large, and most probes here are not taken.
            self.slot = m.probe_place(q.place, q.arrive_ps, not_before_ps, q.write);
            // Taken again after the probe: it may have counted a refresh close.
            self.key = Self::key(m, q, not_before_ps);
        }
        self.slot.start_ps
    }

    /// The last probe's slot, for `q`.
    fn slot_for(&self, q: &Queued) -> Slot {
        let mut slot = self.slot;
        slot.arrive_ps = q.arrive_ps;
        slot
    }
}

/// A probe of one decision, kept per bank (`RequestWindow::memo`): while nothing changes state
/// a probe depends on the request only through its bank, whether it hits the open row, its
/// direction and its start bound, so another request that shares those (a second row miss to
/// the bank, or a hit to the same row) gets the same slot without a search.
#[derive(Debug, Clone, Copy)]
struct BankProbe {
    /// `RequestWindow::decisions` when it was taken: an older one is stale.
    decision: u64,
    hit: bool,
    write: bool,
    want_ps: u64,
    slot: Slot,
}

/// The request queue of one controller (module docs).
#[derive(Debug, Clone)]
pub struct RequestWindow {
    capacity: usize,
    bypass_cap: Option<u32>,
    /// The candidates: the first `capacity` requests in arrival order (then presentation
    /// order).
    queued: Vec<Queued>,
    /// The rest, in the same order (waiting in the fabric). Kept apart so that taking a
    /// candidate moves at most `capacity` entries, however many wait behind (a loaded node
    /// holds hundreds).
    outside: VecDeque<Queued>,
    /// Candidates at the bypass cap (`forced`): while there are none every candidate may be
    /// taken, and no decision looks for held-back ones.
    at_cap: usize,
    /// Scratch of [`Self::decide`]: the indices of the requests it may take, when the cap
    /// holds some back.
    order: Vec<usize>,
    /// Scratch of [`Self::decide_in_order`]: the requests it probed, as (index, probed start).
    probed: Vec<(usize, u64)>,
    /// Scratch of [`Self::decide_in_order`]: the requests it may visit.
    visit: Vec<u32>,
    /// Scratch of [`Self::decide_in_order`]: its probes, by bank.
    memo: Vec<Option<BankProbe>>,
    /// Calls of [`Self::decide_in_order`] so far (tells its probes apart from older ones).
    decisions: u64,
}

impl RequestWindow {
    /// A queue of `capacity` requests (at least 1); `bypass_cap` as in the module docs
    /// (`Some(0)`: arrival order).
    pub fn new(capacity: usize, bypass_cap: Option<u32>) -> Self {
        let capacity = capacity.max(1);
        RequestWindow {
            capacity,
            bypass_cap,
            queued: Vec::with_capacity(capacity + 1),
            outside: VecDeque::new(),
            at_cap: 0,
            order: Vec::new(),
            probed: Vec::new(),
            visit: Vec::new(),
            memo: Vec::new(),
            decisions: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.queued.len() + self.outside.len()
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
        let place = m.place(addr);
        let slot = m.probe_place(place, arrive_ps, not_before_ps, write);
        let q = Queued {
            arrive_ps,
            place,
            write,
            start_ps: slot.start_ps,
            bypassed: 0,
            token,
        };
        // Requests come nearly in arrival order: search for the place from the back. A
        // request waits outside unless it arrived before every one there (requests wait
        // outside only when the candidates are full).
        if let Some(j) = self.outside.iter().rposition(|o| o.arrive_ps <= arrive_ps) {
            self.outside.insert(j + 1, q);
            return;
        }
        let at = self
            .queued
            .iter()
            .rposition(|o| o.arrive_ps <= arrive_ps)
            .map_or(0, |i| i + 1);
        self.at_cap += usize::from(self.forced(&q));
        self.queued.insert(at, q);
        if self.queued.len() > self.capacity {
            let last = self.queued.pop().expect("over capacity");
            self.at_cap -= usize::from(self.forced(&last));
            self.outside.push_front(last);
        }
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
        &self.queued
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
        let n = self.queued.len();
        if n == 0 {
            return None;
        }
        // The requests the cap lets go (the same for every step of this decision: bypass
        // counts change only when it is made): all of them while none is at the cap, else
        // those with no older forced one in their bank, listed in `order`. The one of
        // smallest cached start (oldest on ties), and the latest arrival among them.
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        let c = &self.queued;
        let (first, latest_arrive_ps) = if self.at_cap == 0 {
            let mut first = (c[0].start_ps, 0);
            for (i, q) in c.iter().enumerate().skip(1) {
                if q.start_ps < first.0 {
                    first = (q.start_ps, i);
                }
            }
            // The candidates are in arrival order.
            (first, c[n - 1].arrive_ps)
        } else {
            let mut held = 0u64;
            let mut first: Option<(u64, usize)> = None;
            let mut latest_arrive_ps = 0;
            for (i, q) in c.iter().enumerate() {
                let bit = 1u64 << (q.place.bank % 64);
                if held & bit == 0 || !c[..i].iter().any(|o| o.place.bank == q.place.bank && self.forced(o)) {
                    order.push(i);
                    if first.is_none_or(|(s, _)| q.start_ps < s) {
                        first = Some((q.start_ps, i));
                    }
                    latest_arrive_ps = latest_arrive_ps.max(q.arrive_ps);
                }
                if self.forced(q) {
                    held |= bit;
                }
            }
            // (Never `None`: the oldest candidate has no older one to be held back by.)
            let Some(first) = first else {
                self.order = order;
                return None;
            };
            (first, latest_arrive_ps)
        };
        // Every probe starts from max(arrival, not_before): before the quiet bound none
        // changes state; past it, each is checked.
        let quiet_until_ps = m.refresh_quiet_until_ps();
        let changes = |q: &Queued| m.probe_changes_state(&q.place, q.arrive_ps.max(not_before_ps));
        let pure = latest_arrive_ps.max(not_before_ps) < quiet_until_ps
            || if self.at_cap == 0 {
                !c.iter().any(changes)
            } else {
                !order.iter().any(|&i| changes(&c[i]))
            };
        let decided = if pure {
            self.decide_in_order(m, &order, first, not_before_ps, limit_ps)
        } else {
            self.decide_lazily(m, not_before_ps, limit_ps)
        };
        self.order = order;
        let (i, slot) = decided?;
        let q = self.queued.remove(i);
        self.at_cap -= usize::from(self.forced(&q));
        // Everything before it in the queue is older (or arrived with it, presented first);
        // the cap counts bypasses within a bank.
        if let Some(cap) = self.bypass_cap {
            for other in &mut self.queued[..i] {
                if other.place.bank == q.place.bank {
                    other.bypassed += 1;
                    self.at_cap += usize::from(other.bypassed == cap);
                }
            }
        }
        // The oldest waiting outside becomes a candidate.
        if let Some(next) = self.outside.pop_front() {
            self.at_cap += usize::from(self.forced(&next));
            self.queued.push(next);
        }
        let result = m.commit(&slot, horizon_ps);
        Some(Decided {
            token: q.token,
            slot,
            result,
        })
    }

    /// The lazy greedy loop of the module docs, step by step: the request with the smallest
    /// cached start (oldest on ties) among those the cap lets go is probed; taken if its start
    /// did not move, else its new start is cached and the loop goes on. Used when some probe
    /// would move a bank into a new refresh period: that changes what later probes see, so
    /// the probes must run in this order.
    fn decide_lazily(&mut self, m: &mut MemoryController, not_before_ps: u64, limit_ps: u64) -> Option<(usize, Slot)> {
        let mut last: Option<LastProbe> = None;
        loop {
            let i = self.pick()?;
            let q = self.queued[i];
            if q.start_ps > limit_ps {
                return None;
            }
            let probe = match &mut last {
                Some(l) => {
                    l.probe(m, &q, not_before_ps);
                    l
                }
                None => last.insert(LastProbe::new(m, &q, not_before_ps)),
            };
            if probe.slot.start_ps <= q.start_ps {
                // (Not after `limit_ps`: the cached start was not.)
                return Some((i, probe.slot_for(&q)));
            }
            self.queued[i].start_ps = probe.slot.start_ps;
        }
    }

    /// What [`Self::decide_lazily`] decides and caches, when no probe changes state (every
    /// probe then gives the same slot whenever it runs, and running one has no effect). With
    /// `f = max(cached, probed)` per request, the loop takes the request of smallest
    /// `(f, index)`, `D`: it pops requests in order of their current `(start, index)`, a
    /// popped request is taken when its probe does not move it (its key is then its `f`) and
    /// goes back with key `f` otherwise, and keys never exceed `f`. Before taking `D` it has
    /// probed, and cached the probe of, exactly the requests with `(cached, index) < (f_D, D)`;
    /// when `f_D > limit_ps` it has probed and cached those cached at or before the limit,
    /// and takes none. Here: the request of smallest `(cached, index)` is probed first (its `f`
    /// bounds `f_D` from above), then every other whose `(cached, index)` is below the best
    /// `(f, index)` so far, in queue order (one pass, no rescan per step; a probe another
    /// request of the bank shares, [`BankProbe`], is not run again); at the end only those
    /// below `(f_D, D)` keep their probe, as the loop leaves them.
    fn decide_in_order(
        &mut self,
        m: &mut MemoryController,
        order: &[usize],
        (cached0, i0): (u64, usize),
        not_before_ps: u64,
        limit_ps: u64,
    ) -> Option<(usize, Slot)> {
        if cached0 > limit_ps {
            return None;
        }
        self.decisions += 1;
        if self.memo.len() < m.bank_count() {
            self.memo.resize(m.bank_count(), None);
        }
        let Self {
            queued,
            memo,
            decisions,
            probed,
            at_cap,
            visit,
            ..
        } = self;
        probed.clear();
        let start0 = probe_by_bank(memo, *decisions, m, &queued[i0], not_before_ps).start_ps;
        probed.push((i0, start0));
        // (f, index) of the best so far.
        let mut best = (cached0.max(start0), i0);
        let q0 = &queued[i0];
        let mut last = (
            (q0.place.bank, q0.place.row, q0.write, q0.arrive_ps.max(not_before_ps)),
            start0,
        );
        // Only requests cached at or before the first's f (and the limit) can be visited (a
        // later best only excludes more): listed without a branch per request, then visited
        // in queue order.
        let bound = best.0.min(limit_ps);
        let list = visit;
        list.clear();
        let mut k = 0;
        if *at_cap == 0 {
            list.resize(queued.len(), 0);
            for (i, q) in queued.iter().enumerate() {
                list[k] = i as u32;
                k += usize::from(q.start_ps <= bound);
            }
        } else {
            list.resize(order.len(), 0);
            for &i in order {
                list[k] = i as u32;
                k += usize::from(queued[i].start_ps <= bound);
            }
        }
        for &i in &list[..k] {
            let i = i as usize;
            let q = &queued[i];
            let cached = q.start_ps;
            if i == i0 || (cached, i) >= best {
                continue;
            }
            // A repeat of the last lookup (a stream's reads): its start, from registers.
            let key = (q.place.bank, q.place.row, q.write, q.arrive_ps.max(not_before_ps));
            let start = if key == last.0 {
                last.1
            } else {
                let start = probe_by_bank(memo, *decisions, m, q, not_before_ps).start_ps;
                last = (key, start);
                start
            };
            probed.push((i, start));
            let f = cached.max(start);
            if (f, i) < best {
                best = (f, i);
            }
        }
        let (f_d, d) = best;
        let taken = f_d <= limit_ps;
        for &(i, start) in probed.iter() {
            // Without a decision every probe so far was one the loop runs (all cached at or
            // before the limit, below every f).
            let q = &mut queued[i];
            if !taken || (i != d && (q.start_ps, i) < (f_d, d)) {
                q.start_ps = start;
            }
        }
        if !taken {
            return None;
        }
        // Its bank's probe, unless a later one of another key replaced it (then probed again:
        // nothing changed state, so it gives the same slot).
        let mut slot = *probe_by_bank(memo, *decisions, m, &queued[d], not_before_ps);
        // The slot of a request that shares the probe: its own place and arrival.
        slot.place = queued[d].place;
        slot.arrive_ps = queued[d].arrive_ps;
        Some((d, slot))
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
        if self.at_cap == 0 {
            // None held back: the smallest cached start, the oldest on ties.
            let mut best: Option<(u64, usize)> = None;
            for (i, q) in c.iter().enumerate() {
                if best.is_none_or(|(s, _)| q.start_ps < s) {
                    best = Some((q.start_ps, i));
                }
            }
            return best.map(|(_, i)| i);
        }
        let mut best: Option<usize> = None;
        let mut best_start = u64::MAX;
        // Banks (modulo 64) of the forced requests seen so far: a request whose bit is clear
        // has no older forced one in its bank; one whose bit is set is checked exactly.
        let mut held = 0u64;
        for (i, q) in c.iter().enumerate() {
            let bit = 1u64 << (q.place.bank % 64);
            // Strictly smaller: an earlier index is older, so ties keep the oldest.
            if (best.is_none() || q.start_ps < best_start)
                && (held & bit == 0 || !c[..i].iter().any(|o| o.place.bank == q.place.bank && self.forced(o)))
            {
                best = Some(i);
                best_start = q.start_ps;
            }
            if self.forced(q) {
                held |= bit;
            }
        }
        best
    }
}

/// The probe of `q` in the decision numbered `decision`: `memo`'s for its bank when it shares
/// the key (see [`BankProbe`]; only while no probe changes state), else a new one kept there.
#[inline(always)]
fn probe_by_bank<'a>(
    memo: &'a mut [Option<BankProbe>],
    decision: u64,
    m: &mut MemoryController,
    q: &Queued,
    not_before_ps: u64,
) -> &'a Slot {
    let want_ps = q.arrive_ps.max(not_before_ps);
    let fresh = match &memo[q.place.bank] {
        Some(k) if k.decision == decision && k.write == q.write && k.want_ps == want_ps => {
            // The same row (a stream's reads) needs no look at the bank.
            k.slot.place.row == q.place.row || k.hit == m.row_hit_now(&q.place)
        }
        _ => false,
    };
    if !fresh {
        probe_into(memo, decision, m, q, not_before_ps, want_ps);
    }
    &memo[q.place.bank].as_ref().expect("just kept").slot
}

/// A new probe of `q`, kept in `memo` (out of line: most probes of a stream are shared).
#[inline(never)]
fn probe_into(
    memo: &mut [Option<BankProbe>],
    decision: u64,
    m: &mut MemoryController,
    q: &Queued,
    not_before_ps: u64,
    want_ps: u64,
) {
    memo[q.place.bank] = Some(BankProbe {
        decision,
        hit: m.row_hit_now(&q.place),
        write: q.write,
        want_ps,
        slot: m.probe_place(q.place, q.arrive_ps, not_before_ps, q.write),
    });
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

    /// A controller with row 1 of bank 0 open.
    fn row_1_open() -> MemoryController {
        let mut m = controller();
        let first = m.probe(0, line(0, 1, 0), false);
        m.commit(&first, 0);
        m
    }

    /// A window over `row_1_open()` holding a miss to bank 0 (token 1), then a younger hit
    /// to its open row (token 2).
    fn miss_then_hit(m: &mut MemoryController, capacity: usize, cap: Option<u32>) -> RequestWindow {
        let mut w = RequestWindow::new(capacity, cap);
        w.push(m, 0, 0, line(0, 2, 0), false, 1);
        w.push(m, 0, 0, line(0, 1, 1), false, 2);
        w
    }

    #[test]
    fn a_row_hit_goes_before_an_older_row_miss_to_the_same_bank() {
        let mut m = row_1_open();
        let mut w = miss_then_hit(&mut m, 32, None);
        let a = w.decide(&mut m, 0, 0, u64::MAX).unwrap();
        let b = w.decide(&mut m, 0, 0, u64::MAX).unwrap();
        assert_eq!((a.token, b.token), (2, 1), "first ready: the hit bypasses the miss");
        assert!(a.result.row_hit && !b.result.row_hit);
        assert!(a.slot.start_ps <= b.slot.start_ps, "decisions come in start order");
    }

    #[test]
    fn a_bypass_cap_of_zero_is_arrival_order() {
        let mut m = row_1_open();
        let mut w = miss_then_hit(&mut m, 32, Some(0));
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 1);
        assert_eq!(w.decide(&mut m, 0, 0, u64::MAX).unwrap().token, 2);
    }

    #[test]
    fn the_cap_stops_row_hits_from_starving_an_older_miss_in_their_bank_only() {
        for (cap, miss_after) in [(None, 6), (Some(2), 2)] {
            let mut m = row_1_open();
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
        let mut m = row_1_open();
        // Capacity 1: the younger hit waits outside the queue, so the miss goes first.
        let mut w = miss_then_hit(&mut m, 1, None);
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

    /// The window as first written: the lazy greedy loop run step by step, every probe run
    /// (and the address placed at each), the cap checked by rescanning. The fast one must
    /// decide exactly as it does.
    struct Plain {
        capacity: usize,
        bypass_cap: Option<u32>,
        /// (arrive, addr, write, bank, cached start, bypassed, token), in arrival order.
        queued: Vec<(u64, u64, bool, usize, u64, u32, u64)>,
    }

    impl Plain {
        fn push(&mut self, m: &mut MemoryController, arrive: u64, not_before: u64, addr: u64, write: bool, token: u64) {
            let slot = m.probe_from(arrive, not_before, addr, write);
            let at = self.queued.iter().rposition(|o| o.0 <= arrive).map_or(0, |i| i + 1);
            self.queued
                .insert(at, (arrive, addr, write, slot.place.bank, slot.start_ps, 0, token));
        }

        fn pick(&self) -> Option<usize> {
            let c = &self.queued[..self.queued.len().min(self.capacity)];
            let forced = |o: &(u64, u64, bool, usize, u64, u32, u64)| self.bypass_cap.is_some_and(|cap| o.5 >= cap);
            (0..c.len())
                .filter(|&i| !c[..i].iter().any(|o| o.3 == c[i].3 && forced(o)))
                .min_by_key(|&i| (c[i].4, i))
        }

        fn decide(&mut self, m: &mut MemoryController, not_before: u64, horizon: u64, limit: u64) -> Option<Decided> {
            loop {
                let i = self.pick()?;
                let q = self.queued[i];
                if q.4 > limit {
                    return None;
                }
                let slot = m.probe_from(q.0, not_before, q.1, q.2);
                if slot.start_ps <= q.4 {
                    self.queued.remove(i);
                    for o in &mut self.queued[..i] {
                        if o.3 == q.3 {
                            o.5 += 1;
                        }
                    }
                    let result = m.commit(&slot, horizon);
                    return Some(Decided {
                        token: q.6,
                        slot,
                        result,
                    });
                }
                self.queued[i].4 = slot.start_ps;
            }
        }
    }

    #[test]
    fn decisions_match_the_plain_lazy_greedy_loop() {
        let kind = DramKind::Ddr4_2400Cl16;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
        };
        let mut decided = 0;
        for case in 0..96u64 {
            // Refresh on (its periods close rows, the one state a probe changes), a write
            // queue, and few banks and rows: repeats of a place, hits, misses, bank groups.
            let cfg = DramConfig {
                refresh: case % 4 != 3,
                closed_page: case % 8 == 5,
                write_queue_high: if case % 2 == 0 { 8 } else { 0 },
                write_queue_low: if case % 2 == 0 { 2 } else { 0 },
                ..DramConfig::one_channel(8 << 30)
            };
            let mut fast_m = MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg);
            let mut plain_m = fast_m.clone();
            let capacity = [1, 3, 8, 32][case as usize % 4];
            let bypass_cap = [None, Some(0), Some(2), Some(16)][(case / 4) as usize % 4];
            let mut fast = RequestWindow::new(capacity, bypass_cap);
            let mut plain = Plain {
                capacity,
                bypass_cap,
                queued: Vec::new(),
            };
            let banks = 1 + next(6);
            let rows = 1 + next(3);
            let mut now = 0u64;
            let mut horizon = 0u64;
            let mut token = 0u64;
            // From a few to hundreds of refresh periods (7.8 µs) over the case.
            let step = [40_000, 400_000, 2_000_000][(case / 16) as usize % 3];
            for _ in 0..1500 {
                // Arrivals a little out of order.
                now += next(step);
                for _ in 0..next(4) {
                    let arrive = now.saturating_sub(next(4) * step);
                    let addr = line(next(banks), 1 + next(rows), next(4));
                    let write = next(5) == 0;
                    let not_before = if next(4) == 0 { 0 } else { horizon };
                    fast.push(&mut fast_m, arrive, not_before, addr, write, token);
                    plain.push(&mut plain_m, arrive, not_before, addr, write, token);
                    token += 1;
                }
                if next(4) == 0 {
                    horizon = horizon.max(now.saturating_sub(next(3 * step / 2)));
                }
                let limit = if next(3) == 0 {
                    u64::MAX
                } else {
                    now + next(5 * step / 2)
                };
                // Sometimes a bound behind the pushes' (a caller that is not monotone): then a
                // probe may move a bank into a refresh period the others have not seen.
                let not_before = if next(4) == 0 {
                    horizon.saturating_sub(next(8 * step))
                } else {
                    horizon
                };
                for _ in 0..next(4) {
                    let a = fast.decide(&mut fast_m, not_before, not_before, limit);
                    let b = plain.decide(&mut plain_m, not_before, not_before, limit);
                    assert_eq!(a, b, "case {case}");
                    let at_cap = fast.queued.iter().filter(|q| fast.forced(q)).count();
                    assert_eq!(fast.at_cap, at_cap, "case {case}");
                    assert_eq!(
                        fast.next_start_bound_ps(),
                        plain.pick().map(|i| plain.queued[i].4),
                        "case {case}"
                    );
                    decided += u64::from(a.is_some());
                }
            }
            while let Some(a) = fast.decide(&mut fast_m, horizon, horizon, u64::MAX) {
                assert_eq!(
                    Some(a),
                    plain.decide(&mut plain_m, horizon, horizon, u64::MAX),
                    "case {case}"
                );
            }
            assert!(plain.queued.is_empty());
            assert_eq!(
                (
                    fast_m.accesses,
                    fast_m.row_hits,
                    fast_m.activates,
                    fast_m.refresh_closes
                ),
                (
                    plain_m.accesses,
                    plain_m.row_hits,
                    plain_m.activates,
                    plain_m.refresh_closes
                )
            );
        }
        assert!(decided > 20_000, "{decided}");
    }
}
