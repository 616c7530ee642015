//! Per-page counters: per-socket counts for the current phase, totals and sharer sets for the run.
//!
//! Dense arrays indexed by page id (first-touch order). Per-phase per-socket counts are what
//! migration policies and profilers read at a phase boundary; the run-long sharer sets give the
//! whole-run sharing distribution. Counts are of memory accesses (LLC misses when the LLC
//! filter is on, every access when it is off).

use super::sharing::SharingHistogram;

#[derive(Debug, Clone)]
pub struct PageStats {
    sockets: usize,
    words: usize,
    /// `[page * sockets + socket]`, reset at every phase boundary.
    pub phase_counts: Vec<u32>,
    /// Run-long memory accesses per page (up to the last phase end).
    pub total: Vec<u64>,
    /// Run-long sharer bitsets, `words` u64 per page.
    sharers: Vec<u64>,
}

impl PageStats {
    pub fn new(sockets: usize) -> Self {
        PageStats {
            sockets,
            words: sockets.div_ceil(64),
            phase_counts: Vec::new(),
            total: Vec::new(),
            sharers: Vec::new(),
        }
    }

    pub fn sockets(&self) -> usize {
        self.sockets
    }

    /// Adds storage for one new page.
    #[inline]
    pub fn push_page(&mut self) {
        crate::huge_pages::reserve(&mut self.phase_counts, self.sockets);
        self.phase_counts.extend(std::iter::repeat_n(0, self.sockets));
        crate::huge_pages::reserve(&mut self.total, 1);
        self.total.push(0);
        crate::huge_pages::reserve(&mut self.sharers, self.words);
        self.sharers.extend(std::iter::repeat_n(0, self.words));
    }

    /// Counts one memory access. Only the phase row is touched here (one cache line per page on
    /// a 16-socket machine); run-long totals and sharer sets are folded in at the phase end.
    #[inline]
    pub fn record(&mut self, page: u32, socket: usize) {
        let c = &mut self.phase_counts[page as usize * self.sockets + socket];
        *c = c.saturating_add(1);
    }

    /// Address of a page's phase row, for prefetching.
    #[inline]
    pub fn row_ptr(&self, page: u32) -> *const u32 {
        self.phase_counts.as_ptr().wrapping_add(page as usize * self.sockets)
    }

    /// Ends a phase: folds the phase counts into run-long totals and sharer sets, then zeroes them.
    pub fn end_phase(&mut self) {
        for p in 0..self.total.len() {
            let row = &mut self.phase_counts[p * self.sockets..(p + 1) * self.sockets];
            for (s, c) in row.iter_mut().enumerate() {
                if *c > 0 {
                    self.total[p] += u64::from(*c);
                    self.sharers[p * self.words + s / 64] |= 1 << (s % 64);
                    *c = 0;
                }
            }
        }
    }

    /// Forgets the phase's counts without folding them into the run's (an uncounted set-up).
    pub fn discard_phase(&mut self) {
        self.phase_counts.fill(0);
    }

    pub fn pages(&self) -> usize {
        self.total.len()
    }

    /// This phase's counts of `page`, one per socket.
    pub fn phase_row(&self, page: usize) -> &[u32] {
        &self.phase_counts[page * self.sockets..(page + 1) * self.sockets]
    }

    pub fn run_sharers(&self, page: usize) -> usize {
        self.sharers[page * self.words..(page + 1) * self.words]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum()
    }

    /// Sharing distribution of the current phase.
    pub fn phase_sharing(&self) -> SharingHistogram {
        let mut h = SharingHistogram::new(self.sockets);
        for p in 0..self.pages() {
            let row = self.phase_row(p);
            let sharers = row.iter().filter(|&&c| c > 0).count();
            h.add(sharers, row.iter().map(|&c| c as u64).sum());
        }
        h
    }

    /// Sharing distribution of the whole run up to the last [`end_phase`](Self::end_phase).
    pub fn run_sharing(&self) -> SharingHistogram {
        let mut h = SharingHistogram::new(self.sockets);
        for p in 0..self.pages() {
            h.add(self.run_sharers(p), self.total[p]);
        }
        h
    }
}
