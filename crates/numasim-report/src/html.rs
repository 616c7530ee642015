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
pub const VIEWS: [&str; 12] = [
    "summary",
    "machine",
    "access-classes",
    "amat",
    "speedup",
    "processes",
    "timing",
    "sharing",
    "placement",
    "placement-map",
    "migration",
    "similarity",
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
    /// One figure per row at full width (figures with many small cells, e.g. heatmaps).
    wide: bool,
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
    /// Timing mode only ("—" otherwise): the headline numbers, not only bar heights.
    sim_time: String,
    amat: String,
    ipc: String,
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

/// A number under results.json's `timing` object, formatted, or "—" when absent.
fn timing_number(r: &Run, path: &[&str], unit: &str) -> String {
    let mut v = r.raw.get("timing");
    for k in path {
        v = v.and_then(|x| x.get(*k));
    }
    v.and_then(serde_json::Value::as_f64)
        .filter(|x| x.is_finite())
        .map_or_else(|| "—".into(), |x| format!("{x:.2}{unit}"))
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
        sim_time: crate::timing::runtime(r).map_or_else(|| "—".into(), |t| format!("{:.1} µs", t / 1000.0)),
        amat: timing_number(r, &["amat_ns", "total"], " ns"),
        ipc: timing_number(r, &["ipc", "mean"], ""),
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
        wide: false,
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
        wide: false,
    }))
}

fn access_table(runs: &[Run]) -> TableCtx {
    let classes = charts::access_classes::classes(runs);
    let shares = charts::access_classes::shares_percent(runs, &classes);
    let mut header = vec!["Run".to_string(), "memory accesses".into()];
    header.extend(classes.iter().map(|c| crate::palette::class_label(c)));
    TableCtx {
        caption: "LLC misses (reads and writes) by home of the page".into(),
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

/// The AMAT view's numbers: per run, simulated time, AMAT and its split, and for every class the
/// loads it is averaged over (so a mean over a handful of loads is visibly thin).
fn amat_table(runs: &[Run]) -> Option<TableCtx> {
    let mut rows = Vec::new();
    for r in runs {
        let Some(classes) = crate::timing::amat_by_class(r) else {
            continue;
        };
        let weights = crate::timing::amat_weights(r, &classes);
        let (mut unloaded, mut contention) = (0.0, 0.0);
        for (c, w) in classes.iter().zip(&weights) {
            unloaded += w * c.unloaded_ns;
            contention += w * c.contention_ns;
        }
        let time = crate::timing::runtime(r).map_or_else(|| "—".to_string(), |t| format!("{:.1} µs", t / 1000.0));
        rows.push(vec![
            r.label.clone(),
            "all".into(),
            "—".into(),
            time.clone(),
            format!("{:.1}", unloaded + contention),
            format!("{unloaded:.1}"),
            format!("{contention:.1}"),
        ]);
        // StarNUMA Fig. 8b's split (analytical unloaded from nominal latencies; contention =
        // measured − that), labelled apart from the measured split above.
        if let Some(a) = r
            .raw
            .get("timing")
            .and_then(|t| t.get("amat_ns"))
            .and_then(|a| a.get("analytical"))
        {
            let f = |k: &str| a.get(k).and_then(serde_json::Value::as_f64);
            if let (Some(u), Some(c)) = (f("unloaded"), f("contention")) {
                rows.push(vec![
                    r.label.clone(),
                    "all, Fig. 8b split (nominal unloaded)".into(),
                    "—".into(),
                    String::new(),
                    format!("{:.1}", u + c),
                    format!("{u:.1}"),
                    format!("{c:.1}"),
                ]);
            }
        }
        for (c, w) in classes.iter().zip(&weights) {
            rows.push(vec![
                r.label.clone(),
                crate::palette::class_label(&c.class),
                match c.count {
                    None => format!("{:.1}%", 100.0 * w),
                    Some(n) if c.few_samples => format!("{} (too few: mean not representative)", format_count(n)),
                    Some(n) => format_count(n),
                },
                String::new(),
                format!("{:.1}", c.unloaded_ns + c.contention_ns),
                format!("{:.1}", c.unloaded_ns),
                format!("{:.1}", c.contention_ns),
            ]);
        }
    }
    (!rows.is_empty()).then(|| TableCtx {
        caption: "AMAT of LLC-miss loads by class, ns (loads: how many the class's mean is over). \
                  Unloaded and contention are measured per access (row hits lower unloaded); the \
                  \"Fig. 8b split\" row is StarNUMA's: unloaded = Σ class share × nominal latency, \
                  contention = measured − that (negative when loads are served faster than the \
                  nominal latencies, e.g. DRAM row hits; results.json splits it into queueing and \
                  service_vs_nominal)"
            .into(),
        header: [
            "Run",
            "class",
            "loads",
            "simulated time",
            "AMAT ns",
            "unloaded ns",
            "contention ns",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Multi-process runs side by side: each process's counts, where its pages are, and (timing)
/// its finish time, also relative to the same-named process of the first run that has it (the
/// per-program normalised execution time HyDM reports).
fn processes_view(runs: &[Run]) -> Result<Option<ViewCtx>, ReportError> {
    if runs.iter().all(|r| r.results.processes.is_empty()) {
        return Ok(None);
    }
    // A roofline per timing run (HyDM Fig. 2/4).
    let mut figures = Vec::new();
    for r in runs.iter().filter(|r| charts::roofline::series(r).is_some()) {
        figures.push(FigureCtx {
            caption: format!(
                "Roofline of {}: each process's arithmetic intensity and flop rate per phase under \
                 each memory node's bandwidth roof (no compute roof: cores are not modelled down to \
                 their floating-point units).",
                r.label
            ),
            svg: charts::roofline::svg(r)?,
        });
    }
    let mut nodes: Vec<String> = Vec::new();
    for p in runs.iter().flat_map(|r| &r.results.processes) {
        for n in p.pages_per_node.keys() {
            if !nodes.contains(n) {
                nodes.push(n.clone());
            }
        }
    }
    let baseline = |name: &str| {
        runs.iter()
            .flat_map(|r| &r.results.processes)
            .find(|p| p.name == name)
            .and_then(|p| p.finish_time_ns)
    };
    let mut header: Vec<String> = ["Run", "process", "threads", "accesses", "flops", "LLC misses", "pages"]
        .map(String::from)
        .to_vec();
    header.extend(nodes.iter().map(|n| format!("on {n}")));
    header.extend(["finish time", "vs first run", "AMAT"].map(String::from));
    let mut rows = Vec::new();
    for r in runs {
        for p in &r.results.processes {
            let mut row = vec![
                r.label.clone(),
                p.name.clone(),
                p.threads.to_string(),
                format_count(p.accesses),
                format_count(p.flops),
                format_count(p.llc_misses),
                format_count(p.footprint_pages),
            ];
            for n in &nodes {
                let on = p.pages_per_node.get(n).copied().unwrap_or(0);
                row.push(format!("{:.1}%", 100.0 * on as f64 / p.footprint_pages.max(1) as f64));
            }
            row.push(p.finish_time_ns.map_or("—".into(), |t| format!("{:.1} µs", t / 1000.0)));
            row.push(match (p.finish_time_ns, baseline(&p.name)) {
                (Some(t), Some(b)) if b > 0.0 && t.is_finite() => format!("{:.3}×", t / b),
                _ => "—".into(),
            });
            row.push(p.amat_ns.map_or("—".into(), |a| format!("{a:.1} ns")));
            rows.push(row);
        }
    }
    Ok(Some(ViewCtx {
        id: "processes",
        title: "Processes",
        description: "Programs sharing the machine ([[process]] experiments): each one's accesses, \
             flops and LLC misses, where its pages are at the end of the run, and in timing mode \
             when it finished, also relative to the same process in the first run (HyDM's \
             normalised execution time), and the AMAT of its LLC-miss loads."
            .into(),
        figures,
        tables: vec![TableCtx {
            caption: "Per process, per run".into(),
            header,
            rows,
        }],
        wide: false,
    }))
}

/// The speedup view's numbers: simulated time and speedup of each timing run over the first.
fn speedup_table(runs: &[Run]) -> Option<TableCtx> {
    let (s, geo) = crate::timing::speedups(runs)?;
    let mut rows: Vec<Vec<String>> = s
        .iter()
        .map(|&(i, x)| {
            let t = crate::timing::runtime(&runs[i]).unwrap_or(0.0);
            vec![
                runs[i].label.clone(),
                format!("{:.1} µs", t / 1000.0),
                format!("{x:.3}×"),
            ]
        })
        .collect();
    if s.len() > 2 {
        rows.push(vec!["geometric mean".into(), "—".into(), format!("{geo:.3}×")]);
    }
    Some(TableCtx {
        caption: format!("Simulated time and speedup over {}", runs[s[0].0].label),
        header: vec!["Run".into(), "simulated time".into(), "speedup".into()],
        rows,
    })
}

/// Each run's dimensionless numbers beside the paper's (results.json `similarity`).
fn similarity_view(runs: &[Run]) -> Option<ViewCtx> {
    use crate::similarity::format_value;
    let mut tables = Vec::new();
    for r in runs {
        let Some(s) = crate::similarity::of(r) else { continue };
        let caption = match (&s.source, s.scale) {
            (Some(src), Some(k)) => format!(
                "{}: scaled copy of {src} at {} of its footprint",
                r.label,
                format_value(Some(k))
            ),
            (None, Some(k)) => format!("{}: {} of the reference footprint", r.label, format_value(Some(k))),
            _ => format!("{}: no reference declared", r.label),
        };
        tables.push(TableCtx {
            caption,
            header: vec!["number".into(), "this run".into(), "paper".into(), "run / paper".into()],
            rows: s
                .rows
                .iter()
                .map(|row| {
                    vec![
                        row.number.replace('_', " "),
                        format_value(row.run),
                        format_value(row.reference),
                        row.ratio().map_or_else(|| "—".into(), |x| format!("{x:.2}×")),
                    ]
                })
                .collect(),
        });
    }
    (!tables.is_empty()).then(|| ViewCtx {
        id: "similarity",
        title: "Similarity to the paper",
        description: "The dimensionless numbers that decide a scaled run's outcome (instructions per phase \
             per footprint byte, pages movable per phase, capacities, samples per page per phase, \
             phases per run, timed share, simulated time per byte, LLC over footprint), this run's \
             beside the paper's when the experiment declares its reference (`[similarity]`). A ratio \
             far from 1× is a number the run did not keep."
            .into(),
        figures: vec![],
        tables,
        wide: false,
    })
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
            caption: format!(
                "{}: pages moved in each of its {} phases (Table IV style){}",
                r.label,
                m.phases.len(),
                if m.phases.len() > 8 {
                    "; every phase is a column, the table scrolls sideways"
                } else {
                    ""
                }
            ),
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
        wide: false,
    }))
}

fn timing_view(runs: &[Run]) -> Result<Option<ViewCtx>, ReportError> {
    let mut figures = Vec::new();
    for r in runs.iter().filter(|r| charts::timing::phases_of(r).is_some()) {
        figures.push(FigureCtx {
            caption: format!(
                "{}: instructions per cycle of each socket in every phase, each core's from the \
                 phase's start to its finish of the phase, mean over the socket's cores; grey: no \
                 instructions ran.",
                r.label
            ),
            svg: charts::timing::ipc_svg(r)?,
        });
        figures.push(FigureCtx {
            caption: format!(
                "{}: share of each phase that the busiest link directions and each memory node's \
                 data buses were busy.",
                r.label
            ),
            svg: charts::timing::utilisation_svg(r)?,
        });
    }
    Ok((!figures.is_empty()).then(|| ViewCtx {
        id: "timing",
        title: "Timing over phases",
        description: "Timing-mode runs: IPC per socket, link-direction and memory-channel utilisation, phase by phase."
            .into(),
        figures,
        tables: vec![],
        wide: true,
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
        wide: false,
    });
    views.extend(machine_view(runs)?);
    if let Some(mut v) = single(
        "access-classes",
        "Where accesses go",
        "LLC misses (reads and writes) by home of the page: where the page's memory is relative to \
         the requesting socket. The AMAT view counts something else under the same class names: \
         LLC-miss loads by who supplied the data (block transfers included)."
            .into(),
        Figure::AccessClasses,
        "Share of each run's memory accesses served by the requester's own socket memory, by remote \
         socket memory (by hops), and by the pool.",
        runs,
    )? {
        v.tables.push(access_table(runs));
        views.push(v);
    }
    if let Some(mut v) = single(
        "amat",
        "Average memory access time",
        "AMAT of LLC-miss loads by data source (timing runs): each class's unloaded latency and \
         contention delay weighted by its share of loads. Unlike \"Where accesses go\" (all LLC \
         misses by home of the page), a load served from another socket's cache counts as \
         block_transfer."
            .into(),
        Figure::Amat,
        "AMAT stacked as unloaded + contention latency per access class.",
        runs,
    )? {
        v.tables.extend(amat_table(runs));
        views.push(v);
    }
    if let Some(mut v) = single(
        "speedup",
        "Speedup",
        format!(
            "Execution-time speedup of the timing-mode runs over the first of them ({}), with the \
             geometric mean.",
            crate::timing::speedups(runs)
                .map(|(s, _)| runs[s[0].0].label.clone())
                .unwrap_or_default()
        ),
        Figure::Speedup,
        "Speedup (baseline time / run time) over the first timing-mode run; with two or more \
         comparisons, the last bar is their geometric mean.",
        runs,
    )? {
        v.tables.extend(speedup_table(runs));
        views.push(v);
    }
    views.extend(processes_view(runs)?);
    views.extend(timing_view(runs)?);
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
    views.extend(single(
        "placement-map",
        "Page placement map",
        "Where the touched address space lives, phase by phase (Tikir & Hollingsworth's view): \
         pages in virtual-address order cut into bins, each coloured by the node holding most of it."
            .into(),
        Figure::PlacementMap,
        "Each column is a phase; bottom to top, the pages touched by then in increasing virtual \
         address, in up to 64 equal bins. Colour: node holding most of the bin's pages (paler = a \
         smaller majority). Black dots: bins whose pages the phase's boundary migration moved \
         (larger = more of the bin).",
        runs,
    )?);
    views.extend(migration_view(runs)?);
    views.extend(similarity_view(runs));

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run_from(results: serde_json::Value) -> (tempfile::TempDir, Run) {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("results.json"), results.to_string()).unwrap();
        let run = crate::results::load_run(d.path()).unwrap();
        (d, run)
    }

    fn base(name: &str) -> serde_json::Value {
        json!({"schema_version": 1, "name": name, "seed": 1,
            "machine": {"name": "m", "sockets": ["s0", "s1"], "memory_nodes": ["m0", "m1", "pool"]},
            "threads": 2, "totals": {"accesses": 10, "by_class": {"local": 6, "pool": 4}}})
    }

    /// The `<section>` of view `id` in rendered HTML.
    fn section<'a>(html: &'a str, id: &str) -> Option<&'a str> {
        let start = html.find(&format!("id=\"view-{id}\""))?;
        let end = html[start..].find("</section>")? + start;
        Some(&html[start..end])
    }

    fn timed(name: &str, sim_time_ns: f64) -> serde_json::Value {
        let mut r = base(name);
        r["mode"] = json!("timing");
        r["timing"] = json!({"sim_time_ns": sim_time_ns, "amat_ns": {"total": 150.0, "by_class": {
            "local": {"count": 6, "mean": 100.0, "unloaded": 80.0, "contention": 20.0},
            "block_transfer": {"count": 2, "mean": 300.0, "unloaded": 280.0, "contention": 20.0}}}});
        r["phases"] = json!([0, 1, 2].map(|i| json!({"index": i, "accesses": 3,
            "timing": {"sim_time_ns": 10.0, "ipc_per_socket": {"s0": 0.5 + i as f64 / 10.0, "s1": 0.4},
                "link_utilisation": {"mean": 0.1, "max": 0.3, "busiest": {"s0→s1": 0.3}},
                "channel_utilisation": {"m0": 0.2, "m1": 0.05, "pool": 0.0}}})));
        r
    }

    #[test]
    fn processes_view_shows_each_process_and_its_time_relative_to_the_first_run() {
        let procs = |t_cg: f64| {
            let mut r = base("x");
            r["processes"] = json!([
                {"name": "cg.0", "threads": 2, "accesses": 100, "flops": 50, "llc_misses": 10,
                 "footprint_pages": 4, "pages_per_node": {"m0": 1, "m1": 3}, "finish_time_ns": t_cg, "amat_ns": 120.0},
                {"name": "ep.0", "threads": 1, "accesses": 7, "footprint_pages": 1, "pages_per_node": {"m0": 1}}]);
            r
        };
        let (mut a, mut b) = (procs(2000.0), procs(1500.0));
        // The second run is timed per phase: its roofline is drawn, the first run's is not.
        b["phases"] = json!([{"index": 0, "accesses": 10, "timing": {"sim_time_ns": 100.0},
            "processes": [{"flops": 400, "llc_misses": 2, "accesses": 9}, {"flops": 0, "llc_misses": 1, "accesses": 1}]}]);
        let (_dr, rb0) = run_from(b.clone());
        let s = crate::charts::roofline::series(&rb0).unwrap();
        assert_eq!(
            s[0].points,
            vec![(400.0 / 128.0, 4.0)],
            "flops per LLC-miss byte, GFLOP/s"
        );
        assert!(
            s[1].points.is_empty(),
            "a phase without flops has no point on a log axis"
        );
        a["name"] = json!("default");
        b["name"] = json!("hydm");
        let (_d1, ra) = run_from(a);
        let (_d2, rb) = run_from(b);
        let html = render(&[ra, rb]).unwrap();
        let s = section(&html, "processes").expect("processes view");
        assert!(s.contains("cg.0") && s.contains("ep.0"), "{s}");
        assert!(s.contains("75.0%"), "share of cg.0's pages on m1: {s}");
        assert!(s.contains("0.750×"), "hydm's cg.0 relative to the default run's: {s}");
        assert!(s.contains("2.0 µs") && s.contains("120.0 ns"), "{s}");
        assert_eq!(s.matches("<svg").count(), 1, "one roofline, for the timed run");
        let (_d3, plain) = run_from(base("plain"));
        assert!(
            section(&render(&[plain]).unwrap(), "processes").is_none(),
            "no processes, no view"
        );
    }

    #[test]
    fn placement_map_view_appears_with_its_data_only() {
        let mut r = base("mapped");
        r["phases"] = json!([
            {"index": 0, "accesses": 5, "placement_map": {"pages": 6, "first_vpage": [0, 2, 9],
             "home": [0, 1, 2], "home_permille": [1000, 500, 1000], "migrated": [0, 0, 0]}},
            {"index": 1, "accesses": 5, "placement_map": {"pages": 6, "first_vpage": [0, 2, 9],
             "home": [0, 2, 2], "home_permille": [1000, 1000, 1000], "migrated": [0, 2, 0]}}]);
        let (_d, run) = run_from(r);
        let html = render(std::slice::from_ref(&run)).unwrap();
        let s = section(&html, "placement-map").expect("placement map view");
        assert!(
            s.contains("<svg") && s.contains("<rect") && s.contains("pages migrated"),
            "{s}"
        );
        // A migration dot in phase 1 only: exactly one black-filled circle.
        assert_eq!(s.matches("<circle").count(), 2, "dot and its white outline");
        assert!(Figure::PlacementMap.svg(std::slice::from_ref(&run)).is_ok());
        // Without maps (or with only malformed ones) the view is left out and nothing panics.
        let mut bad = base("bad");
        bad["phases"] = json!([{"index": 0, "accesses": 1, "placement_map": {"pages": 1, "home": [0, 1, 2]}},
                               {"index": 1, "accesses": 1, "placement_map": {"pages": "x", "home": "y"}}]);
        let (_d2, bad) = run_from(bad);
        let html = render(std::slice::from_ref(&bad)).unwrap();
        assert!(section(&html, "placement-map").is_none());
        assert!(Figure::PlacementMap.svg(&[bad]).is_err());
    }

    #[test]
    fn timing_views_use_only_timing_runs() {
        let (_a, fast) = run_from(timed("fast", 100.0));
        let (_b, functional) = run_from(base("functional"));
        let (_c, slow) = run_from(timed("slow", 200.0));
        let runs = vec![functional, slow, fast];
        // Speedup over the first timing run, the functional run left out: slow 1×, fast 2×.
        let (s, geo) = crate::timing::speedups(&runs).unwrap();
        assert_eq!(s, [(1, 1.0), (2, 2.0)]);
        assert!((geo - 2.0).abs() < 1e-12);
        // AMAT weights from the class counts (block transfers are not in totals.by_class), so
        // the stack adds up to the AMAT: (6·100 + 2·300) / 8 = 150 ns.
        let a = crate::timing::amat_by_class(&runs[1]).unwrap();
        let w = crate::timing::amat_weights(&runs[1], &a);
        let amat: f64 = a
            .iter()
            .zip(&w)
            .map(|(c, w)| w * (c.unloaded_ns + c.contention_ns))
            .sum();
        assert!((amat - 150.0).abs() < 1e-9, "{amat}");
        let html = render(&runs).unwrap();
        for id in ["amat", "speedup", "timing"] {
            let s = section(&html, id).unwrap_or_else(|| panic!("view {id}"));
            assert!(s.contains("<svg") && s.contains("<rect"), "view {id} empty");
        }
        let t = section(&html, "timing").unwrap();
        assert!(t.contains("IPC per socket over phases, slow") && t.contains("utilisation over phases, fast"));
        assert!(!t.contains("functional"), "a functional run has no timing figures");
        assert!(section(&html, "amat").unwrap().contains("block transfer"));
        // The numbers stand beside the bars: AMAT table with the load count of every class, the
        // run's simulated time and speedups, and the runs table's simulated time.
        let amat_view = section(&html, "amat").unwrap();
        assert!(amat_view.contains("<td>150.0</td>"), "total AMAT in the table");
        assert!(
            amat_view.contains("<td>2</td>") && amat_view.contains("<td>6</td>"),
            "class load counts"
        );
        let speed = section(&html, "speedup").unwrap();
        assert!(speed.contains("2.000×") && speed.contains("0.2 µs"), "speedup table");
        assert!(
            !speed.contains("geomean") && !speed.contains("geometric mean</td>"),
            "one comparison, no mean bar"
        );
        assert!(section(&html, "summary").unwrap().contains("simulated time"));
        for f in [Figure::Ipc, Figure::Utilisation, Figure::Amat, Figure::Speedup] {
            assert!(f.svg(&runs).is_ok(), "{}", f.name());
        }
        // A functional run alone has none of them.
        let (_d, only) = run_from(base("functional"));
        let html = render(std::slice::from_ref(&only)).unwrap();
        for id in ["amat", "speedup", "timing", "placement-map"] {
            assert!(section(&html, id).is_none(), "view {id} without data");
        }
        assert!(Figure::Ipc.svg(&[only]).is_err());
    }

    #[test]
    fn similarity_view_shows_run_and_paper_side_by_side() {
        let (_d0, plain) = run_from(base("plain"));
        assert!(similarity_view(std::slice::from_ref(&plain)).is_none());
        let mut r = base("scaled");
        r["similarity"] = json!({"footprint_bytes": 4e6, "scale": 0.01,
            "reference": {"source": "Tikir CG class C", "footprint_bytes": 4e8},
            "numbers": [{"number": "phases_per_run", "run": 8.0, "reference": 125.0},
                        {"number": "llc_bytes_over_footprint", "run": 0.39}]});
        let (_d1, scaled) = run_from(r);
        let html = render(&[plain, scaled]).unwrap();
        let sec = section(&html, "similarity").expect("similarity view");
        assert!(sec.contains("Tikir CG class C"), "{sec}");
        assert!(sec.contains("phases per run"));
        assert!(
            sec.contains("125.0") && sec.contains("8.000") && sec.contains("0.06×"),
            "{sec}"
        );
        // The run without a block has no table.
        assert!(!sec.contains("plain:"));
    }

    #[test]
    fn hostile_timing_values_do_not_panic() {
        let mut r = timed("odd", 1.0);
        r["phases"] = json!([{"index": 0, "accesses": 1, "timing": {"ipc_per_socket": {"s0": -3.0, "zz": 1e300},
            "link_utilisation": {"mean": "x", "max": 5.0, "busiest": {"": 2.0}},
            "channel_utilisation": {"m0": null}}}]);
        let (_d, run) = run_from(r);
        let html = render(std::slice::from_ref(&run)).unwrap();
        assert!(section(&html, "timing").is_some());
    }
}
