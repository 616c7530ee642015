//! `measure = "roi"`: a generator's set-up runs (placing pages) but is not counted, phases and
//! migration intervals start at its region of interest, results do not depend on the decode
//! thread, and what cannot be measured that way is refused with the key named.

use numasim::config::Source;
use numasim::experiment::{simulate, Experiment, RunResults};

fn experiment(text: &str, workers: usize) -> Result<Experiment, String> {
    let mut exp = Experiment::from_source(Source::from_text("roi.toml", text), "roi").map_err(|e| e.to_string())?;
    exp.worker_threads = workers;
    Ok(exp)
}

fn run(text: &str, workers: usize) -> RunResults {
    let exp = experiment(text, workers).unwrap_or_else(|e| panic!("{e}"));
    simulate(&exp, &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).1
}

fn cg(measure: &str, migration: &str) -> String {
    format!(
        "machine = \"sunfire6800\"\nmode = \"functional\"\nphase_instructions = 300000\nmeasure = \"{measure}\"\n\
         [workload]\nkind = \"cg\"\nthreads = 12\ninit = \"serial\"\nrows = 600\nnonzeros_per_row = 5\niterations = 6\n\
         [placement]\npage_bytes = 8192\n[migration]\n{migration}\n"
    )
}

#[test]
fn the_set_up_is_run_but_only_the_region_is_counted() {
    let none = "policy = \"none\"";
    let (whole, roi) = (run(&cg("run", none), 1), run(&cg("roi", none), 1));
    let setup = roi.setup.expect("a set-up block");
    assert!(whole.setup.is_none());
    // The same streams: the set-up's accesses and the region's are the whole run's.
    let acc = |r: &RunResults| r.totals.summary.counts.accesses;
    assert_eq!(setup.accesses + acc(&roi), acc(&whole));
    assert!(setup.accesses > 0 && acc(&roi) > 0);
    // Serial set-up: thread 0 first-touched every page, the region touches none first.
    assert_eq!(setup.pages, roi.totals.footprint_pages);
    assert_eq!(roi.phases.iter().map(|p| p.summary.counts.new_pages).sum::<u64>(), 0);
    assert!(setup.region_pages > 0 && setup.region_pages < setup.pages, "{setup:?}");
    assert_eq!(roi.similarity.footprint_bytes, (setup.region_pages * 8192) as f64);
    // Phases count from the region's first instruction: fewer phases than the whole run's.
    let instr = |r: &RunResults| r.totals.summary.counts.instructions;
    assert_eq!(instr(&roi) + setup.instructions, instr(&whole));
    assert_eq!(
        roi.totals.phases,
        (instr(&roi) as f64 / (12.0 * 300000.0)).ceil() as u64
    );
    assert!(roi.totals.phases < whole.totals.phases);
    // Every page is on board 0 when the region starts: nearly every region access is remote.
    let non_local = |r: &RunResults| 1.0 - r.totals.summary.local_fraction;
    assert!(non_local(&roi) > 0.75, "{}", non_local(&roi));
    assert!(non_local(&roi) > non_local(&whole));
}

#[test]
fn results_do_not_depend_on_the_decode_thread() {
    let text = cg(
        "roi",
        "policy = \"tikir\"\nprofiler = \"interconnect\"\nsample_interval = 16",
    );
    let json = |workers| {
        let mut r = run(&text, workers);
        r.perf.wall_s = 0.0;
        r.perf.accesses_per_s = 0.0;
        r.perf.setup_s = 0.0;
        r.perf.peak_rss_mib = None;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(json(1), json(2));
}

#[test]
fn what_cannot_be_measured_from_a_region_of_interest_is_refused() {
    let timing = cg("roi", "policy = \"none\"").replace("mode = \"functional\"", "mode = \"timing\"");
    let e = experiment(&timing, 1).err().unwrap();
    assert!(e.contains("roi.toml:4") && e.contains("measure"), "{e}");
    let bad = cg("everything", "policy = \"none\"");
    assert!(experiment(&bad, 1).err().unwrap().contains("measure"));
    // A generator without a set-up: the run fails with the reason, it does not panic.
    let synthetic = "machine = \"two-socket\"\nmeasure = \"roi\"\n[workload]\nkind = \"synthetic\"\nthreads = 2\naccesses_per_thread = 100\n";
    let exp = experiment(synthetic, 1).unwrap();
    let e = simulate(&exp, &mut |_| {}).err().unwrap().to_string();
    assert!(e.contains("region of interest"), "{e}");
}
