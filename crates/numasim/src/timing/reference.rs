//! The reference engine (tests only): an obviously-correct discrete-event simulation of cores
//! sending transactions through FIFO servers, against which the production booking — whole
//! transactions booked at issue on [`Timeline`]s, cores interleaved by a heap with lookahead —
//! is measured on random small systems.
//!
//! Why a second engine: the production engine books a transaction's later legs before other
//! cores' earlier-arriving requests are presented, so its per-resource order is only
//! approximately arrival order (see [`super::timeline`]). How far that moves latencies cannot
//! be derived, only measured, and a measurement needs something exact to measure against.
//! Here every resource serves strictly in arrival-time order: one global event queue ordered
//! by time, each leg of a transaction an event at its arrival time, so each resource sees its
//! arrivals in non-decreasing time and `start = max(arrival, free)` is an exact FIFO. It pays
//! a heap operation per leg, which is why production does not work this way.
//!
//! A system: sockets joined either all-to-all (one link per ordered pair) or through a switch
//! (two hops), each link direction a production [`LinkDir`] (in the fast engine) or its
//! service time (in the reference); a fixed-service memory per socket; cores on sockets, each
//! with a stream of transactions (compute gap, home, whether the request carries data) and at
//! most `mshrs` outstanding. A transaction's legs: request over the route to the home, the
//! home's memory, the data back. Both engines use the same core rule (issue at the previous
//! issue plus the gap, or when the earliest outstanding transaction completes if all MSHRs
//! are busy), so the only difference is the order the resources serve requests in.

use super::link::LinkDir;
use super::timeline::Timeline;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const HEADER_BYTES: u32 = 16;
const DATA_BYTES: u32 = 80;

/// One leg of a transaction: a resource, its service time, and the time from the start of
/// service to the arrival at the next resource (a link's latency; a memory's service time).
#[derive(Debug, Clone, Copy)]
struct Leg {
    resource: usize,
    bytes: u32,
    after_ps: u64,
}

/// One transaction of a core's stream.
#[derive(Debug, Clone, Copy)]
struct Txn {
    gap_ps: u64,
    home: usize,
}

/// A random small system and its streams.
#[derive(Debug, Clone)]
struct System {
    /// Per resource: bandwidth in GB/s for a link direction, `None` for a memory.
    links_gbps: Vec<f64>,
    /// Per memory (resource `links_gbps.len() + socket`): fixed service time, ps.
    mem_service_ps: Vec<u64>,
    link_latency_ps: u64,
    /// `route[a][b]`: link resources from socket a to socket b, in order.
    route: Vec<Vec<Vec<usize>>>,
    core_socket: Vec<usize>,
    streams: Vec<Vec<Txn>>,
    mshrs: usize,
}

/// xorshift64*: a deterministic generator for the random systems.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

impl System {
    fn random(seed: u64) -> System {
        let mut r = Rng(seed | 1);
        let sockets = 2 + r.below(3) as usize;
        let switched = r.below(2) == 1;
        let mut links_gbps = Vec::new();
        let mut route = vec![vec![Vec::new(); sockets]; sockets];
        let bw = |r: &mut Rng| 1.0 + r.below(20) as f64;
        if switched {
            // Socket s ↔ switch: resource 2s up, 2s + 1 down.
            for _ in 0..sockets {
                links_gbps.push(bw(&mut r));
                links_gbps.push(bw(&mut r));
            }
            for (a, row) in route.iter_mut().enumerate() {
                for (b, hops) in row.iter_mut().enumerate() {
                    if a != b {
                        *hops = vec![2 * a, 2 * b + 1];
                    }
                }
            }
        } else {
            for (a, row) in route.iter_mut().enumerate() {
                for (b, hops) in row.iter_mut().enumerate() {
                    if a != b {
                        hops.push(links_gbps.len());
                        links_gbps.push(bw(&mut r));
                    }
                }
            }
        }
        let mem_service_ps = (0..sockets).map(|_| 5_000 + r.below(50_000)).collect();
        let cores = 2 + r.below(5) as usize;
        let core_socket: Vec<usize> = (0..cores).map(|_| r.below(sockets as u64) as usize).collect();
        // Mean compute gap from 1 to 200 ns: from light load to saturated links.
        let mean_gap = 1_000 + r.below(200_000);
        let remote_share = r.below(101);
        let n = 20 + r.below(180) as usize;
        let streams = core_socket
            .iter()
            .map(|&s| {
                (0..n)
                    .map(|_| Txn {
                        gap_ps: r.below(2 * mean_gap + 1),
                        home: if r.below(100) < remote_share {
                            r.below(sockets as u64) as usize
                        } else {
                            s
                        },
                    })
                    .collect()
            })
            .collect();
        System {
            links_gbps,
            mem_service_ps,
            link_latency_ps: 1_000 + r.below(40_000),
            route,
            core_socket,
            streams,
            mshrs: 1 + r.below(4) as usize,
        }
    }

    fn resources(&self) -> usize {
        self.links_gbps.len() + self.mem_service_ps.len()
    }

    /// The legs of a transaction from socket `req` to `home`, into `out`.
    fn legs(&self, req: usize, home: usize, out: &mut Vec<Leg>) {
        out.clear();
        let link = |resource: usize, bytes: u32| Leg {
            resource,
            bytes,
            after_ps: self.link_latency_ps,
        };
        out.extend(self.route[req][home].iter().map(|&l| link(l, HEADER_BYTES)));
        out.push(Leg {
            resource: self.links_gbps.len() + home,
            bytes: 0,
            after_ps: self.mem_service_ps[home],
        });
        out.extend(self.route[home][req].iter().map(|&l| link(l, DATA_BYTES)));
    }

    /// Service time of `leg`, ps (a link's as [`LinkDir::service_ps`] rounds it).
    fn service_ps(&self, leg: &Leg) -> u64 {
        match self.links_gbps.get(leg.resource) {
            Some(&g) => LinkDir::new(g).service_ps(leg.bytes),
            None => leg.after_ps,
        }
    }
}

/// Per transaction (core, index): issue and completion times, ps.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    issue_ps: Vec<Vec<u64>>,
    done_ps: Vec<Vec<u64>>,
    /// Every booking (resource, start, end), to check capacity.
    bookings: Vec<(usize, u64, u64)>,
}

impl Outcome {
    fn mean_latency_ps(&self) -> f64 {
        let (mut sum, mut n) = (0u64, 0u64);
        for (i, d) in self.issue_ps.iter().zip(&self.done_ps) {
            for (a, b) in i.iter().zip(d) {
                sum += b - a;
                n += 1;
            }
        }
        sum as f64 / n.max(1) as f64
    }
    fn completion_ps(&self) -> u64 {
        self.done_ps.iter().flatten().copied().max().unwrap_or(0)
    }
}

/// The core rule both engines share: when the next transaction issues, given the previous
/// issue and the completions of those still holding an MSHR (the earliest is freed).
fn issue_time(prev_issue: u64, gap: u64, slots: &mut Vec<u64>, mshrs: usize) -> u64 {
    let mut t = prev_issue + gap;
    if slots.len() >= mshrs {
        slots.retain(|&d| d > t);
    }
    if slots.len() >= mshrs {
        let (i, &first) = slots.iter().enumerate().min_by_key(|&(_, d)| *d).expect("full");
        slots.swap_remove(i);
        t = t.max(first);
    }
    t
}

/// Exact: every leg an event in one time-ordered queue; each resource a FIFO in arrival order.
fn reference(sys: &System) -> Outcome {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Ev {
        /// Core wants to issue its next transaction (its MSHR rule already applied).
        Issue { core: usize },
        /// Transaction `k` of `core` reaches leg `leg`.
        Arrive { core: usize, k: usize, leg: usize },
        /// Transaction `k` of `core` completes (its MSHR frees).
        Done { core: usize, k: usize },
    }
    let cores = sys.core_socket.len();
    let mut free = vec![0u64; sys.resources()];
    let mut issue_ps: Vec<Vec<u64>> = vec![Vec::new(); cores];
    let mut done_ps: Vec<Vec<u64>> = sys.streams.iter().map(|s| vec![0; s.len()]).collect();
    let mut legs: Vec<Vec<Vec<Leg>>> = vec![Vec::new(); cores];
    let mut bookings = Vec::new();
    // (time, sequence, event): the sequence breaks ties in insertion order.
    let mut q: BinaryHeap<Reverse<(u64, u64, Ev)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |q: &mut BinaryHeap<_>, t: u64, e: Ev| {
        q.push(Reverse((t, seq, e)));
        seq += 1;
    };
    // Transactions each core has in flight, and where its next issue stands.
    let mut outstanding: Vec<Vec<usize>> = vec![Vec::new(); cores];
    let mut waiting = vec![false; cores];
    let mut prev_issue = vec![0u64; cores];
    for c in 0..cores {
        if !sys.streams[c].is_empty() {
            push(&mut q, sys.streams[c][0].gap_ps, Ev::Issue { core: c });
        }
    }
    let mut scratch = Vec::new();
    while let Some(Reverse((t, _, ev))) = q.pop() {
        match ev {
            Ev::Issue { core } => {
                // Issues now if an MSHR is free; else when the first outstanding one completes
                // (its completion event re-queues this).
                outstanding[core].retain(|&k| done_ps[core][k] == 0 || done_ps[core][k] > t);
                if outstanding[core].len() >= sys.mshrs {
                    waiting[core] = true;
                    continue;
                }
                let k = issue_ps[core].len();
                issue_ps[core].push(t);
                prev_issue[core] = t;
                let txn = sys.streams[core][k];
                sys.legs(sys.core_socket[core], txn.home, &mut scratch);
                legs[core].push(scratch.clone());
                outstanding[core].push(k);
                push(&mut q, t, Ev::Arrive { core, k, leg: 0 });
                if let Some(next) = sys.streams[core].get(k + 1) {
                    push(&mut q, t + next.gap_ps, Ev::Issue { core });
                }
            }
            Ev::Arrive { core, k, leg } => {
                let l = legs[core][k][leg];
                let service = sys.service_ps(&l);
                let start = t.max(free[l.resource]);
                free[l.resource] = start + service;
                bookings.push((l.resource, start, start + service));
                let at = start + l.after_ps;
                if leg + 1 < legs[core][k].len() {
                    push(&mut q, at, Ev::Arrive { core, k, leg: leg + 1 });
                } else {
                    push(&mut q, at, Ev::Done { core, k });
                }
            }
            Ev::Done { core, k } => {
                done_ps[core][k] = t;
                if waiting[core] {
                    // The earliest outstanding completion frees the MSHR: issue then (or
                    // later, if the compute gap ends later).
                    waiting[core] = false;
                    let next = sys.streams[core][issue_ps[core].len()];
                    let want = (prev_issue[core] + next.gap_ps).max(t);
                    push(&mut q, want, Ev::Issue { core });
                }
            }
        }
    }
    Outcome {
        issue_ps,
        done_ps,
        bookings,
    }
}

/// Production style: each core books whole transactions at issue on production link
/// directions ([`LinkDir::reserve`]) and memory [`Timeline`]s; a heap of cores by (clock, id)
/// pops the slowest, which runs until its clock is `lookahead_ps` past it, and the booking
/// horizon is the popped clock — as `TimingSim::run_to` does.
fn fast(sys: &System, lookahead_ps: u64) -> Outcome {
    fast_with(sys, lookahead_ps, None)
}

/// [`fast`], or with `half_gap` the half-gap rule (a late request may
/// start in a gap half its length and overlap the next booking), kept to measure it.
fn fast_with(sys: &System, lookahead_ps: u64, mut half_gap: Option<Vec<HalfGap>>) -> Outcome {
    let cores = sys.core_socket.len();
    let mut links: Vec<LinkDir> = sys.links_gbps.iter().map(|&g| LinkDir::new(g)).collect();
    let mut mems: Vec<Timeline> = vec![Timeline::new(); sys.mem_service_ps.len()];
    let mut issue_ps: Vec<Vec<u64>> = vec![Vec::new(); cores];
    let mut done_ps: Vec<Vec<u64>> = vec![Vec::new(); cores];
    let mut slots: Vec<Vec<u64>> = vec![Vec::new(); cores];
    let mut clock = vec![0u64; cores];
    let mut bookings = Vec::new();
    let mut ready: BinaryHeap<Reverse<(u64, usize)>> = (0..cores).map(|c| Reverse((0, c))).collect();
    let mut legs = Vec::new();
    while let Some(Reverse((t, c))) = ready.pop() {
        let horizon = t;
        let until = t + lookahead_ps;
        let stream = &sys.streams[c];
        loop {
            let k = issue_ps[c].len();
            let Some(txn) = stream.get(k) else { break };
            if clock[c] > until {
                ready.push(Reverse((clock[c], c)));
                break;
            }
            let t0 = issue_time(clock[c], txn.gap_ps, &mut slots[c], sys.mshrs);
            clock[c] = t0;
            issue_ps[c].push(t0);
            sys.legs(sys.core_socket[c], txn.home, &mut legs);
            let mut at = t0;
            for l in &legs {
                let service = sys.service_ps(l);
                let start = match (&mut half_gap, links.get_mut(l.resource)) {
                    (Some(h), _) => h[l.resource].book(at, service),
                    (None, Some(d)) => d.reserve(at, l.bytes, horizon).0,
                    (None, None) => mems[l.resource - links.len()].book(at, service, horizon),
                };
                bookings.push((l.resource, start, start + service));
                at = start + l.after_ps;
            }
            done_ps[c].push(at);
            slots[c].push(at);
        }
    }
    Outcome {
        issue_ps,
        done_ps,
        bookings,
    }
}

/// The half-gap timeline rule, for comparison only: sorted disjoint busy intervals; a
/// request starts at the first point `≥ want` from which the next booking begins no earlier
/// than half its length in, and the overlap is merged into the busy time.
#[derive(Debug, Clone, Default)]
struct HalfGap(Vec<(u64, u64)>);
impl HalfGap {
    fn book(&mut self, want: u64, len: u64) -> u64 {
        let mut start = want;
        for &(s, e) in self.0.iter().filter(|iv| iv.1 > want) {
            if s + len / 2 >= start + len {
                break;
            }
            start = start.max(e);
        }
        self.0.push((start, start + len));
        self.0.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.0.len());
        for &(s, e) in &self.0 {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.0 = merged;
        start
    }
}

/// Two bookings of one resource that share a picosecond: (resource, one, the other).
type Overlap = (usize, (u64, u64), (u64, u64));

/// Whether any resource holds two bookings that share a picosecond.
fn over_booked(o: &Outcome) -> Option<Overlap> {
    let mut b = o.bookings.clone();
    b.sort_unstable();
    b.windows(2)
        .find(|w| w[0].0 == w[1].0 && w[1].1 < w[0].2)
        .map(|w| (w[0].0, (w[0].1, w[0].2), (w[1].1, w[1].2)))
}

/// Relative differences fast vs reference: (mean latency, completion time).
fn deviation(sys: &System, lookahead_ps: u64) -> (f64, f64) {
    deviation_of(sys, &fast(sys, lookahead_ps))
}

fn deviation_of(sys: &System, f: &Outcome) -> (f64, f64) {
    let r = reference(sys);
    let rel = |a: f64, b: f64| (a - b) / b;
    (
        rel(f.mean_latency_ps(), r.mean_latency_ps()),
        rel(f.completion_ps() as f64, r.completion_ps() as f64),
    )
}

/// The production engine's default lookahead (`TimingSpec::lookahead_ns` = 20 ns).
const LOOKAHEAD_PS: u64 = 20_000;

/// Measured on the 20 000 random systems of seeds 0..20 000 (`measure_the_bound`), fast vs
/// reference: mean latency −7.0 % … +61.5 % (mean |difference| 5.4 %), completion time
/// −6.9 % … +15.2 % (mean |difference| 0.7 %). The fast engine errs high: a request presented
/// after a later-arriving booking waits for a gap that holds it whole, where an arrival-order
/// FIFO would have served it first; the worst cases are saturated links carrying both 16 B
/// requests and 80 B data, where a few per cent less throughput moves queueing a lot. (The
/// half-gap rule it replaced: −14.9 % … +18.6 % (1.3 %) and −7.1 % … +11.0 % (0.4 %), but
/// over-booked a resource in 94 % of the systems.) Asserted: every system of those seeds
/// within these bounds; over seeds 0..2000 the mean differences within
/// [`MEAN_ABS_LATENCY_BOUND`] and [`MEAN_ABS_COMPLETION_BOUND`] (measured 5.3 % and 0.8 %).
const MEAN_LATENCY_BOUND: f64 = 0.62;
const COMPLETION_BOUND: f64 = 0.16;
const MEAN_ABS_LATENCY_BOUND: f64 = 0.06;
const MEAN_ABS_COMPLETION_BOUND: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn one_core_with_one_outstanding_request_is_identical() {
        // Nothing is ever presented out of order: the fast engine must be exact.
        for seed in 0..200 {
            let mut sys = System::random(seed);
            sys.core_socket.truncate(1);
            sys.streams.truncate(1);
            sys.mshrs = 1;
            let (r, f) = (reference(&sys), fast(&sys, LOOKAHEAD_PS));
            assert_eq!(r.issue_ps, f.issue_ps, "seed {seed}");
            assert_eq!(r.done_ps, f.done_ps, "seed {seed}");
        }
    }

    #[test]
    fn the_reference_is_a_fifo_in_arrival_order() {
        // Two cores, one link, header requests: closed form. Both cores issue at 0 (gap 0).
        let sys = System {
            links_gbps: vec![1.6, 1.6],
            mem_service_ps: vec![10_000, 10_000],
            link_latency_ps: 5_000,
            route: vec![vec![vec![], vec![0]], vec![vec![1], vec![]]],
            core_socket: vec![0, 0],
            streams: vec![vec![Txn { gap_ps: 0, home: 1 }]; 2],
            mshrs: 1,
        };
        let r = reference(&sys);
        // Header 16 B at 1.6 GB/s = 10 ns, data 80 B = 50 ns; a message reaches the far end
        // 5 ns after it starts (as production links: latency from the start of transmission).
        // First: link [0,10) → memory at 5: [5,15) → data link [15,65) → done 20.
        // Second: waits on the link: [10,20) → memory at 15: [15,25) → data link at 25, busy
        // until 65: [65,115) → done 70.
        assert_eq!(r.done_ps, vec![vec![20_000], vec![70_000]]);
        assert_eq!(over_booked(&r), None);
    }

    /// Prints the spread over many random systems (run with `--ignored --nocapture` to
    /// re-measure the bounds stated above and in docs/validation/peers.md; `REFERENCE_SYSTEMS`
    /// sets how many, 2000 by default).
    #[test]
    #[ignore = "measurement, not a check: prints the fast engine's spread against the reference over many random systems (the asserted bounds are in the tests beside it)"]
    fn measure_the_bound() {
        let n: u64 = std::env::var("REFERENCE_SYSTEMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000);
        for (name, lookahead_ps, half) in [
            ("full-length gaps, lookahead 20 ns", LOOKAHEAD_PS, false),
            ("full-length gaps, lookahead 0", 0, false),
            ("half-gap rule, lookahead 20 ns", LOOKAHEAD_PS, true),
        ] {
            let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
            let mut sum = [0.0; 2];
            let mut over = 0;
            for seed in 0..n {
                let sys = System::random(seed);
                let h = half.then(|| vec![HalfGap::default(); sys.resources()]);
                let f = fast_with(&sys, lookahead_ps, h);
                over += usize::from(over_booked(&f).is_some());
                let (m, c) = deviation_of(&sys, &f);
                for (i, d) in [m, c].into_iter().enumerate() {
                    lo[i] = lo[i].min(d);
                    hi[i] = hi[i].max(d);
                    sum[i] += d.abs();
                }
            }
            println!(
                "{name}: mean latency {:+.2}% … {:+.2}% (mean |d| {:.2}%), completion {:+.2}% … {:+.2}% (mean |d| {:.2}%), over-booked in {over} of {n}",
                lo[0] * 100.0,
                hi[0] * 100.0,
                sum[0] / n as f64 * 100.0,
                lo[1] * 100.0,
                hi[1] * 100.0,
                sum[1] / n as f64 * 100.0
            );
        }
    }

    #[test]
    fn on_average_the_fast_engine_is_close_to_the_reference() {
        let n = 2000;
        let (mut m, mut c) = (0.0, 0.0);
        for seed in 0..n {
            let (dm, dc) = deviation(&System::random(seed), LOOKAHEAD_PS);
            m += dm.abs();
            c += dc.abs();
        }
        let (m, c) = (m / n as f64, c / n as f64);
        assert!(m <= MEAN_ABS_LATENCY_BOUND, "mean |Δ mean latency| {:.2}%", m * 100.0);
        assert!(c <= MEAN_ABS_COMPLETION_BOUND, "mean |Δ completion| {:.2}%", c * 100.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Fast vs reference on random small machines and streams: within the measured bound,
        /// and neither engine ever books a resource beyond its capacity.
        #[test]
        fn fast_engine_stays_within_the_bound_of_the_reference(seed in 0u64..20_000) {
            let sys = System::random(seed);
            let (r, f) = (reference(&sys), fast(&sys, LOOKAHEAD_PS));
            prop_assert_eq!(over_booked(&r), None);
            prop_assert_eq!(over_booked(&f), None);
            let (m, c) = deviation(&sys, LOOKAHEAD_PS);
            prop_assert!(m.abs() <= MEAN_LATENCY_BOUND, "mean latency {:+.2}%", m * 100.0);
            prop_assert!(c.abs() <= COMPLETION_BOUND, "completion {:+.2}%", c * 100.0);
        }
    }
}
