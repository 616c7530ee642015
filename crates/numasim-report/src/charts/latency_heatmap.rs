//! The unloaded load-latency matrix (requesting socket × memory node) as a heatmap, values
//! written in the cells when they fit.

use super::{render_svg, text_style, titled, Area, DrawResult};
use crate::error::ReportError;
use crate::palette::{self, FONT_LABEL, FONT_TICK};
use crate::results::MachineFile;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

pub fn available(m: &MachineFile) -> bool {
    !m.load_latency_ns.is_empty() && m.load_latency_ns.iter().all(|r| r.len() == m.memory_nodes.len())
}

fn draw(area: &Area, m: &MachineFile) -> DrawResult {
    let rows = m.load_latency_ns.len();
    let cols = m.memory_nodes.len().max(1);
    let (w, h) = area.dim_in_pixel();
    let (left, top, right_pad, bottom) = (70i32, 50i32, 150i32, 40i32);
    let cell = ((w as i32 - left - right_pad) / cols as i32)
        .min((h as i32 - top - bottom) / rows.max(1) as i32)
        .max(4);
    let vals: Vec<f64> = m
        .load_latency_ns
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let t = |v: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    let font = (cell * 2 / 5).clamp(9, 16) as u32;
    for (r, row) in m.load_latency_ns.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            let (x, y) = (left + c as i32 * cell, top + r as i32 * cell);
            let colour = palette::viridis(t(v));
            area.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], colour.filled()))?;
            area.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], WHITE.stroke_width(1)))?;
            if cell >= 26 {
                let s = format!("{v:.0}");
                let st = text_style(font, palette::text_on(colour), HPos::Center, VPos::Center);
                area.draw(&Text::new(s, (x + cell / 2, y + cell / 2), st))?;
            }
        }
        let name = m.sockets.get(r).cloned().unwrap_or_default();
        let st = text_style(FONT_TICK - 4, palette::BLACK, HPos::Right, VPos::Center);
        area.draw(&Text::new(name, (left - 6, top + r as i32 * cell + cell / 2), st))?;
    }
    for (c, n) in m.memory_nodes.iter().enumerate() {
        let st = text_style(FONT_TICK - 4, palette::BLACK, HPos::Center, VPos::Bottom);
        area.draw(&Text::new(
            n.name.clone(),
            (left + c as i32 * cell + cell / 2, top - 4),
            st,
        ))?;
    }
    let grid_w = cell * cols as i32;
    let grid_h = cell * rows as i32;
    let st = text_style(FONT_LABEL, palette::BLACK, HPos::Center, VPos::Top);
    area.draw(&Text::new("Memory node", (left + grid_w / 2, top + grid_h + 8), st))?;
    let st = (crate::palette::FONT, FONT_LABEL)
        .into_font()
        .transform(FontTransform::Rotate270)
        .color(&palette::BLACK)
        .pos(plotters::style::text_anchor::Pos::new(HPos::Center, VPos::Top));
    area.draw(&Text::new("Requesting socket", (6, top + grid_h / 2), st))?;
    // Colour bar.
    let (bx, bh) = (left + grid_w + 30, grid_h.max(120));
    let steps = 50;
    for i in 0..steps {
        let ya = top + bh - bh * (i + 1) / steps;
        let yb = top + bh - bh * i / steps;
        area.draw(&Rectangle::new(
            [(bx, ya), (bx + 20, yb)],
            palette::viridis(i as f64 / (steps - 1) as f64).filled(),
        ))?;
    }
    let st = |v| text_style(FONT_TICK - 2, palette::BLACK, HPos::Left, v);
    area.draw(&Text::new(format!("{hi:.0} ns"), (bx + 26, top), st(VPos::Top)))?;
    area.draw(&Text::new(format!("{lo:.0} ns"), (bx + 26, top + bh), st(VPos::Bottom)))?;
    Ok(())
}

pub fn svg(m: &MachineFile) -> Result<String, ReportError> {
    let cols = m.memory_nodes.len().max(1) as u32;
    let rows = m.load_latency_ns.len().max(1) as u32;
    let cell = (640 / cols).clamp(20, 80);
    let w = 70 + cell * cols + 160;
    let h = 50 + 50 + cell * rows + 50;
    render_svg("latency heatmap figure", w.max(480), h.max(300), |root| {
        let area = titled(root, &format!("Unloaded load latency (ns), {}", m.name))?;
        draw(&area, m)
    })
}
