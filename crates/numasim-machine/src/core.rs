//! The node's processor and cache lookup path as a machine file states them (`[core]`): the
//! core model, its CPI and the private and LLC latencies. These are properties of the machine a
//! paper describes (Talbot & Kelly's node: a CPI-1 processor that blocks on a miss, one 8 KiB
//! FLC and the SLC), so a machine file may give them; an experiment's `[timing]` key of the
//! same name overrides each one it sets, and every key left out has `[timing]`'s default.

use crate::locate::error;
use numasim_config::{ConfigError, Source};
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

/// `[core]` of a machine file: every key optional (unset: the experiment's `[timing]` value).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreSpec {
    /// `[timing] core`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<CoreModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_cpi: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_ways: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l1_latency_cycles: Option<u32>,
    /// 0: no private L2 (the node has one private level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_ways: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_latency_cycles: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc_latency_cycles: Option<u32>,
    /// `[timing] llc_hit_cycles`: an LLC hit, when longer than the lookup before a miss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc_hit_cycles: Option<u32>,
    /// `[timing] write_through_cycles`: a write-through L1's store to the LLC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_through_cycles: Option<u32>,
}

/// Largest latency a machine's `[core]` may give, cycles.
pub const MAX_CORE_CYCLES: u32 = 100_000;

impl CoreSpec {
    /// Whether the file gives no key.
    pub fn is_empty(&self) -> bool {
        *self == CoreSpec::default()
    }

    /// Range checks of the keys given (sizes against the cache geometry are checked with the
    /// experiment's `[timing]`, where the two meet).
    pub fn check(&self, src: &Source) -> Result<(), ConfigError> {
        if let Some(c) = self.base_cpi {
            if !(c.is_finite() && c > 0.0 && c <= 1e3) {
                return Err(error(
                    src,
                    "core.base_cpi",
                    format!("must be a positive number up to 1000, got {c}"),
                ));
            }
        }
        for (k, v) in [("core.l1_ways", self.l1_ways), ("core.l2_ways", self.l2_ways)] {
            if let Some(w) = v {
                if !(1..=1024).contains(&w) {
                    return Err(error(src, k, format!("must be from 1 to 1024, got {w}")));
                }
            }
        }
        for (k, v) in [
            ("core.l1_latency_cycles", self.l1_latency_cycles),
            ("core.l2_latency_cycles", self.l2_latency_cycles),
            ("core.llc_latency_cycles", self.llc_latency_cycles),
            ("core.llc_hit_cycles", self.llc_hit_cycles),
            ("core.write_through_cycles", self.write_through_cycles),
        ] {
            if let Some(c) = v {
                if c > MAX_CORE_CYCLES {
                    return Err(error(
                        src,
                        k,
                        format!("must be at most {MAX_CORE_CYCLES} cycles, got {c}"),
                    ));
                }
            }
        }
        Ok(())
    }
}
