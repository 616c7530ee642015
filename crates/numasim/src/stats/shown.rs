//! How a report block of results.json is written from declared statistics.
//!
//! A report block (the node controllers', a phase's timing) is a list of [`Shown`] entries in
//! the order results.json writes them: each a key, its unit and meaning, and how its value is
//! read from the block. An entry that writes a declared counter as it is takes its key, unit
//! and meaning from the counter's declaration ([`Shown::counter`]), so they are written once;
//! derived figures (means, totals) are entries of their own. The same list serialises the
//! block ([`serialize`]) and gives the rows of the results reference and its JSON Schema
//! ([`Block::rows`]), so the three cannot drift apart.

use numasim_output::stat::StatDef;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

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

/// One key of a report block.
pub struct Shown<R> {
    pub key: &'static str,
    pub shape: Shape,
    pub unit: &'static str,
    pub meaning: &'static str,
    /// The value, or `None` when the key is left out.
    pub value: fn(&R) -> Option<Value>,
}

impl<R> Shown<R> {
    /// A key of its own (a derived figure or a setting).
    pub const fn new(
        key: &'static str,
        shape: Shape,
        unit: &'static str,
        meaning: &'static str,
        value: fn(&R) -> Option<Value>,
    ) -> Self {
        Shown {
            key,
            shape,
            unit,
            meaning,
            value,
        }
    }

    /// A declared counter written under its own name, unit and meaning.
    pub const fn counter(def: &'static StatDef, shape: Shape, value: fn(&R) -> Option<Value>) -> Self {
        Shown {
            key: def.name,
            shape,
            unit: def.unit,
            meaning: def.meaning,
            value,
        }
    }
}

/// Writes `r` as the object `list` declares, keys in list order.
pub fn serialize<R, S: Serializer>(r: &R, list: &[Shown<R>], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    for e in list {
        if let Some(v) = (e.value)(r) {
            m.serialize_entry(e.key, &v)?;
        }
    }
    m.end()
}

/// One row of the results reference: key pattern, unit, meaning.
pub type Row = (String, &'static str, String);

/// A declared block as the reference lists it: where it sits in results.json and its keys.
pub trait Block: Sized + 'static {
    const SHOWN: &'static [Shown<Self>];

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

/// A number as a JSON value (`null` when not finite, as serde_json writes it).
pub fn num<T: Into<Value>>(x: T) -> Option<Value> {
    Some(x.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_output::stat::Stats;

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
    }

    const LIST: &[Shown<Report>] = &[
        Shown::new("note", Shape::Value, "—", "a note, when there is one", |r| {
            r.note.map(Value::from)
        }),
        Shown::counter(numasim_output::stat::find(Counts::STATS, "reads"), Shape::Value, |r| {
            num(r.counts.reads)
        }),
        Shown::new("mean_read_ns", Shape::Value, "ns", "their mean time", |r| {
            num(r.counts.read_ps as f64 / r.counts.reads.max(1) as f64 / 1000.0)
        }),
        Shown::new("by_name", Shape::Names, "reads", "reads by name", |_| None),
    ];

    impl Block for Report {
        const SHOWN: &'static [Shown<Self>] = LIST;
    }

    impl serde::Serialize for Report {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize(self, LIST, s)
        }
    }

    #[test]
    fn keys_are_written_in_list_order_and_absent_values_are_left_out() {
        let r = Report {
            counts: Counts {
                reads: 4,
                read_ps: 10_000,
            },
            note: None,
        };
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"reads":4,"mean_read_ns":2.5}"#);
        let r = Report { note: Some("x"), ..r };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"note":"x","reads":4,"mean_read_ns":2.5}"#
        );
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
        assert_eq!(rows[3].0, "a.b.by_name.*");
        assert_eq!(Counts::def("read_ps").unit, "ps");
    }
}
