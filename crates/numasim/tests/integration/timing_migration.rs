//! Migration in timing mode: the same policies as functional mode, with their costs charged
//! in time.

use numasim::experiment::{simulate, Experiment, RunResults};
use numasim_config::Source;

fn run(text: &str) -> RunResults {
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").expect("valid experiment");
    simulate(&exp, &mut |_| {}).expect("simulation runs").1
}

/// 32 threads on the scaled StarNUMA machine hammering a hot set shared by every socket.
fn shared_hot(migration: &str) -> String {
    format!(
        r#"
machine = "starnuma16-pool-scaled"
seed = 3
mode = "timing"
phase_instructions = 200000
[workload]
kind = "synthetic"
threads = 32
pattern = "shared-hot"
accesses_per_thread = 60000
footprint_bytes = 33554432
[migration]
{migration}
"#
    )
}

#[test]
fn starnuma_in_timing_mode_moves_to_the_pool_and_charges_the_copies() {
    let none = run(&shared_hot("policy = \"none\""));
    let r = run(&shared_hot("policy = \"starnuma\""));
    let m = &r.migration;
    assert!(
        m.total_moves > 0 && m.pool_move_fraction > 0.9,
        "{} moves, {} to pool",
        m.total_moves,
        m.pool_move_fraction
    );
    let t = r.timing.as_ref().unwrap();
    // Every moved page was copied, and copying took time.
    assert_eq!(t.migration.pages, m.total_moves);
    assert!(t.migration.copy_span_ns > 0.0);
    // Hardware shootdowns (the default): the initiator stalls ~3 K cycles per page.
    let per_page_ns = t.migration.core_stall_ns / t.migration.pages as f64;
    assert!((per_page_ns - 3000.0 / 2.4).abs() < 200.0, "{per_page_ns} ns per page");
    // Copies read at the old home and write at the pool: the pool's DRAM saw the writes.
    let pool_accesses = t.memory["pool"].accesses;
    assert!(pool_accesses >= m.total_moves * 64, "{pool_accesses}");
    // Per phase figures add up to the run's.
    let pages: u64 = r
        .phases
        .iter()
        .map(|p| p.timing.as_ref().unwrap().migration.pages)
        .sum();
    assert_eq!(pages, m.total_moves);
    for p in &r.phases {
        assert!(p.migration.pages_per_node["pool"] <= p.migration.capacity_pages_per_node["pool"]);
    }
    // Moving the shared hot set to the pool makes its misses cheaper than leaving it spread.
    assert!(
        t.amat_ns.total.unwrap() < none.timing.as_ref().unwrap().amat_ns.total.unwrap(),
        "{} vs {}",
        t.amat_ns.total.unwrap(),
        none.timing.unwrap().amat_ns.total.unwrap()
    );
}

#[test]
fn software_shootdowns_cost_every_core_and_lengthen_the_run() {
    let hw = run(&shared_hot("policy = \"starnuma\"\nshootdown = \"hardware\""));
    let sw = run(&shared_hot("policy = \"starnuma\"\nshootdown = \"software\""));
    assert_eq!(hw.migration.total_moves, sw.migration.total_moves, "same decisions");
    let (h, s) = (hw.timing.unwrap(), sw.timing.unwrap());
    assert!(s.migration.core_stall_ns > 10.0 * h.migration.core_stall_ns);
    assert!(s.sim_time_ns > h.sim_time_ns, "{} vs {}", s.sim_time_ns, h.sim_time_ns);
}

/// StarNUMA §IV-C: the scan and shootdowns on an OS core of their own. No application core
/// stalls, and that core runs beside the program: a phase is not stretched to the landing of
/// its boundary's last page (moves are charged as far as they fall in the phase).
#[test]
fn a_dedicated_os_core_neither_stalls_cores_nor_holds_the_phase_barrier() {
    let text = shared_hot("policy = \"starnuma\"\nshootdown = \"dedicated\"")
        .replace("phase_instructions = 200000", "phase_instructions = 20000");
    let hw =
        run(&shared_hot("policy = \"starnuma\"").replace("phase_instructions = 200000", "phase_instructions = 20000"));
    let r = run(&text);
    assert_eq!(r.migration.total_moves, hw.migration.total_moves, "same decisions");
    let t = r.timing.as_ref().unwrap();
    assert!(t.migration.pages > 0);
    assert_eq!(t.migration.core_stall_ns, 0.0);
    let outrun = r.phases.iter().any(|p| {
        let pt = p.timing.as_ref().unwrap();
        pt.migration.copy_span_ns > pt.sim_time_ns
    });
    assert!(
        outrun,
        "some boundary's copies outlast the phase after it, and the phase ends first"
    );
}

#[test]
fn timing_migration_is_deterministic() {
    let text = shared_hot("policy = \"tikir\"\nprofiler = \"interconnect\"\nsample_interval = 64");
    let strip = |r: &RunResults| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("perf");
        v.to_string()
    };
    assert_eq!(strip(&run(&text)), strip(&run(&text)));
}

#[test]
fn hydm_runs_on_knl_in_timing_mode_within_its_threshold() {
    let r = run(r#"
machine = "knl-flat"
seed = 2
mode = "timing"
phase_instructions = 500000
[workload]
kind = "cg"
threads = 8
rows = 8000
iterations = 2
[llc]
enabled = false
[migration]
policy = "hydm"
group_bytes = 1048576
groups_per_window = 2
"#);
    let m = &r.migration;
    let to_mcdram = m.moves_to.get("mcdram").copied().unwrap_or(0);
    assert!(to_mcdram > 0, "{:?}", m.moves_to);
    assert_eq!(r.timing.as_ref().unwrap().migration.pages, m.total_moves);
    for p in &r.phases {
        let (used, cap) = (
            p.migration.pages_per_node["mcdram"],
            p.migration.capacity_pages_per_node["mcdram"],
        );
        assert!(used as f64 <= 0.9 * cap as f64, "phase {}: {used} of {cap}", p.index);
    }
}

/// Regression: the static oracle's homes are learnt in a functional pass and applied in
/// timing mode. Page ids follow first-touch order, which differs between the two engines, so
/// the homes must be looked up by virtual page; by page id they land on the wrong pages.
#[test]
fn oracle_static_in_timing_mode_places_each_virtual_page_at_its_learnt_home() {
    use numasim::driver::{for_each_phase, learn_oracle_homes};
    let text = r#"
machine = "starnuma16-pool-scaled"
seed = 5
mode = "timing"
phase_instructions = 200000
[workload]
kind = "synthetic"
threads = 32
pattern = "uniform"
accesses_per_thread = 4000
footprint_bytes = 8388608
[mapping]
policy = "scatter"
[migration]
policy = "oracle-static"
"#;
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap();
    let mut run = exp.resolve().unwrap();
    let homes = learn_oracle_homes(&mut run).unwrap();
    assert!(homes.len() > 1000, "{} homes", homes.len());

    // The functional first pass's page order, to show the timing run's differs.
    let functional_order: Vec<u64> = {
        let (mut sim, mut system) = run.functional_sim().unwrap();
        let mut src = run.open_source().unwrap();
        for_each_phase(&mut sim, &mut system, &mut *src, None, |_, _, ()| Ok(())).unwrap();
        (0..system.memory.table.pages() as u32)
            .map(|id| system.memory.table.vpage(id))
            .collect()
    };
    let (mut sim, mut system) = run.timing_sim().unwrap();
    system.memory.fixed_home = homes.clone();
    let mut src = run.open_source().unwrap();
    for_each_phase(&mut sim, &mut system, &mut *src, None, |_, _, _| Ok(())).unwrap();
    let table = &system.memory.table;
    let timing_order: Vec<u64> = (0..table.pages() as u32).map(|id| table.vpage(id)).collect();
    assert_ne!(
        functional_order, timing_order,
        "first-touch order differs between engines"
    );
    let mut placed = 0;
    for id in 0..table.pages() as u32 {
        let want = homes.get(table.vpage(id)).expect("every touched page has a home");
        assert_eq!(system.memory.home[id as usize], want, "page id {id}");
        placed += 1;
    }
    assert_eq!(placed, homes.len());

    // End to end: the oracle run in timing mode is mostly local, as in functional mode.
    let r = run_exp(text);
    let f = run_exp(&text.replace("mode = \"timing\"", "mode = \"functional\""));
    let (lt, lf) = (r.totals.summary.local_fraction, f.totals.summary.local_fraction);
    assert!((lt - lf).abs() < 0.02, "timing {lt} vs functional {lf}");
}

fn run_exp(text: &str) -> RunResults {
    run(text)
}
