//! Built-in machine presets, embedded from `configs/machines/*.toml` with `include_str!` so
//! `Machine::load("starnuma16-pool")` works from any directory. Each file's header comment cites
//! the paper table/section its numbers come from and how derived values were chosen. A test checks
//! that every file in `configs/machines` is registered here, loads, and that the descriptions
//! below match the files.

/// `(name, file text)`.
static FILES: &[(&str, &str)] = &[
    (
        "starnuma16-baseline",
        include_str!("../../../configs/machines/starnuma16-baseline.toml"),
    ),
    (
        "starnuma16-pool",
        include_str!("../../../configs/machines/starnuma16-pool.toml"),
    ),
    (
        "starnuma16-baseline-scaled",
        include_str!("../../../configs/machines/starnuma16-baseline-scaled.toml"),
    ),
    (
        "starnuma16-pool-scaled",
        include_str!("../../../configs/machines/starnuma16-pool-scaled.toml"),
    ),
    (
        "sunfire6800",
        include_str!("../../../configs/machines/sunfire6800.toml"),
    ),
    ("talbot64", include_str!("../../../configs/machines/talbot64.toml")),
    ("knl-flat", include_str!("../../../configs/machines/knl-flat.toml")),
    ("two-socket", include_str!("../../../configs/machines/two-socket.toml")),
    (
        "neoverse-quadrants",
        include_str!("../../../configs/machines/neoverse-quadrants.toml"),
    ),
    (
        "neoverse-v1-mesh",
        include_str!("../../../configs/machines/neoverse-v1-mesh.toml"),
    ),
    (
        "neoverse-v1-mesh-ddr4",
        include_str!("../../../configs/machines/neoverse-v1-mesh-ddr4.toml"),
    ),
    (
        "neoverse-v1-mesh-2q",
        include_str!("../../../configs/machines/neoverse-v1-mesh-2q.toml"),
    ),
];

/// `(name, description)`, same order as [`FILES`].
static LIST: &[(&str, &str)] = &[
    (
        "starnuma16-baseline",
        "StarNUMA Table I 16-socket HPE Superdome Flex-like system, baseline without pool",
    ),
    (
        "starnuma16-pool",
        "StarNUMA Table I 16-socket HPE Superdome Flex-like system with CXL memory pool",
    ),
    (
        "starnuma16-baseline-scaled",
        "StarNUMA Table II scaled 16-socket system (4 cores/socket), baseline without pool",
    ),
    (
        "starnuma16-pool-scaled",
        "StarNUMA Table II scaled 16-socket system (4 cores/socket) with CXL memory pool",
    ),
    (
        "sunfire6800",
        "Sun Fire 6800: 6 boards x 4 UltraSPARC III @ 750 MHz, 4 GB per board, 225/300 ns local/remote",
    ),
    (
        "talbot64",
        "Talbot & Kelly 64-node cc-NUMA on a full crossbar (10 ns cycles): 570 ns local, 820 ns remote",
    ),
    (
        "knl-flat",
        "Intel Xeon Phi 7250 (KNL) flat mode: 68 cores, 16 GB MCDRAM (400 GB/s) + 96 GB DDR4 (~100 GB/s)",
    ),
    (
        "two-socket",
        "Generic 2-socket server: 2 x 32 cores, 8 DDR5-4800 channels per socket, 3 UPI links; 110/190 ns",
    ),
    (
        "neoverse-quadrants",
        "Neoverse V1 64-core mesh as 4 quadrant NUMA nodes, 8 HBM2 channels each (307.2 GB/s total)",
    ),
    (
        "neoverse-v1-mesh",
        "Neoverse V1 reference: 8x8 mesh, 4 quadrants, 64 x 1 MiB SLC, 32 HBM2 channels (Zaourar Fig. 1a)",
    ),
    (
        "neoverse-v1-mesh-ddr4",
        "Neoverse V1 8x8 mesh, 4 quadrants, one DDR4-2400 controller per quadrant (Zaourar Fig. 1b)",
    ),
    (
        "neoverse-v1-mesh-2q",
        "Lower 2-quadrant subset of the Neoverse V1 mesh: 8x4, 32 cores, 16 HBM2 channels (Zaourar Fig. 2)",
    ),
];

/// Every preset as `(name, description)`.
pub fn list() -> &'static [(&'static str, &'static str)] {
    LIST
}

/// TOML text of a preset.
pub fn get(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Machine;

    #[test]
    fn every_config_file_is_registered_and_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/machines");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("configs/machines exists")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut registered: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        registered.sort();
        assert_eq!(on_disk, registered);
        for (name, desc) in list() {
            let m = Machine::load(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.name, *name);
            assert_eq!(m.description, *desc);
            // The embedded text is the file on disk.
            let disk = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
            assert_eq!(get(name).unwrap(), disk);
        }
        assert_eq!(list().len(), FILES.len());
    }
}
