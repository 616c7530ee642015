//! `numasim repro hydm --quick` as a user runs it: eight NPB programs sharing knl-flat, each
//! program's time with HyDM and with numactl --preferred=MCDRAM over the default placement.

use crate::common;

fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("hydm", "hq"))
}

fn value(quantity: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q == quantity, quantity)
}

fn results(id: &str) -> serde_json::Value {
    let path = quick_study().0.path().join("hq/runs").join(id).join("results.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn repro_hydm_quick_writes_its_outputs_and_runs_every_program() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("hq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert_eq!(csv.lines().count(), v["scorecard"].as_array().unwrap().len() + 1);
    assert!(dir.join("report.html").exists());
    let config = std::fs::read_to_string(dir.join("configs/mix8-s1-hydm.toml")).unwrap();
    assert_eq!(config.matches("[[process]]").count(), 8);
    assert!(config.contains("phase_ns") && config.contains("move-pages"), "{config}");
    // Every program ran in both runs, with a finish time each.
    for id in ["mix8-s1-default", "mix8-s1-hydm", "mix8-s1-preferred"] {
        let r = results(id);
        let ps = r["processes"].as_array().unwrap();
        assert_eq!(ps.len(), 8, "{id}");
        assert!(ps.iter().all(|p| p["finish_time_ns"].as_f64().unwrap() > 0.0), "{id}");
    }
    // MCDRAM sized from Table I: 16 GiB over the eight class C footprints (17 270 MB).
    assert!((value("mix8: MCDRAM share of the mix's memory (Table I class C)") - 0.9487).abs() < 1e-3);
}

#[test]
fn hydm_moves_whole_programs_and_keeps_mcdram_under_its_threshold() {
    let r = results("mix8-s1-hydm");
    assert!(value("mix8: pages HyDM moved per run") > 0.0);
    for phase in r["phases"].as_array().unwrap() {
        let m = &phase["migration"];
        let used = m["pages_per_node"]["mcdram"].as_f64().unwrap();
        let cap = m["capacity_pages_per_node"]["mcdram"].as_f64().unwrap();
        assert!(used <= 0.9 * cap + 1e-9, "{used} of {cap}");
    }
    // The unit is the application: a program HyDM holds in MCDRAM has pages there, every other
    // program none (pages a promoted program touches later are placed by first touch).
    let phases = r["phases"].as_array().unwrap();
    // The last boundary's state (the final phase ends with the run, before its boundary).
    let fast: Vec<u64> = phases
        .iter()
        .rev()
        .find_map(|p| p["migration"]["policy_state"]["in_fast_tier"].as_array())
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert!(!fast.is_empty());
    for (i, p) in r["processes"].as_array().unwrap().iter().enumerate() {
        let on = p["pages_per_node"]["mcdram"].as_u64().unwrap();
        assert_eq!(
            on > 0,
            fast.contains(&(i as u64)),
            "{}: {on} pages on MCDRAM",
            p["name"]
        );
    }
}

// The paper's direction, not reproduced at this size: measured 1.21× (mean) and 2.10× (cg.0)
// with HyDM, against 0.935 and 0.85. Each promotion's move_pages costs the promoted program's
// cores 5000 cycles of TLB-shootdown handling per page, and a quick-size program runs about a
// millisecond, so the move costs more than MCDRAM can return (docs/validation/hydm.md).
#[test]
#[ignore = "HyDM slows the quick mix down (1.21x mean, paper 0.935): migration cost against millisecond programs; see docs/validation/hydm.md"]
fn hydm_reduces_the_mean_execution_time() {
    // Half the paper's effect at least: 0.9675 and 0.925.
    assert!(value("mix8: mean time over default, hydm") < 0.9675);
    assert!(value("mix8: cg.0 time over default, hydm") < 0.925);
}

/// Every headline has a row; the quick mix has one copy of each program, so CG.1 and FT.1
/// are no data (not 0), and the MCDRAM share, computed from the paper's Table I and given to
/// the runs, is an input, never scored.
#[test]
fn repro_hydm_quick_scores_every_headline() {
    let v = &quick_study().1;
    common::assert_headlines_complete(v);
    assert_eq!(common::verdict(v, "mix8: cg.1 time over default, hydm"), "no data");
    assert_eq!(common::verdict(v, "mix8: ft.1 time over default, hydm"), "no data");
    assert_eq!(
        common::verdict(v, "mix8: MCDRAM share of the mix's memory (Table I class C)"),
        "input"
    );
}

/// `--scorecard DIR` re-prints a finished study's scorecard without running anything: the
/// same counts as the study printed, as text, markdown or JSON; the report starts with it.
#[test]
fn repro_scorecard_reprints_a_finished_study() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("hq");
    let dir_arg = dir.to_str().unwrap();
    let text = common::ok(&common::numasim(&["repro", "hydm", "--scorecard", dir_arg], tmp.path()));
    assert!(text.starts_with("scorecard: "), "{text}");
    assert!(text.contains("no data") && text.contains("input"), "{text}");
    let md = common::ok(&common::numasim(
        &["repro", "hydm", "--scorecard", dir_arg, "--markdown"],
        tmp.path(),
    ));
    assert!(
        md.starts_with("# Scorecard: hydm") && md.contains("| no data | 2 | 2 |"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(&common::ok(&common::numasim(
        &["repro", "hydm", "--scorecard", dir_arg, "--json"],
        tmp.path(),
    )))
    .unwrap();
    assert_eq!(json["scorecard"], v["scorecard"]);
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // The scorecard opens the report's body, before the runs.
    let body = &report[report.find("<body").unwrap()..];
    assert!(body.find("id=\"scorecard\"").unwrap() < 20, "{}", &body[..200]);
    // No comparison.csv: a clear error naming the file.
    let out = common::numasim(&["repro", "hydm", "--scorecard", "nowhere"], tmp.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere/comparison.csv"));
}
