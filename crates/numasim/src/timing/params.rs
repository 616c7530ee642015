//! The `[timing]` section of an experiment: core, cache, interconnect and DRAM parameters.
//!
//! Every key has a default, so `mode = "timing"` alone works. Core and cache defaults are
//! StarNUMA Table I ("4-wide, 256-entry ROB", L1 "32KB ... 8-way ... 4-cycle", L2 "1 MB,
//! 16-way, 14-cycle", LLC "30-cycle"); the LLC size and ways come from the machine file. DRAM
//! timings belong to the machine (each memory node's grade preset, with the machine file's
//! `dram_timing` overrides: [`numasim_machine::DramTimings`]); here are only the controller's
//! policies (row size, refresh, page policy, address mapping), which a study varies per run.

use serde::{Deserialize, Serialize};

/// DRAM page policy: keep a row open after an access (open), or precharge at once (closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DramPagePolicy {
    Open,
    Closed,
}

/// Talbot & Kelly's proxies (timing/node_controller.rs): reads routed through a proxy node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProxyMode {
    None,
    /// Every LLC-miss load to a marked address (`proxy_ranges`, default all) goes via a proxy.
    Basic,
    /// Only a read bounced by a full input buffer is retried via a proxy.
    Reactive,
}

/// The directory's protocol for block transfers: a property of the machine
/// (`coherence = "mesi"` in its file), which `[timing] coherence` overrides.
pub use numasim_machine::Coherence;

/// The core model (`[timing] core`; a machine's `[core] model` when the experiment sets none).
pub use numasim_machine::CoreModel;

/// Where the protocol a run uses was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CoherenceSource {
    /// `[timing] coherence` in the experiment (it overrides the machine's).
    Experiment,
    /// `coherence` in the machine file.
    Machine,
    /// Neither declares one: MOESI.
    Default,
}

/// The protocol a timing run uses and where it came from (results.json `timing.coherence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CoherenceChoice {
    pub protocol: Coherence,
    pub from: CoherenceSource,
}

impl CoherenceChoice {
    /// The experiment's `[timing] coherence` if set, else the machine file's, else MOESI.
    pub fn of(spec: &TimingSpec, machine: &numasim_machine::Machine) -> CoherenceChoice {
        match (spec.coherence, machine.declared_coherence) {
            (Some(protocol), _) => CoherenceChoice {
                protocol,
                from: CoherenceSource::Experiment,
            },
            (None, Some(protocol)) => CoherenceChoice {
                protocol,
                from: CoherenceSource::Machine,
            },
            (None, None) => CoherenceChoice {
                protocol: Coherence::default(),
                from: CoherenceSource::Default,
            },
        }
    }
}

/// `[timing]` as written by the user (strict keys, defaults documented per field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingSpec {
    /// `ooo` (ROB, MSHRs and store buffer below) or `blocking` (the core stops at every miss
    /// until it completes: one outstanding; `rob_entries`, `mshrs` and `store_buffer_entries`
    /// are then unused). Unset: the machine's `[core] model`, else `ooo` (loading an
    /// experiment writes the machine's here, so the resolved experiment records it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<CoreModel>,
    /// Cycles per non-memory instruction (default 0.5: a 4-wide core sustaining IPC 2 between
    /// memory stalls; not a paper figure).
    pub base_cpi: f64,
    /// Reorder-buffer entries W (default 256, Table I).
    pub rob_entries: u32,
    /// Outstanding LLC-miss loads per core M (default 16).
    pub mshrs: u32,
    /// Store-buffer entries per core (default 56, a Skylake-class core; not a paper figure):
    /// at most this many LLC-miss stores in flight, then issue waits for the oldest. Without
    /// it, store traffic had no backpressure and link queues on write-shared data grew without
    /// bound.
    pub store_buffer_entries: u32,
    /// Private L1-D (default 32 KiB, 8 ways, 4 cycles: Table I).
    pub l1_bytes: u64,
    pub l1_ways: u32,
    pub l1_latency_cycles: u32,
    /// Private L2 (default 1 MiB, 16 ways, 14 cycles: Table I); `l2_bytes = 0`: no L2.
    pub l2_bytes: u64,
    pub l2_ways: u32,
    pub l2_latency_cycles: u32,
    /// Shared per-socket LLC access latency (default 30 cycles: Table I).
    pub llc_latency_cycles: u32,
    /// LLC hit latency when it differs from the lookup before a miss (`llc_latency_cycles`):
    /// a hit also reads the line out. Unset: `llc_latency_cycles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llc_hit_cycles: Option<u32>,
    /// A write-through L1: every store that hits it is also written to the LLC, taking this
    /// many cycles (the blocking core waits for it). Unset: a write-back L1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_through_cycles: Option<u32>,
    /// Per-core TLB (default 1536 entries, 12 ways) and the page-walk latency of a miss
    /// (default 30 cycles: walk caches assumed to hit; not a paper figure).
    pub tlb_entries: u32,
    pub tlb_ways: u32,
    pub page_walk_cycles: u32,
    /// Header-only message size (requests, forwards, invalidations, acks), bytes (default 16).
    pub header_bytes: u32,
    /// Latency of the owner socket's cache when it supplies a block transfer (default 0: the
    /// StarNUMA §V-A accounting charges "80ns for memory access and directory lookup" plus the
    /// network and nothing at the owner).
    pub owner_snoop_ns: f64,
    /// `moesi` or `mesi`: whether a block transfer's supplier keeps the line Owned or writes
    /// it back and shares it clean ([`Coherence`]). Unset: the machine file's protocol
    /// (MOESI when it declares none). Set: overrides the machine's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coherence: Option<Coherence>,
    /// Multiplies every link bandwidth (default 1.0; 0.5 halves all links for studies).
    pub link_bandwidth_scale: f64,
    /// DRAM row (page) size per channel, bytes (default 8192).
    pub dram_row_bytes: u64,
    /// Model per-rank refresh (tREFI/tRFC of the node's timings); default true.
    pub dram_refresh: bool,
    /// Write queue per DRAM channel: writes are posted and drain as a batch once this many
    /// wait (default 26: a 32-entry queue at 80 %); 0 schedules each write on arrival.
    pub dram_write_queue_high: u32,
    /// A drain stops when this many writes are left (default 6: 20 % of 32).
    pub dram_write_queue_low: u32,
    /// Read queue per memory node, in requests (default 32): demand reads wait in it and the
    /// controller takes the one that can start first (FR-FCFS). 0 places each read when it
    /// is presented (book-at-issue, no reordering).
    pub dram_read_queue: u32,
    /// FR-FCFS bypass cap: younger reads of a bank may go before an older one this many
    /// times, then it goes first in its bank (default 16; 0: uncapped).
    pub dram_bypass_cap: u32,
    /// Row buffer policy (default open).
    pub dram_page_policy: DramPagePolicy,
    /// Address mapping by bit slices, most significant field first (default `RoBaRaCoCh`:
    /// consecutive lines alternate channels, then walk a row's columns).
    pub dram_address_mapping: String,
    /// How far (ns) a core may run past the slowest core before yielding (default 20). Larger
    /// is faster; cache and directory state, and the order in which shared resources see
    /// requests, may then lag another core's effect by up to this much.
    pub lookahead_ns: f64,
    /// Sampled timing (StarNUMA §IV-A): instructions per thread timed in each phase, after
    /// the warm-up; the rest of the phase runs in the functional engine on the same page
    /// table, LLC state and profiler. Unset: every instruction is timed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_instructions: Option<u64>,
    /// Sampled timing: instructions per thread at the start of each phase run through the
    /// timing engine with their timing discarded, before the timed window (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_instructions: Option<u64>,
    /// Sampled timing: share of each boundary's page moves charged in the next timed window
    /// (default: the window's share of the phase, `sample / phase_instructions`; the paper
    /// charges the first 10 % with 100 M-instruction windows in 1 B-instruction phases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charged_migration_fraction: Option<f64>,
    /// Node-controller cycle time, ns (Talbot & Kelly Table 1.1: 10). Set: each socket's node
    /// controller is a non-pipelined server that handles every message arriving at the node
    /// for the cycles of Table 1.2 (timing/node_controller.rs). Unset: no controller occupancy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_controller_cycle_ns: Option<f64>,
    /// Input buffer: a read request arriving while this many messages wait for the node
    /// controller bounces back to the requester, which retries (paper: 8 = √P). Unset:
    /// infinite buffers. Needs `node_controller_cycle_ns`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_buffer_reads: Option<u32>,
    /// `none` (default), `basic` or `reactive` proxies. Needs `node_controller_cycle_ns`;
    /// `reactive` also needs `input_buffer_reads`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxies: Option<ProxyMode>,
    /// Proxy clusters (paper: 3): sockets split into this many contiguous groups; a block's
    /// proxy for a requester is a node of the requester's group (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_clusters: Option<u32>,
    /// Basic proxies: virtual address ranges `[start, end)` marked for proxying (the data a
    /// workload's paper marks as hot). Unset: every address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_ranges: Option<Vec<[u64; 2]>>,
}

/// `[timing]` keys with no default value (unset means "off"); listed by `numasim params timing`.
pub const OPTIONAL_TIMING_KEYS: &[&str] = &[
    "core",
    "coherence",
    "sample_instructions",
    "warmup_instructions",
    "charged_migration_fraction",
    "node_controller_cycle_ns",
    "input_buffer_reads",
    "proxies",
    "proxy_clusters",
    "proxy_ranges",
    "llc_hit_cycles",
    "write_through_cycles",
];

/// Largest private L1 per core (real ones are tens of KiB).
pub const MAX_L1_BYTES: u64 = 16 << 20;
/// Largest private L2 per core (real ones are at most a few MiB).
pub const MAX_L2_BYTES: u64 = 256 << 20;
/// Largest TLB per core.
pub const MAX_TLB_ENTRIES: u32 = 1 << 20;

impl Default for TimingSpec {
    fn default() -> Self {
        TimingSpec {
            core: None,
            base_cpi: 0.5,
            rob_entries: 256,
            mshrs: 16,
            store_buffer_entries: 56,
            l1_bytes: 32 << 10,
            l1_ways: 8,
            l1_latency_cycles: 4,
            l2_bytes: 1 << 20,
            l2_ways: 16,
            l2_latency_cycles: 14,
            llc_latency_cycles: 30,
            llc_hit_cycles: None,
            write_through_cycles: None,
            tlb_entries: 1536,
            tlb_ways: 12,
            page_walk_cycles: 30,
            header_bytes: 16,
            owner_snoop_ns: 0.0,
            coherence: None,
            link_bandwidth_scale: 1.0,
            dram_row_bytes: 8192,
            dram_refresh: true,
            dram_write_queue_high: 26,
            dram_write_queue_low: 6,
            dram_read_queue: 32,
            dram_bypass_cap: 16,
            dram_page_policy: DramPagePolicy::Open,
            dram_address_mapping: "RoBaRaCoCh".into(),
            lookahead_ns: 20.0,
            sample_instructions: None,
            warmup_instructions: None,
            charged_migration_fraction: None,
            node_controller_cycle_ns: None,
            input_buffer_reads: None,
            proxies: None,
            proxy_clusters: None,
            proxy_ranges: None,
        }
    }
}

impl TimingSpec {
    /// A machine file's `[core]` fills the keys the experiment's `[timing]` does not set
    /// (`set(key)`: whether it sets `key`).
    pub fn with_machine_core(&mut self, core: &numasim_machine::CoreSpec, set: impl Fn(&str) -> bool) {
        macro_rules! fill {
            ($($key:literal => $field:ident = $value:expr),* $(,)?) => {
                $( if let Some(v) = $value { if !set($key) { self.$field = v; } } )*
            };
        }
        fill!(
            "core" => core = core.model.map(Some),
            "base_cpi" => base_cpi = core.base_cpi,
            "l1_bytes" => l1_bytes = core.l1_bytes,
            "l1_ways" => l1_ways = core.l1_ways,
            "l1_latency_cycles" => l1_latency_cycles = core.l1_latency_cycles,
            "l2_bytes" => l2_bytes = core.l2_bytes,
            "l2_ways" => l2_ways = core.l2_ways,
            "l2_latency_cycles" => l2_latency_cycles = core.l2_latency_cycles,
            "llc_latency_cycles" => llc_latency_cycles = core.llc_latency_cycles,
            "llc_hit_cycles" => llc_hit_cycles = core.llc_hit_cycles.map(Some),
            "write_through_cycles" => write_through_cycles = core.write_through_cycles.map(Some),
        );
    }

    /// Whether every key has its default (then the resolved experiment omits `[timing]`).
    pub fn is_default(&self) -> bool {
        *self == TimingSpec::default()
    }

    /// Checks ranges; `Err((key, message))` names the key inside `[timing]`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let pos = |k: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err((k, format!("must be a positive number, got {v}")))
            }
        };
        pos("base_cpi", self.base_cpi)?;
        self.validate_node_controllers()?;
        pos("link_bandwidth_scale", self.link_bandwidth_scale)?;
        if !(self.owner_snoop_ns.is_finite() && self.owner_snoop_ns >= 0.0) {
            return Err(("owner_snoop_ns", "must be a non-negative number".into()));
        }
        if !(self.lookahead_ns.is_finite() && self.lookahead_ns >= 0.0) {
            return Err(("lookahead_ns", "must be a non-negative number".into()));
        }
        for (k, v) in [
            ("rob_entries", self.rob_entries),
            ("mshrs", self.mshrs),
            ("store_buffer_entries", self.store_buffer_entries),
            ("l1_ways", self.l1_ways),
            ("l2_ways", self.l2_ways),
            ("tlb_entries", self.tlb_entries),
            ("tlb_ways", self.tlb_ways),
            ("header_bytes", self.header_bytes),
        ] {
            if v == 0 {
                return Err((k, "must be at least 1".into()));
            }
        }
        if !(1e-3..=1e3).contains(&self.link_bandwidth_scale) {
            return Err(("link_bandwidth_scale", "must be between 0.001 and 1000".into()));
        }
        if self.base_cpi > 1e3 {
            return Err(("base_cpi", "must be at most 1000".into()));
        }
        for (k, v) in [
            ("owner_snoop_ns", self.owner_snoop_ns),
            ("lookahead_ns", self.lookahead_ns),
        ] {
            if v > 1e6 {
                return Err((k, "must be at most 1000000 ns (1 ms; wrong unit?)".into()));
            }
        }
        if self.header_bytes > 4096 {
            return Err(("header_bytes", "must be at most 4096".into()));
        }
        self.validate_private_caches()?;
        self.validate_sampling()?;
        self.validate_dram()
    }

    /// Ranges of the private caches, TLB, ROB, MSHRs and store buffer.
    fn validate_private_caches(&self) -> Result<(), (&'static str, String)> {
        // Every core gets its own L1, L2 and TLB (up to 4096 threads), so these bounds are
        // per core; `TimingSim::new` also checks the total against the thread count.
        for (k, v, max) in [
            ("l1_ways", self.l1_ways, 1024),
            ("l2_ways", self.l2_ways, 1024),
            ("tlb_ways", self.tlb_ways, 1024),
            ("tlb_entries", self.tlb_entries, MAX_TLB_ENTRIES),
        ] {
            if v > max {
                return Err((k, format!("must be at most {max}, got {v}")));
            }
        }
        if self.tlb_ways > self.tlb_entries {
            return Err(("tlb_ways", "must not exceed tlb_entries".into()));
        }
        if self.mshrs > 1024 || self.rob_entries > 1 << 16 {
            return Err(("mshrs", "mshrs ≤ 1024 and rob_entries ≤ 65536".into()));
        }
        if self.store_buffer_entries > 1024 {
            return Err(("store_buffer_entries", "must be at most 1024".into()));
        }
        for (k, v) in [
            ("llc_hit_cycles", self.llc_hit_cycles),
            ("write_through_cycles", self.write_through_cycles),
        ] {
            if v.is_some_and(|c| c > numasim_machine::core::MAX_CORE_CYCLES) {
                return Err((
                    k,
                    format!("must be at most {} cycles", numasim_machine::core::MAX_CORE_CYCLES),
                ));
            }
        }
        for (k, v, max, shown, ways) in [
            ("l1_bytes", self.l1_bytes, MAX_L1_BYTES, "16 MiB", self.l1_ways),
            ("l2_bytes", self.l2_bytes, MAX_L2_BYTES, "256 MiB", self.l2_ways),
        ] {
            if k == "l2_bytes" && v == 0 {
                continue; // no private L2
            }
            if !(64..=max).contains(&v) {
                return Err((k, format!("must be between 64 bytes and {shown} per core, got {v}")));
            }
            if v < 64 * u64::from(ways) {
                return Err((k, "smaller than one set (64 × ways)".into()));
            }
        }
        Ok(())
    }

    /// Sampled timing's keys: only together with `sample_instructions`.
    fn validate_sampling(&self) -> Result<(), (&'static str, String)> {
        if self.sample_instructions == Some(0) {
            return Err((
                "sample_instructions",
                "must be at least 1 (leave it out to time every instruction)".into(),
            ));
        }
        if self.sample_instructions.is_none() {
            for (k, set) in [
                ("warmup_instructions", self.warmup_instructions.is_some()),
                ("charged_migration_fraction", self.charged_migration_fraction.is_some()),
            ] {
                if set {
                    return Err((k, "only applies to sampled timing: set sample_instructions too".into()));
                }
            }
        }
        if let Some(f) = self.charged_migration_fraction {
            if !(f.is_finite() && (0.0..=1.0).contains(&f)) {
                return Err((
                    "charged_migration_fraction",
                    format!("must be between 0 and 1, got {f}"),
                ));
            }
        }
        Ok(())
    }

    /// The DRAM controllers' queues, address mapping and row size.
    fn validate_dram(&self) -> Result<(), (&'static str, String)> {
        if self.dram_read_queue > 4096 {
            return Err(("dram_read_queue", "must be at most 4096".into()));
        }
        if self.dram_write_queue_high > 4096 {
            return Err(("dram_write_queue_high", "must be at most 4096".into()));
        }
        if self.dram_write_queue_high > 0 && self.dram_write_queue_low >= self.dram_write_queue_high {
            return Err(("dram_write_queue_low", "must be below dram_write_queue_high".into()));
        }
        if let Err(e) = super::dram::AddressMap::parse(&self.dram_address_mapping) {
            return Err(("dram_address_mapping", e));
        }
        if self.dram_row_bytes < 64 || !self.dram_row_bytes.is_power_of_two() || self.dram_row_bytes > 1 << 20 {
            return Err(("dram_row_bytes", "must be a power of two between 64 and 1048576".into()));
        }
        Ok(())
    }
}

/// Largest total of private-cache and TLB tags over all cores (8 bytes per line or entry).
pub const MAX_CORE_TAG_BYTES: u64 = 16 << 30;

impl TimingSpec {
    /// Refuses private caches whose tags, over `cores` cores, exceed [`MAX_CORE_TAG_BYTES`]: each
    /// size is bounded per core, but times thousands of cores they could exhaust the host.
    pub fn check_core_caches(&self, cores: usize) -> Result<(), String> {
        let per_core = self.l1_bytes / 64 + self.l2_bytes / 64 + u64::from(self.tlb_entries);
        let total = per_core.saturating_mul(cores as u64).saturating_mul(8);
        if total > MAX_CORE_TAG_BYTES {
            return Err(format!(
                "timing.l1_bytes, l2_bytes and tlb_entries for {cores} cores need {:.1} GiB of cache tags, more than the limit of {} GiB; make them smaller or use fewer threads",
                total as f64 / (1u64 << 30) as f64,
                MAX_CORE_TAG_BYTES >> 30
            ));
        }
        Ok(())
    }
}

/// One line per `[timing]` key for `numasim params timing` (defaults and types come from
/// [`TimingSpec::default`]; a test checks this list and the struct's fields agree).
pub const TIMING_KEY_DOCS: &[(&str, &str)] = &[
    (
        "core",
        "ooo (ROB, MSHRs, store buffer) | blocking (stops at every miss until it completes; one outstanding) (unset: the machine's [core] model, ooo if it gives none)",
    ),
    (
        "base_cpi",
        "cycles per non-memory instruction (0.5: IPC 2 between memory stalls; not a paper figure)",
    ),
    ("rob_entries", "reorder-buffer entries W (StarNUMA Table I)"),
    ("mshrs", "outstanding LLC-miss loads per core"),
    (
        "store_buffer_entries",
        "LLC-miss stores in flight per core before issue waits",
    ),
    ("l1_bytes", "private L1-D size, bytes (Table I)"),
    ("l1_ways", "private L1-D associativity"),
    ("l1_latency_cycles", "private L1-D hit latency, cycles"),
    ("l2_bytes", "private L2 size, bytes (Table I; 0: no L2)"),
    ("l2_ways", "private L2 associativity"),
    ("l2_latency_cycles", "private L2 hit latency, cycles"),
    ("llc_latency_cycles", "shared per-socket LLC access latency, cycles"),
    (
        "llc_hit_cycles",
        "LLC hit latency when a hit takes longer than the lookup before a miss, cycles (unset: llc_latency_cycles)",
    ),
    (
        "write_through_cycles",
        "write-through L1: cycles each store that hits it takes to be written to the LLC (unset: write-back L1)",
    ),
    ("tlb_entries", "per-core TLB entries"),
    ("tlb_ways", "per-core TLB associativity"),
    ("page_walk_cycles", "page-walk latency of a TLB miss, cycles"),
    (
        "header_bytes",
        "size of header-only messages (requests, forwards, invalidations, acks), bytes",
    ),
    (
        "owner_snoop_ns",
        "owner cache latency when it supplies a block transfer, ns",
    ),
    (
        "coherence",
        "moesi | mesi: a block transfer's supplier keeps the line Owned, or writes it back and shares it clean (unset: the machine file's protocol, moesi if it declares none)",
    ),
    (
        "link_bandwidth_scale",
        "multiplies every link bandwidth (0.5 halves all links)",
    ),
    ("dram_row_bytes", "DRAM row (page) size per channel, bytes"),
    (
        "dram_refresh",
        "model per-rank refresh (tREFI/tRFC of the node's DRAM timings)",
    ),
    (
        "dram_write_queue_high",
        "DRAM writes posted per channel before a drain starts (0: no write queue)",
    ),
    (
        "dram_write_queue_low",
        "DRAM writes left in the queue when a drain stops",
    ),
    (
        "dram_read_queue",
        "DRAM read queue per memory node, requests: FR-FCFS over it (0: place each read when presented)",
    ),
    (
        "dram_bypass_cap",
        "FR-FCFS cap: younger reads of a bank that may go before an older one (0: uncapped)",
    ),
    ("dram_page_policy", "DRAM row buffer policy: open | closed"),
    (
        "dram_address_mapping",
        "DRAM address mapping by bit slices, most significant first (RoBaRaCoCh, ChRaBaRoCo, RoBgBaRaCoCh...)",
    ),
    (
        "lookahead_ns",
        "how far a core may run past the slowest before yielding, ns (speed vs. ordering)",
    ),
    (
        "sample_instructions",
        "sampled timing: instructions per thread timed per phase after the warm-up; the rest runs functionally (unset: time everything)",
    ),
    (
        "warmup_instructions",
        "sampled timing: instructions per thread run with timing discarded before each timed window (default 0)",
    ),
    (
        "charged_migration_fraction",
        "sampled timing: share of a boundary's moves charged in the next timed window (default sample/phase)",
    ),
    (
        "node_controller_cycle_ns",
        "Talbot & Kelly node controllers: cycle time, ns; each message occupies its node's controller for Table 1.2's cycles (unset: no occupancy)",
    ),
    (
        "input_buffer_reads",
        "read requests bounce back to the requester while this many messages wait at the node (paper: 8; unset: infinite)",
    ),
    ("proxies", "\"none\", \"basic\" (marked reads via a proxy) or \"reactive\" (bounced reads via a proxy)"),
    ("proxy_clusters", "proxy clusters: a block's proxy is a node of the requester's cluster (default 3)"),
    ("proxy_ranges", "basic proxies: [[start, end], ...] virtual address ranges to proxy (default all)"),
];

impl TimingSpec {
    /// Node-controller, input-buffer and proxy keys (Talbot & Kelly).
    fn validate_node_controllers(&self) -> Result<(), (&'static str, String)> {
        if let Some(c) = self.node_controller_cycle_ns {
            if !(c.is_finite() && c > 0.0 && c <= 1e6) {
                return Err((
                    "node_controller_cycle_ns",
                    format!("must be a positive number of ns up to 1000000, got {c}"),
                ));
            }
        }
        let nc = self.node_controller_cycle_ns.is_some();
        if let Some(b) = self.input_buffer_reads {
            if !(1..=1_000_000).contains(&b) {
                return Err(("input_buffer_reads", format!("must be between 1 and 1000000, got {b}")));
            }
            if !nc {
                return Err((
                    "input_buffer_reads",
                    "needs node_controller_cycle_ns (buffers fill only while a controller is busy)".into(),
                ));
            }
        }
        match self.proxies {
            Some(ProxyMode::Basic) | Some(ProxyMode::Reactive) if !nc => {
                return Err(("proxies", "needs node_controller_cycle_ns".into()));
            }
            Some(ProxyMode::Reactive) if self.input_buffer_reads.is_none() => {
                return Err((
                    "proxies",
                    "reactive proxies need input_buffer_reads (only a bounced read is proxied)".into(),
                ));
            }
            _ => {}
        }
        if let Some(k) = self.proxy_clusters {
            if !(1..=64).contains(&k) {
                return Err(("proxy_clusters", format!("must be between 1 and 64, got {k}")));
            }
        }
        if let Some(r) = &self.proxy_ranges {
            if r.len() > 4096 {
                return Err(("proxy_ranges", "at most 4096 ranges".into()));
            }
            if let Some(bad) = r.iter().find(|[a, b]| a >= b) {
                return Err((
                    "proxy_ranges",
                    format!("each range must be [start, end) with start < end, got {bad:?}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod key_doc_tests {
    #[test]
    fn every_timing_key_is_documented_and_nothing_else() {
        let t = toml::Table::try_from(super::TimingSpec::default()).unwrap();
        let documented: Vec<&str> = super::TIMING_KEY_DOCS.iter().map(|d| d.0).collect();
        let mut fields: Vec<&str> = t.keys().map(String::as_str).collect();
        fields.extend(super::OPTIONAL_TIMING_KEYS);
        let mut a = documented.clone();
        a.sort_unstable();
        let mut b = fields.clone();
        b.sort_unstable();
        assert_eq!(a, b);
    }
}

#[cfg(test)]
mod coherence_tests {
    use super::{Coherence, CoherenceChoice, CoherenceSource, TimingSpec};
    use numasim_machine::Machine;

    /// `[timing] coherence` overrides the machine file's; without either, MOESI.
    #[test]
    fn the_experiment_overrides_the_machine_which_overrides_the_default() {
        let mesi_machine = Machine::load("starnuma16-pool-scaled").unwrap();
        let moesi_machine = Machine::load("sunfire6800").unwrap();
        let unset = TimingSpec::default();
        let set = |c| TimingSpec {
            coherence: Some(c),
            ..TimingSpec::default()
        };
        let of = |s: &TimingSpec, m: &Machine| CoherenceChoice::of(s, m);
        assert_eq!(
            of(&unset, &mesi_machine),
            CoherenceChoice {
                protocol: Coherence::Mesi,
                from: CoherenceSource::Machine
            }
        );
        assert_eq!(of(&unset, &moesi_machine).protocol, Coherence::Moesi);
        assert_eq!(
            of(&set(Coherence::Moesi), &mesi_machine),
            CoherenceChoice {
                protocol: Coherence::Moesi,
                from: CoherenceSource::Experiment
            }
        );
        assert_eq!(of(&set(Coherence::Mesi), &moesi_machine).protocol, Coherence::Mesi);
        let mut bare = moesi_machine.clone();
        bare.declared_coherence = None;
        assert_eq!(
            of(&unset, &bare),
            CoherenceChoice {
                protocol: Coherence::Moesi,
                from: CoherenceSource::Default
            }
        );
    }
}
