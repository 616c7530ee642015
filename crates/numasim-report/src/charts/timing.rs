//! Timing figures: AMAT per run stacked as unloaded + contention latency per access class
//! (StarNUMA Fig. 8 style), speedup over the first run with the geometric mean (Fig. 8/10), and
//! per run IPC per socket and link / memory-channel utilisation over phases, as heatmaps.
//! Drawn only when runs carry timing data (see [`crate::timing`]).

use super::{heatmap, legend, nice_max, render_svg, stacked_bars, titled, Stack};
use crate::error::ReportError;
use crate::palette;
use crate::results::Run;
use crate::timing::{amat_by_class, amat_weights, speedups};
use plotters::style::RGBColor;

fn lighter(c: RGBColor) -> RGBColor {
    let l = |x: u8| (x as f64 + (255.0 - x as f64) * 0.55) as u8;
    RGBColor(l(c.0), l(c.1), l(c.2))
}

pub fn amat_available(runs: &[Run]) -> bool {
    runs.iter().any(|r| amat_by_class(r).is_some())
}

pub fn amat_svg(runs: &[Run]) -> Result<String, ReportError> {
    // Only runs with AMAT data get a bar (a functional run beside timing runs would be empty).
    let with: Vec<(&Run, Vec<crate::timing::ClassAmat>)> =
        runs.iter().filter_map(|r| amat_by_class(r).map(|a| (r, a))).collect();
    let mut classes: Vec<String> = with
        .iter()
        .flat_map(|(_, a)| a.iter().map(|x| x.class.clone()))
        .collect();
    classes.sort_by_key(|c| palette::class_order(c));
    classes.dedup();
    // Each class contributes its latency weighted by its share of accesses, so bars sum to AMAT.
    let weights: Vec<Vec<f64>> = with.iter().map(|(r, a)| amat_weights(r, a)).collect();
    let mut stacks = Vec::new();
    for c in &classes {
        for contention in [false, true] {
            stacks.push(Stack {
                label: format!(
                    "{} {}",
                    palette::class_label(c),
                    if contention { "contention" } else { "unloaded" }
                ),
                colour: if contention {
                    lighter(palette::class_colour(c))
                } else {
                    palette::class_colour(c)
                },
                values: with
                    .iter()
                    .zip(&weights)
                    .map(|((_, a), w)| {
                        a.iter()
                            .position(|x| &x.class == c)
                            .map(|i| {
                                w[i] * if contention {
                                    a[i].contention_ns
                                } else {
                                    a[i].unloaded_ns
                                }
                            })
                            .unwrap_or(0.0)
                    })
                    .collect(),
            });
        }
    }
    let top = (0..with.len())
        .map(|i| stacks.iter().map(|s| s.values[i]).sum::<f64>())
        .fold(0.0, f64::max);
    let labels: Vec<String> = with.iter().map(|(r, _)| r.label.clone()).collect();
    let w = (620 + 150 * with.len() as u32).min(1400);
    render_svg("AMAT figure", w, 560, |root| {
        let area = titled(root, "Average memory access time")?;
        let (plot, key) = area.split_horizontally(w - 300);
        stacked_bars(&plot, None, "Run", "AMAT (ns)", &labels, &stacks, nice_max(top))?;
        let items: Vec<_> = stacks
            .iter()
            .rev()
            .filter(|s| s.values.iter().any(|&v| v > 0.0))
            .map(|s| (s.label.clone(), s.colour))
            .collect();
        legend(&key, None, &items)
    })
}

pub fn speedup_available(runs: &[Run]) -> bool {
    speedups(runs).is_some()
}

pub fn speedup_svg(runs: &[Run]) -> Result<String, ReportError> {
    let Some((s, geo)) = speedups(runs) else {
        return Err(ReportError::FigureUnavailable {
            name: "speedup".into(),
            why: "needs two or more runs, each with a run time".into(),
        });
    };
    let mut labels: Vec<String> = s.iter().map(|&(i, _)| runs[i].label.clone()).collect();
    let mut values: Vec<f64> = s.iter().map(|x| x.1).collect();
    // A geometric mean of one comparison is that comparison: draw it only over two or more.
    let with_mean = s.len() > 2;
    if with_mean {
        labels.push("geomean".into());
        values.push(geo);
    }
    let colours: Vec<RGBColor> = (0..values.len())
        .map(|i| {
            if with_mean && i + 1 == values.len() {
                palette::BLACK
            } else {
                palette::BLUE
            }
        })
        .collect();
    let stacks: Vec<Stack> = (0..values.len())
        .map(|i| Stack {
            label: labels[i].clone(),
            colour: colours[i],
            values: (0..values.len())
                .map(|j| if i == j { values[j] } else { 0.0 })
                .collect(),
        })
        .collect();
    let top = values.iter().cloned().fold(0.0, f64::max);
    let w = (400 + 140 * values.len() as u32).min(1400);
    let baseline = &runs[s[0].0].label;
    render_svg("speedup figure", w, 540, |root| {
        let area = titled(root, &format!("Speedup over {baseline}"))?;
        stacked_bars(&area, None, "Run", "Speedup (×)", &labels, &stacks, nice_max(top))
    })
}

/// The run's per-phase timing, when it has IPC or utilisation figures.
pub fn phases_of(run: &Run) -> Option<Vec<crate::timing::PhaseTiming>> {
    crate::timing::phases(run)
}

pub fn phases_available(runs: &[Run]) -> bool {
    runs.iter().any(|r| phases_of(r).is_some())
}

fn percent(v: f64) -> String {
    format!("{:.0}", 100.0 * v)
}

fn two_decimals(v: f64) -> String {
    format!("{v:.2}")
}

/// Row names in a stable order: `order` first (e.g. the machine's sockets), then any other key
/// found in the phases, sorted.
fn row_names<'a>(order: &[String], keys: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut rest: Vec<String> = keys.filter(|k| !order.contains(k)).cloned().collect();
    rest.sort();
    rest.dedup();
    order.iter().cloned().chain(rest).collect()
}

fn matrix(
    rows: &[String],
    phases: &[&crate::timing::PhaseTiming],
    get: impl Fn(&crate::timing::PhaseTiming, &str) -> Option<f64>,
) -> Vec<Vec<Option<f64>>> {
    rows.iter()
        .map(|r| phases.iter().map(|p| get(p, r)).collect())
        .collect()
}

fn max_of(values: &[Vec<Option<f64>>]) -> f64 {
    values.iter().flatten().flatten().copied().fold(0.0, f64::max)
}

/// IPC per socket (rows) over phases (columns), one run.
pub fn ipc_svg(run: &Run) -> Result<String, ReportError> {
    let all = phases_of(run).unwrap_or_default();
    let cols = heatmap::sample(all.len(), heatmap::MAX_COLUMNS);
    let ph: Vec<&crate::timing::PhaseTiming> = cols.iter().map(|&i| &all[i]).collect();
    let sockets: Vec<String> = run
        .results
        .machine
        .sockets
        .iter()
        .filter(|s| ph.iter().any(|p| p.ipc_per_socket.contains_key(*s)))
        .cloned()
        .collect();
    let mut rows = row_names(&sockets, ph.iter().flat_map(|p| p.ipc_per_socket.keys()));
    rows.truncate(heatmap::MAX_ROWS);
    let values = matrix(&rows, &ph, |p, r| p.ipc_per_socket.get(r).copied());
    let heat = heatmap::Heat {
        caption: "Instructions per cycle, mean over each socket's cores".into(),
        row_desc: "Socket".into(),
        rows: rows.clone(),
        phases: ph.iter().map(|p| p.index).collect(),
        max: nice_max(max_of(&values)),
        values,
        scale_desc: "IPC".into(),
        format: two_decimals,
    };
    let h = (200 + 34 * rows.len() as u32).clamp(420, 1400);
    render_svg("IPC figure", 1100, h, |root| {
        let area = titled(root, &format!("IPC per socket over phases, {}", run.label))?;
        heatmap::draw(&area, &heat)
    })
}

/// Busiest link directions and memory-node channel utilisation over phases, one run.
pub fn utilisation_svg(run: &Run) -> Result<String, ReportError> {
    let all = phases_of(run).unwrap_or_default();
    let cols = heatmap::sample(all.len(), heatmap::MAX_COLUMNS);
    let ph: Vec<&crate::timing::PhaseTiming> = cols.iter().map(|&i| &all[i]).collect();
    let phases: Vec<u64> = ph.iter().map(|p| p.index).collect();
    // Link directions: the ones busiest over the run (summed over phases where named) first,
    // under the max and mean over every direction.
    let mut total: std::collections::BTreeMap<&String, f64> = std::collections::BTreeMap::new();
    for p in &ph {
        for (k, v) in &p.link_busiest {
            *total.entry(k).or_default() += v;
        }
    }
    let mut dirs: Vec<(&String, f64)> = total.into_iter().collect();
    dirs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    const MAX_LABEL: &str = "max over all directions";
    const MEAN_LABEL: &str = "mean over all directions";
    let mut link_rows = vec![MAX_LABEL.to_string(), MEAN_LABEL.to_string()];
    link_rows.extend(dirs.iter().take(LINK_ROWS).map(|(k, _)| (*k).clone()));
    let link_values = matrix(&link_rows, &ph, |p, r| match r {
        MAX_LABEL => p.link_max,
        MEAN_LABEL => p.link_mean,
        _ => p.link_busiest.get(r).copied(),
    });
    let nodes = row_names(
        &run.results.machine.memory_nodes,
        ph.iter().flat_map(|p| p.channel_utilisation.keys()),
    );
    let mut node_rows: Vec<String> = nodes
        .into_iter()
        .filter(|n| ph.iter().any(|p| p.channel_utilisation.contains_key(n)))
        .collect();
    node_rows.truncate(heatmap::MAX_ROWS);
    let node_values = matrix(&node_rows, &ph, |p, r| p.channel_utilisation.get(r).copied());
    let scale = |v: &[Vec<Option<f64>>]| nice_max(max_of(v).max(0.01)).min(1.0);
    let links = heatmap::Heat {
        caption: "Link directions: busy share of each phase (grey: not among that phase's busiest)".into(),
        row_desc: "Link direction".into(),
        rows: link_rows.clone(),
        phases: phases.clone(),
        max: scale(&link_values),
        values: link_values,
        scale_desc: "Utilisation (%)".into(),
        format: percent,
    };
    let mem = heatmap::Heat {
        caption: "Memory nodes: data-bus busy share, mean over channels".into(),
        row_desc: "Memory node".into(),
        rows: node_rows.clone(),
        phases,
        max: scale(&node_values),
        values: node_values,
        scale_desc: "Utilisation (%)".into(),
        format: percent,
    };
    let h_links = (200 + 34 * link_rows.len() as u32).clamp(380, 900);
    let h_mem = (200 + 34 * node_rows.len() as u32).clamp(380, 1400);
    render_svg("utilisation figure", 1100, 50 + h_links + h_mem, |root| {
        let area = titled(
            root,
            &format!("Link and memory-channel utilisation over phases, {}", run.label),
        )?;
        let (top, bottom) = area.split_vertically(h_links);
        heatmap::draw(&top, &links)?;
        heatmap::draw(&bottom, &mem)
    })
}

/// Link directions drawn by name (besides the max and mean rows).
const LINK_ROWS: usize = 8;
