//! `numasim repro` as a user runs it: the quick StarNUMA study end to end, its outputs, the
//! directions it reproduces, and bad names and outputs.

use crate::common;

use common::{numasim, ok};

/// The quick study's comparisons, as `--json` prints them (run once per test binary).
fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("starnuma", "sq"))
}

fn value(quantity_starts: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q.starts_with(quantity_starts), quantity_starts)
}

/// [`common::assert_holds`] on this study.
fn holds(quantity_starts: &str) {
    common::assert_holds(&quick_study().1, quantity_starts);
}

/// Every headline of the paper has a row in the quick study (or is full-size only).
#[test]
fn repro_starnuma_quick_scores_every_headline() {
    common::assert_headlines_complete(&quick_study().1);
}

#[test]
fn repro_starnuma_quick_writes_configs_runs_comparison_and_report() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("sq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert!(csv.starts_with("headline,source,quantity,unit,paper,numasim,difference,difference_unit,band"));
    assert_eq!(csv.lines().count(), v["scorecard"].as_array().unwrap().len() + 1);
    assert!(dir.join("report.html").exists());
    // Every experiment it ran is kept as a config that runs by hand, with its results beside it.
    let mut configs = 0;
    for e in std::fs::read_dir(dir.join("configs")).unwrap() {
        let name = e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
        if name.starts_with("starnuma16") {
            continue; // a machine file the Fig. 10 experiment names
        }
        assert!(dir.join("runs").join(&name).join("results.json").exists(), "{name}");
        configs += 1;
    }
    // One functional footprint run per workload (Algorithm 1's thresholds), Fig. 2, BFS's four Fig. 8 runs, baseline, T16 and T0 for the seven other workloads,
    // on BFS, Fig. 9's two oracle runs, Fig. 10's slower pool, Fig. 11's three bandwidth
    // variants, Fig. 12's smaller pool, the migration-limit search (2 limits × 2 systems) and the baseline, T16 and
    // T0 at the paper's footprint per phase (BFS and FMI).
    assert_eq!(configs, 51);
    // Fig. 10's machine: the pool at the paper's 270 ns unloaded end to end (§V-C: a 190 ns
    // CXL overhead where the default has 100), every other latency as in the preset.
    let slow = numasim_machine::Machine::load(
        dir.join("configs/starnuma16-pool-scaled-pool-270ns.toml")
            .to_str()
            .unwrap(),
    )
    .unwrap();
    let default = numasim_machine::Machine::load("starnuma16-pool-scaled").unwrap();
    for n in 0..slow.num_memory_nodes() {
        let expect = if slow.memory_nodes[n].attached_socket.is_none() {
            270.0
        } else {
            default.load_latency_ns(0, n)
        };
        assert!((slow.load_latency_ns(0, n) - expect).abs() < 1e-9, "node {n}");
    }
    // Fig. 11's machines: the links' bandwidths scaled, nothing else.
    let bw = |file: &str, link: &str| -> f64 {
        let t: toml::Table = std::fs::read_to_string(dir.join("configs").join(file))
            .unwrap()
            .parse()
            .unwrap();
        t["link_types"][link]["bandwidth_gbps"].as_float().unwrap()
    };
    assert_eq!(bw("starnuma16-baseline-scaled-2xbw.toml", "upi"), 6.0);
    assert_eq!(bw("starnuma16-baseline-scaled-2xbw.toml", "numalink"), 6.0);
    assert!((bw("starnuma16-baseline-scaled-isobw.toml", "upi") - 3.0 * 26.4 / 20.8).abs() < 1e-9);
    assert_eq!(bw("starnuma16-pool-scaled-halfbw.toml", "cxl"), 3.0);
    assert_eq!(bw("starnuma16-pool-scaled-halfbw.toml", "upi"), 3.0);
    // Fig. 8b's analytical split is in every timing run beside the measured one, and adds up
    // to the measured AMAT.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs/fig8-bfs-starnuma-t16/results.json")).unwrap())
            .unwrap();
    let a = &r["timing"]["amat_ns"];
    let (u, c) = (
        a["analytical"]["unloaded"].as_f64().unwrap(),
        a["analytical"]["contention"].as_f64().unwrap(),
    );
    assert!((80.0..=416.375).contains(&u), "{u}");
    assert!((u + c - a["total"].as_f64().unwrap()).abs() < 1e-6);
    assert_eq!(a["analytical"]["nominal_ns"]["pool"].as_f64(), Some(180.0));
    // The paper's baseline decides for free (no OS scan charged) and pays for its moves.
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs/fig8-bfs-baseline/results.json")).unwrap())
            .unwrap();
    assert_eq!(b["migration"]["costs"]["scan_cycles"].as_u64(), Some(0));
    assert!(b["migration"]["total_moves"].as_u64().unwrap() > 0);
    assert!(b["timing"]["migration"]["pages"].as_u64().unwrap() > 0);
    // Shootdowns on a dedicated OS core (§IV-C): no application core stalls; moved pages are
    // waited for instead.
    // (The default-phase T16 run's 26 charged moves met no access in flight since its
    // thresholds follow the footprint; the run at the paper's footprint per phase waits.)
    let long: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs/fig8-paper-phase-bfs-starnuma-t16/results.json")).unwrap(),
    )
    .unwrap();
    for r in [&b, &r, &long] {
        assert_eq!(r["timing"]["migration"]["core_stall_ns"].as_f64(), Some(0.0));
    }
    assert!(long["timing"]["migration"]["inflight_stalls"].as_u64().unwrap() > 0);
    // Unloaded latencies are the paper's table exactly (by construction of the preset).
    for (q, paper) in [
        ("unloaded load latency, local", 80.0),
        ("unloaded load latency, CXL pool", 180.0),
    ] {
        assert_eq!(value(q), paper, "{q}");
    }
    let list = ok(&numasim(&["repro", "list"], tmp.path()));
    assert!(list.starts_with("starnuma"), "{list}");
}

/// Directions the quick study reproduces (never the paper's magnitudes).
#[test]
fn repro_starnuma_quick_directions() {
    // Fig. 2: accesses concentrate on the few widely shared pages (10.2×, paper 9.7×).
    holds("concentration");
    // Fig. 8c: with the pool, fewer of BFS's misses cross chassis (3 hops), by a point or more.
    holds("BFS 3-hop share, T16 minus baseline");
    // Fig. 9: with oracle static placement (no moves charged) the pool machine beats the
    // baseline machine by 5 % or more.
    holds("bfs: oracle static placement, StarNUMA over baseline machine");
}

/// Fig. 8b: the pool lowers BFS's AMAT, by 24.9 % at quick scale, just over half the paper's
/// 48 % mean (the least a direction needs).
#[test]
fn repro_starnuma_quick_pool_halves_amat() {
    holds("BFS AMAT change");
}

/// Fig. 8a at quick scale: StarNUMA with T0 trackers beats the perfect-knowledge baseline on
/// BFS and on the geomean of the eight workloads. Measured 1.42× and 1.19× (paper: mean 1.35×)
/// with the dedicated OS core running beside the program (a window does not wait for the last
/// page its boundary moved, and a page is read at its old home until the OS core reaches it);
/// with every window stretched to its boundary's last landing instead, T0 lost to the baseline.
#[test]
fn repro_starnuma_quick_t0_gains_over_baseline() {
    holds("BFS speedup, StarNUMA T0");
    // Within 15 % of the paper's 1.35×.
    holds("geomean speedup over the eight workloads, T0");
}

/// The same for T16, with Algorithm 1's thresholds scaled for each workload's measured
/// footprint: measured geomean 1.16× over the eight (paper 1.54×; `cc` 1.47×, `masstree`
/// 1.25×, `sssp` 1.19× with no page moved, `tc` 1.17× on the scale-17 graph, BFS 1.17×, `tpcc`
/// 1.07×), and every move (excluding POA) to the pool (paper 83 %). `sssp`'s 3.24× came from a
/// generator that gave every local bin a window of its own (a footprint of mostly private bin
/// pages); with the bins packed as the allocator packs them, its measured footprint in the
/// quick run's ten phases is 1.9 MB and Algorithm 1's thresholds move nothing.
/// With thresholds scaled by the phase alone (about 70× too low per region, so nearly every
/// touched region passed HI) it was 0.95×: `tc` 0.54× and `sssp` 0.79× moved mostly socket to
/// socket on little evidence.
#[test]
#[ignore = "at quick scale the T16 geomean is 1.16× (paper 1.54×: 25 % short), and FMI and SSSP move no page, so Table IV's geomean over the paper's seven workloads has no data (the share pooled over every move: 100 %)"]
fn repro_starnuma_quick_gains_over_baseline() {
    holds("geomean speedup over the eight workloads, T16");
    holds("geomean share of migrations to the pool, excluding POA");
}

/// Algorithm 1's thresholds follow from each workload's footprint, measured by its functional
/// run before any timing run: HI is the paper's 20 K × (phase / 1 B) × (the paper's footprint
/// / ours), the same in the report and in the T16 config that ran.
#[test]
fn repro_starnuma_quick_thresholds_follow_the_measured_footprint() {
    let (tmp, _) = quick_study();
    let dir = tmp.path().join("sq");
    for (kind, paper_bytes) in [("bfs", 50e9), ("masstree", 100e9), ("tpcc", 12e9)] {
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("runs/footprint-{kind}/results.json"))).unwrap(),
        )
        .unwrap();
        let footprint = r["totals"]["footprint_bytes"].as_f64().unwrap();
        assert!(footprint > 0.0, "{kind}");
        let expected = (20_000.0 * 50_000.0 / 1e9 * paper_bytes / footprint).round().max(1.0);
        assert_eq!(value(&format!("{kind}: HI threshold")), expected, "{kind}");
        let config = std::fs::read_to_string(dir.join(format!("configs/fig8-{kind}-starnuma-t16.toml"))).unwrap();
        assert!(config.contains(&format!("hi_start = {expected}\n")), "{kind}: {config}");
    }
}

/// Fig. 10 at quick scale: a slower pool lowers T16's speedup (paper: 1.54× → 1.34× on
/// average). The pool is at §V-C's 270 ns unloaded (the 190 ns CXL overhead replaces the
/// default 100 ns). Measured 0.9998: the strict `< 1` below passes, but by 0.02 %, no effect
/// (the paper's is 13 %); the pool serves 14 % of BFS's LLC misses at quick scale, and the rest
/// of the run's timing (3-hop misses and block transfers at 2.4–2.6 µs) outweighs their 87 ns.
#[test]
#[ignore = "at quick scale the 270 ns pool leaves BFS's T16 speedup at 0.9998 of the default (paper 0.87): no effect, though the strict < 1 passes"]
fn repro_starnuma_quick_slower_pool_lowers_speedup() {
    assert!(value("bfs: speedup with the pool at 270 ns") < 1.0);
}

/// Fig. 8a at quick scale, with sampled timing (5 K of every 50 K instructions timed, a tenth
/// of each boundary's moves charged in the next window, shootdowns on a dedicated OS core that
/// runs beside the program): measured T16 1.17× over the perfect-knowledge baseline and 1.15×
/// over the one that does not migrate, all of its 384 moves to the pool, but T0/T16 1.22
/// (paper 0.88): at this scale T0's moves still win.
#[test]
#[ignore = "quick scale, sampled timing: T0/T16 1.22 on BFS (paper 0.88); T16 1.15x over the no-migration baseline"]
fn repro_starnuma_quick_t16_directions() {
    assert!(value("BFS speedup, StarNUMA T16") > 1.0);
    assert!(value("T0 speedup / T16 speedup") < 1.0);
    assert!(value("BFS share of migrations to the pool") > 50.0);
}

/// Fig. 8a on BFS with phases as long, relative to the footprint, as the paper's (1 B
/// instructions per 50 GB; 305 K instructions for the quick graph's 15 MB, a tenth of each
/// timed, 19 trials to fill the 10 phases): the moves then cover as much of the footprint per
/// phase as the paper's, and T16 and T0 beat the perfect-knowledge baseline. Measured T16
/// 1.48× and T0 1.70× (paper 1.7× for T16), the pool serving 37 % of T16's misses, AMAT
/// −36 %, where the default quick phases give 1.17× and 1.42×.
#[test]
fn repro_starnuma_quick_paper_footprint_per_phase_gains() {
    let what = "bfs at the paper's footprint per phase";
    // Within 15 % of the paper's 1.7×.
    holds(&format!("{what}: speedup, StarNUMA T16"));
    holds(&format!("{what}: speedup, StarNUMA T0"));
    assert!(value(&format!("{what}: LLC misses to the pool")) > 20.0);
    holds(&format!("{what}: AMAT change"));
    // The phase follows from the footprint: 1 B instructions per 50 GB.
    let phase = value(&format!("{what}: phase length"));
    assert!((0.05..2.0).contains(&phase), "{phase} M instructions");
}

/// The same scaling for a workload that is not a graph: FMI's phase follows from its
/// footprint and the paper's 10 GB (about 0.09 M instructions for the quick run's 0.9 MB), its
/// work is queries per thread enough for the study's phases, and the geomean over the
/// workloads so run is the geomean of their speedups. (FMI itself measured 0.90×: its 0.9 MB
/// give phases too short for a move's fixed costs; not asserted.)
#[test]
fn repro_starnuma_quick_paper_footprint_per_phase_scales_each_workloads_work() {
    let (_, v) = quick_study();
    let quantity = |starts: &str| {
        v["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|c| {
                c["quantity"]
                    .as_str()
                    .filter(|q| q.starts_with(starts))
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| panic!("no comparison starting {starts:?}"))
    };
    let what = "fmi at the paper's footprint per phase";
    let label = quantity(&format!("{what}: phase length"));
    assert!(
        label.contains("queries per thread") && label.contains("the paper's 10 GB"),
        "{label}"
    );
    let phase = value(&format!("{what}: phase length"));
    assert!((0.01..1.0).contains(&phase), "{phase} M instructions");
    let (bfs, fmi) = (
        value("bfs at the paper's footprint per phase: speedup, StarNUMA T16"),
        value(&format!("{what}: speedup, StarNUMA T16")),
    );
    let mean = value("geomean speedup over 2 of the eight at the paper's footprint per phase (bfs, fmi), T16");
    assert!((mean - (bfs * fmi).sqrt()).abs() < 1e-3, "{mean} vs {bfs} and {fmi}");
}

#[test]
fn bad_study_and_unwritable_output_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = numasim(&["repro", "starnumaa"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown study `starnumaa`") && err.contains("starnuma"),
        "{err}"
    );
    std::fs::write(tmp.path().join("file"), "x").unwrap();
    let out = numasim(&["repro", "starnuma", "--quick", "-o", "file/sub"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("file/sub") && !err.contains("panicked"), "{err}");
}
