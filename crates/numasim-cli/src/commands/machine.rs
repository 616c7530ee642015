use crate::table::Table;
use clap::Subcommand;
use numasim::machine::{presets, Machine};

#[derive(Subcommand)]
pub enum MachineCommand {
    /// Built-in presets (files under configs/machines/).
    List {
        /// Print the presets as JSON (name and description of each) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Nodes, links, derived routes and the unloaded load-latency matrix of a machine.
    Show {
        /// Preset name or path to a machine TOML.
        machine: String,
        /// Print the machine as JSON (nodes, links, routes, latency matrix) instead of tables.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: MachineCommand) -> anyhow::Result<()> {
    match cmd {
        MachineCommand::List { json } => {
            let list: Vec<serde_json::Value> = presets::list()
                .iter()
                .map(|(n, d)| serde_json::json!({"name": n, "description": d}))
                .collect();
            if json {
                return super::print_json(&list);
            }
            let mut t = Table::new(["preset", "description"]);
            for (n, d) in presets::list() {
                t.row([*n, *d]);
            }
            print!("{}", t.render());
            Ok(())
        }
        MachineCommand::Show { machine, json } => {
            let m = Machine::load(&machine)?;
            let s = m.summary();
            if json {
                return super::print_json(&s);
            }
            println!("machine {} — {}", s.name, s.description);
            println!(
                "{} sockets, {} cores, {} memory nodes, {} switches, {} links\n",
                s.sockets.len(),
                s.total_cores,
                s.memory_nodes.len(),
                s.switches.len(),
                s.links.len()
            );
            println!(
                "coherence: {}{} (an experiment's [timing] coherence overrides it)\n",
                s.coherence,
                if s.coherence_declared {
                    ", declared by the machine file"
                } else {
                    ", the default: the machine file declares none"
                }
            );
            let mut t = Table::new(["socket", "cores", "freq_ghz", "llc_bytes", "llc_ways"]);
            for d in &s.socket_details {
                t.row([
                    d.name.clone(),
                    d.cores.to_string(),
                    d.freq_ghz.to_string(),
                    d.llc_bytes.to_string(),
                    d.llc_ways.to_string(),
                ]);
            }
            println!("{}", t.render());
            let mut t = Table::new([
                "memory",
                "kind",
                "capacity_bytes",
                "channels",
                "dram",
                "peak_gbps",
                "access_latency_ns",
                "attached_to",
            ]);
            for n in &s.memory_nodes {
                t.row([
                    n.name.clone(),
                    n.kind.clone(),
                    n.capacity_bytes.to_string(),
                    n.channels.to_string(),
                    n.dram.clone(),
                    format!("{:.1}", n.peak_bandwidth_gbps),
                    format!("{}", n.access_latency_ns),
                    n.attached_socket.clone().unwrap_or_else(|| "-".into()),
                ]);
            }
            println!("{}", t.render());
            if !s.switches.is_empty() {
                let mut t = Table::new(["switch", "transit_latency_ns"]);
                for w in &s.switches {
                    t.row([w.name.clone(), w.transit_latency_ns.to_string()]);
                }
                println!("{}", t.render());
            }
            let mut t = Table::new(["link", "a", "b", "type", "gbps_a_to_b", "gbps_b_to_a", "latency_ns"]);
            for l in &s.links {
                t.row([
                    l.name.clone(),
                    l.a.clone(),
                    l.b.clone(),
                    l.link_type.clone().unwrap_or_default(),
                    l.bandwidth_gbps_ab.to_string(),
                    l.bandwidth_gbps_ba.to_string(),
                    l.latency_ns.to_string(),
                ]);
            }
            println!("{}", t.render());
            let mut t = Table::new(["from", "to", "hops", "load_latency_ns", "path"]);
            for r in &s.routes {
                t.row([
                    r.from.clone(),
                    r.to.clone(),
                    r.hops.to_string(),
                    r.load_latency_ns.map(|l| format!("{l}")).unwrap_or_default(),
                    r.path.join(" > "),
                ]);
            }
            println!("{}", t.render());
            println!("unloaded load latency, ns (rows: sockets, columns: memory nodes)");
            let mut t =
                Table::new(std::iter::once("".to_string()).chain(s.memory_nodes.iter().map(|n| n.name.clone())));
            for (i, row) in s.load_latency_ns.iter().enumerate() {
                t.row(std::iter::once(s.sockets[i].clone()).chain(row.iter().map(|v| format!("{v}"))));
            }
            print!("{}", t.render());
            Ok(())
        }
    }
}
