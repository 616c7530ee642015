//! Running an experiment: resolve → simulate phase by phase → write the results directory.

use super::config::Experiment;
use super::results_dir::ResultsDir;
use numasim_machine::Machine;
use std::path::{Path, PathBuf};

pub use super::phases_csv::phases_csv;

pub use crate::driver::{
    MachineBrief, Perf, PhaseRecord, Progress, RunError, RunResults, SharingReport, Totals, RESULTS_SCHEMA_VERSION,
};

/// Simulates an experiment in memory: resolves it once into a [`crate::driver::Run`] and
/// drives the engine its mode names.
pub fn simulate(exp: &Experiment, progress: &mut dyn FnMut(&Progress)) -> Result<(Machine, RunResults), RunError> {
    let mut run = exp.resolve()?;
    let results = crate::driver::simulate(&mut run, progress)?;
    Ok((run.settings.machine, results))
}

/// The machine as simulated, beside the results (a machine file, overrides applied).
pub const MACHINE_RESOLVED: &str = "machine.resolved.toml";

/// Default results directory of an experiment: `results/<name>`.
pub fn default_out_dir(exp: &Experiment) -> PathBuf {
    PathBuf::from("results").join(&exp.name)
}

/// Runs an experiment and writes its results directory; returns the directory and results.
pub fn run(
    exp: &Experiment,
    out: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(PathBuf, RunResults), RunError> {
    let dir = ResultsDir::begin_with_inputs(out, &inputs(exp))?;
    let (machine, results) = simulate(exp, progress)?;
    dir.write("experiment.resolved.toml", exp.resolved_toml())?;
    dir.write("machine.json", machine.summary().to_json_pretty())?;
    // The machine as simulated, overrides applied: loads again as a machine file.
    let (_, machine_source) = super::resolve::machine_and_source(exp)?;
    dir.write(
        MACHINE_RESOLVED,
        numasim_machine::overrides::resolved_text(&machine_source),
    )?;
    let json = serde_json::to_string_pretty(&results).map_err(std::io::Error::other)?;
    dir.write("phases.csv", phases_csv(&results)?)?;
    dir.write("results.json", json + "\n")?;
    let path = dir.finish()?;
    Ok((path, results))
}

/// The files a run reads (experiment, machine file, traces): a results directory holding one of
/// them is never replaced.
fn inputs(exp: &Experiment) -> Vec<PathBuf> {
    let mut files = super::resolve::input_files(exp);
    let origin = PathBuf::from(&exp.source.origin);
    if origin.is_file() {
        files.push(origin);
    }
    files
}
