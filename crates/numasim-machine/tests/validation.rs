//! Every validation rule reports file, line and key.

use numasim_machine::Machine;

const BASE: &str = r#"name = "t"
description = "test"

[link_types.upi]
bandwidth_gbps = 20.0
latency_ns = 25.0

[[sockets]]
name = "s0"
cores = 2
freq_ghz = 2.0
llc_bytes = 1048576
llc_ways = 8

[[sockets]]
name = "s1"
cores = 2
freq_ghz = 2.0
llc_bytes = 1048576
llc_ways = 8

[[memory]]
name = "m0"
kind = "dram"
capacity_bytes = 1073741824
channels = 1
dram = "ddr4-3200"
access_latency_ns = 80.0
socket = "s0"

[[memory]]
name = "m1"
kind = "dram"
capacity_bytes = 1073741824
channels = 1
dram = "ddr4-3200"
access_latency_ns = 80.0
socket = "s1"

[[links]]
a = "s0"
b = "s1"
type = "upi"
"#;

/// Replaces the first occurrence of `from` (after `after`) and expects an error at (line, key).
fn expect_err(text: &str, line: usize, key: &str, msg: &str) {
    let err = Machine::from_text("m.toml", text).unwrap_err();
    assert_eq!(err.file, "m.toml");
    assert_eq!(err.key, key, "{err}");
    assert_eq!(err.line, Some(line), "{err}");
    assert!(err.message.contains(msg), "{err}");
}

fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .unwrap()
        .0
        + 1
}

#[test]
fn base_is_valid() {
    let m = Machine::from_text("m.toml", BASE).unwrap();
    assert_eq!(m.load_latency_matrix(), vec![vec![80.0, 130.0], vec![130.0, 80.0]]);
}

#[test]
fn duplicate_name_across_kinds() {
    let t = BASE.replace("name = \"m1\"", "name = \"s0\"");
    expect_err(&t, line_of(&t, "name = \"s0\"", 1), "memory[1].name", "duplicate name");
}

#[test]
fn unknown_endpoint() {
    let t = BASE.replace("b = \"s1\"", "b = \"s9\"");
    expect_err(&t, line_of(&t, "b = \"s9\"", 0), "links[0].b", "unknown node `s9`");
}

#[test]
fn self_link() {
    let t = BASE.replace("b = \"s1\"", "b = \"s0\"");
    expect_err(&t, line_of(&t, "b = \"s0\"", 0), "links[0].b", "itself");
}

#[test]
fn bad_numbers() {
    let t = BASE.replace("bandwidth_gbps = 20.0", "bandwidth_gbps = 0.0");
    expect_err(
        &t,
        5,
        "link_types.upi.bandwidth_gbps",
        "must be a number in 0.001..=1000000, got 0",
    );
    let t = BASE.replace("latency_ns = 25.0", "latency_ns = -1.0");
    expect_err(&t, 6, "link_types.upi.latency_ns", "must be a number above 0");
    let t = BASE.replace("latency_ns = 25.0", "latency_ns = nan");
    expect_err(&t, 6, "link_types.upi.latency_ns", "must be a number above 0");
    let t = BASE.replacen("capacity_bytes = 1073741824", "capacity_bytes = 0", 1);
    expect_err(
        &t,
        line_of(&t, "capacity_bytes = 0", 0),
        "memory[0].capacity_bytes",
        "must be an integer of at least 1, got 0",
    );
    let t = BASE.replacen("capacity_bytes = 1073741824", "capacity_bytes = -5", 1);
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert_eq!(err.key, "memory[0].capacity_bytes");
    assert_eq!(err.line, Some(line_of(&t, "capacity_bytes = -5", 0)));
    let t = BASE.replacen("access_latency_ns = 80.0", "access_latency_ns = inf", 1);
    expect_err(
        &t,
        line_of(&t, "= inf", 0),
        "memory[0].access_latency_ns",
        "must be a number above 0",
    );
    let t = BASE.replace("type = \"upi\"", "bandwidth_gbps = 10.0\nlatency_ns = 0.0");
    expect_err(
        &t,
        line_of(&t, "latency_ns = 0.0", 0),
        "links[0].latency_ns",
        "must be a number above 0",
    );
}

#[test]
fn memory_attached_to_unknown_socket() {
    let t = BASE.replace("socket = \"s1\"", "socket = \"s7\"");
    expect_err(
        &t,
        line_of(&t, "socket = \"s7\"", 0),
        "memory[1].socket",
        "unknown socket",
    );
}

#[test]
fn memory_neither_attached_nor_linked() {
    let t = BASE.replace("socket = \"s1\"\n", "");
    expect_err(&t, line_of(&t, "[[memory]]", 1), "memory[1]", "neither attached");
}

#[test]
fn disconnected_socket() {
    let t = BASE.replace("[[links]]\na = \"s0\"\nb = \"s1\"\ntype = \"upi\"\n", "");
    expect_err(
        &t,
        line_of(&t, "[[memory]]", 1),
        "memory[1]",
        "unreachable from socket `s0`",
    );
    // A socket unreachable even though all memory is reachable: third socket without links.
    let extra = "\n[[sockets]]\nname = \"s2\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 65536\nllc_ways = 4\n";
    let t = format!("{BASE}{extra}");
    expect_err(
        &t,
        line_of(&t, "[[sockets]]", 2),
        "sockets[2]",
        "socket `s2` is unreachable from socket `s0`",
    );
}

#[test]
fn pool_memory_unreachable_through_nonforwarding() {
    // s1 does not forward, pool is linked only to s1: unreachable from s0 (s1's own memory m1
    // stays reachable: using a socket's attached memory is not forwarding).
    let t = BASE.replacen("llc_ways = 8\n\n[[memory]]", "llc_ways = 8\nforwards = false\n\n[[memory]]", 1)
        + "\n[[memory]]\nname = \"pool\"\nkind = \"cxl-pool\"\ncapacity_bytes = 1024\nchannels = 1\ndram = \"ddr5-4800\"\naccess_latency_ns = 80.0\n\n[[links]]\na = \"s1\"\nb = \"pool\"\nbandwidth_gbps = 1.0\nlatency_ns = 10.0\n";
    expect_err(
        &t,
        line_of(&t, "[[memory]]", 2),
        "memory[2]",
        "unreachable from socket `s0`",
    );
}

#[test]
fn zero_sockets_and_zero_memory() {
    let err = Machine::from_text("m.toml", "name = \"x\"\n").unwrap_err();
    assert_eq!(err.key, "sockets");
    assert!(err.message.contains("at least one"));
    let t = "name = \"x\"\n[[sockets]]\nname = \"s0\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 65536\nllc_ways = 4\n";
    let err = Machine::from_text("m.toml", t).unwrap_err();
    assert_eq!(err.key, "memory");
    assert!(err.message.contains("at least one"));
}

#[test]
fn unknown_key_with_wrong_unit() {
    let t = BASE.replace("latency_ns = 25.0", "latency = 25");
    expect_err(&t, 6, "link_types.upi.latency", "unknown field");
}

#[test]
fn unknown_link_type() {
    let t = BASE.replace("type = \"upi\"", "type = \"qpi\"");
    expect_err(
        &t,
        line_of(&t, "type = \"qpi\"", 0),
        "links[0].type",
        "unknown link type `qpi`",
    );
}

#[test]
fn unknown_dram_grade_is_refused() {
    let t = BASE.replacen("dram = \"ddr4-3200\"", "dram = \"ddr9\"", 1);
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert_eq!(err.key, "memory[0].dram");
    assert_eq!(err.line, Some(line_of(&t, "ddr9", 0)));
}

#[test]
fn link_without_parameters() {
    let t = BASE.replace("type = \"upi\"", "bandwidth_gbps = 3.0");
    expect_err(&t, line_of(&t, "[[links]]", 0), "links[0]", "needs `type`");
}

#[test]
fn inline_links_errors_point_at_the_entry() {
    let head = "name = \"t\"\nlinks = [\n  { a = \"s0\", b = \"s1\", bandwidth_gbps = 1.0, latency_ns = 1.0 },\n  { a = \"s1\", b = \"s0\", bandwidth_gbps = -2.0, latency_ns = 1.0 },\n]\n";
    let rest = &BASE[BASE.find("[[sockets]]").unwrap()..BASE.find("[[links]]").unwrap()];
    let t = format!("{head}{rest}");
    expect_err(&t, 4, "links[1].bandwidth_gbps", "got -2");
    let t = t.replace("latency_ns = 1.0 },\n]", "latncy_ns = 1.0 },\n]");
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert_eq!(err.key, "links[1].latncy_ns", "{err}");
    assert_eq!(err.line, Some(4), "{err}");
}

#[test]
fn caps_refuse_huge_configs() {
    let mut t = String::from("name = \"big\"\n");
    for i in 0..4097 {
        t.push_str(&format!(
            "[[sockets]]\nname = \"s{i}\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 65536\nllc_ways = 4\n"
        ));
    }
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert_eq!(err.key, "sockets");
    assert!(err.message.contains("limit"), "{err}");
}

#[test]
fn asymmetric_bandwidth_and_override() {
    let t = BASE.replace(
        "type = \"upi\"",
        "type = \"upi\"\nbandwidth_gbps_ba = 5.0\nlatency_ns = 30.0",
    );
    let m = Machine::from_text("m.toml", &t).unwrap();
    assert_eq!(m.links[0].bandwidth_gbps(true), 20.0);
    assert_eq!(m.links[0].bandwidth_gbps(false), 5.0);
    assert_eq!(m.load_latency_ns(0, 1), 140.0);
    let r = m.route_to_memory(1, 0);
    assert_eq!(r.links.len(), 1);
    assert!(!r.links[0].a_to_b, "s1 -> s0 crosses the link b->a");
}

#[test]
fn out_of_range_sizes_and_rates_are_refused_with_their_location() {
    // Regression: `llc_bytes = 2^62` passed `machine show` and aborted `run`; a
    // bandwidth of 1e-20 GB/s behaved like an infinitely fast link.
    let t = BASE.replacen("llc_bytes = 1048576", "llc_bytes = 4611686018427387904", 1);
    expect_err(
        &t,
        line_of(&t, "llc_bytes = 4611", 0),
        "sockets[0].llc_bytes",
        "must be an integer in 1..=1073741824, got 4611686018427387904",
    );
    let t = BASE.replace("bandwidth_gbps = 20.0", "bandwidth_gbps = 1e-20");
    expect_err(&t, 5, "link_types.upi.bandwidth_gbps", "0.001..=");
    let t = BASE.replace("type = \"upi\"", "bandwidth_gbps = 1e-9\nlatency_ns = 5.0");
    expect_err(&t, line_of(&t, "= 1e-9", 0), "links[0].bandwidth_gbps", "0.001..=");
    let t = BASE.replacen("freq_ghz = 2.0", "freq_ghz = 1e-12", 1);
    expect_err(
        &t,
        line_of(&t, "freq_ghz = 1e-12", 0),
        "sockets[0].freq_ghz",
        "must be a number in 0.001..=1000",
    );
    // Every socket within its own limit, but together too large.
    let mut t = BASE.to_string();
    for i in 2..20 {
        t.push_str(&format!(
            "\n[[sockets]]\nname = \"x{i}\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 1073741824\nllc_ways = 4\n"
        ));
    }
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert!(err.message.contains("add up to"), "{err}");
    assert!(err.key.ends_with("llc_bytes") && err.line.is_some(), "{err}");
}

#[test]
fn a_missing_required_key_is_named_with_its_meaning() {
    let t = BASE.replacen("cores = 2\n", "", 1);
    expect_err(
        &t,
        line_of(&t, "[[sockets]]", 0),
        "sockets[0].cores",
        "missing required key `cores` (cores of the socket)",
    );
    let t = BASE.replace("latency_ns = 25.0\n", "");
    expect_err(&t, 4, "link_types.upi.latency_ns", "missing required key `latency_ns`");
}

/// Every section's declared range refuses a value outside it, naming file, line and key.
#[test]
fn declared_ranges_refuse_in_every_section() {
    let cases = [
        ("cores = 2", "cores = 0", "sockets[0].cores"),
        ("channels = 1", "channels = 5000", "memory[0].channels"),
        (
            "type = \"upi\"",
            "type = \"upi\"\nlatency_ns = -3.0",
            "links[0].latency_ns",
        ),
        ("[[sockets]]", "[core]\nl1_ways = 0\n\n[[sockets]]", "core.l1_ways"),
        (
            "socket = \"s0\"",
            "socket = \"s0\"\ndram_timing = { ranks = 99 }",
            "memory[0].dram_timing.ranks",
        ),
    ];
    for (from, to, key) in cases {
        let t = BASE.replacen(from, to, 1);
        let err = Machine::from_text("m.toml", &t).unwrap_err();
        assert_eq!((err.file.as_str(), err.key.as_str()), ("m.toml", key), "{err}");
        assert!(err.line.is_some() && err.message.starts_with("must be"), "{err}");
    }
    let t = BASE.to_string() + "\n[[switches]]\nname = \"w\"\ntransit_latency_ns = -1.0\n";
    let err = Machine::from_text("m.toml", &t).unwrap_err();
    assert_eq!(err.key, "switches[0].transit_latency_ns", "{err}");
}

#[test]
fn line_bytes_other_than_64_is_refused_with_a_reason() {
    for bad in ["32", "128"] {
        let t = BASE.replacen("llc_ways = 8", &format!("llc_ways = 8\nline_bytes = {bad}"), 1);
        expect_err(
            &t,
            line_of(&t, "line_bytes =", 0),
            "sockets[0].line_bytes",
            "must be 64, got",
        );
    }
    let t = BASE.replacen("llc_ways = 8", "llc_ways = 8\nline_bytes = 64", 1);
    assert!(Machine::from_text("m.toml", &t).is_ok());
}
