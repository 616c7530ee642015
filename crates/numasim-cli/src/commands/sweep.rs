//! `numasim sweep`: expand a sweep file and run its points with the local executor (a pool of
//! threads in this process), or gather finished runs into one table (`sweep collect`). Ray and
//! Slurm executors live in the Python package (`python -m numasim sweep --executor ...`) and
//! call the same library code per run.

use clap::{Args, Subcommand};
use numasim::experiment::sweep::{self, Sweep};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// Sweep TOML: `base = "EXPERIMENT.toml"`, `[set]`, `[grid]`, `[[zip]]` (docs/guide/sweeps-and-python.md).
    #[arg(required = true)]
    sweep: Option<PathBuf>,
    /// Results root (default: the file's `out`, else results/sweeps/<sweep name>); each run goes
    /// to ROOT/<its name>, the name made of its axis values (`pool_latency_ns=270`).
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Runs at once (default: all cores). Each run gets cores/N worker threads (at least 1).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Check every run fully (experiment, machine and its overrides, input files) and print
    /// them (name, done, pending or stale, machine), running nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Subcommand)]
enum SweepCommand {
    /// Gather every complete run under DIR into one CSV table: `run`, the swept keys, then every
    /// scalar of results.json. (Parquet: `python -m numasim sweep collect DIR --parquet F`.)
    Collect {
        dir: PathBuf,
        /// Output CSV (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
}

pub fn run(args: SweepArgs) -> anyhow::Result<()> {
    if let Some(SweepCommand::Collect { dir, out }) = args.command {
        return match out {
            Some(path) => {
                // Under the output policy: never onto a run's files, `-o /dev/stdout` streams.
                let rows = sweep::write_collected(&dir, &path)?;
                eprintln!("{rows} rows written to {}", path.display());
                Ok(())
            }
            None => {
                use std::io::Write;
                std::io::stdout().write_all(&sweep::collect_csv(&dir)?)?;
                Ok(())
            }
        };
    }
    let path = args.sweep.expect("clap requires the sweep file");
    let plan = sweep::SweepPlan::open(&path, args.out.as_deref())?;
    if args.dry_run {
        // Each run is printed as it is checked: nothing of the sweep is held but 16 bytes a run.
        use std::io::Write;
        let width = plan.name_width();
        let out_dir = plan.out_dir.clone();
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let (mut pending, mut broken) = (0usize, None);
        let sw = plan.expand(&mut |_, r| {
            let m = &r.experiment.spec.machine;
            let machine = if numasim_machine::presets::get(&m.base).is_some() {
                m.base.clone()
            } else {
                r.experiment.source.resolve_path(&m.base).display().to_string()
            };
            let overrides: Vec<String> = m.overrides().iter().map(|o| format!("{}={}", o.key, o.value)).collect();
            let machine = if overrides.is_empty() {
                machine
            } else {
                format!("{machine} with {}", overrides.join(" "))
            };
            let baseline = if r.name == sweep::BASELINE && r.params.is_empty() {
                " (speedup baseline)"
            } else {
                ""
            };
            let state = sweep::RunState::of(&out_dir.join(&r.name), &r.id);
            pending += usize::from(state != sweep::RunState::Done);
            if broken.is_none() {
                broken = writeln!(
                    out,
                    "{:width$}  {:7}  {} on {machine}{baseline}",
                    r.name,
                    state.as_str(),
                    r.experiment.spec.migration.policy,
                )
                .err();
            }
        });
        out.flush()?;
        let sw = sw?;
        if let Some(e) = broken {
            return Err(e.into());
        }
        println!(
            "{} runs, {} to run, every one checked (experiment, machine, input files); results in {}",
            sw.len(),
            pending,
            sw.out_dir.display()
        );
        return Ok(());
    }
    let sw = plan.expand(&mut |_, _| {})?;
    execute(&sw, args.jobs)?;
    println!(
        "next: numasim report {} -o {}.html   (every run, labelled by name{})",
        sw.out_dir.display(),
        sw.name,
        if sw.baseline.is_some() {
            ", speedups over `baseline`"
        } else {
            ""
        }
    );
    Ok(())
}

/// Runs every pending point of `sw` (`jobs` at once, default all cores), then prints the
/// summary table ([`print_summary`]).
pub(crate) fn execute(sw: &Sweep, jobs: Option<usize>) -> anyhow::Result<()> {
    let pending: Vec<usize> = (0..sw.len()).filter(|&i| !sw.is_complete(i)).collect();
    sw.write_manifest()?;
    let cores = numasim::experiment::config::available_cores();
    let jobs = jobs.unwrap_or(cores).max(1).min(pending.len().max(1));
    let threads_per_run = (cores / jobs).max(1);
    eprintln!(
        "sweep {}: {} runs, {} already complete, {} to run ({} at once) into {}",
        sw.name,
        sw.len(),
        sw.len() - pending.len(),
        pending.len(),
        jobs,
        sw.out_dir.display()
    );
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = pending.get(k) else { break };
                let started = Instant::now();
                let name = sw.name_of(i);
                let outcome = sw.run_one_warned(i, threads_per_run, &mut |_| {});
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                match outcome {
                    Ok(warnings) => {
                        eprintln!(
                            "[{n}/{}] {} ({:.1} s)",
                            pending.len(),
                            name,
                            started.elapsed().as_secs_f64()
                        );
                        for w in warnings {
                            eprintln!("  warning ({name}): {w}");
                        }
                    }
                    Err(e) => {
                        let msg = format!("{name}: {}", crate::error_chain(&anyhow::Error::from(e)));
                        eprintln!("[{n}/{}] FAILED {msg}", pending.len());
                        failures.lock().unwrap_or_else(|p| p.into_inner()).push(msg);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    anyhow::ensure!(
        failures.is_empty(),
        "{} of {} runs failed (the others are complete; rerun to retry only the failed ones):\n  {}",
        failures.len(),
        pending.len(),
        failures.join("\n  ")
    );
    println!("{} runs complete in {}", sw.len(), sw.out_dir.display());
    print_summary(sw);
    Ok(())
}

/// One line per run, the baseline first: simulated time and speedup over the baseline (timing
/// mode), AMAT split into unloaded latency and contention, and the share of LLC misses the
/// pool served, read back from each run's results.json.
pub(crate) fn print_summary(sw: &Sweep) {
    let runs: Vec<(String, std::path::PathBuf)> = (0..sw.len()).map(|i| (sw.name_of(i), sw.run_dir(i))).collect();
    print_table(&runs, sw.baseline);
}

/// The summary table of `runs` (name, results directory), `baseline` (an index) first.
pub(crate) fn print_table(runs: &[(String, std::path::PathBuf)], baseline: Option<usize>) {
    let order: Vec<usize> = baseline
        .into_iter()
        .chain((0..runs.len()).filter(|&i| Some(i) != baseline))
        .collect();
    let read = |i: usize| -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(runs[i].1.join("results.json")).ok()?;
        serde_json::from_str(&text).ok()
    };
    let results: Vec<(usize, serde_json::Value)> = order.iter().filter_map(|&i| read(i).map(|r| (i, r))).collect();
    let time = |r: &serde_json::Value| r["timing"]["sim_time_ns"].as_f64();
    let base_time = baseline
        .and_then(|b| results.iter().find(|(i, _)| *i == b))
        .and_then(|(_, r)| time(r));
    let width = results.iter().map(|(i, _)| runs[*i].0.len()).max().unwrap_or(3).max(3);
    println!(
        "{:width$}  {:>12}  {:>8}  {:>28}  {:>9}",
        "run", "simulated", "speedup", "AMAT ns (unloaded + cont.)", "pool hits"
    );
    for (i, r) in &results {
        let misses = r["totals"]["llc_misses"].as_f64().unwrap_or(0.0);
        let pool: f64 = r["totals"]["by_class"]["pool"].as_f64().unwrap_or(0.0);
        let pool = if misses > 0.0 {
            format!("{:.1} %", 100.0 * pool / misses)
        } else {
            "-".into()
        };
        let (sim, speedup, amat) = match time(r) {
            Some(t) => {
                let a = &r["timing"]["amat_ns"];
                (
                    format!("{:.1} µs", t / 1000.0),
                    base_time.map_or("-".into(), |b| format!("{:.2}×", b / t)),
                    format!(
                        "{:.0} ({:.0} + {:.0})",
                        a["total"].as_f64().unwrap_or(0.0),
                        a["unloaded"].as_f64().unwrap_or(0.0),
                        a["contention"].as_f64().unwrap_or(0.0)
                    ),
                )
            }
            None => ("-".into(), "-".into(), "- (functional)".into()),
        };
        println!("{:width$}  {sim:>12}  {speedup:>8}  {amat:>28}  {pool:>9}", runs[*i].0);
    }
}
