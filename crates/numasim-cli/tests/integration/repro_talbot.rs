//! `numasim repro talbot --quick` as a user runs it: outputs, and the directions of Talbot &
//! Kelly §1.5 that numasim reproduces at the quick size (GE 128², Ocean 128², FFT 16K points,
//! 64 threads on `talbot64`). Directions it does not reproduce are ignored tests with the measured value.

use crate::common;

fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("talbot", "tq"))
}

fn value(quantity_starts: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q.starts_with(quantity_starts), quantity_starts)
}

#[test]
fn repro_talbot_quick_writes_every_run_and_the_comparison() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("tq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert_eq!(csv.lines().count(), v["scorecard"].as_array().unwrap().len() + 1);
    // 4 workloads × 2 placements × 4 buffer/proxy set-ups, each a config with its results.
    let mut configs = 0;
    for e in std::fs::read_dir(dir.join("configs")).unwrap() {
        let name = e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        let results = dir.join("runs").join(&name).join("results.json");
        let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(results).unwrap()).unwrap();
        let nc = &r["timing"]["node_controllers"];
        assert!(nc["messages_total"].as_u64().unwrap() > 0, "{name}");
        // Bounces only with finite buffers, and every finite run bounces but Ocean-Contig's:
        // its neighbour exchange, one miss per blocking core, never puts eight reads in a
        // buffer under either placement. Proxy reads with basic proxies, and with reactive
        // ones when something bounced.
        let bounces = nc["bounces"].as_u64().unwrap();
        let proxies = nc["proxy_reads"].as_u64().unwrap();
        let finite = name.contains("-fin");
        assert_eq!(
            bounces > 0,
            finite && !name.starts_with("ocean-contig-"),
            "{name}: {bounces} bounces"
        );
        assert_eq!(
            proxies > 0,
            name.contains("basic") || (name.contains("reactive") && bounces > 0),
            "{name}"
        );
        configs += 1;
    }
    assert_eq!(configs, 32);
}

/// [`common::assert_holds`] on this study.
fn holds(quantity_starts: &str) {
    common::assert_holds(&quick_study().1, quantity_starts);
}

/// Every headline of the paper has a row in the quick study (or is full-size only).
#[test]
fn repro_talbot_quick_scores_every_headline() {
    common::assert_headlines_complete(&quick_study().1);
}

#[test]
fn ge_proxies_speed_up_and_cut_remote_read_response() {
    // Fig. 1.5: more than half the paper's 27 % over first-touch without proxies, both
    // placements; Fig. 1.7: more than half its 90 % cut.
    holds("GE: first-touch with basic proxies, speedup over first-touch without proxies");
    holds("GE: round-robin with basic proxies, speedup over first-touch without proxies");
    holds("GE: remote read response with basic proxies");
    holds("GE: reactive proxies speedup, first-touch");
    // Fig. 1.9: reactive proxies stop the repeated bouncing, so fewer messages (by 1 % at
    // least: the paper gives no number).
    holds("GE: messages with reactive proxies");
}

/// Fig. 1.6: basic proxies add 17 % messages on GE (proxy reads and their data); at least
/// half of that.
#[test]
fn ge_basic_proxies_send_more_messages() {
    holds("GE: messages with basic proxies");
}

/// Fig. 1.6: round-robin sends nearly 10 % more messages than first touch on GE; at least
/// half of that at the quick size.
#[test]
fn ge_round_robin_sends_more_messages() {
    holds("GE: messages with round-robin vs first-touch");
}

/// Table 1.4: GE's mean input-buffer queueing rises with reactive proxies (more messages
/// accepted into the buffers instead of bouncing). At the paper's 512² it rises by 2.2 %
/// (102 → 104 cycles); at the quick 128² it falls by 16.7 % (43 → 36), for a reason not
/// established (see docs/validation/talbot.md).
#[test]
#[ignore = "falls at the quick size: GE queueing with reactive proxies -16.7 % quick (+2.2 % at the full 512²)"]
fn ge_reactive_proxies_raise_input_buffer_queueing() {
    holds("GE: mean input-buffer queueing, reactive vs none");
}

/// §1.5.1: FFT gets its best performance with first-touch and proxies (+9 % in the paper; all
/// of FFT's data is marked), and FFT is marginally faster under round-robin.
#[test]
fn fft_gains_from_proxies_and_marginally_from_round_robin() {
    holds("FFT: basic proxies speedup, first-touch");
    holds("FFT: round-robin speedup over first-touch, infinite");
    holds("FFT: first-touch + reactive vs best placement");
}

#[test]
fn ocean_contig_is_slower_under_round_robin_with_finite_buffers() {
    // By 1 % at least.
    holds("Ocean-Contig: round-robin slowdown vs first-touch, finite");
}

/// §1.5.1: round-robin makes Ocean-Contig 19 % slower. The quick run's 5.8 % (2.2 % at the
/// full size) is under half of it. With a write-back FLC, 8-cycle SLC hits and homes that
/// read DRAM for every forwarded request the quick run measures 17.9 %; which of the three
/// makes the difference is not measured.
#[test]
#[ignore = "Ocean-Contig round-robin slowdown 5.8 % quick, 2.2 % full (paper 19 %, half its effect needs 9.5 %)"]
fn ocean_contig_is_slower_under_round_robin_with_infinite_buffers() {
    holds("Ocean-Contig: round-robin slowdown vs first-touch, infinite");
}

/// Fig. 1.5: GE is 7.3 % faster under round-robin with infinite buffers. Not reproduced:
/// −4.0 % quick, −3.1 % at the full size (see docs/validation/talbot.md).
#[test]
#[ignore = "not reproduced: GE round-robin -4.0 % quick, -3.1 % full"]
fn ge_round_robin_beats_first_touch_with_infinite_buffers() {
    assert!(value("GE: round-robin speedup over first-touch, infinite") > 0.0);
}

/// §1.5.3: first-touch + reactive proxies never worse than either placement without proxies:
/// GE +74 %, FFT +12 %, Ocean-Contig equal (0 %: nothing bounces) at the quick size.
#[test]
fn first_touch_with_reactive_proxies_is_never_worse() {
    for w in ["GE", "Ocean-Contig", "FFT"] {
        assert!(value(&format!("{w}: first-touch + reactive")) >= 0.0, "{w}");
    }
}

/// The same for Ocean-Non-Contig, where round-robin without proxies is 22 % faster than first
/// touch at the quick size (4.7 % full): first touch gives every page to 8 of the 64 nodes.
#[test]
#[ignore = "not reproduced for Ocean-Non-Contig: -19.1 % quick, -4.6 % full (first touch puts every page on 8 of 64 nodes; round-robin alone is 22 % faster quick)"]
fn first_touch_with_reactive_proxies_is_never_worse_on_ocean_non_contig() {
    assert!(value("Ocean-Non-Contig: first-touch + reactive") >= 0.0);
}
