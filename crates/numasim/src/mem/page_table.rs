//! Virtual page → dense page id.
//!
//! Everything per page (home node, counters, sharer sets) lives in dense arrays indexed by a
//! page id handed out in first-touch order, so the hot path never hashes per access. The
//! translation itself is a two-level radix table like a real page table: 4096-page chunks,
//! found through a direct-mapped cache of recently used chunks and, on a miss there, a hash
//! map. Sparse address spaces (a heap low, a stack high) therefore cost memory only for the
//! chunks they touch. The chunks lie end to end in one array kept in host huge pages, so a
//! lookup over a footprint of gigabytes costs one host cache miss and rarely a host TLB miss.
//! A slot also carries a copy of its page's home node (kept by [`crate::mem::Memory`]), so an
//! access learns page id and home from one host cache line.

use std::collections::HashMap;

/// Marks an unmapped slot.
pub const NO_PAGE: u32 = u32::MAX;
/// An unmapped slot: page id `NO_PAGE` (low 32 bits), no home.
const EMPTY_SLOT: u64 = u64::MAX;
/// Home bits of a slot whose page has no home yet.
const NO_HOME: u16 = u16::MAX;

/// Page id (low 32 bits) and home node (next 16) of a slot.
#[inline(always)]
fn slot(id: u32, home: u16) -> u64 {
    u64::from(id) | u64::from(home) << 32
}
const CHUNK_BITS: u32 = 12;
const CHUNK_PAGES: usize = 1 << CHUNK_BITS;
const CACHE_SLOTS: usize = 1024;

#[derive(Debug, Clone)]
pub struct PageTable {
    page_shift: u32,
    /// Every chunk's slots, chunk `i` at `i * CHUNK_PAGES` (see [`slot`]).
    slots: Vec<u64>,
    chunk_index: HashMap<u64, u32>,
    cache_keys: [u64; CACHE_SLOTS],
    cache_vals: [u32; CACHE_SLOTS],
    vpages: Vec<u64>,
}

impl PageTable {
    /// `page_bytes` must be a power of two (4 KiB or 2 MiB in practice).
    pub fn new(page_bytes: u64) -> Self {
        assert!(page_bytes.is_power_of_two(), "page size must be a power of two");
        PageTable {
            page_shift: page_bytes.trailing_zeros(),
            slots: Vec::new(),
            chunk_index: HashMap::new(),
            cache_keys: [u64::MAX; CACHE_SLOTS],
            cache_vals: [0; CACHE_SLOTS],
            vpages: Vec::new(),
        }
    }

    #[inline]
    pub fn page_shift(&self) -> u32 {
        self.page_shift
    }

    /// Number of distinct pages touched so far (the footprint in pages).
    #[inline]
    pub fn pages(&self) -> usize {
        self.vpages.len()
    }

    /// Virtual page number of page id `id`.
    #[inline]
    pub fn vpage(&self, id: u32) -> u64 {
        self.vpages[id as usize]
    }

    #[inline]
    fn chunk_of(&mut self, vchunk: u64, create: bool) -> Option<u32> {
        let slot = (vchunk as usize ^ (vchunk >> 6) as usize) & (CACHE_SLOTS - 1);
        if self.cache_keys[slot] == vchunk {
            return Some(self.cache_vals[slot]);
        }
        let idx = match self.chunk_index.get(&vchunk) {
            Some(&i) => i,
            None if create => {
                let i = (self.slots.len() / CHUNK_PAGES) as u32;
                crate::huge_pages::reserve(&mut self.slots, CHUNK_PAGES);
                self.slots.extend(std::iter::repeat_n(EMPTY_SLOT, CHUNK_PAGES));
                self.chunk_index.insert(vchunk, i);
                i
            }
            None => return None,
        };
        self.cache_keys[slot] = vchunk;
        self.cache_vals[slot] = idx;
        Some(idx)
    }

    /// The page id of `vaddr`, creating it if new; the flag says whether it was new.
    #[inline]
    pub fn lookup_or_insert(&mut self, vaddr: u64) -> (u32, bool) {
        let (id, _, new) = self.lookup_or_insert_home(vaddr);
        (id, new)
    }

    /// [`Self::lookup_or_insert`] with the home recorded by [`Self::set_home`] (`u16::MAX`
    /// for a new page).
    #[inline]
    pub fn lookup_or_insert_home(&mut self, vaddr: u64) -> (u32, u16, bool) {
        let vpage = vaddr >> self.page_shift;
        let chunk = self.chunk_of(vpage >> CHUNK_BITS, true).unwrap_or(0) as usize;
        let slot_ref = &mut self.slots[chunk * CHUNK_PAGES + ((vpage as usize) & (CHUNK_PAGES - 1))];
        let v = *slot_ref;
        if v != EMPTY_SLOT {
            return (v as u32, (v >> 32) as u16, false);
        }
        let id = self.vpages.len() as u32;
        *slot_ref = slot(id, NO_HOME);
        crate::huge_pages::reserve(&mut self.vpages, 1);
        self.vpages.push(vpage);
        (id, NO_HOME, true)
    }

    /// Records `home` as the home of page id `id` (a mapped page) in its slot.
    pub fn set_home(&mut self, id: u32, home: u16) {
        let vpage = self.vpages[id as usize];
        if let Some(chunk) = self.chunk_of(vpage >> CHUNK_BITS, false) {
            let i = chunk as usize * CHUNK_PAGES + ((vpage as usize) & (CHUNK_PAGES - 1));
            self.slots[i] = slot(id, home);
        }
    }

    /// Asks the CPU to fetch the table slot of `vaddr` (lookahead in the simulator's loop).
    #[inline]
    pub fn prefetch_slot(&mut self, vaddr: u64) {
        let vpage = vaddr >> self.page_shift;
        if let Some(chunk) = self.chunk_of(vpage >> CHUNK_BITS, false) {
            let i = chunk as usize * CHUNK_PAGES + ((vpage as usize) & (CHUNK_PAGES - 1));
            crate::prefetch::read(self.slots.as_ptr().wrapping_add(i));
        }
    }

    /// The page id of `vaddr` if it has been touched.
    #[inline]
    pub fn lookup(&mut self, vaddr: u64) -> Option<u32> {
        let vpage = vaddr >> self.page_shift;
        let chunk = self.chunk_of(vpage >> CHUNK_BITS, false)? as usize;
        let id = self.slots[chunk * CHUNK_PAGES + ((vpage as usize) & (CHUNK_PAGES - 1))] as u32;
        (id != NO_PAGE).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_in_first_touch_order_and_stable() {
        let mut pt = PageTable::new(4096);
        assert_eq!(pt.lookup_or_insert(0x7fff_ffff_f000), (0, true));
        assert_eq!(pt.lookup_or_insert(0x1000), (1, true));
        assert_eq!(pt.lookup_or_insert(0x1fff), (1, false));
        assert_eq!(pt.lookup_or_insert(0x7fff_ffff_f123), (0, false));
        assert_eq!(pt.lookup(0x2000), None);
        assert_eq!(pt.pages(), 2);
        assert_eq!(pt.vpage(0), 0x0007_ffff_ffff);
    }

    #[test]
    fn many_chunks_beyond_the_cache() {
        let mut pt = PageTable::new(4096);
        for i in 0..1000u64 {
            pt.lookup_or_insert(i << 30);
        }
        for i in 0..1000u64 {
            assert_eq!(pt.lookup(i << 30), Some(i as u32));
        }
    }

    #[test]
    fn slots_carry_the_home_they_are_given() {
        let mut pt = PageTable::new(4096);
        assert_eq!(pt.lookup_or_insert_home(0x3000), (0, u16::MAX, true));
        pt.set_home(0, 7);
        assert_eq!(pt.lookup_or_insert_home(0x3fff), (0, 7, false));
        assert_eq!(pt.lookup_or_insert_home(0x4000), (1, u16::MAX, true));
        pt.set_home(1, 2);
        pt.set_home(0, 65534);
        assert_eq!(pt.lookup_or_insert_home(0x4000), (1, 2, false));
        assert_eq!(pt.lookup_or_insert_home(0x3000), (0, 65534, false));
        assert_eq!(pt.lookup(0x3000), Some(0));
    }

    #[test]
    fn huge_pages() {
        let mut pt = PageTable::new(2 << 20);
        assert_eq!(pt.lookup_or_insert(0).0, pt.lookup_or_insert((2 << 20) - 1).0);
        assert_ne!(pt.lookup_or_insert(0).0, pt.lookup_or_insert(2 << 20).0);
    }
}
