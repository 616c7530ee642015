//! Workload fidelity: two access streams (a traced program and the generator that stands for
//! it, or any two traces or experiments) side by side on the statistics that decide page
//! placement, with their differences.
//!
//! Each input is run through the sharing analysis ([`super::sharing`]) twice, counting
//! every access and counting LLC misses only, both on the same machine, the same thread-to-socket
//! mapping and a quantum of one instruction (the exact per-instruction interleaving, so the
//! first-touch owner of a page is the thread whose access to it has the lowest instruction
//! count). With one thread per socket the sharer counts are thread counts.
//!
//! The bands ([`Band`]) are the tolerances a generator must meet to stand for its program: five
//! points on shares, 10 % on the footprint, 20 % on LLC MPKI, three points on first-touch local.

use super::sharing::SharingAnalysis;
use serde::Serialize;

/// How two inputs are compared (the experiment layer's `compare` loads and analyses them).
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Machine preset or file (its socket count and LLCs).
    pub machine: String,
    /// Threads per socket (1: sharing by thread).
    pub threads_per_socket: usize,
}

/// The tolerance of one statistic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// Absolute difference in percentage points at most this.
    Points(f64),
    /// Relative difference (|b - a| / a) at most this fraction.
    Relative(f64),
    /// Reported, not judged.
    None,
}

/// One statistic of both inputs.
#[derive(Debug, Clone, Serialize)]
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    pub a: f64,
    pub b: f64,
    /// `b - a`.
    pub diff: f64,
    /// `(b - a) / a` (None when `a` is 0).
    pub relative: Option<f64>,
    pub band: Band,
    /// Whether the difference is within the band (None: no band).
    pub within: Option<bool>,
}

/// The comparison as printed and written by `numasim analyze compare`.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub machine: String,
    pub sockets: usize,
    pub threads_per_socket: usize,
    pub threads_a: usize,
    pub threads_b: usize,
    pub metrics: Vec<Metric>,
    /// The four analyses the metrics come from.
    pub analyses: [SharingAnalysis; 4],
}

impl Comparison {
    pub fn metric(&self, key: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.key == key)
    }

    /// Metrics outside their band.
    pub fn outside(&self) -> Vec<&Metric> {
        self.metrics.iter().filter(|m| m.within == Some(false)).collect()
    }
}

/// The statistics of one input: `(key, label, value, band)`.
pub fn statistics(all: &SharingAnalysis, llc: &SharingAnalysis) -> Vec<(&'static str, &'static str, f64, Band)> {
    let pct = |x: f64| 100.0 * x;
    let per = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
    let instr = all.instructions;
    vec![
        (
            "pages_gt8_pct",
            "% pages with >8 sharers (all accesses)",
            pct(all.page_buckets.more_than_eight),
            Band::None,
        ),
        (
            "accesses_gt8_pct",
            "% accesses on pages with >8 sharers",
            pct(all.access_buckets.more_than_eight),
            Band::Points(5.0),
        ),
        (
            "llc_pages_gt8_pct",
            "% pages with >8 sharers (LLC misses)",
            pct(llc.page_buckets.more_than_eight),
            Band::None,
        ),
        (
            "llc_misses_gt8_pct",
            "% LLC misses on pages with >8 sharers",
            pct(llc.access_buckets.more_than_eight),
            Band::Points(5.0),
        ),
        (
            "pages_1_pct",
            "% accesses on pages of one sharer",
            pct(all.access_buckets.one),
            Band::None,
        ),
        (
            "footprint_pages",
            "footprint (pages)",
            all.pages as f64,
            Band::Relative(0.10),
        ),
        (
            "read_pct",
            "% reads of accesses",
            pct(per(all.reads, all.reads + all.writes)),
            Band::Points(5.0),
        ),
        (
            "accesses_per_instruction",
            "accesses per instruction",
            per(all.accesses, instr),
            Band::None,
        ),
        (
            "llc_mpki",
            "LLC misses per 1000 instructions",
            1000.0 * per(llc.accesses, instr),
            Band::Relative(0.20),
        ),
        (
            "first_touch_local_pct",
            "% accesses local under first touch",
            pct(all.first_touch_local_fraction),
            Band::Points(3.0),
        ),
        (
            "first_touch_local_llc_pct",
            "% LLC misses local under first touch",
            pct(llc.first_touch_local_fraction),
            Band::Points(3.0),
        ),
    ]
}

fn within(band: Band, a: f64, b: f64) -> Option<bool> {
    // A little slack for the decimal rounding of printed figures.
    const EPS: f64 = 1e-9;
    match band {
        Band::Points(p) => Some((b - a).abs() <= p + EPS),
        Band::Relative(r) if a != 0.0 => Some(((b - a) / a).abs() <= r + EPS),
        Band::Relative(_) => Some(b == 0.0),
        Band::None => None,
    }
}

/// The metrics of two inputs from their analyses (all accesses, LLC misses each).
pub fn compare_analyses(a: [&SharingAnalysis; 2], b: [&SharingAnalysis; 2]) -> Vec<Metric> {
    statistics(a[0], a[1])
        .into_iter()
        .zip(statistics(b[0], b[1]))
        .map(|((key, label, va, band), (_, _, vb, _))| Metric {
            key,
            label,
            a: va,
            b: vb,
            diff: vb - va,
            relative: (va != 0.0).then(|| (vb - va) / va),
            band,
            within: within(band, va, vb),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::SharingBuckets;

    fn analysis(
        more_than_eight: f64,
        pages: u64,
        reads: u64,
        writes: u64,
        accesses: u64,
        local: f64,
    ) -> SharingAnalysis {
        let b = SharingBuckets {
            one: 1.0 - more_than_eight,
            two_to_four: 0.0,
            five_to_eight: 0.0,
            more_than_eight,
            all: 0.0,
        };
        SharingAnalysis {
            input: "x".into(),
            machine: "m".into(),
            sockets: 16,
            threads: 16,
            thread_sockets: (0..16).collect(),
            llc: false,
            page_bytes: 4096,
            pages_by_sharers: vec![0; 17],
            accesses_by_sharers: vec![0; 17],
            page_buckets: b.clone(),
            access_buckets: b,
            pages,
            footprint_bytes: pages * 4096,
            accesses,
            reads,
            writes,
            instructions: 10_000,
            first_touch_local_fraction: local,
            quantum_instructions: 1,
        }
    }

    #[test]
    fn differences_and_bands_follow_the_statistics() {
        let a = [
            &analysis(0.694, 1000, 800, 200, 1000, 0.30),
            &analysis(0.41, 900, 800, 200, 100, 0.20),
        ];
        let b = [
            &analysis(0.202, 1050, 700, 300, 1000, 0.32),
            &analysis(0.40, 900, 700, 300, 115, 0.20),
        ];
        let m = compare_analyses(a, b);
        let get = |k: &str| m.iter().find(|x| x.key == k).unwrap();
        let x = get("accesses_gt8_pct");
        assert!((x.a - 69.4).abs() < 1e-9 && (x.b - 20.2).abs() < 1e-9 && (x.diff + 49.2).abs() < 1e-9);
        assert_eq!(x.within, Some(false));
        assert_eq!(get("llc_misses_gt8_pct").within, Some(true), "1 point");
        let f = get("footprint_pages");
        assert!((f.relative.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(f.within, Some(true));
        let r = get("read_pct");
        assert!((r.a - 80.0).abs() < 1e-9 && (r.b - 70.0).abs() < 1e-9);
        assert_eq!(r.within, Some(false), "10 points");
        let mpki = get("llc_mpki");
        assert!((mpki.a - 10.0).abs() < 1e-9 && (mpki.b - 11.5).abs() < 1e-9);
        assert_eq!(mpki.within, Some(true), "15 %");
        assert_eq!(get("first_touch_local_pct").within, Some(true), "2 points");
        assert_eq!(get("accesses_per_instruction").within, None);
    }
}
