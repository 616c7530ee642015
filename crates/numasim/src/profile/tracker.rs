//! `tracker-t16` / `tracker-t0`: StarNUMA's region trackers (§III-D1).
//!
//! They count LLC misses reaching memory, exactly, per page (the policy sums pages into
//! regions); T0 keeps only whether a socket touched a page. Their cost is modelled: each
//! socket's TLB model carries the counter annex, and every annex flush (eviction of an entry
//! with a non-zero count, or the once-per-phase marker flush) is one read-modify-write of the
//! in-memory metadata, counted as a tracker update (2 memory accesses each). The profile
//! itself is taken as exact: the annex never saturates and every flush lands before the scan
//! (simplification; documented).

use super::tlb::{self, Tlb, TlbParams};
use super::{ObserverCounts, PageProfile, Profiler};
use numasim_trace::Access;

/// The tracker; `T0`: sharer bits only.
#[derive(Debug, Clone)]
pub struct Tracker<const T0: bool> {
    sockets: usize,
    tlbs: Vec<Tlb>,
}

pub type TrackerT16 = Tracker<false>;
pub type TrackerT0 = Tracker<true>;

impl<const T0: bool> Profiler for Tracker<T0> {
    const NAME: &'static str = if T0 { "tracker-t0" } else { "tracker-t16" };
    const SUMMARY: &'static str = if T0 {
        "StarNUMA T0 region tracker: sharer bits only"
    } else {
        "StarNUMA T16 region tracker: LLC misses per region, annex traffic counted"
    };
    type Params = TlbParams;

    fn new(p: &TlbParams, sockets: usize) -> Self {
        Tracker {
            sockets,
            tlbs: tlb::per_socket(p, sockets),
        }
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, mem: bool, phase: &mut ObserverCounts) {
        let t = self.tlbs[socket].translate(page);
        if t.evicted_count > 0 {
            phase.tracker_updates += 1;
        }
        if !t.hit {
            phase.tlb_misses += 1;
        }
        if mem {
            let c = &mut self.tlbs[socket].count[t.slot];
            *c = c.saturating_add(1);
        }
    }
    fn profile(&self, exact: &[u32], pages: usize) -> PageProfile {
        let mut counts: Vec<u32> = if T0 {
            exact.iter().map(|&c| u32::from(c > 0)).collect()
        } else {
            exact.to_vec()
        };
        counts.resize(pages * self.sockets, 0);
        PageProfile {
            sockets: self.sockets,
            counts,
        }
    }
    fn end_phase(&mut self, known_pages: usize, moved: &[u32], phase: &mut ObserverCounts) -> u64 {
        // The marker bit set once per phase flushes every annex with a non-zero count.
        for t in &mut self.tlbs {
            for c in &mut t.count {
                if *c > 0 {
                    phase.tracker_updates += 1;
                    *c = 0;
                }
            }
        }
        tlb::shoot_down(&mut self.tlbs, known_pages, moved);
        0
    }
}
