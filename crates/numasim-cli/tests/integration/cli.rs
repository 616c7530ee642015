//! The `numasim` command as a user runs it: results directories, JSON output, and bad input.

use crate::common;

use common::{numasim, ok};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn err(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "unexpectedly succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    stderr
}

const SMALL: &str = r#"
machine = "starnuma16-pool"
seed = 7
mode = "functional"
phase_instructions = 20000
[workload]
kind = "synthetic"
threads = 64
footprint_bytes = 16777216
accesses_per_thread = 20000
[placement]
policy = "first-touch"
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn results_without_perf(dir: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("perf");
    v
}

#[test]
fn run_writes_a_complete_deterministic_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "small.toml", SMALL);
    ok(&numasim(&["run", "small.toml", "-o", "a"], tmp.path()));
    ok(&numasim(&["run", "small.toml", "-o", "b"], tmp.path()));
    for f in ["results.json", "phases.csv", "experiment.resolved.toml", "machine.json"] {
        assert!(tmp.path().join("a").join(f).exists(), "{f}");
    }
    let a = results_without_perf(&tmp.path().join("a"));
    assert_eq!(a, results_without_perf(&tmp.path().join("b")));
    assert_eq!(
        std::fs::read(tmp.path().join("a/phases.csv")).unwrap(),
        std::fs::read(tmp.path().join("b/phases.csv")).unwrap()
    );
    assert_eq!(a["schema_version"], 1);
    assert_eq!(a["totals"]["accesses"], 64 * 20000);
    let local = a["totals"]["local_fraction"].as_f64().unwrap();
    assert!(local > 0.0 && local < 1.0);
    assert!(a["phases"].as_array().unwrap().len() >= 2);
    let full: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("a/results.json")).unwrap()).unwrap();
    assert!(full["perf"]["accesses_per_s"].as_f64().unwrap() > 0.0);
    // The resolved experiment is itself a valid experiment that reproduces the run.
    std::fs::copy(
        tmp.path().join("a/experiment.resolved.toml"),
        tmp.path().join("again.toml"),
    )
    .unwrap();
    ok(&numasim(&["run", "again.toml", "-o", "c"], tmp.path()));
    let mut c = results_without_perf(&tmp.path().join("c"));
    c["name"] = a["name"].clone();
    assert_eq!(a, c);
    // Another seed changes the results.
    write(tmp.path(), "seed8.toml", &SMALL.replace("seed = 7", "seed = 8"));
    ok(&numasim(&["run", "seed8.toml", "-o", "d"], tmp.path()));
    assert_ne!(a["totals"], results_without_perf(&tmp.path().join("d"))["totals"]);
}

#[test]
fn bad_experiments_name_file_line_and_key_and_leave_no_results() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (SMALL.replace("seed = 7", "seed = 7\nsede = 3"), "sede", "bad1.toml:4"),
        (
            SMALL.replace("threads = 64", "threads = 64\nthreds = 2"),
            "workload.threds",
            "bad2.toml:9",
        ),
        (
            SMALL.replace("starnuma16-pool", "no-such-machine"),
            "machine",
            "bad3.toml:2",
        ),
        (
            SMALL.replace("\"first-touch\"", "\"nearest\""),
            "placement.policy",
            "bad4.toml:12",
        ),
        (
            SMALL.replace("phase_instructions = 20000", "phase_instructions = \"many\""),
            "phase_instructions",
            "bad5.toml:5",
        ),
        (
            SMALL.replace("footprint_bytes = 16777216", "footprint_bytes = 10"),
            "workload.footprint_bytes",
            "bad6.toml:",
        ),
        (
            SMALL.replace(
                "policy = \"first-touch\"",
                "policy = \"bind\"\nnodes = [\"s0.mem\", \"nope\"]",
            ),
            "placement.nodes",
            "bad7.toml:",
        ),
    ];
    for (i, (text, key, location)) in cases.iter().enumerate() {
        let name = format!("bad{}.toml", i + 1);
        write(tmp.path(), &name, text);
        let stderr = err(&numasim(&["run", &name, "-o", "out"], tmp.path()));
        assert!(stderr.contains(location), "{name}: expected {location} in: {stderr}");
        assert!(stderr.contains(key), "{name}: expected key {key} in: {stderr}");
        assert!(!tmp.path().join("out").exists(), "{name} left a results directory");
    }
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn machine_show_json_has_the_documented_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ok(&numasim(&["machine", "show", "starnuma16-pool", "--json"], tmp.path()));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["sockets"].as_array().unwrap().len(), 16);
    let mem = v["memory_nodes"].as_array().unwrap();
    assert_eq!(mem.len(), 17);
    let pool = mem.iter().find(|m| m["attached_socket"].is_null()).unwrap();
    assert_eq!(pool["kind"], "cxl-pool");
    assert!(pool["capacity_bytes"].as_u64().unwrap() > 0);
    let lat = v["load_latency_ns"].as_array().unwrap();
    assert_eq!(lat.len(), 16);
    let mut seen: Vec<f64> = lat
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    seen.sort_by(f64::total_cmp);
    seen.dedup();
    assert_eq!(seen, vec![80.0, 130.0, 180.0, 360.0]);
    assert_eq!(v["coherence"], "mesi");
    let table = ok(&numasim(&["machine", "show", "starnuma16-pool"], tmp.path()));
    assert!(table.contains("unloaded load latency"));
    assert!(
        table.contains("coherence: mesi, declared by the machine file"),
        "{table}"
    );
    let list: serde_json::Value =
        serde_json::from_str(&ok(&numasim(&["machine", "list", "--json"], tmp.path()))).unwrap();
    assert!(list.as_array().unwrap().len() >= 9);
}

#[test]
fn impossible_machine_file_is_refused_with_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name = \"m\"\ndescription = \"d\"\n[[sockets]]\nname = \"s0\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 1048576\nllc_ways = 8\n[[memory]]\nname = \"far\"\nkind = \"dram\"\ncapacity_bytes = 1073741824\nchannels = 1\ndram = \"ddr4-2400\"\naccess_latency_ns = 80\n";
    write(tmp.path(), "m.toml", text);
    let stderr = err(&numasim(&["machine", "show", "m.toml"], tmp.path()));
    assert!(stderr.contains("m.toml"), "{stderr}");
    assert!(stderr.contains("far"), "{stderr}");
}

#[test]
fn starnuma_traces_convert_and_run() {
    let tmp = tempfile::tempdir().unwrap();
    // Two threads in the StarNUMA artifact layout: (vaddr & !0xF) | rw, instruction count; a marker.
    let mut names = vec![];
    for t in 0..2u64 {
        let mut bytes = Vec::new();
        for i in 0..1000u64 {
            let vaddr = 0x7f00_0000_0000 + ((i * 7 + t * 3) % 300) * 4096 + (i % 64) * 64;
            let rw = (i % 3 == 0) as u64;
            bytes.extend_from_slice(&((vaddr & !0xF) | rw).to_le_bytes());
            bytes.extend_from_slice(&(i * 10 + 1).to_le_bytes());
            if i == 500 {
                bytes.extend_from_slice(&0xc0ffee_u64.to_le_bytes());
                bytes.extend_from_slice(&(i * 10 + 1).to_le_bytes());
            }
        }
        let name = format!("memtrace_t{t}.out");
        std::fs::write(tmp.path().join(&name), bytes).unwrap();
        names.push(name);
    }
    ok(&numasim(
        &[
            "trace", "convert", "--from", "starnuma", &names[0], &names[1], "-o", "t.trace",
        ],
        tmp.path(),
    ));
    let info: serde_json::Value =
        serde_json::from_str(&ok(&numasim(&["trace", "info", "t.trace", "--json"], tmp.path()))).unwrap();
    assert_eq!(info["threads"], 2);
    assert_eq!(info["records"], 2000);
    assert_eq!(info["writes"], 2 * 334);
    let direct: serde_json::Value = serde_json::from_str(&ok(&numasim(
        &["trace", "info", &names[0], &names[1], "--json"],
        tmp.path(),
    )))
    .unwrap();
    assert_eq!(direct["records"], 2000);
    write(
        tmp.path(),
        "e.toml",
        "machine = \"two-socket\"\nphase_instructions = 5000\n[workload]\ntrace = \"t.trace\"\nformat = \"native\"\n",
    );
    ok(&numasim(&["run", "e.toml", "-o", "r"], tmp.path()));
    let r = results_without_perf(&tmp.path().join("r"));
    assert_eq!(r["totals"]["accesses"], 2000);
    assert_eq!(r["threads"], 2);
    // A truncated trace names a byte offset and leaves no results.
    let bytes = std::fs::read(tmp.path().join("t.trace")).unwrap();
    std::fs::write(tmp.path().join("t.trace"), &bytes[..bytes.len() / 2]).unwrap();
    let stderr = err(&numasim(&["run", "e.toml", "-o", "r2"], tmp.path()));
    assert!(stderr.contains("offset"), "{stderr}");
    assert!(!tmp.path().join("r2").exists());
}

#[test]
fn timing_run_with_migration_prints_amat_and_migration_time() {
    let tmp = tempfile::tempdir().unwrap();
    let text = SMALL
        .replace("mode = \"functional\"", "mode = \"timing\"")
        .replace("threads = 64", "threads = 16\npattern = \"shared-hot\"")
        .replace("accesses_per_thread = 20000", "accesses_per_thread = 30000")
        + "[migration]\npolicy = \"starnuma\"\n";
    write(tmp.path(), "timed.toml", &text);
    let out = ok(&numasim(&["run", "timed.toml", "-o", "t"], tmp.path()));
    for want in [
        "AMAT",
        "unloaded",
        "contention",
        "IPC",
        "migration starnuma",
        "migration time",
    ] {
        assert!(out.contains(want), "no `{want}` in:\n{out}");
    }
    let r = results_without_perf(&tmp.path().join("t"));
    assert!(r["timing"]["amat_ns"]["total"].as_f64().unwrap() > 0.0);
    assert_eq!(r["timing"]["migration"]["pages"], r["migration"]["total_moves"]);
    // The machine file's protocol, and the experiment's [timing] coherence over it.
    assert_eq!(
        r["timing"]["coherence"],
        serde_json::json!({"protocol": "mesi", "from": "machine"})
    );
    assert!(out.contains("coherence mesi (the machine's)"), "{out}");
    assert!(out.contains("summed over 16 cores"), "{out}");
    write(
        tmp.path(),
        "moesi.toml",
        &text.replace("[migration]", "[timing]\ncoherence = \"moesi\"\n[migration]"),
    );
    let out = ok(&numasim(&["run", "moesi.toml", "-o", "m"], tmp.path()));
    assert!(out.contains("coherence moesi (set by the experiment)"), "{out}");
    let m = results_without_perf(&tmp.path().join("m"));
    assert_eq!(
        m["timing"]["coherence"],
        serde_json::json!({"protocol": "moesi", "from": "experiment"})
    );
    assert_eq!(m["timing"]["params"]["coherence"], "moesi");
}

/// A timing run whose threads never miss the LLC on a load has no AMAT: "no data", not 0.
#[test]
fn timing_run_without_llc_miss_loads_reports_no_data() {
    let tmp = tempfile::tempdir().unwrap();
    let text = SMALL
        .replace("mode = \"functional\"", "mode = \"timing\"")
        .replace("threads = 64", "threads = 2\nwrite_fraction = 1.0")
        .replace("accesses_per_thread = 20000", "accesses_per_thread = 2000");
    write(tmp.path(), "w.toml", &text);
    let out = ok(&numasim(&["run", "w.toml", "-o", "w"], tmp.path()));
    let r = results_without_perf(&tmp.path().join("w"));
    let a = &r["timing"]["amat_ns"];
    assert_eq!(a["loads"], 0, "{a}");
    assert!(a["total"].is_null() && a["analytical"].is_null(), "{a}");
    assert!(out.contains("AMAT no data"), "{out}");
}

/// StarNUMA files are read directly (no temporary file), in thread order from their
/// names whatever the argument order, by `trace info`, `trace convert` and `analyze sharing`.
#[test]
fn starnuma_files_read_directly_in_name_order() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut names = vec![];
    for t in 0..12u64 {
        let mut bytes = Vec::new();
        for i in 0..300u64 {
            // Thread t touches its own pages and, every 7th access, a page shared by all.
            let vaddr = if i % 7 == 0 {
                0x7f00_0000_0000 + (i % 5) * 4096
            } else {
                0x7e00_0000_0000 + t * (1 << 24) + (i % 40) * 4096
            };
            bytes.extend_from_slice(&((vaddr & !0xF) | (i % 2)).to_le_bytes());
            bytes.extend_from_slice(&(i * 4 + t).to_le_bytes());
        }
        if t == 3 {
            bytes.extend_from_slice(&0x1234_5670u64.to_le_bytes()); // the artifact's trailing word
        }
        let name = format!("memtrace_t{t}.out");
        std::fs::write(tmp.path().join(&name), bytes).unwrap();
        names.push(name);
    }
    let mut glob_order = names.clone();
    glob_order.sort(); // t0, t1, t10, t11, t2, ...
    let run = |args: Vec<&str>| -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_numasim"))
            .args(&args)
            .current_dir(tmp.path())
            .env("TMPDIR", scratch.path())
            .output()
            .unwrap();
        ok(&out)
    };
    let with = |head: &[&str], files: &[String], tail: &[&str]| -> Vec<String> {
        head.iter()
            .map(|s| s.to_string())
            .chain(files.iter().cloned())
            .chain(tail.iter().map(|s| s.to_string()))
            .collect()
    };
    let info_json = |files: &[String]| -> serde_json::Value {
        let args = with(&["trace", "info", "--json"], files, &[]);
        serde_json::from_str(&run(args.iter().map(String::as_str).collect())).unwrap()
    };
    let a = info_json(&names);
    let b = info_json(&glob_order);
    assert_eq!(a, b);
    assert_eq!(a["format"], "starnuma");
    assert_eq!(a["records"], 12 * 300);
    assert_eq!(a["ignored_trailing_bytes"], 8);
    assert_eq!(a["files"][10]["path"], "memtrace_t10.out");
    assert_eq!(a["files"][3]["bytes"], 300 * 16 + 8);
    assert_eq!(a["per_thread"][2]["first_instr"], 2);
    assert_eq!(
        std::fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "no temporary file written"
    );
    let table = run(with(&["trace", "info"], &glob_order, &[])
        .iter()
        .map(String::as_str)
        .collect());
    assert!(table.contains("input 57608 bytes in 12 files"), "{table}");
    // Empty input: a clear error, not a description of a temporary file.
    std::fs::write(tmp.path().join("memtrace_t99.out"), b"").unwrap();
    let e = err(&numasim(&["trace", "info", "memtrace_t99.out"], tmp.path()));
    assert!(e.contains("no access records"), "{e}");
    // A gap is refused.
    let e = err(&numasim(
        &["trace", "info", "memtrace_t0.out", "memtrace_t2.out"],
        tmp.path(),
    ));
    assert!(e.contains("missing"), "{e}");
    // Conversion in glob order yields thread order.
    run(with(
        &["trace", "convert", "--from", "starnuma"],
        &glob_order,
        &["-o", "c.trace"],
    )
    .iter()
    .map(String::as_str)
    .collect());
    let c: serde_json::Value = serde_json::from_str(&run(vec!["trace", "info", "c.trace", "--json"])).unwrap();
    assert_eq!(c["per_thread"], a["per_thread"]);
    // analyze sharing reads StarNUMA files directly; argument order does not matter; --quantum.
    let sharing = |files: &[String], q: &str| -> serde_json::Value {
        let args = with(
            &[
                "analyze",
                "sharing",
                "--machine",
                "starnuma16-pool",
                "--json",
                "-o",
                "s.json",
                "--quantum",
                q,
            ],
            files,
            &[],
        );
        serde_json::from_str(&run(args.iter().map(String::as_str).collect())).unwrap()
    };
    let s1 = sharing(&names, "1");
    assert_eq!(s1["quantum_instructions"], 1);
    assert_eq!(s1["accesses"], 12 * 300);
    let mut shuffled = names.clone();
    shuffled.rotate_left(5);
    let mut s1b = sharing(&shuffled, "1");
    s1b["input"] = s1["input"].clone();
    assert_eq!(s1, s1b);
    let native: serde_json::Value = serde_json::from_str(&run(vec![
        "analyze",
        "sharing",
        "--machine",
        "starnuma16-pool",
        "--json",
        "-o",
        "n.json",
        "--quantum",
        "1",
        "c.trace",
    ]))
    .unwrap();
    assert_eq!(native["pages_by_sharers"], s1["pages_by_sharers"]);
    assert_eq!(native["first_touch_local_fraction"], s1["first_touch_local_fraction"]);
    let e = err(&numasim(
        &[
            "analyze",
            "sharing",
            "--machine",
            "starnuma16-pool",
            "--quantum",
            "0",
            "c.trace",
        ],
        tmp.path(),
    ));
    assert!(e.contains("--quantum"), "{e}");
}

/// `run --threads N`: same results for every N (the library test covers 1, 2, 4 in depth).
#[test]
fn run_threads_flag_gives_identical_results() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "e.toml", SMALL);
    ok(&numasim(&["run", "e.toml", "-o", "r1", "--threads", "1"], tmp.path()));
    ok(&numasim(&["run", "e.toml", "-o", "r2", "--threads", "2"], tmp.path()));
    assert_eq!(
        results_without_perf(&tmp.path().join("r1")),
        results_without_perf(&tmp.path().join("r2"))
    );
    err(&numasim(&["run", "e.toml", "-o", "r0", "--threads", "0"], tmp.path()));
}

// ---------------------------------------------------------------------------------------------
// Regression: never lose a user's data, never panic on a closed stdout.

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A directory that holds a results.json among the user's own files.
fn user_dir_with_results_json(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("results.json"), "{}").unwrap();
    std::fs::write(dir.join("thesis.tex"), "years of work").unwrap();
}

#[test]
fn run_never_deletes_a_directory_it_did_not_write() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "small.toml", SMALL);
    let user = tmp.path().join("work");
    user_dir_with_results_json(&user);
    std::fs::create_dir(user.join("sub")).unwrap();
    let exp = tmp.path().join("small.toml");
    let exp = exp.to_str().unwrap();
    // `-o DIR`, `-o .`, `-o ..` and `-o link/` all used to empty the directory and exit 0.
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&user, &link).unwrap();
    let link_slash = format!("{}/", link.display());
    for (cwd, out) in [
        (tmp.path().to_path_buf(), "work"),
        (user.clone(), "."),
        (user.join("sub"), ".."),
        (tmp.path().to_path_buf(), link_slash.as_str()),
        (tmp.path().to_path_buf(), "link"),
    ] {
        let stderr = err(&numasim(&["run", exp, "-o", out, "--force"], &cwd));
        assert!(stderr.contains("error:"), "{out}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(user.join("thesis.tex")).unwrap(),
            "years of work",
            "-o {out}"
        );
    }
    assert_eq!(names_in(&user), ["results.json", "sub", "thesis.tex"]);
    assert_eq!(names_in(tmp.path()), ["link", "small.toml", "work"]);
    // A results directory numasim wrote is replaced, and carries the marker with the run id.
    ok(&numasim(&["run", "small.toml", "-o", "r"], tmp.path()));
    // Re-running into it asks for --force instead of replacing silently.
    let stderr = err(&numasim(&["run", "small.toml", "-o", "r"], tmp.path()));
    assert!(stderr.contains("already exists: pass --force"), "{stderr}");
    ok(&numasim(&["run", "small.toml", "-o", "r", "--force"], tmp.path()));
    let marker = std::fs::read_to_string(tmp.path().join("r/.numasim-results")).unwrap();
    assert!(
        marker.contains("run_id ") && marker.contains("file results.json"),
        "{marker}"
    );
    assert_eq!(names_in(tmp.path()), ["link", "r", "small.toml", "work"]);
}

#[test]
fn trace_convert_and_record_refuse_to_overwrite_their_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = |instr: u64| [0x1000u64.to_le_bytes(), instr.to_le_bytes()].concat();
    std::fs::write(tmp.path().join("memtrace_t0.out"), rec(1)).unwrap();
    std::fs::write(tmp.path().join("memtrace_t1.out"), rec(2)).unwrap();
    let stderr = err(&numasim(
        &[
            "trace",
            "convert",
            "--from",
            "starnuma",
            "memtrace_t0.out",
            "memtrace_t1.out",
            "-o",
            "memtrace_t1.out",
        ],
        tmp.path(),
    ));
    assert!(stderr.contains("is the input"), "{stderr}");
    assert_eq!(std::fs::read(tmp.path().join("memtrace_t1.out")).unwrap(), rec(2));
    ok(&numasim(
        &[
            "trace",
            "convert",
            "--from",
            "starnuma",
            "memtrace_t0.out",
            "memtrace_t1.out",
            "-o",
            "t.nst",
        ],
        tmp.path(),
    ));
    let native = std::fs::read(tmp.path().join("t.nst")).unwrap();
    err(&numasim(
        &["trace", "convert", "--from", "native", "t.nst", "-o", "t.nst"],
        tmp.path(),
    ));
    // `trace record` of an experiment whose workload is that trace, onto the trace or onto
    // the experiment file itself.
    write(
        tmp.path(),
        "e.toml",
        "machine = \"two-socket\"\n[workload]\ntrace = \"t.nst\"\nformat = \"native\"\n",
    );
    let e_before = std::fs::read(tmp.path().join("e.toml")).unwrap();
    for out in ["t.nst", "e.toml"] {
        let stderr = err(&numasim(&["trace", "record", "e.toml", "-o", out], tmp.path()));
        assert!(stderr.contains("is the input"), "{out}: {stderr}");
    }
    assert_eq!(std::fs::read(tmp.path().join("t.nst")).unwrap(), native);
    assert_eq!(std::fs::read(tmp.path().join("e.toml")).unwrap(), e_before);
}

#[test]
fn report_refuses_to_overwrite_the_results_it_reads() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "small.toml", SMALL);
    ok(&numasim(&["run", "small.toml", "-o", "r"], tmp.path()));
    let before = std::fs::read(tmp.path().join("r/results.json")).unwrap();
    let stderr = err(&numasim(&["report", "r", "-o", "r/results.json"], tmp.path()));
    assert!(stderr.contains("is the input"), "{stderr}");
    assert_eq!(std::fs::read(tmp.path().join("r/results.json")).unwrap(), before);
}

#[test]
fn closed_stdout_ends_quietly_in_every_command() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "small.toml", SMALL);
    ok(&numasim(&["trace", "record", "small.toml", "-o", "t.nst"], tmp.path()));
    let commands: [&[&str]; 9] = [
        &["workload", "list"],
        &["policy", "list"],
        &["machine", "list"],
        &["machine", "show", "starnuma16-pool"],
        &["trace", "info", "t.nst"],
        &["run", "small.toml", "-o", "r"],
        &["run", "small.toml", "-o", "r2", "--json"],
        &["analyze", "sharing", "small.toml", "-o", "s.json"],
        &["workload", "list", "--json"],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_numasim"))
            .args(args)
            .current_dir(tmp.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away, like `| head -0`
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        let quiet = out.status.success() || out.status.signal() == Some(libc_sigpipe());
        assert!(quiet, "{args:?}: {:?} {stderr}", out.status);
    }
}

fn libc_sigpipe() -> i32 {
    13
}

#[test]
fn sigterm_during_a_run_leaves_no_partial_directory() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "long.toml",
        &SMALL.replace("accesses_per_thread = 20000", "accesses_per_thread = 20000000"),
    );
    for sig in ["TERM", "INT", "HUP"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_numasim"))
            .args(["run", "long.toml", "-o", "r"])
            .current_dir(tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let partial = tmp.path().join(format!("r.partial-{}", child.id()));
        let t0 = std::time::Instant::now();
        while !partial.exists() && t0.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(partial.exists(), "the run never started");
        let killed = Command::new("kill")
            .args([format!("-{sig}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert!(status.signal().is_some(), "SIG{sig}: {status:?}");
        assert_eq!(names_in(tmp.path()), ["long.toml"], "SIG{sig}");
    }
}

/// `policy list` and `params migration POLICY` show every registered policy and profiler
/// and every declared parameter with its unit (both are generated from the registries).
#[test]
fn policy_list_and_params_come_from_the_registries() {
    use numasim::migrate::params::{mechanism_params, PolicyKind};
    use numasim::profile::ProfilerKind;
    let tmp = tempfile::tempdir().unwrap();
    let list = ok(&numasim(&["policy", "list"], tmp.path()));
    for p in PolicyKind::ALL {
        assert!(
            list.contains(&format!("{} — ", p.name())),
            "policy list lacks {}",
            p.name()
        );
        for d in p.params() {
            assert!(
                list.lines().any(|l| l.trim_start().starts_with(&format!("{} ", d.name))
                    && l.contains(d.unit)
                    && l.contains(d.description)),
                "policy list lacks {} of {} with its unit and doc",
                d.name,
                p.name()
            );
        }
        let params = ok(&numasim(&["params", "migration", p.name()], tmp.path()));
        let mut want = p.params();
        if p.name() != "none" {
            want.extend(p.default_profiler().params());
            want.extend(mechanism_params());
        }
        for d in want {
            assert!(
                params
                    .lines()
                    .any(|l| l.starts_with(&format!("{} ", d.name)) && l.contains(d.unit)),
                "params migration {} lacks {} ({})",
                p.name(),
                d.name,
                d.unit
            );
        }
    }
    for k in ProfilerKind::ALL {
        assert!(
            list.lines()
                .any(|l| l.trim_start().starts_with(&format!("{} ", k.name()))),
            "policy list lacks profiler {}",
            k.name()
        );
    }
}

/// `--compression-level` trades file size for decode speed: a higher level writes a smaller
/// file holding the same records; out-of-range levels are refused by the argument parser.
#[test]
fn trace_compression_level_changes_size_not_records() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "small.toml", SMALL);
    ok(&numasim(
        &["trace", "record", "small.toml", "-o", "fast.nst"],
        tmp.path(),
    ));
    ok(&numasim(
        &[
            "trace",
            "record",
            "small.toml",
            "-o",
            "small.nst",
            "--compression-level",
            "9",
        ],
        tmp.path(),
    ));
    ok(&numasim(
        &[
            "trace",
            "convert",
            "--from",
            "native",
            "fast.nst",
            "-o",
            "neg.nst",
            "--compression-level",
            "-3",
        ],
        tmp.path(),
    ));
    let size = |f: &str| std::fs::metadata(tmp.path().join(f)).unwrap().len();
    assert!(
        size("small.nst") < size("fast.nst"),
        "{} vs {}",
        size("small.nst"),
        size("fast.nst")
    );
    let records = |f: &str| {
        let out = ok(&numasim(&["trace", "info", f, "--json"], tmp.path()));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["records"].clone(), v["threads"].clone())
    };
    assert_eq!(records("fast.nst"), records("small.nst"));
    assert_eq!(records("fast.nst"), records("neg.nst"));
    let stderr = err(&numasim(
        &[
            "trace",
            "record",
            "small.toml",
            "-o",
            "x.nst",
            "--compression-level",
            "23",
        ],
        tmp.path(),
    ));
    assert!(stderr.contains("compression-level"), "{stderr}");
}
