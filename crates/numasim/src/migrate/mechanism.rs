//! Moving pages and what it costs, counted (there is no clock in functional mode).
//!
//! Every move goes through [`Ctx::move_page`], which enforces capacity, updates the simulator,
//! and records the move for the cost model:
//! - copy traffic: a 4 KiB page (the page size) is read from the source node and written to
//!   the destination by the copy engine of the destination's socket (or the source's when the
//!   destination is memory-only, e.g. a CXL pool; socket 0 when both are). Data bytes are
//!   counted per link direction along the machine's routes and per node (read / written);
//!   request and acknowledgement messages are not counted as bytes.
//! - TLB shootdowns: one per moved page. Hardware-assisted (StarNUMA, \[64\]): only the initiating
//!   core pays `shootdown_initiator_cycles`. Software: the initiator pays that plus every other
//!   core pays `shootdown_handler_cycles` (IPI + kernel entry + handler).
//!   `move-pages`: Linux `move_pages(2)` as HyDM uses it on KNL: software shootdowns as above,
//!   and in timing mode the kernel copies one page after another on the calling thread (see
//!   `TimingSim::charge_moves`) instead of a copy engine moving every page at once.
//! - stalls: an access to a page still being copied waits. Without a clock, the copy is
//!   modelled as proceeding in move order at `inflight_accesses_per_page` memory accesses of the
//!   next phase per page; accesses to a page before it lands are counted as stalled.
//! - OS scan cost: entries (tracker regions or pages) the policy's thread scans at a boundary,
//!   times `scan_cycles_per_entry`.
//! - tracker updates: the StarNUMA metadata read-modify-writes counted by the profiler.
//!
//! Cached lines of a moved page are kept: the simulated LLC is virtually tagged, so a move
//! does not change the lines' tags (a physically tagged LLC would have to flush them;
//! Tikir & Hollingsworth's Table 3 shows this effect to be under 1 % of write-backs).

use super::host::PageHost;
use serde::Serialize;
use std::collections::BTreeMap;

/// Machine facts the policies and the cost model need, precomputed once.
#[derive(Debug, Clone)]
pub struct MachineInfo {
    pub sockets: usize,
    pub nodes: usize,
    pub node_names: Vec<String>,
    pub link_names: Vec<String>,
    /// Nearest memory node of each socket (its local memory).
    pub local_node: Vec<usize>,
    /// Memory-only nodes (CXL pools).
    pub pool_nodes: Vec<usize>,
    pub attached_socket: Vec<Option<usize>>,
    /// `[socket][node]` unloaded load latency, ns.
    pub latency_ns: Vec<Vec<f64>>,
    /// Whether every entry of `latency_ns` is finite (set with it).
    pub latency_finite: bool,
    /// `[socket][..]` memory nodes nearest first.
    pub nearest: Vec<Vec<usize>>,
    /// `[socket * nodes + node]` links crossed by a request (index, a→b).
    pub route_links: Vec<Vec<(usize, bool)>>,
    /// `[node]` memory kind name (`dram`, `cxl-pool`, `mcdram`...).
    pub kind: Vec<String>,
    pub total_cores: u64,
    pub page_bytes: u64,
    /// Multi-process runs: threads of each process (a software shootdown interrupts the cores
    /// of the moved page's process only); empty for one workload (every other core).
    pub process_threads: Vec<u64>,
}

impl MachineInfo {
    pub fn from_machine(m: &numasim_machine::Machine, page_bytes: u64) -> Self {
        let classes = crate::stats::phase::AccessClasses::of(m);
        let sockets = m.sockets.len();
        let nodes = m.memory_nodes.len();
        MachineInfo {
            sockets,
            nodes,
            node_names: classes.node_names.clone(),
            link_names: classes.link_names.clone(),
            local_node: (0..sockets)
                .map(|s| m.local_memory(s).next().unwrap_or(m.nearest_memory_order(s)[0]))
                .collect(),
            pool_nodes: (0..nodes)
                .filter(|&n| m.memory_nodes[n].attached_socket.is_none())
                .collect(),
            attached_socket: m.memory_nodes.iter().map(|n| n.attached_socket).collect(),
            latency_ns: m.load_latency_matrix(),
            latency_finite: m.load_latency_matrix().iter().flatten().all(|l| l.is_finite()),
            nearest: (0..sockets).map(|s| m.nearest_memory_order(s).to_vec()).collect(),
            route_links: classes.route_links.clone(),
            kind: m
                .memory_nodes
                .iter()
                .map(|n| {
                    serde_json::to_value(n.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default()
                })
                .collect(),
            total_cores: m.total_cores(),
            process_threads: Vec::new(),
            page_bytes,
        }
    }

    /// The node with the lowest access-weighted load latency for a per-socket count row.
    pub fn best_node(&self, row: &[u32], allowed: impl Fn(usize) -> bool) -> Option<usize> {
        // Every node's cost accumulated socket by socket over the sockets that accessed the
        // page: each node's sum is taken in the same order as one node at a time, and a zero
        // count only adds an exact 0.0, so the costs are the same, for a fraction of the work.
        const MAX_NODES: usize = 64;
        let mut costs = [0f64; MAX_NODES];
        // (An infinite latency times a zero count is NaN, not 0.0: then every term counts.)
        let fast = self.nodes <= MAX_NODES && self.latency_finite;
        let costs = &mut costs[..if fast { self.nodes } else { 0 }];
        if fast {
            for (s, &c) in row.iter().enumerate().filter(|(_, &c)| c > 0) {
                let c = f64::from(c);
                for (cost, &lat) in costs.iter_mut().zip(&self.latency_ns[s]) {
                    *cost += c * lat;
                }
            }
        }
        let mut best = None;
        let mut best_cost = f64::INFINITY;
        for n in 0..self.nodes {
            if !allowed(n) {
                continue;
            }
            let cost: f64 = if n < costs.len() {
                costs[n]
            } else {
                row.iter()
                    .enumerate()
                    .map(|(s, &c)| f64::from(c) * self.latency_ns[s][n])
                    .sum()
            };
            if cost < best_cost {
                best_cost = cost;
                best = Some(n);
            }
        }
        best
    }

    fn copy_socket(&self, from: usize, to: usize) -> usize {
        self.attached_socket[to].or(self.attached_socket[from]).unwrap_or(0)
    }
}

/// How TLB shootdowns are done (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shootdown {
    /// Hardware-assisted: only the initiating core pays.
    Hardware,
    /// Software IPIs: every other core also runs the handler.
    Software,
    /// Hardware-assisted, initiated by an OS thread on a core of its own (StarNUMA §IV-C: "one
    /// dedicated core"): no application core stalls; in timing mode the k-th moved page is
    /// usable only once the scan and k shootdowns are done on that core.
    Dedicated,
    /// Linux `move_pages(2)`: software shootdowns, and the calling thread copies the pages
    /// one after another in the kernel (timing mode).
    MovePages,
}

impl Shootdown {
    /// The `shootdown` parameter's words, in the order of [`Shootdown::ALL`].
    pub const WORDS: &'static [&'static str] = &["hardware", "software", "dedicated", "move-pages"];
    pub const ALL: [Shootdown; 4] = [
        Shootdown::Hardware,
        Shootdown::Software,
        Shootdown::Dedicated,
        Shootdown::MovePages,
    ];

    /// Every other core runs an IPI handler per page.
    pub fn is_software(self) -> bool {
        matches!(self, Shootdown::Software | Shootdown::MovePages)
    }

    /// From the `shootdown` parameter (validated against [`Shootdown::WORDS`]).
    pub fn from_word(word: &str) -> Option<Shootdown> {
        Self::WORDS.iter().position(|w| *w == word).map(|i| Self::ALL[i])
    }
}

impl Shootdown {
    pub fn word(self) -> &'static str {
        Self::WORDS[self as usize]
    }
}

impl numasim_config::param::ParamKind for Shootdown {}

impl numasim_config::param::ParamValue for Shootdown {
    type Lit = Shootdown;
    fn from_lit(lit: Shootdown) -> Shootdown {
        lit
    }
    fn default_of(lit: Shootdown) -> numasim_config::param::ParamDefault {
        numasim_config::param::ParamDefault::Str(std::borrow::Cow::Borrowed(lit.word()))
    }
    fn from_value(v: &toml::Value) -> Option<Shootdown> {
        v.as_str().and_then(Shootdown::from_word)
    }
}

numasim_config::declare_params! {
    /// Named cost parameters (see the module docs), common to every policy but `none`.
    pub struct CostParams {
        /// TLB shootdown: hardware-assisted (initiator only), software IPIs, hardware from a dedicated OS core, or move-pages (software IPIs and the kernel copying page by page on the calling thread)
        shootdown: Shootdown = Shootdown::Hardware, unit "-", Check::Words(Shootdown::WORDS);
        /// cycles on the initiating core per page (StarNUMA: ~3K; timing mode stalls core 0)
        shootdown_initiator_cycles: u64 = 3000, unit "cycles", Check::Range(0.0, 1e12);
        /// software: IPI + handler cycles on every other core per page (timing mode stalls them)
        shootdown_handler_cycles: u64 = 5000, unit "cycles", Check::Range(0.0, 1e12);
        /// functional mode's copy speed proxy: the k-th moved page lands after k*N memory accesses of the next phase; accesses to it before then stall (timing mode books the real copy on links and DRAM instead)
        inflight_accesses_per_page: u64 = 64, unit "memory accesses", Check::Range(0.0, 1e12);
        /// OS thread cycles per tracker entry / page scanned at a boundary (StarNUMA: 2..10)
        scan_cycles_per_entry: u64 = 5, unit "cycles", Check::Range(0.0, 1e12);
    }
}

impl CostParams {
    /// Policy `none`: nothing moves, nothing is charged.
    pub fn free() -> Self {
        CostParams {
            shootdown: Shootdown::Hardware,
            shootdown_initiator_cycles: 0,
            shootdown_handler_cycles: 0,
            inflight_accesses_per_page: 0,
            scan_cycles_per_entry: 0,
        }
    }
}

/// Counted costs of a phase or a run.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Costs {
    /// Page bytes copied (each moved page once).
    pub copy_bytes: u64,
    /// Copy data bytes per link, `[a→b, b→a]`.
    pub copy_link_bytes: BTreeMap<String, [u64; 2]>,
    pub copy_read_bytes_per_node: BTreeMap<String, u64>,
    pub copy_write_bytes_per_node: BTreeMap<String, u64>,
    pub shootdowns: u64,
    /// Cycles spent on shootdowns, summed over cores.
    pub shootdown_cycles: u64,
    /// Memory accesses that waited for a page in flight.
    pub stalled_accesses: u64,
    /// Tracker entries / pages scanned by the OS thread.
    pub scan_entries: u64,
    pub scan_cycles: u64,
    /// StarNUMA tracker metadata memory accesses (2 per annex flush).
    pub tracker_update_accesses: u64,
}

impl Costs {
    pub fn add(&mut self, o: &Costs) {
        self.copy_bytes += o.copy_bytes;
        for (k, v) in &o.copy_link_bytes {
            let e = self.copy_link_bytes.entry(k.clone()).or_insert([0, 0]);
            e[0] += v[0];
            e[1] += v[1];
        }
        for (k, v) in &o.copy_read_bytes_per_node {
            *self.copy_read_bytes_per_node.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.copy_write_bytes_per_node {
            *self.copy_write_bytes_per_node.entry(k.clone()).or_default() += v;
        }
        self.shootdowns += o.shootdowns;
        self.shootdown_cycles += o.shootdown_cycles;
        self.stalled_accesses += o.stalled_accesses;
        self.scan_entries += o.scan_entries;
        self.scan_cycles += o.scan_cycles;
        self.tracker_update_accesses += o.tracker_update_accesses;
    }
}

/// One applied move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub page: u32,
    pub from: u16,
    pub to: u16,
}

/// What a policy may do at a boundary: read the simulator, move pages within capacity.
pub struct Ctx<'a> {
    pub sim: &'a mut dyn PageHost,
    pub mach: &'a MachineInfo,
    /// 1-based number of the phase that just ended.
    pub phase: u64,
    pub moves: Vec<Move>,
    /// Moves refused for lack of room at the destination.
    pub no_room: u64,
    /// Entries scanned by the policy's OS thread.
    pub scanned: u64,
    /// Per page: node it left at its last move (`u16::MAX` = never moved).
    pub(crate) left: &'a mut Vec<u16>,
    pub ping_pongs: u64,
}

impl<'a> Ctx<'a> {
    pub fn footprint(&self) -> u64 {
        self.sim.table().pages() as u64
    }

    pub fn pages(&self) -> usize {
        self.sim.table().pages()
    }

    pub fn capacity(&self, node: usize) -> u64 {
        self.sim.placement().capacity_pages(node, self.footprint())
    }

    pub fn used(&self, node: usize) -> u64 {
        self.sim.placement().used_pages()[node]
    }

    pub fn free(&self, node: usize) -> u64 {
        self.capacity(node).saturating_sub(self.used(node))
    }

    pub fn home(&self, page: usize) -> usize {
        self.sim.home()[page] as usize
    }

    /// Places a page on `to` as first touch would have, if `to` has room: no move recorded,
    /// nothing charged ([`PageHost::place_page`]).
    pub fn place_page(&mut self, page: u32, to: usize) -> bool {
        if self.home(page as usize) == to {
            return true;
        }
        if self.free(to) == 0 {
            self.no_room += 1;
            return false;
        }
        self.sim.place_page(page, to);
        true
    }

    /// Moves a page if the destination has room; false (and counted) when it has none.
    pub fn move_page(&mut self, page: u32, to: usize) -> bool {
        let from = self.home(page as usize);
        if from == to {
            return true;
        }
        if self.free(to) == 0 {
            self.no_room += 1;
            return false;
        }
        self.sim.move_page(page, to);
        if self.left.len() <= page as usize {
            self.left.resize(page as usize + 1, u16::MAX);
        }
        if self.left[page as usize] == to as u16 {
            self.ping_pongs += 1;
        }
        self.left[page as usize] = from as u16;
        self.moves.push(Move {
            page,
            from: from as u16,
            to: to as u16,
        });
        true
    }
}

/// Costs of a list of moves.
/// `process_of`: the process of a page id (multi-process runs; see [`MachineInfo::process_threads`]).
pub fn move_costs(
    mach: &MachineInfo,
    params: &CostParams,
    moves: &[Move],
    process_of: Option<&dyn Fn(u32) -> usize>,
) -> Costs {
    let mut c = Costs::default();
    let page = mach.page_bytes;
    let mut links = vec![[0u64; 2]; mach.link_names.len()];
    let mut read = vec![0u64; mach.nodes];
    let mut write = vec![0u64; mach.nodes];
    for m in moves {
        let (from, to) = (m.from as usize, m.to as usize);
        let s = mach.copy_socket(from, to);
        // Read: data flows memory → socket (against the request direction).
        for &(l, a_to_b) in &mach.route_links[s * mach.nodes + from] {
            links[l][usize::from(a_to_b)] += page;
        }
        // Write: data flows socket → memory (with the request direction).
        for &(l, a_to_b) in &mach.route_links[s * mach.nodes + to] {
            links[l][usize::from(!a_to_b)] += page;
        }
        read[from] += page;
        write[to] += page;
    }
    c.copy_bytes = page * moves.len() as u64;
    for (name, v) in mach.link_names.iter().zip(links) {
        if v != [0, 0] {
            c.copy_link_bytes.insert(name.clone(), v);
        }
    }
    for n in 0..mach.nodes {
        if read[n] > 0 {
            c.copy_read_bytes_per_node.insert(mach.node_names[n].clone(), read[n]);
        }
        if write[n] > 0 {
            c.copy_write_bytes_per_node.insert(mach.node_names[n].clone(), write[n]);
        }
    }
    c.shootdowns = moves.len() as u64;
    c.shootdown_cycles = moves.len() as u64 * params.shootdown_initiator_cycles;
    if params.shootdown.is_software() {
        // Handlers: every other core, or (several processes) every core of the page's process.
        let handlers: u64 = match process_of {
            Some(f) if !mach.process_threads.is_empty() => moves
                .iter()
                .map(|m| mach.process_threads.get(f(m.page)).copied().unwrap_or(0))
                .sum(),
            _ => moves.len() as u64 * mach.total_cores.saturating_sub(1),
        };
        c.shootdown_cycles += handlers * params.shootdown_handler_cycles;
    }
    c
}
