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
        // Bounces only with finite buffers, and every finite run bounces but Ocean-Contig
        // under first touch: its neighbour exchange, one miss per blocking core, never puts
        // eight reads in a buffer. Proxy reads with basic proxies, and with reactive ones
        // when something bounced.
        let bounces = nc["bounces"].as_u64().unwrap();
        let proxies = nc["proxy_reads"].as_u64().unwrap();
        let finite = name.contains("-fin");
        assert_eq!(
            bounces > 0,
            finite && !name.starts_with("ocean-contig-ft"),
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

/// Fig. 1.6: basic proxies add 17 % messages on GE (proxy reads and their data); the quick
/// run adds 7.8 %, under half of that.
#[test]
#[ignore = "GE messages with basic proxies +7.8 % quick (paper +17 %, half its effect needs 8.5 %)"]
fn ge_basic_proxies_send_more_messages() {
    holds("GE: messages with basic proxies");
}

/// Fig. 1.6: round-robin sends nearly 10 % more messages than first touch on GE. With the
/// blocking core the count barely depends on placement (+2.2 % quick: requests, data and
/// forwards alike); the out-of-order core's +13.7 % on the same machine was mostly more
/// invalidations (111 K vs 79 K), how many readers hold a row when it is written.
#[test]
#[ignore = "GE messages with round-robin +2.2 % quick (paper ~+10 %): one miss per blocking core makes the count nearly placement-independent"]
fn ge_round_robin_sends_more_messages() {
    holds("GE: messages with round-robin vs first-touch");
}

/// Table 1.4: GE's mean input-buffer queueing rises with reactive proxies (more messages
/// accepted into the buffers instead of bouncing): +78 % quick with the
/// blocking core, whose one outstanding miss per node keeps the proxies' fetches from
/// bouncing off the pivot row's home as the out-of-order core's 16 did.
#[test]
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
fn ocean_contig_is_slower_under_round_robin() {
    // Half the paper's 19 % at least; finite buffers: 1 % at least.
    holds("Ocean-Contig: round-robin slowdown vs first-touch, infinite");
    holds("Ocean-Contig: round-robin slowdown vs first-touch, finite");
}

/// Fig. 1.5: GE is 7.3 % faster under round-robin with infinite buffers. Not at the quick
/// 128² (−9.0 %: each thread has two rows, too few for first touch's late concentration to
/// matter). See docs/validation/talbot.md for the full size.
#[test]
#[ignore = "not reproduced at the quick size: GE round-robin -9.0 % quick"]
fn ge_round_robin_beats_first_touch_with_infinite_buffers() {
    assert!(value("GE: round-robin speedup over first-touch, infinite") > 0.0);
}

/// §1.5.3: first-touch + reactive proxies never worse than either placement without proxies:
/// GE +159 %, FFT +47 %, Ocean-Contig equal (0 %: nothing bounces) at the quick size.
#[test]
fn first_touch_with_reactive_proxies_is_never_worse() {
    for w in ["GE", "Ocean-Contig", "FFT"] {
        assert!(value(&format!("{w}: first-touch + reactive")) >= 0.0, "{w}");
    }
}

/// The same for Ocean-Non-Contig, where round-robin without proxies is 54 % faster than first
/// touch at the quick size, so first touch with anything loses to it.
#[test]
#[ignore = "not reproduced for Ocean-Non-Contig: -36.5 % quick (round-robin alone is 54 % faster than first touch)"]
fn first_touch_with_reactive_proxies_is_never_worse_on_ocean_non_contig() {
    assert!(value("Ocean-Non-Contig: first-touch + reactive") >= 0.0);
}
