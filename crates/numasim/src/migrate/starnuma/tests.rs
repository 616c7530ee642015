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
            departures: Departures::default(),
            region_pages: 4,
            pool_fraction: 0.2,
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
    RegionStat {
        accesses,
        sharers,
        ..Default::default()
    }
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

fn artifact_alg(limit: u64, d: Departures) -> Alg1 {
    let mut a = alg(limit);
    a.p.departures = d;
    a.p.region_pages = 4;
    a
}
fn stk(accesses: u64, sharers: u128, top: u16, key: u64) -> RegionStat {
    RegionStat {
        accesses,
        sharers,
        top_socket: Some(top),
        key,
    }
}

#[test]
fn with_no_departure_on_the_general_pass_is_the_paper_pass() {
    let mut gen = SplitMix64::new(7);
    for case in 0..200 {
        let n = 1 + gen.below(12) as usize;
        let loc: Vec<usize> = (0..n).map(|_| gen.below(5) as usize).collect();
        let pool_cap = 4 * gen.below(4);
        let limit = 4 * gen.below(5);
        let (mut a, mut b) = (alg(limit), alg(limit));
        let (mut ma, mut mb) = (model(loc.clone(), pool_cap), model(loc, pool_cap));
        for phase in 1..5 {
            let stats: Vec<RegionStat> = (0..n)
                .map(|r| stk(gen.below(400), u128::from(gen.below(16) as u16), 0, r as u64))
                .collect();
            let oa = a.run_paper(&stats, &mut ma, phase, &mut SplitMix64::new(case + phase));
            let ob = b.run_with_departures(&stats, &mut mb, phase, &mut SplitMix64::new(case + phase));
            assert_eq!(oa, ob, "case {case} phase {phase}");
            assert_eq!(ma.moves, mb.moves, "case {case} phase {phase}");
            assert_eq!((a.hi, a.lo), (b.hi, b.lo));
        }
    }
}

#[test]
fn artifact_order_takes_the_most_accessed_first_and_stops_below_hi() {
    let d = Departures {
        order_by_accesses: true,
        limit_in_regions: true,
        ..Default::default()
    };
    // Limit 8 pages = 2 regions: the two most-accessed of three candidates move.
    let mut a = artifact_alg(8, d);
    let mut m = model(vec![0, 0, 0, 0], 100);
    let stats = [
        stk(200, 0b1110, 1, 0),
        stk(50, 0b1110, 1, 1),
        stk(900, 0b1110, 1, 2),
        stk(300, 0b1110, 1, 3),
    ];
    let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
    assert_eq!(m.moves, vec![(2, 4), (3, 4)]);
    assert_eq!(o.scanned_entries, 2, "the limit is checked before each candidate");
}

#[test]
fn most_accessing_socket_is_the_destination() {
    let d = Departures {
        most_accessing: true,
        ..Default::default()
    };
    for seed in 0..20 {
        let mut a = artifact_alg(100, d);
        let mut m = model(vec![0], 100);
        a.run(&[stk(500, 0b1010, 3, 0)], &mut m, 1, &mut SplitMix64::new(seed));
        assert_eq!(m.moves, vec![(0, 3)]);
    }
}

#[test]
fn artifact_thresholds_decay_without_floor_and_double_lo_on_a_missing_victim() {
    let d = Departures {
        artifact_thresholds: true,
        ..Default::default()
    };
    let mut a = artifact_alg(400, d); // 100 regions
    let mut m = model(vec![0], 100);
    for ph in 1..=3 {
        a.run(&[stk(1, 0b1, 0, 0)], &mut m, ph, &mut SplitMix64::new(1));
    }
    assert_eq!(a.hi, 100 * 3 / 4 * 3 / 4 * 3 / 4, "below hi_min: no floor");
    // Full pool, no victim: LO doubles, HI stays.
    let mut a = artifact_alg(400, d);
    let mut m = model(vec![0, 4, 4], 8);
    let stats = [stk(500, 0b0111, 0, 0), stk(500, 0b0111, 0, 1), stk(50, 0b1000, 3, 2)];
    let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
    assert_eq!(o.no_victim, 1);
    assert_eq!((a.hi, a.lo), (100, 20));
}

#[test]
fn pool_counter_evicts_after_entering_and_overfills_without_a_victim() {
    let d = Departures {
        pool_counter: true,
        artifact_victims: true,
        limit_in_regions: true,
        ..Default::default()
    };
    // 10 regions touched, fraction 0.2: capacity 2 regions. Regions 1 and 2 enter; the
    // second reaches the capacity and evicts the coldest-by-rule pool region: region 9 (in
    // the pool, accessed 5 < LO 10, highest address), to its most-accessing socket 2.
    let mut a = artifact_alg(400, d);
    let mut loc = vec![0; 10];
    loc[9] = 4;
    let mut m = model(loc, 1000);
    a.pool_count = 1;
    let mut stats: Vec<RegionStat> = (0..10).map(|r| stk(0, 0, 0, r as u64 + 1)).collect();
    stats[1] = stk(500, 0b0111, 0, 2);
    stats[9] = stk(5, 0b0100, 2, 10);
    let o = a.run(&stats, &mut m, 1, &mut SplitMix64::new(1));
    assert_eq!(m.moves, vec![(1, 4), (9, 2)]);
    assert_eq!((o.pool_regions, o.victim_regions, a.pool_count), (1, 1, 1));
    // Nothing evictable: the region moves in anyway, the counter drops, the pass stops and
    // (no region at address 0) a phantom region 0 is recorded.
    stats[9] = stk(50, 0b0100, 2, 10);
    stats[3] = stk(400, 0b0111, 0, 4);
    stats[5] = stk(300, 0b0111, 0, 6);
    a.pool_count = 1;
    let o = a.run(&stats, &mut m, 2, &mut SplitMix64::new(1));
    assert_eq!((o.pool_regions, o.no_victim), (1, 1));
    assert_eq!(m.moves[2..], [(3, 4)]);
    assert!(a.phantom_region);
}

#[test]
fn new_regions_go_to_a_random_sharer_once() {
    let d = Departures {
        random_sharer_placement: true,
        ..Default::default()
    };
    let mut a = artifact_alg(100, d);
    let mut m = model(vec![0, 0], 100);
    let o = a.run(&[stk(1, 0b1000, 3, 0), stk(1, 0b0001, 0, 1)], &mut m, 1, &mut SplitMix64::new(1));
    assert_eq!((m.moves.clone(), o.placed_regions), (vec![(0, 3)], 1));
    a.run(&[stk(1, 0b0100, 2, 0), stk(1, 0b0010, 1, 1)], &mut m, 2, &mut SplitMix64::new(1));
    assert_eq!(m.moves, vec![(0, 3)], "placement happens in a region's first phase only");
}

#[test]
fn rules_artifact_turns_every_departure_on_and_a_switch_overrides_it() {
    let mut p = StarnumaParams::default();
    assert_eq!(Departures::of(&p), Departures::default());
    p.rules = "artifact".into();
    assert_eq!(Departures::of(&p), Departures::ARTIFACT);
    p.destination = "random-sharer".into();
    assert!(!Departures::of(&p).most_accessing);
    p.rules = "paper".into();
    p.victims = "artifact".into();
    assert_eq!(
        Departures::of(&p),
        Departures {
            artifact_victims: true,
            ..Default::default()
        }
    );
}
