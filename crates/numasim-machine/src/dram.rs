//! Memory technologies: what a memory node is ([`MemoryKind`]), which DRAM grade serves it
//! ([`DramKind`], with the per-channel peak bandwidth table) and that grade's timing
//! parameters ([`DramTimings`]: a preset per grade, overridable key by key in the machine file).
//!
//! The DRAM grade is a closed enum rather than a free number so that a typo cannot silently give
//! a machine absurd bandwidth, and so every peak figure in the simulator traces back to one
//! documented table. Peak bandwidth of a node = `channels ×` [`DramKind::channel_peak_gbps`].
//! Timings are data, not code: `[[memory]] dram_timing = { t_cl_ns = 13.32 }` overrides one
//! parameter of the preset, and [`resolve_timings`] checks the result (errors name the key).

use serde::{Deserialize, Serialize};
use std::fmt;

/// What role a memory node plays (used by placement policies and reports). A machine file
/// must give it; the default only fills the parsed struct until the check of required keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryKind {
    /// Ordinary socket-local DRAM.
    #[default]
    Dram,
    /// A CXL-attached shared memory pool (StarNUMA).
    CxlPool,
    /// High-bandwidth memory (HBM stacks).
    Hbm,
    /// Knights Landing on-package MCDRAM.
    Mcdram,
    /// Memory on another system board (board-level NUMA machines).
    RemoteBoard,
}

impl numasim_config::param::ParamKind for MemoryKind {}
impl numasim_config::param::ParamKind for DramKind {}

impl MemoryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Dram => "dram",
            MemoryKind::CxlPool => "cxl-pool",
            MemoryKind::Hbm => "hbm",
            MemoryKind::Mcdram => "mcdram",
            MemoryKind::RemoteBoard => "remote-board",
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// DRAM grade of a memory node's channels. Per-channel peak bandwidths (GB/s = 1e9 B/s):
///
/// | TOML value      | GB/s per channel | derivation |
/// |-----------------|------------------|------------|
/// | `ddr4-2133`     | 17.064           | 2133 MT/s × 8 B (KNL: 6 ch ≈ 102 GB/s, HyDM §II-A "100GB/second") |
/// | `ddr4-2400`     | 19.2             | 2400 MT/s × 8 B (17-17-17 speed bin) |
/// | `ddr4-2400-cl16`| 19.2             | 2400 MT/s × 8 B (16-16-16 speed bin) |
/// | `ddr4-3200`     | 25.6             | 3200 MT/s × 8 B |
/// | `ddr5-4800`     | 38.4             | 4800 MT/s × 8 B (StarNUMA Table I) |
/// | `hbm2`          | 9.6              | Zaourar et al. §3: 32 HBM2 channels = 307.2 GB/s |
/// | `mcdram`        | 50.0             | KNL: 8 MCDRAM devices = 400 GB/s (HyDM §II-A) |
/// | `sdram-sunfire` | 2.4              | UltraSPARC III memory controller: 16 B × 150 MHz (not in the paper) |
/// | `talbot-sim`    | 0.1455           | Talbot & Kelly Table 1.2: 64 B per 44 cycles (DRAM lookup 20 + line access 24) of 10 ns |
///
/// A machine file must give it; the default only fills the parsed struct until the check of
/// required keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum DramKind {
    #[serde(rename = "ddr4-2133")]
    #[default]
    Ddr4_2133,
    #[serde(rename = "ddr4-2400")]
    Ddr4_2400,
    #[serde(rename = "ddr4-2400-cl16")]
    Ddr4_2400Cl16,
    #[serde(rename = "ddr4-3200")]
    Ddr4_3200,
    #[serde(rename = "ddr5-4800")]
    Ddr5_4800,
    #[serde(rename = "hbm2")]
    Hbm2,
    #[serde(rename = "mcdram")]
    Mcdram,
    #[serde(rename = "sdram-sunfire")]
    SdramSunfire,
    #[serde(rename = "talbot-sim")]
    TalbotSim,
}

impl DramKind {
    /// Every grade, for documentation and tests.
    pub const ALL: [DramKind; 9] = [
        DramKind::Ddr4_2133,
        DramKind::Ddr4_2400,
        DramKind::Ddr4_2400Cl16,
        DramKind::Ddr4_3200,
        DramKind::Ddr5_4800,
        DramKind::Hbm2,
        DramKind::Mcdram,
        DramKind::SdramSunfire,
        DramKind::TalbotSim,
    ];

    /// Peak bandwidth of one channel, GB/s (1e9 bytes per second).
    pub fn channel_peak_gbps(self) -> f64 {
        match self {
            DramKind::Ddr4_2133 => 17.064,
            DramKind::Ddr4_2400 | DramKind::Ddr4_2400Cl16 => 19.2,
            DramKind::Ddr4_3200 => 25.6,
            DramKind::Ddr5_4800 => 38.4,
            DramKind::Hbm2 => 9.6,
            DramKind::Mcdram => 50.0,
            DramKind::SdramSunfire => 2.4,
            DramKind::TalbotSim => 64.0 / 440.0,
        }
    }

    /// Clock period of the DDR grades, ns (their timings are whole clocks of it); `None` for
    /// grades given in ns only.
    pub fn tck_ns(self) -> Option<f64> {
        match self {
            DramKind::Ddr4_2133 => Some(0.9375),
            DramKind::Ddr4_2400 | DramKind::Ddr4_2400Cl16 => Some(2.5 / 3.0),
            DramKind::Ddr4_3200 => Some(0.625),
            DramKind::Ddr5_4800 => Some(1.0 / 2.4),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DramKind::Ddr4_2133 => "ddr4-2133",
            DramKind::Ddr4_2400 => "ddr4-2400",
            DramKind::Ddr4_2400Cl16 => "ddr4-2400-cl16",
            DramKind::Ddr4_3200 => "ddr4-3200",
            DramKind::Ddr5_4800 => "ddr5-4800",
            DramKind::Hbm2 => "hbm2",
            DramKind::Mcdram => "mcdram",
            DramKind::SdramSunfire => "sdram-sunfire",
            DramKind::TalbotSim => "talbot-sim",
        }
    }
}

impl fmt::Display for DramKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Timing parameters and organisation of one DRAM channel, JEDEC names, in ns (counts where
/// named so). The data burst of one line is not a parameter: it is `line_bytes /
/// channel_peak_gbps`, so a saturated row-hit stream reaches exactly the grade's peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramTimings {
    /// Activate → column command (tRCD).
    pub t_rcd_ns: f64,
    /// Read column command → first data (CAS latency, tCL / RL).
    pub t_cl_ns: f64,
    /// Precharge → activate (tRP).
    pub t_rp_ns: f64,
    /// Activate → precharge, minimum (tRAS).
    pub t_ras_ns: f64,
    /// Write column command → first data (tCWL / WL).
    pub t_cwl_ns: f64,
    /// Column command → column command, different / same bank group (tCCD_S, tCCD_L).
    pub t_ccd_s_ns: f64,
    pub t_ccd_l_ns: f64,
    /// Activate → activate in one rank, different / same bank group (tRRD_S, tRRD_L).
    pub t_rrd_s_ns: f64,
    pub t_rrd_l_ns: f64,
    /// At most four activates per rank in any window of this length (tFAW).
    pub t_faw_ns: f64,
    /// Read column command → precharge (tRTP).
    pub t_rtp_ns: f64,
    /// End of write data → precharge, write recovery (tWR).
    pub t_wr_ns: f64,
    /// End of write data → read column command (tWTR; the short, other-bank-group value).
    pub t_wtr_ns: f64,
    /// End of read data → start of write data on the bus (read→write turnaround bubble).
    pub t_rtw_ns: f64,
    /// Refresh interval and duration, per rank (tREFI, tRFC); `t_rfc_ns = 0` disables refresh.
    pub t_refi_ns: f64,
    pub t_rfc_ns: f64,
    pub ranks: u32,
    pub bank_groups: u32,
    pub banks_per_group: u32,
}

numasim_config::declare_params! {
    /// `dram_timing` of a `[[memory]]` entry: any subset of [`DramTimings`] keys, each replacing
    /// the preset's value.
    #[derive(PartialEq)]
    pub section struct DramOverrides {
        /// activate → column command (tRCD)
        t_rcd_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// read column command → first data (CAS latency, tCL / RL)
        t_cl_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// precharge → activate (tRP)
        t_rp_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// activate → precharge, minimum (tRAS)
        t_ras_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// write column command → first data (tCWL / WL)
        t_cwl_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// column → column command, different bank group (tCCD_S)
        t_ccd_s_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// column → column command, same bank group (tCCD_L, at least t_ccd_s_ns)
        t_ccd_l_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// activate → activate in one rank, different bank group (tRRD_S)
        t_rrd_s_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// activate → activate in one rank, same bank group (tRRD_L, at least t_rrd_s_ns)
        t_rrd_l_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// at most four activates per rank in any window of this length (tFAW)
        t_faw_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// read column command → precharge (tRTP)
        t_rtp_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// end of write data → precharge, write recovery (tWR)
        t_wr_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// end of write data → read column command (tWTR, other bank group)
        t_wtr_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// end of read data → start of write data on the bus (read→write turnaround)
        t_rtw_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// refresh interval per rank (tREFI; at least t_rfc_ns + 2 × the longest command sequence)
        t_refi_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// refresh duration per rank (tRFC; 0 disables refresh)
        t_rfc_ns: Option<f64> = None, unit "ns", Check::Range(0.0, MAX_DRAM_NS), unset "preset";
        /// ranks per channel
        ranks: Option<u32> = None, unit "ranks", Check::Range(1.0, MAX_RANKS as f64), unset "preset";
        /// bank groups per rank
        bank_groups: Option<u32> = None, unit "groups", Check::Range(1.0, MAX_BANK_GROUPS as f64), unset "preset";
        /// banks per bank group
        banks_per_group: Option<u32> = None, unit "banks", Check::Range(1.0, MAX_BANKS_PER_GROUP as f64), unset "preset";
    }
}

/// Largest DRAM time parameter, ns (tREFI of old parts is 15.6 µs).
pub const MAX_DRAM_NS: f64 = 1.0e6;
/// Largest ranks, bank groups and banks per group per channel.
pub const MAX_RANKS: u32 = 16;
pub const MAX_BANK_GROUPS: u32 = 16;
pub const MAX_BANKS_PER_GROUP: u32 = 64;

/// `n` clock cycles of `tck_ns`, ns.
fn ck(n: f64, tck_ns: f64) -> f64 {
    n * tck_ns
}

impl DramKind {
    /// The preset timings of this grade. DDR4 and DDR5 are JEDEC speed-bin values for x8
    /// parts (1 KiB page) given in clock cycles (tCK 0.9375 / 0.8333 / 0.625 / 0.4167 ns);
    /// DDR4-2400 is the 17-17-17 bin and `ddr4-2400-cl16` the 16-16-16 one; DDR5-4800 is
    /// StarNUMA Table I's grade (40-39-39, tRAS 32 ns). A DDR5 DIMM's two 32-bit subchannels
    /// are one 64-bit channel here (tCCD_S equals the line burst) whose two independent bank
    /// sets, each with its own tRRD and tFAW, stand as two ranks of 8 groups × 4 banks. HBM2/MCDRAM: 14 ns tCL/tRCD/tRP,
    /// tRAS 33 ns and 2 Gb/s-class tCCD/tRRD/tFAW of HBM2 datasheets (both 4 bank groups of
    /// 4). `sdram-sunfire` and `talbot-sim` have no bank groups, activate limits or write
    /// timing (the models they stand for had none). One rank per channel except DDR5.
    pub fn timings(self) -> DramTimings {
        // (tCK, CL, RCD, RP, RAS ns, CWL, CCD_S, CCD_L, RRD_S, RRD_L, FAW, RTP, WR, WTR, RTW,
        //  REFI ns, RFC ns, bank groups, banks per group); cycles unless "ns".
        #[allow(clippy::type_complexity)]
        let ddr: Option<(f64, [f64; 4], [f64; 10], f64, f64, u32, u32)> = match self {
            DramKind::Ddr4_2133 => Some((
                0.9375,
                [15.0, 15.0, 15.0, 33.0],
                [11.0, 4.0, 6.0, 4.0, 6.0, 23.0, 8.0, 16.0, 3.0, 2.0],
                7800.0,
                350.0,
                4,
                4,
            )),
            DramKind::Ddr4_2400 => Some((
                2.5 / 3.0,
                [17.0, 17.0, 17.0, 32.0],
                [12.0, 4.0, 6.0, 4.0, 6.0, 26.0, 9.0, 18.0, 3.0, 2.0],
                7800.0,
                350.0,
                4,
                4,
            )),
            DramKind::Ddr4_2400Cl16 => Some((
                2.5 / 3.0,
                [16.0, 16.0, 16.0, 32.0],
                [12.0, 4.0, 6.0, 4.0, 6.0, 26.0, 9.0, 18.0, 3.0, 2.0],
                7800.0,
                350.0,
                4,
                4,
            )),
            DramKind::Ddr4_3200 => Some((
                0.625,
                [22.0, 22.0, 22.0, 32.0],
                [16.0, 4.0, 8.0, 4.0, 8.0, 34.0, 12.0, 24.0, 4.0, 2.0],
                7800.0,
                350.0,
                4,
                4,
            )),
            DramKind::Ddr5_4800 => Some((
                1.0 / 2.4,
                [40.0, 39.0, 39.0, 32.0],
                [38.0, 4.0, 12.0, 8.0, 12.0, 32.0, 18.0, 72.0, 6.0, 2.0],
                3900.0,
                295.0,
                8,
                4,
            )),
            _ => None,
        };
        if let Some((
            tck,
            [cl, rcd, rp, ras_ns],
            [cwl, ccd_s, ccd_l, rrd_s, rrd_l, faw, rtp, wr, wtr, rtw],
            refi,
            rfc,
            bg,
            bpg,
        )) = ddr
        {
            return DramTimings {
                t_rcd_ns: ck(rcd, tck),
                t_cl_ns: ck(cl, tck),
                t_rp_ns: ck(rp, tck),
                t_ras_ns: ras_ns,
                t_cwl_ns: ck(cwl, tck),
                t_ccd_s_ns: ck(ccd_s, tck),
                t_ccd_l_ns: ck(ccd_l, tck),
                t_rrd_s_ns: ck(rrd_s, tck),
                t_rrd_l_ns: ck(rrd_l, tck),
                t_faw_ns: ck(faw, tck),
                t_rtp_ns: ck(rtp, tck),
                t_wr_ns: ck(wr, tck),
                t_wtr_ns: ck(wtr, tck),
                t_rtw_ns: ck(rtw, tck),
                t_refi_ns: refi,
                t_rfc_ns: rfc,
                ranks: if self == DramKind::Ddr5_4800 { 2 } else { 1 },
                bank_groups: bg,
                banks_per_group: bpg,
            };
        }
        let flat = |rcd: f64, cl: f64, rp: f64, ras: f64, refi: f64, rfc: f64, banks: u32| DramTimings {
            t_rcd_ns: rcd,
            t_cl_ns: cl,
            t_rp_ns: rp,
            t_ras_ns: ras,
            t_cwl_ns: cl,
            t_ccd_s_ns: 0.0,
            t_ccd_l_ns: 0.0,
            t_rrd_s_ns: 0.0,
            t_rrd_l_ns: 0.0,
            t_faw_ns: 0.0,
            t_rtp_ns: 0.0,
            t_wr_ns: 0.0,
            t_wtr_ns: 0.0,
            t_rtw_ns: 0.0,
            t_refi_ns: refi,
            t_rfc_ns: rfc,
            ranks: 1,
            bank_groups: 1,
            banks_per_group: banks,
        };
        match self {
            DramKind::Hbm2 | DramKind::Mcdram => DramTimings {
                t_cwl_ns: 4.0,
                t_ccd_s_ns: 2.0,
                t_ccd_l_ns: 4.0,
                t_rrd_s_ns: 4.0,
                t_rrd_l_ns: 6.0,
                t_faw_ns: 16.0,
                t_rtp_ns: 4.0,
                t_wr_ns: 16.0,
                t_wtr_ns: 4.0,
                t_rtw_ns: 2.0,
                bank_groups: 4,
                banks_per_group: 4,
                ..flat(14.0, 14.0, 14.0, 33.0, 3900.0, 260.0, 16)
            },
            DramKind::SdramSunfire => flat(20.0, 20.0, 20.0, 45.0, 15600.0, 70.0, 4),
            // Talbot & Kelly Table 1.2: "DRAM lookup 20" cycles of 10 ns as tCL; no refresh.
            // The grade's line time (44 cycles) holds the lookup too, so `talbot64` sets
            // `t_cl_ns = 0` and an idle access is Table 1.2's 440 ns.
            _ => flat(0.0, 200.0, 0.0, 0.0, 7800.0, 0.0, 1),
        }
    }
}

impl DramTimings {
    /// Total banks per channel.
    pub fn banks(&self) -> u32 {
        self.ranks * self.bank_groups * self.banks_per_group
    }

    /// The preset with `o`'s keys replaced.
    pub fn with(mut self, o: &DramOverrides) -> DramTimings {
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = o.$f { self.$f = v; } )* };
        }
        set!(
            t_rcd_ns,
            t_cl_ns,
            t_rp_ns,
            t_ras_ns,
            t_cwl_ns,
            t_ccd_s_ns,
            t_ccd_l_ns,
            t_rrd_s_ns,
            t_rrd_l_ns,
            t_faw_ns,
            t_rtp_ns,
            t_wr_ns,
            t_wtr_ns,
            t_rtw_ns,
            t_refi_ns,
            t_rfc_ns,
            ranks,
            bank_groups,
            banks_per_group
        );
        self
    }

    /// Checks the rules that tie timings together (each key's range is its declaration's, checked
    /// on [`DramOverrides`]); `Err((key, message))` names the `dram_timing` key.
    /// `burst_ns`: the line burst (`line_bytes / channel peak`), which a refresh interval must
    /// leave room for.
    pub fn check(&self, burst_ns: f64) -> Result<(), (&'static str, String)> {
        if self.t_ccd_l_ns < self.t_ccd_s_ns {
            return Err((
                "t_ccd_l_ns",
                format!("must be at least t_ccd_s_ns ({} ns)", self.t_ccd_s_ns),
            ));
        }
        if self.t_rrd_l_ns < self.t_rrd_s_ns {
            return Err((
                "t_rrd_l_ns",
                format!("must be at least t_rrd_s_ns ({} ns)", self.t_rrd_s_ns),
            ));
        }
        // A refresh interval must leave room for the longest bank command sequence (a closed-page
        // write: activate, write, recovery, precharge), or a request could never be placed.
        let longest = self.t_rp_ns
            + self.t_rcd_ns
            + self.t_ras_ns
            + self.t_cl_ns.max(self.t_cwl_ns)
            + burst_ns
            + self.t_wr_ns
            + self.t_rtp_ns
            + self.t_faw_ns;
        if self.t_rfc_ns > 0.0 && self.t_refi_ns < self.t_rfc_ns + 2.0 * longest {
            return Err((
                "t_refi_ns",
                format!(
                    "must be at least t_rfc_ns + 2 × the longest command sequence ({:.1} ns), got {}",
                    self.t_rfc_ns + 2.0 * longest,
                    self.t_refi_ns
                ),
            ));
        }
        Ok(())
    }
}

/// The timings of a memory node: `kind`'s preset with `overrides` (each in its declared
/// range) applied, checked.
/// `line_bytes` gives the burst. `Err((key, message))` names the `dram_timing` key at fault.
pub fn resolve_timings(
    kind: DramKind,
    overrides: Option<&DramOverrides>,
    line_bytes: u32,
) -> Result<DramTimings, (&'static str, String)> {
    let t = match overrides {
        Some(o) => {
            o.check_ranges()?;
            kind.timings().with(o)
        }
        None => kind.timings(),
    };
    t.check(f64::from(line_bytes) / kind.channel_peak_gbps())?;
    Ok(t)
}

/// Machine validation's DRAM step: the timings of `spec.memory[i]`, errors located at
/// `memory[i].dram_timing.<key>` in the machine file.
pub(crate) fn check_node_timings(
    src: &numasim_config::Source,
    spec: &crate::spec::MachineSpec,
    i: usize,
) -> Result<DramTimings, numasim_config::ConfigError> {
    let m = &spec.memory[i];
    let line_bytes = spec.sockets.first().map_or(64, |s| s.line_bytes);
    resolve_timings(m.dram, m.dram_timing.as_ref(), line_bytes).map_err(|(key, msg)| {
        let key = if m.dram_timing.is_some() {
            format!("memory[{i}].dram_timing.{key}")
        } else {
            format!("memory[{i}].dram")
        };
        let mut err = crate::locate::error(src, key, msg);
        if m.dram_timing.is_some() {
            if let Some(line) = override_line(&src.text, i, err.key.rsplit('.').next().unwrap_or("")) {
                err.line = Some(line);
            }
        }
        err
    })
}

/// Line of `key` inside the `i`-th `[[memory]]` entry (its `[memory.dram_timing]` sub-table or
/// inline `dram_timing = { ... }`), for an error more precise than the entry's header.
fn override_line(text: &str, i: usize, key: &str) -> Option<usize> {
    let mut entry = None;
    for (n, line) in text.lines().enumerate() {
        let l = line.trim_start();
        if l.starts_with("[[") {
            if l.starts_with("[[memory]]") {
                entry = Some(entry.map_or(0, |e| e + 1));
            } else if entry == Some(i) {
                return None;
            }
            continue;
        }
        if entry == Some(i) {
            let hit = l.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with('='))
                || (l.starts_with("dram_timing") && l.contains(key));
            if hit {
                return Some(n + 1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for d in DramKind::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.as_str()));
            let back: DramKind = serde_json::from_str(&json).unwrap();
            assert_eq!(back, d);
            assert!(d.channel_peak_gbps() > 0.0);
        }
    }

    #[test]
    fn every_preset_passes_its_own_checks() {
        for d in DramKind::ALL {
            resolve_timings(d, None, 64).unwrap_or_else(|e| panic!("{d}: {e:?}"));
        }
    }

    #[test]
    fn ddr4_2400_speed_bins_differ_only_in_cl_rcd_rp() {
        let t17 = DramKind::Ddr4_2400.timings();
        let t16 = DramKind::Ddr4_2400Cl16.timings();
        // 17 and 16 cycles of 0.8333 ns.
        assert!((t17.t_cl_ns - 14.1667).abs() < 1e-3 && (t16.t_cl_ns - 13.3333).abs() < 1e-3);
        let o = DramOverrides {
            t_cl_ns: Some(t17.t_cl_ns),
            t_rcd_ns: Some(t17.t_rcd_ns),
            t_rp_ns: Some(t17.t_rp_ns),
            ..Default::default()
        };
        assert_eq!(t16.with(&o), t17);
        // StarNUMA Table I: DDR5-4800 40-39-39.
        let d5 = DramKind::Ddr5_4800.timings();
        assert!((d5.t_cl_ns - 16.667).abs() < 1e-3 && (d5.t_rcd_ns - 16.25).abs() < 1e-9);
        assert_eq!(d5.banks(), 64, "two subchannels of 32 banks");
    }

    #[test]
    fn bad_overrides_name_their_key() {
        let bad = |o: DramOverrides| resolve_timings(DramKind::Ddr4_3200, Some(&o), 64).unwrap_err().0;
        assert_eq!(
            bad(DramOverrides {
                t_cl_ns: Some(-1.0),
                ..Default::default()
            }),
            "t_cl_ns"
        );
        assert_eq!(
            bad(DramOverrides {
                t_faw_ns: Some(f64::NAN),
                ..Default::default()
            }),
            "t_faw_ns"
        );
        assert_eq!(
            bad(DramOverrides {
                ranks: Some(0),
                ..Default::default()
            }),
            "ranks"
        );
        assert_eq!(
            bad(DramOverrides {
                t_ccd_l_ns: Some(1.0),
                ..Default::default()
            }),
            "t_ccd_l_ns"
        );
        assert_eq!(
            bad(DramOverrides {
                t_refi_ns: Some(400.0),
                ..Default::default()
            }),
            "t_refi_ns"
        );
        // Refresh off: any interval.
        let o = DramOverrides {
            t_refi_ns: Some(400.0),
            t_rfc_ns: Some(0.0),
            ..Default::default()
        };
        assert!(resolve_timings(DramKind::Ddr4_3200, Some(&o), 64).is_ok());
    }

    const MACHINE: &str = "name = \"m\"\ndescription = \"d\"\n[[sockets]]\nname = \"s0\"\ncores = 1\nfreq_ghz = 2.0\nllc_bytes = 1048576\nllc_ways = 8\n\n[[memory]]\nname = \"m0\"\nkind = \"dram\"\ncapacity_bytes = 1073741824\nchannels = 1\ndram = \"ddr4-2400\"\naccess_latency_ns = 80.0\nsocket = \"s0\"\n";

    #[test]
    fn machine_files_override_preset_timings_key_by_key() {
        let m = crate::Machine::from_text("m.toml", MACHINE).unwrap();
        assert_eq!(m.memory_nodes[0].dram_timing, DramKind::Ddr4_2400.timings());
        // As a sub-table and inline: 16-16-16 from the 17-17-17 preset.
        let cl16 = DramKind::Ddr4_2400Cl16.timings();
        let extra = format!(
            "[memory.dram_timing]\nt_cl_ns = {}\nt_rcd_ns = {}\nt_rp_ns = {}\n",
            cl16.t_cl_ns, cl16.t_rcd_ns, cl16.t_rp_ns
        );
        let m = crate::Machine::from_text("m.toml", &(MACHINE.to_string() + &extra)).unwrap();
        assert_eq!(m.memory_nodes[0].dram_timing, cl16);
        let t = MACHINE.replace("socket = \"s0\"\n", "socket = \"s0\"\ndram_timing = { ranks = 2 }\n");
        let m = crate::Machine::from_text("m.toml", &t).unwrap();
        assert_eq!(m.memory_nodes[0].dram_timing.ranks, 2);
    }

    #[test]
    fn bad_machine_file_timings_are_refused_with_file_line_and_key() {
        let t = MACHINE.to_string() + "[memory.dram_timing]\nt_faw_ns = -3.0\n";
        let err = crate::Machine::from_text("m.toml", &t).unwrap_err();
        assert_eq!(
            (err.file.as_str(), err.key.as_str()),
            ("m.toml", "memory[0].dram_timing.t_faw_ns")
        );
        assert_eq!(err.line, Some(t.lines().count()), "{err}");
        assert!(err.message.contains("0..=1000000"), "{err}");
        // An unknown key is refused by name.
        let t = MACHINE.to_string() + "[memory.dram_timing]\nt_cas_ns = 13.0\n";
        let err = crate::Machine::from_text("m.toml", &t).unwrap_err();
        assert!(err.to_string().contains("t_cas_ns"), "{err}");
    }

    #[test]
    fn table_matches_papers() {
        assert!((DramKind::Hbm2.channel_peak_gbps() * 32.0 - 307.2).abs() < 1e-9);
        assert!((DramKind::Mcdram.channel_peak_gbps() * 8.0 - 400.0).abs() < 1e-9);
        assert!((DramKind::Ddr5_4800.channel_peak_gbps() - 38.4).abs() < 1e-12);
    }
}
