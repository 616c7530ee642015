//! Parameter sweeps: one base experiment, axes of dotted-key values, one results directory per
//! point.
//!
//! A sweep file names a base experiment and the keys to vary:
//!
//! ```toml
//! base = "quickstart.toml"          # relative to the sweep file
//! [set]                             # fixed overrides for every run
//! max_phases = 4
//! [grid]                            # every combination (cartesian product)
//! migration.policy = ["none", "starnuma"]
//! workload.pattern = ["shared-hot", "zipf"]
//! [[zip]]                           # these lists vary together (equal lengths)
//! workload.threads = [16, 64]
//! phase_instructions = [100000, 400000]
//! [baseline]                        # one more run, the reference of speedups
//! machine = "starnuma16-baseline"
//! ```
//!
//! Every axis value becomes an [`Override`] of the base file, so a run is validated exactly like
//! `numasim run --set`, and the whole sweep is checked before anything runs: every point's
//! experiment, its machine with its overrides, and the files it reads. A run is named by its
//! axis values (`pool_latency_ns=270+policy=starnuma`: the last part of each key, the whole key
//! where two axes share it), its directory is `OUT/<name>`, and its `id` is a stable hash
//! (64-bit FNV-1a, hex) of its resolved experiment: a rerun skips a directory whose results are
//! complete and whose experiment has that hash, and reruns one whose experiment changed
//! ([`ResultsDir`](super::results_dir::ResultsDir) makes a directory appear only when every file
//! is written, so an interrupted sweep loses only the runs in flight). Executors (the CLI's
//! local one, the Python package's Ray and Slurm ones) only choose *where* `run_one` is called.
//!
//! Paths: `base` is relative to the sweep file and `out` to the working directory. A value of an
//! experiment key (`machine = "my-machine.toml"`, a trace path) is the experiment's, wherever it
//! is written (`[set]`, an axis, `[baseline]`, `--set`), so it is relative to the base
//! experiment's folder.

use super::config::Experiment;
use super::run::{run, Progress, RunError};
use numasim_config::{ConfigError, Override, Source};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The sweep file's schema (strict, like every numasim config).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepSpec {
    base: String,
    #[serde(default)]
    name: Option<String>,
    /// Results root (relative to the working directory); default `results/sweeps/<name>`.
    #[serde(default)]
    out: Option<String>,
    #[serde(default)]
    set: toml::Table,
    #[serde(default)]
    grid: toml::Table,
    #[serde(default)]
    zip: Vec<toml::Table>,
    /// Overrides (on top of `[set]`) of one more run, named `baseline`: the reference that
    /// reports take speedups over.
    #[serde(default)]
    baseline: Option<toml::Table>,
}

/// One point of a sweep, with its experiment (built on demand by [`Sweep::run`]).
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// The run's name, from its axis values (`pool_latency_ns=270`), or `baseline`: its
    /// directory under the sweep's root and its label in tables and reports.
    pub name: String,
    /// Hash of the resolved experiment (which holds the name).
    pub id: String,
    /// Swept key → value, in axis order.
    pub params: Vec<(String, toml::Value)>,
    pub experiment: Experiment,
}

/// An expanded, fully validated sweep. A run is kept as its point's index, a name suffix and
/// its hash (16 bytes); its experiment is rebuilt from the base file when asked for
/// ([`run`](Self::run)), so a sweep of a million points plans in bounded memory.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub name: String,
    pub file: PathBuf,
    pub out_dir: PathBuf,
    /// Swept keys: grid axes first, then each zip group's (sorted by key within a table).
    pub axes: Vec<String>,
    /// Index of the baseline run (`[baseline]`), the reference of speedups.
    pub baseline: Option<usize>,
    plan: SweepPlan,
    runs: Vec<Planned>,
}

/// A run of a sweep as kept: which point, its name's `#k` suffix (0: none), its hash.
#[derive(Debug, Clone, Copy)]
struct Planned {
    point: u32,
    suffix: u32,
    id: u64,
}

/// The point index of `[baseline]`.
const BASELINE_POINT: u32 = u32::MAX;

/// A sweep file read and its axes checked, its points not yet validated: [`expand`](Self::expand)
/// checks every point in order, streaming each run to a visitor.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    pub name: String,
    pub file: PathBuf,
    pub out_dir: PathBuf,
    pub axes: Vec<String>,
    base: Source,
    base_path: PathBuf,
    stem: String,
    fixed: Vec<Override>,
    groups: Vec<Vec<Axis>>,
    sizes: Vec<usize>,
    short: Vec<String>,
    baseline: Option<Vec<Override>>,
    total: usize,
}

/// Manifest written at the sweep's root, read by `sweep collect` for the swept keys.
pub const MANIFEST: &str = "sweep.json";

/// Stable 64-bit FNV-1a (unlike `std`'s hasher, fixed across Rust versions and platforms), as
/// 16 hex digits.
pub fn config_hash(text: &str) -> String {
    format!("{:016x}", hash64(text))
}

fn hash64(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Leaves of a (possibly nested) table as dotted keys: `migration.policy`, with the value.
fn leaves(prefix: &str, t: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(inner) => leaves(&key, inner, out),
            _ => out.push((key, v.clone())),
        }
    }
}

/// An axis: a key and its values; `label` says where it came from, for errors.
#[derive(Debug, Clone)]
struct Axis {
    key: String,
    values: Vec<toml::Value>,
    label: String,
}

fn axes_of(src: &Source, table_key: &str, t: &toml::Table) -> Result<Vec<Axis>, ConfigError> {
    let mut flat = Vec::new();
    leaves("", t, &mut flat);
    let mut axes = Vec::new();
    for (key, v) in flat {
        let full = format!("{table_key}.{key}");
        numasim_config::overrides::check_key(&key).map_err(|m| src.error(&full, m.to_string()))?;
        let toml::Value::Array(values) = v else {
            return Err(src.error(&full, "an axis is a list of values, e.g. [1, 2]"));
        };
        if values.is_empty() {
            return Err(src.error(&full, "an axis needs at least one value"));
        }
        axes.push(Axis {
            key,
            values,
            label: format!("{} [{table_key}]", src.origin),
        });
    }
    Ok(axes)
}

impl SweepPlan {
    /// Reads a sweep file and checks its axes. `out` overrides the file's root.
    pub fn open(path: &Path, out: Option<&Path>) -> Result<SweepPlan, ConfigError> {
        let src = Source::from_file(path)?;
        let spec: SweepSpec = src.parse()?;
        let name = spec.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(|| "sweep".into(), |s| s.to_string_lossy().into_owned())
        });
        let base_path = src.resolve_path(&spec.base);
        let base = Source::from_file(&base_path)?;
        let stem = base_path
            .file_stem()
            .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned());

        let mut fixed = Vec::new();
        leaves("", &spec.set, &mut fixed);
        let mut fixed_overrides = Vec::new();
        for (key, value) in fixed {
            numasim_config::overrides::check_key(&key).map_err(|m| src.error(format!("set.{key}"), m.to_string()))?;
            fixed_overrides.push(Override {
                label: format!("{} [set] {key} = {value}", src.origin),
                key,
                value,
            });
        }
        // Groups combined by cartesian product: each grid axis alone, each zip table together.
        let mut groups: Vec<Vec<Axis>> = axes_of(&src, "grid", &spec.grid)?
            .into_iter()
            .map(|a| vec![a])
            .collect();
        for (i, z) in spec.zip.iter().enumerate() {
            let axes = axes_of(&src, &format!("zip[{i}]"), z)?;
            if axes.is_empty() {
                continue;
            }
            let n = axes[0].values.len();
            if let Some(a) = axes.iter().find(|a| a.values.len() != n) {
                return Err(src.error(
                    format!("zip[{i}].{}", a.key),
                    format!(
                        "zipped lists must have equal lengths: `{}` has {n} values, `{}` has {}",
                        axes[0].key,
                        a.key,
                        a.values.len()
                    ),
                ));
            }
            groups.push(axes);
        }
        let axes: Vec<String> = groups.iter().flatten().map(|a| a.key.clone()).collect();
        if let Some(dup) = axes
            .iter()
            .enumerate()
            .find(|(i, k)| axes[..*i].contains(*k))
            .map(|(_, k)| k)
        {
            return Err(src.error("", format!("`{dup}` is swept twice")));
        }
        let sizes: Vec<usize> = groups.iter().map(|g| g[0].values.len()).collect();
        let total = sizes
            .iter()
            .try_fold(1usize, |a, &b| a.checked_mul(b))
            .filter(|&t| t <= MAX_RUNS)
            .ok_or_else(|| src.error("", format!("the sweep expands to more than {MAX_RUNS} runs")))?;
        let baseline = match &spec.baseline {
            Some(b) => {
                let mut flat = Vec::new();
                leaves("", b, &mut flat);
                let mut overrides = fixed_overrides.clone();
                for (key, value) in flat {
                    numasim_config::overrides::check_key(&key)
                        .map_err(|m| src.error(format!("baseline.{key}"), m.to_string()))?;
                    overrides.push(Override {
                        label: format!("{} [baseline] {key} = {value}", src.origin),
                        key,
                        value,
                    });
                }
                Some(overrides)
            }
            None => None,
        };
        let out_dir = match (out, &spec.out) {
            (Some(o), _) => o.to_path_buf(),
            (None, Some(o)) => PathBuf::from(o),
            (None, None) => PathBuf::from("results").join("sweeps").join(&name),
        };
        Ok(SweepPlan {
            short: short_names(&axes),
            name,
            file: path.to_path_buf(),
            out_dir,
            axes,
            base,
            base_path,
            stem,
            fixed: fixed_overrides,
            groups,
            sizes,
            baseline,
            total,
        })
    }

    /// Points in sweep order: the baseline's first, then the grid's (odometer over the groups,
    /// last group fastest).
    fn points(&self) -> impl Iterator<Item = u32> + '_ {
        self.baseline
            .iter()
            .map(|_| BASELINE_POINT)
            .chain((0..self.total).map(|n| n as u32))
    }

    /// A point's overrides, swept values and name (before any `#k` suffix).
    fn point(&self, p: u32) -> (Vec<Override>, Vec<(String, toml::Value)>, String) {
        if p == BASELINE_POINT {
            let overrides = self.baseline.clone().unwrap_or_default();
            return (overrides, Vec::new(), BASELINE.to_string());
        }
        let mut rest = p as usize;
        let mut pick = vec![0; self.groups.len()];
        for g in (0..self.groups.len()).rev() {
            pick[g] = rest % self.sizes[g];
            rest /= self.sizes[g];
        }
        let mut overrides = self.fixed.clone();
        let mut params = Vec::new();
        for (g, axes) in self.groups.iter().enumerate() {
            for a in axes {
                let v = a.values[pick[g]].clone();
                overrides.push(Override {
                    key: a.key.clone(),
                    value: v.clone(),
                    label: format!("{} {} = {v}", a.label, a.key),
                });
                params.push((a.key.clone(), v));
            }
        }
        let name = run_name(&self.short, &params, &self.name);
        (overrides, params, name)
    }

    /// Width of the longest run name (before any `#k` suffix), for aligned listings.
    pub fn name_width(&self) -> usize {
        self.points().map(|p| self.point(p).2.len()).max().unwrap_or(0)
    }

    /// Number of points, the baseline included (runs that resolve to the same experiment are
    /// one run, so a sweep may have fewer).
    pub fn points_len(&self) -> usize {
        self.total + usize::from(self.baseline.is_some())
    }

    /// A point's experiment, named `name`.
    fn experiment(&self, overrides: &[Override], name: &str) -> Result<Experiment, ConfigError> {
        let mut experiment =
            Experiment::from_source(super::config::apply_overrides(&self.base, overrides)?, &self.stem)?;
        experiment.spec.name = Some(name.to_string());
        experiment.name = name.to_string();
        Ok(experiment)
    }

    /// Validates every point in order (its experiment, workload keys, machine with overrides
    /// and input files) and hands each run to `visit` with its index as it is planned; only
    /// 16 bytes per run are kept.
    pub fn expand(self, visit: &mut dyn FnMut(usize, &SweepRun)) -> Result<Sweep, ConfigError> {
        let mut runs: Vec<Planned> = Vec::new();
        let mut seen: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        // Hashes of the names taken (a 64-bit collision only adds a `#k` suffix).
        let mut taken: std::collections::HashSet<u64> = std::collections::HashSet::new();
        let mut baseline = None;
        for p in self.points() {
            let (overrides, params, run_name) = self.point(p);
            let experiment =
                Experiment::from_source(super::config::apply_overrides(&self.base, &overrides)?, &self.stem)?;
            check_workload_keys(&experiment, &overrides)?;
            check_inputs(&experiment)?;
            // Two points that resolve to the same experiment (a key swept to its default, the
            // baseline equal to a point) are one run.
            let same = hash64(&experiment.resolved_toml());
            if let Some(&i) = seen.get(&same) {
                if p == BASELINE_POINT {
                    baseline = Some(i);
                }
                continue;
            }
            let (unique, suffix) = unique_name(&run_name, &taken);
            taken.insert(hash64(&unique));
            let mut experiment = experiment;
            experiment.spec.name = Some(unique.clone());
            experiment.name = unique.clone();
            let id = hash64(&experiment.resolved_toml());
            seen.insert(same, runs.len());
            if p == BASELINE_POINT {
                baseline = Some(runs.len());
            }
            visit(
                runs.len(),
                &SweepRun {
                    name: unique,
                    id: format!("{id:016x}"),
                    params,
                    experiment,
                },
            );
            runs.push(Planned { point: p, suffix, id });
        }
        Ok(Sweep {
            name: self.name.clone(),
            file: self.file.clone(),
            out_dir: self.out_dir.clone(),
            axes: self.axes.clone(),
            baseline,
            plan: self,
            runs,
        })
    }
}

/// Most points a sweep may expand to.
pub const MAX_RUNS: usize = 1_000_000;

impl Sweep {
    /// Reads a sweep file, expands it and validates every run. `out` overrides the file's root.
    pub fn load(path: &Path, out: Option<&Path>) -> Result<Sweep, ConfigError> {
        SweepPlan::open(path, out)?.expand(&mut |_, _| {})
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Run `i`'s name (its directory under the root).
    pub fn name_of(&self, i: usize) -> String {
        let r = self.runs[i];
        let name = self.plan.point(r.point).2;
        if r.suffix == 0 {
            name
        } else {
            format!("{name}#{}", r.suffix)
        }
    }

    /// Run `i`'s id: the hash of its resolved experiment.
    pub fn id_of(&self, i: usize) -> String {
        format!("{:016x}", self.runs[i].id)
    }

    /// Run `i`'s swept values, in axis order.
    pub fn params_of(&self, i: usize) -> Vec<(String, toml::Value)> {
        self.plan.point(self.runs[i].point).1
    }

    /// Run `i` with its experiment, rebuilt from the base file (checked when the sweep loaded).
    pub fn run(&self, i: usize) -> Result<SweepRun, ConfigError> {
        let r = self.runs[i];
        let (overrides, params, _) = self.plan.point(r.point);
        let name = self.name_of(i);
        let experiment = self.plan.experiment(&overrides, &name)?;
        Ok(SweepRun {
            name,
            id: self.id_of(i),
            params,
            experiment,
        })
    }

    /// What is on disk for run `i`.
    pub fn state(&self, i: usize) -> RunState {
        RunState::of(&self.run_dir(i), &self.id_of(i))
    }

    /// Directory of run `i`.
    pub fn run_dir(&self, i: usize) -> PathBuf {
        self.out_dir.join(self.name_of(i))
    }

    /// Whether run `i` has complete results of its experiment as it is now (its directory
    /// exists only once complete).
    pub fn is_complete(&self, i: usize) -> bool {
        self.state(i) == RunState::Done
    }

    /// The files the sweep reads: the sweep file, the base experiment and its inputs.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut files = vec![self.file.clone(), self.plan.base_path.clone()];
        if let Ok(r) = self.run(0) {
            files.extend(super::resolve::input_files(&r.experiment));
        }
        files
    }

    /// The results root, checked and created: a directory numasim manages
    /// ([`numasim_output::ManagedDir`]), so an existing directory of the user's (a sweep file's
    /// `out` can point anywhere) is refused before anything is written, and so is one holding
    /// the sweep's inputs.
    pub fn open_root(&self) -> std::io::Result<numasim_output::ManagedDir> {
        numasim_output::ManagedDir::open(&self.out_dir, "sweep root", &self.inputs(), &recognise_root)
    }

    /// Writes `sweep.json` at the root (merged with an existing one, so runs of earlier
    /// versions of the sweep stay described), through a temporary file renamed into place.
    pub fn write_manifest(&self) -> std::io::Result<()> {
        let root = self.open_root()?;
        let path = root.path().join(MANIFEST);
        let mut axes: Vec<String> = Vec::new();
        let mut runs: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        if let Ok(text) = std::fs::read_to_string(&path) {
            if let Ok(old) = serde_json::from_str::<serde_json::Value>(&text) {
                if let Some(a) = old["axes"].as_array() {
                    axes.extend(a.iter().filter_map(|v| v.as_str().map(String::from)));
                }
                if let Some(r) = old["runs"].as_object() {
                    runs.extend(r.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
        }
        for a in &self.axes {
            if !axes.contains(a) {
                axes.push(a.clone());
            }
        }
        for i in 0..self.len() {
            let params: serde_json::Map<String, serde_json::Value> = self
                .params_of(i)
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(serde_json::Value::Null)))
                .collect();
            runs.insert(self.name_of(i), serde_json::Value::Object(params));
        }
        // The sweep's own runs in sweep order (the baseline first): the order of reports.
        let order: Vec<String> = self
            .baseline
            .iter()
            .copied()
            .chain((0..self.len()).filter(|&i| Some(i) != self.baseline))
            .map(|i| self.name_of(i))
            .collect();
        let baseline = self.baseline.map(|b| self.name_of(b));
        let doc =
            serde_json::json!({ "name": self.name, "axes": axes, "baseline": baseline, "order": order, "runs": runs });
        let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)? + "\n";
        root.write_file(MANIFEST, text.as_bytes(), &self.inputs())?;
        Ok(())
    }

    /// Runs point `i` into its directory unless it is already complete; returns whether it ran.
    /// `worker_threads` is the run's own thread budget (results do not depend on it).
    pub fn run_one(
        &self,
        i: usize,
        worker_threads: usize,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<bool, RunError> {
        if self.is_complete(i) {
            return Ok(false);
        }
        // A directory of an earlier version of this point (the base experiment changed) is
        // replaced: `run` replaces only a directory numasim wrote.
        let mut exp = self.run(i)?.experiment;
        exp.worker_threads = worker_threads.max(1);
        run(&exp, &self.run_dir(i), progress)?;
        Ok(true)
    }

    /// [`run_one`](Self::run_one), also returning the run's
    /// [warnings](super::warnings::warnings) (none when it was already complete).
    pub fn run_one_warned(
        &self,
        i: usize,
        worker_threads: usize,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Vec<String>, RunError> {
        if self.is_complete(i) {
            return Ok(Vec::new());
        }
        let mut exp = self.run(i)?.experiment;
        exp.worker_threads = worker_threads.max(1);
        let (_, r) = run(&exp, &self.run_dir(i), progress)?;
        Ok(super::warnings::warnings(&exp, &r))
    }
}

/// Name of the `[baseline]` run.
pub const BASELINE: &str = "baseline";

/// What is on disk for a point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// No complete results.
    Pending,
    /// Complete results of this point's experiment.
    Done,
    /// Complete results of another experiment under this point's name (the base experiment
    /// or `[set]` changed since): the next run replaces them.
    Stale,
}

impl RunState {
    /// What is on disk in `dir` for the run whose id is `id`.
    pub fn of(dir: &Path, id: &str) -> RunState {
        if !dir.join("results.json").is_file() {
            return RunState::Pending;
        }
        match std::fs::read_to_string(dir.join("experiment.resolved.toml")) {
            Ok(text) if config_hash(&text) == id => RunState::Done,
            _ => RunState::Stale,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Pending => "pending",
            RunState::Done => "done",
            RunState::Stale => "stale",
        }
    }
}

/// Each axis's name in run names: the last part of its key, or the whole key where two axes
/// share a last part.
fn short_names(axes: &[String]) -> Vec<String> {
    let last = |k: &str| k.rsplit('.').next().unwrap_or(k).to_string();
    axes.iter()
        .map(|k| {
            let l = last(k);
            if axes.iter().filter(|o| last(o) == l).count() > 1 {
                k.clone()
            } else {
                l
            }
        })
        .collect()
}

/// A run's name from its axis values: `pool_latency_ns=270+policy=starnuma`, made safe as a
/// directory name; the sweep's name when it has no axes.
fn run_name(short: &[String], params: &[(String, toml::Value)], sweep_name: &str) -> String {
    if params.is_empty() {
        return sweep_name.to_string();
    }
    let parts: Vec<String> = short
        .iter()
        .zip(params)
        .map(|(k, (_, v))| {
            let v = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{k}={v}")
        })
        .collect();
    let name: String = parts
        .join("+")
        .chars()
        // Safe unquoted in shells, paths and CSV cells.
        .map(|c| {
            if c.is_alphanumeric() || "=._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    // Not hidden, and within a file name's 255 bytes.
    let name = name.trim_start_matches('.').to_string();
    let mut cut = name.len().min(200);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    if name.is_empty() {
        "run".into()
    } else {
        name[..cut].to_string()
    }
}

/// `name`, or `name#2`, `name#3` ... when an earlier run has it (two points whose values
/// read the same once made safe), with the suffix's number (0: none). `taken`: hashes of the
/// names taken.
fn unique_name(name: &str, taken: &std::collections::HashSet<u64>) -> (String, u32) {
    if !taken.contains(&hash64(name)) {
        return (name.to_string(), 0);
    }
    (2..)
        .map(|k| (format!("{name}#{k}"), k))
        .find(|(n, _)| !taken.contains(&hash64(n)))
        .expect("an unused suffix")
}

/// The files a point reads (trace files, its machine file with its overrides) exist and its
/// machine builds, so a dry run refuses what a run would.
fn check_inputs(exp: &Experiment) -> Result<(), ConfigError> {
    super::resolve::machine_and_source(exp)?;
    for (key, table) in exp.workloads() {
        let paths: Vec<&str> = match table.get("trace") {
            Some(toml::Value::String(p)) => vec![p.as_str()],
            Some(toml::Value::Array(a)) => a.iter().filter_map(toml::Value::as_str).collect(),
            _ => Vec::new(),
        };
        for p in paths {
            let path = exp.source.resolve_path(p);
            if !path.exists() {
                return Err(exp.source.error(
                    format!("{key}.trace"),
                    format!(
                        "no trace file {} (a relative path is relative to the experiment file's folder)",
                        path.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Recognises a sweep root written before roots carried a marker: a `sweep.json` that is a
/// manifest (`axes` and `runs`), and otherwise only run directories and numasim's hidden files.
fn recognise_root(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    if !(v["axes"].is_array() && v["runs"].is_object()) {
        return None;
    }
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if !(name == MANIFEST || name.starts_with('.') || is_dir) {
            return None;
        }
    }
    Some(vec![MANIFEST.to_string()])
}

/// Generator parameters are checked when the generator is built, at the start of a run; a
/// sweep checks the workload keys it sets against the generator's documented parameters up
/// front, so a misspelt axis is refused before hundreds of runs start, not in each of them.
fn check_workload_keys(exp: &Experiment, overrides: &[Override]) -> Result<(), ConfigError> {
    let Some(kind) = exp
        .spec
        .workload
        .as_ref()
        .and_then(|w| w.get("kind"))
        .and_then(toml::Value::as_str)
    else {
        return Ok(());
    };
    let Some(info) = numasim_workload::registry::list().into_iter().find(|g| g.name == kind) else {
        return Err(exp.source.error(
            "workload.kind",
            format!("unknown workload kind `{kind}` (numasim workload list)"),
        ));
    };
    for o in overrides {
        let Some(param) = o.key.strip_prefix("workload.") else {
            continue;
        };
        let top = param.split('.').next().unwrap_or(param);
        if top != "kind" && !info.params.iter().any(|p| p.name == top) {
            let known: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            return Err(exp.source.error(
                &o.key,
                format!(
                    "unknown parameter `{top}` of workload `{kind}` (has: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

mod collect;
pub use collect::{collect, collect_csv, collect_inputs, write_collected};

#[cfg(test)]
mod tests;
