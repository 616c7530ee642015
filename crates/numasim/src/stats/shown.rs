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
