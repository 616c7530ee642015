//! `hydm-sampling`: every N-th memory access system-wide (perf-style period sampling,
//! default 64), plus per-page flops (from `Access::flops`) and page faults (first touches)
//! per window, for HyDM's arithmetic-intensity regression and page-fault filter.

use super::{ObserverCounts, PageProfile, Profiler, SampledCounts, WindowInputs};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `hydm-sampling`.
    pub struct HydmSamplingParams {
        /// record every N-th memory access of the whole machine
        sample_interval: u64 = 64, unit "memory accesses", Check::Range(1.0, (128u64 << 20) as f64);
    }
}

#[derive(Debug, Clone)]
pub struct HydmSampling {
    interval: u64,
    tick: u64,
    counts: SampledCounts,
    window: WindowInputs,
}

impl Profiler for HydmSampling {
    const NAME: &'static str = "hydm-sampling";
    const SUMMARY: &'static str = "every N-th memory access, with flops and page faults per window";
    type Params = HydmSamplingParams;

    fn new(p: &HydmSamplingParams, sockets: usize) -> Self {
        HydmSampling {
            interval: p.sample_interval.max(1),
            tick: 0,
            counts: SampledCounts::new(sockets),
            window: WindowInputs::default(),
        }
    }
    fn sample_interval(p: &HydmSamplingParams) -> u64 {
        p.sample_interval
    }
    fn grow(&mut self, old: usize, new: usize) {
        self.counts.grow(new);
        self.window.flops.resize(new, 0);
        self.window.faulted.resize(new, false);
        // A page appearing is a page fault (first touch).
        self.window.faulted[old..new].iter_mut().for_each(|f| *f = true);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, a: &Access, mem: bool, phase: &mut ObserverCounts) {
        let p = page as usize;
        self.window.flops[p] += u64::from(a.flops);
        if mem {
            self.tick += 1;
            if self.tick.is_multiple_of(self.interval) {
                self.counts.bump(p, socket, 1, phase);
            }
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        self.window.flops.iter_mut().for_each(|f| *f = 0);
        self.window.faulted.iter_mut().for_each(|f| *f = false);
        self.tick = 0;
        0
    }
    fn take_window(&mut self) -> WindowInputs {
        std::mem::take(&mut self.window)
    }
    fn restore_window(&mut self, mut window: WindowInputs) {
        if self.window.flops.is_empty() {
            window.flops.iter_mut().for_each(|f| *f = 0);
            self.window.flops = window.flops;
        }
        if self.window.faulted.is_empty() {
            self.window.faulted = window.faulted;
        }
    }
}
