//! What timing mode adds to results.json (`timing` at the top level and in every phase).

use super::engine::{ClassSums, TimingCounts, TimingSim};
use numasim_machine::Machine;
use numasim_output::stat::Stats;
use serde::Serialize;
use std::collections::BTreeMap;

/// Fewest LLC-miss loads a class mean is reported from without a mark: below it the mean is
/// still given (with its `count`) but `few_samples` is set, and the CLI and the report flag it.
/// 100 loads put the standard error of a mean under a tenth of the loads' spread, which is
/// what tells two classes' means apart; a handful of loads can be one queueing burst or one
/// wait for a page in flight.
pub const MIN_CLASS_LOADS: u64 = 100;

/// Means over one class's LLC-miss loads, ns.
#[derive(Debug, Clone, Serialize)]
pub struct ClassAmat {
    pub count: u64,
    pub mean: f64,
    pub unloaded: f64,
    pub contention: f64,
    /// Set when `count` is below [`MIN_CLASS_LOADS`]: the mean is not representative.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub few_samples: bool,
}

/// `unloaded` and `contention` here are *measured* per access: the fixed latencies plus the
/// DRAM command time of the access's own row outcome (so a row hit lowers `unloaded`), and
/// every queueing wait. [`AnalyticalSplit`] is the other split, the paper's. The means are
/// `null` ("no data", not 0) when no LLC-miss load was timed.
#[derive(Debug, Clone, Serialize)]
pub struct Amat {
    /// LLC-miss loads the means are over.
    pub loads: u64,
    /// Mean over every LLC-miss load, ns.
    pub total: Option<f64>,
    pub unloaded: Option<f64>,
    pub contention: Option<f64>,
    pub by_class: BTreeMap<String, ClassAmat>,
    /// StarNUMA Fig. 8b's split of the same `total` (`null` when `total` is).
    pub analytical: Option<AnalyticalSplit>,
}

/// The AMAT split as StarNUMA §V-A (Fig. 8b) defines it, which is not the measured one:
/// `unloaded` = Σ over classes of (the class's share of LLC-miss loads × its *nominal*
/// unloaded latency), `contention` = measured `total` − that. Nominal latencies come from the
/// machine: a memory class's mean `load_latency_ns` over the (socket, node) pairs of that
/// class; a block transfer's mean unloaded latency over requester R, owner O ≠ R and home H (a
/// socket's memory for `block_transfer`, a pool for `block_transfer_via_pool`; StarNUMA 413 /
/// 280 ns).
///
/// `contention` = `queueing` + `service_vs_nominal`: the measured queueing waits (never
/// negative) plus how far the loads' measured service time (fixed latencies and their own
/// DRAM row outcomes) is from the nominal one. A nominal latency is an access to an idle bank
/// (a row miss), so row hits make `service_vs_nominal` negative, and when they outweigh the
/// queueing, `contention` is negative: the loads were served faster than the nominal
/// latencies say, not "negative contention".
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnalyticalSplit {
    pub unloaded: f64,
    pub contention: f64,
    /// Mean queueing wait per load (the measured split's `contention`), ≥ 0.
    pub queueing: f64,
    /// Measured service time minus the nominal `unloaded`, mean per load (negative: faster).
    pub service_vs_nominal: f64,
    /// Block-transfer loads whose home is a pool (the rest of `block_transfer` are socket-homed).
    pub block_transfer_loads_via_pool: u64,
    /// Per class, the nominal unloaded latency used, ns.
    pub nominal_ns: BTreeMap<String, f64>,
}

/// Nominal unloaded latency per class (see [`AnalyticalSplit`]), indexed like the engine's
/// class names (the block-transfer class holds the socket-home figure), and of a block
/// transfer through a pool home (`None` on machines without a pool).
#[derive(Debug, Clone)]
pub struct NominalLatency {
    pub by_class_ns: Vec<f64>,
    pub bt_via_pool_ns: Option<f64>,
}

impl NominalLatency {
    /// From the machine's derived routes: `names` are the engine's class names (last one
    /// `block_transfer`), `snoop_ns` the timing spec's `owner_snoop_ns`.
    pub fn of(m: &Machine, names: &[String], snoop_ns: f64) -> Self {
        let (sockets, nodes) = (m.sockets.len(), m.memory_nodes.len());
        let mut sum = vec![(0.0f64, 0u64); names.len()];
        for s in 0..sockets {
            for n in 0..nodes {
                let name = m.access_class(s, n).name();
                if let Some(i) = names.iter().position(|c| *c == name) {
                    sum[i].0 += m.load_latency_ns(s, n);
                    sum[i].1 += 1;
                }
            }
        }
        let d = |s: usize, n: usize| m.route_to_memory(s, n).latency_ns;
        // Unloaded block transfer (timing/mod.rs "Calibration"): the home's access latency
        // and the owner's snoop, plus R→H, H→O and O→R (socket home) or R→H, H→O, O→H, H→R
        // (pool home).
        let bt_mean = |pool: bool| {
            let (mut total, mut k) = (0.0, 0u64);
            for h in (0..nodes).filter(|&h| m.memory_nodes[h].attached_socket.is_none() == pool) {
                for r in 0..sockets {
                    for o in (0..sockets).filter(|&o| o != r) {
                        let net = if pool {
                            2.0 * d(r, h) + 2.0 * d(o, h)
                        } else {
                            d(r, h) + d(o, h) + m.route_between_sockets(o, r).latency_ns
                        };
                        total += m.memory_nodes[h].access_latency_ns + snoop_ns + net;
                        k += 1;
                    }
                }
            }
            (k > 0).then(|| total / k as f64)
        };
        let mut by_class_ns: Vec<f64> = sum.iter().map(|&(t, k)| t / k.max(1) as f64).collect();
        if let (Some(last), Some(bt)) = (by_class_ns.last_mut(), bt_mean(false)) {
            *last = bt;
        }
        NominalLatency {
            by_class_ns,
            bt_via_pool_ns: bt_mean(true),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Ipc {
    pub mean: f64,
    pub per_core: Vec<f64>,
    pub per_socket: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadTiming {
    pub socket: String,
    pub instructions: u64,
    pub llc_misses: u64,
    pub llc_mpki: f64,
    pub ipc: f64,
    pub time_ns: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DirUse {
    pub bytes: u64,
    pub messages: u64,
    pub utilisation: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeDram {
    pub accesses: u64,
    pub row_hit_fraction: f64,
    pub channel_utilisation: Vec<f64>,
}

/// How each node's `access_latency_ns` is split (see the module docs).
#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    pub access_latency_ns: f64,
    pub lookup_path_ns: f64,
    /// DRAM time of an unloaded access to an idle bank (an activate when refresh or a closed
    /// page leaves idle banks closed, else a row miss).
    pub dram_idle_access_ns: f64,
    pub onchip_fixed_ns: f64,
    /// > 0 when the closed form alone exceeds `access_latency_ns` (fixed part clamped to 0).
    pub excess_ns: f64,
}

/// What timing mode adds at the top level of results.json, written as [`TIMING_RESULTS`]
/// declares.
#[derive(Debug, Clone)]
pub struct TimingResults {
    pub sim_time_ns: f64,
    pub amat_ns: Amat,
    pub ipc: Ipc,
    /// The run's counters.
    pub counts: TimingCounts,
    /// The directory's protocol and where it was chosen (experiment, machine or default).
    pub coherence: super::params::CoherenceChoice,
    pub threads: Vec<ThreadTiming>,
    /// Per link: `[a→b, b→a]`.
    pub links: BTreeMap<String, [DirUse; 2]>,
    pub memory: BTreeMap<String, NodeDram>,
    pub calibration: BTreeMap<String, Calibration>,
    /// Migration's cost in time over the run.
    pub migration: MigrationTime,
    pub params: super::TimingSpec,
    /// Talbot & Kelly's node controllers (set only with `node_controller_cycle_ns`): messages by
    /// type, mean input-buffer queueing, bounces, proxy reads, remote read response time.
    pub node_controllers: Option<super::node_controller::NcReport>,
}

impl TimingResults {
    /// Block transfers by path: through the home's directory, through a pool's, and (MESI only,
    /// so MOESI results keep their form) the suppliers' sharing write-backs.
    pub fn block_transfers(&self) -> BTreeMap<String, u64> {
        let t = &self.counts;
        let mut bt = BTreeMap::from([
            ("3hop".to_string(), t.block_transfers_3hop),
            ("4hop_via_pool".to_string(), t.block_transfers_4hop),
        ]);
        if self.coherence.protocol == super::Coherence::Mesi {
            bt.insert("sharing_writebacks".to_string(), t.sharing_writebacks);
        }
        bt
    }
}

crate::declare_report! {
    /// The keys of results.json's `timing`, in the order written (objects marked nested are
    /// documented key by key in the results reference).
    pub const TIMING_RESULTS for TimingResults {
        sim_time_ns: Value ("ns", "simulated time of the run (sampled: summed timed windows)") =
            |r| Some(r.sim_time_ns);
        amat_ns: Nested ("ns", "AMAT of the LLC-miss loads") = |r| Some(&r.amat_ns);
        ipc: Nested ("instructions per cycle", "IPC") = |r| Some(&r.ipc);
        block_transfers: Names (
            "loads",
            "block transfers by path (via the home's directory, via the pool, MESI sharing write-backs)"
        ) = |r| Some(r.block_transfers());
        coherence: Nested ("—", "the directory's protocol") = |r| Some(&r.coherence);
        invalidations: Value (counter TimingCounts) = |r| Some(r.counts.invalidations);
        tlb_misses: Value (counter TimingCounts) = |r| Some(r.counts.tlb_misses);
        threads: Nested ("—", "per thread") = |r| Some(&r.threads);
        links: Nested ("—", "per link") = |r| Some(&r.links);
        memory: Nested ("—", "per memory node") = |r| Some(&r.memory);
        calibration: Nested ("—", "per memory node") = |r| Some(&r.calibration);
        migration: Nested ("—", "migration's cost in time") = |r| Some(&r.migration);
        params: Nested ("—", "the `[timing]` parameters") = |r| Some(&r.params);
        node_controllers: Nested ("—", "node controllers") = |r| r.node_controllers.as_ref();
    }
}

/// Per-phase timing figures. Utilisations are busy fractions of the phase's duration, barrier
/// to barrier: a message's or burst's service time counts in the phase that booked it, which
/// holds it whole (bookings start at or after the phase's start and the barrier waits for the
/// last to end), and no resource is ever booked beyond its capacity, so a value is at most 1.
/// Not clamped, so a violation would show. The one exception: the copies of a `move-pages`
/// daemon on a spare core, which the barrier does not wait for, count in the phase that
/// booked them though they may run past its end. Written as [`PHASE_TIMING`] declares.
#[derive(Debug, Clone)]
pub struct PhaseTiming {
    pub sim_time_ns: f64,
    /// Phases in simulated time (`phase_ns`) only: the phase's start and end (its barrier) on
    /// the simulated clock, ns.
    pub span_ns: Option<[f64; 2]>,
    pub amat_ns: Amat,
    pub block_transfers: u64,
    /// Per socket with threads that ran in the phase: each core's instructions of the phase per
    /// cycle (socket clock) from the phase's start to the core's finish of it (its last issue;
    /// the barrier wait after it is not counted), mean over the socket's cores.
    pub ipc_per_socket: BTreeMap<String, f64>,
    /// Link directions' utilisation over the phase.
    pub link_utilisation: PhaseLinkUse,
    /// Per memory node: mean over its channels of the data-bus busy fraction (0–1) in the phase.
    pub channel_utilisation: BTreeMap<String, f64>,
    /// Migration at the phase's closing boundary, and waits for pages in flight in the phase.
    pub migration: MigrationTime,
    /// Talbot & Kelly's node controllers in this phase (machines with them only): the run's
    /// `timing.node_controllers` counted over the phase.
    pub node_controllers: Option<super::node_controller::NcReport>,
}

crate::declare_report! {
    /// The keys of each phase's `timing`, in the order written.
    pub const PHASE_TIMING for PhaseTiming {
        sim_time_ns: Value (
            "ns",
            "the phase's simulated time, barrier to barrier (sampled: the timed window)"
        ) = |t| Some(t.sim_time_ns);
        span_ns: Array ("ns", "`phase_ns` only: the phase's start and end on the simulated clock") =
            |t| t.span_ns;
        amat_ns: Nested ("ns", "AMAT of the LLC-miss loads") = |t| Some(&t.amat_ns);
        block_transfers: Value ("loads", "LLC-miss loads supplied by another socket's cache") =
            |t| Some(t.block_transfers);
        ipc_per_socket: Names (
            "instructions per cycle",
            "per socket: each core's IPC from the phase's start to its finish of the phase, mean over the socket's cores"
        ) = |t| Some(&t.ipc_per_socket);
        link_utilisation: Nested ("fraction 0–1", "link directions' busy fractions") =
            |t| Some(&t.link_utilisation);
        channel_utilisation: Names (
            "fraction 0–1",
            "per memory node: mean data-bus busy fraction of its channels"
        ) = |t| Some(&t.channel_utilisation);
        migration: Nested ("—", "migration's cost in time") = |t| Some(&t.migration);
        node_controllers: Nested ("—", "node controllers over the phase") =
            |t| t.node_controllers.as_ref();
    }
}

/// What migration cost in time (timing mode; all zero with policy `none`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct MigrationTime {
    /// Pages copied at the closing boundary (the phase's own, or the run's in all).
    pub pages: u64,
    /// From the boundary until the last copied page landed, ns (run: summed over boundaries).
    pub copy_span_ns: f64,
    /// Core time lost to TLB shootdowns and the OS thread's scan, summed over cores, ns (so
    /// it can exceed the run's simulated time).
    pub core_stall_ns: f64,
    /// The same per core: `core_stall_ns` over the run's cores (threads), ns.
    pub core_stall_ns_per_core: f64,
    /// LLC misses that waited for a page still being copied, and their summed wait, ns.
    pub inflight_stalls: u64,
    pub inflight_stall_ns: f64,
}

impl MigrationTime {
    pub fn add(&mut self, o: &MigrationTime) {
        self.pages += o.pages;
        self.copy_span_ns += o.copy_span_ns;
        self.core_stall_ns += o.core_stall_ns;
        self.core_stall_ns_per_core += o.core_stall_ns_per_core;
        self.inflight_stalls += o.inflight_stalls;
        self.inflight_stall_ns += o.inflight_stall_ns;
    }

    /// The boundary's copy and stalls (`m`) over `cores` cores, with the phase's in-flight
    /// waits (`t`).
    pub fn of(m: &super::engine::MoveTiming, t: &TimingCounts, cores: usize) -> MigrationTime {
        MigrationTime {
            pages: m.pages,
            copy_span_ns: ns(m.copy_span_ps),
            core_stall_ns: ns(m.core_stall_ps),
            core_stall_ns_per_core: ns(m.core_stall_ps) / cores.max(1) as f64,
            inflight_stalls: t.migration_stalls,
            inflight_stall_ns: ns(t.migration_stall_ps),
        }
    }
}

/// How busy the link directions were in a phase (fractions 0–1 of the phase's duration).
#[derive(Debug, Clone, Serialize)]
pub struct PhaseLinkUse {
    /// Mean over every link direction of the machine.
    pub mean: f64,
    /// The busiest direction's utilisation.
    pub max: f64,
    /// The [`BUSIEST_LINK_DIRS`] busiest directions with traffic, keyed `"<from>→<to>"`, or
    /// `"<link> (<from>→<to>)"` for a link with a given name (ties: machine order).
    pub busiest: BTreeMap<String, f64>,
}

/// How many link directions each phase names in [`PhaseLinkUse::busiest`].
pub const BUSIEST_LINK_DIRS: usize = 8;

/// Per socket with cores: the mean of `(cores, sum)`, keyed by socket name.
fn socket_means(m: &Machine, sock: &[(u64, f64)]) -> BTreeMap<String, f64> {
    m.sockets
        .iter()
        .zip(sock)
        .filter(|(_, (n, _))| *n > 0)
        .map(|(s, (n, sum))| (s.name.clone(), sum / *n as f64))
        .collect()
}

fn ns(p: u64) -> f64 {
    p as f64 / 1000.0
}

/// Name of link direction `dir` (`2·link + (b→a)`).
pub fn dir_name(m: &Machine, dir: usize) -> String {
    let l = &m.links[dir / 2];
    let (a, b) = (m.node_name(l.a), m.node_name(l.b));
    let (from, to) = if dir.is_multiple_of(2) { (a, b) } else { (b, a) };
    if l.name == format!("{a}-{b}") {
        format!("{from}→{to}")
    } else {
        format!("{} ({from}→{to})", l.name)
    }
}

/// The measured split of `counts`' LLC-miss loads, and the analytical one with `nominal`.
pub fn amat(names: &[String], counts: &TimingCounts, nominal: &NominalLatency) -> Amat {
    let classes = &counts.classes;
    let mut all = ClassSums::default();
    let mut by_class = BTreeMap::new();
    let mean = |s: &ClassSums| {
        let n = s.count.max(1) as f64;
        (
            ns(s.unloaded_ps + s.wait_ps) / n,
            ns(s.unloaded_ps) / n,
            ns(s.wait_ps) / n,
        )
    };
    for (name, s) in names.iter().zip(classes) {
        all.count += s.count;
        all.unloaded_ps += s.unloaded_ps;
        all.wait_ps += s.wait_ps;
        if s.count > 0 {
            let (m, u, c) = mean(s);
            by_class.insert(
                name.clone(),
                ClassAmat {
                    count: s.count,
                    mean: m,
                    unloaded: u,
                    contention: c,
                    few_samples: s.count < MIN_CLASS_LOADS,
                },
            );
        }
    }
    if all.count == 0 {
        return Amat {
            loads: 0,
            total: None,
            unloaded: None,
            contention: None,
            by_class,
            analytical: None,
        };
    }
    let (total, unloaded, contention) = mean(&all);
    // The analytical split: every class at its nominal latency, block transfers through a pool
    // at theirs.
    let via_pool = counts.bt_loads_via_pool;
    let mut nominal_sum = 0.0;
    let mut nominal_ns = BTreeMap::new();
    let last = names.len().saturating_sub(1);
    for (i, (name, s)) in names.iter().zip(classes).enumerate() {
        let Some(&ns) = nominal.by_class_ns.get(i) else {
            continue;
        };
        let mut count = s.count;
        if i == last {
            if let Some(pool_ns) = nominal.bt_via_pool_ns {
                let v = via_pool.min(count);
                nominal_sum += v as f64 * pool_ns;
                count -= v;
                if v > 0 {
                    nominal_ns.insert(format!("{name}_via_pool"), pool_ns);
                }
            }
        }
        nominal_sum += count as f64 * ns;
        if s.count > 0 {
            nominal_ns.insert(name.clone(), ns);
        }
    }
    let analytical_unloaded = nominal_sum / all.count as f64;
    Amat {
        loads: all.count,
        total: Some(total),
        unloaded: Some(unloaded),
        contention: Some(contention),
        by_class,
        analytical: Some(AnalyticalSplit {
            unloaded: analytical_unloaded,
            contention: total - analytical_unloaded,
            queueing: contention,
            service_vs_nominal: unloaded - analytical_unloaded,
            block_transfer_loads_via_pool: via_pool,
            nominal_ns,
        }),
    }
}

/// The engine's cumulative counters at the end of the previous phase, so each phase's record
/// holds that phase's IPC and utilisations (deltas) without the engine keeping per-phase state;
/// also the phase's placement map.
#[derive(Debug, Clone, Default)]
pub struct PhaseTracker {
    instructions: Vec<u64>,
    link_busy_ps: Vec<u64>,
    bus_busy_ps: Vec<Vec<u64>>,
    node_controllers: super::node_controller::NcStats,
}

impl PhaseTracker {
    /// The timing record of the phase that just ended (`t` = its counters).
    pub fn phase(&mut self, sim: &TimingSim, m: &Machine, t: &TimingCounts) -> PhaseTiming {
        let dur_ps = t.end_ps.saturating_sub(t.start_ps);
        let frac = |busy: u64| {
            if dur_ps == 0 {
                0.0
            } else {
                busy as f64 / dur_ps as f64
            }
        };
        let delta = |prev: &mut Vec<u64>, i: usize, now: u64| {
            if prev.len() <= i {
                prev.resize(i + 1, 0);
            }
            let d = now.saturating_sub(prev[i]);
            prev[i] = now;
            d
        };
        // IPC per socket.
        let mut sock: Vec<(u64, f64)> = vec![(0, 0.0); m.sockets.len()];
        for c in 0..sim.threads() {
            let (instr, _, at_ps) = sim.core_stats(c);
            let d = delta(&mut self.instructions, c, instr);
            let s = sim.core_socket(c);
            // The core's own time in the phase: from the phase's start to its last issue.
            let active_ps = match at_ps.saturating_sub(t.start_ps) {
                0 => dur_ps,
                a => a,
            };
            let cycles = ns(active_ps) * m.sockets[s].freq_ghz;
            if d > 0 && cycles > 0.0 {
                sock[s].0 += 1;
                sock[s].1 += d as f64 / cycles;
            }
        }
        let ipc_per_socket = socket_means(m, &sock);
        // Link directions.
        let dirs: Vec<f64> = sim
            .book
            .fabric
            .dirs
            .iter()
            .enumerate()
            .map(|(i, d)| frac(delta(&mut self.link_busy_ps, i, d.busy_ps)))
            .collect();
        let mut order: Vec<usize> = (0..dirs.len()).filter(|&i| dirs[i] > 0.0).collect();
        order.sort_by(|&a, &b| dirs[b].total_cmp(&dirs[a]).then(a.cmp(&b)));
        let link_utilisation = PhaseLinkUse {
            mean: dirs.iter().sum::<f64>() / dirs.len().max(1) as f64,
            max: dirs.iter().copied().fold(0.0, f64::max),
            busiest: order
                .iter()
                .take(BUSIEST_LINK_DIRS)
                .filter(|&&i| i / 2 < m.links.len())
                .map(|&i| (dir_name(m, i), dirs[i]))
                .collect(),
        };
        // Memory channels.
        if self.bus_busy_ps.len() < sim.book.mem.len() {
            self.bus_busy_ps.resize(sim.book.mem.len(), Vec::new());
        }
        let channel_utilisation = m
            .memory_nodes
            .iter()
            .zip(sim.book.mem.iter().zip(self.bus_busy_ps.iter_mut()))
            .map(|(n, (mc, prev))| {
                let u: f64 = mc
                    .bus_busy_ps
                    .iter()
                    .enumerate()
                    .map(|(ch, &b)| frac(delta(prev, ch, b)))
                    .sum();
                (n.name.clone(), u / mc.bus_busy_ps.len().max(1) as f64)
            })
            .collect();
        PhaseTiming {
            sim_time_ns: ns(dur_ps),
            span_ns: None,
            amat_ns: amat(&sim.class_names, t, &sim.nominal_latency(m)),
            block_transfers: t.block_transfers_3hop + t.block_transfers_4hop,
            ipc_per_socket,
            link_utilisation,
            channel_utilisation,
            migration: MigrationTime::default(),
            node_controllers: sim.book.nc.as_ref().map(|n| {
                let phase = n.stats.since(&self.node_controllers);
                self.node_controllers = n.stats.clone();
                n.report_of(&phase)
            }),
        }
    }
}

pub fn run(sim: &TimingSim, m: &Machine, total: &TimingCounts, migration: MigrationTime) -> TimingResults {
    let sim_ps = (0..sim.threads())
        .map(|c| sim.core_stats(c).2)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut per_core = Vec::new();
    let mut threads = Vec::new();
    let mut sock: Vec<(u64, f64)> = vec![(0, 0.0); m.sockets.len()];
    for c in 0..sim.threads() {
        let (instr, misses, end) = sim.core_stats(c);
        let s = sim.core_socket(c);
        let cycles = ns(end) * m.sockets[s].freq_ghz;
        let ipc = if cycles > 0.0 { instr as f64 / cycles } else { 0.0 };
        per_core.push(ipc);
        sock[s].0 += 1;
        sock[s].1 += ipc;
        threads.push(ThreadTiming {
            socket: m.sockets[s].name.clone(),
            instructions: instr,
            llc_misses: misses,
            llc_mpki: if instr > 0 {
                misses as f64 * 1000.0 / instr as f64
            } else {
                0.0
            },
            ipc,
            time_ns: ns(end),
        });
    }
    let per_socket = socket_means(m, &sock);
    let mean = per_core.iter().sum::<f64>() / per_core.len().max(1) as f64;
    let dir = |i: usize| {
        let d = &sim.book.fabric.dirs[i];
        DirUse {
            bytes: d.bytes,
            messages: d.messages,
            utilisation: d.busy_ps as f64 / sim_ps as f64,
        }
    };
    let links = m
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.clone(), [dir(2 * i), dir(2 * i + 1)]))
        .collect();
    let mut memory = BTreeMap::new();
    let mut calibration = BTreeMap::new();
    for (i, n) in m.memory_nodes.iter().enumerate() {
        let mc = &sim.book.mem[i];
        memory.insert(
            n.name.clone(),
            NodeDram {
                accesses: mc.accesses,
                row_hit_fraction: mc.row_hits as f64 / mc.accesses.max(1) as f64,
                channel_utilisation: mc.bus_busy_ps.iter().map(|&b| b as f64 / sim_ps as f64).collect(),
            },
        );
        calibration.insert(
            n.name.clone(),
            Calibration {
                access_latency_ns: n.access_latency_ns,
                lookup_path_ns: ns(sim.book.lookup_ps[n.attached_socket.unwrap_or(0)]),
                dram_idle_access_ns: ns(mc.t.first_access()),
                onchip_fixed_ns: ns(sim.book.fixed_ps[i]),
                excess_ns: ns(sim.book.mismatch_ps[i]),
            },
        );
    }
    TimingResults {
        sim_time_ns: ns(sim_ps),
        amat_ns: amat(&sim.class_names, total, &sim.nominal_latency(m)),
        ipc: Ipc {
            mean,
            per_core,
            per_socket,
        },
        counts: total.clone(),
        coherence: sim.coherence,
        threads,
        links,
        memory,
        calibration,
        migration,
        params: sim.spec.clone(),
        node_controllers: sim.book.nc.as_ref().map(|n| n.report()),
    }
}

impl TimingSim {
    /// The nominal latencies of this engine's classes on `m` (see [`AnalyticalSplit`]).
    pub fn nominal_latency(&self, m: &Machine) -> NominalLatency {
        NominalLatency::of(m, &self.class_names, self.spec.owner_snoop_ns)
    }
}

#[cfg(test)]
mod tests;
