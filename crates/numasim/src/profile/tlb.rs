//! A per-socket TLB model: fully associative, LRU, one counter per entry.
//!
//! Tikir & Hollingsworth's TLB-based sources (TLB misses, sampled TLB contents, Address
//! Translation Counters) and StarNUMA's TLB counter annex all need to know which translations a
//! processor holds. A real TLB is per core; numasim's unit is the socket, so one TLB per socket
//! is shared by its threads (documented approximation). The counter beside each entry is the
//! ATC counter or the StarNUMA annex counter: it is cleared when the entry is evicted.
//! Pages are dense page ids (the simulator's), not virtual page numbers.

use numasim_config::declare_params;

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

/// Index of the first entry equal to `page`. Blocks of 16 are compared into a bit mask with
/// no early exit inside a block, which the compiler turns into vector compares. Only used to
/// find the first empty entry (while the TLB fills) and by tests.
#[inline]
fn find(pages: &[u32], page: u32) -> Option<usize> {
    const BLOCK: usize = 16;
    let mut blocks = pages.chunks_exact(BLOCK);
    for (b, block) in blocks.by_ref().enumerate() {
        let mut mask = 0u32;
        for (k, &p) in block.iter().enumerate() {
            mask |= u32::from(p == page) << k;
        }
        if mask != 0 {
            return Some(b * BLOCK + mask.trailing_zeros() as usize);
        }
    }
    let tail = pages.len() - pages.len() % BLOCK;
    blocks.remainder().iter().position(|&p| p == page).map(|i| tail + i)
}

/// No entry (end of the recency list).
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Tlb {
    pages: Vec<u32>,
    /// Per-entry counter (ATC / annex).
    pub count: Vec<u32>,
    /// Valid entries in a doubly linked recency list (`head` most, `tail` least recent), so
    /// finding the LRU entry is one read, not a scan of every entry's age (that scan was 40 %
    /// of this model's time on StarNUMA T16 runs, which miss often).
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    /// Empty entries (never filled, or shot down).
    empty: usize,
    mru: usize,
    /// Which slot holds each valid page: an open-addressing table (linear probing, at most a
    /// quarter full) of slot numbers, [`NIL`] where free. A miss, the common case when pages
    /// are touched at random over a large footprint, is found in one or two probes instead of
    /// a comparison with every entry; pages are unique in the TLB, so the slot found is the
    /// one a search would find.
    index: Vec<u32>,
    /// `32 − log2(index.len())`: a page's home bucket is the top bits of its Fibonacci hash.
    index_shift: u32,
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
        let buckets = (4 * n).next_power_of_two().max(16);
        Tlb {
            index: vec![NIL; buckets],
            index_shift: 32 - buckets.trailing_zeros(),
            pages: vec![EMPTY; n],
            count: vec![0; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            empty: n,
            mru: 0,
        }
    }

    /// Home bucket of `page` in `index`.
    #[inline(always)]
    fn home(&self, page: u32) -> usize {
        (page.wrapping_mul(0x9E37_79B1) >> self.index_shift) as usize
    }

    /// The slot holding `page`, from the index.
    #[inline(always)]
    fn lookup(&self, page: u32) -> Option<usize> {
        let mask = self.index.len() - 1;
        let mut b = self.home(page);
        loop {
            let s = self.index[b];
            if s == NIL {
                return None;
            }
            if self.pages[s as usize] == page {
                return Some(s as usize);
            }
            b = (b + 1) & mask;
        }
    }

    /// Records in the index that `slot` now holds `page` (not in the index).
    #[inline]
    fn index_insert(&mut self, page: u32, slot: usize) {
        let mask = self.index.len() - 1;
        let mut b = self.home(page);
        while self.index[b] != NIL {
            b = (b + 1) & mask;
        }
        self.index[b] = slot as u32;
    }

    /// Takes valid `page` out of the index (before its slot is overwritten): its bucket is
    /// freed and later entries of its probe run move back into it where their home allows,
    /// so every page stays reachable from its home without tombstones.
    #[inline]
    fn index_remove(&mut self, page: u32) {
        let mask = self.index.len() - 1;
        let mut hole = self.home(page);
        while self.pages[self.index[hole] as usize] != page {
            hole = (hole + 1) & mask;
        }
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.index[j];
            if s == NIL {
                break;
            }
            // The entry at `j` may fill the hole unless its home lies after the hole (cyclically,
            // in `(hole, j]`): then the hole is before its home and a lookup would not see it.
            let k = self.home(self.pages[s as usize]);
            if (j.wrapping_sub(k) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.index[hole] = s;
                hole = j;
            }
        }
        self.index[hole] = NIL;
    }

    /// Takes valid entry `i` out of the recency list.
    #[inline]
    fn unlink(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    /// Puts entry `i` (not in the list) at its most recent end.
    #[inline]
    fn push_front(&mut self, i: usize) {
        self.prev[i] = NIL;
        self.next[i] = self.head;
        if self.head == NIL {
            self.tail = i as u32;
        } else {
            self.prev[self.head as usize] = i as u32;
        }
        self.head = i as u32;
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
        let found = self.lookup(page);
        if let Some(i) = found {
            if self.head != i as u32 {
                self.unlink(i);
                self.push_front(i);
            }
            self.mru = i;
            return Translation {
                slot: i,
                hit: true,
                evicted_count: 0,
            };
        }
        // The victim: the first empty entry if any (the oldest, as if empty entries had age
        // zero), else the least recently used.
        let (lru, evicted_count) = if self.empty > 0 {
            self.empty -= 1;
            (find(&self.pages, EMPTY).expect("an empty entry is counted"), 0)
        } else {
            let lru = self.tail as usize;
            self.unlink(lru);
            self.index_remove(self.pages[lru]);
            (lru, self.count[lru])
        };
        self.pages[lru] = page;
        self.index_insert(page, lru);
        self.count[lru] = 0;
        self.push_front(lru);
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
                self.unlink(i);
                self.index_remove(p);
                self.pages[i] = EMPTY;
                self.count[i] = 0;
                self.empty += 1;
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

    #[test]
    fn find_agrees_with_a_plain_search_in_every_block_and_the_tail() {
        for n in [1usize, 15, 16, 17, 40, 64, 65] {
            let pages: Vec<u32> = (0..n as u32).map(|i| i * 3 % 7 + i).collect();
            for want in 0..(n as u32 * 2) {
                assert_eq!(
                    find(&pages, want),
                    pages.iter().position(|&p| p == want),
                    "n {n} want {want}"
                );
            }
        }
    }

    /// The index and the recency list change nothing: against a plain LRU (search, then the
    /// first entry with the oldest stamp, empty entries being oldest) on random pages, many
    /// sharing a home bucket (a TLB of few entries has a small index), with counters and
    /// shootdowns of several pages in between; the index holds exactly the valid entries.
    #[test]
    fn indexed_translation_matches_a_plain_lru() {
        const SPREAD: u32 = 256;
        for n in [1, 3, 7, 48, 64] {
            let mut t = Tlb::new(n);
            let (mut pages, mut stamp, mut count, mut clock) = (vec![EMPTY; n], vec![0u64; n], vec![0u32; n], 0u64);
            let mut x = 12345u64;
            for step in 0..100_000u32 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // 120 pages, some far apart.
                let page = ((x % 120) * 97 % 1000) as u32 * if x & 1 == 0 { 1 } else { SPREAD };
                clock += 1;
                let want = match pages.iter().position(|&p| p == page) {
                    Some(i) => (i, true, 0),
                    None => {
                        let i = (0..n).min_by_key(|&i| (stamp[i], i)).unwrap();
                        let evicted = if pages[i] == EMPTY { 0 } else { count[i] };
                        pages[i] = page;
                        count[i] = 0;
                        (i, false, evicted)
                    }
                };
                stamp[want.0] = clock;
                let got = t.translate(page);
                assert_eq!((got.slot, got.hit, got.evicted_count), want, "{n} entries, step {step}");
                if x.is_multiple_of(3) {
                    t.count[got.slot] += step;
                    count[want.0] += step;
                }
                if step % 5000 == 4999 {
                    // Shoot down about a third of the pages, the one just used among them.
                    let mut moved = vec![false; 1000 * SPREAD as usize];
                    moved[page as usize] = true;
                    for p in (0..1000 * SPREAD as usize).filter(|p| (p + step as usize / 5000).is_multiple_of(3)) {
                        moved[p] = true;
                    }
                    let mut lost = 0;
                    for i in 0..n {
                        if pages[i] != EMPTY && moved[pages[i] as usize] {
                            lost += u64::from(count[i]);
                            pages[i] = EMPTY;
                            stamp[i] = 0;
                            count[i] = 0;
                        }
                    }
                    assert_eq!(t.invalidate(&moved), lost);
                }
                let valid: Vec<(usize, u32)> = t.valid().collect();
                assert_eq!(t.index.iter().filter(|&&s| s != NIL).count(), valid.len());
                for (slot, p) in valid {
                    assert_eq!(t.lookup(p), Some(slot), "{n} entries, step {step}");
                }
            }
        }
    }

    #[test]
    fn lru_order_is_kept_across_many_entries() {
        // 40 entries: fill, touch all but page 5 again, then a new page evicts page 5.
        let mut t = Tlb::new(40);
        for p in 0..40 {
            assert!(!t.translate(p).hit);
        }
        for p in (0..40).filter(|&p| p != 5) {
            assert!(t.translate(p).hit);
        }
        let s5 = t.translate(5).slot;
        t.count[s5] = 3;
        for p in (0..40).filter(|&p| p != 5) {
            t.translate(p);
        }
        let tr = t.translate(100);
        assert_eq!((tr.hit, tr.slot, tr.evicted_count), (false, s5, 3));
        assert!(!t.translate(5).hit);
    }

    #[test]
    fn empty_tlb_fills_from_the_first_entry() {
        let mut t = Tlb::new(4);
        assert_eq!(t.translate(9).slot, 0);
        assert_eq!(t.translate(8).slot, 1);
        let mut moved = vec![false; 10];
        moved[9] = true;
        t.invalidate(&moved);
        assert_eq!(t.translate(7).slot, 0, "an invalidated entry is the oldest");
        assert_eq!(t.valid().count(), 2);
    }
}
