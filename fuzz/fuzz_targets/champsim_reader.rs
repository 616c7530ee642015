//! Any bytes as ChampSim `input_instr` traces (plain; .xz and .gz by their magic bytes): the first byte picks how many threads (1-4) the rest is split into.
//! Reading every record ends in records or an error naming a byte offset (and, for text, a
//! line whose control bytes are escaped).
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim_trace::{collect_all, champsim::open_champsim};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let threads = usize::from(first % 4) + 1;
    let dir = tempfile::tempdir().expect("temp dir");
    let per = rest.len() / threads;
    let mut paths = Vec::new();
    for t in 0..threads {
        let end = if t + 1 == threads { rest.len() } else { (t + 1) * per };
        let p = dir.path().join(format!("t{t}.trace"));
        std::fs::write(&p, &rest[t * per..end]).expect("write");
        paths.push(p);
    }
    match open_champsim(&paths) {
        Ok(mut r) => {
            if let Err(e) = collect_all(&mut r) {
                let text = e.to_string();
                assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        }
    }
});
