//! `numasim demo`: the README's first command. Runs the demo pair (GAP BFS on StarNUMA's
//! machine without, then with, the CXL pool and Algorithm 1: configs/experiments/demo-*.toml),
//! prints the speedup, the AMAT split and what the pool served, writes the HTML report and
//! prints three commands to try next.

use clap::Args;
use numasim::experiment::{self, Experiment};
use std::path::{Path, PathBuf};

/// The demo's experiments (label, path in a clone, text). A clone's files, when present in the
/// working directory, are used, so edits to them count; elsewhere the copies built in.
const RUNS: [(&str, &str, &str); 2] = [
    (
        "baseline",
        "configs/experiments/demo-baseline.toml",
        include_str!("../../../../configs/experiments/demo-baseline.toml"),
    ),
    (
        "starnuma",
        "configs/experiments/demo-starnuma.toml",
        include_str!("../../../../configs/experiments/demo-starnuma.toml"),
    ),
];

#[derive(Args)]
pub struct DemoArgs {
    /// Results root (default: results/demo): the runs go to ROOT/baseline and ROOT/starnuma
    /// (replaced if numasim wrote them), the report to ROOT/report.html.
    #[arg(short, long, default_value = "results/demo")]
    out: PathBuf,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    println!(
        "numasim demo: GAP BFS (Kronecker 2^17, 64 threads) on StarNUMA's 16-socket machine, without and with \
         its CXL pool and Algorithm 1 ({} and {})",
        RUNS[0].1, RUNS[1].1
    );
    let mut runs = Vec::new();
    for (label, path, text) in RUNS {
        let mut exp = if Path::new(path).is_file() {
            Experiment::load(Path::new(path))?
        } else {
            Experiment::from_source(numasim_config::Source::from_text(path, text), label)?
        };
        exp.spec.name = Some(label.to_string());
        exp.name = label.to_string();
        let dir = args.out.join(label);
        let started = std::time::Instant::now();
        let (dir, r) = experiment::run(&exp, &dir, &mut |_| {})?;
        eprintln!("{label}: {} ({:.1} s)", dir.display(), started.elapsed().as_secs_f64());
        for w in numasim::experiment::warnings::warnings(&exp, &r) {
            eprintln!("  warning ({label}): {w}");
        }
        runs.push((label.to_string(), dir));
    }
    super::sweep::print_table(&runs, Some(0));
    print_pool(&runs[1].1);
    let report = args.out.join("report.html");
    let dirs: Vec<&PathBuf> = runs.iter().map(|(_, d)| d).collect();
    numasim_report::write_report(&dirs, &report)?;
    println!(
        "report: {} (speedup over `baseline`; each run's numbers beside the paper's)",
        report.display()
    );
    println!("next:");
    println!(
        "  numasim run {} --set machine.pool_latency_ns=270 -o results/demo-pool270   # a pool behind a CXL switch (StarNUMA Fig. 10)",
        RUNS[1].1
    );
    println!(
        "  numasim report {} results/demo-pool270 -o pool270.html   # the two pools side by side",
        runs[1].1.display()
    );
    println!("  numasim sweep configs/sweeps/pool-latency.toml   # the pool's latency swept on a larger BFS (4 runs)");
    Ok(())
}

/// What Algorithm 1 moved and what the pool served, from the pool run's results.json.
fn print_pool(dir: &Path) {
    let Some(r) = std::fs::read_to_string(dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return;
    };
    let n = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let moved = n(&r["migration"]["moves_to"]["pool"]);
    let footprint = n(&r["totals"]["footprint_pages"]);
    let misses = n(&r["totals"]["llc_misses"]);
    let pool = n(&r["totals"]["by_class"]["pool"]);
    let loads = &r["timing"]["amat_ns"]["by_class"]["pool"];
    let pool_amat = if loads.is_object() {
        format!(
            " at {:.0} ns a load ({:.0} unloaded + {:.0} contention)",
            n(&loads["mean"]),
            n(&loads["unloaded"]),
            n(&loads["contention"])
        )
    } else {
        String::new()
    };
    println!(
        "Algorithm 1 moved {moved:.0} pages to the pool ({:.1} % of the footprint); the pool served {:.1} % of the LLC misses{pool_amat}",
        100.0 * moved / footprint.max(1.0),
        100.0 * pool / misses.max(1.0)
    );
}
