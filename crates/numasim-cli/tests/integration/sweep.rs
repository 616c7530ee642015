//! `numasim run --set` and `numasim sweep` end to end (the Python package's tests cover the
//! same sweep files through Ray and submitit).

use crate::common;
use common::{numasim, ok};

const SMALL: &str = "machine = \"starnuma16-pool\"\nseed = 5\nphase_instructions = 20000\n\n\
[workload]\nkind = \"synthetic\"\nthreads = 4\npattern = \"shared-hot\"\naccesses_per_thread = 3000\n";

#[test]
fn set_overrides_are_typed_checked_and_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("e.toml"), SMALL).unwrap();
    let out = numasim(
        &[
            "run",
            "e.toml",
            "-o",
            "a",
            "--quiet",
            "--set",
            "workload.threads=8",
            "--set",
            "migration.policy=starnuma",
        ],
        tmp.path(),
    );
    ok(&out);
    let resolved = std::fs::read_to_string(tmp.path().join("a/experiment.resolved.toml")).unwrap();
    assert!(resolved.contains("threads = 8"), "{resolved}");
    assert!(resolved.contains("policy = \"starnuma\""), "{resolved}");
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("a/results.json")).unwrap()).unwrap();
    assert_eq!(r["threads"], 8);
    assert_eq!(r["migration"]["policy"], "starnuma");

    // Unknown keys, wrong types and bad values are refused naming the --set and the key.
    for (set, expect) in [
        (
            "workload.threadz=8",
            "error: --set workload.threadz=8: key `workload.threadz`:",
        ),
        (
            "seed=many",
            "error: --set seed=many: key `seed`: invalid type: string \"many\", expected u64",
        ),
        (
            "migration.policy=starnumaa",
            "error: --set migration.policy=starnumaa: key `migration.policy`",
        ),
        (
            "placement.page_bytes=1000",
            "error: --set placement.page_bytes=1000: key `placement.page_bytes`: must be a power of two from 4096",
        ),
        (
            "nosuchkey=1",
            "error: --set nosuchkey=1: key `nosuchkey`: unknown field `nosuchkey`",
        ),
        ("seed.x=1", "error: --set seed.x=1: key `seed.x`: `seed` is a value"),
        ("seed", "error: --set seed: expected KEY=VALUE"),
    ] {
        let out = numasim(&["run", "e.toml", "-o", "b", "--quiet", "--set", set], tmp.path());
        assert!(!out.status.success(), "{set} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(expect), "{set}: {err}");
        assert!(!tmp.path().join("b").exists());
    }
    // An error elsewhere in the file still names the file's own line.
    std::fs::write(tmp.path().join("bad.toml"), SMALL.replace("pattern =", "patern =")).unwrap();
    let out = numasim(&["run", "bad.toml", "--set", "workload.scale=3", "--quiet"], tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:8: key `workload.patern`"), "{err}");
}

#[test]
fn sweep_runs_each_point_once_and_collects_a_table() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("e.toml"), SMALL).unwrap();
    std::fs::write(
        tmp.path().join("s.toml"),
        "base = \"e.toml\"\n[grid]\nseed = [1, 2]\nworkload.pattern = [\"zipf\", \"uniform\"]\n",
    )
    .unwrap();
    let out = numasim(&["sweep", "s.toml", "-o", "out", "-j", "2"], tmp.path());
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 runs, 0 already complete, 4 to run"), "{err}");
    let dirs: Vec<String> = std::fs::read_dir(tmp.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("seed="))
        .collect();
    assert_eq!(dirs.len(), 4, "{dirs:?}");
    let out = numasim(&["sweep", "s.toml", "-o", "out"], tmp.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("4 already complete, 0 to run"));
    let dry = ok(&numasim(&["sweep", "s.toml", "-o", "out", "--dry-run"], tmp.path()));
    assert_eq!(dry.matches(" done ").count(), 4, "{dry}");
    let csv = ok(&numasim(&["sweep", "collect", "out"], tmp.path()));
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("run,seed,workload.pattern,"), "{header}");
    assert_eq!(csv.lines().count(), 5);
    // Seed 2 with uniform: its row holds the run's own totals.
    let row = csv.lines().find(|l| l.contains(",2,uniform,")).unwrap();
    let id = row.split(',').next().unwrap();
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out").join(id).join("results.json")).unwrap()).unwrap();
    assert_eq!(r["seed"], 2);
    let col = header.split(',').position(|h| h == "totals.llc_misses").unwrap();
    assert_eq!(row.split(',').nth(col).unwrap(), r["totals"]["llc_misses"].to_string());
}

/// SIGINT in the middle of a sweep: complete runs stay, the runs in flight leave nothing, and
/// the rerun runs exactly the rest.
#[test]
fn an_interrupted_sweep_loses_only_the_runs_in_flight() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("e.toml"),
        SMALL.replace("accesses_per_thread = 3000", "accesses_per_thread = 60000"),
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("s.toml"),
        "base = \"e.toml\"\n[grid]\nseed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n",
    )
    .unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["sweep", "s.toml", "-o", "out", "-j", "1"])
        .current_dir(tmp.path())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = tmp.path().join("out");
    let complete = || -> usize {
        std::fs::read_dir(&out)
            .map(|d| {
                d.flatten()
                    .filter(|e| {
                        e.path().join("results.json").is_file() && !e.file_name().to_string_lossy().contains('.')
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    let start = std::time::Instant::now();
    while complete() < 1 && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: signalling the child we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait_with_output().unwrap().status;
    assert!(
        !status.success(),
        "the sweep finished before the signal; make the runs longer"
    );
    let done = complete();
    assert!((1..12).contains(&done), "{done} complete");
    let leftovers: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-") || n.contains(".old-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let rerun = numasim(&["sweep", "s.toml", "-o", "out", "-j", "2"], tmp.path());
    ok(&rerun);
    let err = String::from_utf8_lossy(&rerun.stderr);
    assert!(
        err.contains(&format!("{done} already complete, {} to run", 12 - done)),
        "{err}"
    );
    assert_eq!(complete(), 12);
}

/// A sweep over a machine parameter with a baseline, as a user runs it: the dry run lists the
/// runs by name and fails on a missing machine file, the sweep prints a table with the
/// baseline first, and `report` and `plot` take the sweep's root.
#[test]
fn a_machine_sweep_with_a_baseline_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let timing = SMALL.replace("seed = 5\n", "seed = 5\nmode = \"timing\"\n");
    std::fs::write(tmp.path().join("e.toml"), timing).unwrap();
    std::fs::write(
        tmp.path().join("s.toml"),
        "base = \"e.toml\"\n[grid]\nmachine.pool_latency_ns = [180, 360]\n[baseline]\nmachine = \"starnuma16-baseline\"\n",
    )
    .unwrap();
    let dry = ok(&numasim(&["sweep", "s.toml", "-o", "out", "--dry-run"], tmp.path()));
    let names: Vec<&str> = dry.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(
        names[..3],
        ["baseline", "pool_latency_ns=180", "pool_latency_ns=360"],
        "{dry}"
    );
    assert!(dry.contains("with pool_latency_ns=360"), "{dry}");
    let out = ok(&numasim(&["sweep", "s.toml", "-o", "out", "-j", "2"], tmp.path()));
    let table: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("run ")).collect();
    assert!(table[1].starts_with("baseline ") && table[1].contains("1.00×"), "{out}");
    assert!(table[2].starts_with("pool_latency_ns=180 "), "{out}");
    let resolved = std::fs::read_to_string(tmp.path().join("out/pool_latency_ns=360/machine.resolved.toml")).unwrap();
    assert!(resolved.contains("#   machine.pool_latency_ns = 360"), "{resolved}");
    ok(&numasim(&["report", "out", "-o", "r.html"], tmp.path()));
    let html = std::fs::read_to_string(tmp.path().join("r.html")).unwrap();
    assert!(
        html.contains("speedup over baseline"),
        "the speedup table is over the baseline"
    );
    ok(&numasim(
        &["plot", "out", "--figure", "speedup", "-o", "s.svg"],
        tmp.path(),
    ));
    // A machine file that does not exist fails the dry run, naming where it was looked for.
    std::fs::write(
        tmp.path().join("s2.toml"),
        "base = \"e.toml\"\n[grid]\nmachine = [\"my-machine.toml\"]\n",
    )
    .unwrap();
    let out = numasim(&["sweep", "s2.toml", "--dry-run"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("my-machine.toml") && err.contains("relative to the experiment file's folder"),
        "{err}"
    );
}
