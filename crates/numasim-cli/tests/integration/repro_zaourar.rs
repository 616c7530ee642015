//! `numasim repro zaourar --quick` as a user runs it: the mesh study end to end, its outputs
//! and the directions of the paper it reproduces.

use crate::common;

fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("zaourar", "zq"))
}

fn value(quantity: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q == quantity, quantity)
}

fn verdict(quantity: &str) -> String {
    common::verdict(&quick_study().1, quantity)
}

/// Every headline of the paper has a row in the quick study.
#[test]
fn repro_zaourar_quick_scores_every_headline() {
    common::assert_headlines_complete(&quick_study().1);
}

#[test]
fn repro_zaourar_quick_writes_configs_runs_and_the_mesh_report() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("zq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert_eq!(csv.lines().count(), v["scorecard"].as_array().unwrap().len() + 1);
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let mut runs = 0;
    for e in std::fs::read_dir(dir.join("configs")).unwrap() {
        let id = e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("runs").join(&id).join("results.json")).unwrap())
                .unwrap();
        let mesh = &r["mesh"];
        // Every output the issue asks for is there, and no lane is booked past 100 %.
        assert_eq!(mesh["vnets"].as_array().unwrap().len(), 4, "{id}");
        assert!(mesh["link_utilisation_max"].as_f64().unwrap() <= 1.0, "{id}");
        assert!(!mesh["links"].as_array().unwrap().is_empty());
        assert!(mesh["slc"][0]["hit_ratio"].is_number());
        assert!(mesh["controllers"][0]["reads"].is_u64());
        assert!(mesh["inter_node_packets"][0][0].is_u64());
        assert!(report.contains(&format!("## {id}\n")), "{id}");
        runs += 1;
    }
    // Fig. 2: four runs; Fig. 3: three; Fig. 4/5: four programs (more when barnes/fmm exist)
    // under three configurations; Fig. 3 at 4 misses per core and with requests waiting in
    // the network: three each; Fig. 6: four.
    assert!(runs >= 29, "{runs}");
}

#[test]
fn fig2_numa_partitioning_shortens_and_speeds_up_packets() {
    for l in ["L0", "L2"] {
        for vnet in ["REQ", "DAT"] {
            assert!(value(&format!("{vnet} average hops N2 / N1, {l}")) < 0.8, "{vnet} {l}");
            // At least the 5 % a direction without a paper number needs.
            assert_eq!(
                verdict(&format!("{vnet} packet latency N2 / N1, {l}")),
                "direction only",
                "{vnet} {l}"
            );
        }
    }
    // "No effect" at L2.
    assert_eq!(verdict("bandwidth N2 / N1, L2"), "match");
}

#[test]
#[ignore = "not reproduced at --quick: N2 / N1 bandwidth at L0 is 1.018 (needs ≥ 1.05 for \"a great improvement\"); both L0 runs reach 83-84 % of peak, so in the model DRAM, not the one shared link, bounds STREAM"]
fn fig2a_numa_partitioning_raises_l0_bandwidth() {
    assert_eq!(verdict("bandwidth N2 / N1, L0"), "direction only");
}

#[test]
fn fig3_a_remote_buffer_does_not_raise_bandwidth() {
    // The home nodes' trackers (gem5's 32 per home node, 16 per slice) and the controllers'
    // read trackers bind: the 16 cores keep 256 misses in flight.
    assert!(value("controller tracker wait, buffer on node 0") > 1.0);
    assert!(value("requests refused by a full home node, buffer on node 0") > 1.0);
    // Latency-bound (4 misses in flight per core): bandwidth falls with the buffer's distance.
    let share = |n: u32| {
        value(&format!(
            "4 misses in flight per core: HBM2 bandwidth, buffer on node {n}"
        ))
    };
    // ... by at least 5 % from the nearest to the farthest node (the paper's drop, 0.495x,
    // is not reproduced: see the ignored test below).
    assert!(
        share(1) < share(0) && share(3) < 0.95 * share(0),
        "{} {} {}",
        share(0),
        share(1),
        share(3)
    );
    // Requests waiting in the network instead of at the source (a sensitivity run): measured,
    // not a direction the model reproduces (docs/validation/zaourar.md).
    for n in [0, 1, 3] {
        let s = value(&format!(
            "requests wait in the network: HBM2 bandwidth, buffer on node {n}"
        ));
        assert!(s > 10.0 && s <= 100.0, "node {n}: {s}");
    }
}

/// CHI's retry: a refused request's entry stays reserved while the credit grant and the
/// re-sent request cross the mesh, so the wait for a home-node tracker grows with the
/// buffer's distance (the Little's-law effect; it costs bandwidth only 1-2 % at 16 entries
/// per slice, see the ignored test below).
#[test]
fn fig3_home_tracker_waits_grow_with_the_buffers_distance() {
    let wait = |n: u32| value(&format!("home-node tracker wait (retry), buffer on node {n}"));
    assert!(
        wait(1) > 1.1 * wait(0) && wait(3) > 1.1 * wait(1),
        "{} {} {}",
        wait(0),
        wait(1),
        wait(3)
    );
}

#[test]
#[ignore = "not reproduced at --quick with the paper's 3-cycle inter-quadrant links: bandwidth node 1 / node 0 buffer 0.989 (paper 0.495; half its effect needs ≤ 0.748), 87.4 / 86.5 / 85.7 % of node peak; 0.58 with 10-cycle and 0.48 with 30-cycle links (credit round trips over them); gem5's CHI defaults the preset leaves off (direct memory transfer, throttle on retry) give 1.00 at 3 cycles; docs/validation/zaourar.md"]
fn fig3_a_remote_buffer_halves_bandwidth() {
    assert_ne!(verdict("bandwidth node 1 / node 0 buffer"), "wrong");
}

#[test]
#[ignore = "not reproduced with the paper's 3-cycle inter-quadrant links: REQ queueing 6.3 / 6.5 / 5.6 cycles for the buffer on node 0 / 1 / 3 (paper 8 / 221 / 258); refused requests wait for a home-node tracker (105 / 135 / 162 cycles) at their source, not in the network; with gem5's direct memory transfer and throttle on retry 6 / 7 / 6 (held requests wait in the requester); with 30-cycle links 6 / 807 / 869; see docs/validation/zaourar.md"]
fn fig3_a_remote_buffer_queues_requests_longer() {
    assert!(value("REQ queueing, buffer on node 1") > value("REQ queueing, buffer on node 0"));
}

#[test]
fn fig4_5_cache_groups_shorten_packets_but_starve_an_unbalanced_program() {
    assert!(value("stream: average packet distance C2 / C1") < 0.8);
    assert!(value("stream: average packet distance C3 / C1") > 0.95);
    assert!(value("unbalanced: SLC hit ratio C2 / C1") < 0.9);
    // More DDR activity by at least half the paper's 31 %.
    assert!(value("unbalanced: DDR activity C2 / C1") > 1.155);
    // (The synthetic unbalanced program's share on one node is 100 % by construction: an
    // invariant row, not checked here.)
    assert_eq!(
        verdict("unbalanced: busiest node's share of DDR activity, C2"),
        "invariant"
    );
    assert!(value("stream: busiest node's share of DDR activity, C2") < 30.0);
}

#[test]
fn fig5_splash_programs_initialised_by_the_main_thread_load_its_node() {
    // barnes and fmm: thread 0 initialises the bodies and tables serially; with the driver's
    // phase barriers first touch follows program order, as under `numasim run`.
    for name in ["barnes", "fmm"] {
        assert!(
            value(&format!("{name}: busiest node's share of pages, C2")) > 95.0,
            "{name}"
        );
        assert!(
            value(&format!("{name}: busiest node's share of DDR activity, C2")) > 95.0,
            "{name}"
        );
    }
}

#[test]
fn fig4_5_the_freqmine_like_program_is_balanced_and_cache_groups_shorten_its_packets() {
    assert!(value("freqmine: busiest node's share of pages, C2") < 35.0);
    assert!(value("freqmine: busiest node's share of DDR activity, C2") < 35.0);
    assert!(value("freqmine: average packet distance C2 / C1") < 0.9);
}

#[test]
fn fig6_one_core_moves_pages_at_a_small_share_of_the_interconnect() {
    for method in ["memcpy", "stream-copy"] {
        for pair in ["near", "far"] {
            let share = value(&format!(
                "{method}, {pair} node, one core: share of peak interconnect bandwidth"
            ));
            assert!(share > 0.1 && share < 10.0, "{method} {pair}: {share}");
        }
        // Far is slower than near by at least 5 %.
        assert!(value(&format!("{method}: far / near copy bandwidth")) < 0.95);
    }
}
