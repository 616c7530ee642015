//! Workload fidelity: the real GAP `bfs` (built here from the pinned copy in `fidelity/gapbs/`,
//! ROI markers around each trial) traced by `numasim trace capture --roi` on 16 threads at
//! graph scale 14, against the `bfs` generator at the same scale, degree, trials, threads and
//! schedule, through `numasim analyze compare` (16 sockets, one thread each, first touch,
//! quantum 1). The tracer and g++ are optional: without them each test says SKIPPED and why,
//! and fails instead under `NUMASIM_REQUIRE_TRACER=1` (CI).
//!
//! OpenMP threads wait passively (`OMP_WAIT_POLICY=passive`): under QEMU on two host cores,
//! spinning waits are as long as the host's time slices, so their reads would measure the host.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use common::{repo_root as repo, skip_tracer as skip};

/// Why the tracer cannot run here, if it cannot.
fn missing_tools() -> Option<String> {
    common::missing_tracer_tools("g++")
}

/// Builds GAP's `kernel` from the pinned copy into `dir`.
fn build_gap(dir: &Path, kernel: &str) -> Option<PathBuf> {
    let exe = dir.join(kernel);
    let out = Command::new("g++")
        .args(["-std=c++11", "-O3", "-fopenmp", "-I"])
        .arg(repo().join("tracer"))
        .arg("-o")
        .arg(&exe)
        .arg(repo().join(format!("fidelity/gapbs/src/{kernel}.cc")))
        .output()
        .unwrap();
    if !out.status.success() {
        skip(&format!(
            "g++ cannot build GAP {kernel}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return None;
    }
    Some(exe)
}

/// Traces `exe args` with 16 OpenMP threads; None (skipped) without a built-in tracer.
fn trace(exe: &Path, args: &[&str], out: &Path) -> Option<()> {
    let o = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["trace", "capture", "--roi", "-o"])
        .arg(out)
        .arg("--")
        .arg(exe)
        .args(args)
        .env("OMP_NUM_THREADS", "16")
        .env("OMP_WAIT_POLICY", "passive")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if err.contains("built without its QEMU tracer") {
        skip(&err);
        return None;
    }
    assert!(o.status.success(), "{err}");
    Some(())
}

fn compare(a: &Path, b: &Path) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["analyze", "compare", "--json"])
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Statistics outside their bands: `key a b`.
fn outside(c: &serde_json::Value) -> Vec<String> {
    c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["within"] == false)
        .map(|m| format!("{} {:.2} vs {:.2}", m["key"].as_str().unwrap(), m["a"], m["b"]))
        .collect()
}

/// The real program traced twice at g14: its spread, the reference a generator is judged against.
fn real_bfs_traces(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    if let Some(why) = missing_tools() {
        skip(&why);
        return None;
    }
    let exe = build_gap(dir, "bfs")?;
    let (a, b) = (dir.join("bfs-1.trace"), dir.join("bfs-2.trace"));
    trace(&exe, &["-g", "14", "-k", "16", "-n", "1"], &a)?;
    trace(&exe, &["-g", "14", "-k", "16", "-n", "1"], &b)?;
    Some((a, b))
}

#[test]
fn the_real_gap_bfs_traced_twice_agrees_with_itself_within_the_fidelity_bands() {
    let dir = tempfile::tempdir().unwrap();
    let Some((a, b)) = real_bfs_traces(dir.path()) else {
        return;
    };
    let c = compare(&a, &b);
    assert_eq!(c["threads_a"], 16);
    assert_eq!(c["sockets"], 16);
    // Which thread first touches a page, and which threads share it, follow GAP's `dynamic`
    // schedule, which under QEMU follows the host's timing: on a loaded 2-core host two traces
    // gave first-touch local 22.2 % and 25.9 % (LLC misses 28.4 % and 34.0 %), and accesses
    // on >8-sharer pages 60.2 % and 54.9 % (LLC misses 33.7 % and 28.3 %), past their bands.
    // Those are the host's, not the program's, so they are reported, not held to the bands.
    let host_timed = ["first_touch_local", "accesses_gt8", "llc_misses_gt8"];
    let bad: Vec<String> = outside(&c)
        .into_iter()
        .filter(|m| !host_timed.iter().any(|k| m.starts_with(k)))
        .collect();
    assert!(bad.is_empty(), "run-to-run spread outside the bands: {bad:?}");
    // The program's own signature: most accesses on pages shared by more than 8 threads.
    let gt8 = c["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "accesses_gt8_pct")
        .unwrap();
    assert!(gt8["a"].as_f64().unwrap() > 40.0, "{gt8}");
}

#[test]
#[ignore = "measured at g14, 16 threads (docs/validation/workloads.md), one trial, so GAP's first source against \
            the generator's: >8-sharer accesses 59.6 % against 53.0 % (48.8-54.2 % in other traces of that source; \
            GAP's first five sources give 52.3-67.5 %, the generator's seeds 1-6 54.3-72.3 %), footprint 463 against \
            567 pages (libgomp's and the allocator's data, thread stacks and arenas are not modelled), first-touch \
            local of LLC misses 43.6 % against 36.8 % (the runtime's pages all 16 threads touch account for 1.4 \
            points); >8-sharer LLC misses (24.9 vs 25.7 %), reads, LLC MPKI (18.2 vs 17.7) and first-touch local \
            (27.4 vs 26.8 %) are within their bands"]
fn the_bfs_generator_matches_the_real_gap_bfs_within_the_fidelity_bands() {
    let dir = tempfile::tempdir().unwrap();
    let Some((real, _)) = real_bfs_traces(dir.path()) else {
        return;
    };
    let exp = dir.path().join("bfs-g14.toml");
    std::fs::write(
        &exp,
        "machine = \"starnuma16-baseline\"\nseed = 1\n\n[workload]\nkind = \"bfs\"\nscale = 14\ndegree = 16\n\
         threads = 16\ntrials = 1\nschedule = \"gap\"\nwait_policy = \"passive\"\nframe_loads = true\n",
    )
    .unwrap();
    let c = compare(&real, &exp);
    let bad = outside(&c);
    assert!(bad.is_empty(), "generator outside the bands: {bad:?}");
}

// One trial is one source, and each statistic follows the source (GAP's first five picks at g14
// give 52.3-67.5 % of accesses on >8-sharer pages, LLC MPKI 15.9-22.8): four trials (GAP's
// first four sources, the generator's first four) compare the programs rather than the sources.
#[test]
#[ignore = "measured at g14, 16 threads, four trials: the real program's share of accesses on >8-sharer pages \
            follows the host's timing (GAP's dynamic schedule under QEMU): 85.8 % traced on an idle machine, \
            83.5 / 84.1 % under load; the generator's 80.5 % is 5.3 points from the idle trace (band 5); \
            reads within a point"]
fn the_bfs_generator_meets_the_real_gap_bfs_sharing_and_read_bands_over_four_sources() {
    let Some(c) = gap_against_generator("bfs", &["-n", "4"], "trials = 4") else {
        return;
    };
    let bad = outside_of(&c, &["accesses_gt8_pct", "read_pct"]);
    assert!(bad.is_empty(), "bfs generator outside the bands: {bad:?}");
}

/// The real GAP `kernel` built from the pinned copy and traced once at g14 (`-g 14 -k 16 -n 1`
/// and `extra` arguments) into `dir`.
fn real_gap_trace(dir: &Path, kernel: &str, extra: &[&str]) -> Option<PathBuf> {
    if let Some(why) = missing_tools() {
        skip(&why);
        return None;
    }
    let exe = build_gap(dir, kernel)?;
    let out = dir.join(format!("{kernel}.trace"));
    let mut args = vec!["-g", "14", "-k", "16", "-n", "1"];
    args.extend_from_slice(extra);
    trace(&exe, &args, &out)?;
    Some(out)
}

/// The generator `kind` as the traced program runs: g14, degree 16, 16 threads, GAP's
/// schedules, threads waiting passively at barriers (`OMP_WAIT_POLICY=passive`), `extra`
/// `[workload]` lines.
fn generator_experiment(dir: &Path, kind: &str, extra: &str) -> PathBuf {
    let exp = dir.join(format!("{kind}-g14.toml"));
    std::fs::write(
        &exp,
        format!(
            "machine = \"starnuma16-baseline\"\nseed = 1\n\n[workload]\nkind = \"{kind}\"\nscale = 14\ndegree = 16\n\
             threads = 16\nschedule = \"gap\"\nwait_policy = \"passive\"\n{extra}\n"
        ),
    )
    .unwrap();
    exp
}

/// The real GAP `kernel` (traced once) against its generator (`analyze compare --json`).
fn gap_against_generator(kernel: &str, real_args: &[&str], extra: &str) -> Option<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let real = real_gap_trace(dir.path(), kernel, real_args)?;
    let exp = generator_experiment(dir.path(), kernel, extra);
    Some(compare(&real, &exp))
}

/// Of `keys`, the statistics outside their bands (`key real generator`).
fn outside_of(c: &serde_json::Value, keys: &[&str]) -> Vec<String> {
    outside(c)
        .into_iter()
        .filter(|m| keys.iter().any(|k| m.starts_with(&format!("{k} "))))
        .collect()
}

/// Every statistic with a band, the fidelity target.
const EVERY_BAND: [&str; 7] = [
    "accesses_gt8_pct",
    "llc_misses_gt8_pct",
    "footprint_pages",
    "read_pct",
    "llc_mpki",
    "first_touch_local_pct",
    "first_touch_local_llc_pct",
];

// GAP's `pr` at g14 runs its pull loop (`schedule(dynamic, 16384)`) as one chunk per
// iteration: which threads win it, and so which LLCs hold the arrays, follows the host's
// timing. Six traces gave 18.5-99.8 % of accesses on >8-sharer pages, LLC MPKI 11.9-22.0,
// first-touch local 8.4-12.8 % (LLC misses 8.4-12.6 %), so those statistics are not held.
#[test]
fn the_pr_generator_meets_the_real_gap_pr_bands_its_schedule_does_not_decide() {
    let Some(c) = gap_against_generator("pr", &["-i", "10"], "iterations = 10") else {
        return;
    };
    let bad = outside_of(&c, &["footprint_pages", "read_pct"]);
    assert!(bad.is_empty(), "pr generator outside the bands: {bad:?}");
}

#[test]
#[ignore = "measured at g14, 16 threads (docs/validation/workloads.md): the pr generator has 28.1 % of \
            accesses on pages with >8 sharers, LLC MPKI 21.2, first-touch local 8.6 % (LLC misses 9.2 %), each \
            within the real program's spread over six traces (18.5-99.8 %, 11.9-22.0, 8.4-12.8 %, 8.4-12.6 %) \
            but one trace's band holds only by chance: which thread wins the one-chunk pull loop of each \
            iteration is the host's timing; footprint (498 vs 545 pages) and reads are within their bands"]
fn the_pr_generator_matches_the_real_gap_pr_within_every_band() {
    let Some(c) = gap_against_generator("pr", &["-i", "10"], "iterations = 10") else {
        return;
    };
    let bad = outside_of(&c, &EVERY_BAND);
    assert!(bad.is_empty(), "pr generator outside the bands: {bad:?}");
}

// GAP's `cc` at g14 runs each link and compress loop as one chunk too: two traces gave 25.0 %
// and 32.0 % of accesses (4.4 % and 12.2 % of LLC misses) on >8-sharer pages and first-touch
// local 35.6 % and 26.0 %.
#[test]
fn the_cc_generator_meets_the_real_gap_cc_bands_its_schedule_does_not_decide() {
    let Some(c) = gap_against_generator("cc", &[], "trials = 1") else {
        return;
    };
    let bad = outside_of(&c, &["llc_mpki", "first_touch_local_llc_pct"]);
    assert!(bad.is_empty(), "cc generator outside the bands: {bad:?}");
}

#[test]
#[ignore = "measured at g14, 16 threads (docs/validation/workloads.md): the cc generator's footprint is 469 \
            pages against 547 (the real program's thread stacks beyond the saved registers, allocator and \
            libgomp data), reads 89.9 % against 83.5 %, first-touch local 14.2 % against 35.6 / 26.0 % in two \
            traces; >8-sharer accesses (26.8 % vs 25.0 / 32.0 %), LLC MPKI (15.0 vs 14.4) and first-touch local \
            of LLC misses (32.0 vs 30.4 %) are within their bands"]
fn the_cc_generator_matches_the_real_gap_cc_within_every_band() {
    let Some(c) = gap_against_generator("cc", &[], "trials = 1") else {
        return;
    };
    let bad = outside_of(&c, &EVERY_BAND);
    assert!(bad.is_empty(), "cc generator outside the bands: {bad:?}");
}

#[test]
fn the_sssp_generator_meets_the_real_gap_sssp_footprint_and_llc_sharing_bands() {
    let Some(c) = gap_against_generator("sssp", &[], "trials = 1") else {
        return;
    };
    let bad = outside_of(
        &c,
        &["llc_misses_gt8_pct", "footprint_pages", "first_touch_local_llc_pct"],
    );
    assert!(bad.is_empty(), "sssp generator outside the bands: {bad:?}");
}

#[test]
#[ignore = "measured at g14, 16 threads (docs/validation/workloads.md): the sssp generator makes 3.6 M accesses \
            in 8.4 M instructions where the real program makes 5.8 M in 13.7 M with the same neighbour reads and \
            about the same LLC misses: the extra are the OpenMP runtime's calls in each of its many short \
            iterations (barriers, critical, single, loop start), mostly on each thread's stack, which the \
            runtime model does not emit; so >8-sharer accesses 52.7 % vs 40.1-41.0 %, reads 80.8 % vs 74.5-75.1 %, \
            LLC MPKI 32.3 vs 18.8-20.9, first-touch local 49.9 % vs 61.7-61.9 %"]
fn the_sssp_generator_matches_the_real_gap_sssp_within_every_band() {
    let Some(c) = gap_against_generator("sssp", &[], "trials = 1") else {
        return;
    };
    let bad = outside_of(&c, &EVERY_BAND);
    assert!(bad.is_empty(), "sssp generator outside the bands: {bad:?}");
}
