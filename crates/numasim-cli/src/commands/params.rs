//! `numasim params`: every key of a config section with its type, unit, default and meaning,
//! from the declarations the code itself uses (generator registry, the migration components'
//! `declare_params!` structs,
//! `TimingSpec::default`, the machine key table).

use crate::table::Table;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum ParamsCommand {
    /// `[timing]` keys of an experiment.
    Timing,
    /// `[workload]` keys of a generator.
    Workload {
        /// Generator name (`numasim workload list`).
        kind: String,
    },
    /// `[migration]` keys of a policy: its own, its default profiler's, and the mechanism's.
    Migration {
        /// Policy name (`numasim policy list`).
        policy: String,
    },
    /// Keys of a machine file, and the shortcuts `--set machine.KEY=V` and sweep axes also take.
    Machine,
}

/// The unit a key's name carries (names say their units).
fn unit_of(key: &str) -> &'static str {
    const SUFFIXES: [(&str, &str); 12] = [
        ("_gbps_ba", "GB/s"),
        ("_bytes", "bytes"),
        ("_ns", "ns"),
        ("_gbps", "GB/s"),
        ("_ghz", "GHz"),
        ("_cycles", "cycles"),
        ("_entries", "entries"),
        ("_ways", "ways"),
        ("_instructions", "instructions"),
        ("_fraction", "fraction"),
        ("_pages", "pages"),
        ("_cpi", "cycles/instruction"),
    ];
    SUFFIXES.iter().find(|(s, _)| key.ends_with(s)).map_or("", |(_, u)| *u)
}

/// TOML type of a default written as a TOML literal.
fn type_of(literal: &str) -> &'static str {
    match format!("v = {literal}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
    {
        Some(toml::Value::Integer(_)) => "integer",
        Some(toml::Value::Float(_)) => "float",
        Some(toml::Value::Boolean(_)) => "bool",
        Some(toml::Value::String(_)) => "string",
        Some(toml::Value::Array(_)) => "array",
        _ => "—",
    }
}

pub fn run(cmd: ParamsCommand) -> anyhow::Result<()> {
    let mut t = Table::new(["key", "type", "unit", "default", "description"]);
    match cmd {
        ParamsCommand::Timing => {
            let defaults = toml::Table::try_from(numasim::timing::TimingSpec::default())?;
            for (key, doc) in numasim::timing::params::TIMING_KEY_DOCS {
                let d = defaults.get(*key).map(ToString::to_string).unwrap_or_default();
                t.row([
                    key.to_string(),
                    type_of(&d).into(),
                    unit_of(key).into(),
                    d,
                    doc.to_string(),
                ]);
            }
        }
        ParamsCommand::Workload { kind } => {
            let list = numasim::workload::registry::list();
            let Some(g) = list.iter().find(|g| g.name == kind) else {
                let known: Vec<&str> = list.iter().map(|g| g.name).collect();
                anyhow::bail!("unknown workload `{kind}` (known: {})", known.join(", "));
            };
            for p in &g.params {
                // A multi-line description (an NPB class table) continues on rows of its own.
                let mut lines = p.description.lines();
                t.row([
                    p.name.to_string(),
                    type_of(&p.default).into(),
                    unit_of(p.name).into(),
                    p.default.clone(),
                    lines.next().unwrap_or("").to_string(),
                ]);
                for line in lines {
                    t.row([
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        line.to_string(),
                    ]);
                }
            }
        }
        ParamsCommand::Migration { policy } => {
            use numasim::migrate::params::{mechanism_params, profiler_params, PolicyKind};
            let Some(info) = PolicyKind::ALL.iter().map(|p| p.info()).find(|p| p.name == policy) else {
                let known: Vec<&str> = PolicyKind::ALL.iter().map(|p| p.info().name).collect();
                anyhow::bail!("unknown migration policy `{policy}` (known: {})", known.join(", "));
            };
            let profiler = numasim::profile::ProfilerKind::ALL
                .into_iter()
                .find(|k| k.name() == info.default_profiler);
            let mut defs = info.params.clone();
            if policy != "none" {
                defs.extend(profiler.map(profiler_params).unwrap_or_default());
                defs.extend(mechanism_params());
            }
            // Units as the parameter's declaration gives them (`crate::param` in numasim).
            for d in defs {
                let default = d.default_text();
                t.row([
                    d.name.to_string(),
                    type_of(&default).into(),
                    d.unit.into(),
                    default,
                    d.description.to_string(),
                ]);
            }
        }
        ParamsCommand::Machine => {
            for (section, key, ty, default, doc) in numasim::machine::spec::MACHINE_KEY_DOCS {
                let k = if section.is_empty() {
                    key.to_string()
                } else {
                    format!("{section}.{key}")
                };
                t.row([
                    k,
                    ty.to_string(),
                    unit_of(key).into(),
                    default.to_string(),
                    doc.to_string(),
                ]);
            }
            // Shortcuts: keys an override (`--set machine.KEY=V`) or a sweep axis may set
            // besides the file's own; they are not written in machine files.
            for (key, unit, doc) in numasim::machine::overrides::SHORTCUTS {
                t.row([
                    format!("(shortcut) {key}"),
                    "float".to_string(),
                    unit.to_string(),
                    "-".to_string(),
                    doc.to_string(),
                ]);
            }
        }
    }
    print!("{}", t.render());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_types_come_from_names_and_literals() {
        assert_eq!(unit_of("l1_bytes"), "bytes");
        assert_eq!(unit_of("latency_ns"), "ns");
        assert_eq!(unit_of("threads"), "");
        assert_eq!(type_of("0.5"), "float");
        assert_eq!(type_of("16"), "integer");
        assert_eq!(type_of("\"gap\""), "string");
        assert_eq!(type_of("random"), "—");
    }
}
