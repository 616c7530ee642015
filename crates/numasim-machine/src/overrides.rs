//! Overrides of a machine's keys (`--set machine.link_types.cxl.latency_ns=100`, sweep axes
//! over `machine.*`), and named shortcuts for the questions users ask of a machine.
//!
//! An override is a key path of the machine file. Entries of `sockets`, `memory`, `switches`
//! and `links` are selected by name (`memory.pool.access_latency_ns`,
//! `switches.c0a.transit_latency_ns`, `links.s0-pool.bandwidth_gbps`; a link without a `name`
//! is called `a-b`). Overrides are applied to the file's text and the result is parsed and
//! validated by exactly the code that reads machine files, so a misspelt key, a wrong type or an
//! out-of-range value is refused as it would be in the file, naming the override.
//!
//! A shortcut is a key that is not in the machine file's schema and stands for a set of
//! overrides computed from the machine ([`SHORTCUTS`] says which): `pool_latency_ns = 270`
//! sets the latency of every link to the pool so that a pool load takes 270 ns unloaded.

use numasim_config::{ConfigError, Override, Source};

/// `(key, unit, what it changes physically)`, printed by `numasim params machine`.
pub const SHORTCUTS: &[(&str, &str, &str)] = &[
    (
        "pool_latency_ns",
        "ns",
        "unloaded end-to-end latency of a load from a socket to the memory pool (the memory node of kind \
         cxl-pool): sets `latency_ns` of every link to the pool to (pool_latency_ns − the pool's \
         access_latency_ns) / 2, as a CXL switch or retimers on the path would; the pool's own DRAM \
         (access_latency_ns) is unchanged, and every message over those links pays (loads, write-backs, \
         block transfers through the pool's directory). Only the pool's memory slower: \
         memory.<pool>.access_latency_ns",
    ),
    (
        "socket_llc_bytes",
        "bytes",
        "LLC size of every socket (each socket's llc_bytes), as a scaled-down study keeps the LLC's \
         share of the footprint (docs/guide/similarity.md); the ways and line size are unchanged, \
         so it must hold at least one set (llc_ways × 64 bytes)",
    ),
    (
        "link_latency_ns.<type>",
        "ns",
        "one-way latency of every link of type <type>: the type's latency_ns and any link of that type \
         that sets its own",
    ),
    (
        "link_bandwidth_gbps.<type>",
        "GB/s",
        "bandwidth of every link of type <type>, both directions: the type's bandwidth_gbps (and \
         bandwidth_gbps_ba when set) and any link of that type that sets its own",
    ),
];

/// A link's name in key paths: its `name`, else `a-b` (as the machine names it).
pub fn link_or_entry_name(t: &dyn toml_edit::TableLike) -> Option<String> {
    if let Some(n) = numasim_config::overrides::name_key(t) {
        return Some(n);
    }
    let end = |k: &str| t.get(k).and_then(|i| i.as_str()).map(str::to_string);
    Some(format!("{}-{}", end("a")?, end("b")?))
}

/// `source` with `overrides` applied in order (a later one wins), shortcuts expanded against
/// the machine as the overrides before them left it.
pub fn apply(source: &Source, overrides: &[Override]) -> Result<Source, ConfigError> {
    let mut current = source.clone();
    for o in overrides {
        let concrete = match expand_shortcut(&current, o)? {
            Some(expanded) => expanded,
            None => vec![o.clone()],
        };
        current = current.with_overrides_named(&concrete, &link_or_entry_name)?;
    }
    Ok(current)
}

/// The machine text of `source` with a header naming the file and the overrides applied to
/// it: what `machine.resolved.toml` beside a run's results holds.
pub fn resolved_text(source: &Source) -> String {
    let mut header = format!("# Machine {} as simulated", source.origin);
    let applied = source.overrides();
    if applied.is_empty() {
        header.push_str(" (no overrides).\n");
    } else {
        header.push_str(", with these overrides applied:\n");
        let mut seen: Vec<&str> = Vec::new();
        for o in applied {
            // A shortcut expands to several overrides with the shortcut's label: say it once.
            if !seen.contains(&o.label.as_str()) {
                seen.push(&o.label);
                header.push_str(&format!("#   {}\n", o.label));
            }
        }
    }
    format!("{header}\n{}", source.text)
}

fn err(o: &Override, message: impl Into<String>) -> ConfigError {
    ConfigError {
        file: o.label.clone(),
        line: None,
        key: o.key.clone(),
        message: message.into(),
    }
}

fn number(o: &Override, unit: &str) -> Result<f64, ConfigError> {
    match &o.value {
        toml::Value::Integer(i) => Ok(*i as f64),
        toml::Value::Float(f) => Ok(*f),
        _ => Err(err(o, format!("must be a number ({unit}), got {}", o.value))),
    }
}

fn as_f64(v: Option<&toml::Value>) -> Option<f64> {
    match v? {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn concrete(o: &Override, key: String, value: f64) -> Override {
    Override {
        key,
        value: toml::Value::Float(value),
        label: o.label.clone(),
    }
}

/// The overrides a shortcut stands for, or `None` when `o` is an ordinary key.
fn expand_shortcut(current: &Source, o: &Override) -> Result<Option<Vec<Override>>, ConfigError> {
    let (what, link_type) = match o.key.split_once('.') {
        None if o.key == "pool_latency_ns" => ("pool", None),
        None if o.key == "socket_llc_bytes" => ("llc", None),
        Some(("link_latency_ns", t)) => ("latency", Some(t)),
        Some(("link_bandwidth_gbps", t)) => ("bandwidth", Some(t)),
        None if o.key == "link_latency_ns" || o.key == "link_bandwidth_gbps" => {
            return Err(err(o, format!("name the link type: `{}.<type>`", o.key)))
        }
        _ => return Ok(None),
    };
    // The machine as the overrides before this one left it (their errors are reported when the
    // whole machine is parsed, so an unreadable text here just finds nothing).
    let doc: toml::Table = current.text.parse().unwrap_or_default();
    let links: Vec<&toml::Table> = doc
        .get("links")
        .and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(toml::Value::as_table).collect())
        .unwrap_or_default();
    let link_name = |l: &toml::Table| -> String {
        match l.get("name").and_then(toml::Value::as_str) {
            Some(n) => n.to_string(),
            None => format!(
                "{}-{}",
                l.get("a").and_then(toml::Value::as_str).unwrap_or(""),
                l.get("b").and_then(toml::Value::as_str).unwrap_or("")
            ),
        }
    };
    if what == "llc" {
        let bytes = match &o.value {
            toml::Value::Integer(i) if *i > 0 => *i,
            _ => {
                return Err(err(
                    o,
                    format!("must be a positive whole number of bytes, got {}", o.value),
                ))
            }
        };
        let names: Vec<&str> = doc
            .get("sockets")
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.get("name").and_then(toml::Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            return Err(err(o, "the machine has no named sockets"));
        }
        // Each is checked as the machine file's own key (at least one set, at most 1 GiB).
        return Ok(Some(
            names
                .iter()
                .map(|n| Override {
                    key: format!("sockets.{n}.llc_bytes"),
                    value: toml::Value::Integer(bytes),
                    label: o.label.clone(),
                })
                .collect(),
        ));
    }
    if what == "pool" {
        let target = number(o, "ns")?;
        let memory: Vec<&toml::Table> = doc
            .get("memory")
            .and_then(toml::Value::as_array)
            .map(|a| a.iter().filter_map(toml::Value::as_table).collect())
            .unwrap_or_default();
        let pools: Vec<&&toml::Table> = memory
            .iter()
            .filter(|m| m.get("kind").and_then(toml::Value::as_str) == Some("cxl-pool"))
            .collect();
        let pool = match pools.as_slice() {
            [p] => p,
            [] => return Err(err(o, "the machine has no memory node of kind cxl-pool")),
            _ => {
                return Err(err(
                    o,
                    "the machine has several memory nodes of kind cxl-pool; set `memory.<name>.access_latency_ns` or `links.<name>.latency_ns` instead",
                ))
            }
        };
        let name = pool.get("name").and_then(toml::Value::as_str).unwrap_or("");
        let access = as_f64(pool.get("access_latency_ns")).unwrap_or(0.0);
        if target.is_nan() || target <= access {
            return Err(err(
                o,
                format!(
                    "must exceed the pool's access_latency_ns ({access} ns): the links to the pool get a one-way latency of (pool_latency_ns − {access}) / 2"
                ),
            ));
        }
        let sockets: Vec<&str> = doc
            .get("sockets")
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.get("name").and_then(toml::Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for l in &links {
            let end = |k: &str| l.get(k).and_then(toml::Value::as_str).unwrap_or("");
            let other = if end("a") == name {
                end("b")
            } else if end("b") == name {
                end("a")
            } else {
                continue;
            };
            if !sockets.contains(&other) {
                return Err(err(
                    o,
                    format!(
                        "the pool `{name}` is linked to `{other}`, not a socket, so its latency is not one link's; set `links.<name>.latency_ns` instead"
                    ),
                ));
            }
            out.push(concrete(
                o,
                format!("links.{}.latency_ns", link_name(l)),
                (target - access) / 2.0,
            ));
        }
        if out.is_empty() {
            return Err(err(o, format!("no link reaches the pool `{name}`")));
        }
        return Ok(Some(out));
    }
    let t = link_type.unwrap_or_default();
    let types = doc.get("link_types").and_then(toml::Value::as_table);
    let Some(ty) = types.and_then(|ts| ts.get(t)).and_then(toml::Value::as_table) else {
        let known: Vec<&str> = types
            .map(|ts| ts.keys().map(String::as_str).collect())
            .unwrap_or_default();
        return Err(err(
            o,
            format!("no link type `{t}` in [link_types] (has: {})", known.join(", ")),
        ));
    };
    let (unit, keys): (&str, &[&str]) = if what == "latency" {
        ("ns", &["latency_ns"])
    } else {
        ("GB/s", &["bandwidth_gbps", "bandwidth_gbps_ba"])
    };
    let value = number(o, unit)?;
    let mut out = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        // The type's reverse bandwidth only when it has one (it defaults to bandwidth_gbps).
        if i == 0 || ty.contains_key(*k) {
            out.push(concrete(o, format!("link_types.{t}.{k}"), value));
        }
    }
    for l in links
        .iter()
        .filter(|l| l.get("type").and_then(toml::Value::as_str) == Some(t))
    {
        for k in keys {
            if l.contains_key(*k) {
                out.push(concrete(o, format!("links.{}.{k}", link_name(l)), value));
            }
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Machine;

    fn sets(args: &[&str]) -> Vec<Override> {
        args.iter()
            .map(|a| Override::parse_set(a).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    fn pool() -> Source {
        Source::from_text(
            "<preset starnuma16-pool>",
            crate::presets::get("starnuma16-pool").unwrap(),
        )
    }

    fn build(args: &[&str]) -> Result<Machine, ConfigError> {
        Machine::from_source(&apply(&pool(), &sets(args))?)
    }

    #[test]
    fn plain_keys_by_type_and_by_name() {
        let base = build(&[]).unwrap();
        let m = build(&["link_types.cxl.latency_ns=95", "memory.pool.channels=2"]).unwrap();
        let p = m.memory_index("pool").unwrap();
        // 80 ns access + 2 × 95 ns.
        assert_eq!(m.load_latency_ns(0, p), 270.0);
        assert_eq!(base.load_latency_ns(0, p), 180.0);
        assert_eq!(m.memory_nodes[p].channels, 2);
        // One link by name, one switch by name.
        let m = build(&["links.s3-pool.latency_ns=60", "switches.c0a.transit_latency_ns=0"]).unwrap();
        assert_eq!(m.load_latency_ns(3, p), 200.0);
        assert_eq!(m.load_latency_ns(2, p), 180.0);
        assert!(m.load_latency_ns(0, m.memory_index("m8").unwrap()) < base.load_latency_ns(0, 8));
    }

    #[test]
    fn the_pool_latency_shortcut_sets_the_links_to_the_pool() {
        let m = build(&["pool_latency_ns=270"]).unwrap();
        let p = m.memory_index("pool").unwrap();
        for s in 0..m.num_sockets() {
            assert_eq!(m.load_latency_ns(s, p), 270.0, "socket {s}");
        }
        // The pool's DRAM and every other link are as they were.
        assert_eq!(m.memory_nodes[p].access_latency_ns, 80.0);
        let base = build(&[]).unwrap();
        assert_eq!(m.load_latency_ns(0, 15), base.load_latency_ns(0, 15));
        let e = build(&["pool_latency_ns=60"]).unwrap_err();
        assert_eq!(e.file, "--set pool_latency_ns=60");
        assert!(
            e.message.contains("must exceed the pool's access_latency_ns (80 ns)"),
            "{e}"
        );
        // The baseline has no pool.
        let e = apply(
            &Source::from_text("x", crate::presets::get("starnuma16-baseline").unwrap()),
            &sets(&["pool_latency_ns=200"]),
        )
        .unwrap_err();
        assert!(e.message.contains("no memory node of kind cxl-pool"), "{e}");
    }

    #[test]
    fn the_llc_shortcut_sets_every_socket_and_is_checked_as_the_file_is() {
        let m = build(&["socket_llc_bytes=3072"]).unwrap();
        assert!(m.sockets.iter().all(|s| s.llc_bytes == 3072));
        assert_eq!(m.sockets.len(), 16);
        // Smaller than one set (16 ways × 64 bytes): the machine's own check, naming the shortcut.
        let e = build(&["socket_llc_bytes=512"]).unwrap_err();
        assert_eq!(e.file, "--set socket_llc_bytes=512", "{e}");
        assert!(e.message.contains("one set"), "{e}");
        let e = build(&["socket_llc_bytes=1.5"]).unwrap_err();
        assert!(e.message.contains("whole number"), "{e}");
    }

    #[test]
    fn link_class_shortcuts_cover_both_directions_and_explicit_values() {
        let m = build(&["link_bandwidth_gbps.upi=41.6", "link_latency_ns.numalink=10"]).unwrap();
        for l in m.links.iter().filter(|l| l.link_type.as_deref() == Some("upi")) {
            assert_eq!((l.bandwidth_gbps_ab, l.bandwidth_gbps_ba), (41.6, 41.6), "{}", l.name);
        }
        for l in m.links.iter().filter(|l| l.link_type.as_deref() == Some("numalink")) {
            assert_eq!(l.latency_ns, 10.0);
        }
        let e = build(&["link_bandwidth_gbps.pcie=1"]).unwrap_err();
        assert!(
            e.message.contains("no link type `pcie`") && e.message.contains("cxl, numalink, upi"),
            "{e}"
        );
        let e = build(&["link_latency_ns=1"]).unwrap_err();
        assert!(e.message.contains("name the link type"), "{e}");
        let e = build(&["link_latency_ns.upi=fast"]).unwrap_err();
        assert!(e.message.contains("must be a number (ns)"), "{e}");
    }

    #[test]
    fn invalid_overrides_are_refused_like_the_file_naming_the_override() {
        // Out of range, checked by the machine validator.
        let e = build(&["link_types.cxl.latency_ns=-5"]).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str(), e.line),
            ("--set link_types.cxl.latency_ns=-5", "link_types.cxl.latency_ns", None),
            "{e}"
        );
        assert!(e.message.contains("above 0"), "{e}");
        // A value reached by name is reported under the parser's path, still naming the override.
        let e = build(&["memory.pool.channels=0"]).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str()),
            ("--set memory.pool.channels=0", "memory[16].channels"),
            "{e}"
        );
        // Unknown key, wrong type, unknown entry.
        let e = build(&["link_types.cxl.latncy_ns=5"]).unwrap_err();
        assert!(
            e.message.contains("unknown field") && e.file.starts_with("--set"),
            "{e}"
        );
        let e = build(&["sockets.s0.cores=many"]).unwrap_err();
        assert_eq!(e.key, "sockets[0].cores", "{e}");
        let e = build(&["memory.pol.channels=2"]).unwrap_err();
        assert!(e.message.contains("no entry named `pol`"), "{e}");
        // A shortcut whose result is out of range names the shortcut.
        let e = build(&["pool_latency_ns=5000000"]).unwrap_err();
        assert_eq!(e.file, "--set pool_latency_ns=5000000", "{e}");
    }

    #[test]
    fn the_resolved_text_names_the_overrides_and_reloads_to_the_same_machine() {
        let src = apply(&pool(), &sets(&["pool_latency_ns=270", "memory.m0.channels=4"])).unwrap();
        let text = resolved_text(&src);
        assert!(text.starts_with("# Machine <preset starnuma16-pool> as simulated, with these overrides applied:\n#   --set pool_latency_ns=270\n#   --set memory.m0.channels=4\n"), "{text}");
        assert!(
            text.contains("b = \"pool\", type = \"cxl\" , latency_ns = 95.0 }"),
            "{text}"
        );
        let again = Machine::from_text("resolved", &text).unwrap();
        assert_eq!(again, Machine::from_source(&src).unwrap());
    }
}
