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
//! Policies: each is a type implementing [`Policy`] in its own file, listed by one line in
//! the registry (`policies!` below), which generates the closed [`PolicyKind`] (names,
//! summaries, papers, parameter tables) and the enum of policy states the [`Migrator`]
//! dispatches on at boundaries. Parameters are typed structs declared with
//! `numasim_config::declare_params!`.

pub mod groups;
pub mod host;
pub mod mechanism;
pub mod params;
/// The seeded generator of every random choice (a leaf module, re-exported where policies
/// have always found it).
pub use crate::rng;

pub use mechanism::{Costs, MachineInfo};
pub use params::{MigrationSpec, Resolved};

use crate::profile::{page_profile, Observer, PageProfile, ProfilerKind, WindowInputs};
use crate::stats::PhaseSummary;
pub use host::PageHost;
use mechanism::{CostParams, Ctx, Move};
use numasim_config::param::{ParamDef, ParamSet};
use serde::Serialize;
use std::collections::BTreeMap;

/// What the driver does with a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No migration: no profiler, no parameters, nothing at boundaries.
    Off,
    /// Decides moves at every phase boundary from its profiler's profile.
    AtBoundaries,
    /// Places pages once from a first pass over the run (the driver runs the pass named);
    /// nothing at boundaries.
    StaticOracle(FirstPass),
}

/// The first pass a [`Role::StaticOracle`] policy places pages from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstPass {
    /// Every page's accesses per socket over the whole run (`oracle`).
    AccessCounts,
    /// The run's profile from the configured profiler (`profile-static`).
    Profile,
}

/// What a policy sees at a boundary besides the simulator ([`Ctx`]).
pub struct BoundaryInput<'a> {
    pub profile: &'a PageProfile,
    /// The profiler's per-page window inputs (HyDM's flops and page faults).
    pub window: &'a WindowInputs,
    /// 1-based number of the phase that just ended.
    pub phase: u64,
}

/// What a policy is built from besides its parameters.
pub struct PolicyEnv<'a> {
    pub mach: &'a MachineInfo,
    pub page_bytes: u64,
    /// The chosen profiler's sampling interval (1 when it does not sample).
    pub sample_interval: u64,
    /// Processes of the run (1 for one workload; HyDM's unit is then a process).
    pub processes: usize,
}

/// A migration policy. Implemented by one type per file in this module and listed in the
/// registry below.
pub trait Policy: Sized {
    /// The name `[migration] policy = "..."` takes.
    const NAME: &'static str;
    const SUMMARY: &'static str;
    /// Where in the papers it comes from (paper file stem and section, as docs/validation/ cites them).
    const PAPER: &'static str;
    const DEFAULT_PROFILER: ProfilerKind;
    /// Profilers it can read; `None`: every registered profiler.
    const PROFILERS: Option<&'static [ProfilerKind]> = None;
    const ROLE: Role = Role::AtBoundaries;
    type Params: ParamSet;

    fn new(params: &Self::Params, env: &PolicyEnv) -> Self;
    /// Chooses and applies the boundary's moves through `ctx`; returns the policy's state for
    /// the phase record (`policy_state`).
    fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut rng::SplitMix64) -> serde_json::Value;
    /// A pool capacity (fraction of the footprint) the policy asks placement for.
    fn pool_capacity_fraction(_params: &Self::Params) -> Option<f64> {
        None
    }
}

/// The registry: `file: Type, ...;` per line (see `profile`'s for the same shape).
macro_rules! policies {
    ($( $module:ident : $($ty:ident),+ ; )*) => {
        $( pub mod $module; )*

        /// The registered policies, in registry order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum PolicyKind { $($( $ty, )+)* }

        impl PolicyKind {
            pub const ALL: [PolicyKind; [$($(stringify!($ty),)+)*].len()] = [$($(PolicyKind::$ty,)+)*];

            pub fn name(self) -> &'static str {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::NAME, )+)* }
            }
            pub fn summary(self) -> &'static str {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::SUMMARY, )+)* }
            }
            pub fn paper(self) -> &'static str {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::PAPER, )+)* }
            }
            pub fn default_profiler(self) -> ProfilerKind {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::DEFAULT_PROFILER, )+)* }
            }
            fn profiler_subset(self) -> Option<&'static [ProfilerKind]> {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::PROFILERS, )+)* }
            }
            pub fn role(self) -> Role {
                match self { $($( PolicyKind::$ty => <$module::$ty as Policy>::ROLE, )+)* }
            }
            /// Parameters of the policy itself, as declared.
            pub fn params(self) -> Vec<ParamDef> {
                match self { $($( PolicyKind::$ty => <<$module::$ty as Policy>::Params as ParamSet>::defs(), )+)* }
            }
            pub fn pool_capacity_fraction(self, table: &BTreeMap<String, toml::Value>) -> Option<f64> {
                match self {
                    $($( PolicyKind::$ty => <$module::$ty as Policy>::pool_capacity_fraction(
                        &<<$module::$ty as Policy>::Params as ParamSet>::from_table(table)), )+)*
                }
            }
            fn build(self, table: &BTreeMap<String, toml::Value>, env: &PolicyEnv) -> AnyPolicy {
                match self {
                    $($( PolicyKind::$ty => AnyPolicy::$ty(Box::new(<$module::$ty as Policy>::new(
                        &<<$module::$ty as Policy>::Params as ParamSet>::from_table(table), env))), )+)*
                }
            }
        }

        /// The chosen policy's state (boxed: one per run, used once per boundary).
        enum AnyPolicy { $($( $ty(Box<$module::$ty>), )+)* }

        impl AnyPolicy {
            fn decide(&mut self, ctx: &mut Ctx, input: &BoundaryInput, rng: &mut rng::SplitMix64) -> serde_json::Value {
                match self { $($( AnyPolicy::$ty(p) => <$module::$ty as Policy>::decide(p, ctx, input, rng), )+)* }
            }
        }
    };
}

// The registry. A new policy: one file in this directory and one line here.
policies! {
    none: None;
    starnuma: Starnuma, StarnumaT0;
    majority: PerfectBaseline, Tikir;
    hydm: Hydm;
    autonuma: Autonuma;
    oracle: OracleStatic;
    profile_static: ProfileStatic;
}

impl PolicyKind {
    pub fn from_name(name: &str) -> Option<PolicyKind> {
        PolicyKind::ALL.into_iter().find(|p| p.name() == name)
    }
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
    policy: AnyPolicy,
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
    /// Multi-process runs: the threads of each process, so that a shootdown's handler cycles
    /// are counted on the cores of the moved page's process only.
    pub fn set_process_threads(&mut self, threads: Vec<u64>) {
        if threads.len() > 1 {
            self.mach.process_threads = threads;
        }
    }

    /// `processes`: programs of the run (1 for one workload).
    pub fn new(
        resolved: &Resolved,
        machine: &numasim_machine::Machine,
        page_bytes: u64,
        seed: u64,
        processes: usize,
    ) -> Self {
        let mach = MachineInfo::from_machine(machine, page_bytes);
        let r = resolved;
        let env = PolicyEnv {
            mach: &mach,
            page_bytes,
            sample_interval: r.profiler.sample_interval(&r.params).max(1),
            processes,
        };
        let policy = r.policy.build(&r.params, &env);
        let cost = if r.policy.role() == Role::Off {
            CostParams::free()
        } else {
            CostParams::from_table(&r.params)
        };
        let params = r
            .params
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(serde_json::Value::Null)))
            .collect();
        Migrator {
            total: RunMigration {
                policy: r.policy.name(),
                profiler: if r.policy.role() == Role::Off {
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
        (self.resolved.policy.role() == Role::AtBoundaries)
            .then(|| Observer::new(self.resolved.profiler, self.mach.sockets, &self.resolved.params))
    }

    /// Runs the boundary after phase number `phase` (1-based); `summary` is that phase's.
    pub fn boundary(&mut self, sim: &mut dyn PageHost, summary: &PhaseSummary, phase: u64) -> PhaseMigration {
        self.boundary_if(sim, summary, phase, true)
    }

    /// [`Self::boundary`], with `acting` false for a phase that ended without a migration step
    /// (a timed run finishing before its next multiple of `phase_ns`: the timer never fired):
    /// the phase is recorded, the profiler's counters end, and the policy neither decides nor
    /// scans.
    pub fn boundary_if(
        &mut self,
        sim: &mut dyn PageHost,
        summary: &PhaseSummary,
        phase: u64,
        acting: bool,
    ) -> PhaseMigration {
        let pages = sim.table().pages();
        let s = self.mach.sockets;
        let active = acting && self.resolved.policy.role() == Role::AtBoundaries;
        let perfect = PageProfile {
            sockets: s,
            counts: sim.page_stats().phase_counts[..pages * s].to_vec(),
        };
        let (profile, window) = match sim.observer_mut() {
            Some(o) if active => (Some(o.profile(&perfect.counts, pages)), o.take_window()),
            _ => (None, WindowInputs::default()),
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
            let input = BoundaryInput {
                profile: prof,
                window: &window,
                phase,
            };
            state = self.policy.decide(&mut ctx, &input, &mut self.rng);
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
            o.restore_window(window);
        }
        let moved_pages: Vec<u32> = moves.iter().map(|m| m.page).collect();
        let (hint_scanned, obs_counts) = match sim.observer_mut() {
            Some(o) => o.end_phase(pages, &moved_pages, self.cost.inflight_accesses_per_page),
            None => (0, Default::default()),
        };
        let table = sim.table();
        let shift = table.page_shift();
        let process_of = |page: u32| numasim_trace::processes::process_of_vpage(table.vpage(page), shift);
        let mut costs = mechanism::move_costs(&self.mach, &self.cost, &moves, Some(&process_of));
        costs.stalled_accesses = obs_counts.stalled_accesses;
        costs.tracker_update_accesses = 2 * obs_counts.tracker_updates;
        costs.scan_entries = if acting { scanned + hint_scanned } else { 0 };
        costs.scan_cycles = costs.scan_entries * self.cost.scan_cycles_per_entry;

        let mut moves_to = BTreeMap::new();
        let mut moves_from_to = BTreeMap::new();
        add_moves(&mut moves_to, &mut moves_from_to, &self.mach, &moves);
        let to_pool = moves
            .iter()
            .filter(|m| self.mach.pool_nodes.contains(&(m.to as usize)))
            .count();
        let (pages_per_node, capacity_pages_per_node, footprint_share_per_node) = occupancy(&self.mach, &*sim, pages);
        let (profile_accuracy, home_match) = if active {
            score_profile(
                &self.mach,
                &mut self.acc_weight,
                &*sim,
                profile.as_ref(),
                &perfect,
                summary,
            )
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
            non_local_fraction: if summary.counts.llc_misses == 0 {
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

/// Pages on each node, each node's capacity and its share of the footprint, by node name.
#[allow(clippy::type_complexity)]
fn occupancy(
    mach: &MachineInfo,
    sim: &dyn PageHost,
    pages: usize,
) -> (BTreeMap<String, u64>, BTreeMap<String, u64>, BTreeMap<String, f64>) {
    let footprint = pages as u64;
    let used = sim.placement().used_pages().to_vec();
    let by_node = |f: &dyn Fn(usize) -> u64| -> BTreeMap<String, u64> {
        (0..mach.nodes).map(|n| (mach.node_names[n].clone(), f(n))).collect()
    };
    let pages_per_node = by_node(&|n| used[n]);
    let capacity_pages_per_node = by_node(&|n| sim.placement().capacity_pages(n, footprint));
    let footprint_share_per_node = (0..mach.nodes)
        .map(|n| (mach.node_names[n].clone(), used[n] as f64 / footprint.max(1) as f64))
        .collect();
    (pages_per_node, capacity_pages_per_node, footprint_share_per_node)
}

/// How well the phase's profile names each page's top socket (`profile_accuracy`), and the
/// share of accesses whose page sits at its best node by the perfect profile
/// (`home_match`); both weighted by the phase's LLC misses into the run's means.
fn score_profile(
    mach: &MachineInfo,
    acc_weight: &mut (f64, f64, u64),
    sim: &dyn PageHost,
    profile: Option<&PageProfile>,
    perfect: &PageProfile,
    summary: &PhaseSummary,
) -> (Option<f64>, Option<f64>) {
    let pages = perfect.pages();
    let acc = profile.map(|p| page_profile::top_agreement(p, perfect));
    let mut total = 0u64;
    let mut ok = 0u64;
    for p in 0..pages {
        let row = perfect.row(p);
        let t: u64 = row.iter().map(|&c| u64::from(c)).sum();
        if t == 0 {
            continue;
        }
        total += t;
        if mach.best_node(row, |_| true) == Some(sim.home()[p] as usize) {
            ok += t;
        }
    }
    let hm = if total == 0 { 1.0 } else { ok as f64 / total as f64 };
    let w = summary.counts.llc_misses as f64;
    acc_weight.0 += acc.unwrap_or(0.0) * w;
    acc_weight.1 += hm * w;
    acc_weight.2 += summary.counts.llc_misses;
    (acc, Some(hm))
}
