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
