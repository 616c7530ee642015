//! The first pass of the look-ahead profiler `perfect-next` (see
//! [`crate::profile::perfect_next`]): every phase's memory accesses per page and socket,
//! recorded without migration on the functional engine and keyed by virtual page, so the run
//! can be handed the *next* phase's counts at each boundary.
//!
//! Memory: one `(page, socket, count)` triple per page and socket with accesses, per phase
//! (12 bytes each), kept for the whole run.

use super::{for_each_phase, Run, RunError};
use crate::mem::PageTable;
use crate::profile::PageProfile;
use std::collections::HashMap;

/// Every phase's per-page per-socket memory accesses of the first pass.
pub struct Lookahead {
    sockets: usize,
    /// Per phase: (first-pass page id, socket, accesses).
    phases: Vec<Vec<(u32, u16, u32)>>,
    /// First-pass page id of each virtual page.
    first_pass_id: HashMap<u64, u32>,
    /// Run page id of each first-pass page id (`u32::MAX`: not touched by the run yet).
    run_id: Vec<u32>,
    /// Run page ids already entered into `run_id`.
    mapped: usize,
}

/// Runs the first pass (functional, no migration) and records every phase.
pub fn learn_lookahead(run: &mut Run) -> Result<Lookahead, RunError> {
    let mut source = run.open_source()?;
    let (mut sim, mut system) = run.functional_sim()?;
    let sockets = run.machine.sockets.len();
    let mut phases = Vec::new();
    for_each_phase(&mut sim, &mut system, &mut *source, run.max_phases, |lent, _, ()| {
        let memory = &lent.system.memory;
        let pages = memory.table.pages();
        let counts = &memory.pages.phase_counts[..pages * sockets];
        let phase: Vec<(u32, u16, u32)> = counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| ((i / sockets) as u32, (i % sockets) as u16, c))
            .collect();
        phases.push(phase);
        Ok(())
    })?;
    let table = &system.memory.table;
    let first_pass_id = (0..table.pages() as u32).map(|id| (table.vpage(id), id)).collect();
    Ok(Lookahead {
        sockets,
        phases,
        first_pass_id,
        run_id: vec![u32::MAX; table.pages()],
        mapped: 0,
    })
}

impl Lookahead {
    /// Phase `index`'s (0-based) counts on the run's page ids; empty past the last phase.
    pub fn profile(&mut self, index: usize, table: &PageTable) -> PageProfile {
        for id in self.mapped..table.pages() {
            if let Some(&first) = self.first_pass_id.get(&table.vpage(id as u32)) {
                self.run_id[first as usize] = id as u32;
            }
        }
        self.mapped = table.pages();
        let mut prof = PageProfile::new(self.sockets, table.pages());
        for &(first, socket, c) in self.phases.get(index).map(Vec::as_slice).unwrap_or(&[]) {
            let id = self.run_id[first as usize];
            if id != u32::MAX {
                prof.counts[id as usize * self.sockets + socket as usize] = c;
            }
        }
        prof
    }

    /// Phases recorded.
    pub fn phases(&self) -> usize {
        self.phases.len()
    }
}
