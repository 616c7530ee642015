//! HyDM (hydm-hybrid-memory-migration.txt): mixes of NPB programs sharing a Knights Landing in
//! flat mode, per-program execution time with HyDM normalised to the default placement (Fig. 5:
//! mean −6.5 %, CG.1 −22 %, CG.0 −15 %, FT.1 −10 %), beside the alternatives a user would try:
//! numactl `--preferred=MCDRAM`, everything in MCDRAM (no capacity limit: an upper bound), and
//! (full study) the static oracle.
//!
//! **The runs.** Timing mode on `knl-flat`, one `[[process]]` per program: the eight NPB
//! benchmarks twice (16 programs: `cg.0`, `cg.1`, … as the paper names instances) or four
//! times (32), threads on cores drawn at random with the run's seed (the paper assigns programs
//! to cores at random). KNL has no shared last-level cache (each tile's 1 MiB L2 is private),
//! so the LLC filter is off and the cores' private L2 stands for the tile's.
//!
//! **Scale.** The programs run at small sizes, so MCDRAM is sized as the paper's share of the
//! mix's memory: 16 GiB over the sum of Table I's class C peak memory of the programs in the
//! mix (`capacity_fraction_of_footprint`). HyDM's window p is in simulated time (`phase_ns`):
//! the paper's 100 ms over its runs of minutes give hundreds of windows; the study takes the
//! default run's simulated time over [`WINDOWS`] (stated, not tuned), so HyDM sees the same
//! number of windows per run in every mix. The migration mechanism is the paper's: Linux
//! `move_pages` (`shootdown = "move-pages"`: a daemon copies page after page; each page's TLB
//! shootdown interrupts the cores of its own process).
//!
//! **What scale cannot keep.** A program here runs milliseconds, the paper's minutes; its
//! footprint shrank far less than its run time, so moving a program costs a far larger share
//! of its run than on the real machine (docs/validation/hydm.md gives the numbers).

use crate::{cmp, number, Comparison, Expect, ReproError, Study, StudyContext};

pub struct Hydm;

/// Windows per run: the default run's simulated time over this is HyDM's `phase_ns`.
pub const WINDOWS: u64 = 40;

/// Table I: class C peak memory, MB, per benchmark.
const TABLE1_PEAK_MB: [(&str, f64); 8] = [
    ("is", 1572.0),
    ("ep", 20.0),
    ("cg", 1102.0),
    ("mg", 3536.0),
    ("ft", 7188.0),
    ("bt", 1676.0),
    ("sp", 1416.0),
    ("lu", 760.0),
];

/// MCDRAM of the paper's KNL 7250, MB.
const MCDRAM_MB: f64 = 16384.0;

/// Fig. 5's numbers: per-program execution time with HyDM over the default.
const PAPER_MEAN: f64 = 1.0 - 0.065;
const PAPER_CG1: f64 = 1.0 - 0.22;
const PAPER_CG0: f64 = 1.0 - 0.15;
const PAPER_FT1: f64 = 1.0 - 0.10;

/// One benchmark's generator parameters at the study's size.
fn program(kind: &str, quick: bool) -> String {
    let params = match (kind, quick) {
        ("is", true) => "keys = 65536, max_key = 8192, iterations = 2",
        ("is", false) => "keys = 262144, max_key = 16384, iterations = 4",
        ("ep", true) => "pairs_log2 = 14",
        ("ep", false) => "pairs_log2 = 18",
        ("cg", true) => "rows = 3000, iterations = 3",
        ("cg", false) => "rows = 7000, iterations = 8",
        ("mg", true) => "grid_log2 = 5, iterations = 2",
        ("mg", false) => "grid_log2 = 6, iterations = 2",
        ("ft", true) => "nx = 32, ny = 32, nz = 32, iterations = 2",
        ("ft", false) => "nx = 64, ny = 64, nz = 32, iterations = 2",
        ("bt", true) => "class = \"S\", iterations = 2",
        ("bt", false) => "class = \"S\", iterations = 10",
        ("sp", true) => "class = \"S\", iterations = 4",
        ("sp", false) => "class = \"S\", iterations = 20",
        ("lu", true) => "class = \"S\", iterations = 2",
        (_, _) => "class = \"S\", iterations = 10",
    };
    format!("kind = \"{kind}\", {params}")
}

/// One mix: `copies` of each benchmark, `threads` each.
struct Mix {
    label: &'static str,
    benchmarks: &'static [&'static str],
    copies: usize,
    threads: usize,
}

impl Mix {
    fn programs(&self) -> usize {
        self.benchmarks.len() * self.copies
    }

    /// MCDRAM over the mix's class C memory (Table I).
    fn mcdram_fraction(&self) -> f64 {
        let total: f64 = self
            .benchmarks
            .iter()
            .map(|b| TABLE1_PEAK_MB.iter().find(|(n, _)| n == b).map_or(0.0, |(_, mb)| *mb))
            .sum::<f64>()
            * self.copies as f64;
        (MCDRAM_MB / total).min(1.0)
    }

    /// The experiment: the mix on knl-flat with `placement` and `migration` blocks.
    fn experiment(&self, quick: bool, seed: u64, phase: &str, placement: &str, migration: &str) -> String {
        let mut s = format!(
            "# HyDM study: {} ({} programs)\nmachine = \"knl-flat\"\nmode = \"timing\"\nseed = {seed}\n{phase}\n\
             [llc]\nenabled = false\n[mapping]\npolicy = \"random\"\n[placement]\n{placement}\n{migration}\n",
            self.label,
            self.programs()
        );
        for _ in 0..self.copies {
            for b in self.benchmarks {
                s.push_str(&format!(
                    "[[process]]\nworkload = {{ {}, threads = {} }}\n",
                    program(b, quick),
                    self.threads
                ));
            }
        }
        s
    }
}

const ALL: &[&str] = &["is", "ep", "cg", "mg", "ft", "bt", "sp", "lu"];

/// Per process name: finish time (ns).
fn finish_times(r: &serde_json::Value) -> Vec<(String, f64)> {
    r["processes"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .filter_map(|p| Some((p["name"].as_str()?.to_string(), p["finish_time_ns"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Each program's time in a run over its time in the default run, by name.
type Normalised = Vec<(String, f64)>;

/// Each program's time in `run` over its time in `base`, by name.
fn normalised(base: &serde_json::Value, run: &serde_json::Value) -> Normalised {
    let b = finish_times(base);
    finish_times(run)
        .into_iter()
        .filter_map(|(n, t)| {
            let bt = b.iter().find(|(m, _)| *m == n)?.1;
            (bt > 0.0).then(|| (n, t / bt))
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

fn of(v: &[(String, f64)], name: &str) -> f64 {
    v.iter().find(|(n, _)| n == name).map_or(f64::NAN, |x| x.1)
}

impl Study for Hydm {
    fn name(&self) -> &'static str {
        "hydm"
    }
    fn paper(&self) -> &'static str {
        "hydm-hybrid-memory-migration.txt — HyDM: data migration for hybrid memories (KNL flat mode)"
    }
    fn summary(&self) -> &'static str {
        "NPB mixes of 16 and 32 programs on knl-flat: per-program time with HyDM, numactl --preferred=MCDRAM, all-MCDRAM and the static oracle over the default (Fig. 5)"
    }

    fn headlines(&self) -> &'static [crate::Headline] {
        crate::headlines::HYDM
    }

    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let quick = ctx.options.quick;
        // Quick: one copy of each benchmark, one thread each, one seed.
        let mixes: Vec<(Mix, u64)> = if quick {
            vec![(
                Mix {
                    label: "mix8",
                    benchmarks: ALL,
                    copies: 1,
                    threads: 1,
                },
                1,
            )]
        } else {
            vec![
                (
                    Mix {
                        label: "mix16",
                        benchmarks: ALL,
                        copies: 2,
                        threads: 2,
                    },
                    3,
                ),
                (
                    Mix {
                        label: "mix32",
                        benchmarks: ALL,
                        copies: 4,
                        threads: 1,
                    },
                    1,
                ),
            ]
        };
        let mut rows = Vec::new();
        for (mix, seeds) in &mixes {
            let fraction = mix.mcdram_fraction();
            let capped = format!("capacity_fraction_of_footprint = {{ mcdram = {fraction:.4} }}");
            let mut per_config: Vec<(&str, Vec<Normalised>)> = Vec::new();
            let mut moves = Vec::new();
            for seed in 1..=*seeds {
                let id = |c: &str| format!("{}-s{seed}-{c}", mix.label);
                let default = ctx.run_experiment(&id("default"), &mix.experiment(quick, seed, "", &capped, ""))?;
                let t_default = number(&default, &["timing", "sim_time_ns"]).unwrap_or(0.0);
                let phase_ns = ((t_default / WINDOWS as f64).round() as u64).max(1);
                let phase = format!("phase_ns = {phase_ns}   # the default run's time over {WINDOWS} windows");
                let mut configs: Vec<(&str, String, String)> = vec![
                    (
                        "preferred",
                        format!("policy = \"preferred\"\nnode = \"mcdram\"\n{capped}"),
                        String::new(),
                    ),
                    (
                        "hydm",
                        capped.clone(),
                        "[migration]\npolicy = \"hydm\"\nshootdown = \"move-pages\"\nwindow = 5\nthreshold = 0.9\n"
                            .into(),
                    ),
                ];
                if !quick {
                    configs.push((
                        "all-mcdram",
                        "policy = \"preferred\"\nnode = \"mcdram\"".into(),
                        String::new(),
                    ));
                    configs.push((
                        "oracle-static",
                        capped.clone(),
                        "[migration]\npolicy = \"oracle-static\"\n".into(),
                    ));
                }
                let plan: Vec<(String, String)> = configs
                    .iter()
                    .map(|(name, placement, migration)| {
                        (id(name), mix.experiment(quick, seed, &phase, placement, migration))
                    })
                    .collect();
                let runs = ctx.run_experiments(&plan)?;
                for ((name, _, _), r) in configs.into_iter().zip(&runs) {
                    if name == "hydm" {
                        moves.push(number(r, &["migration", "total_moves"]).unwrap_or(0.0));
                    }
                    let n = normalised(&default, r);
                    match per_config.iter_mut().find(|(c, _)| *c == name) {
                        Some((_, v)) => v.push(n),
                        None => per_config.push((name, vec![n])),
                    }
                }
            }
            let label = mix.label;
            // Computed from the paper's Table I and given to the runs: an input, not a result.
            rows.push(
                cmp(
                    "setup",
                    format!("{label}: MCDRAM share of the mix's memory (Table I class C)"),
                    "fraction",
                    Some(fraction),
                    fraction,
                    Expect::None,
                )
                .input(),
            );
            for (name, runs) in &per_config {
                let means: Vec<f64> = runs
                    .iter()
                    .map(|n| mean(&n.iter().map(|x| x.1).collect::<Vec<_>>()))
                    .collect();
                let is_hydm = *name == "hydm";
                let row = cmp(
                    "Fig. 5",
                    format!("{label}: mean time over default, {name}"),
                    "×",
                    is_hydm.then_some(PAPER_MEAN),
                    mean(&means),
                    if is_hydm { Expect::Below(1.0) } else { Expect::None },
                );
                rows.push(if is_hydm { row.headline("hydm.fig5.mean") } else { row });
                if runs.len() > 1 {
                    let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    rows.push(cmp(
                        "Fig. 5",
                        format!("{label}: spread of the mean over {} seeds, {name}", runs.len()),
                        "×",
                        None,
                        hi - lo,
                        Expect::None,
                    ));
                }
                if is_hydm {
                    for (program, paper, id) in [
                        ("cg.1", PAPER_CG1, "hydm.fig5.cg1"),
                        ("cg.0", PAPER_CG0, "hydm.fig5.cg0"),
                        ("ft.1", PAPER_FT1, "hydm.fig5.ft1"),
                    ] {
                        // A mix without the program (the quick mix has one copy of each: no
                        // cg.1) gives no data, not a value.
                        let v: Vec<f64> = runs.iter().map(|n| of(n, program)).filter(|x| x.is_finite()).collect();
                        rows.push(
                            cmp(
                                "Fig. 5",
                                format!("{label}: {program} time over default, hydm"),
                                "×",
                                Some(paper),
                                mean(&v),
                                Expect::Below(1.0),
                            )
                            .headline(id),
                        );
                    }
                }
            }
            rows.push(cmp(
                "§IV",
                format!("{label}: pages HyDM moved per run"),
                "pages",
                None,
                mean(&moves),
                Expect::None,
            ));
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcdram_share_follows_table_one() {
        let m = Mix {
            label: "m",
            benchmarks: ALL,
            copies: 2,
            threads: 1,
        };
        // 2 × 17 270 MB of class C memory against 16 GiB of MCDRAM.
        assert!((m.mcdram_fraction() - 16384.0 / 34540.0).abs() < 1e-9);
        let text = m.experiment(true, 3, "phase_ns = 100", "", "");
        assert_eq!(text.matches("[[process]]").count(), 16);
        assert!(text.contains("seed = 3") && text.contains("phase_ns = 100"));
    }

    #[test]
    fn normalised_times_match_programs_by_name() {
        let a = serde_json::json!({"processes": [{"name": "cg.0", "finish_time_ns": 200.0}, {"name": "ep.0", "finish_time_ns": 50.0}]});
        let b = serde_json::json!({"processes": [{"name": "ep.0", "finish_time_ns": 25.0}, {"name": "cg.0", "finish_time_ns": 300.0}]});
        let n = normalised(&a, &b);
        assert_eq!(of(&n, "cg.0"), 1.5);
        assert_eq!(of(&n, "ep.0"), 0.5);
        assert!(of(&n, "ft.1").is_nan());
    }
}
