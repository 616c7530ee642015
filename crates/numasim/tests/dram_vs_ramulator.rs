//! numasim's memory controller against Ramulator 2 on the same requests (issue 13's
//! validation): one DDR4-2400 16-16-16 channel (8 Gb x8 parts, one rank, RoBaRaCoCh, open
//! page, refresh on), closed loop.
//!
//! The peer's figures below were measured with `benches/ramulator-peer.sh` (Ramulator 2 at
//! commit be93be7, the last with its `ramulator2` executable, built Release with GCC 12;
//! DDR4_8Gb_x8 / DDR4_2400R, Generic controller, FRFCFS, AllBank refresh, OpenRowPolicy,
//! LoadStoreTrace front end) on 2026-11-24, from that script's trace files, which
//! `numasim bench dram --emit-trace` writes from the same generator this test replays
//! (`pattern_requests`, seed 1, 200 000 requests; 20 000 for unloaded latency). They are
//! measurements of the peer, not tuned constants: each test checks numasim against them
//! within the 5 %. Where numasim is outside it, the test is ignored with the measured
//! gap and its cause beside it (docs/architecture.md, "DRAM timings are data").

use numasim::machine::DramKind;
use numasim::timing::dram::{DramConfig, MemoryController};
use numasim::timing::dram_loop::{closed_loop, pattern_requests, LoopStats, Pattern};

/// Ramulator 2: memory cycles (tCK 0.8333 ns) for 200 000 requests, and unloaded latency.
const PEER_RANDOM_CYCLES: f64 = 1_369_140.0;
const PEER_STREAM_CYCLES: f64 = 1_063_865.0;
const PEER_MIX_CYCLES: f64 = 1_410_903.0;
const PEER_UNLOADED_LATENCY_CYCLES: f64 = 51.6657;
const TCK_NS: f64 = 2.5 / 3.0;
const REQUESTS: u64 = 200_000;
const LINES: u64 = (8u64 << 30) / 64;

fn run(pattern: Pattern, n: u64, in_flight: usize) -> LoopStats {
    let kind = DramKind::Ddr4_2400Cl16;
    let cfg = DramConfig::one_channel(8 << 30);
    let mut m = MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg);
    closed_loop(&mut m, pattern_requests(pattern, n, LINES, 1), in_flight)
}

fn peer_gbps(cycles: f64) -> f64 {
    (REQUESTS * 64) as f64 / (cycles * TCK_NS)
}

fn within(what: &str, numasim: f64, peer: f64, tolerance: f64) {
    let gap = (numasim - peer) / peer;
    eprintln!(
        "{what}: numasim {numasim:.3}, Ramulator 2 {peer:.3} ({:+.1} %)",
        100.0 * gap
    );
    assert!(
        gap.abs() <= tolerance,
        "{what}: numasim {numasim:.3} vs Ramulator 2 {peer:.3} ({:+.1} %)",
        100.0 * gap
    );
}

#[test]
fn unloaded_read_latency_within_5_percent() {
    let s = run(Pattern::Random, 20_000, 1);
    within(
        "unloaded read latency, ns",
        s.mean_read_latency_ns(),
        PEER_UNLOADED_LATENCY_CYCLES * TCK_NS,
        0.05,
    );
}

#[test]
#[ignore = "measured 10.55 GB/s vs Ramulator 2's 11.22 (−6.0 %): random reads are tFAW-bound (11.8 GB/s); \
            Ramulator's FR-FCFS picks, among 32 queued requests, one whose bank can activate now, \
            numasim places requests in arrival order (no scheduling window)"]
fn saturated_random_read_bandwidth_within_5_percent() {
    let s = run(Pattern::Random, REQUESTS, 32);
    within(
        "random reads, GB/s",
        s.bandwidth_gbps(64),
        peer_gbps(PEER_RANDOM_CYCLES),
        0.05,
    );
}

#[test]
#[ignore = "measured 12.25 GB/s vs Ramulator 2's 14.44 (−15.2 %): a stream reads one bank group \
            (tCCD_L 6 clocks a line); at each row boundary Ramulator's scheduler interleaves the \
            queued requests of the next bank group (tCCD_S 4), while numasim has already booked the \
            current row's reads 6 clocks apart and leaves no 4-clock gaps for them"]
fn saturated_stream_bandwidth_within_5_percent() {
    let s = run(Pattern::Stream, REQUESTS, 32);
    within(
        "stream reads, GB/s",
        s.bandwidth_gbps(64),
        peer_gbps(PEER_STREAM_CYCLES),
        0.05,
    );
}

#[test]
#[ignore = "measured 9.58 GB/s vs Ramulator 2's 10.89 (−12.0 %): the random-read gap plus write \
            drains placed in arrival order rather than scheduled among queued reads"]
fn read_write_mix_bandwidth_within_5_percent() {
    let s = run(Pattern::Mix, REQUESTS, 32);
    within(
        "2:1 read:write mix, GB/s",
        s.bandwidth_gbps(64),
        peer_gbps(PEER_MIX_CYCLES),
        0.05,
    );
}

/// What the ignored tests measure stays where it was measured: a regression in either
/// direction (the model getting worse, or better without the ignore reasons being updated)
/// fails here.
#[test]
fn saturated_gaps_stay_as_documented() {
    let random = run(Pattern::Random, REQUESTS, 32).bandwidth_gbps(64) / peer_gbps(PEER_RANDOM_CYCLES) - 1.0;
    let stream = run(Pattern::Stream, REQUESTS, 32).bandwidth_gbps(64) / peer_gbps(PEER_STREAM_CYCLES) - 1.0;
    let mix = run(Pattern::Mix, REQUESTS, 32).bandwidth_gbps(64) / peer_gbps(PEER_MIX_CYCLES) - 1.0;
    eprintln!("gaps: random {:+.3}, stream {:+.3}, mix {:+.3}", random, stream, mix);
    for (what, gap, documented) in [
        ("random", random, -0.060),
        ("stream", stream, -0.152),
        ("mix", mix, -0.120),
    ] {
        assert!(
            (gap - documented).abs() < 0.01,
            "{what}: gap {gap:+.3}, documented {documented:+.3}"
        );
    }
}
