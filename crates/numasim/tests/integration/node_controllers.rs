//! Talbot & Kelly's node controllers end to end: per-phase figures add up to the run's.

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

/// GE (64 threads, n = 64) on talbot64 with 8-read input buffers and reactive proxies, phases
/// of 20 K instructions.
fn ge_reactive() -> String {
    "machine = \"talbot64\"\nseed = 1\nmode = \"timing\"\nphase_instructions = 2000\n\n\
     [workload]\nkind = \"ge\"\nthreads = 64\nn = 64\ninit = \"parallel\"\npivoting = false\n\n\
     [placement]\npolicy = \"first-touch\"\npage_bytes = 8192\n\n\
     [timing]\nbase_cpi = 1.0\nl1_bytes = 8192\nl1_ways = 1\nnode_controller_cycle_ns = 10.0\n\
     input_buffer_reads = 8\nproxies = \"reactive\"\n"
        .into()
}

#[test]
fn per_phase_node_controller_figures_add_up_to_the_run() {
    let exp = Experiment::from_source(Source::from_text("ge.toml", ge_reactive()), "ge").expect("valid");
    let r = simulate(&exp, &mut |_| {}).expect("runs").1;
    let run = r
        .timing
        .as_ref()
        .unwrap()
        .node_controllers
        .as_ref()
        .expect("node controllers");
    let phases: Vec<_> = r
        .phases
        .iter()
        .map(|p| p.timing.as_ref().unwrap().node_controllers.clone().expect("per phase"))
        .collect();
    assert!(phases.len() > 2, "{} phases", phases.len());
    let sum = |f: &dyn Fn(&numasim::timing::node_controller::NcReport) -> u64| phases.iter().map(f).sum::<u64>();
    assert_eq!(sum(&|p| p.messages_total), run.messages_total);
    assert_eq!(sum(&|p| p.bounces), run.bounces);
    assert_eq!(sum(&|p| p.proxy_read_bounces), run.proxy_read_bounces);
    assert_eq!(sum(&|p| p.proxy_fetch_bounces), run.proxy_fetch_bounces);
    assert_eq!(sum(&|p| p.proxy_reads), run.proxy_reads);
    assert_eq!(sum(&|p| p.remote_reads), run.remote_reads);
    for (name, &n) in &run.messages {
        assert_eq!(phases.iter().map(|p| p.messages[name]).sum::<u64>(), n, "{name}");
    }
    // Not all in one phase: the figures really are per phase.
    assert!(phases.iter().filter(|p| p.messages_total > 0).count() > 1);
    assert!(run.bounces > 0 && run.proxy_reads > 0, "the run bounces and proxies");
}
