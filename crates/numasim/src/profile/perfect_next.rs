//! `perfect-next`: Tikir & Hollingsworth's perfect profile (§5.3): "a full memory access
//! history to find the references for all page references during the *next* migration
//! interval". An oracle that looks ahead: at the boundary after phase k it hands the policy
//! the memory accesses of phase k + 1, per page and socket.
//!
//! The simulator cannot see the future, so the driver runs the experiment once more first
//! (functional engine, no migration; the driver's `learn_lookahead`) and records every
//! phase's per-page per-socket memory accesses by virtual page; before each boundary it hands
//! this profiler the next phase's counts mapped onto the run's page ids
//! ([`Profiler::set_lookahead`]). Phases are instruction windows, so the first pass has the
//! same phases as the run whatever migration does. Pages the run has not touched yet have no
//! id and cannot be moved, so they are left out. `perfect` (the phase that just ended) stays
//! as it is: the two differ exactly where a program changes behaviour between intervals.

use super::{ObserverCounts, PageProfile, Profiler};
use numasim_trace::Access;

#[derive(Debug, Clone)]
pub struct PerfectNext {
    sockets: usize,
    next: PageProfile,
}

impl Profiler for PerfectNext {
    const NAME: &'static str = "perfect-next";
    const SUMMARY: &'static str =
        "the next interval's memory accesses per page per socket (look-ahead oracle; a first pass records them)";
    type Params = ();
    const LOOKS_AHEAD: bool = true;

    fn new(_: &(), sockets: usize) -> Self {
        PerfectNext {
            sockets,
            next: PageProfile::new(sockets, 0),
        }
    }
    #[inline]
    fn observe(&mut self, _: usize, _: u32, _: &Access, _: bool, _: &mut ObserverCounts) {}
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        let mut counts = self.next.counts.clone();
        counts.resize(pages * self.sockets, 0);
        PageProfile {
            sockets: self.sockets,
            counts,
        }
    }
    fn set_lookahead(&mut self, next: PageProfile) {
        self.next = next;
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.next.counts.clear();
        0
    }
}
