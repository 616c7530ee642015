//! Derived latencies of the presets, asserted exactly against the papers' figures.

use numasim_machine::{Machine, NodeRef};

fn starnuma_expected(s: usize, m: usize) -> f64 {
    if m == 16 {
        180.0
    } else if s == m {
        80.0
    } else if s / 4 == m / 4 {
        130.0
    } else {
        360.0
    }
}

#[test]
fn starnuma_matrices_are_exact() {
    for name in [
        "starnuma16-baseline",
        "starnuma16-pool",
        "starnuma16-baseline-scaled",
        "starnuma16-pool-scaled",
    ] {
        let m = Machine::load(name).unwrap();
        let pool = name.contains("pool");
        assert_eq!(m.num_sockets(), 16);
        assert_eq!(m.num_memory_nodes(), if pool { 17 } else { 16 });
        let matrix = m.load_latency_matrix();
        for (s, row) in matrix.iter().enumerate() {
            for (j, &lat) in row.iter().enumerate() {
                assert_eq!(lat, starnuma_expected(s, j), "{name}: s{s} -> mem {j}");
            }
        }
        // Routes never pass through the pool, and inter-chassis routes cross 3 links.
        for a in 0..16 {
            for b in 0..16 {
                let r = m.route_between_sockets(a, b);
                assert!(
                    !r.nodes.iter().any(|n| matches!(n, NodeRef::Memory(_))),
                    "{name} {a}->{b}"
                );
                let expect = if a == b {
                    0
                } else if a / 4 == b / 4 {
                    1
                } else {
                    3
                };
                assert_eq!(r.hops, expect);
            }
            assert_eq!(m.hops(a, a), 0);
            assert_eq!(m.nearest_memory_order(a)[0], a);
            if pool {
                assert_eq!(m.nearest_memory_order(a)[4], 16, "pool is 5th nearest for {a}");
            }
        }
    }
}

#[test]
fn starnuma_table_values() {
    let full = Machine::load("starnuma16-pool").unwrap();
    assert_eq!(full.total_cores(), 448);
    assert_eq!(full.sockets[0].llc_bytes, 56 << 20);
    assert!((full.peak_bandwidth_gbps(0) - 6.0 * 38.4).abs() < 1e-9);
    assert_eq!(full.memory_nodes[16].capacity_bytes, 768 << 30);
    assert_eq!(full.links.len(), 24 + 16 + 24 + 16);
    let scaled = Machine::load("starnuma16-pool-scaled").unwrap();
    assert_eq!(scaled.total_cores(), 64);
    assert_eq!(scaled.memory_nodes[16].channels, 2);
    assert!(scaled
        .links
        .iter()
        .all(|l| l.bandwidth_gbps_ab == 3.0 || l.bandwidth_gbps_ab == 6.0));
}

#[test]
fn sunfire_local_remote() {
    let m = Machine::load("sunfire6800").unwrap();
    for s in 0..6 {
        for j in 0..6 {
            assert_eq!(m.load_latency_ns(s, j), if s == j { 225.0 } else { 300.0 });
        }
    }
    assert_eq!(m.total_cores(), 24);
}

#[test]
fn other_presets() {
    let t = Machine::load("talbot64").unwrap();
    assert_eq!(t.num_sockets(), 64);
    assert_eq!(t.load_latency_ns(0, 0), 570.0);
    assert_eq!(t.load_latency_ns(0, 63), 820.0);
    assert_eq!(t.core.model, Some(numasim_machine::CoreModel::Blocking));
    assert_eq!(t.core.llc_latency_cycles, Some(8));
    let k = Machine::load("knl-flat").unwrap();
    assert_eq!(k.load_latency_matrix(), vec![vec![130.0, 150.0]]);
    assert!((k.peak_bandwidth_gbps(1) - 400.0).abs() < 1e-9);
    let two = Machine::load("two-socket").unwrap();
    assert_eq!(two.load_latency_matrix(), vec![vec![110.0, 190.0], vec![190.0, 110.0]]);
    let n = Machine::load("neoverse-quadrants").unwrap();
    assert_eq!(n.load_latency_ns(0, 0), 120.0);
    assert_eq!(n.load_latency_ns(0, 1), 131.0);
    assert_eq!(n.load_latency_ns(0, 3), 142.0);
    let total: f64 = n.peak_bandwidths_gbps().iter().sum();
    assert!((total - 307.2).abs() < 1e-9);
}

#[test]
fn summary_has_documented_fields() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let v = serde_json::to_value(m.summary()).unwrap();
    for key in [
        "name",
        "sockets",
        "socket_details",
        "memory_nodes",
        "switches",
        "links",
        "routes",
        "load_latency_ns",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["memory_nodes"][16]["attached_socket"], serde_json::Value::Null);
    assert_eq!(v["memory_nodes"][0]["attached_socket"], "s0");
    assert_eq!(v["load_latency_ns"][0][5], 360.0);
    let r = &v["routes"][5];
    assert_eq!(r["path"], serde_json::json!(["s0", "c0a", "c1a", "s5", "m5"]));
    assert_eq!(r["hops"], 3);
}

#[test]
fn load_from_path_and_unknown_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.toml");
    std::fs::write(&p, numasim_machine::presets::get("two-socket").unwrap()).unwrap();
    assert_eq!(Machine::load(p.to_str().unwrap()).unwrap().name, "two-socket");
    let err = Machine::load("no-such-machine").unwrap_err();
    assert!(err.message.contains("starnuma16-pool"), "{err}");
}

#[test]
fn routes_are_deterministic() {
    let a = Machine::load("starnuma16-pool").unwrap();
    let b = Machine::load("starnuma16-pool").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.summary().to_json_pretty(), b.summary().to_json_pretty());
}

/// Every preset declares its directory's protocol; the StarNUMA presets declare the
/// artifact's MESI-style one, and the summary (`machine show`, machine.json) carries it.
#[test]
fn every_preset_declares_its_coherence_protocol() {
    use numasim_machine::Coherence;
    for (name, _) in numasim_machine::presets::list() {
        let m = Machine::load(name).unwrap();
        let declared = m
            .declared_coherence
            .unwrap_or_else(|| panic!("{name} declares no coherence"));
        let want = if name.starts_with("starnuma16") || *name == "two-socket" || *name == "knl-flat" {
            Coherence::Mesi
        } else {
            Coherence::Moesi
        };
        assert_eq!(declared, want, "{name}");
        let v = serde_json::to_value(m.summary()).unwrap();
        assert_eq!(v["coherence"], want.name(), "{name}");
        assert_eq!(v["coherence_declared"], true, "{name}");
    }
}

/// A machine file without `coherence` gets MOESI, marked as not declared; a wrong value is
/// refused naming the key.
#[test]
fn coherence_defaults_to_moesi_and_bad_values_name_the_key() {
    let text = numasim_machine::presets::get("two-socket").unwrap();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("coherence"))
        .collect::<Vec<_>>()
        .join("\n");
    let m = Machine::from_text("m.toml", &without).unwrap();
    assert_eq!(m.declared_coherence, None);
    assert_eq!(m.coherence(), numasim_machine::Coherence::Moesi);
    assert_eq!(serde_json::to_value(m.summary()).unwrap()["coherence_declared"], false);
    let bad = text.replace("coherence = \"mesi\"", "coherence = \"mesif\"");
    let e = Machine::from_text("m.toml", &bad).unwrap_err().to_string();
    assert!(e.contains("m.toml") && e.contains("coherence"), "{e}");
}
