//! `numasim repro`: regenerate a paper's numbers and compare them with the paper.

use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReproArgs {
    /// Study name (`numasim repro list` lists them), or `list`.
    study: String,
    /// Small inputs: minutes, compared on directions (which configuration is faster), not values.
    #[arg(long)]
    quick: bool,
    /// Output directory (default: results/repro-<study>[-quick]). Holds the experiment configs
    /// it ran (configs/), their results directories (runs/), comparison.csv and report.html.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Experiments run at once (default: all cores); results never depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Reuse every run already in OUT/runs whose config is unchanged (an interrupted study goes
    /// on where it stopped); results are the same as running it again.
    #[arg(long)]
    resume: bool,
    /// Where the runs go: `local` (this process, --jobs at once), `ray` or `submitit` (through
    /// the Python package, `python -m numasim repro`; those always resume).
    #[arg(long, value_parser = ["local", "ray", "submitit"], default_value = "local")]
    executor: String,
    /// Ray: the cluster's address (default: a single-node Ray started for the study).
    #[arg(long)]
    address: Option<String>,
    /// submitit: `slurm` (default where sbatch exists), `local` or `debug`.
    #[arg(long)]
    cluster: Option<String>,
    /// submitit parameter KEY=VALUE, e.g. slurm_partition=cpu (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    slurm: Vec<String>,
    /// Re-print the scorecard of a finished study from DIR/comparison.csv, without running.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["quick", "out", "jobs"])]
    scorecard: Option<PathBuf>,
    /// With --scorecard: print it as markdown (the docs/validation pages).
    #[arg(long, requires = "scorecard", conflicts_with = "json")]
    markdown: bool,
}

pub fn run(args: ReproArgs) -> anyhow::Result<()> {
    if args.study != "list" {
        return study(args);
    }
    let studies = numasim_repro::registry();
    if args.json {
        let v: Vec<_> = studies
            .iter()
            .map(|s| serde_json::json!({"name": s.name(), "paper": s.paper(), "summary": s.summary()}))
            .collect();
        return super::print_json(&v);
    }
    for s in studies {
        println!("{} — {}\n  paper: {}", s.name(), s.summary(), s.paper());
    }
    Ok(())
}

/// `--scorecard DIR`: the scorecard of a finished study, from its comparison.csv.
fn reprint(study: &dyn numasim_repro::Study, dir: &std::path::Path, args: &ReproArgs) -> anyhow::Result<()> {
    let rows = numasim_repro::scorecard::read_csv(&dir.join("comparison.csv"))?;
    if args.json {
        return super::print_json(&serde_json::json!({"study": study.name(), "scorecard": rows}));
    }
    if args.markdown {
        print!(
            "{}",
            numasim_repro::scorecard::render_markdown(study.name(), study.paper(), &rows)
        );
    } else {
        print!("{}", numasim_repro::scorecard::render_text(&rows));
    }
    Ok(())
}

fn study(args: ReproArgs) -> anyhow::Result<()> {
    let study = numasim_repro::find(&args.study)?;
    if let Some(dir) = &args.scorecard {
        return reprint(study, dir, &args);
    }
    if args.executor != "local" {
        return through_python(&args);
    }
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("results").join(format!(
            "repro-{}{}",
            study.name(),
            if args.quick { "-quick" } else { "" }
        ))
    });
    let verbose = !args.json;
    let tty = std::io::stderr().is_terminal();
    let progress: Box<dyn FnMut(&str)> = Box::new(move |m: &str| {
        if verbose || tty {
            eprintln!("{m}");
        }
    });
    let options = numasim_repro::StudyOptions {
        quick: args.quick,
        out,
        jobs: args
            .jobs
            .map_or_else(numasim::experiment::config::available_cores, usize::from),
        resume: args.resume,
        external: false,
    };
    let outcome = numasim_repro::run_study(study, options, progress)?;
    if args.json {
        return super::print_json(&serde_json::json!({
            "study": study.name(),
            "quick": args.quick,
            "comparison_csv": outcome.csv,
            "report": outcome.report,
            "comparisons": outcome.comparisons,
            "scorecard": outcome.rows,
            "missing_headlines": outcome.missing_headlines,
        }));
    }
    print!("{}", numasim_repro::scorecard::render_text(&outcome.rows));
    println!("comparison: {}", outcome.csv.display());
    if let Some(r) = outcome.report {
        println!("report: {}", r.display());
    }
    Ok(())
}

/// `--executor ray|submitit`: the executors are the Python package's, so the study runs as
/// `python -m numasim repro` (the interpreter: `NUMASIM_PYTHON`, else `.venv/bin/python` where
/// `scripts/setup-python` made it, else `python3`).
fn through_python(args: &ReproArgs) -> anyhow::Result<()> {
    let python = std::env::var_os("NUMASIM_PYTHON")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(".venv/bin/python")).filter(|p| p.is_file()))
        .unwrap_or_else(|| PathBuf::from("python3"));
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "numasim", "repro", &args.study, "--executor", &args.executor]);
    if args.quick {
        cmd.arg("--quick");
    }
    if let Some(out) = &args.out {
        cmd.arg("-o").arg(out);
    }
    if let Some(j) = args.jobs {
        cmd.arg("-j").arg(j.to_string());
    }
    if args.json {
        cmd.arg("--json");
    }
    for (flag, value) in [("--address", &args.address), ("--cluster", &args.cluster)] {
        if let Some(v) = value {
            cmd.arg(flag).arg(v);
        }
    }
    for kv in &args.slurm {
        cmd.arg("--slurm").arg(kv);
    }
    let status = cmd.status().map_err(|e| {
        anyhow::anyhow!(
            "--executor {} runs through the Python package, but {} could not be started ({e}); run scripts/setup-python or set NUMASIM_PYTHON",
            args.executor,
            python.display()
        )
    })?;
    if !status.success() {
        anyhow::bail!("python -m numasim repro failed ({status})");
    }
    Ok(())
}
