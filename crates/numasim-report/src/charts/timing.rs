//! Timing figures: AMAT per run stacked as unloaded + contention latency per access class
//! (StarNUMA Fig. 8 style), and speedup over the first run with the geometric mean (Fig. 8/10).
//! Drawn only when runs carry timing data (see [`crate::timing`]).

use super::{legend, nice_max, render_svg, stacked_bars, titled, Stack};
use crate::error::ReportError;
use crate::palette;
use crate::results::Run;
use crate::timing::{amat_by_class, speedups};
use plotters::style::RGBColor;

fn lighter(c: RGBColor) -> RGBColor {
    let l = |x: u8| (x as f64 + (255.0 - x as f64) * 0.55) as u8;
    RGBColor(l(c.0), l(c.1), l(c.2))
}

pub fn amat_available(runs: &[Run]) -> bool {
    runs.iter().any(|r| amat_by_class(r).is_some())
}

pub fn amat_svg(runs: &[Run]) -> Result<String, ReportError> {
    let amats: Vec<_> = runs.iter().map(|r| amat_by_class(r).unwrap_or_default()).collect();
    let mut classes: Vec<String> = amats.iter().flatten().map(|a| a.class.clone()).collect();
    classes.sort_by_key(|c| palette::class_order(c));
    classes.dedup();
    // Each class contributes its latency weighted by its share of accesses, so bars sum to AMAT.
    let weight = |r: &Run, c: &str| {
        let by = &r.results.totals.summary.by_class;
        let t: u64 = by.values().sum();
        if t == 0 {
            0.0
        } else {
            by.get(c).copied().unwrap_or(0) as f64 / t as f64
        }
    };
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
                values: runs
                    .iter()
                    .zip(&amats)
                    .map(|(r, a)| {
                        a.iter()
                            .find(|x| &x.class == c)
                            .map(|x| weight(r, c) * if contention { x.contention_ns } else { x.unloaded_ns })
                            .unwrap_or(0.0)
                    })
                    .collect(),
            });
        }
    }
    let top = (0..runs.len())
        .map(|i| stacks.iter().map(|s| s.values[i]).sum::<f64>())
        .fold(0.0, f64::max);
    let labels: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    let w = (560 + 150 * runs.len() as u32).min(1400);
    render_svg("AMAT figure", w, 560, |root| {
        let area = titled(root, "Average memory access time")?;
        let (plot, key) = area.split_horizontally(w - 280);
        stacked_bars(&plot, None, "Run", "AMAT (ns)", &labels, &stacks, nice_max(top))?;
        let items: Vec<_> = stacks.iter().rev().map(|s| (s.label.clone(), s.colour)).collect();
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
    let mut labels: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    labels.push("geomean".into());
    let mut values = s.clone();
    values.push(geo);
    let colours: Vec<RGBColor> = (0..values.len())
        .map(|i| {
            if i + 1 == values.len() {
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
    render_svg("speedup figure", w, 540, |root| {
        let area = titled(root, &format!("Speedup over {}", runs[0].label))?;
        stacked_bars(&area, None, "Run", "Speedup (×)", &labels, &stacks, nice_max(top))?;
        let _ = legend;
        Ok(())
    })
}
