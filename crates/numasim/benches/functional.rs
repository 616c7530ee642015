//! Functional-simulator throughput (issue 4's speed target), beside the cost of merely
//! decoding the same accesses from a native trace.
//!
//! 16 threads on starnuma16-pool, first-touch, 16 M accesses per iteration (the documented
//! `numasim run configs/experiments/speed*.toml` commands run 100 M). Variants: generator-fed
//! with the LLC filter off and on, trace-fed with the filter off, and decode only.
//! `cargo bench -p numasim --bench functional`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use numasim::config::Source;
use numasim::experiment::{simulate, Experiment};
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
