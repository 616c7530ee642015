//! Memory technologies: what a memory node is ([`MemoryKind`]) and which DRAM grade serves it
//! ([`DramKind`]), with the per-channel peak bandwidth table.
//!
//! The DRAM grade is a closed enum rather than a free number so that a typo cannot silently give
//! a machine absurd bandwidth, and so every peak figure in the simulator traces back to one
//! documented table. Peak bandwidth of a node = `channels ×` [`DramKind::channel_peak_gbps`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// What role a memory node plays (used by placement policies and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryKind {
    /// Ordinary socket-local DRAM.
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
/// | `ddr4-2400`     | 19.2             | 2400 MT/s × 8 B |
/// | `ddr4-3200`     | 25.6             | 3200 MT/s × 8 B |
/// | `ddr5-4800`     | 38.4             | 4800 MT/s × 8 B (StarNUMA Table I) |
/// | `hbm2`          | 9.6              | Zaourar et al. §3: 32 HBM2 channels = 307.2 GB/s |
/// | `mcdram`        | 50.0             | KNL: 8 MCDRAM devices = 400 GB/s (HyDM §II-A) |
/// | `sdram-sunfire` | 2.4              | UltraSPARC III memory controller: 16 B × 150 MHz (not in the paper) |
/// | `talbot-sim`    | 0.1455           | Talbot & Kelly Table 1.2: 64 B per 44 cycles (DRAM lookup 20 + line access 24) of 10 ns |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DramKind {
    #[serde(rename = "ddr4-2133")]
    Ddr4_2133,
    #[serde(rename = "ddr4-2400")]
    Ddr4_2400,
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
    pub const ALL: [DramKind; 8] = [
        DramKind::Ddr4_2133,
        DramKind::Ddr4_2400,
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
            DramKind::Ddr4_2400 => 19.2,
            DramKind::Ddr4_3200 => 25.6,
            DramKind::Ddr5_4800 => 38.4,
            DramKind::Hbm2 => 9.6,
            DramKind::Mcdram => 50.0,
            DramKind::SdramSunfire => 2.4,
            DramKind::TalbotSim => 64.0 / 440.0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DramKind::Ddr4_2133 => "ddr4-2133",
            DramKind::Ddr4_2400 => "ddr4-2400",
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
    fn table_matches_papers() {
        assert!((DramKind::Hbm2.channel_peak_gbps() * 32.0 - 307.2).abs() < 1e-9);
        assert!((DramKind::Mcdram.channel_peak_gbps() * 8.0 - 400.0).abs() < 1e-9);
        assert!((DramKind::Ddr5_4800.channel_peak_gbps() - 38.4).abs() < 1e-12);
    }
}
