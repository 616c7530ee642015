//! Page placement over phases: pages resident on each memory node at the end of every phase,
//! stacked, one panel per run. (An address-range × phase map needs per-page data that
//! results.json does not carry yet.)

use super::{legend, nice_max, render_svg, titled};
use crate::error::ReportError;
use crate::palette::{self, FONT, FONT_LABEL, FONT_TICK};
use crate::results::Run;
use plotters::prelude::*;

pub fn available_for(run: &Run) -> bool {
    run.results.phases.iter().any(|p| !p.pages_per_node.is_empty())
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter().any(available_for)
}

/// Node names in machine order, and their colours.
pub fn node_colours(run: &Run) -> Vec<(String, RGBColor)> {
    let names = run.results.machine.memory_nodes.clone();
    let pools: Vec<String> = run.pool_nodes().iter().map(|n| n.name.clone()).collect();
    let colours = palette::node_colours(&names, |n| pools.iter().any(|p| p == n));
    names.into_iter().zip(colours).collect()
}

/// Pages per node (rows, machine order) per phase (columns).
pub fn series(run: &Run) -> Vec<Vec<f64>> {
    run.results
        .machine
        .memory_nodes
        .iter()
        .map(|n| {
            run.results
                .phases
                .iter()
                .map(|p| p.pages_per_node.get(n).copied().unwrap_or(0) as f64)
                .collect()
        })
        .collect()
}

/// Draws one run's stacked area in `area`.
pub fn draw_run(area: &super::Area, run: &Run) -> super::DrawResult {
    let nodes = node_colours(run);
    let series = series(run);
    let phases = run.results.phases.len();
    let totals: Vec<f64> = (0..phases).map(|i| series.iter().map(|s| s[i]).sum()).collect();
    let top = totals.iter().cloned().fold(0.0, f64::max);
    let (scale, unit) = if top >= 2e6 {
        (1e6, "millions")
    } else if top >= 2e3 {
        (1e3, "thousands")
    } else {
        (1.0, "")
    };
    let y_desc = if unit.is_empty() {
        "Pages".to_string()
    } else {
        format!("Pages ({unit})")
    };
    let (plot, key) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(200));
    // One phase: a flat band from -0.4 to 0.4 so it is visible.
    let xs: Vec<f64> = if phases == 1 {
        vec![-0.4, 0.4]
    } else {
        (0..phases).map(|i| i as f64).collect()
    };
    let col = |i: usize| if phases == 1 { 0 } else { i };
    let x_range = if phases == 1 {
        -0.5..0.5
    } else {
        0.0..(phases - 1) as f64
    };
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .caption(&run.label, (FONT, FONT_LABEL))
        .x_label_area_size(60)
        .y_label_area_size(90)
        .build_cartesian_2d(x_range, 0.0..nice_max(top / scale))?;
    chart
        .configure_mesh()
        .light_line_style(palette::LIGHT_GREY)
        .x_desc("Phase (end of)")
        .y_desc(y_desc)
        .axis_desc_style((FONT, FONT_LABEL))
        .label_style((FONT, FONT_TICK))
        .x_labels(phases.clamp(2, 12))
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-9 {
                format!("{}", x.round() as i64)
            } else {
                String::new()
            }
        })
        .draw()?;
    let mut base = vec![0.0; phases];
    for ((_, colour), s) in nodes.iter().zip(&series) {
        if s.iter().all(|&v| v == 0.0) {
            continue;
        }
        let upper: Vec<f64> = (0..phases).map(|i| (base[i] + s[i]) / scale).collect();
        let mut pts: Vec<(f64, f64)> = xs.iter().enumerate().map(|(i, &x)| (x, upper[col(i)])).collect();
        pts.extend(xs.iter().enumerate().rev().map(|(i, &x)| (x, base[col(i)] / scale)));
        chart.draw_series(std::iter::once(Polygon::new(pts, colour.filled())))?;
        for (b, v) in base.iter_mut().zip(s) {
            *b += v;
        }
    }
    let used: Vec<(String, RGBColor)> = nodes
        .iter()
        .zip(&series)
        .filter(|(_, s)| s.iter().any(|&v| v > 0.0))
        .map(|(n, _)| n.clone())
        .rev()
        .collect();
    legend(&key, Some("Memory node"), &used)
}

pub fn svg(runs: &[Run]) -> Result<String, ReportError> {
    let with: Vec<&Run> = runs.iter().filter(|r| available_for(r)).collect();
    let panel_h = 480u32;
    let h = 50 + panel_h * with.len().max(1) as u32;
    render_svg("placement figure", 1000, h, |root| {
        let area = titled(root, "Pages per memory node over phases")?;
        let panels = area.split_evenly((with.len().max(1), 1));
        for (panel, run) in panels.iter().zip(&with) {
            draw_run(panel, run)?;
        }
        Ok(())
    })
}
