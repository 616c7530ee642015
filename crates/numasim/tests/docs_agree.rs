//! The README's lists of migration policies and profilers name exactly what the code accepts
//! (`PolicyKind::ALL`, `ProfilerKind::ALL`), so a policy or profiler added without its
//! documentation, or documented but gone, fails here.

use numasim::migrate::PolicyKind;
use numasim::profile::ProfilerKind;
use std::collections::BTreeSet;

/// Quoted names in `text` between `from` and `to`.
fn quoted_between(text: &str, from: &str, to: &str) -> BTreeSet<String> {
    let start = text.find(from).unwrap_or_else(|| panic!("README lacks `{from}`")) + from.len();
    let end = start + text[start..].find(to).unwrap_or_else(|| panic!("README lacks `{to}`"));
    text[start..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn readme_lists_every_policy_and_profiler_and_no_other() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let policies = quoted_between(&readme, "`[migration] policy = ", "` with `profiler = ");
    let profilers = quoted_between(&readme, "` with `profiler = ", "` and the policy's parameters");
    let code_policies: BTreeSet<String> = PolicyKind::ALL.iter().map(|p| p.name().to_string()).collect();
    let code_profilers: BTreeSet<String> = ProfilerKind::ALL.iter().map(|k| k.name().to_string()).collect();
    assert_eq!(policies, code_policies, "README policies vs PolicyKind::ALL");
    assert_eq!(profilers, code_profilers, "README profilers vs ProfilerKind::ALL");
    // Every name the README gives is one the code resolves.
    for p in &policies {
        assert!(PolicyKind::from_name(p).is_some(), "{p}");
    }
    for k in &profilers {
        assert!(ProfilerKind::from_name(k).is_some(), "{k}");
    }
}
