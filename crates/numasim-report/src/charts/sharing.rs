//! Sharing: how many sockets touch each page, as StarNUMA Fig. 2 / Fig. 13 draw it — the share
//! of pages (left) and of memory accesses (right) whose page is touched by 1, 2–4, 5–8 or more
//! than 8 sockets, one stacked bar per run.

use super::{legend, render_svg, stacked_bars, titled, Stack};
use crate::error::ReportError;
use crate::palette;
use crate::results::{Run, SharingBuckets};

pub const BUCKETS: [&str; 4] = ["1 socket", "2–4 sockets", "5–8 sockets", "> 8 sockets"];

pub fn bucket_colours() -> [plotters::style::RGBColor; 4] {
    [
        palette::BLUISH_GREEN,
        palette::SKY_BLUE,
        palette::BLUE,
        palette::VERMILLION,
    ]
}

fn values(b: &SharingBuckets) -> [f64; 4] {
    [b.one, b.two_to_four, b.five_to_eight, b.more_than_eight].map(|x| 100.0 * x)
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter().any(|r| r.results.sharing.is_some())
}

pub fn svg(runs: &[Run]) -> Result<String, ReportError> {
    let with: Vec<&Run> = runs.iter().filter(|r| r.results.sharing.is_some()).collect();
    let labels: Vec<String> = with.iter().map(|r| r.label.clone()).collect();
    let panel_w = 320 + 110 * with.len() as u32;
    let w = (2 * panel_w + 230).min(1600);
    render_svg("sharing figure", w, 560, |root| {
        let area = titled(root, "Pages and accesses by number of sharer sockets")?;
        let (plots, key) = area.split_horizontally(w - 230);
        let panels = plots.split_evenly((1, 2));
        for (k, (panel, what)) in panels.iter().zip(["Pages", "Memory accesses"]).enumerate() {
            let stacks: Vec<Stack> = (0..4)
                .map(|b| Stack {
                    label: BUCKETS[b].to_string(),
                    colour: bucket_colours()[b],
                    values: with
                        .iter()
                        .map(|r| {
                            let s = r.results.sharing.as_ref().expect("filtered");
                            values(if k == 0 { &s.page_buckets } else { &s.access_buckets })[b]
                        })
                        .collect(),
                })
                .collect();
            stacked_bars(
                panel,
                Some(what),
                "Run",
                &format!("{what} (%)"),
                &labels,
                &stacks,
                100.0,
            )?;
        }
        let items: Vec<_> = (0..4)
            .rev()
            .map(|b| (BUCKETS[b].to_string(), bucket_colours()[b]))
            .collect();
        legend(&key, Some("Touched by"), &items)
    })
}
