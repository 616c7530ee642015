//! The page placement map (Tikir & Hollingsworth's address-range × time view): one column per
//! phase, the pages touched by then in virtual-address order bottom to top, each bin coloured by
//! the node holding most of its pages (paler when that node holds less of the bin), and a black
//! dot where the phase's boundary migration moved pages of the bin (larger = more of the bin).

use super::heatmap::{sample, MAX_COLUMNS};
use super::{legend, render_svg, titled, Area, DrawResult};
use crate::error::ReportError;
use crate::palette::{self, FONT, FONT_LABEL, FONT_TICK};
use crate::placement_map::{self, PhaseMap};
use crate::results::Run;
use plotters::prelude::*;

pub fn available_for(run: &Run) -> bool {
    placement_map::of(run).is_some()
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter().any(available_for)
}

/// `c` blended towards white: `share` 1 keeps it, lower shares are paler (at least 35 % colour).
pub fn shade(c: RGBColor, share: f64) -> RGBColor {
    let k = if share.is_finite() {
        0.35 + 0.65 * share.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let m = |x: u8| (255.0 - (255.0 - x as f64) * k).round() as u8;
    RGBColor(m(c.0), m(c.1), m(c.2))
}

fn draw_run(area: &Area, run: &Run, maps: &[PhaseMap]) -> DrawResult {
    let nodes = super::placement::node_colours(run);
    let (plot, key) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(230));
    let cols = sample(maps.len(), MAX_COLUMNS);
    let n = cols.len().max(1);
    let names: Vec<String> = cols.iter().map(|&i| maps[i].index.to_string()).collect();
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .caption(&run.label, (FONT, FONT_LABEL))
        .x_label_area_size(60)
        .y_label_area_size(90)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..100.0)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(palette::LIGHT_GREY)
        .x_desc("Phase (end of)")
        .y_desc("Touched pages by address (%)")
        .axis_desc_style((FONT, FONT_LABEL))
        .label_style((FONT, FONT_TICK))
        .x_labels(n.clamp(2, 16))
        .x_label_formatter(&|x| {
            let r = x.round();
            if (x - r).abs() < 1e-6 && r >= 0.0 {
                names.get(r as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    let mut used = vec![false; nodes.len()];
    let mut unknown = false;
    let mut any_moves = false;
    let px_per_col = {
        let (a, _) = chart.backend_coord(&(0.0, 0.0));
        let (b, _) = chart.backend_coord(&(1.0, 0.0));
        (b - a).abs() as f64
    };
    for (x, &i) in cols.iter().enumerate() {
        let m = &maps[i];
        let p = m.pages.max(1) as f64;
        let x = x as f64;
        let mut dots = Vec::new();
        for b in 0..m.bins() {
            let (lo, hi) = m.ranks(b);
            let (y0, y1) = (100.0 * lo as f64 / p, 100.0 * hi as f64 / p);
            let base = match nodes.get(m.home[b]) {
                Some((_, c)) => {
                    used[m.home[b]] = true;
                    *c
                }
                None => {
                    unknown = true;
                    palette::GREY
                }
            };
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.45, y0), (x + 0.45, y1)],
                shade(base, m.home_share[b]).filled(),
            )))?;
            if m.migrated[b] > 0 {
                any_moves = true;
                let frac = (m.migrated[b] as f64 / m.bin_pages(b).max(1) as f64).min(1.0);
                let r = (2.0 + frac.sqrt() * (px_per_col * 0.3).min(9.0)).round() as i32;
                dots.push(((x, (y0 + y1) / 2.0), r));
            }
        }
        chart.draw_series(dots.into_iter().map(|(c, r)| {
            EmptyElement::at(c)
                + Circle::new((0, 0), r, palette::BLACK.filled())
                + Circle::new((0, 0), r, WHITE.stroke_width(1))
        }))?;
    }
    let mut items: Vec<(String, RGBColor)> = nodes
        .iter()
        .zip(&used)
        .filter(|(_, &u)| u)
        .map(|(n, _)| n.clone())
        .rev()
        .collect();
    if unknown {
        items.push(("unknown node".into(), palette::GREY));
    }
    if any_moves {
        items.push(("● pages migrated".into(), palette::BLACK));
    }
    legend(&key, Some("Most pages on"), &items)
}

pub fn svg(runs: &[Run]) -> Result<String, ReportError> {
    let with: Vec<(&Run, Vec<PhaseMap>)> = runs
        .iter()
        .filter_map(|r| placement_map::of(r).map(|m| (r, m)))
        .collect();
    let panel_h = 520u32;
    let h = 50 + panel_h * with.len().max(1) as u32;
    render_svg("placement map figure", 1000, h, |root| {
        let area = titled(root, "Page placement map: address × phase, by home node")?;
        let panels = area.split_evenly((with.len().max(1), 1));
        for (panel, (run, maps)) in panels.iter().zip(&with) {
            draw_run(panel, run, maps)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shade_is_paler_for_mixed_bins() {
        let c = RGBColor(0, 114, 178);
        assert_eq!(shade(c, 1.0), c);
        let pale = shade(c, 0.2);
        assert!(pale.0 > c.0 && pale.1 > c.1 && pale.2 > c.2);
        assert_eq!(shade(c, f64::NAN), c);
    }
}
