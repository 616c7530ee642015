//! Timing data (AMAT split into unloaded and contention parts, run time), read from results.json
//! when a run has it.
//!
//! Functional-mode runs have none of this and the AMAT and speedup views stay hidden. The reader
//! looks for the top-level `timing` object (`amat_ns.by_class`, `sim_time_ns`), else, in `totals`:
//! - `amat_by_class`: `{CLASS: {"unloaded_ns": f, "contention_ns": f, "accesses": n?}}`;
//! - `runtime_ns` (or `exec_time_ns`, `cycles`): the run's execution time, for speedups.

use crate::results::Run;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct ClassAmat {
    pub class: String,
    pub unloaded_ns: f64,
    pub contention_ns: f64,
    /// LLC-miss loads of the class the means are over (numasim's `count`), when given.
    pub count: Option<u64>,
    /// numasim marked the mean as over too few loads to be representative (`few_samples`).
    pub few_samples: bool,
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
                    unloaded_ns: x.get("unloaded")?.as_f64().filter(|f| f.is_finite())?,
                    contention_ns: x
                        .get("contention")
                        .and_then(Value::as_f64)
                        .filter(|f| f.is_finite())
                        .unwrap_or(0.0),
                    count: x.get("count").and_then(Value::as_u64),
                    few_samples: x.get("few_samples").and_then(Value::as_bool).unwrap_or(false),
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
                unloaded_ns: x.get("unloaded_ns")?.as_f64().filter(|f| f.is_finite())?,
                contention_ns: x
                    .get("contention_ns")
                    .and_then(Value::as_f64)
                    .filter(|f| f.is_finite())
                    .unwrap_or(0.0),
                count: x.get("accesses").and_then(Value::as_u64),
                few_samples: false,
            })
        })
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Each class's share of the run's AMAT-counted accesses, so that `Σ share × (unloaded +
/// contention)` is the AMAT: from the classes' own `count` when every class has one (timing
/// mode counts LLC-miss loads, including `block_transfer`, which `totals.by_class` lacks), else
/// from `totals.by_class`.
pub fn amat_weights(run: &Run, amat: &[ClassAmat]) -> Vec<f64> {
    let counts: Option<Vec<u64>> = amat.iter().map(|a| a.count).collect();
    let (counts, total) = match counts {
        Some(c) if c.iter().sum::<u64>() > 0 => {
            let t = c.iter().sum::<u64>();
            (c, t)
        }
        _ => {
            let by = &run.results.totals.summary.by_class;
            let c: Vec<u64> = amat.iter().map(|a| by.get(&a.class).copied().unwrap_or(0)).collect();
            (c, by.values().sum())
        }
    };
    counts
        .iter()
        .map(|&c| if total == 0 { 0.0 } else { c as f64 / total as f64 })
        .collect()
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

/// Speedup of every run with a run time over the first such run (the baseline), as
/// `(run index, speedup)`, and the geometric mean over the non-baseline runs. Runs without a run
/// time (functional mode) are left out. `None` unless at least two runs have one.
pub fn speedups(runs: &[Run]) -> Option<(Vec<(usize, f64)>, f64)> {
    let times: Vec<(usize, f64)> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| runtime(r).filter(|t| t.is_finite()).map(|t| (i, t)))
        .collect();
    if times.len() < 2 {
        return None;
    }
    let base = times[0].1;
    let s: Vec<(usize, f64)> = times.iter().map(|&(i, t)| (i, base / t)).collect();
    let geo = (s[1..].iter().map(|x| x.1.ln()).sum::<f64>() / (s.len() - 1) as f64).exp();
    Some((s, geo))
}

/// One phase's timing figures (`phases[i].timing`): IPC per socket and utilisations, fractions
/// 0–1 of the phase's duration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhaseTiming {
    pub index: u64,
    pub sim_time_ns: f64,
    /// Instructions per cycle, mean over the socket's cores.
    pub ipc_per_socket: BTreeMap<String, f64>,
    pub link_mean: Option<f64>,
    pub link_max: Option<f64>,
    /// The phase's busiest link directions (the others were less busy, not idle).
    pub link_busiest: BTreeMap<String, f64>,
    /// Per memory node: mean data-bus utilisation over its channels.
    pub channel_utilisation: BTreeMap<String, f64>,
}

fn finite_map(v: Option<&Value>) -> BTreeMap<String, f64> {
    v.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, x)| Some((k.clone(), x.as_f64().filter(|f| f.is_finite())?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Per-phase timing of a run, in phase order; `None` unless some phase has IPC or utilisation
/// figures (older timing results had only time and AMAT per phase).
pub fn phases(run: &Run) -> Option<Vec<PhaseTiming>> {
    let v: Vec<PhaseTiming> = run
        .raw
        .get("phases")?
        .as_array()?
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let t = p.get("timing")?;
            let link = t.get("link_utilisation");
            let num = |x: Option<&Value>| x.and_then(Value::as_f64).filter(|f| f.is_finite());
            Some(PhaseTiming {
                index: p.get("index").and_then(Value::as_u64).unwrap_or(i as u64),
                sim_time_ns: num(t.get("sim_time_ns")).unwrap_or(0.0),
                ipc_per_socket: finite_map(t.get("ipc_per_socket")),
                link_mean: num(link.and_then(|l| l.get("mean"))),
                link_max: num(link.and_then(|l| l.get("max"))),
                link_busiest: finite_map(link.and_then(|l| l.get("busiest"))),
                channel_utilisation: finite_map(t.get("channel_utilisation")),
            })
        })
        .collect();
    v.iter()
        .any(|p| !p.ipc_per_socket.is_empty() || !p.channel_utilisation.is_empty() || p.link_max.is_some())
        .then_some(v)
}
