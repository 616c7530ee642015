//! Speed of timing mode (ignored by default; run with `--release -- --ignored --nocapture`).

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

fn measure(mode: &str) -> (f64, u64, f64) {
    let text = format!(
        "machine = \"starnuma16-pool-scaled\"\nseed = 1\nmode = \"{mode}\"\nphase_instructions = 5000000\n\
         [workload]\nkind = \"bfs\"\nthreads = 64\nscale = 18\ndegree = 16\n"
    );
    let exp = Experiment::from_source(Source::from_text("speed.toml", &text), "speed").unwrap();
    let r = simulate(&exp, &mut |_| {}).unwrap().1;
    let cycles = r.timing.as_ref().map_or(0.0, |t| t.sim_time_ns * 2.4);
    (r.perf.accesses_per_s, r.totals.summary.accesses, cycles)
}

#[test]
#[ignore]
fn timing_speed_bfs_starnuma16_pool_scaled() {
    for round in 0..2 {
        let (t, n, cycles) = measure("timing");
        let (f, _, _) = measure("functional");
        println!(
            "round {round}: timing {:.2} M accesses/s, functional {:.2} M accesses/s, {n} accesses, {cycles:.3e} simulated cycles",
            t / 1e6,
            f / 1e6
        );
    }
}
