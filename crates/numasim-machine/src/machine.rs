//! [`Machine`]: the validated topology plus everything derived from it (routes, latencies,
//! nearest-memory orders). Construct it with [`Machine::from_source`] or [`Machine::load`].

use crate::topology::{Link, MemoryNode, NodeRef, Route, Socket, Switch};
use crate::{presets, spec::MachineSpec, validate};
use numasim_config::{ConfigError, Source};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub name: String,
    pub description: String,
    /// The coherence protocol the machine file declares (`None`: it declares none, and
    /// [`Machine::coherence`] gives the default).
    pub declared_coherence: Option<crate::Coherence>,
    /// The machine file's `[core]` (empty: it gives none).
    pub core: crate::CoreSpec,
    pub sockets: Vec<Socket>,
    pub memory_nodes: Vec<MemoryNode>,
    pub switches: Vec<Switch>,
    pub links: Vec<Link>,
    /// The on-chip mesh of a `[mesh]` table (quadrants = sockets), if any.
    pub mesh: Option<crate::mesh::Mesh>,
    /// `[socket][memory]`.
    routes_to_memory: Vec<Vec<Route>>,
    /// `[socket][socket]`.
    routes_between: Vec<Vec<Route>>,
    /// `[socket][memory]`, ns.
    load_latency: Vec<Vec<f64>>,
    /// `[socket]` → memory indices by (load latency, hops, index).
    nearest: Vec<Vec<usize>>,
}

impl Machine {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assemble(
        name: String,
        description: String,
        sockets: Vec<Socket>,
        memory_nodes: Vec<MemoryNode>,
        switches: Vec<Switch>,
        links: Vec<Link>,
        routes_to_memory: Vec<Vec<Route>>,
        routes_between: Vec<Vec<Route>>,
    ) -> Machine {
        let load_latency: Vec<Vec<f64>> = routes_to_memory
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&memory_nodes)
                    .map(|(r, m)| m.access_latency_ns + 2.0 * r.latency_ns)
                    .collect()
            })
            .collect();
        let nearest = load_latency
            .iter()
            .zip(&routes_to_memory)
            .map(|(lat, routes)| {
                let mut order: Vec<usize> = (0..memory_nodes.len()).collect();
                order.sort_by(|&x, &y| {
                    lat[x]
                        .total_cmp(&lat[y])
                        .then(routes[x].hops.cmp(&routes[y].hops))
                        .then(x.cmp(&y))
                });
                order
            })
            .collect();
        Machine {
            name,
            description,
            declared_coherence: None,
            core: crate::CoreSpec::default(),
            sockets,
            memory_nodes,
            switches,
            links,
            mesh: None,
            routes_to_memory,
            routes_between,
            load_latency,
            nearest,
        }
    }

    /// Parses and validates a machine description.
    pub fn from_source(source: &Source) -> Result<Machine, ConfigError> {
        let spec: MachineSpec = source.parse()?;
        validate::build(source, spec)
    }

    /// Parses machine TOML text; `origin` labels errors.
    pub fn from_text(origin: &str, text: &str) -> Result<Machine, ConfigError> {
        Machine::from_source(&Source::from_text(origin, text))
    }

    /// A preset name (see [`presets::list`]) or else a path to a TOML file.
    pub fn load(name_or_path: &str) -> Result<Machine, ConfigError> {
        Machine::from_source(&Machine::source(name_or_path)?)
    }

    /// [`load`](Self::load) with overrides of the machine's keys and shortcuts applied first
    /// ([`crate::overrides`]); also returns the overridden source, whose text
    /// ([`crate::overrides::resolved_text`]) is the machine as simulated.
    pub fn load_with_overrides(
        name_or_path: &str,
        overrides: &[numasim_config::Override],
    ) -> Result<(Machine, Source), ConfigError> {
        let source = crate::overrides::apply(&Machine::source(name_or_path)?, overrides)?;
        Ok((Machine::from_source(&source)?, source))
    }

    /// The text of a preset, or of a machine file.
    pub fn source(name_or_path: &str) -> Result<Source, ConfigError> {
        if let Some(text) = presets::get(name_or_path) {
            return Ok(Source::from_text(format!("<preset {name_or_path}>"), text));
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            let names: Vec<&str> = presets::list().iter().map(|(n, _)| *n).collect();
            return Err(ConfigError {
                file: name_or_path.to_string(),
                line: None,
                key: String::new(),
                message: format!(
                    "no machine preset of that name and no such file; presets: {}",
                    names.join(", ")
                ),
            });
        }
        Source::from_file(path)
    }

    /// The directory's coherence protocol: the declared one, else MOESI.
    pub fn coherence(&self) -> crate::Coherence {
        self.declared_coherence.unwrap_or_default()
    }

    pub fn num_sockets(&self) -> usize {
        self.sockets.len()
    }

    pub fn num_memory_nodes(&self) -> usize {
        self.memory_nodes.len()
    }

    pub fn total_cores(&self) -> u64 {
        self.sockets.iter().map(|s| u64::from(s.cores)).sum()
    }

    /// Socket index by name.
    pub fn socket_index(&self, name: &str) -> Option<usize> {
        self.sockets.iter().position(|s| s.name == name)
    }

    /// Memory node index by name.
    pub fn memory_index(&self, name: &str) -> Option<usize> {
        self.memory_nodes.iter().position(|m| m.name == name)
    }

    /// Memory nodes attached to (local to) a socket.
    pub fn local_memory(&self, socket: usize) -> impl Iterator<Item = usize> + '_ {
        self.memory_nodes
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.attached_socket == Some(socket))
            .map(|(i, _)| i)
    }

    /// Name of any vertex.
    pub fn node_name(&self, node: NodeRef) -> &str {
        match node {
            NodeRef::Socket(i) => &self.sockets[i].name,
            NodeRef::Memory(i) => &self.memory_nodes[i].name,
            NodeRef::Switch(i) => &self.switches[i].name,
        }
    }

    /// Derived route from a socket to a memory node. Panics on out-of-range indices.
    pub fn route_to_memory(&self, socket: usize, mem: usize) -> &Route {
        &self.routes_to_memory[socket][mem]
    }

    /// Derived route between two sockets (empty route when `a == b`).
    pub fn route_between_sockets(&self, a: usize, b: usize) -> &Route {
        &self.routes_between[a][b]
    }

    /// Unloaded load latency (ns): `access_latency_ns + 2 × route one-way latency`.
    pub fn load_latency_ns(&self, socket: usize, mem: usize) -> f64 {
        self.load_latency[socket][mem]
    }

    /// Rows = sockets, columns = memory nodes, ns.
    pub fn load_latency_matrix(&self) -> Vec<Vec<f64>> {
        self.load_latency.clone()
    }

    /// Links crossed from a socket to a memory node.
    pub fn hops(&self, socket: usize, mem: usize) -> u32 {
        self.routes_to_memory[socket][mem].hops
    }

    /// Memory nodes from nearest to farthest for a socket (ties: fewer hops, then lower index);
    /// the order for capacity fallback.
    pub fn nearest_memory_order(&self, socket: usize) -> &[usize] {
        &self.nearest[socket]
    }

    /// Peak bandwidth of one memory node, GB/s.
    pub fn peak_bandwidth_gbps(&self, mem: usize) -> f64 {
        self.memory_nodes[mem].peak_bandwidth_gbps()
    }

    /// Peak bandwidth of every memory node, GB/s, by index.
    pub fn peak_bandwidths_gbps(&self) -> Vec<f64> {
        self.memory_nodes.iter().map(MemoryNode::peak_bandwidth_gbps).collect()
    }

    /// A serialisable report of the machine and its derived values.
    pub fn summary(&self) -> crate::summary::MachineSummary {
        crate::summary::MachineSummary::of(self)
    }
}
