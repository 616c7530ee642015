//! A run scaled from a declared paper reference by `numasim::similarity` reports, in its
//! results.json `similarity` block, the paper's numbers for the ones the derivation kept; a
//! bad `[similarity]` value is refused naming the file, line and key.

use numasim::config::Source;
use numasim::experiment::{simulate, Experiment, RunResults};
use numasim::similarity::{Reference, Scaled};

fn experiment(text: &str) -> Result<Experiment, String> {
    Experiment::from_source(Source::from_text("sim.toml", text), "sim").map_err(|e| e.to_string())
}

fn run(text: &str) -> RunResults {
    let exp = experiment(text).unwrap_or_else(|e| panic!("{e}"));
    simulate(&exp, &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).1
}

/// A stream whose footprint is touched in the first phase, on 4 threads.
fn stream(phase_instructions: u64, tail: &str) -> String {
    format!(
        "machine = \"two-socket\"\nphase_instructions = {phase_instructions}\nmax_phases = 4\n\
         [workload]\nkind = \"stream\"\nthreads = 4\narray_bytes = 1048576\niterations = 40\ninit = \"parallel\"\n\
         [llc]\nenabled = false\n{tail}"
    )
}

fn paper() -> Reference {
    Reference {
        source: Some("a made-up paper".into()),
        footprint_bytes: 1e9,
        threads: Some(12.0),
        phase_instructions: Some(5e7),
        phases: Some(4.0),
        ..Reference::default()
    }
}

#[test]
fn a_run_scaled_by_the_rule_reports_the_papers_numbers() {
    // The footprint first (it does not depend on the phase length), then the phase the rule
    // derives for it.
    let probe = run(&stream(1_000_000, ""));
    let footprint = probe.totals.footprint_bytes as f64;
    let scaled = Scaled::for_footprint(paper(), footprint);
    let phase = scaled.phase_instructions(4).unwrap();
    let mut table = toml::Table::new();
    table.insert("similarity".into(), toml::Value::try_from(paper()).unwrap());
    let r = run(&stream(phase, &toml::to_string(&table).unwrap()));
    let s = &r.similarity;
    assert_eq!(s.scale, Some(footprint / 1e9));
    assert_eq!(r.totals.phases, 4, "the run is the paper's 4 phases");
    for name in ["instructions_per_phase_per_footprint_byte", "phases_per_run"] {
        let row = s.row(name).unwrap_or_else(|| panic!("no {name}"));
        let (run, reference) = (row.run.unwrap(), row.reference.unwrap());
        // Threads stop at the first access past the boundary: within 1 %.
        assert!(
            (run - reference).abs() <= 0.01 * reference,
            "{name}: {run} against {reference}"
        );
    }
    // 5e7 instructions x 12 threads per 1 GB: 0.6 per byte.
    assert_eq!(
        s.row("instructions_per_phase_per_footprint_byte").unwrap().reference,
        Some(0.6)
    );
    // The filter is off: no LLC.
    assert_eq!(s.row("llc_bytes_over_footprint").unwrap().run, Some(0.0));
}

#[test]
fn runs_without_a_reference_report_their_own_numbers_only() {
    let r = run(&stream(1_000_000, ""));
    assert!(r.similarity.reference.is_none() && r.similarity.scale.is_none());
    assert!(r.similarity.numbers.iter().all(|n| n.reference.is_none()));
    let phases = r.similarity.row("phases_per_run").unwrap().run.unwrap();
    assert_eq!(phases, r.totals.phases as f64);
}

#[test]
fn bad_reference_values_name_file_line_and_key() {
    for (tail, key) in [
        ("[similarity]\nfootprint_bytes = 0\n", "similarity.footprint_bytes"),
        (
            "[similarity]\nfootprint_bytes = 1e9\ntimed_share = 1.5\n",
            "similarity.timed_share",
        ),
        (
            "[similarity]\nfootprint_bytes = 1e9\nphases = -3\n",
            "similarity.phases",
        ),
        ("[similarity]\nfootprint_bytes = 1e9\nwindows = 3\n", "windows"),
    ] {
        let e = experiment(&stream(1000, tail)).expect_err(tail);
        assert!(e.contains("sim.toml") && e.contains(key), "{tail}: {e}");
    }
}
