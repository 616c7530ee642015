//! Strict TOML loading with errors a user can act on.
//!
//! Every numasim input (machines, experiments) is TOML. Two rules hold for all of them:
//! an unknown key is an error (as in zsim: a misspelt key must never be silently ignored), and
//! every error names the file, the line and the dotted key path. `serde` gives us the key path
//! (through `serde_path_to_error`), `toml` gives a byte span for syntax and type errors, and for
//! errors found after parsing (a validation rule broken) [`locate_key`] finds the line of a key
//! path in the source text, so validators can report lines too.

pub mod overrides;
pub mod param;

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
            // A syntax error (an integer above 2^63 - 1) comes before any key is known: the key
            // is read from the line it points at.
            let key = match (key.is_empty(), span_line) {
                (true, Some(l)) => key_on_line(&self.text, l).unwrap_or_default(),
                _ => key,
            };
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
/// Walks the document `toml_edit` parsed with its spans, so `[table]`, `[[array]]`, inline
/// tables and inline arrays of tables (`links = [ {a = "s0"}, ... ]`) are all found the same
/// way. A key the text does not hold (a missing field) falls back to the line of the deepest
/// part of the path that exists (its table header or inline table); `None` when the text does
/// not parse or nothing of the path exists.
pub fn locate_key(text: &str, path: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut node = Node::Table(doc.as_table());
    let mut best: Option<usize> = None;
    for step in path_steps(path) {
        let found = match step {
            Step::Key(key) => node.table_like().and_then(|t| t.get_key_value(key)).map(|(k, item)| {
                let child = Node::Item(item);
                (k.span().or_else(|| child.span()), child)
            }),
            Step::Index(i) => node.index(i).map(|child| (child.span(), child)),
        };
        let Some((span, child)) = found else { break };
        if let Some(span) = span {
            best = Some(span.start);
        }
        node = child;
    }
    best.map(|offset| line_of_offset(text, offset))
}

/// The dotted key written on 1-based `line` (`key = value`), under the table header above it
/// (`[a.b]`, or `[[a]]` as `a[i]`), for errors the parser reports with a position only.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    let mut arrays: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            let (k, _) = t.split_once('=')?;
            let k: String = k
                .split('.')
                .map(|p| p.trim().trim_matches('"'))
                .collect::<Vec<_>>()
                .join(".");
            if k.is_empty() || k.starts_with('[') {
                return None;
            }
            return Some(if table.is_empty() { k } else { format!("{table}.{k}") });
        }
        if let Some(name) = t
            .strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .map(|(n, _)| n.trim())
        {
            let n = arrays.entry(name.to_string()).or_insert(0);
            table = format!("{name}[{n}]");
            *n += 1;
        } else if let Some(name) = t
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .map(|(n, _)| n.trim())
        {
            table = name.to_string();
        }
    }
    None
}

/// One step of a key path as `serde_path_to_error` prints it.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `links[2].latency_ns` → `links`, `2`, `latency_ns` (quotes around a key part dropped).
fn path_steps(path: &str) -> Vec<Step<'_>> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        let key = key.trim().trim_matches('"');
        if !key.is_empty() {
            steps.push(Step::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            match index.parse() {
                Ok(i) => steps.push(Step::Index(i)),
                Err(_) => return steps,
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    steps
}

/// A place in a parsed document: a table, an item under a key, or an element of an inline array.
#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a toml_edit::Table),
    Item(&'a toml_edit::Item),
    Value(&'a toml_edit::Value),
}

impl<'a> Node<'a> {
    fn table_like(self) -> Option<&'a dyn toml_edit::TableLike> {
        match self {
            Node::Table(t) => Some(t),
            Node::Item(i) => i.as_table_like(),
            Node::Value(v) => v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike),
        }
    }

    fn index(self, i: usize) -> Option<Node<'a>> {
        match self {
            Node::Item(toml_edit::Item::ArrayOfTables(a)) => a.get(i).map(Node::Table),
            Node::Item(toml_edit::Item::Value(toml_edit::Value::Array(a)))
            | Node::Value(toml_edit::Value::Array(a)) => a.get(i).map(Node::Value),
            _ => None,
        }
    }

    fn span(self) -> Option<std::ops::Range<usize>> {
        match self {
            Node::Table(t) => t.span(),
            Node::Item(i) => i.span(),
            Node::Value(v) => v.span(),
        }
    }
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
    fn an_integer_above_2_63_names_its_key() {
        // The parser refuses it before any key is known: the key is read from its line.
        let src = Source::from_text(
            "m.toml",
            "name = \"x\"\n[[links]]\na = \"s0\"\n[[links]]\nlatency_ns = 18446744073709551616\n",
        );
        let err = src.parse::<Doc>().unwrap_err();
        assert_eq!(err.line, Some(5), "{err}");
        assert_eq!(err.key, "links[1].latency_ns", "{err}");
        let src = Source::from_text("e.toml", "[workload]\nkind = \"x\"\nseed = 9223372036854775808\n");
        let err = src.parse::<toml::Table>().unwrap_err();
        assert_eq!((err.line, err.key.as_str()), (Some(3), "workload.seed"), "{err}");
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

    #[test]
    fn locate_finds_inline_array_entries_and_fields() {
        let text = "name = \"x\"\nlinks = [\n  { a = \"s0\", b = \"s1\", type = \"upi\" },\n  { a = \"s1\", b = \"s2\", latency_ns = 0 },\n]\n[[sockets]]\nname = \"s0\"\n[[sockets]]\nname = \"s1\"\n[dram_timing]\n\"tRCD\" = 3\n";
        assert_eq!(locate_key(text, "links[0]"), Some(3));
        assert_eq!(locate_key(text, "links[1].a"), Some(4));
        assert_eq!(locate_key(text, "links[1].latency_ns"), Some(4));
        // A field the entry does not hold: the entry's own line.
        assert_eq!(locate_key(text, "links[1].bandwidth_gbps"), Some(4));
        // An entry past the end: the array's key.
        assert_eq!(locate_key(text, "links[2]"), Some(2));
        assert_eq!(locate_key(text, "sockets[1].name"), Some(9));
        assert_eq!(locate_key(text, "sockets[1]"), Some(8));
        assert_eq!(locate_key(text, "dram_timing.tRCD"), Some(11));
        assert_eq!(locate_key("not = = toml", "not"), None);
    }
}
