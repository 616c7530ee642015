//! Strict parsing of a generator's parameter table (unknown keys are errors).

use crate::registry::WorkloadError;
use serde::de::DeserializeOwned;

/// Deserializes `table` (the `[workload]` section without `kind`) into a generator's
/// parameter struct; the error carries the key path inside the section.
pub fn parse<T: DeserializeOwned>(table: toml::Table) -> Result<T, WorkloadError> {
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize(value).map_err(|err| {
        let key = err.path().to_string();
        let key = if key == "." { String::new() } else { key };
        WorkloadError {
            key,
            message: err.into_inner().message().trim().to_string(),
        }
    })
}

/// Validation helper: returns an error for `key` unless `ok`.
pub fn check(ok: bool, key: &str, message: impl Into<String>) -> Result<(), WorkloadError> {
    if ok {
        Ok(())
    } else {
        Err(WorkloadError {
            key: key.to_string(),
            message: message.into(),
        })
    }
}

/// Declares a generator's parameter struct once: each line gives the field, its type, its
/// default and the one-line description `workload list` prints (optionally the text shown as
/// the default when the value has no TOML form, e.g. `"random"` for an unset option).
///
/// From that one declaration come the struct (strict: unknown keys are errors, missing keys
/// take the default), its `Default`, `KEYS` (the accepted keys in declaration order) and
/// `param_docs()` (the documentation `workload list`, `numasim params workload` and the
/// registry test read, with each default rendered from the `Default` value itself), so the
/// documented defaults cannot drift from the code's.
///
/// ```ignore
/// workload_params! {
///     /// STREAM's parameters.
///     pub struct StreamParams {
///         threads: usize = 16 => "OpenMP threads (access streams)";
///         seed_vertex: Option<u64> = None => "fixed source vertex", shown "random";
///     }
/// }
/// ```
#[macro_export]
macro_rules! workload_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $field:ident : $ty:ty = $default:expr => $desc:expr $(, shown $shown:expr)? ; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $name {
            /// Every key the struct accepts, in declaration order.
            #[allow(dead_code)]
            pub const KEYS: &'static [&'static str] = &[$( stringify!($field) ),*];

            /// The documentation of every key, defaults rendered from `Default`.
            pub fn param_docs() -> Vec<$crate::registry::ParamDoc> {
                let d = Self::default();
                vec![$(
                    $crate::registry::ParamDoc {
                        name: stringify!($field),
                        default: $crate::params::render_default(&d.$field, None $( .or(Some($shown)) )?),
                        description: $desc,
                    }
                ),*]
            }
        }
    };
}

/// The TOML text of a default value (`16`, `"triad"`, `0.5`); `shown` when given, or when the
/// value has no TOML form (an unset option), `"(unset)"`.
pub fn render_default<T: serde::Serialize>(value: &T, shown: Option<&str>) -> String {
    if let Some(shown) = shown {
        return shown.to_string();
    }
    match toml::Value::try_from(value) {
        Ok(v) => v.to_string(),
        Err(_) => "(unset)".to_string(),
    }
}

/// Replaces the shown default or the description of one key in a generator's documentation
/// (for keys whose default or meaning depends on the generator sharing the struct).
pub fn adjust_doc(
    docs: &mut [crate::registry::ParamDoc],
    name: &str,
    default: Option<String>,
    description: Option<&'static str>,
) {
    for d in docs.iter_mut().filter(|d| d.name == name) {
        if let Some(text) = &default {
            d.default = text.clone();
        }
        if let Some(text) = description {
            d.description = text;
        }
    }
}
