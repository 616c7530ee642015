//! Fabric and DRAM booking: every message and memory access a transaction makes, booked on
//! the link directions, banks and data buses it crosses, with the calibration that makes an
//! unloaded miss take exactly the machine's latency.
//!
//! Why one struct for links and memory: a transaction (request legs, the home's fixed on-chip
//! time and DRAM, forwards, invalidations, data legs) is booked whole when its core issues it,
//! and its unloaded latency and its queueing are summed along the way; keeping the routes,
//! the memory controllers and the per-node calibration together makes that one function
//! ([`Booking::fetch`]) whose closed form can be tested without cores or caches.

use super::directory::NO_OWNER;
use super::dram::{ps, AddressMap, DramConfig, MemoryController};
use super::dram_scheduler::{QueueParams, ReadQueue};
use super::link::{Fabric, Path};
use super::params::{DramPagePolicy, TimingSpec};
use numasim_machine::Machine;

/// Latency of one booked transaction, ps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Latency {
    pub done_ps: u64,
    pub unloaded_ps: u64,
    pub wait_ps: u64,
}

/// A fetch between its request legs and its DRAM read ([`Booking::fetch_request`]).
#[derive(Debug, Clone, Copy)]
pub struct FetchInFlight {
    /// When the requesting core issued it.
    pub t0_ps: u64,
    /// When the read reaches the home's memory controller.
    pub dram_arrive_ps: u64,
    unloaded_ps: u64,
    wait_ps: u64,
    req: u16,
    pub node: u16,
    owner: u8,
    inval: u64,
}

/// Links, memory controllers and the calibration of every memory node.
pub struct Booking {
    pub fabric: Fabric,
    pub mem: Vec<MemoryController>,
    /// Per node: fixed on-chip latency = access_latency − lookup path − DRAM idle-bank access (ps).
    pub fixed_ps: Vec<u64>,
    /// Per node: by how much the closed form exceeds the machine's access latency (0 = exact).
    pub mismatch_ps: Vec<u64>,
    /// Per socket: L1 + L2 (+ LLC) tag path of an LLC miss, ps.
    pub lookup_ps: Vec<u64>,
    is_pool: Vec<bool>,
    pub(super) snoop_ps: u64,
    pub(super) header: u32,
    pub(super) data: u32,
    /// Per memory node: its socket (whose node controller serves it); `None` for a pool.
    pub(super) home_socket: Vec<Option<usize>>,
    /// Talbot & Kelly's node controllers, input buffers and proxies (`None`: not modelled).
    pub nc: Option<super::node_controller::NodeControllers>,
    /// No request is booked before this (the slowest running core's clock): timelines drop
    /// what ends by it.
    pub horizon_ps: u64,
    /// Latest completion of anything booked (the phase barrier waits for it).
    pub latest_ps: u64,
    /// Per memory node: its read queue (`dram_scheduler`'s, FR-FCFS by default); empty when
    /// `dram_read_queue = 0` or node controllers are modelled (reads are then placed when
    /// presented).
    windows: Vec<Box<dyn ReadQueue>>,
    /// Per node: the least time from a core's issue to a read reaching the node's controller
    /// (the lookahead that makes deciding a read safe: see [`Self::next_dram_decision`]).
    dram_arrive_min_ps: Vec<u64>,
    /// Per node: the window's lower bound on its next decision's start (`u64::MAX`: empty).
    window_bound_ps: Vec<u64>,
    /// [`Self::next_dram_decision`], kept up to date (the event loop asks before every step).
    next_decision: Option<(u64, usize)>,
    /// The least of `window_bound_ps`, kept up to date with `next_decision` (one pass over
    /// the nodes per decision, not two).
    least_bound_ps: u64,
}

impl Booking {
    /// `lookup_ps`: per socket, the private and LLC tag path an LLC miss has walked.
    /// `spec` must have passed [`TimingSpec::validate`] (the address mapping parses).
    pub fn new(spec: &TimingSpec, m: &Machine, page_bytes: u64, lookup_ps: Vec<u64>) -> Self {
        let map = AddressMap::parse(&spec.dram_address_mapping)
            .or_else(|_| AddressMap::parse("RoBaRaCoCh"))
            .expect("the default mapping parses");
        let line_bytes = m.sockets.first().map_or(64, |s| s.line_bytes);
        let nodes = m.memory_nodes.len();
        let mut mem = Vec::with_capacity(nodes);
        let mut fixed_ps = Vec::with_capacity(nodes);
        let mut mismatch_ps = Vec::with_capacity(nodes);
        for n in &m.memory_nodes {
            let cfg = DramConfig {
                channels: n.channels,
                page_bytes,
                row_bytes: spec.dram_row_bytes,
                capacity_bytes: n.capacity_bytes,
                refresh: spec.dram_refresh,
                closed_page: spec.dram_page_policy == DramPagePolicy::Closed,
                map,
                write_queue_high: spec.dram_write_queue_high,
                write_queue_low: spec.dram_write_queue_low,
            };
            let burst_ns = f64::from(line_bytes) / n.dram.channel_peak_gbps();
            let mc = MemoryController::new(&n.dram_timing, burst_ns, &cfg);
            let lookup = lookup_ps[n.attached_socket.unwrap_or(0)];
            // The unloaded first access is what the node's latency is calibrated against, so
            // the machine's latency matrix holds exactly whatever the DRAM timings are.
            let need = lookup + mc.t.first_access();
            let have = ps(n.access_latency_ns);
            fixed_ps.push(have.saturating_sub(need));
            mismatch_ps.push(need.saturating_sub(have));
            mem.push(mc);
        }
        let mut fabric = Fabric::new(m, spec.link_bandwidth_scale);
        for d in &mut fabric.dirs {
            d.know_sizes([spec.header_bytes, spec.header_bytes + line_bytes]);
        }
        let nc = super::node_controller::NodeControllers::from_spec(spec, m.sockets.len());
        let windows = if spec.dram_read_queue == 0 || nc.is_some() {
            Vec::new()
        } else {
            let params = QueueParams {
                capacity: spec.dram_read_queue as usize,
                bypass_cap: (spec.dram_bypass_cap > 0).then_some(spec.dram_bypass_cap),
            };
            // (An unknown name was refused by `TimingSpec::validate`.)
            let scheduler = super::dram_scheduler::by_name(spec.dram_scheduler.as_deref())
                .unwrap_or(&super::dram_scheduler::SCHEDULERS[0]);
            (0..nodes).map(|_| (scheduler.make)(params)).collect()
        };
        let dram_arrive_min_ps = (0..nodes)
            .map(|n| {
                (0..m.sockets.len())
                    .map(|s| lookup_ps[s] + fabric.to_mem(s, n).latency_ps + fixed_ps[n])
                    .min()
                    .unwrap_or(0)
            })
            .collect();
        Booking {
            fabric,
            mem,
            fixed_ps,
            mismatch_ps,
            lookup_ps,
            is_pool: m.memory_nodes.iter().map(|n| n.attached_socket.is_none()).collect(),
            home_socket: m.memory_nodes.iter().map(|n| n.attached_socket).collect(),
            nc,
            snoop_ps: ps(spec.owner_snoop_ns),
            header: spec.header_bytes,
            data: spec.header_bytes + line_bytes,
            horizon_ps: 0,
            latest_ps: 0,
            windows,
            dram_arrive_min_ps,
            window_bound_ps: vec![u64::MAX; nodes],
            next_decision: None,
            least_bound_ps: u64::MAX,
        }
    }

    /// Whether demand reads go through the nodes' read queues ([`Self::present_read`]).
    #[inline]
    pub fn has_read_queues(&self) -> bool {
        !self.windows.is_empty()
    }

    /// Queues the DRAM read of fetch `f` (line `row`) at its home's read queue, named `token`.
    pub fn present_read(&mut self, f: &FetchInFlight, row: u64, token: u64) {
        let n = f.node as usize;
        let w = &mut self.windows[n];
        w.push(&mut self.mem[n], f.dram_arrive_ps, self.horizon_ps, row, token);
        let bound = w.next_start_bound_ps().unwrap_or(u64::MAX);
        let was = std::mem::replace(&mut self.window_bound_ps[n], bound);
        if bound <= self.least_bound_ps {
            self.least_bound_ps = bound;
        } else if was == self.least_bound_ps {
            // A read that arrived earlier than queued ones can push the window's pick out of
            // its candidates, raising the node's bound.
            self.least_bound_ps = self.window_bound_ps.iter().copied().min().unwrap_or(u64::MAX);
        }
        // Only the new read can become the next decision. (Should its node's bound rise, the
        // kept decision is early: deciding it then takes nothing and looks again.)
        let key = (bound.saturating_sub(self.dram_arrive_min_ps[n]), n);
        if self.next_decision.is_none_or(|k| key < k) {
            self.next_decision = Some(key);
        }
    }

    /// The next read-queue decision in time: `(time, node)`, where `time` is its lower bound
    /// on the read's start minus the node's least issue-to-arrival time. Every core whose
    /// clock is at or past `time` can only present reads that arrive after that start, so the
    /// decision is final once no core (and no read that could wake one) is earlier.
    #[inline]
    pub fn next_dram_decision(&self) -> Option<(u64, usize)> {
        self.next_decision
    }

    /// The next decision and the least window bound, in one pass over the nodes.
    fn find_next_decision(&self) -> (Option<(u64, usize)>, u64) {
        let mut next = None;
        let mut least = u64::MAX;
        for (n, (&b, &l)) in self.window_bound_ps.iter().zip(&self.dram_arrive_min_ps).enumerate() {
            if b == u64::MAX {
                continue;
            }
            least = least.min(b);
            let key = (b.saturating_sub(l), n);
            if next.is_none_or(|k| key < k) {
                next = Some(key);
            }
        }
        (next, least)
    }

    /// Decides node `node`'s next read if it starts by the time a read presented by a core
    /// at `earliest_issue_ps` or later could arrive (`None`: not yet; the bound moved).
    pub fn decide_read(&mut self, node: usize, earliest_issue_ps: u64) -> Option<super::dram_window::Decided> {
        // A read that wakes a blocked core completes after its own start, so no core can
        // issue before the earliest start still pending anywhere.
        let issue = earliest_issue_ps.min(self.least_bound_ps);
        let limit = issue.saturating_add(self.dram_arrive_min_ps[node]);
        let w = &mut self.windows[node];
        let d = w.decide(&mut self.mem[node], self.horizon_ps, self.horizon_ps, limit);
        self.window_bound_ps[node] = w.next_start_bound_ps().unwrap_or(u64::MAX);
        (self.next_decision, self.least_bound_ps) = self.find_next_decision();
        debug_assert_eq!(
            self.least_bound_ps,
            self.window_bound_ps.iter().copied().min().unwrap_or(u64::MAX)
        );
        d
    }

    /// Whether memory node `node` is a pool (no socket of its own).
    #[inline]
    pub fn is_pool(&self, node: usize) -> bool {
        self.is_pool[node]
    }

    /// DRAM row of byte `offset` of frame `frame` at `node`.
    #[inline]
    pub fn row_of(&self, node: usize, frame: u64, offset: u64) -> u64 {
        self.mem[node].row_of(frame, offset)
    }

    /// Books `bytes` along `path` from `t`; returns the arrival time and adds queueing to `wait`.
    #[inline]
    pub fn traverse(&mut self, path: Path, bytes: u32, mut t: u64, wait: &mut u64) -> u64 {
        // The engine's contract, checked in test builds: nothing is presented before the
        // horizon, whose intervals the timelines may already have forgotten.
        // (Past the clock's stop everything saturates and order no longer means anything.)
        debug_assert!(
            t >= self.horizon_ps || self.horizon_ps >= super::core::MAX_CLOCK_PS,
            "message at {t} before the horizon {}",
            self.horizon_ps
        );
        for i in 0..path.len {
            let h = self.fabric.hop(path, i);
            let (start, w) = self.fabric.dirs[h.dir as usize].reserve(t, bytes, self.horizon_ps);
            *wait += w;
            t = start + h.after_ps;
        }
        self.latest_ps = self.latest_ps.max(t);
        t
    }

    /// A line fetch issued by socket `req` at `t0` (when its private lookups start): request to
    /// the home `node`, directory + DRAM there, invalidations of `inval`, then the data from
    /// memory or — a block transfer — from `owner`'s cache.
    pub fn fetch(&mut self, req: usize, node: usize, owner: u8, inval: u64, row: u64, t0: u64) -> Latency {
        let f = self.fetch_request(req, node, owner, inval, t0);
        let r = self.mem[node].access_at(f.dram_arrive_ps, row, false, self.horizon_ps);
        self.fetch_response(&f, &r)
    }

    /// The first half of [`Self::fetch`]: the request's legs to the home and its fixed on-chip
    /// time, up to the DRAM read (which a read queue may decide later).
    pub fn fetch_request(&mut self, req: usize, node: usize, owner: u8, inval: u64, t0: u64) -> FetchInFlight {
        let mut wait = 0;
        let mut unloaded = self.lookup_ps[req];
        let p = self.fabric.to_mem(req, node);
        unloaded += p.latency_ps;
        let t = self.traverse(p, self.header, t0 + self.lookup_ps[req], &mut wait);
        // Home: fixed on-chip time (directory lookup included), then DRAM.
        let fixed = self.fixed_ps[node];
        FetchInFlight {
            t0_ps: t0,
            dram_arrive_ps: t + fixed,
            unloaded_ps: unloaded + fixed,
            wait_ps: wait,
            req: req as u16,
            node: node as u16,
            owner,
            inval,
        }
    }

    /// The second half of [`Self::fetch`]: the DRAM read `r` done, the invalidations and the
    /// data's legs (from memory, or forwarded through the owner).
    pub fn fetch_response(&mut self, f: &FetchInFlight, r: &super::dram::DramResult) -> Latency {
        let (req, node, owner, inval) = (f.req as usize, f.node as usize, f.owner, f.inval);
        let mut unloaded = f.unloaded_ps + r.service_ps;
        let mut wait = f.wait_ps + r.wait_ps;
        let mut t = r.done_ps;
        if inval != 0 {
            self.send_invals(node, req, inval, t);
        }
        let data = self.data;
        if owner != NO_OWNER {
            let owner = owner as usize;
            let p = self.fabric.from_mem(node, owner);
            unloaded += p.latency_ps + self.snoop_ps;
            t = self.traverse(p, self.header, t, &mut wait) + self.snoop_ps;
            if self.is_pool[node] {
                // A CXL pool's directory has no socket to forward through: owner → pool → requester.
                let p = self.fabric.to_mem(owner, node);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
                let p = self.fabric.from_mem(node, req);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
            } else {
                let p = self.fabric.between(owner, req);
                unloaded += p.latency_ps;
                t = self.traverse(p, data, t, &mut wait);
            }
        } else {
            let p = self.fabric.from_mem(node, req);
            unloaded += p.latency_ps;
            t = self.traverse(p, data, t, &mut wait);
        }
        debug_assert_eq!(t, f.t0_ps + unloaded + wait);
        Latency {
            done_ps: t,
            unloaded_ps: unloaded,
            wait_ps: wait,
        }
    }

    /// Invalidations home → each sharer in `mask`, acks sharer → requester (traffic only).
    pub fn send_invals(&mut self, home: usize, req: usize, mut mask: u64, t: u64) {
        let mut ignored = 0;
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let p = self.fabric.from_mem(home, s);
            let mut at = self.traverse(p, self.header, t, &mut ignored);
            if let Some(nc) = &mut self.nc {
                at = nc.handle(s, super::node_controller::Msg::Inval, at, self.horizon_ps);
            }
            let p = self.fabric.between(s, req);
            self.traverse(p, self.header, at, &mut ignored);
        }
    }

    /// A store's ownership request from `socket` (issued at `t`) to the home `node`, which
    /// invalidates `others` (traffic only: the store does not wait).
    pub fn ownership(&mut self, socket: usize, node: usize, others: u64, t: u64) {
        let mut ignored = 0;
        let p = self.fabric.to_mem(socket, node);
        let mut at = self.traverse(p, self.header, t + self.lookup_ps[socket], &mut ignored);
        if let (Some(nc), Some(h)) = (&mut self.nc, self.home_socket[node]) {
            at = nc.handle(h, super::node_controller::Msg::Ownership, at, self.horizon_ps);
        }
        self.send_invals(node, socket, others, at);
    }

    /// A dirty line leaves `socket` at `t`: data to the home `node`, a posted DRAM write of `row`.
    pub fn writeback(&mut self, socket: usize, node: usize, row: u64, t: u64) {
        let mut ignored = 0;
        let p = self.fabric.to_mem(socket, node);
        let mut at = self.traverse(p, self.data, t, &mut ignored);
        if let (Some(nc), Some(h)) = (&mut self.nc, self.home_socket[node]) {
            at = nc.handle(h, super::node_controller::Msg::Writeback, at, self.horizon_ps);
        }
        let r = self.mem[node].access_at(at + self.fixed_ps[node], row, true, self.horizon_ps);
        self.latest_ps = self.latest_ps.max(r.done_ps);
    }

    /// One line of a page migration from `t0`: read at `from` (row `from_row`), carried through
    /// socket `via`, written at `to` (row `to_row`). Returns when the write completes.
    pub fn copy_line(&mut self, from: usize, from_row: u64, via: usize, to: usize, to_row: u64, t0: u64) -> u64 {
        let mut ignored = 0;
        let r = self.mem[from].access_at(t0 + self.fixed_ps[from], from_row, false, t0);
        let at = self.traverse(self.fabric.from_mem(from, via), self.data, r.done_ps, &mut ignored);
        let at = self.traverse(self.fabric.to_mem(via, to), self.data, at, &mut ignored);
        self.mem[to].access_at(at + self.fixed_ps[to], to_row, true, t0).done_ps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starnuma() -> (Machine, Booking) {
        starnuma_with(TimingSpec::default())
    }

    fn starnuma_with(spec: TimingSpec) -> (Machine, Booking) {
        let m = Machine::load("starnuma16-pool-scaled").unwrap();
        // Any lookup path below the node latency works; 15 ns stands for L1 + L2 + LLC.
        let b = Booking::new(&spec, &m, 4096, vec![15_000; m.sockets.len()]);
        (m, b)
    }

    /// Exact by construction: the node's fixed on-chip part is its latency minus the lookup
    /// path and the DRAM time of an access to an idle bank, whatever the DRAM timings, page
    /// policy and refresh setting are.
    #[test]
    fn an_unloaded_fetch_takes_the_node_latency_plus_both_route_legs() {
        for (refresh, policy) in [
            (true, DramPagePolicy::Open),
            (false, DramPagePolicy::Open),
            (true, DramPagePolicy::Closed),
        ] {
            let spec = TimingSpec {
                dram_refresh: refresh,
                dram_page_policy: policy,
                ..TimingSpec::default()
            };
            unloaded_fetches(spec);
        }
    }

    fn unloaded_fetches(spec: TimingSpec) {
        let (m, mut b) = starnuma_with(spec);
        for (req, node) in [(0, 0), (0, 1), (0, 15), (3, m.memory_nodes.len() - 1)] {
            // 1 µs into a refresh interval: clear of every rank's refresh window.
            let t0 = (b.latest_ps / 3_900_000 + 1) * 3_900_000 + 1_000_000;
            b.horizon_ps = t0;
            let route = ps(m.route_to_memory(req, node).latency_ns);
            let lat = b.fetch(req, node, NO_OWNER, 0, b.row_of(node, 7, 0), t0);
            assert_eq!(b.mismatch_ps[node], 0);
            assert_eq!(lat.wait_ps, 0);
            assert_eq!(lat.unloaded_ps, ps(m.memory_nodes[node].access_latency_ns) + 2 * route);
            assert_eq!(lat.done_ps, t0 + lat.unloaded_ps);
        }
    }

    #[test]
    fn a_block_transfer_adds_the_forward_and_the_owner_to_requester_leg() {
        let (m, mut b) = starnuma();
        let (req, home, owner) = (0, 5, 10);
        let d = |a: usize, n: usize| ps(m.route_to_memory(a, n).latency_ns);
        let lat = b.fetch(req, home, owner as u8, 0, 1, 1_000_000);
        let between = b.fabric.between(owner, req).latency_ps;
        let want = ps(m.memory_nodes[home].access_latency_ns) + d(req, home) + d(owner, home) + between;
        assert_eq!(lat.unloaded_ps, want);
    }

    #[test]
    fn back_to_back_fetches_on_one_route_queue_and_count_the_wait() {
        let (_, mut b) = starnuma();
        let a = b.fetch(0, 1, NO_OWNER, 0, 1, 0);
        // Same row again at once: a row hit, but the request waits behind the first on the
        // link, and the data behind the first data message.
        let c = b.fetch(0, 1, NO_OWNER, 0, 1, 0);
        assert!(c.wait_ps > 0, "{c:?}");
        assert_eq!(c.done_ps, c.unloaded_ps + c.wait_ps);
        assert!(c.done_ps > a.done_ps);
    }

    #[test]
    fn invalidations_and_writebacks_are_traffic_on_the_links() {
        let (_, mut b) = starnuma();
        let messages = |b: &Booking| b.fabric.dirs.iter().map(|d| d.messages).sum::<u64>();
        b.send_invals(1, 0, 0b1100, 0);
        // Two sharers on other sockets: each an invalidation and an ack, one or more hops each.
        let after_invals = messages(&b);
        assert!(after_invals >= 4);
        let before = b.mem[1].queued_writes();
        b.writeback(0, 1, 3, 0);
        assert_eq!(b.mem[1].queued_writes(), before + 1, "posted to the write queue");
        assert!(messages(&b) > after_invals);
        assert!(b.latest_ps > 0);
    }
}
