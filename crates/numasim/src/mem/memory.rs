//! The memory system both engines share: page table, homes and frames, first touch, moves and
//! per-page statistics.
//!
//! The functional and the timing engine differ in what an access costs, not in where a page
//! lives: both map a virtual page to a page id on first touch, ask placement (or the static
//! oracle) for its node, give it the next frame there, count accesses per page and socket, and
//! let migration re-home it. That is this struct, so a mechanism that changes where pages live
//! is written once. Frames matter only to the timing engine (they pick DRAM rows), but cost a
//! push per first touch, off the per-access path.

use super::{FixedHomes, PageTable, Placement, PlacementError};
use crate::stats::PageStats;

/// Where every page lives and how often each socket touched it.
#[derive(Debug, Clone)]
pub struct Memory {
    pub table: PageTable,
    /// Home memory node of every page id.
    pub home: Vec<u16>,
    /// Frame of every page id on its home node (placement's frame order; a move takes a fresh
    /// frame at the destination).
    pub frame: Vec<u32>,
    pub placement: Placement,
    /// Per-page, per-socket access counts (phase and run).
    pub pages: PageStats,
    /// Oracle static placement: homes fixed before the run, by virtual page (empty = none).
    pub fixed_home: FixedHomes,
    /// Bytes the engines keep per 64-byte line of every touched page (0: none), and the
    /// most pages that keeps within the line-state budget ([`Memory::keep_line_state`]).
    line_state_bytes: u64,
    max_pages: u64,
}

/// Budget for per-line state: half of the host's memory (`/proc/meminfo` MemTotal), or
/// 16 GiB where that cannot be read.
pub fn line_state_budget_bytes() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    });
    total_kib.map_or(16 << 30, |k| k.saturating_mul(1024) / 2)
}

/// A page's move, as [`Memory::move_page`] did it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    pub from: usize,
    /// The page's frame on `from` before the move.
    pub old_frame: u32,
}

impl Memory {
    pub fn new(page_bytes: u64, sockets: usize, placement: Placement) -> Self {
        Memory {
            table: PageTable::new(page_bytes),
            home: Vec::new(),
            frame: Vec::new(),
            placement,
            pages: PageStats::new(sockets),
            fixed_home: FixedHomes::default(),
            line_state_bytes: 0,
            max_pages: u64::MAX,
        }
    }

    /// An engine keeps `bytes_per_line` bytes for every 64-byte line of every touched page
    /// (sizes add up when two engines share this memory): touching a page that would take
    /// their total past `budget_bytes` fails with [`PlacementError::LineStateLimit`] instead of
    /// an allocation the host cannot hold (1 GiB pages: 16 M lines a page).
    pub fn keep_line_state(&mut self, bytes_per_line: u64, budget_bytes: u64) {
        self.line_state_bytes += bytes_per_line;
        let per_page = self
            .line_state_bytes
            .saturating_mul(((1u64 << self.table.page_shift()) / 64).max(1));
        // No per-line state: no limit.
        self.max_pages = budget_bytes.checked_div(per_page).map_or(u64::MAX, |p| p.max(1));
    }

    /// Page id of `vaddr`, placing the page if `socket` touches it first. Returns the id and
    /// whether it was new.
    #[inline(always)]
    pub fn touch(&mut self, socket: usize, vaddr: u64) -> Result<(u32, bool), PlacementError> {
        let (page, new) = self.table.lookup_or_insert(vaddr);
        if new {
            self.first_touch(socket, page)?;
        }
        Ok((page, new))
    }

    /// [`Memory::touch`] that also returns the page's home node, read from its page-table slot
    /// (the same cache line as its id).
    #[inline(always)]
    pub fn touch_home(&mut self, socket: usize, vaddr: u64) -> Result<(u32, usize, bool), PlacementError> {
        let (page, home, new) = self.table.lookup_or_insert_home(vaddr);
        if new {
            self.first_touch(socket, page)?;
            return Ok((page, self.home[page as usize] as usize, true));
        }
        debug_assert_eq!(home, self.home[page as usize], "page-table home of page {page}");
        Ok((page, home as usize, false))
    }

    /// Homes a new page: placement's choice, or the oracle's fixed home when it has room.
    #[cold]
    fn first_touch(&mut self, socket: usize, page: u32) -> Result<(), PlacementError> {
        let vpage = self.table.vpage(page);
        let footprint = self.table.pages() as u64;
        if footprint > self.max_pages {
            let page_bytes = 1u64 << self.table.page_shift();
            let limit = self.max_pages * self.line_state_bytes * (page_bytes / 64).max(1);
            return Err(PlacementError::LineStateLimit {
                pages: footprint,
                page_bytes,
                line_state_bytes: self.line_state_bytes,
                limit_mib: limit >> 20,
            });
        }
        let oracle = self.fixed_home.get(vpage);
        let node = self.placement.place_or_oracle(socket, vpage, footprint, oracle)?;
        crate::huge_pages::reserve(&mut self.home, 1);
        self.home.push(node as u16);
        self.table.set_home(page, node as u16);
        let frame = self.placement.take_frame(node);
        crate::huge_pages::reserve(&mut self.frame, 1);
        self.frame.push(frame);
        self.pages.push_page();
        Ok(())
    }

    /// Re-homes `page` on `node` with a fresh frame there and updates occupancy (the caller has
    /// checked capacity). Returns where it came from, or `None` if it already lives on `node`.
    pub fn move_page(&mut self, page: u32, node: usize) -> Option<Moved> {
        let p = page as usize;
        let from = self.home[p] as usize;
        if from == node {
            return None;
        }
        self.placement.moved(from, node);
        self.home[p] = node as u16;
        self.table.set_home(page, node as u16);
        let old_frame = self.frame[p];
        self.frame[p] = self.placement.take_frame(node);
        Some(Moved { from, old_frame })
    }

    /// Home node of page id `page`.
    #[inline(always)]
    pub fn home_of(&self, page: u32) -> usize {
        self.home[page as usize] as usize
    }

    /// Pages on each memory node right now.
    pub fn pages_per_node(&self) -> &[u64] {
        self.placement.used_pages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{Capacity, PlacementPolicy};

    fn memory(capacity: u64) -> Memory {
        let placement = Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(capacity); 2],
            vec![vec![0, 1], vec![1, 0]],
        );
        Memory::new(4096, 2, placement)
    }

    #[test]
    fn first_touch_homes_frames_and_counts_pages() {
        let mut m = memory(100);
        assert_eq!(m.touch(1, 0x5000).unwrap(), (0, true));
        assert_eq!(m.touch(0, 0x5008).unwrap(), (0, false), "same page");
        assert_eq!(m.touch(0, 0x9000).unwrap(), (1, true));
        assert_eq!(m.touch(1, 0x1000).unwrap(), (2, true));
        assert_eq!(m.home, vec![1, 0, 1]);
        assert_eq!(m.frame, vec![0, 0, 1], "frames count per node");
        assert_eq!(m.pages_per_node(), &[1, 2]);
        assert_eq!(m.pages.pages(), 3);
    }

    #[test]
    fn a_full_node_spills_to_the_next_nearest() {
        let mut m = memory(1);
        m.touch(0, 0x1000).unwrap();
        m.touch(0, 0x2000).unwrap();
        assert_eq!(m.home, vec![0, 1]);
    }

    #[test]
    fn moves_take_a_fresh_frame_and_update_occupancy() {
        let mut m = memory(100);
        m.touch(0, 0x1000).unwrap();
        m.touch(1, 0x2000).unwrap();
        assert_eq!(m.move_page(0, 0), None, "already there");
        assert_eq!(m.move_page(0, 1), Some(Moved { from: 0, old_frame: 0 }));
        assert_eq!(m.home_of(0), 1);
        assert_eq!(m.frame[0], 1, "after page 1's frame 0 on node 1");
        assert_eq!(m.pages_per_node(), &[0, 2]);
    }

    #[test]
    fn the_oracle_overrides_placement_by_virtual_page() {
        let mut m = memory(100);
        m.fixed_home = FixedHomes::from_pairs([(2, 1)]);
        m.touch(0, 0x1000).unwrap();
        m.touch(0, 0x2000).unwrap();
        assert_eq!(m.home, vec![0, 1], "vpage 2 at its fixed home");
    }

    #[test]
    fn per_line_state_past_the_budget_is_refused_not_allocated() {
        let placement = Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(1000); 2],
            vec![vec![0, 1], vec![1, 0]],
        );
        // 1 GiB pages: 16 M lines each; 17 bytes a line is 272 MiB a page, so a 1 GiB budget
        // holds three pages.
        let mut m = Memory::new(1 << 30, 2, placement);
        m.keep_line_state(17, 1 << 30);
        for p in 0..3u64 {
            m.touch(0, p << 30).unwrap();
        }
        assert_eq!(m.touch(0, 1 << 30).unwrap(), (1, false), "a touched page costs nothing");
        let err = m.touch(0, 3 << 30).unwrap_err();
        assert!(matches!(
            err,
            PlacementError::LineStateLimit {
                pages: 4,
                page_bytes: 1_073_741_824,
                line_state_bytes: 17,
                ..
            }
        ));
        assert!(err.to_string().contains("use smaller pages"), "{err}");
        // Without per-line state the same pages are fine.
        let mut free = memory(100);
        free.keep_line_state(0, 1);
        for p in 0..50u64 {
            free.touch(0, p << 12).unwrap();
        }
    }

    #[test]
    fn the_host_budget_is_half_of_its_memory() {
        let b = line_state_budget_bytes();
        assert!(b >= 64 << 20, "{b}");
    }
}
