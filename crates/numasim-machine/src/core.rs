//! The node's processor and cache lookup path as a machine file states them (`[core]`): the
//! core model, its CPI and the private and LLC latencies. These are properties of the machine a
//! paper describes (Talbot & Kelly's node: a CPI-1 processor that blocks on a miss, one 8 KiB
//! FLC and the SLC), so a machine file may give them; an experiment's `[timing]` key of the
//! same name overrides each one it sets, and every key left out has `[timing]`'s default.

use serde::{Deserialize, Serialize};

/// How a timing-mode core overlaps its misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoreModel {
    /// Out-of-order issue window: a ROB of `rob_entries` instructions, `mshrs` outstanding
    /// LLC-miss loads and a store buffer (StarNUMA Table I).
    #[default]
    Ooo,
    /// Stops at every access that misses the L1 until it completes, loads and stores alike:
    /// never more than one miss outstanding (Talbot & Kelly Table 1.1's processor).
    Blocking,
}

impl numasim_config::param::ParamKind for CoreModel {}

impl CoreModel {
    /// The name used in machine files, experiments and results (`ooo`, `blocking`).
    pub fn name(self) -> &'static str {
        match self {
            CoreModel::Ooo => "ooo",
            CoreModel::Blocking => "blocking",
        }
    }
}

numasim_config::declare_params! {
    /// `[core]` of a machine file: every key optional (unset: the experiment's `[timing]` value).
    #[derive(PartialEq)]
    pub section struct CoreSpec {
        /// the timing core: ooo (ROB, MSHRs, store buffer) | blocking (stops at every miss; one outstanding); [timing] core overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<CoreModel> = None, unit "-", Check::Any, unset "[timing]";
        /// cycles per non-memory instruction; [timing] base_cpi overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        base_cpi: Option<f64> = None, unit "cycles/instruction", Check::Above(0.0, 1e3), unset "[timing]";
        /// private L1-D size; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l1_bytes: Option<u64> = None, unit "bytes", Check::Any, unset "[timing]";
        /// private L1-D associativity; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l1_ways: Option<u32> = None, unit "ways", Check::Range(1.0, 1024.0), unset "[timing]";
        /// private L1-D hit latency; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l1_latency_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, MAX_CORE_CYCLES as f64), unset "[timing]";
        /// private L2 size (0: no L2, the node has one private level); [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l2_bytes: Option<u64> = None, unit "bytes", Check::Any, unset "[timing]";
        /// private L2 associativity; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l2_ways: Option<u32> = None, unit "ways", Check::Range(1.0, 1024.0), unset "[timing]";
        /// private L2 hit latency; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        l2_latency_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, MAX_CORE_CYCLES as f64), unset "[timing]";
        /// LLC lookup latency (with L1 and L2: the path before memory); [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        llc_latency_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, MAX_CORE_CYCLES as f64), unset "[timing]";
        /// LLC hit latency when a hit takes longer than the lookup before a miss; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        llc_hit_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, MAX_CORE_CYCLES as f64), unset "llc_latency_cycles";
        /// write-through L1: cycles each store that hits it takes to reach the LLC; [timing] overrides it
        #[serde(skip_serializing_if = "Option::is_none")]
        write_through_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, MAX_CORE_CYCLES as f64), unset "write-back L1";
    }
}

/// Largest latency a machine's `[core]` may give, cycles.
pub const MAX_CORE_CYCLES: u32 = 100_000;

impl CoreSpec {
    /// Whether the file gives no key.
    pub fn is_empty(&self) -> bool {
        *self == CoreSpec::default()
    }
}
