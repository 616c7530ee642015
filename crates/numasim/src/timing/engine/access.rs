//! One access's path: the page table, the private caches and the LLC, then memory.

use super::*;

impl TimingSim {
    /// DRAM row at `node` holding byte `vaddr` of page id `page` (in its current frame).
    #[inline]
    pub(super) fn dram_row(&self, sys: &System, node: usize, page: u32, vaddr: u64) -> u64 {
        let offset = vaddr & ((1u64 << sys.memory.table.page_shift()) - 1);
        self.book
            .row_of(node, u64::from(sys.memory.frame[page as usize]), offset)
    }

    pub(super) fn page_of(&mut self, sys: &mut System, socket: usize, vaddr: u64) -> Result<u32, SimError> {
        let (page, new) = sys.memory.touch(socket, vaddr)?;
        if new {
            self.counts.new_pages += 1;
            self.dir.add_page();
        }
        Ok(page)
    }

    /// One access of core `c` issuing at the core's clock.
    pub(super) fn access(&mut self, sys: &mut System, c: usize, a: &Access) -> Result<(), SimError> {
        let reached_memory = self.access_path(sys, c, a)?;
        if self.observing {
            let socket = self.cores[c].socket;
            self.observe(sys, socket, a, reached_memory);
        }
        Ok(())
    }

    /// The access through TLB, L1, L2, LLC and, on a miss, the directory and memory; returns
    /// whether it reached memory (what the profilers distinguish).
    pub(super) fn access_path(&mut self, sys: &mut System, c: usize, a: &Access) -> Result<bool, SimError> {
        let t = self.cores[c].t;
        let socket = self.cores[c].socket;
        let write = a.is_write();
        let line = a.vaddr >> 6;
        self.counts.accesses += 1;
        if write {
            self.counts.writes += 1;
        } else {
            self.counts.reads += 1;
        }
        // The same line again (common: sequential words): an L1 hit with nothing to update.
        let k = &mut self.cores[c];
        if line == k.last_line && (!write || k.last_line_dirty) {
            self.counts.llc_hits += 1;
            let wt = self.private.write_through_ps[socket];
            if write && wt > 0 {
                k.push_rob(a.instr, t + wt);
            }
            return Ok(false);
        }
        let mut t0 = t;
        let vpage = a.vaddr >> sys.memory.table.page_shift();
        if vpage != k.last_vpage {
            k.last_vpage = vpage;
            if self.private.tlb_miss(c, vpage) {
                t0 += self.private.walk_ps[socket];
                self.timing.tlb_misses += 1;
            }
        }
        k.last_line = line;
        k.last_line_dirty = write;
        if let Some(hit) = self.private_and_llc(sys, c, socket, line, write, t) {
            self.counts.llc_hits += 1;
            if hit.filled {
                self.note_private_fill(sys, c, line);
            }
            if write && !hit.was_dirty {
                self.store_ownership(sys, socket, a.vaddr, t0)?;
            }
            // An L1 hit is hidden by the base CPI unless its TLB walk made it late, or it is a
            // store a write-through L1 also writes to the LLC.
            let wt = if write && !hit.tracked {
                self.private.write_through_ps[socket]
            } else {
                0
            };
            if hit.tracked || t0 != t || wt > 0 {
                self.cores[c].push_rob(a.instr, t0 + hit.latency_ps + wt);
            }
            return Ok(false);
        }
        self.memory_access(sys, c, socket, a, t0)?;
        Ok(true)
    }

    /// Core `c`'s private caches, then its socket's LLC (spilling dirty victims at `t`);
    /// `None` on an LLC miss.
    #[inline]
    pub(super) fn private_and_llc(
        &mut self,
        sys: &mut System,
        c: usize,
        socket: usize,
        line: u64,
        write: bool,
        t: u64,
    ) -> Option<CacheHit> {
        let r = self.private.lookup(c, line, write);
        for v in r.spill.into_iter().flatten() {
            self.llc_victim(sys, socket, v, t);
        }
        match r.level {
            Level::L1 { was_dirty } => {
                self.cores[c].last_line_dirty |= was_dirty;
                return Some(CacheHit {
                    latency_ps: self.private.l1_ps[socket],
                    tracked: false,
                    was_dirty,
                    filled: false,
                });
            }
            Level::L2 { was_dirty } => {
                return Some(CacheHit {
                    latency_ps: self.private.l1_ps[socket] + self.private.l2_ps[socket],
                    tracked: true,
                    was_dirty,
                    filled: false,
                });
            }
            Level::Miss => {}
        }
        if self.llc_on {
            match sys.llcs[socket].access(line, false) {
                // The LLC does not track private dirtiness: a store always asks for ownership.
                Outcome::Hit { .. } => {
                    return Some(CacheHit {
                        latency_ps: match &self.private.llc_hit_ps {
                            Some(h) => h[socket],
                            None => self.book.lookup_ps[socket],
                        },
                        tracked: true,
                        was_dirty: false,
                        filled: true,
                    })
                }
                Outcome::Miss { writeback: Some(v) } => self.writeback(sys, socket, v, t),
                Outcome::Miss { writeback: None } => {}
            }
        }
        None
    }

    /// An LLC miss of core `c` wanting memory at `t0`: directory, MSHR or store-buffer slot,
    /// migration wait, then the booked transaction.
    pub(super) fn memory_access(
        &mut self,
        sys: &mut System,
        c: usize,
        socket: usize,
        a: &Access,
        t0: u64,
    ) -> Result<(), SimError> {
        let write = a.is_write();
        let line = a.vaddr >> 6;
        self.counts.llc_misses += 1;
        self.cores[c].llc_misses += 1;
        let page = self.page_of(sys, socket, a.vaddr)?;
        let node = sys.memory.home[page as usize] as usize;
        self.counts.demand[socket * self.nodes + node] += 1;
        sys.memory.pages.record(page, socket);
        let di = self.dir.index(page, line);
        let miss = self.dir.miss(di, socket, write);
        let bt = miss.supplier != NO_OWNER;
        if write {
            self.invalidate_sockets(sys, di, line, miss.drop);
        } else if bt {
            // The supplier keeps the line Owned; the private copies of its cores that may
            // hold it become clean.
            let holders = self.dir.private_holders(di);
            for &k in &self.socket_cores[miss.supplier as usize] {
                if !self.private_tracked || holders & (1u64 << (k % 64)) != 0 {
                    self.private.clean(k as usize, line);
                    self.cores[k as usize].clean_line(line);
                }
            }
            if self.coherence.protocol == Coherence::Mesi {
                self.share_clean(sys, miss.supplier as usize, node, page, di, line, t0);
            }
        }
        self.dir.fill_private(di, c);
        if bt {
            if self.book.is_pool(node) {
                self.timing.block_transfers_4hop += 1;
            } else {
                self.timing.block_transfers_3hop += 1;
            }
        }
        self.finish_miss(
            sys,
            c,
            MissCont {
                access: *a,
                socket,
                t0,
                page,
                node,
                bt,
                supplier: miss.supplier,
                inval_msgs: miss.inval_msgs,
            },
        )
    }
}
