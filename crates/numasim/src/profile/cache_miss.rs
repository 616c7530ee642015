//! `cache-miss`: every N-th LLC miss of each socket (Tikir & Hollingsworth's distributed
//! on-chip monitors; default N = 512). The smallest example of docs/guide/migration.md ("Adding a
//! profiler or a policy"): a profiler is this file plus one line in the registry of `profile/mod.rs`.

use super::{EveryNth, ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `cache-miss`.
    pub struct CacheMissParams {
        /// record every N-th LLC miss of each socket
        sample_interval: u64 = 512, unit "LLC misses", Check::Range(1.0, (128u64 << 20) as f64);
    }
}

#[derive(Debug, Clone)]
pub struct CacheMiss {
    /// Every N-th LLC miss of each socket this phase.
    sampler: EveryNth,
    counts: SampledCounts,
}

impl Profiler for CacheMiss {
    const NAME: &'static str = "cache-miss";
    const SUMMARY: &'static str = "every N-th LLC miss per socket (on-chip monitors)";
    type Params = CacheMissParams;

    fn new(p: &CacheMissParams, sockets: usize) -> Self {
        CacheMiss {
            sampler: EveryNth::new(p.sample_interval, sockets),
            counts: SampledCounts::new(sockets),
        }
    }
    fn sample_interval(p: &CacheMissParams) -> u64 {
        p.sample_interval
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, _: &Access, mem: bool, phase: &mut ObserverCounts) {
        // Only LLC misses (`mem`) advance the socket's sampling clock.
        if mem && self.sampler.tick(socket) {
            self.counts.bump(page as usize, socket, 1, phase);
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        self.sampler.restart();
        0
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Observer, ProfilerKind};
    use numasim_trace::Access;
    use std::collections::BTreeMap;

    #[test]
    fn samples_every_nth_llc_miss_of_each_socket_and_is_registered() {
        let params = BTreeMap::from([("sample_interval".to_string(), toml::Value::Integer(3))]);
        let mut o = Observer::new(ProfilerKind::from_name("cache-miss").unwrap(), 2, &params);
        let a = Access::read(0, 0, 8);
        for i in 0..6u32 {
            o.observe(0, i, &a, true); // socket 0: misses 3 and 6 are sampled (pages 2, 5)
            o.observe(1, 0, &a, false); // LLC hits are not counted
        }
        o.observe(1, 1, &a, true); // socket 1's first miss: not sampled
        let p = o.profile(&[], 6);
        assert_eq!(p.counts.iter().map(|&c| u64::from(c)).sum::<u64>(), 2);
        assert_eq!((p.row(2), p.row(5)), (&[1, 0][..], &[1, 0][..]));
        let (_, counts) = o.end_phase(6, &[], 0);
        assert_eq!(counts.samples, 2);
        assert!(o.profile(&[], 6).counts.iter().all(|&c| c == 0), "a phase starts empty");
    }
}
