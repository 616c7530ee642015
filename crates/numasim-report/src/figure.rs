//! The figures `numasim plot --figure NAME` can draw: a closed set, each with the data it needs.
//! Single-run figures (machine graph, heatmap, migration, IPC, utilisation) draw the first run
//! that has the data.

use crate::charts;
use crate::error::ReportError;
use crate::results::Run;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    MachineGraph,
    LatencyHeatmap,
    AccessClasses,
    Amat,
    Speedup,
    Sharing,
    Placement,
    PlacementMap,
    Migration,
    Ipc,
    Utilisation,
    Roofline,
}

impl Figure {
    pub const ALL: [Figure; 12] = [
        Figure::MachineGraph,
        Figure::LatencyHeatmap,
        Figure::AccessClasses,
        Figure::Amat,
        Figure::Speedup,
        Figure::Sharing,
        Figure::Placement,
        Figure::PlacementMap,
        Figure::Migration,
        Figure::Ipc,
        Figure::Utilisation,
        Figure::Roofline,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Figure::MachineGraph => "machine-graph",
            Figure::LatencyHeatmap => "latency-heatmap",
            Figure::AccessClasses => "access-classes",
            Figure::Amat => "amat",
            Figure::Speedup => "speedup",
            Figure::Sharing => "sharing",
            Figure::Placement => "placement",
            Figure::PlacementMap => "placement-map",
            Figure::Migration => "migration",
            Figure::Ipc => "ipc",
            Figure::Utilisation => "utilisation",
            Figure::Roofline => "roofline",
        }
    }

    pub fn names() -> String {
        Figure::ALL.map(Figure::name).join(", ")
    }

    pub fn from_name(name: &str) -> Result<Figure, ReportError> {
        Figure::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| ReportError::UnknownFigure(name.to_string(), Figure::names()))
    }

    /// What the figure needs, in words (for the error when no run has it).
    fn needs(self) -> &'static str {
        match self {
            Figure::MachineGraph => "machine.json in the results directory",
            Figure::LatencyHeatmap => "machine.json with a load_latency_ns matrix",
            Figure::AccessClasses => "LLC misses by home of the page (totals.by_class)",
            Figure::Amat => "timing-mode results (timing.amat_ns.by_class)",
            Figure::Speedup => "two or more timing-mode runs (timing.sim_time_ns)",
            Figure::Sharing => "sharing statistics",
            Figure::Placement => "pages_per_node per phase",
            Figure::PlacementMap => "a placement_map per phase",
            Figure::Migration => "a migration policy's results (the `migration` object)",
            Figure::Ipc | Figure::Utilisation => {
                "timing-mode results with IPC and utilisation per phase (phases[].timing)"
            }
            Figure::Roofline => "a multi-process timing run ([[process]]: phases[].processes with phases[].timing)",
        }
    }

    pub fn available(self, runs: &[Run]) -> bool {
        match self {
            Figure::MachineGraph => charts::machine_graph::available(runs),
            Figure::LatencyHeatmap => runs
                .iter()
                .any(|r| r.machine.as_ref().is_some_and(charts::latency_heatmap::available)),
            Figure::AccessClasses => charts::access_classes::available(runs),
            Figure::Amat => charts::timing::amat_available(runs),
            Figure::Speedup => charts::timing::speedup_available(runs),
            Figure::Sharing => charts::sharing::available(runs),
            Figure::Placement => charts::placement::available(runs),
            Figure::PlacementMap => charts::placement_map::available(runs),
            Figure::Migration => runs.iter().any(|r| crate::migration::of(r).is_some()),
            Figure::Ipc | Figure::Utilisation => charts::timing::phases_available(runs),
            Figure::Roofline => charts::roofline::available(runs),
        }
    }

    /// Draws the figure as SVG text.
    pub fn svg(self, runs: &[Run]) -> Result<String, ReportError> {
        if !self.available(runs) {
            return Err(ReportError::FigureUnavailable {
                name: self.name().into(),
                why: format!("it needs {}", self.needs()),
            });
        }
        match self {
            Figure::MachineGraph => {
                let run = runs
                    .iter()
                    .find(|r| charts::machine_graph::available_for(r))
                    .expect("available");
                charts::machine_graph::svg(run)
            }
            Figure::LatencyHeatmap => {
                let m = runs
                    .iter()
                    .filter_map(|r| r.machine.as_ref())
                    .find(|m| charts::latency_heatmap::available(m))
                    .expect("available");
                charts::latency_heatmap::svg(m)
            }
            Figure::AccessClasses => charts::access_classes::svg(runs),
            Figure::Amat => charts::timing::amat_svg(runs),
            Figure::Speedup => charts::timing::speedup_svg(runs),
            Figure::Sharing => charts::sharing::svg(runs),
            Figure::Placement => charts::placement::svg(runs),
            Figure::PlacementMap => charts::placement_map::svg(runs),
            Figure::Ipc | Figure::Utilisation => {
                let run = runs
                    .iter()
                    .find(|r| charts::timing::phases_of(r).is_some())
                    .expect("available");
                if self == Figure::Ipc {
                    charts::timing::ipc_svg(run)
                } else {
                    charts::timing::utilisation_svg(run)
                }
            }
            Figure::Roofline => {
                let run = runs
                    .iter()
                    .find(|r| charts::roofline::series(r).is_some())
                    .expect("available");
                charts::roofline::svg(run)
            }
            Figure::Migration => {
                let (run, m) = runs
                    .iter()
                    .find_map(|r| crate::migration::of(r).map(|m| (r, m)))
                    .expect("available");
                charts::migration::svg(&run.label, &m)
            }
        }
    }
}
