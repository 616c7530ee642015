//! `tlb-content` and `atc`: periodic reads of each socket's TLB.
//!
//! - `tlb-content`: every N translations of a socket, +1 for each valid TLB entry (16K).
//! - `atc`: Address Translation Counters: a counter per TLB entry counts translations it
//!   served and is cleared on eviction; every N translations the valid entries' counters are
//!   read into the profile and cleared (16K).

use super::tlb::{self, Tlb, TlbParams};
use super::{EveryNth, ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `tlb-content` and `atc`.
    pub struct TlbSampleParams {
        /// read the socket's TLB every N translations
        sample_interval: u64 = 16 * 1024, unit "translations", Check::Range(1.0, (128u64 << 20) as f64);
        ..tlb: TlbParams,
    }
}

/// TLB sampler; `ATC`: entries carry translation counters.
#[derive(Debug, Clone)]
pub struct TlbSampler<const ATC: bool> {
    /// Every N-th translation of each socket this phase.
    sampler: EveryNth,
    tlbs: Vec<Tlb>,
    counts: SampledCounts,
}

pub type TlbContent = TlbSampler<false>;
pub type Atc = TlbSampler<true>;

impl<const ATC: bool> TlbSampler<ATC> {
    fn sample_tlb(&mut self, socket: usize, phase: &mut ObserverCounts) {
        let entries: Vec<(usize, u32)> = self.tlbs[socket].valid().collect();
        for (slot, page) in entries {
            if ATC {
                let c = std::mem::take(&mut self.tlbs[socket].count[slot]);
                if c > 0 {
                    self.counts.bump(page as usize, socket, c, phase);
                }
            } else {
                self.counts.bump(page as usize, socket, 1, phase);
            }
        }
    }
}

impl<const ATC: bool> Profiler for TlbSampler<ATC> {
    const NAME: &'static str = if ATC { "atc" } else { "tlb-content" };
    const SUMMARY: &'static str = if ATC {
        "Address Translation Counters read every N translations"
    } else {
        "valid TLB entries every N translations"
    };
    type Params = TlbSampleParams;

    fn new(p: &TlbSampleParams, sockets: usize) -> Self {
        TlbSampler {
            sampler: EveryNth::new(p.sample_interval, sockets),
            tlbs: tlb::per_socket(&p.tlb, sockets),
            counts: SampledCounts::new(sockets),
        }
    }
    fn sample_interval(p: &TlbSampleParams) -> u64 {
        p.sample_interval
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, _: bool, phase: &mut ObserverCounts) {
        let t = self.tlbs[socket].translate(page);
        if !t.hit {
            phase.tlb_misses += 1;
        }
        if ATC {
            let c = &mut self.tlbs[socket].count[t.slot];
            *c = c.saturating_add(1);
        }
        if self.sampler.tick(socket) {
            self.sample_tlb(socket, phase);
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
