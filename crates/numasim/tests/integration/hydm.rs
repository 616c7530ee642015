//! HyDM: configuration errors and the migration mechanism on knl-flat.

use numasim::config::Source;
use numasim::experiment::Experiment;

fn knl(migration: &str, machine: &str) -> String {
    format!(
        "machine = \"{machine}\"\nseed = 1\n[workload]\nkind = \"stream\"\nthreads = 4\narray_bytes = 65536\n[migration]\npolicy = \"hydm\"\n{migration}\n"
    )
}

/// The error a config gives, at load or at resolve (where the machine is known).
fn error_of(text: &str) -> numasim::config::ConfigError {
    match Experiment::from_source(Source::from_text("h.toml", text), "h") {
        Err(e) => e,
        Ok(exp) => match exp.resolve() {
            Err(e) => e,
            Ok(_) => panic!("accepted:\n{text}"),
        },
    }
}

#[test]
fn an_unknown_fast_node_is_refused_with_file_line_and_key() {
    let e = error_of(&knl("fast_node = \"mcdarm\"", "knl-flat"));
    assert_eq!(e.key, "migration.fast_node");
    assert_eq!(e.line, Some(9), "{e}");
    assert!(e.file.contains("h.toml"), "{e}");
    assert!(
        e.message.contains("mcdarm") && e.message.contains("mcdram") && e.message.contains("ddr"),
        "{e}"
    );
    // The right name, and the default (the machine's mcdram node), both resolve.
    let ok = Experiment::from_source(
        Source::from_text("h.toml", knl("fast_node = \"mcdram\"", "knl-flat")),
        "h",
    );
    ok.unwrap().resolve().unwrap_or_else(|e| panic!("{e}"));
    let ok = Experiment::from_source(Source::from_text("h.toml", knl("", "knl-flat")), "h");
    ok.unwrap().resolve().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_machine_without_a_fast_tier_needs_a_named_fast_node() {
    let e = error_of(&knl("", "sunfire6800"));
    assert_eq!(e.key, "migration.policy");
    assert!(e.message.contains("fast_node") && e.message.contains("mcdram"), "{e}");
}

#[test]
fn a_profiler_that_cannot_feed_hydm_is_refused() {
    let e = error_of(&knl("profiler = \"cache-miss\"", "knl-flat"));
    assert_eq!(e.key, "migration.profiler");
    assert_eq!(e.line, Some(9), "{e}");
    assert!(e.message.contains("hydm-sampling"), "{e}");
    let ok = Experiment::from_source(
        Source::from_text("h.toml", knl("profiler = \"hydm-sampling\"", "knl-flat")),
        "h",
    );
    ok.unwrap().resolve().unwrap_or_else(|e| panic!("{e}"));
}

fn timing_cg(shootdown: &str) -> numasim::experiment::RunResults {
    let text = format!(
        r#"
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
shootdown = "{shootdown}"
"#
    );
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap_or_else(|e| panic!("{e}"));
    numasim::experiment::simulate(&exp, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

/// move-pages: the kernel thread copies page after page, `shootdown_initiator_cycles` (3000
/// at 1.4 GHz) of kernel work each, so the copy spans at least pages x 2.14 us; the daemon runs
/// on a spare core (8 threads on 68 cores), so the application cores pay only the IPI handler
/// (5000 cycles per page each). The hardware mechanism copies all pages at once (a much shorter
/// span) and stalls core 0 for 3000 cycles per page plus the boundary's scan.
#[test]
fn move_pages_serialises_the_copy_on_a_daemon_and_charges_ipis() {
    let mp = timing_cg("move-pages");
    let hw = timing_cg("hardware");
    let (tm, th) = (
        &mp.timing.as_ref().unwrap().migration,
        &hw.timing.as_ref().unwrap().migration,
    );
    assert!(tm.pages > 0 && th.pages > 0);
    let kernel_ns = 3000.0 / 1.4;
    assert!(
        tm.copy_span_ns >= tm.pages as f64 * kernel_ns * 0.999,
        "span {} ns for {} pages",
        tm.copy_span_ns,
        tm.pages
    );
    assert!(th.copy_span_ns < th.pages as f64 * kernel_ns, "{}", th.copy_span_ns);
    let ipi_ns = 8.0 * tm.pages as f64 * 5000.0 / 1.4;
    assert!(
        (tm.core_stall_ns - ipi_ns).abs() <= 1e-6 * ipi_ns + 8.0,
        "{} vs {ipi_ns}",
        tm.core_stall_ns
    );
    // Core 0 also pays the boundary's scan (`scan_cycles`, the profiler's entries scanned).
    let hw_ns = th.pages as f64 * kernel_ns + hw.migration.costs.scan_cycles as f64 / 1.4;
    assert!(
        (th.core_stall_ns - hw_ns).abs() <= 1e-3 * hw_ns + 1.0,
        "{} vs {hw_ns}",
        th.core_stall_ns
    );
}

/// Algorithm 4 on a small MCDRAM (2 MiB, 1 MiB groups): promotions stop at t = 0.9 of it; when
/// a promotion does not fit, a promoted group that never improved goes back to DDR (checkFlops)
/// and no promotion happens at that boundary; a rolled-back group is on V and never promoted
/// again, so every ping-pong (a page returning to the node it left) is a rollback to DDR.
#[test]
fn threshold_rollback_and_the_v_list_on_a_small_mcdram() {
    let text = r#"
machine = "knl-flat"
seed = 2
phase_instructions = 300000
[workload]
kind = "cg"
threads = 8
rows = 20000
iterations = 8
[llc]
enabled = false
[placement.capacity_bytes]
mcdram = 2097152
[migration]
policy = "hydm"
group_bytes = 1048576
"#;
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap_or_else(|e| panic!("{e}"));
    let r = numasim::experiment::simulate(&exp, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .1;
    let (mut promotions, mut rollbacks) = (0u64, 0u64);
    for p in &r.phases {
        let m = &p.migration;
        let (used, cap) = (m.pages_per_node["mcdram"], m.capacity_pages_per_node["mcdram"]);
        assert!(used as f64 <= 0.9 * cap as f64, "phase {}: {used} of {cap}", p.index);
        let now = (
            m.policy_state["promotions"].as_u64().unwrap(),
            m.policy_state["rollbacks"].as_u64().unwrap(),
        );
        let back = m
            .moves_from_to
            .get("mcdram")
            .and_then(|t| t.get("ddr"))
            .copied()
            .unwrap_or(0);
        let up = m
            .moves_from_to
            .get("ddr")
            .and_then(|t| t.get("mcdram"))
            .copied()
            .unwrap_or(0);
        if now.1 > rollbacks {
            assert!(back > 0 && up == 0 && now.0 == promotions, "phase {}: {m:?}", p.index);
        } else {
            assert_eq!(back, 0, "phase {}: pages left MCDRAM without a rollback", p.index);
        }
        (promotions, rollbacks) = now;
    }
    assert!(
        rollbacks > 0 && promotions > rollbacks,
        "{promotions} promotions, {rollbacks} rollbacks"
    );
    let to_ddr = r.migration.moves_to.get("ddr").copied().unwrap_or(0);
    assert!(to_ddr > 0);
    assert_eq!(r.migration.ping_pongs, to_ddr, "a rolled-back page was promoted again");
}

/// move-pages with no spare core (64 threads on the 64-core two-socket machine): the caller is
/// core 0, busy in the kernel for each boundary's whole copy, and the 63 others take the IPIs.
#[test]
fn move_pages_without_a_spare_core_stalls_core_0_for_the_copy() {
    let text = r#"
machine = "two-socket"
seed = 1
mode = "timing"
phase_instructions = 20000
[workload]
kind = "stream"
threads = 64
array_bytes = 1048576
[migration]
policy = "hydm"
fast_node = "m1"
group_bytes = 65536
shootdown = "move-pages"
scan_cycles_per_entry = 0
"#;
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap_or_else(|e| panic!("{e}"));
    let r = numasim::experiment::simulate(&exp, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .1;
    let t = &r.timing.as_ref().unwrap().migration;
    assert!(t.pages > 0, "nothing moved");
    let ipis_ns = 63.0 * t.pages as f64 * 5000.0 / 2.8;
    let want = t.copy_span_ns + ipis_ns;
    assert!(
        (t.core_stall_ns - want).abs() <= 1e-6 * want + 64.0,
        "{} vs {want}",
        t.core_stall_ns
    );
    assert!(t.copy_span_ns >= t.pages as f64 * 3000.0 / 2.8 * 0.999);
}

/// With several processes HyDM's unit is the application, as in the paper. In the first window
/// STREAM faults in its 192 pages (more than the average of the two programs), so the fault
/// filter passes it over and EP goes to MCDRAM; in the next STREAM (lowest intensity, no new
/// faults) moves whole, every page in one boundary. The LLC filter is off so that STREAM's
/// small arrays still reach memory (with them in the LLC it has no memory traffic to speak of,
/// and HyDM rightly leaves it alone).
#[test]
fn with_processes_hydm_promotes_whole_applications_after_the_fault_filter() {
    let text = r#"
machine = "knl-flat"
phase_instructions = 200000
[[process]]
workload = { kind = "ep", threads = 2, pairs_log2 = 18 }
[[process]]
workload = { kind = "stream", threads = 2, array_bytes = 262144, iterations = 60 }
[llc]
enabled = false
[migration]
policy = "hydm"
shootdown = "software"
"#;
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap_or_else(|e| panic!("{e}"));
    let r = numasim::experiment::simulate(&exp, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .1;
    // A software shootdown interrupts the two cores of the moved page's program, not the
    // machine's 67 others: 3000 initiator + 2 × 5000 handler cycles per page.
    for ph in &r.phases {
        let moved = ph.migration.costs.shootdowns;
        assert_eq!(
            ph.migration.costs.shootdown_cycles,
            moved * (3000 + 2 * 5000),
            "phase {}",
            ph.index
        );
    }
    let state = |i: usize| r.phases[i].migration.policy_state["in_fast_tier"].clone();
    let moved = |i: usize| r.phases[i].migration.moves_to.get("mcdram").copied().unwrap_or(0);
    let (ep, stream) = (&r.processes[0], &r.processes[1]);
    assert_eq!((ep.name.as_str(), stream.name.as_str()), ("ep.0", "stream.0"));
    assert_eq!(state(0), serde_json::json!([0]), "STREAM faulting: EP first");
    assert_eq!(moved(0), ep.footprint_pages);
    assert_eq!(state(1), serde_json::json!([0, 1]), "then STREAM");
    assert_eq!(
        moved(1),
        stream.footprint_pages,
        "the whole application in one boundary"
    );
    assert_eq!(stream.pages_per_node["mcdram"], stream.footprint_pages);
    assert_eq!(
        r.migration.total_moves,
        ep.footprint_pages + stream.footprint_pages,
        "nothing moved twice"
    );
}
