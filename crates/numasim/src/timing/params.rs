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

numasim_config::declare_params! {
    /// `[timing]` as written by the user: every key declared once (type, default, unit, range,
    /// meaning); unknown keys are refused and missing keys take their default.
    #[derive(PartialEq)]
    pub section struct TimingSpec {
        /// ooo (ROB, MSHRs, store buffer) | blocking (stops at every miss until it completes; one outstanding)
        #[serde(skip_serializing_if = "Option::is_none")]
        core: Option<CoreModel> = None, unit "-", Check::Any, unset "the machine's [core] model, else ooo";
        /// cycles per non-memory instruction (0.5: IPC 2 between memory stalls; not a paper figure)
        base_cpi: f64 = 0.5, unit "cycles/instruction", Check::Above(0.0, 1e3);
        /// reorder-buffer entries W (StarNUMA Table I)
        rob_entries: u32 = 256, unit "entries", Check::Range(1.0, 65536.0);
        /// outstanding LLC-miss loads per core
        mshrs: u32 = 16, unit "misses", Check::Range(1.0, 1024.0);
        /// LLC-miss stores in flight per core before issue waits (a Skylake-class core; not a paper figure)
        store_buffer_entries: u32 = 56, unit "entries", Check::Range(1.0, 1024.0);
        /// private L1-D size (Table I; at least one set of 64 × ways)
        l1_bytes: u64 = 32 << 10, unit "bytes", Check::Range(64.0, MAX_L1_BYTES as f64);
        /// private L1-D associativity
        l1_ways: u32 = 8, unit "ways", Check::Range(1.0, 1024.0);
        /// private L1-D hit latency
        l1_latency_cycles: u32 = 4, unit "cycles", Check::Range(0.0, 1e6);
        /// private L2 size (Table I; 0: no L2, else at least one set of 64 × ways)
        l2_bytes: u64 = 1 << 20, unit "bytes", Check::Range(0.0, MAX_L2_BYTES as f64);
        /// private L2 associativity
        l2_ways: u32 = 16, unit "ways", Check::Range(1.0, 1024.0);
        /// private L2 hit latency
        l2_latency_cycles: u32 = 14, unit "cycles", Check::Range(0.0, 1e6);
        /// shared per-socket LLC access latency (Table I)
        llc_latency_cycles: u32 = 30, unit "cycles", Check::Range(0.0, 1e6);
        /// LLC hit latency when a hit takes longer than the lookup before a miss (a hit also reads the line out)
        #[serde(skip_serializing_if = "Option::is_none")]
        llc_hit_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, numasim_machine::core::MAX_CORE_CYCLES as f64), unset "llc_latency_cycles";
        /// write-through L1: cycles each store that hits it takes to be written to the LLC (the blocking core waits for it)
        #[serde(skip_serializing_if = "Option::is_none")]
        write_through_cycles: Option<u32> = None, unit "cycles", Check::Range(0.0, numasim_machine::core::MAX_CORE_CYCLES as f64), unset "write-back L1";
        /// per-core TLB entries
        tlb_entries: u32 = 1536, unit "entries", Check::Range(1.0, MAX_TLB_ENTRIES as f64);
        /// per-core TLB associativity (at most tlb_entries)
        tlb_ways: u32 = 12, unit "ways", Check::Range(1.0, 1024.0);
        /// page-walk latency of a TLB miss (walk caches assumed to hit; not a paper figure)
        page_walk_cycles: u32 = 30, unit "cycles", Check::Range(0.0, 1e6);
        /// size of header-only messages (requests, forwards, invalidations, acks)
        header_bytes: u32 = 16, unit "bytes", Check::Range(1.0, 4096.0);
        /// owner cache latency when it supplies a block transfer (StarNUMA §V-A charges nothing there)
        owner_snoop_ns: f64 = 0.0, unit "ns", Check::Range(0.0, 1e6);
        /// moesi | mesi: a block transfer's supplier keeps the line Owned, or writes it back and shares it clean
        #[serde(skip_serializing_if = "Option::is_none")]
        coherence: Option<Coherence> = None, unit "-", Check::Any, unset "the machine file's protocol, else moesi";
        /// multiplies every link bandwidth (0.5 halves all links)
        link_bandwidth_scale: f64 = 1.0, unit "factor", Check::Range(1e-3, 1e3);
        /// DRAM row (page) size per channel (a power of two)
        dram_row_bytes: u64 = 8192, unit "bytes", Check::Range(64.0, 1048576.0);
        /// model per-rank refresh (tREFI/tRFC of the node's DRAM timings)
        dram_refresh: bool = true, unit "-", Check::Any;
        /// DRAM writes posted per channel before a drain starts (26: a 32-entry queue at 80 %; 0: no write queue)
        dram_write_queue_high: u32 = 26, unit "writes", Check::Range(0.0, 4096.0);
        /// DRAM writes left in the queue when a drain stops (6: 20 % of 32; below dram_write_queue_high)
        dram_write_queue_low: u32 = 6, unit "writes", Check::Range(0.0, 4096.0);
        /// DRAM read queue per memory node: FR-FCFS over it (0: place each read when presented)
        dram_read_queue: u32 = 32, unit "requests", Check::Range(0.0, 4096.0);
        /// FR-FCFS cap: younger reads of a bank that may go before an older one (0: uncapped)
        dram_bypass_cap: u32 = 16, unit "reads", Check::Range(0.0, 1e6);
        /// how a read queue picks its next read, by name: fr-fcfs | fcfs (arrival order)
        #[serde(skip_serializing_if = "Option::is_none")]
        dram_scheduler: Option<String> = None, unit "-", Check::Words(&[]), unset "fr-fcfs";
        /// DRAM row buffer policy: open | closed
        dram_page_policy: DramPagePolicy = DramPagePolicy::Open, unit "-", Check::Any;
        /// DRAM address mapping by bit slices, most significant first (RoBaRaCoCh, ChRaBaRoCo, RoBgBaRaCoCh...)
        dram_address_mapping: String = "RoBaRaCoCh".into(), unit "-", Check::Words(&[]);
        /// how far a core may run past the slowest before yielding (speed vs. ordering)
        lookahead_ns: f64 = 20.0, unit "ns", Check::Range(0.0, 1e6);
        /// sampled timing: instructions per thread timed per phase after the warm-up; the rest runs functionally
        #[serde(skip_serializing_if = "Option::is_none")]
        sample_instructions: Option<u64> = None, unit "instructions", Check::Range(1.0, u64::MAX as f64), unset "time everything";
        /// sampled timing: instructions per thread run with timing discarded before each timed window
        #[serde(skip_serializing_if = "Option::is_none")]
        warmup_instructions: Option<u64> = None, unit "instructions", Check::Range(0.0, u64::MAX as f64), unset "0";
        /// sampled timing: share of a boundary's moves charged in the next timed window
        #[serde(skip_serializing_if = "Option::is_none")]
        charged_migration_fraction: Option<f64> = None, unit "fraction", Check::Range(0.0, 1.0), unset "sample / phase";
        /// Talbot & Kelly node controllers: each message occupies its node's controller for Table 1.2's cycles of this time
        #[serde(skip_serializing_if = "Option::is_none")]
        node_controller_cycle_ns: Option<f64> = None, unit "ns", Check::Above(0.0, 1e6), unset "no occupancy";
        /// read requests bounce back to the requester while this many messages wait at the node (paper: 8)
        #[serde(skip_serializing_if = "Option::is_none")]
        input_buffer_reads: Option<u32> = None, unit "messages", Check::Range(1.0, 1e6), unset "infinite";
        /// none | basic (marked reads via a proxy) | reactive (bounced reads via a proxy)
        #[serde(skip_serializing_if = "Option::is_none")]
        proxies: Option<ProxyMode> = None, unit "-", Check::Any, unset "none";
        /// proxy clusters: a block's proxy is a node of the requester's cluster
        #[serde(skip_serializing_if = "Option::is_none")]
        proxy_clusters: Option<u32> = None, unit "clusters", Check::Range(1.0, 64.0), unset "3";
        /// basic proxies: [[start, end], ...] virtual address ranges to proxy (at most 4096)
        #[serde(skip_serializing_if = "Option::is_none")]
        proxy_ranges: Option<Vec<[u64; 2]>> = None, unit "addresses", Check::Any, unset "every address";
    }
}

impl numasim_config::param::ParamKind for DramPagePolicy {}
impl numasim_config::param::ParamKind for ProxyMode {}

/// Largest private L1 per core (real ones are tens of KiB).
pub const MAX_L1_BYTES: u64 = 16 << 20;
/// Largest private L2 per core (real ones are at most a few MiB).
pub const MAX_L2_BYTES: u64 = 256 << 20;
/// Largest TLB per core.
pub const MAX_TLB_ENTRIES: u32 = 1 << 20;

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

    /// Checks the declared ranges, then the rules that tie keys together; `Err((key,
    /// message))` names the key inside `[timing]`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        self.check_ranges()?;
        if self.tlb_ways > self.tlb_entries {
            return Err(("tlb_ways", "must not exceed tlb_entries".into()));
        }
        // Every core gets its own L1, L2 and TLB (up to 4096 threads), so the sizes are
        // bounded per core; `TimingSim::new` also checks the total against the thread count.
        for (k, v, ways) in [
            ("l1_bytes", self.l1_bytes, self.l1_ways),
            ("l2_bytes", self.l2_bytes, self.l2_ways),
        ] {
            if v != 0 && v < 64 * u64::from(ways) {
                return Err((k, "smaller than one set (64 × ways)".into()));
            }
        }
        self.validate_sampling()?;
        self.validate_node_controllers()?;
        if self.dram_write_queue_high > 0 && self.dram_write_queue_low >= self.dram_write_queue_high {
            return Err(("dram_write_queue_low", "must be below dram_write_queue_high".into()));
        }
        if let Err(e) = super::dram_scheduler::by_name(self.dram_scheduler.as_deref()) {
            return Err(("dram_scheduler", e.to_string()));
        }
        if let Err(e) = super::dram::AddressMap::parse(&self.dram_address_mapping) {
            return Err(("dram_address_mapping", e.to_string()));
        }
        if !self.dram_row_bytes.is_power_of_two() {
            return Err(("dram_row_bytes", "must be a power of two".into()));
        }
        Ok(())
    }

    /// Sampled timing's keys: only together with `sample_instructions`.
    fn validate_sampling(&self) -> Result<(), (&'static str, String)> {
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
        Ok(())
    }
}

/// Largest total of private-cache and TLB tags over all cores (8 bytes per line or entry).
pub const MAX_CORE_TAG_BYTES: u64 = 16 << 30;

impl TimingSpec {
    /// Refuses private caches whose tags, over `cores` cores, exceed [`MAX_CORE_TAG_BYTES`]: each
    /// size is bounded per core, but times thousands of cores they could exhaust the host.
    pub fn check_core_caches(&self, cores: usize) -> Result<(), super::SetupError> {
        let per_core = self.l1_bytes / 64 + self.l2_bytes / 64 + u64::from(self.tlb_entries);
        let total = per_core.saturating_mul(cores as u64).saturating_mul(8);
        if total > MAX_CORE_TAG_BYTES {
            return Err(super::SetupError::CoreTags {
                cores,
                gib: total as f64 / (1u64 << 30) as f64,
                limit_gib: MAX_CORE_TAG_BYTES >> 30,
            });
        }
        Ok(())
    }
}

impl TimingSpec {
    /// Node-controller, input-buffer and proxy keys (Talbot & Kelly).
    fn validate_node_controllers(&self) -> Result<(), (&'static str, String)> {
        let nc = self.node_controller_cycle_ns.is_some();
        if self.input_buffer_reads.is_some() && !nc {
            return Err((
                "input_buffer_reads",
                "needs node_controller_cycle_ns (buffers fill only while a controller is busy)".into(),
            ));
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
