//! Generators registered by name, each with documented parameters.

use numasim_trace::AccessSource;

use numasim_config::param::ParamDef;

/// What a generator models and where it comes from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GeneratorInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Which seed paper uses this workload.
    pub paper: &'static str,
    /// Its parameters, as declared (`numasim workload list`, `numasim params`).
    pub params: Vec<ParamDef>,
}

/// A bad workload parameter; `key` is the path inside the `[workload]` section.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{key}: {message}")]
pub struct WorkloadError {
    pub key: String,
    pub message: String,
}

struct Entry {
    info: fn() -> GeneratorInfo,
    build: fn(toml::Table, u64) -> Result<Box<dyn AccessSource>, WorkloadError>,
    /// Every key the generator accepts with the value its parameter struct(s) default to
    /// (serialised `Default`); the test below holds `info`'s documentation to it.
    defaults: fn() -> serde_json::Value,
}

/// The serialised `Default` of a generator's parameter struct.
pub fn defaults_of<T: serde::Serialize + Default>() -> serde_json::Value {
    serde_json::to_value(T::default()).unwrap_or_default()
}

/// The registry. Adding a generator = one line here plus its module.
#[rustfmt::skip]
const ENTRIES: &[Entry] = &[
    Entry { info: crate::synthetic::info, build: crate::synthetic::build, defaults: defaults_of::<crate::synthetic::SyntheticParams> },
    Entry { info: crate::graph::bfs::info, build: crate::graph::bfs::build, defaults: crate::graph::bfs::defaults },
    Entry { info: crate::graph::cc::info, build: crate::graph::cc::build, defaults: crate::graph::cc::defaults },
    Entry { info: crate::graph::sssp::info, build: crate::graph::sssp::build, defaults: crate::graph::sssp::defaults },
    Entry { info: crate::graph::tc::info, build: crate::graph::tc::build, defaults: crate::graph::tc::defaults },
    Entry { info: crate::graph::pr::info, build: crate::graph::pr::build, defaults: crate::graph::pr::defaults },
    Entry { info: crate::stream::info, build: crate::stream::build, defaults: defaults_of::<crate::stream::StreamParams> },
    Entry { info: crate::npb::cg::info, build: crate::npb::cg::build, defaults: defaults_of::<crate::npb::cg::CgParams> },
    Entry { info: crate::npb::is::info, build: crate::npb::is::build, defaults: defaults_of::<crate::npb::is::IsParams> },
    Entry { info: crate::npb::ep::info, build: crate::npb::ep::build, defaults: defaults_of::<crate::npb::ep::EpParams> },
    Entry { info: crate::npb::mg::info, build: crate::npb::mg::build, defaults: defaults_of::<crate::npb::mg::MgParams> },
    Entry { info: crate::npb::ft::info, build: crate::npb::ft::build, defaults: defaults_of::<crate::npb::ft::FtParams> },
    Entry { info: crate::npb::bt::info, build: crate::npb::bt::build, defaults: defaults_of::<crate::npb::bt::BtParams> },
    Entry { info: crate::npb::sp::info, build: crate::npb::sp::build, defaults: defaults_of::<crate::npb::sp::SpParams> },
    Entry { info: crate::npb::lu::info, build: crate::npb::lu::build, defaults: defaults_of::<crate::npb::lu::LuParams> },
    Entry { info: crate::splash::ge::info, build: crate::splash::ge::build, defaults: defaults_of::<crate::splash::ge::GeParams> },
    Entry { info: crate::splash::ocean::info, build: crate::splash::ocean::build, defaults: defaults_of::<crate::splash::ocean::OceanParams> },
    Entry { info: crate::splash::barnes::info, build: crate::splash::barnes::build, defaults: defaults_of::<crate::splash::barnes::BarnesParams> },
    Entry { info: crate::splash::fmm::info, build: crate::splash::fmm::build, defaults: defaults_of::<crate::splash::fmm::FmmParams> },
    Entry { info: crate::splash::fft::info, build: crate::splash::fft::build, defaults: defaults_of::<crate::splash::fft::FftParams> },
    Entry { info: crate::splash::water::info, build: crate::splash::water::build, defaults: defaults_of::<crate::splash::water::WaterParams> },
    Entry { info: crate::genomics::fmi::info, build: crate::genomics::fmi::build, defaults: defaults_of::<crate::genomics::fmi::FmiParams> },
    Entry { info: crate::genomics::poa::info, build: crate::genomics::poa::build, defaults: defaults_of::<crate::genomics::poa::PoaParams> },
    Entry { info: crate::kv::masstree::info, build: crate::kv::masstree::build, defaults: defaults_of::<crate::kv::masstree::MasstreeParams> },
    Entry { info: crate::oltp::tpcc::info, build: crate::oltp::tpcc::build, defaults: defaults_of::<crate::oltp::tpcc::TpccParams> },
    Entry { info: crate::lbm::info, build: crate::lbm::build, defaults: defaults_of::<crate::lbm::LbmParams> },
    Entry { info: crate::freqmine::info, build: crate::freqmine::build, defaults: defaults_of::<crate::freqmine::FreqmineParams> },
];

/// All generators, in registry order.
pub fn list() -> Vec<GeneratorInfo> {
    ENTRIES.iter().map(|e| (e.info)()).collect()
}

/// Every key generator `kind` accepts, with its default (its parameter struct's `Default`,
/// serialised; an unset option is `null`); `None` for an unknown kind.
pub fn defaults(kind: &str) -> Option<serde_json::Value> {
    ENTRIES.iter().find(|e| (e.info)().name == kind).map(|e| (e.defaults)())
}

/// Builds generator `kind` from its parameter table (the `[workload]` section without `kind`).
pub fn build(kind: &str, params: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    for e in ENTRIES {
        if (e.info)().name == kind {
            return (e.build)(params, seed);
        }
    }
    let names: Vec<&str> = ENTRIES.iter().map(|e| (e.info)().name).collect();
    Err(WorkloadError {
        key: "kind".into(),
        message: format!("unknown workload kind `{kind}`; known: {}", names.join(", ")),
    })
}

/// [`build`] with up to `threads` threads for building the workload's data before its first
/// access (graphs: see [`crate::parallel`]); the accesses are the same for every `threads`.
pub fn build_with_threads(
    kind: &str,
    params: toml::Table,
    seed: u64,
    threads: usize,
) -> Result<Box<dyn AccessSource>, WorkloadError> {
    crate::parallel::with_build_threads(threads, || build(kind, params, seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `workload list` (and `numasim params workload`, and the defaults
    /// `experiment.resolved.toml` writes) cannot drift from the parameter structs: every
    /// generator documents exactly the keys its struct(s) accept, and every documented default
    /// is the struct's `Default` (an unparseable default text such as `random` stands for an
    /// unset option).
    #[test]
    fn documented_parameters_are_the_structs_fields_and_defaults() {
        for e in ENTRIES {
            let info = (e.info)();
            let defaults = defaults(info.name).expect("registered");
            let fields = defaults
                .as_object()
                .unwrap_or_else(|| panic!("{}: defaults not a table", info.name));
            let documented: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            let mut sorted = documented.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), documented.len(), "{}: a key documented twice", info.name);
            let mut keys: Vec<&str> = fields.keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(sorted, keys, "{}: documented keys vs struct fields", info.name);
            for p in &info.params {
                let actual = &fields[p.name];
                let Some(doc) = p.default.to_value() else {
                    assert!(
                        actual.is_null(),
                        "{}.{}: default `{}` is not a value",
                        info.name,
                        p.name,
                        p.default_text()
                    );
                    continue;
                };
                let same = match (&doc, actual) {
                    (toml::Value::Integer(i), serde_json::Value::Number(n)) => n.as_f64() == Some(*i as f64),
                    (toml::Value::Float(f), serde_json::Value::Number(n)) => n.as_f64() == Some(*f),
                    (toml::Value::String(s), serde_json::Value::String(t)) => s == t,
                    (toml::Value::Boolean(b), serde_json::Value::Bool(c)) => b == c,
                    _ => false,
                };
                assert!(
                    same,
                    "{}.{}: documented default {} but the struct says {actual}",
                    info.name,
                    p.name,
                    p.default_text()
                );
            }
        }
    }
}
