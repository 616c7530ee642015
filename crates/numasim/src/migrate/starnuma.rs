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
use crate::param::declare_params;
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
    fn new(c: &StarnumaCommon, env: &PolicyEnv, t0: bool, hi: u64, lo: u64, adapt: [u64; 3]) -> Self {
        let p = Alg1Params {
            limit_pages: c.migration_limit_pages,
            pool_sharers: c.pool_sharers.min(u64::from(u32::MAX)) as u32,
            pool: env.mach.pool_nodes.first().copied(),
            socket_node: env.mach.local_node.clone(),
            adapt: !t0,
            hi_min: adapt[0],
            hi_max: adapt[1],
            lo_max: adapt[2],
        };
        RegionMigration {
            alg: Alg1::new(p, hi, lo),
            groups: Groups::new(c.region_bytes / env.page_bytes.max(1)),
            t0,
        }
    }

    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.groups.update(ctx.sim.table());
        let stats = region_stats(&self.groups, input.profile, self.t0);
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
        ))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.0.decide(ctx, input, rng)
    }
    fn pool_capacity_fraction(p: &StarnumaParams) -> Option<f64> {
        Some(p.common.pool_capacity_fraction)
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
        StarnumaT0(RegionMigration::new(&p.common, env, true, p.hi_sharers, p.lo_sharers, [0; 3]))
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut SplitMix64) -> serde_json::Value {
        self.0.decide(ctx, input, rng)
    }
    fn pool_capacity_fraction(p: &StarnumaT0Params) -> Option<f64> {
        Some(p.common.pool_capacity_fraction)
    }
}

/// What the tracker says about a region this phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionStat {
    /// Accesses (T16) or sharer count (T0).
    pub accesses: u64,
    pub sharers: u128,
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
}

impl Alg1 {
    pub fn new(p: Alg1Params, hi: u64, lo: u64) -> Self {
        Alg1 {
            p,
            hi,
            lo,
            migrations: Vec::new(),
            run_sharers: Vec::new(),
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

/// Region statistics from a page profile: accesses summed, sharers OR-ed; `t0` replaces the
/// count with the sharer count.
pub fn region_stats(groups: &Groups, prof: &PageProfile, t0: bool) -> Vec<RegionStat> {
    groups
        .pages_of
        .iter()
        .map(|pages| {
            let mut st = RegionStat::default();
            for &p in pages {
                let p = p as usize;
                if p >= prof.pages() {
                    continue;
                }
                for (s, &c) in prof.row(p).iter().enumerate() {
                    if c > 0 && s < 128 {
                        st.sharers |= 1 << s;
                        st.accesses += u64::from(c);
                    }
                }
            }
            if t0 {
                st.accesses = u64::from(st.sharers.count_ones());
            }
            st
        })
        .collect()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regions of 4 pages each; nodes 0..3 are sockets 0..3's, node 4 is the pool.
    struct Model {
        loc: Vec<usize>,
        cap: Vec<u64>,
        moves: Vec<(usize, usize)>,
    }
    impl Model {
        fn used(&self, n: usize) -> u64 {
            self.loc.iter().filter(|&&l| l == n).count() as u64 * 4
        }
    }
    impl Space for Model {
        fn location(&self, r: usize) -> usize {
            self.loc[r]
        }
        fn pages_to_move(&self, r: usize, to: usize) -> u64 {
            if self.loc[r] == to {
                0
            } else {
                4
            }
        }
        fn region_pages(&self, _: usize) -> u64 {
            4
        }
        fn free(&self, n: usize) -> u64 {
            self.cap[n].saturating_sub(self.used(n))
        }
        fn move_region(&mut self, r: usize, to: usize) -> u64 {
            self.loc[r] = to;
            self.moves.push((r, to));
            4
        }
    }

    fn alg(limit: u64) -> Alg1 {
        Alg1::new(
            Alg1Params {
                limit_pages: limit,
                pool_sharers: 3,
                pool: Some(4),
                socket_node: vec![0, 1, 2, 3],
                adapt: true,
                hi_min: 100,
                hi_max: 1000,
                lo_max: 40,
            },
            100,
            10,
        )
    }
    fn model(loc: Vec<usize>, pool_cap: u64) -> Model {
        Model {
            loc,
            cap: vec![1000, 1000, 1000, 1000, pool_cap],
            moves: vec![],
        }
    }
    fn st(accesses: u64, sharers: u128) -> RegionStat {
        RegionStat { accesses, sharers }
    }

    #[test]
    fn below_hi_nothing_moves() {
        let mut a = alg(100);
        let mut m = model(vec![0], 100);
        let o = a.run(&[st(99, 0b1110)], &mut m, 1, &mut SplitMix64::new(1));
        assert!(m.moves.is_empty());
        assert_eq!(o.candidate_regions, 0);
    }

    #[test]
    fn widely_shared_goes_to_pool_and_narrow_to_a_sharer() {
        let mut a = alg(100);
        let mut m = model(vec![0, 0], 100);
        a.run(&[st(500, 0b1110), st(500, 0b0100)], &mut m, 1, &mut SplitMix64::new(1));
        assert_eq!(m.moves, vec![(0, 4), (1, 2)]);
    }

    #[test]
    fn random_sharer_destination_is_always_a_sharer_and_seeded() {
        let mut seen = [0; 4];
        for seed in 0..40 {
            let mut a = alg(100);
            let mut m = model(vec![0], 100);
            a.run(&[st(500, 0b1010)], &mut m, 1, &mut SplitMix64::new(seed));
            if let Some(&(_, to)) = m.moves.first() {
                seen[to] += 1;
            }
        }
        assert_eq!(seen[0] + seen[2], 0);
        assert!(seen[1] > 0 && seen[3] > 0, "{seen:?}");
    }

    #[test]
    fn already_home_is_not_moved() {
        let mut a = alg(100);
        let mut m = model(vec![4], 100);
        a.run(&[st(500, 0b1110)], &mut m, 1, &mut SplitMix64::new(1));
        assert!(m.moves.is_empty());
    }

    #[test]
    fn ping_ponging_region_is_skipped() {
        let mut a = alg(100);
        a.migrations = vec![1];
        let mut m = model(vec![0], 100);
        // Phase 3: one migration > 3/4 → skip.
        let o = a.run(&[st(500, 0b1110)], &mut m, 3, &mut SplitMix64::new(1));
        assert_eq!(o.ping_pong_skips, 1);
        assert!(m.moves.is_empty());
        // Phase 4: 1 > 1 is false → migrate.
        a.run(&[st(500, 0b1110)], &mut m, 4, &mut SplitMix64::new(1));
        assert_eq!(m.moves, vec![(0, 4)]);
    }

    #[test]
    fn full_destination_evicts_first_cold_region_there_to_its_sharer() {
        let mut a = alg(100);
        // Pool holds 2 regions (8 pages), full: regions 1 (hot) and 2 (cold, shared by socket 3).
        let mut m = model(vec![0, 4, 4], 8);
        let stats = [st(500, 0b0111), st(500, 0b0111), st(5, 0b1000)];
        let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
        assert_eq!(m.moves, vec![(2, 3), (0, 4)]);
        assert_eq!(o.victim_regions, 1);
        // No cold victim: nothing moves and LO rises.
        let mut a = alg(100);
        let mut m = model(vec![0, 4, 4], 8);
        let stats = [st(500, 0b0111), st(500, 0b0111), st(50, 0b1000)];
        let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
        assert!(m.moves.is_empty());
        assert_eq!((o.no_victim, o.no_room_skips), (1, 1));
        assert_eq!(a.lo, 20);
    }

    #[test]
    fn limit_stops_the_scan() {
        let mut a = alg(8);
        let mut m = model(vec![0; 5], 100);
        let stats = vec![st(500, 0b1110); 5];
        let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
        assert_eq!(m.moves.len(), 2, "two regions of 4 pages reach the limit of 8");
        assert_eq!(o.migrated_pages, 8);
        let mut a = alg(0);
        let mut m = model(vec![0; 5], 100);
        a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
        assert!(m.moves.is_empty(), "limit 0 = no migration");
    }

    #[test]
    fn hi_threshold_adapts_to_candidates_relative_to_limit() {
        // 5 candidate regions = 20 pages vs limit 8: ratio 2.5 → HI doubles.
        let mut a = alg(8);
        let mut m = model(vec![0; 5], 100);
        a.run(&[st(500, 0b1110); 5], &mut m, 1, &mut SplitMix64::new(1));
        assert_eq!(a.hi, 200);
        // No candidates: halves, clamped at hi_min.
        a.run(&[st(0, 0); 5], &mut m, 2, &mut SplitMix64::new(1));
        assert_eq!(a.hi, 100);
        a.run(&[st(0, 0); 5], &mut m, 3, &mut SplitMix64::new(1));
        assert_eq!(a.hi, 100);
        // Many candidates for many phases: clamped at hi_max.
        for ph in 4..20 {
            a.run(&[st(u64::MAX / 2, 0b1110); 5], &mut m, ph, &mut SplitMix64::new(1));
        }
        assert_eq!(a.hi, 1000);
    }
}
