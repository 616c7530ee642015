//! Any text as a `--set KEY=VALUE` argument, applied to a fixed experiment: parsing and
//! applying either succeed or give an error naming the key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim::experiment::Experiment;
use numasim_config::{Override, Source};

const BASE: &str = "machine = \"two-socket\"\nseed = 1\nphase_instructions = 20000\n\
    [workload]\nkind = \"synthetic\"\nthreads = 2\npattern = \"uniform\"\naccesses_per_thread = 100\n";

fuzz_target!(|data: &[u8]| {
    let Ok(arg) = std::str::from_utf8(data) else { return };
    let Ok(o) = Override::parse_set(arg) else { return };
    let Ok(src) = Source::from_text("base.toml", BASE).with_overrides(std::slice::from_ref(&o)) else {
        return;
    };
    if let Ok(exp) = Experiment::from_source(src, "base") {
        let _ = exp.resolved_toml();
    }
});
