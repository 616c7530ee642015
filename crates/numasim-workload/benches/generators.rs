//! Generation rate of the generators (accesses per second on one core).
//! For BFS the graph is built once outside the timed loop; each iteration runs a whole BFS trial.
//! The other kernels run with their default sizes, building their data structures included.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use numasim_trace::AccessSource;
use numasim_workload::graph::{bfs, GraphParams};
use numasim_workload::stream;

fn drain(src: &mut dyn AccessSource) -> u64 {
    let mut buf = Vec::new();
    let mut n = 0u64;
    let mut live = vec![true; src.threads()];
    while live.iter().any(|&l| l) {
        for (t, l) in live.iter_mut().enumerate() {
            if *l {
                src.next_batch(t, &mut buf).unwrap();
                *l = !buf.is_empty();
                n += buf.len() as u64;
            }
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let common = GraphParams {
        scale: 16,
        threads: 64,
        ..Default::default()
    };
    let g = common.build_graph(false, 1);
    let count = drain(&mut bfs::source(g.clone(), &common, Default::default(), 1).unwrap());
    let mut grp = c.benchmark_group("generate");
    grp.sample_size(10);
    grp.throughput(Throughput::Elements(count));
    grp.bench_function("bfs_kron16_64t", |b| {
        b.iter(|| drain(&mut bfs::source(g.clone(), &common, Default::default(), 1).unwrap()))
    });
    let p = stream::StreamParams {
        threads: 64,
        array_bytes: 8 << 20,
        iterations: 2,
        ..Default::default()
    };
    let count = drain(&mut stream::source(p.clone(), 1).unwrap());
    grp.throughput(Throughput::Elements(count));
    grp.bench_function("stream_triad_8MiB_64t", |b| {
        b.iter(|| drain(&mut stream::source(p.clone(), 1).unwrap()))
    });
    // Triangle counting on a scale-16 Kronecker graph, relabelling by degree included (GAP's
    // `Hybrid`), 64 threads under GAP's schedule.
    let tc_table: toml::Table = toml::from_str("scale = 16\nthreads = 64").unwrap();
    let make_tc = || numasim_workload::build("tc", tc_table.clone(), 1).unwrap();
    grp.throughput(Throughput::Elements(drain(&mut make_tc())));
    grp.bench_function("tc_kron16_64t", |b| b.iter(|| drain(&mut make_tc())));
    for kind in ["cg", "mg", "ft", "ocean", "tpcc"] {
        let make = || numasim_workload::build(kind, toml::Table::new(), 1).unwrap();
        grp.throughput(Throughput::Elements(drain(&mut make())));
        grp.bench_function(format!("{kind}_defaults"), |b| b.iter(|| drain(&mut make())));
    }
    grp.finish();
    // Building a graph (Kronecker edges, permutation, CSR) on 1 and 2 threads: the same graph
    // either way (tested), so this is the build's parallel speedup.
    let mut grp = c.benchmark_group("graph_build");
    grp.sample_size(10);
    for threads in [1, 2] {
        grp.bench_function(format!("kron20_deg16_{threads}threads"), |b| {
            b.iter(|| {
                numasim_workload::parallel::with_build_threads(threads, || {
                    numasim_workload::graph::Graph::generate(
                        numasim_workload::graph::GraphKind::Kronecker,
                        20,
                        16,
                        false,
                        1,
                    )
                })
            })
        });
    }
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
