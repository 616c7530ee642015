//! The analyses' inputs: a trace or experiment file loaded into a [`crate::driver::Run`].
//!
//! The analyses themselves (`crate::analyze`) take a resolved run; turning a file into one is
//! the experiment layer's job, done here.

use super::Experiment;
use crate::analyze::sharing::{analyze_run, AnalyzeError, SharingAnalysis, SharingOptions, PHASE_INSTRUCTIONS};
use numasim_config::Source;
use std::path::Path;

/// `numasim analyze sharing`: the sharing-degree analysis of a native trace or an experiment
/// file (see [`crate::analyze::sharing`]).
pub fn analyze_sharing(input: &Path, opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    let mut exp = experiment_of(input, opts)?;
    let trace_input = is_native_trace(input);
    if trace_input || opts.threads_per_socket.is_some() {
        // The analysis maps threads itself; the experiment's own mapping is not consulted.
        exp.spec.mapping = Default::default();
    }
    let mut run = exp.resolve()?;
    analyze_run(&mut run, &input.display().to_string(), trace_input, opts)
}

fn is_native_trace(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == numasim_trace::native::FILE_MAGIC)
        .unwrap_or(false)
}

/// The experiment to analyse: the file itself, or a one-line experiment around a native trace.
fn experiment_of(input: &Path, opts: &SharingOptions) -> Result<Experiment, AnalyzeError> {
    if !input.exists() {
        return Err(AnalyzeError::Input(format!("{}: no such file", input.display())));
    }
    let mut exp = if is_native_trace(input) {
        let machine = opts.machine.clone().ok_or_else(|| {
            AnalyzeError::Input(format!(
                "{}: a trace needs --machine (a preset name or machine file)",
                input.display()
            ))
        })?;
        let mut t = toml::Table::new();
        t.insert("machine".into(), machine.into());
        let mut w = toml::Table::new();
        w.insert("trace".into(), input.to_string_lossy().into_owned().into());
        t.insert("workload".into(), w.into());
        let text = toml::to_string(&t).map_err(|e| AnalyzeError::Input(e.to_string()))?;
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned());
        Experiment::from_source(
            Source::from_text(input.display().to_string(), text),
            &stem.unwrap_or_else(|| "trace".into()),
        )?
    } else {
        let mut exp = Experiment::load(input)?;
        if let Some(m) = &opts.machine {
            exp.spec.machine = m.clone();
        }
        exp
    };
    // First touch with the machine's own capacities, no migration.
    exp.spec.placement = Default::default();
    exp.spec.llc.enabled = opts.llc;
    exp.spec.phase_instructions = PHASE_INSTRUCTIONS;
    exp.spec.max_phases = None;
    Ok(exp)
}
