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

/// Issue 15 item 5: an instruction-count gap used to produce one full phase record per empty
/// phase (a 2-access trace jumping to instruction 10^12 with 2000-instruction phases asked for
/// 5 × 10^8 records and aborted at 4 GB). Empty phases are now merged into one record that
/// carries its span, in both engines and for both trace formats.
mod instruction_gaps {
    use numasim::experiment::Experiment;
    use numasim::trace::{Access, VecSource};
    use numasim_config::Source;
    use std::time::{Duration, Instant};

    const GAP: u64 = 1_000_000_000_000;

    fn run_dir(text: &str, dir: &std::path::Path) -> serde_json::Value {
        let exp = Experiment::from_source(Source::from_text(dir.join("t.toml").display().to_string(), text), "t")
            .unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let out = dir.join("out");
        let (path, r) = numasim::experiment::run(&exp, &out, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "took {:?}",
            started.elapsed()
        );
        let bytes = std::fs::metadata(path.join("results.json")).unwrap().len();
        assert!(bytes < 200_000, "results.json is {bytes} bytes");
        assert!(r.phases.len() <= 4, "{} phase records", r.phases.len());
        let spanned: u64 = r.phases.iter().map(|p| p.phases_spanned).sum();
        assert_eq!(r.totals.summary.accesses, 2);
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path.join("results.json")).unwrap()).unwrap();
        assert_eq!(json["totals"]["phases"].as_u64(), Some(r.phases.len() as u64));
        // The records account for every phase up to the one holding the last access.
        assert!(spanned >= GAP / 2000, "{spanned} phases spanned");
        let csv = std::fs::read_to_string(path.join("phases.csv")).unwrap();
        assert_eq!(csv.lines().count(), r.phases.len() + 1);
        json
    }

    fn starnuma_trace(dir: &std::path::Path) -> std::path::PathBuf {
        let p = dir.join("memtrace_t0.out");
        let mut bytes = Vec::new();
        for (addr, instr) in [(0x1000u64, 4u64), (0x2001, GAP)] {
            bytes.extend_from_slice(&addr.to_le_bytes());
            bytes.extend_from_slice(&instr.to_le_bytes());
        }
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn native_trace(dir: &std::path::Path) -> std::path::PathBuf {
        let p = dir.join("gap.trace");
        let mut src = VecSource::new(vec![vec![Access::read(4, 0x1000, 8), Access::write(GAP, 0x2000, 8)]]);
        numasim::trace::convert::convert(&mut src, &p, &serde_json::json!({"test": true})).unwrap();
        p
    }

    fn experiment(trace: &std::path::Path, format: &str, mode: &str) -> String {
        format!(
            "machine = \"two-socket\"\nmode = \"{mode}\"\nphase_instructions = 2000\n[workload]\ntrace = {:?}\nformat = \"{format}\"\n",
            trace.display().to_string()
        )
    }

    #[test]
    fn a_starnuma_trace_with_a_gap_to_10_to_the_12_is_three_records_in_both_modes() {
        for mode in ["functional", "timing"] {
            let dir = tempfile::tempdir().unwrap();
            let t = starnuma_trace(dir.path());
            let json = run_dir(&experiment(&t, "starnuma", mode), dir.path());
            let phases = json["phases"].as_array().unwrap();
            // Phase 0 holds the first access, then one record for the empty stretch, then
            // the phase holding the access at 10^12.
            assert_eq!(phases.len(), 3, "{mode}");
            assert!(phases[0].get("phases_spanned").is_none(), "written only when not 1");
            assert_eq!(phases[1]["phases_spanned"].as_u64(), Some(GAP / 2000 - 1), "{mode}");
            assert_eq!(phases[1]["accesses"].as_u64(), Some(0), "{mode}");
        }
    }

    #[test]
    fn a_native_trace_with_a_gap_finishes_quickly_in_both_modes() {
        for mode in ["functional", "timing"] {
            let dir = tempfile::tempdir().unwrap();
            let t = native_trace(dir.path());
            run_dir(&experiment(&t, "native", mode), dir.path());
        }
    }

    #[test]
    fn one_instruction_phases_with_the_largest_access_spacing_finish_quickly() {
        for mode in ["functional", "timing"] {
            let dir = tempfile::tempdir().unwrap();
            let text = format!(
                "machine = \"two-socket\"\nmode = \"{mode}\"\nphase_instructions = 1\n[workload]\nkind = \"synthetic\"\n\
                 threads = 2\naccesses_per_thread = 3\ninstructions_per_access = 4294967295\n"
            );
            let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").unwrap();
            let started = Instant::now();
            let (_, r) = numasim::experiment::run(&exp, &dir.path().join("out"), &mut |_| {}).unwrap();
            assert!(started.elapsed() < Duration::from_secs(20));
            assert_eq!(r.totals.summary.accesses, 6);
            // At most one busy and one merged empty record per access.
            assert!(r.phases.len() <= 2 * 3 + 1, "{mode}: {} records", r.phases.len());
            let instructions: u64 = r.phases.iter().map(|p| p.summary.instructions).sum();
            assert_eq!(instructions, r.totals.summary.instructions);
        }
    }

    #[test]
    fn analyze_sharing_does_not_spin_on_a_gap() {
        let dir = tempfile::tempdir().unwrap();
        let t = native_trace(dir.path());
        let opts = numasim::analyze::SharingOptions {
            machine: Some("two-socket".into()),
            ..Default::default()
        };
        let started = Instant::now();
        let a = numasim::experiment::analyze_sharing(&t, &opts).unwrap();
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_eq!(a.reads + a.writes, 2);
    }
}
