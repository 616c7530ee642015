//! sharing shape of GAP BFS and first-touch locality of STREAM,
//! through `analyze::sharing` on experiments run in-process.

use numasim::analyze::{SharingAnalysis, SharingOptions};
use numasim::experiment::analyze_sharing;

fn analyze(workload: &str, k: usize) -> SharingAnalysis {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exp.toml");
    std::fs::write(
        &path,
        format!("machine = \"starnuma16-pool\"\nseed = 3\n[workload]\n{workload}\n"),
    )
    .unwrap();
    let opts = SharingOptions {
        threads_per_socket: Some(k),
        ..Default::default()
    };
    analyze_sharing(&path, &opts).unwrap()
}

fn frac(v: &[u64], lo: usize, hi: usize) -> f64 {
    let total: u64 = v.iter().sum();
    v[lo..=hi.min(v.len() - 1)].iter().sum::<u64>() as f64 / total as f64
}

#[test]
fn bfs_kronecker_64_threads_few_sharers_but_hot_widely_shared_pages() {
    let a = analyze(
        "kind = \"bfs\"\ngraph = \"kronecker\"\nscale = 14\ndegree = 16\nthreads = 64\ntrials = 2",
        4,
    );
    assert_eq!(a.sockets, 16);
    assert_eq!(a.pages_by_sharers.len(), 17);
    assert_eq!(a.pages_by_sharers[0], 0);
    let pages_le4 = frac(&a.pages_by_sharers, 1, 4);
    let pages_gt8 = frac(&a.pages_by_sharers, 9, 16);
    let acc_gt8 = frac(&a.accesses_by_sharers, 9, 16);
    eprintln!("pages <=4 {pages_le4:.3} · pages >8 {pages_gt8:.3} · accesses >8 {acc_gt8:.3}");
    assert!(pages_le4 > 0.5, "most pages have at most 4 sharers: {pages_le4}");
    assert!(pages_gt8 < 0.15, "widely shared pages are few: {pages_gt8}");
    assert!(
        acc_gt8 > 0.15 && acc_gt8 > 3.0 * pages_gt8,
        "yet take a large share of accesses: {acc_gt8}"
    );
    assert_eq!(a.accesses, a.reads + a.writes);
}

#[test]
fn stream_first_touch_locality_depends_on_initialisation() {
    let w = "kind = \"stream\"\nthreads = 64\narray_bytes = 4194304\niterations = 1";
    let par = analyze(&format!("{w}\ninit = \"parallel\""), 4);
    let ser = analyze(&format!("{w}\ninit = \"serial\""), 4);
    assert!(
        par.first_touch_local_fraction > 0.97,
        "{}",
        par.first_touch_local_fraction
    );
    // Serial init: every page on socket 0; the kernel's other 15/16 are remote.
    let expected = (3.0 + 3.0 / 16.0) / 6.0; // init (all local) + triad (1/16 local), 3 accesses each
    assert!(
        (ser.first_touch_local_fraction - expected).abs() < 0.02,
        "{} vs {expected}",
        ser.first_touch_local_fraction
    );
    // Kernel-only locality is about 1/sockets.
    let kernel_local = (ser.first_touch_local_fraction * 6.0 - 3.0) / 3.0;
    assert!((kernel_local - 1.0 / 16.0).abs() < 0.02, "{kernel_local}");
}
