//! The machine TOML schema, exactly as written by users (no derived values).
//!
//! Units are part of every key name (`latency_ns`, `bandwidth_gbps`, `capacity_bytes`) and every
//! struct denies unknown fields, so a key with the wrong unit (`latency = 25`) is refused instead of
//! silently ignored. Defaults are only given where the value is conventional (`line_bytes = 64`,
//! `transit_latency_ns = 0`, `forwards = true`). Checks that need more than one field live in
//! [`crate::validate`].

use crate::coherence::Coherence;
use crate::core::CoreSpec;
use crate::dram::{DramKind, DramOverrides, MemoryKind};
use crate::mesh::MeshSpec;
use crate::validate::{
    LINE_BYTES, MAX_BANDWIDTH_GBPS, MAX_CHANNELS, MAX_CORES_PER_SOCKET, MAX_FREQ_GHZ, MAX_LATENCY_NS, MAX_LLC_BYTES,
    MIN_BANDWIDTH_GBPS, MIN_FREQ_GHZ,
};
use numasim_config::param::ParamDef;
use std::collections::BTreeMap;

numasim_config::declare_params! {
    /// Top level of a machine file.
    pub section struct MachineSpec {
        /// machine name
        name: String, unit "-", Check::Words(&[]);
        /// one-line description
        description: String = String::new(), unit "-", Check::Words(&[]);
        /// the directory's protocol for block transfers: moesi (the supplier keeps the line Owned) | mesi (it writes the line back and shares it clean); an experiment's [timing] coherence overrides it
        coherence: Option<Coherence> = None, unit "-", Check::Any, unset "moesi";
        /// the node's processor and cache lookup path; an experiment's [timing] overrides each key it sets
        core: CoreSpec = CoreSpec::default(), unit "-", Check::Any;
        /// named link parameters, referenced by `links[i].type`
        link_types: BTreeMap<String, LinkTypeSpec> = BTreeMap::new(), unit "-", Check::Any;
        /// the sockets
        sockets: Vec<SocketSpec> = Vec::new(), unit "-", Check::Any;
        /// the memory nodes
        memory: Vec<MemorySpec> = Vec::new(), unit "-", Check::Any;
        /// the switches
        switches: Vec<SwitchSpec> = Vec::new(), unit "-", Check::Any;
        /// the links
        links: Vec<LinkSpec> = Vec::new(), unit "-", Check::Any;
        /// an on-chip mesh placing the sockets (quadrants) and their memory
        mesh: Option<MeshSpec> = None, unit "-", Check::Any, unset "none";
    }
}

numasim_config::declare_params! {
    /// `[link_types.<T>]`: parameters links of type T share.
    pub section struct LinkTypeSpec {
        /// per-direction (a→b) bandwidth of links of type T
        bandwidth_gbps: f64, unit "GB/s", Check::Range(MIN_BANDWIDTH_GBPS, MAX_BANDWIDTH_GBPS);
        /// reverse (b→a) bandwidth when asymmetric
        bandwidth_gbps_ba: Option<f64> = None, unit "GB/s", Check::Range(MIN_BANDWIDTH_GBPS, MAX_BANDWIDTH_GBPS), unset "= bandwidth_gbps";
        /// one-way latency
        latency_ns: f64, unit "ns", Check::Above(0.0, MAX_LATENCY_NS);
    }
}

numasim_config::declare_params! {
    /// `[[sockets]]`: one socket (its cores and shared LLC).
    pub section struct SocketSpec {
        /// socket name
        name: String, unit "-", Check::Words(&[]);
        /// cores of the socket
        cores: u32, unit "cores", Check::Range(1.0, MAX_CORES_PER_SOCKET as f64);
        /// core clock
        freq_ghz: f64, unit "GHz", Check::Range(MIN_FREQ_GHZ, MAX_FREQ_GHZ);
        /// shared last-level cache
        llc_bytes: u64, unit "bytes", Check::Range(1.0, MAX_LLC_BYTES as f64);
        /// LLC associativity
        llc_ways: u32, unit "ways", Check::Range(1.0, 1024.0);
        /// cache line (the caches, coherence directory and line statistics model 64-byte lines only)
        line_bytes: u32 = LINE_BYTES, unit "bytes", Check::Range(LINE_BYTES as f64, LINE_BYTES as f64);
        /// added once (one way) when a route passes through the socket
        transit_latency_ns: f64 = 0.0, unit "ns", Check::Range(0.0, MAX_LATENCY_NS);
        /// whether routes between other nodes may pass through
        forwards: bool = true, unit "-", Check::Any;
    }
}

numasim_config::declare_params! {
    /// `[[memory]]`: one memory node.
    pub section struct MemorySpec {
        /// memory node name
        name: String, unit "-", Check::Words(&[]);
        /// dram | cxl-pool | hbm | mcdram | remote-board
        kind: MemoryKind, unit "-", Check::Any;
        /// capacity
        capacity_bytes: u64, unit "bytes", Check::Range(1.0, u64::MAX as f64);
        /// DRAM channels
        channels: u32, unit "channels", Check::Range(1.0, MAX_CHANNELS as f64);
        /// DRAM timing preset: ddr4-2133 | ddr4-2400 | ddr4-2400-cl16 | ddr4-3200 | ddr5-4800 | hbm2 | mcdram | sdram-sunfire | talbot-sim
        dram: DramKind, unit "-", Check::Any;
        /// overrides of the preset's DRAM timings, key by key (`memory[].dram_timing` below)
        dram_timing: Option<DramOverrides> = None, unit "-", Check::Any, unset "preset";
        /// unloaded load latency from an attached socket's core, on-chip time included
        access_latency_ns: f64, unit "ns", Check::Above(0.0, MAX_LATENCY_NS);
        /// socket this memory is local to
        socket: Option<String> = None, unit "-", Check::Words(&[]), unset "none (standalone)";
    }
}

numasim_config::declare_params! {
    /// `[[switches]]`: one switch.
    pub section struct SwitchSpec {
        /// switch name
        name: String, unit "-", Check::Words(&[]);
        /// added once (one way) per route through the switch
        transit_latency_ns: f64, unit "ns", Check::Range(0.0, MAX_LATENCY_NS);
    }
}

numasim_config::declare_params! {
    /// `[[links]]`: one link between two nodes.
    pub section struct LinkSpec {
        /// link name
        name: Option<String> = None, unit "-", Check::Words(&[]), unset "\"a-b\"";
        /// one end (socket, memory or switch)
        a: String, unit "-", Check::Words(&[]);
        /// other end
        b: String, unit "-", Check::Words(&[]);
        /// a key of [link_types]; explicit values below override it
        r#type: Option<String> = None, unit "-", Check::Words(&[]), unset "none";
        /// per-direction (a→b) bandwidth
        bandwidth_gbps: Option<f64> = None, unit "GB/s", Check::Range(MIN_BANDWIDTH_GBPS, MAX_BANDWIDTH_GBPS), unset "from type";
        /// reverse (b→a) bandwidth
        bandwidth_gbps_ba: Option<f64> = None, unit "GB/s", Check::Range(MIN_BANDWIDTH_GBPS, MAX_BANDWIDTH_GBPS), unset "= bandwidth_gbps";
        /// one-way latency
        latency_ns: Option<f64> = None, unit "ns", Check::Above(0.0, MAX_LATENCY_NS), unset "from type";
    }
}

/// The sections of a machine file and their declared keys: (path of the keys, declarations),
/// in the order `numasim params machine` and the parameter reference list them.
pub fn key_sections() -> Vec<(&'static str, Vec<ParamDef>)> {
    // The top level's tables and arrays of tables are sections of their own.
    let top = MachineSpec::defs()
        .into_iter()
        .filter(|d| d.kind != "table" && d.kind != "array")
        .collect();
    let memory = MemorySpec::defs()
        .into_iter()
        .filter(|d| d.name != "dram_timing")
        .collect();
    vec![
        ("", top),
        ("core", CoreSpec::defs()),
        ("link_types.<T>", LinkTypeSpec::defs()),
        ("sockets[]", SocketSpec::defs()),
        ("memory[]", memory),
        ("memory[].dram_timing", DramOverrides::defs()),
        ("switches[]", SwitchSpec::defs()),
        ("links[]", LinkSpec::defs()),
        ("mesh", MeshSpec::defs()),
    ]
}

#[cfg(test)]
mod key_doc_tests {
    use super::key_sections;

    /// Every sub-table of the top level is listed as a section of its own (so `numasim params
    /// machine` is whole: every other key is a declared field, and unknown keys are refused).
    #[test]
    fn every_sub_table_has_its_section() {
        let sections = key_sections();
        for d in super::MachineSpec::defs() {
            let listed = sections
                .iter()
                .any(|(path, _)| path.split(['.', '[']).next() == Some(d.name));
            assert_eq!(listed, d.kind == "table" || d.kind == "array", "{}", d.name);
        }
        let mem = &sections.iter().find(|(p, _)| *p == "memory[]").unwrap().1;
        assert!(mem.iter().all(|d| d.name != "dram_timing"));
    }
}
