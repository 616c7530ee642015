//! docs/guide/migration.md's lists of migration policies and profilers name exactly what the code accepts
//! (`PolicyKind::ALL`, `ProfilerKind::ALL`), so a policy or profiler added without its
//! documentation, or documented but gone, fails here.

use numasim::migrate::PolicyKind;
use numasim::profile::ProfilerKind;
use std::collections::BTreeSet;

/// Quoted names in `text` between `from` and `to`.
fn quoted_between(text: &str, from: &str, to: &str) -> BTreeSet<String> {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("docs/guide/migration.md lacks `{from}`"))
        + from.len();
    let end = start
        + text[start..]
            .find(to)
            .unwrap_or_else(|| panic!("docs/guide/migration.md lacks `{to}`"));
    text[start..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn migration_guide_lists_every_policy_and_profiler_and_no_other() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide/migration.md")).unwrap();
    let policies = quoted_between(&guide, "`[migration] policy = ", "` with `profiler = ");
    let profilers = quoted_between(&guide, "` with `profiler = ", "` and the policy's parameters");
    let code_policies: BTreeSet<String> = PolicyKind::ALL.iter().map(|p| p.name().to_string()).collect();
    let code_profilers: BTreeSet<String> = ProfilerKind::ALL.iter().map(|k| k.name().to_string()).collect();
    assert_eq!(policies, code_policies, "guide policies vs PolicyKind::ALL");
    assert_eq!(profilers, code_profilers, "guide profilers vs ProfilerKind::ALL");
    // Every name the guide gives is one the code resolves.
    for p in &policies {
        assert!(PolicyKind::from_name(p).is_some(), "{p}");
    }
    for k in &profilers {
        assert!(ProfilerKind::from_name(k).is_some(), "{k}");
    }
}

/// The registries and their declarations agree: names are unique and resolve, every parameter
/// a policy, profiler or the mechanism declares has a one-line doc and a unit, no key is
/// declared twice in a `[migration]` table, every default passes its own check, and the
/// migration guide names every policy and profiler with its name quoted.
#[test]
fn registries_and_parameter_declarations_agree() {
    use numasim::migrate::params::{allowed, mechanism_params, profiler_params};
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide/migration.md")).unwrap();
    let mut names = BTreeSet::new();
    for p in PolicyKind::ALL {
        assert!(names.insert(p.name()), "policy name `{}` twice", p.name());
        assert_eq!(PolicyKind::from_name(p.name()), Some(p));
        assert!(
            guide.contains(&format!("\"{}\"", p.name())),
            "docs/guide/migration.md lacks policy {}",
            p.name()
        );
        assert!(!p.summary().is_empty() && !p.paper().is_empty(), "{}", p.name());
        assert!(p.profilers().contains(&p.default_profiler()), "{}", p.name());
    }
    for k in ProfilerKind::ALL {
        assert!(names.insert(k.name()), "profiler name `{}` twice", k.name());
        assert_eq!(ProfilerKind::from_name(k.name()), Some(k));
        assert!(
            guide.contains(&format!("\"{}\"", k.name())),
            "docs/guide/migration.md lacks profiler {}",
            k.name()
        );
        assert!(!k.summary().is_empty(), "{}", k.name());
    }
    let mut every = mechanism_params();
    for p in PolicyKind::ALL {
        every.extend(p.params());
    }
    for k in ProfilerKind::ALL {
        every.extend(profiler_params(k));
    }
    for d in &every {
        assert!(
            !d.description.is_empty() && !d.description.contains('\n'),
            "{}: one-line doc",
            d.name
        );
    }
    // Every section's declarations: a unit, and a default its own check accepts.
    every.extend(numasim::timing::TimingSpec::defs());
    for g in numasim::workload::registry::list() {
        every.extend(g.params);
    }
    for d in &every {
        assert!(
            !d.unit.is_empty() && !d.description.is_empty(),
            "{}: unit and doc",
            d.name
        );
        if let Some(v) = d.default.to_value() {
            assert_eq!(d.refuse(&v), None, "{}: default outside its own check", d.name);
        }
    }
    for p in PolicyKind::ALL {
        for &k in p.profilers() {
            let defs = allowed(p, k);
            let keys: BTreeSet<&str> = defs.iter().map(|d| d.name).collect();
            assert_eq!(
                keys.len(),
                defs.len(),
                "{} with {}: a key declared twice",
                p.name(),
                k.name()
            );
        }
    }
}
