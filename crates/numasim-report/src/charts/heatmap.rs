//! A rows × phases heatmap with a viridis colour bar (IPC per socket, utilisation per link
//! direction or memory node over phases). Axes and ticks come from plotters; cells are
//! rectangles in data coordinates, so they line up with the ticks.

use super::{text_style, Area, DrawResult};
use crate::palette::{self, FONT, FONT_LABEL, FONT_TICK};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// Most columns drawn; longer runs are sampled evenly (the caption says which phases).
pub const MAX_COLUMNS: usize = 240;
/// Most rows drawn (callers pick the rows that matter first).
pub const MAX_ROWS: usize = 40;

pub struct Heat {
    pub caption: String,
    pub row_desc: String,
    /// Row names, top to bottom.
    pub rows: Vec<String>,
    /// Phase index of each column.
    pub phases: Vec<u64>,
    /// `[row][column]`; `None` = no value (drawn light grey).
    pub values: Vec<Vec<Option<f64>>>,
    /// Colour scale from 0 to this.
    pub max: f64,
    /// Colour bar label, with unit.
    pub scale_desc: String,
    /// Cell and colour-bar text of a value.
    pub format: fn(f64) -> String,
}

/// Indices of at most `max` evenly spaced items of `n` (all of them when `n ≤ max`).
pub fn sample(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..max).map(|i| i * (n - 1) / (max - 1).max(1)).collect();
    v.dedup();
    v
}

fn integer_label(x: f64, names: &[String]) -> String {
    let r = x.round();
    if (x - r).abs() > 1e-6 || r < 0.0 {
        return String::new();
    }
    names.get(r as usize).cloned().unwrap_or_default()
}

pub fn draw(area: &Area, h: &Heat) -> DrawResult {
    let rows = h.rows.len().clamp(1, MAX_ROWS);
    let cols = h.phases.len().max(1);
    let (w, _) = area.dim_in_pixel();
    let (plot, bar) = area.split_horizontally(w.saturating_sub(150));
    let longest = h.rows.iter().map(|r| r.chars().count()).max().unwrap_or(4);
    let y_area = (longest as u32 * 10 + 24).clamp(60, 300);
    // Row labels top to bottom: row r is drawn at y = rows-1-r.
    let names: Vec<String> = (0..rows)
        .rev()
        .map(|r| super::short(h.rows.get(r).map(String::as_str).unwrap_or(""), 32))
        .collect();
    let phase_names: Vec<String> = h.phases.iter().map(u64::to_string).collect();
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .caption(&h.caption, (FONT, FONT_LABEL))
        .x_label_area_size(60)
        .y_label_area_size(y_area)
        .build_cartesian_2d(-0.5..(cols as f64 - 0.5), -0.5..(rows as f64 - 0.5))?;
    let tick = if rows > 20 { FONT_TICK - 4 } else { FONT_TICK - 2 };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("Phase")
        .y_desc(&h.row_desc)
        .axis_desc_style((FONT, FONT_LABEL))
        .label_style((FONT, tick))
        .x_labels(cols.clamp(2, 16))
        .y_labels(rows + 1)
        .x_label_formatter(&|x| integer_label(*x, &phase_names))
        .y_label_formatter(&|y| integer_label(*y, &names))
        .draw()?;
    let t = |v: f64| if h.max > 0.0 { v / h.max } else { 0.0 };
    let cell_px = {
        let (x0, _) = chart.backend_coord(&(0.0, 0.0));
        let (x1, y1) = chart.backend_coord(&(1.0, 1.0));
        let (_, y0) = chart.backend_coord(&(0.0, 0.0));
        ((x1 - x0).abs(), (y1 - y0).abs())
    };
    let (ox, oy) = plot.get_base_pixel();
    for r in 0..rows {
        let y = (rows - 1 - r) as f64;
        for c in 0..cols {
            let v = h.values.get(r).and_then(|row| row.get(c)).copied().flatten();
            let colour = v.map(|v| palette::viridis(t(v))).unwrap_or(palette::LIGHT_GREY);
            let x = c as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                colour.filled(),
            )))?;
            if let Some(v) = v {
                let s = (h.format)(v);
                if cell_px.0 >= 12 * s.chars().count() as i32 && cell_px.1 >= 20 {
                    let (px, py) = chart.backend_coord(&(x, y));
                    let st = text_style(14, palette::text_on(colour), HPos::Center, VPos::Center);
                    plot.draw(&Text::new(s, (px - ox, py - oy), st))?;
                }
            }
        }
    }
    colour_bar(&bar, h)
}

/// A vertical viridis colour bar from 0 to `h.max`, with plotters' axis.
fn colour_bar(area: &Area, h: &Heat) -> DrawResult {
    let max = if h.max > 0.0 && h.max.is_finite() { h.max } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin_top(60)
        .margin_bottom(72)
        .margin_right(8)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..1.0, 0.0..max)?;
    let fmt = h.format;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(&h.scale_desc)
        .axis_desc_style((FONT, FONT_TICK))
        .label_style((FONT, FONT_TICK - 2))
        .y_labels(5)
        .y_label_formatter(&|y| fmt(*y))
        .draw()?;
    let steps = 60;
    chart.draw_series((0..steps).map(|i| {
        // Each band overlaps the next a little so no hairline shows between them.
        let (a, b) = (
            max * i as f64 / steps as f64,
            (max * (i as f64 + 1.3) / steps as f64).min(max),
        );
        Rectangle::new(
            [(0.0, a), (1.0, b)],
            palette::viridis((i as f64 + 0.5) / steps as f64).filled(),
        )
    }))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_keeps_ends_and_bounds() {
        assert_eq!(sample(3, 10), [0, 1, 2]);
        let s = sample(1000, 240);
        assert_eq!((s.len(), s[0], *s.last().unwrap()), (240, 0, 999));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
