//! What a researcher meets in the first hour: the numbers of a run are all reachable from the
//! command line (`run --json` is the whole of results.json, timing included).

use std::path::Path;
use std::process::{Command, Output};

fn numasim(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run numasim")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

const TIMED: &str = r#"
machine = "starnuma16-pool-scaled"
seed = 5
mode = "timing"
phase_instructions = 20000
[workload]
kind = "synthetic"
threads = 16
footprint_bytes = 4194304
accesses_per_thread = 4000
[placement]
policy = "first-touch"
"#;

#[test]
fn run_json_holds_everything_results_json_holds_including_timing() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("t.toml"), TIMED).unwrap();
    let out = ok(&numasim(&["run", "t.toml", "-o", "r", "--json"], tmp.path()));
    let mut printed: serde_json::Value = serde_json::from_str(&out).unwrap();
    let o = printed.as_object_mut().unwrap();
    assert!(o.remove("results_dir").unwrap().as_str().unwrap().ends_with('r'));
    let t = &o["timing"];
    assert!(t["sim_time_ns"].as_f64().unwrap() > 0.0, "timing block printed: {t}");
    assert!(t["amat_ns"]["total"].as_f64().unwrap() > 0.0);
    assert!(t["ipc"]["mean"].as_f64().unwrap() > 0.0);
    let mut written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("r/results.json")).unwrap()).unwrap();
    o.remove("perf");
    written.as_object_mut().unwrap().remove("perf");
    assert_eq!(printed, written, "--json prints what results.json holds");
}

#[test]
fn the_two_class_views_are_named_apart_and_defined_in_help() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("t.toml"), TIMED).unwrap();
    let out = ok(&numasim(&["run", "t.toml", "-o", "r"], tmp.path()));
    assert!(out.contains("LLC misses by home of the page"), "{out}");
    assert!(out.contains("AMAT of LLC-miss loads by data source"), "{out}");
    assert!(!out.contains("memory accesses by class"), "{out}");
    let help = ok(&numasim(&["run", "--help"], tmp.path()));
    for class in ["local", "remote_<h>hop", "pool", "block_transfer"] {
        assert!(help.contains(class), "run --help defines {class}");
    }
}

#[test]
fn analyze_sharing_writes_under_results_not_beside_the_config() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("configs")).unwrap();
    std::fs::write(
        tmp.path().join("configs/small.toml"),
        TIMED.replace("mode = \"timing\"", "mode = \"functional\""),
    )
    .unwrap();
    let out = ok(&numasim(&["analyze", "sharing", "configs/small.toml"], tmp.path()));
    assert!(out.contains("results/small.sharing.json"), "{out}");
    assert!(tmp.path().join("results/small.sharing.json").exists());
    assert!(!tmp.path().join("configs/small.sharing.json").exists());
}
