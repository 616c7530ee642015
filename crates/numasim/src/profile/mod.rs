//! Access profilers: what a migration policy may know about who touches which page.
//!
//! A closed set ([`ProfilerKind`]), chosen by name in `[migration] profiler = "..."`. Each one
//! watches the simulator through the [`Observer`] hook and ends a phase with a
//! [`PageProfile`] (estimated accesses per page per socket), so any profiler can feed any
//! page-level policy:
//!
//! - `perfect`: every memory access (LLC miss) of every page, per socket — StarNUMA's
//!   zero-cost baseline knowledge. Read straight from [`crate::stats::PageStats`].
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
//! allocates except when a new page first appears.

pub mod page_profile;
pub mod tlb;

pub use page_profile::PageProfile;
use tlb::Tlb;

use numasim_trace::Access;

/// The closed set of profilers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProfilerKind {
    Perfect,
    Full,
    TrackerT16,
    TrackerT0,
    Interconnect,
    CacheMiss,
    TlbMiss,
    TlbContent,
    Atc,
    HydmSampling,
    HintingFaults,
}

impl ProfilerKind {
    pub const ALL: [ProfilerKind; 11] = [
        ProfilerKind::Perfect,
        ProfilerKind::Full,
        ProfilerKind::TrackerT16,
        ProfilerKind::TrackerT0,
        ProfilerKind::Interconnect,
        ProfilerKind::CacheMiss,
        ProfilerKind::TlbMiss,
        ProfilerKind::TlbContent,
        ProfilerKind::Atc,
        ProfilerKind::HydmSampling,
        ProfilerKind::HintingFaults,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ProfilerKind::Perfect => "perfect",
            ProfilerKind::Full => "full",
            ProfilerKind::TrackerT16 => "tracker-t16",
            ProfilerKind::TrackerT0 => "tracker-t0",
            ProfilerKind::Interconnect => "interconnect",
            ProfilerKind::CacheMiss => "cache-miss",
            ProfilerKind::TlbMiss => "tlb-miss",
            ProfilerKind::TlbContent => "tlb-content",
            ProfilerKind::Atc => "atc",
            ProfilerKind::HydmSampling => "hydm-sampling",
            ProfilerKind::HintingFaults => "hinting-faults",
        }
    }

    pub fn from_name(name: &str) -> Option<ProfilerKind> {
        ProfilerKind::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether the profiler takes a `sample_interval`.
    pub fn samples(self) -> bool {
        matches!(
            self,
            ProfilerKind::Interconnect
                | ProfilerKind::CacheMiss
                | ProfilerKind::TlbMiss
                | ProfilerKind::TlbContent
                | ProfilerKind::Atc
                | ProfilerKind::HydmSampling
        )
    }

    /// Default sampling interval (Tikir & Hollingsworth Table 5 where given).
    pub fn default_interval(self) -> u64 {
        match self {
            ProfilerKind::Interconnect => 1024,
            ProfilerKind::CacheMiss => 512,
            ProfilerKind::TlbMiss => 1,
            ProfilerKind::TlbContent | ProfilerKind::Atc => 16 * 1024,
            ProfilerKind::HydmSampling => 64,
            _ => 1,
        }
    }

    /// Whether the profiler needs the per-socket TLB model.
    pub fn uses_tlb(self) -> bool {
        matches!(
            self,
            ProfilerKind::TrackerT16
                | ProfilerKind::TrackerT0
                | ProfilerKind::TlbMiss
                | ProfilerKind::TlbContent
                | ProfilerKind::Atc
        )
    }

    /// Whether the profile is read from the simulator's exact per-page counters.
    pub fn exact_memory_counts(self) -> bool {
        matches!(
            self,
            ProfilerKind::Perfect | ProfilerKind::TrackerT16 | ProfilerKind::TrackerT0
        )
    }

    /// One-line description for listings.
    pub fn summary(self) -> &'static str {
        match self {
            ProfilerKind::Perfect => "every memory access per page per socket (zero cost)",
            ProfilerKind::Full => "every access before the LLC (full reference history)",
            ProfilerKind::TrackerT16 => "StarNUMA T16 region tracker: LLC misses per region, annex traffic counted",
            ProfilerKind::TrackerT0 => "StarNUMA T0 region tracker: sharer bits only",
            ProfilerKind::Interconnect => "every N-th memory transaction system-wide (Sun Fire Link)",
            ProfilerKind::CacheMiss => "every N-th LLC miss per socket (on-chip monitors)",
            ProfilerKind::TlbMiss => "every N-th TLB miss per socket",
            ProfilerKind::TlbContent => "valid TLB entries every N translations",
            ProfilerKind::Atc => "Address Translation Counters read every N translations",
            ProfilerKind::HydmSampling => "every N-th memory access, with flops and page faults per window",
            ProfilerKind::HintingFaults => "AutoNUMA hinting faults on a scanned fraction of pages",
        }
    }
}

/// Settings of the observer.
#[derive(Debug, Clone)]
pub struct ObserverConfig {
    pub kind: ProfilerKind,
    pub sockets: usize,
    pub sample_interval: u64,
    pub tlb_entries: usize,
    pub scan_fraction: f64,
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

/// The per-access hook and the state of the chosen profiler.
#[derive(Debug, Clone)]
pub struct Observer {
    cfg: ObserverConfig,
    interval: u64,
    known_pages: usize,
    /// Sampled profile of the phase (unused for exact-count profilers).
    counts: Vec<u32>,
    tlbs: Vec<Tlb>,
    /// Per-socket event counters for per-socket sampling.
    ticks: Vec<u64>,
    global_tick: u64,
    // HyDM
    pub flops: Vec<u64>,
    pub faulted: Vec<bool>,
    // AutoNUMA
    poisoned: Vec<bool>,
    /// Socket of each page's last hinting fault (`u16`: machines have up to 4096 sockets).
    last_fault: Vec<u16>,
    scan_cursor: usize,
    // In-flight pages
    inflight_until: Vec<u64>,
    inflight_pages: Vec<u32>,
    phase_mem_accesses: u64,
    pub phase: ObserverCounts,
    /// More observers fed the same accesses (`numasim analyze profile` runs every source at once).
    pub also: Vec<Observer>,
}

impl Observer {
    pub fn new(cfg: ObserverConfig) -> Self {
        let tlbs = if cfg.kind.uses_tlb() {
            (0..cfg.sockets).map(|_| Tlb::new(cfg.tlb_entries)).collect()
        } else {
            Vec::new()
        };
        Observer {
            interval: cfg.sample_interval.max(1),
            ticks: vec![0; cfg.sockets],
            cfg,
            known_pages: 0,
            counts: Vec::new(),
            tlbs,
            global_tick: 0,
            flops: Vec::new(),
            faulted: Vec::new(),
            poisoned: Vec::new(),
            last_fault: Vec::new(),
            scan_cursor: 0,
            inflight_until: Vec::new(),
            inflight_pages: Vec::new(),
            phase_mem_accesses: 0,
            phase: ObserverCounts::default(),
            also: Vec::new(),
        }
    }

    pub fn kind(&self) -> ProfilerKind {
        self.cfg.kind
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, page: usize) {
        let n = page + 1;
        let s = self.cfg.sockets;
        self.counts.resize(n * s, 0);
        self.inflight_until.resize(n, 0);
        if self.cfg.kind == ProfilerKind::HydmSampling {
            self.flops.resize(n, 0);
            self.faulted.resize(n, false);
            self.faulted[self.known_pages..n].iter_mut().for_each(|f| *f = true);
        }
        if self.cfg.kind == ProfilerKind::HintingFaults {
            self.poisoned.resize(n, false);
            self.last_fault.resize(n, u16::MAX);
        }
        self.known_pages = n;
    }

    #[inline]
    fn bump(&mut self, page: usize, socket: usize, by: u32) {
        let c = &mut self.counts[page * self.cfg.sockets + socket];
        *c = c.saturating_add(by);
        self.phase.samples += 1;
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
            if self.inflight_until[p] > self.phase_mem_accesses {
                self.phase.stalled_accesses += 1;
            }
        }
        match self.cfg.kind {
            ProfilerKind::Perfect => {}
            ProfilerKind::Full => self.bump(p, socket, 1),
            ProfilerKind::TrackerT16 | ProfilerKind::TrackerT0 => {
                let t = self.tlbs[socket].translate(page);
                if t.evicted_count > 0 {
                    self.phase.tracker_updates += 1;
                }
                if !t.hit {
                    self.phase.tlb_misses += 1;
                }
                if mem {
                    let c = &mut self.tlbs[socket].count[t.slot];
                    *c = c.saturating_add(1);
                }
            }
            ProfilerKind::Interconnect => {
                if mem {
                    self.global_tick += 1;
                    if self.global_tick.is_multiple_of(self.interval) {
                        self.bump(p, socket, 1);
                    }
                }
            }
            ProfilerKind::CacheMiss => {
                if mem {
                    self.ticks[socket] += 1;
                    if self.ticks[socket].is_multiple_of(self.interval) {
                        self.bump(p, socket, 1);
                    }
                }
            }
            ProfilerKind::TlbMiss => {
                if !self.tlbs[socket].translate(page).hit {
                    self.phase.tlb_misses += 1;
                    self.ticks[socket] += 1;
                    if self.ticks[socket].is_multiple_of(self.interval) {
                        self.bump(p, socket, 1);
                    }
                }
            }
            ProfilerKind::TlbContent | ProfilerKind::Atc => {
                let t = self.tlbs[socket].translate(page);
                if !t.hit {
                    self.phase.tlb_misses += 1;
                }
                let atc = self.cfg.kind == ProfilerKind::Atc;
                if atc {
                    let c = &mut self.tlbs[socket].count[t.slot];
                    *c = c.saturating_add(1);
                }
                self.ticks[socket] += 1;
                if self.ticks[socket].is_multiple_of(self.interval) {
                    self.sample_tlb(socket, atc);
                }
            }
            ProfilerKind::HydmSampling => {
                self.flops[p] += u64::from(a.flops);
                if mem {
                    self.global_tick += 1;
                    if self.global_tick.is_multiple_of(self.interval) {
                        self.bump(p, socket, 1);
                    }
                }
            }
            ProfilerKind::HintingFaults => {
                if self.poisoned[p] {
                    self.poisoned[p] = false;
                    self.phase.hinting_faults += 1;
                    if usize::from(self.last_fault[p]) == socket {
                        self.bump(p, socket, 1);
                    }
                    self.last_fault[p] = socket as u16;
                }
            }
        }
    }

    fn sample_tlb(&mut self, socket: usize, atc: bool) {
        let entries: Vec<(usize, u32)> = self.tlbs[socket].valid().collect();
        for (slot, page) in entries {
            if atc {
                let c = std::mem::take(&mut self.tlbs[socket].count[slot]);
                if c > 0 {
                    self.bump(page as usize, socket, c);
                }
            } else {
                self.bump(page as usize, socket, 1);
            }
        }
    }

    /// The phase's profile. `exact` is the simulator's per-page per-socket memory-access
    /// counts (`PageStats::phase_counts`), used by the exact-count profilers.
    pub fn profile(&self, exact: &[u32], pages: usize) -> PageProfile {
        let s = self.cfg.sockets;
        let mut counts = match self.cfg.kind {
            ProfilerKind::Perfect | ProfilerKind::TrackerT16 => exact.to_vec(),
            ProfilerKind::TrackerT0 => exact.iter().map(|&c| u32::from(c > 0)).collect(),
            _ => self.counts.clone(),
        };
        counts.resize(pages * s, 0);
        PageProfile { sockets: s, counts }
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
        if matches!(self.cfg.kind, ProfilerKind::TrackerT16 | ProfilerKind::TrackerT0) {
            // The marker bit set once per phase flushes every annex with a non-zero count.
            for t in &mut self.tlbs {
                for c in &mut t.count {
                    if *c > 0 {
                        self.phase.tracker_updates += 1;
                        *c = 0;
                    }
                }
            }
        }
        if pages > self.known_pages && pages > 0 {
            self.grow(pages - 1);
        }
        let counts = self.phase;
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.flops.iter_mut().for_each(|f| *f = 0);
        self.faulted.iter_mut().for_each(|f| *f = false);
        self.ticks.iter_mut().for_each(|t| *t = 0);
        self.global_tick = 0;
        self.phase_mem_accesses = 0;
        for &p in &self.inflight_pages {
            self.inflight_until[p as usize] = 0;
        }
        self.inflight_pages.clear();
        if !moved_in_order.is_empty() {
            if !self.tlbs.is_empty() {
                let mut flag = vec![false; self.known_pages];
                for &p in moved_in_order {
                    flag[p as usize] = true;
                }
                for t in &mut self.tlbs {
                    t.invalidate(&flag);
                }
            }
            for (k, &p) in moved_in_order.iter().enumerate() {
                self.inflight_until[p as usize] = (k as u64 + 1).saturating_mul(inflight_accesses_per_page);
                self.inflight_pages.push(p);
            }
        }
        let mut scanned = 0;
        if self.cfg.kind == ProfilerKind::HintingFaults && self.known_pages > 0 {
            let n = ((self.cfg.scan_fraction * self.known_pages as f64).ceil() as usize).min(self.known_pages);
            for _ in 0..n {
                if self.scan_cursor >= self.known_pages {
                    self.scan_cursor = 0;
                }
                self.poisoned[self.scan_cursor] = true;
                self.scan_cursor += 1;
            }
            scanned = n as u64;
        }
        self.phase = ObserverCounts::default();
        (scanned, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(kind: ProfilerKind, interval: u64) -> Observer {
        Observer::new(ObserverConfig {
            kind,
            sockets: 2,
            sample_interval: interval,
            tlb_entries: 4,
            scan_fraction: 1.0,
        })
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
        // Issue 15 item 9: the filter kept sockets in a u8, so 256 passed for 0.
        let mut o = Observer::new(ObserverConfig {
            kind: ProfilerKind::HintingFaults,
            sockets: 300,
            sample_interval: 1,
            tlb_entries: 4,
            scan_fraction: 1.0,
        });
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
