//! `numasim analyze sharing`: sharing-degree distribution of a trace or an experiment's workload;
//! `numasim analyze compare`: two inputs side by side (a traced program against its generator).

use clap::{Args, Subcommand};
use numasim::analyze::{SharingAnalysis, SharingOptions};
use numasim::experiment::analyze_sharing_inputs;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum AnalyzeCommand {
    /// Pages and accesses by number of sharer sockets (StarNUMA Fig. 2 / Fig. 13), footprint,
    /// read/write mix and first-touch local fraction. Writes JSON under results/ (or -o).
    Sharing(SharingArgs),
    /// Two inputs side by side (a traced program and the generator standing for it): sharing
    /// (all accesses and LLC misses), footprint, read share, accesses per instruction, LLC MPKI
    /// and first-touch local fraction, at a quantum of one instruction, with differences and
    /// the fidelity bands.
    Compare(CompareArgs),
    /// How representative each profile source is vs every memory access: Tikir &
    /// Hollingsworth's distance D and pages covered (their Table 1 / Fig. 2).
    Profile(super::policy::ProfileArgs),
}

#[derive(Args)]
pub struct SharingArgs {
    /// Native trace file, experiment TOML (its workload is generated in-process), or StarNUMA
    /// per-thread files (memtrace_t<N>.out; thread N from the name, read directly).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Machine preset or file (required for a trace; overrides an experiment's machine).
    #[arg(long)]
    machine: Option<String>,
    /// Threads per socket K: thread t on socket t / K (default: the experiment's mapping, or
    /// threads spread evenly for a trace).
    #[arg(long)]
    threads_per_socket: Option<usize>,
    /// Count LLC misses only (each socket's LLC from the machine) instead of every access.
    #[arg(long)]
    llc: bool,
    /// Interleaving quantum in instructions: in each quantum every thread, in thread order,
    /// runs its accesses that fall in it. 1 = exact per-instruction order (accesses ordered by
    /// instruction count, then thread). Default: the experiment's, or 1000 for a trace.
    #[arg(long, value_name = "INSTRUCTIONS")]
    quantum: Option<u64>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Output JSON file (default: results/<input stem>.sharing.json, never beside the input, which
    /// may be a shipped config).
    #[arg(short, long)]
    out: Option<PathBuf>,
}

#[derive(Args)]
pub struct CompareArgs {
    /// First input: native trace (e.g. from `numasim trace capture`) or experiment TOML.
    a: PathBuf,
    /// Second input: native trace or experiment TOML (e.g. the generator at the same size).
    b: PathBuf,
    /// Machine preset or file for both (its socket count and LLCs).
    #[arg(long, default_value = "starnuma16-baseline")]
    machine: String,
    /// Threads per socket K for both: thread t on socket t / K (1: sharers are threads).
    #[arg(long, default_value_t = 1)]
    threads_per_socket: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when a statistic is outside its band.
    #[arg(long)]
    check: bool,
}

pub fn run(cmd: AnalyzeCommand) -> anyhow::Result<()> {
    match cmd {
        AnalyzeCommand::Sharing(args) => sharing(args),
        AnalyzeCommand::Compare(args) => compare(args),
        AnalyzeCommand::Profile(args) => super::policy::analyze_profile(args),
    }
}

fn sharing(args: SharingArgs) -> anyhow::Result<()> {
    let opts = SharingOptions {
        machine: args.machine.clone(),
        threads_per_socket: args.threads_per_socket,
        llc: args.llc,
        quantum_instructions: args.quantum,
    };
    let a = analyze_sharing_inputs(&args.inputs, &opts)?;
    let input = &args.inputs[0];
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".into());
        PathBuf::from("results").join(format!("{stem}.sharing.json"))
    });
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    }
    let json = serde_json::to_string_pretty(&a)?;
    numasim_output::write_file(&out, (json.clone() + "\n").as_bytes(), &args.inputs)?;
    if args.json {
        println!("{json}");
        return Ok(());
    }
    print_table(&a);
    println!("written to {}", out.display());
    Ok(())
}

fn print_table(a: &SharingAnalysis) {
    println!(
        "{} on {} · {} threads on {} sockets · counting {} · quantum {} instructions",
        a.input,
        a.machine,
        a.threads,
        a.sockets,
        if a.llc { "LLC misses" } else { "every access" },
        a.quantum_instructions
    );
    println!(
        "footprint {} pages ({:.1} MiB) · accesses {} · reads {} · writes {} ({:.1}% writes)",
        a.pages,
        a.footprint_bytes as f64 / (1 << 20) as f64,
        a.accesses,
        a.reads,
        a.writes,
        100.0 * a.writes as f64 / (a.reads + a.writes).max(1) as f64
    );
    println!("first-touch local fraction {:.3}", a.first_touch_local_fraction);
    let (p, x) = (&a.page_buckets, &a.access_buckets);
    let mut t = crate::table::Table::new(["sharers", "pages %", "accesses %"]);
    for (name, pv, av) in [
        ("1", p.one, x.one),
        ("2-4", p.two_to_four, x.two_to_four),
        ("5-8", p.five_to_eight, x.five_to_eight),
        (">8", p.more_than_eight, x.more_than_eight),
        ("all", p.all, x.all),
    ] {
        t.row([
            name.to_string(),
            format!("{:.1}", 100.0 * pv),
            format!("{:.1}", 100.0 * av),
        ]);
    }
    print!("{}", t.render());
    let mut t = crate::table::Table::new(["sharers", "pages", "accesses"]);
    for s in 1..a.pages_by_sharers.len() {
        t.row([
            s.to_string(),
            a.pages_by_sharers[s].to_string(),
            a.accesses_by_sharers[s].to_string(),
        ]);
    }
    print!("{}", t.render());
}

fn compare(args: CompareArgs) -> anyhow::Result<()> {
    let opts = numasim::analyze::CompareOptions {
        machine: args.machine.clone(),
        threads_per_socket: args.threads_per_socket,
    };
    let c = numasim::experiment::compare(&args.a, &args.b, &opts)?;
    if args.json {
        super::print_json(&c)?;
    } else {
        print_comparison(&c);
    }
    let outside = c.outside();
    if args.check && !outside.is_empty() {
        let keys: Vec<&str> = outside.iter().map(|m| m.key).collect();
        anyhow::bail!("outside their bands: {}", keys.join(", "));
    }
    Ok(())
}

fn print_comparison(c: &numasim::analyze::Comparison) {
    use numasim::analyze::Band;
    println!("A: {} ({} threads)", c.a, c.threads_a);
    println!("B: {} ({} threads)", c.b, c.threads_b);
    println!(
        "{} · {} sockets · {} thread(s) per socket · first touch · quantum 1 instruction",
        c.machine, c.sockets, c.threads_per_socket
    );
    let mut t = crate::table::Table::new(["statistic", "A", "B", "B - A", "band", "ok"]);
    let fmt = |v: f64| {
        if v.abs() >= 1000.0 {
            format!("{v:.0}")
        } else if v.abs() >= 1.0 {
            format!("{v:.2}")
        } else {
            format!("{v:.4}")
        }
    };
    for m in &c.metrics {
        let diff = match (m.band, m.relative) {
            (Band::Relative(_), Some(r)) => format!("{} ({:+.1}%)", fmt(m.diff), 100.0 * r),
            _ => fmt(m.diff),
        };
        let band = match m.band {
            Band::Points(p) => format!("±{p} pt"),
            Band::Relative(r) => format!("±{:.0}%", 100.0 * r),
            Band::None => String::new(),
        };
        let ok = match m.within {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "",
        };
        t.row([m.label.to_string(), fmt(m.a), fmt(m.b), diff, band, ok.to_string()]);
    }
    print!("{}", t.render());
}
