//! A serialisable report of a machine: its parts by name and every derived value (routes,
//! latency matrix, peak bandwidths), for `numasim machine show` style output and for tests.

use crate::machine::Machine;
use crate::topology::Socket;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineSummary {
    pub name: String,
    pub description: String,
    /// The directory's coherence protocol (`moesi` or `mesi`).
    pub coherence: crate::Coherence,
    /// Whether the machine file declares it (false: the default, MOESI).
    pub coherence_declared: bool,
    /// The machine file's `[core]` (omitted when it gives none).
    #[serde(skip_serializing_if = "crate::CoreSpec::is_empty")]
    pub core: crate::CoreSpec,
    /// Socket names by index.
    pub sockets: Vec<String>,
    pub socket_details: Vec<Socket>,
    pub total_cores: u64,
    pub total_capacity_bytes: u64,
    pub memory_nodes: Vec<MemorySummary>,
    pub switches: Vec<SwitchSummary>,
    pub links: Vec<LinkSummary>,
    /// Every socket → memory route, socket-major.
    pub routes: Vec<RouteSummary>,
    /// Every socket → other socket route.
    pub socket_routes: Vec<RouteSummary>,
    /// Rows = sockets, columns = memory nodes.
    pub load_latency_ns: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemorySummary {
    pub name: String,
    pub kind: String,
    pub capacity_bytes: u64,
    pub channels: u32,
    pub dram: String,
    pub attached_socket: Option<String>,
    pub peak_bandwidth_gbps: f64,
    pub access_latency_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwitchSummary {
    pub name: String,
    pub transit_latency_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    pub a: String,
    pub b: String,
    pub link_type: Option<String>,
    pub bandwidth_gbps_ab: f64,
    pub bandwidth_gbps_ba: f64,
    pub latency_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteSummary {
    pub from: String,
    pub to: String,
    /// Vertex names from source to target.
    pub path: Vec<String>,
    /// Link names crossed.
    pub links: Vec<String>,
    pub hops: u32,
    /// One-way network latency, ns.
    pub latency_ns: f64,
    /// Unloaded load latency (memory targets only), ns.
    pub load_latency_ns: Option<f64>,
}

impl MachineSummary {
    pub fn of(m: &Machine) -> Self {
        let route = |from: usize, to: String, r: &crate::topology::Route, load: Option<f64>| RouteSummary {
            from: m.sockets[from].name.clone(),
            to,
            path: r.nodes.iter().map(|&n| m.node_name(n).to_string()).collect(),
            links: r.links.iter().map(|h| m.links[h.link].name.clone()).collect(),
            hops: r.hops,
            latency_ns: r.latency_ns,
            load_latency_ns: load,
        };
        let mut routes = Vec::new();
        let mut socket_routes = Vec::new();
        for s in 0..m.sockets.len() {
            for (j, mem) in m.memory_nodes.iter().enumerate() {
                routes.push(route(
                    s,
                    mem.name.clone(),
                    m.route_to_memory(s, j),
                    Some(m.load_latency_ns(s, j)),
                ));
            }
            for (t, sock) in m.sockets.iter().enumerate() {
                if t != s {
                    socket_routes.push(route(s, sock.name.clone(), m.route_between_sockets(s, t), None));
                }
            }
        }
        MachineSummary {
            name: m.name.clone(),
            description: m.description.clone(),
            coherence: m.coherence(),
            coherence_declared: m.declared_coherence.is_some(),
            core: m.core.clone(),
            sockets: m.sockets.iter().map(|s| s.name.clone()).collect(),
            socket_details: m.sockets.clone(),
            total_cores: m.total_cores(),
            total_capacity_bytes: m.memory_nodes.iter().map(|x| x.capacity_bytes).sum(),
            memory_nodes: m
                .memory_nodes
                .iter()
                .map(|x| MemorySummary {
                    name: x.name.clone(),
                    kind: x.kind.to_string(),
                    capacity_bytes: x.capacity_bytes,
                    channels: x.channels,
                    dram: x.dram.to_string(),
                    attached_socket: x.attached_socket.map(|s| m.sockets[s].name.clone()),
                    peak_bandwidth_gbps: x.peak_bandwidth_gbps(),
                    access_latency_ns: x.access_latency_ns,
                })
                .collect(),
            switches: m
                .switches
                .iter()
                .map(|w| SwitchSummary {
                    name: w.name.clone(),
                    transit_latency_ns: w.transit_latency_ns,
                })
                .collect(),
            links: m
                .links
                .iter()
                .map(|l| LinkSummary {
                    name: l.name.clone(),
                    a: m.node_name(l.a).to_string(),
                    b: m.node_name(l.b).to_string(),
                    link_type: l.link_type.clone(),
                    bandwidth_gbps_ab: l.bandwidth_gbps_ab,
                    bandwidth_gbps_ba: l.bandwidth_gbps_ba,
                    latency_ns: l.latency_ns,
                })
                .collect(),
            routes,
            socket_routes,
            load_latency_ns: m.load_latency_matrix(),
        }
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("summary serialises")
    }
}
