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
    // The similarity rule's functional pilots (the seven workloads with units of work at the
    // study's size; the four whose data set it scales, at the scaled size; the seven with
    // twice the pilot's work), Fig. 2, BFS's baseline without migration, baseline, T16 and T0
    // for the eight workloads, on BFS Fig. 9's two oracle runs, Fig. 10's slower pool, Fig. 11's
    // three bandwidth variants, Fig. 12's smaller pool, the migration-limit search (2 limits ×
    // 2 systems) and the baseline, T16 and T0 at the study's own phases (a sensitivity).
    assert_eq!(configs, 7 + 4 + 7 + 1 + 1 + 8 * 3 + 7 + 4 + 3);
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
    for r in [&b, &r] {
        assert_eq!(r["timing"]["migration"]["core_stall_ns"].as_f64(), Some(0.0));
    }
    assert!(r["timing"]["migration"]["inflight_stalls"].as_u64().unwrap() > 0);
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

/// Fig. 8b: the pool lowers BFS's AMAT by at least half the paper's 48 % mean.
#[test]
fn repro_starnuma_quick_pool_halves_amat() {
    holds("BFS AMAT change");
}

/// Fig. 8a with every run sized by the similarity rule: T16 beats the perfect-knowledge
/// baseline on BFS and on the geomean of the eight workloads by at least half the paper's
/// effect (BFS 1.7×: ≥ 1.35×; geomean 1.54×: ≥ 1.27×). Measured 1.62× and 1.37×.
#[test]
fn repro_starnuma_quick_t16_gains_over_baseline() {
    let bfs = value("BFS speedup, StarNUMA T16 over baseline");
    assert!(bfs >= 1.0 + 0.7 / 2.0, "{bfs}");
    let mean = value("geomean speedup over the eight workloads, T16");
    assert!(mean >= 1.0 + 0.54 / 2.0, "{mean}");
}

/// T0 trackers gain less than T16 (paper 1.35× / 1.54×: T0/T16 0.877, so at most 0.938).
#[test]
#[ignore = "measured at quick scale: geomean T0 1.367x, T16 1.368x (T0/T16 0.999, paper 0.877); T0 wins on Masstree (1.13x vs 1.07x), on TC and FMI by under 1 %, T16 on BFS (1.62x vs 1.57x), SSSP and TPC-C"]
fn repro_starnuma_quick_t0_below_t16() {
    let r = value("geomean T0 speedup / geomean T16 speedup");
    assert!(r <= 1.0 - (1.0 - 1.35 / 1.54) / 2.0, "{r}");
}

/// Table IV: most moves go to the pool: pooled over every move of the seven workloads, within
/// 15 points of the paper's 83 %. Measured 73 %.
#[test]
fn repro_starnuma_quick_moves_go_to_the_pool() {
    let pooled = value("share of migrations to the pool pooled over every move");
    assert!((pooled - 83.0).abs() <= 15.0, "{pooled}");
}

/// Every run declares the paper's experiment of its workload, and the rule keeps its numbers:
/// the T16 runs' similarity blocks carry the paper's values, and the run's own instructions
/// per phase per footprint byte, movable pages per phase and pool capacity over footprint are
/// the paper's up to how far the data set's footprint misses the factor × the paper's.
#[test]
fn repro_starnuma_quick_runs_keep_the_papers_numbers() {
    let (tmp, _) = quick_study();
    let dir = tmp.path().join("sq");
    // (TPC-C is not among them: its order tables grow with its transactions, 150 MB at quick
    // scale against the rule's 3.6 MB; its rows show the miss.)
    for (kind, paper_bytes) in [("bfs", 50e9), ("masstree", 100e9), ("fmi", 10e9)] {
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("runs/fig8-{kind}-starnuma-t16/results.json"))).unwrap(),
        )
        .unwrap();
        let sim = &r["similarity"];
        assert_eq!(
            sim["reference"]["footprint_bytes"].as_f64(),
            Some(paper_bytes),
            "{kind}"
        );
        let row = |n: &str| {
            let row = sim["numbers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["number"] == n)
                .unwrap_or_else(|| panic!("{kind}: no {n}"));
            (row["run"].as_f64().unwrap(), row["reference"].as_f64().unwrap())
        };
        // How far the footprint is from the factor × the paper's (1 when it is the rule's).
        let miss = value(&format!("{kind}: footprint over the factor × the paper's"));
        assert!((0.5..2.0).contains(&miss), "{kind}: {miss}");
        for n in [
            "instructions_per_phase_per_footprint_byte",
            "movable_pages_per_phase_over_footprint_pages",
        ] {
            let (run, paper) = row(n);
            assert!(
                (run * miss / paper - 1.0).abs() < 0.02,
                "{kind} {n}: {run} vs {paper} (miss {miss})"
            );
        }
        let (pool, paper) = row("capacity_over_footprint.pool");
        assert!((pool - paper).abs() < 0.01, "{kind}: pool {pool} vs {paper}");
        let (phases, paper) = row("phases_per_run");
        assert_eq!((phases, paper), (10.0, 10.0), "{kind}");
    }
}

/// Algorithm 1's thresholds follow from each workload's footprint, measured by its baseline
/// run: HI is the paper's 20 K × (phase / 1 B) × (the paper's footprint / ours) × (the region
/// over the paper's 512 KiB), the same in the report and in the T16 config that ran; with the
/// footprint the rule's, a region gets the paper's accesses per byte.
#[test]
fn repro_starnuma_quick_thresholds_follow_the_measured_footprint() {
    let (tmp, _) = quick_study();
    let dir = tmp.path().join("sq");
    let phase = value("phase, instructions per thread");
    let region = value("tracker region");
    for (kind, paper_bytes) in [("bfs", 50e9), ("masstree", 100e9), ("tpcc", 12e9)] {
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("runs/fig8-{kind}-baseline/results.json"))).unwrap(),
        )
        .unwrap();
        let footprint = r["totals"]["footprint_bytes"].as_f64().unwrap();
        assert!(footprint > 0.0, "{kind}");
        let expected = (20_000.0 * phase / 1e9 * paper_bytes / footprint * region / 524_288.0)
            .round()
            .max(1.0);
        assert_eq!(value(&format!("{kind}: HI threshold")), expected, "{kind}");
        let config = std::fs::read_to_string(dir.join(format!("configs/fig8-{kind}-starnuma-t16.toml"))).unwrap();
        assert!(config.contains(&format!("hi_start = {expected}\n")), "{kind}: {config}");
        assert!(
            config.contains(&format!("region_bytes = {region}\n")),
            "{kind}: {config}"
        );
    }
}

/// Fig. 10 at quick scale: the pool at §V-C's 270 ns lowers T16's speedup by at least half the
/// paper's 13 % (ratio ≤ 0.935).
#[test]
#[ignore = "measured at quick scale: BFS's speedup with the 270 ns pool is 0.958 of the default (paper 0.87): a 4 % effect, under half the paper's 13 % (the scorecard's ±15 % band calls it a match)"]
fn repro_starnuma_quick_slower_pool_lowers_speedup() {
    let r = value("bfs: speedup with the pool at 270 ns");
    assert!(r <= 1.0 - (1.0 - 1.34 / 1.54) / 2.0, "{r}");
}

/// Fig. 11 on BFS: the paper's BFS gains 1.29× from ISO-BW and only 1.02× from StarNUMA
/// half-BW (half-BW / ISO-BW 0.79; the mean over eight is 1.11).
#[test]
#[ignore = "measured at quick scale: BFS half-BW 1.41x, ISO-BW 1.20x (ratio 1.18, paper's BFS 0.79): half-BW keeps most of the pool's gain on BFS"]
fn repro_starnuma_quick_halfbw_trails_isobw_on_bfs() {
    let r = value("bfs: StarNUMA half-BW speedup / baseline ISO-BW speedup");
    assert!(r <= 1.0 - (1.0 - 1.02 / 1.29) / 2.0, "{r}");
}

/// Fig. 12: a pool of one socket's capacity (1/17 of the footprint) binds when T16 moves more
/// pages to the pool than it holds; then the speedup falls (paper 1.48 / 1.54).
#[test]
#[ignore = "measured at quick scale: in its ten phases T16 moves 138 pages of BFS to the pool, 0.60 of the 1/17 pool's capacity, so the smaller pool changes nothing (ratio 1.000)"]
fn repro_starnuma_quick_small_pool_binds() {
    assert!(value("bfs: pages T16 moved to the default pool") > 1.0);
    assert!(value("bfs: speedup with the pool at 1/17") < 1.0);
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
