//! Parameters, each declared once.
//!
//! Every configurable key of numasim (`[timing]`, `[workload]`, `[migration]`) is declared with
//! [`declare_params!`](crate::declare_params): one line per parameter gives the field, its
//! type, default, unit, allowed values and a one-line meaning. The macro turns that one
//! declaration into
//! - the typed struct the code reads (a misspelt field does not compile),
//! - its `Default` (the declared defaults),
//! - the table of [`ParamDef`]s that validation ([`ParamDef::refuse`]), the resolved
//!   experiment, `numasim params` and the generated parameter reference all read, so none of
//!   them can drift from the struct.
//!
//! Two storage forms share the declaration syntax:
//! - `pub struct X { ... }`: read from a flat map of TOML values ([`ParamSet::from_table`]),
//!   for `[migration]`, whose keys belong to several components at once;
//! - `pub section struct X { ... }`: a strict serde struct (unknown keys refused, missing keys
//!   take the default) for a TOML section of its own; [`ParamSection::check_ranges`] checks
//!   each field against its declared range after deserialising. Fields may be of any type
//!   with a [`ParamKind`] (numbers, `bool`, `String`, word enums, `Option`s and arrays).
//!
//! Why a `macro_rules!` and not a derive: a derive needs a proc-macro crate, and the
//! declaration has to carry ranges and units that serde's attributes cannot.
//!
//! Syntax (one doc line per parameter; in the flat form, `..name: Type,` lines at the end embed
//! another declared set whose keys the struct shares; in the section form, a field may carry
//! serde attributes after its doc line and, when its default is unset, `unset "text"` saying
//! what unset means; a field written without `= default` is required: a file must give it, and
//! [`missing_required`] finds the first one a table lacks):
//! ```ignore
//! declare_params! {
//!     /// What the struct is.
//!     pub struct TikirParams {
//!         /// intervals a migrated page stays frozen (paper: 3)
//!         freeze_intervals: u64 = 3, unit "intervals", Check::Range(0.0, 1e6);
//!     }
//! }
//! declare_params! {
//!     /// A section.
//!     #[derive(PartialEq)]
//!     pub section struct StreamParams {
//!         /// OpenMP threads
//!         threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
//!         /// fixed source vertex
//!         source: Option<u64> = None, unit "vertex", Check::Any, unset "random";
//!     }
//! }
//! ```

use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

#[doc(hidden)]
pub use toml as __toml;

/// A parameter's default, which also fixes its TOML type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamDefault {
    Int(i64),
    Float(f64),
    Str(Cow<'static, str>),
    Bool(bool),
    /// A default with no scalar form (an array), as TOML text.
    Toml(String),
    /// No default: the key stays unset unless given; the text says what unset means.
    Unset(Cow<'static, str>),
    /// No default: the key must be given.
    Required,
}

impl ParamDefault {
    /// The default of a TOML value.
    pub fn from_toml(v: toml::Value) -> ParamDefault {
        match v {
            toml::Value::Integer(i) => ParamDefault::Int(i),
            toml::Value::Float(f) => ParamDefault::Float(f),
            toml::Value::String(s) => ParamDefault::Str(Cow::Owned(s)),
            toml::Value::Boolean(b) => ParamDefault::Bool(b),
            other => ParamDefault::Toml(other.to_string()),
        }
    }

    /// The default of a field's value (`unset` when it has no TOML form: an unset option).
    pub fn of<T: Serialize>(value: &T, unset: &'static str) -> ParamDefault {
        match toml::Value::try_from(value) {
            Ok(v) => ParamDefault::from_toml(v),
            Err(_) => ParamDefault::Unset(Cow::Borrowed(unset)),
        }
    }

    /// The default as a TOML value; `None` when unset.
    pub fn to_value(&self) -> Option<toml::Value> {
        Some(match self {
            ParamDefault::Int(i) => toml::Value::Integer(*i),
            ParamDefault::Float(f) => toml::Value::Float(*f),
            ParamDefault::Str(s) => toml::Value::String(s.to_string()),
            ParamDefault::Bool(b) => toml::Value::Boolean(*b),
            ParamDefault::Toml(text) => format!("v = {text}").parse::<toml::Table>().ok()?.remove("v")?,
            ParamDefault::Unset(_) | ParamDefault::Required => return None,
        })
    }

    /// The default as TOML text (`16`, `0.5`, `"triad"`), or what unset means.
    pub fn render(&self) -> String {
        match self {
            ParamDefault::Toml(text) => text.clone(),
            ParamDefault::Unset(text) => text.to_string(),
            ParamDefault::Required => "required".to_string(),
            other => other.to_value().map(|v| v.to_string()).unwrap_or_default(),
        }
    }
}

/// What values a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Numbers, inclusive.
    Range(f64, f64),
    /// Numbers above the first (exclusive) and at most the second.
    Above(f64, f64),
    /// Numbers from the first and below the second (exclusive).
    Below(f64, f64),
    /// Strings: one of these words (any string when empty).
    Words(&'static [&'static str]),
    /// Whatever the type accepts (word enums check their words when parsed; booleans, arrays).
    Any,
}

impl Check {
    /// What the check accepts, as text (empty when it accepts anything of its type).
    pub fn allowed_text(&self) -> String {
        match self {
            Check::Range(lo, hi) if lo == hi => format!("{lo}"),
            Check::Range(lo, hi) if *hi >= HUGE => format!("≥ {lo}"),
            Check::Range(lo, hi) => format!("{lo} … {hi}"),
            Check::Above(lo, hi) if *hi >= HUGE => format!("> {lo}"),
            Check::Above(lo, hi) => format!("> {lo}, ≤ {hi}"),
            Check::Below(lo, hi) => format!("≥ {lo}, < {hi}"),
            Check::Words([]) => "any string".into(),
            Check::Words(w) => w.join(", "),
            Check::Any => String::new(),
        }
    }
}

/// Upper bounds from here on are the type's limit, not a choice (shown as "at least").
const HUGE: f64 = 9.0e15;

/// One documented parameter, as declared.
#[derive(Debug, Clone, Serialize)]
pub struct ParamDef {
    pub name: &'static str,
    /// TOML type: `integer`, `float`, `string`, `bool` or `array`.
    #[serde(rename = "type")]
    pub kind: &'static str,
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

    /// What the parameter must be, in words (`an integer in 1..=4096`).
    pub fn wanted(&self) -> String {
        match (self.kind, self.check) {
            (_, Check::Range(lo, hi)) if lo == hi => format!("{lo}"),
            ("string", Check::Words(w)) if !w.is_empty() => format!("one of {}", w.join(", ")),
            ("string", _) => "a string".to_string(),
            ("integer", Check::Range(lo, hi)) if hi >= HUGE => format!("an integer of at least {lo}"),
            ("integer", Check::Range(lo, hi)) => format!("an integer in {lo}..={hi}"),
            ("integer", _) => "an integer".to_string(),
            (_, Check::Range(lo, hi)) if hi >= HUGE => format!("a number of at least {lo}"),
            (_, Check::Range(lo, hi)) => format!("a number in {lo}..={hi}"),
            (_, Check::Above(lo, hi)) if hi >= HUGE => format!("a number above {lo}"),
            (_, Check::Above(lo, hi)) => format!("a number above {lo} and at most {hi}"),
            (_, Check::Below(lo, hi)) => format!("a number from {lo} and below {hi}"),
            ("bool", _) => "true or false".to_string(),
            ("array", _) => "an array".to_string(),
            _ => "a valid value".to_string(),
        }
    }

    /// Why a TOML value is refused (`must be ...`), or `None` when it is accepted.
    pub fn refuse(&self, value: &toml::Value) -> Option<String> {
        let ok = match (self.kind, value) {
            ("integer", toml::Value::Integer(i)) => in_range(self.check, *i as f64),
            ("float", toml::Value::Float(f)) => in_range(self.check, *f),
            ("float", toml::Value::Integer(i)) => in_range(self.check, *i as f64),
            ("string", toml::Value::String(s)) => match self.check {
                Check::Words(words) => words.is_empty() || words.contains(&s.as_str()),
                _ => true,
            },
            ("bool", toml::Value::Boolean(_)) => true,
            ("array", toml::Value::Array(_)) => true,
            _ => false,
        };
        (!ok).then(|| format!("must be {}", self.wanted()))
    }

    /// Why a field's value is refused, or `None` (checks numbers against the range and words
    /// against the list; an unset option is accepted).
    pub fn refuse_field<T: ParamKind + ?Sized>(&self, value: &T) -> Option<String> {
        if let Some(x) = value.number() {
            if !in_range(self.check, x) {
                let got = match self.kind {
                    "integer" => format!("{}", x as i128),
                    _ => format!("{x}"),
                };
                return Some(format!("must be {}, got {got}", self.wanted()));
            }
        }
        if let (Some(w), Check::Words(words)) = (value.word(), self.check) {
            if !words.is_empty() && !words.contains(&w) {
                return Some(format!("must be {}, got `{w}`", self.wanted()));
            }
        }
        None
    }
}

fn in_range(check: Check, x: f64) -> bool {
    match check {
        Check::Range(lo, hi) => x.is_finite() && x >= lo && x <= hi,
        Check::Above(lo, hi) => x.is_finite() && x > lo && x <= hi,
        Check::Below(lo, hi) => x.is_finite() && x >= lo && x < hi,
        _ => true,
    }
}

/// What a field's type is in TOML, and its value as a number or word for range checks.
/// Word enums implement it with the defaults (`impl ParamKind for MyEnum {}`).
pub trait ParamKind {
    const KIND: &'static str = "string";
    /// The value as a number (numbers; a set option of a number).
    fn number(&self) -> Option<f64> {
        None
    }
    /// The value as a free string (strings; a set option of a string).
    fn word(&self) -> Option<&str> {
        None
    }
}

macro_rules! numeric_kind {
    ($kind:literal: $($t:ty),*) => {
        $( impl ParamKind for $t {
            const KIND: &'static str = $kind;
            fn number(&self) -> Option<f64> {
                Some(*self as f64)
            }
        } )*
    };
}
numeric_kind!("integer": u8, u16, u32, u64, usize, i32, i64);
numeric_kind!("float": f32, f64);

impl ParamKind for bool {
    const KIND: &'static str = "bool";
}

impl ParamKind for String {
    fn word(&self) -> Option<&str> {
        Some(self)
    }
}

impl<T: ParamKind> ParamKind for Option<T> {
    const KIND: &'static str = T::KIND;
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(ParamKind::number)
    }
    fn word(&self) -> Option<&str> {
        self.as_ref().and_then(ParamKind::word)
    }
}

impl<T> ParamKind for Vec<T> {
    const KIND: &'static str = "array";
}

impl<K, V> ParamKind for BTreeMap<K, V> {
    const KIND: &'static str = "table";
}

impl<T, const N: usize> ParamKind for [T; N] {
    const KIND: &'static str = "array";
}

/// A Rust type a flat-table parameter can have: how its declared default is written and
/// read back.
pub trait ParamValue: ParamKind + Sized {
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
        ParamDefault::Str(Cow::Borrowed(lit))
    }
    fn from_value(v: &toml::Value) -> Option<String> {
        v.as_str().map(str::to_string)
    }
}

/// A declared flat set of parameters (`declare_params!` without `section`).
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

/// A declared section (`declare_params!` with `section`).
pub trait ParamSection: Sized {
    /// Every parameter with its default, unit, check and doc, in declaration order.
    fn defs() -> Vec<ParamDef>;
    /// The first field outside its declared range: `Err((key, message))`.
    fn check_ranges(&self) -> Result<(), (&'static str, String)>;
}

/// The key of a field: its name without the raw-identifier prefix (`r#type` is `type`).
pub fn key_name(field: &'static str) -> &'static str {
    field.strip_prefix("r#").unwrap_or(field)
}

/// The first required parameter (declared without a default) that `table` does not give.
pub fn missing_required<'a>(defs: &'a [ParamDef], table: &toml::Table) -> Option<&'a ParamDef> {
    defs.iter()
        .find(|d| d.default == ParamDefault::Required && !table.contains_key(d.name))
}

/// Declares a typed parameter struct; see the module docs of [`param`](crate::param).
#[macro_export]
macro_rules! declare_params {
    (
        $(#[$smeta:meta])*
        pub section struct $name:ident {
            $(
                #[doc = $doc:expr]
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty $(= $default:expr)?, unit $unit:literal, $check:expr $(, unset $unset:literal)?;
            )*
        }
    ) => {
        $(#[$smeta])*
        #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $crate::declare_params!(@value $($default)?), )* }
            }
        }

        impl $name {
            /// Every key the struct accepts, in declaration order.
            #[allow(dead_code)]
            pub const KEYS: &'static [&'static str] = &[$( stringify!($field) ),*];

            /// Every parameter as declared, defaults rendered from `Default`.
            #[allow(unused_variables)]
            pub fn defs() -> Vec<$crate::param::ParamDef> {
                #[allow(unused_imports)]
                use $crate::param::Check;
                let d = Self::default();
                vec![$(
                    $crate::param::ParamDef {
                        name: $crate::param::key_name(stringify!($field)),
                        kind: <$ty as $crate::param::ParamKind>::KIND,
                        default: $crate::declare_params!(@default [$($default)?] d.$field, $crate::declare_params!(@unset $($unset)?)),
                        description: $doc.trim_ascii(),
                        unit: $unit,
                        check: $check,
                    }
                ),*]
            }

            /// The first field outside its declared range: `Err((key, message))`.
            pub fn check_ranges(&self) -> Result<(), (&'static str, String)> {
                #[allow(unused_imports)]
                use $crate::param::Check;
                $(
                    let def = $crate::param::ParamDef {
                        name: $crate::param::key_name(stringify!($field)),
                        kind: <$ty as $crate::param::ParamKind>::KIND,
                        default: $crate::param::ParamDefault::Unset(std::borrow::Cow::Borrowed("")),
                        description: "",
                        unit: $unit,
                        check: $check,
                    };
                    if let Some(message) = def.refuse_field(&self.$field) {
                        return Err(($crate::param::key_name(stringify!($field)), message));
                    }
                )*
                Ok(())
            }
        }

        impl $crate::param::ParamKind for $name {
            const KIND: &'static str = "table";
        }

        impl $crate::param::ParamSection for $name {
            fn defs() -> Vec<$crate::param::ParamDef> {
                $name::defs()
            }
            fn check_ranges(&self) -> Result<(), (&'static str, String)> {
                $name::check_ranges(self)
            }
        }
    };
    (@value $default:expr) => { $default };
    (@value) => { Default::default() };
    (@default [] $value:expr, $unset:expr) => { $crate::param::ParamDefault::Required };
    (@default [$default:expr] $value:expr, $unset:expr) => { $crate::param::ParamDefault::of(&$value, $unset) };
    (@unset $text:literal) => { $text };
    (@unset) => { "(unset)" };
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
                        name: $crate::param::key_name(stringify!($field)),
                        kind: <$ty as $crate::param::ParamKind>::KIND,
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
            fn from_table(
                table: &std::collections::BTreeMap<String, $crate::param::__toml::Value>,
            ) -> Self {
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
        assert_eq!(
            (defs[0].kind, defs[1].kind, defs[2].kind),
            ("float", "string", "integer")
        );
        assert_eq!(defs[2].unit, "entries");
        assert_eq!(defs[2].default, ParamDefault::Int(64));
        let mut t = BTreeMap::new();
        t.insert("inner_entries".to_string(), toml::Value::Integer(8));
        t.insert("share_fraction".to_string(), toml::Value::Integer(1));
        let o = Outer::from_table(&t);
        assert_eq!((o.share_fraction, o.inner.inner_entries, o.node.as_str()), (1.0, 8, ""));
        assert_eq!(
            defs[2].refuse(&toml::Value::Integer(101)).as_deref(),
            Some("must be an integer in 1..=100")
        );
        assert_eq!(
            defs[2].refuse(&toml::Value::Float(5.0)).as_deref(),
            Some("must be an integer in 1..=100")
        );
        assert_eq!(defs[0].refuse(&toml::Value::Integer(1)), None);
    }

    #[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Mode {
        Fast,
        Slow,
    }
    impl ParamKind for Mode {}

    declare_params! {
        /// A section.
        #[derive(PartialEq)]
        pub section struct Sect {
            /// threads
            threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
            /// a mode
            mode: Mode = Mode::Fast, unit "-", Check::Any;
            /// an optional fraction
            #[serde(skip_serializing_if = "Option::is_none")]
            share: Option<f64> = None, unit "fraction", Check::Range(0.0, 1.0), unset "all";
            /// a mapping
            mapping: String = "ab".into(), unit "-", Check::Words(&["ab", "ba"]);
        }
    }

    #[test]
    fn a_section_declares_its_serde_struct_table_and_ranges() {
        let s: Sect = toml::from_str("threads = 4\nmode = \"slow\"").unwrap();
        assert_eq!((s.threads, s.mode, s.share), (4, Mode::Slow, None));
        assert!(
            toml::from_str::<Sect>("thread = 4").is_err(),
            "unknown keys are refused"
        );
        assert_eq!(Sect::KEYS, ["threads", "mode", "share", "mapping"]);
        let defs = Sect::defs();
        let rendered: Vec<(&str, &str, String)> = defs.iter().map(|d| (d.name, d.kind, d.default_text())).collect();
        assert_eq!(
            rendered,
            [
                ("threads", "integer", "16".to_string()),
                ("mode", "string", "\"fast\"".to_string()),
                ("share", "float", "all".to_string()),
                ("mapping", "string", "\"ab\"".to_string()),
            ]
        );
        assert_eq!(defs[2].default.to_value(), None);
        s.check_ranges().unwrap();
        let bad = |t: &str| toml::from_str::<Sect>(t).unwrap().check_ranges().unwrap_err();
        assert_eq!(
            bad("threads = 0"),
            ("threads", "must be an integer in 1..=4096, got 0".to_string())
        );
        assert_eq!(bad("share = 1.5").0, "share");
        assert_eq!(bad("mapping = \"cd\"").0, "mapping");
    }

    declare_params! {
        /// A section with a required key.
        pub section struct Needs {
            /// a name
            name: String, unit "-", Check::Words(&[]);
            /// cores
            cores: u32 = 2, unit "cores", Check::Range(1.0, 64.0);
            /// the only line size
            line_bytes: u32 = 64, unit "bytes", Check::Range(64.0, 64.0);
        }
    }

    #[test]
    fn a_key_without_default_is_required() {
        let defs = Needs::defs();
        assert_eq!(defs[0].default, ParamDefault::Required);
        assert_eq!(defs[0].default_text(), "required");
        let given: toml::Table = "name = \"a\"".parse().unwrap();
        assert!(missing_required(&defs, &given).is_none());
        let lacking: toml::Table = "cores = 3".parse().unwrap();
        assert_eq!(missing_required(&defs, &lacking).map(|d| d.name), Some("name"));
        let n: Needs = toml::from_str("cores = 3\nline_bytes = 32").unwrap();
        assert_eq!(n.check_ranges(), Err(("line_bytes", "must be 64, got 32".to_string())));
    }
}
