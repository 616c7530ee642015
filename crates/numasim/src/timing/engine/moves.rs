//! The cost of a boundary's page moves: copies booked on the fabric and DRAM, the initiator's
//! and handlers' kernel time (see [`TimingSim::charge_moves`]).

use super::*;

impl TimingSim {
    /// Charges in time the moves chosen at the boundary that just passed: each page's lines
    /// are read at the old home, carried to the copying socket (the destination's, else the
    /// source's) and written at the new home, booked from the barrier on the same links,
    /// banks and buses as demand traffic; an LLC miss to the page before its last line lands
    /// waits for it. Every core's TLB drops the page (a shootdown): the initiating core (core
    /// 0, standing in for the OS thread, which also pays `scan_cycles`) stalls
    /// `shootdown_initiator_cycles` per page, and with software shootdowns every other core
    /// stalls `shootdown_handler_cycles` per page. Cached lines stay valid: caches are tagged
    /// by virtual line here, and the copy reads memory (dirty cached data is not flushed first).
    /// With `shootdown = "dedicated"` no core stalls: the scan and the per-page initiator
    /// cycles run on an OS core of their own, which reaches the k-th page after the scan and
    /// k − 1 shootdowns: until then the page is read at its old home, from then its accesses
    /// wait for its shootdown and copy. That core runs beside the program, like the move-pages daemon on a
    /// spare core: the phase barrier does not wait for its copies, and a boundary's work
    /// queues behind the previous boundary's.
    ///
    /// `shootdown = "move-pages"` charges Linux `move_pages(2)` instead (HyDM's mechanism on
    /// KNL): one kernel thread handles the pages one after another, each page's lines booked
    /// when the previous page is done plus `shootdown_initiator_cycles` of kernel work (unmap,
    /// flush, remap); a page is waited for only from its own turn on (before that it is still
    /// mapped at its old home and its accesses are timed there). Every application core but
    /// the caller pays `shootdown_handler_cycles` per page (IPIs). The caller is a daemon on a
    /// spare core when the machine has more cores than threads: it runs beside the program (the
    /// phase barrier does not wait for it; a boundary's copies queue behind the previous
    /// boundary's) and core 0 only pays the IPIs. Without a spare core it is core 0, busy for
    /// the whole copy.
    pub fn charge_moves(&mut self, sys: &mut System, cost: &CostParams, scan_cycles: u64) -> MoveTiming {
        let moves = std::mem::take(&mut self.pending_moves);
        // The boundary has read this phase's memory time; the next phase starts afresh.
        self.page_mem_ps.iter_mut().for_each(|t| *t = 0);
        let t0 = self.book.horizon_ps;
        let mut timing = MoveTiming {
            pages: moves.len() as u64,
            ..Default::default()
        };
        if moves.is_empty() && scan_cycles == 0 {
            return timing;
        }
        if self.page_ready_ps.len() < sys.memory.home.len() {
            self.page_ready_ps.resize(sys.memory.home.len(), 0);
        }
        let move_pages = cost.shootdown == crate::migrate::mechanism::Shootdown::MovePages;
        let dedicated = cost.shootdown == crate::migrate::mechanism::Shootdown::Dedicated;
        if (move_pages || dedicated) && self.page_before_copy.len() < sys.memory.home.len() {
            self.page_before_copy.resize(sys.memory.home.len(), (0, 0, 0));
        }
        // move_pages(2): one kernel thread unmaps, copies and remaps one page after another,
        // paying `shootdown_initiator_cycles` of kernel work per page (on core 0's clock).
        let kernel_page_ps = (cost.shootdown_initiator_cycles as f64
            * self.cycle_ps[self.cores.first().map_or(0, |k| k.socket)])
        .round() as u64;
        // The daemon calling move_pages runs on a spare core when there is one; else on core 0.
        let daemon_on_core0 = move_pages && !self.spare_core;
        let page_bytes = 1u64 << sys.memory.table.page_shift();
        let mut last = t0;
        // A dedicated OS core (socket 0's clock) scans, then shoots pages down one by one.
        let os_ps = |cycles: u64| (cycles as f64 * self.cycle_ps[0]).round() as u64;
        let (scan_ps, per_page_ps) = (os_ps(scan_cycles), os_ps(cost.shootdown_initiator_cycles));
        // One daemon: this boundary's pages wait for the previous boundary's (on core 0 the
        // previous copy is over, core 0 having stalled through it).
        let mut start = if move_pages && !daemon_on_core0 {
            t0.max(self.daemon_free_ps)
        } else {
            t0
        };
        let latest_before = self.book.latest_ps;
        // The dedicated OS core works through one boundary's scan and shootdowns after the
        // previous boundary's.
        let os_start = if dedicated { t0.max(self.daemon_free_ps) } else { t0 };
        for (k, &(page, from, to, old_frame)) in moves.iter().enumerate() {
            let (from, to) = (from as usize, to as usize);
            let s = self.node_socket[to].or(self.node_socket[from]).unwrap_or(0);
            let new_frame = u64::from(sys.memory.frame[page as usize]);
            if dedicated {
                // The OS core reaches the page after the scan and the k pages before it: until
                // then the page is still mapped at its old home; from then it is unmapped, shot
                // down and copied.
                start = os_start + scan_ps + k as u64 * per_page_ps;
                self.page_before_copy[page as usize] = (start, from as u16, old_frame);
            }
            let mut landed = start;
            for off in (0..page_bytes).step_by(64) {
                let from_row = self.book.row_of(from, u64::from(old_frame), off);
                let to_row = self.book.row_of(to, new_frame, off);
                landed = landed.max(self.book.copy_line(from, from_row, s, to, to_row, start));
            }
            if move_pages {
                // Before its turn the page is still mapped at its old home: no wait.
                self.page_before_copy[page as usize] = (start, from as u16, old_frame);
                landed += kernel_page_ps;
                start = landed;
            }
            if dedicated {
                landed = landed.max(start + per_page_ps);
            }
            self.page_ready_ps[page as usize] = landed;
            last = last.max(landed);
            let vpage = sys.memory.table.vpage(page);
            for (c, k) in self.cores.iter_mut().enumerate() {
                self.private.shootdown(c, vpage);
                k.forget_vpage(vpage);
            }
        }
        if move_pages && !daemon_on_core0 {
            // The daemon runs beside the program: the phase barrier does not wait for it.
            self.book.latest_ps = latest_before;
            self.daemon_free_ps = last;
        } else if dedicated {
            // So does the dedicated OS core (StarNUMA §IV-C): the copies and shootdowns go on
            // into the next phase, where misses to a page still in flight wait for it; a
            // phase (a sampled window) is not stretched to the last page's landing, so moves
            // are charged as far as they fall in it.
            self.book.latest_ps = latest_before;
            self.daemon_free_ps = os_start + scan_ps + moves.len() as u64 * per_page_ps;
        } else {
            self.book.latest_ps = self.book.latest_ps.max(last);
        }
        timing.copy_span_ps = last - t0;
        timing.core_stall_ps = self.stall_cores(sys, &moves, cost, scan_cycles, t0, last);
        timing
    }

    /// The cores' share of a boundary's moves (see [`Self::charge_moves`]): the initiator's
    /// per-page kernel work and scan, the IPI handlers of every core of a moved page's process,
    /// or the calling thread's whole copy when move_pages runs on core 0. Returns the stall
    /// summed over cores.
    fn stall_cores(
        &mut self,
        sys: &mut System,
        moves: &[PendingMove],
        cost: &CostParams,
        scan_cycles: u64,
        t0: u64,
        last: u64,
    ) -> u64 {
        let move_pages = cost.shootdown == crate::migrate::mechanism::Shootdown::MovePages;
        let dedicated = cost.shootdown == crate::migrate::mechanism::Shootdown::Dedicated;
        let daemon_on_core0 = move_pages && !self.spare_core;
        let n = moves.len() as u64;
        let mut total = 0;
        let software = cost.shootdown.is_software();
        // Moves per process: a core takes the IPIs of its own process's pages only.
        let mut per_process = Vec::new();
        if !self.core_process.is_empty() {
            per_process = vec![0u64; self.core_process.iter().max().map_or(1, |&p| p as usize + 1)];
            for &(page, ..) in moves.iter() {
                let p = (sys.memory.table.vpage(page) >> self.process_shift) as usize;
                if let Some(x) = per_process.get_mut(p) {
                    *x += 1;
                }
            }
        }
        for (i, k) in self.cores.iter_mut().enumerate() {
            let interrupted = match self.core_process.get(i) {
                Some(&p) => per_process[p as usize],
                None => n,
            };
            let cycles = if dedicated {
                0
            } else if i == 0 && !move_pages {
                n * cost.shootdown_initiator_cycles + scan_cycles
            } else if i == 0 && daemon_on_core0 {
                // The calling thread is busy in the kernel for the whole copy.
                scan_cycles
            } else if software {
                interrupted * cost.shootdown_handler_cycles
            } else {
                0
            };
            let mut stall = (cycles as f64 * self.cycle_ps[k.socket]).round() as u64;
            if i == 0 && daemon_on_core0 {
                stall += last - t0;
            }
            k.t = k.t.max(t0) + stall;
            total += stall;
        }
        total
    }
}
