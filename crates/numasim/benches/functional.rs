//! Functional-simulator throughput, beside the cost of merely
//! decoding the same accesses from a native trace.
//!
//! 16 threads on starnuma16-pool, first-touch, 16 M accesses per iteration (the documented
//! `numasim run configs/experiments/speed*.toml` commands run 100 M). Variants: generator-fed
//! with the LLC filter off and on, trace-fed with the filter off, and decode only.
//! `cargo bench -p numasim --bench functional`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use numasim::config::Source;
use numasim::experiment::{simulate, Experiment};
use numasim::sim::FunctionalSim;
use numasim::trace::{native::NativeReader, AccessSource};

const THREADS: u64 = 16;
const PER_THREAD: u64 = 1_000_000;

fn experiment(workload: &str, llc: bool) -> Experiment {
    let text = format!(
        "machine = \"starnuma16-pool\"\nseed = 1\nphase_instructions = 100000000\n[workload]\n{workload}\n[llc]\nenabled = {llc}\n"
    );
    Experiment::from_source(Source::from_text("bench.toml", text), "bench").expect("valid bench experiment")
}

fn synthetic() -> String {
    format!("kind = \"synthetic\"\nthreads = {THREADS}\npattern = \"zipf\"\nfootprint_bytes = 1073741824\naccesses_per_thread = {PER_THREAD}")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("bench.trace");
    {
        let exp = experiment(&synthetic(), false);
        let mut src = numasim::experiment::resolve::source(&exp).expect("source");
        numasim::trace::convert::convert(&mut src, &trace, &serde_json::json!({"bench": true})).expect("record trace");
    }
    let mut g = c.benchmark_group("functional");
    g.sample_size(10);
    g.throughput(Throughput::Elements(THREADS * PER_THREAD));
    for llc in [false, true] {
        let exp = experiment(&synthetic(), llc);
        g.bench_function(if llc { "synthetic_llc_on" } else { "synthetic_llc_off" }, |b| {
            b.iter(|| simulate(&exp, &mut |_| {}).expect("run"))
        });
    }
    let exp = experiment(
        &format!("trace = {:?}\nformat = \"native\"", trace.display().to_string()),
        false,
    );
    g.bench_function("trace_llc_off", |b| {
        b.iter(|| simulate(&exp, &mut |_| {}).expect("run"))
    });
    g.bench_function("trace_decode_only", |b| {
        b.iter(|| {
            let mut r = NativeReader::open(&trace).expect("open");
            let mut buf = Vec::new();
            let mut n = 0u64;
            for t in 0..r.threads() {
                loop {
                    r.next_batch(t, &mut buf).expect("read");
                    if buf.is_empty() {
                        break;
                    }
                    n += buf.len() as u64;
                }
            }
            n
        })
    });
    g.finish();

    // The simulator alone: BFS accesses held in memory, so neither generation nor decoding is timed.
    let bfs = experiment(
        "kind = \"bfs\"\ngraph = \"kronecker\"\nscale = 18\ndegree = 16\nthreads = 16\ntrials = 6",
        false,
    );
    let streams = {
        let mut src = numasim::experiment::resolve::source(&bfs).expect("bfs source");
        numasim::trace::collect_all(&mut *src).expect("bfs accesses")
    };
    let accesses: u64 = streams.iter().map(|s| s.len() as u64).sum();
    let mut g = c.benchmark_group("functional_sim_only");
    g.sample_size(10);
    g.throughput(Throughput::Elements(accesses));
    for llc in [false, true] {
        let exp = experiment("kind = \"bfs\"\nthreads = 16", llc);
        let machine = numasim::experiment::resolve::machine(&exp).expect("machine");
        let cfg = numasim::experiment::resolve::functional_config(&exp, &machine);
        let sockets =
            numasim::experiment::resolve::thread_sockets(&exp, &machine, std::slice::from_ref(&(0..streams.len())))
                .expect("mapping");
        g.bench_function(
            if llc {
                "bfs_in_memory_llc_on"
            } else {
                "bfs_in_memory_llc_off"
            },
            |b| {
                b.iter_batched(
                    || numasim::trace::VecSource::new(streams.clone()),
                    |mut src| {
                        let placement = numasim::experiment::resolve::placement(&exp, &machine).expect("placement");
                        let mut sim = FunctionalSim::new(
                            &cfg,
                            machine.sockets.len(),
                            machine.memory_nodes.len(),
                            sockets.clone(),
                        );
                        let mut sys = FunctionalSim::system(&cfg, machine.sockets.len(), placement).expect("LLC");
                        while sim.run_phase(&mut sys, &mut src).expect("run").is_some() {
                            sys.memory.pages.end_phase();
                        }
                    },
                    BatchSize::LargeInput,
                )
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
