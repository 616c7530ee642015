//! Speed of timing mode (ignored by default; run with `--release -- --ignored --nocapture`).

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

fn measure(mode: &str, workload: &str) -> (f64, u64, f64, f64) {
    let text = format!(
        "machine = \"starnuma16-pool-scaled\"\nseed = 1\nmode = \"{mode}\"\nphase_instructions = 5000000\n\
         [workload]\n{workload}\n"
    );
    let exp = Experiment::from_source(Source::from_text("speed.toml", &text), "speed").unwrap();
    let r = simulate(&exp, &mut |_| {}).unwrap().1;
    let cycles = r.timing.as_ref().map_or(0.0, |t| t.sim_time_ns * 2.4);
    (r.perf.accesses_per_s, r.totals.summary.accesses, cycles, r.perf.wall_s)
}

#[test]
#[ignore = "a speed measurement that prints figures, not a check: tens of seconds; run with --release --ignored --nocapture"]
fn timing_speed_starnuma16_pool_scaled() {
    let w = std::env::var("NUMASIM_SPEED_WORKLOAD").unwrap_or_else(|_| {
        "kind = \"synthetic\"\nthreads = 64\npattern = \"shared-hot\"\naccesses_per_thread = 100000".into()
    });
    for mode in ["timing", "functional"] {
        let (rate, n, cycles, wall) = measure(mode, &w);
        println!(
            "{mode}: {:.2} M accesses/s, {n} accesses in {wall:.2} s, {cycles:.3e} simulated cycles",
            rate / 1e6
        );
    }
}
