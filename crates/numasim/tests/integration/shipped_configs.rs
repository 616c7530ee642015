//! Every experiment shipped in configs/experiments/ loads: strict keys, a known machine whose
//! cores hold its threads, a known workload and policy (running them is the README's business;
//! some take minutes). Every shipped sweep expands with each point checked.

use numasim::experiment::{resolve, Experiment};
use std::path::Path;

#[test]
fn every_shipped_experiment_loads_and_resolves() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/experiments");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("configs/experiments exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let exp = Experiment::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            resolve::machine(&exp).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 7, "found {n} experiments");
}

/// Every sweep shipped in configs/sweeps/ expands, each point checked as a run would be (its
/// machine, and its threads against the machine's cores).
#[test]
fn every_shipped_sweep_expands_and_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/sweeps");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("configs/sweeps exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let sw = numasim::experiment::sweep::Sweep::load(&path, Some(Path::new("unused")))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!sw.is_empty(), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 2, "found {n} sweeps");
}
