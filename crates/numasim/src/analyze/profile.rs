//! `numasim analyze profile`: how representative each profile source is (Tikir &
//! Hollingsworth Table 1 and Fig. 2), measured on an experiment's workload and machine.
//!
//! The experiment runs once without migration; every source observes the same accesses at
//! once. Over the whole run, each source's profile is compared with the `perfect` profile
//! (every memory access, i.e. every transaction the interconnect carries): the distance D per
//! socket (`|R_sample − R_all| / R_all`, R = the socket's share of events), its mean over
//! sockets, the share of events sampled, the share of touched pages the source saw (Fig. 2's
//! right axis), and the share of accesses whose page the source attributes to the right
//! most-frequent socket (what a migration policy acts on).

use crate::driver::{for_each_phase, Run, RunError};
use crate::profile::page_profile::{distance, pages_covered, top_agreement};
use crate::profile::{Observer, PageProfile, ProfilerKind};
use serde::Serialize;
use std::collections::BTreeMap;

/// One source at one interval.
#[derive(Debug, Clone, Serialize)]
pub struct SourceReport {
    pub source: &'static str,
    pub sample_interval: u64,
    /// D per socket (`null` where the socket made no memory access).
    pub distance_per_socket: Vec<Option<f64>>,
    pub mean_distance: f64,
    /// Events recorded / memory accesses.
    pub sampled_fraction: f64,
    pub pages_covered: f64,
    pub top_socket_agreement: f64,
    pub events: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProfileAnalysis {
    pub experiment: String,
    pub machine: String,
    pub sockets: Vec<String>,
    pub memory_accesses: u64,
    pub touched_pages: u64,
    pub sources: Vec<SourceReport>,
}

/// Interconnect sampling intervals swept by default (Table 1's 64…4K and beyond, Fig. 2).
pub const DEFAULT_INTERVALS: &[u64] = &[64, 256, 1024, 4096, 16384, 65536, 1 << 20];

/// Runs the analysis. `intervals` are the interconnect-sampling intervals to sweep; other
/// sources use their default interval.
pub fn analyze_profile(run: &mut Run, intervals: &[u64], tlb_entries: usize) -> Result<ProfileAnalysis, RunError> {
    let mut specs: Vec<(ProfilerKind, u64)> = intervals.iter().map(|&n| (ProfilerKind::Interconnect, n)).collect();
    for k in [
        ProfilerKind::CacheMiss,
        ProfilerKind::TlbMiss,
        ProfilerKind::TlbContent,
        ProfilerKind::Atc,
        ProfilerKind::HydmSampling,
        ProfilerKind::HintingFaults,
        ProfilerKind::Full,
    ] {
        specs.push((k, k.sample_interval(&BTreeMap::new())));
    }
    analyze_sources(run, &specs, tlb_entries)
}

/// The analysis over explicit (source, sampling interval) pairs (`numasim repro tikir` adds
/// `interconnect-maxrate`, whose buffer and read period take their declared defaults).
pub fn analyze_sources(
    run: &mut Run,
    specs: &[(ProfilerKind, u64)],
    tlb_entries: usize,
) -> Result<ProfileAnalysis, RunError> {
    let mut source = run.open_source()?;
    let (mut sim, mut system) = run.functional_sim()?;
    let sockets = run.machine.sockets.len();
    // Other parameters (`scan_fraction`) take their declared defaults.
    let mk = |kind: ProfilerKind, interval: u64| {
        let params = BTreeMap::from([
            (
                "sample_interval".to_string(),
                toml::Value::Integer(interval.min(i64::MAX as u64) as i64),
            ),
            (
                "tlb_entries".to_string(),
                toml::Value::Integer(tlb_entries.min(i64::MAX as usize) as i64),
            ),
        ]);
        Observer::new(kind, sockets, &params)
    };
    let mut root = mk(ProfilerKind::Perfect, 1);
    root.also = specs.iter().map(|&(k, n)| mk(k, n)).collect();
    system.set_observer(root);
    let mut perfect = PageProfile::new(sockets, 0);
    let mut run_profiles: Vec<PageProfile> = specs.iter().map(|_| PageProfile::new(sockets, 0)).collect();
    let mut events = vec![0u64; specs.len()];
    let mut mem_accesses = 0u64;
    for_each_phase(
        &mut sim,
        &mut system,
        &mut *source,
        run.max_phases,
        |lent, counts, ()| {
            let system = lent.system;
            mem_accesses += counts.llc_misses;
            let pages = system.memory.table.pages();
            let exact = system.memory.pages.phase_counts[..pages * sockets].to_vec();
            perfect.add(&PageProfile {
                sockets,
                counts: exact.clone(),
            });
            let o = system.observer_mut().expect("installed above");
            for (i, sub) in o.also.iter_mut().enumerate() {
                run_profiles[i].add(&sub.profile(&exact, pages));
                let (_, c) = sub.end_phase(pages, &[], 0);
                events[i] += c.samples;
            }
            o.end_phase(pages, &[], 0);
            Ok(())
        },
    )?;
    let sources = specs
        .iter()
        .zip(&run_profiles)
        .zip(&events)
        .map(|((&(k, n), prof), &ev)| {
            let d = distance(prof, &perfect);
            let defined: Vec<f64> = d.iter().flatten().copied().collect();
            SourceReport {
                source: k.name(),
                sample_interval: n,
                mean_distance: if defined.is_empty() {
                    0.0
                } else {
                    defined.iter().sum::<f64>() / defined.len() as f64
                },
                distance_per_socket: d,
                sampled_fraction: if mem_accesses == 0 {
                    0.0
                } else {
                    ev as f64 / mem_accesses as f64
                },
                pages_covered: pages_covered(prof, &perfect),
                top_socket_agreement: top_agreement(prof, &perfect),
                events: ev,
            }
        })
        .collect();
    Ok(ProfileAnalysis {
        experiment: run.name.clone(),
        machine: run.machine.name.clone(),
        sockets: run.machine.sockets.iter().map(|s| s.name.clone()).collect(),
        memory_accesses: mem_accesses,
        touched_pages: (0..perfect.pages()).filter(|&p| perfect.total(p) > 0).count() as u64,
        sources,
    })
}
