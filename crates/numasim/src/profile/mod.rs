//! Access profilers: what a migration policy may know about who touches which page.
//!
//! Each profiler is one file implementing [`Profiler`], listed by one line in the registry
//! (`profilers!` below), and chosen by name in `[migration] profiler = "..."`. Each one
//! watches the simulator through the [`Observer`] hook and ends a phase with a
//! [`PageProfile`] (estimated accesses per page per socket), so any profiler can feed any
//! page-level policy:
//!
//! - `perfect`: every memory access (LLC miss) of every page, per socket — StarNUMA's
//!   zero-cost baseline knowledge. Read straight from [`crate::stats::PageStats`].
//! - `perfect-next`: the *next* interval's memory accesses (Tikir & Hollingsworth's perfect
//!   profile, a look-ahead oracle; the driver records them in a first pass).
//! - `full`: every access before the LLC (Tikir & Hollingsworth's "full memory access
//!   history"; includes LLC hits).
//! - `tracker-t16` / `tracker-t0`: StarNUMA's region trackers (§III-D1). They count LLC
//!   misses reaching memory, exactly, per page (the policy sums pages into regions); T0 keeps
//!   only whether a socket touched a page. Their cost is modelled: each socket's TLB model
//!   carries the counter annex, and every annex flush (eviction of an entry with a non-zero
//!   count, or the once-per-phase marker flush) is one read-modify-write of the in-memory
//!   metadata, reported as `tracker_update_accesses` (2 memory accesses per flush). The
//!   profile itself is taken as exact: the annex never saturates and every flush lands before
//!   the scan (simplification; documented).
//! - `interconnect`: every N-th memory transaction system-wide (Sun Fire Link interval
//!   sampling; default N = 1024).
//! - `interconnect-maxrate`: maximum-rate sampling: each socket's transactions fill a buffer
//!   the software empties at a fixed rate; transactions that find it full are lost.
//! - `cache-miss`: every N-th LLC miss of each socket (distributed on-chip monitors; 512).
//! - `tlb-miss`: every N-th TLB miss of each socket (default every miss).
//! - `tlb-content`: every N translations of a socket, +1 for each valid TLB entry (16K).
//! - `atc`: Address Translation Counters: a counter per TLB entry counts translations it
//!   served and is cleared on eviction; every N translations the valid entries' counters are
//!   read into the profile and cleared (16K).
//! - `hydm-sampling`: every N-th memory access system-wide (perf-style period sampling,
//!   default 64), plus per-page flops (from `Access::flops`) and page faults (first touches)
//!   per window, for HyDM's arithmetic-intensity regression and page-fault filter.
//! - `hinting-faults`: AutoNUMA: at each boundary a fraction of pages is poisoned; the next
//!   access to a poisoned page (from any socket, cached or not: the PTE is checked) is a
//!   hinting fault. Linux's two-stage filter: a fault counts in the profile only when the
//!   previous fault on that page came from the same socket.
//!
//! Hot-path contract: with no policy the simulator checks one boolean per access; with one,
//! the observer runs out of line (the simulator's hook calling [`Observer::observe`] is
//! `#[inline(never)]`) and never
//! allocates except when a new page first appears. The registry generates a closed enum of the
//! registered profilers ([`ProfilerKind`], and the state `AnyProfiler`), so the per-access call
//! is one `match` on that enum into code monomorphised per profiler: no `dyn` call, no box.
//!
//! Parameters: each profiler's `Params` is a `numasim_config::declare_params!` struct; the
//! registry gives `[migration]` validation and `numasim policy list` its table
//! ([`ProfilerKind::params`]). A new profiler is one file here plus one registry line.

pub mod page_profile;
pub mod tlb;

pub use page_profile::PageProfile;

use numasim_config::param::{ParamDef, ParamSet};
use numasim_trace::Access;
use std::collections::BTreeMap;

/// A profiler: the state it keeps while it watches accesses, and the profile it ends a phase
/// with. Implemented by one type per file in this module and listed in the registry below.
pub trait Profiler: Sized + Clone + std::fmt::Debug {
    /// The name `[migration] profiler = "..."` takes.
    const NAME: &'static str;
    /// One line for `numasim policy list`.
    const SUMMARY: &'static str;
    /// Its `[migration]` parameters (`()` for none).
    type Params: ParamSet;
    /// Whether it reads the next interval (`set_lookahead`): the driver then runs a first
    /// pass that records every phase.
    const LOOKS_AHEAD: bool = false;

    fn new(params: &Self::Params, sockets: usize) -> Self;
    /// Page ids `old..new` appeared (before their first [`Profiler::observe`]); page-indexed
    /// state grows here, never per access.
    fn grow(&mut self, _old: usize, _new: usize) {}
    /// One access to `page` by `socket`; `mem` says whether it reached memory. Side counts go
    /// to `phase`.
    fn observe(&mut self, socket: usize, page: u32, a: &Access, mem: bool, phase: &mut ObserverCounts);
    /// The phase's profile. `exact` is the simulator's per-page per-socket memory-access
    /// counts (`PageStats::phase_counts`), for the profilers that read them.
    fn profile(&self, exact: &[u32], pages: usize) -> PageProfile;
    /// Ends the phase: flush and clear the phase's state, shoot down TLB entries of `moved`
    /// pages, and return the pages scanned (hinting faults' poisoning).
    fn end_phase(&mut self, _known_pages: usize, _moved: &[u32], _phase: &mut ObserverCounts) -> u64 {
        0
    }
    /// The sampling interval a policy may scale counts by (HyDM); 1 when it does not sample.
    fn sample_interval(_params: &Self::Params) -> u64 {
        1
    }
    /// Per-page flops and first-touch flags of the window (HyDM's inputs), taken out for the
    /// policy and given back by [`Profiler::restore_window`]; empty for other profilers.
    fn take_window(&mut self) -> WindowInputs {
        WindowInputs::default()
    }
    fn restore_window(&mut self, _window: WindowInputs) {}
    /// Look-ahead profilers only (`perfect-next`): the next interval's counts, handed over by
    /// the driver before the boundary.
    fn set_lookahead(&mut self, _next: PageProfile) {}
}

/// Per-page inputs of the window besides the profile (only `hydm-sampling` fills them).
#[derive(Debug, Clone, Default)]
pub struct WindowInputs {
    pub flops: Vec<u64>,
    pub faulted: Vec<bool>,
}

/// The registry: `file: Type, ...;` per line. Generates the `pub mod` of each file, the
/// closed [`ProfilerKind`] (names, summaries, parameter tables) and `AnyProfiler`, the enum
/// of their states the observer dispatches on.
macro_rules! profilers {
    ($( $module:ident : $($ty:ident),+ ; )*) => {
        $( pub mod $module; )*

        /// The registered profilers, in registry order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ProfilerKind { $($( $ty, )+)* }

        impl ProfilerKind {
            pub const ALL: [ProfilerKind; [$($(stringify!($ty),)+)*].len()] = [$($(ProfilerKind::$ty,)+)*];

            pub fn name(self) -> &'static str {
                match self { $($( ProfilerKind::$ty => <$module::$ty as Profiler>::NAME, )+)* }
            }
            /// Whether it reads the next interval (a first pass records every phase).
            pub fn looks_ahead(self) -> bool {
                match self { $($( ProfilerKind::$ty => <$module::$ty as Profiler>::LOOKS_AHEAD, )+)* }
            }
            /// One-line description for listings.
            pub fn summary(self) -> &'static str {
                match self { $($( ProfilerKind::$ty => <$module::$ty as Profiler>::SUMMARY, )+)* }
            }
            /// Its `[migration]` parameters, as declared.
            pub fn params(self) -> Vec<ParamDef> {
                match self { $($( ProfilerKind::$ty => <<$module::$ty as Profiler>::Params as ParamSet>::defs(), )+)* }
            }
            /// Its sampling interval under the resolved `[migration]` table (1: no sampling).
            pub fn sample_interval(self, table: &BTreeMap<String, toml::Value>) -> u64 {
                match self {
                    $($( ProfilerKind::$ty => <$module::$ty as Profiler>::sample_interval(
                        &<<$module::$ty as Profiler>::Params as ParamSet>::from_table(table)), )+)*
                }
            }
            fn build(self, table: &BTreeMap<String, toml::Value>, sockets: usize) -> AnyProfiler {
                match self {
                    $($( ProfilerKind::$ty => AnyProfiler::$ty(<$module::$ty as Profiler>::new(
                        &<<$module::$ty as Profiler>::Params as ParamSet>::from_table(table), sockets)), )+)*
                }
            }
        }

        /// The chosen profiler's state.
        #[derive(Debug, Clone)]
        #[allow(clippy::large_enum_variant)] // one per run, boxed inside the engines' Observer
        enum AnyProfiler { $($( $ty($module::$ty), )+)* }

        impl AnyProfiler {
            #[inline]
            fn observe(&mut self, socket: usize, page: u32, a: &Access, mem: bool, phase: &mut ObserverCounts) {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::observe(p, socket, page, a, mem, phase), )+)* }
            }
            fn grow(&mut self, old: usize, new: usize) {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::grow(p, old, new), )+)* }
            }
            fn profile(&self, exact: &[u32], pages: usize) -> PageProfile {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::profile(p, exact, pages), )+)* }
            }
            fn end_phase(&mut self, known_pages: usize, moved: &[u32], phase: &mut ObserverCounts) -> u64 {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::end_phase(p, known_pages, moved, phase), )+)* }
            }
            fn take_window(&mut self) -> WindowInputs {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::take_window(p), )+)* }
            }
            fn restore_window(&mut self, w: WindowInputs) {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::restore_window(p, w), )+)* }
            }
            fn set_lookahead(&mut self, next: PageProfile) {
                match self { $($( AnyProfiler::$ty(p) => <$module::$ty as Profiler>::set_lookahead(p, next), )+)* }
            }
        }
    };
}

// The registry. A new profiler: one file in this directory and one line here.
profilers! {
    perfect: Perfect;
    perfect_next: PerfectNext;
    full: Full;
    tracker: TrackerT16, TrackerT0;
    interconnect: Interconnect;
    maxrate: MaxRate;
    cache_miss: CacheMiss;
    tlb_miss: TlbMiss;
    tlb_content: TlbContent, Atc;
    hydm_sampling: HydmSampling;
    hinting_faults: HintingFaults;
}

impl ProfilerKind {
    pub fn from_name(name: &str) -> Option<ProfilerKind> {
        ProfilerKind::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Per-phase side counters reported in results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObserverCounts {
    /// Memory accesses that hit a page still in flight (moved at the previous boundary).
    pub stalled_accesses: u64,
    /// StarNUMA tracker metadata flushes (each a read-modify-write: 2 memory accesses).
    pub tracker_updates: u64,
    /// Events recorded into the profile (samples, faults...).
    pub samples: u64,
    pub tlb_misses: u64,
    pub hinting_faults: u64,
}

/// Per-socket event counters that fire on every N-th event: the clock of the interval-sampling
/// profilers (`tlb-miss`, `tlb-content`/`atc`, `cache-miss`), restarted at each phase.
#[derive(Debug, Clone)]
pub struct EveryNth {
    interval: u64,
    ticks: Vec<u64>,
}

impl EveryNth {
    /// `interval` 0 is taken as 1 (every event).
    pub fn new(interval: u64, sockets: usize) -> Self {
        EveryNth {
            interval: interval.max(1),
            ticks: vec![0; sockets],
        }
    }
    /// Counts one event of `socket`; true when it is a sampled one.
    #[inline]
    pub fn tick(&mut self, socket: usize) -> bool {
        let t = &mut self.ticks[socket];
        *t += 1;
        t.is_multiple_of(self.interval)
    }
    pub fn restart(&mut self) {
        self.ticks.iter_mut().for_each(|t| *t = 0);
    }
}

/// A sampled per-page per-socket profile: the counts most profilers build.
#[derive(Debug, Clone, Default)]
pub struct SampledCounts {
    sockets: usize,
    counts: Vec<u32>,
}

impl SampledCounts {
    pub fn new(sockets: usize) -> Self {
        SampledCounts {
            sockets,
            counts: Vec::new(),
        }
    }
    pub fn grow(&mut self, pages: usize) {
        self.counts.resize(pages * self.sockets, 0);
    }
    /// Adds `by` to (page, socket) and counts one recorded event.
    #[inline]
    pub fn bump(&mut self, page: usize, socket: usize, by: u32, phase: &mut ObserverCounts) {
        let c = &mut self.counts[page * self.sockets + socket];
        *c = c.saturating_add(by);
        phase.samples += 1;
    }
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
    }
    pub fn profile(&self, pages: usize) -> PageProfile {
        let mut counts = self.counts.clone();
        counts.resize(pages * self.sockets, 0);
        PageProfile {
            sockets: self.sockets,
            counts,
        }
    }
}

/// The per-access hook: what every profiler shares (page growth, accesses stalled on pages in
/// flight, the phase's counters, more observers fed the same accesses) around the chosen one.
#[derive(Debug, Clone)]
pub struct Observer {
    kind: ProfilerKind,
    profiler: AnyProfiler,
    known_pages: usize,
    // In-flight pages
    inflight_until: Vec<u64>,
    /// One bit per page: whether `inflight_until` of the page is non-zero. The common case
    /// (no move in flight) reads this bitmap (one bit a page, host-cache resident at gigabyte
    /// footprints) instead of an 8-byte word a page.
    inflight_bits: Vec<u64>,
    inflight_pages: Vec<u32>,
    /// The largest `inflight_until` this phase: from there on no page is in flight, and the
    /// bitmap is not read (nothing moved, or every move has landed).
    inflight_end: u64,
    phase_mem_accesses: u64,
    pub phase: ObserverCounts,
    /// More observers fed the same accesses (`numasim analyze profile` runs every source at once).
    pub also: Vec<Observer>,
}

impl Observer {
    /// The observer of profiler `kind` with its parameters read from `params` (a resolved
    /// `[migration]` table; keys it lacks take their declared defaults).
    pub fn new(kind: ProfilerKind, sockets: usize, params: &BTreeMap<String, toml::Value>) -> Self {
        Observer {
            kind,
            profiler: kind.build(params, sockets),
            known_pages: 0,
            inflight_until: Vec::new(),
            inflight_bits: Vec::new(),
            inflight_end: 0,
            inflight_pages: Vec::new(),
            phase_mem_accesses: 0,
            phase: ObserverCounts::default(),
            also: Vec::new(),
        }
    }

    pub fn kind(&self) -> ProfilerKind {
        self.kind
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, page: usize) {
        let n = page + 1;
        self.inflight_until.resize(n, 0);
        self.inflight_bits.resize(n.div_ceil(64), 0);
        self.profiler.grow(self.known_pages, n);
        self.known_pages = n;
    }

    /// Called for every access whose page id is known: `mem` says whether it reached memory
    /// (an LLC miss, or every access with the LLC filter off).
    #[inline]
    pub fn observe(&mut self, socket: usize, page: u32, a: &Access, mem: bool) {
        for o in &mut self.also {
            o.observe(socket, page, a, mem);
        }
        let p = page as usize;
        if p >= self.known_pages {
            self.grow(p);
        }
        if mem {
            self.phase_mem_accesses += 1;
            if self.phase_mem_accesses < self.inflight_end
                && self.inflight_bits[p / 64] & (1 << (p % 64)) != 0
                && self.inflight_until[p] > self.phase_mem_accesses
            {
                self.phase.stalled_accesses += 1;
            }
        }
        self.profiler.observe(socket, page, a, mem, &mut self.phase);
    }

    /// The phase's profile. `exact` is the simulator's per-page per-socket memory-access
    /// counts (`PageStats::phase_counts`), used by the exact-count profilers.
    pub fn profile(&self, exact: &[u32], pages: usize) -> PageProfile {
        self.profiler.profile(exact, pages)
    }

    /// Takes the window's per-page flops and fault flags out (HyDM reads them while the
    /// engine, which owns the observer, is borrowed for moves); see [`Observer::restore_window`].
    pub fn take_window(&mut self) -> WindowInputs {
        self.profiler.take_window()
    }

    /// The next interval's counts for a look-ahead profiler (`perfect-next`); others ignore it.
    pub fn set_lookahead(&mut self, next: PageProfile) {
        self.profiler.set_lookahead(next)
    }

    /// Gives back what [`Observer::take_window`] took, so the buffers are reused.
    pub fn restore_window(&mut self, window: WindowInputs) {
        self.profiler.restore_window(window)
    }

    /// Ends the phase: counts the tracker marker flushes, clears the phase's profile, applies
    /// shootdowns for `moved` pages (flagged by page id), sets the in-flight windows of the
    /// pages moved in order, and (hinting faults) poisons the next slice of pages. Returns the
    /// number of pages scanned by the hinting-fault scanner and the phase's counters.
    pub fn end_phase(
        &mut self,
        pages: usize,
        moved_in_order: &[u32],
        inflight_accesses_per_page: u64,
    ) -> (u64, ObserverCounts) {
        if pages > self.known_pages && pages > 0 {
            self.grow(pages - 1);
        }
        let scanned = self
            .profiler
            .end_phase(self.known_pages, moved_in_order, &mut self.phase);
        let counts = self.phase;
        self.phase_mem_accesses = 0;
        for &p in &self.inflight_pages {
            self.inflight_until[p as usize] = 0;
            self.inflight_bits[p as usize / 64] = 0;
        }
        self.inflight_pages.clear();
        self.inflight_end = 0;
        for (k, &p) in moved_in_order.iter().enumerate() {
            let until = (k as u64 + 1).saturating_mul(inflight_accesses_per_page);
            self.inflight_end = self.inflight_end.max(until);
            self.inflight_until[p as usize] = until;
            if until > 0 {
                self.inflight_bits[p as usize / 64] |= 1 << (p % 64);
            }
            self.inflight_pages.push(p);
        }
        self.phase = ObserverCounts::default();
        (scanned, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn table(interval: u64) -> BTreeMap<String, toml::Value> {
        [
            ("sample_interval", toml::Value::Integer(interval as i64)),
            ("tlb_entries", toml::Value::Integer(4)),
            ("scan_fraction", toml::Value::Float(1.0)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn obs(kind: ProfilerKind, interval: u64) -> Observer {
        Observer::new(kind, 2, &table(interval))
    }

    #[test]
    fn interconnect_samples_every_nth_memory_access_globally() {
        let mut o = obs(ProfilerKind::Interconnect, 4);
        let a = Access::read(0, 0, 8);
        for i in 0..16u32 {
            o.observe((i % 2) as usize, i % 3, &a, true);
            o.observe(0, 0, &a, false); // LLC hits are not transactions
        }
        assert_eq!(o.phase.samples, 4);
        let p = o.profile(&[], 3);
        assert_eq!(p.counts.iter().map(|&c| u64::from(c)).sum::<u64>(), 4);
    }

    #[test]
    fn hinting_faults_need_two_consecutive_faults_from_one_socket() {
        let mut o = obs(ProfilerKind::HintingFaults, 1);
        let a = Access::read(0, 0, 8);
        o.observe(0, 0, &a, true);
        o.end_phase(1, &[], 0); // poisons page 0
        o.observe(1, 0, &a, false); // fault from 1: first, not counted
        o.observe(1, 0, &a, false); // not poisoned any more
        assert_eq!(o.profile(&[], 1).counts, vec![0, 0]);
        o.end_phase(1, &[], 0);
        o.observe(1, 0, &a, true); // second fault from 1: counted
        assert_eq!(o.profile(&[], 1).counts, vec![0, 1]);
    }

    #[test]
    fn hinting_faults_tell_socket_256_from_socket_0() {
        // Regression: the filter kept sockets in a u8, so 256 passed for 0.
        let mut o = Observer::new(ProfilerKind::HintingFaults, 300, &table(1));
        let a = Access::read(0, 0, 8);
        o.observe(0, 0, &a, true);
        o.end_phase(1, &[], 0);
        o.observe(0, 0, &a, false); // fault from socket 0
        o.end_phase(1, &[], 0);
        o.observe(256, 0, &a, false); // fault from socket 256: a different socket
        assert!(o.profile(&[], 1).counts.iter().all(|&c| c == 0));
    }

    #[test]
    fn stalls_count_accesses_before_the_page_lands() {
        let mut o = obs(ProfilerKind::Perfect, 1);
        let a = Access::read(0, 0, 8);
        o.observe(0, 0, &a, true);
        o.observe(0, 1, &a, true);
        o.end_phase(2, &[1, 0], 2); // page 1 lands after 2 accesses, page 0 after 4
        for _ in 0..5 {
            o.observe(0, 0, &a, true);
        }
        assert_eq!(o.phase.stalled_accesses, 3, "accesses 1..=3 precede landing at 4");
    }

    #[test]
    fn atc_reads_translation_counts_and_clears_them() {
        let mut o = obs(ProfilerKind::Atc, 10);
        let a = Access::read(0, 0, 8);
        for i in 0..10u32 {
            o.observe(0, if i < 7 { 0 } else { 1 }, &a, false);
        }
        assert_eq!(o.profile(&[], 2).counts, vec![7, 0, 3, 0]);
    }
}
