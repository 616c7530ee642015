//! The validated machine's parts. Indices are dense: sockets `0..S`, memory nodes `0..M`,
//! switches `0..W`, links `0..L`, in file order, so the simulator can index plain arrays.

use crate::dram::{DramKind, DramTimings, MemoryKind};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Socket {
    pub name: String,
    pub cores: u32,
    pub freq_ghz: f64,
    pub llc_bytes: u64,
    pub llc_ways: u32,
    pub line_bytes: u32,
    /// One-way latency added when a route passes through this socket.
    pub transit_latency_ns: f64,
    /// Whether routes between other nodes may pass through this socket.
    pub forwards: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryNode {
    pub name: String,
    pub kind: MemoryKind,
    pub capacity_bytes: u64,
    pub channels: u32,
    pub dram: DramKind,
    /// The grade's preset timings with the machine file's overrides applied (checked).
    pub dram_timing: DramTimings,
    /// Unloaded latency seen by a directly attached/linked socket (network excluded).
    pub access_latency_ns: f64,
    /// Socket index this memory is local to.
    pub attached_socket: Option<usize>,
}

impl MemoryNode {
    /// `channels ×` per-channel peak of the DRAM grade, GB/s.
    pub fn peak_bandwidth_gbps(&self) -> f64 {
        f64::from(self.channels) * self.dram.channel_peak_gbps()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Switch {
    pub name: String,
    pub transit_latency_ns: f64,
}

/// A graph vertex: which array and which index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "index", rename_all = "kebab-case")]
pub enum NodeRef {
    Socket(usize),
    Memory(usize),
    Switch(usize),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// Given name, or `"a-b"` when none was written.
    pub name: String,
    pub a: NodeRef,
    pub b: NodeRef,
    /// `type = ...` as written, if any.
    pub link_type: Option<String>,
    /// Bandwidth in the a→b direction, GB/s.
    pub bandwidth_gbps_ab: f64,
    /// Bandwidth in the b→a direction, GB/s.
    pub bandwidth_gbps_ba: f64,
    /// One-way latency, ns (same both directions).
    pub latency_ns: f64,
}

impl Link {
    /// Bandwidth of one direction: `a_to_b = true` for a→b.
    pub fn bandwidth_gbps(&self, a_to_b: bool) -> f64 {
        if a_to_b {
            self.bandwidth_gbps_ab
        } else {
            self.bandwidth_gbps_ba
        }
    }
}

/// One link crossed by a route, in the request direction (socket → target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RouteHop {
    /// Index into [`crate::Machine::links`].
    pub link: usize,
    /// `true` if the request crosses the link a→b. Replies (load data) travel the opposite way.
    pub a_to_b: bool,
}

/// A derived path from a socket to a memory node or another socket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    /// Vertices from the source socket to the target, both included. For socket-local memory the
    /// path is `[socket, memory]` with no link.
    pub nodes: Vec<NodeRef>,
    /// Links crossed, in order, with direction.
    pub links: Vec<RouteHop>,
    /// One-way network latency: link latencies + transit latencies of intermediate nodes (ns).
    pub latency_ns: f64,
    /// Number of links crossed.
    pub hops: u32,
}
