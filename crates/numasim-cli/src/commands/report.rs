//! `numasim report` and `numasim plot`: render results directories (never re-run them).

use clap::Args;
use numasim_report::Figure;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReportArgs {
    /// Results directories written by `numasim run` (one or more, compared side by side), or a
    /// sweep's root (its runs, the baseline first). Speedups are over the first run.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Output HTML file (self-contained: inline SVG and CSS, no network).
    #[arg(short, long, default_value = "report.html")]
    out: PathBuf,
}

#[derive(Args)]
pub struct PlotArgs {
    /// Results directories written by `numasim run`, or a sweep's root (its runs).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Figure to draw: machine-graph, latency-heatmap, access-classes, amat, speedup, ipc,
    /// utilisation, sharing, placement, placement-map, migration, roofline.
    #[arg(long)]
    figure: String,
    /// Output file; the extension (.svg or .png) picks the format.
    #[arg(short, long)]
    out: PathBuf,
}

pub fn report(args: ReportArgs) -> anyhow::Result<()> {
    numasim_report::write_report(&args.results, &args.out)?;
    println!("report written to {}", args.out.display());
    Ok(())
}

pub fn plot(args: PlotArgs) -> anyhow::Result<()> {
    let figure = Figure::from_name(&args.figure)?;
    numasim_report::write_figure(&args.results, figure, &args.out)?;
    println!("{} written to {}", figure.name(), args.out.display());
    Ok(())
}
