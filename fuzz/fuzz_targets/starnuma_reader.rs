//! Any bytes as StarNUMA per-thread files: the first byte picks how many threads (1-4) the rest
//! is split into. Reading every record ends in records or an error naming a byte offset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim_trace::{collect_all, StarnumaReader};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let threads = usize::from(first % 4) + 1;
    let dir = tempfile::tempdir().expect("temp dir");
    let per = rest.len() / threads;
    let mut paths = Vec::new();
    for t in 0..threads {
        let end = if t + 1 == threads { rest.len() } else { (t + 1) * per };
        let p = dir.path().join(format!("memtrace_t{t}.out"));
        std::fs::write(&p, &rest[t * per..end]).expect("write");
        paths.push(p);
    }
    if let Ok(mut r) = StarnumaReader::open(&paths) {
        let _ = collect_all(&mut r);
    }
});
