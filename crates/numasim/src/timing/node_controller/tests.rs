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

/// `talbot64`'s booking and every socket's SLC (`slc_bytes`, direct-mapped), as the engine
/// passes them to [`Booking::fetch_nc`].
struct Rig {
    b: Booking,
    slcs: Vec<SetAssocCache>,
}

impl Rig {
    fn new(s: TimingSpec) -> Rig {
        Rig::with_slc(s, 4 << 20)
    }

    fn with_slc(s: TimingSpec, slc_bytes: u64) -> Rig {
        let m = Machine::load("talbot64").unwrap();
        let b = Booking::new(&s, &m, 8192, vec![10_000; m.sockets.len()]);
        let slcs = (0..m.sockets.len()).map(|_| SetAssocCache::new(slc_bytes, 1)).collect();
        Rig { b, slcs }
    }

    fn fetch(&mut self, req: usize, node: usize, row: u64, t: u64, vaddr: u64, write: bool) -> Latency {
        self.fetch_fill(req, node, row, t, vaddr, write).0
    }

    fn fetch_fill(
        &mut self,
        req: usize,
        node: usize,
        row: u64,
        t: u64,
        vaddr: u64,
        write: bool,
    ) -> (Latency, Option<ProxyFill>) {
        self.b
            .fetch_nc(req, node, NO_OWNER, 0, row, t, vaddr, write, &mut self.slcs)
    }

    fn nc(&mut self) -> &mut NodeControllers {
        self.b.nc.as_mut().unwrap()
    }

    fn stats(&self) -> NcStats {
        self.b.nc.as_ref().unwrap().stats.clone()
    }
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
    assert!((r.mean_input_buffer_queueing_cycles() - cycles * (n - 1) as f64 / 2.0).abs() < 1e-9);
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
    let mut r = Rig::new(spec(Some(2), ProxyMode::None));
    let row = r.b.row_of(5, 3, 0);
    let lat = r.fetch(0, 5, row, 0, 0x1000, false);
    assert_eq!(r.stats().bounces, 0);
    assert_eq!(lat.wait_ps, 0, "unloaded: {lat:?}");
    // Fill node 5's input buffer with messages arriving when our next read will.
    let t = 10_000_000;
    let arrive = t + 10_000 + r.b.fabric.to_mem(0, 5).latency_ps;
    for _ in 0..3 {
        r.nc().handle(5, Msg::Request, arrive - 1, 0);
    }
    let lat = r.fetch(0, 5, row, t, 0x1000, false);
    let s = r.stats();
    assert!(s.bounces >= 1, "{s:?}");
    assert_eq!(s.messages[Msg::Bounce as usize], s.bounces);
    assert!(lat.wait_ps > 0);
    // Writes are never bounced.
    let before = s.bounces;
    for _ in 0..3 {
        r.nc().handle(5, Msg::Request, 2 * t + 40_000, 0);
    }
    r.fetch(0, 5, row, 2 * t, 0x2000, true);
    assert_eq!(r.stats().bounces, before);
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
/// home is in flight: one home fetch, N − 1 combined; the copy then sits in the proxy's SLC.
#[test]
fn combining_serves_waiting_requesters_with_one_home_fetch() {
    let mut r = Rig::new(spec(None, ProxyMode::Basic));
    let home_node = 40;
    let vaddr = 0x4000u64;
    let line = vaddr >> 6;
    let row = r.b.row_of(home_node, 3, 0);
    let proxy = r.nc().proxy_of(line, 0);
    let reqs: Vec<usize> = (0..21).filter(|&q| q != proxy).take(5).collect();
    let home_before = r.b.mem[home_node].accesses;
    let out: Vec<(Latency, Option<ProxyFill>)> = reqs
        .iter()
        .map(|&q| r.fetch_fill(q, home_node, row, 1_000, vaddr, false))
        .collect();
    let s = r.stats();
    assert_eq!(s.proxy_reads, 5);
    assert_eq!(s.proxy_fetches, 1, "{s:?}");
    assert_eq!(s.combined, 4);
    assert_eq!(
        r.b.mem[home_node].accesses - home_before,
        1,
        "one DRAM access at the home"
    );
    assert!(out.iter().all(|(l, _)| l.done_ps > 1_000));
    // Only the fetch reports a fill, at the proxy, when the home's data landed there; every
    // combined reader gets the data after that.
    let fills: Vec<ProxyFill> = out.iter().filter_map(|o| o.1).collect();
    assert_eq!(fills.len(), 1);
    assert_eq!((fills[0].proxy, fills[0].victim), (proxy, None));
    assert!(out.iter().all(|(l, _)| l.done_ps > fills[0].at_ps));
    assert!(r.slcs[proxy].contains(line), "the proxy copy is in the proxy's SLC");
    // Later: a plain hit in the proxy's SLC, no home access.
    r.fetch(reqs[0], home_node, row, 50_000_000, vaddr, false);
    let s = r.stats();
    assert_eq!((s.proxy_hits, s.proxy_fetches), (1, 1), "{s:?}");
    // Once the SLC copy is gone (the engine invalidates it on a store), the next read
    // fetches again.
    r.slcs[proxy].invalidate(line);
    r.fetch(reqs[0], home_node, row, 90_000_000, vaddr, false);
    assert_eq!(r.stats().proxy_fetches, 2);
}

/// The pending chain (§1.3, Fig. 1.2): clients that join a proxy's fetch in flight get
/// the data down the chain, the last to join first and the client whose read made the
/// fetch last, each from the client before it (through that client's controller).
#[test]
fn the_pending_chain_forwards_the_data_from_the_last_client_to_the_first() {
    let mut r = Rig::new(spec(None, ProxyMode::Basic));
    let home_node = 40;
    let vaddr = 0x4000u64;
    let line = vaddr >> 6;
    let row = r.b.row_of(home_node, 3, 0);
    let proxy = r.nc().proxy_of(line, 0);
    let reqs: Vec<usize> = (0..21).filter(|&q| q != proxy).take(5).collect();
    // Their reads go out 10 ns apart, all before the home's data lands at the proxy.
    for (k, &q) in reqs.iter().enumerate() {
        let t = 1_000 + k as u64 * 10_000;
        let (lat, _) = r.b.fetch_nc_chained(
            q,
            home_node,
            NO_OWNER,
            0,
            row,
            t,
            vaddr,
            false,
            &mut r.slcs,
            Some(100 + k as u64),
        );
        assert!(lat.is_none(), "client {k} waits on the chain");
    }
    let s = r.stats();
    assert_eq!((s.proxy_fetches, s.combined), (1, 4));
    let ready = r.b.next_chain_close().unwrap();
    let out = r.b.close_next_chain();
    assert!(r.b.next_chain_close().is_none());
    let order: Vec<u64> = out.iter().map(|o| o.0).collect();
    assert_eq!(
        order,
        vec![104, 103, 102, 101, 100],
        "last to join first, first client last"
    );
    // Each client gets it after the one before it, at least one leg of the way later.
    let (mut t, mut from) = (ready, proxy);
    for &(token, lat) in &out {
        let q = reqs[(token - 100) as usize];
        assert!(lat.done_ps >= t + r.b.fabric.between(from, q).latency_ps, "{token}");
        (t, from) = (lat.done_ps, q);
    }
    assert!(out.windows(2).all(|w| w[1].1.done_ps > w[0].1.done_ps));
    // A chain of one is the proxy serving its client when the data lands.
    let mut a = Rig::new(spec(None, ProxyMode::Basic));
    let mut b = Rig::new(spec(None, ProxyMode::Basic));
    let (lat, _) = a.b.fetch_nc_chained(
        reqs[0],
        home_node,
        NO_OWNER,
        0,
        row,
        1_000,
        vaddr,
        false,
        &mut a.slcs,
        Some(7),
    );
    assert!(lat.is_none());
    let alone = a.b.close_next_chain();
    let direct = b.fetch(reqs[0], home_node, row, 1_000, vaddr, false);
    assert_eq!(alone.len(), 1);
    assert_eq!(
        (alone[0].1.done_ps, alone[0].1.unloaded_ps),
        (direct.done_ps, direct.unloaded_ps)
    );
}

/// Proxy copies live in the proxy's SLC: a fill displaces the line there (a dirty one is
/// handed back for write-back), the node's own traffic evicts the copy, and a line the
/// node's own CPU brought in serves proxy reads (§1.3: "in its cache").
#[test]
fn a_proxy_copy_displaces_an_slc_line_and_the_nodes_own_traffic_evicts_it() {
    // One-line SLCs: every fill displaces whatever is there.
    let mut r = Rig::with_slc(spec(None, ProxyMode::Basic), 64);
    let home_node = 40;
    let vaddr = 0x4000u64;
    let line = vaddr >> 6;
    let row = r.b.row_of(home_node, 3, 0);
    let proxy = r.nc().proxy_of(line, 0);
    assert!(proxy != 0 && proxy < 21);
    let own = 0x77_0000u64 >> 6;
    r.slcs[proxy].access(own, true); // the proxy's CPU holds a dirty line
    let (_, fill) = r.fetch_fill(0, home_node, row, 0, vaddr, false);
    let fill = fill.expect("a proxy miss fetches and allocates");
    assert_eq!((fill.proxy, fill.victim), (proxy, Some(own)));
    assert!(r.slcs[proxy].contains(line) && !r.slcs[proxy].contains(own));
    // The proxy node's own CPU reads another line: the copy is evicted, and the next proxy
    // read of it misses and fetches again (the displaced clean line needs no write-back).
    r.slcs[proxy].access(own + 1, false);
    let (_, fill) = r.fetch_fill(0, home_node, row, 10_000_000, vaddr, false);
    assert_eq!(fill.map(|f| f.victim), Some(None));
    let s = r.stats();
    assert_eq!((s.proxy_fetches, s.proxy_hits), (2, 0), "{s:?}");
    // A line the proxy's own CPU read (same proxy: 21 lines further) is served from its
    // SLC without going to the home.
    let other = vaddr + 21 * 64;
    assert_eq!(r.nc().proxy_of(other >> 6, 0), proxy);
    r.slcs[proxy].access(other >> 6, false);
    let home_before = r.b.mem[home_node].accesses;
    let (_, fill) = r.fetch_fill(0, home_node, row, 20_000_000, other, false);
    assert_eq!(fill, None);
    assert_eq!(r.b.mem[home_node].accesses, home_before);
    assert_eq!(r.stats().proxy_hits, 1);
}

/// §1.4 bounces every read request at a full buffer: a proxy read at a full proxy goes back
/// to the client, which retries it there; a proxy's fetch at a full home goes back to the
/// proxy, which retries the home; neither bounces when the buffer has room, and the cap
/// still ends a read that keeps finding a full buffer.
#[test]
fn a_proxy_read_bounces_at_a_full_buffer_and_not_otherwise() {
    let mut r = Rig::new(spec(Some(2), ProxyMode::Basic));
    let (home_node, req) = (40, 0);
    let vaddr = 0x4000u64;
    let proxy = r.nc().proxy_of(vaddr >> 6, req);
    let row = r.b.row_of(home_node, 3, 0);
    // Successive lines with the same proxy, each new to its SLC.
    let vaddr_k = |k: u64| vaddr + k * 21 * 64;
    let unloaded = r.fetch(req, home_node, row, 0, vaddr_k(0), false);
    assert_eq!(r.stats().bounces, 0);
    // One message waiting at the proxy (buffer of 2): room, no bounce.
    let t = 10_000_000;
    let at_proxy = |r: &Rig, t: u64| t + 10_000 + r.b.fabric.between(req, proxy).latency_ps;
    let a = at_proxy(&r, t);
    r.nc().handle(proxy, Msg::Request, a - 1, 0);
    r.nc().handle(proxy, Msg::Request, a - 1, 0);
    r.fetch(req, home_node, row, t, vaddr_k(1), false);
    assert_eq!(r.stats().bounces, 0, "one waiting: not full");
    // Two waiting at the proxy: the proxy read bounces, then goes through.
    let t = 2 * t;
    let a = at_proxy(&r, t);
    for _ in 0..3 {
        r.nc().handle(proxy, Msg::Request, a - 1, 0);
    }
    let lat = r.fetch(req, home_node, row, t, vaddr_k(2), false);
    let s = r.stats();
    assert!(s.bounces >= 1, "{s:?}");
    assert_eq!((s.proxy_read_bounces, s.proxy_fetch_bounces), (s.bounces, 0));
    assert_eq!(s.messages[Msg::Bounce as usize], s.bounces);
    assert_eq!((s.proxy_reads, s.proxy_fetches), (3, 3));
    assert!(lat.done_ps - t > unloaded.done_ps, "{lat:?} vs {unloaded:?}");
    // The proxy's fetch finds the home full: it bounces back to the proxy and retries.
    let before = r.stats().bounces;
    let t = 30_000_000;
    let at_home = at_proxy(&r, t) + r.b.fabric.to_mem(proxy, home_node).latency_ps;
    for _ in 0..3 {
        r.nc().handle(home_node, Msg::Request, at_home - 1, 0);
    }
    let lat = r.fetch(req, home_node, row, t, vaddr_k(3), false);
    let s = r.stats();
    assert!(s.bounces > before, "{s:?}");
    assert_eq!(
        s.proxy_fetch_bounces,
        s.bounces - before,
        "bounced at the home, by the proxy"
    );
    assert_eq!(s.messages[Msg::Bounce as usize], s.bounces);
    assert_eq!(s.proxy_fetches, 4);
    assert!(lat.done_ps - t > unloaded.done_ps);
    // A proxy buffer that stays full far longer than 64 round trips: the read bounces
    // exactly MAX_BOUNCES times, then is queued and completes.
    let before = r.stats().bounces;
    let t = 40_000_000;
    let a = at_proxy(&r, t);
    for _ in 0..1000 {
        r.nc().handle(proxy, Msg::Request, a - 1, 0);
    }
    let lat = r.fetch(req, home_node, row, t, vaddr_k(4), false);
    assert_eq!(r.stats().bounces - before, u64::from(MAX_BOUNCES));
    assert!(lat.done_ps > t);
}

/// Reactive proxies: no proxy read until a bounce; after one, the retry goes via the proxy;
/// once the buffer has drained, reads go to the home again.
#[test]
fn reactive_proxies_switch_on_after_a_bounce_and_off_when_buffers_drain() {
    let mut r = Rig::new(spec(Some(2), ProxyMode::Reactive));
    let (home_node, vaddr) = (40, 0x8000u64);
    let row = r.b.row_of(home_node, 3, 0);
    r.fetch(1, home_node, row, 0, vaddr, false);
    assert_eq!(r.stats().proxy_reads, 0, "no contention: no proxy");
    let t = 10_000_000;
    let arrive = t + 10_000 + r.b.fabric.to_mem(1, home_node).latency_ps;
    for _ in 0..3 {
        r.nc().handle(40, Msg::Request, arrive - 1, 0);
    }
    r.fetch(1, home_node, row, t, vaddr, false);
    let s = r.stats();
    // The read's bounce at the home, then (the home still being full) the proxy's own
    // fetch bounces too.
    assert_eq!((s.bounces, s.proxy_reads, s.proxy_fetches), (2, 1, 1), "{s:?}");
    assert_eq!((s.proxy_read_bounces, s.proxy_fetch_bounces), (0, 1));
    // Long after: the queue has drained.
    r.fetch(2, home_node, row, 100 * t, vaddr + 64, false);
    let s = r.stats();
    assert_eq!((s.bounces, s.proxy_reads), (2, 1), "{s:?}");
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

/// A read of a line another node owns: the home looks the directory up and forwards it (30
/// cycles, no DRAM access), so N such reads arriving together leave the home busy 30·N
/// cycles, where N reads served from memory keep it busy 54·N.
#[test]
fn a_home_forwarding_to_the_owner_is_occupied_for_the_directory_lookup_only() {
    let busy_after = |owner: u8| {
        let mut r = Rig::new(spec(None, ProxyMode::None));
        let mut unloaded = Vec::new();
        for req in 10..14 {
            let (lat, _) = r.b.fetch_nc(req, 1, owner, 0, 0, 0, 0x2000, false, &mut r.slcs);
            unloaded.push(lat.unloaded_ps);
        }
        // A fifth request at the home at time 0 starts when the four before it are done.
        (r.nc().handle(1, Msg::Ownership, 0, 0), unloaded)
    };
    let (from_memory, mem_unloaded) = busy_after(NO_OWNER);
    let (forwarded, fwd_unloaded) = busy_after(5);
    assert_eq!(FORWARD_CYCLES, 30);
    // Every request reaches the home at the same time (the same path from each requester).
    let arrive = from_memory - 4 * occupancy_cycles(Msg::Request) * 10_000;
    assert_eq!(forwarded - arrive, 4 * FORWARD_CYCLES * 10_000);
    // Unloaded: the rig's 10 ns lookup, the request to the home, the directory lookup (MEM
    // bus 3 + lookup 20 + release 2 = 250 ns, no DRAM), home → owner, owner → requester
    // (each crossbar leg 125 ns on talbot64); from memory it is slower (bus and DRAM).
    assert!(fwd_unloaded.iter().all(|&u| u == 10_000 + 250_000 + 3 * 125_000));
    assert!(mem_unloaded.iter().all(|&u| u > fwd_unloaded[0]));
}
