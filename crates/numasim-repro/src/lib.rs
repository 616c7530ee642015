//! Paper reproduction studies: `numasim repro <study>`.
//!
//! A study runs a paper's experiments through the ordinary pipeline (each experiment is written
//! as a TOML file first, so every run can be repeated by hand), reads the results directories
//! back, and lines every number up against the paper's: paper value, numasim value, difference.
//! A study never adjusts the model to the paper; a number that does not match is reported as it
//! is. Each comparison also states the *direction* the paper reports (which configuration is
//! faster, which share is larger), and every row is scored ([`score`]): a match within a band
//! of the paper's value, the paper's direction with at least half its effect, or wrong; the
//! scorecard ([`scorecard`]) counts the verdicts, and each paper's headlines ([`headlines`])
//! must all have a row.
//!
//! Adding a study is one module implementing [`Study`] plus one line in [`registry`].

pub mod aggregate;
pub mod config;
pub mod headlines;
pub mod hydm;
pub mod score;
pub mod scorecard;
pub mod similarity;
pub mod starnuma;
pub mod talbot;
pub mod tikir;
pub mod zaourar;

pub use headlines::Headline;
pub use score::{Band, Kind, Verdict};
pub use scorecard::ScoreRow;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("unknown study `{name}` (known: {known})")]
    UnknownStudy { name: String, known: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("experiment {id} ({config}): {message}")]
    Run {
        id: String,
        config: PathBuf,
        message: String,
    },
    #[error("results of {id}: {message}")]
    Results { id: String, message: String },
    #[error("{path}, line {line}: {message}")]
    Scorecard { path: PathBuf, line: u64, message: String },
    /// `external`: the study needs these runs before it can go on ([`StudyOptions::external`]).
    #[error("{} runs to run first (external executor)", runs.len())]
    Pending { runs: Vec<PendingRun> },
}

/// A run a study needs that an external executor is to run: `numasim_repro::run_config(config,
/// dir, threads)` wherever it runs (the output directory on a shared file system).
#[derive(Debug, Clone, serde::Serialize)]
pub struct PendingRun {
    pub id: String,
    pub config: PathBuf,
    pub dir: PathBuf,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What the paper says about a quantity's direction. A direction holds only with at least
/// half the paper's effect ([`Comparison::required_effect`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// The value is above this bound (e.g. a speedup above 1).
    Above(f64),
    /// The value is below this bound.
    Below(f64),
    /// Only compared, no direction claimed (e.g. an input latency).
    None,
}

/// One number of the paper against numasim's.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    /// Where the paper reports it (figure or table).
    pub source: String,
    pub quantity: String,
    pub unit: &'static str,
    /// The paper's value, when it gives one for this configuration.
    pub paper: Option<f64>,
    /// numasim's value; NaN when there is none (scored as no data, never as 0).
    pub numasim: f64,
    pub expect: Expect,
    /// What the row is for scoring (a result, an input, an invariant).
    pub kind: Kind,
    /// The band the value is judged by, when not the default ([`Band::default_for`]).
    pub band: Option<Band>,
    /// The effect past the bound a direction needs when the paper gives no value.
    pub min_effect: Option<f64>,
    /// The paper's own effect, when it is not the paper's value minus the bound (a bound
    /// taken from numasim's own baseline): a direction needs half of it.
    pub paper_effect: Option<f64>,
    /// The id of the paper's headline this row scores ([`headlines`]).
    pub headline: Option<&'static str>,
    /// A headline not run at this size.
    pub not_run: bool,
}

/// One row: the studies' shorthand for building a [`Comparison`] (a scored result with the
/// default band; the builder methods below change that).
pub fn cmp(
    source: &str,
    quantity: impl Into<String>,
    unit: &'static str,
    paper: Option<f64>,
    numasim: f64,
    expect: Expect,
) -> Comparison {
    Comparison {
        source: source.into(),
        quantity: quantity.into(),
        unit,
        paper,
        numasim,
        expect,
        kind: Kind::Result,
        band: None,
        min_effect: None,
        paper_effect: None,
        headline: None,
        not_run: false,
    }
}

impl Comparison {
    /// numasim relative to the paper, when the paper gives a non-zero value.
    pub fn relative_difference(&self) -> Option<f64> {
        self.paper.filter(|p| *p != 0.0).map(|p| (self.numasim - p) / p)
    }

    /// Judged within `fraction` of the paper's value (0.1: ±10 %).
    pub fn band_relative(mut self, fraction: f64) -> Self {
        self.band = Some(Band::Relative(fraction));
        self
    }

    /// Judged within `points` of the paper's value.
    pub fn band_points(mut self, points: f64) -> Self {
        self.band = Some(Band::Points(points));
        self
    }

    /// The effect past the bound a direction needs when the paper gives no value.
    pub fn min_effect(mut self, effect: f64) -> Self {
        self.min_effect = Some(effect);
        self
    }

    /// The paper's own effect (its baseline minus its value), when the bound is numasim's.
    pub fn paper_effect(mut self, effect: f64) -> Self {
        self.paper_effect = Some(effect);
        self
    }

    /// A value numasim is given: listed, never scored.
    pub fn input(mut self) -> Self {
        self.kind = Kind::Input;
        self
    }

    /// A quantity that cannot differ in this model: listed, never scored.
    pub fn invariant(mut self) -> Self {
        self.kind = Kind::Invariant;
        self
    }

    /// This row scores the paper's headline `id`.
    pub fn headline(mut self, id: &'static str) -> Self {
        self.headline = Some(id);
        self
    }

    /// Marks a headline the study does not run at this size.
    pub fn not_run(mut self) -> Self {
        self.not_run = true;
        self
    }
}

/// Options of one study run.
#[derive(Debug, Clone)]
pub struct StudyOptions {
    /// Small inputs: minutes on a laptop (scored like the full study; small inputs rarely give
    /// the paper's magnitudes).
    pub quick: bool,
    /// Output directory: `configs/`, `runs/`, `comparison.csv`, `report.html`.
    pub out: PathBuf,
    /// Experiments of one batch ([`StudyContext::run_experiments`]) run at once, each with an
    /// equal share of the cores. Results never depend on it.
    pub jobs: usize,
    /// Reuse a run already in `runs/<id>` whose config is byte-identical to the one the study
    /// asks for (an interrupted study goes on where it stopped). Runs are deterministic, so a
    /// reused run's results are the ones running it again would give.
    pub resume: bool,
    /// Run nothing: the first batch with runs missing ends the study with
    /// [`ReproError::Pending`], listing them for an executor elsewhere (Ray, Slurm); calling
    /// the study again with `resume` then goes on to the next batch. Implies `resume`.
    pub external: bool,
}

/// A paper's reproduction.
pub trait Study: Sync {
    fn name(&self) -> &'static str;
    /// The paper (its text file's name and title).
    fn paper(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError>;
    /// The paper's headline results, each of which must have a row ([`headlines`]).
    fn headlines(&self) -> &'static [Headline] {
        &[]
    }
}

/// Every study, by name.
pub fn registry() -> &'static [&'static dyn Study] {
    &[
        &starnuma::StarNuma,
        &talbot::Talbot,
        &tikir::Tikir,
        &zaourar::Zaourar,
        &hydm::Hydm,
    ]
}

pub fn find(name: &str) -> Result<&'static dyn Study, ReproError> {
    registry()
        .iter()
        .copied()
        .find(|s| s.name() == name)
        .ok_or_else(|| ReproError::UnknownStudy {
            name: name.into(),
            known: registry().iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
        })
}

/// Runs experiments for a study and keeps track of what was written.
pub struct StudyContext {
    pub options: StudyOptions,
    /// `options.out`, a directory numasim manages: files are written only where numasim
    /// listed them ([`numasim_output::ManagedDir`]).
    pub dir: numasim_output::ManagedDir,
    /// Results directories in run order (for the report).
    pub runs: Vec<PathBuf>,
    progress: Box<dyn FnMut(&str)>,
}

impl StudyContext {
    pub fn new(options: StudyOptions, progress: Box<dyn FnMut(&str)>) -> Result<Self, ReproError> {
        let dir = numasim_output::ManagedDir::open(&options.out, "repro output directory", &[], &recognise_out)
            .map_err(io_err(&options.out))?;
        for d in ["configs", "runs"] {
            dir.create_dir(d).map_err(io_err(&options.out.join(d)))?;
        }
        Ok(StudyContext {
            options,
            dir,
            runs: Vec::new(),
            progress,
        })
    }

    /// Writes `toml` as `configs/<id>.toml`, runs it into `runs/<id>`, and returns its
    /// results.json.
    pub fn run_experiment(&mut self, id: &str, toml: &str) -> Result<serde_json::Value, ReproError> {
        let mut one = self.run_experiments(&[(id.to_string(), toml.to_string())])?;
        Ok(one.remove(0))
    }

    /// [`Self::run_experiment`] of a [`config::Config`].
    pub fn run(&mut self, id: &str, config: &config::Config) -> Result<serde_json::Value, ReproError> {
        self.run_experiment(id, &config.text())
    }

    /// [`Self::run_experiments`] of [`config::Config`]s.
    pub fn run_all(&mut self, batch: &[(String, config::Config)]) -> Result<Vec<serde_json::Value>, ReproError> {
        let texts: Vec<(String, String)> = batch.iter().map(|(id, c)| (id.clone(), c.text())).collect();
        self.run_experiments(&texts)
    }

    /// [`Self::run_experiment`] for independent experiments, `options.jobs` at a time (a
    /// study's runs are each single-minded and mostly single-threaded, so on a machine of n
    /// cores n of them finish in about the time of one). Results come back in the order given
    /// and the report lists them in that order, whatever finished first; every run is
    /// deterministic on its own, so nothing depends on `jobs`. The first failure (in the
    /// order given) is returned after the batch ends.
    pub fn run_experiments(&mut self, batch: &[(String, String)]) -> Result<Vec<serde_json::Value>, ReproError> {
        let resume = self.options.resume || self.options.external;
        let mut configs = Vec::with_capacity(batch.len());
        let mut done: Vec<Option<(PathBuf, serde_json::Value)>> = Vec::with_capacity(batch.len());
        for (id, toml) in batch {
            let rel = format!("configs/{id}.toml");
            let kept = if resume {
                self.finished_run(id, &rel, toml)
            } else {
                None
            };
            configs.push(if kept.is_some() {
                self.options.out.join(&rel)
            } else {
                self.write(&rel, toml.as_bytes())?
            });
            done.push(kept);
        }
        let todo: Vec<usize> = (0..batch.len()).filter(|&i| done[i].is_none()).collect();
        if self.options.external && !todo.is_empty() {
            let runs = todo
                .iter()
                .map(|&i| PendingRun {
                    id: batch[i].0.clone(),
                    config: configs[i].clone(),
                    dir: self.options.out.join("runs").join(&batch[i].0),
                })
                .collect();
            return Err(ReproError::Pending { runs });
        }
        let threads_per_run = (numasim::experiment::config::available_cores() / self.jobs_for(todo.len())).max(1);
        let ids: Vec<&str> = todo.iter().map(|&i| batch[i].0.as_str()).collect();
        let out = self.options.out.clone();
        let slots = self.run_batch(&ids, |k| {
            let i = todo[k];
            run_config(
                &batch[i].0,
                &configs[i],
                &out.join("runs").join(&batch[i].0),
                threads_per_run,
            )
        });
        for (k, slot) in slots.into_iter().enumerate() {
            done[todo[k]] = Some(slot?);
        }
        let mut results = Vec::with_capacity(batch.len());
        for (dir, value) in done.into_iter().flatten() {
            self.runs.push(dir);
            results.push(value);
        }
        Ok(results)
    }

    /// `runs/<id>` and its results when a previous study ran exactly `toml` there (its config
    /// file byte-identical, its results directory complete).
    fn finished_run(&self, id: &str, config_rel: &str, toml: &str) -> Option<(PathBuf, serde_json::Value)> {
        let old = std::fs::read(self.options.out.join(config_rel)).ok()?;
        if old != toml.as_bytes() {
            return None;
        }
        let dir = self.options.out.join("runs").join(id);
        if !dir.join(numasim_output::results_dir::MARKER).is_file() {
            return None;
        }
        let value = serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).ok()?).ok()?;
        Some((dir, value))
    }

    /// Writes `bytes` as `rel` in the output directory (never over a file numasim did not
    /// write there); returns its path.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<PathBuf, ReproError> {
        write_in(&self.dir, rel, bytes)
    }

    /// How many runs of a batch of `len` go at once.
    fn jobs_for(&self, len: usize) -> usize {
        self.options.jobs.clamp(1, len.max(1))
    }

    /// Runs `run_one(i)` for every index of `ids` (independent runs), `options.jobs` at a
    /// time, reporting each as it ends; results come back in the order of `ids`, whatever
    /// finished first. Studies whose runs do not go through `numasim run` (the mesh runs of
    /// `repro zaourar`) use it directly.
    pub fn run_batch<T: Send>(
        &mut self,
        ids: &[&str],
        run_one: impl Fn(usize) -> Result<T, ReproError> + Sync,
    ) -> Vec<Result<T, ReproError>> {
        let jobs = self.jobs_for(ids.len());
        // A long batch is named by its first and last runs (each run's end is reported below).
        let names = if ids.len() > 8 {
            format!("{} runs, {} … {}", ids.len(), ids[0], ids[ids.len() - 1])
        } else {
            ids.join(", ")
        };
        (self.progress)(&if jobs > 1 {
            format!("running {names} ({jobs} at once)")
        } else {
            format!("running {names}")
        });
        let mut slots: Vec<Option<Result<T, ReproError>>> = (0..ids.len()).map(|_| None).collect();
        if jobs == 1 {
            for (i, slot) in slots.iter_mut().enumerate() {
                *slot = Some(run_one(i));
                if ids.len() > 1 {
                    (self.progress)(&format!("  finished {} ({}/{})", ids[i], i + 1, ids.len()));
                }
            }
        } else {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let (tx, rx) = std::sync::mpsc::channel();
            let progress = &mut self.progress;
            std::thread::scope(|s| {
                for _ in 0..jobs {
                    let tx = tx.clone();
                    let (next, run_one, count) = (&next, &run_one, ids.len());
                    s.spawn(move || loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= count || tx.send((i, run_one(i))).is_err() {
                            break;
                        }
                    });
                }
                drop(tx);
                // The progress callback stays on this thread; it hears of each run as it ends.
                for (finished, (i, r)) in rx.iter().enumerate() {
                    progress(&format!("  finished {} ({}/{})", ids[i], finished + 1, ids.len()));
                    slots[i] = Some(r);
                }
            });
        }
        slots
            .into_iter()
            .map(|s| s.expect("every index of the batch was run"))
            .collect()
    }
}

/// Runs one study experiment: the config `config` into the results directory `dir` with
/// `threads` worker threads, returning the directory and its results.json. What a study's
/// batch runs locally and what an external executor's worker runs.
pub fn run_config(
    id: &str,
    config: &Path,
    dir: &Path,
    threads: usize,
) -> Result<(PathBuf, serde_json::Value), ReproError> {
    let fail = |message: String| ReproError::Run {
        id: id.into(),
        config: config.to_path_buf(),
        message,
    };
    let mut exp = numasim::experiment::Experiment::load(config).map_err(|e| fail(e.to_string()))?;
    exp.worker_threads = threads.max(1);
    let (dir, _) = numasim::experiment::run(&exp, dir, &mut |_| {}).map_err(|e| fail(e.to_string()))?;
    let path = dir.join("results.json");
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    let value = serde_json::from_str(&text).map_err(|e| ReproError::Results {
        id: id.into(),
        message: e.to_string(),
    })?;
    Ok((dir, value))
}

/// A number at a JSON path of a results.json.
pub fn number(results: &serde_json::Value, path: &[&str]) -> Option<f64> {
    let mut v = results;
    for k in path {
        v = v.get(*k)?;
    }
    v.as_f64()
}

/// What `numasim repro` leaves behind.
pub struct StudyOutcome {
    pub comparisons: Vec<Comparison>,
    /// The scorecard: every comparison scored, then a row per headline without one.
    pub rows: Vec<ScoreRow>,
    /// Headlines the study gave no row although it should have at this size (a renamed or
    /// dropped row): listed in the scorecard as no data.
    pub missing_headlines: Vec<&'static str>,
    pub csv: PathBuf,
    pub report: Option<PathBuf>,
}

/// Generated graphs a study keeps for reuse (a scale-24 Kronecker graph with weights is about
/// 4.4 GB, without 2.3 GB).
const GRAPH_CACHE_BYTES: u64 = 8 << 30;

/// The scorecard of `comparisons`: each scored, then a row for each of `headlines` without
/// one (not run when the study runs it at full size only and this is `quick`, else no data),
/// and the ids of those that should have had a row (and of any a row carries that the paper's
/// list does not declare).
pub fn score(
    comparisons: &[Comparison],
    headlines: &'static [Headline],
    quick: bool,
) -> (Vec<ScoreRow>, Vec<&'static str>) {
    let mut rows: Vec<ScoreRow> = comparisons.iter().map(ScoreRow::from).collect();
    let mut missing = Vec::new();
    for (h, expected) in headlines::absent(headlines, comparisons, quick) {
        let mut c = cmp(h.source, h.claim, "", None, f64::NAN, Expect::None).headline(h.id);
        if expected {
            c = c.not_run();
            c.quantity.push_str(" (full study only)");
        } else {
            missing.push(h.id);
            c.quantity.push_str(" (no row: the study produced none)");
        }
        rows.push(ScoreRow::from(&c));
    }
    // A row carrying an id its paper does not declare is a typo: reported with the missing.
    for id in comparisons.iter().filter_map(|c| c.headline) {
        if !headlines.iter().any(|h| h.id == id) && !missing.contains(&id) {
            missing.push(id);
        }
    }
    (rows, missing)
}

/// [`StudyContext::write`] for code that holds only the directory (parallel runs).
pub fn write_in(dir: &numasim_output::ManagedDir, rel: &str, bytes: &[u8]) -> Result<PathBuf, ReproError> {
    dir.write_file(rel, bytes, &[]).map_err(io_err(&dir.path().join(rel)))
}

/// Recognises a `repro` output directory written before it carried a marker: `comparison.csv`,
/// `configs/` and `runs/`, besides them only `report.html`, `report.md` and hidden files. Lists
/// the files numasim wrote there.
fn recognise_out(dir: &Path) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut seen = 0;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        match name.as_str() {
            "comparison.csv" | "report.html" | "report.md" => {
                seen += usize::from(name == "comparison.csv");
                names.push(name);
            }
            "configs" | "runs" => {
                if !e.file_type().is_ok_and(|t| t.is_dir()) {
                    return None;
                }
                seen += 1;
                for f in std::fs::read_dir(e.path()).ok()?.flatten() {
                    let fname = f.file_name().to_string_lossy().into_owned();
                    let is_file = f.file_type().is_ok_and(|t| t.is_file());
                    if is_file && (fname.ends_with(".toml") || fname.ends_with(".json")) {
                        names.push(format!("{name}/{fname}"));
                    } else if name == "runs" && f.path().join("results.json").is_file() {
                        // A hand-written results file (repro zaourar's mesh runs).
                        if !f.path().join(numasim_output::results_dir::MARKER).exists() {
                            names.push(format!("runs/{fname}/results.json"));
                        }
                    }
                }
            }
            n if n.starts_with('.') => {}
            _ => return None,
        }
    }
    (seen == 3).then_some(names)
}

/// Runs `study` into `options.out`: the experiments, `comparison.csv` (the scorecard) and
/// `report.html` (the scorecard, then the runs).
pub fn run_study(
    study: &dyn Study,
    options: StudyOptions,
    progress: Box<dyn FnMut(&str)>,
) -> Result<StudyOutcome, ReproError> {
    let mut ctx = StudyContext::new(options, progress)?;
    // A study runs each graph kernel on many machines and policies: build each graph once.
    numasim_workload::graph::cache::keep_graphs(GRAPH_CACHE_BYTES);
    let comparisons = study.run(&mut ctx);
    numasim_workload::graph::cache::keep_graphs(0);
    let comparisons = comparisons?;
    let (rows, missing_headlines) = score(&comparisons, study.headlines(), ctx.options.quick);
    let csv = ctx.write("comparison.csv", &scorecard::csv_bytes(&rows)?)?;
    let section = scorecard::render_html(&rows);
    let html = if ctx.runs.is_empty() {
        format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>numasim repro {}</title></head><body>\n{section}</body></html>\n",
            study.name()
        )
    } else {
        let runs = numasim_report::load_runs(&ctx.runs).map_err(|e| ReproError::Results {
            id: "report".into(),
            message: e.to_string(),
        })?;
        let text = numasim_report::html::render(&runs).map_err(|e| ReproError::Results {
            id: "report".into(),
            message: e.to_string(),
        })?;
        scorecard::insert_after_body(&text, &section)
    };
    let report = ctx.write("report.html", html.as_bytes())?;
    Ok(StudyOutcome {
        comparisons,
        rows,
        missing_headlines,
        csv,
        report: Some(report),
    })
}

/// The comparison as a plain-text scorecard (counts per verdict, then every row).
pub fn render_table(rows: &[Comparison]) -> String {
    let rows: Vec<ScoreRow> = rows.iter().map(ScoreRow::from).collect();
    scorecard::render_text(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_study_names_the_known_ones() {
        let e = find("starnumaa").err().unwrap().to_string();
        assert!(e.contains("starnumaa") && e.contains("starnuma"), "{e}");
        assert_eq!(find("starnuma").unwrap().name(), "starnuma");
    }

    #[test]
    fn table_and_directions() {
        let c = cmp("Fig. 8a", "BFS speedup", "×", Some(1.7), 1.6, Expect::Above(1.0));
        assert_eq!(c.direction_holds(), Some(true));
        assert!((c.relative_difference().unwrap() + 0.0588).abs() < 1e-3);
        let t = render_table(&[c]);
        assert!(
            t.contains("-5.9 %") && t.contains("> 1 (by ≥ 0.35)") && t.contains("match"),
            "{t}"
        );
        assert_eq!(
            cmp("s", "q", "×", None, 0.5, Expect::Below(0.0)).direction_holds(),
            Some(false)
        );
    }

    /// A headline without a row is listed (not run when full-size only at --quick, else
    /// missing), and a row with an undeclared id is reported.
    #[test]
    fn headlines_without_rows_are_listed() {
        let rows = [
            cmp("Fig. 5", "mean", "×", Some(0.935), 1.2, Expect::Below(1.0)).headline("hydm.fig5.mean"),
            cmp("Fig. 5", "x", "×", None, 1.0, Expect::None).headline("hydm.typo"),
        ];
        let (scored, missing) = score(&rows, headlines::HYDM, true);
        assert_eq!(
            missing,
            ["hydm.fig5.cg1", "hydm.fig5.cg0", "hydm.fig5.ft1", "hydm.typo"]
        );
        assert_eq!(scored.len(), 2 + 3);
        assert!(scored[2..]
            .iter()
            .all(|r| r.verdict == Verdict::NoData && r.numasim.is_none()));
        assert_eq!(scored[0].verdict, Verdict::Wrong);
    }

    /// A batch gives the same results, in the order given, whatever the number of jobs.
    #[test]
    fn a_batch_is_the_same_with_one_job_or_several() {
        let run = |jobs: usize| {
            let dir = tempfile::tempdir().unwrap();
            let options = StudyOptions {
                quick: true,
                out: dir.path().to_path_buf(),
                jobs,
                resume: false,
                external: false,
            };
            let mut ctx = StudyContext::new(options, Box::new(|_| {})).unwrap();
            let exp = |seed: u64, threads: u32| {
                format!(
                    "machine = \"starnuma16-pool\"\nseed = {seed}\nmode = \"functional\"\nphase_instructions = 20000\n\n\
                     [workload]\nkind = \"synthetic\"\nthreads = {threads}\npattern = \"shared-hot\"\naccesses_per_thread = 5000\n\n\
                     [placement]\npolicy = \"first-touch\"\n"
                )
            };
            let batch: Vec<(String, String)> = (0..3u64)
                .map(|i| (format!("run-{i}"), exp(i + 1, 4 + 4 * i as u32)))
                .collect();
            let results = ctx.run_experiments(&batch).unwrap();
            let runs: Vec<String> = ctx
                .runs
                .iter()
                .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            let counts: Vec<String> = results.iter().map(|r| r["totals"].to_string()).collect();
            (runs, counts)
        };
        let (one, several) = (run(1), run(3));
        assert_eq!(one.0, ["run-0", "run-1", "run-2"]);
        assert_eq!(one, several);
        // Different experiments, so the order was really kept.
        assert_ne!(one.1[0], one.1[2]);
    }

    fn small_experiment(seed: u64) -> String {
        format!(
            "machine = \"starnuma16-pool\"\nseed = {seed}\nmode = \"functional\"\nphase_instructions = 20000\n\n\
             [workload]\nkind = \"synthetic\"\nthreads = 4\npattern = \"shared-hot\"\naccesses_per_thread = 3000\n"
        )
    }

    fn options(out: &Path, resume: bool, external: bool) -> StudyOptions {
        StudyOptions {
            quick: true,
            out: out.to_path_buf(),
            jobs: 1,
            resume,
            external,
        }
    }

    /// Results without the host-dependent `perf` block.
    fn simulated(v: &serde_json::Value) -> serde_json::Value {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("perf");
        v
    }

    /// An external executor gets the missing runs, runs them with `run_config`, and the study
    /// then reads the same results a local run gives; resuming re-runs only a changed config.
    #[test]
    fn external_runs_and_resume_give_the_local_results() {
        let batch: Vec<(String, String)> = (1..=2u64).map(|i| (format!("r{i}"), small_experiment(i))).collect();
        let local_dir = tempfile::tempdir().unwrap();
        let mut local = StudyContext::new(options(local_dir.path(), false, false), Box::new(|_| {})).unwrap();
        let expected: Vec<_> = local.run_experiments(&batch).unwrap().iter().map(simulated).collect();

        let dir = tempfile::tempdir().unwrap();
        let mut ctx = StudyContext::new(options(dir.path(), false, true), Box::new(|_| {})).unwrap();
        let Err(ReproError::Pending { runs }) = ctx.run_experiments(&batch) else {
            panic!("an external study lists its runs first");
        };
        assert_eq!(runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["r1", "r2"]);
        for r in &runs {
            run_config(&r.id, &r.config, &r.dir, 1).unwrap();
        }
        let mut ctx = StudyContext::new(options(dir.path(), false, true), Box::new(|_| {})).unwrap();
        let got: Vec<_> = ctx.run_experiments(&batch).unwrap().iter().map(simulated).collect();
        assert_eq!(got, expected);

        // Resume: r1 unchanged is reused (its results file untouched), r2 changed is run again.
        let stamp = |id: &str| {
            std::fs::metadata(dir.path().join("runs").join(id).join("results.json"))
                .unwrap()
                .modified()
                .unwrap()
        };
        let (r1, r2) = (stamp("r1"), stamp("r2"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let changed = vec![batch[0].clone(), ("r2".to_string(), small_experiment(9))];
        let mut ctx = StudyContext::new(options(dir.path(), true, false), Box::new(|_| {})).unwrap();
        let again = ctx.run_experiments(&changed).unwrap();
        assert_eq!(simulated(&again[0]), expected[0]);
        assert_eq!(stamp("r1"), r1, "an unchanged run is reused");
        assert_ne!(stamp("r2"), r2, "a changed config is run again");
        assert_ne!(simulated(&again[1]), expected[1]);
    }

    /// `run_batch` returns every run's result at its own index, failures included, and
    /// reports a start and each end, with one job or several.
    #[test]
    fn run_batch_keeps_the_order_and_every_failure() {
        for jobs in [1, 2, 4] {
            let dir = tempfile::tempdir().unwrap();
            let options = StudyOptions {
                quick: true,
                out: dir.path().to_path_buf(),
                jobs,
                resume: false,
                external: false,
            };
            let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let h = heard.clone();
            let mut ctx = StudyContext::new(options, Box::new(move |m| h.lock().unwrap().push(m.to_string()))).unwrap();
            let ids = ["a", "b", "c", "d", "e"];
            let out = ctx.run_batch(&ids, |i| {
                // Later indices finish first when several run at once.
                std::thread::sleep(std::time::Duration::from_millis(5 * (5 - i as u64)));
                if i == 3 {
                    Err(ReproError::Results {
                        id: ids[i].into(),
                        message: "boom".into(),
                    })
                } else {
                    Ok(i * 10)
                }
            });
            let got: Vec<Option<usize>> = out.iter().map(|r| r.as_ref().ok().copied()).collect();
            assert_eq!(got, [Some(0), Some(10), Some(20), None, Some(40)], "jobs {jobs}");
            assert!(out[3].as_ref().err().unwrap().to_string().contains("boom"));
            let heard = heard.lock().unwrap();
            assert_eq!(heard.len(), 1 + ids.len(), "jobs {jobs}: {heard:?}");
            assert!(heard[0].starts_with("running a, b, c, d, e"), "{heard:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let options = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            jobs: 1,
            resume: false,
            external: false,
        };
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let h = heard.clone();
        let mut ctx = StudyContext::new(options, Box::new(move |m| h.lock().unwrap().push(m.to_string()))).unwrap();
        let ids: Vec<String> = (0..20).map(|i| format!("run-{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        ctx.run_batch(&ids, Ok);
        assert_eq!(heard.lock().unwrap()[0], "running 20 runs, run-0 … run-19");
    }

    #[test]
    fn a_study_never_writes_over_files_it_did_not_write() {
        // `repro STUDY -o DIR` must not overwrite a DIR/comparison.csv, DIR/report.html or
        // DIR/configs/<id>.toml that numasim did not write.
        let d = tempfile::tempdir().unwrap();
        let options = |out: &Path| StudyOptions {
            quick: true,
            out: out.to_path_buf(),
            jobs: 1,
            resume: false,
            external: false,
        };
        std::fs::write(d.path().join("comparison.csv"), "mine").unwrap();
        let e = StudyContext::new(options(d.path()), Box::new(|_| {}))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("did not make it"), "{e}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("comparison.csv")).unwrap(),
            "mine"
        );
        assert!(!d.path().join("configs").exists());
        // In a directory numasim made, a file the user put there keeps its content.
        let out = d.path().join("out");
        let ctx = StudyContext::new(options(&out), Box::new(|_| {})).unwrap();
        ctx.write("comparison.csv", b"1").unwrap();
        ctx.write("comparison.csv", b"2").unwrap();
        std::fs::write(out.join("configs/a.toml"), "mine").unwrap();
        assert!(ctx.write("configs/a.toml", b"x").is_err());
        assert_eq!(std::fs::read_to_string(out.join("configs/a.toml")).unwrap(), "mine");
        assert!(ctx.write("../escape.csv", b"x").is_err());
        // A directory written before the marker existed is recognised.
        let legacy = d.path().join("legacy");
        for sub in ["configs", "runs"] {
            std::fs::create_dir_all(legacy.join(sub)).unwrap();
        }
        std::fs::write(legacy.join("comparison.csv"), "old").unwrap();
        std::fs::write(legacy.join("configs/b.toml"), "old").unwrap();
        let ctx = StudyContext::new(options(&legacy), Box::new(|_| {})).unwrap();
        ctx.write("comparison.csv", b"new").unwrap();
        ctx.write("configs/b.toml", b"new").unwrap();
    }
}
