//! The study runner end to end on a study of two runs: experiments built as typed tables,
//! results read by `require`, rows scored by magnitude, a declared headline without a row
//! listed as no data, and comparison.csv and report.html written.

use numasim_repro::config::{require, Config};
use numasim_repro::headlines::Headline;
use numasim_repro::score::Verdict;
use numasim_repro::{cmp, run_study, Comparison, Expect, ReproError, Study, StudyContext, StudyOptions};

struct Tiny;

const HEADLINES: &[Headline] = &[
    Headline {
        id: "local-share",
        source: "Table 1",
        claim: "first touch keeps most accesses local",
        full_only: false,
    },
    Headline {
        id: "speedup",
        source: "Fig. 1",
        claim: "round-robin is no faster",
        full_only: false,
    },
    Headline {
        id: "dropped",
        source: "Fig. 2",
        claim: "a headline the study forgot to compare",
        full_only: false,
    },
];

fn base() -> Config {
    Config::new(
        "tiny study",
        toml::toml! {
            machine = "two-socket"
            seed = 1
            phase_instructions = 50000
            [workload]
            kind = "synthetic"
            threads = 4
            pattern = "private"
            accesses_per_thread = 4000
            footprint_bytes = 1048576
        },
    )
}

impl Study for Tiny {
    fn name(&self) -> &'static str {
        "tiny"
    }
    fn paper(&self) -> &'static str {
        "none"
    }
    fn summary(&self) -> &'static str {
        "two runs"
    }
    fn headlines(&self) -> &'static [Headline] {
        HEADLINES
    }
    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let batch = vec![
            ("first-touch".to_string(), base()),
            (
                "round-robin".to_string(),
                base().with_in("placement", toml::toml! { policy = "round-robin" }),
            ),
        ];
        let results = ctx.run_all(&batch)?;
        let ft = require(&results[0], &["totals", "local_fraction"])?;
        let rr = require(&results[1], &["totals", "local_fraction"])?;
        Ok(vec![
            // A private pattern under first touch is all local: the paper's 0.9 within ±15 %.
            cmp(
                "Table 1",
                "local share, first touch",
                "",
                Some(0.9),
                ft,
                Expect::Above(0.5),
            )
            .headline("local-share"),
            // Round-robin over two sockets leaves about half local: a small effect that a
            // paper claiming 0.1 cannot be matched by.
            cmp(
                "Fig. 1",
                "local share, round-robin",
                "",
                Some(0.1),
                rr,
                Expect::Below(0.2),
            )
            .headline("speedup"),
        ])
    }
}

#[test]
fn a_tiny_study_runs_scores_and_lists_a_missing_headline() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tiny");
    let options = StudyOptions {
        quick: true,
        out: out.clone(),
        jobs: 1,
        resume: false,
        external: false,
    };
    let outcome = run_study(&Tiny, options, Box::new(|_| {})).unwrap();
    let verdicts: Vec<(String, Verdict)> = outcome.rows.iter().map(|r| (r.headline.clone(), r.verdict)).collect();
    assert_eq!(
        verdicts,
        vec![
            ("local-share".to_string(), Verdict::Match),
            ("speedup".to_string(), Verdict::Wrong),
            ("dropped".to_string(), Verdict::NoData),
        ]
    );
    assert_eq!(outcome.missing_headlines, vec!["dropped"]);
    for f in [
        "comparison.csv",
        "report.html",
        "configs/first-touch.toml",
        "runs/round-robin/results.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("comparison.csv")).unwrap();
    assert!(csv.lines().count() == 4 && csv.contains("no data"), "{csv}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("local share, first touch"),
        "the report opens with the scorecard"
    );
    // The config written is the typed table, comment first.
    let config = std::fs::read_to_string(out.join("configs/round-robin.toml")).unwrap();
    assert!(
        config.starts_with("# tiny study") && config.contains("policy = \"round-robin\""),
        "{config}"
    );
}

#[test]
fn a_renamed_results_key_fails_naming_the_key() {
    let results = serde_json::json!({ "totals": { "local_fraction": 1.0 } });
    let e = require(&results, &["totals", "local_share"]).unwrap_err().to_string();
    assert!(e.contains("local_share"), "{e}");
}
