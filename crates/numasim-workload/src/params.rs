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
