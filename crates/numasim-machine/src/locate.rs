//! Validation errors located by key path.
//!
//! `numasim_config::locate_key` walks the TOML parser's spans, so keys inside `[[links]]`
//! blocks and inline arrays (`links = [ {a = "s0", ...}, ... ]`) are found the same way; this
//! module only keeps the machine crate's validators short.

use numasim_config::{ConfigError, Source};

/// A validation error located by key path.
pub(crate) fn error(source: &Source, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    source.error(key, message)
}

/// The first key of a declared section outside its declared range, located at
/// `prefix` + key (`prefix` ends in `.` when not empty); the message ends with the key's meaning.
pub(crate) fn ranges<T: numasim_config::param::ParamSection>(
    source: &Source,
    prefix: &str,
    section: &T,
) -> Result<(), ConfigError> {
    section.check_ranges().map_err(|(key, message)| {
        let meaning = T::defs().into_iter().find(|d| d.name == key).map(|d| d.description);
        let message = match meaning {
            Some(m) if !m.is_empty() => format!("{message} ({m})"),
            _ => message,
        };
        source.error(format!("{prefix}{key}"), message)
    })
}
