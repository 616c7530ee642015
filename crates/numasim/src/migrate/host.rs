//! What a migration step needs from a simulator, so one [`super::Migrator`] drives both the
//! functional and the timing engine: the page table, homes, occupancy, per-page access
//! counts, the profiler that watched the phase, and a way to move a page.
//!
//! Moving is the engine's business: the functional engine only re-homes the page; the timing
//! engine also queues the copy, the TLB shootdown and the in-flight window, charged in time
//! once the policy has chosen all of the phase's moves. The driver implements this trait for
//! an engine together with the machine state lent to it (`driver::Lent`), so the migration
//! layer never imports an engine.

use crate::mem::{Memory, PageTable, Placement};
use crate::profile::Observer;
use crate::stats::PageStats;

pub trait PageHost {
    /// The machine's memory system (page table, homes, placement, per-page counts).
    fn memory(&self) -> &Memory;
    fn table(&self) -> &PageTable {
        &self.memory().table
    }
    /// Home memory node of every page id.
    fn home(&self) -> &[u16] {
        &self.memory().home
    }
    fn placement(&self) -> &Placement {
        &self.memory().placement
    }
    /// Per-page, per-socket access counts of the phase just ended.
    fn page_stats(&self) -> &PageStats {
        &self.memory().pages
    }
    fn observer_mut(&mut self) -> Option<&mut Observer>;
    /// Re-homes `page` on `node` (the caller has checked capacity).
    fn move_page(&mut self, page: u32, node: usize);
    /// Re-homes `page` on `node` as if first touch had put it there: no copy, no shootdown,
    /// nothing charged (the StarNUMA artifact's first placement of a region).
    fn place_page(&mut self, page: u32, node: usize);
    /// Per page id: time its LLC-miss loads of the phase took, summed (ps); `None` without a
    /// clock (functional mode). HyDM measures progress as flops per this time.
    fn page_memory_time_ps(&self) -> Option<&[u64]> {
        None
    }
}
