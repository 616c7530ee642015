//! Private caches: every core's L1-D, L2 and TLB, and their hit latencies.
//!
//! Each structure is one [`SetAssocCache`] partitioned by core (one allocation for all cores,
//! see [`SetAssocCache::partitioned`]). A lookup fills both levels on a miss (write-back,
//! LRU) and hands back the dirty lines that leave the private levels, in the order they leave,
//! so the engine can pass them to the LLC. Why apart from the engine: what a private hierarchy
//! returns (which level hit, whether the line was dirty, what spilled) is the only thing the
//! rest of the model needs from it, and that can be tested on its own.

use super::dram::ps;
use super::params::TimingSpec;
use crate::cache::{Outcome, SetAssocCache};
use numasim_machine::Machine;

/// Where a private lookup found the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    L1 {
        was_dirty: bool,
    },
    L2 {
        was_dirty: bool,
    },
    /// In neither: the LLC or memory is next.
    Miss,
}

/// The result of [`PrivateCaches::lookup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    pub level: Level,
    /// Dirty lines evicted from the core's L2 by this lookup, in eviction order (for the LLC).
    pub spill: [Option<u64>; 2],
}

/// All cores' L1-D, L2 and TLB.
pub struct PrivateCaches {
    l1: SetAssocCache,
    /// `None`: no private L2 (`l2_bytes = 0`): an L1 miss goes to the LLC, and the L1's dirty
    /// victims with it.
    l2: Option<SetAssocCache>,
    tlb: SetAssocCache,
    /// Per socket: L1 and L2 hit latencies and a page walk, ps.
    pub l1_ps: Vec<u64>,
    pub l2_ps: Vec<u64>,
    pub walk_ps: Vec<u64>,
    /// Per socket: an LLC hit when `llc_hit_cycles` sets it (L1 and L2 lookups included;
    /// `None`: the lookup path before a miss), and a write-through L1's store to the LLC (0:
    /// write-back L1), ps.
    pub llc_hit_ps: Option<Vec<u64>>,
    pub write_through_ps: Vec<u64>,
}

impl PrivateCaches {
    pub fn new(spec: &TimingSpec, m: &Machine, cores: usize) -> Result<Self, super::SetupError> {
        let sized = |key: &'static str| move |source| super::SetupError::PrivateCache { key, source };
        let cyc = |s: usize, c: u32| ps(f64::from(c) / m.sockets[s].freq_ghz);
        let sockets = m.sockets.len();
        Ok(PrivateCaches {
            l1: SetAssocCache::try_partitioned(cores, spec.l1_bytes, spec.l1_ways as usize)
                .map_err(sized("timing.l1_bytes"))?,
            l2: if spec.l2_bytes == 0 {
                None
            } else {
                Some(
                    SetAssocCache::try_partitioned(cores, spec.l2_bytes, spec.l2_ways as usize)
                        .map_err(sized("timing.l2_bytes"))?,
                )
            },
            tlb: SetAssocCache::try_partitioned(cores, u64::from(spec.tlb_entries) * 64, spec.tlb_ways as usize)
                .map_err(sized("timing.tlb_entries"))?,
            l1_ps: (0..sockets).map(|s| cyc(s, spec.l1_latency_cycles)).collect(),
            l2_ps: (0..sockets)
                .map(|s| {
                    if spec.l2_bytes == 0 {
                        0
                    } else {
                        cyc(s, spec.l2_latency_cycles)
                    }
                })
                .collect(),
            walk_ps: (0..sockets).map(|s| cyc(s, spec.page_walk_cycles)).collect(),
            llc_hit_ps: spec.llc_hit_cycles.map(|h| {
                (0..sockets)
                    .map(|s| {
                        let l2 = if spec.l2_bytes == 0 { 0 } else { spec.l2_latency_cycles };
                        cyc(s, spec.l1_latency_cycles) + cyc(s, l2) + cyc(s, h)
                    })
                    .collect()
            }),
            write_through_ps: (0..sockets)
                .map(|s| cyc(s, spec.write_through_cycles.unwrap_or(0)))
                .collect(),
        })
    }

    /// Drops every core's L1, L2 and TLB contents (sampled timing: another engine ran meanwhile
    /// and these did not see its accesses).
    pub fn clear(&mut self) {
        self.l1.clear();
        if let Some(l2) = &mut self.l2 {
            l2.clear();
        }
        self.tlb.clear();
    }

    /// Core `c` translates virtual page `vpage`: whether its TLB missed (the entry is filled).
    #[inline]
    pub fn tlb_miss(&mut self, c: usize, vpage: u64) -> bool {
        matches!(self.tlb.access_in(c, vpage, false), Outcome::Miss { .. })
    }

    /// Core `c` accesses `line`: L1, then L2, filling both on a miss.
    #[inline]
    pub fn lookup(&mut self, c: usize, line: u64, write: bool) -> Lookup {
        let mut spill = [None, None];
        match self.l1.access_in(c, line, write) {
            Outcome::Hit { was_dirty } => {
                return Lookup {
                    level: Level::L1 { was_dirty },
                    spill,
                }
            }
            Outcome::Miss { writeback: Some(v) } => match &mut self.l2 {
                // The L1 victim goes into the L2, which may push out a dirty line of its own.
                Some(l2) => {
                    if let Outcome::Miss { writeback: Some(v2) } = l2.access_in(c, v, true) {
                        spill[0] = Some(v2);
                    }
                }
                None => spill[0] = Some(v),
            },
            Outcome::Miss { writeback: None } => {}
        }
        let Some(l2) = &mut self.l2 else {
            return Lookup {
                level: Level::Miss,
                spill,
            };
        };
        let level = match l2.access_in(c, line, write) {
            Outcome::Hit { was_dirty } => Level::L2 { was_dirty },
            Outcome::Miss { writeback } => {
                spill[1] = writeback;
                Level::Miss
            }
        };
        Lookup { level, spill }
    }

    /// Hints the host to load the L2 set core `c` will probe for `line`.
    #[inline]
    pub fn prefetch(&self, c: usize, line: u64) {
        if let Some(l2) = &self.l2 {
            l2.prefetch_in(c, line);
        }
    }

    /// Drops `line` from core `c`'s L1 and L2 (another socket wrote it).
    #[inline]
    pub fn invalidate(&mut self, c: usize, line: u64) {
        self.l1.invalidate_in(c, line);
        if let Some(l2) = &mut self.l2 {
            l2.invalidate_in(c, line);
        }
    }

    /// Marks `line` clean in core `c`'s L1 and L2 (its socket supplied it to a reader).
    #[inline]
    pub fn clean(&mut self, c: usize, line: u64) {
        self.l1.clean_in(c, line);
        if let Some(l2) = &mut self.l2 {
            l2.clean_in(c, line);
        }
    }

    /// Drops `vpage` from core `c`'s TLB (a shootdown).
    #[inline]
    pub fn shootdown(&mut self, c: usize, vpage: u64) {
        self.tlb.invalidate_in(c, vpage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiny caches: L1 one set of 2 ways, L2 one set of 4 ways, TLB 2 entries.
    fn tiny(cores: usize) -> PrivateCaches {
        let spec = TimingSpec {
            l1_bytes: 128,
            l1_ways: 2,
            l2_bytes: 256,
            l2_ways: 4,
            tlb_entries: 2,
            tlb_ways: 2,
            ..TimingSpec::default()
        };
        let m = Machine::load("starnuma16-pool-scaled").unwrap();
        PrivateCaches::new(&spec, &m, cores).unwrap()
    }

    #[test]
    fn a_miss_fills_both_levels_and_a_repeat_hits_l1() {
        let mut p = tiny(1);
        assert_eq!(p.lookup(0, 1, false).level, Level::Miss);
        assert_eq!(p.lookup(0, 1, true).level, Level::L1 { was_dirty: false });
        assert_eq!(p.lookup(0, 1, false).level, Level::L1 { was_dirty: true });
    }

    #[test]
    fn an_l1_victim_is_found_in_l2_and_dirty_lines_spill_from_l2_in_order() {
        let mut p = tiny(1);
        for line in 1..=2 {
            p.lookup(0, line, true);
        }
        // Line 3 evicts line 1 (LRU, dirty) from L1 into L2.
        let r = p.lookup(0, 3, false);
        assert_eq!(
            r,
            Lookup {
                level: Level::Miss,
                spill: [None, None]
            }
        );
        assert_eq!(p.lookup(0, 1, false).level, Level::L2 { was_dirty: true });
        // Fill L2 past its 4 ways with clean lines: the dirty ones leave it, oldest first.
        let mut spilled: Vec<u64> = Vec::new();
        for line in 10..20 {
            let r = p.lookup(0, line, false);
            spilled.extend(r.spill.iter().flatten());
        }
        assert_eq!(spilled, vec![2, 1], "dirty lines 2 and 1 leave L2 (LRU order)");
    }

    #[test]
    fn without_an_l2_a_dirty_l1_victim_spills_to_the_llc_and_a_miss_is_a_miss() {
        let spec = TimingSpec {
            l1_bytes: 128,
            l1_ways: 2,
            l2_bytes: 0,
            ..TimingSpec::default()
        };
        let m = Machine::load("starnuma16-pool-scaled").unwrap();
        let mut p = PrivateCaches::new(&spec, &m, 1).unwrap();
        assert_eq!(p.l2_ps[0], 0, "no L2, no L2 latency on the path");
        p.lookup(0, 1, true);
        p.lookup(0, 2, false);
        // Line 3 evicts dirty line 1 straight out of the private level.
        let r = p.lookup(0, 3, false);
        assert_eq!(r.level, Level::Miss);
        assert_eq!(r.spill, [Some(1), None]);
        assert_eq!(p.lookup(0, 1, false).level, Level::Miss, "no L2 kept the victim");
    }

    #[test]
    fn cores_are_private_and_invalidate_or_clean_only_their_own_copy() {
        let mut p = tiny(2);
        p.lookup(0, 5, true);
        assert_eq!(p.lookup(1, 5, false).level, Level::Miss, "core 1 has its own caches");
        p.clean(0, 5);
        assert_eq!(p.lookup(0, 5, false).level, Level::L1 { was_dirty: false });
        p.invalidate(0, 5);
        assert_eq!(p.lookup(0, 5, false).level, Level::Miss);
        assert_eq!(p.lookup(1, 5, false).level, Level::L1 { was_dirty: false });
    }

    #[test]
    fn tlb_misses_once_per_page_until_shot_down() {
        let mut p = tiny(1);
        assert!(p.tlb_miss(0, 9));
        assert!(!p.tlb_miss(0, 9));
        p.shootdown(0, 9);
        assert!(p.tlb_miss(0, 9));
        // StarNUMA sockets run at 2.4 GHz: 4 cycles = 1.667 ns.
        assert_eq!(p.l1_ps[0], 1667);
    }
}
