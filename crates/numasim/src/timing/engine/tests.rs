use super::*;
use crate::mem::{Capacity, PlacementPolicy};
use numasim_output::stat::Stats;
use numasim_trace::VecSource;

/// First-touch placement over every memory node of `m`, nearest first.
fn first_touch(m: &Machine) -> Placement {
    let nearest = (0..m.sockets.len())
        .map(|s| m.nearest_memory_order(s).to_vec())
        .collect();
    Placement::new(
        PlacementPolicy::FirstTouch,
        vec![Capacity::Pages(1 << 20); m.memory_nodes.len()],
        nearest,
    )
}

/// Threads alternate between the two sockets of `two-socket` (2.8 GHz); base CPI 2.8, so
/// one non-memory instruction takes exactly 1000 ps.
fn sim(threads: usize) -> (TimingSim, System) {
    let s = sim_with(TimingSpec::default(), (0..threads).map(|t| t % 2).collect());
    assert_eq!(s.0.cores[0].cpi_milli_ps, 1_000_000);
    s
}

/// The two-socket machine at CPI 2.8 (1 ns per instruction), first touch, LLCs on, with
/// `spec`'s other settings and threads on `thread_socket`.
fn sim_with(spec: TimingSpec, thread_socket: Vec<usize>) -> (TimingSim, System) {
    sim_on("two-socket", spec, thread_socket)
}

/// [`sim_with`] on machine `machine`.
fn sim_on(machine: &str, spec: TimingSpec, thread_socket: Vec<usize>) -> (TimingSim, System) {
    let m = Machine::load(machine).unwrap();
    let cfg = TimingConfig {
        spec: TimingSpec { base_cpi: 2.8, ..spec },
        phase_instructions: 1_000_000,
        page_bytes: 4096,
        llc: true,
    };
    engine(&cfg, &m, thread_socket, first_touch(&m))
}

/// The engine on `m` with `cfg` and the system it runs on, with `placement`.
fn engine(cfg: &TimingConfig, m: &Machine, thread_socket: Vec<usize>, placement: Placement) -> (TimingSim, System) {
    (
        TimingSim::new(cfg, m, thread_socket).unwrap(),
        TimingSim::system(cfg, m, placement).unwrap(),
    )
}

/// Every phase of the run: (counts, timing counters, phase index after it).
fn phases(
    s: &mut TimingSim,
    sys: &mut System,
    src: &mut VecSource,
    phase_ps: u64,
) -> Vec<(PhaseCounts, TimingCounts, u64)> {
    let mut out = Vec::new();
    while let Some((c, t)) = s.run_phase_timed(sys, src, phase_ps).unwrap() {
        out.push((c, t, s.phase_index()));
        assert!(out.len() < 10_000, "the run must end");
    }
    out
}

/// A line socket 0 wrote, read by socket 1 and then by socket 2: under MOESI socket 0
/// keeps it Owned and supplies both (two block transfers, no write-back); under MESI it
/// writes the line back while supplying socket 1 and memory serves socket 2 (one block
/// transfer, one sharing write-back, whose DRAM write the home's controller receives).
#[test]
fn mesi_sends_the_second_reader_to_memory_where_moesi_keeps_the_owner_supplying() {
    let run = |coherence: Coherence| {
        let spec = TimingSpec {
            coherence: Some(coherence),
            ..TimingSpec::default()
        };
        let (mut s, mut sys) = sim_on("starnuma16-baseline", spec, vec![0, 1, 2]);
        let line = 0x40_0000;
        let streams = vec![
            vec![Access::write(1, line, 8)],
            vec![Access::read(20_000, line, 8)],
            vec![Access::read(40_000, line, 8)],
        ];
        let mut src = VecSource::new(streams);
        let mut total = TimingCounts::default();
        while let Some((_, t)) = s.run_phase(&mut sys, &mut src, 1_000_000).unwrap() {
            total.add(&t);
        }
        // Written, or posted and still queued.
        let writes: u64 = s.book.mem.iter().map(|m| m.writes + m.queued_writes() as u64).sum();
        (
            total.block_transfers_3hop + total.block_transfers_4hop,
            total.sharing_writebacks,
            writes,
        )
    };
    assert_eq!(run(Coherence::Moesi), (2, 0, 0));
    assert_eq!(run(Coherence::Mesi), (1, 1, 1));
}

#[test]
fn invalidating_only_the_tracked_private_holders_changes_nothing() {
    // Six threads on two sockets, reads and writes over 48 lines of 4 pages: the run
    // with the per-core marks must match one that probes every core of an invalidated
    // socket, phase by phase and core by core.
    let run = |tracked: bool| {
        let (mut s, mut sys) = sim(6);
        s.private_tracked = tracked;
        let mut x = 0x1234_5678_9abc_def1u64;
        let streams = (0..6)
            .map(|_| {
                (0..3000u64)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let addr = 0x10_0000 + (x % 48) * 64 + (x >> 60) * 4096;
                        if x >> 62 == 0 {
                            Access::write(i * 3 + 1, addr, 8)
                        } else {
                            Access::read(i * 3 + 1, addr, 8)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut src = VecSource::new(streams);
        let mut out = Vec::new();
        while let Some((c, t)) = s.run_phase(&mut sys, &mut src, 2000).unwrap() {
            out.push((c.llc_hits, c.llc_misses, t.invalidations, t.end_ps));
        }
        (out, (0..6).map(|c| s.core_stats(c)).collect::<Vec<_>>())
    };
    let (a, b) = (run(true), run(false));
    assert!(a.0.len() > 3);
    let invalidations: u64 = a.0.iter().map(|p| p.2).sum();
    assert!(invalidations > 100, "stores must invalidate: {:?}", a.0);
    assert_eq!(a, b);
}

/// Read queues defer when a miss completes, never whether it happens: cold misses to lines
/// each thread owns (the footprint fits the LLCs, so the order cores run in cannot change
/// a hit) give the same counts with and without queues, every load is accounted exactly
/// once, every queued read is decided by the end of each phase, and queueing shows up
/// only in the times.
#[test]
fn read_queues_defer_completions_but_decide_every_read_each_phase() {
    let run = |queue: u32| {
        let spec = TimingSpec {
            dram_read_queue: queue,
            ..TimingSpec::default()
        };
        let (mut s, mut sys) = sim_with(spec, (0..8).map(|t| t % 2).collect());
        assert_eq!(s.book.has_read_queues(), queue > 0);
        let streams = (0..8u64)
            .map(|t| {
                (0..2000u64)
                    .map(|i| {
                        let addr = (1 << 30) + t * (1 << 22) + i * 64 * 17 % (1 << 21);
                        if i % 5 == 4 {
                            Access::write(i * 2 + 1, addr, 8)
                        } else {
                            Access::read(i * 2 + 1, addr, 8)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut src = VecSource::new(streams);
        let mut out = Vec::new();
        while let Some((c, t)) = s.run_phase(&mut sys, &mut src, 500).unwrap() {
            assert_eq!(s.free_tokens.len(), s.queued_misses.len(), "a read left undecided");
            assert!(s.waiting.iter().all(|w| *w == Wait::Running) && s.miss_cont.iter().all(Option::is_none));
            let loads: u64 = t.classes.iter().map(|k| k.count).sum();
            let latency: u64 = t.classes.iter().map(|k| k.unloaded_ps + k.wait_ps).sum();
            out.push(((c.accesses, c.llc_hits, c.llc_misses, loads), (latency, t.end_ps)));
        }
        out
    };
    let (queued, placed) = (run(32), run(0));
    assert!(queued.len() >= 4);
    let counts = |v: &Vec<_>| {
        v.iter()
            .map(|p: &(_, (u64, u64))| p.0)
            .collect::<Vec<(u64, u64, u64, u64)>>()
    };
    assert_eq!(counts(&queued), counts(&placed));
    assert!(queued.iter().all(|p| p.0 .3 > 0), "every phase has miss loads");
    assert_ne!(queued, placed, "the queue must change some completion time");
}

/// With one read in flight a queue has nothing to reorder: a lone core with one MSHR gets
/// exactly the times of reads placed when presented, phase by phase (the event loop decides
/// each read at once and the core resumes at the same completion). Refresh is off: a queue
/// judges whether a refresh closed the row at the read's decision rather than its arrival,
/// which can turn a row miss into an access to a closed bank (same completion, another
/// unloaded/contention split).
#[test]
fn one_read_in_flight_times_the_same_with_or_without_a_queue() {
    let run = |queue: u32| {
        let spec = TimingSpec {
            mshrs: 1,
            dram_refresh: false,
            dram_read_queue: queue,
            ..TimingSpec::default()
        };
        let (mut s, mut sys) = sim_with(spec, vec![0]);
        let stream = (0..3000u64)
            .map(|i| Access::read(i * 4 + 1, (1 << 30) + (i * 7919 % 4096) * 4160, 8))
            .collect();
        let mut src = VecSource::new(vec![stream]);
        let mut out = Vec::new();
        while let Some((c, t)) = s.run_phase(&mut sys, &mut src, 1000).unwrap() {
            let lat: Vec<_> = t.classes.iter().map(|k| (k.count, k.unloaded_ps, k.wait_ps)).collect();
            out.push((c.llc_misses, lat, t.end_ps));
        }
        out
    };
    let queued = run(32);
    assert!(queued.len() >= 10 && queued.iter().all(|p| p.0 > 0));
    assert_eq!(queued, run(0));
}

/// Talbot & Kelly's proxies through the engine: a proxy's copy of a line is in its SLC
/// and listed in the directory, so a store invalidates it like any sharer (counted as an
/// invalidation and an invalidation message), and the next proxy read fetches from the
/// home again; without the store, that read is a hit in the proxy's SLC.
#[test]
fn a_store_invalidates_a_proxy_copy_through_the_directory() {
    let run = |store_again: bool| {
        let m = Machine::load("talbot64").unwrap();
        let placement = first_touch(&m);
        let cfg = TimingConfig {
            spec: TimingSpec {
                base_cpi: 1.0,
                node_controller_cycle_ns: Some(10.0),
                proxies: Some(crate::timing::params::ProxyMode::Basic),
                // Only the shared line is proxied (each thread's own reads go home).
                proxy_ranges: Some(vec![[0x10_0000, 0x10_0040]]),
                ..TimingSpec::default()
            },
            phase_instructions: 1_000_000,
            page_bytes: 8192,
            llc: true,
        };
        let (mut s, mut sys) = engine(&cfg, &m, (0..64).collect(), placement);
        // Line 0x4000: proxy 0x4000 mod 21 = 4 for requesters 0..21 (cluster 0).
        let vaddr = 0x10_0000u64;
        let line = vaddr >> 6;
        let proxy = s.book.nc.as_ref().unwrap().proxy_of(line, 5);
        assert_eq!(proxy, 4);
        // Socket 0 first-touches (home 0) and owns the line; socket 5 reads it via the
        // proxy; socket 0 may store again; socket 6 reads it via the same proxy. Each also
        // reads a line of its own every 500 instructions, so the engine (which lets a core
        // issue an access before yielding) processes the accesses in time order.
        let mut streams = vec![Vec::new(); 64];
        for t in [0usize, 5, 6] {
            let stream = &mut streams[t];
            for i in 1..30u64 {
                let at = i * 500;
                match (t, at) {
                    (0, 500) => stream.push(Access::write(at, vaddr, 8)),
                    (0, 6_000) if store_again => stream.push(Access::write(at, vaddr, 8)),
                    (5, 2_000) | (6, 12_000) => stream.push(Access::read(at, vaddr, 8)),
                    _ => stream.push(Access::read(at, 0x100_0000 * (t as u64 + 1), 8)),
                }
            }
        }
        let mut src = VecSource::new(streams);
        let mut invalidations = 0;
        while let Some((_, t)) = s.run_phase(&mut sys, &mut src, 1_000_000).unwrap() {
            invalidations += t.invalidations;
        }
        let nc = s.book.nc.as_ref().unwrap().stats.clone();
        (nc, invalidations, sys.llcs[proxy].contains(line))
    };
    let (nc, invalidations, held) = run(false);
    assert_eq!((nc.proxy_reads, nc.proxy_fetches, nc.proxy_hits), (2, 1, 1), "{nc:?}");
    assert_eq!(invalidations, 0);
    assert!(held);
    let (nc, invalidations, held) = run(true);
    assert_eq!((nc.proxy_reads, nc.proxy_fetches, nc.proxy_hits), (2, 2, 0), "{nc:?}");
    // Socket 5 and the proxy lose the line: two invalidations, two messages.
    assert_eq!(invalidations, 2);
    assert_eq!(nc.messages[super::super::node_controller::Msg::Inval as usize], 2);
    assert!(held, "socket 6's read put it back");
}

#[test]
fn time_window_is_the_next_multiple_or_a_merged_empty_stretch() {
    // From 0: the first multiple.
    assert_eq!(time_window(0, 100, 0, Some(0)), (1, 100));
    // A barrier that ended at 105 (past the boundary 100): the next phase ends at 200.
    assert_eq!(time_window(1, 100, 105, Some(105)), (2, 200));
    // A migration stall that carried the clock past 300: multiples 2 and 3 are spanned.
    assert_eq!(time_window(1, 100, 350, Some(350)), (4, 400));
    // Nobody can issue before 1050: one empty phase up to 1000, then the busy one.
    assert_eq!(time_window(0, 100, 0, Some(1050)), (10, 1000));
    // Every thread done: still a boundary after the start.
    assert_eq!(time_window(2, 100, 250, None), (3, 300));
    // Phase lengths near the top of u64 saturate instead of wrapping.
    assert_eq!(time_window(0, u64::MAX, 5, Some(5)), (1, u64::MAX));
}

#[test]
fn a_fixed_cost_stream_puts_the_closed_form_count_in_each_phase() {
    // One thread re-reading one line every 10 instructions (10 ns apart once the first
    // access, a miss, has retired): a phase of 10 µs holds exactly 1000 accesses and
    // 10 000 instructions, and starts and ends within one instruction (1 ns) of its
    // multiple of 10 µs.
    let (mut s, mut sys) = sim(1);
    let phase_ps = 10_000_000;
    let n = 5500u64;
    let mut src = VecSource::new(vec![(0..n).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect()]);
    let out = phases(&mut s, &mut sys, &mut src, phase_ps);
    let counts: Vec<u64> = out.iter().map(|p| p.0.accesses).collect();
    assert_eq!(out.len(), 6, "{counts:?}");
    assert_eq!(counts.iter().sum::<u64>(), n);
    let last = counts.len() - 1;
    assert!(
        counts[0] < 1000 && counts[0] > 900,
        "{counts:?}: the first miss delays phase 0"
    );
    assert!(counts[1..last].iter().all(|&c| c == 1000), "{counts:?}");
    for (k, (c, t, index)) in out.iter().enumerate() {
        let k = k as u64;
        assert_eq!(*index, k + 1, "one multiple of phase_ns per phase");
        assert!(
            t.start_ps >= k * phase_ps && t.start_ps < k * phase_ps + 1000,
            "phase {k}"
        );
        if k < last as u64 {
            let b = (k + 1) * phase_ps;
            assert!(t.end_ps >= b && t.end_ps < b + 1000, "phase {k}: {} vs {b}", t.end_ps);
            if k > 0 {
                assert_eq!(c.instructions, 10_000, "phase {k}");
            }
        }
    }
    assert_eq!(out.iter().map(|p| p.0.instructions).sum::<u64>(), (n - 1) * 10 + 1);
}

#[test]
fn threads_of_unequal_speed_stay_in_step_in_time() {
    // Thread 0 re-reads one line every 10 instructions (fast); thread 1 reads a new line
    // every 2 (memory misses, bounded by its MSHRs: slow). Both stop at the same boundary, so thread 0 gets through many more
    // instructions per phase; with instruction phases they would get the same.
    let (mut s, mut sys) = sim(2);
    let n = 20_000u64;
    let fast: Vec<Access> = (0..n).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect();
    let slow: Vec<Access> = (0..n).map(|i| Access::read(i * 2 + 1, (1 << 30) + i * 64, 8)).collect();
    let mut src = VecSource::new(vec![fast, slow]);
    let phase_ps = 5_000_000; // 5 µs
    let mut before = [0u64; 2];
    let mut ratios = Vec::new();
    let mut k = 0u64;
    while let Some((_, t)) = s.run_phase_timed(&mut sys, &mut src, phase_ps).unwrap() {
        k += 1;
        assert_eq!(s.phase_index(), k);
        let boundary = k * phase_ps;
        let mut d = [0u64; 2];
        for (c, core) in s.cores.iter().enumerate() {
            d[c] = core.instructions - before[c];
            before[c] = core.instructions;
            if !core.finished {
                // Stopped at the boundary (computing or waiting across it), not much later.
                assert!(core.t < boundary + phase_ps / 5, "phase {k} core {c}: {}", core.t);
            }
        }
        if s.cores.iter().any(|c| !c.finished) {
            assert!(t.end_ps >= boundary && t.end_ps < boundary + phase_ps / 5, "phase {k}");
        }
        if !s.cores[0].finished && !s.cores[1].finished {
            ratios.push(d[0] as f64 / d[1].max(1) as f64);
        }
    }
    assert!(ratios.len() >= 2, "{ratios:?}");
    assert!(
        ratios.iter().all(|&r| r > 2.0),
        "the fast thread runs ahead in instructions: {ratios:?}"
    );
    // Every instruction is counted once, split or not.
    assert_eq!(s.cores[0].instructions, (n - 1) * 10 + 1);
    assert_eq!(s.cores[1].instructions, (n - 1) * 2 + 1);
}

#[test]
fn idle_and_finished_threads_end_and_gaps_merge_into_one_empty_phase() {
    // Thread 0 finishes early; thread 1 computes for 10^12 instructions (1000 s) before its
    // last access: three phases (busy, one merged empty stretch, busy), not 10^9.
    let (mut s, mut sys) = sim(2);
    let a: Vec<Access> = (0..50).map(|i| Access::read(i * 10 + 1, 0x1000, 8)).collect();
    let gap = 1_000_000_000_000;
    let b = vec![Access::read(1, 0x2000, 8), Access::read(gap, 0x2000, 8)];
    let mut src = VecSource::new(vec![a, b]);
    let phase_ps = 1_000_000; // 1 µs
    let out = phases(&mut s, &mut sys, &mut src, phase_ps);
    let accesses: Vec<u64> = out.iter().map(|p| p.0.accesses).collect();
    assert_eq!(accesses, vec![51, 0, 1]);
    // Phase 0 ends at 1 µs although thread 1 is mid-gap: the finished thread does not end
    // it early and the idle one does not stretch it.
    assert!(out[0].1.end_ps >= phase_ps && out[0].1.end_ps < phase_ps + 1000);
    // The empty phase ends at the multiple holding thread 1's next issue (10^15 ps).
    let issue_ps = gap * 1000;
    assert_eq!(out[1].2, issue_ps / phase_ps);
    assert!(out[1].1.end_ps >= (issue_ps / phase_ps) * phase_ps && out[1].1.end_ps <= issue_ps);
    assert_eq!(out[2].2, issue_ps / phase_ps + 1);
    assert_eq!(out.iter().map(|p| p.0.instructions).sum::<u64>(), 491 + gap);
    assert!(s.run_phase_timed(&mut sys, &mut src, phase_ps).unwrap().is_none());
}

/// One thread on talbot64's node 0 (10 ns cycles) with the machine's blocking CPI-1 core, an
/// 8 KiB direct-mapped L1 and no L2, `spec` adding the keys under test: its finish time, ps.
fn talbot_node_finish(llc_hit_cycles: Option<u32>, write_through_cycles: Option<u32>, accesses: Vec<Access>) -> u64 {
    let m = Machine::load("talbot64").unwrap();
    let cfg = TimingConfig {
        spec: TimingSpec {
            core: Some(crate::timing::params::CoreModel::Blocking),
            base_cpi: 1.0,
            l1_bytes: 8192,
            l1_ways: 1,
            l1_latency_cycles: 0,
            l2_bytes: 0,
            llc_latency_cycles: 8,
            llc_hit_cycles,
            write_through_cycles,
            ..TimingSpec::default()
        },
        phase_instructions: 1_000_000,
        page_bytes: 8192,
        llc: true,
    };
    let (mut s, mut sys) = engine(&cfg, &m, vec![0], first_touch(&m));
    let mut src = VecSource::new(vec![accesses]);
    while s.run_phase(&mut sys, &mut src, 1_000_000).unwrap().is_some() {}
    s.core_stats(0).2
}

#[test]
fn a_write_through_l1_makes_each_store_hit_wait_for_its_llc_write() {
    // Two lines in different L1 sets, both missed once; then ten stores alternating between
    // them (L1 hits) and five more to the same line (the same-line path): fifteen store hits.
    let a = 0x10_0000u64;
    let mut acc = vec![Access::write(1, a, 8), Access::write(2, a + 64, 8)];
    acc.extend((0..10u64).map(|i| Access::write(3 + i, a + 64 * (i % 2), 8)));
    acc.extend((0..5u64).map(|i| Access::write(13 + i, a + 64, 8)));
    let back = talbot_node_finish(None, None, acc.clone());
    let through = talbot_node_finish(None, Some(21), acc);
    // 21 cycles of 10 ns each, once per store hit, nothing overlapping on the blocking core.
    assert_eq!(through - back, 15 * 210_000);
}

#[test]
fn an_llc_hit_takes_llc_hit_cycles_and_a_miss_still_the_lookup() {
    // Lines a and b share the direct-mapped L1's set but not the LLC's (found with caches of
    // the same geometry): after one miss each, ten alternating reads are ten L1 misses that
    // hit the LLC.
    let a = 0x10_0000u64;
    let conflict = |bytes: u64, b: u64| {
        let mut c = crate::cache::SetAssocCache::new(bytes, 1);
        c.access(a >> 6, false);
        c.access(b >> 6, false);
        !c.contains(a >> 6)
    };
    let b = (1..4096u64)
        .map(|i| a + 64 * i)
        .find(|&b| conflict(8192, b) && !conflict(4 << 20, b))
        .expect("a line sharing a's L1 set");
    let mut acc = vec![Access::read(1, a, 8), Access::read(2, b, 8)];
    acc.extend((0..10u64).map(|i| Access::read(3 + i, if i % 2 == 0 { a } else { b }, 8)));
    let lookup = talbot_node_finish(None, None, acc.clone());
    let hit = talbot_node_finish(Some(27), None, acc.clone());
    assert_eq!(hit - lookup, 10 * (27 - 8) * 10_000);
    // The two misses alone (no hits after them) take the same time either way.
    let misses = acc[..2].to_vec();
    assert_eq!(
        talbot_node_finish(Some(27), None, misses.clone()),
        talbot_node_finish(None, None, misses)
    );
}
