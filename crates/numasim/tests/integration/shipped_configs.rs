//! Every experiment shipped in configs/experiments/ loads: strict keys, a known machine, a
//! known workload and policy (running them is the README's business; some take minutes).

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
