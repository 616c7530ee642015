//! A per-socket TLB model: fully associative, LRU, one counter per entry.
//!
//! Tikir & Hollingsworth's TLB-based sources (TLB misses, sampled TLB contents, Address
//! Translation Counters) and StarNUMA's TLB counter annex all need to know which translations a
//! processor holds. A real TLB is per core; numasim's unit is the socket, so one TLB per socket
//! is shared by its threads (documented approximation). The counter beside each entry is the
//! ATC counter or the StarNUMA annex counter: it is cleared when the entry is evicted.
//! Pages are dense page ids (the simulator's), not virtual page numbers.

use crate::param::declare_params;

const EMPTY: u32 = u32::MAX;

declare_params! {
    /// The TLB model's size, shared by every profiler that keeps one.
    pub struct TlbParams {
        /// entries of each socket's fully associative LRU TLB model
        tlb_entries: u64 = 64, unit "entries", Check::Range(1.0, 65536.0);
    }
}

/// One TLB per socket.
pub fn per_socket(params: &TlbParams, sockets: usize) -> Vec<Tlb> {
    (0..sockets)
        .map(|_| Tlb::new(params.tlb_entries.max(1) as usize))
        .collect()
}

/// TLB shootdown of the pages moved at a boundary, in every socket's TLB.
pub fn shoot_down(tlbs: &mut [Tlb], known_pages: usize, moved: &[u32]) {
    if moved.is_empty() || tlbs.is_empty() {
        return;
    }
    let mut flag = vec![false; known_pages];
    for &p in moved {
        flag[p as usize] = true;
    }
    for t in tlbs {
        t.invalidate(&flag);
    }
}

#[derive(Debug, Clone)]
pub struct Tlb {
    pages: Vec<u32>,
    stamp: Vec<u64>,
    /// Per-entry counter (ATC / annex).
    pub count: Vec<u32>,
    clock: u64,
    mru: usize,
}

/// Result of one translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    pub slot: usize,
    pub hit: bool,
    /// Counter of the entry evicted to make room (0 when none or on a hit).
    pub evicted_count: u32,
}

impl Tlb {
    pub fn new(entries: usize) -> Self {
        let n = entries.max(1);
        Tlb {
            pages: vec![EMPTY; n],
            stamp: vec![0; n],
            count: vec![0; n],
            clock: 0,
            mru: 0,
        }
    }

    /// Translates `page`, filling the LRU entry on a miss.
    #[inline]
    pub fn translate(&mut self, page: u32) -> Translation {
        if self.pages[self.mru] == page {
            return Translation {
                slot: self.mru,
                hit: true,
                evicted_count: 0,
            };
        }
        self.clock += 1;
        let mut lru = 0;
        let mut lru_stamp = u64::MAX;
        for (i, &p) in self.pages.iter().enumerate() {
            if p == page {
                self.stamp[i] = self.clock;
                self.mru = i;
                return Translation {
                    slot: i,
                    hit: true,
                    evicted_count: 0,
                };
            }
            if self.stamp[i] < lru_stamp {
                lru_stamp = self.stamp[i];
                lru = i;
            }
        }
        let evicted_count = if self.pages[lru] == EMPTY { 0 } else { self.count[lru] };
        self.pages[lru] = page;
        self.stamp[lru] = self.clock;
        self.count[lru] = 0;
        self.mru = lru;
        Translation {
            slot: lru,
            hit: false,
            evicted_count,
        }
    }

    /// Valid entries as (slot, page).
    pub fn valid(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != EMPTY)
            .map(|(i, &p)| (i, p))
    }

    /// Drops entries whose page is flagged in `moved` (a shootdown); returns their counters' sum.
    pub fn invalidate(&mut self, moved: &[bool]) -> u64 {
        let mut lost = 0;
        for i in 0..self.pages.len() {
            let p = self.pages[i];
            if p != EMPTY && moved.get(p as usize).copied().unwrap_or(false) {
                lost += u64::from(self.count[i]);
                self.pages[i] = EMPTY;
                self.stamp[i] = 0;
                self.count[i] = 0;
            }
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_and_reports_its_counter() {
        let mut t = Tlb::new(2);
        assert!(!t.translate(1).hit);
        let s1 = t.translate(1).slot;
        t.count[s1] = 7;
        assert!(!t.translate(2).hit);
        assert!(t.translate(1).hit); // 1 is now MRU, 2 is LRU
        let tr = t.translate(3);
        assert!(!tr.hit);
        assert_eq!(tr.evicted_count, 0, "page 2 had no count");
        let tr = t.translate(2); // evicts page 1 (LRU now)
        assert_eq!(tr.evicted_count, 7);
        let mut moved = vec![false; 4];
        moved[3] = true;
        t.invalidate(&moved);
        assert_eq!(t.valid().count(), 1);
    }
}
