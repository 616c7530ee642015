//! phases.csv: one row per phase record, every column declared once in [`COLUMNS`] with its
//! unit, its meaning and how its cell is written; a column of a declared phase counter takes
//! its name, unit and meaning from the counter's declaration ([`PhaseCounts`]).
//!
//! Why a table rather than a header list and a row builder: those two, written side by side,
//! must be kept in step by hand, and the reference (docs/reference/results.md) a third time.
//! Here a column's name, unit, meaning and cell are one entry, and the reference's phases.csv
//! table is checked against these entries row for row
//! (`cargo test -p numasim-cli --test docs phases_csv_reference_is_the_declared_columns`).

use super::run::{PhaseRecord, RunResults};
use crate::stats::PhaseCounts;
use crate::timing::PhaseTiming;
use numasim_output::stat::Stats;

/// When a column is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Every run.
    Always,
    /// Phases in simulated time (`phase_ns`) only.
    Spans,
    /// Timing mode only.
    Timed,
}

/// How many columns an entry stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// One column.
    Run,
    /// One per access class seen in the run (sorted), named `<prefix><class>`.
    Class,
    /// One per memory node of the machine, in machine order, named `<prefix><node>`.
    Node,
}

/// A cell's inputs: the phase, its timing (timing mode), and the class or node of a repeated
/// column (empty for a single one).
type Cell = fn(&PhaseRecord, Option<&PhaseTiming>, &str) -> String;

/// One declared column (or family of columns) of phases.csv.
pub struct Column {
    /// The column's name, or the prefix of a repeated column's names.
    pub name: &'static str,
    pub per: Per,
    pub when: When,
    /// Unit as the reference writes it (`—` for an index).
    pub unit: &'static str,
    pub meaning: &'static str,
    cell: Cell,
}

impl Column {
    /// The name the reference lists it under: repeated columns end in `*`.
    pub fn reference_name(&self) -> String {
        match self.per {
            Per::Run => self.name.to_string(),
            Per::Class | Per::Node => format!("{}*", self.name),
        }
    }
}

const fn col(name: &'static str, when: When, unit: &'static str, meaning: &'static str, cell: Cell) -> Column {
    Column {
        name,
        per: Per::Run,
        when,
        unit,
        meaning,
        cell,
    }
}

const fn each(name: &'static str, per: Per, unit: &'static str, meaning: &'static str, cell: Cell) -> Column {
    Column {
        name,
        per,
        when: When::Always,
        unit,
        meaning,
        cell,
    }
}

/// A column of a declared phase counter: its name, unit and meaning are the declaration's
/// ([`PhaseCounts`]).
const fn counter(name: &'static str, cell: Cell) -> Column {
    let d = numasim_output::stat::find(PhaseCounts::STATS, name);
    col(d.name, Always, d.unit, d.meaning, cell)
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

fn f4(x: f64) -> String {
    format!("{x:.4}")
}

fn f6(x: f64) -> String {
    format!("{x:.6}")
}

/// An empty cell for "no data" (a phase that timed no LLC-miss load; no profile), not 0.
fn opt3(x: Option<f64>) -> String {
    x.map_or_else(String::new, f3)
}

fn opt6(x: Option<f64>) -> String {
    x.map_or_else(String::new, f6)
}

/// A timing column's value in a phase without timing (none in timing mode: every phase has it).
fn timed(t: Option<&PhaseTiming>, f: impl Fn(&PhaseTiming) -> f64) -> f64 {
    t.map_or(0.0, f)
}

use When::{Always, Spans, Timed};

/// Every column of phases.csv, in the order written.
pub const COLUMNS: &[Column] = &[
    col("phase", Always, "—", "phase index (`phases[].index`)", |p, _, _| {
        p.index.to_string()
    }),
    counter("instructions", |p, _, _| p.summary.counts.instructions.to_string()),
    counter("accesses", |p, _, _| p.summary.counts.accesses.to_string()),
    counter("reads", |p, _, _| p.summary.counts.reads.to_string()),
    counter("writes", |p, _, _| p.summary.counts.writes.to_string()),
    counter("llc_hits", |p, _, _| p.summary.counts.llc_hits.to_string()),
    counter("llc_misses", |p, _, _| p.summary.counts.llc_misses.to_string()),
    counter("writebacks", |p, _, _| p.summary.counts.writebacks.to_string()),
    counter("new_pages", |p, _, _| p.summary.counts.new_pages.to_string()),
    col(
        "local_fraction",
        Always,
        "fraction 0–1",
        "share of memory accesses served by the requester's own memory",
        |p, _, _| f6(p.summary.local_fraction),
    ),
    col(
        "llc_mpki",
        Always,
        "misses per 1000 instructions",
        "LLC MPKI",
        |p, _, _| f4(p.summary.llc_mpki),
    ),
    each(
        "class_",
        Per::Class,
        "accesses",
        "LLC misses by home of the page, per class (`phases[].by_class`)",
        |p, _, c| p.summary.by_class.get(c).copied().unwrap_or(0).to_string(),
    ),
    each(
        "accesses_",
        Per::Node,
        "accesses",
        "demand memory accesses served by each node (`phases[].by_node`)",
        |p, _, n| p.summary.by_node.get(n).copied().unwrap_or(0).to_string(),
    ),
    each(
        "pages_",
        Per::Node,
        "pages",
        "pages on each node at the end of the phase",
        |p, _, n| p.pages_per_node.get(n).copied().unwrap_or(0).to_string(),
    ),
    col(
        "start_ns",
        Spans,
        "ns",
        "`phase_ns` only: the phase's start on the simulated clock",
        |_, t, _| f3(t.and_then(|t| t.span_ns).unwrap_or_default()[0]),
    ),
    col("end_ns", Spans, "ns", "`phase_ns` only: its end", |_, t, _| {
        f3(t.and_then(|t| t.span_ns).unwrap_or_default()[1])
    }),
    col(
        "sim_time_ns",
        Timed,
        "ns",
        "timing: the phase's simulated time",
        |_, t, _| f3(timed(t, |t| t.sim_time_ns)),
    ),
    col(
        "amat_ns",
        Timed,
        "ns",
        "timing: AMAT of the phase's LLC-miss loads",
        |_, t, _| opt3(t.and_then(|t| t.amat_ns.total)),
    ),
    col(
        "amat_unloaded_ns",
        Timed,
        "ns",
        "timing: its measured unloaded part",
        |_, t, _| opt3(t.and_then(|t| t.amat_ns.unloaded)),
    ),
    col(
        "amat_contention_ns",
        Timed,
        "ns",
        "timing: its measured queueing part",
        |_, t, _| opt3(t.and_then(|t| t.amat_ns.contention)),
    ),
    col(
        "block_transfers",
        Timed,
        "loads",
        "timing: LLC-miss loads supplied by another socket's cache",
        |_, t, _| t.map_or(0, |t| t.block_transfers).to_string(),
    ),
    col(
        "ipc_mean_of_sockets",
        Timed,
        "instructions per cycle",
        "timing: mean of `ipc_per_socket`",
        |_, t, _| {
            f4(timed(t, |t| {
                t.ipc_per_socket.values().sum::<f64>() / t.ipc_per_socket.len().max(1) as f64
            }))
        },
    ),
    col(
        "link_utilisation_max",
        Timed,
        "fraction 0–1",
        "timing: the busiest link direction's busy fraction",
        |_, t, _| f4(timed(t, |t| t.link_utilisation.max)),
    ),
    col(
        "link_utilisation_mean",
        Timed,
        "fraction 0–1",
        "timing: mean over link directions",
        |_, t, _| f4(timed(t, |t| t.link_utilisation.mean)),
    ),
    col(
        "migration_copy_span_ns",
        Timed,
        "ns",
        "timing: the boundary's copy span",
        |_, t, _| f3(timed(t, |t| t.migration.copy_span_ns)),
    ),
    col(
        "migration_core_stall_ns",
        Timed,
        "ns",
        "timing: core time lost to shootdowns and the scan",
        |_, t, _| f3(timed(t, |t| t.migration.core_stall_ns)),
    ),
    col(
        "migration_inflight_stall_ns",
        Timed,
        "ns",
        "timing: waits for pages in flight",
        |_, t, _| f3(timed(t, |t| t.migration.inflight_stall_ns)),
    ),
    col(
        "moves",
        Always,
        "pages",
        "pages moved at the phase's boundary",
        |p, _, _| p.migration.moves.to_string(),
    ),
    col(
        "ping_pongs",
        Always,
        "pages",
        "moves back to the node a page left",
        |p, _, _| p.migration.ping_pongs.to_string(),
    ),
    col(
        "pool_move_fraction",
        Always,
        "fraction 0–1",
        "share of moves to a memory-only node",
        |p, _, _| f6(p.migration.pool_move_fraction),
    ),
    col(
        "non_local_fraction",
        Always,
        "fraction 0–1",
        "share of memory accesses not served locally",
        |p, _, _| f6(p.migration.non_local_fraction),
    ),
    col(
        "stalled_accesses",
        Always,
        "accesses",
        "accesses that waited for a page in flight",
        |p, _, _| p.migration.costs.stalled_accesses.to_string(),
    ),
    col("copy_bytes", Always, "bytes", "page bytes copied", |p, _, _| {
        p.migration.costs.copy_bytes.to_string()
    }),
    col(
        "shootdown_cycles",
        Always,
        "cycles",
        "shootdown cycles, summed over cores",
        |p, _, _| p.migration.costs.shootdown_cycles.to_string(),
    ),
    col(
        "scan_entries",
        Always,
        "entries",
        "entries the OS thread scanned",
        |p, _, _| p.migration.costs.scan_entries.to_string(),
    ),
    col(
        "tracker_update_accesses",
        Always,
        "accesses",
        "StarNUMA tracker metadata accesses",
        |p, _, _| p.migration.costs.tracker_update_accesses.to_string(),
    ),
    col(
        "profile_accuracy",
        Always,
        "fraction 0–1",
        "profile accuracy (empty without a profile)",
        |p, _, _| opt6(p.migration.profile_accuracy),
    ),
    col(
        "home_match",
        Always,
        "fraction 0–1",
        "profiled pages at their profile's top socket (empty without a profile)",
        |p, _, _| opt6(p.migration.home_match),
    ),
    each(
        "moves_to_",
        Per::Node,
        "pages",
        "moves by destination node",
        |p, _, n| p.migration.moves_to.get(n).copied().unwrap_or(0).to_string(),
    ),
];

/// One row per phase; class and node columns are the union over the run, in sorted order.
pub fn phases_csv(r: &RunResults) -> std::io::Result<Vec<u8>> {
    let classes: std::collections::BTreeSet<&String> =
        r.phases.iter().flat_map(|p| p.summary.by_class.keys()).collect();
    let timed = r.timing.is_some();
    // Phases in simulated time (`phase_ns`): where each lies on the clock.
    let spans = r
        .phases
        .iter()
        .any(|p| p.timing.as_ref().is_some_and(|t| t.span_ns.is_some()));
    let written: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| match c.when {
            Always => true,
            Spans => spans,
            Timed => timed,
        })
        .collect();
    let names = |c: &Column| -> Vec<String> {
        match c.per {
            Per::Run => vec![String::new()],
            Per::Class => classes.iter().map(|s| s.to_string()).collect(),
            Per::Node => r.machine.memory_nodes.clone(),
        }
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    let header: Vec<String> = written
        .iter()
        .flat_map(|c| names(c).into_iter().map(move |n| format!("{}{n}", c.name)))
        .collect();
    w.write_record(&header).map_err(std::io::Error::other)?;
    for p in &r.phases {
        let t = p.timing.as_ref();
        let row: Vec<String> = written
            .iter()
            .flat_map(|c| names(c).into_iter().map(move |n| (c.cell)(p, t, &n)))
            .collect();
        w.write_record(&row).map_err(std::io::Error::other)?;
    }
    w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))
}
