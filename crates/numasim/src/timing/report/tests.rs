use super::*;

fn names(m: &Machine) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in 0..m.sockets.len() {
        for n in 0..m.memory_nodes.len() {
            let c = m.access_class(s, n).name();
            if !v.contains(&c) {
                v.push(c);
            }
        }
    }
    v.push(numasim_machine::BLOCK_TRANSFER.into());
    v
}

#[test]
fn nominal_latencies_are_starnumas_table() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let names = names(&m);
    let n = NominalLatency::of(&m, &names, 0.0);
    let at = |c: &str| n.by_class_ns[names.iter().position(|x| x == c).unwrap()];
    for (c, ns) in [
        ("local", 80.0),
        ("remote_1hop", 130.0),
        ("remote_3hop", 360.0),
        ("pool", 180.0),
    ] {
        assert!((at(c) - ns).abs() < 1e-9, "{c}: {}", at(c));
    }
    // 413 ns in the paper; 416.375 with distinct-socket legs (timing/mod.rs, and the engine's
    // own unloaded probe in tests/integration/timing_validation.rs).
    assert!(
        (at("block_transfer") - 416.375).abs() < 1e-9,
        "{}",
        at("block_transfer")
    );
    assert_eq!(n.bt_via_pool_ns, Some(280.0));
    let base = Machine::load("starnuma16-baseline-scaled").unwrap();
    assert_eq!(NominalLatency::of(&base, &self::names(&base), 0.0).bt_via_pool_ns, None);
}

#[test]
fn analytical_split_weighs_nominal_latencies_by_class_share() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let names = names(&m);
    let nominal = NominalLatency::of(&m, &names, 0.0);
    let mut counts = TimingCounts {
        classes: vec![ClassSums::default(); names.len()],
        ..Default::default()
    };
    // 3 local loads measured at 100 ns each (unloaded 70 with row hits, 30 waiting), 1 pool
    // load at 300 ns, and 2 block transfers via the pool at 300 ns.
    let set = |c: &mut TimingCounts, name: &str, count: u64, unl_ns: u64, wait_ns: u64| {
        let i = names.iter().position(|x| x == name).unwrap();
        c.classes[i] = ClassSums {
            count,
            unloaded_ps: count * unl_ns * 1000,
            wait_ps: count * wait_ns * 1000,
        };
    };
    set(&mut counts, "local", 3, 70, 30);
    set(&mut counts, "pool", 1, 180, 120);
    set(&mut counts, "block_transfer", 2, 280, 20);
    counts.bt_loads_via_pool = 2;
    let a = amat(&names, &counts, &nominal);
    let total = a.total.unwrap();
    assert!((total - 200.0).abs() < 1e-9, "{total}");
    // Measured: (3·70 + 180 + 2·280) / 6; analytical: (3·80 + 180 + 2·280) / 6.
    assert!((a.unloaded.unwrap() - 950.0 / 6.0).abs() < 1e-9);
    let an = a.analytical.as_ref().unwrap();
    assert!((an.unloaded - 980.0 / 6.0).abs() < 1e-9, "{}", an.unloaded);
    assert!((an.contention - (200.0 - 980.0 / 6.0)).abs() < 1e-9);
    // The paper's contention is the queueing plus the service time off the nominal one.
    assert!((an.queueing - a.contention.unwrap()).abs() < 1e-9);
    assert!((an.service_vs_nominal - (950.0 - 980.0) / 6.0).abs() < 1e-9);
    assert!((an.queueing + an.service_vs_nominal - an.contention).abs() < 1e-9);
    assert_eq!(an.nominal_ns["block_transfer_via_pool"], 280.0);
    assert!(!an.nominal_ns.contains_key("remote_3hop"), "no such loads");
    // The same loads homed at sockets are charged the socket-home 416.375 ns.
    counts.bt_loads_via_pool = 0;
    let b = amat(&names, &counts, &nominal);
    assert!((b.analytical.unwrap().unloaded - (420.0 + 2.0 * 416.375) / 6.0).abs() < 1e-9);
}

/// Loads served faster than nominal (row hits) with little queueing: the paper's
/// contention is negative, and the split says why (service below nominal, queueing ≥ 0).
#[test]
fn negative_analytical_contention_is_service_below_nominal_not_negative_queueing() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let names = names(&m);
    let nominal = NominalLatency::of(&m, &names, 0.0);
    let mut counts = TimingCounts {
        classes: vec![ClassSums::default(); names.len()],
        ..Default::default()
    };
    let i = names.iter().position(|x| x == "local").unwrap();
    // Local nominal 80 ns; measured service 60 ns (row hits) and 5 ns of queueing.
    counts.classes[i] = ClassSums {
        count: 500,
        unloaded_ps: 500 * 60_000,
        wait_ps: 500 * 5_000,
    };
    let an = amat(&names, &counts, &nominal).analytical.unwrap();
    assert!((an.contention - (-15.0)).abs() < 1e-9, "{}", an.contention);
    assert!((an.queueing - 5.0).abs() < 1e-9);
    assert!((an.service_vs_nominal - (-20.0)).abs() < 1e-9);
}

/// No LLC-miss load timed: the means are absent ("no data"), not 0.
#[test]
fn no_timed_loads_give_no_means_rather_than_zero() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let names = names(&m);
    let nominal = NominalLatency::of(&m, &names, 0.0);
    let counts = TimingCounts {
        classes: vec![ClassSums::default(); names.len()],
        ..Default::default()
    };
    let a = amat(&names, &counts, &nominal);
    assert_eq!((a.loads, a.total, a.unloaded, a.contention), (0, None, None, None));
    assert!(a.analytical.is_none() && a.by_class.is_empty());
    let v = serde_json::to_value(&a).unwrap();
    assert!(v["total"].is_null() && v["analytical"].is_null(), "{v}");
}

/// A class mean over fewer than MIN_CLASS_LOADS loads is marked; one over that many is not.
#[test]
fn class_means_from_few_loads_are_marked() {
    let m = Machine::load("starnuma16-pool-scaled").unwrap();
    let names = names(&m);
    let nominal = NominalLatency::of(&m, &names, 0.0);
    let mut counts = TimingCounts {
        classes: vec![ClassSums::default(); names.len()],
        ..Default::default()
    };
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    counts.classes[at("local")] = ClassSums {
        count: MIN_CLASS_LOADS,
        unloaded_ps: MIN_CLASS_LOADS * 80_000,
        wait_ps: 0,
    };
    counts.classes[at("pool")] = ClassSums {
        count: 2,
        unloaded_ps: 2 * 180_000,
        wait_ps: 2 * 19_000_000,
    };
    let a = amat(&names, &counts, &nominal);
    assert!(!a.by_class["local"].few_samples);
    assert!(a.by_class["pool"].few_samples);
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["by_class"]["pool"]["few_samples"], serde_json::json!(true));
    assert!(v["by_class"]["local"].get("few_samples").is_none(), "{v}");
}
