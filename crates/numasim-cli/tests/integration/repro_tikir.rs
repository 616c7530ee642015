//! `numasim repro tikir --quick` as a user runs it: outputs and the directions of Tikir &
//! Hollingsworth it reproduces at that size.

use crate::common;

fn quick_study() -> &'static (tempfile::TempDir, serde_json::Value) {
    static STUDY: std::sync::OnceLock<(tempfile::TempDir, serde_json::Value)> = std::sync::OnceLock::new();
    STUDY.get_or_init(|| common::run_quick_study("tikir", "tq"))
}

fn scorecard() -> &'static [serde_json::Value] {
    quick_study().1["scorecard"].as_array().unwrap()
}

fn verdict(quantity: &str) -> String {
    common::verdict(&quick_study().1, quantity)
}

/// The paper's value or its direction with at least half its effect.
fn holds(quantity: &str) {
    let v = verdict(quantity);
    assert!(
        v == "match" || v == "direction only",
        "{quantity}: {v} ({})",
        value(quantity)
    );
}

/// Every headline of the paper has a row in the quick study (or is full-size only).
#[test]
fn repro_tikir_quick_scores_every_headline() {
    common::assert_headlines_complete(&quick_study().1);
}

fn value(quantity: &str) -> f64 {
    common::comparison_value(&quick_study().1, |q| q == quantity, quantity)
}

#[test]
fn repro_tikir_quick_writes_its_outputs() {
    let (tmp, v) = quick_study();
    let dir = tmp.path().join("tq");
    let csv = std::fs::read_to_string(dir.join("comparison.csv")).unwrap();
    assert_eq!(csv.lines().count(), v["scorecard"].as_array().unwrap().len() + 1);
    assert!(dir.join("report.html").exists());
    assert!(dir.join("runs/table1-cg-profile.json").exists());
    assert!(dir.join("configs/mg-tikir-perfect-next.toml").exists());
}

#[test]
fn execution_time_runs_use_the_papers_number_of_intervals_in_simulated_time() {
    let (tmp, _) = quick_study();
    let dir = tmp.path().join("tq");
    let config = std::fs::read_to_string(dir.join("configs/mg-timing-tikir-5s.toml")).unwrap();
    let line = config.lines().find(|l| l.starts_with("phase_ns = ")).unwrap();
    let phase_ns: f64 = line["phase_ns = ".len()..].parse().unwrap();
    let read = |id: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs").join(id).join("results.json")).unwrap()).unwrap()
    };
    let (none, tikir) = (read("mg-timing-none"), read("mg-timing-tikir-5s"));
    let t0 = none["timing"]["sim_time_ns"].as_f64().unwrap();
    // 5 s of the paper's 31 s MG run, scaled to this run's length.
    assert!((phase_ns - t0 * 5.0 / 31.0).abs() <= 1.0, "{phase_ns} against {t0}");
    assert_eq!(none["phases"].as_array().unwrap().len(), 1);
    // One migration step per interval the run reaches: ceil(31 / 5) = 7 when migration leaves
    // the run within 1/6 of its length.
    let t1 = tikir["timing"]["sim_time_ns"].as_f64().unwrap();
    let phases = tikir["phases"].as_array().unwrap().len();
    assert_eq!(phases as f64, (t1 / phase_ns).ceil(), "{t1} ns in phases of {phase_ns}");
    assert!((6..=8).contains(&phases), "{phases}");
    value(&format!(
        "mg execution-time improvement, migration every 5 s scaled ({:.0} µs = 5 s × {:.2} ms / 31 s)",
        phase_ns / 1000.0,
        t0 / 1e6
    ));
}

#[test]
/// Table 6 on MG and FT: every source lowers the non-local share by at least half the
/// paper's reduction for that source (or to within the band of its value); MG's TLB misses
/// and TLB content are not reproduced at this size (below), CG is checked on its own.
fn every_profile_source_lowers_the_non_local_share() {
    for (app, sources) in [
        (
            "mg",
            &["interconnect", "cache-miss", "atc", "perfect-next", "perfect"][..],
        ),
        (
            "ft",
            &[
                "interconnect",
                "cache-miss",
                "tlb-content",
                "atc",
                "perfect-next",
                "perfect",
            ][..],
        ),
    ] {
        for source in sources {
            holds(&format!("{app} non-local, {source}"));
        }
    }
    holds("mg non-local, migration (interconnect 1024)");
    holds("mean reduction of non-local accesses");
}

/// CG's Table 6 and Table 2: the sampled sources and Table 2's interconnect sampling lower its
/// non-local share by at least half the paper's reduction at the similarity-scaled periods.
#[test]
fn every_sampled_source_but_tlb_misses_lowers_cg_s_non_local_share() {
    for source in ["interconnect", "cache-miss", "tlb-content", "atc", "perfect-next"] {
        holds(&format!("cg non-local, {source}"));
    }
    holds("cg non-local, migration (interconnect 1024)");
    holds("ft non-local, migration (interconnect 1024)");
}

#[test]
#[ignore = "not reproduced at --quick: a board's share of MG's 32^3 grid (0.9 MB) and of CG's 600 rows (1.5 MB) fits in its 64-entry TLB of 8 KiB pages (CG: 214 misses in the first interval, none after), so the sampled misses (every 444th) move no page and MG and CG stay 82.8 % non-local (paper 46.3 / 26.6 %); FT (3.7 MB) matches: 64.9 % (paper 71.9 %)"]
fn tlb_miss_profiles_lower_the_non_local_share_as_the_papers() {
    for app in ["mg", "cg", "ft"] {
        holds(&format!("{app} non-local, tlb-miss"));
    }
}

#[test]
#[ignore = "holds only because TLB misses move no page at --quick: a board's share of MG's 32^3 grid fits in its TLB (0 pages moved, 82.8 % non-local, 32.8 points above the worst other source)"]
fn tlb_misses_are_the_weakest_source_on_mg() {
    // At least half the paper's 31.5-point gap, with pages moved: a weak source, not an idle one.
    holds("mg: TLB-miss non-local minus the worst other source");
    assert!(value("mg migrations, tlb-miss") > 0.0, "TLB misses moved no page");
}

#[test]
#[ignore = "not reproduced at --quick: TLB content leaves MG 50.0 % non-local from 82.8 % (paper 10.3 % from 80.6 %; half its effect needs <= 47.6 %), moving 72 pages where the other sources move 92-121"]
fn tlb_content_lowers_mg_s_non_local_share() {
    holds("mg non-local, tlb-content");
}

#[test]
fn max_rate_sampling_samples_more_than_interval_sampling() {
    assert!(value("CG D max-rate minus D every 1024") > 0.0);
    // It samples far more than every 1024th transaction.
    assert!(value("CG transactions sampled, max-rate") > 5.0 * value("CG transactions sampled, every 1024"));
}

#[test]
fn max_rate_sampling_is_less_representative_than_interval_sampling() {
    holds("CG D max-rate minus D every 1024");
}

/// Every row stating a direction is scored (match, direction only or wrong), never left
/// unjudged.
#[test]
fn every_direction_is_scored() {
    for c in scorecard() {
        if !c["paper_direction"].as_str().unwrap().is_empty() && c["verdict"] != "invariant" {
            let v = c["verdict"].as_str().unwrap();
            assert!(
                ["match", "direction only", "wrong"].contains(&v),
                "{}: {v}",
                c["quantity"]
            );
        }
    }
}

#[test]
fn migration_removes_at_least_half_the_papers_share_of_non_local_accesses() {
    // Table 2 (interconnect, every 1024th transaction at the run's scale): the relative
    // reduction is at least half the paper's (MG 89.6 %, CG 81.0 %, FT 54.0 %).
    for (app, paper) in [("mg", 89.6), ("cg", 81.0), ("ft", 54.0)] {
        let n0 = value(&format!("{app} non-local, no migration"));
        let n1 = value(&format!("{app} non-local, migration (interconnect 1024)"));
        let reduction = 100.0 * (n0 - n1) / n0;
        assert!(
            reduction >= paper / 2.0,
            "{app}: {n0} -> {n1} ({reduction} % against the paper's {paper} %)"
        );
    }
}

#[test]
#[ignore = "not at --quick: a board's share of MG's and CG's data sets at 0.004 of the paper's bytes (0.9 and 1.5 MB) fits in its 64-entry TLB of 8 KiB pages, so TLB misses sample no page there (FT's 3.7 MB moves 30)"]
fn tlb_misses_move_pages_at_the_scaled_sampling_period() {
    // Table 5's every 512th TLB miss, scaled with the interconnect's period, samples pages at
    // this size: the source moves pages (the weakest source, but not an idle one).
    for app in ["mg", "cg", "ft"] {
        let moved = value(&format!("{app} migrations, tlb-miss"));
        assert!(moved > 0.0, "{app}: tlb-miss moved {moved} pages");
    }
}

#[test]
fn interconnect_sampling_keeps_the_papers_samples_per_page_per_interval() {
    // The period is derived from the pilots' transaction rate; the run's own rate over its
    // phases (measured from the region of interest) stays within a factor of 2 of the paper's.
    for app in ["mg", "cg", "ft"] {
        let q = format!("{app} (interconnect 1024) similarity: samples per page per phase");
        let c = scorecard()
            .iter()
            .find(|c| c["quantity"] == q.as_str())
            .unwrap_or_else(|| panic!("no row `{q}`"));
        let (run, paper) = (c["numasim"].as_f64().unwrap(), c["paper"].as_f64().unwrap());
        assert!(
            run > paper / 2.0 && run < paper * 2.0,
            "{app}: {run} against the paper's {paper}"
        );
    }
}

#[test]
#[ignore = "not reproduced at --quick: 34 rows are wrong, 15 of them headlines: CG's mean distance D (0.09-0.11 against 0.02), MG and CG's TLB-miss rows (no TLB miss at these footprints), MG's TLB content (50.0 %, paper 10.3 %), static placement reduces non-local accesses more than dynamic migration (-35.7 %, paper +28.6 %), and MG runs 0.1-72 % slower with migration in timing (paper 13-18 % faster)"]
fn every_direction_the_quick_study_states_holds() {
    for c in scorecard() {
        assert_ne!(c["verdict"], "wrong", "{}", c["quantity"]);
    }
}

#[test]
fn table7_tlb_misses_trigger_the_fewest_migrations_in_timing() {
    // Table 7's text: TLB-miss profiles trigger fewer migrations than the other sources (and
    // reduce non-local accesses less). Every source's row is timed and compared with the paper.
    let moves = |s: &str| value(&format!("mg pages migrated (timing), {s}"));
    let tlb = moves("tlb-miss");
    for source in ["interconnect", "cache-miss", "tlb-content", "atc", "perfect"] {
        assert!(tlb < moves(source), "tlb-miss {tlb} against {source} {}", moves(source));
        value(&format!("mg execution-time improvement, {source}"));
    }
}
