//! Talbot & Kelly's node controllers: occupancy, finite input buffers with bounce-back, and
//! basic and reactive proxies (first-touch-and-reactive-proxies.txt §1.3–1.4).
//!
//! Why a resource per node: the paper's point is that a home's *node controller* — not its
//! links or DRAM — becomes the bottleneck when many nodes read the same data, so each socket's
//! controller is a non-pipelined server on its own [`Timeline`] that every message arriving at
//! the node occupies for the cycles of Table 1.2 (see [`occupancy_cycles`]). Only the *waits*
//! for a busy controller are added to a transaction's latency: its own service is already in
//! the machine's calibrated latencies (`talbot64`'s 490/740 ns are built from the same Table 1.2
//! actions), so an unloaded miss still takes exactly the machine's latency.
//!
//! Input buffers: messages booked on a controller but not yet started are its input queue. A
//! read request that arrives while `input_buffer_reads` messages wait is bounced: a header goes
//! back to the requester, which sends the request again (or, with reactive proxies, sends a
//! proxy read instead). Bounces are capped at [`MAX_BOUNCES`] per request, after which the
//! request is queued anyway, so every transaction completes (the paper limits only read
//! requests for the same reason). Proxy reads and a proxy's own fetch from the home are never
//! bounced (a simplification: the paper does not say what happens to them).
//!
//! Proxies: a block's proxy for requester R is a node of R's cluster (sockets split into
//! `proxy_clusters` contiguous groups), the `line mod |cluster|`-th, so successive blocks use
//! different proxies. A proxy serves from its proxy store if it holds the line, joins a pending
//! chain if its fetch from the home is still in flight (combining: the waiting requesters get
//! the data when that one fetch lands), or fetches once from the home. Any write to a line
//! drops its proxy copies (one invalidation message each). Departure: proxy copies live in a
//! direct-mapped store of [`PROXY_LINES`] lines per node beside the SLC, rather than displacing
//! SLC lines.

use super::booking::{Booking, Latency};
use super::directory::NO_OWNER;
use super::params::{ProxyMode, TimingSpec};
use super::timeline::Timeline;
use serde::Serialize;
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
pub fn occupancy_cycles(m: Msg) -> u64 {
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

/// Bounces of one request before it is queued regardless.
pub const MAX_BOUNCES: u32 = 64;
/// Proxy store per node, lines (512 KiB of 64 B lines).
pub const PROXY_LINES: usize = 8192;

/// Counters of a run (results.json `timing.node_controllers`).
#[derive(Debug, Clone, Default)]
pub struct NcStats {
    pub messages: [u64; MSG_KINDS],
    /// Messages that occupied a controller, and their summed wait before service, ps.
    pub handled: u64,
    pub queue_ps: u64,
    pub bounces: u64,
    pub proxy_reads: u64,
    pub proxy_hits: u64,
    pub combined: u64,
    pub proxy_fetches: u64,
    /// LLC-miss loads whose home is another socket, and their summed response time, ps.
    pub remote_reads: u64,
    pub remote_read_ps: u64,
}

impl NcStats {
    /// The counts added since `earlier` (a snapshot of the same run's counters).
    pub fn since(&self, earlier: &NcStats) -> NcStats {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        let mut messages = [0; MSG_KINDS];
        for (m, (a, b)) in messages.iter_mut().zip(self.messages.iter().zip(&earlier.messages)) {
            *m = d(*a, *b);
        }
        NcStats {
            messages,
            handled: d(self.handled, earlier.handled),
            queue_ps: d(self.queue_ps, earlier.queue_ps),
            bounces: d(self.bounces, earlier.bounces),
            proxy_reads: d(self.proxy_reads, earlier.proxy_reads),
            proxy_hits: d(self.proxy_hits, earlier.proxy_hits),
            combined: d(self.combined, earlier.combined),
            proxy_fetches: d(self.proxy_fetches, earlier.proxy_fetches),
            remote_reads: d(self.remote_reads, earlier.remote_reads),
            remote_read_ps: d(self.remote_read_ps, earlier.remote_read_ps),
        }
    }
}

/// The report block.
#[derive(Debug, Clone, Serialize)]
pub struct NcReport {
    pub cycle_ns: f64,
    pub input_buffer_reads: Option<u32>,
    pub proxies: ProxyMode,
    pub messages: BTreeMap<String, u64>,
    pub messages_total: u64,
    /// Mean cycles a message waited in an input buffer (Table 1.4).
    pub mean_input_buffer_queueing_cycles: f64,
    pub bounces: u64,
    pub proxy_reads: u64,
    pub proxy_hits: u64,
    /// Proxy reads that joined a pending chain (served by another request's home fetch).
    pub combined: u64,
    pub proxy_fetches: u64,
    pub remote_reads: u64,
    pub mean_remote_read_response_ns: f64,
}

/// Every socket's node controller, input queue and proxy store.
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
    /// Per socket × PROXY_LINES: line + 1 (0 = empty), and when the data is there (ps).
    tags: Vec<u64>,
    ready: Vec<u64>,
    pub stats: NcStats,
}

impl NodeControllers {
    /// `None` unless `node_controller_cycle_ns` is set.
    pub fn from_spec(spec: &TimingSpec, sockets: usize) -> Option<Self> {
        let cycle_ns = spec.node_controller_cycle_ns?;
        let mode = spec.proxies.unwrap_or(ProxyMode::None);
        let store = if mode == ProxyMode::None {
            0
        } else {
            sockets * PROXY_LINES
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
            tags: vec![0; store],
            ready: vec![0; store],
            stats: NcStats::default(),
        })
    }

    pub fn mode(&self) -> ProxyMode {
        self.mode
    }

    /// A message of kind `m` arrives at `socket`'s controller at `arrive`: books its
    /// occupancy; returns when the controller starts on it.
    pub fn handle(&mut self, socket: usize, m: Msg, arrive: u64, horizon: u64) -> u64 {
        self.stats.messages[m as usize] += 1;
        let len = occupancy_cycles(m) * self.cycle_ps;
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

    fn slot(&self, socket: usize, line: u64) -> usize {
        socket * PROXY_LINES + (line % PROXY_LINES as u64) as usize
    }

    /// A write to `line`: every proxy copy of it is dropped. Returns the proxies that held it
    /// (`held[..n]`).
    pub fn invalidate(&mut self, line: u64) -> ([usize; 64], usize) {
        let mut held = [0; 64];
        let mut n = 0;
        if !self.tags.is_empty() {
            for c in 0..self.clusters {
                let p = self.proxy_of(line, c * self.sockets / self.clusters);
                let i = self.slot(p, line);
                if self.tags[i] == line + 1 {
                    self.tags[i] = 0;
                    held[n] = p;
                    n += 1;
                }
            }
        }
        (held, n)
    }

    pub fn report(&self) -> NcReport {
        self.report_of(&self.stats)
    }

    /// The report block of counters `s` (the run's, or one phase's from [`NcStats::since`]).
    pub fn report_of(&self, s: &NcStats) -> NcReport {
        let cycle_ns = self.cycle_ps as f64 / 1000.0;
        NcReport {
            cycle_ns,
            input_buffer_reads: self.buffer,
            proxies: self.mode,
            messages: MSG_NAMES
                .iter()
                .zip(s.messages)
                .map(|(n, c)| ((*n).to_string(), c))
                .collect(),
            messages_total: s.messages.iter().sum(),
            mean_input_buffer_queueing_cycles: if s.handled > 0 {
                s.queue_ps as f64 / s.handled as f64 / self.cycle_ps.max(1) as f64
            } else {
                0.0
            },
            bounces: s.bounces,
            proxy_reads: s.proxy_reads,
            proxy_hits: s.proxy_hits,
            combined: s.combined,
            proxy_fetches: s.proxy_fetches,
            remote_reads: s.remote_reads,
            mean_remote_read_response_ns: if s.remote_reads > 0 {
                s.remote_read_ps as f64 / s.remote_reads as f64 / 1000.0
            } else {
                0.0
            },
        }
    }
}

impl Booking {
    /// [`Booking::fetch`] with node controllers: controller waits at the home, owner and
    /// requester, bounces from full input buffers, and basic or reactive proxies. `vaddr` is the
    /// missing address. Pool homes (no controller) take the plain path.
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
    ) -> Latency {
        let Some(home) = self.home_socket[node] else {
            return self.fetch(req, node, owner, inval, row, t0);
        };
        let mut nc = self.nc.take().expect("fetch_nc needs node controllers");
        let line = vaddr >> 6;
        let mut unloaded = self.lookup_ps[req];
        let mut t = t0 + self.lookup_ps[req];
        let mut ignored = 0;
        if write {
            let (held, n) = nc.invalidate(line);
            for &p in &held[..n] {
                let path = self.fabric.from_mem(node, p);
                let at = self.traverse(path, self.header, t, &mut ignored);
                nc.handle(p, Msg::Inval, at, self.horizon_ps);
            }
        }
        let p_req = self.fabric.to_mem(req, node);
        unloaded += p_req.latency_ps;
        // Basic proxies: a marked read goes to its proxy first (unless that is the requester or
        // the home itself).
        let proxy = nc.proxy_of(line, req);
        let via_proxy = !write && proxy != req && proxy != home && nc.marked(vaddr);
        let done = if via_proxy {
            let (d, u) = self.proxy_read(&mut nc, req, proxy, node, home, owner, row, t, line);
            unloaded = self.lookup_ps[req] + u;
            d
        } else {
            let mut bounces = 0;
            loop {
                let at = self.traverse(p_req, self.header, t, &mut ignored);
                if !write && bounces < MAX_BOUNCES && nc.full(home, at) {
                    bounces += 1;
                    nc.stats.bounces += 1;
                    let back = self.traverse(self.fabric.from_mem(node, req), self.header, at, &mut ignored);
                    t = nc.handle(req, Msg::Bounce, back, self.horizon_ps);
                    if nc.mode() == ProxyMode::Reactive && proxy != req && proxy != home {
                        let (d, _) = self.proxy_read(&mut nc, req, proxy, node, home, owner, row, t, line);
                        break d;
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
        Latency {
            done_ps: done,
            unloaded_ps: unloaded,
            wait_ps: (done - t0).saturating_sub(unloaded),
        }
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
        let start = nc.handle(home, Msg::Request, at, self.horizon_ps);
        let fixed = self.fixed_ps[node];
        let r = self.mem[node].access_at(start + fixed, row, false, self.horizon_ps);
        let mut unloaded = fixed + r.service_ps;
        let mut t = r.done_ps;
        if inval != 0 {
            self.send_invals(node, to, inval, t);
        }
        if owner != NO_OWNER && owner as usize != to {
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

    /// A proxy read from `req` to `proxy` sent at `t`. Returns (data arrival at `req`, unloaded
    /// latency of that path from `t`).
    #[allow(clippy::too_many_arguments)]
    fn proxy_read(
        &mut self,
        nc: &mut NodeControllers,
        req: usize,
        proxy: usize,
        node: usize,
        home: usize,
        owner: u8,
        row: u64,
        t: u64,
        line: u64,
    ) -> (u64, u64) {
        let mut w = 0;
        nc.stats.proxy_reads += 1;
        let to_p = self.fabric.between(req, proxy);
        let back = self.fabric.between(proxy, req);
        let at = self.traverse(to_p, self.header, t, &mut w);
        let at = nc.handle(proxy, Msg::ProxyRead, at, self.horizon_ps);
        let i = nc.slot(proxy, line);
        let ready = if nc.tags[i] == line + 1 {
            if nc.ready[i] <= at {
                nc.stats.proxy_hits += 1;
            } else {
                nc.stats.combined += 1;
            }
            nc.ready[i].max(at)
        } else {
            nc.stats.proxy_fetches += 1;
            let path = self.fabric.to_mem(proxy, node);
            let arrive = self.traverse(path, self.header, at, &mut w);
            let (d, _) = self.serve_at_home(nc, proxy, node, home, owner, 0, row, arrive);
            let d = nc.handle(proxy, Msg::ProxyData, d, self.horizon_ps);
            nc.tags[i] = line + 1;
            nc.ready[i] = d;
            d
        };
        let done = self.traverse(back, self.data, ready, &mut w);
        // Unloaded: to the proxy, a hit there, back (a miss at the proxy counts as contention:
        // the proxy path is taken to avoid the home's queue, not for its latency).
        (done, to_p.latency_ps + back.latency_ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_machine::Machine;

    fn spec(buffer: Option<u32>, proxies: ProxyMode) -> TimingSpec {
        TimingSpec {
            node_controller_cycle_ns: Some(10.0),
            input_buffer_reads: buffer,
            proxies: Some(proxies),
            ..TimingSpec::default()
        }
    }

    fn talbot(s: TimingSpec) -> Booking {
        let m = Machine::load("talbot64").unwrap();
        Booking::new(&s, &m, 8192, vec![10_000; m.sockets.len()])
    }

    /// Closed form: N messages arriving together at one idle controller of occupancy o start at
    /// 0, o, 2o, …: total wait o·N(N−1)/2, mean queueing (N−1)/2 · o.
    #[test]
    fn occupancy_serialises_messages_at_one_controller() {
        let mut nc = NodeControllers::from_spec(&spec(None, ProxyMode::None), 4).unwrap();
        let o = occupancy_cycles(Msg::Request) * 10_000;
        let n = 7u64;
        for k in 0..n {
            assert_eq!(nc.handle(2, Msg::Request, 1_000, 0), 1_000 + k * o);
        }
        assert_eq!(nc.stats.queue_ps, o * n * (n - 1) / 2);
        let r = nc.report();
        let cycles = occupancy_cycles(Msg::Request) as f64;
        assert!((r.mean_input_buffer_queueing_cycles - cycles * (n - 1) as f64 / 2.0).abs() < 1e-9);
        // Another controller is independent; spaced arrivals never wait.
        assert_eq!(nc.handle(3, Msg::Request, 1_000, 0), 1_000);
        assert_eq!(nc.handle(3, Msg::Request, 1_000 + o, 0), 1_000 + o);
    }

    #[test]
    fn buffer_is_full_only_while_enough_messages_wait() {
        let mut nc = NodeControllers::from_spec(&spec(Some(2), ProxyMode::None), 4).unwrap();
        let o = occupancy_cycles(Msg::Request) * 10_000;
        nc.handle(0, Msg::Request, 0, 0); // in service, not waiting
        assert!(!nc.full(0, 1));
        nc.handle(0, Msg::Request, 0, 0); // waits until o
        assert!(!nc.full(0, 1), "one waiting < 2");
        nc.handle(0, Msg::Request, 0, 0); // waits until 2o
        assert!(nc.full(0, 1), "two waiting");
        assert!(!nc.full(0, o + 1), "one left waiting after the first finishes");
        assert!(!nc.full(1, 1), "other nodes are empty");
        let infinite = NodeControllers::from_spec(&spec(None, ProxyMode::None), 4).unwrap();
        assert!(!infinite.full(0, 0));
    }

    /// Through the booking: a read bounces (and is retried) when the home's buffer is full,
    /// and not otherwise.
    #[test]
    fn a_read_bounces_when_the_home_buffer_is_full_and_not_otherwise() {
        let mut b = talbot(spec(Some(2), ProxyMode::None));
        let row = b.row_of(5, 3, 0);
        let lat = b.fetch_nc(0, 5, NO_OWNER, 0, row, 0, 0x1000, false);
        assert_eq!(b.nc.as_ref().unwrap().stats.bounces, 0);
        assert_eq!(lat.wait_ps, 0, "unloaded: {lat:?}");
        // Fill node 5's input buffer with messages arriving when our next read will.
        let t = 10_000_000;
        let arrive = t + 10_000 + b.fabric.to_mem(0, 5).latency_ps;
        let nc = b.nc.as_mut().unwrap();
        for _ in 0..3 {
            nc.handle(5, Msg::Request, arrive - 1, 0);
        }
        let lat = b.fetch_nc(0, 5, NO_OWNER, 0, row, t, 0x1000, false);
        let nc = b.nc.as_ref().unwrap();
        assert!(nc.stats.bounces >= 1, "{:?}", nc.stats);
        assert_eq!(nc.stats.messages[Msg::Bounce as usize], nc.stats.bounces);
        assert!(lat.wait_ps > 0);
        // Writes are never bounced.
        let before = nc.stats.bounces;
        let nc = b.nc.as_mut().unwrap();
        for _ in 0..3 {
            nc.handle(5, Msg::Request, 2 * t + 40_000, 0);
        }
        b.fetch_nc(0, 5, NO_OWNER, 0, row, 2 * t, 0x2000, true);
        assert_eq!(b.nc.as_ref().unwrap().stats.bounces, before);
    }

    #[test]
    fn proxy_choice_spreads_successive_blocks_within_the_requesters_cluster() {
        let nc = NodeControllers::from_spec(&spec(None, ProxyMode::Basic), 64).unwrap();
        // Cluster of socket 0: sockets 0..21 (64 / 3).
        let proxies: Vec<usize> = (100..121).map(|l| nc.proxy_of(l, 0)).collect();
        let mut distinct = proxies.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 21, "21 successive blocks on 21 proxies: {proxies:?}");
        assert!(proxies.iter().all(|&p| p < 21));
        for w in proxies.windows(2) {
            assert_ne!(w[0], w[1]);
        }
        // Requesters of one cluster share a block's proxy (so their reads combine); another
        // cluster has its own.
        assert_eq!(nc.proxy_of(7, 3), nc.proxy_of(7, 20));
        assert!(nc.proxy_of(7, 40) >= 21);
    }

    /// N requesters of one cluster read one line via its proxy while the proxy's fetch from the
    /// home is in flight: one home fetch, N − 1 combined.
    #[test]
    fn combining_serves_waiting_requesters_with_one_home_fetch() {
        let mut b = talbot(spec(None, ProxyMode::Basic));
        let home_node = 40;
        let vaddr = 0x4000u64;
        let line = vaddr >> 6;
        let row = b.row_of(home_node, 3, 0);
        let reqs: Vec<usize> = (0..21)
            .filter(|&r| r != b.nc.as_ref().unwrap().proxy_of(line, 0))
            .take(5)
            .collect();
        let home_before = b.mem[home_node].accesses;
        let lats: Vec<Latency> = reqs
            .iter()
            .map(|&r| b.fetch_nc(r, home_node, NO_OWNER, 0, row, 1_000, vaddr, false))
            .collect();
        let nc = b.nc.as_ref().unwrap();
        assert_eq!(nc.stats.proxy_reads, 5);
        assert_eq!(nc.stats.proxy_fetches, 1, "{:?}", nc.stats);
        assert_eq!(nc.stats.combined, 4);
        assert_eq!(
            b.mem[home_node].accesses - home_before,
            1,
            "one DRAM access at the home"
        );
        assert!(lats.iter().all(|l| l.done_ps > 1_000));
        // A write drops the proxy copy: the next read fetches again.
        b.fetch_nc(60, home_node, NO_OWNER, 0, row, 50_000_000, vaddr, true);
        b.fetch_nc(reqs[0], home_node, NO_OWNER, 0, row, 90_000_000, vaddr, false);
        assert_eq!(b.nc.as_ref().unwrap().stats.proxy_fetches, 2);
    }

    /// Reactive proxies: no proxy read until a bounce; after one, the retry goes via the proxy;
    /// once the buffer has drained, reads go to the home again.
    #[test]
    fn reactive_proxies_switch_on_after_a_bounce_and_off_when_buffers_drain() {
        let mut b = talbot(spec(Some(2), ProxyMode::Reactive));
        let (home_node, vaddr) = (40, 0x8000u64);
        let row = b.row_of(home_node, 3, 0);
        b.fetch_nc(1, home_node, NO_OWNER, 0, row, 0, vaddr, false);
        assert_eq!(b.nc.as_ref().unwrap().stats.proxy_reads, 0, "no contention: no proxy");
        let t = 10_000_000;
        let arrive = t + 10_000 + b.fabric.to_mem(1, home_node).latency_ps;
        for _ in 0..3 {
            b.nc.as_mut().unwrap().handle(40, Msg::Request, arrive - 1, 0);
        }
        b.fetch_nc(1, home_node, NO_OWNER, 0, row, t, vaddr, false);
        let s = &b.nc.as_ref().unwrap().stats;
        assert_eq!((s.bounces, s.proxy_reads), (1, 1), "{s:?}");
        // Long after: the queue has drained.
        b.fetch_nc(2, home_node, NO_OWNER, 0, row, 100 * t, vaddr + 64, false);
        let s = &b.nc.as_ref().unwrap().stats;
        assert_eq!((s.bounces, s.proxy_reads), (1, 1), "{s:?}");
    }

    #[test]
    fn inconsistent_keys_are_refused_by_name() {
        let bad = |s: TimingSpec| s.validate().expect_err("refused").0;
        let none = TimingSpec::default();
        assert_eq!(
            bad(TimingSpec {
                input_buffer_reads: Some(8),
                ..none.clone()
            }),
            "input_buffer_reads"
        );
        assert_eq!(
            bad(TimingSpec {
                proxies: Some(ProxyMode::Basic),
                ..none.clone()
            }),
            "proxies"
        );
        assert_eq!(
            bad(spec(None, ProxyMode::Reactive)),
            "proxies",
            "reactive needs finite buffers"
        );
        assert_eq!(
            bad(TimingSpec {
                node_controller_cycle_ns: Some(-1.0),
                ..none.clone()
            }),
            "node_controller_cycle_ns"
        );
        assert_eq!(
            bad(TimingSpec {
                proxy_clusters: Some(0),
                ..spec(None, ProxyMode::Basic)
            }),
            "proxy_clusters"
        );
        assert_eq!(
            bad(TimingSpec {
                proxy_ranges: Some(vec![[8, 8]]),
                ..spec(None, ProxyMode::Basic)
            }),
            "proxy_ranges"
        );
        spec(Some(8), ProxyMode::Reactive).validate().unwrap();
        assert!(NodeControllers::from_spec(&none, 64).is_none(), "off by default");
    }

    #[test]
    fn basic_proxies_follow_the_marked_ranges() {
        let s = TimingSpec {
            proxy_ranges: Some(vec![[0x1000, 0x2000]]),
            ..spec(None, ProxyMode::Basic)
        };
        let nc = NodeControllers::from_spec(&s, 64).unwrap();
        assert!(nc.marked(0x1000) && nc.marked(0x1fff));
        assert!(!nc.marked(0x2000) && !nc.marked(0xfff));
        let reactive = NodeControllers::from_spec(&spec(Some(8), ProxyMode::Reactive), 64).unwrap();
        assert!(!reactive.marked(0x1000), "reactive proxies mark nothing");
    }
}
