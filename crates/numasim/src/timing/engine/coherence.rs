//! The directory's side effects of a fill, a store, an eviction and a write-back.

use super::*;

impl TimingSim {
    /// Core `c`'s private caches were filled with `line` from its socket's LLC: the directory
    /// notes it may hold it (the page exists: the LLC got the line from a miss to it).
    #[inline]
    pub(super) fn note_private_fill(&mut self, sys: &mut System, c: usize, line: u64) {
        match sys.memory.table.lookup(line << 6) {
            Some(page) => {
                let di = self.dir.index(page, line);
                self.dir.fill_private(di, c);
            }
            // Not expected; if it happens, invalidations go back to probing every core.
            None => self.private_tracked = false,
        }
    }

    /// Drops `line` (directory entry `di`) from the LLC of every socket in `mask` and from
    /// the private caches of their cores that may hold it.
    pub(super) fn invalidate_sockets(&mut self, sys: &mut System, di: usize, line: u64, mut mask: u64) {
        let holders = self.dir.private_holders(di);
        let mut dropped = 0;
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.timing.invalidations += 1;
            if self.llc_on {
                sys.llcs[s].invalidate(line);
            }
            for &k in &self.socket_cores[s] {
                let bit = 1u64 << (k % 64);
                if !self.private_tracked || holders & bit != 0 {
                    self.private.invalidate(k as usize, line);
                    self.cores[k as usize].forget_line(line);
                    dropped |= bit;
                }
            }
        }
        // A bit may stand for cores of several sockets (more than 64 cores): clear only bits
        // whose every core was invalidated.
        if self.cores.len() <= 64 {
            self.dir.drop_private(di, dropped);
        }
    }

    /// A store to a line this socket holds but may not own exclusively: an ownership request
    /// to the home, which invalidates the other holders (the store itself does not wait).
    pub(super) fn store_ownership(
        &mut self,
        sys: &mut System,
        socket: usize,
        vaddr: u64,
        t: u64,
    ) -> Result<(), SimError> {
        let page = self.page_of(sys, socket, vaddr)?;
        let line = vaddr >> 6;
        let di = self.dir.index(page, line);
        let others = self.dir.write(di, socket).others;
        if others == 0 {
            return Ok(()); // exclusive already (E → M): silent
        }
        self.invalidate_sockets(sys, di, line, others);
        let node = sys.memory.home[page as usize] as usize;
        self.book.ownership(socket, node, others, t);
        Ok(())
    }

    pub(super) fn llc_victim(&mut self, sys: &mut System, socket: usize, v: u64, t: u64) {
        if self.llc_on {
            if let Outcome::Miss { writeback: Some(w) } = sys.llcs[socket].access(v, true) {
                self.writeback(sys, socket, w, t);
            }
        } else {
            self.writeback(sys, socket, v, t);
        }
    }

    /// MESI: the block transfer's `supplier` writes `line` back to its home `node` and keeps a
    /// clean shared copy (its LLC copy is cleaned; its private copies already were).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn share_clean(
        &mut self,
        sys: &mut System,
        supplier: usize,
        node: usize,
        page: u32,
        di: usize,
        line: u64,
        t: u64,
    ) {
        self.dir.share_clean(di);
        if self.llc_on {
            sys.llcs[supplier].clean(line);
        }
        self.timing.sharing_writebacks += 1;
        let row = self.dram_row(sys, node, page, line << 6);
        self.book.writeback(supplier, node, row, t);
    }

    /// A dirty line leaves the socket: data to the home, a posted DRAM write.
    pub(super) fn writeback(&mut self, sys: &mut System, socket: usize, line: u64, t: u64) {
        let Some(page) = sys.memory.table.lookup(line << 6) else {
            return;
        };
        self.counts.writebacks += 1;
        let node = sys.memory.home[page as usize] as usize;
        self.counts.writeback_to[socket * self.nodes + node] += 1;
        let di = self.dir.index(page, line);
        self.dir.write_back(di, socket);
        let row = self.dram_row(sys, node, page, line << 6);
        self.book.writeback(socket, node, row, t);
    }
}
