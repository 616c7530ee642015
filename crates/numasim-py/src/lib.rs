//! `numasim._native`: the compiled half of the Python package.
//!
//! Deliberately thin: every function here calls the same library code as the CLI (the Rust
//! core stays the only simulator) and hands back a path or JSON text; the pure-Python half
//! (`python/numasim`) turns results directories into DataFrames through pyarrow. The plain Rust
//! functions below hold the logic so `cargo test` covers them without Python; the `python`
//! feature (on in maturin builds only) wraps them with PyO3 and releases the GIL while a
//! simulation runs, so Python threads (the local sweep executor) run simulations in parallel.

use numasim::experiment::sweep::{self, Sweep};
use numasim::experiment::{self, Experiment};
use numasim_config::{Override, Source};
use std::path::{Path, PathBuf};

/// An error and its causes joined by ": ", each cause once: the text the CLI prints after
/// `error: `.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = String::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = err.to_string();
        if !out.ends_with(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cur = err.source();
    }
    out
}

/// Where an experiment comes from: a file, or TOML text (with the directory its relative paths
/// are resolved against).
pub enum ConfigInput {
    Path(PathBuf),
    Text { text: String, base_dir: Option<PathBuf> },
}

/// Loads an experiment with `--set`-style overrides, as `numasim run` does.
pub fn load_experiment(input: ConfigInput, sets: &[String]) -> Result<Experiment, String> {
    let overrides = sets
        .iter()
        .map(|s| Override::parse_set(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| error_chain(&e))?;
    let exp = match input {
        ConfigInput::Path(p) => Experiment::load_with_overrides(&p, &overrides),
        ConfigInput::Text { text, base_dir } => {
            let mut src = Source::from_text("<config>", text);
            src.base_dir = base_dir;
            src.with_overrides(&overrides)
                .and_then(|s| Experiment::from_source(s, "experiment"))
        }
    };
    exp.map_err(|e| error_chain(&e))
}

/// Runs an experiment into `out` (default `results/<name>`, as the CLI) and returns the
/// directory. Refuses an existing directory without `force`, with the CLI's message.
pub fn run_experiment(
    mut exp: Experiment,
    out: Option<PathBuf>,
    force: bool,
    threads: Option<usize>,
) -> Result<PathBuf, String> {
    if let Some(n) = threads {
        if n == 0 {
            return Err("--threads must be at least 1".into());
        }
        exp.worker_threads = n;
    }
    let out = out.unwrap_or_else(|| experiment::default_out_dir(&exp));
    if !force && std::fs::symlink_metadata(&out).is_ok() {
        return Err(format!(
            "{} already exists: pass --force to replace it (numasim only ever replaces results it wrote), or -o another directory",
            out.display()
        ));
    }
    experiment::run(&exp, &out, &mut |_| {})
        .map(|(dir, _)| dir)
        .map_err(|e| error_chain(&e))
}

/// The machine summary (`numasim machine show --json`) of a preset or machine file.
pub fn machine_json(name_or_path: &str) -> Result<String, String> {
    let m = numasim_machine::Machine::load(name_or_path).map_err(|e| error_chain(&e))?;
    Ok(m.summary().to_json_pretty())
}

/// Expands a sweep and returns its plan as JSON: name, out_dir, axes, and per run its id,
/// directory, swept values and whether it is complete. With `prepare`, writes the manifest.
pub fn sweep_plan(path: &Path, out: Option<&Path>, prepare: bool) -> Result<String, String> {
    let sw = Sweep::load(path, out).map_err(|e| error_chain(&e))?;
    if prepare {
        sw.write_manifest()
            .map_err(|e| format!("{}: {}", sw.out_dir.join(sweep::MANIFEST).display(), e))?;
    }
    let runs: Vec<serde_json::Value> = (0..sw.len())
        .map(|i| {
            let params: serde_json::Map<String, serde_json::Value> = sw
                .params_of(i)
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or_default()))
                .collect();
            serde_json::json!({
                "index": i,
                "name": sw.name_of(i),
                "id": sw.id_of(i),
                "dir": sw.run_dir(i),
                "params": params,
                "complete": sw.is_complete(i),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "name": sw.name,
        "out_dir": sw.out_dir,
        "axes": sw.axes,
        "baseline": sw.baseline.map(|b| sw.name_of(b)),
        "runs": runs,
    });
    Ok(doc.to_string())
}

/// Runs point `index` of a sweep (skipped if complete); returns whether it ran. Each executor
/// (local threads, a Ray task, a Slurm array element) calls this with the same sweep file.
pub fn sweep_run(path: &Path, out: Option<&Path>, index: usize, threads: usize) -> Result<bool, String> {
    let sw = Sweep::load(path, out).map_err(|e| error_chain(&e))?;
    if index >= sw.len() {
        return Err(format!(
            "{}: the sweep has {} runs, no run {index}",
            path.display(),
            sw.len()
        ));
    }
    sw.run_one(index, threads, &mut |_| {}).map_err(|e| {
        let msg = error_chain(&e);
        format!("run {} ({}): {msg}", sw.id_of(index), sw.run_dir(index).display())
    })
}

/// Writes `sweep collect`'s CSV of `dir` to `out` under numasim's output policy (never onto a
/// run's files; a link followed, a device or FIFO streamed into); returns the row count.
pub fn sweep_collect_write(dir: &Path, out: &Path) -> Result<usize, String> {
    sweep::write_collected(dir, out).map_err(|e| e.to_string())
}

/// Writes `bytes` (a table made from `dir`'s runs, e.g. Parquet) to `out` under numasim's output
/// policy, refusing the files of `dir` that the table was read from.
pub fn write_collected_bytes(dir: &Path, out: &Path, bytes: &[u8]) -> Result<(), String> {
    numasim_output::write_file(out, bytes, &sweep::collect_inputs(dir)).map_err(|e| e.to_string())
}

/// One step of `numasim repro STUDY` for an executor elsewhere: runs the study, reusing every
/// finished run, up to its first batch with runs missing. Returns JSON: `{"pending": [{id,
/// config, dir}, ...]}` for the executor to run (then call again), or `{"pending": [],
/// "comparison_csv", "report", "scorecard"}` when the study is complete. With `external` false
/// the missing runs are run here, `jobs` at once, finished ones reused only with `resume`.
pub fn repro_step(
    study: &str,
    out: &Path,
    quick: bool,
    jobs: usize,
    external: bool,
    resume: bool,
) -> Result<String, String> {
    let study = numasim_repro::find(study).map_err(|e| error_chain(&e))?;
    let options = numasim_repro::StudyOptions {
        quick,
        out: out.to_path_buf(),
        jobs: jobs.max(1),
        resume,
        external,
    };
    match numasim_repro::run_study(study, options, Box::new(|m| eprintln!("{m}"))) {
        Ok(o) => serde_json::to_string(&serde_json::json!({
            "pending": [],
            "comparison_csv": o.csv,
            "report": o.report,
            "scorecard": o.rows,
        }))
        .map_err(|e| e.to_string()),
        Err(numasim_repro::ReproError::Pending { runs }) => {
            serde_json::to_string(&serde_json::json!({ "pending": runs })).map_err(|e| e.to_string())
        }
        Err(e) => Err(error_chain(&e)),
    }
}

/// Runs one pending run of a study (what an executor's worker calls).
pub fn repro_run(id: &str, config: &Path, dir: &Path, threads: usize) -> Result<(), String> {
    numasim_repro::run_config(id, config, dir, threads)
        .map(|_| ())
        .map_err(|e| error_chain(&e))
}

#[cfg(feature = "python")]
mod python {
    use super::{load_experiment, run_experiment, sweep, ConfigInput};
    use pyo3::create_exception;
    use pyo3::exceptions::PyException;
    use pyo3::prelude::*;
    use pyo3::types::PyBytes;
    use std::path::PathBuf;

    create_exception!(
        _native,
        NumasimError,
        PyException,
        "An error numasim reports (the CLI's message)."
    );

    fn err(msg: String) -> PyErr {
        NumasimError::new_err(msg)
    }

    /// Runs an experiment given as a path or as TOML text; returns the results directory.
    #[pyfunction]
    #[pyo3(signature = (path=None, text=None, base_dir=None, sets=Vec::new(), out=None, force=false, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        py: Python<'_>,
        path: Option<PathBuf>,
        text: Option<String>,
        base_dir: Option<PathBuf>,
        sets: Vec<String>,
        out: Option<PathBuf>,
        force: bool,
        threads: Option<usize>,
    ) -> PyResult<PathBuf> {
        let input = match (path, text) {
            (Some(p), None) => ConfigInput::Path(p),
            (None, Some(text)) => ConfigInput::Text { text, base_dir },
            _ => return Err(err("give exactly one of path and text".into())),
        };
        py.detach(move || {
            let exp = load_experiment(input, &sets)?;
            run_experiment(exp, out, force, threads)
        })
        .map_err(err)
    }

    /// The machine summary as JSON (what `numasim machine show --json` prints).
    #[pyfunction]
    fn machine_json(name_or_path: &str) -> PyResult<String> {
        super::machine_json(name_or_path).map_err(err)
    }

    #[pyfunction]
    #[pyo3(signature = (path, out=None, prepare=false))]
    fn sweep_plan(path: PathBuf, out: Option<PathBuf>, prepare: bool) -> PyResult<String> {
        super::sweep_plan(&path, out.as_deref(), prepare).map_err(err)
    }

    #[pyfunction]
    #[pyo3(signature = (path, index, out=None, threads=1))]
    fn sweep_run(py: Python<'_>, path: PathBuf, index: usize, out: Option<PathBuf>, threads: usize) -> PyResult<bool> {
        py.detach(move || super::sweep_run(&path, out.as_deref(), index, threads))
            .map_err(err)
    }

    /// `numasim sweep collect DIR` as CSV bytes.
    #[pyfunction]
    fn sweep_collect_csv<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyBytes>> {
        let csv = sweep::collect_csv(&dir).map_err(|e| err(e.to_string()))?;
        Ok(PyBytes::new(py, &csv))
    }

    /// Writes the collected CSV of `dir` to `out` (output policy); returns the row count.
    #[pyfunction]
    fn sweep_collect_write(py: Python<'_>, dir: PathBuf, out: PathBuf) -> PyResult<usize> {
        py.detach(move || super::sweep_collect_write(&dir, &out)).map_err(err)
    }

    /// Writes `data` (a table collected from `dir`) to `out` (output policy).
    #[pyfunction]
    fn write_collected_bytes(dir: PathBuf, out: PathBuf, data: &[u8]) -> PyResult<()> {
        super::write_collected_bytes(&dir, &out, data).map_err(err)
    }

    /// One step of a study run by an external executor; see `numasim.repro`.
    #[pyfunction]
    #[pyo3(signature = (study, out, quick=false, jobs=1, external=true, resume=true))]
    fn repro_step(
        py: Python<'_>,
        study: String,
        out: PathBuf,
        quick: bool,
        jobs: usize,
        external: bool,
        resume: bool,
    ) -> PyResult<String> {
        py.detach(move || super::repro_step(&study, &out, quick, jobs, external, resume))
            .map_err(err)
    }

    /// Runs one run a study listed as pending (on whichever worker the executor chose).
    #[pyfunction]
    #[pyo3(signature = (id, config, dir, threads=1))]
    fn repro_run(py: Python<'_>, id: String, config: PathBuf, dir: PathBuf, threads: usize) -> PyResult<()> {
        py.detach(move || super::repro_run(&id, &config, &dir, threads))
            .map_err(err)
    }

    #[pymodule]
    fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("NumasimError", m.py().get_type::<NumasimError>())?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add_function(wrap_pyfunction!(run, m)?)?;
        m.add_function(wrap_pyfunction!(machine_json, m)?)?;
        m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
        m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
        m.add_function(wrap_pyfunction!(sweep_collect_csv, m)?)?;
        m.add_function(wrap_pyfunction!(sweep_collect_write, m)?)?;
        m.add_function(wrap_pyfunction!(write_collected_bytes, m)?)?;
        m.add_function(wrap_pyfunction!(repro_step, m)?)?;
        m.add_function(wrap_pyfunction!(repro_run, m)?)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_configs_with_sets_load_and_errors_read_like_the_cli() {
        let text = "machine = \"starnuma16-pool\"\n[workload]\nkind = \"synthetic\"\nthreads = 2\n";
        let exp = load_experiment(
            ConfigInput::Text {
                text: text.into(),
                base_dir: None,
            },
            &["seed=11".into()],
        )
        .unwrap();
        assert_eq!(exp.spec.seed, 11);
        let e = load_experiment(
            ConfigInput::Text {
                text: text.into(),
                base_dir: None,
            },
            &["sed=11".into()],
        )
        .err()
        .unwrap();
        assert!(e.starts_with("--set sed=11: key `sed`: unknown field `sed`"), "{e}");
        let e = machine_json("no-such-machine").unwrap_err();
        assert!(e.contains("no-such-machine"), "{e}");
    }

    #[test]
    fn an_existing_directory_is_refused_without_force() {
        let d = tempfile::tempdir().unwrap();
        let text = "machine = \"starnuma16-pool\"\n[workload]\nkind = \"synthetic\"\nthreads = 2\n";
        let exp = load_experiment(
            ConfigInput::Text {
                text: text.into(),
                base_dir: None,
            },
            &[],
        )
        .unwrap();
        let e = run_experiment(exp, Some(d.path().to_path_buf()), false, None).unwrap_err();
        assert!(e.contains("already exists: pass --force"), "{e}");
    }
}
