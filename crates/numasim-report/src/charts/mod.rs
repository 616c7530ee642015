//! Figures, drawn with plotters' SVG backend. Each submodule draws one kind of figure from
//! already-read results; this module holds what they share: the SVG canvas, stacked bars and
//! legends in the house style (see [`crate::palette`]).

pub mod access_classes;
pub mod heatmap;
pub mod latency_heatmap;
pub mod machine_graph;
pub mod migration;
pub mod placement;
pub mod placement_map;
pub mod roofline;
pub mod sharing;
pub mod timing;

use crate::error::ReportError;
use crate::palette::{self, FONT, FONT_LABEL, FONT_TICK, FONT_TITLE};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws on a fresh white `w`×`h` SVG canvas and returns the SVG text.
pub fn render_svg(what: &str, w: u32, h: u32, draw: impl FnOnce(&Area) -> DrawResult) -> Result<String, ReportError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| ReportError::render(what, e))?;
        draw(&root).map_err(|e| ReportError::render(what, e))?;
        root.present().map_err(|e| ReportError::render(what, e))?;
    }
    Ok(buf)
}

pub fn text_style(size: u32, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size).into_font().color(&colour).pos(Pos::new(h, v))
}

/// A figure title across the top of `area`; returns the area below it.
pub fn titled<'a>(area: &Area<'a>, title: &str) -> Result<Area<'a>, Box<dyn std::error::Error>> {
    Ok(area.titled(title, (FONT, FONT_TITLE).into_font().color(&palette::BLACK))?)
}

/// A vertical legend of coloured squares, top-left of `area`.
pub fn legend(area: &Area, heading: Option<&str>, items: &[(String, RGBColor)]) -> DrawResult {
    let (_, h) = area.dim_in_pixel();
    let mut y = 20i32;
    if let Some(t) = heading {
        area.draw(&Text::new(
            t.to_string(),
            (8, y),
            text_style(FONT_TICK, palette::BLACK, HPos::Left, VPos::Center),
        ))?;
        y += 30;
    }
    let step = ((h as i32 - y - 10) / items.len().max(1) as i32).clamp(16, 30);
    let size = if step < 24 { 14 } else { FONT_TICK };
    for (label, c) in items {
        area.draw(&Rectangle::new([(8, y - 8), (24, y + 8)], c.filled()))?;
        area.draw(&Rectangle::new(
            [(8, y - 8), (24, y + 8)],
            palette::BLACK.stroke_width(1),
        ))?;
        area.draw(&Text::new(
            label.clone(),
            (32, y),
            text_style(size, palette::BLACK, HPos::Left, VPos::Center),
        ))?;
        y += step;
    }
    Ok(())
}

/// One series of a stacked bar chart: a value per category.
pub struct Stack {
    pub label: String,
    pub colour: RGBColor,
    pub values: Vec<f64>,
}

/// Shortens a category label so axis labels do not collide.
pub fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Stacked bars, one bar per category, series stacked bottom-up in the given order.
pub fn stacked_bars(
    area: &Area,
    caption: Option<&str>,
    x_desc: &str,
    y_desc: &str,
    categories: &[String],
    stacks: &[Stack],
    y_max: f64,
) -> DrawResult {
    let n = categories.len().max(1);
    let mut b = ChartBuilder::on(area);
    b.margin(12).x_label_area_size(70).y_label_area_size(90);
    if let Some(c) = caption {
        b.caption(c, (FONT, FONT_LABEL));
    }
    // Categories sit at x = 0, 1, …; their names are drawn under the axis by hand, because
    // plotters' own tick placement on a numeric axis would not land on every category.
    let mut chart = b.build_cartesian_2d(-0.5..(n as f64 - 0.5), 0f64..y_max.max(1e-9))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(palette::LIGHT_GREY)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FONT, FONT_LABEL))
        .label_style((FONT, FONT_TICK))
        .x_labels(0)
        .y_label_formatter(&|y| tick(*y, y_max))
        .draw()?;
    let half = 0.36_f64.min(0.5 - 0.08 * (n as f64).min(3.0) / 3.0);
    let mut base = vec![0f64; categories.len()];
    for s in stacks {
        let bars: Vec<_> = (0..categories.len())
            .filter(|&i| s.values.get(i).copied().unwrap_or(0.0) > 0.0)
            .map(|i| {
                let x = i as f64;
                Rectangle::new(
                    [(x - half, base[i]), (x + half, base[i] + s.values[i])],
                    s.colour.filled(),
                )
            })
            .collect();
        chart.draw_series(bars)?;
        for (i, b) in base.iter_mut().enumerate() {
            *b += s.values.get(i).copied().unwrap_or(0.0);
        }
    }
    let max_label = (90 / n).clamp(8, 28);
    let (ox, oy) = area.get_base_pixel();
    // Many categories (e.g. phases): label every `step`-th so the labels do not run together.
    let step = n.div_ceil(16);
    for (i, c) in categories.iter().enumerate().filter(|(i, _)| i % step == 0) {
        let (x, y) = chart.backend_coord(&(i as f64, 0.0));
        let st = text_style(FONT_TICK, palette::BLACK, HPos::Center, VPos::Top);
        area.draw(&Text::new(short(c, max_label), (x - ox, y - oy + 8), st))?;
    }
    Ok(())
}

/// Tick label with as many decimals as the axis range needs.
pub fn tick(y: f64, max: f64) -> String {
    if max >= 10.0 {
        format!("{y:.0}")
    } else if max >= 1.0 {
        format!("{y:.1}")
    } else {
        format!("{y:.2}")
    }
}

/// A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `x`.
pub fn nice_max(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * p >= x {
            return m * p;
        }
    }
    10.0 * p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_max_rounds_up() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(f64::NAN), 1.0);
        assert_eq!(nice_max(73.0), 100.0);
        assert_eq!(nice_max(100.0), 100.0);
        assert_eq!(nice_max(0.31), 0.5);
    }

    #[test]
    fn short_keeps_or_ellipsises() {
        assert_eq!(short("abc", 5), "abc");
        assert_eq!(short("abcdefgh", 5), "abcd…");
    }
}
