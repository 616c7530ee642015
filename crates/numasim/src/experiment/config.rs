//! The experiment file: what to run, on what, with which policies.
//!
//! Strict like every numasim config (an unknown key is an error naming file, line and key).
//! Defaults fill whatever the file leaves out, and the fully resolved experiment is written
//! beside the results so a run can always be repeated exactly.

use numasim_config::{ConfigError, Source};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Current version of the experiment schema (bumped on incompatible changes).
pub const EXPERIMENT_SCHEMA_VERSION: u32 = 1;

pub use crate::driver::Mode;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Run name; defaults to the experiment file's stem.
    #[serde(default)]
    pub name: Option<String>,
    /// Preset name or path to a machine TOML (relative to the experiment file), alone or with
    /// overrides of the machine's keys (`[machine]` with `base = ...`).
    pub machine: MachineRef,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub mode: Mode,
    /// Phase length in instructions per thread; migration acts at phase boundaries.
    #[serde(default = "default_phase_instructions")]
    pub phase_instructions: u64,
    /// Timing mode only: phases in simulated time, ns, instead of `phase_instructions` (which
    /// must then be left out); see `check_phase_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_ns: Option<u64>,
    /// `run` (every access) or `roi`: from the workload's region of interest, its set-up run
    /// uncounted first (functional mode); see [`crate::driver::Measure`].
    #[serde(default, skip_serializing_if = "crate::driver::Measure::is_run")]
    pub measure: crate::driver::Measure,
    /// Stop after this many phases (the rest of the workload is not simulated).
    #[serde(default)]
    pub max_phases: Option<u64>,
    /// Interleaving granularity of threads, in instructions.
    #[serde(default = "default_quantum")]
    pub quantum_instructions: u64,
    /// `kind = "<generator>"` with its parameters, or `trace = ...` with `format`. One
    /// workload is one process; `[[process]]` lists several instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<toml::Table>,
    /// `[[process]]`: several programs sharing the machine (exclusive with `[workload]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub process: Vec<ProcessSpec>,
    #[serde(default)]
    pub placement: PlacementSpec,
    #[serde(default)]
    pub mapping: MappingSpec,
    #[serde(default)]
    pub llc: LlcSpec,
    /// `[migration]`: policy and profiler by name, their parameters beside them.
    #[serde(default)]
    pub migration: crate::migrate::MigrationSpec,
    /// `[timing]`: core, cache, link and DRAM parameters of timing mode (defaults in
    /// [`crate::timing::TimingSpec`]; every value is written to the resolved experiment).
    #[serde(default)]
    pub timing: crate::timing::TimingSpec,
    /// `[similarity]`: the paper's experiment this run is a scaled copy of (see
    /// [`crate::similarity`]); results.json then shows the paper's numbers beside the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<crate::similarity::Reference>,
}

/// The experiment's machine: `machine = "<preset or file>"`, or a `[machine]` table whose `base`
/// names it and whose other keys override the machine's keys (`link_types.cxl.latency_ns`,
/// `memory.pool.channels`) or are shortcuts (`pool_latency_ns`;
/// [`numasim_machine::overrides`]). `--set machine.<key>=V` and sweep axes over `machine.<key>`
/// write here, so the resolved experiment records them.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRef {
    /// Preset name or machine file path (relative to the experiment file).
    pub base: String,
    /// Overrides as written (nested tables of the machine's keys).
    pub set: toml::Table,
}

impl MachineRef {
    /// The overrides as dotted keys, in the table's order, each labelled as written
    /// (`machine.pool_latency_ns = 270`).
    pub fn overrides(&self) -> Vec<numasim_config::Override> {
        let mut out = Vec::new();
        fn leaves(prefix: &str, t: &toml::Table, out: &mut Vec<numasim_config::Override>) {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                match v {
                    toml::Value::Table(inner) => leaves(&key, inner, out),
                    _ => out.push(numasim_config::Override {
                        label: format!("machine.{key} = {v}"),
                        key,
                        value: v.clone(),
                    }),
                }
            }
        }
        leaves("", &self.set, &mut out);
        out
    }

    /// The key of the machine's name in the experiment (`machine`, or `machine.base`).
    pub fn base_key(&self) -> &'static str {
        if self.set.is_empty() {
            "machine"
        } else {
            "machine.base"
        }
    }
}

impl From<&str> for MachineRef {
    fn from(base: &str) -> Self {
        MachineRef {
            base: base.to_string(),
            set: toml::Table::new(),
        }
    }
}

impl Serialize for MachineRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.set.is_empty() {
            return s.serialize_str(&self.base);
        }
        let mut t = toml::Table::new();
        t.insert("base".into(), self.base.clone().into());
        t.extend(self.set.clone());
        t.serialize(s)
    }
}

impl<'de> Deserialize<'de> for MachineRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match toml::Value::deserialize(d)? {
            toml::Value::String(base) => Ok(MachineRef {
                base,
                set: toml::Table::new(),
            }),
            toml::Value::Table(mut set) => match set.remove("base") {
                Some(toml::Value::String(base)) => Ok(MachineRef { base, set }),
                _ => Err(D::Error::custom(
                    "a [machine] table needs `base = \"<preset or machine file>\"` beside its overrides",
                )),
            },
            other => Err(D::Error::custom(format!(
                "expected a preset name or machine file path, or a [machine] table; got {}",
                other.type_str()
            ))),
        }
    }
}

/// The experiment's text with `overrides` applied. An override of a machine key
/// (`machine.<key>`) turns `machine = "<name>"` into `machine = { base = "<name>" }` first, and
/// then `machine = V` sets `machine.base`, so the machine and its overrides can be set in any
/// order.
pub fn apply_overrides(source: &Source, overrides: &[numasim_config::Override]) -> Result<Source, ConfigError> {
    if !overrides.iter().any(|o| o.key.starts_with("machine.")) {
        return source.with_overrides(overrides);
    }
    let mut doc: toml_edit::DocumentMut = match source.text.parse() {
        Ok(d) => d,
        // The syntax error is reported, with its line, by applying the overrides.
        Err(_) => return source.with_overrides(overrides),
    };
    let as_table = match doc.get_mut("machine") {
        Some(item) => match item.as_value_mut() {
            Some(toml_edit::Value::String(name)) => {
                let decor = name.decor().clone();
                let mut t = toml_edit::InlineTable::new();
                t.insert("base", name.value().as_str().into());
                let mut v = toml_edit::Value::InlineTable(t);
                *v.decor_mut() = decor;
                *item = toml_edit::Item::Value(v);
                true
            }
            _ => item.is_table_like(),
        },
        None => false,
    };
    let mut converted = Source::from_text(source.origin.clone(), doc.to_string());
    converted.base_dir = source.base_dir.clone();
    let overrides: Vec<numasim_config::Override> = overrides
        .iter()
        .map(|o| {
            let mut o = o.clone();
            if as_table && o.key == "machine" {
                o.key = "machine.base".into();
            }
            o
        })
        .collect();
    converted.with_overrides(&overrides)
}

/// One program of a multi-process experiment (`[[process]]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessSpec {
    /// Name in results; default `<kind>.<n>` (the n-th process of that generator: `cg.0`,
    /// `cg.1`, as HyDM names its program instances) or `trace.<n>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The process's workload, as `[workload]` of a one-process experiment.
    pub workload: toml::Table,
    /// Instructions every thread of the process waits before its first one (a late start).
    #[serde(default)]
    pub start_instructions: u64,
    /// The process's own placement policy (default: the experiment's `[placement]`). Page size
    /// and capacities are the machine's, so only the policy and its nodes are per process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<ProcessPlacementSpec>,
    /// The process's own thread mapping (default: the experiment's `[mapping]` over all
    /// processes' threads in order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<MappingSpec>,
}

/// `[process.placement]`: a placement policy and its nodes (see [`PlacementSpec`]).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ProcessPlacementSpec {
    pub policy: PlacementPolicyName,
    pub nodes: Vec<String>,
    pub weights: Vec<u32>,
    pub node: Option<String>,
}

fn default_seed() -> u64 {
    1
}
fn default_phase_instructions() -> u64 {
    10_000_000
}
fn default_quantum() -> u64 {
    1_000
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementPolicyName {
    #[default]
    FirstTouch,
    Bind,
    Preferred,
    Interleave,
    WeightedInterleave,
    RoundRobin,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlacementSpec {
    pub policy: PlacementPolicyName,
    /// Node set for `bind` and `interleave` (memory-node names); `weighted-interleave` too.
    pub nodes: Vec<String>,
    /// Weights for `weighted-interleave`, one per entry of `nodes`.
    pub weights: Vec<u32>,
    /// Node for `preferred`.
    pub node: Option<String>,
    /// Page size: any power of two from 4 KiB to 1 GiB (4096, Talbot's 8192, 2 MiB, 1 GiB ...).
    pub page_bytes: u64,
    /// Node capacity as a fraction of the footprint touched so far (StarNUMA: pool = 0.2).
    pub capacity_fraction_of_footprint: BTreeMap<String, f64>,
    /// Node capacity overrides in bytes.
    pub capacity_bytes: BTreeMap<String, u64>,
    /// The order frames are handed out in on each node: `sequential` (touch order) or `random`
    /// (a seeded permutation over the device; see [`crate::mem::frames`]).
    pub frames: crate::mem::FrameOrder,
}

/// Smallest page (`placement.page_bytes`): x86's base page.
pub const MIN_PAGE_BYTES: u64 = 4096;
/// Largest page: x86's 1 GiB huge page. Per-line coherence state is kept for every line of a
/// touched page, so larger pages would cost memory for lines a workload never uses.
pub const MAX_PAGE_BYTES: u64 = 1 << 30;

impl Default for PlacementSpec {
    fn default() -> Self {
        PlacementSpec {
            policy: PlacementPolicyName::FirstTouch,
            nodes: Vec::new(),
            weights: Vec::new(),
            node: None,
            page_bytes: 4096,
            capacity_fraction_of_footprint: BTreeMap::new(),
            capacity_bytes: BTreeMap::new(),
            frames: crate::mem::FrameOrder::Sequential,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MappingPolicyName {
    #[default]
    Compact,
    Scatter,
    Explicit,
    /// Each thread on a core drawn at random (a seeded shuffle of the machine's cores; HyDM
    /// assigns programs to cores at random): its socket is that core's.
    Random,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MappingSpec {
    pub policy: MappingPolicyName,
    /// For `explicit`: the socket name of every thread, in thread order.
    pub sockets: Vec<String>,
    /// Lets more threads onto a socket than it has cores (experiment's `[mapping]` only). Each
    /// thread is still simulated as a core of its own, as hardware threads would be: no time
    /// sharing is modelled. Off: such a mapping is refused.
    #[serde(skip_serializing_if = "is_false")]
    pub oversubscribe: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlcSpec {
    /// Filter accesses through each socket's shared LLC (size and ways from the machine).
    pub enabled: bool,
}

impl Default for LlcSpec {
    fn default() -> Self {
        LlcSpec { enabled: true }
    }
}

/// Exactly one of `[workload]` and `[[process]]`.
fn check_workload_or_processes(spec: &ExperimentSpec, source: &Source) -> Result<(), ConfigError> {
    match (&spec.workload, spec.process.len()) {
        (Some(_), n) if n > 0 => Err(source.error(
            "process",
            "`[workload]` is one process; list every program as a `[[process]]` instead, not both",
        )),
        (None, 0) => Err(source.error(
            "workload",
            "needs a `[workload]` (one program) or `[[process]]` entries (several)",
        )),
        (None, n) if n > numasim_trace::processes::MAX_PROCESSES => Err(source.error(
            "process",
            format!("{n} processes; at most {} fit", numasim_trace::processes::MAX_PROCESSES),
        )),
        _ => Ok(()),
    }
}

/// An experiment with the source it came from (for located validation errors).
#[derive(Debug, Clone)]
pub struct Experiment {
    pub spec: ExperimentSpec,
    pub source: Source,
    pub name: String,
    /// `[migration]` validated, every default filled in.
    pub migration: crate::migrate::Resolved,
    /// Worker threads a run may use (`numasim run --threads`); not part of the experiment
    /// file because results never depend on it. With 2 or more, the workload is decoded (or
    /// generated) ahead on its own thread ([`numasim_trace::DecodeAhead`]). Default: all cores.
    pub worker_threads: usize,
}

/// Cores available to this process (1 if unknown).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Experiment {
    pub fn load(path: &std::path::Path) -> Result<Self, ConfigError> {
        Self::load_with_overrides(path, &[])
    }

    /// [`load`](Self::load) with dotted-key overrides applied to the file's text first
    /// (`numasim run --set`, sweep axes), so they are validated exactly like the file.
    pub fn load_with_overrides(
        path: &std::path::Path,
        overrides: &[numasim_config::Override],
    ) -> Result<Self, ConfigError> {
        let source = apply_overrides(&Source::from_file(path)?, overrides)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "experiment".into());
        Self::from_source(source, &stem)
    }

    fn check_process_names(&self) -> Result<(), ConfigError> {
        let names = self.process_names();
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() || n.contains(['/', '\\', ',']) {
                return Err(self.source.error(
                    format!("process[{i}].name"),
                    "must be a plain name (no slashes or commas)",
                ));
            }
            if let Some(j) = names[..i].iter().position(|m| m == n) {
                return Err(self.source.error(
                    format!("process[{i}].name"),
                    format!("`{n}` is already the name of process {j}; names must be unique"),
                ));
            }
        }
        Ok(())
    }

    pub fn from_source(source: Source, default_name: &str) -> Result<Self, ConfigError> {
        let mut spec: ExperimentSpec = source.parse()?;
        let migration = crate::migrate::params::resolve(&spec.migration, &source)?;
        spec.migration = crate::migrate::params::resolved_spec(&migration);
        if spec.phase_instructions == 0 {
            return Err(source.error("phase_instructions", "must be at least 1"));
        }
        if spec.max_phases == Some(0) {
            return Err(source.error("max_phases", "must be at least 1 (a run of no phases has no results)"));
        }
        if let Some(r) = &spec.similarity {
            if let Err((key, message)) = r.check() {
                return Err(source.error(format!("similarity.{key}"), message));
            }
        }
        if spec.quantum_instructions == 0 {
            return Err(source.error("quantum_instructions", "must be at least 1"));
        }
        let page = spec.placement.page_bytes;
        if !page.is_power_of_two() || !(MIN_PAGE_BYTES..=MAX_PAGE_BYTES).contains(&page) {
            return Err(source.error(
                "placement.page_bytes",
                format!(
                    "must be a power of two from 4096 (4 KiB) to 1073741824 (1 GiB), e.g. 8192 for Talbot & Kelly's 8 KiB pages; got {page}"
                ),
            ));
        }
        apply_machine_core(&mut spec, &source, &migration);
        if let Err((key, msg)) = spec.timing.validate() {
            return Err(source.error(format!("timing.{key}"), msg));
        }
        if let Some(sample) = spec.timing.sample_instructions {
            let warm = spec.timing.warmup_instructions.unwrap_or(0);
            if sample.saturating_add(warm) > spec.phase_instructions {
                return Err(source.error(
                    "timing.sample_instructions",
                    format!(
                        "warm-up + sample ({}) exceed phase_instructions ({}): the timed window must fit in a phase",
                        sample.saturating_add(warm),
                        spec.phase_instructions
                    ),
                ));
            }
        }
        check_workload_or_processes(&spec, &source)?;
        check_phase_ns(&spec, &migration, &source)?;
        if spec.measure == crate::driver::Measure::Roi && spec.mode != Mode::Functional {
            return Err(source.error(
                "measure",
                "measuring from the region of interest is functional mode only (`mode = \"functional\"`); use measure = \"run\" in timing mode",
            ));
        }
        let name = spec.name.clone().unwrap_or_else(|| default_name.to_string());
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(source.error("name", "must be a plain name (no slashes, not starting with '.')"));
        }
        let exp = Experiment {
            spec,
            source,
            name,
            migration,
            worker_threads: available_cores(),
        };
        exp.check_process_names()?;
        Ok(exp)
    }

    /// The experiment with every effective value written out, as TOML: the file's own keys,
    /// every `[timing]` parameter, and the generator's defaults for workload keys the file left
    /// out (those whose default is a value; an unset option such as a random source vertex stays
    /// unset). With an NPB `class`, the sizes the class resolved to are written instead of the
    /// keys' defaults, so the file reruns to the same results.
    pub fn resolved_toml(&self) -> String {
        let mut spec = self.spec.clone();
        if let Some(w) = spec.workload.as_mut() {
            fill_workload_defaults(w);
        }
        for p in &mut spec.process {
            fill_workload_defaults(&mut p.workload);
        }
        let text = toml::to_string_pretty(&spec).unwrap_or_else(|e| format!("# could not serialise: {e}\n"));
        if spec.phase_ns.is_some() {
            // Timed phases: the unused phase_instructions default is left out, so the resolved
            // file loads again (the two keys exclude each other).
            let unused = format!("phase_instructions = {}\n", spec.phase_instructions);
            return text.replacen(&unused, "", 1);
        }
        text
    }

    /// The experiment's workloads with the key each is configured at: `workload`, or
    /// `process[i].workload` for each process.
    pub fn workloads(&self) -> Vec<(String, &toml::Table)> {
        match &self.spec.workload {
            Some(w) => vec![("workload".to_string(), w)],
            None => self
                .spec
                .process
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("process[{i}].workload"), &p.workload))
                .collect(),
        }
    }

    /// Names of the processes (one workload: none), defaults filled in (`<kind>.<n>`).
    pub fn process_names(&self) -> Vec<String> {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        self.spec
            .process
            .iter()
            .map(|p| {
                let kind = p
                    .workload
                    .get("kind")
                    .and_then(toml::Value::as_str)
                    .unwrap_or("trace")
                    .to_string();
                let n = seen.entry(kind.clone()).or_insert(0);
                *n += 1;
                p.name.clone().unwrap_or_else(|| format!("{kind}.{}", *n - 1))
            })
            .collect()
    }
}

/// The machine's `[core]` fills the `[timing]` keys the experiment leaves out, so the
/// resolved experiment records the values the run used. A machine that does not load is
/// left alone here: resolving the run reports its error.
fn apply_machine_core(spec: &mut ExperimentSpec, source: &Source, migration: &crate::migrate::Resolved) {
    let probe = Experiment {
        spec: ExperimentSpec {
            timing: Default::default(),
            ..spec.clone()
        },
        source: source.clone(),
        name: String::new(),
        migration: migration.clone(),
        worker_threads: 1,
    };
    let Ok(machine) = super::resolve::machine(&probe) else {
        return;
    };
    if machine.core.is_empty() {
        return;
    }
    let written: toml::Table = source.parse().unwrap_or_default();
    let set = written.get("timing").and_then(toml::Value::as_table);
    spec.timing
        .with_machine_core(&machine.core, |k| set.is_some_and(|t| t.contains_key(k)));
}

/// Writes a generator's default for every parameter the table leaves out (those whose default
/// is a value; an unset option such as a random source vertex stays unset).
fn fill_workload_defaults(workload: &mut toml::Table) {
    let Some(kind) = workload.get("kind").and_then(toml::Value::as_str).map(str::to_string) else {
        return;
    };
    let Some(info) = numasim_workload::registry::list().into_iter().find(|g| g.name == kind) else {
        return;
    };
    // An NPB `class` first writes the sizes it resolved to: the keys' own defaults would
    // otherwise override the class on a rerun (npb/class.rs).
    let class_sizes = numasim_workload::npb::class::class_resolved_keys(&kind, workload);
    workload.extend(class_sizes.unwrap_or_default());
    for p in info.params {
        if workload.contains_key(p.name) {
            continue;
        }
        if let Some(v) = p.default.to_value() {
            workload.insert(p.name.to_string(), v);
        }
    }
}

/// `phase_ns` (phases in simulated time): timing mode only, at least 1 ns, and not with an
/// explicit `phase_instructions`, sampled timing (its windows are instruction counts within a
/// phase), or the first passes that replay phases on the functional engine (`perfect-next`'s
/// look-ahead; a static placement's first pass limited by `max_phases`), which has no clock to
/// end a phase on.
fn check_phase_ns(
    spec: &ExperimentSpec,
    migration: &crate::migrate::Resolved,
    source: &Source,
) -> Result<(), ConfigError> {
    let Some(phase_ns) = spec.phase_ns else {
        return Ok(());
    };
    let refuse = |message: &str| Err(source.error("phase_ns", message));
    if phase_ns == 0 {
        return refuse("must be at least 1");
    }
    if spec.mode != Mode::Timing {
        return refuse(
            "phases in simulated time need `mode = \"timing\"` (functional mode has no clock; use phase_instructions)",
        );
    }
    let explicit_instructions = source
        .text
        .parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("phase_instructions"));
    if explicit_instructions {
        return refuse("give either phase_ns or phase_instructions, not both");
    }
    if spec.timing.sample_instructions.is_some() {
        return refuse(
            "sampled timing (`timing.sample_instructions`) runs phases of instructions; leave out one of them",
        );
    }
    if migration.profiler.looks_ahead() {
        return refuse(&format!(
            "profiler `{}` learns its phases on the functional engine, which cannot end a phase in simulated time",
            migration.profiler.name()
        ));
    }
    if spec.max_phases.is_some() && matches!(migration.policy.role(), crate::migrate::Role::StaticOracle(_)) {
        return refuse("a static placement's first pass (functional) cannot stop at the same phase as a timed run; leave out max_phases");
    }
    Ok(())
}
