//! results.json's `perf` block: the one part of a run's results that is measured, not simulated.

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

/// Building the workload (here a graph) is the run's setup, even though the experiment opens
/// its source while resolving, before the engine's clock starts.
#[test]
fn setup_time_includes_building_the_workload_and_peak_memory_is_reported() {
    let text = "machine = \"starnuma16-pool\"\nseed = 1\nmode = \"functional\"\nphase_instructions = 100000\n\n\
                [workload]\nkind = \"bfs\"\ngraph = \"kronecker\"\nscale = 14\ndegree = 8\nthreads = 4\ntrials = 1\n";
    let exp = Experiment::from_source(Source::from_text("bfs.toml", text), "bfs").expect("valid");
    let r = simulate(&exp, &mut |_| {}).expect("runs").1;
    // 131 K generated edges take milliseconds to build; handing over the source opened while
    // resolving (all that was timed before) takes well under a microsecond.
    assert!(r.perf.setup_s > 1e-4, "setup {} s", r.perf.setup_s);
    if cfg!(target_os = "linux") {
        assert!(r.perf.peak_rss_mib.unwrap_or(0.0) > 0.0);
    }
}
