use crate::table::Table;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum WorkloadCommand {
    /// Generators, what they model, and their parameters with defaults.
    List {
        /// Print the generators and their parameters as JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: WorkloadCommand) -> anyhow::Result<()> {
    match cmd {
        WorkloadCommand::List { json } => {
            let list = numasim::workload::list();
            if json {
                return super::print_json(&list);
            }
            for g in list {
                println!("{} — {}\n  paper: {}", g.name, g.summary, g.paper);
                let mut t = Table::new(["parameter", "default", "meaning"]);
                for p in g.params {
                    // A multi-line description (an NPB class table) continues on rows of its own.
                    let mut lines = p.description.lines();
                    t.row([
                        p.name.to_string(),
                        p.default_text(),
                        lines.next().unwrap_or("").to_string(),
                    ]);
                    for line in lines {
                        t.row([String::new(), String::new(), line.to_string()]);
                    }
                }
                for line in t.render().lines() {
                    println!("  {line}");
                }
                println!();
            }
            Ok(())
        }
    }
}
