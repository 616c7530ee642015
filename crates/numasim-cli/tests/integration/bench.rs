//! `numasim bench move-pages` on this host, at small sizes: it always completes, reports every
//! batch size asked for, and its figures are consistent with each other.

use crate::common;

use common::{numasim, ok};

#[test]
fn move_pages_bench_runs_small_and_reports_consistent_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(&numasim(
        &[
            "bench",
            "move-pages",
            "--min-pages",
            "4",
            "--max-pages",
            "32",
            "--repeats",
            "2",
            "--json",
        ],
        tmp.path(),
    ));
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pages: Vec<u64> = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["pages"].as_u64().unwrap())
        .collect();
    assert_eq!(pages, vec![4, 8, 16, 32]);
    let peak = r["peak_copy_bandwidth_gbps"].as_f64().unwrap();
    assert!(peak > 0.0);
    let nodes = r["memory_nodes"].as_array().unwrap().len();
    for row in r["rows"].as_array().unwrap() {
        for m in ["memcpy", "stream_copy"] {
            let ns = row[m]["ns_per_page"].as_f64().unwrap();
            let bw = row[m]["bandwidth_gbps"].as_f64().unwrap();
            let share = row[m]["share_of_peak"].as_f64().unwrap();
            assert!(ns > 0.0 && bw > 0.0);
            // Bandwidth is page bytes over time per page; small batches fit in the caches, so
            // their share of the all-core memory peak may exceed 1.
            let page = r["page_bytes"].as_f64().unwrap();
            assert!((bw - page / ns).abs() < 1e-6 * bw, "{m}: {bw} vs {}", page / ns);
            assert!((share * peak - bw).abs() < 1e-6 * bw, "{m}: share {share}");
        }
        if nodes < 2 {
            assert!(row["move_pages"].is_null());
        }
    }
    if nodes < 2 {
        let notes = r["notes"].as_array().unwrap();
        assert!(
            notes.iter().any(|n| n.as_str().unwrap().contains("single NUMA node")),
            "{notes:?}"
        );
    }
    // The table form runs too, and bad sizes are refused with a message, not a panic.
    let text = ok(&numasim(
        &[
            "bench",
            "move-pages",
            "--min-pages",
            "8",
            "--max-pages",
            "8",
            "--repeats",
            "1",
        ],
        tmp.path(),
    ));
    assert!(text.contains("memcpy ns/page"), "{text}");
    let bad = numasim(
        &["bench", "move-pages", "--min-pages", "64", "--max-pages", "8"],
        tmp.path(),
    );
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--min-pages") && !err.contains("panicked"), "{err}");
}

/// `numasim bench dram`: a trace it writes reads back as the same requests (same figures as
/// the generated pattern), and bad arguments are refused with the reason.
#[test]
fn dram_bench_round_trips_its_trace_and_refuses_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("mix.trace");
    let trace_arg = trace.to_str().unwrap();
    let common = ["bench", "dram", "--pattern", "mix", "--requests", "3000"];
    ok(&numasim(
        &[&common[..], &["--emit-trace", trace_arg]].concat(),
        tmp.path(),
    ));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(text.lines().count(), 3000);
    assert_eq!(text.lines().filter(|l| l.starts_with("ST 0x")).count(), 1000);
    let generated: serde_json::Value =
        serde_json::from_str(&ok(&numasim(&[&common[..], &["--json"]].concat(), tmp.path()))).unwrap();
    let replayed: serde_json::Value = serde_json::from_str(&ok(&numasim(
        &["bench", "dram", "--trace", trace_arg, "--json"],
        tmp.path(),
    )))
    .unwrap();
    for key in [
        "requests",
        "reads",
        "writes",
        "simulated_ns",
        "bandwidth_gbps",
        "mean_read_latency_ns",
    ] {
        assert_eq!(generated[key], replayed[key], "{key}");
    }
    assert_eq!(generated["writes"], 1000);
    // The read queue runs by default (the engine's 32 reads, bypass cap 16); 0 is the closed
    // loop that places each request when presented.
    assert_eq!(generated["front_end"], "read-queue");
    assert_eq!(
        (generated["read_queue"].as_u64(), generated["bypass_cap"].as_u64()),
        (Some(32), Some(16))
    );
    assert!(generated["in_flight"].is_null());
    let closed: serde_json::Value = serde_json::from_str(&ok(&numasim(
        &[&common[..], &["--read-queue", "0", "--in-flight", "8", "--json"]].concat(),
        tmp.path(),
    )))
    .unwrap();
    assert_eq!(closed["front_end"], "closed-loop");
    assert_eq!(closed["in_flight"], 8);
    assert_eq!(closed["requests"], 3000);
    assert_ne!(
        closed["simulated_ns"], generated["simulated_ns"],
        "the front end changes the run"
    );
    let uncapped: serde_json::Value = serde_json::from_str(&ok(&numasim(
        &[&common[..], &["--bypass-cap", "0", "--json"]].concat(),
        tmp.path(),
    )))
    .unwrap();
    assert!(uncapped["bypass_cap"].is_null());
    let bw = generated["bandwidth_gbps"].as_f64().unwrap();
    assert!(bw > 1.0 && bw < 19.2, "{bw} GB/s against a 19.2 GB/s channel");
    for (args, says) in [
        (vec!["bench", "dram", "--dram", "ddr9"], "unknown DRAM grade `ddr9`"),
        (vec!["bench", "dram", "--write-queue", "3,9"], "--write-queue"),
        (vec!["bench", "dram", "--mapping", "RoXx"], "--mapping"),
        (vec!["bench", "dram", "--read-queue", "5000"], "--read-queue"),
        (
            vec!["bench", "dram", "--trace", "/nonexistent/t.trace"],
            "/nonexistent/t.trace",
        ),
    ] {
        let out = numasim(&args, tmp.path());
        assert!(!out.status.success(), "{args:?} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
