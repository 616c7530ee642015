//! Any text as an experiment TOML: loading it and resolving its machine and placement
//! either succeed or give a located error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim::experiment::{resolve, Experiment};
use numasim_config::Source;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(exp) = Experiment::from_source(Source::from_text("fuzz.toml", text), "fuzz") else {
        return;
    };
    let _ = exp.resolved_toml();
    if let Ok(m) = resolve::machine(&exp) {
        let _ = resolve::placement(&exp, &m);
    }
});
