//! `[migration]` in the experiment: policy and profiler by name, parameters beside them.
//!
//! Parameters are declared once per policy, per profiler and for the mechanism, as typed
//! structs (`numasim_config::declare_params!`); their tables ([`PolicyKind::params`],
//! [`ProfilerKind::params`], [`mechanism_params`]) drive validation here (an unknown or
//! misspelt key is an error naming the key, values are checked against the declared type and
//! range), defaults (the resolved experiment lists every parameter with its value) and
//! `numasim policy list` / `numasim params migration`. Keys live flat in `[migration]` because
//! the issue asks for "params beside it"; which keys are allowed depends on the chosen policy
//! and profiler. After validation each component reads its struct from the resolved table.

use crate::profile::ProfilerKind;
use numasim_config::{ConfigError, Source};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `[migration]` table as written (and, after [`resolve`], with every default filled in).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MigrationSpec {
    #[serde(default = "none_name")]
    pub policy: String,
    /// Profiler name; defaults to the policy's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler: Option<String>,
    #[serde(flatten)]
    pub params: BTreeMap<String, toml::Value>,
}

fn none_name() -> String {
    "none".into()
}

impl Default for MigrationSpec {
    fn default() -> Self {
        MigrationSpec {
            policy: none_name(),
            profiler: None,
            params: BTreeMap::new(),
        }
    }
}

pub use super::PolicyKind;
use numasim_config::param::ParamSet;
pub use numasim_config::param::{Check, ParamDef, ParamDefault};

/// What `numasim policy list` prints about a policy.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub paper: &'static str,
    pub default_profiler: &'static str,
    pub profilers: Vec<&'static str>,
    pub params: Vec<ParamDef>,
}

impl PolicyKind {
    /// Profilers this policy can read.
    pub fn profilers(self) -> &'static [ProfilerKind] {
        self.profiler_subset().unwrap_or(&ProfilerKind::ALL)
    }

    pub fn info(self) -> PolicyInfo {
        PolicyInfo {
            name: self.name(),
            summary: self.summary(),
            paper: self.paper(),
            default_profiler: self.default_profiler().name(),
            profilers: self.profilers().iter().map(|p| p.name()).collect(),
            params: self.params(),
        }
    }
}

/// Profiler parameters, as the profiler declares them.
pub fn profiler_params(kind: ProfilerKind) -> Vec<ParamDef> {
    kind.params()
}

/// Mechanism (cost) parameters, common to every policy but `none`.
pub fn mechanism_params() -> Vec<ParamDef> {
    super::mechanism::CostParams::defs()
}

/// Fully resolved migration settings.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub policy: PolicyKind,
    pub profiler: ProfilerKind,
    pub params: BTreeMap<String, toml::Value>,
}

impl Resolved {
    /// The pool capacity fraction the policy asks for (StarNUMA's policies).
    pub fn pool_capacity_fraction(&self) -> Option<f64> {
        self.policy.pool_capacity_fraction(&self.params)
    }
}

/// All parameters allowed for a (policy, profiler) pair.
pub fn allowed(policy: PolicyKind, profiler: ProfilerKind) -> Vec<ParamDef> {
    if policy.role() == super::Role::Off {
        return vec![];
    }
    let mut v = policy.params();
    v.extend(profiler_params(profiler));
    v.extend(mechanism_params());
    v
}

/// Validates `[migration]` and fills in every default. Errors name `migration.<key>`.
pub fn resolve(spec: &MigrationSpec, source: &Source) -> Result<Resolved, ConfigError> {
    let policy = PolicyKind::from_name(&spec.policy).ok_or_else(|| {
        let names: Vec<&str> = PolicyKind::ALL.iter().map(|p| p.name()).collect();
        source.error(
            "migration.policy",
            format!("unknown policy `{}`; known: {}", spec.policy, names.join(", ")),
        )
    })?;
    let profiler = match &spec.profiler {
        None => policy.default_profiler(),
        Some(name) => {
            let p = ProfilerKind::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = ProfilerKind::ALL.iter().map(|p| p.name()).collect();
                source.error(
                    "migration.profiler",
                    format!("unknown profiler `{name}`; known: {}", names.join(", ")),
                )
            })?;
            if !policy.profilers().contains(&p) {
                let names: Vec<&str> = policy.profilers().iter().map(|p| p.name()).collect();
                return Err(source.error(
                    "migration.profiler",
                    format!(
                        "policy `{}` cannot use profiler `{name}`; it takes: {}",
                        policy.name(),
                        names.join(", ")
                    ),
                ));
            }
            p
        }
    };
    let defs = allowed(policy, profiler);
    let mut params = BTreeMap::new();
    for (key, value) in &spec.params {
        let path = format!("migration.{key}");
        let Some(def) = defs.iter().find(|d| d.name == key) else {
            let names: Vec<&str> = defs.iter().map(|d| d.name).collect();
            return Err(source.error(
                path,
                format!(
                    "unknown parameter for policy `{}` with profiler `{}`; allowed: {}",
                    policy.name(),
                    profiler.name(),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        };
        if let Some(message) = def.refuse(value) {
            return Err(source.error(path, message));
        }
        let value = match (def.kind, value) {
            ("float", toml::Value::Integer(i)) => toml::Value::Float(*i as f64),
            _ => value.clone(),
        };
        params.insert(key.clone(), value);
    }
    for d in &defs {
        if let Some(v) = d.default.to_value() {
            params.entry(d.name.to_string()).or_insert(v);
        }
    }
    Ok(Resolved {
        policy,
        profiler,
        params,
    })
}

/// The spec with every default written out (for `experiment.resolved.toml`).
pub fn resolved_spec(r: &Resolved) -> MigrationSpec {
    MigrationSpec {
        policy: r.policy.name().to_string(),
        profiler: (r.policy.role() != super::Role::Off).then(|| r.profiler.name().to_string()),
        params: r.params.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Resolved, ConfigError> {
        let src = Source::from_text("t.toml", text);
        #[derive(Deserialize)]
        struct W {
            migration: MigrationSpec,
        }
        let w: W = src.parse()?;
        resolve(&w.migration, &src)
    }

    #[test]
    fn defaults_fill_and_unknown_keys_are_located_errors() {
        let r = parse("[migration]\npolicy = \"starnuma\"\n").unwrap();
        assert_eq!(r.profiler, ProfilerKind::TrackerT16);
        assert_eq!(r.params["hi_start"], toml::Value::Integer(20_000));
        assert_eq!(r.params["shootdown"], toml::Value::String("hardware".into()));
        let e = parse("[migration]\npolicy = \"tikir\"\nhi_start = 5\n").unwrap_err();
        assert_eq!(e.key, "migration.hi_start");
        assert_eq!(e.line, Some(3));
        let e =
            parse("[migration]\npolicy = \"tikir\"\nprofiler = \"interconnect\"\nsample_interval = 0\n").unwrap_err();
        assert_eq!(e.key, "migration.sample_interval");
        let e = parse("[migration]\npolicy = \"nope\"\n").unwrap_err();
        assert!(e.message.contains("starnuma"), "{}", e.message);
        let e = parse("[migration]\npolicy = \"oracle-static\"\nprofiler = \"atc\"\n").unwrap_err();
        assert_eq!(e.key, "migration.profiler");
        let e = parse("[migration]\npolicy = \"tikir\"\nshootdown = \"magic\"\n").unwrap_err();
        assert!(e.message.contains("software"));
        let r = parse("[migration]\n").unwrap();
        assert_eq!(r.policy, PolicyKind::None);
    }

    #[test]
    fn typed_structs_read_the_resolved_table() {
        use crate::migrate::mechanism::{CostParams, Shootdown};
        use crate::migrate::starnuma::StarnumaParams;
        let r = parse("[migration]\npolicy = \"starnuma\"\nhi_start = 7\nshootdown = \"software\"\n").unwrap();
        let p = StarnumaParams::from_table(&r.params);
        assert_eq!((p.hi_start, p.hi_max, p.common.region_bytes), (7, 400_000, 512 << 10));
        assert_eq!(CostParams::from_table(&r.params).shootdown, Shootdown::Software);
        assert_eq!(r.pool_capacity_fraction(), Some(0.2));
    }

    #[test]
    fn shootdown_words_parse_to_the_enum() {
        use crate::migrate::mechanism::Shootdown;
        assert_eq!(Shootdown::from_word("software"), Some(Shootdown::Software));
        assert_eq!(Shootdown::from_word("hardware"), Some(Shootdown::Hardware));
        assert_eq!(Shootdown::from_word("dedicated"), Some(Shootdown::Dedicated));
        assert_eq!(Shootdown::from_word("magic"), None);
    }
}
