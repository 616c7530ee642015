//! Errors of the report reader: every one names the file, and for malformed JSON the line and
//! column or the JSON path of the offending value, so a user can fix the file by hand.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not JSON at all (truncated, corrupt): serde_json gives line and column.
    #[error("{}: not valid JSON: {message}", path.display())]
    Syntax { path: PathBuf, message: String },
    /// Valid JSON, but a value has the wrong shape; `json_path` is e.g. `totals.by_class.local`.
    #[error("{}: at `{json_path}`: {message}", path.display())]
    Schema {
        path: PathBuf,
        json_path: String,
        message: String,
    },
    #[error("{}: unsupported results schema_version {found} (this numasim reads up to {supported})", path.display())]
    Version { path: PathBuf, found: u32, supported: u32 },
    #[error("no results directories given")]
    NoRuns,
    #[error("figure `{name}` needs data none of the given runs has: {why}")]
    FigureUnavailable { name: String, why: String },
    #[error("unknown figure `{0}`; known figures: {1}")]
    UnknownFigure(String, String),
    #[error("rendering {what}: {message}")]
    Render { what: String, message: String },
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ReportError {
    pub(crate) fn render(what: impl Into<String>, e: impl std::fmt::Display) -> Self {
        ReportError::Render {
            what: what.into(),
            message: e.to_string(),
        }
    }
}
