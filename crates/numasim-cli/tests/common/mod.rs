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
