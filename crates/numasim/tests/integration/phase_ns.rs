//! Phases in simulated time (`phase_ns`, timing mode): the experiment key's rules, and that a
//! migration policy acts once per multiple of `phase_ns` of the run's simulated time.

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

const BASE: &str = "machine = \"two-socket\"\nseed = 3\nmode = \"timing\"\nphase_ns = 20000\n\
[workload]\nkind = \"synthetic\"\nthreads = 4\npattern = \"shared-hot\"\naccesses_per_thread = 20000\n\
footprint_bytes = 4194304\n";

fn refused(text: &str) -> (Option<usize>, String, String) {
    let e = Experiment::from_source(Source::from_text("x.toml", text), "x").expect_err(text);
    (e.line, e.key, e.message)
}

#[test]
fn phase_ns_is_refused_outside_plain_timing_mode_with_file_line_and_key() {
    let cases: [(String, &str); 6] = [
        (
            BASE.replace("mode = \"timing\"", "mode = \"functional\""),
            "functional mode has no clock",
        ),
        (BASE.replace("phase_ns = 20000", "phase_ns = 0"), "at least 1"),
        (
            BASE.replace("phase_ns = 20000\n", "phase_ns = 20000\nphase_instructions = 100000\n"),
            "not both",
        ),
        (
            format!("{BASE}[timing]\nsample_instructions = 1000\n"),
            "sampled timing",
        ),
        (
            format!("{BASE}[migration]\npolicy = \"tikir\"\nprofiler = \"perfect-next\"\n"),
            "perfect-next",
        ),
        (
            format!("max_phases = 3\n{BASE}[migration]\npolicy = \"oracle-static\"\n"),
            "max_phases",
        ),
    ];
    for (text, words) in &cases {
        let (line, key, message) = refused(text);
        assert_eq!(key, "phase_ns", "{text}");
        let want = text.lines().position(|l| l.starts_with("phase_ns")).unwrap() + 1;
        assert_eq!(line, Some(want), "{text}");
        assert!(message.contains(words), "{message}");
    }
    // The error names the file too.
    let e = Experiment::from_source(Source::from_text("x.toml", &cases[0].0), "x").unwrap_err();
    assert!(e.to_string().starts_with("x.toml:4: key `phase_ns`"), "{e}");
    // Plain timing mode takes it.
    Experiment::from_source(Source::from_text("x.toml", BASE), "x").unwrap();
}

#[test]
fn the_resolved_experiment_keeps_phase_ns_and_loads_again() {
    let exp = Experiment::from_source(Source::from_text("x.toml", BASE), "x").unwrap();
    let resolved = exp.resolved_toml();
    assert!(resolved.contains("phase_ns = 20000"), "{resolved}");
    assert!(!resolved.contains("phase_instructions"), "{resolved}");
    let again = Experiment::from_source(Source::from_text("r.toml", resolved.clone()), "x").unwrap();
    assert_eq!(again.resolved_toml(), resolved);
    // Without phase_ns the resolved file is as before: phase_instructions written, no phase_ns.
    let plain = BASE.replace("phase_ns = 20000\n", "");
    let r = Experiment::from_source(Source::from_text("x.toml", plain), "x")
        .unwrap()
        .resolved_toml();
    assert!(
        r.contains("phase_instructions = 10000000") && !r.contains("phase_ns"),
        "{r}"
    );
}

#[test]
fn a_policy_acts_once_per_phase_ns_of_simulated_time() {
    let text = format!("{BASE}[migration]\npolicy = \"tikir\"\n");
    let exp = Experiment::from_source(Source::from_text("x.toml", text), "x").unwrap();
    let (_, r) = simulate(&exp, &mut |_| {}).unwrap();
    let phase_ns = 20_000.0;
    let sim_ns = r.timing.as_ref().unwrap().sim_time_ns;
    let spans: Vec<[f64; 2]> = r
        .phases
        .iter()
        .map(|p| p.timing.as_ref().unwrap().span_ns.unwrap())
        .collect();
    assert!(r.phases.len() >= 5, "{} phases over {sim_ns} ns", r.phases.len());
    assert!(r.migration.total_moves > 0, "the policy moved pages");
    // One record per multiple of phase_ns the run reaches, and one migration step per multiple
    // it passes: the last phase, which the run finishes before its boundary, has none.
    assert_eq!(r.phases.len() as f64, (sim_ns / phase_ns).ceil(), "{sim_ns} ns");
    assert!(r.phases.iter().all(|p| p.phases_spanned == 1));
    let steps = r.phases.iter().filter(|p| p.migration.home_match.is_some()).count();
    assert_eq!(steps as f64, (sim_ns / phase_ns).floor(), "{sim_ns} ns");
    let last = &r.phases.last().unwrap().migration;
    assert!(last.home_match.is_none() && last.moves == 0 && last.costs.scan_entries == 0);
    // The records tile the clock: each starts where the previous ended, at or just past its
    // multiple of phase_ns (the barrier waits for accesses in flight and the moves' stalls).
    for (k, s) in spans.iter().enumerate() {
        let boundary = (k + 1) as f64 * phase_ns;
        if k > 0 {
            assert_eq!(s[0], spans[k - 1][1]);
        }
        if k + 1 < spans.len() {
            assert!(s[1] >= boundary && s[1] < boundary + phase_ns / 2.0, "phase {k}: {s:?}");
        }
        assert!((r.phases[k].timing.as_ref().unwrap().sim_time_ns - (s[1] - s[0])).abs() < 1e-6);
    }
}

#[test]
fn phases_csv_shows_each_phase_span_only_for_timed_phases() {
    let dir = tempfile::tempdir().unwrap();
    let exp = Experiment::from_source(Source::from_text("x.toml", BASE), "x").unwrap();
    let (path, r) = numasim::experiment::run(&exp, &dir.path().join("out"), &mut |_| {}).unwrap();
    let csv = std::fs::read_to_string(path.join("phases.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let (a, b) = (
        header.iter().position(|h| *h == "start_ns").unwrap(),
        header.iter().position(|h| *h == "end_ns").unwrap(),
    );
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), r.phases.len());
    assert_eq!(rows[0][a], "0.000");
    assert!(rows[0][b].parse::<f64>().unwrap() >= 20_000.0);
    let json = std::fs::read_to_string(path.join("results.json")).unwrap();
    assert!(json.contains("\"span_ns\""));

    let plain = BASE.replace("phase_ns = 20000\n", "phase_instructions = 100000\n");
    let exp = Experiment::from_source(Source::from_text("x.toml", plain), "x").unwrap();
    let (path, _) = numasim::experiment::run(&exp, &dir.path().join("plain"), &mut |_| {}).unwrap();
    let csv = std::fs::read_to_string(path.join("phases.csv")).unwrap();
    assert!(!csv.lines().next().unwrap().contains("start_ns"));
    assert!(!std::fs::read_to_string(path.join("results.json"))
        .unwrap()
        .contains("\"span_ns\""));
}
