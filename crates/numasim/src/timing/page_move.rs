//! What moving pages between NUMA nodes costs by each of the three methods Zaourar et al.
//! compare (§4.4, Fig. 6): `memcpy` on one core, the `move_pages` system call, and a
//! vectorised stream copy on one core.
//!
//! Why a per-method fixed + per-page + per-byte form: `move_pages` pays a system call per call
//! and kernel work per page (unmap, allocate, remap, TLB shootdown) on top of the copy, while
//! the two user-space copies pay only for bytes at the rate one core can pull through the
//! interconnect. So batch time is `call_ns + pages · (page_ns + page_bytes / gbps)` with
//! `call_ns = page_ns = 0` for the copies, and the share of the interconnect's peak it reaches
//! is `bytes / time / peak_gbps`. The parameters are per platform; [`PageMoveCost::fit`]
//! derives them from measured batches (for instance `numasim bench move-pages --json` on the
//! platform), since the paper gives its results only as a figure.

use serde::Serialize;

/// The three methods of Fig. 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveMethod {
    Memcpy,
    MovePages,
    StreamCopy,
}

/// One method's cost on one platform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MethodCost {
    /// Fixed time per batch (the system call), ns.
    pub call_ns: f64,
    /// Kernel time per page beyond the copy, ns.
    pub page_ns: f64,
    /// Copy rate of the one core doing it, GB/s.
    pub copy_gbps: f64,
}

/// A platform's page-move costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PageMoveCost {
    pub memcpy: MethodCost,
    pub move_pages: MethodCost,
    pub stream_copy: MethodCost,
    /// Peak node-to-node interconnect bandwidth, GB/s.
    pub peak_gbps: f64,
}

impl PageMoveCost {
    pub fn method(&self, m: MoveMethod) -> MethodCost {
        match m {
            MoveMethod::Memcpy => self.memcpy,
            MoveMethod::MovePages => self.move_pages,
            MoveMethod::StreamCopy => self.stream_copy,
        }
    }

    /// Time to move `pages` pages of `page_bytes` by `m`, ns.
    pub fn time_ns(&self, m: MoveMethod, pages: u64, page_bytes: u64) -> f64 {
        let c = self.method(m);
        c.call_ns + pages as f64 * (c.page_ns + page_bytes as f64 / c.copy_gbps)
    }

    /// Share of the interconnect's peak bandwidth the move reaches (0..).
    pub fn share_of_peak(&self, m: MoveMethod, pages: u64, page_bytes: u64) -> f64 {
        let t = self.time_ns(m, pages, page_bytes);
        (pages * page_bytes) as f64 / t / self.peak_gbps
    }

    /// Fits one method from measured batches `(pages, ns)` of `page_bytes` pages: a straight
    /// line `ns = call + pages · per_page` by least squares; the per-page time is split into the
    /// copy at `copy_gbps` (when given: a copy rate known from the user-space copies) and the
    /// rest as kernel work, or all taken as copy time when `copy_gbps` is None. None if there
    /// are fewer than two distinct batch sizes or the fit is not positive.
    pub fn fit(points: &[(u64, f64)], page_bytes: u64, copy_gbps: Option<f64>) -> Option<MethodCost> {
        let n = points.len() as f64;
        let mx = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mx).powi(2)).sum();
        if points.len() < 2 || sxx == 0.0 {
            return None;
        }
        let sxy: f64 = points.iter().map(|p| (p.0 as f64 - mx) * (p.1 - my)).sum();
        let per_page = sxy / sxx;
        let call = (my - per_page * mx).max(0.0);
        if per_page.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        Some(match copy_gbps {
            Some(g) => MethodCost {
                call_ns: call,
                page_ns: (per_page - page_bytes as f64 / g).max(0.0),
                copy_gbps: g,
            },
            None => MethodCost {
                call_ns: call,
                page_ns: 0.0,
                copy_gbps: page_bytes as f64 / per_page,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform() -> PageMoveCost {
        PageMoveCost {
            memcpy: MethodCost {
                call_ns: 0.0,
                page_ns: 0.0,
                copy_gbps: 8.0,
            },
            move_pages: MethodCost {
                call_ns: 2_000.0,
                page_ns: 1_500.0,
                copy_gbps: 8.0,
            },
            stream_copy: MethodCost {
                call_ns: 0.0,
                page_ns: 0.0,
                copy_gbps: 12.0,
            },
            peak_gbps: 50.0,
        }
    }

    #[test]
    fn batch_time_and_share_follow_the_closed_form() {
        let p = platform();
        let bytes = 64 << 10;
        // 256 pages of 64 KiB at 8 GB/s: 256 · 8192 ns.
        assert!((p.time_ns(MoveMethod::Memcpy, 256, bytes) - 256.0 * 8192.0).abs() < 1e-6);
        assert!((p.time_ns(MoveMethod::MovePages, 256, bytes) - (2000.0 + 256.0 * (1500.0 + 8192.0))).abs() < 1e-6);
        // A single core never reaches the peak; the syscall method is the slowest, and its share
        // grows with the batch as the call is amortised.
        let share = |m, n| p.share_of_peak(m, n, bytes);
        assert!((share(MoveMethod::Memcpy, 1 << 17) - 8.0 / 50.0).abs() < 1e-9);
        assert!(share(MoveMethod::MovePages, 256) < share(MoveMethod::Memcpy, 256));
        assert!(share(MoveMethod::StreamCopy, 256) > share(MoveMethod::Memcpy, 256));
        assert!(share(MoveMethod::MovePages, 1 << 17) > share(MoveMethod::MovePages, 256));
    }

    #[test]
    fn a_fit_recovers_the_parameters_it_was_measured_with() {
        let p = platform();
        let bytes = 4096;
        let points: Vec<(u64, f64)> = (8..=17)
            .map(|k| (1u64 << k, p.time_ns(MoveMethod::MovePages, 1 << k, bytes)))
            .collect();
        let f = PageMoveCost::fit(&points, bytes, Some(8.0)).unwrap();
        assert!((f.call_ns - 2000.0).abs() < 1e-3, "{f:?}");
        assert!((f.page_ns - 1500.0).abs() < 1e-6, "{f:?}");
        let copies: Vec<(u64, f64)> = (8..=17)
            .map(|k| (1u64 << k, p.time_ns(MoveMethod::StreamCopy, 1 << k, bytes)))
            .collect();
        let f = PageMoveCost::fit(&copies, bytes, None).unwrap();
        assert!((f.copy_gbps - 12.0).abs() < 1e-9, "{f:?}");
        assert!(PageMoveCost::fit(&[(4, 10.0)], bytes, None).is_none());
        assert!(PageMoveCost::fit(&[(4, 10.0), (8, 5.0)], bytes, None).is_none());
    }
}
