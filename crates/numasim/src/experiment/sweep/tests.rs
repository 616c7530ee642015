use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const BASE: &str = "machine = \"starnuma16-pool\"\nseed = 3\nphase_instructions = 20000\n\
    [workload]\nkind = \"synthetic\"\nthreads = 4\npattern = \"uniform\"\naccesses_per_thread = 2000\n";

#[test]
fn hash_is_fnv1a() {
    // Published FNV-1a 64 test vectors.
    assert_eq!(config_hash(""), "cbf29ce484222325");
    assert_eq!(config_hash("a"), "af63dc4c8601ec8c");
}

#[test]
fn grid_and_zip_expand_to_the_product() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[set]\nmax_phases = 2\n[grid]\nseed = [1, 2, 3]\n\
         [[zip]]\nworkload.threads = [2, 4]\nworkload.pattern = [\"zipf\", \"shared-hot\"]\n",
    );
    let sw = Sweep::load(&s, Some(&d.path().join("out"))).unwrap();
    // Grid axes, then each zip group's; keys in sorted order within a table.
    assert_eq!(sw.axes, ["seed", "workload.pattern", "workload.threads"]);
    assert_eq!(sw.len(), 6);
    let ids: std::collections::HashSet<_> = (0..sw.len()).map(|i| sw.id_of(i)).collect();
    assert_eq!(ids.len(), 6);
    let r = sw.run(5).unwrap();
    assert_eq!(r.experiment.spec.seed, 3);
    assert_eq!(r.experiment.spec.max_phases, Some(2));
    assert_eq!(
        r.experiment.spec.workload.as_ref().unwrap()["threads"].as_integer(),
        Some(4)
    );
    assert_eq!(
        r.experiment.spec.workload.as_ref().unwrap()["pattern"].as_str(),
        Some("shared-hot")
    );
    assert_eq!(
        sw.run(0).unwrap().experiment.spec.workload.as_ref().unwrap()["pattern"].as_str(),
        Some("zipf")
    );
    // Expansion is deterministic: same ids in the same order.
    let again = Sweep::load(&s, Some(&d.path().join("out"))).unwrap();
    let a: Vec<_> = (0..again.len()).map(|i| again.id_of(i)).collect();
    let b: Vec<_> = (0..sw.len()).map(|i| sw.id_of(i)).collect();
    assert_eq!(a, b);
}

#[test]
fn bad_axes_are_refused_naming_the_key() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[grid]\nworkload.scalee = [1, 2]\n",
    );
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!(e.key, "workload.scalee");
    assert!(e.file.contains("[grid] workload.scalee = 1"), "{e}");
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\n[grid]\nseed = 4\n");
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("grid.seed", Some(3)), "{e}");
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[[zip]]\nseed = [1, 2]\nworkload.threads = [1]\n",
    );
    let e = Sweep::load(&s, None).unwrap_err();
    assert!(e.message.contains("equal lengths"), "{e}");
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\ngrids = 1\n");
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!(e.key, "grids");
}

#[test]
fn runs_skip_when_complete_and_collect_has_the_axes() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\n[grid]\nseed = [1, 2]\n");
    let out = d.path().join("out");
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    sw.write_manifest().unwrap();
    assert!(sw.run_one(0, 1, &mut |_| {}).unwrap());
    assert!(!sw.run_one(0, 1, &mut |_| {}).unwrap(), "a complete run is skipped");
    assert!(sw.is_complete(0) && !sw.is_complete(1));
    // A partial left by a killed run is not a complete run.
    std::fs::create_dir(out.join(format!("{}.partial-999999", sw.name_of(1)))).unwrap();
    let (header, rows) = collect(&out).unwrap();
    assert_eq!(&header[..2], ["run", "seed"]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0], sw.name_of(0));
    assert_eq!(rows[0][1], "1");
    let col = header.iter().position(|h| h == "totals.accesses").unwrap();
    assert_eq!(rows[0][col], "8000");
    assert!(sw.run_one(1, 1, &mut |_| {}).unwrap());
    let csv = String::from_utf8(collect_csv(&out).unwrap()).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // The resolved experiment in the run directory holds the swept value.
    let resolved = std::fs::read_to_string(sw.run_dir(1).join("experiment.resolved.toml")).unwrap();
    assert!(resolved.contains("seed = 2"), "{resolved}");
    assert_eq!(config_hash(&resolved), sw.id_of(1));
}

#[test]
fn runs_are_named_by_their_axis_values_with_the_baseline_first() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[grid]\nmachine.pool_latency_ns = [200, 270]\nmigration.policy = [\"none\", \"starnuma\"]\n\
         [baseline]\nmachine = \"starnuma16-baseline\"\n",
    );
    let out = d.path().join("out");
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    let names: Vec<String> = (0..sw.len()).map(|i| sw.name_of(i)).collect();
    assert_eq!(
        names,
        [
            "baseline",
            "pool_latency_ns=200+policy=none",
            "pool_latency_ns=200+policy=starnuma",
            "pool_latency_ns=270+policy=none",
            "pool_latency_ns=270+policy=starnuma"
        ]
    );
    assert_eq!(sw.baseline, Some(0));
    assert_eq!(sw.run_dir(1), out.join("pool_latency_ns=200+policy=none"));
    // The name is the run's name in its results, so reports label it so.
    assert_eq!(sw.run(3).unwrap().experiment.name, "pool_latency_ns=270+policy=none");
    let m = super::super::resolve::machine(&sw.run(3).unwrap().experiment).unwrap();
    assert_eq!(m.load_latency_ns(0, m.memory_index("pool").unwrap()), 270.0);
    sw.write_manifest().unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(manifest["baseline"], "baseline");
    assert_eq!(manifest["order"][0], "baseline");
    assert_eq!(manifest["order"][4], "pool_latency_ns=270+policy=starnuma");
    // Two axes with the same last part keep their whole keys.
    assert_eq!(
        short_names(&["a.x".into(), "b.x".into(), "c.y".into()]),
        ["a.x", "b.x", "y"]
    );
}

#[test]
fn a_dry_run_checks_every_point_machine_included() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    // A machine file that does not exist, relative to the base experiment's folder.
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[grid]\nmachine = [\"starnuma16-pool\", \"my-machine.toml\"]\n",
    );
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!(e.key, "machine", "{e}");
    assert!(e.file.contains("[grid] machine = \"my-machine.toml\""), "{e}");
    assert!(
        e.message
            .contains(&d.path().join("my-machine.toml").display().to_string()),
        "{e}"
    );
    // A machine override out of range, in one point only.
    let s = write(
        d.path(),
        "s.toml",
        "base = \"base.toml\"\n[grid]\nmachine.pool_latency_ns = [200, 60]\n",
    );
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!(e.key, "machine.pool_latency_ns", "{e}");
    assert!(e.file.contains("machine.pool_latency_ns = 60"), "{e}");
    assert!(e.message.contains("must exceed"), "{e}");
    // A missing trace file.
    write(
        d.path(),
        "trace.toml",
        "machine = \"starnuma16-pool\"\n[workload]\ntrace = \"t.nsim\"\n",
    );
    let s = write(d.path(), "s.toml", "base = \"trace.toml\"\n[grid]\nseed = [1, 2]\n");
    let e = Sweep::load(&s, None).unwrap_err();
    assert_eq!(e.key, "workload.trace", "{e}");
}

#[test]
fn a_changed_point_is_stale_and_reruns() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\n[grid]\nseed = [1]\n");
    let out = d.path().join("out");
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    assert_eq!(sw.state(0), RunState::Pending);
    assert!(sw.run_one(0, 1, &mut |_| {}).unwrap());
    assert_eq!(sw.state(0), RunState::Done);
    write(d.path(), "base.toml", &BASE.replace("threads = 4", "threads = 2"));
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    assert_eq!(sw.state(0), RunState::Stale);
    assert!(sw.run_one(0, 1, &mut |_| {}).unwrap(), "a stale run is replaced");
    assert_eq!(sw.state(0), RunState::Done);
}

#[test]
fn a_sweep_never_replaces_a_sweep_json_it_did_not_write() {
    // `sweep -o DIR` must not overwrite a DIR/sweep.json of the user's; a sweep file's `out`
    // can point anywhere.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\n[grid]\nseed = [1, 2]\n");
    let out = d.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join(MANIFEST), "my own notes").unwrap();
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    let e = sw.write_manifest().unwrap_err();
    assert!(e.to_string().contains("did not make it"), "{e}");
    assert_eq!(std::fs::read_to_string(out.join(MANIFEST)).unwrap(), "my own notes");
    // The directory holding the sweep's own files is refused too.
    let sw = Sweep::load(&s, Some(d.path())).unwrap();
    assert!(sw.write_manifest().is_err());
    // A root written before roots carried a marker is recognised and kept up to date.
    let legacy = d.path().join("legacy");
    std::fs::create_dir(&legacy).unwrap();
    std::fs::write(legacy.join(MANIFEST), r#"{"name":"s","axes":["seed"],"runs":{}}"#).unwrap();
    let sw = Sweep::load(&s, Some(&legacy)).unwrap();
    sw.write_manifest().unwrap();
    sw.write_manifest().unwrap();
    assert!(std::fs::read_to_string(legacy.join(MANIFEST))
        .unwrap()
        .contains(&sw.name_of(1)));
}

#[test]
fn collect_never_writes_onto_a_runs_results() {
    // `sweep collect ROOT -o ROOT/<id>/results.json` must not replace a run's results.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "base.toml", BASE);
    let s = write(d.path(), "s.toml", "base = \"base.toml\"\n[grid]\nseed = [1]\n");
    let out = d.path().join("out");
    let sw = Sweep::load(&s, Some(&out)).unwrap();
    sw.write_manifest().unwrap();
    sw.run_one(0, 1, &mut |_| {}).unwrap();
    let results = sw.run_dir(0).join("results.json");
    let before = std::fs::read(&results).unwrap();
    for target in [results.clone(), out.join(MANIFEST), sw.run_dir(0).join("table.csv")] {
        assert!(write_collected(&out, &target).is_err(), "{}", target.display());
    }
    assert_eq!(std::fs::read(&results).unwrap(), before);
    assert!(!sw.run_dir(0).join("table.csv").exists());
    // Beside the runs is fine.
    assert_eq!(write_collected(&out, &out.join("table.csv")).unwrap(), 1);
}
