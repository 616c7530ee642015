//! The socket-level coherence directory: per cache line, which sockets hold it and which one
//! owns it dirty.
//!
//! One entry per line of every touched page, indexed by page id and line within the page (a
//! dense array grown on first touch), so a lookup is two shifts and no hashing. Sharers are a
//! 64-bit mask (timing mode supports at most 64 sockets). The engine asks the directory what a
//! miss or a store has to do (whom to invalidate, whether another socket's cache supplies the
//! data) and does the invalidating and the timing itself.
//!
//! Beside the socket masks, a per-line mask of the cores whose private caches (L1, L2) may
//! hold the line (bit `core % 64`): a store then invalidates only those cores of each
//! invalidated socket instead of probing every core's L1 and L2 (write-shared runs spent
//! their time there). It is a superset — set on every private fill, cleared only when the
//! core is invalidated, never on a silent private eviction — so invalidating the cores it
//! names drops exactly the copies a scan of every core would (results are unchanged).

/// No socket owns the line dirty.
pub const NO_OWNER: u8 = u8::MAX;

/// Sharer masks and dirty owners of every line of every touched page.
#[derive(Debug, Clone)]
pub struct Directory {
    sharers: Vec<u64>,
    owner: Vec<u8>,
    /// Per line: cores (bit `core % 64`) whose private caches may hold it.
    cores: Vec<u64>,
    lines_per_page_shift: u32,
}

/// What a store needs done, from [`Directory::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The dirty owner before the store ([`NO_OWNER`] if none).
    pub owner: u8,
    /// Sockets other than the writer that held the line (sharers and the owner): they lose it.
    pub others: u64,
}

/// What an LLC miss needs done, from [`Directory::miss`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissOutcome {
    /// Another socket owns the line dirty and supplies it (a block transfer); [`NO_OWNER`] if
    /// memory does.
    pub supplier: u8,
    /// A store's other holders: their copies are dropped now.
    pub drop: u64,
    /// Sockets sent an invalidation message: the dropped ones except the supplier, which loses
    /// its copy by supplying the data.
    pub inval_msgs: u64,
}

impl Directory {
    /// Bytes kept per line of every touched page: sharer mask, owner, core mask.
    pub const BYTES_PER_LINE: u64 = 8 + 1 + 8;

    /// A directory for pages of `page_bytes` with 64-byte lines.
    pub fn new(page_bytes: u64) -> Self {
        Directory {
            sharers: Vec::new(),
            owner: Vec::new(),
            cores: Vec::new(),
            lines_per_page_shift: (page_bytes / 64).trailing_zeros(),
        }
    }

    /// Adds the lines of a newly touched page (page ids are dense, in first-touch order).
    pub fn add_page(&mut self) {
        let n = 1usize << self.lines_per_page_shift;
        self.sharers.resize(self.sharers.len() + n, 0);
        self.owner.resize(self.owner.len() + n, NO_OWNER);
        self.cores.resize(self.cores.len() + n, 0);
    }

    /// Adds lines up to `pages` pages in all (pages first touched by the functional engine in
    /// sampled timing; nobody holds their lines).
    pub fn grow_to(&mut self, pages: usize) {
        let n = pages << self.lines_per_page_shift;
        if self.sharers.len() < n {
            self.sharers.resize(n, 0);
            self.owner.resize(n, NO_OWNER);
            self.cores.resize(n, 0);
        }
    }

    /// Every line's sharer mask (sampled timing merges them with the functional engine's).
    pub fn sharers_mut(&mut self) -> &mut [u64] {
        &mut self.sharers
    }

    /// Entry of line `line` (a virtual line number) of page id `page`.
    #[inline]
    pub fn index(&self, page: u32, line: u64) -> usize {
        ((page as usize) << self.lines_per_page_shift) | (line as usize & ((1 << self.lines_per_page_shift) - 1))
    }

    /// Core `core`'s private caches were filled with entry `di`'s line.
    #[inline]
    pub fn fill_private(&mut self, di: usize, core: usize) {
        self.cores[di] |= 1u64 << (core % 64);
    }

    /// Cores (bit `core % 64`) whose private caches may hold entry `di`'s line.
    #[inline]
    pub fn private_holders(&self, di: usize) -> u64 {
        self.cores[di]
    }

    /// The cores of `mask` were invalidated for entry `di`'s line.
    #[inline]
    pub fn drop_private(&mut self, di: usize, mask: u64) {
        self.cores[di] &= !mask;
    }

    /// The dirty owner of entry `di` ([`NO_OWNER`] if none).
    #[inline]
    pub fn owner(&self, di: usize) -> u8 {
        self.owner[di]
    }

    /// A read by `socket` of entry `di`: it becomes a sharer. The owner, if another socket,
    /// keeps a clean copy (the caller cleans its caches).
    #[inline]
    pub fn read(&mut self, di: usize, socket: usize) {
        self.sharers[di] |= 1u64 << socket;
    }

    /// A store by `socket` to entry `di`: it becomes the only holder and the dirty owner.
    /// Returns the previous owner and the other holders (the caller invalidates them).
    #[inline]
    pub fn write(&mut self, di: usize, socket: usize) -> WriteOutcome {
        let owner = self.owner[di];
        let me = 1u64 << socket;
        let owner_bit = if owner == NO_OWNER { 0 } else { 1u64 << owner };
        let others = (self.sharers[di] | owner_bit) & !me;
        self.owner[di] = socket as u8;
        self.sharers[di] = me;
        WriteOutcome { owner, others }
    }

    /// An LLC miss by `socket` to entry `di` (a load, or a store with `write`): who supplies
    /// the data and who loses the line. The caller drops the copies of `drop` and, for a
    /// load from a supplier, cleans the supplier's private copies (it keeps the line Owned).
    #[inline]
    pub fn miss(&mut self, di: usize, socket: usize, write: bool) -> MissOutcome {
        let owner = self.owner[di];
        let supplier = if owner != NO_OWNER && owner as usize != socket {
            owner
        } else {
            NO_OWNER
        };
        if write {
            let others = self.write(di, socket).others;
            let supplier_bit = if supplier == NO_OWNER { 0 } else { 1u64 << supplier };
            MissOutcome {
                supplier,
                drop: others,
                inval_msgs: others & !supplier_bit,
            }
        } else {
            self.read(di, socket);
            MissOutcome {
                supplier,
                drop: 0,
                inval_msgs: 0,
            }
        }
    }

    /// MESI: the owner of entry `di` wrote the line back while supplying it; it stays a
    /// sharer with a clean copy, and memory serves the next miss.
    #[inline]
    pub fn share_clean(&mut self, di: usize) {
        self.owner[di] = NO_OWNER;
    }

    /// `socket` wrote the line back: it no longer owns it dirty (it stays a sharer until
    /// invalidated; a later miss then comes from memory).
    #[inline]
    pub fn write_back(&mut self, di: usize, socket: usize) {
        if self.owner[di] as usize == socket {
            self.owner[di] = NO_OWNER;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_dense_per_page_and_line() {
        let mut d = Directory::new(4096);
        d.add_page();
        d.add_page();
        // 64 lines per 4 KiB page: page 1's line 3 is entry 67, whatever the page's address.
        assert_eq!(d.index(1, 3), 67);
        assert_eq!(d.index(1, (0x7f_0000 >> 6) + 3), 67);
        assert_eq!(d.index(0, 63), 63);
    }

    #[test]
    fn readers_share_and_a_writer_invalidates_them_and_owns_the_line() {
        let mut d = Directory::new(4096);
        d.add_page();
        let di = d.index(0, 5);
        d.read(di, 0);
        d.read(di, 2);
        assert_eq!(d.owner(di), NO_OWNER);
        let w = d.write(di, 1);
        assert_eq!(
            w,
            WriteOutcome {
                owner: NO_OWNER,
                others: 0b101
            }
        );
        assert_eq!(d.owner(di), 1);
        // A second writer takes the line from the owner.
        let w = d.write(di, 3);
        assert_eq!(w, WriteOutcome { owner: 1, others: 0b10 });
        // The owner writing again finds no one else.
        assert_eq!(d.write(di, 3).others, 0);
    }

    #[test]
    fn a_load_miss_is_supplied_by_another_owner_and_a_store_miss_invalidates_the_rest() {
        let mut d = Directory::new(4096);
        d.add_page();
        let di = d.index(0, 1);
        // Memory supplies the first reader.
        let r = d.miss(di, 0, false);
        assert_eq!((r.supplier, r.drop, r.inval_msgs), (NO_OWNER, 0, 0));
        // Socket 2 stores: socket 0 is dropped and sent an invalidation; memory supplies.
        let r = d.miss(di, 2, true);
        assert_eq!((r.supplier, r.drop, r.inval_msgs), (NO_OWNER, 0b1, 0b1));
        // Socket 1 loads: the dirty owner 2 supplies it (a block transfer) and stays a holder.
        let r = d.miss(di, 1, false);
        assert_eq!((r.supplier, r.drop, r.inval_msgs), (2, 0, 0));
        // Socket 3 stores: 1 and 2 are dropped; only 1 gets a message (2 supplies the data).
        let r = d.miss(di, 3, true);
        assert_eq!((r.supplier, r.drop, r.inval_msgs), (2, 0b110, 0b010));
        // The owner missing on its own line (evicted) is not a block transfer.
        let r = d.miss(di, 3, false);
        assert_eq!(r.supplier, NO_OWNER);
    }

    #[test]
    fn private_holders_are_tracked_per_core_modulo_64() {
        let mut d = Directory::new(4096);
        d.add_page();
        d.grow_to(3);
        let di = d.index(2, 9);
        assert_eq!(d.private_holders(di), 0);
        d.fill_private(di, 3);
        d.fill_private(di, 64 + 5); // core 69 shares bit 5: a superset, never a miss
        assert_eq!(d.private_holders(di), (1 << 3) | (1 << 5));
        d.drop_private(di, 1 << 3);
        assert_eq!(d.private_holders(di), 1 << 5);
        assert_eq!(d.private_holders(d.index(2, 10)), 0, "per line");
    }

    #[test]
    fn a_write_back_drops_ownership_only_of_the_owner() {
        let mut d = Directory::new(4096);
        d.add_page();
        let di = d.index(0, 0);
        d.write(di, 2);
        d.write_back(di, 1);
        assert_eq!(d.owner(di), 2, "not the owner: no change");
        d.write_back(di, 2);
        assert_eq!(d.owner(di), NO_OWNER);
        // It is still listed as a sharer: a later writer invalidates it.
        assert_eq!(d.write(di, 0).others, 0b100);
    }
}
