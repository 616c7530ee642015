//! The page placement map of a phase (Tikir & Hollingsworth's address × time view): the pages
//! touched so far, sorted by virtual page number, cut into at most [`DEFAULT_MAP_BINS`]
//! contiguous bins; per bin the node holding most of its pages and how many of its pages the
//! phase's boundary migration moved.
//!
//! Size is bounded by the bin count, never by the footprint: a phase's map is four arrays of at
//! most `max_bins` numbers however many pages the workload touches. The work per phase is
//! O(pages touched) (a merge of the phase's new pages into a sorted order kept across phases,
//! then one pass), like the per-phase sharing histogram. Bins are a pure function of the set of
//! touched pages and their homes, so the map is deterministic.

use crate::mem::PageTable;
use serde::Serialize;

/// Bins per phase map unless asked otherwise.
pub const DEFAULT_MAP_BINS: usize = 64;

/// One phase's placement map.
///
/// With `pages` touched pages (P) and `bins` = min(max_bins, P) bins (B), bin `b` holds the
/// pages of ranks `[b·P/B, (b+1)·P/B)` (integer division) in increasing virtual page number,
/// so bins differ in size by at most one page. Every array has one entry per bin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PlacementMap {
    /// Pages touched by the end of the phase (the map's extent), pages.
    pub pages: u64,
    /// First virtual page number (virtual address / `page_bytes`) of each bin.
    pub first_vpage: Vec<u64>,
    /// Index into `machine.memory_nodes` of the node holding most of the bin's pages at the end
    /// of the phase, after its boundary migration (ties: the lowest index).
    pub home: Vec<u16>,
    /// Share of the bin's pages on `home`, per mille (0–1000; 1000 = the whole bin).
    pub home_permille: Vec<u16>,
    /// Pages of the bin whose home node changed at this phase's boundary migration, pages.
    pub migrated: Vec<u64>,
}

impl PlacementMap {
    /// Number of bins.
    pub fn bins(&self) -> usize {
        self.home.len()
    }
}

/// Builds a [`PlacementMap`] per phase; keeps the touched pages sorted across phases.
#[derive(Debug, Clone)]
pub struct PlacementMapper {
    max_bins: usize,
    /// Page ids sorted by virtual page number.
    order: Vec<u32>,
    scratch: Vec<u32>,
    /// Homes before the boundary migration (empty = no migration to diff against).
    before: Vec<u16>,
    counts: Vec<u64>,
}

impl Default for PlacementMapper {
    fn default() -> Self {
        PlacementMapper::new(DEFAULT_MAP_BINS)
    }
}

impl PlacementMapper {
    /// A mapper cutting the touched pages into at most `max_bins` bins (at least 1).
    pub fn new(max_bins: usize) -> Self {
        PlacementMapper {
            max_bins: max_bins.max(1),
            order: Vec::new(),
            scratch: Vec::new(),
            before: Vec::new(),
            counts: Vec::new(),
        }
    }

    /// Remembers the homes just before a phase-boundary migration, so the next [`Self::map`]
    /// can count the pages it moved. Without this call a phase records no migrations.
    pub fn before_boundary(&mut self, home: &[u16]) {
        self.before.clear();
        self.before.extend_from_slice(home);
    }

    /// The map of the phase that just ended; `home[id]` is page id `id`'s node (ids of
    /// `table`). Homes beyond `home.len()` are ignored (pages without a home are not mapped).
    pub fn map(&mut self, table: &PageTable, home: &[u16]) -> PlacementMap {
        let touched = table.pages().min(home.len());
        self.merge_new_pages(table, touched);
        let before = std::mem::take(&mut self.before);
        let p = self.order.len();
        let bins = self.max_bins.min(p);
        let mut m = PlacementMap {
            pages: p as u64,
            first_vpage: Vec::with_capacity(bins),
            home: Vec::with_capacity(bins),
            home_permille: Vec::with_capacity(bins),
            migrated: Vec::with_capacity(bins),
        };
        for b in 0..bins {
            let (lo, hi) = (b * p / bins, (b + 1) * p / bins);
            self.counts.clear();
            let mut moved = 0u64;
            for &id in &self.order[lo..hi] {
                let node = home[id as usize] as usize;
                if self.counts.len() <= node {
                    self.counts.resize(node + 1, 0);
                }
                self.counts[node] += 1;
                if before.get(id as usize).is_some_and(|&h| h != home[id as usize]) {
                    moved += 1;
                }
            }
            // max_by_key keeps the last maximum; scanning in reverse makes ties go to the lowest index.
            let (node, &count) = self
                .counts
                .iter()
                .enumerate()
                .rev()
                .max_by_key(|(_, &c)| c)
                .unwrap_or((0, &0));
            let size = (hi - lo) as u64;
            m.first_vpage.push(table.vpage(self.order[lo]));
            m.home.push(node as u16);
            m.home_permille.push((count * 1000 / size.max(1)) as u16);
            m.migrated.push(moved);
        }
        m
    }

    /// Merges page ids `order.len()..touched` (first touched since the last call) into `order`.
    fn merge_new_pages(&mut self, table: &PageTable, touched: usize) {
        let old = self.order.len();
        if touched <= old {
            return;
        }
        let mut new: Vec<u32> = (old as u32..touched as u32).collect();
        new.sort_unstable_by_key(|&id| table.vpage(id));
        if old == 0 || table.vpage(self.order[old - 1]) < table.vpage(new[0]) {
            self.order.extend_from_slice(&new);
            return;
        }
        self.scratch.clear();
        self.scratch.reserve(touched);
        let (mut i, mut j) = (0, 0);
        while i < old && j < new.len() {
            if table.vpage(self.order[i]) < table.vpage(new[j]) {
                self.scratch.push(self.order[i]);
                i += 1;
            } else {
                self.scratch.push(new[j]);
                j += 1;
            }
        }
        self.scratch.extend_from_slice(&self.order[i..]);
        self.scratch.extend_from_slice(&new[j..]);
        std::mem::swap(&mut self.order, &mut self.scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(vpages: &[u64]) -> PageTable {
        let mut t = PageTable::new(4096);
        for &v in vpages {
            t.lookup_or_insert(v << 12);
        }
        t
    }

    #[test]
    fn bins_follow_virtual_page_order_not_touch_order() {
        // Touched high half first: ids 0..4 are vpages 100..104, ids 4..8 are vpages 0..4.
        let t = table(&[100, 101, 102, 103, 0, 1, 2, 3]);
        let home = [1, 1, 1, 1, 0, 0, 0, 0];
        let m = PlacementMapper::new(2).map(&t, &home);
        assert_eq!(m.pages, 8);
        assert_eq!(m.first_vpage, [0, 100]);
        assert_eq!(m.home, [0, 1]);
        assert_eq!(m.home_permille, [1000, 1000]);
        assert_eq!(m.migrated, [0, 0]);
    }

    #[test]
    fn size_is_bounded_by_bins_and_shares_ties_go_low() {
        let vp: Vec<u64> = (0..10_000).map(|i| i * 7 + (i % 3) * 1_000_000).collect();
        let t = table(&vp);
        let home: Vec<u16> = (0..10_000).map(|i| (i % 2) as u16).collect();
        let m = PlacementMapper::new(64).map(&t, &home);
        assert_eq!(m.bins(), 64);
        assert_eq!(m.first_vpage.len(), 64);
        assert!(m.first_vpage.windows(2).all(|w| w[0] < w[1]));
        // Few pages: one bin per page.
        let small = PlacementMapper::new(64).map(&table(&[5, 9]), &[3, 2]);
        assert_eq!((small.bins(), small.home.clone()), (2, vec![3, 2]));
        // A tie: two pages on node 0 and two on node 1 in one bin → node 0, 500 ‰.
        let tie = PlacementMapper::new(1).map(&table(&[1, 2, 3, 4]), &[1, 0, 1, 0]);
        assert_eq!((tie.home[0], tie.home_permille[0]), (0, 500));
        // Nothing touched: an empty map, no panic.
        let empty = PlacementMapper::new(8).map(&PageTable::new(4096), &[]);
        assert_eq!((empty.pages, empty.bins()), (0, 0));
    }

    #[test]
    fn pages_added_across_phases_are_merged_in_order_and_moves_counted() {
        let mut t = table(&[10, 30]);
        let mut mapper = PlacementMapper::new(8);
        let m0 = mapper.map(&t, &[0, 0]);
        assert_eq!(m0.first_vpage, [10, 30]);
        t.lookup_or_insert(20 << 12);
        t.lookup_or_insert(40 << 12);
        t.lookup_or_insert(5 << 12);
        let mut home = vec![0u16, 0, 1, 1, 1];
        mapper.before_boundary(&home);
        home[0] = 1; // vpage 10 migrates 0 → 1
        home[4] = 0; // vpage 5 (new this phase) migrates 1 → 0
        let m1 = mapper.map(&t, &home);
        assert_eq!(m1.first_vpage, [5, 10, 20, 30, 40]);
        assert_eq!(m1.home, [0, 1, 1, 0, 1]);
        assert_eq!(m1.migrated, [1, 1, 0, 0, 0]);
        // The snapshot is used once: the next phase without a boundary records no moves.
        let m2 = mapper.map(&t, &home);
        assert_eq!(m2.migrated, [0; 5]);
        // Same input, same map.
        let again = PlacementMapper::new(8).map(&t, &home);
        assert_eq!(again.home, m2.home);
    }
}
