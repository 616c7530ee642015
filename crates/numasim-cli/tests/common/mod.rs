//! Helpers shared by the CLI integration tests: run the built `numasim`, check its status.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs the `numasim` binary of this build with `args` in `cwd`.
pub fn numasim(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run numasim")
}

/// Stdout of a run that must succeed (stderr and stdout shown if it did not).
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `numasim repro STUDY --quick -o OUT --json` in a fresh directory: the directory (kept alive
/// with the value) and the printed comparisons. Each repro test binary runs it once, in a
/// `OnceLock`, and its tests read the same study.
pub fn run_quick_study(study: &str, out: &str) -> (tempfile::TempDir, serde_json::Value) {
    let tmp = tempfile::tempdir().unwrap();
    let text = ok(&numasim(&["repro", study, "--quick", "-o", out, "--json"], tmp.path()));
    let v = serde_json::from_str(&text).unwrap();
    (tmp, v)
}

/// numasim's value of the first comparison whose quantity `matches`.
pub fn comparison_value(study: &serde_json::Value, matches: impl Fn(&str) -> bool, what: &str) -> f64 {
    study["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| matches(c["quantity"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("no comparison {what}"))["numasim"]
        .as_f64()
        .unwrap()
}

/// The scorecard verdict (`match`, `direction only`, `wrong`, ...) of the first row whose
/// quantity is `quantity`.
pub fn verdict(study: &serde_json::Value, quantity: &str) -> String {
    study["scorecard"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["quantity"].as_str() == Some(quantity))
        .unwrap_or_else(|| panic!("no scorecard row {quantity}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The first scorecard row whose quantity starts with `quantity_starts` has the paper's value
/// or its direction with at least half its effect (5 % of the bound, 1 point for percentages,
/// when the paper gives no number).
pub fn assert_holds(study: &serde_json::Value, quantity_starts: &str) {
    let row = study["scorecard"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["quantity"].as_str().unwrap().starts_with(quantity_starts))
        .unwrap_or_else(|| panic!("no row {quantity_starts}"));
    let v = row["verdict"].as_str().unwrap();
    assert!(
        v == "match" || v == "direction only",
        "{quantity_starts}: {v} ({})",
        row["numasim"]
    );
}

/// Every headline of the study has a row: none is missing (a renamed or dropped row), and
/// every headline id a row carries is one the study declares.
pub fn assert_headlines_complete(study: &serde_json::Value) {
    let missing = study["missing_headlines"].as_array().unwrap();
    assert!(missing.is_empty(), "headlines without a row: {missing:?}");
    let rows = study["scorecard"].as_array().unwrap();
    let scored: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| !r["headline"].as_str().unwrap().is_empty())
        .collect();
    assert!(!scored.is_empty());
    // Each verdict is one of the scorecard's.
    for r in rows {
        let v = r["verdict"].as_str().unwrap();
        assert!(
            [
                "match",
                "direction only",
                "wrong",
                "no data",
                "not run",
                "input",
                "invariant",
                "context"
            ]
            .contains(&v),
            "{v}"
        );
    }
}

/// The repository's root (the CLI crate sits two folders below it).
pub fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Skips a tracer test (prints why and returns true), or fails under
/// `NUMASIM_REQUIRE_TRACER=1` (CI), where the tracer's tools must be present.
pub fn skip_tracer(why: &str) -> bool {
    assert!(
        std::env::var_os("NUMASIM_REQUIRE_TRACER").is_none(),
        "NUMASIM_REQUIRE_TRACER is set but {why}"
    );
    eprintln!("SKIPPED: {why}");
    true
}

/// Why programs built with `compiler` cannot be traced here, if they cannot.
pub fn missing_tracer_tools(compiler: &str) -> Option<String> {
    if Command::new("qemu-x86_64").arg("--version").output().is_err() {
        return Some("qemu-x86_64 is not installed (apt-get install qemu-user)".into());
    }
    if Command::new(compiler).arg("--version").output().is_err() {
        return Some(format!("{compiler} is not installed"));
    }
    if !cfg!(target_arch = "x86_64") {
        return Some("the traced programs are built for x86-64 only".into());
    }
    None
}

/// A copy of `from` (a folder tree) at `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
