//! Oracle static placement: each page placed once, at its best node by whole-run knowledge.
//!
//! Two passes (Tikir & Hollingsworth §5.2.3's profile-driven static placement, and the upper
//! bound of static placement in StarNUMA's Fig. 9): the first pass runs the experiment without
//! migration and sums every page's memory accesses per socket; the best node of a page is the
//! one minimising access-weighted unloaded load latency. Capacity is respected greedily, pages
//! with the most accesses first, against each node's capacity at the final footprint; a page
//! whose best node is full takes its next best. The second pass re-runs the workload with each
//! page placed at its chosen node on first touch, looked up by virtual page
//! ([`crate::mem::FixedHomes`]): page ids follow first-touch order, which in timing mode
//! depends on the simulated interleaving, so they do not name the same pages across passes.
//! The first pass is the driver's `learn_oracle_homes` (the layer above).

use super::mechanism::{Ctx, MachineInfo};
use super::{rng::SplitMix64, BoundaryInput, FirstPass, Policy, PolicyEnv, Role};
use crate::profile::ProfilerKind;

/// The policy: the driver's first pass chooses the homes; nothing moves at boundaries.
#[derive(Debug, Clone)]
pub struct OracleStatic;

impl Policy for OracleStatic {
    const NAME: &'static str = "oracle-static";
    const SUMMARY: &'static str = "static placement at each page's best node by whole-run knowledge (two passes; upper bound of \
         static placement)";
    const PAPER: &'static str = "hardware-monitors-dynamic-page-migration §5.2.3; starnuma Fig. 9";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::Perfect;
    // Whole-run knowledge is the definition of the oracle.
    const PROFILERS: Option<&'static [ProfilerKind]> = Some(&[ProfilerKind::Perfect]);
    const ROLE: Role = Role::StaticOracle(FirstPass::AccessCounts);
    type Params = ();

    fn new(_: &(), _: &PolicyEnv) -> Self {
        OracleStatic
    }
    fn decide(&mut self, _: &mut Ctx, _: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// Chooses a home for every page from run-long per-socket counts `[page * sockets + socket]`.
/// `capacity[node]` is in pages at the final footprint.
pub fn best_homes(totals: &[u64], mach: &MachineInfo, capacity: &[u64]) -> Vec<u16> {
    let s = mach.sockets;
    let pages = totals.len() / s.max(1);
    let mut order: Vec<(u64, usize)> = (0..pages)
        .map(|p| (totals[p * s..(p + 1) * s].iter().sum(), p))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut used = vec![0u64; mach.nodes];
    let mut homes = vec![u16::MAX; pages];
    let mut costs: Vec<(f64, usize)> = Vec::with_capacity(mach.nodes);
    for (_, p) in order {
        let row = &totals[p * s..(p + 1) * s];
        costs.clear();
        for n in 0..mach.nodes {
            let c: f64 = row
                .iter()
                .enumerate()
                .map(|(k, &c)| c as f64 * mach.latency_ns[k][n])
                .sum();
            costs.push((c, n));
        }
        costs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some(&(_, n)) = costs.iter().find(|&&(_, n)| used[n] < capacity[n]) {
            used[n] += 1;
            homes[p] = n as u16;
        }
    }
    homes
}
