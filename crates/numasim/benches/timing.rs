//! Timing-mode throughput (target: ≥ 10 M accesses/s with 64 cores on
//! starnuma16-pool-scaled and a memory-bound workload).
//!
//! GAP BFS (Kronecker, scale 19, 64 threads, compact mapping: 4 cores per socket) under two
//! OpenMP schedules, accesses generated once and held in memory, so only the timing engine is
//! measured: cores, private caches, LLCs, directory, links and DRAM.
//! `cargo bench -p numasim --bench timing`
//!
//! Also the DRAM model alone (`dram_model`): requests per second through one DDR4-2400
//! channel's controller with every constraint on (refresh, write queue), random reads, a
//! sequential read stream and a 2:1 read:write mix, behind the controller's 32-read FR-FCFS
//! queue (bypass cap 16, as `numasim bench dram` and the timing engine run it), and as
//! `…_placed` closed loop with 32 requests in flight, each placed when presented.
//! `cargo bench -p numasim --bench timing -- dram_model`

//!
//! `timing_sim_cpu` runs the same BFS cases measured in CPU time of this process (user +
//! system, `CLOCK_PROCESS_CPUTIME_ID`) rather than wall time: on a machine shared with other
//! jobs, wall time swings with their load while CPU time mostly does not, so before/after
//! comparisons there use it. `cargo bench -p numasim --bench timing -- timing_sim_cpu`

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use numasim::config::Source;
use numasim::experiment::{resolve, Experiment};
use numasim::timing::{TimingConfig, TimingSim};

/// CPU time of this process, ns.
struct CpuTime;

fn process_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the OS defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        process_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        process_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Values are CPU ns; throughputs per CPU-second.
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical_ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical_ns < 1e6 {
            (1e-3, "µs cpu")
        } else if typical_ns < 1e9 {
            (1e-6, "ms cpu")
        } else {
            (1e-9, "s cpu")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }
    fn scale_throughputs(&self, typical_ns: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str {
        let per = match *throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => n as f64,
        };
        let _ = typical_ns;
        // ns per iteration → millions per CPU-second.
        values.iter_mut().for_each(|v| *v = per / *v * 1e3);
        "M/cpu-s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn bench(c: &mut Criterion) {
    bfs_group(c, "timing_sim_only");
}

fn bench_cpu(c: &mut Criterion<CpuTime>) {
    bfs_group(c, "timing_sim_cpu");
}

fn bfs_group<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    // `static`: one static schedule for every loop (the non-GAP default, mostly local
    // misses); `gap`: GAP's own per-loop schedules (dynamic bottom-up), ~3× the LLC misses,
    // most of them remote or block transfers.
    for schedule in ["static", "gap"] {
        let text = format!(
            "machine = \"starnuma16-pool-scaled\"\nseed = 1\nmode = \"timing\"\nphase_instructions = 5000000\n\
             [workload]\nkind = \"bfs\"\ngraph = \"kronecker\"\nscale = 19\ndegree = 16\nthreads = 64\ntrials = 1\n\
             schedule = \"{schedule}\"\n"
        );
        let exp =
            Experiment::from_source(Source::from_text("bench.toml", text), "bench").expect("valid bench experiment");
        let streams = {
            let mut src = resolve::source(&exp).expect("bfs source");
            numasim::trace::collect_all(&mut *src).expect("bfs accesses")
        };
        let accesses: u64 = streams.iter().map(|s| s.len() as u64).sum();
        let machine = resolve::machine(&exp).expect("machine");
        let sockets =
            resolve::thread_sockets(&exp, &machine, std::slice::from_ref(&(0..streams.len()))).expect("mapping");
        let cfg = TimingConfig {
            spec: exp.spec.timing.clone(),
            phase_instructions: exp.spec.phase_instructions,
            page_bytes: exp.spec.placement.page_bytes,
            llc: true,
        };
        g.throughput(Throughput::Elements(accesses));
        g.bench_function(format!("bfs64_{schedule}_starnuma16_pool_scaled"), |b| {
            b.iter_batched(
                || numasim::trace::VecSource::new(streams.clone()),
                |mut src| {
                    let placement = resolve::placement(&exp, &machine).expect("placement");
                    let mut sim = TimingSim::new(&cfg, &machine, sockets.clone()).expect("engine");
                    let mut sys = TimingSim::system(&cfg, &machine, placement).expect("LLC");
                    while sim
                        .run_phase(&mut sys, &mut src, cfg.phase_instructions)
                        .expect("run")
                        .is_some()
                    {
                        sys.memory.pages.end_phase();
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// Behind a 32-read queue with bypass cap 16 (`dram_loop::windowed_loop`, `numasim bench
/// dram`'s default) when `windowed`, else closed loop with 32 requests in flight, each placed
/// when presented (`dram_loop::closed_loop`, `--read-queue 0`).
fn dram_run(addrs: &[(u64, bool)], windowed: bool) -> u64 {
    use numasim::machine::DramKind;
    use numasim::timing::dram::{DramConfig, MemoryController};
    use numasim::timing::dram_loop::{closed_loop, windowed_loop};
    let cfg = DramConfig::one_channel(8 << 30);
    let kind = DramKind::Ddr4_2400;
    let mut m = MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg);
    let requests = addrs.iter().copied();
    if windowed {
        windowed_loop(&mut m, requests, 32, Some(16)).end_ps
    } else {
        closed_loop(&mut m, requests, 32).end_ps
    }
}

fn dram_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("dram_model");
    let n = 200_000usize;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let random: Vec<(u64, bool)> = (0..n).map(|_| (rnd() % (1 << 27), false)).collect();
    let stream: Vec<(u64, bool)> = (0..n as u64).map(|i| (i, false)).collect();
    let mix: Vec<(u64, bool)> = (0..n).map(|i| (rnd() % (1 << 27), i % 3 == 2)).collect();
    for (name, reqs) in [("random_read", &random), ("stream_read", &stream), ("mix_2r1w", &mix)] {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(name, |b| b.iter(|| dram_run(reqs, true)));
        g.bench_function(format!("{name}_placed"), |b| b.iter(|| dram_run(reqs, false)));
    }
    g.finish();
}

criterion_group!(benches, bench, dram_bench);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_cpu
}
criterion_main!(benches, cpu_benches);
