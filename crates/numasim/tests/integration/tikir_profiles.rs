//! Tikir & Hollingsworth's profile sources: the look-ahead perfect profile, the
//! maximum-rate monitor with a finite buffer, and profile-driven static placement.

use numasim::experiment::{simulate, Experiment, RunResults};
use numasim::trace::native::NativeWriter;
use numasim_trace::Access;

const PAGE: u64 = 4096;

/// A two-thread trace on the two-socket machine (scatter: thread t on socket t), 10
/// instructions per access, phases of 1000 instructions (100 accesses per thread). In phase
/// k the "user" thread `user(k)` reads the 16 shared pages; the other reads its own page.
fn alternating_trace(dir: &std::path::Path, phases: u64, user: impl Fn(u64) -> usize) -> std::path::PathBuf {
    let path = dir.join("t.nst");
    let mut w = NativeWriter::create(&path, 2, &serde_json::json!(null)).unwrap();
    for t in 0..2usize {
        for k in 0..phases {
            for i in 0..100u64 {
                let instr = k * 1000 + i * 10 + 1;
                let vaddr = if user(k) == t {
                    (0x10_0000 + (i % 16) * PAGE) + (i % 64) * 64
                } else {
                    0x100_0000 + t as u64 * PAGE + (i % 64) * 64
                };
                w.write(t, &Access::read(instr, vaddr, 8)).unwrap();
            }
        }
    }
    w.finish().unwrap();
    path
}

fn run_trace(dir: &std::path::Path, migration: &str) -> RunResults {
    let p = dir.join("e.toml");
    std::fs::write(
        &p,
        format!(
            "machine = \"two-socket\"\nphase_instructions = 1000\n[workload]\ntrace = \"t.nst\"\nformat = \"native\"\n\
             [mapping]\npolicy = \"scatter\"\n[llc]\nenabled = false\n[migration]\n{migration}\n"
        ),
    )
    .unwrap();
    let exp = Experiment::load(&p).unwrap_or_else(|e| panic!("{e}"));
    simulate(&exp, &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).1
}

/// Non-local share of the memory accesses from phase 1 on.
fn non_local_after_first(r: &RunResults) -> f64 {
    let (mut remote, mut all) = (0.0, 0.0);
    for p in &r.phases[1..] {
        let m = p.summary.counts.llc_misses as f64;
        remote += (1.0 - p.summary.local_fraction) * m;
        all += m;
    }
    remote / all.max(1.0)
}

#[test]
fn perfect_next_sees_the_next_intervals_accesses() {
    let dir = tempfile::tempdir().unwrap();
    // The shared pages' user alternates every phase: the previous phase is always wrong about
    // the next one, the next phase's own accesses are always right.
    alternating_trace(dir.path(), 6, |k| (k % 2) as usize);
    let next = run_trace(
        dir.path(),
        "policy = \"tikir\"\nprofiler = \"perfect-next\"\nfreeze_intervals = 0",
    );
    let prev = run_trace(
        dir.path(),
        "policy = \"tikir\"\nprofiler = \"perfect\"\nfreeze_intervals = 0",
    );
    assert_eq!(next.phases.len(), 6);
    assert_eq!(next.migration.profiler, "perfect-next");
    // Every boundary moves the 16 shared pages to the next phase's user, so from phase 1 on
    // every access is local.
    assert_eq!(non_local_after_first(&next), 0.0, "look-ahead placement");
    assert_eq!(next.migration.total_moves, 16 * 5);
    // The previous phase's profile moves them to the thread that will not use them.
    let p = non_local_after_first(&prev);
    assert!(p > 0.45, "previous-phase profile chases the last user: {p}");
    // Last boundary: no next phase, nothing to move.
    assert_eq!(next.phases[5].migration.moves, 0);
}

#[test]
fn profile_static_places_from_the_first_runs_profile_only() {
    let dir = tempfile::tempdir().unwrap();
    // Thread 0 first-touches the shared pages in phase 0; thread 1 uses them from then on.
    alternating_trace(dir.path(), 6, |k| usize::from(k > 0));
    let none = run_trace(dir.path(), "policy = \"none\"");
    // Every transaction profiled: the first run says socket 1 uses the shared pages most, so
    // the second run places them on node 1 from the start and moves nothing.
    let every = run_trace(
        dir.path(),
        "policy = \"profile-static\"\nprofiler = \"interconnect\"\nsample_interval = 1",
    );
    assert_eq!(every.migration.total_moves, 0);
    assert!(
        every.phases.iter().all(|p| p.migration.profiler_samples == 0),
        "the second run does not profile"
    );
    assert_eq!(non_local_after_first(&every), 0.0);
    assert!(non_local_after_first(&none) > 0.45);
    // A profile that sampled nothing (interval beyond every transaction of the first run)
    // places nothing: the second run is plain first touch, although the run it places could
    // have been profiled. Only the first run's profile decides.
    let blind = run_trace(
        dir.path(),
        "policy = \"profile-static\"\nprofiler = \"interconnect\"\nsample_interval = 100000",
    );
    assert_eq!(blind.totals.summary.local_fraction, none.totals.summary.local_fraction);
    assert_eq!(blind.pages_per_node, none.pages_per_node);
}
