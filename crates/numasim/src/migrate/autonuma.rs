//! AutoNUMA / TPP-like migration from hinting faults — the Linux reference point.
//!
//! The profile holds hinting faults that passed Linux's two-stage filter (two consecutive
//! faults on a page from the same socket; see [`crate::profile`]). A page with such faults
//! moves to the local node of the socket with the most of them (promotion when it sits on a
//! slower tier such as a CXL pool, NUMA balancing otherwise). When that node lacks room — or,
//! TPP-style, is fuller than `demote_watermark` — cold pages on it are demoted to the nearest
//! other node with room, preferring memory-only (slower-tier) nodes. "Cold" is the kernel's
//! accessed-bit view: no memory access to the page in the phase. At most
//! `max_moves_per_phase` pages move per phase (Linux rate-limits promotion).

use super::mechanism::Ctx;
use super::{rng::SplitMix64, BoundaryInput, Policy, PolicyEnv};
use numasim_config::declare_params;
use crate::profile::{PageProfile, ProfilerKind};

declare_params! {
    /// Parameters of `autonuma`.
    pub struct AutonumaParams {
        /// rate limit of promotions+moves per phase (pages)
        max_moves_per_phase: u64 = 65_536, unit "pages", Check::Range(0.0, 1e12);
        /// demote cold pages when a fast node is fuller than this
        demote_watermark: f64 = 0.95, unit "fraction", Check::Range(0.0, 1.0);
    }
}

impl Policy for Autonuma {
    const NAME: &'static str = "autonuma";
    const SUMMARY: &'static str = "AutoNUMA/TPP-like: migrate on two consecutive hinting faults from one socket; promote to the \
         fast local tier, demote cold pages when full";
    const PAPER: &'static str = "Linux AutoNUMA / TPP (reference point)";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::HintingFaults;
    type Params = AutonumaParams;

    fn new(p: &AutonumaParams, _: &PolicyEnv) -> Self {
        Autonuma::new(p.max_moves_per_phase, p.demote_watermark)
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        Autonuma::decide(self, ctx, input.profile);
        serde_json::json!({"promotions": self.promotions, "demotions": self.demotions})
    }
}

#[derive(Debug, Clone)]
pub struct Autonuma {
    pub max_moves: u64,
    pub watermark: f64,
    cursor: usize,
    pub promotions: u64,
    pub demotions: u64,
}

impl Autonuma {
    pub fn new(max_moves: u64, watermark: f64) -> Self {
        Autonuma {
            max_moves,
            watermark,
            cursor: 0,
            promotions: 0,
            demotions: 0,
        }
    }

    /// Demotes one cold page from `node`; false if none found.
    fn demote_one(&mut self, ctx: &mut Ctx, node: usize) -> bool {
        let pages = ctx.pages();
        let s = ctx.mach.sockets;
        for _ in 0..pages {
            if self.cursor >= pages {
                self.cursor = 0;
            }
            let p = self.cursor;
            self.cursor += 1;
            ctx.scanned += 1;
            if ctx.home(p) != node {
                continue;
            }
            let row = &ctx.sim.page_stats().phase_counts[p * s..(p + 1) * s];
            if row.iter().any(|&c| c > 0) {
                continue;
            }
            let socket = ctx.mach.attached_socket[node].unwrap_or(0);
            let mut order: Vec<usize> = ctx.mach.nearest[socket]
                .iter()
                .copied()
                .filter(|&n| n != node)
                .collect();
            order.sort_by_key(|&n| !ctx.mach.pool_nodes.contains(&n));
            if let Some(&dest) = order.iter().find(|&&n| ctx.free(n) > 0) {
                if ctx.move_page(p as u32, dest) {
                    self.demotions += 1;
                    return true;
                }
            }
        }
        false
    }

    pub fn decide(&mut self, ctx: &mut Ctx, prof: &PageProfile) {
        let pages = ctx.pages().min(prof.pages());
        let mut moved = 0u64;
        for p in 0..pages {
            if moved >= self.max_moves {
                break;
            }
            let Some(top) = prof.top_socket(p) else { continue };
            let dest = ctx.mach.local_node[top];
            if ctx.home(p) == dest {
                continue;
            }
            let cap = ctx.capacity(dest) as f64;
            let full = ctx.free(dest) == 0 || (ctx.used(dest) + 1) as f64 > self.watermark * cap;
            if full && self.demote_one(ctx, dest) {
                moved += 1;
            }
            if ctx.move_page(p as u32, dest) {
                moved += 1;
                self.promotions += 1;
            }
        }
    }
}
