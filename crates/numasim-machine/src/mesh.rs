//! An on-chip mesh inside the machine (Zaourar et al.): routers at coordinates,
//! request nodes (cores), home nodes (SLC slices), memory controllers at the edge, virtual
//! networks, quadrants that are the NUMA nodes.
//!
//! Why a `[mesh]` table beside the sockets rather than a new kind of machine: the quadrants
//! stay the machine's sockets (cores, LLC capacity) and their memory stays the machine's memory
//! nodes (DRAM grade, channels, capacity), so every other part of numasim still reads the
//! machine as before; the mesh only says where each of those parts sits on the chip and how
//! packets move between them. The validator holds the two descriptions together (quadrant q
//! is socket q and memory node q; its request nodes carry exactly the socket's cores, its
//! slices exactly its LLC, its controllers split the node's channels evenly), so they cannot
//! drift apart. Every error names file, line and key (`mesh.<key>`).

use crate::locate::error;
use crate::topology::{MemoryNode, Socket};
use numasim_config::{ConfigError, Source};

/// Largest mesh side (routers per row or column).
pub const MAX_MESH_SIDE: u32 = 64;
/// Quadrants (NUMA nodes) of one mesh: per-pair packet counters are quadrants².
pub const MAX_QUADRANTS: usize = 256;
/// Parallel links per VNET (the paper's L2 has 2).
pub const MAX_LINKS_PER_VNET: u32 = 16;
/// Tracker entries of one slice or controller.
pub const MAX_TRACKERS: u32 = 4096;
/// Tracker entries of all slices (or all controllers) of a mesh.
pub const MAX_TRACKER_ENTRIES: u64 = 1 << 22;
/// Virtual channels per VNET at one router input port.
pub const MAX_VCS_PER_VNET: u32 = 64;
/// Cycles of any one per-hop latency (router pipeline, link).
pub const MAX_HOP_CYCLES: u32 = 1000;

numasim_config::declare_params! {
    /// The `[mesh]` table as written.
    pub section struct MeshSpec {
        /// routers per row (x runs 0..cols)
        cols: u32, unit "routers", Check::Range(1.0, MAX_MESH_SIDE as f64);
        /// routers per column (y runs 0..rows)
        rows: u32, unit "routers", Check::Range(1.0, MAX_MESH_SIDE as f64);
        /// quadrants across (dividing cols); quadrant q is socket q and memory node q
        quadrant_cols: u32, unit "quadrants", Check::Range(1.0, MAX_MESH_SIDE as f64);
        /// quadrants down (dividing rows), numbered row by row from [0, 0] (with 2 × 2, quadrant 3 is diagonal to 0)
        quadrant_rows: u32, unit "quadrants", Check::Range(1.0, MAX_MESH_SIDE as f64);
        /// NoC clock
        freq_ghz: f64, unit "GHz", Check::Range(0.01, 100.0);
        /// router pipeline per router traversed
        router_cycles: u32, unit "NoC cycles", Check::Range(0.0, MAX_HOP_CYCLES as f64);
        /// link between two routers of one quadrant
        link_cycles: u32, unit "NoC cycles", Check::Range(0.0, MAX_HOP_CYCLES as f64);
        /// link between routers of adjacent quadrants
        inter_quadrant_link_cycles: u32, unit "NoC cycles", Check::Range(0.0, MAX_HOP_CYCLES as f64);
        /// bytes per link per cycle (one flit per cycle)
        link_width_bytes: u32, unit "bytes/cycle", Check::Range(1.0, 4096.0);
        /// parallel links per direction for each of REQ, SNP, RSP, DAT (1: the reference design)
        links_per_vnet: u32 = 1, unit "links", Check::Range(1.0, MAX_LINKS_PER_VNET as f64);
        /// one link per direction carries all VNETs (L0)
        shared_link: bool = false, unit "-", Check::Any;
        /// control bytes of every packet; data = header + 64
        header_bytes: u32, unit "bytes", Check::Range(0.0, 1024.0);
        /// cores behind each request node
        cores_per_request_node: u32, unit "cores", Check::Range(1.0, 64.0);
        /// SLC slices behind each home node
        slices_per_home_node: u32, unit "slices", Check::Range(1.0, 64.0);
        /// bytes of one SLC slice (a multiple of 64)
        slc_slice_bytes: u64, unit "bytes", Check::Range(4096.0, (1u64 << 28) as f64);
        /// SLC slice associativity (dividing the slice's lines)
        slc_ways: u32, unit "ways", Check::Range(1.0, 64.0);
        /// slice tag + data access
        slc_hit_cycles: u32, unit "NoC cycles", Check::Range(0.0, MAX_HOP_CYCLES as f64);
        /// bytes to one memory controller before the next (a power of two)
        mc_interleave_bytes: u64, unit "bytes", Check::Range(64.0, (1u64 << 30) as f64);
        /// router [x, y] of each request node
        request_nodes: Vec<[u32; 2]>, unit "[x, y]", Check::Any;
        /// router [x, y] of each home node
        home_nodes: Vec<[u32; 2]>, unit "[x, y]", Check::Any;
        /// router [x, y] of each memory controller
        memory_controllers: Vec<[u32; 2]>, unit "[x, y]", Check::Any;
        /// one NUMA node per quadrant (false: one node over all controllers)
        numa: bool = true, unit "-", Check::Any;
        /// each node's memory interleaved over its quadrant's slices (needs numa)
        cache_groups: bool = true, unit "-", Check::Any;
        /// requests one SLC slice's home node tracks at once; a request beyond them waits at its injecting router (0: unbounded)
        home_node_trackers: u32 = 0, unit "requests", Check::Range(0.0, MAX_TRACKERS as f64);
        /// reads one memory controller tracks at once (0: unbounded)
        controller_trackers: u32 = 0, unit "reads", Check::Range(0.0, MAX_TRACKERS as f64);
        /// one-packet VCs per VNET at each router input port, credit flow control (0: unbounded buffers)
        router_vcs_per_vnet: u32 = 0, unit "VCs", Check::Range(0.0, MAX_VCS_PER_VNET as f64);
        /// a request without a free tracker waits in the destination router's buffer, holding its VC (false: at its source); needs router buffers
        tracker_wait_in_network: bool = false, unit "-", Check::Any;
        /// a request without a free home-node tracker gets RetryAck and is sent again on the home node's credit grant (PCrdGrant), the entry reserved meanwhile (false: it waits at its source)
        home_node_retry: bool = false, unit "-", Check::Any;
        /// with home_node_retry: a requester refused by a home node sends it no new request until it holds that home's credit grant (gem5 CHI's throttle_req_on_retry)
        retry_throttle: bool = false, unit "-", Check::Any;
        /// a read that misses the SLC, for a line no other private cache holds, gets its data from the memory controller directly (CHI's DMT), and the SLC keeps no copy of it (false: the data goes through the home node, which keeps it)
        direct_memory_transfer: bool = false, unit "-", Check::Any;
    }
}

/// A validated mesh. Request nodes, home nodes and controllers are listed in file order;
/// `quadrant_of_*` give each one's quadrant, and `*_in` list them per quadrant.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    pub cols: u32,
    pub rows: u32,
    pub quadrant_cols: u32,
    pub quadrant_rows: u32,
    pub freq_ghz: f64,
    pub router_cycles: u32,
    pub link_cycles: u32,
    pub inter_quadrant_link_cycles: u32,
    pub link_width_bytes: u32,
    pub links_per_vnet: u32,
    pub shared_link: bool,
    pub header_bytes: u32,
    pub cores_per_request_node: u32,
    pub slices_per_home_node: u32,
    pub slc_slice_bytes: u64,
    pub slc_ways: u32,
    pub slc_hit_cycles: u32,
    pub mc_interleave_bytes: u64,
    pub request_nodes: Vec<[u32; 2]>,
    pub home_nodes: Vec<[u32; 2]>,
    pub memory_controllers: Vec<[u32; 2]>,
    pub numa: bool,
    pub cache_groups: bool,
    /// Tracker entries per SLC slice and per memory controller (0: unbounded).
    pub home_node_trackers: u32,
    pub controller_trackers: u32,
    /// Virtual channels per VNET per router input port (0: unbounded).
    pub router_vcs_per_vnet: u32,
    /// Requests without a free tracker wait in the destination router's buffer, not at the source.
    pub tracker_wait_in_network: bool,
    /// Requests without a free home-node tracker are retried (RetryAck, PCrdGrant, re-send).
    pub home_node_retry: bool,
    /// A requester refused by a home node holds its next requests to it until the credit grant.
    pub retry_throttle: bool,
    /// SLC-missing reads of lines no other core holds: data memory → requester, no SLC fill.
    pub direct_memory_transfer: bool,
    /// Per quadrant: indices into `request_nodes`, `home_nodes`, `memory_controllers`.
    pub request_nodes_in: Vec<Vec<usize>>,
    pub home_nodes_in: Vec<Vec<usize>>,
    pub controllers_in: Vec<Vec<usize>>,
    /// DRAM channels of each controller (its node's channels split evenly).
    pub channels_per_controller: Vec<u32>,
}

impl Mesh {
    pub fn quadrants(&self) -> usize {
        (self.quadrant_cols * self.quadrant_rows) as usize
    }
    pub fn routers(&self) -> usize {
        (self.cols * self.rows) as usize
    }
    /// Router index of `[x, y]`.
    pub fn router(&self, at: [u32; 2]) -> usize {
        (at[1] * self.cols + at[0]) as usize
    }
    /// Quadrant of router `[x, y]`.
    pub fn quadrant_of(&self, at: [u32; 2]) -> usize {
        let qw = self.cols / self.quadrant_cols;
        let qh = self.rows / self.quadrant_rows;
        ((at[1] / qh) * self.quadrant_cols + at[0] / qw) as usize
    }
    /// Slices in all (each home node holds `slices_per_home_node`).
    pub fn slices(&self) -> usize {
        self.home_nodes.len() * self.slices_per_home_node as usize
    }
    /// Cores in all.
    pub fn cores(&self) -> usize {
        self.request_nodes.len() * self.cores_per_request_node as usize
    }
}

/// Checks `spec` against itself and against the machine's sockets (quadrants) and memory nodes.
pub(crate) fn build(
    src: &Source,
    spec: MeshSpec,
    sockets: &[Socket],
    memory: &[MemoryNode],
) -> Result<Mesh, ConfigError> {
    let err = |key: &str, msg: String| Err(error(src, format!("mesh.{key}"), msg));
    crate::locate::ranges(src, "mesh.", &spec)?;
    if !spec.cols.is_multiple_of(spec.quadrant_cols) {
        return err("quadrant_cols", format!("must divide cols = {} evenly", spec.cols));
    }
    if !spec.rows.is_multiple_of(spec.quadrant_rows) {
        return err("quadrant_rows", format!("must divide rows = {} evenly", spec.rows));
    }
    if spec.shared_link && spec.links_per_vnet != 1 {
        return err(
            "links_per_vnet",
            "a shared link (L0) is one link for all VNETs: leave links_per_vnet at 1".into(),
        );
    }
    if !spec.slc_slice_bytes.is_multiple_of(64) {
        return err("slc_slice_bytes", "must be a multiple of 64".into());
    }
    if !(spec.slc_slice_bytes / 64).is_multiple_of(u64::from(spec.slc_ways)) {
        return err("slc_ways", "must divide the slice's lines".into());
    }
    if !spec.mc_interleave_bytes.is_power_of_two() {
        return err("mc_interleave_bytes", "must be a power of two".into());
    }
    if spec.tracker_wait_in_network && spec.router_vcs_per_vnet == 0 {
        return err(
            "tracker_wait_in_network",
            "a request waits in a router buffer: it needs router_vcs_per_vnet > 0".into(),
        );
    }
    if spec.home_node_retry && (spec.home_node_trackers == 0 || spec.tracker_wait_in_network) {
        return err(
            "home_node_retry",
            "a retried request waits for a free home-node tracker: it needs home_node_trackers > 0 and tracker_wait_in_network = false".into(),
        );
    }
    if spec.retry_throttle && !spec.home_node_retry {
        return err(
            "retry_throttle",
            "the throttle holds requests after a RetryAck: it needs home_node_retry = true".into(),
        );
    }
    if spec.cache_groups && !spec.numa {
        return err(
            "cache_groups",
            "cache groups split the slices by NUMA node: they need numa = true".into(),
        );
    }
    let quadrants = (spec.quadrant_cols * spec.quadrant_rows) as usize;
    if quadrants > MAX_QUADRANTS {
        return err(
            "quadrant_cols",
            format!("at most {MAX_QUADRANTS} quadrants, got {quadrants}"),
        );
    }
    if quadrants != sockets.len() {
        return err(
            "quadrant_cols",
            format!(
                "{quadrants} quadrants, but the machine has {} sockets (one socket per quadrant)",
                sockets.len()
            ),
        );
    }
    if memory.len() != quadrants {
        return err(
            "memory_controllers",
            format!(
                "{quadrants} quadrants, but the machine has {} memory nodes (one per quadrant)",
                memory.len()
            ),
        );
    }
    for (q, m) in memory.iter().enumerate() {
        if m.attached_socket != Some(q) {
            return err(
                "memory_controllers",
                format!(
                    "memory node {q} (`{}`) must be attached to socket {q} (`{}`)",
                    m.name, sockets[q].name
                ),
            );
        }
    }
    let mut mesh = Mesh {
        cols: spec.cols,
        rows: spec.rows,
        quadrant_cols: spec.quadrant_cols,
        quadrant_rows: spec.quadrant_rows,
        freq_ghz: spec.freq_ghz,
        router_cycles: spec.router_cycles,
        link_cycles: spec.link_cycles,
        inter_quadrant_link_cycles: spec.inter_quadrant_link_cycles,
        link_width_bytes: spec.link_width_bytes,
        links_per_vnet: spec.links_per_vnet,
        shared_link: spec.shared_link,
        header_bytes: spec.header_bytes,
        cores_per_request_node: spec.cores_per_request_node,
        slices_per_home_node: spec.slices_per_home_node,
        slc_slice_bytes: spec.slc_slice_bytes,
        slc_ways: spec.slc_ways,
        slc_hit_cycles: spec.slc_hit_cycles,
        mc_interleave_bytes: spec.mc_interleave_bytes,
        request_nodes: Vec::new(),
        home_nodes: Vec::new(),
        memory_controllers: Vec::new(),
        numa: spec.numa,
        cache_groups: spec.cache_groups,
        home_node_trackers: spec.home_node_trackers,
        controller_trackers: spec.controller_trackers,
        router_vcs_per_vnet: spec.router_vcs_per_vnet,
        tracker_wait_in_network: spec.tracker_wait_in_network,
        home_node_retry: spec.home_node_retry,
        retry_throttle: spec.retry_throttle,
        direct_memory_transfer: spec.direct_memory_transfer,
        request_nodes_in: vec![Vec::new(); quadrants],
        home_nodes_in: vec![Vec::new(); quadrants],
        controllers_in: vec![Vec::new(); quadrants],
        channels_per_controller: Vec::new(),
    };
    let lists = [
        ("request_nodes", &spec.request_nodes),
        ("home_nodes", &spec.home_nodes),
        ("memory_controllers", &spec.memory_controllers),
    ];
    let max_entries = mesh.routers() * 4;
    for (li, (key, list)) in lists.iter().enumerate() {
        if list.is_empty() {
            return err(key, "must list at least one router [x, y]".into());
        }
        if list.len() > max_entries {
            return err(key, format!("at most {max_entries} entries on this mesh"));
        }
        let mut seen = vec![false; mesh.routers()];
        for (i, &at) in list.iter().enumerate() {
            if at[0] >= spec.cols || at[1] >= spec.rows {
                return err(
                    key,
                    format!(
                        "entry {i} [{}, {}] is outside the {}x{} mesh",
                        at[0], at[1], spec.cols, spec.rows
                    ),
                );
            }
            let r = mesh.router(at);
            if seen[r] {
                return err(key, format!("entry {i} [{}, {}] is listed twice", at[0], at[1]));
            }
            seen[r] = true;
            let q = mesh.quadrant_of(at);
            match li {
                0 => mesh.request_nodes_in[q].push(i),
                1 => mesh.home_nodes_in[q].push(i),
                _ => mesh.controllers_in[q].push(i),
            }
        }
    }
    mesh.request_nodes = spec.request_nodes;
    mesh.home_nodes = spec.home_nodes;
    mesh.memory_controllers = spec.memory_controllers;
    for q in 0..quadrants {
        let cores = mesh.request_nodes_in[q].len() as u64 * u64::from(mesh.cores_per_request_node);
        if cores != u64::from(sockets[q].cores) {
            return err(
                "request_nodes",
                format!(
                    "quadrant {q} has {cores} cores on the mesh, but socket `{}` has {}",
                    sockets[q].name, sockets[q].cores
                ),
            );
        }
        let slc = mesh.home_nodes_in[q].len() as u64 * u64::from(mesh.slices_per_home_node) * mesh.slc_slice_bytes;
        if slc != sockets[q].llc_bytes {
            return err(
                "home_nodes",
                format!(
                    "quadrant {q} has {slc} bytes of SLC on the mesh, but socket `{}` has llc_bytes = {}",
                    sockets[q].name, sockets[q].llc_bytes
                ),
            );
        }
        let mcs = mesh.controllers_in[q].len() as u32;
        if mcs == 0 || !memory[q].channels.is_multiple_of(mcs) {
            return err(
                "memory_controllers",
                format!(
                    "quadrant {q} has {mcs} controllers; they must split memory node `{}`'s {} channels evenly",
                    memory[q].name, memory[q].channels
                ),
            );
        }
    }
    // Tracker tables are allocated per slice and per controller: bound their total.
    for (key, devices, per) in [
        ("home_node_trackers", mesh.slices() as u64, mesh.home_node_trackers),
        (
            "controller_trackers",
            mesh.memory_controllers.len() as u64,
            mesh.controller_trackers,
        ),
    ] {
        if devices * u64::from(per) > MAX_TRACKER_ENTRIES {
            return err(
                key,
                format!("{per} per device on {devices} devices exceeds {MAX_TRACKER_ENTRIES} entries in all"),
            );
        }
    }
    mesh.channels_per_controller = mesh
        .memory_controllers
        .iter()
        .map(|&at| {
            let q = mesh.quadrant_of(at);
            memory[q].channels / mesh.controllers_in[q].len() as u32
        })
        .collect();
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use crate::Machine;

    fn two_quadrants(mesh_extra: &str) -> String {
        format!(
            r#"name = "tiny-mesh"

[[sockets]]
name = "q0"
cores = 4
freq_ghz = 2.0
llc_bytes = 131072
llc_ways = 16

[[sockets]]
name = "q1"
cores = 4
freq_ghz = 2.0
llc_bytes = 131072
llc_ways = 16

[[memory]]
name = "m0"
kind = "hbm"
capacity_bytes = 1073741824
channels = 2
dram = "hbm2"
access_latency_ns = 100.0
socket = "q0"

[[memory]]
name = "m1"
kind = "hbm"
capacity_bytes = 1073741824
channels = 2
dram = "hbm2"
access_latency_ns = 100.0
socket = "q1"

[[links]]
a = "q0"
b = "q1"
bandwidth_gbps = 100.0
latency_ns = 2.0

[mesh]
cols = 4
rows = 2
quadrant_cols = 2
quadrant_rows = 1
freq_ghz = 2.0
router_cycles = 1
link_cycles = 1
inter_quadrant_link_cycles = 3
link_width_bytes = 64
header_bytes = 8
cores_per_request_node = 2
slices_per_home_node = 1
slc_slice_bytes = 65536
slc_ways = 16
slc_hit_cycles = 10
mc_interleave_bytes = 256
request_nodes = [[0, 0], [1, 1], [2, 0], [3, 1]]
home_nodes = [[1, 0], [0, 1], [3, 0], [2, 1]]
memory_controllers = [[0, 0], [3, 0]]
{mesh_extra}
"#
        )
    }

    #[test]
    fn a_small_two_quadrant_mesh_validates() {
        let m = Machine::from_text("tiny.toml", &two_quadrants("")).unwrap();
        let mesh = m.mesh.as_ref().unwrap();
        assert_eq!(mesh.quadrants(), 2);
        assert_eq!(mesh.request_nodes_in, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(mesh.home_nodes_in, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(mesh.channels_per_controller, vec![2, 2]);
        assert_eq!(mesh.quadrant_of([2, 1]), 1);
        assert_eq!(mesh.slices(), 4);
    }

    fn refused(text: &str) -> numasim_config::ConfigError {
        Machine::from_text("tiny.toml", text).unwrap_err()
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let text = two_quadrants("").replace("link_cycles = 1\n", "link_cycles = 5000\n");
        let e = refused(&text);
        assert_eq!(e.file, "tiny.toml");
        assert_eq!(e.key, "mesh.link_cycles");
        let line = text.lines().position(|l| l.starts_with("link_cycles")).unwrap() + 1;
        assert_eq!(e.line, Some(line), "{e}");

        let text = two_quadrants("").replace("[3, 1]]", "[9, 1]]");
        let e = refused(&text);
        assert_eq!(e.key, "mesh.request_nodes");
        assert!(e.message.contains("outside"), "{e}");
        assert!(e.line.is_some());

        // One request node fewer: quadrant 1 has 2 cores, socket q1 says 4.
        let e = refused(&two_quadrants("").replace(", [3, 1]]", "]"));
        assert_eq!(e.key, "mesh.request_nodes");
        assert!(e.message.contains("socket `q1`"), "{e}");

        let e = refused(&two_quadrants("numa = false\n"));
        assert_eq!(e.key, "mesh.cache_groups");

        let e = refused(&two_quadrants("shared_link = true\nlinks_per_vnet = 2\n"));
        assert_eq!(e.key, "mesh.links_per_vnet");

        let e = refused(&two_quadrants("home_node_trackers = 5000\n"));
        assert_eq!(e.key, "mesh.home_node_trackers");
        assert!(e.line.is_some());

        let e = refused(&two_quadrants("router_vcs_per_vnet = 65\n"));
        assert_eq!(e.key, "mesh.router_vcs_per_vnet");
        assert!(e.message.contains("0..=64"), "{e}");
        assert!(e.line.is_some());

        let e = refused(&two_quadrants("tracker_wait_in_network = true\n"));
        assert_eq!(e.key, "mesh.tracker_wait_in_network");
        assert!(e.message.contains("router_vcs_per_vnet"), "{e}");

        let e = refused(&two_quadrants("home_node_retry = true\n"));
        assert_eq!(e.key, "mesh.home_node_retry");
        assert!(e.message.contains("home_node_trackers"), "{e}");
        assert!(e.line.is_some());

        let e = refused(&two_quadrants("retry_throttle = true\n"));
        assert_eq!(e.key, "mesh.retry_throttle");
        assert!(e.message.contains("home_node_retry"), "{e}");
        assert!(e.line.is_some());

        let e = refused(&two_quadrants("unknown_key = 1\n"));
        assert!(e.message.contains("unknown_key"), "{e}");

        // 3 controllers in quadrant 0 cannot split its 2 channels.
        let e = refused(&two_quadrants("").replace("[[0, 0], [3, 0]]", "[[0, 0], [0, 1], [1, 0], [3, 0]]"));
        assert_eq!(e.key, "mesh.memory_controllers");
    }
}
