//! Any text as a sweep file over a fixed base experiment: expanding it either succeeds or gives
//! a located error; a run's directory id is a 16-digit hash of the experiment it rebuilds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim::experiment::sweep::{config_hash, Sweep};

const BASE: &str = "machine = \"two-socket\"\nseed = 1\nphase_instructions = 20000\n\
    [workload]\nkind = \"synthetic\"\nthreads = 2\npattern = \"uniform\"\naccesses_per_thread = 100\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("base.toml"), BASE).expect("write");
    let sweep = dir.path().join("s.toml");
    std::fs::write(&sweep, text).expect("write");
    if let Ok(sw) = Sweep::load(&sweep, Some(&dir.path().join("out"))) {
        for i in 0..sw.len() {
            // A run is kept as its point and hash; rebuilding it gives the experiment hashed.
            let r = sw.run(i).expect("a planned run rebuilds");
            assert_eq!(r.id.len(), 16);
            assert_eq!(config_hash(&r.experiment.resolved_toml()), r.id);
        }
    }
});
