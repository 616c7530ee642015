//! What sampled timing hands between this engine and the functional one at each switch: the
//! threads' places in their streams and the directory's sharer masks (the machine's shared
//! state, a [`crate::system::System`], is lent to both and never handed across).

use super::*;

impl TimingSim {
    /// Hands every core's place in its stream to another engine (sampled timing; see
    /// [`crate::sim::ThreadPlace`]). The cores keep their clocks and caches.
    pub fn take_threads(&mut self) -> Vec<crate::sim::ThreadPlace> {
        self.cores
            .iter_mut()
            .map(|k| {
                let mut pending = std::mem::take(&mut k.buf);
                pending.drain(..k.pos.min(pending.len()));
                k.pos = 0;
                crate::sim::ThreadPlace {
                    pending,
                    instr: k.instr_at_phase_start,
                    done: k.source_done,
                }
            })
            .collect()
    }

    /// Takes back the cores' places: each resumes at the instruction count it is given, with
    /// no gap charged for the instructions another engine ran meanwhile.
    pub fn give_threads(&mut self, places: Vec<crate::sim::ThreadPlace>) {
        for (k, p) in self.cores.iter_mut().zip(places) {
            k.buf = p.pending;
            k.pos = 0;
            k.last_instr = p.instr;
            k.instr_at_phase_start = p.instr;
            if p.done && !k.finished {
                k.finished = true;
                k.end_ps = k.t.max(k.last_done);
            }
            k.source_done = p.done;
        }
    }

    /// After another engine ran on `sys` (sampled timing): drops every core's private caches
    /// and TLB, which did not see its accesses and could hit on lines it wrote, and lets
    /// `merge` add the sockets that may hold each line to the directory's sharer masks (grown
    /// to the pages the other engine touched), so a store invalidates them.
    pub fn resume_after_functional(&mut self, sys: &System, merge: impl FnOnce(&mut [u64])) {
        self.dir.grow_to(sys.memory.table.pages());
        self.private.clear();
        for k in &mut self.cores {
            k.last_line = u64::MAX;
            k.last_line_dirty = false;
            k.last_vpage = u64::MAX;
        }
        merge(self.dir.sharers_mut());
    }

    /// Every line's directory sharer mask (sampled timing merges them into the functional
    /// engine's sharer map).
    pub fn directory_sharers(&mut self) -> &mut [u64] {
        self.dir.sharers_mut()
    }

    /// Keeps only the first `n` moves of the boundary for [`Self::charge_moves`] (sampled
    /// timing charges the share of a phase's moves that falls in its timed window).
    pub fn keep_pending_moves(&mut self, n: usize) -> usize {
        let all = self.pending_moves.len();
        self.pending_moves.truncate(n);
        all
    }
}
