//! `numasim params`: every key of a config section with its type, unit, default and meaning,
//! from the declarations the code itself uses (`numasim_config::declare_params!` for `[timing]`,
//! every generator's `[workload]`, `[migration]` and the machine file's sections).

use crate::table::Table;
use clap::{Args, Subcommand};
use numasim_config::param::ParamDef;

#[derive(Args)]
pub struct ParamsArgs {
    #[command(subcommand)]
    cmd: ParamsCommand,
    /// Markdown tables instead of aligned text (`numasim params all --markdown` is
    /// docs/reference/parameters.md).
    #[arg(long, global = true)]
    markdown: bool,
}

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
    /// Every section: `[timing]`, the machine file, every generator's `[workload]`, and
    /// `[migration]` (the mechanism's keys, every policy's and every profiler's).
    All,
}

/// One section's rows: key, type, unit, default, allowed values, meaning.
type Rows = Vec<[String; 6]>;

/// Rows of declared parameters; a multi-line description (an NPB class table) continues on
/// rows of its own.
fn def_rows(defs: Vec<ParamDef>) -> Rows {
    let mut rows = Rows::new();
    for d in defs {
        let mut lines = d.description.lines();
        rows.push([
            d.name.to_string(),
            d.kind.to_string(),
            d.unit.to_string(),
            d.default_text(),
            d.check.allowed_text(),
            lines.next().unwrap_or("").to_string(),
        ]);
        for line in lines {
            rows.push(["", "", "", "", "", line].map(String::from));
        }
    }
    rows
}

fn timing_rows() -> Rows {
    def_rows(numasim::timing::TimingSpec::defs())
}

fn workload_rows(kind: &str) -> anyhow::Result<Rows> {
    let list = numasim::workload::registry::list();
    let Some(g) = list.into_iter().find(|g| g.name == kind) else {
        let known: Vec<&str> = numasim::workload::registry::list().iter().map(|g| g.name).collect();
        anyhow::bail!("unknown workload `{kind}` (known: {})", known.join(", "));
    };
    Ok(def_rows(g.params))
}

fn migration_rows(policy: &str) -> anyhow::Result<Rows> {
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
    Ok(def_rows(defs))
}

fn machine_rows() -> Rows {
    let mut rows = Rows::new();
    for (section, defs) in numasim::machine::spec::key_sections() {
        for mut row in def_rows(defs) {
            if !section.is_empty() && !row[0].is_empty() {
                row[0] = format!("{section}.{}", row[0]);
            }
            rows.push(row);
        }
    }
    // Shortcuts: keys an override (`--set machine.KEY=V`) or a sweep axis may set besides the
    // file's own; they are not written in machine files.
    for (key, unit, doc) in numasim::machine::overrides::SHORTCUTS {
        rows.push([
            format!("(shortcut) {key}"),
            if *unit == "bytes" { "integer" } else { "float" }.to_string(),
            unit.to_string(),
            "-".to_string(),
            String::new(),
            doc.to_string(),
        ]);
    }
    rows
}

/// Aligned text, as the terminal shows it (no `allowed` column: it is in the descriptions).
fn text(rows: &Rows) -> String {
    let mut t = Table::new(["key", "type", "unit", "default", "description"]);
    for r in rows {
        t.row([&r[0], &r[1], &r[2], &r[3], &r[5]]);
    }
    t.render()
}

/// A Markdown table; `|` inside a cell is escaped.
fn markdown(rows: &Rows) -> String {
    let cell = |c: &str| c.replace('|', "\\|");
    let mut out = String::from("| key | type | unit | default | allowed | meaning |\n|---|---|---|---|---|---|\n");
    for r in rows {
        let key = if r[0].is_empty() {
            String::new()
        } else {
            format!("`{}`", r[0])
        };
        out.push_str(&format!(
            "| {key} | {} | {} | {} | {} | {} |\n",
            cell(&r[1]),
            cell(&r[2]),
            cell(&r[3]),
            cell(&r[4]),
            cell(&r[5])
        ));
    }
    out
}

/// docs/reference/parameters.md: every section, generated from the declarations.
fn all_markdown() -> anyhow::Result<String> {
    use numasim::migrate::params::{mechanism_params, profiler_params, PolicyKind};
    use numasim::profile::ProfilerKind;
    let mut out = String::from(
        "# Parameter reference\n\n\
         Generated from the declarations by `numasim params all --markdown`; do not edit by hand \
         (`cargo test -p numasim-cli --test docs` fails when it differs from the code). One \
         section: `numasim params timing | machine | workload KIND | migration POLICY`.\n\n",
    );
    out.push_str("## `[timing]` (experiment)\n\n");
    out.push_str(&markdown(&timing_rows()));
    out.push_str("\n## Machine file\n\n");
    out.push_str(&markdown(&machine_rows()));
    out.push_str("\n## `[workload]` by generator\n");
    for g in numasim::workload::registry::list() {
        out.push_str(&format!("\n### `kind = \"{}\"`\n\n", g.name));
        out.push_str(&markdown(&workload_rows(g.name)?));
    }
    out.push_str("\n## `[migration]`\n\n### Mechanism (every policy but `none`)\n\n");
    out.push_str(&markdown(&def_rows(mechanism_params())));
    for p in PolicyKind::ALL {
        let info = p.info();
        out.push_str(&format!(
            "\n### `policy = \"{}\"`\n\n{} ({}). Profilers: {}; default `{}`.\n\n",
            info.name,
            info.summary,
            info.paper,
            info.profilers
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", "),
            info.default_profiler
        ));
        if info.params.is_empty() {
            out.push_str("No keys of its own.\n");
        } else {
            out.push_str(&markdown(&def_rows(info.params.clone())));
        }
    }
    for k in ProfilerKind::ALL {
        out.push_str(&format!("\n### `profiler = \"{}\"`\n\n{}.\n\n", k.name(), k.summary()));
        let defs = profiler_params(k);
        if defs.is_empty() {
            out.push_str("No keys of its own.\n");
        } else {
            out.push_str(&markdown(&def_rows(defs)));
        }
    }
    Ok(out)
}

pub fn run(args: ParamsArgs) -> anyhow::Result<()> {
    let rows = match args.cmd {
        ParamsCommand::Timing => timing_rows(),
        ParamsCommand::Workload { kind } => workload_rows(&kind)?,
        ParamsCommand::Migration { policy } => migration_rows(&policy)?,
        ParamsCommand::Machine => machine_rows(),
        ParamsCommand::All => {
            if !args.markdown {
                anyhow::bail!("`params all` writes the whole reference as Markdown: add --markdown");
            }
            print!("{}", all_markdown()?);
            return Ok(());
        }
    };
    print!("{}", if args.markdown { markdown(&rows) } else { text(&rows) });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units, types and ranges are the declarations', not guessed from key names.
    #[test]
    fn rows_come_from_the_declarations() {
        let timing = timing_rows();
        let row = |rows: &Rows, key: &str| rows.iter().find(|r| r[0] == key).cloned().expect(key);
        assert_eq!(
            row(&timing, "rob_entries")[1..5],
            ["integer", "entries", "256", "1 … 65536"]
        );
        assert_eq!(
            row(&timing, "base_cpi")[1..5],
            ["float", "cycles/instruction", "0.5", "> 0, ≤ 1000"]
        );
        let stream = workload_rows("stream").unwrap();
        assert_eq!(row(&stream, "threads")[1..5], ["integer", "threads", "16", "1 … 4096"]);
        assert_eq!(row(&stream, "kernel")[1..4], ["string", "-", "\"triad\""]);
        assert!(workload_rows("no-such").is_err());
    }
}
