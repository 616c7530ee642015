//! The `numasim` command. It parses arguments and calls the library; nothing else lives here.

mod commands;
mod progress;
mod table;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "numasim",
    version,
    about = "Where should a page of memory live on a non-uniform machine, and what does it cost there?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The demo: GAP BFS on StarNUMA's machine without and with the CXL pool and Algorithm 1;
    /// prints the speedup and AMAT split, writes the report, says what to try next.
    Demo(commands::demo::DemoArgs),
    /// Run an experiment and write its results directory.
    Run(commands::run::RunArgs),
    /// Inspect machine presets and machine files.
    #[command(subcommand)]
    Machine(commands::machine::MachineCommand),
    /// Inspect and convert trace files.
    #[command(subcommand)]
    Trace(commands::trace::TraceCommand),
    /// List workload generators and their parameters.
    #[command(subcommand)]
    Workload(commands::workload::WorkloadCommand),
    /// List page-migration policies, profilers and their parameters.
    #[command(subcommand)]
    Policy(commands::policy::PolicyCommand),
    /// Analyse a trace or an experiment's workload (sharing degree of pages).
    #[command(subcommand)]
    Analyze(commands::analyze::AnalyzeCommand),
    /// Render results directories as one self-contained HTML report.
    Report(commands::report::ReportArgs),
    /// Draw one paper-ready figure (SVG or PNG) from results directories.
    Plot(commands::report::PlotArgs),
    /// Every key of a config section: type, unit, default and meaning.
    Params(commands::params::ParamsArgs),
    /// Reproduce a paper: run its experiments and compare every number with the paper's.
    /// (`numasim repro list`; `numasim repro starnuma --quick`.)
    Repro(commands::repro::ReproArgs),
    /// Run a parameter sweep (base experiment + axes), or `sweep collect DIR` into one table.
    Sweep(commands::sweep::SweepArgs),
    /// Measure this host and numasim's models: `bench move-pages` times page moves against the
    /// host's peak copy bandwidth; `bench dram` runs one memory controller alone.
    #[command(subcommand)]
    Bench(commands::bench::BenchCommand),
}

fn main() -> ExitCode {
    // A closed stdout (`numasim workload list | head -1`) ends the process quietly with the
    // conventional SIGPIPE status, as for other Unix tools, instead of a panic in `println!`.
    // SAFETY: restoring the default disposition of one signal before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Interrupted runs remove their partial results directory.
    numasim::experiment::results_dir::install_signal_cleanup();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => commands::demo::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Repro(args) => commands::repro::run(args),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Params(args) => commands::params::run(args),
        Command::Machine(cmd) => commands::machine::run(cmd),
        Command::Trace(cmd) => commands::trace::run(cmd),
        Command::Workload(cmd) => commands::workload::run(cmd),
        Command::Policy(cmd) => commands::policy::run(cmd),
        Command::Analyze(cmd) => commands::analyze::run(cmd),
        Command::Report(args) => commands::report::report(args),
        Command::Plot(args) => commands::report::plot(args),
        Command::Bench(cmd) => commands::bench::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes joined by ": ", leaving out a cause whose text the message before it
/// already ends with (many errors print their source themselves; `{:#}` would say it twice).
pub(crate) fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[derive(Debug, thiserror::Error)]
    #[error("simulation failed: {0}")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("page table full")]
    struct Inner;

    #[test]
    fn a_cause_is_printed_once() {
        let e = anyhow::Error::new(Outer(Inner));
        assert_eq!(format!("{e:#}"), "simulation failed: page table full: page table full");
        assert_eq!(error_chain(&e), "simulation failed: page table full");
        let e = anyhow::Error::new(Inner).context("running x.toml");
        assert_eq!(error_chain(&e), "running x.toml: page table full");
    }
}
