//! Hostile access streams (instruction counts at the top of u64, addresses at the top of the
//! virtual space) finish without panicking or looping, in both engines.

use numasim::experiment::Experiment;
use numasim::machine::Machine;
use numasim::mem::{Capacity, Placement, PlacementPolicy};
use numasim::timing::{TimingConfig, TimingSim, TimingSpec};
use numasim_config::Source;

#[test]
fn hostile_instruction_counts_and_addresses_do_not_panic() {
    use numasim::trace::{Access, VecSource};
    let m = Machine::load("two-socket").unwrap();
    let cfg = TimingConfig {
        spec: TimingSpec::default(),
        phase_instructions: u64::MAX / 4,
        page_bytes: 4096,
        llc: true,
    };
    let nearest = (0..m.sockets.len())
        .map(|s| m.nearest_memory_order(s).to_vec())
        .collect();
    let placement = Placement::new(
        PlacementPolicy::FirstTouch,
        vec![Capacity::Pages(1 << 20); m.memory_nodes.len()],
        nearest,
    );
    let mut s = TimingSim::new(&cfg, &m, vec![0, 1], placement).unwrap();
    let top = (1u64 << 47) - 64;
    let t0 = vec![
        Access::read(0, 0x1000, 8),
        Access::write(1 << 60, top, 8),
        Access::read(u64::MAX - 1, top, 8),
    ];
    let t1 = vec![Access::write(5, top, 8), Access::read(u64::MAX, 0x1000, 8)];
    let mut src = VecSource::new(vec![t0, t1]);
    let mut phases = 0;
    while s.run_phase(&mut src, cfg.phase_instructions).unwrap().is_some() {
        phases += 1;
        assert!(phases < 100, "runs to completion");
    }
}

#[test]
fn functional_mode_also_finishes_on_hostile_instruction_counts() {
    use numasim::sim::FunctionalSim;
    use numasim::trace::{Access, VecSource};
    let text = "machine = \"two-socket\"\nphase_instructions = 4611686018427387903\n[workload]\nkind = \"synthetic\"\nthreads = 2\n";
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap();
    let m = numasim::experiment::resolve::machine(&exp).unwrap();
    let cfg = numasim::experiment::resolve::functional_config(&exp, &m);
    let placement = numasim::experiment::resolve::placement(&exp, &m).unwrap();
    let mut s = FunctionalSim::new(&cfg, m.sockets.len(), m.memory_nodes.len(), vec![0, 1], placement);
    let t0 = vec![
        Access::read(0, 0x1000, 8),
        Access::read(u64::MAX - 1, 0x2000, 8),
        Access::read(u64::MAX, 0x3000, 8),
    ];
    let t1 = vec![Access::write(u64::MAX, 0x1000, 8)];
    let mut src = VecSource::new(vec![t0, t1]);
    let mut phases = 0;
    while s.run_phase(&mut src).unwrap().is_some() {
        phases += 1;
        assert!(phases < 100, "runs to completion");
    }
}
