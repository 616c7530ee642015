//! Decode throughput of the native trace reader: 16 threads × ~6 M accesses (96 M in all),
//! read thread by thread on one core, reported by criterion in accesses/s (elements/s).
//!
//! Addresses come from a 64-bit LCG: per thread, 3 of 4 accesses walk an array with an
//! 8-byte stride and 1 of 4 jumps to a random 8-byte-aligned slot of a 1 GiB region; 1 in 8
//! is a write, 1 in 16 carries flops. Instruction deltas are 1..=4.
//!
//! For side-by-side runs of two builds on one file: `NUMASIM_DECODE_TRACE=PATH` reads the
//! trace at PATH (writing it there first if absent) instead of a fresh temporary one, and
//! `NUMASIM_DECODE_PASSES=N` repeats the on-CPU measurement N times (criterion's part can be
//! skipped with a filter that matches nothing, e.g. `--bench none`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use numasim_trace::{Access, AccessKind, AccessSource, NativeReader, NativeWriter};

const THREADS: usize = 16;
const ACCESSES_PER_THREAD: u64 = 6_000_000;

fn write_trace(path: &std::path::Path) {
    let mut w = NativeWriter::create(path, THREADS, &serde_json::json!({"generator": "bench-lcg"})).unwrap();
    for t in 0..THREADS {
        let mut lcg = 0x9E37_79B9_7F4A_7C15u64 ^ t as u64;
        let base = 0x7f00_0000_0000u64 + ((t as u64) << 32);
        let (mut instr, mut seq) = (0u64, base);
        for _ in 0..ACCESSES_PER_THREAD {
            lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = lcg >> 33;
            instr += 1 + (r & 3);
            let vaddr = if (r >> 2) & 3 == 0 {
                base + (((r >> 4) << 3) & ((1 << 30) - 1))
            } else {
                seq += 8;
                seq
            };
            let kind = if (r >> 6) & 7 == 0 {
                AccessKind::Write
            } else {
                AccessKind::Read
            };
            let flops = if (r >> 9) & 15 == 0 { (r >> 13) as u32 & 63 } else { 0 };
            w.write(
                t,
                &Access {
                    instr,
                    vaddr,
                    flops,
                    size_bytes: 8,
                    kind,
                },
            )
            .unwrap();
        }
    }
    w.finish().unwrap();
}

fn decode_all(path: &std::path::Path) -> u64 {
    let mut r = NativeReader::open(path).unwrap();
    let mut buf = Vec::with_capacity(8192);
    let mut n = 0u64;
    let mut checksum = 0u64;
    for t in 0..THREADS {
        loop {
            r.next_batch(t, &mut buf).unwrap();
            if buf.is_empty() {
                break;
            }
            n += buf.len() as u64;
            checksum = checksum.wrapping_add(buf[buf.len() - 1].vaddr);
        }
    }
    std::hint::black_box(checksum);
    n
}

/// This process's time on a CPU (Linux `/proc/self/schedstat`), if available.
fn on_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = match std::env::var_os("NUMASIM_DECODE_TRACE") {
        Some(p) => std::path::PathBuf::from(p),
        None => dir.path().join("bench.nst"),
    };
    if !path.exists() {
        write_trace(&path);
    }
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    let total = THREADS as u64 * ACCESSES_PER_THREAD;
    assert_eq!(decode_all(&path), total);
    eprintln!(
        "trace: {total} accesses, {file_bytes} bytes ({:.2} bytes/access)",
        file_bytes as f64 / total as f64
    );
    // On a shared machine wall time includes waiting for a CPU; report on-CPU time as well.
    let passes: usize = std::env::var("NUMASIM_DECODE_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for _ in 0..passes {
        if let Some(t0) = on_cpu_seconds() {
            decode_all(&path);
            if let Some(t1) = on_cpu_seconds() {
                eprintln!(
                    "decode on-CPU throughput: {:.1} M accesses/s ({:.3} s on CPU)",
                    total as f64 / (t1 - t0) / 1e6,
                    t1 - t0
                );
            }
        }
    }
    let mut g = c.benchmark_group("native_decode");
    g.throughput(Throughput::Elements(total));
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(10));
    g.warm_up_time(std::time::Duration::from_secs(1));
    g.bench_function("16x6M_lcg", |b| b.iter(|| decode_all(&path)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
