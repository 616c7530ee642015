//! The DRAM model's busy lists: the same bookings and the same answers as
//! [`super::timeline::Timeline`] (sorted, disjoint, merged when touching, dropped behind the
//! caller's horizon), searched from the tail.
//!
//! Why a DRAM-specific copy: a memory controller is presented requests almost in time order
//! and places them at or near the end of what is booked (behind its queue), so where
//! [`Timeline`](super::timeline::Timeline) (tuned for links, whose bookings land inside the
//! list) scans its last 16 intervals and then bisects, [`Busy`] gallops
//! back from the last interval (1, 2, 4, … from the end, then a binary search in the last
//! bracket): a handful of comparisons where the answer is near the tail, never more than a
//! binary search where it is not. The list is a `Vec` with a moving head rather than a
//! `VecDeque` (plain indexing in the search, one compaction per many drops). [`ActWindow`]
//! holds a rank's activates for tFAW the same way.
//!
//! Byte-identical results: the busy set after every call is exactly the one `Timeline` would
//! hold (same merges, same drops), and [`Busy::peek_free`] returns the same earliest start,
//! so the model's placement does not change; only the search is faster.

/// Busy intervals `[start, end)` in ps, sorted, disjoint, touching ones merged.
#[derive(Debug, Clone, Default)]
pub struct Busy {
    iv: Vec<(u64, u64)>,
    /// Intervals before `head` were dropped (compacted away now and then).
    head: usize,
    /// No gap between two live intervals is longer (an upper bound: gaps are only made by
    /// appending, and inserting splits them; recomputed when the list is compacted). A
    /// request longer than this cannot fit between bookings, so it goes before the first or
    /// after the last, without a search (a row-hit stream leaves gaps shorter than a burst
    /// everywhere).
    gap_ub: u64,
    /// End of the last live interval (0 when none): most searches start past it, and this
    /// answers them without reading the list.
    tail_end: u64,
}

impl Busy {
    pub fn new() -> Self {
        Busy {
            iv: Vec::with_capacity(16),
            head: 0,
            gap_ub: 0,
            tail_end: 0,
        }
    }

    /// Index of the first live interval ending after `t` (`iv.len()` if none): galloping
    /// back from the tail, then a binary search in the bracket found.
    #[inline(always)]
    fn first_ending_after(&self, t: u64) -> usize {
        let n = self.iv.len();
        // Live intervals are iv[head..n]; find the first with end > t.
        if self.tail_end <= t {
            return n;
        }
        // iv[hi].1 > t holds; look for a lo with iv[lo - 1].1 <= t.
        let mut hi = n - 1;
        let mut step = 1;
        let lo = loop {
            if hi < self.head + step {
                break self.head;
            }
            let probe = hi - step;
            if self.iv[probe].1 <= t {
                break probe + 1;
            }
            hi = probe;
            step *= 2;
        };
        // The answer is in [lo, hi] and iv[hi].1 > t.
        lo + self.iv[lo..hi].partition_point(|iv| iv.1 <= t)
    }

    /// Index of the first live interval ending at or after `t` (for merging).
    #[inline]
    fn first_ending_at_or_after(&self, t: u64) -> usize {
        if t == 0 {
            return self.head;
        }
        self.first_ending_after(t - 1)
    }

    /// The earliest start `≥ want` where `[start, start + len)` meets no booking (as
    /// `Timeline::peek_free`).
    #[inline(always)]
    pub fn peek_free(&self, want: u64, len: u64) -> u64 {
        if len == 0 || self.tail_end <= want {
            return want;
        }
        let n = self.iv.len();
        if self.gap_ub < len {
            // No gap between bookings holds `len`: it fits before the first, or goes after
            // the last; no search.
            return if self.iv[self.head].0 >= want.saturating_add(len) {
                want
            } else {
                self.iv[n - 1].1
            };
        }
        let mut pos = self.first_ending_after(want);
        if self.iv[pos].0 >= want.saturating_add(len) {
            return want;
        }
        let mut start = want;
        while pos < self.iv.len() {
            let (s, e) = self.iv[pos];
            if s >= start.saturating_add(len) {
                break;
            }
            start = start.max(e);
            pos += 1;
        }
        start
    }

    /// Drops intervals ending by `horizon` from the front.
    #[inline]
    fn drop_behind(&mut self, horizon: u64) {
        while self.head < self.iv.len() && self.iv[self.head].1 <= horizon {
            self.head += 1;
        }
        if self.head == self.iv.len() {
            self.iv.clear();
            self.head = 0;
            self.gap_ub = 0;
            self.tail_end = 0;
        } else if self.head >= 64 && self.head * 2 >= self.iv.len() {
            self.iv.drain(..self.head);
            self.head = 0;
            self.gap_ub = self.iv.windows(2).map(|w| w[1].0 - w[0].1).max().unwrap_or(0);
        }
    }

    /// Books `[start, start + len)` as is (found free with [`Busy::peek_free`]), merging
    /// with what it touches or overlaps; drops intervals ending by `horizon` first (as
    /// `Timeline::insert`).
    #[inline(always)]
    pub fn insert(&mut self, start: u64, len: u64, horizon: u64) {
        if len == 0 {
            return;
        }
        self.drop_behind(horizon);
        let end = start.saturating_add(len);
        match self.iv.last_mut() {
            None => {
                self.iv.push((start, end));
                self.tail_end = end;
                return;
            }
            Some(last) if last.1 <= start => {
                if last.1 == start {
                    last.1 = end;
                } else {
                    self.gap_ub = self.gap_ub.max(start - last.1);
                    self.iv.push((start, end));
                }
                self.tail_end = end;
                return;
            }
            _ => {}
        }
        let pos = self.first_ending_at_or_after(start);
        let (mut lo, mut hi) = (start, end);
        let mut k = pos;
        while k < self.iv.len() && self.iv[k].0 <= hi {
            lo = lo.min(self.iv[k].0);
            hi = hi.max(self.iv[k].1);
            k += 1;
        }
        if k == pos {
            if pos == self.head {
                // A new first interval: the gap after it is new.
                self.gap_ub = self.gap_ub.max(self.iv[pos].0 - hi);
            }
            self.iv.insert(pos, (lo, hi));
        } else {
            self.iv[pos] = (lo, hi);
            self.iv.drain(pos + 1..k);
        }
        self.tail_end = self.iv[self.iv.len() - 1].1;
    }

    /// End of the last booking (0 when none is live).
    #[inline]
    pub fn last_end(&self) -> u64 {
        self.tail_end
    }

    /// Live intervals (for tests).
    pub fn intervals(&self) -> usize {
        self.iv.len() - self.head
    }
}

/// A rank's activates, sorted, for the tFAW rule (no window of tFAW holds five).
#[derive(Debug, Clone, Default)]
pub struct ActWindow {
    acts: Vec<u64>,
    head: usize,
}

impl ActWindow {
    /// The live activates, oldest first.
    pub fn as_slice(&self) -> &[u64] {
        &self.acts[self.head..]
    }

    /// Records an activate at `act`, after dropping those before `keep_from` (they can no
    /// longer share a window with any later activate).
    #[inline]
    pub fn insert(&mut self, act: u64, keep_from: u64) {
        while self.head < self.acts.len() && self.acts[self.head] < keep_from {
            self.head += 1;
        }
        if self.head == self.acts.len() {
            self.acts.clear();
            self.head = 0;
        } else if self.head >= 64 && self.head * 2 >= self.acts.len() {
            self.acts.drain(..self.head);
            self.head = 0;
        }
        let live = &self.acts[self.head..];
        let at = self.head + upper_bound_from_tail(live, act);
        if at == self.acts.len() {
            self.acts.push(act);
        } else {
            self.acts.insert(at, act);
        }
    }

    /// Earliest `x' ≥ x` such that no window of `t_faw` holds five of the activates and `x'`
    /// (every `x` in between would put five in some window).
    #[inline]
    pub fn fit(&self, t_faw: u64, mut x: u64) -> u64 {
        if t_faw == 0 {
            return x;
        }
        let acts = self.as_slice();
        let n = acts.len();
        if n < 4 {
            return x;
        }
        // Common case: at or after the last activate, only the window of the last four
        // matters, and moving to its first + tFAW keeps it the last.
        if acts[n - 1] <= x {
            return x.max(acts[n - 4] + t_faw);
        }
        loop {
            let p = upper_bound_from_tail(acts, x);
            // The combined sorted list: acts[..p], x, acts[p..].
            let at = |i: usize| -> u64 {
                match i.cmp(&p) {
                    std::cmp::Ordering::Less => acts[i],
                    std::cmp::Ordering::Equal => x,
                    std::cmp::Ordering::Greater => acts[i - 1],
                }
            };
            let mut bump = None;
            for i in p.saturating_sub(4)..=p {
                if i + 4 > n {
                    break;
                }
                if at(i + 4) - at(i) < t_faw {
                    // Every x' below the window's first other activate + tFAW still violates.
                    let first_other = if i == p { at(i + 1) } else { at(i) };
                    bump = Some(bump.unwrap_or(0).max(first_other + t_faw));
                }
            }
            match bump {
                Some(b) => x = b,
                None => return x,
            }
        }
    }
}

/// A rank's activates under tRRD_S and tFAW together.
///
/// Each rule forbids activates in a set of intervals: within tRRD_S of an activate, and, for
/// every four activates closer than tFAW, between the last of them − tFAW and the first +
/// tFAW. More activates only forbid more, so the union of those intervals, grown as
/// activates are booked, answers "the earliest admitted activate `≥ x`" in one search, where
/// applying the two rules in turn can take several rounds (a tRRD_S gap that tFAW refuses,
/// the next one, …). The union also holds intervals of activates since dropped behind the
/// horizon, which all end before `valid_from`; below it (a caller presenting a request
/// before a horizon it gave earlier) the two rules are applied in turn on the live
/// activates, as before.
#[derive(Debug, Clone, Default)]
pub struct RankActs {
    /// Activates as `[act, act + tRRD_S)`.
    spacing: Busy,
    faw: ActWindow,
    /// Union of the intervals both rules forbid.
    forbid: Busy,
    /// The union is exact from here on.
    valid_from: u64,
}

impl RankActs {
    /// The live activates, oldest first.
    pub fn as_slice(&self) -> &[u64] {
        self.faw.as_slice()
    }

    /// Earliest activate `≥ x` that tRRD_S and tFAW admit (every time in between breaks one
    /// of them).
    #[inline]
    pub fn earliest(&self, x: u64, t_rrd_s: u64, t_faw: u64) -> u64 {
        if x >= self.valid_from {
            return self.forbid.peek_free(x, 1);
        }
        let mut x = x;
        loop {
            let a = self.faw.fit(t_faw, self.spacing.peek_free(x, t_rrd_s));
            if a == x {
                return x;
            }
            x = a;
        }
    }

    /// Books an activate at `act`; no later activate is wanted before `horizon`.
    #[inline]
    pub fn insert(&mut self, act: u64, t_rrd_s: u64, t_faw: u64, horizon: u64) {
        self.spacing.insert(act, t_rrd_s, horizon);
        // Everything dropped below (activates before keep_from, spacing ending by horizon)
        // only forbade times before this.
        self.valid_from = self.valid_from.max(horizon);
        // Every interval the new activate adds holds it (a window of four closer than tFAW
        // that includes it forbids from its last − tFAW to its first + tFAW), so they add one
        // interval: their union.
        let (mut lo, mut hi) = (act, act);
        if t_rrd_s > 0 {
            lo = (act + 1).saturating_sub(t_rrd_s);
            hi = act + t_rrd_s;
        }
        if t_faw > 0 {
            self.faw.insert(act, horizon.saturating_sub(t_faw));
            let acts = self.faw.as_slice();
            let n = acts.len();
            let at = upper_bound_from_tail(acts, act) - 1;
            for j in at.saturating_sub(3)..=at {
                if j + 3 >= n {
                    break;
                }
                let (first, last) = (acts[j], acts[j + 3]);
                if last - first < t_faw {
                    lo = lo.min((last + 1).saturating_sub(t_faw));
                    hi = hi.max(first + t_faw);
                }
            }
        }
        if hi > lo {
            self.forbid.insert(lo, hi - lo, self.valid_from);
        }
    }
}

/// Number of elements of sorted `v` that are `≤ x` (`v.partition_point(|&a| a <= x)`),
/// galloping back from the tail.
#[inline]
fn upper_bound_from_tail(v: &[u64], x: u64) -> usize {
    let n = v.len();
    if n == 0 || v[n - 1] <= x {
        return n;
    }
    let mut hi = n - 1; // v[hi] > x
    let mut step = 1;
    let lo = loop {
        if hi < step {
            break 0;
        }
        let probe = hi - step;
        if v[probe] <= x {
            break probe + 1;
        }
        hi = probe;
        step *= 2;
    };
    lo + v[lo..hi].partition_point(|&a| a <= x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::timeline::Timeline;
    use proptest::prelude::*;

    proptest! {
        /// Any presentation order and horizon: the same placements as `Timeline`.
        #[test]
        fn busy_answers_as_timeline(
            reqs in proptest::collection::vec((0u64..5_000, 1u64..100, 0u64..3), 1..300),
        ) {
            let (mut t, mut b) = (Timeline::new(), Busy::new());
            let mut horizon = 0u64;
            for &(a, l, h) in &reqs {
                let a = a.max(horizon);
                let want = t.peek_free(a, l);
                prop_assert_eq!(b.peek_free(a, l), want);
                // Also probe a few other points, and the merging path (overlaps allowed).
                for probe in [0, a / 2, a + 37, horizon] {
                    prop_assert_eq!(b.peek_free(probe, l), t.peek_free(probe, l));
                }
                let at = if h == 2 { a } else { want };
                t.insert(at, l, horizon);
                b.insert(at, l, horizon);
                prop_assert_eq!(b.intervals(), t.intervals());
                horizon = horizon.max(a.saturating_sub(300 * h));
            }
        }

        /// The union of forbidden intervals answers as tRRD_S and tFAW applied in turn on
        /// the live activates, for activates booked in any order, and every activate it
        /// admits keeps both rules.
        #[test]
        fn rank_acts_union_answers_as_the_two_rules(
            reqs in proptest::collection::vec((0u64..20_000, 0u64..4), 1..200),
            t_rrd_s in 0u64..400,
            t_faw in 0u64..3000,
        ) {
            let mut r = RankActs::default();
            let mut horizon = 0u64;
            let mut booked: Vec<u64> = Vec::new();
            for &(a, h) in &reqs {
                let want = a.max(horizon);
                let fast = r.earliest(want, t_rrd_s, t_faw);
                // The rules in turn (the fallback below valid_from).
                let mut x = want;
                let slow = loop {
                    let y = r.faw.fit(t_faw, r.spacing.peek_free(x, t_rrd_s));
                    if y == x {
                        break x;
                    }
                    x = y;
                };
                prop_assert_eq!(fast, slow);
                for &b in &booked {
                    prop_assert!(b.abs_diff(fast) >= t_rrd_s || b + t_rrd_s <= horizon, "{b} {fast}");
                }
                r.insert(fast, t_rrd_s, t_faw, horizon);
                booked.push(fast);
                let live = r.as_slice();
                if t_faw > 0 {
                    for w in live.windows(5) {
                        prop_assert!(w[4] - w[0] >= t_faw, "{w:?}");
                    }
                }
                horizon = horizon.max(a.saturating_sub(2_000 * h));
            }
        }

        #[test]
        fn upper_bound_matches_partition_point(mut v in proptest::collection::vec(0u64..500, 0..100), x in 0u64..600) {
            v.sort_unstable();
            prop_assert_eq!(upper_bound_from_tail(&v, x), v.partition_point(|&a| a <= x));
        }
    }
}
