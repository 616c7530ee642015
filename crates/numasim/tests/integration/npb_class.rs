//! NPB `class` at the experiment level: `experiment.resolved.toml` of a class-S kernel
//! experiment writes the sizes the class resolved to (not the keys' class-less defaults, which
//! would override the class on a rerun), and every class-S experiment reruns to identical
//! results.

use numasim::config::Source;
use numasim::experiment::{simulate, Experiment};

fn experiment(name: &str, text: &str) -> Experiment {
    Experiment::from_source(Source::from_text(format!("{name}.toml"), text), name).unwrap_or_else(|e| panic!("{e}"))
}

/// results.json's content without the wall-clock `perf` block and the name.
fn results(exp: &Experiment) -> serde_json::Value {
    let (_, r) = simulate(exp, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let mut v = serde_json::to_value(&r).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("perf");
    o.remove("name");
    v
}

fn text(workload: &str) -> String {
    format!("machine = \"two-socket\"\nseed = 4\nphase_instructions = 200000\n[workload]\n{workload}\n")
}

#[test]
fn class_s_resolved_toml_reruns_to_identical_results() {
    for (kind, workload, want) in [
        (
            "cg",
            "kind = \"cg\"\nthreads = 4\nclass = \"S\"\niterations = 2",
            &[("rows", 1400), ("nonzeros_per_row", 7), ("iterations", 2)][..],
        ),
        (
            "is",
            "kind = \"is\"\nthreads = 4\nclass = \"S\"\niterations = 2",
            &[("keys", 65536), ("max_key", 2048), ("buckets", 512), ("iterations", 2)][..],
        ),
        (
            "mg",
            "kind = \"mg\"\nthreads = 4\nclass = \"S\"\niterations = 1",
            &[("grid_log2", 5), ("iterations", 1)][..],
        ),
        (
            "lu",
            "kind = \"lu\"\nthreads = 4\nclass = \"S\"\niterations = 1",
            &[("iterations", 1)][..],
        ),
    ] {
        let first = experiment(kind, &text(workload));
        let resolved = first.resolved_toml();
        let table: toml::Table = resolved.parse().unwrap();
        let w = table["workload"].as_table().unwrap();
        assert_eq!(w["class"].as_str(), Some("S"), "{kind}: class kept:\n{resolved}");
        // lu's `grid` defaults to "from the class" and stays unset.
        assert!(!w.contains_key("grid"), "{kind}");
        for (key, value) in want {
            assert_eq!(w[*key].as_integer(), Some(*value), "{kind}.{key}:\n{resolved}");
        }
        let again = experiment(kind, &resolved);
        let a = results(&first);
        assert_eq!(
            a,
            results(&again),
            "{kind}: the resolved file reruns to the same results"
        );
        assert_eq!(a["workload"]["params"]["class"], "S", "{kind}");
        // The class matters: without it (the keys' defaults) the run is a different one, so
        // writing those defaults beside `class` would have changed the rerun.
        let plain = workload.replace("class = \"S\"\n", "");
        if kind != "lu" {
            assert_ne!(
                a["workload"]["params"],
                results(&experiment(kind, &text(&plain)))["workload"]["params"],
                "{kind}"
            );
        }
    }
}

/// Without `class`, the resolved file is what it was before the key existed: no `class`
/// key, every size written with its default.
#[test]
fn without_class_the_resolved_workload_has_the_plain_defaults() {
    let exp = experiment("cg", &text("kind = \"cg\"\nthreads = 4"));
    let table: toml::Table = exp.resolved_toml().parse().unwrap();
    let w = table["workload"].as_table().unwrap();
    assert!(w.get("class").is_none());
    assert_eq!(w["rows"].as_integer(), Some(14_000));
    assert_eq!(w["iterations"].as_integer(), Some(15));
}

/// A class size the generator cannot hold is refused naming `class` (FT class C: 512³).
#[test]
fn a_class_the_generator_refuses_names_class() {
    let exp = experiment("ft", &text("kind = \"ft\"\nclass = \"C\""));
    let err = match simulate(&exp, &mut |_| {}) {
        Ok(_) => panic!("FT class C accepted"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("class") && err.contains("class C sets `nx`"), "{err}");
}
