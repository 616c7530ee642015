//! Timing mode validated against closed forms and the StarNUMA presets.

use numasim::experiment::{simulate, Experiment, RunResults};
use numasim::machine::Machine;
use numasim::timing::{TimingConfig, TimingSim, TimingSpec};
use numasim_config::Source;

fn sim(m: &Machine) -> TimingSim {
    let cfg = TimingConfig {
        // Refresh off: a probe landing in a refresh window would wait for it (a loaded effect,
        // not the unloaded latency). With refresh on the calibration is against an access to
        // a closed bank instead and stays exact too (timing::booking tests).
        spec: TimingSpec {
            dram_refresh: false,
            ..TimingSpec::default()
        },
        phase_instructions: 1_000_000,
        page_bytes: 4096,
        llc: true,
    };
    // Probes only: no access runs, so no system is needed.
    TimingSim::new(&cfg, m, vec![0]).unwrap()
}

#[test]
fn unloaded_loads_see_exactly_the_derived_latency_matrix() {
    for name in [
        "starnuma16-pool",
        "starnuma16-pool-scaled",
        "starnuma16-baseline-scaled",
    ] {
        let m = Machine::load(name).unwrap();
        let mut s = sim(&m);
        let mut row = 0;
        for r in 0..m.sockets.len() {
            for n in 0..m.memory_nodes.len() {
                // A line in another DRAM row each time (line addresses 2^24 apart): no row hits.
                row += 1 << 24;
                let (total, unloaded, wait) = s.probe_load(r, n, None, row);
                let want = (m.load_latency_ns(r, n) * 1000.0).round() as u64;
                assert_eq!(
                    (total, unloaded, wait),
                    (want, want, 0),
                    "{name} s{r} → {}",
                    m.memory_nodes[n].name
                );
            }
        }
        // The paper's four figures.
        let pool = m.memory_index("pool");
        let lat = |r: usize, n: usize| m.load_latency_ns(r, n);
        assert_eq!(lat(0, 0), 80.0);
        assert_eq!(lat(0, 1), 130.0);
        assert_eq!(lat(0, 15), 360.0);
        if let Some(p) = pool {
            assert_eq!(lat(0, p), 180.0);
        }
    }
}

/// Mean unloaded block-transfer latency over requester R, owner O ≠ R, and home H uniform over
/// the given homes (H may be R's or O's own memory), ns.
fn bt_average(m: &Machine, homes: &[usize]) -> f64 {
    let mut s = sim(m);
    let (mut sum, mut n, mut row) = (0u64, 0u64, 0u64);
    let sockets = m.sockets.len();
    for r in 0..sockets {
        for o in (0..sockets).filter(|&o| o != r) {
            for &h in homes {
                row += 1 << 24;
                let (total, unloaded, wait) = s.probe_load(r, h, Some(o), row);
                assert_eq!((total, wait), (unloaded, 0));
                sum += total;
                n += 1;
            }
        }
    }
    sum as f64 / n as f64 / 1000.0
}

#[test]
fn block_transfer_averages_match_starnuma_within_two_percent() {
    let base = Machine::load("starnuma16-baseline-scaled").unwrap();
    let homes: Vec<usize> = (0..16).collect();
    let bt3 = bt_average(&base, &homes);
    // 80 + E[d(R,H)] + E[d(H,O)] + E[d(O,R)] = 80 + 109.6875 + 109.6875 + 117 ns.
    assert!((bt3 - 416.375).abs() < 1e-6, "{bt3}");
    assert!((bt3 - 413.0).abs() / 413.0 < 0.02, "3-hop {bt3} vs 413");
    let pool = Machine::load("starnuma16-pool-scaled").unwrap();
    let p = pool.memory_index("pool").unwrap();
    let bt4 = bt_average(&pool, &[p]);
    assert!((bt4 - 280.0).abs() / 280.0 < 0.02, "4-hop {bt4} vs 280");
    // A direct check of one inter-chassis 3-hop case: 80 + 140 × 3.
    let mut s = sim(&base);
    assert_eq!(s.probe_load(0, 5, Some(10), 1).0, 500_000);
}

fn run(text: &str) -> RunResults {
    let exp = Experiment::from_source(Source::from_text("t.toml", text), "t").expect("valid experiment");
    simulate(&exp, &mut |_| {}).expect("simulation runs").1
}

fn synthetic(machine: &str, pattern: &str, extra: &str, placement: &str) -> String {
    format!(
        "machine = \"{machine}\"\nseed = 5\nmode = \"timing\"\nphase_instructions = 200000\n{extra}\n\
         [placement]\n{placement}\n\
         [workload]\nkind = \"synthetic\"\nthreads = 64\npattern = \"{pattern}\"\nfootprint_bytes = 67108864\n\
         accesses_per_thread = 20000\ninstructions_per_access = 4\nlines_per_visit = 1\n"
    )
}

#[test]
fn timing_runs_are_deterministic_and_report_the_outputs() {
    let text = synthetic("starnuma16-pool-scaled", "shared-hot", "", "policy = \"first-touch\"");
    let a = run(&text);
    let b = run(&text);
    let strip = |r: &RunResults| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("perf");
        v.to_string()
    };
    assert_eq!(strip(&a), strip(&b));
    let t = a.timing.as_ref().unwrap();
    assert!(t.sim_time_ns > 0.0 && t.ipc.mean > 0.0 && t.ipc.per_core.len() == 64);
    assert!(t.amat_ns.total.unwrap() > 80.0, "{}", t.amat_ns.total.unwrap());
    for c in ["local", "remote_1hop", "remote_3hop", "block_transfer"] {
        let k = &t.amat_ns.by_class[c];
        assert!(k.count > 0 && k.unloaded > 0.0 && k.contention >= 0.0, "{c}: {k:?}");
        assert!((k.mean - k.unloaded - k.contention).abs() < 1e-6);
    }
    assert!(t.counts.invalidations > 0);
    assert!(a.phases.iter().all(|p| p.timing.is_some()));
    // No resource is ever booked beyond its capacity, and utilisations are not
    // clamped: shared-hot saturates some links, and no phase may show more than 100 %.
    for p in &a.phases {
        let pt = p.timing.as_ref().unwrap();
        assert!(pt.link_utilisation.max <= 1.0 + 1e-12, "{:?}", pt.link_utilisation);
        assert!(pt.channel_utilisation.values().all(|&u| u <= 1.0 + 1e-12));
    }
    let busiest = a.phases.iter().map(|p| p.timing.as_ref().unwrap().link_utilisation.max);
    assert!(busiest.fold(0.0, f64::max) > 0.5, "the test should load some link");
    let csv = String::from_utf8(numasim::experiment::run::phases_csv(&a).unwrap()).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for col in [
        "amat_ns",
        "ipc_mean_of_sockets",
        "link_utilisation_max",
        "migration_copy_span_ns",
    ] {
        assert!(header.contains(&col), "phases.csv lacks {col}");
    }
    let ipc_col = header.iter().position(|c| *c == "ipc_mean_of_sockets").unwrap();
    let first: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(first.len(), header.len());
    assert!(first[ipc_col].parse::<f64>().unwrap() > 0.0);
}

#[test]
fn halving_link_bandwidth_raises_amat() {
    let full = run(&synthetic(
        "starnuma16-baseline-scaled",
        "uniform",
        "",
        "policy = \"first-touch\"",
    ));
    let half = run(&synthetic(
        "starnuma16-baseline-scaled",
        "uniform",
        "[timing]\nlink_bandwidth_scale = 0.5",
        "policy = \"first-touch\"",
    ));
    let (f, h) = (full.timing.unwrap(), half.timing.unwrap());
    assert!(
        h.amat_ns.total.unwrap() > f.amat_ns.total.unwrap() * 1.1,
        "{} vs {}",
        h.amat_ns.total.unwrap(),
        f.amat_ns.total.unwrap()
    );
    assert!(h.amat_ns.contention.unwrap() > f.amat_ns.contention.unwrap());
    assert!(h.ipc.mean < f.ipc.mean);
}

/// Mean contention over LLC-miss loads that leave the socket (remote, pool, block transfer).
fn off_socket_contention(r: &RunResults) -> f64 {
    let t = r.timing.as_ref().unwrap();
    let (mut n, mut c) = (0u64, 0.0);
    for (name, k) in &t.amat_ns.by_class {
        if name != "local" {
            n += k.count;
            c += k.contention * k.count as f64;
        }
    }
    c / n as f64
}

#[test]
fn the_pool_lowers_contention_for_heavily_shared_pages() {
    let base = run(&synthetic(
        "starnuma16-baseline-scaled",
        "shared-hot",
        "",
        "policy = \"first-touch\"",
    ));
    let pool = run(&synthetic(
        "starnuma16-pool-scaled",
        "shared-hot",
        "",
        "policy = \"bind\"\nnodes = [\"pool\"]",
    ));
    let (b, p) = (off_socket_contention(&base), off_socket_contention(&pool));
    assert!(p < b, "pool {p} ns vs baseline {b} ns");
    // Off-socket misses are cheaper unloaded through the pool (180/280 ns against 130–360 and
    // 413 ns). The total AMAT is not asserted: since the DRAM model has bank groups (tCCD_L)
    // and tFAW, the scaled pool's two channels serve every socket's hot rows and its total
    // came out about 4 % above the baseline's (1847 vs 1776 ns), where the baseline keeps a
    // third of its misses local.
    let (pt, bt) = (pool.timing.unwrap(), base.timing.unwrap());
    let unloaded = |t: &numasim::timing::TimingResults| {
        let (mut n, mut u) = (0u64, 0.0);
        for (name, k) in &t.amat_ns.by_class {
            if name != "local" {
                n += k.count;
                u += k.unloaded * k.count as f64;
            }
        }
        u / n as f64
    };
    assert!(unloaded(&pt) < unloaded(&bt), "{:?} vs {:?}", pt.amat_ns, bt.amat_ns);
}

#[test]
fn timing_section_is_strict() {
    let err = Experiment::from_source(
        Source::from_text(
            "t.toml",
            "machine = \"two-socket\"\nmode = \"timing\"\n[workload]\nkind = \"synthetic\"\n[timing]\nrob = 3\n",
        ),
        "t",
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("rob"), "{err}");
    let err = Experiment::from_source(
        Source::from_text(
            "t.toml",
            "machine = \"two-socket\"\nmode = \"timing\"\n[workload]\nkind = \"synthetic\"\n[timing]\nmshrs = 0\n",
        ),
        "t",
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("timing.mshrs"), "{err}");
}

#[test]
fn a_small_store_buffer_throttles_a_store_stream() {
    // One thread storing to random lines of 64 MiB: every store misses, nothing waits on
    // loads, so only the store buffer limits how many are in flight.
    let text = |entries: u32| {
        format!(
            "machine = \"starnuma16-pool-scaled\"\nseed = 3\nmode = \"timing\"\nphase_instructions = 1000000\n\
             [workload]\nkind = \"synthetic\"\nthreads = 1\npattern = \"uniform\"\nfootprint_bytes = 67108864\n\
             accesses_per_thread = 20000\nwrite_fraction = 1.0\ninstructions_per_access = 1\n\
             [timing]\nstore_buffer_entries = {entries}\n"
        )
    };
    let one = run(&text(1)).timing.unwrap().sim_time_ns;
    let many = run(&text(56)).timing.unwrap().sim_time_ns;
    // With one entry each store waits for the previous (a local miss: 50–80 ns with row hits
    // and misses); with 56 they overlap.
    assert!(one > 40.0 * 20_000.0, "{one} ns");
    assert!(many * 10.0 < one, "56 entries {many} ns vs 1 entry {one} ns");
}

/// Uniform random loads from 16 cores over 1 GiB of one DDR4-2400 channel (one rank), LLC off.
fn random_reads_on_one_channel(frames: &str) -> (f64, f64) {
    random_reads_on_one_channel_with(frames, "")
}

/// [`random_reads_on_one_channel`] with `[timing]` keys `timing`: (row-hit fraction, GB/s).
fn random_reads_on_one_channel_with(frames: &str, timing: &str) -> (f64, f64) {
    let text = format!(
        "seed = 3\nmode = \"timing\"\nphase_instructions = 100000000\n[timing]\n{timing}\n\
         [machine]\nbase = \"two-socket\"\nmemory.m0.channels = 1\nmemory.m0.dram = \"ddr4-2400\"\n\
         [llc]\nenabled = false\n\
         [mapping]\npolicy = \"explicit\"\nsockets = [{}]\n\
         [placement]\npolicy = \"bind\"\nnodes = [\"m0\"]\nframes = \"{frames}\"\n\
         [workload]\nkind = \"synthetic\"\nthreads = 16\npattern = \"uniform\"\nfootprint_bytes = 1073741824\n\
         accesses_per_thread = 6000\ninstructions_per_access = 1\nlines_per_visit = 1\nwrite_fraction = 0.0\n",
        vec!["\"s0\""; 16].join(", ")
    );
    let r = run(&text);
    let t = r.timing.as_ref().unwrap();
    let m0 = &t.memory["m0"];
    let gbps = m0.accesses as f64 * 64.0 / t.sim_time_ns;
    (m0.row_hit_fraction, gbps)
}

#[test]
fn frame_order_decides_whether_a_random_stream_hits_open_rows() {
    let t = numasim::machine::DramKind::Ddr4_2400.timings();
    // At most four activates per tFAW, less the time refresh takes.
    let faw_bound_gbps = 4.0 * 64.0 / t.t_faw_ns * (1.0 - t.t_rfc_ns / t.t_refi_ns);
    let (seq_hits, seq_gbps) = random_reads_on_one_channel("sequential");
    let (rnd_hits, rnd_gbps) = random_reads_on_one_channel("random");
    // Touch-order frames make a random stream of first touches a sequential physical one.
    assert!(seq_hits > 0.2, "sequential frames: row hits {seq_hits}");
    assert!(
        seq_gbps > faw_bound_gbps * 1.05,
        "sequential frames beat the activate bound: {seq_gbps}"
    );
    // Scattered frames open a row for nearly every access, so tFAW bounds the bandwidth.
    assert!(rnd_hits < 0.02, "random frames: row hits {rnd_hits}");
    assert!(
        (rnd_gbps - faw_bound_gbps).abs() / faw_bound_gbps < 0.05,
        "random frames: {rnd_gbps} GB/s against the tFAW bound {faw_bound_gbps}"
    );
}

/// The read scheduler swapped by name in an experiment: 16 cores streaming through rows of one
/// channel (touch-order frames). FR-FCFS takes the queued read that can start first, so it
/// overlaps one bank's burst with other banks' activates and reaches more bandwidth; FCFS
/// waits for each read in arrival order. (FCFS has the higher row-hit fraction here, 0.32
/// against 0.27: FR-FCFS opens rows of other banks early instead of waiting for hits, which
/// this test records rather than asserts.) An unknown name is refused with the known ones.
#[test]
fn an_fcfs_read_queue_delivers_less_bandwidth_than_fr_fcfs() {
    let (fr_hits, fr_gbps) = random_reads_on_one_channel_with("sequential", "dram_scheduler = \"fr-fcfs\"");
    let (fifo_hits, fifo_gbps) = random_reads_on_one_channel_with("sequential", "dram_scheduler = \"fcfs\"");
    assert!(
        fifo_gbps < 0.97 * fr_gbps,
        "bandwidth: fcfs {fifo_gbps} GB/s (row hits {fifo_hits}) vs fr-fcfs {fr_gbps} GB/s (row hits {fr_hits})"
    );
    let err = Experiment::from_source(
        Source::from_text(
            "t.toml",
            "machine = \"two-socket\"\nmode = \"timing\"\n[workload]\nkind = \"synthetic\"\n[timing]\ndram_scheduler = \"fifo\"\n",
        ),
        "t",
    )
    .err()
    .unwrap();
    let text = err.to_string();
    assert!(
        text.contains("timing.dram_scheduler") && text.contains("known: fr-fcfs, fcfs"),
        "{text}"
    );
}
