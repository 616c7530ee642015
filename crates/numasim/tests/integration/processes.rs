//! Several programs in one experiment (`[[process]]`): separate address spaces,
//! per-process results that sum to the totals, capacity shared, per-process placement and
//! mapping, and located configuration errors.

use numasim::config::Source;
use numasim::experiment::Experiment;

fn experiment(text: &str) -> Experiment {
    Experiment::from_source(Source::from_text("p.toml", text), "p").unwrap_or_else(|e| panic!("{e}"))
}

fn run(text: &str) -> numasim::driver::RunResults {
    numasim::experiment::simulate(&experiment(text), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

/// The error a config gives, at load or at resolve (where the machine is known).
fn error_of(text: &str) -> numasim::config::ConfigError {
    match Experiment::from_source(Source::from_text("p.toml", text), "p") {
        Err(e) => e,
        Ok(exp) => match exp.resolve() {
            Err(e) => e,
            Ok(_) => panic!("accepted:\n{text}"),
        },
    }
}

/// Two copies of one STREAM (same addresses in each program) and a third program.
const THREE: &str = r#"machine = "two-socket"
phase_instructions = 100000
[[process]]
workload = { kind = "stream", threads = 2, array_bytes = 65536 }
[[process]]
workload = { kind = "stream", threads = 2, array_bytes = 65536 }
[[process]]
name = "sorter"
workload = { kind = "is", threads = 1 }
"#;

#[test]
fn processes_never_share_pages_and_their_results_sum_to_the_totals() {
    let r = run(THREE);
    let names: Vec<&str> = r.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["stream.0", "stream.1", "sorter"],
        "default names count instances per generator"
    );
    assert_eq!(r.threads, 5);
    let (a, b) = (&r.processes[0], &r.processes[1]);
    // The same program twice: identical accesses, and pages of its own each (no sharing).
    assert_eq!(a.accesses, b.accesses);
    assert_eq!(a.footprint_pages, b.footprint_pages);
    assert_eq!(
        r.sharing.pages_by_sharers.iter().skip(2).sum::<u64>(),
        0,
        "no page has two sockets' sharers from two programs"
    );
    let sum = |f: fn(&numasim::driver::ProcessResults) -> u64| r.processes.iter().map(f).sum::<u64>();
    assert_eq!(sum(|p| p.accesses), r.totals.summary.counts.accesses);
    assert_eq!(sum(|p| p.llc_misses), r.totals.summary.counts.llc_misses);
    assert_eq!(sum(|p| p.footprint_pages), r.totals.footprint_pages);
    for (node, &n) in &r.pages_per_node {
        let per: u64 = r.processes.iter().map(|p| p.pages_per_node[node]).sum();
        assert_eq!(per, n, "pages on {node}");
    }
    assert!(r.processes[2].accesses > 0 && r.processes[2].threads == 1);
    assert_eq!((a.first_thread, b.first_thread, r.processes[2].first_thread), (0, 2, 4));
    // Per phase, per process: the phases add up to each process's run totals.
    for (i, p) in r.processes.iter().enumerate() {
        let flops: u64 = r.phases.iter().map(|ph| ph.processes[i].flops).sum();
        let misses: u64 = r.phases.iter().map(|ph| ph.processes[i].llc_misses).sum();
        assert_eq!((flops, misses), (p.flops, p.llc_misses), "{}", p.name);
    }
    // STREAM carries its flops; functional mode has no time.
    assert!(a.flops > 0 && a.finish_time_ns.is_none());
}

#[test]
fn one_process_equals_the_same_workload_run_alone() {
    let alone = run("machine = \"two-socket\"\n[workload]\nkind = \"cg\"\nthreads = 2\nrows = 800\niterations = 2\n");
    let one = run("machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"cg\", threads = 2, rows = 800, iterations = 2 }\n");
    assert_eq!(one.processes.len(), 1);
    assert_eq!(one.totals.summary.counts.accesses, alone.totals.summary.counts.accesses);
    assert_eq!(
        one.totals.summary.counts.llc_misses,
        alone.totals.summary.counts.llc_misses
    );
    assert_eq!(one.pages_per_node, alone.pages_per_node);
    assert!(
        alone.processes.is_empty(),
        "a one-workload run reports no per-process block"
    );
}

#[test]
fn capacity_is_shared_by_all_processes() {
    // Every program prefers MCDRAM; 40 pages of it in all. Two STREAMs of 3 × 64 KiB arrays
    // (48 pages each) cannot both fit: together they fill exactly the 40 pages, the rest spills.
    let text = r#"machine = "knl-flat"
[placement]
policy = "preferred"
node = "mcdram"
capacity_bytes = { mcdram = 163840 }
[[process]]
workload = { kind = "stream", threads = 1, array_bytes = 65536 }
[[process]]
workload = { kind = "stream", threads = 1, array_bytes = 65536 }
"#;
    let r = run(text);
    let in_fast: u64 = r.processes.iter().map(|p| p.pages_per_node["mcdram"]).sum();
    assert_eq!(in_fast, 40);
    assert_eq!(r.pages_per_node["mcdram"], 40);
    assert!(r.processes.iter().all(|p| p.footprint_pages == 48), "{:?}", r.processes);
}

#[test]
fn each_process_may_have_its_own_placement_and_mapping() {
    let text = r#"machine = "two-socket"
[[process]]
workload = { kind = "stream", threads = 2, array_bytes = 65536 }
mapping = { policy = "explicit", sockets = ["s1", "s1"] }
[[process]]
workload = { kind = "stream", threads = 2, array_bytes = 65536 }
placement = { policy = "bind", nodes = ["m0"] }
mapping = { policy = "explicit", sockets = ["s1", "s1"] }
"#;
    let r = run(text);
    assert_eq!(r.thread_sockets, ["s1", "s1", "s1", "s1"]);
    // First-touch from socket s1 puts the first program on m1; the second is bound to m0.
    assert_eq!(r.processes[0].pages_per_node["m0"], 0);
    assert_eq!(r.processes[0].pages_per_node["m1"], 48);
    assert_eq!(r.processes[1].pages_per_node["m0"], 48);
}

#[test]
fn random_mapping_follows_the_seed() {
    let text = |seed: u64| {
        format!(
            "machine = \"starnuma16-baseline-scaled\"\nseed = {seed}\n[mapping]\npolicy = \"random\"\n[[process]]\nworkload = {{ kind = \"ep\", threads = 8 }}\n[[process]]\nworkload = {{ kind = \"ep\", threads = 8 }}\n"
        )
    };
    let sockets = |seed| {
        let exp = experiment(&text(seed));
        exp.resolve().unwrap().settings.thread_sockets
    };
    assert_eq!(sockets(1), sockets(1));
    assert!(
        (2..10).any(|s| sockets(s) != sockets(1)),
        "other seeds draw other cores"
    );
}

#[test]
fn a_late_start_delays_the_process_in_time() {
    let text = |start: u64| {
        format!(
            "machine = \"knl-flat\"\nmode = \"timing\"\n[llc]\nenabled = false\n[[process]]\nworkload = {{ kind = \"stream\", threads = 1, array_bytes = 2097152, iterations = 1 }}\n[[process]]\nworkload = {{ kind = \"stream\", threads = 1, array_bytes = 2097152, iterations = 1 }}\nstart_instructions = {start}\n"
        )
    };
    let now = run(&text(0));
    let late = run(&text(2_000_000));
    let f = |r: &numasim::driver::RunResults, p: usize| r.processes[p].finish_time_ns.unwrap();
    assert!(
        f(&late, 1) > f(&now, 1) + 100_000.0,
        "{} vs {}",
        f(&late, 1),
        f(&now, 1)
    );
    assert_eq!(late.processes[1].accesses, now.processes[1].accesses);
    assert!(now.processes[0].amat_ns.unwrap() > 0.0);
}

#[test]
fn workload_and_process_are_exclusive_and_one_is_needed() {
    let e =
        error_of("machine = \"two-socket\"\n[workload]\nkind = \"ep\"\n[[process]]\nworkload = { kind = \"ep\" }\n");
    assert_eq!(e.key, "process");
    assert_eq!(e.line, Some(4), "{e}");
    let e = error_of("machine = \"two-socket\"\n");
    assert_eq!(e.key, "workload");
    assert!(e.message.contains("[[process]]"), "{e}");
}

#[test]
fn process_errors_name_file_line_and_key() {
    // An unknown key in a process.
    let e = error_of("machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"ep\" }\n[[process]]\nworkload = { kind = \"ep\" }\nstart = 5\n");
    assert!(e.key.starts_with("process[1]"), "{e}");
    assert_eq!(e.line, Some(6), "{e}");
    assert!(e.message.contains("start"), "{e}");
    // A generator parameter of the second process.
    let e = error_of("machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"ep\" }\n[[process]]\nworkload = { kind = \"ep\", threads = 0 }\n");
    assert_eq!(e.key, "process[1].workload.threads");
    assert_eq!(e.line, Some(5), "{e}");
    // An unknown memory node in a process's placement.
    let e = error_of("machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"ep\" }\nplacement = { policy = \"bind\", nodes = [\"m9\"] }\n");
    assert_eq!(e.key, "process[0].placement.nodes");
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.message.contains("m9") && e.message.contains("m0"), "{e}");
    // Page size is the machine's, not a process's.
    let e = error_of(
        "machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"ep\" }\nplacement = { page_bytes = 8192 }\n",
    );
    assert!(e.key.starts_with("process[0].placement"), "{e}");
    // Two processes of one name.
    let e = error_of("machine = \"two-socket\"\n[[process]]\nname = \"a\"\nworkload = { kind = \"ep\" }\n[[process]]\nname = \"a\"\nworkload = { kind = \"ep\" }\n");
    assert_eq!(e.key, "process[1].name");
    assert_eq!(e.line, Some(6), "{e}");
    // An explicit mapping must list the process's own threads.
    let e = error_of("machine = \"two-socket\"\n[[process]]\nworkload = { kind = \"ep\", threads = 2 }\nmapping = { policy = \"explicit\", sockets = [\"s0\"] }\n");
    assert_eq!(e.key, "process[0].mapping.sockets");
    assert!(e.message.contains("2 threads"), "{e}");
}

#[test]
fn resolved_experiment_reruns_identically() {
    let exp = experiment(THREE);
    let resolved = exp.resolved_toml();
    assert!(resolved.contains("[[process]]"), "{resolved}");
    let again = Experiment::from_source(Source::from_text("r.toml", resolved.clone()), "p")
        .unwrap_or_else(|e| panic!("{e}\n{resolved}"));
    let a = numasim::experiment::simulate(&exp, &mut |_| {}).unwrap().1;
    let b = numasim::experiment::simulate(&again, &mut |_| {}).unwrap().1;
    assert_eq!(a.totals.summary.counts.accesses, b.totals.summary.counts.accesses);
    assert_eq!(a.pages_per_node, b.pages_per_node);
    assert_eq!(
        a.processes.iter().map(|p| (&p.name, p.accesses)).collect::<Vec<_>>(),
        b.processes.iter().map(|p| (&p.name, p.accesses)).collect::<Vec<_>>()
    );
}
