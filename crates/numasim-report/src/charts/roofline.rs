//! Roofline (HyDM Fig. 2 and 4): every process of a multi-process timing run, one point per
//! phase (HyDM's window), at its arithmetic intensity (flops per byte of LLC-miss traffic) and
//! achieved flop rate (flops over the phase's simulated time), under the memory roof of each
//! memory node (peak bandwidth × intensity). There is no compute roof: numasim's cores retire
//! instructions at a base CPI and do not model floating-point units, so the machine files carry
//! no peak flop rate to draw.

use super::{legend, render_svg, titled};
use crate::error::ReportError;
use crate::palette;
use crate::results::Run;
use plotters::prelude::*;

/// One process's points: (intensity flops/B, GFLOP/s) per phase with flops and traffic.
pub struct Series {
    pub process: String,
    pub points: Vec<(f64, f64)>,
}

/// The roofline's data of a run, or `None` when it has no per-phase process counts with time.
pub fn series(run: &Run) -> Option<Vec<Series>> {
    let names: Vec<String> = run.results.processes.iter().map(|p| p.name.clone()).collect();
    if names.is_empty() {
        return None;
    }
    let phases = run.raw.get("phases")?.as_array()?;
    let mut out: Vec<Series> = names
        .iter()
        .map(|n| Series {
            process: n.clone(),
            points: Vec::new(),
        })
        .collect();
    for ph in phases {
        let Some(ns) = ph.pointer("/timing/sim_time_ns").and_then(|v| v.as_f64()) else {
            continue;
        };
        let Some(procs) = ph.get("processes").and_then(|v| v.as_array()) else {
            continue;
        };
        for (s, p) in out.iter_mut().zip(procs) {
            let flops = p.get("flops").and_then(|v| v.as_f64()).unwrap_or(0.0);
            let bytes = 64.0 * p.get("llc_misses").and_then(|v| v.as_f64()).unwrap_or(0.0);
            if flops > 0.0 && bytes > 0.0 && ns > 0.0 && flops.is_finite() && bytes.is_finite() {
                s.points.push((flops / bytes, flops / ns));
            }
        }
    }
    out.iter().any(|s| !s.points.is_empty()).then_some(out)
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter().any(|r| series(r).is_some())
}

/// Memory roofs: (node name, peak GB/s) of the run's machine.
fn roofs(run: &Run) -> Vec<(String, f64)> {
    run.machine
        .as_ref()
        .map(|m| {
            m.memory_nodes
                .iter()
                .filter(|n| n.peak_bandwidth_gbps > 0.0 && n.peak_bandwidth_gbps.is_finite())
                .map(|n| (n.name.clone(), n.peak_bandwidth_gbps))
                .collect()
        })
        .unwrap_or_default()
}

/// Decades spanning `lo..=hi` (both > 0).
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    (10f64.powf(lo.log10().floor()), 10f64.powf(hi.log10().ceil()))
}

pub fn svg(run: &Run) -> Result<String, ReportError> {
    let series = series(run).unwrap_or_default();
    let roofs = roofs(run);
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (f64::MAX, f64::MIN_POSITIVE, f64::MAX, f64::MIN_POSITIVE);
    for &(x, y) in pts {
        x_lo = x_lo.min(x);
        x_hi = x_hi.max(x);
        y_lo = y_lo.min(y);
        y_hi = y_hi.max(y);
    }
    let (x_lo, x_hi) = decades(x_lo.max(1e-6), x_hi.max(x_lo * 10.0));
    // The roofs at the right edge bound the plot's top.
    let roof_top = roofs.iter().map(|(_, bw)| bw * x_hi).fold(y_hi, f64::max);
    let (y_lo, y_hi) = decades(y_lo.max(1e-6), roof_top);
    let w = 1200;
    render_svg("roofline figure", w, 640, |root| {
        let area = titled(
            root,
            &format!("Roofline, {} (one point per process and phase)", run.label),
        )?;
        let (plot, key) = area.split_horizontally(w - 260);
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(56)
            .y_label_area_size(80)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("Arithmetic intensity (flops / byte of LLC-miss traffic)")
            .y_desc("GFLOP/s")
            .label_style((palette::FONT, palette::FONT_TICK))
            .axis_desc_style((palette::FONT, palette::FONT_LABEL))
            .draw()?;
        let mut items = Vec::new();
        for (i, (name, bw)) in roofs.iter().enumerate() {
            let c = if i == 0 { palette::BLACK } else { palette::GREY };
            let steps = 64;
            let line = (0..=steps).map(|k| {
                let x = x_lo * (x_hi / x_lo).powf(k as f64 / steps as f64);
                (x, (bw * x).min(y_hi))
            });
            chart.draw_series(LineSeries::new(line, c.stroke_width(2)))?;
            items.push((format!("{name} roof {bw:.0} GB/s"), c));
        }
        for (i, s) in series.iter().enumerate() {
            let c = palette::categorical(i);
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
            items.push((s.process.clone(), c));
        }
        items.truncate(24);
        legend(&key, Some("Process / roof"), &items)
    })
}
