//! A core's private cache (L1-D, L2) or TLB: set-associative, LRU, write-back, and — unlike
//! the shared [`crate::cache::SetAssocCache`] — it reports whether a hit line was already
//! dirty (a dirty private line is owned by the socket, so a store to it needs no coherence
//! action) and every victim, and can clean a line when another socket reads it.

const INVALID: u64 = u64::MAX;
const DIRTY: u64 = 1 << 63;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Hit {
        was_dirty: bool,
    },
    /// Missed and filled; a dirty victim's line address, if one was evicted.
    Miss {
        dirty_victim: Option<u64>,
    },
}

#[derive(Debug, Clone)]
pub struct PrivCache {
    sets: u64,
    ways: usize,
    tags: Vec<u64>,
    stamps: Vec<u32>,
    clock: u32,
}

impl PrivCache {
    /// `entries` lines (or pages, for a TLB) in `ways` ways.
    pub fn new(entries: u64, ways: usize) -> Self {
        let ways = ways.max(1);
        let sets = (entries / ways as u64).max(1);
        let n = sets as usize * ways;
        PrivCache {
            sets,
            ways,
            tags: vec![INVALID; n],
            stamps: vec![0; n],
            clock: 0,
        }
    }

    #[inline]
    fn base(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (((h as u128) * (self.sets as u128)) >> 64) as usize * self.ways
    }

    #[inline]
    pub fn access(&mut self, key: u64, write: bool) -> Lookup {
        self.clock = self.clock.wrapping_add(1);
        if self.clock == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.clock = 1;
        }
        let base = self.base(key);
        let tags = &mut self.tags[base..base + self.ways];
        let stamps = &mut self.stamps[base..base + self.ways];
        for w in 0..tags.len() {
            if tags[w] & !DIRTY == key {
                let was_dirty = tags[w] & DIRTY != 0;
                stamps[w] = self.clock;
                if write {
                    tags[w] |= DIRTY;
                }
                return Lookup::Hit { was_dirty };
            }
        }
        let mut victim = 0;
        let mut oldest = u32::MAX;
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
        tags[victim] = if write { key | DIRTY } else { key };
        stamps[victim] = self.clock;
        Lookup::Miss {
            dirty_victim: (old != INVALID && old & DIRTY != 0).then_some(old & !DIRTY),
        }
    }

    /// Drops `key` if present.
    pub fn invalidate(&mut self, key: u64) {
        let base = self.base(key);
        for t in &mut self.tags[base..base + self.ways] {
            if *t != INVALID && *t & !DIRTY == key {
                *t = INVALID;
            }
        }
    }

    /// Clears the dirty bit of `key` if present (the socket lost exclusive ownership).
    pub fn clean(&mut self, key: u64) {
        let base = self.base(key);
        for t in &mut self.tags[base..base + self.ways] {
            if *t != INVALID && *t & !DIRTY == key {
                *t &= !DIRTY;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_dirty_hits_victims_and_cleans() {
        let mut c = PrivCache::new(2, 2); // one set, two ways
        assert_eq!(c.access(1, true), Lookup::Miss { dirty_victim: None });
        assert_eq!(c.access(1, false), Lookup::Hit { was_dirty: true });
        c.clean(1);
        assert_eq!(c.access(1, true), Lookup::Hit { was_dirty: false });
        assert_eq!(c.access(2, false), Lookup::Miss { dirty_victim: None });
        assert_eq!(c.access(3, false), Lookup::Miss { dirty_victim: Some(1) });
        c.invalidate(3);
        assert_eq!(c.access(3, false), Lookup::Miss { dirty_victim: None });
    }
}
