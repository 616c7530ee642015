//! From a parsed experiment to live parts: machine, access source, placement, thread mapping.
//!
//! All name lookups (memory nodes, sockets) happen here, once, so that a typo is reported with
//! the experiment's file, line and key before anything runs.

use super::config::{Experiment, MappingPolicyName, PlacementPolicyName};
use crate::driver::{Run, RunParts};
use crate::mem::{Capacity, Placement, PlacementPolicy, ThreadMapping};
use crate::stats::phase::AccessClasses;
use numasim_config::ConfigError;
use numasim_machine::Machine;
use numasim_trace::AccessSource;
use serde::Deserialize;
use std::path::PathBuf;

/// Trace formats `[workload] format = ...` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    Native,
    Starnuma,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceWorkload {
    trace: TracePaths,
    #[serde(default = "native")]
    format: TraceFormat,
}

fn native() -> TraceFormat {
    TraceFormat::Native
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TracePaths {
    One(String),
    Many(Vec<String>),
}

impl Experiment {
    /// Resolves the experiment once into a [`Run`]: machine, access source, thread mapping,
    /// placement and engine settings, every name checked (errors name file, line and key).
    pub fn resolve(&self) -> Result<Run, ConfigError> {
        let machine = machine(self)?;
        // Opening a generator builds its data (a graph, a matrix): the run's setup time.
        let opened = std::time::Instant::now();
        let (src, ranges) = source_with_processes(self)?;
        let open_s = opened.elapsed().as_secs_f64();
        let thread_sockets = thread_sockets(self, &machine, &ranges)?;
        let placement = placement(self, &machine)?;
        let spec = &self.spec;
        let parts = RunParts {
            name: self.name.clone(),
            seed: spec.seed,
            mode: spec.mode,
            functional: functional_config(self, &machine),
            timing: timing_config(self),
            machine,
            thread_sockets,
            placement,
            migration: self.migration.clone(),
            phase_instructions: spec.phase_instructions,
            measure: spec.measure,
            phase_ns: spec.phase_ns,
            max_phases: spec.max_phases,
            page_bytes: spec.placement.page_bytes,
            llc_enabled: spec.llc.enabled,
            origin: self.source.clone(),
            processes: self
                .process_names()
                .into_iter()
                .zip(ranges)
                .map(|(name, threads)| crate::driver::ProcessInfo { name, threads })
                .collect(),
            similarity: spec.similarity.clone(),
        };
        let exp = self.clone();
        Ok(Run::new(parts, src, Box::new(move || source(&exp))).with_first_open_s(open_s))
    }
}

/// Timing-engine settings of an experiment (`[timing]`, phase length, page size, LLC).
pub fn timing_config(exp: &Experiment) -> crate::timing::TimingConfig {
    let spec = &exp.spec;
    crate::timing::TimingConfig {
        spec: spec.timing.clone(),
        phase_instructions: spec.phase_instructions,
        page_bytes: spec.placement.page_bytes,
        llc: spec.llc.enabled,
    }
}

/// Loads the machine an experiment names (preset, or a path relative to the experiment), with
/// the experiment's machine overrides applied.
pub fn machine(exp: &Experiment) -> Result<Machine, ConfigError> {
    machine_and_source(exp).map(|(m, _)| m)
}

/// [`machine`], with the machine's overridden source: its
/// [`resolved_text`](numasim_machine::overrides::resolved_text) is the machine as simulated.
/// An error in an override names the experiment key that set it (`machine.<key>`, or the
/// `--set` or sweep axis that set that), with the machine's own key path when it differs.
pub fn machine_and_source(exp: &Experiment) -> Result<(Machine, numasim_config::Source), ConfigError> {
    let mref = &exp.spec.machine;
    let name = &mref.base;
    let target = if numasim_machine::presets::get(name).is_some() {
        name.clone()
    } else {
        let path = exp.source.resolve_path(name);
        if !path.exists() {
            let known: Vec<&str> = numasim_machine::presets::list().iter().map(|(n, _)| *n).collect();
            return Err(exp.source.error(
                mref.base_key(),
                format!(
                    "`{name}` is neither a preset ({}) nor an existing file ({}; a relative path is relative to the experiment file's folder)",
                    known.join(", "),
                    path.display()
                ),
            ));
        }
        path.to_string_lossy().into_owned()
    };
    let overrides = mref.overrides();
    let (m, source) = Machine::load_with_overrides(&target, &overrides).map_err(|e| {
        match overrides.iter().find(|o| o.label == e.file) {
            Some(o) => {
                let message = if e.key.is_empty() || e.key == o.key {
                    e.message
                } else {
                    format!("{} (machine key `{}`)", e.message, e.key)
                };
                exp.source.error(format!("machine.{}", o.key), message)
            }
            None => e,
        }
    })?;
    check_machine_fits(exp, &m)?;
    Ok((m, source))
}

/// Largest machine StarNUMA's migration policy supports: it keeps each region's sharer sockets
/// in a 128-bit mask.
pub const STARNUMA_MAX_SOCKETS: usize = 128;

/// Refuses combinations of machine and experiment that the simulator cannot represent, instead
/// of silently dropping sockets or dividing by zero later.
fn check_machine_fits(exp: &Experiment, m: &Machine) -> Result<(), ConfigError> {
    use crate::migrate::params::PolicyKind;
    if matches!(exp.migration.policy, PolicyKind::Starnuma | PolicyKind::StarnumaT0)
        && m.sockets.len() > STARNUMA_MAX_SOCKETS
    {
        return Err(exp.source.error(
            "migration.policy",
            format!(
                "the StarNUMA policy tracks sharers in a {STARNUMA_MAX_SOCKETS}-bit mask; machine `{}` has {} sockets",
                m.name,
                m.sockets.len()
            ),
        ));
    }
    if exp.migration.policy == PolicyKind::Hydm {
        check_hydm_fast_node(exp, m)?;
    }
    check_declared_threads(exp, m)?;
    let round_robin = std::iter::once(("placement.policy".to_string(), exp.spec.placement.policy)).chain(
        exp.spec.process.iter().enumerate().filter_map(|(i, p)| {
            p.placement
                .as_ref()
                .map(|pp| (format!("process[{i}].placement.policy"), pp.policy))
        }),
    );
    for (key, policy) in round_robin {
        if policy == PlacementPolicyName::RoundRobin && m.memory_nodes.iter().all(|n| n.attached_socket.is_none()) {
            return Err(exp.source.error(
                key,
                format!(
                    "round-robin spreads pages over socket-attached memory, and every memory node of machine `{}` is standalone; use `interleave` with `nodes`",
                    m.name
                ),
            ));
        }
    }
    Ok(())
}

/// HyDM's fast tier must exist: a misspelt `fast_node`, or a machine without an MCDRAM/HBM
/// node when none is named, would otherwise leave the policy with nothing to promote to.
fn check_hydm_fast_node(exp: &Experiment, m: &Machine) -> Result<(), ConfigError> {
    use numasim_config::param::ParamSet;
    let p = crate::migrate::hydm::HydmParams::from_table(&exp.migration.params);
    let names: Vec<&str> = m.memory_nodes.iter().map(|n| n.name.as_str()).collect();
    if p.fast_node.is_empty() {
        use numasim_machine::dram::MemoryKind;
        if !m
            .memory_nodes
            .iter()
            .any(|n| matches!(n.kind, MemoryKind::Mcdram | MemoryKind::Hbm))
        {
            return Err(exp.source.error(
                "migration.policy",
                format!(
                    "hydm promotes to a fast tier, and machine `{}` has no memory node of kind mcdram or hbm; name one with `fast_node` (nodes: {})",
                    m.name,
                    names.join(", ")
                ),
            ));
        }
    } else if !names.contains(&p.fast_node.as_str()) {
        return Err(exp.source.error(
            "migration.fast_node",
            format!(
                "machine `{}` has no memory node `{}`; nodes: {}",
                m.name,
                p.fast_node,
                names.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Files the experiment reads besides itself: its trace files (none for a generator) and its
/// machine file (none for a preset). Writers use this to refuse overwriting an input.
pub fn input_files(exp: &Experiment) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if numasim_machine::presets::get(&exp.spec.machine.base).is_none() {
        files.push(exp.source.resolve_path(&exp.spec.machine.base));
    }
    for (_, table) in exp.workloads() {
        if table.contains_key("trace") {
            if let Ok(tw) = toml::Value::Table(table.clone()).try_into::<TraceWorkload>() {
                match tw.trace {
                    TracePaths::One(p) => files.push(exp.source.resolve_path(&p)),
                    TracePaths::Many(ps) => files.extend(ps.iter().map(|p| exp.source.resolve_path(p))),
                }
            }
        }
    }
    files
}

/// Opens the workload: a generator by `kind`, or a trace file; with `exp.worker_threads` of 2
/// or more it runs ahead on its own thread ([`numasim_trace::DecodeAhead`]), which changes
/// when accesses are produced, never which (results are identical for every thread count).
pub fn source(exp: &Experiment) -> Result<Box<dyn AccessSource>, ConfigError> {
    source_with_processes(exp).map(|(s, _)| s)
}

/// An access source and the thread range of each of its processes.
pub type SourceAndProcesses = (Box<dyn AccessSource>, Vec<std::ops::Range<usize>>);

/// [`source`], with the combined thread range of every process (one range for a one-workload
/// experiment).
pub fn source_with_processes(exp: &Experiment) -> Result<SourceAndProcesses, ConfigError> {
    let (src, ranges) = open_source(exp)?;
    if exp.worker_threads < 2 {
        return Ok((src, ranges));
    }
    let ahead = numasim_trace::DecodeAhead::new(src)
        .map(|d| Box::new(d) as Box<dyn AccessSource>)
        .map_err(|e| exp.source.error("workload", e.to_string()))?;
    Ok((ahead, ranges))
}

fn open_source(exp: &Experiment) -> Result<SourceAndProcesses, ConfigError> {
    if exp.spec.process.is_empty() {
        let (key, table) = exp.workloads().remove(0);
        let src = open_workload(exp, &key, table)?;
        let n = src.threads();
        return Ok((src, std::iter::once(0..n).collect()));
    }
    let names = exp.process_names();
    let mut processes = Vec::with_capacity(names.len());
    for (((key, table), name), spec) in exp.workloads().into_iter().zip(names).zip(&exp.spec.process) {
        processes.push(numasim_trace::Process {
            name,
            source: open_workload(exp, &key, table)?,
            start_instructions: spec.start_instructions,
        });
    }
    let set = numasim_trace::ProcessSet::new(processes).map_err(|e| exp.source.error("process", e.to_string()))?;
    let ranges = set.thread_ranges();
    Ok((Box::new(set), ranges))
}

/// Opens one workload table configured at `key` (`workload` or `process[i].workload`).
fn open_workload(exp: &Experiment, key: &str, table: &toml::Table) -> Result<Box<dyn AccessSource>, ConfigError> {
    let mut table = table.clone();
    if table.contains_key("trace") {
        let tw: TraceWorkload = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| exp.source.error(key, e.message().trim().to_string()))?;
        let paths: Vec<PathBuf> = match tw.trace {
            TracePaths::One(p) => vec![exp.source.resolve_path(&p)],
            TracePaths::Many(ps) => ps.iter().map(|p| exp.source.resolve_path(p)).collect(),
        };
        let trace_key = format!("{key}.trace");
        let opened: Result<Box<dyn AccessSource>, _> = match tw.format {
            TraceFormat::Native => {
                if paths.len() != 1 {
                    return Err(exp.source.error(trace_key, "a native trace is one file"));
                }
                numasim_trace::native::NativeReader::open(&paths[0]).map(|r| Box::new(r) as Box<dyn AccessSource>)
            }
            TraceFormat::Starnuma => {
                numasim_trace::starnuma::StarnumaReader::open(&paths).map(|r| Box::new(r) as Box<dyn AccessSource>)
            }
        };
        let src = opened.map_err(|e| exp.source.error(trace_key.as_str(), e.to_string()))?;
        if src.threads() == 0 {
            return Err(exp
                .source
                .error(trace_key, "the trace has no threads, so a run would have no results"));
        }
        return Ok(src);
    }
    let kind = match table.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(_) => return Err(exp.source.error(format!("{key}.kind"), "must be a string")),
        None => {
            return Err(exp
                .source
                .error(key, "needs `kind = \"<generator>\"` or `trace = \"<path>\"`"))
        }
    };
    // The run's worker threads also build the workload's data (graphs); the accesses do not
    // depend on how many.
    let src = numasim_workload::build_with_threads(&kind, table, exp.spec.seed, exp.worker_threads).map_err(|e| {
        let k = if e.key.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{}", e.key)
        };
        exp.source.error(k, e.message)
    })?;
    if src.threads() == 0 {
        return Err(exp.source.error(format!("{key}.threads"), "must be at least 1"));
    }
    Ok(src)
}

fn memory_index(exp: &Experiment, m: &Machine, key: &str, name: &str) -> Result<usize, ConfigError> {
    m.memory_index(name).ok_or_else(|| {
        let known: Vec<&str> = m.memory_nodes.iter().map(|n| n.name.as_str()).collect();
        exp.source.error(
            key,
            format!(
                "no memory node `{name}` in machine `{}` (has: {})",
                m.name,
                known.join(", ")
            ),
        )
    })
}

/// One placement policy, configured at `key` (`placement` or `process[i].placement`).
fn placement_policy(
    exp: &Experiment,
    m: &Machine,
    key: &str,
    policy: PlacementPolicyName,
    node_names: &[String],
    weights: &[u32],
    node: Option<&str>,
) -> Result<PlacementPolicy, ConfigError> {
    let nodes_key = format!("{key}.nodes");
    let nodes = || -> Result<Vec<usize>, ConfigError> {
        if node_names.is_empty() {
            return Err(exp.source.error(nodes_key.as_str(), "needs a non-empty `nodes` list"));
        }
        node_names.iter().map(|n| memory_index(exp, m, &nodes_key, n)).collect()
    };
    Ok(match policy {
        PlacementPolicyName::FirstTouch => PlacementPolicy::FirstTouch,
        PlacementPolicyName::Bind => PlacementPolicy::Bind(nodes()?),
        PlacementPolicyName::Interleave => PlacementPolicy::Interleave(nodes()?),
        PlacementPolicyName::Preferred => {
            let node_key = format!("{key}.node");
            let name = node.ok_or_else(|| {
                exp.source
                    .error(node_key.as_str(), "`preferred` needs `node = \"<memory node>\"`")
            })?;
            PlacementPolicy::Preferred(memory_index(exp, m, &node_key, name)?)
        }
        PlacementPolicyName::WeightedInterleave => {
            let ns = nodes()?;
            if weights.len() != ns.len() || weights.iter().all(|&w| w == 0) {
                return Err(exp
                    .source
                    .error(format!("{key}.weights"), "needs one weight per node, not all zero"));
            }
            PlacementPolicy::WeightedInterleave(
                ns.into_iter()
                    .zip(weights.iter().copied())
                    .filter(|&(_, w)| w > 0)
                    .collect(),
            )
        }
        PlacementPolicyName::RoundRobin => {
            let attached: Vec<usize> = (0..m.memory_nodes.len())
                .filter(|&i| m.memory_nodes[i].attached_socket.is_some())
                .collect();
            PlacementPolicy::RoundRobin(attached)
        }
    })
}

/// Builds the placement state from `[placement]` (and each process's own policy).
pub fn placement(exp: &Experiment, m: &Machine) -> Result<Placement, ConfigError> {
    let p = &exp.spec.placement;
    let policy = placement_policy(exp, m, "placement", p.policy, &p.nodes, &p.weights, p.node.as_deref())?;
    let per_process = exp
        .spec
        .process
        .iter()
        .enumerate()
        .map(|(i, proc_)| match &proc_.placement {
            Some(pp) => placement_policy(
                exp,
                m,
                &format!("process[{i}].placement"),
                pp.policy,
                &pp.nodes,
                &pp.weights,
                pp.node.as_deref(),
            ),
            None => Ok(policy.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let page = p.page_bytes;
    let mut capacity: Vec<Capacity> = m
        .memory_nodes
        .iter()
        .map(|n| Capacity::Pages(n.capacity_bytes / page))
        .collect();
    for (name, &bytes) in &p.capacity_bytes {
        let i = memory_index(exp, m, &format!("placement.capacity_bytes.{name}"), name)?;
        capacity[i] = Capacity::Pages(bytes / page);
    }
    for (name, &f) in &p.capacity_fraction_of_footprint {
        let key = format!("placement.capacity_fraction_of_footprint.{name}");
        let i = memory_index(exp, m, &key, name)?;
        if !(0.0..=1.0).contains(&f) {
            return Err(exp.source.error(key, "must be within 0..=1"));
        }
        capacity[i] = Capacity::FractionOfFootprint(f);
    }
    // StarNUMA sizes its pool at a fraction of the footprint (20 %) unless the user set one.
    if let Some(f) = exp.migration.pool_capacity_fraction() {
        for (i, n) in m.memory_nodes.iter().enumerate() {
            let set = p.capacity_bytes.contains_key(&n.name) || p.capacity_fraction_of_footprint.contains_key(&n.name);
            if n.attached_socket.is_none() && !set {
                capacity[i] = Capacity::FractionOfFootprint(f);
            }
        }
    }
    let nearest = (0..m.sockets.len())
        .map(|s| m.nearest_memory_order(s).to_vec())
        .collect();
    // Frames number the device's pages, whatever the placement's capacity for this run.
    let device_pages: Vec<u64> = m.memory_nodes.iter().map(|n| n.capacity_bytes / page).collect();
    let frames = crate::mem::Frames::new(p.frames, &device_pages, exp.spec.seed);
    Ok(Placement::new(policy, capacity, nearest)
        .with_process_policies(per_process, page)
        .with_frames(frames))
}

/// Socket of every thread from `[mapping]` (over all processes' threads in order), then each
/// process's own `mapping` over its threads. `ranges`: the threads of every process (one range
/// for a one-workload experiment).
pub fn thread_sockets(
    exp: &Experiment,
    m: &Machine,
    ranges: &[std::ops::Range<usize>],
) -> Result<Vec<usize>, ConfigError> {
    let threads = ranges.last().map_or(0, |r| r.end);
    check_core_count(exp, m, ranges, threads)?;
    let mut sockets = map_threads(exp, m, "mapping", &exp.spec.mapping, threads, exp.spec.seed)?;
    for (i, (p, range)) in exp.spec.process.iter().zip(ranges).enumerate() {
        if let Some(spec) = &p.mapping {
            if spec.oversubscribe {
                return Err(exp.source.error(
                    format!("process[{i}].mapping.oversubscribe"),
                    "is the experiment's: set it in `[mapping]`",
                ));
            }
            let seed = exp.spec.seed.wrapping_add(i as u64 + 1);
            let own = map_threads(exp, m, &format!("process[{i}].mapping"), spec, range.len(), seed)?;
            sockets[range.clone()].copy_from_slice(&own);
        }
    }
    check_cores_per_socket(exp, m, ranges, &sockets)?;
    Ok(sockets)
}

/// The key to blame for threads on socket `s` (or on the machine, `None`): an explicit socket
/// list, else the thread count of the last process with a thread there.
fn thread_key(exp: &Experiment, ranges: &[std::ops::Range<usize>], sockets: Option<(&[usize], usize)>) -> String {
    let on = |r: &std::ops::Range<usize>| sockets.is_none_or(|(ts, s)| ts[r.clone()].contains(&s));
    let last = ranges.iter().rposition(on).unwrap_or(0);
    match exp.spec.process.get(last) {
        Some(p)
            if p.mapping
                .as_ref()
                .is_some_and(|m| m.policy == MappingPolicyName::Explicit) =>
        {
            format!("process[{last}].mapping.sockets")
        }
        _ if exp.spec.mapping.policy == MappingPolicyName::Explicit => "mapping.sockets".into(),
        _ => {
            let workloads = exp.workloads();
            let Some((key, table)) = workloads.get(last).or(workloads.last()) else {
                return "workload".into();
            };
            if table.contains_key("trace") {
                format!("{key}.trace")
            } else {
                format!("{key}.threads")
            }
        }
    }
}

const OVERSUBSCRIBE_HINT: &str = "each thread is simulated on a core of its own; use fewer threads or another mapping, or set `oversubscribe = true` in `[mapping]` to let threads share cores";

/// More threads than the machine has cores, unless `[mapping] oversubscribe = true`.
fn check_core_count(
    exp: &Experiment,
    m: &Machine,
    ranges: &[std::ops::Range<usize>],
    threads: usize,
) -> Result<(), ConfigError> {
    let cores: usize = m.sockets.iter().map(|s| s.cores as usize).sum();
    if exp.spec.mapping.oversubscribe || threads <= cores {
        return Ok(());
    }
    Err(exp.source.error(
        thread_key(exp, ranges, None),
        format!(
            "{threads} threads and machine `{}` has {cores} cores: {OVERSUBSCRIBE_HINT}",
            m.name
        ),
    ))
}

/// More threads mapped to a socket than it has cores, unless `[mapping] oversubscribe = true`.
fn check_cores_per_socket(
    exp: &Experiment,
    m: &Machine,
    ranges: &[std::ops::Range<usize>],
    sockets: &[usize],
) -> Result<(), ConfigError> {
    if exp.spec.mapping.oversubscribe {
        return Ok(());
    }
    let mut load = vec![0usize; m.sockets.len()];
    for &s in sockets {
        if let Some(n) = load.get_mut(s) {
            *n += 1;
        }
    }
    let Some(s) = (0..load.len()).find(|&s| load[s] > m.sockets[s].cores as usize) else {
        return Ok(());
    };
    Err(exp.source.error(
        thread_key(exp, ranges, Some((sockets, s))),
        format!(
            "the mapping puts {} threads on socket `{}` of machine `{}`, which has {} cores: {OVERSUBSCRIBE_HINT}",
            load[s], m.sockets[s].name, m.name, m.sockets[s].cores
        ),
    ))
}

/// [`thread_sockets`]' core checks at load time, from the thread counts the workloads declare
/// (`threads`, filled in from the generator's default); a trace's count is known once it is
/// opened, so an experiment with a trace is checked when it runs.
fn check_declared_threads(exp: &Experiment, m: &Machine) -> Result<(), ConfigError> {
    let mut ranges = Vec::new();
    let mut end = 0usize;
    for (_, table) in exp.workloads() {
        let Some(n) = table
            .get("threads")
            .and_then(toml::Value::as_integer)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|_| !table.contains_key("trace"))
        else {
            return Ok(());
        };
        end = end.saturating_add(n);
        ranges.push(end - n..end);
    }
    if exp.spec.mapping.oversubscribe {
        return Ok(());
    }
    thread_sockets(exp, m, &ranges).map(|_| ())
}

fn map_threads(
    exp: &Experiment,
    m: &Machine,
    key: &str,
    spec: &super::config::MappingSpec,
    threads: usize,
    seed: u64,
) -> Result<Vec<usize>, ConfigError> {
    let sockets_key = format!("{key}.sockets");
    if spec.policy != MappingPolicyName::Explicit && !spec.sockets.is_empty() {
        return Err(exp.source.error(
            sockets_key,
            "a socket list is for `policy = \"explicit\"`; remove it or set the policy",
        ));
    }
    let mapping = match spec.policy {
        MappingPolicyName::Compact => ThreadMapping::Compact,
        MappingPolicyName::Scatter => ThreadMapping::Scatter,
        MappingPolicyName::Random => ThreadMapping::Random {
            core_sockets: m
                .sockets
                .iter()
                .enumerate()
                .flat_map(|(i, s)| std::iter::repeat_n(i, s.cores as usize))
                .collect(),
            seed,
        },
        MappingPolicyName::Explicit => {
            if spec.sockets.len() != threads {
                return Err(exp.source.error(
                    sockets_key,
                    format!(
                        "lists {} sockets but the workload has {threads} threads",
                        spec.sockets.len()
                    ),
                ));
            }
            let list = spec
                .sockets
                .iter()
                .map(|n| {
                    m.socket_index(n).ok_or_else(|| {
                        exp.source
                            .error(sockets_key.as_str(), format!("no socket `{n}` in machine `{}`", m.name))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            ThreadMapping::Explicit(list)
        }
    };
    Ok(mapping.sockets(threads, m.sockets.len()))
}

/// Access classes of every (socket, memory node) pair, from the machine's routes.
pub fn access_classes(m: &Machine) -> AccessClasses {
    AccessClasses::of(m)
}

/// Whether a node is memory-only (not attached to a socket).
pub fn is_memory_only(m: &Machine, node: usize) -> bool {
    m.memory_nodes[node].attached_socket.is_none()
}

/// Functional-simulator settings of an experiment on `machine` (phase, quantum, LLC, page size).
pub fn functional_config(exp: &Experiment, machine: &Machine) -> crate::sim::FunctionalConfig {
    let spec = &exp.spec;
    crate::sim::FunctionalConfig {
        phase_instructions: spec.phase_instructions,
        quantum_instructions: spec.quantum_instructions,
        llc: spec.llc.enabled.then(|| {
            machine
                .sockets
                .iter()
                .map(|s| (s.llc_bytes, s.llc_ways as usize))
                .collect()
        }),
        page_bytes: spec.placement.page_bytes,
        observer_thread: exp.worker_threads >= 2,
    }
}

#[cfg(test)]
mod machine_override_tests {
    use super::*;
    use numasim_config::Override;

    const EXP: &str = "machine = \"starnuma16-pool\"\nseed = 3\nphase_instructions = 20000\nmax_phases = 1\n\
        [workload]\nkind = \"synthetic\"\nthreads = 4\npattern = \"uniform\"\naccesses_per_thread = 500\n";

    fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn load(text: &str, sets: &[&str]) -> Result<Experiment, ConfigError> {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "e.toml", text);
        let o: Vec<Override> = sets.iter().map(|s| Override::parse_set(s).unwrap()).collect();
        Experiment::load_with_overrides(&p, &o)
    }

    #[test]
    fn set_machine_keys_on_a_named_machine() {
        let exp = load(
            EXP,
            &["machine.link_types.cxl.latency_ns=95", "machine.memory.pool.channels=2"],
        )
        .unwrap();
        assert_eq!(exp.spec.machine.base, "starnuma16-pool");
        let m = machine(&exp).unwrap();
        let p = m.memory_index("pool").unwrap();
        assert_eq!(m.load_latency_ns(0, p), 270.0);
        assert_eq!(m.memory_nodes[p].channels, 2);
        // The resolved experiment records the overrides and reloads to the same machine.
        let resolved = exp.resolved_toml();
        assert!(
            resolved.contains("[machine]") && resolved.contains("base = \"starnuma16-pool\""),
            "{resolved}"
        );
        let again = load(&resolved, &[]).unwrap();
        assert_eq!(machine(&again).unwrap(), m);
        // `machine = NAME` after a machine key sets the base, keeping the overrides.
        let exp = load(EXP, &["machine.pool_latency_ns=300", "machine=starnuma16-pool-scaled"]).unwrap();
        assert_eq!(exp.spec.machine.base, "starnuma16-pool-scaled");
        let m = machine(&exp).unwrap();
        assert_eq!(m.load_latency_ns(0, m.memory_index("pool").unwrap()), 300.0);
    }

    #[test]
    fn a_machine_table_in_the_file_and_its_errors_name_file_line_and_key() {
        let text = EXP.replace(
            "machine = \"starnuma16-pool\"\n",
            "[machine]\nbase = \"starnuma16-pool\"\npool_latency_ns = 270\n",
        );
        // A table must come after the top-level keys.
        let text = format!(
            "{}\n{}",
            &text[text.find("seed").unwrap()..],
            &text[..text.find("seed").unwrap()]
        );
        let exp = load(&text, &[]).unwrap();
        let m = machine(&exp).unwrap();
        assert_eq!(m.load_latency_ns(5, m.memory_index("pool").unwrap()), 270.0);
        let bad = text.replace(
            "pool_latency_ns = 270",
            "pool_latency_ns = 270\nlink_types.cxl.latency_ns = -1",
        );
        let exp = load(&bad, &[]).unwrap();
        let e = machine(&exp).unwrap_err();
        assert!(e.file.ends_with("e.toml"), "{e}");
        assert_eq!(e.key, "machine.link_types.cxl.latency_ns", "{e}");
        let line = bad.lines().position(|l| l.starts_with("link_types.cxl")).unwrap() + 1;
        assert_eq!(e.line, Some(line), "{e}");
        assert!(e.message.contains("above 0"), "{e}");
        // A table without `base`.
        let e = load(&text.replace("base = \"starnuma16-pool\"\n", ""), &[]).unwrap_err();
        assert!(e.message.contains("needs `base"), "{e}");
    }

    #[test]
    fn invalid_set_machine_keys_name_the_set_and_the_key() {
        let exp = load(EXP, &["machine.link_types.cxl.latency_ns=-1"]).unwrap();
        let e = machine(&exp).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str(), e.line),
            (
                "--set machine.link_types.cxl.latency_ns=-1",
                "machine.link_types.cxl.latency_ns",
                None
            ),
            "{e}"
        );
        let exp = load(EXP, &["machine.memory.pool.chanels=2"]).unwrap();
        let e = machine(&exp).unwrap_err();
        assert_eq!(e.file, "--set machine.memory.pool.chanels=2", "{e}");
        assert!(
            e.message.contains("unknown field") && e.message.contains("memory[16].chanels"),
            "{e}"
        );
        let exp = load(EXP, &["machine.memory.nope.channels=2"]).unwrap();
        let e = machine(&exp).unwrap_err();
        assert!(e.message.contains("no entry named `nope`"), "{e}");
        let exp = load(EXP, &["machine=starnuma16-baseline", "machine.pool_latency_ns=300"]).unwrap();
        let e = machine(&exp).unwrap_err();
        assert_eq!(e.file, "--set machine.pool_latency_ns=300", "{e}");
        assert!(e.message.contains("no memory node of kind cxl-pool"), "{e}");
    }

    #[test]
    fn the_machine_as_simulated_is_written_beside_the_results() {
        let d = tempfile::tempdir().unwrap();
        let exp = load(EXP, &["machine.pool_latency_ns=250"]).unwrap();
        let (dir, _) = super::super::run(&exp, &d.path().join("out"), &mut |_| {}).unwrap();
        let text = std::fs::read_to_string(dir.join(super::super::run::MACHINE_RESOLVED)).unwrap();
        assert!(text.contains("#   machine.pool_latency_ns = 250"), "{text}");
        let m = Machine::from_text("resolved", &text).unwrap();
        assert_eq!(m.load_latency_ns(0, m.memory_index("pool").unwrap()), 250.0);
    }
}

#[cfg(test)]
mod core_count_tests {
    use super::*;
    use numasim_config::Source;

    /// 16 sockets of 4 cores: 64 cores.
    const EXP: &str = "machine = \"starnuma16-pool-scaled\"\nmode = \"timing\"\nseed = 1\nmax_phases = 1\n\
        [workload]\nkind = \"synthetic\"\npattern = \"uniform\"\naccesses_per_thread = 100\nthreads = THREADS\n";

    fn load(text: &str) -> Result<Experiment, ConfigError> {
        Experiment::from_source(Source::from_text("e.toml", text), "e")
    }

    #[test]
    fn more_threads_than_cores_are_refused_at_their_key_in_both_modes() {
        for mode in ["timing", "functional"] {
            let text = EXP
                .replace("THREADS", "65")
                .replace("\"timing\"", &format!("\"{mode}\""));
            let exp = load(&text).unwrap();
            let e = machine(&exp).unwrap_err();
            assert_eq!(
                (e.file.as_str(), e.line, e.key.as_str()),
                ("e.toml", Some(9), "workload.threads"),
                "{e}"
            );
            assert!(
                e.message.contains("65 threads") && e.message.contains("64 cores"),
                "{e}"
            );
            assert!(e.message.contains("oversubscribe = true"), "the switch is named: {e}");
        }
        // As many threads as cores is fine.
        let exp = load(&EXP.replace("THREADS", "64")).unwrap();
        let m = machine(&exp).unwrap();
        assert_eq!(
            thread_sockets(&exp, &m, std::slice::from_ref(&(0..64))).unwrap().len(),
            64
        );
    }

    #[test]
    fn a_mapping_that_crowds_one_socket_is_refused_at_the_socket_list() {
        let text = format!(
            "{}[mapping]\npolicy = \"explicit\"\nsockets = [\"s0\", \"s0\", \"s0\", \"s0\", \"s0\"]\n",
            EXP.replace("THREADS", "5")
        );
        let exp = load(&text).unwrap();
        let e = machine(&exp).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(12), "mapping.sockets"), "{e}");
        assert!(
            e.message.contains("5 threads on socket `s0`") && e.message.contains("4 cores"),
            "{e}"
        );
    }

    #[test]
    fn processes_are_counted_together_and_the_last_one_is_named() {
        let p = "[[process]]\nworkload = { kind = \"synthetic\", pattern = \"uniform\", accesses_per_thread = 100, threads = 40 }\n";
        let text = format!("machine = \"starnuma16-pool-scaled\"\nmode = \"timing\"\nmax_phases = 1\n{p}{p}");
        let e = machine(&load(&text).unwrap()).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (Some(7), "process[1].workload.threads"),
            "{e}"
        );
        assert!(e.message.contains("80 threads"), "{e}");
        // The switch belongs to the experiment's mapping, not a process's.
        let own = format!("{}mapping = {{ oversubscribe = true }}\n", text.replace("40", "4"));
        let e = machine(&load(&own).unwrap()).unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (Some(8), "process[1].mapping.oversubscribe"),
            "{e}"
        );
    }

    #[test]
    fn the_switch_lets_threads_share_cores_and_is_written_only_when_set() {
        let off = load(&EXP.replace("THREADS", "64")).unwrap();
        assert!(
            !off.resolved_toml().contains("oversubscribe"),
            "ids of existing runs stay"
        );
        let text = format!("{}[mapping]\noversubscribe = true\n", EXP.replace("THREADS", "65"));
        let exp = load(&text).unwrap();
        let m = machine(&exp).unwrap();
        let sockets = thread_sockets(&exp, &m, std::slice::from_ref(&(0..65))).unwrap();
        assert_eq!(sockets.len(), 65);
        assert!(exp.resolved_toml().contains("oversubscribe = true"));
        let run = exp.resolve().unwrap();
        assert_eq!(run.thread_sockets.len(), 65);
    }
}
