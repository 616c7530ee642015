//! Similarity scaling: a smaller run stands for a paper's experiment when the dimensionless
//! numbers that decide the outcome are the paper's.
//!
//! A paper's experiment is a [`Reference`]: its footprint and the lengths and counts around it
//! (phase or interval instructions, pages movable per phase, capacities, samples per page per
//! interval, phases per run, the timed share of a phase, simulated time, LLC bytes). One
//! scale factor `s` (this run's footprint over the paper's) then derives every length and count
//! of the run ([`Scaled`]), each so that its dimensionless number equals the reference's:
//!
//! | number | kept by deriving |
//! |---|---|
//! | instructions per phase (all threads) per footprint byte | phase instructions per thread |
//! | pages movable per phase over footprint pages | the migration limit per phase |
//! | capacity over footprint, per node | the node's capacity |
//! | samples per page per phase | the sampling period, from the run's event rate |
//! | phases per run | the run length (phases, iterations) |
//! | timed share of a phase | the sampled-timing window (and its warm-up) |
//! | simulated time per footprint byte | the run's simulated length |
//! | LLC bytes over footprint | the LLC size |
//!
//! What a budget does not allow is reported, not hidden: [`fit_budget`] returns the largest
//! affordable value and a [`Deviation`] naming the number that moved and by how much.
//!
//! Every run measures its own numbers ([`measure`]); results.json carries them in its
//! `similarity` block beside the reference's when the experiment declares one (`[similarity]`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A paper's experiment, in the paper's own units (`[similarity]` of an experiment file).
/// Only `footprint_bytes` is required; a number whose inputs are left out has no reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// What the reference is, for readers (e.g. "Tikir Table 2, CG class C").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The paper's footprint, bytes.
    pub footprint_bytes: f64,
    /// The paper's page size, bytes (default: the run's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<f64>,
    /// Threads of the paper's run (with `phase_instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<f64>,
    /// Instructions per thread of one phase (migration interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_instructions: Option<f64>,
    /// Pages movable per phase (the paper's migration limit, in the paper's pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration_limit_pages: Option<f64>,
    /// Capacity of each capacity-limited node (pool, MCDRAM), bytes, by this run's node name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity_bytes: BTreeMap<String, f64>,
    /// Profile samples per footprint page per phase (of the run's profiler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_per_page_per_phase: Option<f64>,
    /// Phases (migration intervals) in the paper's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<f64>,
    /// Share of each phase that is timed (sampled simulation; 1 when all of it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_share: Option<f64>,
    /// The paper's run length, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_ns: Option<f64>,
    /// Last-level cache of the whole machine, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc_bytes: Option<f64>,
}

/// The dimensionless numbers (ratios of like quantities, or per footprint byte).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Numbers {
    /// Instructions of all threads in one phase per footprint byte.
    pub instructions_per_phase_per_footprint_byte: Option<f64>,
    /// Pages movable per phase (the policy's limit) over footprint pages.
    pub movable_pages_per_phase_over_footprint_pages: Option<f64>,
    /// Capacity of each node smaller than the footprint, over the footprint.
    pub capacity_over_footprint: BTreeMap<String, f64>,
    /// Profile samples per footprint page per phase.
    pub samples_per_page_per_phase: Option<f64>,
    /// Phases (migration intervals) per run.
    pub phases_per_run: Option<f64>,
    /// Timed share of a phase (sampled timing; 1 in full timing mode).
    pub timed_share: Option<f64>,
    /// Simulated time of the run per footprint byte, ns per byte.
    pub sim_ns_per_footprint_byte: Option<f64>,
    /// LLC bytes of the whole machine over the footprint (0 with the filter off).
    pub llc_bytes_over_footprint: Option<f64>,
    /// Derived, not declared: migration work (time charged to moves) over the run's time.
    pub migration_time_share: Option<f64>,
}

impl Numbers {
    /// `(name, value)` of every number, in declaration order; capacities as `capacity_over_footprint.<node>`.
    pub fn rows(&self) -> Vec<(String, Option<f64>)> {
        let mut v = vec![
            (
                "instructions_per_phase_per_footprint_byte".to_string(),
                self.instructions_per_phase_per_footprint_byte,
            ),
            (
                "movable_pages_per_phase_over_footprint_pages".to_string(),
                self.movable_pages_per_phase_over_footprint_pages,
            ),
        ];
        for (node, c) in &self.capacity_over_footprint {
            v.push((format!("capacity_over_footprint.{node}"), Some(*c)));
        }
        v.extend([
            (
                "samples_per_page_per_phase".to_string(),
                self.samples_per_page_per_phase,
            ),
            ("phases_per_run".to_string(), self.phases_per_run),
            ("timed_share".to_string(), self.timed_share),
            ("sim_ns_per_footprint_byte".to_string(), self.sim_ns_per_footprint_byte),
            ("llc_bytes_over_footprint".to_string(), self.llc_bytes_over_footprint),
            ("migration_time_share".to_string(), self.migration_time_share),
        ]);
        v
    }
}

impl Reference {
    /// Every value finite, the footprint positive, the rest not negative; the error names the
    /// key (under `similarity.`).
    pub fn check(&self) -> Result<(), (String, String)> {
        if !(self.footprint_bytes.is_finite() && self.footprint_bytes > 0.0) {
            return Err(("footprint_bytes".into(), "must be a positive number of bytes".into()));
        }
        let named = [
            ("page_bytes", self.page_bytes),
            ("threads", self.threads),
            ("phase_instructions", self.phase_instructions),
            ("migration_limit_pages", self.migration_limit_pages),
            ("samples_per_page_per_phase", self.samples_per_page_per_phase),
            ("phases", self.phases),
            ("timed_share", self.timed_share),
            ("run_ns", self.run_ns),
            ("llc_bytes", self.llc_bytes),
        ];
        for (key, v) in named {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err((key.into(), format!("must be a finite number ≥ 0, not {v}")));
                }
            }
        }
        if self.page_bytes == Some(0.0) {
            return Err(("page_bytes".into(), "must be positive".into()));
        }
        if self.timed_share.is_some_and(|t| t > 1.0) {
            return Err(("timed_share".into(), "is a share of a phase: at most 1".into()));
        }
        for (node, c) in &self.capacity_bytes {
            if !(c.is_finite() && *c >= 0.0) {
                return Err((
                    format!("capacity_bytes.{node}"),
                    format!("must be a finite number ≥ 0, not {c}"),
                ));
            }
        }
        Ok(())
    }

    fn page_bytes_or(&self, run_page_bytes: f64) -> f64 {
        self.page_bytes.unwrap_or(run_page_bytes)
    }

    fn footprint_pages(&self, run_page_bytes: f64) -> f64 {
        self.footprint_bytes / self.page_bytes_or(run_page_bytes)
    }

    /// The reference's dimensionless numbers (`run_page_bytes`: the page size when the
    /// reference gives none).
    pub fn numbers(&self, run_page_bytes: f64) -> Numbers {
        let f = self.footprint_bytes;
        let ok = f > 0.0;
        Numbers {
            instructions_per_phase_per_footprint_byte: match (self.phase_instructions, self.threads) {
                (Some(p), Some(t)) if ok => Some(p * t / f),
                _ => None,
            },
            movable_pages_per_phase_over_footprint_pages: self
                .migration_limit_pages
                .filter(|_| ok)
                .map(|l| l / self.footprint_pages(run_page_bytes)),
            capacity_over_footprint: if ok {
                self.capacity_bytes.iter().map(|(n, c)| (n.clone(), c / f)).collect()
            } else {
                BTreeMap::new()
            },
            samples_per_page_per_phase: self.samples_per_page_per_phase,
            phases_per_run: self.phases,
            timed_share: self.timed_share,
            sim_ns_per_footprint_byte: self.run_ns.filter(|_| ok).map(|t| t / f),
            llc_bytes_over_footprint: self.llc_bytes.filter(|_| ok).map(|l| l / f),
            migration_time_share: None,
        }
    }
}

/// A reference at one scale: `factor` = this run's footprint over the paper's. Every method
/// derives one length or count so that its dimensionless number is the reference's.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaled {
    pub reference: Reference,
    pub factor: f64,
}

/// Rounds a derived count to the nearest integer, at least `min`.
fn count(x: f64, min: u64) -> u64 {
    if x.is_finite() && x > 0.0 {
        (x.round() as u64).max(min)
    } else {
        min
    }
}

impl Scaled {
    /// The scale of a run whose footprint is `footprint_bytes`.
    pub fn for_footprint(reference: Reference, footprint_bytes: f64) -> Self {
        let factor = if reference.footprint_bytes > 0.0 {
            footprint_bytes / reference.footprint_bytes
        } else {
            0.0
        };
        Scaled { reference, factor }
    }

    /// This run's footprint, bytes.
    pub fn footprint_bytes(&self) -> f64 {
        self.reference.footprint_bytes * self.factor
    }

    /// Phase instructions per thread for `threads` threads: the reference's instructions per
    /// phase (all threads) per footprint byte kept. `None` without a reference phase.
    pub fn phase_instructions(&self, threads: u64) -> Option<u64> {
        let r = &self.reference;
        let total = r.phase_instructions? * r.threads? * self.factor;
        Some(count(total / threads.max(1) as f64, 1))
    }

    /// Phase instructions per thread from the run's own work: `instructions_per_unit` per
    /// thread for one unit of work (an iteration) and the reference's `units_per_phase`.
    /// When the work per unit per footprint byte is the paper's (the same algorithm sweeping
    /// a proportionally smaller data set), this keeps instructions per phase per byte.
    pub fn phase_instructions_from_work(instructions_per_unit: f64, units_per_phase: f64) -> u64 {
        count(instructions_per_unit * units_per_phase, 1)
    }

    /// The migration limit per phase in this run's pages of `page_bytes`.
    pub fn migration_limit_pages(&self, page_bytes: u64) -> Option<u64> {
        let r = &self.reference;
        let share = r.migration_limit_pages? / r.footprint_pages(page_bytes as f64);
        Some(count(share * self.footprint_bytes() / page_bytes as f64, 0))
    }

    /// Capacity of `node`, bytes (a whole number of `page_bytes` pages, at least one).
    pub fn capacity_bytes(&self, node: &str, page_bytes: u64) -> Option<u64> {
        let c = self.reference.capacity_bytes.get(node)?;
        let pages = count(c * self.factor / page_bytes as f64, 1);
        Some(pages * page_bytes)
    }

    /// The sampling period (every N-th event) that gives the reference's samples per page per
    /// phase when the run has `events_per_phase` events over `footprint_pages` pages.
    pub fn sample_period(&self, events_per_phase: f64, footprint_pages: f64) -> Option<u64> {
        let target = self.reference.samples_per_page_per_phase?;
        if target <= 0.0 || footprint_pages <= 0.0 {
            return None;
        }
        Some(count(events_per_phase / (target * footprint_pages), 1))
    }

    /// Phases of the run: the reference's phases per run.
    pub fn phases(&self) -> Option<f64> {
        self.reference.phases
    }

    /// The sampled-timing window of a phase of `phase_instructions`: (timed, warm-up)
    /// instructions, the timed share kept and the warm-up `warmup_share` of the phase.
    pub fn timed_window(&self, phase_instructions: u64, warmup_share: f64) -> Option<(u64, u64)> {
        let share = self.reference.timed_share?;
        let p = phase_instructions as f64;
        Some((count(p * share, 1), count(p * warmup_share, 0)))
    }

    /// The run's simulated length, ns: simulated time per footprint byte kept.
    pub fn run_ns(&self) -> Option<f64> {
        Some(self.reference.run_ns? * self.factor)
    }

    /// LLC bytes of the whole machine: LLC bytes over footprint kept.
    pub fn llc_bytes(&self) -> Option<f64> {
        Some(self.reference.llc_bytes? * self.factor)
    }
}

/// A number a run could not keep: its reference value, the run's, and run / reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deviation {
    pub number: String,
    pub reference: f64,
    pub run: f64,
    pub ratio: f64,
    /// Why (the budget, a size the generator cannot take).
    pub reason: String,
}

impl Deviation {
    pub fn new(number: &str, reference: f64, run: f64, reason: impl Into<String>) -> Self {
        Deviation {
            number: number.to_string(),
            reference,
            run,
            ratio: if reference != 0.0 { run / reference } else { f64::NAN },
            reason: reason.into(),
        }
    }
}

/// Fits a derived count into a budget: the derived value when it is affordable, else the
/// budget and the [`Deviation`] of `number` (the count's dimensionless number moves by the
/// same ratio, since the count is proportional to it at a fixed scale).
pub fn fit_budget(number: &str, derived: f64, budget: f64) -> (f64, Option<Deviation>) {
    if derived <= budget {
        (derived, None)
    } else {
        (
            budget,
            Some(Deviation::new(
                number,
                derived,
                budget,
                format!("budget: {budget} affordable, {derived:.4} derived"),
            )),
        )
    }
}

/// What a run measures about itself (the inputs [`measure`] needs beyond results.json's figures).
#[derive(Debug, Clone, Default)]
pub struct RunFacts {
    pub footprint_bytes: f64,
    pub page_bytes: f64,
    /// Instructions of all threads over the run.
    pub instructions: f64,
    /// Phases of `phase_instructions` (or `phase_ns`) the run spanned (merged gaps counted).
    pub phases_spanned: f64,
    /// Phase records (boundaries) whose profiler sampled, and the samples over them.
    pub profiled_phases: f64,
    pub profiler_samples: f64,
    pub migration_limit_pages: Option<f64>,
    /// Capacity of every node, pages.
    pub capacity_pages: BTreeMap<String, f64>,
    /// Timing mode: timed share of a phase (1 without sampling) and simulated time, ns.
    pub timed_share: Option<f64>,
    pub sim_ns: Option<f64>,
    /// Timing mode: time charged to page moves, ns.
    pub migration_ns: Option<f64>,
    /// LLC bytes of the whole machine (0 with the filter off).
    pub llc_bytes: f64,
}

/// The run's own dimensionless numbers.
pub fn measure(f: &RunFacts) -> Numbers {
    let fb = f.footprint_bytes;
    if fb <= 0.0 {
        return Numbers::default();
    }
    let pages = fb / f.page_bytes.max(1.0);
    let per = |x: f64, d: f64| if d > 0.0 { Some(x / d) } else { None };
    Numbers {
        instructions_per_phase_per_footprint_byte: per(f.instructions, f.phases_spanned).map(|i| i / fb),
        movable_pages_per_phase_over_footprint_pages: f.migration_limit_pages.map(|l| l / pages),
        capacity_over_footprint: f
            .capacity_pages
            .iter()
            .filter(|(_, &c)| c < pages)
            .map(|(n, &c)| (n.clone(), c / pages))
            .collect(),
        samples_per_page_per_phase: per(f.profiler_samples, f.profiled_phases).map(|s| s / pages),
        phases_per_run: Some(f.phases_spanned),
        timed_share: f.timed_share,
        sim_ns_per_footprint_byte: f.sim_ns.map(|t| t / fb),
        llc_bytes_over_footprint: Some(f.llc_bytes / fb),
        migration_time_share: match (f.migration_ns, f.sim_ns) {
            (Some(m), Some(t)) if t > 0.0 => Some(m / t),
            _ => None,
        },
    }
}

/// One number of a results.json `similarity` block: the run's value and the reference's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub number: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<f64>,
}

/// results.json's `similarity` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimilarityReport {
    pub footprint_bytes: f64,
    /// The declared reference (`[similarity]`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// This run's footprint over the reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    pub numbers: Vec<Row>,
}

impl SimilarityReport {
    pub fn new(facts: &RunFacts, reference: Option<&Reference>) -> Self {
        let run = measure(facts);
        let refn = reference.map(|r| r.numbers(facts.page_bytes));
        let mut numbers: Vec<Row> = run
            .rows()
            .into_iter()
            .map(|(number, run)| Row {
                number,
                run,
                reference: None,
            })
            .collect();
        if let Some(rn) = &refn {
            for (name, value) in rn.rows() {
                match numbers.iter_mut().find(|r| r.number == name) {
                    Some(row) => row.reference = value,
                    None => numbers.push(Row {
                        number: name,
                        run: None,
                        reference: value,
                    }),
                }
            }
        }
        numbers.retain(|r| r.run.is_some() || r.reference.is_some());
        SimilarityReport {
            footprint_bytes: facts.footprint_bytes,
            scale: reference
                .filter(|r| r.footprint_bytes > 0.0)
                .map(|r| facts.footprint_bytes / r.footprint_bytes),
            reference: reference.cloned(),
            numbers,
        }
    }

    /// The row of `number`, if present.
    pub fn row(&self, number: &str) -> Option<&Row> {
        self.numbers.iter().find(|r| r.number == number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper() -> Reference {
        Reference {
            source: Some("test".into()),
            footprint_bytes: 1e9,
            page_bytes: Some(8192.0),
            threads: Some(12.0),
            phase_instructions: Some(2e9),
            migration_limit_pages: Some(4096.0),
            capacity_bytes: [("pool".to_string(), 2e8)].into(),
            samples_per_page_per_phase: Some(0.9),
            phases: Some(125.0),
            timed_share: Some(0.1),
            run_ns: Some(625e9),
            llc_bytes: Some(192e6),
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    /// Builds the facts of a run sized by `s` from `paper()`, using only the derivations,
    /// and checks that every measured number equals the reference's.
    #[test]
    fn every_derived_length_keeps_its_number_at_the_declared_scale() {
        for factor in [1.0 / 64.0, 1.0 / 100.0, 0.37, 1.0] {
            let s = Scaled {
                reference: paper(),
                factor,
            };
            let page = 4096u64;
            let threads = 24u64;
            let footprint = s.footprint_bytes();
            let pages = footprint / page as f64;
            let phase = s.phase_instructions(threads).unwrap();
            let phases = s.phases().unwrap();
            let limit = s.migration_limit_pages(page).unwrap();
            let pool = s.capacity_bytes("pool", page).unwrap();
            // The run's profiler sees 50 events per page per phase.
            let events = 50.0 * pages;
            let period = s.sample_period(events, pages).unwrap();
            let (timed, warm) = s.timed_window(phase, 0.02).unwrap();
            let facts = RunFacts {
                footprint_bytes: footprint,
                page_bytes: page as f64,
                instructions: phase as f64 * threads as f64 * phases,
                phases_spanned: phases,
                profiled_phases: phases,
                profiler_samples: (events / period as f64) * phases,
                migration_limit_pages: Some(limit as f64),
                capacity_pages: [("pool".to_string(), pool as f64 / page as f64)].into(),
                timed_share: Some(timed as f64 / phase as f64),
                sim_ns: s.run_ns(),
                migration_ns: None,
                llc_bytes: s.llc_bytes().unwrap(),
            };
            assert!(warm > 0 && warm < timed);
            let run = measure(&facts);
            let want = paper().numbers(page as f64);
            // Rounding a count to an integer is the only loss: relative 1/count.
            let tol = |n: f64| 0.5 / n + 1e-12;
            assert!(close(
                run.instructions_per_phase_per_footprint_byte.unwrap(),
                want.instructions_per_phase_per_footprint_byte.unwrap(),
                tol(phase as f64)
            ));
            assert!(close(
                run.movable_pages_per_phase_over_footprint_pages.unwrap(),
                want.movable_pages_per_phase_over_footprint_pages.unwrap(),
                tol(limit as f64)
            ));
            assert!(close(
                run.capacity_over_footprint["pool"],
                want.capacity_over_footprint["pool"],
                tol(pool as f64 / page as f64)
            ));
            assert!(close(
                run.samples_per_page_per_phase.unwrap(),
                want.samples_per_page_per_phase.unwrap(),
                tol(period as f64)
            ));
            assert_eq!(run.phases_per_run, want.phases_per_run);
            assert!(close(run.timed_share.unwrap(), 0.1, tol(timed as f64)));
            assert!(close(
                run.sim_ns_per_footprint_byte.unwrap(),
                want.sim_ns_per_footprint_byte.unwrap(),
                1e-12
            ));
            assert!(close(
                run.llc_bytes_over_footprint.unwrap(),
                want.llc_bytes_over_footprint.unwrap(),
                1e-12
            ));
        }
    }

    #[test]
    fn reference_numbers_are_the_papers_ratios() {
        let n = paper().numbers(4096.0);
        // 2e9 instructions x 12 threads over 1 GB.
        assert_eq!(n.instructions_per_phase_per_footprint_byte, Some(24.0));
        // 4096 of 1e9 / 8192 pages (the paper's page size, not the run's).
        assert!(close(
            n.movable_pages_per_phase_over_footprint_pages.unwrap(),
            4096.0 / (1e9 / 8192.0),
            1e-12
        ));
        assert_eq!(n.capacity_over_footprint["pool"], 0.2);
        assert_eq!(n.sim_ns_per_footprint_byte, Some(625.0));
        assert!(close(n.llc_bytes_over_footprint.unwrap(), 0.192, 1e-12));
    }

    #[test]
    fn page_size_change_keeps_the_movable_share() {
        // 8 KiB pages in the paper, 4 KiB in the run: twice the pages movable, same share.
        let s = Scaled {
            reference: paper(),
            factor: 0.01,
        };
        assert_eq!(s.migration_limit_pages(4096), Some(82));
        assert_eq!(s.migration_limit_pages(8192), Some(41));
    }

    #[test]
    fn sample_period_gives_the_target_samples_per_page() {
        let s = Scaled {
            reference: paper(),
            factor: 0.01,
        };
        // 18 M events over 1000 pages per phase at 0.9 samples per page: every 20 000th.
        assert_eq!(s.sample_period(18e6, 1000.0), Some(20_000));
        // Fewer events than the target: every event (period 1), the number then falls short.
        assert_eq!(s.sample_period(100.0, 1000.0), Some(1));
    }

    #[test]
    fn budget_reports_the_number_that_moved() {
        let (v, d) = fit_budget("phases_per_run", 125.0, 8.0);
        assert_eq!(v, 8.0);
        let d = d.unwrap();
        assert_eq!(d.number, "phases_per_run");
        assert!(close(d.ratio, 8.0 / 125.0, 1e-12));
        assert_eq!(fit_budget("phases_per_run", 6.2, 8.0), (6.2, None));
    }

    #[test]
    fn phase_from_work_is_units_times_instructions() {
        assert_eq!(Scaled::phase_instructions_from_work(1.5e6, 15.0), 22_500_000);
        assert_eq!(Scaled::phase_instructions_from_work(0.0, 15.0), 1);
    }

    #[test]
    fn report_pairs_run_and_reference_and_drops_empty_rows() {
        let facts = RunFacts {
            footprint_bytes: 1e7,
            page_bytes: 4096.0,
            instructions: 24e7,
            phases_spanned: 10.0,
            llc_bytes: 0.0,
            ..RunFacts::default()
        };
        let r = SimilarityReport::new(&facts, Some(&paper()));
        assert_eq!(r.scale, Some(0.01));
        let row = r.row("instructions_per_phase_per_footprint_byte").unwrap();
        assert_eq!(row.run, Some(2.4));
        assert_eq!(row.reference, Some(24.0));
        // Timing-only numbers of a functional run without a reference value are absent.
        assert!(r.row("migration_time_share").is_none());
        let plain = SimilarityReport::new(&facts, None);
        assert!(plain.numbers.iter().all(|r| r.reference.is_none()));
        assert_eq!(plain.scale, None);
    }
}
