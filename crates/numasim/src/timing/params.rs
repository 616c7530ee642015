//! The `[timing]` section of an experiment: core, cache, interconnect and DRAM parameters.
//!
//! Every key has a default, so `mode = "timing"` alone works. Core and cache defaults are
//! StarNUMA Table I ("4-wide, 256-entry ROB", L1 "32KB ... 8-way ... 4-cycle", L2 "1 MB,
//! 16-way, 14-cycle", LLC "30-cycle"); the LLC size and ways come from the machine file. DRAM
//! timings come from [`DramTiming::preset`] by the memory node's [`DramKind`]; the burst time
//! is not a free parameter but `line_bytes / channel_peak_gbps`, so the saturated bandwidth of
//! the model approaches exactly the peak the machine file's DRAM grade promises.

use numasim_machine::DramKind;
use serde::{Deserialize, Serialize};

/// `[timing]` as written by the user (strict keys, defaults documented per field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingSpec {
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
    /// Private L2 (default 1 MiB, 16 ways, 14 cycles: Table I).
    pub l2_bytes: u64,
    pub l2_ways: u32,
    pub l2_latency_cycles: u32,
    /// Shared per-socket LLC access latency (default 30 cycles: Table I).
    pub llc_latency_cycles: u32,
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
    /// Multiplies every link bandwidth (default 1.0; 0.5 halves all links for studies).
    pub link_bandwidth_scale: f64,
    /// DRAM row (page) size per channel, bytes (default 8192).
    pub dram_row_bytes: u64,
    /// Model all-bank refresh (tREFI/tRFC of the preset); default false.
    pub dram_refresh: bool,
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
}

/// `[timing]` keys with no default value (unset means "off"); listed by `numasim params timing`.
pub const OPTIONAL_TIMING_KEYS: &[&str] = &[
    "sample_instructions",
    "warmup_instructions",
    "charged_migration_fraction",
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
            tlb_entries: 1536,
            tlb_ways: 12,
            page_walk_cycles: 30,
            header_bytes: 16,
            owner_snoop_ns: 0.0,
            link_bandwidth_scale: 1.0,
            dram_row_bytes: 8192,
            dram_refresh: false,
            lookahead_ns: 20.0,
            sample_instructions: None,
            warmup_instructions: None,
            charged_migration_fraction: None,
        }
    }
}

impl TimingSpec {
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
        for (k, v, max, shown, ways) in [
            ("l1_bytes", self.l1_bytes, MAX_L1_BYTES, "16 MiB", self.l1_ways),
            ("l2_bytes", self.l2_bytes, MAX_L2_BYTES, "256 MiB", self.l2_ways),
        ] {
            if !(64..=max).contains(&v) {
                return Err((k, format!("must be between 64 bytes and {shown} per core, got {v}")));
            }
            if v < 64 * u64::from(ways) {
                return Err((k, "smaller than one set (64 × ways)".into()));
            }
        }
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

/// DRAM timing of one grade, ns. Sources: JEDEC speed-bin typicals (DDR4-2133 15-15-15,
/// DDR4-2400 17-17-17, DDR4-3200 22-22-22, DDR5-4800 40-39-39 with tRAS 32 ns, tREFI 3.9 µs,
/// tRFC 295 ns); HBM2/MCDRAM: 14 ns tCL/tRCD/tRP, tRAS 33 ns (typical HBM2 datasheets);
/// SDRAM at 150 MHz CL3 for the Sun Fire; Talbot & Kelly Table 1.2 "DRAM lookup 20" and
/// "line access 24" cycles of 10 ns as tCL and the burst.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DramTiming {
    pub t_rcd_ns: f64,
    pub t_cl_ns: f64,
    pub t_rp_ns: f64,
    pub t_ras_ns: f64,
    /// Data burst of one line on the channel: `line_bytes / channel_peak_gbps`.
    pub t_bl_ns: f64,
    pub banks: u32,
    pub t_refi_ns: f64,
    pub t_rfc_ns: f64,
}

impl DramTiming {
    pub fn preset(kind: DramKind, line_bytes: u32) -> DramTiming {
        let t_bl_ns = f64::from(line_bytes) / kind.channel_peak_gbps();
        let (t_rcd_ns, t_cl_ns, t_rp_ns, t_ras_ns, banks, t_refi_ns, t_rfc_ns) = match kind {
            DramKind::Ddr4_2133 => (14.06, 14.06, 14.06, 33.0, 16, 7800.0, 350.0),
            DramKind::Ddr4_2400 => (14.16, 14.16, 14.16, 32.0, 16, 7800.0, 350.0),
            DramKind::Ddr4_3200 => (13.75, 13.75, 13.75, 32.0, 16, 7800.0, 350.0),
            DramKind::Ddr5_4800 => (16.25, 16.667, 16.25, 32.0, 32, 3900.0, 295.0),
            DramKind::Hbm2 | DramKind::Mcdram => (14.0, 14.0, 14.0, 33.0, 16, 3900.0, 260.0),
            DramKind::SdramSunfire => (20.0, 20.0, 20.0, 45.0, 4, 15600.0, 70.0),
            DramKind::TalbotSim => (0.0, 200.0, 0.0, 0.0, 1, 1.0e12, 0.0),
        };
        DramTiming {
            t_rcd_ns,
            t_cl_ns,
            t_rp_ns,
            t_ras_ns,
            t_bl_ns,
            banks,
            t_refi_ns,
            t_rfc_ns,
        }
    }
}

/// One line per `[timing]` key for `numasim params timing` (defaults and types come from
/// [`TimingSpec::default`]; a test checks this list and the struct's fields agree).
pub const TIMING_KEY_DOCS: &[(&str, &str)] = &[
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
    ("l2_bytes", "private L2 size, bytes (Table I)"),
    ("l2_ways", "private L2 associativity"),
    ("l2_latency_cycles", "private L2 hit latency, cycles"),
    ("llc_latency_cycles", "shared per-socket LLC access latency, cycles"),
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
        "link_bandwidth_scale",
        "multiplies every link bandwidth (0.5 halves all links)",
    ),
    ("dram_row_bytes", "DRAM row (page) size per channel, bytes"),
    ("dram_refresh", "model all-bank refresh (tREFI/tRFC of the DRAM preset)"),
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
];

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
