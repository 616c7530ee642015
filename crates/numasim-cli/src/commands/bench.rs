//! `numasim bench move-pages`: what moving a page costs on this host, measured three ways.
//!
//! Migration policies charge a cost per page moved; this measures the real one instead of
//! assuming it: a `memcpy` of the pages on one core (the copy a user-space migrator does), the
//! `move_pages(2)` system call (the kernel's migration: unmap, copy, remap, TLB shootdown) and
//! a vectorised stream copy (16-byte non-temporal stores, the fastest single-core copy that
//! bypasses the caches), for 2^k pages from `--min-pages` to `--max-pages`. Each figure is the
//! best of `--repeats` runs (the least disturbed), as time per page and as a share of the
//! host's peak copy bandwidth: every core stream- and memcpy-copying its own buffer far larger
//! than the caches (32 MiB a core), the better of the two. A batch that fits in the caches can
//! exceed 100 % of that memory peak. Bandwidth counts page bytes moved per second (not read +
//! written), in GB/s (10⁹ B/s).
//!
//! `move_pages(2)` needs two NUMA nodes with memory; on a single-node host the command says so
//! and reports the call moving pages to the node they are already on (the system call and the
//! page-table walk, no copy) next to the two copies. A failing call (a kernel or container
//! without it) is reported, never fatal. Buffers larger than a quarter of the available memory
//! are skipped with a note.

use crate::table::Table;
use anyhow::bail;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::time::Instant;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Time page moves by memcpy (one core), by move_pages(2) and by a non-temporal stream
    /// copy, for 2^k pages from --min-pages to --max-pages.
    MovePages(MovePagesArgs),
    /// One memory controller alone, closed loop: bandwidth, read latency and model speed on a
    /// generated pattern or a Ramulator 2 load/store trace (`--emit-trace` writes one).
    Dram(super::bench_dram::DramArgs),
}

#[derive(Args)]
pub struct MovePagesArgs {
    /// Smallest batch (rounded up to a power of two).
    #[arg(long, default_value_t = 256)]
    min_pages: usize,
    /// Largest batch (rounded up to a power of two; at most 2^20).
    #[arg(long, default_value_t = 131_072)]
    max_pages: usize,
    /// Runs per measurement; the fastest counts.
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Print the measurements as JSON.
    #[arg(long)]
    json: bool,
}

/// Largest batch accepted (4 GiB of 4 KiB pages per buffer).
const MAX_PAGES_LIMIT: usize = 1 << 20;

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::MovePages(args) => move_pages_bench(args),
        BenchCommand::Dram(args) => super::bench_dram::dram_bench(args),
    }
}

/// One method at one batch size.
#[derive(Debug, Clone, Serialize)]
struct Measured {
    ns_per_page: f64,
    /// Page bytes moved per second, GB/s; absent when nothing is copied.
    bandwidth_gbps: Option<f64>,
    /// `bandwidth_gbps` over the all-core peak copy bandwidth (above 1 when the batch fits in
    /// the caches).
    share_of_peak: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
struct Row {
    pages: usize,
    memcpy: Measured,
    stream_copy: Measured,
    /// Between two nodes (multi-node hosts).
    move_pages: Option<Measured>,
    /// To the node the pages are on (single-node hosts): the call without a copy.
    move_pages_same_node: Option<Measured>,
}

#[derive(Debug, Clone, Serialize)]
struct Report {
    page_bytes: usize,
    /// Online NUMA nodes with memory.
    memory_nodes: Vec<u32>,
    peak_copy_bandwidth_gbps: f64,
    /// Threads of the all-core peak measurement.
    peak_threads: usize,
    repeats: usize,
    rows: Vec<Row>,
    notes: Vec<String>,
}

fn move_pages_bench(args: MovePagesArgs) -> anyhow::Result<()> {
    if args.min_pages == 0 || args.max_pages < args.min_pages {
        bail!("--min-pages must be at least 1 and at most --max-pages");
    }
    if args.max_pages > MAX_PAGES_LIMIT {
        bail!("--max-pages must be at most {MAX_PAGES_LIMIT}");
    }
    if !(1..=1000).contains(&args.repeats) {
        bail!("--repeats must be between 1 and 1000");
    }
    let page_bytes = page_size();
    let nodes = memory_nodes();
    let mut notes = Vec::new();
    let avail = mem_available_bytes();
    let mut sizes = Vec::new();
    let mut p = args.min_pages.next_power_of_two();
    while p <= args.max_pages.next_power_of_two() {
        // Two buffers of the batch must fit in a quarter of the available memory.
        if avail.is_some_and(|a| 2 * (p * page_bytes) as u64 > a / 4) {
            notes.push(format!(
                "{p} pages skipped: two {} MiB buffers exceed a quarter of the available memory",
                (p * page_bytes) >> 20
            ));
        } else {
            sizes.push(p);
        }
        p *= 2;
    }
    if nodes.len() < 2 {
        notes.push(format!(
            "single NUMA node with memory ({:?}): move_pages(2) cannot move pages between nodes; \
             reported instead: the call to the pages' own node (system call and page walk, no copy)",
            nodes
        ));
    }
    let mut rows = Vec::new();
    for &pages in &sizes {
        let bytes = pages * page_bytes;
        let words = bytes / 16;
        let src: Vec<u128> = (0..words as u128).collect();
        let mut dst: Vec<u128> = vec![u128::MAX; words];
        // Fault the destination in before timing: a migration's target pages are allocated
        // by the kernel, not part of the copy measured here.
        dst.iter_mut().step_by(page_bytes / 16).for_each(|w| *w = 0);
        let memcpy_ns = best_ns(args.repeats, || dst.copy_from_slice(&src));
        let stream_ns = best_ns(args.repeats, || stream_copy(&mut dst, &src));
        if dst != src {
            bail!("copy check failed at {pages} pages");
        }
        drop(dst);
        drop(src);
        let mut row = Row {
            pages,
            memcpy: copy_measure(memcpy_ns, pages, page_bytes),
            stream_copy: copy_measure(stream_ns, pages, page_bytes),
            move_pages: None,
            move_pages_same_node: None,
        };
        match syscall_measure(pages, page_bytes, &nodes, args.repeats) {
            Ok((ns, moved)) => {
                let m = if moved {
                    copy_measure(ns, pages, page_bytes)
                } else {
                    Measured {
                        ns_per_page: ns / pages as f64,
                        bandwidth_gbps: None,
                        share_of_peak: None,
                    }
                };
                if moved {
                    row.move_pages = Some(m);
                } else {
                    row.move_pages_same_node = Some(m);
                }
            }
            Err(e) => {
                if !notes.iter().any(|n| n.starts_with("move_pages(2) failed")) {
                    notes.push(format!("move_pages(2) failed: {e}"));
                }
            }
        }
        rows.push(row);
    }
    let peak_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Buffers far beyond the caches: 32 MiB per thread (at least the largest batch in all),
    // within a quarter of the available memory (two buffers) and 2 GiB.
    let largest = sizes.last().map_or(0, |&p| p * page_bytes) as u64;
    let mut total = (peak_threads as u64 * (32 << 20)).max(largest).min(2 << 30);
    if let Some(a) = avail {
        total = total.min(a / 8);
    }
    let peak = all_core_peak_gbps(peak_threads, (total / peak_threads as u64) as usize, args.repeats);
    for r in &mut rows {
        for m in [Some(&mut r.memcpy), Some(&mut r.stream_copy), r.move_pages.as_mut()]
            .into_iter()
            .flatten()
        {
            m.share_of_peak = m.bandwidth_gbps.map(|b| b / peak);
        }
    }
    let report = Report {
        page_bytes,
        memory_nodes: nodes,
        peak_copy_bandwidth_gbps: peak,
        peak_threads,
        repeats: args.repeats,
        rows,
        notes,
    };
    if args.json {
        return super::print_json(&report);
    }
    print_report(&report);
    Ok(())
}

fn print_report(r: &Report) {
    println!(
        "page {} B; memory nodes {:?}; peak copy bandwidth {:.2} GB/s ({} threads, best of {})",
        r.page_bytes, r.memory_nodes, r.peak_copy_bandwidth_gbps, r.peak_threads, r.repeats
    );
    let cell = |m: Option<&Measured>| match m {
        None => "-".to_string(),
        Some(m) => match m.share_of_peak {
            Some(s) => format!("{:.1} ({:.0} %)", m.ns_per_page, 100.0 * s),
            None => format!("{:.1}", m.ns_per_page),
        },
    };
    let mut t = Table::new([
        "pages",
        "memcpy ns/page (% peak)",
        "stream ns/page (% peak)",
        "move_pages ns/page (% peak)",
        "move_pages same node ns/page",
    ]);
    for row in &r.rows {
        t.row([
            row.pages.to_string(),
            cell(Some(&row.memcpy)),
            cell(Some(&row.stream_copy)),
            cell(row.move_pages.as_ref()),
            cell(row.move_pages_same_node.as_ref()),
        ]);
    }
    print!("{}", t.render());
    for n in &r.notes {
        println!("note: {n}");
    }
}

fn copy_measure(ns: f64, pages: usize, page_bytes: usize) -> Measured {
    Measured {
        ns_per_page: ns / pages as f64,
        bandwidth_gbps: Some((pages * page_bytes) as f64 / ns),
        share_of_peak: None,
    }
}

/// The fastest of `repeats` runs of `f`, in nanoseconds (at least 1).
fn best_ns(repeats: usize, mut f: impl FnMut()) -> f64 {
    (0..repeats)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos().max(1) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Copies `src` to `dst` with 16-byte non-temporal stores (x86-64; elsewhere a plain copy).
fn stream_copy(dst: &mut [u128], src: &[u128]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_sfence, _mm_stream_si128};
        for (d, s) in dst.iter_mut().zip(src) {
            // SAFETY: SSE2 is part of the x86-64 baseline; `u128` slices are 16-byte aligned,
            // as both intrinsics require, and `d`, `s` are valid for 16 bytes.
            unsafe {
                let v = _mm_load_si128(s as *const u128 as *const __m128i);
                _mm_stream_si128(d as *mut u128 as *mut __m128i, v);
            }
        }
        // SAFETY: a store fence has no preconditions; it orders the non-temporal stores.
        unsafe { _mm_sfence() };
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Every core copying its own buffer of `bytes` (memcpy and stream copy, the better), in
/// GB/s of page bytes moved by all threads together.
fn all_core_peak_gbps(threads: usize, bytes: usize, repeats: usize) -> f64 {
    let words = (bytes / 16).max(1);
    let mut bufs: Vec<(Vec<u128>, Vec<u128>)> = (0..threads)
        .map(|_| ((0..words as u128).collect(), vec![1u128; words]))
        .collect();
    let mut best: f64 = 0.0;
    for stream in [false, true] {
        let ns = best_ns(repeats, || {
            std::thread::scope(|s| {
                for (src, dst) in bufs.iter_mut() {
                    s.spawn(move || {
                        if stream {
                            stream_copy(dst, src)
                        } else {
                            dst.copy_from_slice(src)
                        }
                    });
                }
            })
        });
        best = best.max((threads * words * 16) as f64 / ns);
    }
    best
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Online nodes with memory, from sysfs (`[0]` when unreadable: a host without NUMA).
fn memory_nodes() -> Vec<u32> {
    let text = std::fs::read_to_string("/sys/devices/system/node/has_memory")
        .or_else(|_| std::fs::read_to_string("/sys/devices/system/node/online"))
        .unwrap_or_default();
    let nodes = parse_node_list(text.trim());
    if nodes.is_empty() {
        vec![0]
    } else {
        nodes
    }
}

/// Parses a kernel CPU/node list such as `0-2,4`.
fn parse_node_list(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|s| !s.is_empty()) {
        let mut ends = part.splitn(2, '-').map(|x| x.trim().parse::<u32>());
        match (ends.next(), ends.next()) {
            (Some(Ok(a)), None) => out.push(a),
            (Some(Ok(a)), Some(Ok(b))) if b >= a && b - a < 4096 => out.extend(a..=b),
            _ => return Vec::new(),
        }
    }
    out
}

fn mem_available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Anonymous page-aligned memory, unmapped on drop.
struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
}

impl Mapping {
    fn new(len: usize) -> anyhow::Result<Self> {
        // SAFETY: an anonymous private mapping with no address hint; the result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            bail!("mmap of {len} bytes: {}", std::io::Error::last_os_error());
        }
        Ok(Mapping { ptr, len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`, `len` are exactly what mmap returned and took.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// `move_pages(2)` on `pages` freshly touched pages: between the first two memory nodes
/// (there and back, the faster direction of the best run; returns `moved = true`), or on a
/// single-node host to the pages' own node (`moved = false`). Returns (ns for all pages, moved).
fn syscall_measure(pages: usize, page_bytes: usize, nodes: &[u32], repeats: usize) -> anyhow::Result<(f64, bool)> {
    const MPOL_MF_MOVE: libc::c_int = 1 << 1;
    let map = Mapping::new(pages * page_bytes)?;
    let base = map.ptr as *mut u8;
    for p in 0..pages {
        // SAFETY: inside the mapping (p < pages); touching faults the page in.
        unsafe { base.add(p * page_bytes).write_volatile(p as u8) };
    }
    let addrs: Vec<*mut libc::c_void> = (0..pages)
        // SAFETY: inside the mapping.
        .map(|p| unsafe { base.add(p * page_bytes) } as *mut libc::c_void)
        .collect();
    let mut status = vec![0 as libc::c_int; pages];
    let mut call = |node: u32| -> anyhow::Result<f64> {
        let targets = vec![node as libc::c_int; pages];
        let t = Instant::now();
        // SAFETY: the arrays hold `pages` entries each and the addresses lie in our mapping.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0 as libc::c_long,
                pages as libc::c_ulong,
                addrs.as_ptr(),
                targets.as_ptr(),
                status.as_mut_ptr(),
                MPOL_MF_MOVE,
            )
        };
        let ns = t.elapsed().as_nanos().max(1) as f64;
        if rc < 0 {
            bail!("{}", std::io::Error::last_os_error());
        }
        if let Some(&bad) = status.iter().find(|&&s| s < 0) {
            bail!("page status {}", std::io::Error::from_raw_os_error(-bad));
        }
        Ok(ns)
    };
    let mut best = f64::INFINITY;
    let moved = nodes.len() >= 2;
    for _ in 0..repeats {
        if moved {
            best = best.min(call(nodes[1])?).min(call(nodes[0])?);
        } else {
            best = best.min(call(nodes[0])?);
        }
    }
    Ok((best, moved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_parse_like_the_kernel_writes_them() {
        assert_eq!(parse_node_list("0"), vec![0]);
        assert_eq!(parse_node_list("0-2,4"), vec![0, 1, 2, 4]);
        assert_eq!(parse_node_list("junk"), Vec::<u32>::new());
        assert_eq!(parse_node_list("3-1"), Vec::<u32>::new());
    }

    #[test]
    fn stream_copy_copies() {
        let src: Vec<u128> = (0..1000).collect();
        let mut dst = vec![0u128; 1000];
        stream_copy(&mut dst, &src);
        assert_eq!(dst, src);
    }
}
