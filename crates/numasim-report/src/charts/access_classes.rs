//! Where accesses go: for each run, the share of demand memory accesses (LLC misses) served
//! locally, remotely by hop count, and by the pool, as stacked bars.

use super::{legend, render_svg, stacked_bars, titled, Stack};
use crate::error::ReportError;
use crate::palette;
use crate::results::Run;

/// Classes present in any run, in display order.
pub fn classes(runs: &[Run]) -> Vec<String> {
    let mut c: Vec<String> = runs
        .iter()
        .flat_map(|r| r.results.totals.summary.by_class.keys().cloned())
        .collect();
    c.sort_by_key(|c| palette::class_order(c));
    c.dedup();
    c
}

/// Percent of each run's demand memory accesses in each class: `[class][run]`.
pub fn shares_percent(runs: &[Run], classes: &[String]) -> Vec<Vec<f64>> {
    classes
        .iter()
        .map(|c| {
            runs.iter()
                .map(|r| {
                    let by = &r.results.totals.summary.by_class;
                    let total: u64 = by.values().sum();
                    if total == 0 {
                        0.0
                    } else {
                        100.0 * by.get(c).copied().unwrap_or(0) as f64 / total as f64
                    }
                })
                .collect()
        })
        .collect()
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter()
        .any(|r| r.results.totals.summary.by_class.values().any(|&n| n > 0))
}

pub fn svg(runs: &[Run]) -> Result<String, ReportError> {
    let classes = classes(runs);
    let shares = shares_percent(runs, &classes);
    let w = (520 + 150 * runs.len() as u32).min(1400);
    render_svg("access classes figure", w, 560, |root| {
        let area = titled(root, "Where memory accesses go")?;
        let (plot, key) = area.split_horizontally(w - 230);
        let stacks: Vec<Stack> = classes
            .iter()
            .zip(shares)
            .map(|(c, v)| Stack {
                label: palette::class_label(c),
                colour: palette::class_colour(c),
                values: v,
            })
            .collect();
        let labels: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
        stacked_bars(
            &plot,
            None,
            "Run",
            "Share of memory accesses (%)",
            &labels,
            &stacks,
            100.0,
        )?;
        let items: Vec<_> = stacks.iter().rev().map(|s| (s.label.clone(), s.colour)).collect();
        legend(&key, Some("Served by"), &items)
    })
}
