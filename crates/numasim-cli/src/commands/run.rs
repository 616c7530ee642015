use clap::Args;
use numasim::experiment::{self, Experiment, Progress};
use std::path::PathBuf;

/// The access classes, defined once for `run --help` (docs/guide/experiments.md says the same).
pub const ACCESS_CLASSES_HELP: &str = "\
Access classes (two views that use the same names for different counts):
  LLC misses by home of the page (functional and timing): every LLC miss, read or write, counted
    by where the page's home memory is relative to the requesting socket.
  AMAT of LLC-miss loads by data source (timing only): loads only, counted by who supplied the
    data; a block transfer is counted as such even though the page has a home.
Class names:
  local           memory attached to the requesting socket
  remote_<h>hop   memory attached to another socket, h = links crossed on the derived route
                  (StarNUMA: 1 inside a chassis, 3 across chassis through two FLEX switches)
  pool            a memory-only node, such as the CXL memory pool
  block_transfer  (data-source view only) the line was dirty in another socket's cache, which
                  supplied it: via the home's directory (3-hop), or via the pool (4-hop)";

#[derive(Args)]
#[command(after_long_help = ACCESS_CLASSES_HELP)]
pub struct RunArgs {
    /// Experiment TOML.
    experiment: PathBuf,
    /// Results directory (default: results/<experiment name>).
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Print the whole run's results (as results.json holds them, plus `results_dir`) as JSON
    /// instead of the summary lines.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores). With 2 or more the workload is decoded or
    /// generated ahead on its own thread, and in functional mode per-page access counts and the
    /// migration profiler run on another; results are byte-identical for every N.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// No progress output on stderr (by default: a bar on a terminal, otherwise a line every
    /// 10 s).
    #[arg(short, long)]
    quiet: bool,
    /// Replace the results directory if it exists (only ever one numasim wrote; the old
    /// results stay until the new ones are complete).
    #[arg(long)]
    force: bool,
    /// Override one key of the experiment, e.g. `--set workload.scale=22 --set
    /// migration.policy=starnuma` (repeatable; later wins). VALUE is TOML (`22`, `1.5`, `true`,
    /// `"text"`, `[1, 2]`); a bare word is a string. Checked exactly like the file.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let overrides = args
        .set
        .iter()
        .map(|s| numasim_config::Override::parse_set(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut exp = Experiment::load_with_overrides(&args.experiment, &overrides)?;
    if let Some(n) = args.threads {
        anyhow::ensure!(n >= 1, "--threads must be at least 1");
        exp.worker_threads = n;
    }
    let out = args.out.unwrap_or_else(|| experiment::default_out_dir(&exp));
    anyhow::ensure!(
        args.force || std::fs::symlink_metadata(&out).is_err(),
        "{} already exists: pass --force to replace it (numasim only ever replaces results it wrote), or -o another directory",
        out.display()
    );
    let mut progress = crate::progress::RunProgress::new(args.quiet);
    let outcome = experiment::run(&exp, &out, &mut |p: &Progress| progress.update(p));
    progress.finish();
    let (dir, r) = outcome?;
    let warnings = numasim::experiment::warnings::warnings(&exp, &r);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        // Everything results.json holds (timing, migration, sharing, per-phase records), plus
        // where it was written.
        let mut v = serde_json::to_value(&r)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("results_dir".into(), serde_json::to_value(&dir)?);
        }
        return super::print_json(&v);
    }
    let t = &r.totals.summary;
    println!(
        "{} on {} · {} threads · {} phases · results in {}",
        r.name,
        r.machine.name,
        r.threads,
        r.totals.phases,
        dir.display()
    );
    println!(
        "accesses {} · LLC misses {} (MPKI {:.2}) · writebacks {} · footprint {} pages",
        t.counts.accesses, t.counts.llc_misses, t.llc_mpki, t.counts.writebacks, r.totals.footprint_pages
    );
    println!("local fraction {:.3}", t.local_fraction);
    let total = t.counts.llc_misses.max(1) as f64;
    let classes: Vec<String> = t
        .by_class
        .iter()
        .map(|(c, n)| format!("{c} {:.1}%", 100.0 * *n as f64 / total))
        .collect();
    println!(
        "LLC misses by home of the page (reads and writes): {}",
        classes.join(" · ")
    );
    let b = &r.sharing.access_buckets;
    println!(
        "accesses by page sharers: 1: {:.1}% · 2-4: {:.1}% · 5-8: {:.1}% · >8: {:.1}% (all sockets: {:.1}%)",
        100.0 * b.one,
        100.0 * b.two_to_four,
        100.0 * b.five_to_eight,
        100.0 * b.more_than_eight,
        100.0 * b.all
    );
    let m = &r.migration;
    if m.policy != "none" {
        let to: Vec<String> = m.moves_to.iter().map(|(n, k)| format!("{n} {k}")).collect();
        println!(
            "migration {} ({}): {} pages moved ({}) · {} ping-pongs · {} refused for room",
            m.policy,
            m.profiler,
            m.total_moves,
            if to.is_empty() {
                "none".to_string()
            } else {
                to.join(" · ")
            },
            m.ping_pongs,
            m.no_room
        );
    }
    if let Some(tm) = &r.timing {
        print_timing(tm);
    }
    for p in &r.processes {
        let nodes: Vec<String> = p
            .pages_per_node
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(n, k)| format!("{n} {k}"))
            .collect();
        let time = match (p.finish_time_ns, p.amat_ns) {
            (Some(t), Some(a)) => format!(" · finished at {:.1} µs · AMAT {a:.1} ns", t / 1000.0),
            (Some(t), None) => format!(" · finished at {:.1} µs", t / 1000.0),
            _ => String::new(),
        };
        println!(
            "process {} ({} threads): {} accesses · {} flops · {} LLC misses · pages {}{time}",
            p.name,
            p.threads,
            p.accesses,
            p.flops,
            p.llc_misses,
            nodes.join(" · ")
        );
    }
    println!(
        "{:.1} M accesses/s ({:.2} s simulating, {:.2} s setting up the workload)",
        r.perf.accesses_per_s / 1e6,
        r.perf.wall_s,
        r.perf.setup_s
    );
    Ok(())
}

/// The timing block of `numasim run`'s summary: AMAT ("no data" when no LLC-miss load was
/// timed), class means with their load counts (marked below the minimum), the analytical split
/// and migration's time (stalls summed over cores and per core).
fn print_timing(tm: &numasim::timing::TimingResults) {
    use numasim::timing::report::MIN_CLASS_LOADS;
    let a = &tm.amat_ns;
    let amat = match (a.total, a.unloaded, a.contention) {
        (Some(t), Some(u), Some(c)) => format!(
            "AMAT {t:.1} ns (unloaded {u:.1} + contention {c:.1}) over {} LLC-miss loads",
            a.loads
        ),
        _ => "AMAT no data (no LLC-miss load was timed)".to_string(),
    };
    println!(
        "simulated {:.1} µs · {amat} · IPC {:.3} · coherence {} ({})",
        tm.sim_time_ns / 1000.0,
        tm.ipc.mean,
        tm.coherence.protocol,
        match tm.coherence.from {
            numasim::timing::CoherenceSource::Experiment => "set by the experiment",
            numasim::timing::CoherenceSource::Machine => "the machine's",
            numasim::timing::CoherenceSource::Default => "default",
        }
    );
    if !a.by_class.is_empty() {
        let by: Vec<String> = a
            .by_class
            .iter()
            .map(|(c, k)| {
                format!(
                    "{c} ({} loads{}) {:.0} ns ({:.0} + {:.0})",
                    k.count,
                    if k.few_samples { ", too few*" } else { "" },
                    k.mean,
                    k.unloaded,
                    k.contention
                )
            })
            .collect();
        println!(
            "AMAT of LLC-miss loads by data source (loads; mean = unloaded + contention): {}",
            by.join(" · ")
        );
        if a.by_class.values().any(|k| k.few_samples) {
            println!("  * fewer than {MIN_CLASS_LOADS} loads: that mean is not representative");
        }
    }
    if let Some(an) = &a.analytical {
        println!(
            "AMAT as StarNUMA Fig. 8b splits it: nominal unloaded {:.1} + contention {:.1} ns (queueing {:.1}, service vs nominal {:+.1}{})",
            an.unloaded,
            an.contention,
            an.queueing,
            an.service_vs_nominal,
            if an.contention < 0.0 {
                ": negative because loads were served faster than the nominal latencies, e.g. DRAM row hits"
            } else {
                ""
            }
        );
    }
    let mt = &tm.migration;
    if mt.pages > 0 || mt.core_stall_ns > 0.0 {
        println!(
            "migration time: copies {:.1} µs after their boundaries · core stalls {:.1} µs summed over {} cores ({:.1} µs per core) · {} misses waited {:.1} µs for pages in flight",
            mt.copy_span_ns / 1000.0,
            mt.core_stall_ns / 1000.0,
            tm.threads.len(),
            mt.core_stall_ns_per_core / 1000.0,
            mt.inflight_stalls,
            mt.inflight_stall_ns / 1000.0
        );
    }
}
