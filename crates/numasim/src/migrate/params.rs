//! `[migration]` in the experiment: policy and profiler by name, parameters beside them.
//!
//! Parameters are a closed, documented list per policy, per profiler and for the mechanism;
//! the same table drives validation (an unknown or misspelt key is an error naming the key),
//! defaults (the resolved experiment lists every parameter with its value) and
//! `numasim policy list`. Keys live flat in `[migration]` because the issue asks for
//! "params beside it"; which keys are allowed depends on the chosen policy and profiler.

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

/// A parameter default, which also fixes its type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamDefault {
    Int(i64),
    Float(f64),
    Str(&'static str),
}

impl ParamDefault {
    fn to_value(self) -> toml::Value {
        match self {
            ParamDefault::Int(i) => toml::Value::Integer(i),
            ParamDefault::Float(f) => toml::Value::Float(f),
            ParamDefault::Str(s) => toml::Value::String(s.to_string()),
        }
    }
    fn render(self) -> String {
        match self {
            ParamDefault::Int(i) => i.to_string(),
            ParamDefault::Float(f) => f.to_string(),
            ParamDefault::Str(s) => format!("\"{s}\""),
        }
    }
}

/// One documented parameter.
#[derive(Debug, Clone, Serialize)]
pub struct ParamDef {
    pub name: &'static str,
    pub default: ParamDefault,
    pub description: &'static str,
    /// Allowed range for numbers (inclusive), or allowed words for strings.
    #[serde(skip)]
    pub check: Check,
}

#[derive(Debug, Clone, Copy)]
pub enum Check {
    Range(f64, f64),
    Words(&'static [&'static str]),
}

impl ParamDef {
    /// Default as text (for tables).
    pub fn default_text(&self) -> String {
        self.default.render()
    }
}

const fn int(name: &'static str, d: i64, lo: f64, hi: f64, description: &'static str) -> ParamDef {
    ParamDef {
        name,
        default: ParamDefault::Int(d),
        description,
        check: Check::Range(lo, hi),
    }
}
const fn float(name: &'static str, d: f64, lo: f64, hi: f64, description: &'static str) -> ParamDef {
    ParamDef {
        name,
        default: ParamDefault::Float(d),
        description,
        check: Check::Range(lo, hi),
    }
}
const fn word(
    name: &'static str,
    d: &'static str,
    words: &'static [&'static str],
    description: &'static str,
) -> ParamDef {
    ParamDef {
        name,
        default: ParamDefault::Str(d),
        description,
        check: Check::Words(words),
    }
}

/// The closed set of policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    None,
    Starnuma,
    StarnumaT0,
    PerfectBaseline,
    Tikir,
    Hydm,
    Autonuma,
    OracleStatic,
}

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

const PAGE_PROFILERS: &[ProfilerKind] = &[
    ProfilerKind::Perfect,
    ProfilerKind::Full,
    ProfilerKind::TrackerT16,
    ProfilerKind::TrackerT0,
    ProfilerKind::Interconnect,
    ProfilerKind::CacheMiss,
    ProfilerKind::TlbMiss,
    ProfilerKind::TlbContent,
    ProfilerKind::Atc,
    ProfilerKind::HydmSampling,
    ProfilerKind::HintingFaults,
];

impl PolicyKind {
    pub const ALL: [PolicyKind; 8] = [
        PolicyKind::None,
        PolicyKind::Starnuma,
        PolicyKind::StarnumaT0,
        PolicyKind::PerfectBaseline,
        PolicyKind::Tikir,
        PolicyKind::Hydm,
        PolicyKind::Autonuma,
        PolicyKind::OracleStatic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::None => "none",
            PolicyKind::Starnuma => "starnuma",
            PolicyKind::StarnumaT0 => "starnuma-t0",
            PolicyKind::PerfectBaseline => "perfect-baseline",
            PolicyKind::Tikir => "tikir",
            PolicyKind::Hydm => "hydm",
            PolicyKind::Autonuma => "autonuma",
            PolicyKind::OracleStatic => "oracle-static",
        }
    }

    pub fn from_name(name: &str) -> Option<PolicyKind> {
        PolicyKind::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn default_profiler(self) -> ProfilerKind {
        match self {
            PolicyKind::Starnuma => ProfilerKind::TrackerT16,
            PolicyKind::StarnumaT0 => ProfilerKind::TrackerT0,
            PolicyKind::Hydm => ProfilerKind::HydmSampling,
            PolicyKind::Autonuma => ProfilerKind::HintingFaults,
            _ => ProfilerKind::Perfect,
        }
    }

    /// Profilers this policy can read.
    pub fn profilers(self) -> &'static [ProfilerKind] {
        match self {
            PolicyKind::None => &[ProfilerKind::Perfect],
            // Whole-run knowledge is the definition of the oracle.
            PolicyKind::OracleStatic => &[ProfilerKind::Perfect],
            _ => PAGE_PROFILERS,
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            PolicyKind::None => "no migration: pages stay where placement put them",
            PolicyKind::Starnuma => {
                "StarNUMA Algorithm 1 over regions: HI/LO thresholds, pool when >= pool_sharers sharers, \
                 ping-pong rule, victim eviction, per-phase limit"
            }
            PolicyKind::StarnumaT0 => {
                "StarNUMA with the T0 tracker: sharer bits only; regions touched by >= hi_sharers sockets go \
                 to the pool"
            }
            PolicyKind::PerfectBaseline => {
                "StarNUMA's baseline: each page to its most frequent accessor's local node (zero-cost knowledge)"
            }
            PolicyKind::Tikir => {
                "Tikir & Hollingsworth: each page to its most frequent accessor every interval, no threshold, \
                 freeze migrated pages"
            }
            PolicyKind::Hydm => {
                "HyDM on KNL flat: lowest predicted arithmetic intensity page group to the fast tier (MCDRAM), \
                 rollback when progress does not improve"
            }
            PolicyKind::Autonuma => {
                "AutoNUMA/TPP-like: migrate on two consecutive hinting faults from one socket; promote to the \
                 fast local tier, demote cold pages when full"
            }
            PolicyKind::OracleStatic => {
                "static placement at each page's best node by whole-run knowledge (two passes; upper bound of \
                 static placement)"
            }
        }
    }

    pub fn paper(self) -> &'static str {
        match self {
            PolicyKind::None => "-",
            PolicyKind::Starnuma | PolicyKind::StarnumaT0 => "starnuma-memory-pooling §III-D, §IV-C",
            PolicyKind::PerfectBaseline => "starnuma-memory-pooling §IV-C (baseline system migration)",
            PolicyKind::Tikir => "hardware-monitors-dynamic-page-migration §3, §5",
            PolicyKind::Hydm => "hydm-hybrid-memory-migration §III",
            PolicyKind::Autonuma => "Linux AutoNUMA / TPP (reference point)",
            PolicyKind::OracleStatic => "hardware-monitors-dynamic-page-migration §5.2.3; starnuma Fig. 9",
        }
    }

    /// Parameters of the policy itself.
    pub fn params(self) -> Vec<ParamDef> {
        match self {
            PolicyKind::None | PolicyKind::OracleStatic => vec![],
            PolicyKind::Starnuma | PolicyKind::StarnumaT0 => {
                let mut v = vec![
                    int(
                        "region_bytes",
                        512 << 10,
                        4096.0,
                        (1u64 << 40) as f64,
                        "tracker region size (bytes; a multiple of the page size)",
                    ),
                    int(
                        "migration_limit_pages",
                        262_144,
                        0.0,
                        1e12,
                        "per-phase limit of pages migrated (paper: 0..256K)",
                    ),
                    int(
                        "pool_sharers",
                        8,
                        1.0,
                        1e6,
                        "a region with at least this many sharers goes to the pool",
                    ),
                    float(
                        "pool_capacity_fraction",
                        0.2,
                        0.0,
                        1.0,
                        "pool capacity as a fraction of the footprint, unless [placement] sets one",
                    ),
                ];
                if self == PolicyKind::Starnuma {
                    v.extend([
                        int(
                            "hi_start",
                            20_000,
                            1.0,
                            1e15,
                            "initial HI threshold (region accesses per phase)",
                        ),
                        int(
                            "hi_min",
                            20_000,
                            1.0,
                            1e15,
                            "lowest HI threshold the adaptation may reach",
                        ),
                        int(
                            "hi_max",
                            400_000,
                            1.0,
                            1e15,
                            "highest HI threshold the adaptation may reach",
                        ),
                        int("lo_start", 1_000, 0.0, 1e15, "initial LO (victim) threshold"),
                        int(
                            "lo_max",
                            10_000,
                            0.0,
                            1e15,
                            "highest LO threshold the adaptation may reach",
                        ),
                    ]);
                } else {
                    v.extend([
                        int(
                            "hi_sharers",
                            16,
                            1.0,
                            1e6,
                            "T0: a region qualifies when touched by this many sockets",
                        ),
                        int(
                            "lo_sharers",
                            1,
                            0.0,
                            1e6,
                            "T0: a region with at most this many sharers may be evicted",
                        ),
                    ]);
                }
                v
            }
            PolicyKind::PerfectBaseline => vec![int(
                "migration_limit_pages",
                262_144,
                0.0,
                1e12,
                "per-phase limit of pages migrated; candidates with the most remote accesses first",
            )],
            PolicyKind::Tikir => vec![
                int(
                    "freeze_intervals",
                    3,
                    0.0,
                    1e6,
                    "intervals a migrated page stays frozen (paper: 3)",
                ),
                int(
                    "min_accesses",
                    0,
                    0.0,
                    1e12,
                    "minimum profiled accesses to consider a page (paper: none, 0)",
                ),
            ],
            PolicyKind::Hydm => vec![
                int(
                    "window",
                    5,
                    2.0,
                    1000.0,
                    "W: windows of history for the regression (paper: 5 or 10)",
                ),
                float(
                    "threshold",
                    0.9,
                    0.0,
                    1.0,
                    "t: fast-tier use above which no promotion happens (paper: 0.9)",
                ),
                int(
                    "group_bytes",
                    16 << 20,
                    4096.0,
                    (1u64 << 40) as f64,
                    "size of a page group (HyDM's unit, an application there)",
                ),
                int(
                    "groups_per_window",
                    1,
                    1.0,
                    1e9,
                    "groups promoted per window (paper: one application)",
                ),
                word(
                    "fast_node",
                    "",
                    &[],
                    "fast-tier memory node (default: the node of kind mcdram/hbm, else none)",
                ),
            ],
            PolicyKind::Autonuma => vec![
                int(
                    "max_moves_per_phase",
                    65_536,
                    0.0,
                    1e12,
                    "rate limit of promotions+moves per phase (pages)",
                ),
                float(
                    "demote_watermark",
                    0.95,
                    0.0,
                    1.0,
                    "demote cold pages when a fast node is fuller than this",
                ),
            ],
        }
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

/// Profiler parameters (used by sampling profilers).
pub fn profiler_params(kind: ProfilerKind) -> Vec<ParamDef> {
    let mut v = Vec::new();
    if kind.samples() {
        v.push(int(
            "sample_interval",
            kind.default_interval() as i64,
            1.0,
            (128u64 << 20) as f64,
            "record every N-th event (interconnect/cache-miss/TLB-miss events, translations, or memory accesses)",
        ));
    }
    if kind.uses_tlb() {
        v.push(int(
            "tlb_entries",
            64,
            1.0,
            65536.0,
            "entries of each socket's fully associative LRU TLB model",
        ));
    }
    if kind == ProfilerKind::HintingFaults {
        v.push(float(
            "scan_fraction",
            0.25,
            0.0,
            1.0,
            "share of pages poisoned at each boundary",
        ));
    }
    v
}

/// Mechanism (cost) parameters, common to every policy but `none`.
pub fn mechanism_params() -> Vec<ParamDef> {
    vec![
        word("shootdown", "hardware", super::mechanism::Shootdown::WORDS, "TLB shootdown: hardware-assisted (initiator only) or software IPIs"),
        int("shootdown_initiator_cycles", 3000, 0.0, 1e12, "cycles on the initiating core per page (StarNUMA: ~3K; timing mode stalls core 0)"),
        int("shootdown_handler_cycles", 5000, 0.0, 1e12, "software: IPI + handler cycles on every other core per page (timing mode stalls them)"),
        int("inflight_accesses_per_page", 64, 0.0, 1e12, "functional mode's copy speed proxy: the k-th moved page lands after k*N memory accesses of the next phase; accesses to it before then stall (timing mode books the real copy on links and DRAM instead)"),
        int("scan_cycles_per_entry", 5, 0.0, 1e12, "OS thread cycles per tracker entry / page scanned at a boundary (StarNUMA: 2..10)"),
    ]
}

/// Fully resolved migration settings.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub policy: PolicyKind,
    pub profiler: ProfilerKind,
    pub params: BTreeMap<String, toml::Value>,
}

/// Whether `name` is a parameter some policy, profiler or the mechanism declares.
fn declared(name: &str) -> bool {
    PolicyKind::ALL
        .iter()
        .any(|p| p.params().iter().any(|d| d.name == name))
        || ProfilerKind::ALL
            .iter()
            .any(|k| profiler_params(*k).iter().any(|d| d.name == name))
        || mechanism_params().iter().any(|d| d.name == name)
}

impl Resolved {
    /// A parameter that does not apply to the chosen policy and profiler reads as 0 / "". A
    /// name no table declares is a typo in the code: debug builds (and so every test) stop.
    pub fn int(&self, name: &str) -> u64 {
        debug_assert!(declared(name), "undeclared migration parameter `{name}`");
        match self.params.get(name) {
            Some(toml::Value::Integer(i)) => (*i).max(0) as u64,
            Some(toml::Value::Float(f)) => f.max(0.0) as u64,
            _ => 0,
        }
    }
    pub fn float(&self, name: &str) -> f64 {
        debug_assert!(declared(name), "undeclared migration parameter `{name}`");
        match self.params.get(name) {
            Some(toml::Value::Integer(i)) => *i as f64,
            Some(toml::Value::Float(f)) => *f,
            _ => 0.0,
        }
    }
    /// The pool capacity fraction a StarNUMA policy asks for.
    pub fn pool_capacity_fraction(&self) -> Option<f64> {
        matches!(self.policy, PolicyKind::Starnuma | PolicyKind::StarnumaT0)
            .then(|| self.float("pool_capacity_fraction"))
    }

    pub fn word(&self, name: &str) -> &str {
        debug_assert!(declared(name), "undeclared migration parameter `{name}`");
        match self.params.get(name) {
            Some(toml::Value::String(s)) => s,
            _ => "",
        }
    }
}

/// All parameters allowed for a (policy, profiler) pair.
pub fn allowed(policy: PolicyKind, profiler: ProfilerKind) -> Vec<ParamDef> {
    if policy == PolicyKind::None {
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
        let ok = match (def.default, value) {
            (ParamDefault::Int(_), toml::Value::Integer(i)) => in_range(def.check, *i as f64),
            (ParamDefault::Float(_), toml::Value::Float(f)) => in_range(def.check, *f),
            (ParamDefault::Float(_), toml::Value::Integer(i)) => in_range(def.check, *i as f64),
            (ParamDefault::Str(_), toml::Value::String(s)) => match def.check {
                Check::Words(words) => words.is_empty() || words.contains(&s.as_str()),
                Check::Range(..) => true,
            },
            _ => false,
        };
        if !ok {
            let want = match (def.default, def.check) {
                (ParamDefault::Str(_), Check::Words(w)) if !w.is_empty() => format!("one of {}", w.join(", ")),
                (ParamDefault::Str(_), _) => "a string".to_string(),
                (ParamDefault::Int(_), Check::Range(lo, hi)) => format!("an integer in {lo}..={hi}"),
                (_, Check::Range(lo, hi)) => format!("a number in {lo}..={hi}"),
                _ => "a valid value".to_string(),
            };
            return Err(source.error(path, format!("must be {want}")));
        }
        let value = match (def.default, value) {
            (ParamDefault::Float(_), toml::Value::Integer(i)) => toml::Value::Float(*i as f64),
            _ => value.clone(),
        };
        params.insert(key.clone(), value);
    }
    for d in &defs {
        params.entry(d.name.to_string()).or_insert_with(|| d.default.to_value());
    }
    Ok(Resolved {
        policy,
        profiler,
        params,
    })
}

fn in_range(check: Check, x: f64) -> bool {
    match check {
        Check::Range(lo, hi) => x >= lo && x <= hi,
        Check::Words(_) => true,
    }
}

/// The spec with every default written out (for `experiment.resolved.toml`).
pub fn resolved_spec(r: &Resolved) -> MigrationSpec {
    MigrationSpec {
        policy: r.policy.name().to_string(),
        profiler: (r.policy != PolicyKind::None).then(|| r.profiler.name().to_string()),
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
        assert_eq!(r.int("hi_start"), 20_000);
        assert_eq!(r.word("shootdown"), "hardware");
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
    #[cfg(debug_assertions)]
    #[should_panic(expected = "undeclared migration parameter `hi_strat`")]
    fn a_misspelt_parameter_name_in_code_stops_debug_builds() {
        let r = parse("[migration]\npolicy = \"starnuma\"\n").unwrap();
        assert_eq!(r.int("hi_start"), 20_000);
        r.int("hi_strat");
    }

    #[test]
    fn shootdown_words_parse_to_the_enum() {
        use crate::migrate::mechanism::Shootdown;
        assert_eq!(Shootdown::from_word("software"), Some(Shootdown::Software));
        assert_eq!(Shootdown::from_word("hardware"), Some(Shootdown::Hardware));
        assert_eq!(Shootdown::from_word("magic"), None);
    }
}
