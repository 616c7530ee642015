//! HyDM (§III) adapted to one workload on KNL flat mode: MCDRAM (fast) vs DDR.
//!
//! HyDM picks, every window, the *application* with the lowest predicted arithmetic
//! intensity (flops per byte; linear regression over the last W windows), skipping
//! applications on its miss-prediction list V and those with more page faults than average;
//! it moves all of that application's pages to MCDRAM if MCDRAM use stays under t (90 %),
//! and otherwise rolls back an application in MCDRAM whose flop rate did not improve since
//! its move (adding it to V). numasim simulates one workload, so the unit here is a *page
//! group* (`group_bytes` of consecutive virtual pages) and up to `groups_per_window` groups
//! are promoted per window (the paper: one application).
//!
//! Per window and group: flops = the `Access::flops` of accesses to its pages (flops retired
//! since the thread's previous access, attributed to the page touched); bytes = sampled
//! memory accesses × interval × 64 B; faults = pages first touched in the window.
//! Progress, the signal of rollback: in timing mode a flop *rate* — the group's flops per ns its
//! LLC-miss loads took in the window (time attributed to the group's pages by the engine), so a
//! promotion that did not make the group's memory time cheaper is measured as no progress.
//! Functional mode has no time, so it uses flops per memory access of the group, a proxy that
//! does not depend on placement: rollback then fires only when a group's behaviour changes.

use super::groups::Groups;
use super::mechanism::Ctx;
use super::{rng::SplitMix64, BoundaryInput, Policy, PolicyEnv};
use numasim_config::declare_params;
use crate::profile::{PageProfile, ProfilerKind};
use std::collections::VecDeque;

declare_params! {
    /// Parameters of `hydm`.
    pub struct HydmParams {
        /// W: windows of history for the regression (paper: 5 or 10)
        window: u64 = 5, unit "windows", Check::Range(2.0, 1000.0);
        /// t: fast-tier use above which no promotion happens (paper: 0.9)
        threshold: f64 = 0.9, unit "fraction", Check::Range(0.0, 1.0);
        /// size of a page group (HyDM's unit, an application there)
        group_bytes: u64 = 16 << 20, unit "bytes", Check::Range(4096.0, (1u64 << 40) as f64);
        /// groups promoted per window (paper: one application)
        groups_per_window: u64 = 1, unit "groups", Check::Range(1.0, 1e9);
        /// fast-tier memory node (default: the node of kind mcdram/hbm, else none)
        fast_node: String = "", unit "node name", Check::Words(&[]);
        /// unit promoted: process (the paper's applications), group (of group_bytes), auto (process if several)
        unit: String = "auto", unit "name", Check::Words(&["auto", "process", "group"]);
    }
}

impl Policy for Hydm {
    const NAME: &'static str = "hydm";
    const SUMMARY: &'static str = "HyDM on KNL flat: lowest predicted arithmetic intensity page group to the fast tier (MCDRAM), \
         rollback when progress does not improve";
    const PAPER: &'static str = "hydm-hybrid-memory-migration §III";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::HydmSampling;
    /// Only `hydm-sampling` gathers the per-page flops and page faults HyDM's arithmetic
    /// intensity and fault filter are computed from; with any other profiler the flops would
    /// read as zero and the selection would be meaningless.
    const PROFILERS: Option<&'static [ProfilerKind]> = Some(&[ProfilerKind::HydmSampling]);
    type Params = HydmParams;

    fn new(p: &HydmParams, env: &PolicyEnv) -> Self {
        let mach = env.mach;
        let fast = if p.fast_node.is_empty() {
            mach.kind.iter().position(|k| k == "mcdram" || k == "hbm")
        } else {
            mach.node_names.iter().position(|n| *n == p.fast_node)
        };
        let mut h = Hydm::new(
            p.window as usize,
            p.threshold,
            p.group_bytes / env.page_bytes.max(1),
            p.groups_per_window,
            fast,
            env.sample_interval,
        );
        if p.unit == "process" || (p.unit == "auto" && env.processes > 1) {
            let page_shift = env.page_bytes.max(1).trailing_zeros();
            h.groups = Groups::with_shift(numasim_trace::PROCESS_SHIFT - page_shift.min(numasim_trace::PROCESS_SHIFT));
            h.per_process = true;
        }
        h
    }
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        Hydm::decide(self, ctx, input.profile, &input.window.flops, &input.window.faulted);
        let mut out = serde_json::json!({"promotions": self.promotions, "rollbacks": self.rollbacks, "fast_node": self.fast.map(|n| ctx.mach.node_names[n].clone())});
        if self.per_process {
            // Which processes are in the fast tier now and which are on the miss-prediction
            // list, by process number (results' `processes` order).
            let ids = |f: &dyn Fn(usize) -> bool| -> Vec<u64> {
                (0..self.groups.len())
                    .filter(|&g| f(g))
                    .map(|g| self.groups.key(g))
                    .collect()
            };
            out["in_fast_tier"] = ids(&|g| self.promoted[g].is_some()).into();
            out["mispredicted"] = ids(&|g| self.victims[g]).into();
        }
        out
    }
}

#[derive(Debug, Clone)]
pub struct Hydm {
    pub window: usize,
    pub threshold: f64,
    pub groups_per_window: u64,
    pub fast: Option<usize>,
    pub interval: u64,
    pub groups: Groups,
    /// Groups are whole processes (the paper's applications).
    pub per_process: bool,
    history: Vec<VecDeque<f64>>,
    /// Miss-predicted groups (V).
    victims: Vec<bool>,
    /// Groups promoted: (progress before the move, improved since).
    promoted: Vec<Option<(f64, bool)>>,
    pub promotions: u64,
    pub rollbacks: u64,
}

/// Least-squares prediction of the next value of a series (last value if < 2 points).
pub fn predict_next(series: &VecDeque<f64>) -> f64 {
    let n = series.len();
    match n {
        0 => f64::INFINITY,
        1 => series[0],
        _ => {
            let nf = n as f64;
            let mx = (nf - 1.0) / 2.0;
            let my = series.iter().sum::<f64>() / nf;
            let mut sxy = 0.0;
            let mut sxx = 0.0;
            for (i, &y) in series.iter().enumerate() {
                let dx = i as f64 - mx;
                sxy += dx * (y - my);
                sxx += dx * dx;
            }
            let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            my + slope * (nf - mx)
        }
    }
}

impl Hydm {
    pub fn new(
        window: usize,
        threshold: f64,
        group_pages: u64,
        groups_per_window: u64,
        fast: Option<usize>,
        interval: u64,
    ) -> Self {
        Hydm {
            window,
            threshold,
            groups_per_window,
            fast,
            interval,
            groups: Groups::new(group_pages),
            per_process: false,
            history: Vec::new(),
            victims: Vec::new(),
            promoted: Vec::new(),
            promotions: 0,
            rollbacks: 0,
        }
    }

    pub fn decide(&mut self, ctx: &mut Ctx, prof: &PageProfile, flops: &[u64], faulted: &[bool]) {
        let Some(fast) = self.fast else { return };
        self.groups.update(ctx.sim.table());
        let g_n = self.groups.len();
        self.history.resize(g_n, VecDeque::new());
        self.victims.resize(g_n, false);
        self.promoted.resize(g_n, None);
        ctx.scanned += g_n as u64;
        let mut faults = vec![0u64; g_n];
        let mut progress = vec![0.0f64; g_n];
        let mut active = vec![false; g_n];
        for g in 0..g_n {
            let (mut f, mut samples, mut pf) = (0u64, 0u64, 0u64);
            for &p in &self.groups.pages_of[g] {
                let p = p as usize;
                f += flops.get(p).copied().unwrap_or(0);
                if p < prof.pages() {
                    samples += prof.total(p);
                }
                pf += u64::from(faulted.get(p).copied().unwrap_or(false));
            }
            faults[g] = pf;
            let mem_ps: Option<u64> = ctx.sim.page_memory_time_ps().map(|t| {
                self.groups.pages_of[g]
                    .iter()
                    .map(|&p| t.get(p as usize).copied().unwrap_or(0))
                    .sum()
            });
            let accesses = samples * self.interval;
            if accesses > 0 {
                active[g] = true;
                let ai = f as f64 / (accesses * 64) as f64;
                let h = &mut self.history[g];
                h.push_back(ai);
                while h.len() > self.window {
                    h.pop_front();
                }
                progress[g] = match mem_ps {
                    Some(ps) if ps > 0 => f as f64 / (ps as f64 / 1000.0),
                    _ => f as f64 / accesses as f64,
                };
            }
            if let Some((before, improved)) = &mut self.promoted[g] {
                if active[g] && progress[g] > *before {
                    *improved = true;
                }
            }
        }
        let n_active = active.iter().filter(|&&a| a).count().max(1) as f64;
        let pf_avg = faults
            .iter()
            .zip(&active)
            .filter(|(_, &a)| a)
            .map(|(&f, _)| f as f64)
            .sum::<f64>()
            / n_active;
        let mut order: Vec<(f64, usize)> = (0..g_n)
            .filter(|&g| active[g])
            .map(|g| (predict_next(&self.history[g]), g))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut chosen = 0;
        for (_, g) in order {
            if chosen >= self.groups_per_window {
                break;
            }
            if self.victims[g] || faults[g] as f64 > pf_avg || self.promoted[g].is_some() {
                continue;
            }
            chosen += 1;
            let need = self.groups.pages_of[g]
                .iter()
                .filter(|&&p| ctx.home(p as usize) != fast)
                .count() as u64;
            let cap = ctx.capacity(fast) as f64;
            if (ctx.used(fast) + need) as f64 <= self.threshold * cap {
                for &p in &self.groups.pages_of[g] {
                    ctx.move_page(p, fast);
                }
                self.promoted[g] = Some((progress[g], false));
                self.promotions += 1;
            } else if let Some(r) = (0..g_n).find(|&r| matches!(self.promoted[r], Some((_, false)))) {
                // checkFlops: a promoted group whose progress never improved goes back.
                self.victims[r] = true;
                self.promoted[r] = None;
                self.rollbacks += 1;
                for &p in &self.groups.pages_of[r] {
                    let p = p as usize;
                    let top = prof.top_socket(p).unwrap_or(0);
                    if let Some(&slow) = ctx.mach.nearest[top].iter().find(|&&n| n != fast && ctx.free(n) > 0) {
                        ctx.move_page(p as u32, slow);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_extrapolates_a_line() {
        let s: VecDeque<f64> = [1.0, 2.0, 3.0].into_iter().collect();
        assert!((predict_next(&s) - 4.0).abs() < 1e-12);
        let s: VecDeque<f64> = [5.0].into_iter().collect();
        assert_eq!(predict_next(&s), 5.0);
    }
}
