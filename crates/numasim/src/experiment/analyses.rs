//! The analyses' inputs: a trace or experiment file loaded into a [`crate::driver::Run`].
//!
//! The analyses themselves (`crate::analyze`) take a resolved run; turning files into one is
//! the experiment layer's job, done here. Inputs: one experiment TOML, one native trace, or
//! StarNUMA per-thread files (read directly, thread numbers from their names).

use super::Experiment;
use crate::analyze::compare::{CompareOptions, Comparison};
use crate::analyze::sharing::{analyze_run, AnalyzeError, SharingAnalysis, SharingOptions, PHASE_INSTRUCTIONS};
use numasim_config::Source;
use std::path::{Path, PathBuf};

/// `numasim analyze sharing` on one native trace or experiment file (see
/// [`crate::analyze::sharing`]).
pub fn analyze_sharing(input: &Path, opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    analyze_sharing_inputs(&[input.to_path_buf()], opts)
}

/// `numasim analyze sharing` on one native trace, one experiment file, or StarNUMA per-thread
/// files.
pub fn analyze_sharing_inputs(inputs: &[PathBuf], opts: &SharingOptions) -> Result<SharingAnalysis, AnalyzeError> {
    let kind = input_kind(inputs)?;
    let mut exp = experiment_of(inputs, kind, opts)?;
    let trace_input = kind != InputKind::Experiment;
    if trace_input || opts.threads_per_socket.is_some() {
        // The analysis maps threads itself; the experiment's own mapping is not consulted.
        exp.spec.mapping = Default::default();
    }
    let mut run = exp.resolve()?;
    let label = inputs
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    analyze_run(&mut run, &label, trace_input, opts)
}

/// Analyses `a` and `b` (each a native trace, an experiment TOML or StarNUMA thread files'
/// first file) and compares them.
pub fn compare(a: &Path, b: &Path, opts: &CompareOptions) -> Result<Comparison, AnalyzeError> {
    if opts.threads_per_socket == 0 {
        return Err(AnalyzeError::Input("--threads-per-socket must be at least 1".into()));
    }
    let run = |input: &Path, llc: bool| {
        let o = SharingOptions {
            machine: Some(opts.machine.clone()),
            threads_per_socket: Some(opts.threads_per_socket),
            llc,
            quantum_instructions: Some(1),
        };
        analyze_sharing(input, &o)
    };
    let (a_all, a_llc) = (run(a, false)?, run(a, true)?);
    let (b_all, b_llc) = (run(b, false)?, run(b, true)?);
    let metrics = crate::analyze::compare::compare_analyses([&a_all, &a_llc], [&b_all, &b_llc]);
    Ok(Comparison {
        a: a.display().to_string(),
        b: b.display().to_string(),
        machine: a_all.machine.clone(),
        sockets: a_all.sockets,
        threads_per_socket: opts.threads_per_socket,
        threads_a: a_all.threads,
        threads_b: b_all.threads,
        metrics,
        analyses: [a_all, a_llc, b_all, b_llc],
    })
}

fn is_native_trace(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == numasim_trace::native::FILE_MAGIC)
        .unwrap_or(false)
}

/// What the inputs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    Experiment,
    Native,
    Starnuma,
}

/// One native trace; one StarNUMA thread file (named `memtrace_t<N>.out`/`mtrace_t<N>_<P>.out`)
/// or one experiment (any other name); several inputs are StarNUMA per-thread files.
fn input_kind(inputs: &[PathBuf]) -> Result<InputKind, AnalyzeError> {
    let Some(first) = inputs.first() else {
        return Err(AnalyzeError::Input("no input given".into()));
    };
    for p in inputs {
        if !p.exists() {
            return Err(AnalyzeError::Input(format!("{}: no such file", p.display())));
        }
    }
    if inputs.len() == 1 && is_native_trace(first) {
        return Ok(InputKind::Native);
    }
    if inputs.len() == 1 && numasim_trace::starnuma::thread_from_name(first).is_none() {
        return Ok(InputKind::Experiment);
    }
    if let Some(p) = inputs
        .iter()
        .find(|p| is_native_trace(p) || p.extension().is_some_and(|e| e == "toml"))
    {
        return Err(AnalyzeError::Input(format!(
            "{}: give one native trace or one experiment on its own (several inputs are StarNUMA thread files)",
            p.display()
        )));
    }
    Ok(InputKind::Starnuma)
}

/// The experiment to analyse: the file itself, or a one-line experiment around a trace.
fn experiment_of(inputs: &[PathBuf], kind: InputKind, opts: &SharingOptions) -> Result<Experiment, AnalyzeError> {
    let input = &inputs[0];
    let mut exp = if kind == InputKind::Experiment {
        let mut exp = Experiment::load(input)?;
        if let Some(m) = &opts.machine {
            exp.spec.machine = m.as_str().into();
        }
        exp
    } else {
        let machine = opts.machine.clone().ok_or_else(|| {
            AnalyzeError::Input(format!(
                "{}: a trace needs --machine (a preset name or machine file)",
                input.display()
            ))
        })?;
        let mut t = toml::Table::new();
        t.insert("machine".into(), machine.into());
        let mut w = toml::Table::new();
        let paths: Vec<toml::Value> = inputs
            .iter()
            .map(|p| toml::Value::from(p.to_string_lossy().into_owned()))
            .collect();
        if kind == InputKind::Native {
            w.insert("trace".into(), paths[0].clone());
        } else {
            w.insert("trace".into(), toml::Value::Array(paths));
            w.insert("format".into(), "starnuma".into());
        }
        t.insert("workload".into(), w.into());
        let text = toml::to_string(&t).map_err(|e| AnalyzeError::Input(e.to_string()))?;
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned());
        Experiment::from_source(
            Source::from_text(input.display().to_string(), text),
            &stem.unwrap_or_else(|| "trace".into()),
        )?
    };
    // First touch with the machine's own capacities, no migration.
    exp.spec.placement = Default::default();
    exp.spec.llc.enabled = opts.llc;
    exp.spec.phase_instructions = PHASE_INSTRUCTIONS;
    exp.spec.max_phases = None;
    if let Some(q) = opts.quantum_instructions {
        if q == 0 {
            return Err(AnalyzeError::Input("--quantum must be at least 1 instruction".into()));
        }
        exp.spec.quantum_instructions = q;
    }
    Ok(exp)
}
