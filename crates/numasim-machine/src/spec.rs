//! The machine TOML schema, exactly as written by users (no derived values).
//!
//! Units are part of every key name (`latency_ns`, `bandwidth_gbps`, `capacity_bytes`) and every
//! struct denies unknown fields, so a key with the wrong unit (`latency = 25`) is refused instead of
//! silently ignored. Defaults are only given where the value is conventional (`line_bytes = 64`,
//! `transit_latency_ns = 0`, `forwards = true`). Checks that need more than one field live in
//! [`crate::validate`].

use crate::dram::{DramKind, MemoryKind};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Top level of a machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Named link parameters, referenced by `links[i].type`.
    #[serde(default)]
    pub link_types: BTreeMap<String, LinkTypeSpec>,
    #[serde(default)]
    pub sockets: Vec<SocketSpec>,
    #[serde(default)]
    pub memory: Vec<MemorySpec>,
    #[serde(default)]
    pub switches: Vec<SwitchSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkTypeSpec {
    /// Per direction (a→b), GB/s.
    pub bandwidth_gbps: f64,
    /// Reverse direction (b→a) when asymmetric; defaults to `bandwidth_gbps`.
    #[serde(default)]
    pub bandwidth_gbps_ba: Option<f64>,
    /// One-way latency, ns.
    pub latency_ns: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SocketSpec {
    pub name: String,
    pub cores: u32,
    pub freq_ghz: f64,
    pub llc_bytes: u64,
    pub llc_ways: u32,
    #[serde(default = "default_line_bytes")]
    pub line_bytes: u32,
    /// Added once (one way) when a route passes *through* this socket.
    #[serde(default)]
    pub transit_latency_ns: f64,
    /// Whether traffic between other nodes may pass through this socket.
    #[serde(default = "default_true")]
    pub forwards: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    pub name: String,
    pub kind: MemoryKind,
    pub capacity_bytes: u64,
    pub channels: u32,
    pub dram: DramKind,
    /// Unloaded latency of a load served by this node to a core of an attached (or directly
    /// linked) socket, on-chip time included.
    pub access_latency_ns: f64,
    /// Name of the socket this memory is local to; absent for standalone (linked) nodes.
    #[serde(default)]
    pub socket: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub name: String,
    /// Added once (one way) for every route passing through the switch.
    pub transit_latency_ns: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    /// A key of `[link_types]`; explicit `bandwidth_gbps`/`bandwidth_gbps_ba`/`latency_ns` on the
    /// link override the type's values.
    #[serde(default, rename = "type")]
    pub link_type: Option<String>,
    #[serde(default)]
    pub bandwidth_gbps: Option<f64>,
    #[serde(default)]
    pub bandwidth_gbps_ba: Option<f64>,
    #[serde(default)]
    pub latency_ns: Option<f64>,
}

fn default_line_bytes() -> u32 {
    64
}

fn default_true() -> bool {
    true
}
