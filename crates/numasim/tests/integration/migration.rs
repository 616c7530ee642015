//! profilers and migration policies on the papers' machines.
//!
//! Workloads are scaled down so the tests run in seconds; the CG runs turn the LLC filter off
//! (every access is a memory transaction) as a stand-in for a class-C problem whose working set
//! does not fit the Sun Fire's 8 MiB E-caches — with the default 14K-row matrix the whole
//! problem fits in the modelled 32 MiB board caches and almost nothing reaches memory.

use numasim::config::Source;
use numasim::experiment::{simulate, Experiment, RunResults};

fn run(text: &str) -> RunResults {
    let exp = Experiment::from_source(Source::from_text("test.toml", text), "test").unwrap_or_else(|e| panic!("{e}"));
    simulate(&exp, &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).1
}

fn non_local(r: &RunResults) -> f64 {
    1.0 - r.totals.summary.local_fraction
}

/// Non-local share from phase `from` on (after the policy had a phase to act), access-weighted.
fn non_local_from(r: &RunResults, from: usize) -> f64 {
    let (mut remote, mut all) = (0.0, 0.0);
    for p in &r.phases[from..] {
        let m = p.summary.counts.llc_misses as f64;
        remote += (1.0 - p.summary.local_fraction) * m;
        all += m;
    }
    remote / all.max(1.0)
}

/// CG on the Sun Fire with serial initialisation (NPB's `makea` on thread 0, about 95 M accesses
/// at 20 000 rows) and `iterations` of the solver (about 8.5 M accesses each).
fn cg(migration: &str, iterations: u32) -> String {
    format!(
        r#"
machine = "sunfire6800"
seed = 3
phase_instructions = 2000000
[workload]
kind = "cg"
threads = 12
init = "serial"
rows = 20000
iterations = {iterations}
[mapping]
policy = "scatter"
[llc]
enabled = false
[migration]
{migration}
"#
    )
}

fn shared_hot(migration: &str, seed: u64) -> String {
    format!(
        r#"
machine = "starnuma16-pool"
seed = {seed}
phase_instructions = 200000
[workload]
kind = "synthetic"
threads = 32
pattern = "shared-hot"
accesses_per_thread = 150000
footprint_bytes = 33554432
[migration]
{migration}
"#
    )
}

fn max_share(map: &std::collections::BTreeMap<String, u64>) -> f64 {
    let total: u64 = map.values().sum();
    *map.values().max().unwrap() as f64 / total as f64
}

#[test]
fn tikir_on_cg_serial_init_cuts_non_local_share_and_profiles_rank_as_in_the_paper() {
    let none = run(&cg("policy = \"none\"", 40));
    let perfect = run(&cg("policy = \"tikir\"\nprofiler = \"perfect\"", 40));
    let inter = run(&cg(
        "policy = \"tikir\"\nprofiler = \"interconnect\"\nsample_interval = 1024",
        40,
    ));
    let tlb = run(&cg("policy = \"tikir\"\nprofiler = \"tlb-content\"", 40));
    let atc = run(&cg("policy = \"tikir\"\nprofiler = \"atc\"", 40));
    let (n0, np, ni, nt, na) = (
        non_local(&none),
        non_local(&perfect),
        non_local(&inter),
        non_local(&tlb),
        non_local(&atc),
    );
    eprintln!("run-long non-local: none {n0:.3} perfect {np:.3} interconnect {ni:.3} tlb-content {nt:.3} atc {na:.3}");
    // The run is short (a few phases), so the run-long share still carries the serial
    // initialisation and the first compute phase before any migration; the claim is checked on
    // the phases after the policy has acted (from the third phase on).
    let s = |r: &RunResults| non_local_from(r, 2);
    let (s0, sp, si, st, sa) = (s(&none), s(&perfect), s(&inter), s(&tlb), s(&atc));
    eprintln!("steady non-local: none {s0:.3} perfect {sp:.3} interconnect {si:.3} tlb-content {st:.3} atc {sa:.3}");
    // One board holds everything; thread 0's serial matrix construction (NPB's makea, local to
    // it) is about a fifth of the accesses, the other 10 of 12 threads are off that board.
    assert!(max_share(&none.pages_per_node) > 0.95, "{:?}", none.pages_per_node);
    assert!(n0 > 0.6 && s0 > 0.6, "one board holds everything: {n0} / {s0}");
    assert!(sp < 0.3, "tikir + perfect: {sp}");
    assert!(np < n0 - 0.4, "run-long: {np} vs {n0}");
    assert!(
        si - sp < 0.05,
        "interconnect every 1024 within a few points of perfect: {si} vs {sp}"
    );
    assert!(nt > na, "TLB-content sampling worse than ATC: {nt} vs {na}");
    assert!(perfect.migration.total_moves > 0);
    // Freezing stops immediate back-and-forth; a few near-tied pages may return later (108 of
    // 6792 moves here, with NPB's matrix built on thread 0 and then read by its rows' owners).
    assert!(
        perfect.migration.ping_pongs * 50 <= perfect.migration.total_moves,
        "{} of {}",
        perfect.migration.ping_pongs,
        perfect.migration.total_moves
    );
    // Copy traffic is counted page by page.
    assert_eq!(perfect.migration.costs.copy_bytes, perfect.migration.total_moves * 4096);
    assert_eq!(perfect.migration.costs.shootdowns, perfect.migration.total_moves);
    assert_eq!(none.migration.total_moves, 0);
}

#[test]
fn oracle_static_beats_first_touch_on_serial_init() {
    let none = run(&cg("policy = \"none\"", 10));
    let oracle = run(&cg("policy = \"oracle-static\"", 10));
    assert_eq!(oracle.migration.total_moves, 0, "static: nothing moves at boundaries");
    assert!(non_local(&oracle) < 0.3, "{}", non_local(&oracle));
    assert!(non_local(&oracle) < non_local(&none));
}

#[test]
fn autonuma_hinting_faults_move_pages_toward_their_users() {
    let none = run(&cg("policy = \"none\"", 10));
    let auto = run(&cg("policy = \"autonuma\"", 10));
    eprintln!(
        "autonuma non-local {:.3} (none {:.3})",
        non_local(&auto),
        non_local(&none)
    );
    assert!(auto.migration.total_moves > 0);
    assert!(non_local(&auto) < non_local(&none));
}

#[test]
fn starnuma_sends_widely_shared_regions_to_the_pool_within_its_capacity() {
    let r = run(&shared_hot("policy = \"starnuma\"", 7));
    let m = &r.migration;
    eprintln!(
        "starnuma moves {} pool share {:.2}",
        m.total_moves, m.pool_move_fraction
    );
    assert!(m.total_moves > 0);
    assert!(
        m.pool_move_fraction > 0.9,
        "hot set is shared by all sockets: {}",
        m.pool_move_fraction
    );
    for p in &r.phases {
        let used = p.migration.pages_per_node["pool"];
        let cap = p.migration.capacity_pages_per_node["pool"];
        assert!(used <= cap, "phase {}: pool {used} > capacity {cap}", p.index);
    }
    // Capacity is 20 % of the footprint unless the experiment sets one.
    let last = r.phases.last().unwrap();
    assert_eq!(
        last.migration.capacity_pages_per_node["pool"],
        (0.2 * r.totals.footprint_pages as f64).floor() as u64
    );
    assert!(m.costs.tracker_update_accesses > 0, "T16 annex flushes are counted");
}

#[test]
fn starnuma_t0_moves_only_regions_touched_by_every_socket() {
    let r = run(&shared_hot("policy = \"starnuma-t0\"", 7));
    assert!(r.migration.total_moves > 0);
    assert_eq!(r.migration.pool_move_fraction, 1.0);
}

#[test]
fn same_seed_same_moves_different_seed_may_differ() {
    let a = run(&shared_hot("policy = \"starnuma\"\npool_sharers = 40", 11));
    let b = run(&shared_hot("policy = \"starnuma\"\npool_sharers = 40", 11));
    let ja = serde_json::to_string(&(&a.migration, a.phases.iter().map(|p| &p.migration).collect::<Vec<_>>())).unwrap();
    let jb = serde_json::to_string(&(&b.migration, b.phases.iter().map(|p| &p.migration).collect::<Vec<_>>())).unwrap();
    assert!(a.migration.total_moves > 0, "random-sharer destinations exercised");
    assert_eq!(ja, jb);
}

#[test]
fn starnuma_on_bfs_sends_shared_regions_to_the_pool() {
    let r = run(r#"
machine = "starnuma16-pool"
seed = 5
phase_instructions = 20000
[workload]
kind = "bfs"
scale = 15
degree = 16
threads = 32
trials = 4
[migration]
policy = "starnuma"
hi_start = 2000
hi_min = 500
"#);
    let m = &r.migration;
    eprintln!(
        "bfs: moves {} pool share {:.2} phases {}",
        m.total_moves,
        m.pool_move_fraction,
        r.phases.len()
    );
    for p in &r.phases {
        assert!(p.migration.pages_per_node["pool"] <= p.migration.capacity_pages_per_node["pool"]);
    }
    assert!(m.moves_to.get("pool").copied().unwrap_or(0) > 0, "{:?}", m.moves_to);
    // Every pool move is a region with >= pool_sharers sharers by construction (unit tests);
    // the share of moves to the pool is the Table IV figure, see the ignored test below.
}

#[test]
#[ignore = "measured 4.3 % of BFS migrations to the pool (scale 15, 32 threads, 20K-instruction \
            phases, hi_start 2000) vs StarNUMA \
            Table IV's 100 %: at this scale most regions over HI are CSR slices read by few \
            sockets; needs a paper-scale graph and 1B-instruction phases"]
fn starnuma_on_bfs_moves_mostly_to_the_pool_as_in_table_iv() {
    let r = run(r#"
machine = "starnuma16-pool"
seed = 5
phase_instructions = 20000
[workload]
kind = "bfs"
scale = 15
degree = 16
threads = 32
trials = 4
[migration]
policy = "starnuma"
hi_start = 2000
hi_min = 500
"#);
    assert!(
        r.migration.pool_move_fraction > 0.8,
        "{}",
        r.migration.pool_move_fraction
    );
}

#[test]
fn hydm_promotes_groups_to_mcdram_on_knl() {
    let r = run(r#"
machine = "knl-flat"
seed = 2
phase_instructions = 500000
[workload]
kind = "cg"
threads = 8
rows = 20000
iterations = 6
[llc]
enabled = false
[migration]
policy = "hydm"
group_bytes = 1048576
groups_per_window = 2
"#);
    let m = &r.migration;
    assert!(m.moves_to.get("mcdram").copied().unwrap_or(0) > 0, "{:?}", m.moves_to);
    let last = r.phases.last().unwrap();
    assert!(
        last.migration.pages_per_node["mcdram"] as f64 <= 0.9 * last.migration.capacity_pages_per_node["mcdram"] as f64
    );
}

#[test]
fn migration_keys_are_strict_and_located() {
    let text = shared_hot("policy = \"tikir\"\nhi_start = 5", 1);
    let err = Experiment::from_source(Source::from_text("x.toml", text), "x").unwrap_err();
    assert_eq!(err.key, "migration.hi_start");
    assert!(err.line.is_some());
    let text = shared_hot("policy = \"starnuma\"\nprofiler = \"nope\"", 1);
    let err = Experiment::from_source(Source::from_text("x.toml", text), "x").unwrap_err();
    assert_eq!(err.key, "migration.profiler");
}
