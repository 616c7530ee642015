//! Migration: pages moved at each phase boundary by source → destination node (StarNUMA
//! Table IV as a chart), ping-pongs per phase, and pool occupancy against its capacity.

use super::{legend, nice_max, render_svg, stacked_bars, titled, Area, DrawResult, Stack};
use crate::error::ReportError;
use crate::migration::Migration;
use crate::palette::{self, FONT, FONT_LABEL, FONT_TICK};
use plotters::prelude::*;

/// The most-moved pairs get their own colour; the rest are summed as "other".
const TOP_PAIRS: usize = 6;

fn moves_panel(area: &Area, m: &Migration) -> DrawResult {
    let (plot, key) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(230));
    let mut pairs = m.pairs();
    let total = |p: &(String, String)| {
        m.phases
            .iter()
            .map(|x| x.moves.get(p).copied().unwrap_or(0))
            .sum::<u64>()
    };
    pairs.sort_by_key(|p| std::cmp::Reverse(total(p)));
    let cats: Vec<String> = m.phases.iter().map(|p| p.index.to_string()).collect();
    let mut stacks: Vec<Stack> = pairs
        .iter()
        .take(TOP_PAIRS)
        .enumerate()
        .map(|(i, p)| Stack {
            label: format!("{} → {}", p.0, p.1),
            colour: palette::categorical(i),
            values: m
                .phases
                .iter()
                .map(|x| x.moves.get(p).copied().unwrap_or(0) as f64)
                .collect(),
        })
        .collect();
    let rest: Vec<f64> = m
        .phases
        .iter()
        .map(|x| {
            let named: u64 = pairs
                .iter()
                .take(TOP_PAIRS)
                .map(|p| x.moves.get(p).copied().unwrap_or(0))
                .sum();
            x.pages_moved.saturating_sub(named) as f64
        })
        .collect();
    if rest.iter().any(|&v| v > 0.0) {
        stacks.push(Stack {
            label: if pairs.is_empty() {
                "pages moved".into()
            } else {
                "other pairs".into()
            },
            colour: palette::GREY,
            values: rest,
        });
    }
    let top = m.phases.iter().map(|p| p.pages_moved).max().unwrap_or(0) as f64;
    stacked_bars(
        &plot,
        Some("Pages migrated per phase"),
        "Phase",
        "Pages migrated",
        &cats,
        &stacks,
        nice_max(top),
    )?;
    let items: Vec<_> = stacks.iter().rev().map(|s| (s.label.clone(), s.colour)).collect();
    legend(&key, Some("Source → destination"), &items)
}

fn ping_pong_panel(area: &Area, m: &Migration) -> DrawResult {
    let cats: Vec<String> = m.phases.iter().map(|p| p.index.to_string()).collect();
    let v: Vec<f64> = m.phases.iter().map(|p| p.ping_pongs.unwrap_or(0) as f64).collect();
    let top = v.iter().cloned().fold(0.0, f64::max);
    let (plot, _) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(230));
    let s = [Stack {
        label: "ping-pongs".into(),
        colour: palette::REDDISH_PURPLE,
        values: v,
    }];
    stacked_bars(
        &plot,
        Some("Ping-pongs per phase"),
        "Phase",
        "Pages moved back",
        &cats,
        &s,
        nice_max(top),
    )
}

fn pool_panel(area: &Area, m: &Migration) -> DrawResult {
    let (plot, key) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(230));
    let n = m.pools.iter().map(|p| p.pages.len()).max().unwrap_or(0).max(1);
    let top = m
        .pools
        .iter()
        .flat_map(|p| {
            p.pages
                .iter()
                .map(|&x| x as f64)
                .chain(p.capacity_pages.map(|c| c as f64))
        })
        .fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .caption("Pool occupancy", (FONT, FONT_LABEL))
        .x_label_area_size(60)
        .y_label_area_size(110)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..nice_max(top * 1.05))?;
    chart
        .configure_mesh()
        .light_line_style(palette::LIGHT_GREY)
        .x_desc("Phase (end of)")
        .y_desc("Pages")
        .axis_desc_style((FONT, FONT_LABEL))
        .label_style((FONT, FONT_TICK))
        .y_label_formatter(&|y| super::tick(*y, top))
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-9 && *x >= 0.0 {
                format!("{}", x.round())
            } else {
                String::new()
            }
        })
        .draw()?;
    let mut items = Vec::new();
    for (i, p) in m.pools.iter().enumerate() {
        let c = palette::categorical(i + 3);
        let pts: Vec<(f64, f64)> = p.pages.iter().enumerate().map(|(x, &y)| (x as f64, y as f64)).collect();
        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(3)))?;
        chart.draw_series(pts.iter().map(|&q| Circle::new(q, 5, c.filled())))?;
        items.push((format!("{} pages", p.node), c));
        if let Some(cap) = p.capacity_pages {
            let cap = cap as f64;
            chart.draw_series(DashedLineSeries::new(
                vec![(-0.5, cap), (n as f64 - 0.5, cap)],
                10,
                6,
                palette::BLACK.stroke_width(2),
            ))?;
            items.push((format!("{} capacity", p.node), palette::BLACK));
        }
    }
    legend(&key, None, &items)
}

pub fn svg(run_label: &str, m: &Migration) -> Result<String, ReportError> {
    // No panel of zeros: a run without ping-pongs says so in its table's row instead.
    let has_pp = m.total_ping_pongs().is_some_and(|n| n > 0);
    let has_pool = !m.pools.is_empty();
    let panels = 1 + has_pp as u32 + has_pool as u32;
    let w = (500 + 40 * m.phases.len() as u32).clamp(900, 1400);
    render_svg("migration figure", w, 60 + 420 * panels, |root| {
        let policy = m.policy.as_deref().map(|p| format!(" ({p})")).unwrap_or_default();
        let area = titled(root, &format!("Migration in {run_label}{policy}"))?;
        let parts = area.split_evenly((panels as usize, 1));
        moves_panel(&parts[0], m)?;
        let mut k = 1;
        if has_pp {
            ping_pong_panel(&parts[k], m)?;
            k += 1;
        }
        if has_pool {
            pool_panel(&parts[k], m)?;
        }
        Ok(())
    })
}
