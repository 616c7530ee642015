//! Sharing degree: how many sockets touch a page, and how accesses spread over such pages.
//!
//! StarNUMA's Fig. 2 argument in numbers: most pages have few sharers, but the few pages
//! shared by many sockets take most accesses ("vagabond pages"), and no home node serves them
//! well. Both histograms are indexed by sharer count 0..=S (index 0 stays 0).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharingHistogram {
    /// Pages by number of distinct sharer sockets.
    pub pages_by_sharers: Vec<u64>,
    /// Accesses by the sharer count of the page they touch.
    pub accesses_by_sharers: Vec<u64>,
}

/// StarNUMA Fig. 2 buckets, as fractions of pages and of accesses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharingBuckets {
    pub one: f64,
    pub two_to_four: f64,
    pub five_to_eight: f64,
    pub more_than_eight: f64,
    /// Shared by every socket (also counted in the buckets above).
    pub all: f64,
}

impl SharingHistogram {
    pub fn new(sockets: usize) -> Self {
        SharingHistogram {
            pages_by_sharers: vec![0; sockets + 1],
            accesses_by_sharers: vec![0; sockets + 1],
        }
    }

    #[inline]
    pub fn add(&mut self, sharers: usize, accesses: u64) {
        if sharers > 0 {
            self.pages_by_sharers[sharers] += 1;
            self.accesses_by_sharers[sharers] += accesses;
        }
    }

    pub fn pages(&self) -> u64 {
        self.pages_by_sharers.iter().sum()
    }

    pub fn accesses(&self) -> u64 {
        self.accesses_by_sharers.iter().sum()
    }

    fn buckets_of(v: &[u64]) -> SharingBuckets {
        let total = v.iter().sum::<u64>().max(1) as f64;
        let s = v.len() - 1;
        let sum = |lo: usize, hi: usize| {
            v.iter()
                .enumerate()
                .filter(|(k, _)| *k >= lo && *k <= hi)
                .map(|(_, &x)| x)
                .sum::<u64>() as f64
                / total
        };
        SharingBuckets {
            one: sum(1, 1),
            two_to_four: sum(2, 4),
            five_to_eight: sum(5, 8),
            more_than_eight: sum(9, s),
            all: sum(s, s),
        }
    }

    pub fn page_buckets(&self) -> SharingBuckets {
        Self::buckets_of(&self.pages_by_sharers)
    }

    pub fn access_buckets(&self) -> SharingBuckets {
        Self::buckets_of(&self.accesses_by_sharers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_sum_to_one_and_all_is_top_index() {
        let mut h = SharingHistogram::new(16);
        h.add(1, 10);
        h.add(3, 10);
        h.add(16, 80);
        h.add(0, 1000); // ignored: untouched
        let b = h.access_buckets();
        assert!((b.one + b.two_to_four + b.five_to_eight + b.more_than_eight - 1.0).abs() < 1e-12);
        assert!((b.all - 0.8).abs() < 1e-12);
        assert_eq!(h.pages(), 3);
        assert!((h.page_buckets().one - 1.0 / 3.0).abs() < 1e-12);
    }
}
