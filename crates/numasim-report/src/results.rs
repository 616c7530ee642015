//! The reader of results directories (`numasim run … -o DIR`).
//!
//! The reader has its own `Deserialize` types instead of reusing the writer's: the writer's
//! structs are `Serialize`-only and grow as the simulator does (timing, migration), and a report
//! must still open directories written by older or newer numasim versions. So unknown fields are
//! accepted (not `deny_unknown_fields`: this is output, not a config a human typed), fields added
//! after schema 1 are optional, and the parsed JSON is kept whole in [`Run::raw`] so views for
//! data that lands later ([`crate::migration`], [`crate::timing`]) can look for it there.
//! Malformed input is an error naming the file and the JSON path, never a panic.

use crate::error::ReportError;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Newest results.json layout this reader understands.
pub const SUPPORTED_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Deserialize)]
pub struct MachineBrief {
    pub name: String,
    pub sockets: Vec<String>,
    pub memory_nodes: Vec<String>,
}

/// Counters of a phase or of the whole run.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Summary {
    pub accesses: u64,
    #[serde(default)]
    pub reads: u64,
    #[serde(default)]
    pub writes: u64,
    #[serde(default)]
    pub instructions: u64,
    #[serde(default)]
    pub llc_hits: u64,
    #[serde(default)]
    pub llc_misses: u64,
    #[serde(default)]
    pub writebacks: u64,
    #[serde(default)]
    pub new_pages: u64,
    #[serde(default)]
    pub local_fraction: f64,
    #[serde(default)]
    pub llc_mpki: f64,
    /// Demand memory accesses by class: `local`, `remote_<h>hop`, `pool`, ...
    #[serde(default)]
    pub by_class: BTreeMap<String, u64>,
    #[serde(default)]
    pub by_node: BTreeMap<String, u64>,
    /// Messages per link, `[a_to_b, b_to_a]`.
    #[serde(default)]
    pub link_messages: BTreeMap<String, [u64; 2]>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SharingBuckets {
    pub one: f64,
    pub two_to_four: f64,
    pub five_to_eight: f64,
    pub more_than_eight: f64,
    #[serde(default)]
    pub all: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Sharing {
    /// Index = number of sharer sockets.
    pub pages_by_sharers: Vec<u64>,
    pub accesses_by_sharers: Vec<u64>,
    pub page_buckets: SharingBuckets,
    pub access_buckets: SharingBuckets,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Totals {
    #[serde(flatten)]
    pub summary: Summary,
    #[serde(default)]
    pub footprint_pages: u64,
    #[serde(default)]
    pub footprint_bytes: u64,
    #[serde(default)]
    pub phases: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Phase {
    pub index: u64,
    #[serde(flatten)]
    pub summary: Summary,
    #[serde(default)]
    pub sharing: Option<Sharing>,
    #[serde(default)]
    pub pages_per_node: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Perf {
    pub wall_s: f64,
    #[serde(default)]
    pub accesses_per_s: f64,
}

/// The typed part of results.json.
#[derive(Debug, Clone, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    #[serde(default)]
    pub numasim_version: Option<String>,
    pub name: String,
    pub seed: u64,
    #[serde(default)]
    pub mode: Option<String>,
    pub machine: MachineBrief,
    #[serde(default)]
    pub workload: Value,
    pub threads: u64,
    #[serde(default)]
    pub thread_sockets: Vec<String>,
    #[serde(default)]
    pub llc_enabled: Option<bool>,
    #[serde(default)]
    pub page_bytes: Option<u64>,
    pub totals: Totals,
    #[serde(default)]
    pub sharing: Option<Sharing>,
    #[serde(default)]
    pub pages_per_node: BTreeMap<String, u64>,
    #[serde(default)]
    pub phases: Vec<Phase>,
    #[serde(default)]
    pub perf: Option<Perf>,
    /// Multi-process runs: each process's share.
    #[serde(default)]
    pub processes: Vec<ProcessRow>,
}

/// One entry of results.json's `processes`.
#[derive(Debug, Clone, Deserialize)]
pub struct ProcessRow {
    pub name: String,
    #[serde(default)]
    pub threads: u64,
    #[serde(default)]
    pub accesses: u64,
    #[serde(default)]
    pub flops: u64,
    #[serde(default)]
    pub llc_misses: u64,
    #[serde(default)]
    pub footprint_pages: u64,
    #[serde(default)]
    pub pages_per_node: BTreeMap<String, u64>,
    #[serde(default)]
    pub finish_time_ns: Option<f64>,
    #[serde(default)]
    pub amat_ns: Option<f64>,
}

/// machine.json (`numasim_machine::MachineSummary`), the parts the report draws.
#[derive(Debug, Clone, Deserialize)]
pub struct MachineFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub sockets: Vec<String>,
    pub memory_nodes: Vec<MemoryNode>,
    #[serde(default)]
    pub switches: Vec<Switch>,
    #[serde(default)]
    pub links: Vec<Link>,
    /// Rows = sockets, columns = memory nodes.
    #[serde(default)]
    pub load_latency_ns: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemoryNode {
    pub name: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub capacity_bytes: u64,
    #[serde(default)]
    pub attached_socket: Option<String>,
    /// Peak bandwidth, GB/s (0 when machine.json predates it).
    #[serde(default)]
    pub peak_bandwidth_gbps: f64,
}

impl MemoryNode {
    /// A memory node not attached to any socket's own memory controller (e.g. a CXL pool).
    pub fn is_pool(&self) -> bool {
        self.kind.contains("pool") || (self.attached_socket.is_none() && !self.kind.is_empty())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Switch {
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Link {
    pub name: String,
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub link_type: Option<String>,
    #[serde(default)]
    pub bandwidth_gbps_ab: f64,
    #[serde(default)]
    pub bandwidth_gbps_ba: f64,
}

/// One results directory, read.
#[derive(Debug, Clone)]
pub struct Run {
    pub dir: PathBuf,
    /// Unique display label (the run name, disambiguated by directory if names repeat).
    pub label: String,
    pub results: Results,
    /// results.json as parsed, for fields the typed view does not (yet) know.
    pub raw: Value,
    /// machine.json, when present.
    pub machine: Option<MachineFile>,
    /// experiment.resolved.toml, when present.
    pub resolved_toml: Option<String>,
}

impl Run {
    /// Pool-kind memory node names, from machine.json.
    pub fn pool_nodes(&self) -> Vec<&MemoryNode> {
        self.machine
            .as_ref()
            .map(|m| m.memory_nodes.iter().filter(|n| n.is_pool()).collect())
            .unwrap_or_default()
    }
}

fn read_text(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses JSON text, then the typed view of it; errors carry the file and the JSON path.
fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<(T, Value), ReportError> {
    let raw: Value = serde_json::from_str(text).map_err(|e| ReportError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let typed = serde_path_to_error::deserialize(&raw).map_err(|e| {
        let json_path = e.path().to_string();
        ReportError::Schema {
            path: path.to_path_buf(),
            json_path,
            message: e.into_inner().to_string(),
        }
    })?;
    Ok((typed, raw))
}

/// Reads one results directory. results.json is required; machine.json and
/// experiment.resolved.toml are optional (their views are left out), but corrupt ones are errors.
pub fn load_run(dir: &Path) -> Result<Run, ReportError> {
    let results_path = dir.join("results.json");
    let (results, raw): (Results, Value) = parse_json(&results_path, &read_text(&results_path)?)?;
    if results.schema_version > SUPPORTED_SCHEMA_VERSION {
        return Err(ReportError::Version {
            path: results_path,
            found: results.schema_version,
            supported: SUPPORTED_SCHEMA_VERSION,
        });
    }
    let machine_path = dir.join("machine.json");
    let machine = if machine_path.exists() {
        Some(parse_json::<MachineFile>(&machine_path, &read_text(&machine_path)?)?.0)
    } else {
        None
    };
    let toml_path = dir.join("experiment.resolved.toml");
    let resolved_toml = if toml_path.exists() {
        Some(read_text(&toml_path)?)
    } else {
        None
    };
    Ok(Run {
        dir: dir.to_path_buf(),
        label: results.name.clone(),
        results,
        raw,
        machine,
        resolved_toml,
    })
}

/// Reads several results directories and gives each a unique label. A sweep's root (a
/// directory with `sweep.json`, or one holding results directories and no results of its own)
/// stands for its runs, in the sweep's order: its baseline first, so speedups are over it.
pub fn load_runs<P: AsRef<Path>>(dirs: &[P]) -> Result<Vec<Run>, ReportError> {
    let dirs: Vec<PathBuf> = dirs.iter().flat_map(|d| expand_sweep_root(d.as_ref())).collect();
    if dirs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    let mut runs: Vec<Run> = dirs.iter().map(|d| load_run(d)).collect::<Result<_, _>>()?;
    disambiguate_labels(&mut runs);
    Ok(runs)
}

/// The manifest a sweep writes at its root.
pub const SWEEP_MANIFEST: &str = "sweep.json";

/// `dir` itself, or the complete runs of the sweep rooted at `dir`: the manifest's `order`
/// first (baseline first), then other complete runs by name. A directory that is neither is
/// returned as is, so reading it reports what is missing.
pub fn expand_sweep_root(dir: &Path) -> Vec<PathBuf> {
    if dir.join("results.json").exists() {
        return vec![dir.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![dir.to_path_buf()];
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !n.contains(".partial-") && !n.contains(".old-"))
        .filter(|n| dir.join(n).join("results.json").is_file())
        .collect();
    if names.is_empty() {
        return vec![dir.to_path_buf()];
    }
    let order: Vec<String> = std::fs::read_to_string(dir.join(SWEEP_MANIFEST))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| {
            v["order"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
        })
        .unwrap_or_default();
    names.sort_by_key(|n| (order.iter().position(|o| o == n).unwrap_or(usize::MAX), n.clone()));
    names.into_iter().map(|n| dir.join(n)).collect()
}

fn disambiguate_labels(runs: &mut [Run]) {
    let count = |runs: &[Run], l: &str| runs.iter().filter(|r| r.label == l).count();
    for i in 0..runs.len() {
        if count(runs, &runs[i].label) > 1 {
            let base = runs[i]
                .dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            runs[i].label = format!("{} ({base})", runs[i].results.name);
        }
    }
    for i in 0..runs.len() {
        if count(runs, &runs[i].label) > 1 {
            runs[i].label = format!("{} #{}", runs[i].label, i + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"schema_version":1,"name":"t","seed":1,
        "machine":{"name":"m","sockets":["s0"],"memory_nodes":["m0"]},
        "threads":1,"totals":{"accesses":3,"by_class":{"local":3}}}"#;

    fn dir_with(results: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("results.json"), results).unwrap();
        d
    }

    #[test]
    fn minimal_results_load_and_unknown_fields_are_kept() {
        let text = MINIMAL.replace("\"threads\":1", "\"threads\":1,\"migration\":{\"policy\":\"x\"}");
        let d = dir_with(&text);
        let run = load_run(d.path()).unwrap();
        assert_eq!(run.results.totals.summary.by_class["local"], 3);
        assert_eq!(run.raw["migration"]["policy"], "x");
        assert!(run.machine.is_none());
    }

    #[test]
    fn missing_results_names_the_file() {
        let d = tempfile::tempdir().unwrap();
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("results.json") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn truncated_results_is_a_syntax_error_with_file() {
        let d = dir_with(&MINIMAL[..40]);
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("results.json") && e.contains("not valid JSON"), "{e}");
    }

    #[test]
    fn wrong_type_names_the_json_path() {
        let d = dir_with(&MINIMAL.replace("{\"local\":3}", "{\"local\":\"many\"}"));
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("results.json") && e.contains("totals"), "{e}");
        let d = dir_with(&MINIMAL.replace("\"seed\":1", "\"seed\":-1"));
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("at `seed`"), "{e}");
    }

    #[test]
    fn corrupt_machine_json_is_an_error_naming_it() {
        let d = dir_with(MINIMAL);
        std::fs::write(d.path().join("machine.json"), "{\"name\": 3}").unwrap();
        let e = load_run(d.path()).unwrap_err().to_string();
        assert!(e.contains("machine.json"), "{e}");
    }

    #[test]
    fn newer_schema_is_refused() {
        let d = dir_with(&MINIMAL.replace("\"schema_version\":1", "\"schema_version\":99"));
        assert!(matches!(
            load_run(d.path()),
            Err(ReportError::Version { found: 99, .. })
        ));
    }

    #[test]
    fn repeated_names_get_unique_labels() {
        let a = dir_with(MINIMAL);
        let b = dir_with(MINIMAL);
        let runs = load_runs(&[a.path(), b.path()]).unwrap();
        assert_ne!(runs[0].label, runs[1].label);
        assert!(matches!(load_runs::<&Path>(&[]), Err(ReportError::NoRuns)));
    }

    #[test]
    fn a_sweep_root_stands_for_its_runs_baseline_first() {
        let root = tempfile::tempdir().unwrap();
        for name in ["pool_latency_ns=180", "pool_latency_ns=270", "baseline"] {
            let d = root.path().join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(
                d.join("results.json"),
                MINIMAL.replace("\"name\":\"t\"", &format!("\"name\":\"{name}\"")),
            )
            .unwrap();
        }
        // A partial run and a file are not runs.
        std::fs::create_dir(root.path().join("baseline.partial-12")).unwrap();
        std::fs::write(
            root.path().join("sweep.json"),
            r#"{"order": ["baseline", "pool_latency_ns=180", "pool_latency_ns=270"]}"#,
        )
        .unwrap();
        let runs = load_runs(&[root.path()]).unwrap();
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["baseline", "pool_latency_ns=180", "pool_latency_ns=270"]);
        // Without a manifest: by name.
        std::fs::remove_file(root.path().join("sweep.json")).unwrap();
        let runs = load_runs(&[root.path()]).unwrap();
        assert_eq!(runs[0].label, "baseline");
        // An empty directory still reports its missing results.json.
        let empty = tempfile::tempdir().unwrap();
        let e = load_runs(&[empty.path()]).unwrap_err().to_string();
        assert!(e.contains("results.json"), "{e}");
    }
}
