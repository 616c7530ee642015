//! A set-associative, write-back, LRU cache of 64 B lines, as flat arrays.
//!
//! Used as the per-socket shared LLC filter (only misses and dirty evictions reach memory), and
//! in timing mode also as each core's private L1-D, L2 and TLB (keys are then page numbers):
//! a hit reports whether the line was already dirty (a dirty private line is owned, so a
//! store to it needs no coherence action), and a line can be cleaned when another socket
//! reads it.
//! Tags sit in one flat vector, each set contiguous and kept in recency order, so a lookup
//! touches one short run of memory. Set counts need not be powers of two (28 cores × 2 MiB is not); the
//! set is chosen by a multiply-shift over a hashed line address.

/// Result of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hit {
        /// The line was dirty before this access.
        was_dirty: bool,
    },
    /// Missed; if a dirty line was evicted to make room, its line address.
    Miss { writeback: Option<u64> },
}

const INVALID: u64 = u64::MAX;
const DIRTY: u64 = 1 << 63;

/// Shifts ways `0..w` down by one and puts `tag` first (sets are short: a plain loop beats
/// `rotate_right`'s general algorithm and a memmove call).
#[inline(always)]
fn to_front(set: &mut [u64], w: usize, tag: u64) {
    let mut i = w;
    while i > 0 {
        set[i] = set[i - 1];
        i -= 1;
    }
    set[0] = tag;
}

#[derive(Debug, Clone)]
pub struct SetAssocCache {
    /// Sets per part.
    sets: u64,
    ways: usize,
    /// Per set, ways in recency order (index 0 = most recently used); invalid ways trail.
    tags: Vec<u64>,
}

impl SetAssocCache {
    /// A cache of `size_bytes` with `ways` ways and 64 B lines (at least one set).
    pub fn new(size_bytes: u64, ways: usize) -> Self {
        let ways = ways.max(1);
        let sets = (size_bytes / 64 / ways as u64).max(1);
        let n = (sets as usize) * ways;
        let mut tags = Vec::with_capacity(n);
        crate::mem::huge_pages::advise(&tags);
        tags.resize(n, INVALID);
        SetAssocCache { sets, ways, tags }
    }

    /// `parts` independent caches of `size_bytes` each in one allocation (every core's L1, L2
    /// or TLB): one huge-page-backed array instead of many small ones the host TLB misses on.
    /// Address a part with the `*_in` methods.
    pub fn partitioned(parts: usize, size_bytes: u64, ways: usize) -> Self {
        let ways = ways.max(1);
        let sets = (size_bytes / 64 / ways as u64).max(1);
        let n = parts.max(1) * sets as usize * ways;
        let mut tags = Vec::with_capacity(n);
        crate::mem::huge_pages::advise(&tags);
        tags.resize(n, INVALID);
        SetAssocCache { sets, ways, tags }
    }

    /// [`SetAssocCache::partitioned`] that reports, instead of aborting, when the tag array's
    /// size overflows or the allocation fails (hostile sizes times thousands of cores).
    pub fn try_partitioned(parts: usize, size_bytes: u64, ways: usize) -> Result<Self, String> {
        let ways = ways.max(1);
        let sets = (size_bytes / 64 / ways as u64).max(1);
        let n = (parts.max(1) as u64)
            .checked_mul(sets)
            .and_then(|x| x.checked_mul(ways as u64))
            .and_then(|x| usize::try_from(x).ok())
            .filter(|&n| n.checked_mul(8).is_some_and(|b| b <= isize::MAX as usize))
            .ok_or_else(|| {
                format!("{parts} caches of {size_bytes} bytes need more tag memory than can be addressed")
            })?;
        let mut tags: Vec<u64> = Vec::new();
        tags.try_reserve_exact(n).map_err(|e| {
            format!(
                "cannot allocate {:.1} MiB of cache tags for {parts} caches of {size_bytes} bytes: {e}",
                n as f64 * 8.0 / (1 << 20) as f64
            )
        })?;
        crate::mem::huge_pages::advise(&tags);
        tags.resize(n, INVALID);
        Ok(SetAssocCache { sets, ways, tags })
    }

    /// A cache of `entries` keys (lines, or pages for a TLB) in `ways` ways.
    pub fn with_entries(entries: u64, ways: usize) -> Self {
        Self::new(entries.saturating_mul(64), ways)
    }

    /// Drops every line (sampled timing: private caches that missed what another engine did).
    pub fn clear(&mut self) {
        self.tags.fill(INVALID);
    }

    /// Ways per set.
    pub fn ways(&self) -> usize {
        self.ways
    }

    pub fn sets(&self) -> u64 {
        self.sets
    }

    #[inline]
    fn set_of(&self, line: u64) -> usize {
        let h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (((h as u128) * (self.sets as u128)) >> 64) as usize
    }

    /// First tag of the set `line` maps to in part `part`.
    #[inline]
    fn base_in(&self, part: usize, line: u64) -> usize {
        (part * self.sets as usize + self.set_of(line)) * self.ways
    }

    /// Hints the host CPU to fetch the set `line` maps to (simulator lookahead).
    #[inline]
    pub fn prefetch(&self, line: u64) {
        self.prefetch_in(0, line)
    }

    /// [`SetAssocCache::prefetch`] in part `part`.
    #[inline]
    pub fn prefetch_in(&self, part: usize, line: u64) {
        let base = self.base_in(part, line);
        crate::prefetch::read(self.tags.as_ptr().wrapping_add(base));
        crate::prefetch::read(self.tags.as_ptr().wrapping_add(base + self.ways - 1));
    }

    /// Accesses line address `line` (byte address >> 6).
    ///
    /// LRU is kept by order: a hit moves its way to the front, a miss evicts the last way and
    /// inserts at the front. A set is one contiguous run of tags (128 B for 16 ways), so a
    /// lookup touches two adjacent host cache lines and no separate recency array.
    #[inline]
    pub fn access(&mut self, line: u64, write: bool) -> Outcome {
        self.access_in(0, line, write)
    }

    /// [`SetAssocCache::access`] in part `part`.
    #[inline]
    pub fn access_in(&mut self, part: usize, line: u64, write: bool) -> Outcome {
        let base = self.base_in(part, line);
        let set = &mut self.tags[base..base + self.ways];
        for w in 0..set.len() {
            let tag = set[w];
            if tag & !DIRTY == line && tag != INVALID {
                let was_dirty = tag & DIRTY != 0;
                let tag = if write { tag | DIRTY } else { tag };
                to_front(set, w, tag);
                return Outcome::Hit { was_dirty };
            }
            if tag == INVALID {
                // Invalid ways only trail valid ones: the line is absent and there is room.
                to_front(set, w, if write { line | DIRTY } else { line });
                return Outcome::Miss { writeback: None };
            }
        }
        let old = set[set.len() - 1];
        let writeback = (old & DIRTY != 0).then_some(old & !DIRTY);
        let last = set.len() - 1;
        to_front(set, last, if write { line | DIRTY } else { line });
        Outcome::Miss { writeback }
    }

    /// Whether `line` is present (no change to the recency order).
    pub fn contains(&self, line: u64) -> bool {
        let base = self.base_in(0, line);
        self.tags[base..base + self.ways]
            .iter()
            .any(|&t| t != INVALID && t & !DIRTY == line)
    }

    /// Drops `line` if present (a migrated page's lines are invalidated); returns whether it was dirty.
    pub fn invalidate(&mut self, line: u64) -> bool {
        self.invalidate_in(0, line)
    }

    /// [`SetAssocCache::invalidate`] in part `part`.
    pub fn invalidate_in(&mut self, part: usize, line: u64) -> bool {
        let base = self.base_in(part, line);
        let set = &mut self.tags[base..base + self.ways];
        for w in 0..set.len() {
            if set[w] != INVALID && set[w] & !DIRTY == line {
                let dirty = set[w] & DIRTY != 0;
                // Keep invalid ways at the end of the recency order.
                let last = set.len() - 1;
                for i in w..last {
                    set[i] = set[i + 1];
                }
                set[last] = INVALID;
                return dirty;
            }
        }
        false
    }

    /// Clears the dirty bit of `line` if present (the socket lost exclusive ownership).
    pub fn clean(&mut self, line: u64) {
        self.clean_in(0, line)
    }

    /// [`SetAssocCache::clean`] in part `part`.
    pub fn clean_in(&mut self, part: usize, line: u64) {
        let base = self.base_in(part, line);
        for t in &mut self.tags[base..base + self.ways] {
            if *t != INVALID && *t & !DIRTY == line {
                *t &= !DIRTY;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_a_partitioned_cache_are_independent() {
        let mut c = SetAssocCache::partitioned(3, 128, 2); // three one-set, two-way caches
        assert_eq!(c.access_in(0, 7, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access_in(1, 7, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access_in(0, 7, false), Outcome::Hit { was_dirty: true });
        // Filling part 2 evicts nothing from parts 0 and 1.
        for l in 0..10 {
            c.access_in(2, 100 + l, false);
        }
        assert_eq!(c.access_in(1, 7, false), Outcome::Hit { was_dirty: false });
        c.clean_in(0, 7);
        assert_eq!(c.access_in(0, 7, false), Outcome::Hit { was_dirty: false });
        assert!(!c.invalidate_in(1, 7));
        assert_eq!(c.access_in(1, 7, false), Outcome::Miss { writeback: None });
    }

    #[test]
    fn reports_dirty_hits_and_cleans() {
        let mut c = SetAssocCache::with_entries(2, 2); // one set, two ways
        assert_eq!(c.access(1, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), Outcome::Hit { was_dirty: true });
        c.clean(1);
        assert_eq!(c.access(1, true), Outcome::Hit { was_dirty: false });
        assert_eq!(c.access(2, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: Some(1) });
        c.invalidate(3);
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: None });
    }

    #[test]
    fn hit_after_miss_and_lru_eviction_with_writeback() {
        // One set, two ways.
        let mut c = SetAssocCache::new(128, 2);
        assert_eq!(c.sets(), 1);
        assert_eq!(c.access(1, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access(2, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), Outcome::Hit { was_dirty: true });
        // 2 is LRU now and clean.
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: None });
        // 1 is LRU now and dirty.
        assert_eq!(c.access(4, false), Outcome::Miss { writeback: Some(1) });
        assert_eq!(c.access(3, false), Outcome::Hit { was_dirty: false });
    }

    #[test]
    fn working_set_that_fits_only_misses_once() {
        let mut c = SetAssocCache::new(1 << 20, 16);
        let lines = (1 << 20) / 64 / 4; // a quarter of capacity; hashing spreads it over sets
        let misses = (0..3)
            .flat_map(|_| 0..lines)
            .filter(|&l| matches!(c.access(l, false), Outcome::Miss { .. }))
            .count() as u64;
        assert_eq!(misses, lines);
    }

    #[test]
    fn streaming_beyond_capacity_always_misses() {
        let mut c = SetAssocCache::new(64 * 1024, 8);
        let lines = 64 * 1024 / 64 * 4;
        for _ in 0..2 {
            for l in 0..lines {
                c.access(l, false);
            }
        }
        let hits = (0..lines)
            .filter(|&l| matches!(c.access(l, false), Outcome::Hit { .. }))
            .count();
        assert!(hits < lines as usize / 10, "{hits}");
    }

    proptest::proptest! {
        /// Against a textbook LRU (a recency list per set), including write-backs and invalidations.
        #[test]
        fn matches_reference_lru(ops in proptest::collection::vec((0u64..200, 0u8..3), 1..2000), ways in 1usize..8) {
            let mut c = SetAssocCache::new(64 * 4 * ways as u64, ways);
            let mut reference: Vec<Vec<(u64, bool)>> = vec![Vec::new(); c.sets() as usize];
            for (line, op) in ops {
                let set = &mut reference[c.set_of(line)];
                let pos = set.iter().position(|&(l, _)| l == line);
                if op == 2 {
                    let expect = pos.map(|p| set.remove(p).1).unwrap_or(false);
                    proptest::prop_assert_eq!(c.invalidate(line), expect);
                    continue;
                }
                let write = op == 1;
                let expect = match pos {
                    Some(p) => {
                        let (l, d) = set.remove(p);
                        set.insert(0, (l, d || write));
                        Outcome::Hit { was_dirty: d }
                    }
                    None => {
                        let wb = if set.len() == ways { set.pop().and_then(|(l, d)| d.then_some(l)) } else { None };
                        set.insert(0, (line, write));
                        Outcome::Miss { writeback: wb }
                    }
                };
                proptest::prop_assert_eq!(c.access(line, write), expect);
            }
        }
    }
}

#[cfg(test)]
mod alloc_tests {
    use super::SetAssocCache;

    #[test]
    fn impossible_tag_arrays_are_errors_not_aborts() {
        let e = SetAssocCache::try_partitioned(usize::MAX, 1 << 30, 1).unwrap_err();
        assert!(e.contains("more tag memory than can be addressed"), "{e}");
        let e = SetAssocCache::try_partitioned(1 << 40, 1 << 20, 16).unwrap_err();
        assert!(e.contains("tag memory") || e.contains("cannot allocate"), "{e}");
        let c = SetAssocCache::try_partitioned(4, 1 << 12, 4).unwrap();
        assert_eq!(c.sets(), 16);
    }
}
