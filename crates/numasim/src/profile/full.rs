//! `full`: every access before the LLC (Tikir & Hollingsworth's "full memory access
//! history"; includes LLC hits).

use super::{ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_trace::Access;

#[derive(Debug, Clone)]
pub struct Full {
    counts: SampledCounts,
}

impl Profiler for Full {
    const NAME: &'static str = "full";
    const SUMMARY: &'static str = "every access before the LLC (full reference history)";
    type Params = ();

    fn new(_: &(), sockets: usize) -> Self {
        Full {
            counts: SampledCounts::new(sockets),
        }
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, _: bool, phase: &mut ObserverCounts) {
        self.counts.bump(page as usize, socket, 1, phase);
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        0
    }
}
