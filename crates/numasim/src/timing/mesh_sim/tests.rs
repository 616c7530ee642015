use super::*;
use numasim_trace::VecSource;

fn sim(name: &str, edit: impl Fn(&mut Mesh), cores: Vec<usize>) -> MeshSim {
    let mut m = Machine::load(name).unwrap();
    edit(m.mesh.as_mut().unwrap());
    MeshSim::new(&m, MeshCoreParams::new(cores)).unwrap()
}

#[test]
fn cache_groups_keep_a_nodes_lines_in_its_quadrant() {
    let s = sim("neoverse-v1-mesh", |_| {}, vec![0]);
    let per = s.mesh.slices_per_home_node as usize;
    for node in 0..4u64 {
        let mut seen = vec![false; s.mesh.slices()];
        for l in 0..20_000u64 {
            let line = ((node * s.node_bytes) >> 6) + l * 7;
            let slice = s.slice_of(line);
            assert_eq!(s.mesh.quadrant_of(s.mesh.home_nodes[slice / per]), node as usize);
            seen[slice] = true;
        }
        // ... and spread over all 16 of the quadrant's slices.
        assert_eq!(seen.iter().filter(|&&x| x).count(), 16);
    }
    // Without groups a node's lines go to every quadrant's slices.
    let s = sim("neoverse-v1-mesh", |m| m.cache_groups = false, vec![0]);
    let quads: std::collections::BTreeSet<usize> = (0..1000u64)
        .map(|l| s.mesh.quadrant_of(s.mesh.home_nodes[s.slice_of(l) / per]))
        .collect();
    assert_eq!(quads.len(), 4);
}

#[test]
fn controllers_interleave_within_a_node() {
    let s = sim("neoverse-v1-mesh", |_| {}, vec![0]);
    // Node 1's memory goes only to quadrant 1's four controllers, 256 B each in turn.
    let base = s.node_bytes >> 6;
    let mcs: Vec<usize> = (0..16).map(|k| s.controller_of(base + k * 4).0).collect();
    assert_eq!(&mcs[..4], &s.mesh.controllers_in[1][..]);
    assert_eq!(&mcs[4..8], &s.mesh.controllers_in[1][..]);
}

fn stream_reads(threads: usize, lines: u64) -> VecSource {
    let per: Vec<Vec<Access>> = (0..threads)
        .map(|t| {
            (0..lines)
                .map(|i| Access::read(i * 4, ((t as u64) << 32) + i * 64, 8))
                .collect()
        })
        .collect();
    VecSource::new(per)
}

#[test]
fn a_remote_buffer_crosses_quadrants_and_counts_every_output() {
    let m = Machine::load("neoverse-v1-mesh").unwrap();
    let run = |membind| {
        let mut p = MeshCoreParams::new((0..4).collect());
        p.membind = Some(membind);
        MeshSim::new(&m, p).unwrap().run(&mut stream_reads(4, 3000)).unwrap()
    };
    let local = run(0);
    let far = run(3);
    assert_eq!(local.dram_reads, 12_000);
    assert_eq!(local.controllers[0].reads, 12_000);
    assert_eq!(far.controllers[3].reads, 12_000);
    assert_eq!(local.inter_node_packets[0][3], 0);
    assert!(far.inter_node_packets[0][3] > 0);
    assert!(far.avg_packet_distance > local.avg_packet_distance);
    assert!(far.sim_time_ns > local.sim_time_ns);
    assert!(local.link_utilisation_max <= 1.0 && far.link_utilisation_max <= 1.0);
    assert_eq!(local.slc[0].lookups, 12_000);
    assert_eq!(local.slc[0].hits, 0);
    // Private data: no snoops.
    assert_eq!(local.snoops, 0);
    assert_eq!(local.vnets[1].packets, 0);
    // Deterministic.
    let again = run(3);
    assert_eq!(
        serde_json::to_string(&far).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

/// Thread 0 writes every line of 64 pages (a serial initialisation, full of misses);
/// at instruction `init + 50` (the runtime's barrier) the other threads read the same pages
/// in reverse order.
fn serial_init(threads: usize) -> Vec<Vec<Access>> {
    let (pages, lines) = (64u64, 64u64);
    let init = 10 * pages * lines;
    let mut out = vec![(0..pages * lines)
        .map(|i| Access::write(10 * i, 0x4000_0000 + i * 64, 8))
        .collect::<Vec<_>>()];
    for t in 1..threads {
        out.push(
            (0..pages)
                .map(|k| {
                    Access::read(
                        init + 50 + 10 * k,
                        0x4000_0000 + (pages - 1 - k) * 4096 + 64 * t as u64,
                        8,
                    )
                })
                .collect(),
        );
    }
    out
}

#[test]
fn with_phases_a_serial_init_places_its_pages_as_the_functional_engine_does() {
    use crate::mem::{Capacity, Placement, PlacementPolicy};
    use crate::sim::{FunctionalConfig, FunctionalSim};
    let m = Machine::load("neoverse-v1-mesh").unwrap();
    let cores: Vec<usize> = (0..16).map(|t| t * 4).collect();
    let probe = MeshSim::new(&m, MeshCoreParams::new(cores.clone())).unwrap();
    let sockets: Vec<usize> = cores.iter().map(|&c| probe.quadrant_of_core(c)).collect();
    assert_eq!(sockets.iter().collect::<std::collections::BTreeSet<_>>().len(), 4);
    // Functional engine: threads interleaved by instruction count.
    let cfg = FunctionalConfig {
        phase_instructions: 1000,
        quantum_instructions: 10,
        llc: None,
        page_bytes: 4096,
        observer_thread: false,
    };
    let nearest = (0..4).map(|s| (0..4).map(|k| (s + k) % 4).collect()).collect();
    let placement = Placement::new(PlacementPolicy::FirstTouch, vec![Capacity::Pages(1 << 20); 4], nearest);
    let mut f = FunctionalSim::new(&cfg, 4, 4, sockets.clone());
    let mut sys = FunctionalSim::system(&cfg, 4, placement).unwrap();
    let mut src = VecSource::new(serial_init(16));
    while f.run_phase(&mut sys, &mut src).unwrap().is_some() {}
    let want = sys.memory.pages_per_node().to_vec();
    assert_eq!(want, vec![64, 0, 0, 0]);
    let run = |phase_instructions| {
        let mut p = MeshCoreParams::new(cores.clone());
        p.phase_instructions = phase_instructions;
        MeshSim::new(&m, p)
            .unwrap()
            .run(&mut VecSource::new(serial_init(16)))
            .unwrap()
    };
    // Without barriers the waiting threads' clocks reach the reads while thread 0 is still
    // stalled on its initialisation misses, and take pages to their own quadrants.
    let free = run(0);
    assert!(free.pages_per_node[0] < 60, "{:?}", free.pages_per_node);
    assert_eq!(free.phases, 1);
    // With phases (the socket engine's barriers) first touch follows program order.
    let phased = run(1000);
    assert_eq!(phased.pages_per_node, want);
    assert!(phased.phases > 40);
    assert_eq!(phased.accesses, free.accesses);
    assert!(phased.sim_time_ns >= free.sim_time_ns * 0.99);
}

#[test]
#[ignore = "measurement: first-touch placement of barnes / fmm on the DDR4 mesh"]
fn splash_placement() {
    let m = Machine::load("neoverse-v1-mesh-ddr4").unwrap();
    for name in ["barnes", "fmm"] {
        for ph in [0u64, 10_000, 5_000, 2_000, 1_000, 500] {
            let mut t = toml::Table::new();
            t.insert("threads".into(), toml::Value::Integer(64));
            let mut src = numasim_workload::build(name, t, 1).unwrap();
            let mut p = MeshCoreParams::new((0..64).collect());
            p.phase_instructions = ph;
            let r = MeshSim::new(&m, p).unwrap().run(&mut *src).unwrap();
            let act: Vec<u64> = r.controllers.iter().map(|c| c.reads + c.writes).collect();
            eprintln!(
                "{name} phase {ph}: pages {:?} phases {} time {:.1} us ddr {:?}",
                r.pages_per_node,
                r.phases,
                r.sim_time_ns / 1e3,
                act
            );
        }
    }
}

#[test]
fn trackers_hold_at_most_their_entries_at_once() {
    // Closed form: 2 entries, 7 requests all wanting 0, each held 10: starts 0 0 10 10 20 20 30.
    let mut tr = Trackers::new(1, 2);
    let starts: Vec<u64> = (0..7)
        .map(|_| {
            let (e, s) = tr.claim(0, 0);
            tr.release(e, s + 10);
            s
        })
        .collect();
    assert_eq!(starts, vec![0, 0, 10, 10, 20, 20, 30]);
    assert!((tr.mean_wait(1) - 90.0 / 7.0).abs() < 1e-9);
    // Random wants (out of order within a window) and holds on 3 devices of 4 entries:
    // at no instant does a device hold more than 4.
    let mut tr = Trackers::new(3, 4);
    let mut held: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 3];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..3000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let dev = (x % 3) as usize;
        let want = i * 3 + (x >> 20) % 200;
        let (e, s) = tr.claim(dev, want);
        assert!(s >= want);
        let end = s + 1 + (x >> 40) % 100;
        tr.release(e, end);
        held[dev].push((s, end));
    }
    for h in &held {
        let mut events: Vec<(u64, i32)> = h.iter().flat_map(|&(s, e)| [(s, 1), (e, -1)]).collect();
        events.sort(); // releases (-1) before claims (+1) at the same instant
        let (mut now, mut max) = (0i32, 0i32);
        for (_, d) in events {
            now += d;
            max = max.max(now);
        }
        assert_eq!(max, 4);
    }
}

#[test]
fn tracker_limits_bound_outstanding_reads_and_slow_a_stream() {
    let base = Machine::load("neoverse-v1-mesh").unwrap();
    let run = |home: u32, mc: u32| {
        let mut m = base.clone();
        let mesh = m.mesh.as_mut().unwrap();
        mesh.home_node_trackers = home;
        mesh.controller_trackers = mc;
        let mut p = MeshCoreParams::new((0..4).collect());
        p.membind = Some(0);
        MeshSim::new(&m, p).unwrap().run(&mut stream_reads(4, 3000)).unwrap()
    };
    let free = run(0, 0);
    assert_eq!(free.home_tracker_wait_cycles, 0.0);
    // One read tracker per controller: node 0's 4 controllers hold at most 4 reads at once,
    // each for at least the controller time (20 ns), so at most 4 x 64 B per 20 ns.
    let one = run(0, 1);
    assert_eq!(one.dram_reads, free.dram_reads);
    assert!(one.dram_gbps <= 4.0 * 64.0 / 20.0, "{}", one.dram_gbps);
    assert!(
        one.dram_gbps < free.dram_gbps * 0.5,
        "{} {}",
        one.dram_gbps,
        free.dram_gbps
    );
    assert!(one.controller_tracker_wait_cycles > 0.0);
    // The requests wait at the injecting router: REQ queueing grows, DAT's does not.
    assert!(one.vnets[0].avg_queueing_cycles > free.vnets[0].avg_queueing_cycles + 10.0);
    assert!(one.vnets[3].avg_queueing_cycles <= free.vnets[3].avg_queueing_cycles + 1.0);
    // One home tracker per slice: node 0's 16 slices hold at most 16 reads, each for at least
    // a slice lookup, the controller time and the way back (> 30 ns).
    let home = run(1, 0);
    assert!(home.dram_gbps <= 16.0 * 64.0 / 30.0, "{}", home.dram_gbps);
    assert!(home.home_tracker_wait_cycles > 0.0);
    for r in [&free, &one, &home] {
        assert!(r.link_utilisation_max <= 1.0);
        assert!(r.links.iter().all(|l| l.utilisation <= 1.0));
    }
    // The presets' trackers (64 per slice and per controller) do not bind on 4 threads.
    let preset = run(64, 64);
    assert_eq!(preset.sim_time_ns, free.sim_time_ns);
    // Requests waiting in the network (the destination router's buffer) instead of at
    // the source: the same bound, the wait still REQ queueing, no lane past 100 %.
    let mut m = base.clone();
    let mesh = m.mesh.as_mut().unwrap();
    mesh.controller_trackers = 1;
    mesh.tracker_wait_in_network = true;
    let mut p = MeshCoreParams::new((0..4).collect());
    p.membind = Some(0);
    let held = MeshSim::new(&m, p).unwrap().run(&mut stream_reads(4, 3000)).unwrap();
    assert_eq!(held.dram_reads, free.dram_reads);
    assert!(held.dram_gbps <= 4.0 * 64.0 / 20.0, "{}", held.dram_gbps);
    assert!(held.vnets[0].avg_queueing_cycles > free.vnets[0].avg_queueing_cycles + 10.0);
    assert!(held.links.iter().all(|l| l.utilisation <= 1.0));
    assert!(held.controller_tracker_wait_cycles > 0.0);
}

#[test]
fn a_retried_request_keeps_its_entry_reserved_while_the_grant_and_the_resend_travel() {
    // One tracker per slice, unbounded router buffers. Two requests to slice 0 at once:
    // the first takes the entry, held for H; the second is refused (RetryAck), granted
    // when the entry frees and arrives again one grant (RSP home -> requester) and one
    // request (REQ requester -> home) later, the entry reserved meanwhile. Without retry it
    // is held at its source and arrives exactly as the entry frees.
    let gap = |rn_at: [u32; 2], retry: bool| {
        let mut s = sim(
            "neoverse-v1-mesh",
            |m| {
                m.home_node_trackers = 1;
                m.home_node_retry = retry;
                m.router_vcs_per_vnet = 0;
            },
            vec![0],
        );
        let (rn, hn) = (s.mesh.router(rn_at), s.hn_router[0]);
        let h = 1000 * s.fabric.cycle_ps;
        let (a1, e1) = s.request(Vnet::Req, rn, hn, 0, Some(0), 0);
        s.home_trackers.release(e1.unwrap(), a1 + h);
        let (a2, e2) = s.request(Vnet::Req, rn, hn, 0, Some(0), 0);
        assert!(e2.is_some());
        assert_eq!(s.retries, u64::from(retry));
        let round_trip = s.fabric.unloaded_ps(hn, rn, s.header) + s.fabric.unloaded_ps(rn, hn, s.header);
        (a2 - (a1 + h), round_trip)
    };
    let hn_at = Machine::load("neoverse-v1-mesh").unwrap().mesh.unwrap().home_nodes[0];
    let (near, far) = ([hn_at[0] + 1, hn_at[1]], [7, 7]);
    let (g_near, rt_near) = gap(near, true);
    let (g_far, rt_far) = gap(far, true);
    assert_eq!(g_near, rt_near);
    assert_eq!(g_far, rt_far);
    assert!(g_far > g_near, "{g_far} {g_near}");
    assert_eq!(gap(near, false).0, 0);
    assert_eq!(gap(far, false).0, 0);
}

#[test]
fn retried_home_trackers_never_hold_more_than_their_entries() {
    let mut s = sim(
        "neoverse-v1-mesh",
        |m| {
            m.home_node_trackers = 2;
            m.home_node_retry = true;
        },
        (0..16).collect(),
    );
    // 16 threads read node 3's lines at staggered times, presented out of time order.
    let base = (3 * s.node_bytes) >> 6;
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for i in 0..4000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let th = (x % 16) as usize;
        let t = i * 2000 + (x >> 20) % 50_000;
        s.fabric.horizon_ps = (i * 2000).saturating_sub(100_000);
        s.miss(th, base + i, false, None, t);
    }
    assert!(s.retries > 0);
    let per = 2;
    let mut by_dev: HashMap<usize, Vec<(u64, u64)>> = HashMap::new();
    for &(entry, from, to) in &s.home_trackers.holds {
        assert!(to >= from);
        by_dev.entry(entry / per).or_default().push((from, to));
    }
    let mut peak = 0;
    for holds in by_dev.values() {
        let mut events: Vec<(u64, i32)> = holds.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]).collect();
        events.sort();
        let (mut now, mut max) = (0i32, 0i32);
        for (_, d) in events {
            now += d;
            max = max.max(now);
        }
        assert!(max <= 2, "a slice held {max} requests");
        peak = peak.max(max);
    }
    assert_eq!(peak, 2);
}

#[test]
fn with_unbounded_trackers_retry_changes_nothing_and_with_few_it_slows_far_buffers_more() {
    let base = Machine::load("neoverse-v1-mesh").unwrap();
    let run = |trackers: u32, retry: bool, node: usize| {
        let mut m = base.clone();
        let mesh = m.mesh.as_mut().unwrap();
        mesh.home_node_trackers = trackers;
        mesh.home_node_retry = retry;
        let mut p = MeshCoreParams::new((0..16).collect());
        p.membind = Some(node);
        MeshSim::new(&m, p).unwrap().run(&mut stream_reads(16, 1500)).unwrap()
    };
    for node in [0, 3] {
        let off = run(0, false, node);
        let on = run(0, true, node);
        assert_eq!(
            serde_json::to_string(&on).unwrap(),
            serde_json::to_string(&off).unwrap()
        );
        assert_eq!(on.home_retries, 0);
    }
    // Enough entries that none is ever refused: as unbounded.
    assert_eq!(run(4096, true, 3).sim_time_ns, run(0, false, 3).sim_time_ns);
    // One entry per slice: every refused request keeps an entry idle for a grant and a
    // re-send, longer from a far quadrant, so retry costs the far buffer more.
    let ratio = |retry| run(1, retry, 3).sim_time_ns / run(1, retry, 0).sim_time_ns;
    let (with, without) = (ratio(true), ratio(false));
    assert!(run(1, true, 3).home_retries > 0);
    assert!(with > without, "far / local time: {with} with retry, {without} without");
}

#[test]
fn stores_to_shared_lines_snoop_the_other_holders_on_the_snp_vnet() {
    let m = Machine::load("neoverse-v1-mesh-2q").unwrap();
    // Thread 0 in quadrant 0, thread 1 in quadrant 1.
    let probe = MeshSim::new(&m, MeshCoreParams::new(vec![0])).unwrap();
    let far = (0..32).find(|&c| probe.quadrant_of_core(c) == 1).unwrap();
    let n = 100u64;
    let lines = |base: u64, write: bool| -> Vec<Access> {
        (0..n)
            .map(|i| {
                let (instr, addr) = (base + 10 * i, 0x10_0000 + 64 * i);
                if write {
                    Access::write(instr, addr, 8)
                } else {
                    Access::read(instr, addr, 8)
                }
            })
            .collect()
    };
    // A: both read the lines; B: thread 1 writes them; C: thread 0 reads them again;
    // D: thread 0 writes them. Steps are phases apart, so they run in this order.
    let t0: Vec<Access> = [lines(0, false), lines(10_000, false), lines(15_000, true)].concat();
    let t1: Vec<Access> = [lines(0, false), lines(5_000, true)].concat();
    let mut p = MeshCoreParams::new(vec![0, far]);
    p.phase_instructions = 1000;
    p.membind = Some(0);
    let r = MeshSim::new(&m, p)
        .unwrap()
        .run(&mut VecSource::new(vec![t0, t1]))
        .unwrap();
    // B: one invalidation each (upgrade); C: the owner cleaned (its dirty data returns on
    // DAT); D: thread 1's clean copy invalidated (upgrade).
    assert_eq!(r.snoops, 3 * n);
    assert_eq!(r.upgrades, 2 * n);
    assert_eq!(r.vnets[1].vnet, "SNP");
    assert_eq!(r.vnets[1].packets, 3 * n);
    // Misses: A's 2n and C's n (thread 0's copies were invalidated in B).
    assert_eq!(r.private_misses, 3 * n);
    // The lines' home slices are in quadrant 0 (node 0, cache groups): every snoop of
    // thread 1 crosses into quadrant 1.
    assert!(r.inter_node_packets[0][1] >= 2 * n);
    assert!(r.link_utilisation_max <= 1.0);
}

#[test]
fn bound_ranges_go_to_their_node_and_a_bad_node_is_refused() {
    let m = Machine::load("neoverse-v1-mesh").unwrap();
    let mut p = MeshCoreParams::new(vec![0]);
    // Thread 0's stream reads 3000 lines from 0: the first 64 KiB on node 2, the rest by
    // first touch (node 0, thread 0's quadrant).
    p.bind = vec![(0, 64 << 10, 2)];
    let r = MeshSim::new(&m, p.clone())
        .unwrap()
        .run(&mut stream_reads(1, 3000))
        .unwrap();
    assert_eq!(r.pages_per_node, vec![31, 0, 16, 0]);
    p.bind = vec![(0, 4096, 4)];
    assert_eq!(
        MeshSim::new(&m, p).err(),
        Some(MeshSimError::NoSuchBindNode { node: 4, nodes: 4 })
    );
}

#[test]
fn a_throttled_thread_sends_a_home_that_refused_it_nothing_until_its_grant() {
    // One tracker per slice, unbounded router buffers; slices 0 and 1 share home node 0,
    // slice 2 is home node 1's. Thread 0's first request to slice 0 takes the entry (held
    // for H), its second is refused; with the throttle its next request to slice 1 (free
    // entry, same home node) leaves only once thread 0 holds the RetryAck and the grant,
    // while thread 1's request to slice 1 (done at once) and thread 0's to slice 2 go at once.
    let run = |throttle: bool| {
        let mut s = sim(
            "neoverse-v1-mesh",
            |m| {
                m.home_node_trackers = 1;
                m.home_node_retry = true;
                m.retry_throttle = throttle;
                m.router_vcs_per_vnet = 0;
            },
            vec![0, 1],
        );
        let (rn, hn0, hn1) = (s.rn_router[0], s.hn_router[0], s.hn_router[1]);
        let h = 1000 * s.fabric.cycle_ps;
        let (a1, e1) = s.request(Vnet::Req, rn, hn0, 0, Some(0), 0);
        s.home_trackers.release(e1.unwrap(), a1 + h);
        let (a2, _) = s.request(Vnet::Req, rn, hn0, 0, Some(0), 0);
        let resend = a2 - s.fabric.unloaded_ps(rn, hn0, s.header);
        let (other_thread, e) = s.request(Vnet::Req, rn, hn0, 0, Some(1), 1);
        s.home_trackers.release(e.unwrap(), other_thread);
        let (other_home, _) = s.request(Vnet::Req, rn, hn1, 0, Some(0), 2);
        let (held, _) = s.request(Vnet::Req, rn, hn0, 0, Some(0), 1);
        (
            s.throttled,
            resend,
            held,
            other_thread,
            other_home,
            s.fabric.unloaded_ps(rn, hn0, s.header),
        )
    };
    let (throttled, resend, held, other_thread, other_home, trip) = run(true);
    assert_eq!(throttled, 1);
    assert!(resend > 1000 * 500, "{resend}");
    // (It shares its first link with the re-sent request: at most a cycle behind it.)
    assert!(
        held >= resend + trip && held <= resend + trip + 500,
        "{held} {resend} {trip}"
    );
    // Not held: both arrive long before the grant.
    assert!(other_thread < trip + 3 * 500, "{other_thread}");
    assert!(other_home < resend / 10, "{other_home} {resend}");
    let (throttled, _, held, ..) = run(false);
    assert_eq!(throttled, 0);
    assert!(held < trip + 5 * 500, "{held}");
}

#[test]
fn direct_memory_transfer_sends_memory_data_to_the_requester_and_the_slc_keeps_no_copy() {
    // 4 threads read 3000 private lines twice; a 64 KiB private cache misses both passes.
    let m = Machine::load("neoverse-v1-mesh").unwrap();
    let run = |dmt: bool| {
        let mut m = m.clone();
        m.mesh.as_mut().unwrap().direct_memory_transfer = dmt;
        let mut p = MeshCoreParams::new((0..4).collect());
        p.membind = Some(3);
        p.private_bytes = 64 << 10;
        let per: Vec<Vec<Access>> = (0..4u64)
            .map(|t| {
                (0..6000u64)
                    .map(|i| Access::read(i * 4, (t << 32) + (i % 3000) * 64, 8))
                    .collect()
            })
            .collect();
        MeshSim::new(&m, p).unwrap().run(&mut VecSource::new(per)).unwrap()
    };
    let (via_home, direct) = (run(false), run(true));
    assert_eq!(via_home.direct_memory_reads, 0);
    assert_eq!(direct.direct_memory_reads, 24_000);
    // Through the home node: the second pass hits the slices (4 x 3000 lines fit them).
    assert_eq!(via_home.dram_reads, 12_000);
    assert_eq!(via_home.slc[3].hits, 12_000);
    assert_eq!(via_home.vnets[3].packets, 12_000 * 2 + 12_000);
    // Direct: one DAT packet per read (controller -> requester), every read from memory.
    assert_eq!(direct.dram_reads, 24_000);
    assert_eq!(direct.slc[3].lookups, 24_000);
    assert_eq!(direct.slc[3].hits, 0);
    assert_eq!(direct.vnets[3].packets, 24_000);
    let json = serde_json::to_string(&direct).unwrap();
    assert!(json.contains("\"direct_memory_reads\":24000"), "{json}");
    assert!(!serde_json::to_string(&via_home)
        .unwrap()
        .contains("direct_memory_reads"));
}
