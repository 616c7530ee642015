//! Strict parsing of a generator's parameter table (unknown keys are errors, values outside
//! their declared range too).
//!
//! Each generator declares its parameters once with `numasim_config::declare_params!`
//! (`pub section struct`): field, type, default, unit, range and the one-line description
//! `workload list`, `numasim params workload` and the generated reference print. Rules that
//! tie two keys together (at least one item per thread, a power of two) stay in the
//! generator's constructor.

use crate::registry::WorkloadError;
use numasim_config::param::{ParamDef, ParamDefault, ParamSection};
use serde::de::DeserializeOwned;

/// Deserializes `table` (the `[workload]` section without `kind`) into a generator's
/// parameter struct and checks the declared ranges; the error carries the key path inside the
/// section.
pub fn parse<T: DeserializeOwned + ParamSection>(table: toml::Table) -> Result<T, WorkloadError> {
    let value = toml::Value::Table(table);
    let p: T = serde_path_to_error::deserialize(value).map_err(|err| {
        let key = err.path().to_string();
        let key = if key == "." { String::new() } else { key };
        WorkloadError {
            key,
            message: err.into_inner().message().trim().to_string(),
        }
    })?;
    checked(p)
}

/// `p` when every field is within its declared range.
pub fn checked<T: ParamSection>(p: T) -> Result<T, WorkloadError> {
    in_range(&p)?;
    Ok(p)
}

/// Checks every field of `p` against its declared range (constructors call it too, so a
/// struct built in code is held to the same ranges as one parsed from TOML).
pub fn in_range<T: ParamSection>(p: &T) -> Result<(), WorkloadError> {
    p.check_ranges().map_err(|(key, message)| WorkloadError {
        key: key.to_string(),
        message,
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

/// Replaces the default or the description of one key in a generator's table (for keys whose
/// default or meaning depends on the generator sharing the struct).
pub fn adjust_doc(docs: &mut [ParamDef], name: &str, default: Option<ParamDefault>, description: Option<&'static str>) {
    for d in docs.iter_mut().filter(|d| d.name == name) {
        if let Some(value) = &default {
            d.default = value.clone();
        }
        if let Some(text) = description {
            d.description = text;
        }
    }
}
