//! Turning a parsed [`MachineSpec`] into a [`Machine`], refusing anything inconsistent.
//!
//! Every rule reports a [`ConfigError`] naming file, line and key path, because a machine file
//! that is "almost right" silently produces wrong latencies. Rules:
//! sizes are capped (hostile files cannot make us allocate hugely); at least one socket and one
//! memory node; names are non-empty and unique across sockets, memory nodes and switches (links
//! refer to them by name); numbers are finite and positive (transit latencies may be 0);
//! link endpoints and `type`s exist, a link never joins a node to itself or two memory nodes;
//! every memory node is attached to a socket or linked; every switch is linked; every memory node
//! and socket is reachable from every socket (checked on the derived routes).

use crate::graph::{ns_to_ps, routing, Edge, Graph};
use crate::locate::{error, ranges};
use crate::machine::Machine;
use crate::spec::{LinkSpec, LinkTypeSpec, MachineSpec, MemorySpec, SocketSpec, SwitchSpec};
use crate::topology::{Link, MemoryNode, NodeRef, Route, RouteHop, Socket, Switch};
use numasim_config::param::{missing_required, ParamDef};
use numasim_config::{ConfigError, Source};
use std::collections::HashMap;

pub const MAX_SOCKETS: usize = 4096;
pub const MAX_MEMORY_NODES: usize = 4096;
pub const MAX_SWITCHES: usize = 4096;
pub const MAX_LINKS: usize = 65536;
pub const MAX_LINK_TYPES: usize = 256;
pub const MAX_CORES_PER_SOCKET: u32 = 65536;
pub const MAX_CHANNELS: u32 = 4096;
/// Any single latency above this (1 ms) is surely a unit mistake.
pub const MAX_LATENCY_NS: f64 = 1.0e6;
pub const MAX_BANDWIDTH_GBPS: f64 = 1.0e6;
/// Below 1 MB/s a link is surely a unit mistake, and the time of one line on it would no longer
/// fit the engines' picosecond clock.
pub const MIN_BANDWIDTH_GBPS: f64 = 1.0e-3;
pub const MAX_FREQ_GHZ: f64 = 1000.0;
/// Below 1 MHz a core's cycle would no longer fit the engines' picosecond clock arithmetic.
pub const MIN_FREQ_GHZ: f64 = 1.0e-3;
/// Largest LLC per socket. The simulator keeps 8 bytes of tag per 64-byte line, so this bounds
/// the tag array at 128 MiB per socket.
pub const MAX_LLC_BYTES: u64 = 1 << 30;
/// Largest LLC summed over all sockets (2 GiB of tags).
pub const MAX_TOTAL_LLC_BYTES: u64 = 16 << 30;
/// The only supported cache line: the caches, directories and line statistics assume 64 bytes.
pub const LINE_BYTES: u32 = 64;
/// Total links over all stored routes; bounds memory for pathological (long-ring) machines.
pub const MAX_ROUTE_ENTRIES: usize = 1 << 24;

pub(crate) fn build(src: &Source, spec: MachineSpec) -> Result<Machine, ConfigError> {
    check_caps(src, &spec)?;
    check_required(src)?;
    check_not_empty(src, &spec)?;
    let names = Names::collect(src, &spec)?;
    let sockets = sockets(src, &spec)?;
    let memory_nodes = memory_nodes(src, &spec, &names)?;
    let switches = switches(src, &spec)?;
    check_link_types(src, &spec)?;
    let links = links(src, &spec, &names)?;
    check_attached(src, &memory_nodes, &switches, &links)?;
    let (to_memory, between) = routes(src, &sockets, &memory_nodes, &switches, &links)?;
    // The on-chip mesh, when given, is checked against the sockets and memory it places.
    let mesh = match spec.mesh {
        Some(m) => Some(crate::mesh::build(src, m, &sockets, &memory_nodes)?),
        None => None,
    };
    let mut machine = Machine::assemble(
        spec.name,
        spec.description,
        sockets,
        memory_nodes,
        switches,
        links,
        to_memory,
        between,
    );
    machine.mesh = mesh;
    machine.declared_coherence = spec.coherence;
    ranges(src, "core.", &spec.core)?;
    machine.core = spec.core;
    Ok(machine)
}

/// A name, at least one socket and at least one memory node.
fn check_not_empty(src: &Source, spec: &MachineSpec) -> Result<(), ConfigError> {
    if spec.name.trim().is_empty() {
        return Err(error(src, "name", "machine name must not be empty"));
    }
    if spec.sockets.is_empty() {
        return Err(error(src, "sockets", "a machine needs at least one [[sockets]] entry"));
    }
    if spec.memory.is_empty() {
        return Err(error(src, "memory", "a machine needs at least one [[memory]] node"));
    }
    Ok(())
}

/// Vertex names, unique across sockets, memory nodes and switches (links refer to them).
struct Names(HashMap<String, (NodeRef, String)>);

impl Names {
    fn collect(src: &Source, spec: &MachineSpec) -> Result<Self, ConfigError> {
        let mut names = Names(HashMap::new());
        for (i, s) in spec.sockets.iter().enumerate() {
            names.add(src, &s.name, NodeRef::Socket(i), format!("sockets[{i}].name"))?;
        }
        for (i, m) in spec.memory.iter().enumerate() {
            names.add(src, &m.name, NodeRef::Memory(i), format!("memory[{i}].name"))?;
        }
        for (i, w) in spec.switches.iter().enumerate() {
            names.add(src, &w.name, NodeRef::Switch(i), format!("switches[{i}].name"))?;
        }
        Ok(names)
    }

    fn add(&mut self, src: &Source, name: &str, node: NodeRef, key: String) -> Result<(), ConfigError> {
        if name.trim().is_empty() {
            return Err(error(src, key, "name must not be empty"));
        }
        if let Some((_, first)) = self.0.get(name) {
            return Err(error(
                src,
                key,
                format!("duplicate name `{name}` (first used at `{first}`)"),
            ));
        }
        self.0.insert(name.to_string(), (node, key));
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<NodeRef> {
        self.0.get(name).map(|(n, _)| *n)
    }
}

/// Sockets: core counts, clocks, LLC geometry (64-byte lines, at least one set, total capped).
fn sockets(src: &Source, spec: &MachineSpec) -> Result<Vec<Socket>, ConfigError> {
    let mut sockets = Vec::with_capacity(spec.sockets.len());
    let mut total_llc_bytes = 0u64;
    for (i, s) in spec.sockets.iter().enumerate() {
        let k = |f: &str| format!("sockets[{i}].{f}");
        ranges(src, &k(""), s)?;
        total_llc_bytes = total_llc_bytes.saturating_add(s.llc_bytes);
        if total_llc_bytes > MAX_TOTAL_LLC_BYTES {
            return Err(error(
                src,
                k("llc_bytes"),
                format!("the LLCs of all sockets add up to more than {MAX_TOTAL_LLC_BYTES} bytes (16 GiB), the simulator's limit"),
            ));
        }
        if s.llc_bytes < u64::from(s.line_bytes) * u64::from(s.llc_ways) {
            return Err(error(
                src,
                k("llc_bytes"),
                "smaller than one set (line_bytes × llc_ways)",
            ));
        }
        sockets.push(Socket {
            name: s.name.clone(),
            cores: s.cores,
            freq_ghz: s.freq_ghz,
            llc_bytes: s.llc_bytes,
            llc_ways: s.llc_ways,
            line_bytes: s.line_bytes,
            transit_latency_ns: s.transit_latency_ns,
            forwards: s.forwards,
        });
    }

    Ok(sockets)
}

/// Memory nodes: capacity, channels, latency, DRAM timings, the socket they hang off.
fn memory_nodes(src: &Source, spec: &MachineSpec, names: &Names) -> Result<Vec<MemoryNode>, ConfigError> {
    let mut memory_nodes = Vec::with_capacity(spec.memory.len());
    for (i, m) in spec.memory.iter().enumerate() {
        let k = |f: &str| format!("memory[{i}].{f}");
        ranges(src, &k(""), m)?;
        let attached_socket = match &m.socket {
            None => None,
            Some(name) => match names.lookup(name) {
                Some(NodeRef::Socket(s)) => Some(s),
                Some(_) => return Err(error(src, k("socket"), format!("`{name}` is not a socket"))),
                None => return Err(error(src, k("socket"), format!("unknown socket `{name}`"))),
            },
        };
        let dram_timing = crate::dram::check_node_timings(src, spec, i)?;
        memory_nodes.push(MemoryNode {
            name: m.name.clone(),
            kind: m.kind,
            capacity_bytes: m.capacity_bytes,
            channels: m.channels,
            dram: m.dram,
            dram_timing,
            access_latency_ns: m.access_latency_ns,
            attached_socket,
        });
    }

    Ok(memory_nodes)
}

/// Switches: transit latencies.
fn switches(src: &Source, spec: &MachineSpec) -> Result<Vec<Switch>, ConfigError> {
    let mut switches = Vec::with_capacity(spec.switches.len());
    for (i, w) in spec.switches.iter().enumerate() {
        ranges(src, &format!("switches[{i}]."), w)?;
        switches.push(Switch {
            name: w.name.clone(),
            transit_latency_ns: w.transit_latency_ns,
        });
    }

    Ok(switches)
}

/// Link types: bandwidths (each direction) and latency in range.
fn check_link_types(src: &Source, spec: &MachineSpec) -> Result<(), ConfigError> {
    for (name, t) in &spec.link_types {
        ranges(src, &format!("link_types.{name}."), t)?;
    }

    Ok(())
}

/// Links: endpoints exist and differ, never memory to memory, a known type or explicit
/// bandwidth and latency, unique names.
fn links(src: &Source, spec: &MachineSpec, names: &Names) -> Result<Vec<Link>, ConfigError> {
    let mut links = Vec::with_capacity(spec.links.len());
    let mut link_names: HashMap<String, usize> = HashMap::new();
    for (i, l) in spec.links.iter().enumerate() {
        let k = |f: &str| format!("links[{i}].{f}");
        ranges(src, &k(""), l)?;
        let end = |field: &str, name: &str| {
            names
                .lookup(name)
                .ok_or_else(|| error(src, k(field), format!("unknown node `{name}`")))
        };
        let a = end("a", &l.a)?;
        let b = end("b", &l.b)?;
        if a == b {
            return Err(error(src, k("b"), format!("link joins `{}` to itself", l.a)));
        }
        if matches!((a, b), (NodeRef::Memory(_), NodeRef::Memory(_))) {
            return Err(error(
                src,
                k("b"),
                "a link between two memory nodes can never carry traffic (memory does not forward)",
            ));
        }
        let ty = match &l.r#type {
            None => None,
            Some(t) => match spec.link_types.get(t) {
                Some(ty) => Some(ty),
                None => {
                    let known: Vec<&str> = spec.link_types.keys().map(String::as_str).collect();
                    return Err(error(
                        src,
                        k("type"),
                        format!("unknown link type `{t}` (defined: {known:?})"),
                    ));
                }
            },
        };
        let bw = l.bandwidth_gbps.or(ty.map(|t| t.bandwidth_gbps));
        let lat = l.latency_ns.or(ty.map(|t| t.latency_ns));
        let (Some(bw), Some(lat)) = (bw, lat) else {
            return Err(error(
                src,
                format!("links[{i}]"),
                "a link needs `type` or both `bandwidth_gbps` and `latency_ns`",
            ));
        };
        let bw_ba = l
            .bandwidth_gbps_ba
            .or(ty.and_then(|t| t.bandwidth_gbps_ba))
            .unwrap_or(bw);
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        if let Some(first) = link_names.insert(name.clone(), i) {
            return Err(error(
                src,
                k("name"),
                format!("duplicate link name `{name}` (also links[{first}]); give links explicit names"),
            ));
        }
        links.push(Link {
            name,
            a,
            b,
            link_type: l.r#type.clone(),
            bandwidth_gbps_ab: bw,
            bandwidth_gbps_ba: bw_ba,
            latency_ns: lat,
        });
    }

    Ok(links)
}

/// Every memory node is attached to a socket or linked; every switch is linked.
fn check_attached(
    src: &Source,
    memory_nodes: &[MemoryNode],
    switches: &[Switch],
    links: &[Link],
) -> Result<(), ConfigError> {
    let linked = |node: NodeRef| links.iter().any(|l| l.a == node || l.b == node);
    for (i, m) in memory_nodes.iter().enumerate() {
        if m.attached_socket.is_none() && !linked(NodeRef::Memory(i)) {
            return Err(error(
                src,
                format!("memory[{i}]"),
                format!(
                    "memory node `{}` is neither attached to a socket (`socket = ...`) nor linked",
                    m.name
                ),
            ));
        }
    }
    for (i, w) in switches.iter().enumerate() {
        if !linked(NodeRef::Switch(i)) {
            return Err(error(
                src,
                format!("switches[{i}]"),
                format!("switch `{}` has no links", w.name),
            ));
        }
    }

    Ok(())
}

/// Routes indexed `[from socket][to vertex]`.
type RouteTable = Vec<Vec<Route>>;

/// Socket → memory node and socket → socket routes (shortest paths over the link graph);
/// every memory node and socket must be reachable from every socket.
fn routes(
    src: &Source,
    sockets: &[Socket],
    memory_nodes: &[MemoryNode],
    switches: &[Switch],
    links: &[Link],
) -> Result<(RouteTable, RouteTable), ConfigError> {
    let (s_n, m_n) = (sockets.len(), memory_nodes.len());
    let gidx = |n: NodeRef| match n {
        NodeRef::Socket(i) => i,
        NodeRef::Memory(i) => s_n + i,
        NodeRef::Switch(i) => s_n + m_n + i,
    };
    let gref = |v: usize| {
        if v < s_n {
            NodeRef::Socket(v)
        } else if v < s_n + m_n {
            NodeRef::Memory(v - s_n)
        } else {
            NodeRef::Switch(v - s_n - m_n)
        }
    };
    let transit: Vec<u64> = sockets
        .iter()
        .map(|s| ns_to_ps(s.transit_latency_ns))
        .chain(memory_nodes.iter().map(|_| 0))
        .chain(switches.iter().map(|w| ns_to_ps(w.transit_latency_ns)))
        .collect();
    let forwards: Vec<bool> = sockets
        .iter()
        .map(|s| s.forwards)
        .chain(memory_nodes.iter().map(|_| false))
        .chain(switches.iter().map(|_| true))
        .collect();
    let mut g = Graph::new(transit, forwards);
    for (i, l) in links.iter().enumerate() {
        g.add_link(i, gidx(l.a), gidx(l.b), ns_to_ps(l.latency_ns));
    }
    for (i, m) in memory_nodes.iter().enumerate() {
        if let Some(s) = m.attached_socket {
            g.add_edge(
                s,
                Edge {
                    to: s_n + i,
                    latency_ps: 0,
                    link: None,
                },
            );
        }
    }

    let mut entries = 0usize;
    let mut to_memory = Vec::with_capacity(s_n);
    let mut between = Vec::with_capacity(s_n);
    for s in 0..s_n {
        let paths = routing::shortest_paths(&g, s);
        let mut make = |v: usize, key: String, what: &str, name: &str| -> Result<Route, ConfigError> {
            let Some(p) = &paths[v] else {
                return Err(error(
                    src,
                    key,
                    format!("{what} `{name}` is unreachable from socket `{}`", sockets[s].name),
                ));
            };
            entries += p.edges.len() + 1;
            if entries > MAX_ROUTE_ENTRIES {
                return Err(error(
                    src,
                    "links",
                    format!("machine too large: routes would exceed {MAX_ROUTE_ENTRIES} link entries"),
                ));
            }
            Ok(Route {
                nodes: p.nodes.iter().map(|&v| gref(v)).collect(),
                links: p
                    .edges
                    .iter()
                    .filter_map(|e| e.link)
                    .map(|(link, a_to_b)| RouteHop { link, a_to_b })
                    .collect(),
                latency_ns: crate::graph::ps_to_ns(p.latency_ps),
                hops: p.hops,
            })
        };
        let mut row = Vec::with_capacity(m_n);
        for (m, node) in memory_nodes.iter().enumerate() {
            row.push(make(s_n + m, format!("memory[{m}]"), "memory node", &node.name)?);
        }
        let mut srow = Vec::with_capacity(s_n);
        for (t, sock) in sockets.iter().enumerate() {
            srow.push(make(t, format!("sockets[{t}]"), "socket", &sock.name)?);
        }
        to_memory.push(row);
        between.push(srow);
    }

    Ok((to_memory, between))
}

fn check_caps(src: &Source, spec: &MachineSpec) -> Result<(), ConfigError> {
    let caps = [
        ("sockets", spec.sockets.len(), MAX_SOCKETS),
        ("memory", spec.memory.len(), MAX_MEMORY_NODES),
        ("switches", spec.switches.len(), MAX_SWITCHES),
        ("links", spec.links.len(), MAX_LINKS),
        ("link_types", spec.link_types.len(), MAX_LINK_TYPES),
    ];
    for (key, n, max) in caps {
        if n > max {
            return Err(error(src, key, format!("{n} entries exceed the limit of {max}")));
        }
    }
    Ok(())
}

/// Every key declared without a default is given: at the top level and in every entry of
/// `[link_types]`, `[[sockets]]`, `[[memory]]`, `[[switches]]`, `[[links]]` and in `[mesh]`.
fn check_required(src: &Source) -> Result<(), ConfigError> {
    let table: toml::Table = src.parse()?;
    let need = |defs: &[ParamDef], t: &toml::Table, prefix: String| match missing_required(defs, t) {
        Some(d) => Err(error(
            src,
            format!("{prefix}{}", d.name),
            format!("missing required key `{}` ({})", d.name, d.description),
        )),
        None => Ok(()),
    };
    need(&MachineSpec::defs(), &table, String::new())?;
    let tables = |key: &str| -> Vec<(String, &toml::Table)> {
        match table.get(key) {
            Some(toml::Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((format!("{key}[{i}]."), v.as_table()?)))
                .collect(),
            Some(toml::Value::Table(t)) if key == "link_types" => t
                .iter()
                .filter_map(|(name, v)| Some((format!("{key}.{name}."), v.as_table()?)))
                .collect(),
            Some(toml::Value::Table(t)) => vec![(format!("{key}."), t)],
            _ => Vec::new(),
        }
    };
    let sections = [
        ("link_types", LinkTypeSpec::defs()),
        ("sockets", SocketSpec::defs()),
        ("memory", MemorySpec::defs()),
        ("switches", SwitchSpec::defs()),
        ("links", LinkSpec::defs()),
        ("mesh", crate::mesh::MeshSpec::defs()),
    ];
    for (key, defs) in &sections {
        for (prefix, t) in tables(key) {
            need(defs, t, prefix)?;
        }
    }
    Ok(())
}
