//! Any bytes as a results directory's results.json (and, after a 0xFF separator, its
//! machine.json): the report's reader loads it or names the file and JSON path at fault; what
//! loads must also render.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (results, machine) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("results.json"), results).expect("write");
    if let Some(m) = machine {
        std::fs::write(dir.path().join("machine.json"), m).expect("write");
    }
    if let Ok(runs) = numasim_report::load_runs(&[dir.path()]) {
        let out = dir.path().join("report.html");
        let _ = numasim_report::write_report(&[dir.path()], &out);
        drop(runs);
    }
});
