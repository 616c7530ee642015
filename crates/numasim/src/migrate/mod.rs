//! Page-migration policies of the seed papers, their mechanism, and their counted costs.
//!
//! At every phase boundary the [`Migrator`] takes the chosen profiler's [`PageProfile`], lets
//! the chosen policy (a closed set, [`PolicyKind`]) decide and apply moves through
//! [`mechanism::Ctx`] (capacity-checked), charges the moves' costs as counts (bytes per link
//! and node, shootdown cycles, stalled accesses, scan work, tracker traffic — there is no
//! clock in functional mode; in timing mode the engine also charges them in time through
//! [`PageHost`], see `TimingSim::charge_moves`), and reports per phase
//! what moved where (StarNUMA Table IV's source → destination view), pages and capacity per
//! node, the non-local access share, and how good the profile was against `perfect`:
//! - `profile_accuracy`: share of the phase's memory accesses that go to pages for which the
//!   profile names the same most-frequent socket as perfect knowledge does;
//! - `home_match`: share of the phase's memory accesses that go to pages whose home after the
//!   boundary is the perfect choice (the node with the lowest access-weighted load latency
//!   for this phase's accesses, capacity ignored).
//!
//! Policies: see [`params::PolicyKind`] and the per-policy modules.

pub mod autonuma;
pub mod groups;
pub mod host;
pub mod hydm;
pub mod majority;
pub mod mechanism;
pub mod oracle;
pub mod params;
pub mod rng;
pub mod starnuma;

pub use mechanism::{Costs, MachineInfo};
pub use params::{MigrationSpec, PolicyKind, Resolved};

use crate::profile::{page_profile, Observer, ObserverConfig, PageProfile, ProfilerKind};
use crate::stats::PhaseSummary;
pub use host::PageHost;
use mechanism::{CostParams, Ctx, Move};
use serde::Serialize;
use std::collections::BTreeMap;

enum Policy {
    None,
    Starnuma {
        alg: Box<starnuma::Alg1>,
        groups: groups::Groups,
        t0: bool,
        last: Option<starnuma::Alg1Outcome>,
    },
    Majority(majority::Majority),
    Hydm(Box<hydm::Hydm>),
    Autonuma(autonuma::Autonuma),
    /// Placement is fixed before the run (see [`oracle`]); nothing moves at boundaries.
    OracleStatic,
}

/// Migration figures of one phase (inside each phase record of results.json).
#[derive(Debug, Clone, Serialize)]
pub struct PhaseMigration {
    /// Pages moved at this phase's boundary.
    pub moves: u64,
    pub moves_to: BTreeMap<String, u64>,
    /// Source node → destination node → pages.
    pub moves_from_to: BTreeMap<String, BTreeMap<String, u64>>,
    /// Share of moves whose destination is a memory-only node (StarNUMA Table IV).
    pub pool_move_fraction: f64,
    /// Moves sending a page back to the node it left at its previous move.
    pub ping_pongs: u64,
    /// Moves refused for lack of room.
    pub no_room: u64,
    /// After the boundary.
    pub pages_per_node: BTreeMap<String, u64>,
    pub capacity_pages_per_node: BTreeMap<String, u64>,
    pub footprint_share_per_node: BTreeMap<String, f64>,
    /// Share of this phase's memory accesses not served by the requester's own memory.
    pub non_local_fraction: f64,
    pub profile_accuracy: Option<f64>,
    pub home_match: Option<f64>,
    pub profiler_samples: u64,
    pub tlb_misses: u64,
    pub hinting_faults: u64,
    pub costs: Costs,
    /// Policy-specific state (thresholds, counters).
    pub policy_state: serde_json::Value,
}

/// Run-long migration figures (`migration` in results.json).
#[derive(Debug, Clone, Serialize)]
pub struct RunMigration {
    pub policy: &'static str,
    pub profiler: &'static str,
    pub params: BTreeMap<String, serde_json::Value>,
    pub total_moves: u64,
    pub moves_to: BTreeMap<String, u64>,
    pub moves_from_to: BTreeMap<String, BTreeMap<String, u64>>,
    pub pool_move_fraction: f64,
    pub ping_pongs: u64,
    pub no_room: u64,
    pub costs: Costs,
    /// Access-weighted over phases.
    pub profile_accuracy: Option<f64>,
    pub home_match: Option<f64>,
}

/// Drives profiler + policy + mechanism at phase boundaries.
pub struct Migrator {
    resolved: Resolved,
    policy: Policy,
    mach: MachineInfo,
    cost: CostParams,
    rng: rng::SplitMix64,
    left: Vec<u16>,
    total: RunMigration,
    acc_weight: (f64, f64, u64),
}

fn add_moves(
    to: &mut BTreeMap<String, u64>,
    ft: &mut BTreeMap<String, BTreeMap<String, u64>>,
    mach: &MachineInfo,
    moves: &[Move],
) {
    for m in moves {
        let (f, t) = (&mach.node_names[m.from as usize], &mach.node_names[m.to as usize]);
        *to.entry(t.clone()).or_default() += 1;
        *ft.entry(f.clone()).or_default().entry(t.clone()).or_default() += 1;
    }
}

impl Migrator {
    pub fn new(resolved: &Resolved, machine: &numasim_machine::Machine, page_bytes: u64, seed: u64) -> Self {
        let mach = MachineInfo::from_machine(machine, page_bytes);
        let r = resolved;
        let policy = match r.policy {
            PolicyKind::None => Policy::None,
            PolicyKind::Starnuma | PolicyKind::StarnumaT0 => {
                let t0 = r.policy == PolicyKind::StarnumaT0;
                let p = starnuma::Alg1Params {
                    limit_pages: r.int("migration_limit_pages"),
                    pool_sharers: r.int("pool_sharers").min(u64::from(u32::MAX)) as u32,
                    pool: mach.pool_nodes.first().copied(),
                    socket_node: mach.local_node.clone(),
                    adapt: !t0,
                    hi_min: r.int("hi_min"),
                    hi_max: r.int("hi_max"),
                    lo_max: r.int("lo_max"),
                };
                let (hi, lo) = if t0 {
                    (r.int("hi_sharers"), r.int("lo_sharers"))
                } else {
                    (r.int("hi_start"), r.int("lo_start"))
                };
                Policy::Starnuma {
                    alg: Box::new(starnuma::Alg1::new(p, hi, lo)),
                    groups: groups::Groups::new(r.int("region_bytes") / page_bytes.max(1)),
                    t0,
                    last: None,
                }
            }
            PolicyKind::PerfectBaseline => {
                Policy::Majority(majority::Majority::baseline(r.int("migration_limit_pages")))
            }
            PolicyKind::Tikir => Policy::Majority(majority::Majority::tikir(
                r.int("freeze_intervals"),
                r.int("min_accesses"),
            )),
            PolicyKind::Hydm => {
                let named = r.word("fast_node");
                let fast = if named.is_empty() {
                    mach.kind.iter().position(|k| k == "mcdram" || k == "hbm")
                } else {
                    mach.node_names.iter().position(|n| n == named)
                };
                Policy::Hydm(Box::new(hydm::Hydm::new(
                    r.int("window") as usize,
                    r.float("threshold"),
                    r.int("group_bytes") / page_bytes.max(1),
                    r.int("groups_per_window"),
                    fast,
                    r.int("sample_interval").max(1),
                )))
            }
            PolicyKind::Autonuma => Policy::Autonuma(autonuma::Autonuma::new(
                r.int("max_moves_per_phase"),
                r.float("demote_watermark"),
            )),
            PolicyKind::OracleStatic => Policy::OracleStatic,
        };
        let cost = CostParams {
            // Validated against Shootdown::WORDS; absent (policy `none`) means hardware.
            shootdown: mechanism::Shootdown::from_word(r.word("shootdown")).unwrap_or(mechanism::Shootdown::Hardware),
            shootdown_initiator_cycles: r.int("shootdown_initiator_cycles"),
            shootdown_handler_cycles: r.int("shootdown_handler_cycles"),
            inflight_accesses_per_page: r.int("inflight_accesses_per_page"),
            scan_cycles_per_entry: r.int("scan_cycles_per_entry"),
        };
        let params = r
            .params
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(serde_json::Value::Null)))
            .collect();
        Migrator {
            total: RunMigration {
                policy: r.policy.name(),
                profiler: if r.policy == PolicyKind::None {
                    "none"
                } else {
                    r.profiler.name()
                },
                params,
                total_moves: 0,
                moves_to: BTreeMap::new(),
                moves_from_to: BTreeMap::new(),
                pool_move_fraction: 0.0,
                ping_pongs: 0,
                no_room: 0,
                costs: Costs::default(),
                profile_accuracy: None,
                home_match: None,
            },
            resolved: resolved.clone(),
            policy,
            mach,
            cost,
            rng: rng::SplitMix64::new(seed),
            left: Vec::new(),
            acc_weight: (0.0, 0.0, 0),
        }
    }

    /// The named cost parameters (the timing engine charges moves with them).
    pub fn cost_params(&self) -> &CostParams {
        &self.cost
    }

    pub fn policy(&self) -> PolicyKind {
        self.resolved.policy
    }

    /// The observer to install in the simulator (`None` for policy `none` and the oracle).
    pub fn observer(&self) -> Option<Observer> {
        match self.resolved.policy {
            PolicyKind::None | PolicyKind::OracleStatic => None,
            _ => Some(Observer::new(ObserverConfig {
                kind: self.resolved.profiler,
                sockets: self.mach.sockets,
                sample_interval: self.resolved.int("sample_interval").max(1),
                tlb_entries: self.resolved.int("tlb_entries").max(1) as usize,
                scan_fraction: self.resolved.float("scan_fraction"),
            })),
        }
    }

    /// Runs the boundary after phase number `phase` (1-based); `summary` is that phase's.
    pub fn boundary(&mut self, sim: &mut dyn PageHost, summary: &PhaseSummary, phase: u64) -> PhaseMigration {
        let pages = sim.table().pages();
        let s = self.mach.sockets;
        let active = !matches!(self.policy, Policy::None | Policy::OracleStatic);
        let perfect = PageProfile {
            sockets: s,
            counts: sim.page_stats().phase_counts[..pages * s].to_vec(),
        };
        let (profile, flops, faulted) = match sim.observer_mut() {
            Some(o) if active => {
                let prof = o.profile(&perfect.counts, pages);
                (Some(prof), std::mem::take(&mut o.flops), std::mem::take(&mut o.faulted))
            }
            _ => (None, Vec::new(), Vec::new()),
        };
        let mut ctx = Ctx {
            sim,
            mach: &self.mach,
            phase,
            moves: Vec::new(),
            no_room: 0,
            scanned: 0,
            left: &mut self.left,
            ping_pongs: 0,
        };
        let mut state = serde_json::Value::Null;
        if let Some(prof) = &profile {
            match &mut self.policy {
                Policy::None | Policy::OracleStatic => {}
                Policy::Starnuma { alg, groups, t0, last } => {
                    groups.update(ctx.sim.table());
                    let stats = starnuma::region_stats(groups, prof, *t0);
                    let mut space = starnuma::SimSpace::new(&mut ctx, groups);
                    let out = alg.run(&stats, &mut space, phase, &mut self.rng);
                    ctx.scanned += out.scanned_entries;
                    state = serde_json::to_value(&out).unwrap_or_default();
                    *last = Some(out);
                }
                Policy::Majority(m) => m.decide(&mut ctx, prof),
                Policy::Hydm(h) => {
                    h.decide(&mut ctx, prof, &flops, &faulted);
                    state = serde_json::json!({"promotions": h.promotions, "rollbacks": h.rollbacks, "fast_node": h.fast.map(|n| self.mach.node_names[n].clone())});
                }
                Policy::Autonuma(a) => {
                    a.decide(&mut ctx, prof);
                    state = serde_json::json!({"promotions": a.promotions, "demotions": a.demotions});
                }
            }
        }
        let Ctx {
            moves,
            no_room,
            scanned,
            ping_pongs,
            sim,
            ..
        } = ctx;
        // Give the HyDM buffers back so the observer does not reallocate them.
        if let Some(o) = sim.observer_mut() {
            if o.flops.is_empty() {
                o.flops = flops;
                o.flops.iter_mut().for_each(|f| *f = 0);
            }
            if o.faulted.is_empty() {
                o.faulted = faulted;
            }
        }
        let moved_pages: Vec<u32> = moves.iter().map(|m| m.page).collect();
        let (hint_scanned, obs_counts) = match sim.observer_mut() {
            Some(o) => o.end_phase(pages, &moved_pages, self.cost.inflight_accesses_per_page),
            None => (0, Default::default()),
        };
        let mut costs = mechanism::move_costs(&self.mach, &self.cost, &moves);
        costs.stalled_accesses = obs_counts.stalled_accesses;
        costs.tracker_update_accesses = 2 * obs_counts.tracker_updates;
        costs.scan_entries = scanned + hint_scanned;
        costs.scan_cycles = costs.scan_entries * self.cost.scan_cycles_per_entry;

        let mut moves_to = BTreeMap::new();
        let mut moves_from_to = BTreeMap::new();
        add_moves(&mut moves_to, &mut moves_from_to, &self.mach, &moves);
        let to_pool = moves
            .iter()
            .filter(|m| self.mach.pool_nodes.contains(&(m.to as usize)))
            .count();
        let footprint = pages as u64;
        let used = sim.placement().used_pages().to_vec();
        let by_node = |f: &dyn Fn(usize) -> u64| -> BTreeMap<String, u64> {
            (0..self.mach.nodes)
                .map(|n| (self.mach.node_names[n].clone(), f(n)))
                .collect()
        };
        let pages_per_node = by_node(&|n| used[n]);
        let capacity_pages_per_node = by_node(&|n| sim.placement().capacity_pages(n, footprint));
        let footprint_share_per_node = (0..self.mach.nodes)
            .map(|n| {
                (
                    self.mach.node_names[n].clone(),
                    used[n] as f64 / footprint.max(1) as f64,
                )
            })
            .collect();
        let (profile_accuracy, home_match) = if active {
            let acc = profile.as_ref().map(|p| page_profile::top_agreement(p, &perfect));
            let mut total = 0u64;
            let mut ok = 0u64;
            for p in 0..pages {
                let row = perfect.row(p);
                let t: u64 = row.iter().map(|&c| u64::from(c)).sum();
                if t == 0 {
                    continue;
                }
                total += t;
                if self.mach.best_node(row, |_| true) == Some(sim.home()[p] as usize) {
                    ok += t;
                }
            }
            let hm = if total == 0 { 1.0 } else { ok as f64 / total as f64 };
            let w = summary.llc_misses as f64;
            self.acc_weight.0 += acc.unwrap_or(0.0) * w;
            self.acc_weight.1 += hm * w;
            self.acc_weight.2 += summary.llc_misses;
            (acc, Some(hm))
        } else {
            (None, None)
        };
        let rec = PhaseMigration {
            moves: moves.len() as u64,
            pool_move_fraction: if moves.is_empty() {
                0.0
            } else {
                to_pool as f64 / moves.len() as f64
            },
            moves_to,
            moves_from_to,
            ping_pongs,
            no_room,
            pages_per_node,
            capacity_pages_per_node,
            footprint_share_per_node,
            non_local_fraction: if summary.llc_misses == 0 {
                0.0
            } else {
                1.0 - summary.local_fraction
            },
            profile_accuracy,
            home_match,
            profiler_samples: obs_counts.samples,
            tlb_misses: obs_counts.tlb_misses,
            hinting_faults: obs_counts.hinting_faults,
            costs,
            policy_state: state,
        };
        let t = &mut self.total;
        t.total_moves += rec.moves;
        add_moves(&mut t.moves_to, &mut t.moves_from_to, &self.mach, &moves);
        t.ping_pongs += rec.ping_pongs;
        t.no_room += rec.no_room;
        t.costs.add(&rec.costs);
        rec
    }

    /// Run-long figures.
    pub fn finish(mut self) -> RunMigration {
        let t = &mut self.total;
        let to_pool: u64 = self
            .mach
            .pool_nodes
            .iter()
            .map(|&n| t.moves_to.get(&self.mach.node_names[n]).copied().unwrap_or(0))
            .sum();
        t.pool_move_fraction = if t.total_moves == 0 {
            0.0
        } else {
            to_pool as f64 / t.total_moves as f64
        };
        if self.acc_weight.2 > 0 {
            let w = self.acc_weight.2 as f64;
            if self.resolved.profiler != ProfilerKind::Perfect || self.acc_weight.0 > 0.0 {
                t.profile_accuracy = Some(self.acc_weight.0 / w);
            }
            t.home_match = Some(self.acc_weight.1 / w);
        }
        self.total
    }
}
