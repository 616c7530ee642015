//! Timing data (AMAT split into unloaded and contention parts, run time), read from results.json
//! when a run has it.
//!
//! Functional-mode runs have none of this and the AMAT and speedup views stay hidden. The reader
//! looks for the top-level `timing` object (`amat_ns.by_class`, `sim_time_ns`), else, in `totals`:
//! - `amat_by_class`: `{CLASS: {"unloaded_ns": f, "contention_ns": f, "accesses": n?}}`;
//! - `runtime_ns` (or `exec_time_ns`, `cycles`): the run's execution time, for speedups.

use crate::results::Run;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct ClassAmat {
    pub class: String,
    pub unloaded_ns: f64,
    pub contention_ns: f64,
}

pub fn amat_by_class(run: &Run) -> Option<Vec<ClassAmat>> {
    // numasim's layout: `timing.amat_ns.by_class[c].{unloaded, contention}` (ns); older drafts:
    // `totals.amat_by_class[c].{unloaded_ns, contention_ns}`.
    if let Some(obj) = run
        .raw
        .get("timing")
        .and_then(|t| t.get("amat_ns"))
        .and_then(|a| a.get("by_class"))
    {
        let v: Vec<ClassAmat> = obj
            .as_object()?
            .iter()
            .filter_map(|(class, x)| {
                Some(ClassAmat {
                    class: class.clone(),
                    unloaded_ns: x.get("unloaded")?.as_f64()?,
                    contention_ns: x.get("contention").and_then(Value::as_f64).unwrap_or(0.0),
                })
            })
            .collect();
        return (!v.is_empty()).then_some(v);
    }
    let obj = run.raw.get("totals")?.get("amat_by_class")?.as_object()?;
    let v: Vec<ClassAmat> = obj
        .iter()
        .filter_map(|(class, x)| {
            Some(ClassAmat {
                class: class.clone(),
                unloaded_ns: x.get("unloaded_ns")?.as_f64()?,
                contention_ns: x.get("contention_ns").and_then(Value::as_f64).unwrap_or(0.0),
            })
        })
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Execution time of the run (any unit, the same for every run of a comparison).
pub fn runtime(run: &Run) -> Option<f64> {
    if let Some(t) = run
        .raw
        .get("timing")
        .and_then(|t| t.get("sim_time_ns"))
        .and_then(Value::as_f64)
    {
        return (t > 0.0).then_some(t);
    }
    let t = run.raw.get("totals")?;
    ["runtime_ns", "exec_time_ns", "cycles"]
        .iter()
        .find_map(|k| t.get(*k).and_then(Value::as_f64))
        .filter(|x| *x > 0.0)
}

/// Speedup of every run over the first (baseline) run, and their geometric mean over the
/// non-baseline runs. `None` unless every run has a run time and there are at least two.
pub fn speedups(runs: &[Run]) -> Option<(Vec<f64>, f64)> {
    let times: Vec<f64> = runs.iter().map(runtime).collect::<Option<_>>()?;
    if times.len() < 2 {
        return None;
    }
    let s: Vec<f64> = times.iter().map(|t| times[0] / t).collect();
    let geo = (s[1..].iter().map(|x| x.ln()).sum::<f64>() / (s.len() - 1) as f64).exp();
    Some((s, geo))
}
