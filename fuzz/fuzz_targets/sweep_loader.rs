//! Any text as a sweep file over a fixed base experiment: expanding it either succeeds or gives
//! a located error; a run's directory id is a 16-digit hash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim::experiment::sweep::Sweep;

const BASE: &str = "machine = \"two-socket\"\nseed = 1\nphase_instructions = 20000\n\
    [workload]\nkind = \"synthetic\"\nthreads = 2\npattern = \"uniform\"\naccesses_per_thread = 100\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("base.toml"), BASE).expect("write");
    let sweep = dir.path().join("s.toml");
    std::fs::write(&sweep, text).expect("write");
    if let Ok(sw) = Sweep::load(&sweep, Some(&dir.path().join("out"))) {
        for r in &sw.runs {
            assert_eq!(r.id.len(), 16);
        }
    }
});
