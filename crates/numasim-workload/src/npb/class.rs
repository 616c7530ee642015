//! NPB problem classes for the five kernels (`is`, `ep`, `cg`, `mg`, `ft`), and the class
//! resolution `experiment.resolved.toml` needs for all eight NPB generators.
//!
//! **Semantics.** The kernels' explicit size keys (`rows`, `keys`, `grid_log2`, `nx`, …) came
//! first, and existing experiments rely on their defaults, so for the kernels `class` is
//! optional: unset, every key keeps its own default (runs stay byte-identical); set, it fills
//! in each key of its class table that the `[workload]` table leaves out, from NPB 3.x's
//! official sizes. A key given explicitly *overrides* the class, as `grid` and `iterations`
//! override `class` for `bt`, `sp` and `lu` (whose `class` defaults to S): `class = "S"` with
//! `iterations = 2` is class S's data set run for two iterations, e.g. for a short test. The
//! parameters a generator reports (`describe`) are the resolved ones, with the class.
//!
//! **Why the resolved experiment needs help.** `experiment.resolved.toml` writes every key a
//! file left out with its documented default, so that a run can be repeated exactly; beside
//! `class = "S"` the default `rows = 14000` would override the class on a rerun. It therefore
//! first writes the sizes the class resolved to ([`class_resolved_keys`]), keeping `class`
//! (which they then merely restate).
//!
//! When a size the class set is out of a generator's range (FT class C: 512³ complex points
//! exceed the 2^26 points the generator holds in memory), the error names `class`, not the
//! key the user never wrote.

use super::cfd::Class;
use crate::registry::WorkloadError;
use std::collections::BTreeSet;

/// The keys a `[workload]` table gives explicitly (parsing fills in the rest with defaults).
pub(crate) fn given(table: &toml::Table) -> BTreeSet<String> {
    table.keys().cloned().collect()
}

/// Sets `slot` to the class's `value` unless the table gave `key`.
pub(crate) fn fill<T>(given: &BTreeSet<String>, key: &str, slot: &mut T, value: T) {
    if !given.contains(key) {
        *slot = value;
    }
}

/// An error on a key that the class set (the table did not give it) is reported against
/// `class`, naming the key and the class.
pub(crate) fn blame_class(
    err: WorkloadError,
    class: Option<Class>,
    given: &BTreeSet<String>,
    class_keys: &[&str],
) -> WorkloadError {
    match class {
        Some(c) if class_keys.contains(&err.key.as_str()) && !given.contains(&err.key) => WorkloadError {
            key: "class".into(),
            message: format!(
                "class {} sets `{}`, but {}: {} (a `{}` given explicitly overrides the class)",
                c.name(),
                err.key,
                err.key,
                err.message,
                err.key
            ),
        },
        _ => err,
    }
}

/// A kernel's parameters whose sizes a class table can set (`class_params!` implements it).
pub(crate) trait ClassParams: serde::de::DeserializeOwned + numasim_config::param::ParamSection {
    fn class(&self) -> Option<Class>;
    fn threads(&self) -> usize;
    /// What threads waiting at a barrier do (kernels without a `wait_policy` key: spin).
    fn wait(&self) -> crate::omp::WaitPolicy {
        crate::omp::WaitPolicy::Active
    }
    /// Fills in `class`'s sizes that `given` leaves out.
    fn apply_class(&mut self, class: Class, given: &BTreeSet<String>);
}

/// Implements [`ClassParams`] for a kernel's parameter struct from its class table (an array
/// indexed by `Class::index` whose entries have `apply(given, params)`).
macro_rules! class_params {
    ($params:ty, $classes:expr, wait) => {
        $crate::npb::class::class_params!(@impl $params, $classes, fn wait(&self) -> $crate::omp::WaitPolicy {
            self.wait_policy
        });
    };
    ($params:ty, $classes:expr) => {
        $crate::npb::class::class_params!(@impl $params, $classes,);
    };
    (@impl $params:ty, $classes:expr, $($wait:item)?) => {
        impl $crate::npb::class::ClassParams for $params {
            fn class(&self) -> Option<$crate::npb::Class> {
                self.class
            }
            fn threads(&self) -> usize {
                self.threads
            }
            fn apply_class(&mut self, class: $crate::npb::Class, given: &std::collections::BTreeSet<String>) {
                $classes[class.index()].apply(given, self)
            }
            $($wait)?
        }
    };
}
pub(crate) use class_params;

/// Parses a kernel's table and resolves `class` (explicit keys override it).
pub(crate) fn resolve<P: ClassParams>(table: toml::Table) -> Result<P, WorkloadError> {
    let given = given(&table);
    let mut p: P = crate::params::parse(table)?;
    if let Some(c) = p.class() {
        p.apply_class(c, &given);
    }
    crate::params::checked(p)
}

/// A kernel's source from its table: parameters resolved, the kernel made by `new` (an error
/// on a size the class set is reported against `class`), run on its threads.
pub(crate) fn build_kernel<P: ClassParams, K: crate::omp::Kernel + 'static>(
    table: toml::Table,
    seed: u64,
    class_keys: &[&str],
    new: impl FnOnce(P, u64) -> Result<K, WorkloadError>,
) -> Result<Box<dyn numasim_trace::AccessSource>, WorkloadError> {
    let given = given(&table);
    let p: P = resolve(table)?;
    let (threads, class, wait) = (p.threads(), p.class(), p.wait());
    let kernel = new(p, seed).map_err(|e| blame_class(e, class, &given, class_keys))?;
    Ok(Box::new(crate::omp::OmpSource::new(kernel, threads).with_wait(wait)))
}

/// A parameter struct as JSON for `describe`, without an unset `class` key (a run that does
/// not use `class` describes itself exactly as before the key existed).
pub(crate) fn params_json<T: serde::Serialize>(params: &T) -> serde_json::Value {
    let mut v = serde_json::to_value(params).unwrap_or_default();
    if let Some(map) = v.as_object_mut() {
        if map.get("class").is_some_and(serde_json::Value::is_null) {
            map.remove("class");
        }
    }
    v
}

/// Picks `keys` out of a resolved parameter struct as TOML values (all integers).
fn pick<T: serde::Serialize>(params: &T, keys: &[&str], given: &BTreeSet<String>) -> toml::Table {
    let json = serde_json::to_value(params).unwrap_or_default();
    keys.iter()
        .filter(|k| !given.contains(**k))
        .filter_map(|k| {
            let n = json.get(*k)?.as_i64()?;
            Some((k.to_string(), toml::Value::Integer(n)))
        })
        .collect()
}

/// For `experiment.resolved.toml`: when `workload` (a `[workload]` table, `kind` included or
/// not) of NPB kernel `kind` gives `class`, the size keys that class sets and the table
/// leaves out, with the values they resolve to. `None` for other generators, a table without
/// `class`, or parameters the generator refuses (the run reports that error itself). `bt`,
/// `sp` and `lu` need nothing: their `grid` and `iterations` default to "unset, from the
/// class", which the resolved file leaves unset, and their `describe` reports them as given.
pub fn class_resolved_keys(kind: &str, workload: &toml::Table) -> Option<toml::Table> {
    if !workload.contains_key("class") {
        return None;
    }
    let mut table = workload.clone();
    table.remove("kind");
    let given = given(&table);
    let picked = match kind {
        "cg" => pick(&super::cg::params(table).ok()?, super::cg::CLASS_KEYS, &given),
        "is" => pick(&super::is::params(table).ok()?, super::is::CLASS_KEYS, &given),
        "ep" => pick(&super::ep::params(table).ok()?, super::ep::CLASS_KEYS, &given),
        "mg" => pick(&super::mg::params(table).ok()?, super::mg::CLASS_KEYS, &given),
        "ft" => pick(&super::ft::params(table).ok()?, super::ft::CLASS_KEYS, &given),
        _ => return None,
    };
    Some(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn resolved_keys_are_the_class_sizes_the_table_leaves_out() {
        let t = class_resolved_keys("cg", &table("kind = \"cg\"\nclass = \"S\"\niterations = 2")).unwrap();
        assert_eq!(t, table("rows = 1400\nnonzeros_per_row = 7"));
        assert!(class_resolved_keys("bt", &table("class = \"W\"")).is_none());
        let t = class_resolved_keys("ft", &table("class = \"A\"\nnz = 64")).unwrap();
        assert_eq!(t, table("nx = 256\nny = 256\niterations = 6"));
        // No class, another generator, or a refused table: nothing to add.
        assert!(class_resolved_keys("cg", &table("rows = 100")).is_none());
        assert!(class_resolved_keys("stream", &table("class = \"S\"")).is_none());
        assert!(class_resolved_keys("cg", &table("class = \"Q\"")).is_none());
    }

    #[test]
    fn describe_omits_only_an_unset_class() {
        let p = super::super::cg::CgParams::default();
        assert!(params_json(&p).get("class").is_none());
        assert_eq!(params_json(&p)["rows"], 14_000);
        let p = super::super::cg::params(table("class = \"B\"")).unwrap();
        assert_eq!(params_json(&p)["class"], "B");
        assert_eq!(params_json(&p)["rows"], 75_000);
    }

    /// `workload list`'s class lines are generated from nothing but must say what the tables
    /// hold: rebuild each from its table.
    #[test]
    fn class_docs_match_the_class_tables() {
        use super::super::{bt, cg, ep, ft, is, lu, mg, sp};
        let head = "NPB 3.x class; sets the keys below the table leaves out (unset: their defaults)";
        let lines = |f: &dyn Fn(usize) -> String| -> Vec<String> {
            Class::ALL
                .iter()
                .map(|c| format!("{}: {}", c.name(), f(c.index())))
                .collect()
        };
        let with_head =
            |h: &str, l: Vec<String>| std::iter::once(h.to_string()).chain(l).collect::<Vec<_>>().join("\n");
        let cg_doc = with_head(
            head,
            lines(&|i| {
                let c = cg::CLASSES[i];
                let it = c.niter * cg::CGITMAX;
                let note = if i == 0 {
                    format!("{} x 25 CG steps", c.niter)
                } else {
                    format!("{} x 25", c.niter)
                };
                format!("rows {}, nonzeros_per_row {}, iterations {it} ({note})", c.na, c.nonzer)
            }),
        );
        assert_eq!(cg::CLASS_DOC, cg_doc);
        let is_doc = with_head(
            head,
            lines(&|i| {
                let c = is::CLASSES[i];
                format!(
                    "keys 2^{}, max_key 2^{}, buckets 2^{}, iterations {}",
                    c.keys_log2, c.max_key_log2, c.buckets_log2, c.iterations
                )
            }),
        );
        assert_eq!(is::CLASS_DOC, is_doc);
        let ep_doc = with_head(
            "NPB 3.x class; sets pairs_log2 (NPB's M) unless given (unset: its default)",
            lines(&|i| format!("pairs_log2 {}", ep::CLASSES[i].m)),
        );
        assert_eq!(ep::CLASS_DOC, ep_doc);
        let mg_doc = with_head(
            head,
            lines(&|i| {
                let c = mg::CLASSES[i];
                format!(
                    "grid_log2 {} ({}^3), iterations {}",
                    c.grid_log2,
                    1 << c.grid_log2,
                    c.iterations
                )
            }),
        );
        assert_eq!(mg::CLASS_DOC, mg_doc);
        let ft_doc = with_head(
            head,
            lines(&|i| {
                let c = ft::CLASSES[i];
                let refused = if c.nx * c.ny * c.nz > 1 << 26 {
                    " (refused: over the 2^26 points held in memory)"
                } else {
                    ""
                };
                format!(
                    "nx {}, ny {}, nz {}, iterations {}{refused}",
                    c.nx, c.ny, c.nz, c.iterations
                )
            }),
        );
        assert_eq!(ft::CLASS_DOC, ft_doc);
        assert_eq!(bt::CLASS_DOC, bt::CLASSES.doc("time steps"));
        assert_eq!(sp::CLASS_DOC, sp::CLASSES.doc("time steps"));
        assert_eq!(lu::CLASS_DOC, lu::CLASSES.doc("SSOR iterations"));
    }

    /// Class S resolves to NPB 3.x's official class S sizes (literal numbers from NPB's
    /// `setparams`/`npbparams.h`, not read back from the tables).
    #[test]
    fn class_s_is_npbs_class_s() {
        use super::super::{bt, cg, ep, ft, is, lu, mg, sp};
        let cgp = cg::params(table("class = \"S\"")).unwrap();
        assert_eq!((cgp.rows, cgp.nonzeros_per_row, cgp.iterations), (1400, 7, 15 * 25));
        assert_eq!(cg::CLASSES[0].shift, 10.0);
        let isp = is::params(table("class = \"S\"")).unwrap();
        assert_eq!(
            (isp.keys, isp.max_key, isp.buckets, isp.iterations),
            (65536, 2048, 512, 10)
        );
        assert_eq!(ep::params(table("class = \"S\"")).unwrap().pairs_log2, 24);
        let mgp = mg::params(table("class = \"S\"")).unwrap();
        assert_eq!((mgp.grid_log2, mgp.iterations), (5, 4));
        let ftp = ft::params(table("class = \"S\"")).unwrap();
        assert_eq!((ftp.nx, ftp.ny, ftp.nz, ftp.iterations), (64, 64, 64, 6));
        for (classes, want) in [
            (&bt::CLASSES, (12, 60)),
            (&sp::CLASSES, (12, 100)),
            (&lu::CLASSES, (12, 50)),
        ] {
            assert_eq!(bt::sizes(classes, Class::S, None, None).unwrap(), want);
        }
        // Class C, the class HyDM runs.
        let cgp = cg::params(table("class = \"C\"")).unwrap();
        assert_eq!((cgp.rows, cgp.nonzeros_per_row, cgp.iterations), (150_000, 15, 75 * 25));
        let isp = is::params(table("class = \"C\"")).unwrap();
        assert_eq!((isp.keys, isp.max_key), (1 << 27, 1 << 23));
        assert_eq!(ep::params(table("class = \"C\"")).unwrap().pairs_log2, 32);
        assert_eq!(mg::params(table("class = \"C\"")).unwrap().grid_log2, 9);
        for (classes, want) in [
            (&bt::CLASSES, (162, 200)),
            (&sp::CLASSES, (162, 400)),
            (&lu::CLASSES, (162, 250)),
        ] {
            assert_eq!(bt::sizes(classes, Class::C, None, None).unwrap(), want);
        }
    }

    /// Where a kernel's defaults were an NPB class they still are: `cg`'s matrix is class A's
    /// (its `iterations = 15` is NPB's outer count, not class A's 375 CG steps) and `is` is
    /// class W throughout. `mg` (64^3) and `ft` (64x64x32) defaults are no class.
    #[test]
    fn defaults_that_were_a_class_still_are() {
        use super::super::{cg, is};
        let (a, d) = (cg::params(table("class = \"A\"")).unwrap(), cg::CgParams::default());
        assert_eq!((a.rows, a.nonzeros_per_row), (d.rows, d.nonzeros_per_row));
        let (w, d) = (is::params(table("class = \"W\"")).unwrap(), is::IsParams::default());
        assert_eq!(
            (w.keys, w.max_key, w.buckets, w.iterations),
            (d.keys, d.max_key, d.buckets, d.iterations)
        );
        // Without `class`, every key keeps its default.
        let p = cg::params(table("threads = 2")).unwrap();
        assert_eq!((p.class, p.rows, p.iterations), (None, 14_000, 15));
    }

    /// A key given beside `class` overrides it; the others still come from the class.
    #[test]
    fn explicit_keys_override_the_class() {
        use super::super::{cg, ft, is, mg};
        let p = cg::params(table("class = \"B\"\niterations = 3")).unwrap();
        assert_eq!((p.rows, p.nonzeros_per_row, p.iterations), (75_000, 13, 3));
        let p = is::params(table("class = \"A\"\nkeys = 4096\niterations = 2")).unwrap();
        assert_eq!((p.keys, p.max_key, p.buckets, p.iterations), (4096, 1 << 19, 1024, 2));
        let p = mg::params(table("class = \"C\"\ngrid_log2 = 4")).unwrap();
        assert_eq!((p.grid_log2, p.iterations), (4, 20));
        let p = ft::params(table("class = \"W\"\nnz = 8")).unwrap();
        assert_eq!((p.nx, p.ny, p.nz, p.iterations), (128, 128, 8, 6));
    }

    /// A size the class set that the generator refuses is reported against `class`; the same
    /// size written explicitly is reported against its own key; a bad class name is refused.
    #[test]
    fn a_refused_class_size_names_class() {
        let err = |kind: &str, text: &str| crate::build(kind, table(text), 1).err().unwrap();
        let e = err("ft", "class = \"C\"");
        assert_eq!(e.key, "class");
        assert!(
            e.message.contains("class C sets `nx`") && e.message.contains("2^26"),
            "{}",
            e.message
        );
        assert_eq!(err("ft", "class = \"S\"\nnx = 1024\nny = 1024\nnz = 128").key, "nx");
        assert_eq!(err("cg", "class = \"X\"").key, "class");
        assert_eq!(err("mg", "class = \"S\"\niterations = 0").key, "iterations");
        assert_eq!(err("is", "class = 3").key, "class");
    }

    /// Same seed, same stream with `class` set (small overrides keep the runs short).
    #[test]
    fn deterministic_per_seed_with_class() {
        use crate::npb::testutil::{check_generator, check_oblivious_generator};
        let build = |kind: &'static str| move |text: &str, seed| crate::build(kind, table(text), seed).unwrap();
        check_generator(build("cg"), "threads = 3\nclass = \"S\"\niterations = 2");
        check_generator(build("is"), "threads = 3\nclass = \"S\"\niterations = 2");
        check_generator(
            build("ep"),
            "threads = 3\nclass = \"S\"\npairs_log2 = 12\nblock_pairs = 256",
        );
        // MG's and FT's address streams do not depend on the seed (their modules say why; MG's
        // parallel set-up places v's twenty ±1 points, the only seeded addresses).
        check_oblivious_generator(
            build("mg"),
            "threads = 3\nclass = \"S\"\niterations = 1\ninit = \"serial\"",
        );
        check_oblivious_generator(build("ft"), "threads = 3\nclass = \"S\"\nnz = 4\niterations = 1");
        check_oblivious_generator(build("lu"), "threads = 3\nclass = \"S\"\niterations = 1");
        // The class reaches the stream: class S's matrix is not the default one.
        let cg_s =
            numasim_trace::collect_all(&mut *build("cg")("threads = 2\nclass = \"S\"\niterations = 1", 1)).unwrap();
        let cg_d = numasim_trace::collect_all(&mut *build("cg")("threads = 2\niterations = 1", 1)).unwrap();
        assert!(cg_s.iter().map(Vec::len).sum::<usize>() * 5 < cg_d.iter().map(Vec::len).sum::<usize>());
    }

    /// Bytes the five kernels lay out at `class`: (shared, per thread), from their `layout`
    /// functions (the ones `new` allocates with), without building class C. CG's stored
    /// triples are taken at their bound (`cg::triples_bound`).
    fn kernel_footprint(kind: &str, class: Class) -> (u64, u64) {
        use super::super::{cg, ep, ft, is, mg};
        let t = table(&format!("threads = 1\nclass = \"{}\"", class.name()));
        match kind {
            "is" => {
                let p = is::params(t).unwrap();
                let l = is::layout(&p);
                let rows = l[3].1 + l[4].1; // bucket_size + bucket_ptrs: one row per thread
                (l.iter().map(|a| a.1).sum::<u64>() - rows, rows)
            }
            "ep" => (0, ep::layout(&ep::params(t).unwrap()).iter().map(|a| a.1).sum()),
            "cg" => {
                let p = cg::params(t).unwrap();
                let triples = cg::triples_bound(p.rows, p.nonzeros_per_row);
                (cg::layout(p.rows, triples).iter().map(|a| a.1).sum(), 0)
            }
            "mg" => {
                let (levels, v) = mg::layout(&mg::params(t).unwrap());
                (levels.iter().map(|(u, r)| u + r).sum::<u64>() + v, 0)
            }
            "ft" => {
                let (shared, scratch) = ft::layout(&ft::params(t).unwrap());
                (shared.iter().map(|a| a.1).sum(), scratch.1)
            }
            _ => {
                let p: super::super::cfd::CfdParams = crate::params::parse(t).unwrap();
                let arrays = match kind {
                    "bt" => super::super::bt::Bt::new(p, 1).unwrap().arrays().clone(),
                    "sp" => super::super::sp::Sp::new(p, 1).unwrap().arrays().clone(),
                    _ => super::super::lu::Lu::new(p, 1).unwrap().arrays().clone(),
                };
                let shared = arrays.footprint_bytes(0);
                (shared, arrays.footprint_bytes(1) - shared)
            }
        }
    }

    /// The rows of docs/reference/npb-classes.md's footprint table, generated from the layouts: MB =
    /// 10⁶ bytes, "+ x t" the per-thread part for t threads.
    fn footprint_rows() -> Vec<String> {
        let hydm = [
            ("is", 1572),
            ("ep", 20),
            ("cg", 1102),
            ("mg", 3536),
            ("ft", 7188),
            ("bt", 1676),
            ("sp", 1416),
            ("lu", 760),
        ];
        hydm.iter()
            .map(|&(kind, mb)| {
                let cell = |c: Class| {
                    let (shared, per) = kernel_footprint(kind, c);
                    let bound = if kind == "cg" { "≤ " } else { "" };
                    let mut text = match (shared, per) {
                        (s, 0) => format!("{bound}{:.1}", s as f64 / 1e6),
                        (0, p) => format!("{:.3} t", p as f64 / 1e6),
                        (s, p) => format!("{:.1} + {:.3} t", s as f64 / 1e6, p as f64 / 1e6),
                    };
                    if kind == "ft" && c == Class::C {
                        text += " (refused)";
                    }
                    text
                };
                format!(
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    kind.to_uppercase(),
                    if mb >= 1000 {
                        format!("{},{:03}", mb / 1000, mb % 1000)
                    } else {
                        mb.to_string()
                    },
                    cell(Class::C),
                    cell(Class::S),
                    cell(Class::W),
                    cell(Class::A),
                    cell(Class::B)
                )
            })
            .collect()
    }

    /// docs/reference/npb-classes.md's footprint table is what the generators lay out.
    #[test]
    fn documented_footprints_are_the_layouts() {
        let doc = include_str!("../../../../docs/reference/npb-classes.md");
        for row in footprint_rows() {
            assert!(doc.contains(&row), "docs/reference/npb-classes.md lacks the row\n{row}");
        }
    }

    /// CG's footprint rows use the bound on `makea`'s triples; at class S and W the built
    /// matrix is within 1 % of it (a vector is one shorter only when it drew its own index),
    /// and merging repeated columns leaves 85–90 % of them.
    #[test]
    fn cg_triples_are_near_their_bound() {
        for class in ["S", "W"] {
            let p = super::super::cg::params(table(&format!("threads = 1\nclass = \"{class}\""))).unwrap();
            let bound = super::super::cg::triples_bound(p.rows, p.nonzeros_per_row);
            let cg = super::super::cg::Cg::new(p, 1).unwrap();
            let (triples, stored) = (cg.triples(), cg.nonzeros() as f64);
            assert!(
                triples <= bound && triples as f64 > 0.99 * bound as f64,
                "{class}: {triples} of {bound}"
            );
            assert!(
                (0.8..0.95).contains(&(stored / triples as f64)),
                "{class}: {stored} of {triples}"
            );
        }
    }
}
