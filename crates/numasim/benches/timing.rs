//! Timing-mode throughput (issue 6's speed target: ≥ 10 M accesses/s with 64 cores on
//! starnuma16-pool-scaled and a memory-bound workload).
//!
//! GAP BFS (Kronecker, scale 19, 64 threads, compact mapping: 4 cores per socket) under two
//! OpenMP schedules, accesses generated once and held in memory, so only the timing engine is
//! measured: cores, private caches, LLCs, directory, links and DRAM.
//! `cargo bench -p numasim --bench timing`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use numasim::config::Source;
use numasim::experiment::{resolve, Experiment};
use numasim::timing::{TimingConfig, TimingSim};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("timing_sim_only");
    g.sample_size(10);
    // `static`: one static schedule for every loop (the session-1 default, mostly local
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
        let sockets = resolve::thread_sockets(&exp, &machine, streams.len()).expect("mapping");
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
                    let mut sim = TimingSim::new(&cfg, &machine, sockets.clone(), placement).expect("engine");
                    while sim.run_phase(&mut src, cfg.phase_instructions).expect("run").is_some() {
                        sim.memory.pages.end_phase();
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
