//! Interconnect: every link direction is a server with a [`Timeline`]; routes are flattened
//! hop lists.
//!
//! A message of `b` bytes reaching a link direction at time `a` starts at the earliest free
//! interval `≥ a` (`max(0, free − a)` when fed in time order: a FIFO), occupies the direction
//! for `b / bandwidth` (GB/s = bytes/ns) and reaches the far end
//! `latency_ns` after it starts (plus the transit latency of the next vertex if the route
//! continues through it). So an unloaded message takes exactly the route's one-way latency —
//! the quantity the machine's derived latency matrix is built from — and bandwidth shows up
//! only as queueing: with Poisson arrivals the wait is that of an M/D/1 queue,
//! `W = ρ / (2 μ (1 − ρ))`. The engine books whole transactions at issue, so arrivals may be
//! presented out of time order; the timeline then books the earliest gap that holds the whole
//! message, so a direction never carries more than its bandwidth (see [`super::timeline`]).

use super::dram::ps;
use super::timeline::Timeline;
use numasim_machine::{Machine, Route};

#[derive(Debug, Clone)]
pub struct LinkDir {
    /// ps per byte.
    pub ps_per_byte: f64,
    timeline: Timeline,
    pub busy_ps: u64,
    pub bytes: u64,
    pub messages: u64,
    /// Service times of the message sizes the booking uses (header, data), so the hot path
    /// does no float arithmetic: (bytes, ps); a size not listed is computed.
    known: [(u32, u64); 2],
}

impl LinkDir {
    pub fn new(bandwidth_gbps: f64) -> Self {
        LinkDir {
            ps_per_byte: 1000.0 / bandwidth_gbps,
            timeline: Timeline::new(),
            busy_ps: 0,
            bytes: 0,
            messages: 0,
            known: [(0, 1); 2],
        }
    }

    /// Precomputes the service times of two message sizes (the booking's header and data).
    pub fn know_sizes(&mut self, sizes: [u32; 2]) {
        self.known = sizes.map(|b| (b, self.compute_service_ps(b)));
    }

    fn compute_service_ps(&self, bytes: u32) -> u64 {
        (f64::from(bytes) * self.ps_per_byte).round().max(1.0) as u64
    }

    /// Service time of a `bytes` message, ps.
    #[inline]
    pub fn service_ps(&self, bytes: u32) -> u64 {
        let [(b0, s0), (b1, s1)] = self.known;
        if bytes == b0 {
            s0
        } else if bytes == b1 {
            s1
        } else {
            self.compute_service_ps(bytes)
        }
    }

    /// A message arrives at `arrive_ps` (non-decreasing across calls); returns (start of
    /// transmission, wait).
    #[inline]
    pub fn enqueue(&mut self, arrive_ps: u64, bytes: u32) -> (u64, u64) {
        self.reserve(arrive_ps, bytes, arrive_ps)
    }

    /// A message arrives at `arrive_ps`, in any order; no later message arrives before
    /// `horizon_ps`. Returns (start of transmission, wait).
    #[inline]
    pub fn reserve(&mut self, arrive_ps: u64, bytes: u32, horizon_ps: u64) -> (u64, u64) {
        let s = self.service_ps(bytes);
        let start = self.timeline.book(arrive_ps, s, horizon_ps);
        self.busy_ps += s;
        self.bytes += u64::from(bytes);
        self.messages += 1;
        (start, start - arrive_ps)
    }
}

/// One hop of a flattened route: link direction index (`2·link + (b→a)`) and the time from
/// the start of transmission to arrival at the next server (link latency + transit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub dir: u32,
    pub after_ps: u64,
}

/// A route's hops live in `Fabric::hops[start..start+len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Path {
    pub start: u32,
    pub len: u32,
    /// Unloaded one-way latency, ps.
    pub latency_ps: u64,
}

/// All link directions and all routes the model uses, indexed densely.
#[derive(Debug, Clone)]
pub struct Fabric {
    pub dirs: Vec<LinkDir>,
    pub hops: Vec<Hop>,
    sockets: usize,
    nodes: usize,
    /// `[s * nodes + m]`: socket → memory, and its reverse memory → socket.
    to_mem: Vec<Path>,
    from_mem: Vec<Path>,
    /// `[a * sockets + b]`: socket a → socket b.
    between: Vec<Path>,
}

fn transit_ps(m: &Machine, node: numasim_machine::NodeRef) -> u64 {
    use numasim_machine::NodeRef;
    match node {
        NodeRef::Socket(i) => ps(m.sockets[i].transit_latency_ns),
        NodeRef::Switch(i) => ps(m.switches[i].transit_latency_ns),
        NodeRef::Memory(_) => 0,
    }
}

impl Fabric {
    pub fn new(m: &Machine, bandwidth_scale: f64) -> Fabric {
        let mut dirs = Vec::with_capacity(m.links.len() * 2);
        for l in &m.links {
            dirs.push(LinkDir::new(l.bandwidth_gbps(true) * bandwidth_scale));
            dirs.push(LinkDir::new(l.bandwidth_gbps(false) * bandwidth_scale));
        }
        let (s, n) = (m.sockets.len(), m.memory_nodes.len());
        let mut f = Fabric {
            dirs,
            hops: Vec::new(),
            sockets: s,
            nodes: n,
            to_mem: Vec::with_capacity(s * n),
            from_mem: Vec::with_capacity(s * n),
            between: Vec::with_capacity(s * s),
        };
        for a in 0..s {
            for mem in 0..n {
                let r = m.route_to_memory(a, mem);
                let p = f.push(m, r, false);
                f.to_mem.push(p);
                let p = f.push(m, r, true);
                f.from_mem.push(p);
            }
        }
        for a in 0..s {
            for b in 0..s {
                let r = m.route_between_sockets(a, b);
                let p = f.push(m, r, false);
                f.between.push(p);
            }
        }
        f
    }

    /// Flattens a route, forwards or reversed.
    fn push(&mut self, m: &Machine, r: &Route, reverse: bool) -> Path {
        let start = self.hops.len() as u32;
        let k = r.links.len();
        let mut total = 0;
        for i in 0..k {
            let (hop, next_vertex) = if reverse {
                let j = k - 1 - i;
                (r.links[j], r.nodes[j])
            } else {
                (r.links[i], r.nodes[i + 1])
            };
            let a_to_b = hop.a_to_b != reverse;
            let last = i + 1 == k;
            let after = ps(m.links[hop.link].latency_ns) + if last { 0 } else { transit_ps(m, next_vertex) };
            total += after;
            self.hops.push(Hop {
                dir: (2 * hop.link + usize::from(!a_to_b)) as u32,
                after_ps: after,
            });
        }
        Path {
            start,
            len: k as u32,
            latency_ps: total,
        }
    }

    #[inline]
    pub fn to_mem(&self, socket: usize, mem: usize) -> Path {
        self.to_mem[socket * self.nodes + mem]
    }
    #[inline]
    pub fn from_mem(&self, mem: usize, socket: usize) -> Path {
        self.from_mem[socket * self.nodes + mem]
    }
    #[inline]
    pub fn between(&self, a: usize, b: usize) -> Path {
        self.between[a * self.sockets + b]
    }
    #[inline]
    pub fn hop(&self, p: Path, i: u32) -> Hop {
        self.hops[(p.start + i) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Poisson arrivals into one link direction; returns (mean wait ns, throughput GB/s).
    fn poisson(rho: f64, bytes: u32, gbps: f64, n: usize) -> (f64, f64) {
        let mut link = LinkDir::new(gbps);
        let service_ns = f64::from(bytes) / gbps;
        let mean_gap_ns = service_ns / rho;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut t = 0.0f64;
        let mut wait = 0u64;
        let mut end = 0u64;
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            t += -mean_gap_ns * u.ln();
            let (start, w) = link.enqueue(ps(t), bytes);
            wait += w;
            end = start + link.service_ps(bytes);
        }
        (
            wait as f64 / n as f64 / 1000.0,
            link.bytes as f64 / (end as f64 / 1000.0),
        )
    }

    #[test]
    fn poisson_queueing_matches_m_d_1() {
        // 80 B data messages on a 3 GB/s StarNUMA-scaled link: service 26.67 ns.
        for rho in [0.5, 0.8] {
            let (w, _) = poisson(rho, 80, 3.0, 400_000);
            let mu = 3.0 / 80.0; // per ns
            let md1 = rho / (2.0 * mu * (1.0 - rho));
            assert!((w - md1).abs() / md1 < 0.05, "rho {rho}: {w} ns vs M/D/1 {md1} ns");
        }
    }

    #[test]
    fn throughput_saturates_at_the_link_bandwidth() {
        let (_, gbps) = poisson(1.5, 80, 3.0, 100_000);
        assert!((gbps - 3.0).abs() / 3.0 < 0.002, "{gbps}");
        let (_, gbps) = poisson(0.5, 80, 3.0, 100_000);
        assert!((gbps - 1.5).abs() / 1.5 < 0.03, "{gbps}");
    }

    #[test]
    fn unloaded_routes_take_the_machine_latency() {
        let m = Machine::load("starnuma16-pool-scaled").unwrap();
        let f = Fabric::new(&m, 1.0);
        for s in 0..m.sockets.len() {
            for n in 0..m.memory_nodes.len() {
                let want = ps(m.route_to_memory(s, n).latency_ns);
                assert_eq!(f.to_mem(s, n).latency_ps, want);
                assert_eq!(f.from_mem(n, s).latency_ps, want);
            }
        }
        // Inter-chassis socket to socket: 25 + 20 + 50 + 20 + 25 ns one way.
        assert_eq!(f.between(0, 15).latency_ps, 140_000);
        assert_eq!(f.between(0, 1).latency_ps, 25_000);
    }
}
