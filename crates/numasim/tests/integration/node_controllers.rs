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
    assert_eq!(sum(&|p| p.messages_total()), run.messages_total());
    assert_eq!(sum(&|p| p.counts.bounces), run.counts.bounces);
    assert_eq!(sum(&|p| p.counts.proxy_read_bounces), run.counts.proxy_read_bounces);
    assert_eq!(sum(&|p| p.counts.proxy_fetch_bounces), run.counts.proxy_fetch_bounces);
    assert_eq!(sum(&|p| p.counts.proxy_reads), run.counts.proxy_reads);
    assert_eq!(sum(&|p| p.counts.remote_reads), run.counts.remote_reads);
    for (name, &n) in &run.messages() {
        assert_eq!(phases.iter().map(|p| p.messages()[name]).sum::<u64>(), n, "{name}");
    }
    // Not all in one phase: the figures really are per phase.
    assert!(phases.iter().filter(|p| p.messages_total() > 0).count() > 1);
    assert!(
        run.counts.bounces > 0 && run.counts.proxy_reads > 0,
        "the run bounces and proxies"
    );
}

/// One thread of STREAM copy on talbot64 with round-robin pages (1 of 64 nodes local), an
/// 8 MiB array per operand (beyond the 4 MiB SLC): misses one at a time, nearly all unloaded.
fn one_stream(timing: &str) -> Experiment {
    let text = format!(
        "machine = \"talbot64\"\nseed = 1\nmode = \"timing\"\n\n\
         [workload]\nkind = \"stream\"\nthreads = 1\narray_bytes = 8388608\nkernel = \"copy\"\niterations = 1\n\n\
         [placement]\npolicy = \"round-robin\"\npage_bytes = 8192\n\n\
         [timing]\nnode_controller_cycle_ns = 10.0\n{timing}"
    );
    Experiment::from_source(Source::from_text("stream.toml", text), "stream").expect("valid")
}

/// Table 1.2's unloaded misses, derived here action by action in 10 ns cycles: an SLC miss is
/// found after acquire SLC bus 2 + SLC lookup 6; memory is acquire MEM bus 3 + DRAM lookup 20 +
/// DRAM line access 24 + release MEM bus 2; a remote miss adds a request (send initiation 5 +
/// L 5) and a data reply (send initiation 5 + L 10). talbot64's machine file must give exactly
/// these (tolerance 0.5 %), with no calibration excess on any node.
#[test]
fn talbot64_unloaded_misses_take_table_1_2_latencies() {
    const CYCLE_NS: f64 = 10.0;
    let lookup = (2 + 6) as f64 * CYCLE_NS;
    let memory = (3 + 20 + 24 + 2) as f64 * CYCLE_NS;
    let network = (5 + 5 + 5 + 10) as f64 * CYCLE_NS;
    let (local, remote) = (lookup + memory, lookup + memory + network);
    let exp = one_stream("");
    assert_eq!(
        exp.spec.timing.core,
        Some(numasim::timing::params::CoreModel::Blocking),
        "the machine's [core]"
    );
    let r = simulate(&exp, &mut |_| {}).expect("runs").1;
    let t = r.timing.as_ref().unwrap();
    assert_eq!(t.calibration.len(), 64);
    for (node, c) in &t.calibration {
        assert_eq!(c.excess_ns, 0.0, "{node}: calibration excess");
        assert!(
            (c.lookup_path_ns - lookup).abs() < 1e-6,
            "{node}: lookup path {}",
            c.lookup_path_ns
        );
        assert!(
            (c.dram_idle_access_ns - 440.0).abs() < 1e-6,
            "{node}: DRAM {}",
            c.dram_idle_access_ns
        );
    }
    let close = |got: f64, want: f64| (got / want - 1.0).abs() < 0.005;
    let class = |name: &str| {
        t.amat_ns
            .by_class
            .get(name)
            .unwrap_or_else(|| panic!("class {name}: {:?}", t.amat_ns.by_class.keys()))
    };
    let (l, rem) = (class("local"), class("remote_2hop"));
    assert!(
        l.count > 10 && rem.count > 1000,
        "{} local, {} remote loads",
        l.count,
        rem.count
    );
    assert!(
        close(l.unloaded, local),
        "local unloaded {} vs Table 1.2's {local}",
        l.unloaded
    );
    assert!(
        close(rem.unloaded, remote),
        "remote unloaded {} vs Table 1.2's {remote}",
        rem.unloaded
    );
    // One thread, one miss at a time: what it measured is the unloaded latency, give or take
    // its own write-backs at the node controllers.
    assert!(
        close(rem.mean, remote) || (rem.mean / remote - 1.0).abs() < 0.05,
        "remote mean {}",
        rem.mean
    );
}

/// The blocking core never overlaps two misses, so the latencies of one thread's misses sum to
/// less than its run time; the out-of-order core on the same run overlaps them.
#[test]
fn the_blocking_core_never_overlaps_a_threads_misses() {
    let summed = |timing: &str| {
        let r = simulate(&one_stream(timing), &mut |_| {}).expect("runs").1;
        let t = r.timing.as_ref().unwrap();
        let loads = t.amat_ns.loads as f64 * t.amat_ns.total.unwrap();
        (loads, t.sim_time_ns)
    };
    // A write-back FLC: the write-through FLC's store hits would dominate the run.
    let (misses, time) = summed("write_through_cycles = 0\n");
    assert!(misses < time, "blocking: {misses} ns of misses in {time} ns");
    assert!(misses > 0.1 * time, "loads miss often: {misses} of {time} ns");
    let (misses, time) = summed("core = \"ooo\"\nwrite_through_cycles = 0\n");
    assert!(misses > 2.0 * time, "out-of-order: {misses} ns of misses in {time} ns");
}

/// The experiment's `[timing]` keys override the machine's `[core]` one by one, and the
/// resolved experiment records what was used, so it reruns the same.
#[test]
fn timing_keys_override_the_machines_core_and_the_resolved_experiment_records_them() {
    use numasim::timing::params::CoreModel;
    let exp = one_stream("core = \"ooo\"\nl2_bytes = 65536\n");
    assert_eq!(exp.spec.timing.core, Some(CoreModel::Ooo));
    assert_eq!(exp.spec.timing.l2_bytes, 65536);
    assert_eq!(
        exp.spec.timing.llc_latency_cycles, 8,
        "the machine's: not set in [timing]"
    );
    assert_eq!(exp.spec.timing.base_cpi, 1.0, "the machine's");
    let again = Experiment::from_source(Source::from_text("r.toml", exp.resolved_toml()), "r").expect("valid");
    assert_eq!(again.spec.timing, exp.spec.timing);
    assert!(one_stream("").resolved_toml().contains("core = \"blocking\""));
}
