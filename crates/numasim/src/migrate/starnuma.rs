//! StarNUMA's Algorithm 1 (§III-D2, §IV-C): threshold-based region migration, one pass.
//!
//! Every line of the pseudocode, over regions in tracker order:
//! - a region whose phase accesses reach HI is a candidate; its best location is a random
//!   sharer's local node, or the pool when it has at least `pool_sharers` sharers (line 7–10);
//! - nothing happens if it is already there (line 11) or if it is ping-ponging: migrated more
//!   than (current phase number)/4 times (line 12, footnote);
//! - if the destination lacks room, the first region located there with accesses ≤ LO is
//!   evicted to a random one of its sharers (lines 14–21);
//! - the region moves (all its pages not already there) and the migrated page count grows; the
//!   scan stops once it reaches the per-phase limit (lines 24–31). A limit of 0 disables
//!   migration (the pseudocode would still move one region; the paper's "0" means none).
//!
//! Thresholds (§IV-C: "adjust it in every migration phase as a simple function of page count
//! exceeding the threshold relative to the set migration limit"; our reading): with E the pages
//! of all regions at or above HI this phase and L the limit, HI doubles (at most ×E/L) when
//! E > L and halves when E < L/2, clamped to [hi_min, hi_max]. LO starts at `lo_start` and
//! doubles, up to `lo_max`, after a phase in which a needed victim was not found.
//!
//! Choices the paper leaves open, documented: a victim with no sharer this phase goes to a
//! random run-long sharer, else to the socket-local node with most room; a victim sharer whose
//! local node is the contested destination is not drawn. Victim moves do not count toward the
//! limit (line 25 counts only the main migration). The T0 variant (`starnuma-t0`) uses the
//! sharer count as the region's measure: HI = `hi_sharers` (16 = "touched by all sockets" on
//! the 16-socket machine), LO = `lo_sharers`, no adaptation.

use super::groups::Groups;
use super::mechanism::Ctx;
use super::rng::SplitMix64;
use super::{BoundaryInput, Policy, PolicyEnv};
use numasim_config::declare_params;
use crate::profile::{PageProfile, ProfilerKind};

declare_params! {
    /// Parameters both StarNUMA policies take.
    pub struct StarnumaCommon {
        /// tracker region size (bytes; a multiple of the page size)
        region_bytes: u64 = 512 << 10, unit "bytes", Check::Range(4096.0, (1u64 << 40) as f64);
        /// per-phase limit of pages migrated (paper: 0..256K)
        migration_limit_pages: u64 = 262_144, unit "pages", Check::Range(0.0, 1e12);
        /// a region with at least this many sharers goes to the pool
        pool_sharers: u64 = 8, unit "sockets", Check::Range(1.0, 1e6);
        /// pool capacity as a fraction of the footprint, unless `[placement]` sets one
        pool_capacity_fraction: f64 = 0.2, unit "fraction", Check::Range(0.0, 1.0);
    }
}

declare_params! {
    /// Parameters of `starnuma` (the T16 tracker's access counts).
    pub struct StarnumaParams {
        /// initial HI threshold (region accesses per phase)
        hi_start: u64 = 20_000, unit "accesses", Check::Range(1.0, 1e15);
        /// lowest HI threshold the adaptation may reach
        hi_min: u64 = 20_000, unit "accesses", Check::Range(1.0, 1e15);
        /// highest HI threshold the adaptation may reach
        hi_max: u64 = 400_000, unit "accesses", Check::Range(1.0, 1e15);
        /// initial LO (victim) threshold
        lo_start: u64 = 1_000, unit "accesses", Check::Range(0.0, 1e15);
        /// highest LO threshold the adaptation may reach
        lo_max: u64 = 10_000, unit "accesses", Check::Range(0.0, 1e15);
        /// paper (Algorithm 1 as printed) or artifact (every departure of the artifact's profiler below)
        rules: String = "paper", unit "-", Check::Words(&["paper", "artifact"]);
        /// scan order: region (paper) | accesses (artifact: most-accessed first, scan stops below HI) | rules
        candidate_order: String = "rules", unit "-", Check::Words(&["rules", "region", "accesses"]);
        /// non-pool destination: random-sharer (paper) | most-accessing socket (artifact) | rules
        destination: String = "rules", unit "-", Check::Words(&["rules", "random-sharer", "most-accessing"]);
        /// HI/LO adaptation: bounded (paper reading) | artifact (HI x3/4 or x2, LO x2 or x3/2, no bounds) | rules
        thresholds: String = "rules", unit "-", Check::Words(&["rules", "bounded", "artifact"]);
        /// a region's first home: first-toucher (paper) | random-sharer of its first phase (artifact) | rules
        new_regions: String = "rules", unit "-", Check::Words(&["rules", "first-toucher", "random-sharer"]);
        /// per-phase limit counts: pages moved (paper) | regions, victims included (artifact) | rules
        limit_counts: String = "rules", unit "-", Check::Words(&["rules", "pages", "regions-and-victims"]);
        /// ping-pong rule's phase number: ended (paper, 1-based) | zero-based (artifact) | rules
        ping_pong_phase: String = "rules", unit "-", Check::Words(&["rules", "ended", "zero-based"]);
        /// victim: first region there at or below LO (paper) | artifact (accessed this phase, below LO, highest address first, to its most-accessing socket) | rules
        victims: String = "rules", unit "-", Check::Words(&["rules", "paper", "artifact"]);
        /// pool room: pages (paper) | counter (artifact: region counter, evict after entering, overfill when no victim) | rules
        pool_accounting: String = "rules", unit "-", Check::Words(&["rules", "pages", "counter"]);
        ..common: StarnumaCommon,
    }
}

declare_params! {
    /// Parameters of `starnuma-t0` (sharer counts only).
    pub struct StarnumaT0Params {
        /// T0: a region qualifies when touched by this many sockets
        hi_sharers: u64 = 16, unit "sockets", Check::Range(1.0, 1e6);
        /// T0: a region with at most this many sharers may be evicted
        lo_sharers: u64 = 1, unit "sockets", Check::Range(0.0, 1e6);
        ..common: StarnumaCommon,
    }
}

/// Algorithm 1 over the regions of the page table, as both policies run it.
#[derive(Debug, Clone)]
pub struct RegionMigration {
    alg: Alg1,
    groups: Groups,
    t0: bool,
}

impl RegionMigration {
    fn new(
        c: &StarnumaCommon,
        env: &PolicyEnv,
        t0: bool,
        hi: u64,
        lo: u64,
        adapt: [u64; 3],
        departures: Departures,
    ) -> Self {
        let region_pages = (c.region_bytes / env.page_bytes.max(1)).max(1);
        let p = Alg1Params {
            limit_pages: c.migration_limit_pages,
            pool_sharers: c.pool_sharers.min(u64::from(u32::MAX)) as u32,
            pool: env.mach.pool_nodes.first().copied(),
            socket_node: env.mach.local_node.clone(),
            adapt: !t0,
            hi_min: adapt[0],
            hi_max: adapt[1],
            lo_max: adapt[2],
            departures,
            region_pages,
            pool_fraction: c.pool_capacity_fraction,
        };
        RegionMigration {
            alg: Alg1::new(p, hi, lo),
            groups: Groups::new(c.region_bytes / env.page_bytes.max(1)),
            t0,
        }
    }

    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.groups.update(ctx.sim.table());
        let mut stats = region_stats(&self.groups, input.profile, self.t0);
        for (g, st) in stats.iter_mut().enumerate() {
            st.key = self.groups.key(g);
        }
        let mut space = SimSpace::new(ctx, &self.groups);
        let out = self.alg.run(&stats, &mut space, input.phase, rng);
        ctx.scanned += out.scanned_entries;
        serde_json::to_value(&out).unwrap_or_default()
    }
}

/// `starnuma`: Algorithm 1 on the T16 tracker's counts, thresholds adapted per phase.
#[derive(Debug, Clone)]
pub struct Starnuma(RegionMigration);

impl Policy for Starnuma {
    const NAME: &'static str = "starnuma";
    const SUMMARY: &'static str = "StarNUMA Algorithm 1 over regions: HI/LO thresholds, pool when >= pool_sharers sharers, \
         ping-pong rule, victim eviction, per-phase limit";
    const PAPER: &'static str = "starnuma-memory-pooling §III-D, §IV-C";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::TrackerT16;
    type Params = StarnumaParams;

    fn new(p: &StarnumaParams, env: &PolicyEnv) -> Self {
        Starnuma(RegionMigration::new(
            &p.common,
            env,
            false,
            p.hi_start,
            p.lo_start,
            [p.hi_min, p.hi_max, p.lo_max],
            Departures::of(p),
        ))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.0.decide(ctx, input, rng)
    }
    fn pool_capacity_fraction(p: &StarnumaParams) -> Option<f64> {
        // Under the artifact's pool counter the policy keeps the pool's size itself (and lets it
        // overfill when no victim is found), so the pool node takes the whole footprint.
        if Departures::of(p).pool_counter {
            Some(1.0)
        } else {
            Some(p.common.pool_capacity_fraction)
        }
    }
}

/// `starnuma-t0`: Algorithm 1 on sharer counts (the T0 tracker), fixed thresholds.
#[derive(Debug, Clone)]
pub struct StarnumaT0(RegionMigration);

impl Policy for StarnumaT0 {
    const NAME: &'static str = "starnuma-t0";
    const SUMMARY: &'static str = "StarNUMA with the T0 tracker: sharer bits only; regions touched by >= hi_sharers sockets go \
         to the pool";
    const PAPER: &'static str = "starnuma-memory-pooling §III-D, §IV-C";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::TrackerT0;
    type Params = StarnumaT0Params;

    fn new(p: &StarnumaT0Params, env: &PolicyEnv) -> Self {
        // No adaptation: the HI/LO bounds are unused.
        StarnumaT0(RegionMigration::new(
            &p.common,
            env,
            true,
            p.hi_sharers,
            p.lo_sharers,
            [0; 3],
            Departures::default(),
        ))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.0.decide(ctx, input, rng)
    }
    fn pool_capacity_fraction(p: &StarnumaT0Params) -> Option<f64> {
        Some(p.common.pool_capacity_fraction)
    }
}

/// Which of the StarNUMA artifact's departures from the printed Algorithm 1 are on (all off:
/// the paper's rules). The artifact is the trace profiler `mem_profile` of
/// albertycho/StarNUMA_Artifact, as its `setup_package.py --ps 512 --ml 256` builds it
/// (`512KBpage_pp_TH_eviction.cpp`); docs/reference/parameters.md lists the switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Departures {
    /// `candidate_order = "accesses"`: candidates are scanned most-accessed first (ties: lower
    /// address first; the artifact breaks ties in its hash map's order) and the scan stops at
    /// the first region below HI.
    pub order_by_accesses: bool,
    /// `destination = "most-accessing"`: a region not bound for the pool goes to the socket
    /// with most accesses this phase (lowest socket on a tie), not a random sharer.
    pub most_accessing: bool,
    /// `thresholds = "artifact"`: after a phase, LO doubles if a victim was missing; else HI
    /// becomes ×3/4 when fewer than limit/2 regions moved; else HI doubles when more than
    /// 2×limit regions exceed it and LO grows ×3/2 when more than 2×limit accessed regions are
    /// below it. No bounds (limit in regions).
    pub artifact_thresholds: bool,
    /// `new_regions = "random-sharer"`: a region first touched in a phase is placed, at that
    /// phase's end, on a random socket that touched it (the profiler has no time inside a
    /// phase), as first touch would have placed it: nothing copied or charged, no migration.
    pub random_sharer_placement: bool,
    /// `limit_counts = "regions-and-victims"`: the limit is in regions (limit pages / region
    /// pages), checked before each candidate, and victims count toward it.
    pub limit_in_regions: bool,
    /// `ping_pong_phase = "zero-based"`: the ping-pong bound is (phase − 1)/4, the artifact
    /// numbering its first phase 0.
    pub zero_based_phase: bool,
    /// `victims = "artifact"`: a victim is a pool region accessed this phase fewer than LO
    /// times (strictly), searched from the highest address down, the search resuming where it
    /// stopped; it goes to its most-accessing socket, or to any random socket when it has at
    /// least `pool_sharers` sharers, and does not count as a migration of the region.
    pub artifact_victims: bool,
    /// `pool_accounting = "counter"`: the pool's room is a region counter, raised by a region
    /// entering and lowered by a victim leaving (not by a region leaving for a socket), against
    /// ⌊regions touched so far × pool fraction⌋; the victim is sought after the region entered,
    /// once the counter reaches the capacity. With no victim the lowest-addressed region is sent
    /// to a socket instead, the counter drops anyway (the pool overfills) and the pass stops.
    pub pool_counter: bool,
}

impl Departures {
    /// Every departure on (`rules = "artifact"`).
    pub const ARTIFACT: Departures = Departures {
        order_by_accesses: true,
        most_accessing: true,
        artifact_thresholds: true,
        random_sharer_placement: true,
        limit_in_regions: true,
        zero_based_phase: true,
        artifact_victims: true,
        pool_counter: true,
    };

    /// From the policy's parameters: each switch follows `rules` unless set.
    pub fn of(p: &StarnumaParams) -> Self {
        let artifact = p.rules == "artifact";
        let on = |v: &str, word: &str| if v == "rules" { artifact } else { v == word };
        Departures {
            order_by_accesses: on(&p.candidate_order, "accesses"),
            most_accessing: on(&p.destination, "most-accessing"),
            artifact_thresholds: on(&p.thresholds, "artifact"),
            random_sharer_placement: on(&p.new_regions, "random-sharer"),
            limit_in_regions: on(&p.limit_counts, "regions-and-victims"),
            zero_based_phase: on(&p.ping_pong_phase, "zero-based"),
            artifact_victims: on(&p.victims, "artifact"),
            pool_counter: on(&p.pool_accounting, "counter"),
        }
    }
}

/// What the tracker says about a region this phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionStat {
    /// Accesses (T16) or sharer count (T0).
    pub accesses: u64,
    pub sharers: u128,
    /// Socket with most accesses this phase (lowest on a tie); `None` when unaccessed.
    pub top_socket: Option<u16>,
    /// The region's address key (virtual address >> region bits).
    pub key: u64,
}

/// The state Algorithm 1 works against (the simulator, or a model in tests).
pub trait Space {
    fn location(&self, r: usize) -> usize;
    /// Pages of `r` not on `to`: what moving it there copies.
    fn pages_to_move(&self, r: usize, to: usize) -> u64;
    /// All pages of `r`.
    fn region_pages(&self, r: usize) -> u64;
    fn free(&self, node: usize) -> u64;
    /// Moves every page of `r` to `to`; returns the pages moved.
    fn move_region(&mut self, r: usize, to: usize) -> u64;
    /// Puts every page of `r` on `to` as first touch would have (nothing charged).
    fn place_region(&mut self, r: usize, to: usize) {
        self.move_region(r, to);
    }
}

#[derive(Debug, Clone)]
pub struct Alg1Params {
    pub limit_pages: u64,
    pub pool_sharers: u32,
    pub pool: Option<usize>,
    /// Local node of every socket.
    pub socket_node: Vec<usize>,
    pub adapt: bool,
    pub hi_min: u64,
    pub hi_max: u64,
    pub lo_max: u64,
    pub departures: Departures,
    /// Pages per region (the limit in regions is `limit_pages / region_pages`).
    pub region_pages: u64,
    /// Pool capacity as a fraction of the regions touched (the artifact's pool counter).
    pub pool_fraction: f64,
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Alg1Outcome {
    pub hi_threshold: u64,
    pub lo_threshold: u64,
    pub candidate_regions: u64,
    pub candidate_pages: u64,
    pub migrated_regions: u64,
    pub migrated_pages: u64,
    pub pool_regions: u64,
    pub victim_regions: u64,
    pub ping_pong_skips: u64,
    pub no_victim: u64,
    pub no_room_skips: u64,
    pub scanned_entries: u64,
    /// Regions first placed on a random sharer at the boundary (`new_regions`).
    #[serde(skip_serializing_if = "is_zero")]
    pub placed_regions: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Debug, Clone)]
pub struct Alg1 {
    pub p: Alg1Params,
    pub hi: u64,
    pub lo: u64,
    /// Migrations per region so far.
    pub migrations: Vec<u32>,
    /// Union of sharers over the run.
    pub run_sharers: Vec<u128>,
    /// The artifact's pool counter (`pool_accounting = "counter"`), in regions.
    pub pool_count: u64,
    /// The artifact's pool overfill named region 0 while no region has address key 0: it then
    /// counts as one more region touched.
    pub phantom_region: bool,
}

impl Alg1 {
    pub fn new(p: Alg1Params, hi: u64, lo: u64) -> Self {
        Alg1 {
            p,
            hi,
            lo,
            migrations: Vec::new(),
            run_sharers: Vec::new(),
            pool_count: 0,
            phantom_region: false,
        }
    }

    /// One migration phase; `phase` is the 1-based number of the phase that just ended.
    pub fn run(
        &mut self,
        stats: &[RegionStat],
        space: &mut dyn Space,
        phase: u64,
        rng: &mut SplitMix64,
    ) -> Alg1Outcome {
        if self.p.departures == Departures::default() {
            self.run_paper(stats, space, phase, rng)
        } else {
            self.run_with_departures(stats, space, phase, rng)
        }
    }

    /// The pass under the paper's rules (every departure off).
    fn run_paper(&mut self, stats: &[RegionStat], space: &mut dyn Space, phase: u64, rng: &mut SplitMix64) -> Alg1Outcome {
        let n = stats.len();
        self.migrations.resize(n, 0);
        self.run_sharers.resize(n, 0);
        for (r, s) in stats.iter().enumerate() {
            self.run_sharers[r] |= s.sharers;
        }
        let mut out = Alg1Outcome::default();
        for (r, s) in stats.iter().enumerate() {
            if s.accesses >= self.hi {
                out.candidate_regions += 1;
                out.candidate_pages += space.region_pages(r);
            }
        }
        let mut migrated = 0u64;
        if self.p.limit_pages > 0 {
            for r in 0..n {
                out.scanned_entries += 1;
                let st = stats[r];
                if st.accesses >= self.hi {
                    let mut best = rng.pick_bit(st.sharers).map(|s| self.p.socket_node[s]);
                    if st.sharers.count_ones() >= self.p.pool_sharers && self.p.pool.is_some() {
                        best = self.p.pool;
                    }
                    if let Some(best) = best.filter(|&b| b != space.location(r)) {
                        if f64::from(self.migrations[r]) > phase as f64 / 4.0 {
                            out.ping_pong_skips += 1;
                        } else {
                            let need = space.pages_to_move(r, best);
                            if space.free(best) < need {
                                self.evict(r, best, stats, space, rng, &mut out);
                            }
                            if space.free(best) >= need {
                                migrated += space.move_region(r, best);
                                self.migrations[r] += 1;
                                out.migrated_regions += 1;
                                if Some(best) == self.p.pool {
                                    out.pool_regions += 1;
                                }
                            } else {
                                out.no_room_skips += 1;
                            }
                        }
                    }
                }
                if migrated >= self.p.limit_pages {
                    break;
                }
            }
        }
        out.migrated_pages = migrated;
        out.hi_threshold = self.hi;
        out.lo_threshold = self.lo;
        if self.p.adapt {
            self.adapt(&out);
        }
        out
    }

    fn evict(
        &mut self,
        r: usize,
        best: usize,
        stats: &[RegionStat],
        space: &mut dyn Space,
        rng: &mut SplitMix64,
        out: &mut Alg1Outcome,
    ) {
        let mut victim = None;
        for (v, s) in stats.iter().enumerate() {
            out.scanned_entries += 1;
            if v != r && space.location(v) == best && s.accesses <= self.lo {
                victim = Some(v);
                break;
            }
        }
        let Some(v) = victim else {
            out.no_victim += 1;
            return;
        };
        let eligible = |mask: u128| -> u128 {
            let mut m = 0u128;
            for s in 0..self.p.socket_node.len().min(128) {
                if mask >> s & 1 == 1 && self.p.socket_node[s] != best {
                    m |= 1 << s;
                }
            }
            m
        };
        let mask = match eligible(stats[v].sharers) {
            0 => eligible(self.run_sharers[v]),
            m => m,
        };
        let dest = match rng.pick_bit(mask) {
            Some(s) => self.p.socket_node[s],
            None => {
                let mut d = None;
                for &n in &self.p.socket_node {
                    if n != best && d.is_none_or(|x| space.free(n) > space.free(x)) {
                        d = Some(n);
                    }
                }
                match d {
                    Some(d) => d,
                    None => return,
                }
            }
        };
        if space.free(dest) >= space.pages_to_move(v, dest) {
            space.move_region(v, dest);
            self.migrations[v] += 1;
            out.victim_regions += 1;
        }
    }

    /// `new_regions = "random-sharer"`: each region first seen this phase (`fresh`, the
    /// regions from `first` on) is re-homed for free on a random sharer's node. Returns how
    /// many were.
    fn place_new_regions(&self, fresh: &[RegionStat], first: usize, space: &mut dyn Space, rng: &mut SplitMix64) -> u64 {
        let mut placed = 0;
        for (k, st) in fresh.iter().enumerate() {
            let r = first + k;
            if let Some(s) = rng.pick_bit(st.sharers) {
                let node = self.p.socket_node[s];
                if space.pages_to_move(r, node) > 0 {
                    space.place_region(r, node);
                    placed += 1;
                }
            }
        }
        placed
    }

    /// The pass with some of the artifact's departures on ([`Departures`]); with none on it
    /// makes the same moves and random draws as [`Self::run_paper`] (tested).
    fn run_with_departures(
        &mut self,
        stats: &[RegionStat],
        space: &mut dyn Space,
        phase: u64,
        rng: &mut SplitMix64,
    ) -> Alg1Outcome {
        let d = self.p.departures;
        let n = stats.len();
        let known = self.migrations.len().min(n);
        self.migrations.resize(n, 0);
        self.run_sharers.resize(n, 0);
        for (r, s) in stats.iter().enumerate() {
            self.run_sharers[r] |= s.sharers;
        }
        let mut out = Alg1Outcome::default();
        if d.random_sharer_placement {
            out.placed_regions += self.place_new_regions(&stats[known..], known, space, rng);
        }
        for (r, s) in stats.iter().enumerate() {
            if s.accesses >= self.hi {
                out.candidate_regions += 1;
                out.candidate_pages += space.region_pages(r);
            }
        }
        let limit_regions = self.limit_regions();
        let order = candidate_order(stats, d.order_by_accesses);
        let mut victims = VictimSearch::default();
        if d.artifact_victims || d.pool_counter {
            victims.order = (0..n).filter(|&r| stats[r].accesses > 0).collect();
            victims.order.sort_by(|&a, &b| stats[b].key.cmp(&stats[a].key));
        }
        let ph = if d.zero_based_phase { phase.saturating_sub(1) } else { phase };
        let mut migrated = 0u64;
        let mut counted = 0u64;
        if self.p.limit_pages > 0 {
            for &r in &order {
                if d.limit_in_regions && counted >= limit_regions {
                    break;
                }
                out.scanned_entries += 1;
                let st = stats[r];
                if st.accesses < self.hi {
                    if d.order_by_accesses {
                        break;
                    }
                } else {
                    let mut best = if d.most_accessing {
                        st.top_socket.map(|s| self.p.socket_node[usize::from(s)])
                    } else {
                        rng.pick_bit(st.sharers).map(|s| self.p.socket_node[s])
                    };
                    let to_pool = st.sharers.count_ones() >= self.p.pool_sharers && self.p.pool.is_some();
                    if to_pool {
                        best = self.p.pool;
                    }
                    if let Some(best) = best.filter(|&b| b != space.location(r)) {
                        if f64::from(self.migrations[r]) > ph as f64 / 4.0 {
                            out.ping_pong_skips += 1;
                        } else if d.pool_counter && to_pool {
                            migrated += space.move_region(r, best);
                            self.migrations[r] += 1;
                            out.migrated_regions += 1;
                            out.pool_regions += 1;
                            counted += 1;
                            self.pool_count += 1;
                            let touched = n as u64 + u64::from(self.phantom_region);
                            let cap = (touched as f64 * self.p.pool_fraction + 1e-9).floor() as u64;
                            if cap <= self.pool_count {
                                if self.evict_with_departures(r, best, stats, space, rng, &mut victims, &mut out) {
                                    counted += 1;
                                } else {
                                    self.overfill(stats, space, rng);
                                    self.pool_count = self.pool_count.saturating_sub(1);
                                    break;
                                }
                                self.pool_count = self.pool_count.saturating_sub(1);
                            }
                        } else {
                            let need = space.pages_to_move(r, best);
                            if space.free(best) < need
                                && self.evict_with_departures(r, best, stats, space, rng, &mut victims, &mut out)
                            {
                                counted += 1;
                            }
                            if space.free(best) >= need {
                                migrated += space.move_region(r, best);
                                self.migrations[r] += 1;
                                out.migrated_regions += 1;
                                counted += 1;
                                if Some(best) == self.p.pool {
                                    out.pool_regions += 1;
                                }
                            } else {
                                out.no_room_skips += 1;
                            }
                        }
                    }
                }
                if !d.limit_in_regions && migrated >= self.p.limit_pages {
                    break;
                }
            }
        }
        out.migrated_pages = migrated;
        out.hi_threshold = self.hi;
        out.lo_threshold = self.lo;
        if d.artifact_thresholds {
            self.adapt_artifact(&out, stats, limit_regions);
        } else if self.p.adapt {
            self.adapt(&out);
        }
        out
    }

    /// The per-phase limit in regions (at least 1 unless the limit is 0).
    fn limit_regions(&self) -> u64 {
        if self.p.limit_pages == 0 {
            0
        } else {
            (self.p.limit_pages / self.p.region_pages.max(1)).max(1)
        }
    }

    /// Finds a victim on `best` for `r` and moves it away; true when one moved. Under the paper
    /// rules this is [`Self::evict`]; `victims = "artifact"` chooses as the artifact does.
    #[allow(clippy::too_many_arguments)]
    fn evict_with_departures(
        &mut self,
        r: usize,
        best: usize,
        stats: &[RegionStat],
        space: &mut dyn Space,
        rng: &mut SplitMix64,
        search: &mut VictimSearch,
        out: &mut Alg1Outcome,
    ) -> bool {
        if !self.p.departures.artifact_victims {
            let before = out.victim_regions;
            self.evict(r, best, stats, space, rng, out);
            return out.victim_regions > before;
        }
        let mut victim = None;
        while search.pos < search.order.len() {
            let v = search.order[search.pos];
            out.scanned_entries += 1;
            if space.location(v) == best && stats[v].accesses < self.lo {
                victim = Some(v);
                break;
            }
            search.pos += 1;
        }
        let Some(v) = victim else {
            out.no_victim += 1;
            return false;
        };
        let dest = self.artifact_destination(&stats[v], rng);
        if dest != best && space.free(dest) >= space.pages_to_move(v, dest) {
            space.move_region(v, dest);
            out.victim_regions += 1;
            true
        } else {
            out.no_room_skips += 1;
            false
        }
    }

    /// Where the artifact sends a region out of the pool: its most-accessing socket, or any
    /// random socket when it has at least `pool_sharers` sharers or no accesses.
    fn artifact_destination(&self, st: &RegionStat, rng: &mut SplitMix64) -> usize {
        let sockets = self.p.socket_node.len().max(1);
        let socket = match st.top_socket {
            Some(s) if st.sharers.count_ones() < self.p.pool_sharers => usize::from(s),
            _ => rng.below(sockets as u64) as usize,
        };
        self.p.socket_node[socket.min(sockets - 1)]
    }

    /// The artifact's full pool without a victim: it sends region 0 (address key 0) to a
    /// socket, or records a region 0 when none exists, and lowers its counter anyway.
    fn overfill(&mut self, stats: &[RegionStat], space: &mut dyn Space, rng: &mut SplitMix64) {
        match stats.iter().position(|s| s.key == 0) {
            Some(r0) => {
                let dest = self.artifact_destination(&stats[r0], rng);
                if space.pages_to_move(r0, dest) > 0 && space.free(dest) >= space.pages_to_move(r0, dest) {
                    space.move_region(r0, dest);
                }
            }
            None => {
                rng.below(self.p.socket_node.len().max(1) as u64);
                self.phantom_region = true;
            }
        }
    }

    /// `thresholds = "artifact"` (see [`Departures::artifact_thresholds`]).
    fn adapt_artifact(&mut self, out: &Alg1Outcome, stats: &[RegionStat], limit_regions: u64) {
        if out.no_victim > 0 {
            self.lo = self.lo.saturating_mul(2);
        } else if out.migrated_regions.saturating_mul(2) < limit_regions {
            self.hi = self.hi.saturating_mul(3) / 4;
        } else {
            let above = stats.iter().filter(|s| s.accesses > self.hi).count() as u64;
            if above > limit_regions.saturating_mul(2) {
                self.hi = self.hi.saturating_mul(2);
            }
            let below = stats
                .iter()
                .filter(|s| s.accesses > 0 && s.accesses < self.lo)
                .count() as u64;
            if below > limit_regions.saturating_mul(2) {
                self.lo = self.lo.saturating_mul(3) / 2;
            }
        }
    }

    fn adapt(&mut self, out: &Alg1Outcome) {
        let l = self.p.limit_pages;
        if l > 0 {
            let ratio = out.candidate_pages as f64 / l as f64;
            if ratio > 1.0 {
                self.hi = ((self.hi as f64 * ratio.min(2.0)) as u64).min(self.p.hi_max);
            } else if ratio < 0.5 {
                self.hi = (self.hi / 2).max(self.p.hi_min);
            }
        }
        if out.no_victim > 0 {
            self.lo = self
                .lo
                .saturating_mul(2)
                .min(self.p.lo_max)
                .max(self.lo.min(self.p.lo_max));
        }
    }
}

/// Where the artifact's victim search stands within a pass.
#[derive(Debug, Default)]
struct VictimSearch {
    /// Regions accessed this phase, highest address first.
    order: Vec<usize>,
    pos: usize,
}

/// Region statistics from a page profile: accesses summed, sharers OR-ed, the most-accessing
/// socket; `t0` replaces the count with the sharer count. Keys are left 0 (the caller sets them).
pub fn region_stats(groups: &Groups, prof: &PageProfile, t0: bool) -> Vec<RegionStat> {
    // One pass over the profile in page order (rows are contiguous there; a region's pages are
    // scattered through it in first-touch order), summing into per-region rows. Sums and ORs
    // do not depend on the order pages are added in.
    let sockets = prof.sockets.min(128);
    let regions = groups.len();
    let mut stats = vec![RegionStat::default(); regions];
    let mut per_socket = vec![0u64; regions * sockets];
    let pages = groups.group_of_page.len().min(prof.pages());
    for (p, &g) in groups.group_of_page[..pages].iter().enumerate() {
        let g = g as usize;
        let (st, sums) = (&mut stats[g], &mut per_socket[g * sockets..(g + 1) * sockets]);
        for (s, &c) in prof.row(p).iter().take(sockets).enumerate() {
            if c > 0 {
                st.sharers |= 1 << s;
                st.accesses += u64::from(c);
                sums[s] += u64::from(c);
            }
        }
    }
    for (g, st) in stats.iter_mut().enumerate() {
        let mut top: Option<(usize, u64)> = None;
        for (s, &c) in per_socket[g * sockets..(g + 1) * sockets].iter().enumerate() {
            if c > 0 && top.is_none_or(|(_, t)| c > t) {
                top = Some((s, c));
            }
        }
        st.top_socket = top.map(|(s, _)| s.min(usize::from(u16::MAX)) as u16);
        if t0 {
            st.accesses = u64::from(st.sharers.count_ones());
        }
    }
    stats
}

/// Algorithm 1 against the simulator.
pub struct SimSpace<'c, 'a> {
    pub ctx: &'c mut Ctx<'a>,
    pub groups: &'c Groups,
    pub location: Vec<usize>,
}

impl<'c, 'a> SimSpace<'c, 'a> {
    pub fn new(ctx: &'c mut Ctx<'a>, groups: &'c Groups) -> Self {
        let mut scratch = Vec::new();
        let nodes = ctx.mach.nodes;
        let location = (0..groups.len())
            .map(|g| groups.location(g, ctx.sim.home(), nodes, &mut scratch))
            .collect();
        SimSpace { ctx, groups, location }
    }
}

impl Space for SimSpace<'_, '_> {
    fn location(&self, r: usize) -> usize {
        self.location[r]
    }
    fn pages_to_move(&self, r: usize, to: usize) -> u64 {
        self.groups.pages_of[r]
            .iter()
            .filter(|&&p| self.ctx.home(p as usize) != to)
            .count() as u64
    }
    fn region_pages(&self, r: usize) -> u64 {
        self.groups.pages_of[r].len() as u64
    }
    fn free(&self, node: usize) -> u64 {
        self.ctx.free(node)
    }
    fn move_region(&mut self, r: usize, to: usize) -> u64 {
        let mut moved = 0;
        for &p in &self.groups.pages_of[r] {
            if self.ctx.home(p as usize) != to && self.ctx.move_page(p, to) {
                moved += 1;
            }
        }
        self.location[r] = to;
        moved
    }
    fn place_region(&mut self, r: usize, to: usize) {
        for &p in &self.groups.pages_of[r] {
            if self.ctx.home(p as usize) != to {
                self.ctx.place_page(p, to);
            }
        }
        self.location[r] = to;
    }
}

/// The order Algorithm 1 visits regions in: region order, or (`candidate_order = "accesses"`)
/// the accessed regions by accesses, most first, ties by key.
fn candidate_order(stats: &[RegionStat], by_accesses: bool) -> Vec<usize> {
    let n = stats.len();
    if !by_accesses {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..n).filter(|&r| stats[r].accesses > 0).collect();
    v.sort_by(|&a, &b| {
        stats[b]
            .accesses
            .cmp(&stats[a].accesses)
            .then(stats[a].key.cmp(&stats[b].key))
    });
    v
}

#[cfg(test)]
mod tests;
