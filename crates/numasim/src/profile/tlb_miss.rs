//! `tlb-miss`: every N-th TLB miss of each socket (default: every miss), on the per-socket
//! TLB model.

use super::tlb::{self, Tlb, TlbParams};
use super::{EveryNth, ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `tlb-miss`.
    pub struct TlbMissParams {
        /// record every N-th TLB miss of each socket
        sample_interval: u64 = 1, unit "TLB misses", Check::Range(1.0, (128u64 << 20) as f64);
        ..tlb: TlbParams,
    }
}

#[derive(Debug, Clone)]
pub struct TlbMiss {
    /// Every N-th TLB miss of each socket this phase.
    sampler: EveryNth,
    tlbs: Vec<Tlb>,
    counts: SampledCounts,
}

impl Profiler for TlbMiss {
    const NAME: &'static str = "tlb-miss";
    const SUMMARY: &'static str = "every N-th TLB miss per socket";
    type Params = TlbMissParams;

    fn new(p: &TlbMissParams, sockets: usize) -> Self {
        TlbMiss {
            sampler: EveryNth::new(p.sample_interval, sockets),
            tlbs: tlb::per_socket(&p.tlb, sockets),
            counts: SampledCounts::new(sockets),
        }
    }
    fn sample_interval(p: &TlbMissParams) -> u64 {
        p.sample_interval
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, _: bool, phase: &mut ObserverCounts) {
        if !self.tlbs[socket].translate(page).hit {
            phase.tlb_misses += 1;
            if self.sampler.tick(socket) {
                self.counts.bump(page as usize, socket, 1, phase);
            }
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, known_pages: usize, moved: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        self.sampler.restart();
        tlb::shoot_down(&mut self.tlbs, known_pages, moved);
        0
    }
}
