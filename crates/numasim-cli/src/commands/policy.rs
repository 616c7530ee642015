//! `numasim policy list` and `numasim analyze profile`: migration policies, their profilers
//! and parameters, and how representative each profile source is.

use crate::table::Table;
use clap::{Args, Subcommand};
use numasim::migrate::params::{mechanism_params, profiler_params, PolicyKind};
use numasim::profile::ProfilerKind;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// Migration policies with their profilers and parameters (`[migration]` keys).
    List {
        /// Print the policies and profilers as JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: PolicyCommand) -> anyhow::Result<()> {
    match cmd {
        PolicyCommand::List { json } => {
            let policies: Vec<_> = PolicyKind::ALL.iter().map(|p| p.info()).collect();
            if json {
                let profilers: Vec<_> = ProfilerKind::ALL
                    .iter()
                    .map(|k| {
                        serde_json::json!({
                            "name": k.name(),
                            "summary": k.summary(),
                            "params": profiler_params(*k),
                        })
                    })
                    .collect();
                return super::print_json(&serde_json::json!({
                    "policies": policies,
                    "profilers": profilers,
                    "mechanism_params": mechanism_params(),
                }));
            }
            for p in policies {
                println!("{} — {}\n  paper: {}", p.name, p.summary, p.paper);
                if p.name != "none" {
                    println!(
                        "  profiler: {} (default); also: {}",
                        p.default_profiler,
                        p.profilers.join(", ")
                    );
                }
                if !p.params.is_empty() {
                    let mut t = Table::new(["parameter", "default", "unit", "meaning"]);
                    for d in &p.params {
                        t.row([
                            d.name.to_string(),
                            d.default_text(),
                            d.unit.to_string(),
                            d.description.to_string(),
                        ]);
                    }
                    for line in t.render().lines() {
                        println!("  {line}");
                    }
                }
                println!();
            }
            println!("profilers ([migration] profiler = \"NAME\")");
            let mut t = Table::new(["profiler", "parameters", "what it observes"]);
            for k in ProfilerKind::ALL {
                let params: Vec<String> = profiler_params(k)
                    .iter()
                    .map(|d| format!("{}={}", d.name, d.default_text()))
                    .collect();
                t.row([k.name().to_string(), params.join(" "), k.summary().to_string()]);
            }
            for line in t.render().lines() {
                println!("  {line}");
            }
            println!("\nmechanism parameters (every policy but none)");
            let mut t = Table::new(["parameter", "default", "unit", "meaning"]);
            for d in mechanism_params() {
                t.row([
                    d.name.to_string(),
                    d.default_text(),
                    d.unit.to_string(),
                    d.description.to_string(),
                ]);
            }
            for line in t.render().lines() {
                println!("  {line}");
            }
            Ok(())
        }
    }
}

#[derive(Args)]
pub struct ProfileArgs {
    /// Experiment TOML (its workload and machine; migration settings are ignored).
    experiment: PathBuf,
    /// Interconnect sampling intervals to sweep (comma-separated).
    #[arg(long, value_delimiter = ',')]
    intervals: Option<Vec<u64>>,
    /// Entries of each socket's TLB model.
    #[arg(long, default_value_t = 64)]
    tlb_entries: usize,
    /// Print the profile accuracy as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// `numasim analyze profile`.
pub fn analyze_profile(args: ProfileArgs) -> anyhow::Result<()> {
    let exp = numasim::experiment::Experiment::load(&args.experiment)?;
    let intervals = args
        .intervals
        .unwrap_or_else(|| numasim::analyze::profile::DEFAULT_INTERVALS.to_vec());
    if intervals.contains(&0) {
        anyhow::bail!("--intervals: every interval must be at least 1");
    }
    let mut run = exp.resolve()?;
    let a = numasim::analyze::profile::analyze_profile(&mut run, &intervals, args.tlb_entries.max(1))?;
    if args.json {
        return super::print_json(&a);
    }
    println!(
        "{} on {} · {} memory accesses · {} pages touched · reference: perfect (every memory access)",
        a.experiment, a.machine, a.memory_accesses, a.touched_pages
    );
    let mut header = vec!["source".to_string(), "every N".into(), "mean D".into()];
    header.extend(a.sockets.iter().map(|s| format!("D {s}")));
    header.extend(["% sampled".into(), "% pages".into(), "% top agree".into()]);
    let mut t = Table::new(header);
    for s in &a.sources {
        let mut row = vec![
            s.source.to_string(),
            s.sample_interval.to_string(),
            format!("{:.3}", s.mean_distance),
        ];
        row.extend(
            s.distance_per_socket
                .iter()
                .map(|d| d.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())),
        );
        row.extend([
            format!("{:.2}", 100.0 * s.sampled_fraction),
            format!("{:.1}", 100.0 * s.pages_covered),
            format!("{:.1}", 100.0 * s.top_socket_agreement),
        ]);
        t.row(row);
    }
    print!("{}", t.render());
    Ok(())
}
