//! Hostile access streams (instruction counts at the top of u64, addresses at the top of the
//! virtual space) finish without panicking or looping, in both engines.

use numasim::experiment::Experiment;
use numasim::machine::Machine;
use numasim::mem::{Capacity, Placement, PlacementPolicy};
use numasim::timing::{TimingConfig, TimingSim, TimingSpec};
use numasim_config::Source;

/// `policy` over `m`'s nodes, each with room for 2^20 pages, nearest memory first.
fn placement_on(m: &Machine, policy: PlacementPolicy) -> Placement {
    let nearest = (0..m.sockets.len())
        .map(|s| m.nearest_memory_order(s).to_vec())
        .collect();
    Placement::new(policy, vec![Capacity::Pages(1 << 20); m.memory_nodes.len()], nearest)
}

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
    let placement = placement_on(&m, PlacementPolicy::FirstTouch);
    let mut s = TimingSim::new(&cfg, &m, vec![0, 1]).unwrap();
    let mut sys = TimingSim::system(&cfg, &m, placement).unwrap();
    let top = (1u64 << 47) - 64;
    let t0 = vec![
        Access::read(0, 0x1000, 8),
        Access::write(1 << 60, top, 8),
        Access::read(u64::MAX - 1, top, 8),
    ];
    let t1 = vec![Access::write(5, top, 8), Access::read(u64::MAX, 0x1000, 8)];
    let mut src = VecSource::new(vec![t0, t1]);
    let mut phases = 0;
    while s
        .run_phase(&mut sys, &mut src, cfg.phase_instructions)
        .unwrap()
        .is_some()
    {
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
    let mut s = FunctionalSim::new(&cfg, m.sockets.len(), m.memory_nodes.len(), vec![0, 1]);
    let mut sys = FunctionalSim::system(&cfg, m.sockets.len(), placement).unwrap();
    let t0 = vec![
        Access::read(0, 0x1000, 8),
        Access::read(u64::MAX - 1, 0x2000, 8),
        Access::read(u64::MAX, 0x3000, 8),
    ];
    let t1 = vec![Access::write(u64::MAX, 0x1000, 8)];
    let mut src = VecSource::new(vec![t0, t1]);
    let mut phases = 0;
    while s.run_phase(&mut sys, &mut src).unwrap().is_some() {
        phases += 1;
        assert!(phases < 100, "runs to completion");
    }
}

/// Regression: an instruction-count gap used to produce one full phase record per empty
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
        assert_eq!(r.totals.summary.counts.accesses, 2);
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
            assert_eq!(r.totals.summary.counts.accesses, 6);
            // At most one busy and one merged empty record per access.
            assert!(r.phases.len() <= 2 * 3 + 1, "{mode}: {} records", r.phases.len());
            let instructions: u64 = r.phases.iter().map(|p| p.summary.counts.instructions).sum();
            assert_eq!(instructions, r.totals.summary.counts.instructions);
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

/// The error of loading `text` as an experiment: (line, key, message).
fn config_error(text: &str) -> (Option<usize>, String, String) {
    let e = Experiment::from_source(Source::from_text("x.toml", text), "x").expect_err(text);
    assert_eq!(e.file, "x.toml");
    (e.line, e.key, e.message)
}

#[test]
fn timing_parameters_out_of_range_are_refused_with_file_line_and_key() {
    // Regression: tlb_entries and the L1/L2 sizes were unbounded (times up to 4096 cores).
    let base = "machine = \"two-socket\"\nmode = \"timing\"\n[workload]\nkind = \"synthetic\"\nthreads = 2\n[timing]\n";
    for (line, key) in [
        ("tlb_entries = 4294967295", "timing.tlb_entries"),
        ("l1_bytes = 1073741824", "timing.l1_bytes"),
        ("l2_bytes = 1099511627776", "timing.l2_bytes"),
        ("l2_ways = 100000", "timing.l2_ways"),
        ("tlb_ways = 4000000", "timing.tlb_ways"),
        ("link_bandwidth_scale = 1e-30", "timing.link_bandwidth_scale"),
        ("lookahead_ns = 1e300", "timing.lookahead_ns"),
        ("dram_row_bytes = 4611686018427387904", "timing.dram_row_bytes"),
    ] {
        let (at, k, msg) = config_error(&format!("{base}{line}\n"));
        assert_eq!(k, key, "{line}: {msg}");
        assert_eq!(at, Some(7), "{line}: {msg}");
    }
    // Within bounds the defaults load.
    Experiment::from_source(Source::from_text("x.toml", base), "x").unwrap();
}

/// Every section's declared ranges refuse a value with the file, its line and the dotted key:
/// `[workload]` when the run builds its source, `[migration]` when the experiment loads.
#[test]
fn workload_and_migration_parameters_out_of_range_are_refused_with_file_line_and_key() {
    let base = "machine = \"two-socket\"\n[workload]\nkind = \"stream\"\n";
    for (line, key) in [
        ("threads = 5000", "workload.threads"),
        ("iterations = 0", "workload.iterations"),
        ("array_bytes = 1099511627776", "workload.array_bytes"),
    ] {
        let exp = Experiment::from_source(Source::from_text("x.toml", format!("{base}{line}\n")), "x").unwrap();
        let e = numasim::experiment::resolve::source(&exp).err().expect(line);
        assert_eq!(
            (e.file.as_str(), e.line, e.key.as_str()),
            ("x.toml", Some(4), key),
            "{line}: {e}"
        );
    }
    let exp = Experiment::from_source(Source::from_text("x.toml", base), "x").unwrap();
    assert!(
        numasim::experiment::resolve::source(&exp).is_ok(),
        "the defaults are within range"
    );
    let (at, key, msg) = config_error(&format!(
        "{base}[migration]\npolicy = \"tikir\"\nfreeze_intervals = 2000000\n"
    ));
    assert_eq!((at, key.as_str()), (Some(6), "migration.freeze_intervals"), "{msg}");
    assert!(msg.contains("1000000"), "the message gives the range: {msg}");
}

#[test]
fn a_run_of_zero_phases_is_refused() {
    let (_, key, msg) =
        config_error("machine = \"two-socket\"\nmax_phases = 0\n[workload]\nkind = \"synthetic\"\nthreads = 2\n");
    assert_eq!(key, "max_phases", "{msg}");
}

#[test]
fn private_caches_of_thousands_of_cores_are_refused_before_allocating() {
    // Each core's L2 within its own bound, but 4096 of them would need 128 GiB of tags.
    let m = Machine::load("two-socket").unwrap();
    let spec = TimingSpec {
        l2_bytes: 256 << 20,
        ..TimingSpec::default()
    };
    let cfg = TimingConfig {
        spec,
        phase_instructions: 1000,
        page_bytes: 4096,
        llc: true,
    };
    let e = TimingSim::new(&cfg, &m, vec![0; 4096]).err().expect("refused");
    assert!(
        matches!(e, numasim::timing::SetupError::CoreTags { cores: 4096, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("cache tags"), "{e}");
}

/// The slowest machine validation allows: 1 MHz cores, 1 MB/s links, 1 ms latencies.
const SLOW_MACHINE: &str = r#"name = "slow"
[[sockets]]
name = "s0"
cores = 1
freq_ghz = 0.001
llc_bytes = 4096
llc_ways = 1
[[sockets]]
name = "s1"
cores = 1
freq_ghz = 0.001
llc_bytes = 4096
llc_ways = 1
[[memory]]
name = "m0"
kind = "dram"
capacity_bytes = 1073741824
channels = 1
dram = "ddr4-3200"
access_latency_ns = 1000000.0
socket = "s0"
[[memory]]
name = "pool"
kind = "cxl-pool"
capacity_bytes = 1073741824
channels = 1
dram = "ddr4-3200"
access_latency_ns = 1000000.0
[[links]]
a = "s0"
b = "s1"
bandwidth_gbps = 0.001
latency_ns = 1000000.0
[[links]]
a = "s1"
b = "pool"
bandwidth_gbps = 0.001
latency_ns = 1000000.0
"#;

#[test]
fn the_timing_clock_saturates_without_overflow() {
    // Regression: after the clock saturated, engine.rs and timeline.rs added latencies and
    // instruction counts with plain `+` (a panic in this debug build, a wrap in release).
    use numasim::trace::{Access, VecSource};
    let m = Machine::from_text("slow.toml", SLOW_MACHINE).unwrap();
    let spec = TimingSpec {
        base_cpi: 1000.0,
        link_bandwidth_scale: 0.001,
        rob_entries: 65536,
        ..TimingSpec::default()
    };
    let cfg = TimingConfig {
        spec,
        phase_instructions: u64::MAX,
        page_bytes: 4096,
        llc: true,
    };
    let placement = placement_on(&m, PlacementPolicy::Interleave(vec![0, 1]));
    let mut s = TimingSim::new(&cfg, &m, vec![0, 1]).unwrap();
    let mut sys = TimingSim::system(&cfg, &m, placement).unwrap();
    // Instruction gaps large enough that each step's compute time saturates, then accesses
    // packed at the very top of the instruction space.
    let stream = |t: u64| -> Vec<Access> {
        let mut v: Vec<Access> = (0..3000u64)
            .map(|i| Access::write(i << 26, 0x10_0000 * (i % 7) + 4096 * t + 64 * (i % 64), 8))
            .collect();
        v.extend((0..100u64).map(|i| Access::read(u64::MAX - 200 + i, 64 * i, 8)));
        v
    };
    let mut src = VecSource::new(vec![stream(0), stream(1)]);
    let mut phases = 0;
    let mut instructions = 0u64;
    while let Some((counts, _)) = s.run_phase(&mut sys, &mut src, cfg.phase_instructions).unwrap() {
        instructions = instructions.saturating_add(counts.instructions);
        phases += 1;
        assert!(phases < 10, "runs to completion");
    }
    assert!(instructions > u64::MAX / 2, "{instructions}");
}

#[test]
fn a_trace_without_threads_is_refused() {
    // Regression: a run of 0 threads wrote a "complete" results directory.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("empty.nst");
    numasim::trace::native::NativeWriter::create(&trace, 0, &serde_json::json!(null))
        .unwrap()
        .finish()
        .unwrap();
    let exp_path = dir.path().join("e.toml");
    std::fs::write(
        &exp_path,
        "machine = \"two-socket\"\n[workload]\ntrace = \"empty.nst\"\nformat = \"native\"\n",
    )
    .unwrap();
    let exp = Experiment::load(&exp_path).unwrap();
    let e = numasim::experiment::run(&exp, &dir.path().join("out"), &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("no threads"), "{e}");
    assert!(!dir.path().join("out").exists());
}

fn experiment_on(machine_toml: &str, rest: &str) -> Result<Machine, numasim_config::ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), machine_toml).unwrap();
    let p = dir.path().join("e.toml");
    std::fs::write(
        &p,
        format!("machine = \"m.toml\"\n{rest}[workload]\nkind = \"synthetic\"\nthreads = 2\n"),
    )
    .unwrap();
    let exp = Experiment::load(&p)?;
    numasim::experiment::resolve::machine(&exp)
}

#[test]
fn round_robin_on_a_machine_of_standalone_memory_is_refused() {
    // Regression: round-robin divided by zero when no memory node is socket-attached.
    let m = r#"name = "pooled"
[[sockets]]
name = "s0"
cores = 2
freq_ghz = 2.0
llc_bytes = 65536
llc_ways = 4
[[memory]]
name = "pool"
kind = "cxl-pool"
capacity_bytes = 1073741824
channels = 1
dram = "ddr4-3200"
access_latency_ns = 200.0
[[links]]
a = "s0"
b = "pool"
bandwidth_gbps = 32.0
latency_ns = 50.0
"#;
    let e = experiment_on(m, "[placement]\npolicy = \"round-robin\"\n").unwrap_err();
    assert_eq!(e.key, "placement.policy", "{e}");
    assert!(e.message.contains("standalone"), "{e}");
    experiment_on(m, "").unwrap();
}

#[test]
fn starnuma_policy_on_more_than_128_sockets_is_refused() {
    // Regression: sockets ≥ 128 were silently dropped from StarNUMA's region counts.
    let mut m = String::from("name = \"big\"\n[[switches]]\nname = \"x\"\ntransit_latency_ns = 10.0\n");
    for i in 0..129 {
        m.push_str(&format!(
            "[[sockets]]\nname = \"s{i}\"\ncores = 1\nfreq_ghz = 2.0\nllc_bytes = 65536\nllc_ways = 4\n\
             [[memory]]\nname = \"m{i}\"\nkind = \"dram\"\ncapacity_bytes = 1073741824\nchannels = 1\n\
             dram = \"ddr4-3200\"\naccess_latency_ns = 80.0\nsocket = \"s{i}\"\n\
             [[links]]\na = \"s{i}\"\nb = \"x\"\nbandwidth_gbps = 32.0\nlatency_ns = 50.0\n"
        ));
    }
    let e = experiment_on(&m, "[migration]\npolicy = \"starnuma\"\n").unwrap_err();
    assert_eq!(e.key, "migration.policy", "{e}");
    assert!(e.message.contains("129 sockets"), "{e}");
    experiment_on(&m, "").unwrap();
}
