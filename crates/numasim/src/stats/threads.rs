//! What each thread did over a run: the engines count it, per-process results sum it.
//!
//! Counted where the engines already touch the thread (per batch span in the functional
//! engine, per issue in the timing engine), so the per-access cost is an add to a field the
//! loop has in cache.

/// One thread's run totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadTotals {
    /// Accesses simulated.
    pub accesses: u64,
    /// Floating-point operations its accesses carried (`Access::flops`).
    pub flops: u64,
    /// Accesses that reached memory (missed the LLC, or every access with the filter off).
    pub llc_misses: u64,
    /// Timing mode: when the thread's last access completed (ps from the run's start).
    pub finish_ps: u64,
    /// Timing mode: LLC-miss loads and their summed latency (ps), the AMAT's terms.
    pub miss_loads: u64,
    pub miss_load_ps: u64,
}

impl ThreadTotals {
    pub fn add(&mut self, o: &ThreadTotals) {
        self.accesses += o.accesses;
        self.flops += o.flops;
        self.llc_misses += o.llc_misses;
        self.finish_ps = self.finish_ps.max(o.finish_ps);
        self.miss_loads += o.miss_loads;
        self.miss_load_ps += o.miss_load_ps;
    }
}
