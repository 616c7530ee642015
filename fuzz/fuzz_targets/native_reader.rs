//! Any bytes as a native trace: opening, summarising and reading every record must end in
//! records or a located error, never a panic, a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use numasim_trace::{collect_all, scan_info, NativeReader};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    f.write_all(data).expect("write");
    let path = f.path();
    let _ = scan_info(path);
    if let Ok(mut r) = NativeReader::open(path) {
        let _ = collect_all(&mut r);
    }
});
