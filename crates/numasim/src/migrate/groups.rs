//! Pages grouped by virtual address: StarNUMA's tracker regions, HyDM's page groups.
//!
//! A group is `group_pages` consecutive virtual pages. StarNUMA's regions are physically
//! contiguous; numasim has no physical addresses, so regions are virtually contiguous (the
//! pages one allocation laid out together) and a region's location is the node holding most of
//! its pages. Group ids are dense, in first-touch order of the group, and the map is extended
//! incrementally as new pages appear, so a boundary costs O(new pages) to maintain it.

use crate::mem::PageTable;
use std::collections::HashMap;

#[derive(Debug, Clone, Default)]
pub struct Groups {
    shift: u32,
    pub group_of_page: Vec<u32>,
    pub pages_of: Vec<Vec<u32>>,
    /// Key (virtual page number >> shift) of every group.
    keys: Vec<u64>,
    index: HashMap<u64, u32>,
}

impl Groups {
    /// `group_pages` is rounded down to a power of two (at least 1).
    pub fn new(group_pages: u64) -> Self {
        let g = group_pages.max(1);
        Groups {
            shift: 63 - g.leading_zeros(),
            ..Default::default()
        }
    }

    /// Groups of `2^shift` pages (a shift of 48 − page shift groups pages by process).
    pub fn with_shift(shift: u32) -> Self {
        Groups {
            shift: shift.min(63),
            ..Default::default()
        }
    }

    /// The group's key: its first virtual page number >> the group shift (a process number
    /// when grouping by process).
    pub fn key(&self, g: usize) -> u64 {
        self.keys[g]
    }

    pub fn len(&self) -> usize {
        self.pages_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages_of.is_empty()
    }

    /// Adds pages first touched since the last call.
    pub fn update(&mut self, table: &PageTable) {
        for p in self.group_of_page.len()..table.pages() {
            let key = table.vpage(p as u32) >> self.shift;
            let next = self.pages_of.len() as u32;
            let g = *self.index.entry(key).or_insert(next);
            if g == next {
                self.pages_of.push(Vec::new());
                self.keys.push(key);
            }
            self.pages_of[g as usize].push(p as u32);
            self.group_of_page.push(g);
        }
    }

    /// Node holding most of the group's pages (ties: lowest node).
    pub fn location(&self, g: usize, home: &[u16], nodes: usize, scratch: &mut Vec<u32>) -> usize {
        scratch.clear();
        scratch.resize(nodes, 0);
        for &p in &self.pages_of[g] {
            scratch[home[p as usize] as usize] += 1;
        }
        let mut best = 0;
        for n in 1..nodes {
            if scratch[n] > scratch[best] {
                best = n;
            }
        }
        best
    }
}
