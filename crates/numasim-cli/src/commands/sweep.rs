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
    /// Sweep TOML: `base = "EXPERIMENT.toml"`, `[set]`, `[grid]`, `[[zip]]` (README, "Sweeps").
    #[arg(required = true)]
    sweep: Option<PathBuf>,
    /// Results root (default: the file's `out`, else results/sweeps/<sweep name>); each run goes
    /// to ROOT/<hash of its resolved experiment>.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Runs at once (default: all cores). Each run gets cores/N worker threads (at least 1).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Print the runs (id, done or pending, swept values) and run nothing.
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
    let sw = Sweep::load(&path, args.out.as_deref())?;
    let pending: Vec<usize> = (0..sw.runs.len()).filter(|&i| !sw.is_complete(i)).collect();
    if args.dry_run {
        for (i, r) in sw.runs.iter().enumerate() {
            let params: Vec<String> = r.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let state = if sw.is_complete(i) { "done" } else { "pending" };
            println!("{} {state:7} {}", r.id, params.join(" "));
        }
        println!(
            "{} runs, {} pending, results in {}",
            sw.runs.len(),
            pending.len(),
            sw.out_dir.display()
        );
        return Ok(());
    }
    sw.write_manifest()?;
    let cores = numasim::experiment::config::available_cores();
    let jobs = args.jobs.unwrap_or(cores).max(1).min(pending.len().max(1));
    let threads_per_run = (cores / jobs).max(1);
    eprintln!(
        "sweep {}: {} runs, {} already complete, {} to run ({} at once) into {}",
        sw.name,
        sw.runs.len(),
        sw.runs.len() - pending.len(),
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
                let r = &sw.runs[i];
                let params: Vec<String> = r.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let outcome = sw.run_one(i, threads_per_run, &mut |_| {});
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                match outcome {
                    Ok(_) => eprintln!(
                        "[{n}/{}] {} {} ({:.1} s)",
                        pending.len(),
                        r.id,
                        params.join(" "),
                        started.elapsed().as_secs_f64()
                    ),
                    Err(e) => {
                        let msg = format!(
                            "{} {}: {}",
                            r.id,
                            params.join(" "),
                            crate::error_chain(&anyhow::Error::from(e))
                        );
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
    println!("{} runs complete in {}", sw.runs.len(), sw.out_dir.display());
    Ok(())
}
