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

fn study(args: ReproArgs) -> anyhow::Result<()> {
    let study = numasim_repro::find(&args.study)?;
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
    };
    let outcome = numasim_repro::run_study(study, options, progress)?;
    if args.json {
        return super::print_json(&serde_json::json!({
            "study": study.name(),
            "quick": args.quick,
            "comparison_csv": outcome.csv,
            "report": outcome.report,
            "comparisons": outcome.comparisons,
        }));
    }
    print!("{}", numasim_repro::render_table(&outcome.comparisons));
    println!("comparison: {}", outcome.csv.display());
    if let Some(r) = outcome.report {
        println!("report: {}", r.display());
    }
    Ok(())
}
