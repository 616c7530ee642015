//! Per-phase counters and their summary by access class, memory node and link.
//!
//! While simulating, only a (socket × memory node) matrix is incremented per memory access;
//! classes (local, remote by hop count, pool) and link traversals are derived from it at the
//! phase boundary using the machine's routes. That keeps the per-access cost to one increment
//! whatever the machine's size.

use std::collections::BTreeMap;

numasim_output::declare_stats! {
    /// Raw counters of one phase (a run's total by [`Stats::add`](numasim_output::stat::Stats::add)).
    #[derive(Debug, Clone, Default)]
    pub struct PhaseCounts {
        /// memory accesses (loads and stores) of every thread
        accesses: u64, Sum, unit "accesses";
        /// loads
        reads: u64, Sum, unit "accesses";
        /// stores
        writes: u64, Sum, unit "accesses";
        /// accesses the socket's LLC served
        llc_hits: u64, Sum, unit "accesses";
        /// demand accesses that reached memory (every access when the LLC filter is off)
        llc_misses: u64, Sum, unit "accesses";
        /// dirty LLC evictions written back to memory
        writebacks: u64, Sum, unit "lines";
        /// instructions retired, summed over threads
        instructions: u64, Sum, unit "instructions";
        /// pages first touched
        new_pages: u64, Sum, unit "pages";
        /// demand memory accesses by `[socket * nodes + node]`
        demand: Vec<u64>, Sum, unit "accesses";
        /// write-backs by `[socket * nodes + node]`
        writeback_to: Vec<u64>, Sum, unit "lines";
    }
}

impl PhaseCounts {
    pub fn new(sockets: usize, nodes: usize) -> Self {
        PhaseCounts {
            demand: vec![0; sockets * nodes],
            writeback_to: vec![0; sockets * nodes],
            ..Default::default()
        }
    }
}

/// What the summary needs to know of the machine, precomputed once per run.
#[derive(Debug, Clone)]
pub struct AccessClasses {
    pub sockets: usize,
    pub nodes: usize,
    pub node_names: Vec<String>,
    pub link_names: Vec<String>,
    /// Class name per `[socket * nodes + node]`.
    pub class_of: Vec<String>,
    /// Whether `[socket * nodes + node]` is the requester's own memory.
    pub is_local: Vec<bool>,
    /// Links (index, direction a→b) a request from the socket to the node crosses.
    pub route_links: Vec<Vec<(usize, bool)>>,
}

impl AccessClasses {
    /// Classes, node and link names and routes of every (socket, memory node) pair of `m`
    /// (class names from [`numasim_machine::AccessClass`]).
    pub fn of(m: &numasim_machine::Machine) -> Self {
        let (s_count, n_count) = (m.sockets.len(), m.memory_nodes.len());
        let mut class_of = Vec::with_capacity(s_count * n_count);
        let mut is_local = Vec::with_capacity(s_count * n_count);
        let mut route_links = Vec::with_capacity(s_count * n_count);
        for s in 0..s_count {
            for (n, node) in m.memory_nodes.iter().enumerate() {
                is_local.push(node.attached_socket == Some(s));
                class_of.push(m.access_class(s, n).name());
                route_links.push(
                    m.route_to_memory(s, n)
                        .links
                        .iter()
                        .map(|h| (h.link, h.a_to_b))
                        .collect(),
                );
            }
        }
        AccessClasses {
            sockets: s_count,
            nodes: n_count,
            node_names: m.memory_nodes.iter().map(|n| n.name.clone()).collect(),
            link_names: m.links.iter().map(|l| l.name.clone()).collect(),
            class_of,
            is_local,
            route_links,
        }
    }
}

/// A phase's (or the whole run's) counters and what results.json derives from them, written
/// as [`SUMMARY`] declares.
#[derive(Debug, Clone)]
pub struct PhaseSummary {
    /// The phase's counters (`demand` and `writeback_to` left empty: the maps below hold them).
    pub counts: PhaseCounts,
    /// Share of demand memory accesses served by the requester's own socket memory.
    pub local_fraction: f64,
    /// LLC misses per thousand instructions.
    pub llc_mpki: f64,
    /// LLC misses (reads and writes) by home of the page: `local`, `remote_<h>hop`, `pool`.
    pub by_class: BTreeMap<String, u64>,
    /// Demand memory accesses by serving memory node.
    pub by_node: BTreeMap<String, u64>,
    /// Memory messages crossing each link (requests one way, data the other), per direction.
    pub link_messages: BTreeMap<String, [u64; 2]>,
}

crate::declare_report! {
    /// The keys of a phase's (and the run's `totals`) counts, in the order results.json writes
    /// them.
    pub const SUMMARY for PhaseSummary {
        accesses: Value (counter PhaseCounts) = |s| Some(s.counts.accesses);
        reads: Value (counter PhaseCounts) = |s| Some(s.counts.reads);
        writes: Value (counter PhaseCounts) = |s| Some(s.counts.writes);
        instructions: Value (counter PhaseCounts) = |s| Some(s.counts.instructions);
        llc_hits: Value (counter PhaseCounts) = |s| Some(s.counts.llc_hits);
        llc_misses: Value (counter PhaseCounts) = |s| Some(s.counts.llc_misses);
        writebacks: Value (counter PhaseCounts) = |s| Some(s.counts.writebacks);
        new_pages: Value (counter PhaseCounts) = |s| Some(s.counts.new_pages);
        local_fraction: Value (
            "fraction 0–1",
            "share of demand memory accesses served by the requester's own socket's memory"
        ) = |s| Some(s.local_fraction);
        llc_mpki: Value ("misses per 1000 instructions", "LLC misses per thousand instructions") =
            |s| Some(s.llc_mpki);
        by_class: Names (
            "accesses",
            "LLC misses (reads and writes) by home of the page relative to the requester: `local`, `remote_<h>hop`, `pool`"
        ) = |s| Some(&s.by_class);
        by_node: Names ("accesses", "demand memory accesses by serving memory node") = |s| Some(&s.by_node);
        link_messages: NamesArray (
            "messages",
            "memory messages crossing each link, `[a→b, b→a]` (requests one way, data the other)"
        ) = |s| Some(&s.link_messages);
    }
}

impl AccessClasses {
    pub fn summarize(&self, c: &PhaseCounts) -> PhaseSummary {
        let mut by_class: BTreeMap<String, u64> = BTreeMap::new();
        let mut by_node: BTreeMap<String, u64> = self.node_names.iter().map(|n| (n.clone(), 0)).collect();
        let mut link_messages: BTreeMap<String, [u64; 2]> =
            self.link_names.iter().map(|n| (n.clone(), [0, 0])).collect();
        let mut local = 0u64;
        let mut link_counts = vec![[0u64; 2]; self.link_names.len()];
        for s in 0..self.sockets {
            for n in 0..self.nodes {
                let i = s * self.nodes + n;
                let d = c.demand[i];
                let w = c.writeback_to[i];
                if d > 0 {
                    *by_class.entry(self.class_of[i].clone()).or_default() += d;
                    *by_node.get_mut(&self.node_names[n]).expect("node name") += d;
                    if self.is_local[i] {
                        local += d;
                    }
                }
                if d + w > 0 {
                    // A demand read: request out, data back. A write-back: data out, ack back.
                    for &(link, a_to_b) in &self.route_links[i] {
                        let (out, back) = if a_to_b { (0, 1) } else { (1, 0) };
                        link_counts[link][out] += d + w;
                        link_counts[link][back] += d + w;
                    }
                }
            }
        }
        for (name, counts) in self.link_names.iter().zip(link_counts) {
            link_messages.insert(name.clone(), counts);
        }
        let mem = c.llc_misses.max(1) as f64;
        PhaseSummary {
            // The counts without their (socket × node) matrices, which the fields below
            // summarise: a record per phase keeps a few numbers, not sockets × nodes of them.
            counts: PhaseCounts {
                demand: Vec::new(),
                writeback_to: Vec::new(),
                ..*c
            },
            local_fraction: if c.llc_misses == 0 { 0.0 } else { local as f64 / mem },
            llc_mpki: if c.instructions == 0 {
                0.0
            } else {
                c.llc_misses as f64 * 1000.0 / c.instructions as f64
            },
            by_class,
            by_node,
            link_messages,
        }
    }
}
