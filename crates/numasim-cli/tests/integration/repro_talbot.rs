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
        // Bounces only with finite buffers; proxy reads only with proxies.
        let bounces = nc["bounces"].as_u64().unwrap();
        let proxies = nc["proxy_reads"].as_u64().unwrap();
        assert_eq!(bounces > 0, name.contains("-fin"), "{name}: {bounces} bounces");
        assert_eq!(
            proxies > 0,
            name.contains("basic") || name.contains("reactive"),
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
    holds("GE: messages with basic proxies");
    holds("GE: reactive proxies speedup, first-touch");
    // Fig. 1.9: reactive proxies stop the repeated bouncing, so fewer messages (by 1 % at
    // least: the paper gives no number).
    holds("GE: messages with reactive proxies");
    // Fig. 1.6: round-robin sends nearly 10 % more messages.
    holds("GE: messages with round-robin vs first-touch");
}

/// Table 1.4: GE's mean input-buffer queueing rises with reactive proxies (more messages
/// accepted into the buffers instead of bouncing). Held (+106 % quick) while a proxy's fetch
/// from the home was never bounced; with it bounced as a read request like any other (§1.4),
/// the proxies' fetches bounce off the pivot row's full home too, and queueing falls: −38.0 %
/// quick (84 vs 135 cycles). See docs/validation/talbot.md.
#[test]
#[ignore = "not reproduced since proxies' fetches bounce: GE queueing with reactive proxies -38.0 % quick (84 vs 135 cycles)"]
fn ge_reactive_proxies_raise_input_buffer_queueing() {
    assert!(value("GE: mean input-buffer queueing, reactive vs none") > 0.0);
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
fn ocean_contig_is_slower_under_round_robin() {
    // Half the paper's 19 % at least; finite buffers: 1 % at least.
    holds("Ocean-Contig: round-robin slowdown vs first-touch, infinite");
    holds("Ocean-Contig: round-robin slowdown vs first-touch, finite");
}

/// Fig. 1.5: GE is 7.3 % faster under round-robin with infinite buffers. Reproduced at the
/// paper's 512² (+13.2 %), not at the quick 128² (−6.1 %, −20.2 % before the exact-gap booking: too short for first touch's late
/// concentration to matter). See docs/validation/talbot.md.
#[test]
#[ignore = "not reproduced at the quick size: GE round-robin -6.1 % (full size +16.8 %)"]
fn ge_round_robin_beats_first_touch_with_infinite_buffers() {
    assert!(value("GE: round-robin speedup over first-touch, infinite") > 0.0);
}

/// §1.5.3: first-touch + reactive proxies never worse than either placement without proxies.
/// Holds for GE; measured −1.4 % (Ocean-Contig) and −42.5 % (Ocean-Non-Contig) at the quick size.
#[test]
#[ignore = "not reproduced for Ocean: reactive proxies slow the neighbour exchange (-1.4 %, -42.5 % quick)"]
fn first_touch_with_reactive_proxies_is_never_worse() {
    for w in ["GE", "Ocean-Contig", "Ocean-Non-Contig"] {
        assert!(value(&format!("{w}: first-touch + reactive")) > 0.0, "{w}");
    }
}
