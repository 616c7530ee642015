//! A set-associative, write-back, LRU cache of 64 B lines, as flat arrays.
//!
//! Used as the per-socket shared LLC filter: only misses (and dirty evictions) reach memory.
//! Tags and LRU stamps sit in two flat vectors, one set contiguous, so a lookup touches two
//! short runs of memory. Set counts need not be powers of two (28 cores × 2 MiB is not); the
//! set is chosen by a multiply-shift over a hashed line address.

/// Result of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hit,
    /// Missed; if a dirty line was evicted to make room, its line address.
    Miss {
        writeback: Option<u64>,
    },
}

const INVALID: u64 = u64::MAX;
const DIRTY: u64 = 1 << 63;

#[derive(Debug, Clone)]
pub struct SetAssocCache {
    sets: u64,
    ways: usize,
    tags: Vec<u64>,
    stamps: Vec<u64>,
    clock: u64,
}

impl SetAssocCache {
    /// A cache of `size_bytes` with `ways` ways and 64 B lines (at least one set).
    pub fn new(size_bytes: u64, ways: usize) -> Self {
        let ways = ways.max(1);
        let sets = (size_bytes / 64 / ways as u64).max(1);
        let n = (sets as usize) * ways;
        SetAssocCache {
            sets,
            ways,
            tags: vec![INVALID; n],
            stamps: vec![0; n],
            clock: 0,
        }
    }

    pub fn sets(&self) -> u64 {
        self.sets
    }

    #[inline]
    fn set_of(&self, line: u64) -> usize {
        let h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (((h as u128) * (self.sets as u128)) >> 64) as usize
    }

    /// Hints the host CPU to fetch the set `line` maps to (simulator lookahead).
    #[inline]
    pub fn prefetch(&self, line: u64) {
        let base = self.set_of(line) * self.ways;
        crate::prefetch::read(self.tags.as_ptr().wrapping_add(base));
        crate::prefetch::read(self.stamps.as_ptr().wrapping_add(base));
    }

    /// Accesses line address `line` (byte address >> 6).
    #[inline]
    pub fn access(&mut self, line: u64, write: bool) -> Outcome {
        self.clock += 1;
        let base = self.set_of(line) * self.ways;
        let tags = &mut self.tags[base..base + self.ways];
        let stamps = &mut self.stamps[base..base + self.ways];
        for w in 0..tags.len() {
            if tags[w] & !DIRTY == line {
                stamps[w] = self.clock;
                if write {
                    tags[w] |= DIRTY;
                }
                return Outcome::Hit;
            }
        }
        // Victim: an invalid way, else the least recently used.
        let mut victim = 0;
        let mut oldest = u64::MAX;
        for w in 0..tags.len() {
            if tags[w] == INVALID {
                victim = w;
                break;
            }
            if stamps[w] < oldest {
                oldest = stamps[w];
                victim = w;
            }
        }
        let old = tags[victim];
        let writeback = (old != INVALID && old & DIRTY != 0).then_some(old & !DIRTY);
        tags[victim] = if write { line | DIRTY } else { line };
        stamps[victim] = self.clock;
        Outcome::Miss { writeback }
    }

    /// Drops `line` if present (a migrated page's lines are invalidated); returns whether it was dirty.
    pub fn invalidate(&mut self, line: u64) -> bool {
        let base = self.set_of(line) * self.ways;
        for w in base..base + self.ways {
            if self.tags[w] & !DIRTY == line && self.tags[w] != INVALID {
                let dirty = self.tags[w] & DIRTY != 0;
                self.tags[w] = INVALID;
                return dirty;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_after_miss_and_lru_eviction_with_writeback() {
        // One set, two ways.
        let mut c = SetAssocCache::new(128, 2);
        assert_eq!(c.sets(), 1);
        assert_eq!(c.access(1, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access(2, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), Outcome::Hit);
        // 2 is LRU now and clean.
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: None });
        // 1 is LRU now and dirty.
        assert_eq!(c.access(4, false), Outcome::Miss { writeback: Some(1) });
        assert_eq!(c.access(3, false), Outcome::Hit);
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
        let hits = (0..lines).filter(|&l| c.access(l, false) == Outcome::Hit).count();
        assert!(hits < lines as usize / 10, "{hits}");
    }
}
