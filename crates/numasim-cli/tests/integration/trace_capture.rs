//! `numasim trace capture` end to end: real programs (built here with gcc from tracer/tests/)
//! traced under QEMU user mode. The tracer is optional: without qemu-x86_64, gcc (with OpenMP)
//! or a tracer built into this numasim, each test says SKIPPED and why, and passes. The set-up
//! command installs what they need; tests never install software.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use numasim_trace::{collect_all, Access, NativeReader};

use crate::common;

use common::{repo_root as repo, skip_tracer as skip};

/// Why the tracer cannot run here, if it cannot.
fn missing_tools() -> Option<String> {
    common::missing_tracer_tools("gcc")
}

/// Compiles `tracer/tests/<name>.c` into `dir`; None (with the reason printed) if it cannot.
fn build(dir: &Path, name: &str, flags: &[&str]) -> Option<PathBuf> {
    let exe = dir.join(name);
    let out = Command::new("gcc")
        .args(flags)
        .arg("-I")
        .arg(repo().join("tracer"))
        .arg("-o")
        .arg(&exe)
        .arg(repo().join(format!("tracer/tests/{name}.c")))
        .output()
        .unwrap();
    if !out.status.success() {
        skip(&format!(
            "gcc cannot build {name}.c with {flags:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return None;
    }
    Some(exe)
}

fn capture(out: &Path, extra: &[&str], program: &Path, env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["trace", "capture", "-o"])
        .arg(out)
        .args(extra)
        .arg("--")
        .arg(program)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// True (after printing why) when this numasim has no tracer built in.
fn built_without_tracer(o: &Output) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    err.contains("built without its QEMU tracer") && skip(&err)
}

/// `key 0x.. [n]` from the program's output.
fn printed(stdout: &str, key: &str) -> (u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` in {stdout}"));
    let mut it = line.split_whitespace().skip(1);
    let addr = u64::from_str_radix(it.next().unwrap().trim_start_matches("0x"), 16).unwrap();
    let n = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    (addr, n)
}

fn in_range(a: &Access, base: u64, bytes: u64) -> bool {
    a.vaddr >= base && a.vaddr < base + bytes
}

#[test]
fn an_openmp_program_traced_with_4_threads_has_one_stream_per_thread_and_the_pages_it_implies() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "omp_sum", &["-O1", "-fno-tree-vectorize", "-fopenmp"]) else {
        return;
    };
    let trace = dir.path().join("omp.trace");
    let o = capture(
        &trace,
        &["--roi", "--threads-per-socket", "2"],
        &exe,
        &[("OMP_NUM_THREADS", "4"), ("OMP_WAIT_POLICY", "passive")],
    );
    if built_without_tracer(&o) {
        return;
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    let (array, n) = printed(&stdout, "array");
    let (counter, _) = printed(&stdout, "counter");
    assert_eq!(n, 1 << 18);
    let streams = collect_all(&mut NativeReader::open(&trace).unwrap()).unwrap();
    assert_eq!(streams.len(), 4, "one stream per OpenMP thread");
    let array_bytes = n * 8;
    let (mut writes, mut reads) = (0u64, 0u64);
    let mut page_threads: HashMap<u64, HashSet<usize>> = HashMap::new();
    for (t, s) in streams.iter().enumerate() {
        assert!(s.windows(2).all(|w| w[0].instr <= w[1].instr));
        let mine = s.iter().filter(|a| in_range(a, array, array_bytes));
        let (w, r) = mine.fold((0u64, 0u64), |(w, r), a| {
            assert_eq!(a.size_bytes, 8, "{a:?}");
            page_threads.entry(a.vaddr >> 12).or_default().insert(t);
            (w + a.is_write() as u64, r + !a.is_write() as u64)
        });
        // Static schedule: each thread fills and sums about a quarter.
        assert!(
            w.abs_diff(n / 4) <= n / 400 && r.abs_diff(n / 4) <= n / 400,
            "thread {t}: {w} writes, {r} reads"
        );
        writes += w;
        reads += r;
        // Every thread increments the counter 100 times (atomic read-modify-write).
        let c = s.iter().filter(|a| in_range(a, counter, 8)).count();
        assert!(c >= 100, "thread {t}: {c} counter accesses");
        page_threads.entry(counter >> 12).or_default().insert(t);
    }
    // N writes and N reads within 1 % (exact here: one access per element).
    assert!(
        writes.abs_diff(n) <= n / 100 && reads.abs_diff(n) <= n / 100,
        "{writes} writes, {reads} reads"
    );
    // The array's pages are private (one thread each, a quarter of them per thread); the
    // counter's page is shared by all four.
    let array_pages: Vec<_> = page_threads.iter().filter(|(p, _)| **p != counter >> 12).collect();
    assert_eq!(array_pages.len() as u64, array_bytes / 4096);
    assert!(array_pages.iter().all(|(_, ts)| ts.len() == 1));
    for t in 0..4 {
        let owned = array_pages.iter().filter(|(_, ts)| ts.contains(&t)).count() as u64;
        assert_eq!(owned, array_bytes / 4096 / 4, "thread {t}");
    }
    assert_eq!(page_threads[&(counter >> 12)].len(), 4);
    let info = NativeReader::open(&trace).unwrap().header().metadata.clone();
    assert_eq!(info["threads_per_socket"], 2);
    assert_eq!(info["roi"], true);
}

#[test]
fn threads_created_and_exited_in_waves_each_get_their_own_stream() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "threads", &["-O1", "-pthread"]) else {
        return;
    };
    let trace = dir.path().join("threads.trace");
    let o = capture(&trace, &[], &exe, &[]);
    if built_without_tracer(&o) {
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (pages, _) = printed(&String::from_utf8_lossy(&o.stdout), "pages");
    let streams = collect_all(&mut NativeReader::open(&trace).unwrap()).unwrap();
    assert_eq!(streams.len(), 13, "the main thread and 12 workers");
    let mut seen = HashSet::new();
    for s in &streams[1..] {
        // Each worker writes exactly its own page, 512 times.
        let w: Vec<_> = s
            .iter()
            .filter(|a| in_range(a, pages, 12 * 4096) && a.is_write())
            .collect();
        assert_eq!(w.len(), 512);
        let page = w[0].vaddr >> 12;
        assert!(w.iter().all(|a| a.vaddr >> 12 == page));
        assert!(seen.insert(page), "two streams wrote page {page:#x}");
    }
}

#[test]
fn a_crashing_program_leaves_a_readable_trace_and_a_clear_message() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "crash", &["-O1"]) else {
        return;
    };
    let trace = dir.path().join("crash.trace");
    let o = capture(&trace, &[], &exe, &[]);
    if built_without_tracer(&o) {
        return;
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("killed by signal 11 (SIGSEGV)") && err.contains("readable trace"),
        "{err}"
    );
    let (array, _) = printed(&String::from_utf8_lossy(&o.stdout), "array");
    let streams = collect_all(&mut NativeReader::open(&trace).unwrap()).unwrap();
    assert_eq!(streams.len(), 1);
    let w = streams[0]
        .iter()
        .filter(|a| in_range(a, array, 400_000) && a.is_write())
        .count();
    // All 100 000 stores happened; at most one tracer buffer (8192 records) was lost.
    assert!(w <= 100_000 && w + 8192 >= 100_000, "{w}");
}

#[test]
fn capture_refuses_a_missing_program_and_a_script_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("x.trace");
    let o = capture(&trace, &[], Path::new("/no/such/program"), &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no such program") || err.contains("built without"),
        "{err}"
    );
    let script = dir.path().join("s.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let o = capture(&trace, &[], &script, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not an ELF executable") || err.contains("built without"),
        "{err}"
    );
    assert!(!trace.exists());
}

/// The first toucher of every page, replaying all threads' accesses in (instruction, thread)
/// order, as the simulator's first-touch placement with a quantum of one instruction does.
fn first_touchers(streams: &[Vec<Access>]) -> HashMap<u64, usize> {
    let mut all: Vec<(u64, usize, u64)> = streams
        .iter()
        .enumerate()
        .flat_map(|(t, s)| s.iter().map(move |a| (a.instr, t, a.vaddr >> 12)))
        .collect();
    all.sort();
    let mut owner = HashMap::new();
    for (_, t, page) in all {
        owner.entry(page).or_insert(t);
    }
    owner
}

#[test]
fn roi_instruction_counts_start_at_each_threads_roi_entry_so_first_touch_is_the_programs() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "late_roi", &["-O1", "-pthread"]) else {
        return;
    };
    let trace = dir.path().join("late.trace");
    let o = capture(&trace, &["--roi"], &exe, &[]);
    if built_without_tracer(&o) {
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (array, pages) = printed(&String::from_utf8_lossy(&o.stdout), "array");
    let streams = collect_all(&mut NativeReader::open(&trace).unwrap()).unwrap();
    assert_eq!(streams.len(), 4);
    for (t, s) in streams.iter().enumerate() {
        assert!(s.windows(2).all(|w| w[0].instr <= w[1].instr), "thread {t}");
        // The main thread ran ~30 M instructions of set-up before the ROI; none is counted.
        let first = s.first().map_or(0, |a| a.instr);
        assert!(first < 5_000, "thread {t}: first access at instruction {first}");
    }
    // Each thread wrote its own 8 pages first; every page's first toucher is its writer. (A
    // stream's number is the order in which the tracer first saw the thread, which the host's
    // scheduling may swap among the workers, so the writer is found by its writes.)
    let owner = first_touchers(&streams);
    let per_thread = pages / 4;
    for p in 0..pages {
        let page = (array >> 12) + p;
        let writes = |s: &Vec<Access>| s.iter().filter(|a| a.vaddr >> 12 == page && a.is_write()).count();
        let writers: Vec<usize> = (0..streams.len()).filter(|&t| writes(&streams[t]) > 0).collect();
        assert_eq!(writers.len(), 1, "page {p}: one writer");
        let writer = writers[0];
        assert_eq!(owner[&page], writer, "page {p} of the array");
        assert_eq!(
            writes(&streams[writer]),
            512,
            "page {p}: its owner writes it once per long"
        );
        let first_of_block = (array >> 12) + p / per_thread * per_thread;
        assert_eq!(
            owner[&first_of_block], writer,
            "page {p}: its block of {per_thread} has one writer"
        );
    }
}

#[test]
fn capture_json_is_the_only_thing_on_stdout_while_the_program_prints() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "omp_sum", &["-O1", "-fno-tree-vectorize", "-fopenmp"]) else {
        return;
    };
    let trace = dir.path().join("omp.trace");
    let o = capture(
        &trace,
        &["--roi", "--json"],
        &exe,
        &[("OMP_NUM_THREADS", "2"), ("OMP_WAIT_POLICY", "passive")],
    );
    if built_without_tracer(&o) {
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"));
    assert_eq!(v["threads"], 2);
    assert!(v["records"].as_u64().unwrap() > 1 << 18);
    // The program's own output went to stderr.
    let stderr = String::from_utf8_lossy(&o.stderr);
    printed(&stderr, "array");
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn a_killed_capture_leaves_no_qemu_running() {
    // QEMU ignores SIGTERM while it runs the program: a SIGTERM to numasim must not leave it
    // (and the program) running. A stand-in "QEMU" that ignores SIGTERM and starts a child
    // shows whether the whole group goes.
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let fake = dir.path().join("fake-qemu");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ntrap '' TERM INT HUP\nsleep 300 &\necho $$ $! > {}.tmp\nmv {0}.tmp {0}\nwait\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let trace = dir.path().join("t.trace");
    let mut numasim = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["trace", "capture", "-o"])
        .arg(&trace)
        .arg("--qemu")
        .arg(&fake)
        .args(["--", "/bin/true"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !pids.exists() {
        if let Some(status) = numasim.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(numasim.stderr.as_mut().unwrap(), &mut err).unwrap();
            if err.contains("built without its QEMU tracer") && skip(&err) {
                return;
            }
            panic!("numasim ended before the stand-in started: {status}: {err}");
        }
        assert!(std::time::Instant::now() < deadline, "the stand-in QEMU never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(started.len(), 2);
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(numasim.id() as i32, libc::SIGTERM) };
    let status = numasim.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGTERM)
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !started.iter().all(|&p| gone(p)) {
        if std::time::Instant::now() > deadline {
            for &p in &started {
                // SAFETY: cleaning up what the test started.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
            panic!("the stand-in QEMU or its child outlived numasim: {started:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Nothing of the output or the tracer plugin is left.
    assert!(!trace.exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A REP string instruction is one instruction whose accesses touch each 64-byte line once per
/// direction, as the hardware's fast strings do; QEMU runs it one element at a time, which would
/// make a 4 KiB `rep movsb` 8192 one-byte records. A plain loop keeps one record per store.
#[test]
fn a_rep_string_instruction_is_one_instruction_with_one_access_per_line_and_direction() {
    if let Some(why) = missing_tools() {
        skip(&why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), "rep_string", &["-O1"]) else {
        return;
    };
    let trace = dir.path().join("rep.trace");
    let o = capture(&trace, &["--roi"], &exe, &[]);
    if built_without_tracer(&o) {
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let streams = collect_all(&mut NativeReader::open(&trace).unwrap()).unwrap();
    assert_eq!(streams.len(), 1);
    let s = &streams[0];
    let count = |name: &str, bytes: u64, write: bool| {
        let (base, _) = printed(&out, name);
        s.iter()
            .filter(|a| in_range(a, base, bytes) && a.is_write() == write)
            .count()
    };
    // rep stosb fills src, rep movsb reads it into dst: 64 lines each way.
    assert_eq!(count("src", 4096, true), 64);
    assert_eq!(count("src", 4096, false), 64);
    assert_eq!(count("dst", 4096, true), 64);
    // rep stosq: 512 eight-byte stores, 64 lines.
    assert_eq!(count("words", 4096, true), 64);
    // The loop's stores stay one record each.
    assert_eq!(count("loop", 4096, true), 512);
    assert_eq!(s.len(), 768, "nothing else inside the ROI");
    // Each REP instruction is one instruction: the whole ROI is the loop's few thousand.
    let last = s.last().unwrap().instr;
    assert!(last < 4_000, "{last} instructions");
}
