//! Paper reproduction studies: `numasim repro <study>`.
//!
//! A study runs a paper's experiments through the ordinary pipeline (each experiment is written
//! as a TOML file first, so every run can be repeated by hand), reads the results directories
//! back, and lines every number up against the paper's: paper value, numasim value, difference.
//! A study never adjusts the model to the paper; a number that does not match is reported as it
//! is. Each comparison also states the *direction* the paper reports (which configuration is
//! faster, which share is larger); `--quick` runs are checked on directions only, since small
//! inputs are not expected to give the paper's magnitudes.
//!
//! Adding a study is one module implementing [`Study`] plus one line in [`registry`].

pub mod hydm;
pub mod similarity;
pub mod starnuma;
pub mod talbot;
pub mod tikir;
pub mod zaourar;

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
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What the paper says about a quantity's direction, checked on every run.
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

impl Expect {
    pub fn holds(self, value: f64) -> Option<bool> {
        match self {
            Expect::Above(b) => Some(value > b),
            Expect::Below(b) => Some(value < b),
            Expect::None => None,
        }
    }

    fn text(self) -> String {
        match self {
            Expect::Above(b) => format!("> {b}"),
            Expect::Below(b) => format!("< {b}"),
            Expect::None => String::new(),
        }
    }
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
    pub numasim: f64,
    pub expect: Expect,
}

/// One row: the studies' shorthand for building a [`Comparison`].
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
    }
}

impl Comparison {
    /// numasim relative to the paper, when the paper gives a non-zero value.
    pub fn relative_difference(&self) -> Option<f64> {
        self.paper.filter(|p| *p != 0.0).map(|p| (self.numasim - p) / p)
    }
}

/// Options of one study run.
#[derive(Debug, Clone)]
pub struct StudyOptions {
    /// Small inputs: minutes on a laptop, checked on directions only.
    pub quick: bool,
    /// Output directory: `configs/`, `runs/`, `comparison.csv`, `report.html`.
    pub out: PathBuf,
    /// Experiments of one batch ([`StudyContext::run_experiments`]) run at once, each with an
    /// equal share of the cores. Results never depend on it.
    pub jobs: usize,
}

/// A paper's reproduction.
pub trait Study: Sync {
    fn name(&self) -> &'static str;
    /// The paper (file under shared/papers and title).
    fn paper(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError>;
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
    /// Results directories in run order (for the report).
    pub runs: Vec<PathBuf>,
    progress: Box<dyn FnMut(&str)>,
}

impl StudyContext {
    pub fn new(options: StudyOptions, progress: Box<dyn FnMut(&str)>) -> Result<Self, ReproError> {
        for d in ["configs", "runs"] {
            let p = options.out.join(d);
            std::fs::create_dir_all(&p).map_err(io_err(&p))?;
        }
        Ok(StudyContext {
            options,
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

    /// [`Self::run_experiment`] for independent experiments, `options.jobs` at a time (a
    /// study's runs are each single-minded and mostly single-threaded, so on a machine of n
    /// cores n of them finish in about the time of one). Results come back in the order given
    /// and the report lists them in that order, whatever finished first; every run is
    /// deterministic on its own, so nothing depends on `jobs`. The first failure (in the
    /// order given) is returned after the batch ends.
    pub fn run_experiments(&mut self, batch: &[(String, String)]) -> Result<Vec<serde_json::Value>, ReproError> {
        let mut configs = Vec::with_capacity(batch.len());
        for (id, toml) in batch {
            let config = self.options.out.join("configs").join(format!("{id}.toml"));
            std::fs::write(&config, toml).map_err(io_err(&config))?;
            configs.push(config);
        }
        let threads_per_run = (numasim::experiment::config::available_cores() / self.jobs_for(batch.len())).max(1);
        let ids: Vec<&str> = batch.iter().map(|(id, _)| id.as_str()).collect();
        let out = self.options.out.clone();
        let slots = self.run_batch(&ids, |i| -> Result<(PathBuf, serde_json::Value), ReproError> {
            let (id, config) = (ids[i], &configs[i]);
            let fail = |message: String| ReproError::Run {
                id: id.into(),
                config: config.clone(),
                message,
            };
            let mut exp = numasim::experiment::Experiment::load(config).map_err(|e| fail(e.to_string()))?;
            exp.worker_threads = threads_per_run;
            let (dir, _) = numasim::experiment::run(&exp, &out.join("runs").join(id), &mut |_| {})
                .map_err(|e| fail(e.to_string()))?;
            let path = dir.join("results.json");
            let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
            let value = serde_json::from_str(&text).map_err(|e| ReproError::Results {
                id: id.into(),
                message: e.to_string(),
            })?;
            Ok((dir, value))
        });
        let mut results = Vec::with_capacity(batch.len());
        for slot in slots {
            let (dir, value) = slot?;
            self.runs.push(dir);
            results.push(value);
        }
        Ok(results)
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
    pub csv: PathBuf,
    pub report: Option<PathBuf>,
}

/// Generated graphs a study keeps for reuse (a scale-24 Kronecker graph with weights is about
/// 4.4 GB, without 2.3 GB).
const GRAPH_CACHE_BYTES: u64 = 8 << 30;

/// Runs `study` into `options.out`: the experiments, `comparison.csv` and `report.html`.
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
    let csv = ctx.options.out.join("comparison.csv");
    write_csv(&csv, &comparisons)?;
    let report = if ctx.runs.is_empty() {
        None
    } else {
        let path = ctx.options.out.join("report.html");
        numasim_report::write_report(&ctx.runs, &path).map_err(|e| ReproError::Results {
            id: "report".into(),
            message: e.to_string(),
        })?;
        Some(path)
    };
    Ok(StudyOutcome {
        comparisons,
        csv,
        report,
    })
}

fn write_csv(path: &Path, rows: &[Comparison]) -> Result<(), ReproError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| ReproError::Io {
        path: path.into(),
        source: std::io::Error::other(e),
    })?;
    let io = |e: csv::Error| ReproError::Io {
        path: path.into(),
        source: std::io::Error::other(e),
    };
    w.write_record([
        "source",
        "quantity",
        "unit",
        "paper",
        "numasim",
        "difference_percent",
        "paper_direction",
        "direction_holds",
    ])
    .map_err(io)?;
    for c in rows {
        w.write_record([
            c.source.clone(),
            c.quantity.clone(),
            c.unit.to_string(),
            c.paper.map(|p| format!("{p}")).unwrap_or_default(),
            format!("{:.4}", c.numasim),
            c.relative_difference()
                .map(|d| format!("{:.1}", 100.0 * d))
                .unwrap_or_default(),
            c.expect.text(),
            c.expect.holds(c.numasim).map(|h| h.to_string()).unwrap_or_default(),
        ])
        .map_err(io)?;
    }
    w.flush().map_err(|e| io_err(path)(e))
}

/// The comparison as a plain-text table.
pub fn render_table(rows: &[Comparison]) -> String {
    let header = ["source", "quantity", "paper", "numasim", "diff", "direction"];
    let body: Vec<[String; 6]> = rows
        .iter()
        .map(|c| {
            [
                c.source.clone(),
                format!("{} ({})", c.quantity, c.unit),
                c.paper.map(|p| format!("{p:.3}")).unwrap_or_else(|| "—".into()),
                format!("{:.3}", c.numasim),
                c.relative_difference()
                    .map(|d| format!("{:+.1}%", 100.0 * d))
                    .unwrap_or_else(|| "—".into()),
                match c.expect.holds(c.numasim) {
                    Some(true) => format!("{} holds", c.expect.text()),
                    Some(false) => format!("{} FAILS", c.expect.text()),
                    None => String::new(),
                },
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            body.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |cells: &[String], out: &mut String| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(&header.map(String::from), &mut out);
    line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(), &mut out);
    for r in &body {
        line(r, &mut out);
    }
    out
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
        let c = Comparison {
            source: "Fig. 8a".into(),
            quantity: "BFS speedup".into(),
            unit: "×",
            paper: Some(1.7),
            numasim: 1.2,
            expect: Expect::Above(1.0),
        };
        assert_eq!(c.expect.holds(c.numasim), Some(true));
        assert!((c.relative_difference().unwrap() + 0.2941).abs() < 1e-3);
        let t = render_table(&[c]);
        assert!(t.contains("-29.4%") && t.contains("> 1 holds"), "{t}");
        assert_eq!(Expect::Below(0.0).holds(0.5), Some(false));
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
        };
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let h = heard.clone();
        let mut ctx = StudyContext::new(options, Box::new(move |m| h.lock().unwrap().push(m.to_string()))).unwrap();
        let ids: Vec<String> = (0..20).map(|i| format!("run-{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        ctx.run_batch(&ids, Ok);
        assert_eq!(heard.lock().unwrap()[0], "running 20 runs, run-0 … run-19");
    }
}
