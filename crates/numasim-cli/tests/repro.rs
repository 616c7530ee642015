//! `numasim repro` as a user runs it: the quick StarNUMA study end to end, its outputs, the
//! directions it reproduces, and bad names and outputs.

mod common;

use common::{numasim, ok};

/// The quick study's comparisons, as `--json` prints them (run once per test binary).
fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = ok(&numasim(
            &["repro", "starnuma", "--quick", "-o", "sq", "--json"],
            tmp.path(),
        ));
        let v = serde_json::from_str(&out).unwrap();
        (tmp, v)
    })
}

fn value(quantity_starts: &str) -> f64 {
    let (_, v) = quick_study();
    let c = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["quantity"].as_str().unwrap().starts_with(quantity_starts))
        .unwrap_or_else(|| panic!("no comparison {quantity_starts}"));
    c["numasim"].as_f64().unwrap()
}

#[test]
fn repro_starnuma_quick_writes_configs_runs_comparison_and_report() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("sq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert!(csv.starts_with("source,quantity,unit,paper,numasim,difference_percent"));
    assert_eq!(csv.lines().count(), v["comparisons"].as_array().unwrap().len() + 1);
    assert!(dir.join("report.html").exists());
    // Every experiment it ran is kept as a config that runs by hand, with its results beside it.
    let mut configs = 0;
    for e in std::fs::read_dir(dir.join("configs")).unwrap() {
        let name = e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        if name.starts_with("starnuma16") {
            continue; // a machine file the Fig. 10 experiment names
        }
        assert!(dir.join("runs").join(&name).join("results.json").exists(), "{name}");
        configs += 1;
    }
    assert_eq!(configs, 6);
    assert!(dir.join("configs/starnuma16-pool-scaled-pool-plus-190ns.toml").exists());
    // Unloaded latencies are the paper's table exactly (by construction of the preset).
    for (q, paper) in [
        ("unloaded load latency, local", 80.0),
        ("unloaded load latency, CXL pool", 180.0),
    ] {
        assert_eq!(value(q), paper, "{q}");
    }
    let list = ok(&numasim(&["repro", "list"], tmp.path()));
    assert!(list.starts_with("starnuma"), "{list}");
}

/// Directions the quick study reproduces (never the paper's magnitudes).
#[test]
fn repro_starnuma_quick_directions() {
    // Fig. 2: accesses concentrate on the few widely shared pages.
    assert!(value("concentration") > 1.0);
    // Fig. 8b: the pool lowers BFS's AMAT.
    assert!(value("BFS AMAT change") < 0.0);
    // Fig. 8a: T0 (sharer bits only) gains over the baseline.
    assert!(value("BFS speedup, StarNUMA T0") > 1.0);
    // Fig. 10: a slower pool lowers the speedup.
    assert!(value("speedup with pool +190 ns") < 1.0);
}

/// Fig. 8a and Table IV at quick scale: T16 moves thousands of pages, 17 % of them to the pool,
/// and the charged copies and shootdowns at 100 K-instruction phases make the run 6.7× slower
/// even though AMAT drops 40 %. The paper amortises each phase's migrations over 1 B
/// instructions and times only their first 10 %; that needs the sampled timing of the StarNUMA
/// paper-scale issue. Kept as the target.
#[test]
#[ignore = "quick scale: T16 speedup 0.15x (paper 1.7x) and 17 % of migrations to the pool (paper 100 %): charged migrations dominate 100K-instruction phases; needs sampled timing of 1B-instruction phases"]
fn repro_starnuma_quick_t16_directions() {
    assert!(value("BFS speedup, StarNUMA T16") > 1.0);
    assert!(value("T0 speedup / T16 speedup") < 1.0);
    assert!(value("BFS share of migrations to the pool") > 50.0);
}

#[test]
fn bad_study_and_unwritable_output_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = numasim(&["repro", "starnumaa"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown study `starnumaa`") && err.contains("starnuma"),
        "{err}"
    );
    std::fs::write(tmp.path().join("file"), "x").unwrap();
    let out = numasim(&["repro", "starnuma", "--quick", "-o", "file/sub"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("file/sub") && !err.contains("panicked"), "{err}");
}
