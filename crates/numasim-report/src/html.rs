//! The self-contained HTML report: every view whose data exists in the given runs, as inline
//! SVG, with inline CSS and no external resource, rendered through a minijinja template.
//!
//! Each view is listed in [`VIEWS`] with the id the browser test looks for (`view-<id>`);
//! a view without data is left out rather than drawn empty, so views appear as the simulator
//! starts writing their data (timing, migration, per-page maps).

use crate::charts::{self, machine_graph::format_count};
use crate::error::ReportError;
use crate::figure::Figure;
use crate::migration;
use crate::results::Run;
use serde::Serialize;

const TEMPLATE: &str = include_str!("../templates/report.html");
const CSS: &str = include_str!("../templates/report.css");

/// Ids of every view the report can contain, in page order.
pub const VIEWS: [&str; 8] = [
    "summary",
    "machine",
    "access-classes",
    "amat",
    "speedup",
    "sharing",
    "placement",
    "migration",
];

#[derive(Serialize)]
struct FigureCtx {
    caption: String,
    svg: String,
}

#[derive(Serialize, Default)]
struct TableCtx {
    caption: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct ViewCtx {
    id: &'static str,
    title: &'static str,
    description: String,
    figures: Vec<FigureCtx>,
    tables: Vec<TableCtx>,
}

#[derive(Serialize)]
struct RunCtx {
    label: String,
    dir: String,
    machine: String,
    workload: String,
    placement: String,
    migration: String,
    mapping: String,
    seed: u64,
    mode: String,
    threads: u64,
    phases: u64,
    accesses: String,
    llc_misses: String,
    llc_mpki: String,
    local_fraction: String,
    footprint: String,
    wall_s: String,
    numasim_version: String,
    resolved_toml: Option<String>,
}

fn workload_text(w: &serde_json::Value) -> String {
    let gen = w
        .get("generator")
        .or_else(|| w.get("kind"))
        .and_then(|g| g.as_str())
        .unwrap_or("");
    let params = w.get("params");
    let pick = |k: &str| {
        params
            .and_then(|p| p.get(k))
            .map(|v| v.as_str().map(str::to_string).unwrap_or(v.to_string()))
    };
    let mut parts = vec![gen.to_string()];
    for k in ["pattern", "name", "path", "threads"] {
        if let Some(v) = pick(k) {
            parts.push(format!("{k} {v}"));
        }
    }
    let s = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    if s.is_empty() {
        "—".into()
    } else {
        s
    }
}

fn policy(resolved: Option<&toml::Value>, section: &str) -> String {
    resolved
        .and_then(|t| t.get(section))
        .and_then(|s| s.get("policy"))
        .and_then(|p| p.as_str())
        .unwrap_or("—")
        .to_string()
}

fn run_ctx(r: &Run) -> RunCtx {
    let t = &r.results.totals;
    let resolved: Option<toml::Value> = r.resolved_toml.as_deref().and_then(|s| s.parse().ok());
    let mig = migration::of(r)
        .map(|m| m.policy.unwrap_or_else(|| "on".into()))
        .unwrap_or_else(|| policy(resolved.as_ref(), "migration"));
    RunCtx {
        label: r.label.clone(),
        dir: r.dir.display().to_string(),
        machine: r.results.machine.name.clone(),
        workload: workload_text(&r.results.workload),
        placement: policy(resolved.as_ref(), "placement"),
        migration: mig,
        mapping: policy(resolved.as_ref(), "mapping"),
        seed: r.results.seed,
        mode: r.results.mode.clone().unwrap_or_else(|| "—".into()),
        threads: r.results.threads,
        phases: t.phases.max(r.results.phases.len() as u64),
        accesses: format_count(t.summary.accesses),
        llc_misses: format_count(t.summary.llc_misses),
        llc_mpki: format!("{:.2}", t.summary.llc_mpki),
        local_fraction: format!("{:.1}%", 100.0 * t.summary.local_fraction),
        footprint: format!(
            "{} pages ({:.1} MiB)",
            t.footprint_pages,
            t.footprint_bytes as f64 / (1 << 20) as f64
        ),
        wall_s: r
            .results
            .perf
            .as_ref()
            .map(|p| format!("{:.2} s", p.wall_s))
            .unwrap_or_else(|| "—".into()),
        numasim_version: r.results.numasim_version.clone().unwrap_or_else(|| "—".into()),
        resolved_toml: r.resolved_toml.clone(),
    }
}

fn machine_view(runs: &[Run]) -> Result<Option<ViewCtx>, ReportError> {
    let mut figures = Vec::new();
    for r in runs.iter().filter(|r| charts::machine_graph::available_for(r)) {
        let svg = charts::machine_graph::svg(r)?;
        figures.push(FigureCtx {
            caption: format!(
                "{}: machine {} — link width and colour show memory messages carried in this run; \
                 percentages are each memory node's share of accesses served.",
                r.label, r.results.machine.name
            ),
            svg,
        });
    }
    let mut seen = Vec::new();
    for m in runs.iter().filter_map(|r| r.machine.as_ref()) {
        if seen.contains(&m.name) || !charts::latency_heatmap::available(m) {
            continue;
        }
        seen.push(m.name.clone());
        figures.push(FigureCtx {
            caption: format!(
                "Unloaded load latency of {} from every socket to every memory node, ns.",
                m.name
            ),
            svg: charts::latency_heatmap::svg(m)?,
        });
    }
    Ok((!figures.is_empty()).then(|| ViewCtx {
        id: "machine",
        title: "Machine",
        description: "The machine graph with each run's link traffic, and the unloaded latency matrix.".into(),
        figures,
        tables: vec![],
    }))
}

fn single(
    id: &'static str,
    title: &'static str,
    description: String,
    fig: Figure,
    caption: &str,
    runs: &[Run],
) -> Result<Option<ViewCtx>, ReportError> {
    if !fig.available(runs) {
        return Ok(None);
    }
    Ok(Some(ViewCtx {
        id,
        title,
        description,
        figures: vec![FigureCtx {
            caption: caption.into(),
            svg: fig.svg(runs)?,
        }],
        tables: vec![],
    }))
}

fn access_table(runs: &[Run]) -> TableCtx {
    let classes = charts::access_classes::classes(runs);
    let shares = charts::access_classes::shares_percent(runs, &classes);
    let mut header = vec!["Run".to_string(), "memory accesses".into()];
    header.extend(classes.iter().map(|c| crate::palette::class_label(c)));
    TableCtx {
        caption: "Share of demand memory accesses by class".into(),
        header,
        rows: runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let total: u64 = r.results.totals.summary.by_class.values().sum();
                let mut row = vec![r.label.clone(), format_count(total)];
                row.extend(shares.iter().map(|s| format!("{:.1}%", s[i])));
                row
            })
            .collect(),
    }
}

fn sharing_table(runs: &[Run]) -> TableCtx {
    TableCtx {
        caption: "Pages / accesses touched by every socket".into(),
        header: vec![
            "Run".into(),
            "pages shared by all sockets".into(),
            "accesses to them".into(),
        ],
        rows: runs
            .iter()
            .filter_map(|r| {
                let s = r.results.sharing.as_ref()?;
                Some(vec![
                    r.label.clone(),
                    format!("{:.1}%", 100.0 * s.page_buckets.all),
                    format!("{:.1}%", 100.0 * s.access_buckets.all),
                ])
            })
            .collect(),
    }
}

fn migration_view(runs: &[Run]) -> Result<Option<ViewCtx>, ReportError> {
    let mut figures = Vec::new();
    let mut tables = Vec::new();
    for r in runs {
        let Some(m) = migration::of(r) else { continue };
        figures.push(FigureCtx {
            caption: format!(
                "{}: pages migrated at each phase boundary by source → destination node.",
                r.label
            ),
            svg: charts::migration::svg(&r.label, &m)?,
        });
        let mut header = vec!["Source → destination".to_string()];
        header.extend(m.phases.iter().map(|p| format!("phase {}", p.index)));
        header.push("total".into());
        let mut rows: Vec<Vec<String>> = m
            .pairs()
            .into_iter()
            .map(|p| {
                let v: Vec<u64> = m.phases.iter().map(|x| x.moves.get(&p).copied().unwrap_or(0)).collect();
                let mut row = vec![format!("{} → {}", p.0, p.1)];
                row.extend(v.iter().map(u64::to_string));
                row.push(v.iter().sum::<u64>().to_string());
                row
            })
            .collect();
        let mut total = vec!["all".to_string()];
        total.extend(m.phases.iter().map(|p| p.pages_moved.to_string()));
        total.push(m.total_moves().to_string());
        rows.push(total);
        if let Some(pp) = m.total_ping_pongs() {
            let mut row = vec!["ping-pongs".to_string()];
            row.extend(m.phases.iter().map(|p| p.ping_pongs.unwrap_or(0).to_string()));
            row.push(pp.to_string());
            rows.push(row);
        }
        tables.push(TableCtx {
            caption: format!("{}: pages moved per phase (Table IV style)", r.label),
            header,
            rows,
        });
    }
    Ok((!figures.is_empty()).then(|| ViewCtx {
        id: "migration",
        title: "Migration",
        description: "Pages moved by the migration policy, ping-pongs, and pool occupancy against capacity.".into(),
        figures,
        tables,
    }))
}

/// Renders the report for `runs` (already read) as one HTML document.
pub fn render(runs: &[Run]) -> Result<String, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    let mut views: Vec<ViewCtx> = Vec::new();
    views.push(ViewCtx {
        id: "summary",
        title: "Runs",
        description: "What was run, with which policies, and the totals.".into(),
        figures: vec![],
        tables: vec![],
    });
    views.extend(machine_view(runs)?);
    if let Some(mut v) = single(
        "access-classes",
        "Where accesses go",
        "Demand memory accesses (LLC misses) by where they were served.".into(),
        Figure::AccessClasses,
        "Share of each run's memory accesses served by the requester's own socket memory, by remote \
         socket memory (by hops), and by the pool.",
        runs,
    )? {
        v.tables.push(access_table(runs));
        views.push(v);
    }
    views.extend(single(
        "amat",
        "Average memory access time",
        "AMAT per run, each class's unloaded latency and contention delay weighted by its share of accesses.".into(),
        Figure::Amat,
        "AMAT stacked as unloaded + contention latency per access class.",
        runs,
    )?);
    views.extend(single(
        "speedup",
        "Speedup",
        format!(
            "Execution-time speedup over the first run ({}), with the geometric mean.",
            runs[0].label
        ),
        Figure::Speedup,
        "Speedup over the first run; the last bar is the geometric mean of the others.",
        runs,
    )?);
    if let Some(mut v) = single(
        "sharing",
        "Sharing",
        "How many sockets touch each page over the whole run (StarNUMA Fig. 2 / 13).".into(),
        Figure::Sharing,
        "Pages (left) and memory accesses (right) by the number of sockets that touched the page.",
        runs,
    )? {
        v.tables.push(sharing_table(runs));
        views.push(v);
    }
    views.extend(single(
        "placement",
        "Page placement",
        "Pages resident on each memory node at the end of every phase.".into(),
        Figure::Placement,
        "Pages per memory node over phases, stacked.",
        runs,
    )?);
    views.extend(migration_view(runs)?);

    let mut env = minijinja::Environment::new();
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| ReportError::render("report template", e))?;
    let tmpl = env
        .get_template("report.html")
        .map_err(|e| ReportError::render("report template", e))?;
    let ctx = minijinja::context! {
        css => CSS,
        runs => runs.iter().map(run_ctx).collect::<Vec<_>>(),
        views => views,
        generator => format!("numasim-report {}", env!("CARGO_PKG_VERSION")),
    };
    tmpl.render(ctx).map_err(|e| ReportError::render("report template", e))
}
