//! The machine TOML schema, exactly as written by users (no derived values).
//!
//! Units are part of every key name (`latency_ns`, `bandwidth_gbps`, `capacity_bytes`) and every
//! struct denies unknown fields, so a key with the wrong unit (`latency = 25`) is refused instead of
//! silently ignored. Defaults are only given where the value is conventional (`line_bytes = 64`,
//! `transit_latency_ns = 0`, `forwards = true`). Checks that need more than one field live in
//! [`crate::validate`].

use crate::dram::{DramKind, DramOverrides, MemoryKind};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Top level of a machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The directory's coherence protocol (`moesi` when absent); an experiment's
    /// `[timing] coherence` overrides it.
    #[serde(default)]
    pub coherence: Option<crate::coherence::Coherence>,
    /// The node's processor and cache lookup path (`[core]`); an experiment's `[timing]`
    /// overrides each key it sets.
    #[serde(default)]
    pub core: crate::core::CoreSpec,
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
    /// An on-chip mesh placing the sockets (quadrants) and their memory ([`crate::mesh`]).
    #[serde(default)]
    pub mesh: Option<crate::mesh::MeshSpec>,
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
    /// Overrides of the DRAM grade's preset timings, key by key (`t_cl_ns = 13.32`).
    #[serde(default)]
    pub dram_timing: Option<DramOverrides>,
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

/// Every key of a machine file: (section, key, unit, type, default or "required", description).
/// `numasim params machine` prints it; a test checks every shipped preset's keys are here.
pub const MACHINE_KEY_DOCS: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("", "name", "-", "string", "required", "machine name"),
    ("", "description", "-", "string", "\"\"", "one-line description"),
    ("", "coherence", "-", "string", "moesi", "the directory's protocol for block transfers: moesi (the supplier keeps the line Owned) | mesi (it writes the line back and shares it clean); an experiment's [timing] coherence overrides it"),
    ("core", "model", "-", "string", "ooo", "the timing core: ooo (ROB, MSHRs, store buffer) | blocking (stops at every miss; one outstanding); [timing] core overrides it"),
    ("core", "base_cpi", "cycles/instruction", "float", "[timing]", "cycles per non-memory instruction; [timing] base_cpi overrides it"),
    ("core", "l1_bytes", "bytes", "integer", "[timing]", "private L1-D size, bytes; [timing] overrides it"),
    ("core", "l1_ways", "ways", "integer", "[timing]", "private L1-D associativity; [timing] overrides it"),
    ("core", "l1_latency_cycles", "cycles", "integer", "[timing]", "private L1-D hit latency, cycles; [timing] overrides it"),
    ("core", "l2_bytes", "bytes", "integer", "[timing]", "private L2 size, bytes (0: no L2); [timing] overrides it"),
    ("core", "l2_ways", "ways", "integer", "[timing]", "private L2 associativity; [timing] overrides it"),
    ("core", "l2_latency_cycles", "cycles", "integer", "[timing]", "private L2 hit latency, cycles; [timing] overrides it"),
    ("core", "llc_latency_cycles", "cycles", "integer", "[timing]", "LLC lookup latency, cycles (with L1 and L2: the path before memory); [timing] overrides it"),
    ("core", "llc_hit_cycles", "cycles", "integer", "llc_latency_cycles", "LLC hit latency when a hit takes longer than the lookup before a miss, cycles; [timing] overrides it"),
    ("core", "write_through_cycles", "cycles", "integer", "write-back L1", "write-through L1: cycles each store that hits it takes to reach the LLC; [timing] overrides it"),
    ("link_types.<T>", "bandwidth_gbps", "GB/s", "float", "required", "per-direction (a→b) bandwidth of links of type T, GB/s"),
    ("link_types.<T>", "bandwidth_gbps_ba", "GB/s", "float", "= bandwidth_gbps", "reverse (b→a) bandwidth when asymmetric, GB/s"),
    ("link_types.<T>", "latency_ns", "ns", "float", "required", "one-way latency, ns"),
    ("sockets[]", "name", "-", "string", "required", "socket name"),
    ("sockets[]", "cores", "cores", "integer", "required", "cores of the socket"),
    ("sockets[]", "freq_ghz", "GHz", "float", "required", "core clock, GHz"),
    ("sockets[]", "llc_bytes", "bytes", "integer", "required", "shared last-level cache, bytes (≤ 1 GiB)"),
    ("sockets[]", "llc_ways", "ways", "integer", "required", "LLC associativity"),
    ("sockets[]", "line_bytes", "bytes", "integer", "64", "cache line, bytes (only 64 is supported)"),
    ("sockets[]", "transit_latency_ns", "ns", "float", "0", "added once when a route passes through the socket, ns"),
    ("sockets[]", "forwards", "-", "bool", "true", "whether routes between other nodes may pass through"),
    ("memory[]", "name", "-", "string", "required", "memory node name"),
    ("memory[]", "kind", "-", "string", "required", "dram | cxl-pool | hbm | mcdram | remote-board"),
    ("memory[]", "capacity_bytes", "bytes", "integer", "required", "capacity, bytes"),
    ("memory[]", "channels", "channels", "integer", "required", "DRAM channels"),
    ("memory[]", "dram", "-", "string", "required", "DRAM timing preset: ddr4-2133 | ddr4-2400 | ddr4-2400-cl16 | ddr4-3200 | ddr5-4800 | hbm2 | mcdram | sdram-sunfire | talbot-sim"),
    ("memory[]", "dram_timing", "-", "table", "preset", "overrides of the preset's DRAM timings: t_rcd_ns, t_cl_ns, t_rp_ns, t_ras_ns, t_cwl_ns, t_ccd_s_ns, t_ccd_l_ns, t_rrd_s_ns, t_rrd_l_ns, t_faw_ns, t_rtp_ns, t_wr_ns, t_wtr_ns, t_rtw_ns, t_refi_ns, t_rfc_ns (ns); ranks, bank_groups, banks_per_group"),
    ("memory[]", "access_latency_ns", "ns", "float", "required", "unloaded load latency from an attached socket's core, on-chip time included, ns"),
    ("memory[]", "socket", "-", "string", "none (standalone)", "socket this memory is local to"),
    ("switches[]", "name", "-", "string", "required", "switch name"),
    ("switches[]", "transit_latency_ns", "ns", "float", "required", "added once per route through the switch, ns"),
    ("links[]", "name", "-", "string", "\"a-b\"", "link name"),
    ("links[]", "a", "-", "string", "required", "one end (socket, memory or switch)"),
    ("links[]", "b", "-", "string", "required", "other end"),
    ("links[]", "type", "-", "string", "none", "a key of [link_types]; explicit values below override it"),
    ("links[]", "bandwidth_gbps", "GB/s", "float", "from type", "per-direction (a→b) bandwidth, GB/s"),
    ("links[]", "bandwidth_gbps_ba", "GB/s", "float", "= bandwidth_gbps", "reverse bandwidth, GB/s"),
    ("links[]", "latency_ns", "ns", "float", "from type", "one-way latency, ns"),
    ("mesh", "cols", "routers", "integer", "required", "routers per row (x)"),
    ("mesh", "rows", "routers", "integer", "required", "routers per column (y)"),
    ("mesh", "quadrant_cols", "quadrants", "integer", "required", "quadrants across; quadrant q is socket q and memory node q"),
    ("mesh", "quadrant_rows", "quadrants", "integer", "required", "quadrants down (numbered row by row from [0, 0])"),
    ("mesh", "freq_ghz", "GHz", "float", "required", "NoC clock, GHz"),
    ("mesh", "router_cycles", "NoC cycles", "integer", "required", "router pipeline per router traversed, NoC cycles"),
    ("mesh", "link_cycles", "NoC cycles", "integer", "required", "link between two routers of one quadrant, NoC cycles"),
    ("mesh", "inter_quadrant_link_cycles", "NoC cycles", "integer", "required", "link between routers of adjacent quadrants, NoC cycles"),
    ("mesh", "link_width_bytes", "bytes/cycle", "integer", "required", "bytes per link per cycle (one flit per cycle)"),
    ("mesh", "links_per_vnet", "links", "integer", "1", "parallel links per direction for each of REQ, SNP, RSP, DAT"),
    ("mesh", "shared_link", "-", "bool", "false", "one link per direction carries all VNETs (L0)"),
    ("mesh", "header_bytes", "bytes", "integer", "required", "control bytes of every packet; data = header + 64"),
    ("mesh", "cores_per_request_node", "cores", "integer", "required", "cores behind each request node"),
    ("mesh", "slices_per_home_node", "slices", "integer", "required", "SLC slices behind each home node"),
    ("mesh", "slc_slice_bytes", "bytes", "integer", "required", "bytes of one SLC slice"),
    ("mesh", "slc_ways", "ways", "integer", "required", "SLC slice associativity"),
    ("mesh", "slc_hit_cycles", "NoC cycles", "integer", "required", "slice tag + data access, NoC cycles"),
    ("mesh", "mc_interleave_bytes", "bytes", "integer", "required", "bytes to one memory controller before the next"),
    ("mesh", "request_nodes", "[x, y]", "array", "required", "router [x, y] of each request node"),
    ("mesh", "home_nodes", "[x, y]", "array", "required", "router [x, y] of each home node"),
    ("mesh", "memory_controllers", "[x, y]", "array", "required", "router [x, y] of each memory controller"),
    ("mesh", "numa", "-", "bool", "true", "one NUMA node per quadrant (false: one node over all controllers)"),
    ("mesh", "cache_groups", "-", "bool", "true", "each node's memory interleaved over its quadrant's slices"),
    ("mesh", "home_node_trackers", "requests", "integer", "0", "requests one SLC slice's home node tracks at once (0: unbounded)"),
    ("mesh", "controller_trackers", "reads", "integer", "0", "reads one memory controller tracks at once (0: unbounded)"),
    ("mesh", "router_vcs_per_vnet", "VCs", "integer", "0", "one-packet VCs per VNET at each router input port, credit flow control (0: unbounded buffers)"),
    ("mesh", "tracker_wait_in_network", "-", "bool", "false", "a request without a free tracker waits in the destination router's buffer (false: at its source)"),
    ("mesh", "home_node_retry", "-", "bool", "false", "a request without a free home-node tracker gets RetryAck and is sent again on the home node's credit grant (PCrdGrant), the entry reserved meanwhile (false: it waits at its source)"),
];

#[cfg(test)]
mod key_doc_tests {
    use super::MACHINE_KEY_DOCS;

    /// Every key every shipped preset uses is documented (so `numasim params machine` is whole).
    #[test]
    fn every_preset_key_is_documented() {
        let documented = |section: &str, key: &str| MACHINE_KEY_DOCS.iter().any(|d| d.0 == section && d.1 == key);
        for (name, _) in crate::presets::list() {
            let text = crate::presets::get(name).unwrap();
            let t: toml::Table = text.parse().unwrap();
            for (k, v) in &t {
                match v {
                    toml::Value::Array(items) => {
                        for item in items {
                            for key in item.as_table().unwrap().keys() {
                                assert!(documented(&format!("{k}[]"), key), "{name}: {k}[].{key}");
                            }
                        }
                    }
                    toml::Value::Table(flat) if k == "mesh" || k == "core" => {
                        for key in flat.keys() {
                            assert!(documented(k, key), "{name}: {k}.{key}");
                        }
                    }
                    toml::Value::Table(types) => {
                        for ty in types.values() {
                            for key in ty.as_table().unwrap().keys() {
                                assert!(documented(&format!("{k}.<T>"), key), "{name}: {k}.<T>.{key}");
                            }
                        }
                    }
                    _ => assert!(documented("", k), "{name}: {k}"),
                }
            }
        }
    }
}
