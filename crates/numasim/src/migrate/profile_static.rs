//! Profile-driven static placement (Tikir & Hollingsworth §5.2.3): "run in two phases, where
//! during the first phase, profiling information is collected, and during the second phase
//! the application is run with [...] static placement where pages are placed at application
//! start using the profiling information".
//!
//! Unlike `oracle-static` (whole-run exact counts, best node by latency), this policy sees only
//! what its profiler recorded in the first run: the driver runs the experiment once without
//! migration with the chosen profiler (default `interconnect`, every 1024-th transaction),
//! sums its per-phase profiles, and places each profiled page at the local node of the socket
//! with the most profiled accesses (the paper's rule), most-profiled pages first, within each
//! node's capacity at the first run's footprint. Pages the profile never saw are placed by
//! first touch. The second run places by virtual page at first touch ([`crate::mem::FixedHomes`])
//! and neither profiles nor moves anything. The first pass is the driver's
//! `learn_profile_homes` (the layer above).

use super::mechanism::{Ctx, MachineInfo};
use super::{rng::SplitMix64, BoundaryInput, FirstPass, Policy, PolicyEnv, Role};
use crate::profile::{PageProfile, ProfilerKind};

/// The policy: the driver's first pass chooses the homes; nothing moves at boundaries.
#[derive(Debug, Clone)]
pub struct ProfileStatic;

impl Policy for ProfileStatic {
    const NAME: &'static str = "profile-static";
    const SUMMARY: &'static str = "static placement from a first run's profile: each profiled page at its most frequent \
         accessor's node (two runs)";
    const PAPER: &'static str = "hardware-monitors-dynamic-page-migration §5.2.3 (profile-driven static placement)";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::Interconnect;
    const ROLE: Role = Role::StaticOracle(FirstPass::Profile);
    type Params = ();

    fn new(_: &(), _: &PolicyEnv) -> Self {
        ProfileStatic
    }
    fn decide(&mut self, _: &mut Ctx, _: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// A home for every page the run-long `profile` saw: its top socket's local node, most
/// profiled pages first, while that node has room (`capacity[node]` in pages); `u16::MAX` for
/// pages left to first touch.
pub fn homes_from_profile(profile: &PageProfile, mach: &MachineInfo, capacity: &[u64]) -> Vec<u16> {
    let pages = profile.pages();
    let mut order: Vec<(u64, usize)> = (0..pages)
        .map(|p| (profile.total(p), p))
        .filter(|&(t, _)| t > 0)
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut used = vec![0u64; mach.nodes];
    let mut homes = vec![u16::MAX; pages];
    for (_, p) in order {
        let Some(top) = profile.top_socket(p) else { continue };
        let n = mach.local_node[top];
        if used[n] < capacity[n] {
            used[n] += 1;
            homes[p] = n as u16;
        }
    }
    homes
}
