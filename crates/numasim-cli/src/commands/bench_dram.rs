//! `numasim bench dram`: one memory controller alone, closed loop, on a generated request
//! pattern or a Ramulator 2 load/store trace: sustained bandwidth, mean read latency and how
//! many requests per second of host time the model runs. By default the controller runs
//! behind its read queue (FR-FCFS over `--read-queue` reads, as the timing engine runs it and
//! as Ramulator 2's front end drives its controller); `--read-queue 0` places each request
//! when it is presented, `--in-flight` outstanding.
//!
//! Why in the CLI: it is the numasim half of the side-by-side comparison with Ramulator 2
//! (`benches/ramulator-peer.sh`), which needs both simulators to see the same requests:
//! `--emit-trace` writes the generated pattern as a `LD/ST <byte address>` trace that
//! Ramulator 2's `LoadStoreTrace` front end reads, and `--trace` reads such a trace back.

use crate::table::Table;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use numasim::machine::DramKind;
use numasim::timing::dram::{AddressMap, DramConfig, MemoryController};
use numasim::timing::dram_loop::{closed_loop, pattern_requests, windowed_loop, Pattern as LoopPattern};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Cache line, bytes (every request is one line).
const LINE_BYTES: u64 = 64;
/// Largest generated run.
const MAX_REQUESTS: u64 = 100_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Reads of uniformly random lines over the channel's capacity.
    Random,
    /// Reads of consecutive lines.
    Stream,
    /// Random lines, two reads then one write, repeating.
    Mix,
}

impl From<Pattern> for LoopPattern {
    fn from(p: Pattern) -> Self {
        match p {
            Pattern::Random => LoopPattern::Random,
            Pattern::Stream => LoopPattern::Stream,
            Pattern::Mix => LoopPattern::Mix,
        }
    }
}

#[derive(Args)]
pub struct DramArgs {
    /// DRAM grade (`numasim params machine` lists them), e.g. ddr4-2400-cl16.
    #[arg(long, default_value = "ddr4-2400-cl16")]
    dram: String,
    /// Request pattern to generate (ignored with --trace).
    #[arg(long, value_enum, default_value_t = Pattern::Random)]
    pattern: Pattern,
    /// Requests to generate.
    #[arg(long, default_value_t = 200_000)]
    requests: u64,
    /// Reads the controller's queue holds for FR-FCFS (the timing engine's `dram_read_queue`
    /// default); 0: no queue, each request placed when presented, `--in-flight` outstanding.
    #[arg(long, default_value_t = 32)]
    read_queue: usize,
    /// With a read queue: times a read may be bypassed by younger ones to its bank before it
    /// goes first (0: uncapped).
    #[arg(long, default_value_t = 16)]
    bypass_cap: u32,
    /// Without a read queue (`--read-queue 0`): requests outstanding at once (1 measures
    /// unloaded latency).
    #[arg(long, default_value_t = 32)]
    in_flight: usize,
    /// Address mapping, most significant field first (Ro Ba Bg Ra Co Ch).
    #[arg(long, default_value = "RoBaRaCoCh")]
    mapping: String,
    /// Channel capacity, GiB (rows per bank follow from it).
    #[arg(long, default_value_t = 8)]
    capacity_gib: u64,
    /// Row (page) size of a rank, bytes.
    #[arg(long, default_value_t = 8192)]
    row_bytes: u64,
    /// Turn refresh off (on by default, as in the machine model).
    #[arg(long)]
    no_refresh: bool,
    /// Closed-page policy (open by default).
    #[arg(long)]
    closed_page: bool,
    /// Posted-write queue watermarks `HIGH,LOW` (0,0: writes scheduled on arrival).
    #[arg(long, default_value = "26,6")]
    write_queue: String,
    /// Seed of the generated addresses.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Read requests from a Ramulator 2 load/store trace (`LD|ST <byte address>`) instead.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write the generated requests as a Ramulator 2 load/store trace and exit.
    #[arg(long)]
    emit_trace: Option<PathBuf>,
    /// Print the measurement as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct DramReport {
    dram: &'static str,
    source: String,
    requests: u64,
    reads: u64,
    writes: u64,
    /// Which front end ran: `read-queue` (FR-FCFS behind `read_queue` reads) or
    /// `closed-loop` (each request placed when presented, `in_flight` outstanding).
    front_end: &'static str,
    /// Reads the queue held (0 without one).
    read_queue: usize,
    /// Bypasses allowed per read (`None`: uncapped; without a queue, `None`).
    bypass_cap: Option<u32>,
    /// Requests outstanding (without a queue; with one, `None`).
    in_flight: Option<usize>,
    refresh: bool,
    closed_page: bool,
    mapping: String,
    /// Simulated time until the last request completed, ns.
    simulated_ns: f64,
    /// Line bytes moved per simulated second, GB/s.
    bandwidth_gbps: f64,
    /// Share of the channel's peak.
    share_of_peak: f64,
    mean_read_latency_ns: f64,
    /// The same in DRAM clock cycles (tCK from the grade's tCL).
    mean_read_latency_cycles: Option<f64>,
    row_hit_ratio: f64,
    /// Host time of the simulation alone (requests already in memory), s.
    host_s: f64,
    requests_per_host_s: f64,
}

fn dram_kind(name: &str) -> anyhow::Result<DramKind> {
    DramKind::ALL.into_iter().find(|k| k.as_str() == name).with_context(|| {
        let names: Vec<&str> = DramKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown DRAM grade `{name}`; known: {}", names.join(", "))
    })
}

/// A Ramulator trace's requests as (line address, write).
fn read_trace(path: &std::path::Path) -> anyhow::Result<Vec<(u64, bool)>> {
    let requests = numasim_trace::ramulator_plain::read_requests(path, MAX_REQUESTS)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(requests
        .into_iter()
        .map(|(addr, write)| (addr / LINE_BYTES, write))
        .collect())
}

pub fn dram_bench(args: DramArgs) -> anyhow::Result<()> {
    let kind = dram_kind(&args.dram)?;
    if args.requests == 0 || args.requests > MAX_REQUESTS {
        bail!("--requests must be between 1 and {MAX_REQUESTS}");
    }
    if !(1..=4096).contains(&args.in_flight) {
        bail!("--in-flight must be between 1 and 4096");
    }
    if args.read_queue > 4096 {
        bail!("--read-queue must be between 0 and 4096");
    }
    if !(1..=1024).contains(&args.capacity_gib) {
        bail!("--capacity-gib must be between 1 and 1024");
    }
    if !args.row_bytes.is_power_of_two() || !(LINE_BYTES..=1 << 20).contains(&args.row_bytes) {
        bail!("--row-bytes must be a power of two between 64 and 1048576");
    }
    let map = AddressMap::parse(&args.mapping).map_err(|e| anyhow::anyhow!("--mapping: {e}"))?;
    let (wq_high, wq_low) = match args
        .write_queue
        .split_once(',')
        .map(|(h, l)| (h.trim().parse(), l.trim().parse()))
    {
        Some((Ok(h), Ok(l))) if l <= h && h <= 4096 => (h, l),
        _ => bail!("--write-queue must be `HIGH,LOW` with LOW ≤ HIGH ≤ 4096, e.g. 26,6"),
    };
    let capacity_bytes = args.capacity_gib << 30;
    let lines = capacity_bytes / LINE_BYTES;
    let (requests, source) = match &args.trace {
        Some(path) => (read_trace(path)?, path.display().to_string()),
        None => (
            pattern_requests(args.pattern.into(), args.requests, lines, args.seed).collect(),
            format!("{:?} (seed {})", args.pattern, args.seed).to_lowercase(),
        ),
    };
    if let Some(path) = &args.emit_trace {
        let mut w = std::io::BufWriter::new(numasim_output::plan(path, &[], numasim_output::Special::Stream)?.open()?);
        for &(line, write) in &requests {
            writeln!(w, "{} 0x{:x}", if write { "ST" } else { "LD" }, line * LINE_BYTES)?;
        }
        w.into_inner().map_err(|e| e.into_error())?.commit()?;
        eprintln!("wrote {} requests to {}", requests.len(), path.display());
        return Ok(());
    }
    let timings = kind.timings();
    let cfg = DramConfig {
        row_bytes: args.row_bytes,
        refresh: !args.no_refresh,
        closed_page: args.closed_page,
        map,
        write_queue_high: wq_high,
        write_queue_low: wq_low,
        ..DramConfig::one_channel(capacity_bytes)
    };
    let mut m = MemoryController::new(&timings, LINE_BYTES as f64 / kind.channel_peak_gbps(), &cfg);
    let started = Instant::now();
    let windowed = args.read_queue > 0;
    let bypass_cap = (args.bypass_cap > 0).then_some(args.bypass_cap);
    let s = if windowed {
        windowed_loop(&mut m, requests.iter().copied(), args.read_queue, bypass_cap)
    } else {
        closed_loop(&mut m, requests.iter().copied(), args.in_flight)
    };
    let host_s = started.elapsed().as_secs_f64();
    let bandwidth_gbps = s.bandwidth_gbps(LINE_BYTES);
    // tCK: the grade's CAS latency is a whole number of clocks for the DDR grades.
    let tck_ns = kind.tck_ns();
    let report = DramReport {
        dram: kind.as_str(),
        source,
        requests: s.requests,
        reads: s.reads,
        writes: s.writes,
        front_end: if windowed { "read-queue" } else { "closed-loop" },
        read_queue: args.read_queue,
        bypass_cap: if windowed { bypass_cap } else { None },
        in_flight: (!windowed).then_some(args.in_flight),
        refresh: cfg.refresh,
        closed_page: cfg.closed_page,
        mapping: args.mapping.clone(),
        simulated_ns: s.end_ps as f64 / 1000.0,
        bandwidth_gbps,
        share_of_peak: bandwidth_gbps / kind.channel_peak_gbps(),
        mean_read_latency_ns: s.mean_read_latency_ns(),
        mean_read_latency_cycles: tck_ns.map(|t| s.mean_read_latency_ns() / t),
        row_hit_ratio: if s.requests == 0 {
            0.0
        } else {
            s.row_hits as f64 / s.requests as f64
        },
        host_s,
        requests_per_host_s: s.requests as f64 / host_s.max(1e-9),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let mut t = Table::new(["quantity", "value"]);
    let cycles = report
        .mean_read_latency_cycles
        .map_or(String::new(), |c| format!(" ({c:.1} tCK)"));
    for (k, v) in [
        ("DRAM", report.dram.to_string()),
        (
            "requests",
            format!(
                "{} ({} reads, {} writes) from {}",
                report.requests, report.reads, report.writes, report.source
            ),
        ),
        (
            "front end",
            match report.in_flight {
                Some(k) => format!("closed loop, {k} in flight, placed when presented"),
                None => format!(
                    "read queue of {} (FR-FCFS, bypass cap {})",
                    report.read_queue,
                    report.bypass_cap.map_or("none".to_string(), |c| c.to_string())
                ),
            },
        ),
        (
            "bandwidth",
            format!(
                "{:.2} GB/s ({:.1} % of peak)",
                report.bandwidth_gbps,
                100.0 * report.share_of_peak
            ),
        ),
        (
            "mean read latency",
            format!("{:.1} ns{cycles}", report.mean_read_latency_ns),
        ),
        ("row-hit ratio", format!("{:.3}", report.row_hit_ratio)),
        (
            "model speed",
            format!(
                "{:.2} M requests/s ({:.3} s)",
                report.requests_per_host_s / 1e6,
                report.host_s
            ),
        ),
    ] {
        t.row([k.to_string(), v]);
    }
    print!("{}", t.render());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_trace_gives_line_addresses_and_names_the_file_it_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ok.trace");
        // The fast path and the general reader (numasim_trace::ramulator_plain tests both).
        std::fs::write(&path, "LD 0x40\nST 0x1000\n").unwrap();
        assert_eq!(read_trace(&path).unwrap(), vec![(1, false), (64, true)]);
        std::fs::write(&path, "# comment\n0x80 W\n").unwrap();
        assert_eq!(read_trace(&path).unwrap(), vec![(2, true)]);
        let bad = dir.path().join("bad.trace");
        std::fs::write(&bad, "LD 0x1g\n").unwrap();
        let err = format!("{:#}", read_trace(&bad).unwrap_err());
        assert!(err.contains("bad.trace") && err.contains("byte offset"), "{err}");
    }
}
