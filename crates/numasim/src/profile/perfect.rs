//! `perfect`: every memory access (LLC miss) of every page, per socket — StarNUMA's zero-cost
//! baseline knowledge, read straight from the simulator's exact counts
//! ([`crate::stats::PageStats`]); it keeps no state of its own.

use super::{ObserverCounts, PageProfile, Profiler};
use numasim_trace::Access;

#[derive(Debug, Clone)]
pub struct Perfect {
    sockets: usize,
}

impl Profiler for Perfect {
    const NAME: &'static str = "perfect";
    const SUMMARY: &'static str = "every memory access per page per socket (zero cost)";
    type Params = ();

    fn new(_: &(), sockets: usize) -> Self {
        Perfect { sockets }
    }
    #[inline]
    fn observe(&mut self, _: usize, _: u32, _: &Access, _: bool, _: &mut ObserverCounts) {}
    fn profile(&self, exact: &[u32], pages: usize) -> PageProfile {
        let mut counts = exact.to_vec();
        counts.resize(pages * self.sockets, 0);
        PageProfile {
            sockets: self.sockets,
            counts,
        }
    }
}
