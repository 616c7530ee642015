//! How a report block of results.json is written from declared statistics.
//!
//! A report block (the node controllers', a phase's timing) is declared with
//! [`declare_report!`](crate::declare_report): one entry per key, in the order results.json
//! writes them, each with its shape, its unit and meaning, and how its value is read from the
//! block. An entry that writes a declared counter as it is says `(counter Type)` and takes its
//! unit and meaning from the counter's declaration, so they are written once; derived figures
//! (means, totals) give their own. The one declaration writes the block (its `Serialize`, keys
//! in declaration order, values serialised directly) and gives the rows of the results
//! reference and its JSON Schema ([`Block::rows`]), so the three cannot drift apart.
//!
//! Syntax (`r` names the block in the value expression, which returns an `Option` of anything
//! serialisable; `None` leaves the key out):
//! ```ignore
//! declare_report! {
//!     /// The keys of the block.
//!     pub const NC_REPORT for NcReport {
//!         cycle_ns: Value ("ns", "node controller cycle") = |r| Some(r.cycle_ns());
//!         bounces: Value (counter NcStats) = |r| Some(r.counts.bounces);
//!     }
//! }
//! ```

pub use numasim_output::stat::{find, StatDef, Stats};

/// What a key holds, as the results reference writes its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A number, string or `null` (`key`).
    Value,
    /// An object of numbers keyed by names (`key.*`).
    Names,
    /// An array of numbers (`key[]`).
    Array,
    /// An object of arrays keyed by names (`key.*[]`).
    NamesArray,
    /// An object whose keys are documented by rows of their own (no row for the key itself).
    Nested,
}

/// One key of a report block, as declared.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    pub key: &'static str,
    pub shape: Shape,
    pub unit: &'static str,
    pub meaning: &'static str,
}

impl Shown {
    /// The key of a declared counter, with the counter's unit and meaning (a key no counter
    /// of `defs` has fails to compile).
    pub const fn counter(key: &'static str, shape: Shape, defs: &'static [StatDef]) -> Self {
        let d = find(defs, key);
        Shown {
            key,
            shape,
            unit: d.unit,
            meaning: d.meaning,
        }
    }
}

/// One row of the results reference: key pattern, unit, meaning.
pub type Row = (String, &'static str, String);

/// A declared block (see [`declare_report!`](crate::declare_report)).
pub trait Block {
    const SHOWN: &'static [Shown];

    /// The reference rows of the block at `prefix` (`timing.node_controllers`), each meaning
    /// preceded by `lead` (`"over the phase: "`, or empty).
    fn rows(prefix: &str, lead: &str) -> Vec<Row> {
        Self::SHOWN
            .iter()
            .filter(|e| e.shape != Shape::Nested)
            .map(|e| {
                let suffix = match e.shape {
                    Shape::Names => ".*",
                    Shape::Array => "[]",
                    Shape::NamesArray => ".*[]",
                    _ => "",
                };
                (
                    format!("{prefix}.{}{suffix}", e.key),
                    e.unit,
                    format!("{lead}{}", e.meaning),
                )
            })
            .collect()
    }
}

/// Declares a report block's keys once: its `Serialize` and its [`Block`] rows (module docs of
/// [`shown`](crate::stats::shown)).
#[macro_export]
macro_rules! declare_report {
    (
        $(#[doc = $doc:literal])*
        $vis:vis const $list:ident for $ty:ty {
            $( $key:ident : $shape:ident $src:tt = |$r:ident| $body:expr; )*
        }
    ) => {
        $(#[doc = $doc])*
        $vis const $list: &[$crate::stats::shown::Shown] = &[$(
            $crate::declare_report!(@def $key $shape $src)
        ),*];

        impl $crate::stats::shown::Block for $ty {
            const SHOWN: &'static [$crate::stats::shown::Shown] = $list;
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                $( {
                    #[allow(unused_variables)]
                    let $r: &Self = self;
                    if let Some(v) = $body {
                        m.serialize_entry(stringify!($key), &v)?;
                    }
                } )*
                m.end()
            }
        }
    };
    (@def $key:ident $shape:ident ($unit:literal, $meaning:literal)) => {
        $crate::stats::shown::Shown {
            key: stringify!($key),
            shape: $crate::stats::shown::Shape::$shape,
            unit: $unit,
            meaning: $meaning,
        }
    };
    (@def $key:ident $shape:ident (counter $stats:ty)) => {
        $crate::stats::shown::Shown::counter(
            stringify!($key),
            $crate::stats::shown::Shape::$shape,
            <$stats as $crate::stats::shown::Stats>::STATS,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    numasim_output::declare_stats! {
        /// Counters of a test block.
        #[derive(Debug, Clone, Default)]
        pub struct Counts {
            /// reads served
            reads: u64, Sum, unit "reads";
            /// their summed time
            read_ps: u64, Sum, unit "ps";
        }
    }

    struct Report {
        counts: Counts,
        note: Option<&'static str>,
        inner: Inner,
    }

    #[derive(serde::Serialize)]
    struct Inner {
        z: u64,
        a: u64,
    }

    crate::declare_report! {
        /// A test block.
        const LIST for Report {
            note: Value ("—", "a note, when there is one") = |r| r.note;
            reads: Value (counter Counts) = |r| Some(r.counts.reads);
            mean_read_ns: Value ("ns", "their mean time") =
                |r| Some(r.counts.read_ps as f64 / r.counts.reads.max(1) as f64 / 1000.0);
            inner: Nested ("—", "a nested object") = |r| Some(&r.inner);
            by_name: Names ("reads", "reads by name") = |r| None::<u64>;
        }
    }

    #[test]
    fn keys_are_written_in_declaration_order_nested_ones_unsorted_absent_ones_left_out() {
        let r = Report {
            counts: Counts {
                reads: 4,
                read_ps: 10_000,
            },
            note: None,
            inner: Inner { z: 1, a: 2 },
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"reads":4,"mean_read_ns":2.5,"inner":{"z":1,"a":2}}"#
        );
        let r = Report { note: Some("x"), ..r };
        assert!(serde_json::to_string(&r)
            .unwrap()
            .starts_with(r#"{"note":"x","reads":4,"#));
    }

    #[test]
    fn rows_take_a_counters_unit_and_meaning_from_its_declaration() {
        let rows = Report::rows("a.b", "over the phase: ");
        assert_eq!(
            rows[1],
            (
                "a.b.reads".to_string(),
                "reads",
                "over the phase: reads served".to_string()
            )
        );
        assert_eq!(rows.len(), 4, "no row for the nested object");
        assert_eq!(rows[3].0, "a.b.by_name.*");
        assert_eq!(LIST.len(), 5);
        assert_eq!(Counts::def("read_ps").unit, "ps");
    }
}
