//! `--threads N` (decode ahead on its own thread) gives byte-identical results for
//! every N, for generated workloads, native traces and StarNUMA traces, in both engines.

use numasim::experiment::{simulate, Experiment};
use numasim_config::Source;

fn results_json(toml: &str, dir: &std::path::Path, workers: usize) -> String {
    let mut exp = Experiment::from_source(
        Source::from_text(dir.join("exp.toml").display().to_string(), toml.to_string()),
        "exp",
    )
    .unwrap();
    exp.worker_threads = workers;
    let (_, mut r) = simulate(&exp, &mut |_| {}).unwrap();
    r.perf.wall_s = 0.0;
    r.perf.accesses_per_s = 0.0;
    r.perf.setup_s = 0.0;
    r.perf.peak_rss_mib = None;
    serde_json::to_string_pretty(&r).unwrap()
}

fn assert_same_for_1_2_4(toml: &str, dir: &std::path::Path) -> String {
    let one = results_json(toml, dir, 1);
    for n in [2, 4] {
        assert!(
            one == results_json(toml, dir, n),
            "results differ with {n} worker threads"
        );
    }
    one
}

const BFS: &str = "kind = \"bfs\"\ngraph = \"kronecker\"\nscale = 12\ndegree = 8\nthreads = 16\ntrials = 1";

#[test]
fn generator_with_llc_and_starnuma_migration() {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "machine = \"starnuma16-pool\"\nphase_instructions = 200000\n[workload]\n{BFS}\n\
         [llc]\nenabled = true\n[migration]\npolicy = \"starnuma\"\n"
    );
    let r = assert_same_for_1_2_4(&toml, dir.path());
    assert!(r.contains("\"accesses\""));
}

#[test]
fn native_and_starnuma_traces_functional_and_timing() {
    let dir = tempfile::tempdir().unwrap();
    // Record the BFS workload as a native trace and as StarNUMA per-thread files.
    let gen = format!("machine = \"starnuma16-pool\"\n[workload]\n{BFS}\n");
    let mut exp = Experiment::from_source(Source::from_text("gen.toml", gen), "gen").unwrap();
    exp.worker_threads = 1;
    let mut src = numasim::experiment::resolve::source(&exp).unwrap();
    let native = dir.path().join("bfs.trace");
    numasim::trace::convert::convert(&mut *src, &native, &serde_json::json!({})).unwrap();
    let streams = numasim::trace::collect_all(&mut numasim::trace::NativeReader::open(&native).unwrap()).unwrap();
    let mut files = Vec::new();
    for (t, s) in streams.iter().enumerate() {
        let p = dir.path().join(format!("memtrace_t{t}.out"));
        let mut w = numasim::trace::StarnumaWriter::create(&p).unwrap();
        s.iter().try_for_each(|a| w.write(a)).unwrap();
        w.finish().unwrap();
        files.push(format!("\"{}\"", p.display()));
    }
    files.reverse(); // argument order must not matter either
    let workloads = [
        format!("trace = \"{}\"", native.display()),
        format!("trace = [{}]\nformat = \"starnuma\"", files.join(", ")),
    ];
    for w in &workloads {
        let functional = format!(
            "machine = \"starnuma16-pool\"\nphase_instructions = 300000\n[workload]\n{w}\n\
             [llc]\nenabled = true\n[migration]\npolicy = \"starnuma\"\n"
        );
        assert_same_for_1_2_4(&functional, dir.path());
        let timing = format!(
            "machine = \"starnuma16-pool-scaled\"\nmode = \"timing\"\nphase_instructions = 300000\nmax_phases = 2\n\
             [workload]\n{w}\n"
        );
        assert_same_for_1_2_4(&timing, dir.path());
    }
}

/// With 2 or more worker threads the profiler's observer also runs on a thread of its own
/// (`FunctionalSim::run_to`); every profiler must see exactly the serial sequence of accesses,
/// including those whose state feeds back through in-flight pages (moves at boundaries) and
/// those reading the access's flops (HyDM).
#[test]
fn every_profiler_on_its_own_thread_gives_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    // HyDM needs a fast tier; on this machine the pool stands in for it.
    for (policy, profiler, extra) in [
        ("hydm", "hydm-sampling", "fast_node = \"pool\"\n"),
        ("autonuma", "hinting-faults", ""),
        ("tikir", "tlb-content", ""),
        ("starnuma", "cache-miss", ""),
    ] {
        let toml = format!(
            "machine = \"starnuma16-pool\"\nphase_instructions = 200000\n[workload]\n{BFS}\n\
             [llc]\nenabled = true\n[migration]\npolicy = \"{policy}\"\nprofiler = \"{profiler}\"\n{extra}"
        );
        let r = assert_same_for_1_2_4(&toml, dir.path());
        assert!(r.contains(profiler), "{policy}/{profiler}: {r}");
    }
}

/// A graph large enough that its build is split over the worker threads (2^16 vertices: two
/// parts from 2 workers on), weighted so the CSR's weights are split too: the run is the same.
#[test]
fn graph_built_on_several_threads_gives_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let toml = "machine = \"starnuma16-pool\"\nphase_instructions = 200000\nmax_phases = 3\n[workload]\n\
                kind = \"sssp\"\ngraph = \"kronecker\"\nscale = 16\ndegree = 4\nthreads = 16\n";
    let r = assert_same_for_1_2_4(toml, dir.path());
    assert!(r.contains("\"accesses\""));
}

/// LLC filter off, where per-page counts run on the observer thread from 2 workers on: first
/// touch alone and with StarNUMA migration (T16 trackers), over a footprint of many pages.
#[test]
fn llc_off_page_counts_on_their_own_thread_give_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    for migration in ["", "[migration]\npolicy = \"starnuma\"\n"] {
        let toml = format!(
            "machine = \"starnuma16-pool\"\nphase_instructions = 100000\n[workload]\nkind = \"synthetic\"\n\
             threads = 16\npattern = \"zipf\"\nfootprint_bytes = 67108864\naccesses_per_thread = 20000\n\
             lines_per_visit = 1\n[llc]\nenabled = false\n{migration}"
        );
        let r = assert_same_for_1_2_4(&toml, dir.path());
        assert!(r.contains("\"accesses\": 320000"), "{migration}");
    }
}
