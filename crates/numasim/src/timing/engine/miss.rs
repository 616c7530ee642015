//! An LLC miss from issue to completion: booked whole, queued at its home's DRAM read queue,
//! or waiting on a chain of pending requests; latency accounting by class.

use super::*;

impl TimingSim {
    /// The rest of an LLC miss: its MSHR or store-buffer slot, the wait for a page being
    /// migrated, then the transaction (booked whole, or its read queued at the home).
    pub(super) fn finish_miss(&mut self, sys: &mut System, c: usize, m: MissCont) -> Result<(), SimError> {
        let MissCont {
            access: a,
            socket,
            t0,
            page,
            node,
            bt,
            supplier,
            inval_msgs,
        } = m;
        let write = a.is_write();
        if (self.book.has_read_queues() || self.book.defers_chains())
            && self.cores[c].miss_slot_waits_on(write, t0).is_some()
        {
            self.miss_cont[c] = Some(m);
            self.waiting[c] = Wait::Slot;
            return Ok(());
        }
        let t0 = self.cores[c].take_miss_slot(write, t0);
        let t_request = t0;
        let (t0, node, row) = self.wait_for_copy(sys, page, node, t0, a.vaddr);
        let class = if bt {
            if !write && self.book.is_pool(node) {
                self.timing.bt_loads_via_pool += 1;
            }
            self.bt_class
        } else {
            self.class_of[socket * self.nodes + node]
        };
        if self.book.has_read_queues() {
            let q = QueuedMiss {
                fetch: self.book.fetch_request(socket, node, supplier, inval_msgs, t0),
                core: c as u32,
                write,
                instr: a.instr,
                class,
                page,
                t_request,
            };
            self.queue_read(q, row);
            return Ok(());
        }
        let lat = if self.book.nc.is_some() {
            let w = ChainWait {
                core: c as u32,
                instr: a.instr,
                class,
                page,
                t_request,
            };
            match self.fetch_via_node_controller(sys, &a, socket, node, supplier, inval_msgs, row, t0, w) {
                Some(lat) => lat,
                None => return Ok(()),
            }
        } else {
            self.book.fetch(socket, node, supplier, inval_msgs, row, t0)
        };
        self.miss_done(sys, c, write, a.instr, class, page, t_request, &lat);
        Ok(())
    }

    /// A page still being copied by a migration: the access waits until it lands, unless the
    /// page's turn has not come (move-pages, or a dedicated OS core), when it is still mapped
    /// at its old home. Returns the issue time, the node and the DRAM row the access uses.
    fn wait_for_copy(
        &mut self,
        sys: &mut System,
        page: u32,
        mut node: usize,
        mut t0: u64,
        vaddr: u64,
    ) -> (u64, usize, u64) {
        let mut old_frame = None;
        if let Some(&r) = self.page_ready_ps.get(page as usize) {
            if r > t0 {
                match self.page_before_copy.get(page as usize) {
                    Some(&(start, from, frame)) if t0 < start => {
                        node = from as usize;
                        old_frame = Some(frame);
                    }
                    _ => {
                        self.timing.migration_stalls += 1;
                        self.timing.migration_stall_ps += r - t0;
                        t0 = r;
                    }
                }
            }
        }
        let row = match old_frame {
            Some(f) => {
                let offset = vaddr & ((1u64 << sys.memory.table.page_shift()) - 1);
                self.book.row_of(node, u64::from(f), offset)
            }
            None => self.dram_row(sys, node, page, vaddr),
        };
        (t0, node, row)
    }

    /// Presents a miss's DRAM read to its home's read queue; the core's slot and ROB entry
    /// wait on the queue's token until the queue decides it.
    fn queue_read(&mut self, q: QueuedMiss, row: u64) {
        let (fetch, c, write, instr) = (q.fetch, q.core as usize, q.write, q.instr);
        let token = match self.free_tokens.pop() {
            Some(i) => {
                self.queued_misses[i as usize] = q;
                i
            }
            None => {
                self.queued_misses.push(q);
                (self.queued_misses.len() - 1) as u32
            }
        };
        self.book.present_read(&fetch, row, u64::from(token));
        let pending = PENDING | u64::from(token);
        if write {
            self.cores[c].miss_store_done(instr, pending);
        } else {
            self.cores[c].miss_load_done(instr, pending);
        }
    }

    /// A miss through the node controllers (proxies, pending chains). `None`: the read joined
    /// a pending chain and waits on it as `w` (the core's ROB entry holds the chain's token).
    #[allow(clippy::too_many_arguments)]
    fn fetch_via_node_controller(
        &mut self,
        sys: &mut System,
        a: &Access,
        socket: usize,
        node: usize,
        supplier: u8,
        inval_msgs: u64,
        row: u64,
        t0: u64,
        w: ChainWait,
    ) -> Option<Latency> {
        let write = a.is_write();
        let chain_token = self.book.defers_chains().then(|| {
            let i = self
                .free_chain_waits
                .last()
                .copied()
                .unwrap_or(self.chain_waits.len() as u32);
            PENDING | CHAIN_TOKEN | u64::from(i)
        });
        let (lat, fill) = self.book.fetch_nc_chained(
            socket,
            node,
            supplier,
            inval_msgs,
            row,
            t0,
            a.vaddr,
            write,
            &mut sys.llcs,
            chain_token,
        );
        if let Some(f) = fill {
            // The proxy allocated the line in its SLC: it is a sharer like any other (a
            // store invalidates it), and the line it displaced leaves as any victim does.
            let di = self.dir.index(w.page, a.vaddr >> 6);
            self.dir.read(di, f.proxy);
            if let Some(v) = f.victim {
                self.writeback(sys, f.proxy, v, f.at_ps);
            }
        }
        match (lat, chain_token) {
            (Some(lat), _) => Some(lat),
            (None, Some(token)) => {
                // Waits on its pending chain (only reads go via proxies).
                let (c, instr) = (w.core as usize, w.instr);
                match self.free_chain_waits.pop() {
                    Some(i) => self.chain_waits[i as usize] = w,
                    None => self.chain_waits.push(w),
                }
                self.cores[c].miss_load_done(instr, token);
                None
            }
            (None, None) => unreachable!("a read joins a chain only with a token"),
        }
    }

    /// A miss's transaction is complete (`lat`): the core's slot and ROB entry, and a load's
    /// latency statistics.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn miss_done(
        &mut self,
        sys: &mut System,
        c: usize,
        write: bool,
        instr: u64,
        class: u16,
        page: u32,
        t_request: u64,
        lat: &Latency,
    ) {
        if write {
            self.cores[c].miss_store_done(instr, lat.done_ps);
            return;
        }
        self.account_load(sys, c, class, page, t_request, lat);
        self.cores[c].miss_load_done(instr, lat.done_ps);
    }

    /// A load's latency in its AMAT class, its core's and (profiling) its page's sums.
    pub(super) fn account_load(
        &mut self,
        sys: &mut System,
        c: usize,
        class: u16,
        page: u32,
        t_request: u64,
        lat: &Latency,
    ) {
        let cs = &mut self.timing.classes[class as usize];
        cs.count += 1;
        cs.unloaded_ps += lat.unloaded_ps;
        cs.wait_ps += lat.wait_ps;
        let k = &mut self.cores[c];
        k.miss_loads += 1;
        k.miss_load_ps += lat.unloaded_ps + lat.wait_ps;
        if self.observing {
            let p = page as usize;
            if self.page_mem_ps.len() <= p {
                self.page_mem_ps.resize(sys.memory.home.len(), 0);
            }
            self.page_mem_ps[p] += lat.done_ps - t_request;
        }
    }

    /// A read-queue decision: the rest of miss `token`'s transaction is booked, its core
    /// learns the completion and, if it was waiting, goes back on the ready heap.
    pub(super) fn finish_queued_miss(
        &mut self,
        sys: &mut System,
        token: u32,
        r: &crate::timing::dram::DramResult,
        ready: &mut BinaryHeap<Reverse<(u64, u32)>>,
    ) {
        let q = self.queued_misses[token as usize];
        self.free_tokens.push(token);
        let lat = self.book.fetch_response(&q.fetch, r);
        let c = q.core as usize;
        if !q.write {
            self.account_load(sys, c, q.class, q.page, q.t_request, &lat);
        }
        let pending = PENDING | u64::from(token);
        let k = &mut self.cores[c];
        k.resolve(pending, lat.done_ps, (!q.write).then_some(q.instr));
        // Back on the heap at a key no earlier than anything it will do next (the event loop
        // relies on it): the retirement it waits for, or the slot this read frees.
        match self.waiting[c] {
            Wait::Retire(t) if t == pending => {}
            Wait::Slot if self.miss_cont[c].is_some_and(|m| m.access.is_write() == q.write) => {
                // The first of its slots decided is the one it takes (in decision order: a
                // read decided later may complete earlier; the core does not wait for it).
                k.t = k.t.max(lat.done_ps);
                if let Some(m) = &mut self.miss_cont[c] {
                    m.t0 = m.t0.max(lat.done_ps);
                }
            }
            _ => return,
        }
        self.waiting[c] = Wait::Running;
        ready.push(Reverse((k.t.max(lat.done_ps), q.core)));
    }

    /// A read that waited on a pending chain got its data (`lat`): as a read-queue decision,
    /// its core learns the completion and, if it waited for it, goes back on the ready heap.
    pub(super) fn finish_chain_wait(
        &mut self,
        sys: &mut System,
        token: u64,
        lat: &Latency,
        ready: &mut BinaryHeap<Reverse<(u64, u32)>>,
    ) {
        let i = (token & !(PENDING | CHAIN_TOKEN)) as u32;
        let w = self.chain_waits[i as usize];
        self.free_chain_waits.push(i);
        let c = w.core as usize;
        self.account_load(sys, c, w.class, w.page, w.t_request, lat);
        let k = &mut self.cores[c];
        k.resolve(token, lat.done_ps, Some(w.instr));
        match self.waiting[c] {
            Wait::Retire(t) if t == token => {}
            Wait::Slot if self.miss_cont[c].is_some_and(|m| !m.access.is_write()) => {
                k.t = k.t.max(lat.done_ps);
                if let Some(m) = &mut self.miss_cont[c] {
                    m.t0 = m.t0.max(lat.done_ps);
                }
            }
            _ => return,
        }
        self.waiting[c] = Wait::Running;
        ready.push(Reverse((k.t.max(lat.done_ps), w.core)));
    }
}
