//! Any bytes as ChampSim `input_instr` traces (plain; .xz and .gz by their magic bytes): the first byte picks how many threads (1-4) the rest is split into.
//! Reading every record ends in records or an error naming a byte offset (and, for text, a
//! line whose control bytes are escaped).
#![no_main]

#[path = "shared/foreign.rs"]
mod foreign;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| foreign::read_split(data, numasim_trace::champsim::open_champsim));
