//! Generators registered by name, each with documented parameters.

use numasim_trace::AccessSource;

/// A parameter of a generator, for `numasim workload list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamDoc {
    pub name: &'static str,
    pub default: String,
    pub description: &'static str,
}

/// What a generator models and where it comes from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GeneratorInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Which seed paper uses this workload.
    pub paper: &'static str,
    pub params: Vec<ParamDoc>,
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
}

/// The registry. Adding a generator = one line here plus its module.
#[rustfmt::skip]
const ENTRIES: &[Entry] = &[
    Entry { info: crate::synthetic::info, build: crate::synthetic::build },
    Entry { info: crate::graph::bfs::info, build: crate::graph::bfs::build },
    Entry { info: crate::graph::cc::info, build: crate::graph::cc::build },
    Entry { info: crate::graph::sssp::info, build: crate::graph::sssp::build },
    Entry { info: crate::graph::tc::info, build: crate::graph::tc::build },
    Entry { info: crate::graph::pr::info, build: crate::graph::pr::build },
    Entry { info: crate::stream::info, build: crate::stream::build },
    Entry { info: crate::npb::cg::info, build: crate::npb::cg::build },
    Entry { info: crate::npb::is::info, build: crate::npb::is::build },
    Entry { info: crate::npb::ep::info, build: crate::npb::ep::build },
    Entry { info: crate::npb::mg::info, build: crate::npb::mg::build },
    Entry { info: crate::npb::ft::info, build: crate::npb::ft::build },
    Entry { info: crate::npb::bt::info, build: crate::npb::bt::build },
    Entry { info: crate::npb::sp::info, build: crate::npb::sp::build },
    Entry { info: crate::npb::lu::info, build: crate::npb::lu::build },
    Entry { info: crate::splash::ge::info, build: crate::splash::ge::build },
    Entry { info: crate::splash::ocean::info, build: crate::splash::ocean::build },
    Entry { info: crate::genomics::fmi::info, build: crate::genomics::fmi::build },
    Entry { info: crate::genomics::poa::info, build: crate::genomics::poa::build },
    Entry { info: crate::kv::masstree::info, build: crate::kv::masstree::build },
    Entry { info: crate::oltp::tpcc::info, build: crate::oltp::tpcc::build },
];

/// All generators, in registry order.
pub fn list() -> Vec<GeneratorInfo> {
    ENTRIES.iter().map(|e| (e.info)()).collect()
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
