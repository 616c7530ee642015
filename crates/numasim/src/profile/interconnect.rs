//! `interconnect`: every N-th memory transaction system-wide (Sun Fire Link interval
//! sampling, Tikir & Hollingsworth; default N = 1024).

use super::{ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `interconnect`.
    pub struct InterconnectParams {
        /// record every N-th memory transaction of the whole machine
        sample_interval: u64 = 1024, unit "transactions", Check::Range(1.0, (128u64 << 20) as f64);
    }
}

#[derive(Debug, Clone)]
pub struct Interconnect {
    interval: u64,
    tick: u64,
    counts: SampledCounts,
}

impl Profiler for Interconnect {
    const NAME: &'static str = "interconnect";
    const SUMMARY: &'static str = "every N-th memory transaction system-wide (Sun Fire Link)";
    type Params = InterconnectParams;

    fn new(p: &InterconnectParams, sockets: usize) -> Self {
        Interconnect {
            interval: p.sample_interval.max(1),
            tick: 0,
            counts: SampledCounts::new(sockets),
        }
    }
    fn sample_interval(p: &InterconnectParams) -> u64 {
        p.sample_interval
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, mem: bool, phase: &mut ObserverCounts) {
        if mem {
            self.tick += 1;
            if self.tick.is_multiple_of(self.interval) {
                self.counts.bump(page as usize, socket, 1, phase);
            }
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        self.tick = 0;
        0
    }
}
