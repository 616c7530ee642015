//! What a profiler hands a policy at a phase boundary, and how profiles are compared.
//!
//! Every profiler, whatever it observes (memory accesses, sampled transactions, TLB state,
//! hinting faults), ends a phase with the same thing: an estimated access count per page per
//! socket. That common form is what lets any profiler feed any page-level policy. The
//! comparisons are Tikir & Hollingsworth's: the distance metric D (§5.1: per processor,
//! `|R_sample − R_all| / R_all` where R is the share of events requested by that processor),
//! the share of touched pages a profile covers (their Fig. 2), and, for policies, whether the
//! profile names the same most-frequent accessor as the full knowledge does.

/// Estimated per-page per-socket counts for one phase; `counts[page * sockets + socket]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageProfile {
    pub sockets: usize,
    pub counts: Vec<u32>,
}

impl PageProfile {
    pub fn new(sockets: usize, pages: usize) -> Self {
        PageProfile {
            sockets,
            counts: vec![0; sockets * pages],
        }
    }

    pub fn pages(&self) -> usize {
        self.counts.len().checked_div(self.sockets).unwrap_or(0)
    }

    #[inline]
    pub fn row(&self, page: usize) -> &[u32] {
        &self.counts[page * self.sockets..(page + 1) * self.sockets]
    }

    pub fn total(&self, page: usize) -> u64 {
        self.row(page).iter().map(|&c| u64::from(c)).sum()
    }

    /// The socket with the most counts (ties: lowest index); `None` for an unseen page.
    pub fn top_socket(&self, page: usize) -> Option<usize> {
        let row = self.row(page);
        let mut best = None;
        let mut best_c = 0;
        for (s, &c) in row.iter().enumerate() {
            if c > best_c {
                best_c = c;
                best = Some(s);
            }
        }
        best
    }

    /// Events per socket, summed over pages.
    pub fn per_socket(&self) -> Vec<u64> {
        let mut v = vec![0u64; self.sockets];
        for row in self.counts.chunks_exact(self.sockets.max(1)) {
            for (s, &c) in row.iter().enumerate() {
                v[s] += u64::from(c);
            }
        }
        v
    }

    /// Adds another profile of the same shape (pages beyond `self` extend it).
    pub fn add(&mut self, other: &PageProfile) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, &b) in self.counts.iter_mut().zip(&other.counts) {
            *a = a.saturating_add(b);
        }
    }
}

/// Tikir & Hollingsworth's D for every socket: `None` where the full profile has no events
/// from that socket (R_all = 0, D undefined).
pub fn distance(sample: &PageProfile, all: &PageProfile) -> Vec<Option<f64>> {
    let s = sample.per_socket();
    let a = all.per_socket();
    let (st, at) = (s.iter().sum::<u64>(), a.iter().sum::<u64>());
    (0..all.sockets)
        .map(|i| {
            if a[i] == 0 || at == 0 {
                return None;
            }
            let r_all = a[i] as f64 / at as f64;
            let r_sample = if st == 0 { 0.0 } else { s[i] as f64 / st as f64 };
            Some((r_sample - r_all).abs() / r_all)
        })
        .collect()
}

/// Share of the pages with events in `all` that appear in `sample` (Fig. 2, right axis).
pub fn pages_covered(sample: &PageProfile, all: &PageProfile) -> f64 {
    let mut touched = 0u64;
    let mut covered = 0u64;
    for p in 0..all.pages() {
        if all.total(p) > 0 {
            touched += 1;
            if p < sample.pages() && sample.total(p) > 0 {
                covered += 1;
            }
        }
    }
    if touched == 0 {
        0.0
    } else {
        covered as f64 / touched as f64
    }
}

/// Share of `all`'s events that go to pages whose top socket in `sample` is the top socket in
/// `all` (a page the sample never saw counts as a mismatch).
pub fn top_agreement(sample: &PageProfile, all: &PageProfile) -> f64 {
    let mut total = 0u64;
    let mut agree = 0u64;
    for p in 0..all.pages() {
        let t = all.total(p);
        if t == 0 {
            continue;
        }
        total += t;
        if p < sample.pages() && sample.top_socket(p).is_some() && sample.top_socket(p) == all.top_socket(p) {
            agree += t;
        }
    }
    if total == 0 {
        1.0
    } else {
        agree as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_relative_error_of_socket_shares() {
        let all = PageProfile {
            sockets: 2,
            counts: vec![30, 10, 30, 30], // socket shares 0.6 / 0.4
        };
        let sample = PageProfile {
            sockets: 2,
            counts: vec![1, 0, 0, 1], // 0.5 / 0.5
        };
        let d = distance(&sample, &all);
        assert!((d[0].unwrap() - (0.1 / 0.6)).abs() < 1e-12);
        assert!((d[1].unwrap() - (0.1 / 0.4)).abs() < 1e-12);
        assert!((pages_covered(&sample, &all) - 1.0).abs() < 1e-12);
        // Page 0: top 0 in both; page 1: all ties → socket 0, sample says 1.
        assert!((top_agreement(&sample, &all) - 40.0 / 100.0).abs() < 1e-12);
        assert_eq!(all.top_socket(1), Some(0));
    }
}
