//! The module layering docs/design/README.md states, held for the modules at the bottom: a
//! module imports only from below it. Read from the sources (`crate::<module>` paths outside
//! `#[cfg(test)]` code), so a new upward import fails here with its file.

use std::path::{Path, PathBuf};

/// Each module and the modules it must not import.
const RULES: &[(&str, &[&str])] = &[
    ("rng", &["*"]),
    ("huge_pages", &["*"]),
    (
        "mem",
        &[
            "migrate",
            "sim",
            "timing",
            "driver",
            "experiment",
            "analyze",
            "profile",
            "cache",
        ],
    ),
    (
        "stats",
        &[
            "mem",
            "migrate",
            "sim",
            "timing",
            "driver",
            "experiment",
            "analyze",
            "profile",
            "cache",
        ],
    ),
    (
        "cache",
        &[
            "mem",
            "migrate",
            "sim",
            "timing",
            "driver",
            "experiment",
            "analyze",
            "profile",
            "stats",
        ],
    ),
    ("migrate", &["sim", "timing", "experiment", "analyze"]),
    // The machine state lent to the engines sits below them and the driver.
    (
        "system",
        &["migrate", "sim", "timing", "driver", "experiment", "analyze"],
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files of module `m` (a file or a folder).
fn files(m: &str) -> Vec<PathBuf> {
    let dir = src().join(m);
    if !dir.is_dir() {
        return vec![src().join(format!("{m}.rs"))];
    }
    let mut out = Vec::new();
    let mut todo = vec![dir];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// The modules a file names as `crate::<module>`, outside its `#[cfg(test)]` part.
fn imports(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        out.push(name);
    }
    out
}

#[test]
fn bottom_modules_import_only_from_below() {
    let mut bad = Vec::new();
    for (module, forbidden) in RULES {
        for f in files(module) {
            for m in imports(&f) {
                let own = m == *module;
                if !own && (forbidden.contains(&"*") || forbidden.contains(&m.as_str())) {
                    bad.push(format!(
                        "{} imports crate::{m}",
                        f.strip_prefix(src()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "upward imports: {bad:#?}");
}

#[test]
fn the_rules_see_imports() {
    // The scanner finds what it must: migrate does import profile and mem.
    let found: Vec<String> = files("migrate").iter().flat_map(|f| imports(f)).collect();
    assert!(
        found.iter().any(|m| m == "profile") && found.iter().any(|m| m == "mem"),
        "{found:?}"
    );
}

/// The top-level modules of the crate (folders and files beside `lib.rs`).
fn modules() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_string();
            let module = p.is_dir() || (p.extension().is_some_and(|x| x == "rs") && name != "lib");
            module.then_some(name)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A module path of imports leading back to its start, if there is one.
fn find_cycle(edges: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        edges: &std::collections::BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for n in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    edges.keys().find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let all = modules();
    let edges: std::collections::BTreeMap<String, Vec<String>> = all
        .iter()
        .map(|m| {
            let mut to: Vec<String> = files(m)
                .iter()
                .flat_map(|f| imports(f))
                .filter(|n| n != m && all.contains(n))
                .collect();
            to.sort();
            to.dedup();
            (m.clone(), to)
        })
        .collect();
    assert!(
        edges["driver"].contains(&"timing".to_string()),
        "the scanner sees imports"
    );
    assert_eq!(find_cycle(&edges), None, "an import cycle between modules");
    // The search finds one where there is one.
    let mut looped = edges.clone();
    looped.get_mut("timing").unwrap().push("driver".into());
    assert!(find_cycle(&looped).is_some());
}
