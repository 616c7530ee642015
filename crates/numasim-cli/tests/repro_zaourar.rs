//! `numasim repro zaourar --quick` as a user runs it: the mesh study end to end, its outputs
//! and the directions of the paper it reproduces.

mod common;

fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("zaourar", "zq"))
}

fn value(quantity: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q == quantity, quantity)
}

#[test]
fn repro_zaourar_quick_writes_configs_runs_and_the_mesh_report() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("zq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert_eq!(csv.lines().count(), v["comparisons"].as_array().unwrap().len() + 1);
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
            assert!(
                value(&format!("{vnet} packet latency N2 / N1, {l}")) < 1.0,
                "{vnet} {l}"
            );
        }
    }
    assert!(value("bandwidth N2 / N1, L0") > 1.0);
}

#[test]
fn fig3_a_remote_buffer_does_not_raise_bandwidth() {
    // numasim's bandwidth drop is far smaller than the paper's (DRAM-bound, see
    // docs/validation/zaourar.md); only its sign is held.
    assert!(value("bandwidth node 1 / node 0 buffer") < 1.0);
    // The controllers' read trackers bind (the 16 cores keep 256 misses in flight, node 0's
    // four controllers track 4 x 64): requests wait for them at the injecting router.
    assert!(value("controller tracker wait, buffer on node 0") > 1.0);
    // Latency-bound (4 misses in flight per core): bandwidth falls with the buffer's distance.
    let share = |n: u32| {
        value(&format!(
            "4 misses in flight per core: HBM2 bandwidth, buffer on node {n}"
        ))
    };
    assert!(share(1) < share(0) && share(3) < share(1));
    // Requests waiting in the network instead of at the source (a sensitivity run): measured,
    // not a direction the model reproduces (docs/validation/zaourar.md).
    for n in [0, 1, 3] {
        let s = value(&format!(
            "requests wait in the network: HBM2 bandwidth, buffer on node {n}"
        ));
        assert!(s > 10.0 && s <= 100.0, "node {n}: {s}");
    }
}

#[test]
#[ignore = "not reproduced, also with router buffers and credit flow control (4 VCs per VNET): REQ queueing 29.0 / 26.0 / 19.8 cycles for the buffer on node 0 / 1 / 3 (paper 8 / 221 / 258), bandwidth 87.5 / 87.4 / 87.5 % of node peak; a shorter round trip leaves more of the 256 misses waiting for the controllers' trackers; see docs/validation/zaourar.md"]
fn fig3_a_remote_buffer_queues_requests_longer() {
    assert!(value("REQ queueing, buffer on node 1") > value("REQ queueing, buffer on node 0"));
}

#[test]
fn fig4_5_cache_groups_shorten_packets_but_starve_an_unbalanced_program() {
    assert!(value("stream: average packet distance C2 / C1") < 0.8);
    assert!(value("stream: average packet distance C3 / C1") > 0.95);
    assert!(value("unbalanced: SLC hit ratio C2 / C1") < 0.9);
    assert!(value("unbalanced: DDR activity C2 / C1") > 1.0);
    assert!(value("unbalanced: busiest node's share of DDR activity, C2") > 95.0);
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
        assert!(value(&format!("{method}: far / near copy bandwidth")) < 1.0);
    }
}
