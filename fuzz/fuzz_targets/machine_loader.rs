//! Any text as a machine TOML: either refused with a located error, or a machine whose derived
//! summary (routes, latency matrix) can be computed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim_machine::Machine;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(m) = Machine::from_text("fuzz.toml", text) {
        let _ = m.summary().to_json_pretty();
        let _ = m.load_latency_matrix();
    }
});
