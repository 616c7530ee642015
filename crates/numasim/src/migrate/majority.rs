//! "Move each page to its most frequent accessor": StarNUMA's baseline and Tikir's policy.
//!
//! Both read a page profile and send a page to the local node of the socket with the most
//! profiled accesses (ties: lowest socket).
//! - `perfect-baseline` (StarNUMA §IV-C): the baseline system's migration with zero-cost
//!   per-socket knowledge of every access; candidates are taken in order of remote accesses
//!   they would make local (most first) up to the per-phase page limit.
//! - `tikir` (Tikir & Hollingsworth §3): every page the profile saw is a candidate at every
//!   interval, no minimum threshold (`min_accesses` = 0), and a migrated page is frozen for
//!   `freeze_intervals` intervals to prevent ping-ponging. No victim eviction: a move to a full
//!   node is skipped (their scheme stops moving pages when memory runs short).

use super::mechanism::Ctx;
use super::{rng::SplitMix64, BoundaryInput, Policy, PolicyEnv};
use numasim_config::declare_params;
use crate::profile::{PageProfile, ProfilerKind};

declare_params! {
    /// Parameters of `perfect-baseline`.
    pub struct PerfectBaselineParams {
        /// per-phase limit of pages migrated; candidates with the most remote accesses first
        migration_limit_pages: u64 = 262_144, unit "pages", Check::Range(0.0, 1e12);
    }
}

declare_params! {
    /// Parameters of `tikir`.
    pub struct TikirParams {
        /// intervals a migrated page stays frozen (paper: 3)
        freeze_intervals: u64 = 3, unit "intervals", Check::Range(0.0, 1e6);
        /// minimum profiled accesses to consider a page (paper: none, 0)
        min_accesses: u64 = 0, unit "accesses", Check::Range(0.0, 1e12);
    }
}

/// StarNUMA's baseline migration.
#[derive(Debug, Clone)]
pub struct PerfectBaseline(Majority);

impl Policy for PerfectBaseline {
    const NAME: &'static str = "perfect-baseline";
    const SUMMARY: &'static str =
        "StarNUMA's baseline: each page to its most frequent accessor's local node (zero-cost knowledge)";
    const PAPER: &'static str = "starnuma-memory-pooling §IV-C (baseline system migration)";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::Perfect;
    type Params = PerfectBaselineParams;

    fn new(p: &PerfectBaselineParams, _: &PolicyEnv) -> Self {
        PerfectBaseline(Majority::baseline(p.migration_limit_pages))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        // §IV-C: the baseline's decisions are free ("zero-cost migration decisions"); only its
        // moves are charged, so the page scan costs no OS-thread cycles.
        let scanned = ctx.scanned;
        self.0.decide(ctx, input.profile);
        ctx.scanned = scanned;
        serde_json::Value::Null
    }
}

/// Tikir & Hollingsworth's policy.
#[derive(Debug, Clone)]
pub struct Tikir(Majority);

impl Policy for Tikir {
    const NAME: &'static str = "tikir";
    const SUMMARY: &'static str = "Tikir & Hollingsworth: each page to its most frequent accessor every interval, no threshold, \
         freeze migrated pages";
    const PAPER: &'static str = "hardware-monitors-dynamic-page-migration §3, §5";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::Perfect;
    type Params = TikirParams;

    fn new(p: &TikirParams, _: &PolicyEnv) -> Self {
        Tikir(Majority::tikir(p.freeze_intervals, p.min_accesses))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        self.0.decide(ctx, input.profile);
        serde_json::Value::Null
    }
}

#[derive(Debug, Clone)]
pub struct Majority {
    /// Per-phase page limit (`u64::MAX` = none).
    pub limit_pages: u64,
    pub freeze_intervals: u64,
    pub min_accesses: u64,
    /// Phase number until which a page is frozen (exclusive).
    frozen_until: Vec<u64>,
    /// Rank candidates by benefit (perfect-baseline) rather than page order (tikir).
    pub ranked: bool,
}

impl Majority {
    pub fn baseline(limit_pages: u64) -> Self {
        Majority {
            limit_pages,
            freeze_intervals: 0,
            min_accesses: 0,
            frozen_until: Vec::new(),
            ranked: true,
        }
    }

    pub fn tikir(freeze_intervals: u64, min_accesses: u64) -> Self {
        Majority {
            limit_pages: u64::MAX,
            freeze_intervals,
            min_accesses,
            frozen_until: Vec::new(),
            ranked: false,
        }
    }

    pub fn decide(&mut self, ctx: &mut Ctx, prof: &PageProfile) {
        let pages = ctx.pages().min(prof.pages());
        self.frozen_until.resize(ctx.pages(), 0);
        ctx.scanned += pages as u64;
        // (benefit, page, destination)
        let mut cands: Vec<(u64, u32, usize)> = Vec::new();
        for p in 0..pages {
            let total = prof.total(p);
            if total == 0 || total < self.min_accesses || self.frozen_until[p] > ctx.phase {
                continue;
            }
            let Some(top) = prof.top_socket(p) else { continue };
            let dest = ctx.mach.local_node[top];
            let home = ctx.home(p);
            if dest == home {
                continue;
            }
            let row = prof.row(p);
            let local_now: u64 = ctx.mach.attached_socket[home].map_or(0, |s| u64::from(row[s]));
            cands.push((u64::from(row[top]).saturating_sub(local_now), p as u32, dest));
        }
        if self.ranked {
            cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        let mut moved = 0u64;
        for (_, p, dest) in cands {
            if moved >= self.limit_pages {
                break;
            }
            if ctx.move_page(p, dest) {
                moved += 1;
                self.frozen_until[p as usize] = ctx.phase + 1 + self.freeze_intervals;
            }
        }
    }
}
