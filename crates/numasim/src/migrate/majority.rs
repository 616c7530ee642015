//! "Move each page to its most frequent accessor": StarNUMA's baseline and Tikir's policy.
//!
//! Both read a page profile and send a page to the local node of the socket with the most
//! profiled accesses (ties: lowest socket).
//! - `perfect-baseline` (StarNUMA §IV-C): the baseline system's migration with zero-cost
//!   per-socket knowledge of every access; candidates are taken in order of remote accesses
//!   they would make local (most first) up to the per-phase page limit.
//! - `tikir` (Tikir & Hollingsworth §3): every page the profile saw is a candidate at every
//!   interval, no minimum threshold (`min_accesses` = 0), and a migrated page is frozen for
//!   `freeze_intervals` intervals to prevent ping-ponging. No victim eviction: a move to a full
//!   node is skipped (their scheme stops moving pages when memory runs short).

use super::mechanism::Ctx;
use crate::profile::PageProfile;

#[derive(Debug, Clone)]
pub struct Majority {
    /// Per-phase page limit (`u64::MAX` = none).
    pub limit_pages: u64,
    pub freeze_intervals: u64,
    pub min_accesses: u64,
    /// Phase number until which a page is frozen (exclusive).
    frozen_until: Vec<u64>,
    /// Rank candidates by benefit (perfect-baseline) rather than page order (tikir).
    pub ranked: bool,
}

impl Majority {
    pub fn baseline(limit_pages: u64) -> Self {
        Majority {
            limit_pages,
            freeze_intervals: 0,
            min_accesses: 0,
            frozen_until: Vec::new(),
            ranked: true,
        }
    }

    pub fn tikir(freeze_intervals: u64, min_accesses: u64) -> Self {
        Majority {
            limit_pages: u64::MAX,
            freeze_intervals,
            min_accesses,
            frozen_until: Vec::new(),
            ranked: false,
        }
    }

    pub fn decide(&mut self, ctx: &mut Ctx, prof: &PageProfile) {
        let pages = ctx.pages().min(prof.pages());
        self.frozen_until.resize(ctx.pages(), 0);
        ctx.scanned += pages as u64;
        // (benefit, page, destination)
        let mut cands: Vec<(u64, u32, usize)> = Vec::new();
        for p in 0..pages {
            let total = prof.total(p);
            if total == 0 || total < self.min_accesses || self.frozen_until[p] > ctx.phase {
                continue;
            }
            let Some(top) = prof.top_socket(p) else { continue };
            let dest = ctx.mach.local_node[top];
            let home = ctx.home(p);
            if dest == home {
                continue;
            }
            let row = prof.row(p);
            let local_now: u64 = ctx.mach.attached_socket[home].map_or(0, |s| u64::from(row[s]));
            cands.push((u64::from(row[top]).saturating_sub(local_now), p as u32, dest));
        }
        if self.ranked {
            cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        let mut moved = 0u64;
        for (_, p, dest) in cands {
            if moved >= self.limit_pages {
                break;
            }
            if ctx.move_page(p, dest) {
                moved += 1;
                self.frozen_until[p as usize] = ctx.phase + 1 + self.freeze_intervals;
            }
        }
    }
}
