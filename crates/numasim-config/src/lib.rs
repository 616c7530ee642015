//! Strict TOML loading with errors a user can act on.
//!
//! Every numasim input (machines, experiments) is TOML. Two rules hold for all of them:
//! an unknown key is an error (as in zsim: a misspelt key must never be silently ignored), and
//! every error names the file, the line and the dotted key path. `serde` gives us the key path
//! (through `serde_path_to_error`), `toml` gives a byte span for syntax and type errors, and for
//! errors found after parsing (a validation rule broken) [`locate_key`] finds the line of a key
//! path in the source text, so validators can report lines too.

pub mod overrides;

pub use overrides::Override;
use serde::de::DeserializeOwned;
use std::fmt;
use std::path::{Path, PathBuf};

/// A configuration error located in its source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// File the text came from (or a label such as `<preset starnuma16-pool>`).
    pub file: String,
    /// 1-based line, when it could be found.
    pub line: Option<usize>,
    /// Dotted key path, e.g. `links[3].bandwidth_gbps`; empty for whole-file errors.
    pub key: String,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// TOML text together with where it came from, so later validation can still point at lines.
#[derive(Debug, Clone)]
pub struct Source {
    pub origin: String,
    pub text: String,
    /// Directory relative paths inside the file are resolved against.
    pub base_dir: Option<PathBuf>,
    /// Overrides applied to `text` ([`Source::with_overrides`]), for attributing errors.
    applied: Option<Box<overrides::Applied>>,
}

impl Source {
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            line: None,
            key: String::new(),
            message: format!("cannot read file: {e}"),
        })?;
        Ok(Source {
            origin: path.display().to_string(),
            text,
            base_dir: path.parent().map(Path::to_path_buf),
            applied: None,
        })
    }

    pub fn from_text(origin: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            origin: origin.into(),
            text: text.into(),
            base_dir: None,
            applied: None,
        }
    }

    /// Deserializes strictly; the target types carry `#[serde(deny_unknown_fields)]`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let de = toml::Deserializer::new(&self.text);
        let result = serde_path_to_error::deserialize(de).map_err(|err| {
            let key = err.path().to_string();
            let key = if key == "." { String::new() } else { key };
            let inner = err.into_inner();
            let span_line = inner.span().map(|s| line_of_offset(&self.text, s.start));
            // A span covering a whole table points at its header; the key's own line is better.
            let line = locate_key(&self.text, &key).or(span_line);
            ConfigError {
                file: self.origin.clone(),
                line,
                key,
                message: inner.message().trim().to_string(),
            }
        });
        result.map_err(|e| self.attribute(e))
    }

    /// An error found after parsing, located by its key path.
    pub fn error(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        let key = key.into();
        self.attribute(ConfigError {
            file: self.origin.clone(),
            line: locate_key(&self.text, &key),
            key,
            message: message.into(),
        })
    }

    /// Resolves a path written inside this file relative to the file's directory.
    pub fn resolve_path(&self, written: &str) -> PathBuf {
        let p = Path::new(written);
        match &self.base_dir {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p.to_path_buf(),
        }
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Finds the 1-based line of a dotted key path such as `links[2].latency_ns` or `workload.threads`.
///
/// Understands `[table]`, `[[array]]` headers and `key = value` lines, which is what numasim
/// configs use. Falls back to the line of the longest matching prefix (e.g. the table header).
pub fn locate_key(text: &str, path: &str) -> Option<usize> {
    if path.is_empty() {
        return None;
    }
    let mut prefix = String::new();
    let mut array_counts: std::collections::HashMap<String, usize> = Default::default();
    let mut best: Option<(usize, usize)> = None; // (matched length, line)
    let consider = |candidate: &str, line: usize, best: &mut Option<(usize, usize)>| {
        let matches = candidate == path
            || (path.starts_with(candidate) && matches!(path.as_bytes().get(candidate.len()), Some(b'.') | Some(b'[')));
        if matches && best.is_none_or(|(len, _)| candidate.len() > len) {
            *best = Some((candidate.len(), line));
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(inner) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let name = normalize_key(inner);
            let n = array_counts.entry(name.clone()).or_insert(0);
            prefix = format!("{name}[{n}]");
            *n += 1;
            consider(&prefix, line_no, &mut best);
        } else if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            prefix = normalize_key(inner);
            consider(&prefix, line_no, &mut best);
        } else if let Some((key, _)) = line.split_once('=') {
            let key = normalize_key(key);
            let full = if prefix.is_empty() {
                key
            } else {
                format!("{prefix}.{key}")
            };
            consider(&full, line_no, &mut best);
        }
    }
    best.map(|(_, line)| line)
}

fn strip_comment(line: &str) -> &str {
    // Good enough for locating keys: a '#' inside a quoted string before '=' is not expected.
    let mut in_str = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '#' if !in_str => return &line[..i],
            _ => {}
        }
    }
    line
}

fn normalize_key(key: &str) -> String {
    key.split('.')
        .map(|p| p.trim().trim_matches('"'))
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Link {
        a: String,
        latency_ns: f64,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        #[serde(default)]
        links: Vec<Link>,
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let src = Source::from_text(
            "m.toml",
            "name = \"x\"\n\n[[links]]\na = \"s0\"\nlatency_ns = 1\n\n[[links]]\na = \"s1\"\nlatncy_ns = 2\n",
        );
        let err = src.parse::<Doc>().unwrap_err();
        assert_eq!(err.file, "m.toml");
        assert_eq!(err.line, Some(9), "{err}");
        assert_eq!(err.key, "links[1].latncy_ns");
        assert!(err.message.contains("unknown field"), "{err}");
    }

    #[test]
    fn wrong_type_is_located() {
        let src = Source::from_text("m.toml", "name = \"x\"\n[[links]]\na = \"s0\"\nlatency_ns = \"fast\"\n");
        let err = src.parse::<Doc>().unwrap_err();
        assert_eq!(err.line, Some(4), "{err}");
        assert_eq!(err.key, "links[0].latency_ns");
    }

    #[test]
    fn syntax_error_has_line() {
        let src = Source::from_text("m.toml", "name = \"x\"\nlinks = [\n");
        let err = src.parse::<Doc>().unwrap_err();
        assert!(err.line.is_some(), "{err}");
    }

    #[test]
    fn locate_falls_back_to_table_header() {
        let text = "a = 1\n[workload]\nkind = \"x\"\n";
        assert_eq!(locate_key(text, "workload.kind"), Some(3));
        assert_eq!(locate_key(text, "workload.threads"), Some(2));
        assert_eq!(locate_key(text, "nothing"), None);
    }
}
