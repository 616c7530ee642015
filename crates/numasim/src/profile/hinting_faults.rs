//! `hinting-faults`: AutoNUMA. At each boundary a fraction of pages is poisoned; the next
//! access to a poisoned page (from any socket, cached or not: the PTE is checked) is a hinting
//! fault. Linux's two-stage filter: a fault counts in the profile only when the previous fault
//! on that page came from the same socket.

use super::{ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `hinting-faults`.
    pub struct HintingFaultsParams {
        /// share of pages poisoned at each boundary
        scan_fraction: f64 = 0.25, unit "fraction", Check::Range(0.0, 1.0);
    }
}

#[derive(Debug, Clone)]
pub struct HintingFaults {
    scan_fraction: f64,
    counts: SampledCounts,
    poisoned: Vec<bool>,
    /// Socket of each page's last hinting fault (`u16`: machines have up to 4096 sockets).
    last_fault: Vec<u16>,
    scan_cursor: usize,
}

impl Profiler for HintingFaults {
    const NAME: &'static str = "hinting-faults";
    const SUMMARY: &'static str = "AutoNUMA hinting faults on a scanned fraction of pages";
    type Params = HintingFaultsParams;

    fn new(p: &HintingFaultsParams, sockets: usize) -> Self {
        HintingFaults {
            scan_fraction: p.scan_fraction,
            counts: SampledCounts::new(sockets),
            poisoned: Vec::new(),
            last_fault: Vec::new(),
            scan_cursor: 0,
        }
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
        self.poisoned.resize(new, false);
        self.last_fault.resize(new, u16::MAX);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, _: bool, phase: &mut ObserverCounts) {
        let p = page as usize;
        if self.poisoned[p] {
            self.poisoned[p] = false;
            phase.hinting_faults += 1;
            if usize::from(self.last_fault[p]) == socket {
                self.counts.bump(p, socket, 1, phase);
            }
            self.last_fault[p] = socket as u16;
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, known_pages: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        if known_pages == 0 {
            return 0;
        }
        let n = ((self.scan_fraction * known_pages as f64).ceil() as usize).min(known_pages);
        for _ in 0..n {
            if self.scan_cursor >= known_pages {
                self.scan_cursor = 0;
            }
            self.poisoned[self.scan_cursor] = true;
            self.scan_cursor += 1;
        }
        n as u64
    }
}
