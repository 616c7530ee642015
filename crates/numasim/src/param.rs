//! Typed parameter structs, each parameter declared once.
//!
//! Profilers, policies and the migration mechanism take their settings from flat keys in
//! `[migration]`. Each component declares its settings with `declare_params!`: one line per
//! parameter gives the field, its type, default, unit, allowed values and a one-line doc. The
//! macro turns that one declaration into
//! - the typed struct the component is built from (fields read by name in code are fields, so
//!   a misspelt name does not compile),
//! - its `Default` (the declared defaults),
//! - [`ParamSet::defs`]: the table that validation (`migrate::params::resolve`: unknown keys,
//!   types, ranges, words), `experiment.resolved.toml`, `numasim policy list` and
//!   `numasim params migration POLICY` all read, so none of them can drift from the struct.
//!
//! Why a `macro_rules!` and not a derive: a derive needs a proc-macro crate, and the
//! declaration has to carry ranges and units that serde's attributes cannot. The resolved
//! `[migration]` table stays a flat map of TOML values (written as it is to results.json and
//! the resolved experiment); [`ParamSet::from_table`] reads a struct from it after validation,
//! falling back to the declared default for a key the table lacks.
//!
//! Syntax (the doc comment must be one line; `..name: Type,` lines, at the end, embed another
//! declared set whose keys the struct shares, e.g. the TLB model's `tlb_entries`):
//! ```ignore
//! declare_params! {
//!     /// What the struct is.
//!     pub struct TikirParams {
//!         /// intervals a migrated page stays frozen (paper: 3)
//!         freeze_intervals: u64 = 3, unit "intervals", Check::Range(0.0, 1e6);
//!     }
//! }
//! ```

use serde::Serialize;
use std::collections::BTreeMap;

/// A parameter default, which also fixes its TOML type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamDefault {
    Int(i64),
    Float(f64),
    Str(&'static str),
}

impl ParamDefault {
    pub fn to_value(self) -> toml::Value {
        match self {
            ParamDefault::Int(i) => toml::Value::Integer(i),
            ParamDefault::Float(f) => toml::Value::Float(f),
            ParamDefault::Str(s) => toml::Value::String(s.to_string()),
        }
    }
    pub fn render(self) -> String {
        match self {
            ParamDefault::Int(i) => i.to_string(),
            ParamDefault::Float(f) => f.to_string(),
            ParamDefault::Str(s) => format!("\"{s}\""),
        }
    }
}

/// What values a parameter accepts.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// Numbers, inclusive.
    Range(f64, f64),
    /// Strings: one of these words (any string when empty).
    Words(&'static [&'static str]),
}

/// One documented parameter, as declared.
#[derive(Debug, Clone, Serialize)]
pub struct ParamDef {
    pub name: &'static str,
    pub default: ParamDefault,
    pub description: &'static str,
    /// Unit of the value (`"pages"`, `"cycles"`, `"fraction"`...; `"-"` for words).
    pub unit: &'static str,
    #[serde(skip)]
    pub check: Check,
}

impl ParamDef {
    /// Default as text (for tables).
    pub fn default_text(&self) -> String {
        self.default.render()
    }
}

/// A Rust type a parameter can have: how its declared default is written and read back.
pub trait ParamValue: Sized {
    /// The type of the default in the declaration (`&'static str` for strings).
    type Lit: Copy;
    fn from_lit(lit: Self::Lit) -> Self;
    fn default_of(lit: Self::Lit) -> ParamDefault;
    /// From a validated value in the resolved table.
    fn from_value(v: &toml::Value) -> Option<Self>;
}

impl ParamValue for u64 {
    type Lit = u64;
    fn from_lit(lit: u64) -> u64 {
        lit
    }
    fn default_of(lit: u64) -> ParamDefault {
        ParamDefault::Int(lit.min(i64::MAX as u64) as i64)
    }
    fn from_value(v: &toml::Value) -> Option<u64> {
        match v {
            toml::Value::Integer(i) => Some((*i).max(0) as u64),
            toml::Value::Float(f) => Some(f.max(0.0) as u64),
            _ => None,
        }
    }
}

impl ParamValue for f64 {
    type Lit = f64;
    fn from_lit(lit: f64) -> f64 {
        lit
    }
    fn default_of(lit: f64) -> ParamDefault {
        ParamDefault::Float(lit)
    }
    fn from_value(v: &toml::Value) -> Option<f64> {
        match v {
            toml::Value::Integer(i) => Some(*i as f64),
            toml::Value::Float(f) => Some(*f),
            _ => None,
        }
    }
}

impl ParamValue for String {
    type Lit = &'static str;
    fn from_lit(lit: &'static str) -> String {
        lit.to_string()
    }
    fn default_of(lit: &'static str) -> ParamDefault {
        ParamDefault::Str(lit)
    }
    fn from_value(v: &toml::Value) -> Option<String> {
        v.as_str().map(str::to_string)
    }
}

/// A declared set of parameters (implemented by `declare_params!`).
pub trait ParamSet: Sized {
    /// Every parameter with its default, unit, check and doc, in declaration order.
    fn defs() -> Vec<ParamDef>;
    /// The struct from a validated table; keys it lacks take their declared default.
    fn from_table(table: &BTreeMap<String, toml::Value>) -> Self;
}

/// The empty set (components without parameters).
impl ParamSet for () {
    fn defs() -> Vec<ParamDef> {
        Vec::new()
    }
    fn from_table(_: &BTreeMap<String, toml::Value>) -> Self {}
}

/// Declares a typed parameter struct; see the module docs.
macro_rules! declare_params {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                #[doc = $doc:literal]
                $field:ident : $ty:ty = $default:expr, unit $unit:literal, $check:expr;
            )*
            $( .. $flat:ident : $fty:ty, )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( #[doc = $doc] pub $field: $ty, )*
            $( pub $flat: $fty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $( $field: <$ty as $crate::param::ParamValue>::from_lit($default), )*
                    $( $flat: <$fty as Default>::default(), )*
                }
            }
        }

        impl $crate::param::ParamSet for $name {
            fn defs() -> Vec<$crate::param::ParamDef> {
                #[allow(unused_imports)]
                use $crate::param::Check;
                #[allow(unused_mut)]
                let mut v = vec![$(
                    $crate::param::ParamDef {
                        name: stringify!($field),
                        default: <$ty as $crate::param::ParamValue>::default_of($default),
                        description: $doc.trim_ascii(),
                        unit: $unit,
                        check: $check,
                    },
                )*];
                $( v.extend(<$fty as $crate::param::ParamSet>::defs()); )*
                v
            }
            #[allow(unused_variables)]
            fn from_table(table: &std::collections::BTreeMap<String, toml::Value>) -> Self {
                $name {
                    $(
                        $field: table
                            .get(stringify!($field))
                            .and_then(<$ty as $crate::param::ParamValue>::from_value)
                            .unwrap_or_else(|| <$ty as $crate::param::ParamValue>::from_lit($default)),
                    )*
                    $( $flat: <$fty as $crate::param::ParamSet>::from_table(table), )*
                }
            }
        }
    };
}
pub(crate) use declare_params;

#[cfg(test)]
mod tests {
    use super::*;

    declare_params! {
        /// A test set.
        pub struct Inner {
            /// entries of something
            inner_entries: u64 = 64, unit "entries", Check::Range(1.0, 100.0);
        }
    }
    declare_params! {
        /// Another.
        pub struct Outer {
            /// a share of pages
            share_fraction: f64 = 0.25, unit "fraction", Check::Range(0.0, 1.0);
            /// which node
            node: String = "", unit "-", Check::Words(&[]);
            ..inner: Inner,
        }
    }

    #[test]
    fn one_declaration_gives_struct_defaults_table_and_reader() {
        let d = Outer::default();
        assert_eq!(
            (d.share_fraction, d.node.as_str(), d.inner.inner_entries),
            (0.25, "", 64)
        );
        let defs = Outer::defs();
        let names: Vec<&str> = defs.iter().map(|d| d.name).collect();
        assert_eq!(names, ["share_fraction", "node", "inner_entries"]);
        assert_eq!(defs[0].description, "a share of pages");
        assert_eq!(defs[2].unit, "entries");
        assert_eq!(defs[2].default, ParamDefault::Int(64));
        let mut t = BTreeMap::new();
        t.insert("inner_entries".to_string(), toml::Value::Integer(8));
        t.insert("share_fraction".to_string(), toml::Value::Integer(1));
        let o = Outer::from_table(&t);
        assert_eq!((o.share_fraction, o.inner.inner_entries, o.node.as_str()), (1.0, 8, ""));
    }
}
