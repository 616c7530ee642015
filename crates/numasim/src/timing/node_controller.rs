//! Talbot & Kelly's node controllers: occupancy, finite input buffers with bounce-back, and
//! basic and reactive proxies (first-touch-and-reactive-proxies.txt §1.3–1.4).
//!
//! Why a resource per node: the paper's point is that a home's *node controller* — not its
//! links or DRAM — becomes the bottleneck when many nodes read the same data, so each socket's
//! controller is a non-pipelined server on its own [`Timeline`] that every message arriving at
//! the node occupies for the cycles of Table 1.2 (see [`occupancy_cycles`]). Only the *waits*
//! for a busy controller are added to a transaction's latency: its own service is already in
//! the machine's calibrated latencies (`talbot64`'s 570/820 ns are built from the same Table 1.2
//! actions), so an unloaded miss still takes exactly the machine's latency. A request for a line
//! another node owns is the exception: the home only looks its directory up and forwards it
//! ([`FORWARD_CYCLES`]; no DRAM line access), so that lookup, not the memory access, is on the
//! block transfer's path.
//!
//! Input buffers: messages booked on a controller but not yet started are its input queue. A
//! read request that arrives while `input_buffer_reads` messages wait is bounced: a header goes
//! back to the sender, which sends the request again (or, with reactive proxies, a client
//! sends a proxy read instead). §1.4 bounces "all read requests", so besides a client's read
//! at the home this covers a proxy read at a full proxy (the client retries the same proxy:
//! the block's proxy for it does not change) and a proxy's fetch at a full home (the proxy
//! retries the home: the block's proxy for the proxy's own cluster is the proxy itself, so a
//! reactive detour has nowhere else to go). Bounces are capped at [`MAX_BOUNCES`] per request
//! (a client's read counts its bounces at the home and at the proxy together; a proxy's fetch
//! has its own count), after which the request is queued anyway, so every transaction
//! completes (the paper limits only read requests for the same reason).
//!
//! Proxies: a block's proxy for requester R is a node of R's cluster (sockets split into
//! `proxy_clusters` contiguous groups), the `line mod |cluster|`-th, so successive blocks use
//! different proxies. The proxy looks the line up in its own SLC — the socket's LLC the timing
//! engine models, passed to [`Booking::fetch_nc`] — and serves it if present, whether it came
//! there as a proxy copy or by the proxy node's own CPU reading it (§1.3: "if the proxy node
//! has a copy of the requested data block in its cache, it replies directly"). Otherwise it
//! fetches once from the home and "allocates the copy in its own cache": the line is inserted
//! into the proxy's LLC (displacing a line; a dirty victim is written back) and the engine
//! lists the proxy as a sharer in the directory, so a store invalidates it with the same
//! invalidation messages as any other sharer, and the node's own traffic can evict it.
//! Requests arriving while the fetch is in flight join its pending chain (combining): the
//! controller's small pending table ([`PENDING_SLOTS`] per node, direct-mapped by line, the
//! "extra store" of §1.3) records when each fetch's data lands. The data goes down the chain
//! as the paper's does (§1.3, Fig. 1.2): the proxy sends it to the client that joined last,
//! which forwards it to the one before, and so on; the client whose read made the fetch gets
//! it last. A client's completion depends on clients that join after it, so the engine
//! books its request legs at issue and decides the chain once no further read can reach the
//! proxy before the data lands ([`Booking::close_next_chain`]; the engine's event loop, as for
//! DRAM read queues); [`Booking::fetch_nc`] without a token keeps the earlier rule (every
//! waiting client served by the proxy when the data lands). As everywhere in the engine,
//! the state change is applied when the request is booked (the line is in the proxy's SLC
//! from then on; no transient states). Without a modelled LLC (`llc = false`) a proxy keeps
//! nothing but its pending fetches: it combines, and otherwise fetches every time.

use super::booking::{Booking, Latency};
use super::directory::NO_OWNER;
use super::params::{ProxyMode, TimingSpec};
use super::timeline::Timeline;
use crate::cache::{Outcome, SetAssocCache};
use std::collections::BTreeMap;

/// Message kinds a node controller handles (counted per kind, the paper's Figs. 1.6 and 1.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// Read or write request at the home.
    Request = 0,
    /// Home → owner of a dirty line.
    Forward,
    /// A data reply received by the requester.
    Data,
    /// Invalidation at a sharer.
    Inval,
    /// Ownership request (store to a shared line) at the home.
    Ownership,
    /// Dirty line written back at the home.
    Writeback,
    /// A read request bounced by a full input buffer (received back by the requester).
    Bounce,
    /// A read request at a proxy.
    ProxyRead,
    /// The home's data arriving at a proxy.
    ProxyData,
}

pub const MSG_KINDS: usize = 9;
const MSG_NAMES: [&str; MSG_KINDS] = [
    "request",
    "forward",
    "data",
    "invalidation",
    "ownership",
    "writeback",
    "bounce",
    "proxy_read",
    "proxy_data",
];

/// Controller cycles per message, from Table 1.2: acquire SLC bus 2, release 1, SLC lookup 6,
/// SLC line access 18, acquire MEM bus 3, release 2, DRAM lookup 20, DRAM line access 24,
/// initiate message send 5.
pub const fn occupancy_cycles(m: Msg) -> u64 {
    match m {
        // MEM bus, directory/DRAM lookup, line access, release, send the reply.
        Msg::Request => 3 + 20 + 24 + 2 + 5,
        // SLC bus, lookup, line access, release, send the data.
        Msg::Forward => 2 + 6 + 18 + 1 + 5,
        // SLC bus, line fill, release.
        Msg::Data => 2 + 18 + 1,
        // SLC bus, lookup, release, send the ack.
        Msg::Inval => 2 + 6 + 1 + 5,
        // MEM bus, directory lookup, release, send the invalidations.
        Msg::Ownership => 3 + 20 + 2 + 5,
        // MEM bus, line write, release.
        Msg::Writeback => 3 + 24 + 2,
        // Send the request again.
        Msg::Bounce => 5,
        // SLC bus, lookup, release, send (data or the fetch to the home).
        Msg::ProxyRead => 2 + 6 + 1 + 5,
        // SLC bus, line fill, release, send to the client.
        Msg::ProxyData => 2 + 18 + 1 + 5,
    }
}

/// Controller cycles of a request the home forwards to the line's owner: the actions of an
/// ownership request (MEM bus 3 + DRAM (directory) lookup 20 + release 2 + send 5), no DRAM
/// line access.
pub const FORWARD_CYCLES: u64 = occupancy_cycles(Msg::Ownership);
/// Cycles to send a message (Table 1.2's send initiation), the last action of a forward.
const SEND_CYCLES: u64 = 5;

/// Bounces of one request before it is queued regardless.
pub const MAX_BOUNCES: u32 = 64;
/// Pending-chain entries per node controller (lines it is fetching as a proxy). A node has at
/// most as many fetches in flight as the machine has outstanding misses (64 cores × 16 MSHRs),
/// so direct-mapped by line, 1024 entries rarely overwrite a fetch still in flight (if one
/// does, later readers of that line are served from the SLC copy without waiting for it).
pub const PENDING_SLOTS: usize = 1024;

/// A proxy fetched a line from its home and allocated it in its SLC: the engine lists the proxy
/// as a sharer and writes the displaced dirty line back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxyFill {
    pub proxy: usize,
    /// Dirty line displaced from the proxy's SLC (written back to its home at `at_ps`).
    pub victim: Option<u64>,
    /// When the home's data landed at the proxy, ps.
    pub at_ps: u64,
}

/// A client waiting on a pending chain: its socket, the engine's token for its read, when it
/// issued, its unloaded latency, and whether the read counts as remote.
#[derive(Debug, Clone, Copy)]
struct ChainClient {
    req: usize,
    token: u64,
    t0: u64,
    unloaded: u64,
    remote: bool,
}

/// A proxy's fetch in flight and its pending chain (clients in the order they joined).
#[derive(Debug, Clone)]
struct Chain {
    proxy: usize,
    /// When the home's data lands at the proxy.
    ready: u64,
    clients: Vec<ChainClient>,
}

numasim_output::declare_stats! {
    /// Counters of a run's node controllers (results.json `timing.node_controllers`, and each
    /// phase's by [`Stats::since`](numasim_output::stat::Stats::since)).
    #[derive(Debug, Clone, Default)]
    pub struct NcStats {
        /// messages arriving at node controllers, by type
        messages: [u64; MSG_KINDS], Sum, unit "messages";
        /// messages that occupied a controller
        handled: u64, Sum, unit "messages";
        /// their summed wait in an input buffer before service
        queue_ps: u64, Sum, unit "ps";
        /// read requests bounced by a full input buffer
        bounces: u64, Sum, unit "messages";
        /// of `bounces`: proxy reads bounced by a full proxy
        proxy_read_bounces: u64, Sum, unit "messages";
        /// of `bounces`: proxies' fetches bounced by a full home
        proxy_fetch_bounces: u64, Sum, unit "messages";
        /// reads sent via a proxy
        proxy_reads: u64, Sum, unit "reads";
        /// proxy reads served from the proxy's LLC
        proxy_hits: u64, Sum, unit "reads";
        /// proxy reads that joined another request's pending home fetch
        combined: u64, Sum, unit "reads";
        /// proxies' fetches from the home
        proxy_fetches: u64, Sum, unit "reads";
        /// LLC-miss reads whose home is another node
        remote_reads: u64, Sum, unit "reads";
        /// their summed response time
        remote_read_ps: u64, Sum, unit "ps";
    }
}

/// The report block: the controllers' settings and counters (run or phase), written as
/// [`NC_REPORT`] declares.
#[derive(Debug, Clone)]
pub struct NcReport {
    pub cycle_ps: u64,
    pub input_buffer_reads: Option<u32>,
    pub proxies: ProxyMode,
    pub counts: NcStats,
}

impl NcReport {
    pub fn cycle_ns(&self) -> f64 {
        self.cycle_ps as f64 / 1000.0
    }

    pub fn messages_total(&self) -> u64 {
        self.counts.messages.iter().sum()
    }

    /// Messages by type name.
    pub fn messages(&self) -> BTreeMap<String, u64> {
        MSG_NAMES
            .iter()
            .zip(self.counts.messages)
            .map(|(n, c)| ((*n).to_string(), c))
            .collect()
    }

    /// Mean cycles a message waited in an input buffer (Table 1.4).
    pub fn mean_input_buffer_queueing_cycles(&self) -> f64 {
        let s = &self.counts;
        if s.handled > 0 {
            s.queue_ps as f64 / s.handled as f64 / self.cycle_ps.max(1) as f64
        } else {
            0.0
        }
    }

    pub fn mean_remote_read_response_ns(&self) -> f64 {
        let s = &self.counts;
        if s.remote_reads > 0 {
            s.remote_read_ps as f64 / s.remote_reads as f64 / 1000.0
        } else {
            0.0
        }
    }
}

crate::declare_report! {
    /// The keys of the node controllers' report block, in the order results.json writes them.
    pub const NC_REPORT for NcReport {
        cycle_ns: Value ("ns", "node controller cycle") = |r| Some(r.cycle_ns());
        input_buffer_reads: Value ("messages", "input-buffer limit for reads (null: infinite)") =
            |r| Some(r.input_buffer_reads);
        proxies: Value ("—", "`none`, `basic` or `reactive`") = |r| Some(r.proxies);
        messages: Names (counter NcStats) = |r| Some(r.messages());
        messages_total: Value ("messages", "all messages") = |r| Some(r.messages_total());
        mean_input_buffer_queueing_cycles: Value (
            "cycles",
            "mean wait of a message in an input buffer (Talbot & Kelly Table 1.4)"
        ) = |r| Some(r.mean_input_buffer_queueing_cycles());
        bounces: Value (counter NcStats) = |r| Some(r.counts.bounces);
        proxy_read_bounces: Value (counter NcStats) = |r| Some(r.counts.proxy_read_bounces);
        proxy_fetch_bounces: Value (counter NcStats) = |r| Some(r.counts.proxy_fetch_bounces);
        proxy_reads: Value (counter NcStats) = |r| Some(r.counts.proxy_reads);
        proxy_hits: Value (counter NcStats) = |r| Some(r.counts.proxy_hits);
        combined: Value (counter NcStats) = |r| Some(r.counts.combined);
        proxy_fetches: Value (counter NcStats) = |r| Some(r.counts.proxy_fetches);
        remote_reads: Value (counter NcStats) = |r| Some(r.counts.remote_reads);
        mean_remote_read_response_ns: Value ("ns", "their mean response time") =
            |r| Some(r.mean_remote_read_response_ns());
    }
}

/// A read's fixed fields on its way via a proxy: requester, proxy, the line's home node and
/// socket, its owner (if another socket holds it dirty), DRAM row and line, and the pending
/// chain client it becomes if it waits on a fetch.
#[derive(Debug, Clone, Copy)]
struct ProxyRead {
    req: usize,
    proxy: usize,
    node: usize,
    home: usize,
    owner: u8,
    row: u64,
    line: u64,
    joiner: Option<ChainClient>,
}

/// Every socket's node controller, input queue and pending proxy fetches.
#[derive(Debug, Clone)]
pub struct NodeControllers {
    cycle_ps: u64,
    nc: Vec<Timeline>,
    /// Per socket: (arrival, start) of messages booked to start after they arrived.
    waiting: Vec<Vec<(u64, u64)>>,
    buffer: Option<u32>,
    mode: ProxyMode,
    clusters: usize,
    sockets: usize,
    ranges: Option<Vec<[u64; 2]>>,
    /// Per socket × PENDING_SLOTS: (line + 1 (0 = empty), when its fetch's data lands, ps,
    /// its chain's id (0: none)).
    pending: Vec<(u64, u64, u64)>,
    /// Open pending chains by id (ids count up: the order is deterministic).
    chains: BTreeMap<u64, Chain>,
    next_chain: u64,
    pub stats: NcStats,
}

impl NodeControllers {
    /// `None` unless `node_controller_cycle_ns` is set.
    pub fn from_spec(spec: &TimingSpec, sockets: usize) -> Option<Self> {
        let cycle_ns = spec.node_controller_cycle_ns?;
        let mode = spec.proxies.unwrap_or(ProxyMode::None);
        let pending = if mode == ProxyMode::None {
            0
        } else {
            sockets * PENDING_SLOTS
        };
        Some(NodeControllers {
            cycle_ps: (cycle_ns * 1000.0).round() as u64,
            nc: vec![Timeline::new(); sockets],
            waiting: vec![Vec::new(); sockets],
            buffer: spec.input_buffer_reads,
            mode,
            clusters: spec.proxy_clusters.unwrap_or(3).clamp(1, sockets.max(1) as u32) as usize,
            sockets,
            ranges: spec.proxy_ranges.clone(),
            pending: vec![(0, 0, 0); pending],
            chains: BTreeMap::new(),
            next_chain: 0,
            stats: NcStats::default(),
        })
    }

    pub fn mode(&self) -> ProxyMode {
        self.mode
    }

    /// A message of kind `m` arrives at `socket`'s controller at `arrive`: books its
    /// occupancy; returns when the controller starts on it.
    pub fn handle(&mut self, socket: usize, m: Msg, arrive: u64, horizon: u64) -> u64 {
        self.handle_for(socket, m, occupancy_cycles(m), arrive, horizon)
    }

    /// [`Self::handle`] with an occupancy of `cycles` (a request the home forwards).
    fn handle_for(&mut self, socket: usize, m: Msg, cycles: u64, arrive: u64, horizon: u64) -> u64 {
        self.stats.messages[m as usize] += 1;
        let len = cycles * self.cycle_ps;
        let start = self.nc[socket].book(arrive, len, horizon);
        self.stats.handled += 1;
        self.stats.queue_ps += start - arrive;
        if start > arrive && self.buffer.is_some() {
            let w = &mut self.waiting[socket];
            w.retain(|&(_, s)| s > horizon);
            w.push((arrive, start));
        }
        start
    }

    /// Messages waiting (arrived, not started) at `socket` at `t`.
    pub fn queue_len(&self, socket: usize, t: u64) -> usize {
        self.waiting[socket].iter().filter(|&&(a, s)| a <= t && t < s).count()
    }

    /// Whether a read request arriving at `socket` at `t` bounces.
    pub fn full(&self, socket: usize, t: u64) -> bool {
        self.buffer.is_some_and(|b| self.queue_len(socket, t) >= b as usize)
    }

    /// The proxy of `line` for requests from `req`: a node of `req`'s cluster, successive
    /// lines on successive members.
    pub fn proxy_of(&self, line: u64, req: usize) -> usize {
        let c = req * self.clusters / self.sockets;
        let lo = c * self.sockets / self.clusters;
        let hi = (c + 1) * self.sockets / self.clusters;
        lo + (line % (hi - lo) as u64) as usize
    }

    /// Whether basic proxies route a read of `vaddr`.
    pub fn marked(&self, vaddr: u64) -> bool {
        self.mode == ProxyMode::Basic
            && self
                .ranges
                .as_ref()
                .is_none_or(|r| r.iter().any(|&[a, b]| (a..b).contains(&vaddr)))
    }

    fn pending_slot(&self, socket: usize, line: u64) -> usize {
        socket * PENDING_SLOTS + (line % PENDING_SLOTS as u64) as usize
    }

    pub fn report(&self) -> NcReport {
        self.report_of(&self.stats)
    }

    /// The report block of counters `s` (the run's, or one phase's from [`Stats::since`](numasim_output::stat::Stats::since)).
    pub fn report_of(&self, s: &NcStats) -> NcReport {
        NcReport {
            cycle_ps: self.cycle_ps,
            input_buffer_reads: self.buffer,
            proxies: self.mode,
            counts: s.clone(),
        }
    }
}

impl Booking {
    /// [`Booking::fetch`] with node controllers: controller waits at the home, owner and
    /// requester, bounces from full input buffers, and basic or reactive proxies, which look
    /// lines up in and allocate them into `slcs` (every socket's LLC; empty: no LLC modelled,
    /// proxies then keep only their pending chains). `vaddr` is the missing address. Returns the
    /// latency and, if a proxy fetched the line from its home, what the engine must record
    /// (directory sharer, victim write-back). Pool homes (no controller) take the plain path.
    #[allow(clippy::too_many_arguments)]
    pub fn fetch_nc(
        &mut self,
        req: usize,
        node: usize,
        owner: u8,
        inval: u64,
        row: u64,
        t0: u64,
        vaddr: u64,
        write: bool,
        slcs: &mut [SetAssocCache],
    ) -> (Latency, Option<ProxyFill>) {
        let (lat, fill) = self.fetch_nc_chained(req, node, owner, inval, row, t0, vaddr, write, slcs, None);
        (lat.expect("no chain without a token"), fill)
    }

    /// [`Self::fetch_nc`] with pending chains: a read that makes a proxy fetch, or joins one in
    /// flight, waits on its chain under `token` and returns no latency; the engine learns it
    /// from [`Self::close_next_chain`].
    #[allow(clippy::too_many_arguments)]
    pub fn fetch_nc_chained(
        &mut self,
        req: usize,
        node: usize,
        owner: u8,
        inval: u64,
        row: u64,
        t0: u64,
        vaddr: u64,
        write: bool,
        slcs: &mut [SetAssocCache],
        token: Option<u64>,
    ) -> (Option<Latency>, Option<ProxyFill>) {
        let Some(home) = self.home_socket[node] else {
            return (Some(self.fetch(req, node, owner, inval, row, t0)), None);
        };
        let mut nc = self.nc.take().expect("fetch_nc needs node controllers");
        let line = vaddr >> 6;
        let mut unloaded = self.lookup_ps[req];
        let mut t = t0 + self.lookup_ps[req];
        let mut ignored = 0;
        let p_req = self.fabric.to_mem(req, node);
        unloaded += p_req.latency_ps;
        // Basic proxies: a marked read goes to its proxy first (unless that is the requester or
        // the home itself).
        let proxy = nc.proxy_of(line, req);
        let via_proxy = !write && proxy != req && proxy != home && nc.marked(vaddr);
        // Bounces of this read, at the home and at the proxy together.
        let mut bounces = 0;
        let mut fill = None;
        let joiner = token.map(|token| ChainClient {
            req,
            token,
            t0,
            unloaded: 0,
            remote: home != req,
        });
        let via = ProxyRead {
            req,
            proxy,
            node,
            home,
            owner,
            row,
            line,
            joiner,
        };
        let done = if via_proxy {
            let (d, u, f) = self.proxy_read(&mut nc, slcs, &via, t, &mut bounces);
            unloaded = self.lookup_ps[req] + u;
            fill = f;
            match d {
                Some(d) => d,
                None => {
                    self.nc = Some(nc);
                    return (None, fill);
                }
            }
        } else {
            loop {
                let at = self.traverse(p_req, self.header, t, &mut ignored);
                if !write && bounces < MAX_BOUNCES && nc.full(home, at) {
                    bounces += 1;
                    nc.stats.bounces += 1;
                    let back = self.traverse(self.fabric.from_mem(node, req), self.header, at, &mut ignored);
                    t = nc.handle(req, Msg::Bounce, back, self.horizon_ps);
                    if nc.mode() == ProxyMode::Reactive && proxy != req && proxy != home {
                        let (d, _, f) = self.proxy_read(&mut nc, slcs, &via, t, &mut bounces);
                        fill = f;
                        match d {
                            Some(d) => break d,
                            None => {
                                self.nc = Some(nc);
                                return (None, fill);
                            }
                        }
                    }
                    continue;
                }
                let (d, u) = self.serve_at_home(&mut nc, req, node, home, owner, inval, row, at);
                unloaded += u;
                break d;
            }
        };
        let done = nc.handle(req, Msg::Data, done, self.horizon_ps);
        if !write && home != req {
            nc.stats.remote_reads += 1;
            nc.stats.remote_read_ps += done - t0;
        }
        self.nc = Some(nc);
        self.latest_ps = self.latest_ps.max(done);
        let lat = Latency {
            done_ps: done,
            unloaded_ps: unloaded,
            wait_ps: (done - t0).saturating_sub(unloaded),
        };
        (Some(lat), fill)
    }

    /// Whether proxy reads wait on pending chains (node controllers with proxies): the engine
    /// then passes tokens to [`Self::fetch_nc_chained`].
    pub fn defers_chains(&self) -> bool {
        self.nc.as_ref().is_some_and(|n| n.mode != ProxyMode::None)
    }

    /// When the earliest open pending chain's data lands at its proxy (None: no chain open).
    /// The engine closes it once no core can still issue a read reaching the proxy earlier.
    pub fn next_chain_close(&self) -> Option<u64> {
        self.nc.as_ref()?.chains.values().map(|c| c.ready).min()
    }

    /// Closes the open chain whose data lands first (ties: the older chain): the proxy sends
    /// the data to the client that joined last, each client's controller takes it and sends it
    /// on to the client that joined before, and the first client gets it last (§1.3). Returns
    /// each client's token and latency, in the order they get the data.
    pub fn close_next_chain(&mut self) -> Vec<(u64, Latency)> {
        let Some(mut nc) = self.nc.take() else {
            return Vec::new();
        };
        let first = nc.chains.iter().min_by_key(|(&id, c)| (c.ready, id)).map(|(&id, _)| id);
        let mut out = Vec::new();
        if let Some(chain) = first.and_then(|id| nc.chains.remove(&id)) {
            let (mut from, mut t) = (chain.proxy, chain.ready);
            for c in chain.clients.iter().rev() {
                let mut w = 0;
                let at = self.traverse(self.fabric.between(from, c.req), self.data, t, &mut w);
                let done = nc.handle(c.req, Msg::Data, at, self.horizon_ps);
                if c.remote {
                    nc.stats.remote_reads += 1;
                    nc.stats.remote_read_ps += done - c.t0;
                }
                self.latest_ps = self.latest_ps.max(done);
                out.push((
                    c.token,
                    Latency {
                        done_ps: done,
                        unloaded_ps: c.unloaded,
                        wait_ps: (done - c.t0).saturating_sub(c.unloaded),
                    },
                ));
                (from, t) = (c.req, done);
            }
        }
        self.nc = Some(nc);
        out
    }

    /// A request at the home's controller at `at` for `to`: directory + DRAM, invalidations,
    /// then data from memory or the owner. Returns (data arrival at `to`, unloaded latency from
    /// `at`).
    #[allow(clippy::too_many_arguments)]
    fn serve_at_home(
        &mut self,
        nc: &mut NodeControllers,
        to: usize,
        node: usize,
        home: usize,
        owner: u8,
        inval: u64,
        row: u64,
        at: u64,
    ) -> (u64, u64) {
        let mut w = 0;
        let forwarded = owner != NO_OWNER && owner as usize != to;
        let (mut unloaded, mut t) = if forwarded {
            // The home "knows the identity of a node which does have a valid copy (the
            // owner)" (§1.4): it looks the directory up and forwards the request, with no DRAM
            // line access (MEM bus 3 + DRAM lookup 20 + release 2, then the send).
            let start = nc.handle_for(home, Msg::Request, FORWARD_CYCLES, at, self.horizon_ps);
            let lookup = (FORWARD_CYCLES - SEND_CYCLES) * nc.cycle_ps;
            (lookup, start + lookup)
        } else {
            let start = nc.handle(home, Msg::Request, at, self.horizon_ps);
            let fixed = self.fixed_ps[node];
            let r = self.mem[node].access_at(start + fixed, row, false, self.horizon_ps);
            (fixed + r.service_ps, r.done_ps)
        };
        if inval != 0 {
            self.send_invals(node, to, inval, t);
        }
        if forwarded {
            let o = owner as usize;
            let p = self.fabric.from_mem(node, o);
            unloaded += p.latency_ps + self.snoop_ps;
            t = self.traverse(p, self.header, t, &mut w);
            t = nc.handle(o, Msg::Forward, t, self.horizon_ps) + self.snoop_ps;
            let p = self.fabric.between(o, to);
            unloaded += p.latency_ps;
            t = self.traverse(p, self.data, t, &mut w);
        } else {
            let p = self.fabric.from_mem(node, to);
            unloaded += p.latency_ps;
            t = self.traverse(p, self.data, t, &mut w);
        }
        (t, unloaded)
    }

    /// A proxy read `r` sent at `t` (bouncing off a full buffer at the proxy
    /// like any read request; `bounces` is the read's count so far). Returns (data arrival at
    /// `req`, unloaded latency of that path from `t`, the proxy's fill if it fetched). With a
    /// `joiner`, a read that fetches or finds a fetch in flight joins its pending chain
    /// instead and returns no arrival.
    fn proxy_read(
        &mut self,
        nc: &mut NodeControllers,
        slcs: &mut [SetAssocCache],
        r: &ProxyRead,
        mut t: u64,
        bounces: &mut u32,
    ) -> (Option<u64>, u64, Option<ProxyFill>) {
        let &ProxyRead {
            req,
            proxy,
            node,
            home,
            owner,
            row,
            line,
            joiner,
        } = r;
        let mut w = 0;
        nc.stats.proxy_reads += 1;
        let to_p = self.fabric.between(req, proxy);
        let back = self.fabric.between(proxy, req);
        let at = loop {
            let at = self.traverse(to_p, self.header, t, &mut w);
            if *bounces < MAX_BOUNCES && nc.full(proxy, at) {
                *bounces += 1;
                nc.stats.bounces += 1;
                nc.stats.proxy_read_bounces += 1;
                let b = self.traverse(back, self.header, at, &mut w);
                t = nc.handle(req, Msg::Bounce, b, self.horizon_ps);
                continue;
            }
            break nc.handle(proxy, Msg::ProxyRead, at, self.horizon_ps);
        };
        let i = nc.pending_slot(proxy, line);
        let (pending_line, pending_ready, pending_chain) = nc.pending[i];
        let in_flight = pending_line == line + 1 && pending_ready > at;
        // The proxy's SLC: a hit is served (after the pending fetch, if the copy is still on its
        // way); a miss allocates the line there now (LRU order and a victim, like any fill).
        let held = match slcs.get_mut(proxy) {
            Some(slc) => match slc.access(line, false) {
                Outcome::Hit { .. } => Ok(()),
                Outcome::Miss { writeback } => Err(writeback),
            },
            // No SLC modelled: only a fetch still in flight can serve the read.
            None if in_flight => Ok(()),
            None => Err(None),
        };
        let (ready, fill, chain) = match held {
            Ok(()) if in_flight => {
                nc.stats.combined += 1;
                (pending_ready, None, pending_chain)
            }
            Ok(()) => {
                nc.stats.proxy_hits += 1;
                (at, None, 0)
            }
            Err(victim) => {
                nc.stats.proxy_fetches += 1;
                let d = self.proxy_fetch(nc, proxy, node, home, owner, row, at);
                let id = if joiner.is_some() {
                    nc.next_chain += 1;
                    let chain = Chain {
                        proxy,
                        ready: d,
                        clients: Vec::new(),
                    };
                    nc.chains.insert(nc.next_chain, chain);
                    nc.next_chain
                } else {
                    0
                };
                nc.pending[i] = (line + 1, d, id);
                let fill = ProxyFill {
                    proxy,
                    victim,
                    at_ps: d,
                };
                (d, Some(fill), id)
            }
        };
        // Unloaded: to the proxy, a hit there, back (a miss at the proxy counts as contention:
        // the proxy path is taken to avoid the home's queue, not for its latency).
        let unloaded = to_p.latency_ps + back.latency_ps;
        if let (Some(mut j), Some(c)) = (joiner, nc.chains.get_mut(&chain)) {
            j.unloaded = self.lookup_ps[req] + unloaded;
            c.clients.push(j);
            return (None, unloaded, fill);
        }
        let done = self.traverse(back, self.data, ready, &mut w);
        (Some(done), unloaded, fill)
    }

    /// `proxy`'s fetch of a line from its home `node`, sent at `t`: a read request, so a full
    /// input buffer at the home bounces it back to the proxy, which sends it again (at most
    /// [`MAX_BOUNCES`] times). Returns when the data is in the proxy's SLC.
    #[allow(clippy::too_many_arguments)]
    fn proxy_fetch(
        &mut self,
        nc: &mut NodeControllers,
        proxy: usize,
        node: usize,
        home: usize,
        owner: u8,
        row: u64,
        mut t: u64,
    ) -> u64 {
        let mut w = 0;
        let to_home = self.fabric.to_mem(proxy, node);
        let mut bounces = 0;
        loop {
            let arrive = self.traverse(to_home, self.header, t, &mut w);
            if bounces < MAX_BOUNCES && nc.full(home, arrive) {
                bounces += 1;
                nc.stats.bounces += 1;
                nc.stats.proxy_fetch_bounces += 1;
                let b = self.traverse(self.fabric.from_mem(node, proxy), self.header, arrive, &mut w);
                t = nc.handle(proxy, Msg::Bounce, b, self.horizon_ps);
                continue;
            }
            let (d, _) = self.serve_at_home(nc, proxy, node, home, owner, 0, row, arrive);
            return nc.handle(proxy, Msg::ProxyData, d, self.horizon_ps);
        }
    }
}

#[cfg(test)]
mod tests;
