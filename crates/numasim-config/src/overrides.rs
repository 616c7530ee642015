//! Dotted-key overrides (`numasim run EXP.toml --set workload.scale=22`, sweep axes).
//!
//! An override is applied to the TOML *text* of a file (with `toml_edit`, which keeps every
//! other line as written), so the result is parsed and validated by exactly the code that
//! parses the file: same types, same strictness (an unknown key is refused), same defaults.
//! Errors stay located: an error about an overridden key names the override (`--set k=v`)
//! instead of a line, and every other error is located in the original text, whose lines an
//! inserted key would otherwise shift.

use crate::{locate_key, ConfigError, Source};

/// One `key = value` replacement, with the label errors about it carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// Dotted key path, e.g. `workload.scale`.
    pub key: String,
    pub value: toml::Value,
    /// Where the override came from, for messages: `--set workload.scale=22`.
    pub label: String,
}

/// What a [`Source`] built by [`Source::with_overrides`] remembers to attribute errors.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    original_text: String,
    overrides: Vec<Override>,
    /// Each override's key as the parser reports it (`memory[2].channels` for
    /// `memory.pool.channels`), in the same order.
    paths: Vec<String>,
}

impl Override {
    /// Parses `KEY=VALUE` as given to `--set`. VALUE is a TOML value (`22`, `true`, `1.5`,
    /// `"text"`, `[1, 2]`, `{ pool = 0.2 }`); a VALUE that is not valid TOML is taken as a string,
    /// so `migration.policy=starnuma` needs no quotes.
    pub fn parse_set(arg: &str) -> Result<Override, ConfigError> {
        let label = format!("--set {arg}");
        let Some((key, raw)) = arg.split_once('=') else {
            return Err(err(&label, "", "expected KEY=VALUE, e.g. workload.scale=22"));
        };
        let key = key.trim();
        check_key(key).map_err(|m| err(&label, key, m.to_string()))?;
        let raw = raw.trim();
        let value = match format!("v = {raw}").parse::<toml::Table>() {
            Ok(mut t) if !raw.is_empty() => t.remove("v").expect("the table has v"),
            _ => toml::Value::String(raw.to_string()),
        };
        Ok(Override {
            key: key.to_string(),
            value,
            label,
        })
    }
}

fn err(label: &str, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        file: label.to_string(),
        line: None,
        key: key.to_string(),
        message: message.into(),
    }
}

/// A key path that is not bare TOML keys joined by dots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadKey {
    #[error("empty key")]
    Empty,
    #[error("`{0}` is not a dotted key of bare names (letters, digits, `_`, `-`)")]
    NotBare(String),
}

/// A key path is bare TOML keys joined by dots (no quoting, no array indices).
pub fn check_key(key: &str) -> Result<(), BadKey> {
    if key.is_empty() {
        return Err(BadKey::Empty);
    }
    for part in key.split('.') {
        if part.is_empty()
            || !part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(BadKey::NotBare(key.to_string()));
        }
    }
    Ok(())
}

impl Source {
    /// This source with `overrides` applied in order (a later one wins). The origin and base
    /// directory stay those of the file, so relative paths inside it resolve as before.
    pub fn with_overrides(&self, overrides: &[Override]) -> Result<Source, ConfigError> {
        self.with_overrides_named(overrides, &name_key)
    }

    /// [`with_overrides`](Self::with_overrides), with entries of arrays of tables named by
    /// `element_name` in key paths (`links.s0-pool.latency_ns`).
    pub fn with_overrides_named(
        &self,
        overrides: &[Override],
        element_name: &ElementName,
    ) -> Result<Source, ConfigError> {
        if overrides.is_empty() {
            return Ok(self.clone());
        }
        let mut doc: toml_edit::DocumentMut = self.text.parse().map_err(|e: toml_edit::TomlError| {
            let line = e.span().map(|s| crate::line_of_offset(&self.text, s.start));
            ConfigError {
                file: self.origin.clone(),
                line,
                key: String::new(),
                message: e.message().trim().to_string(),
            }
        })?;
        let mut paths = Vec::with_capacity(overrides.len());
        for o in overrides {
            paths.push(set(doc.as_table_mut(), &o.key, &o.value, element_name).map_err(|m| err(&o.label, &o.key, m))?);
        }
        let mut applied = self.applied.as_deref().cloned().unwrap_or_else(|| Applied {
            original_text: self.text.clone(),
            overrides: Vec::new(),
            paths: Vec::new(),
        });
        applied.overrides.extend(overrides.iter().cloned());
        applied.paths.extend(paths);
        Ok(Source {
            origin: self.origin.clone(),
            text: doc.to_string(),
            base_dir: self.base_dir.clone(),
            applied: Some(Box::new(applied)),
        })
    }

    /// The overrides applied to this source, in order.
    pub fn overrides(&self) -> &[Override] {
        self.applied.as_deref().map_or(&[], |a| a.overrides.as_slice())
    }

    /// Re-attributes an error of an overridden source: to the override that set its key (the
    /// last one covering it), or else to the key's line in the file as written.
    pub(crate) fn attribute(&self, mut e: ConfigError) -> ConfigError {
        let Some(applied) = self.applied.as_deref() else {
            return e;
        };
        let covering = applied.overrides.iter().zip(&applied.paths).rev().find(|(_, path)| {
            e.key == **path
                || (e.key.starts_with(path.as_str()) && matches!(e.key.as_bytes().get(path.len()), Some(b'.') | Some(b'[')))
                // A table the override created (`--set workload.deep.x=1`: "unknown field deep").
                || (!e.key.is_empty()
                    && path.starts_with(&e.key)
                    && path.as_bytes().get(e.key.len()) == Some(&b'.')
                    && !has_key(&applied.original_text, &e.key))
        });
        match covering.map(|(o, _)| o) {
            Some(o) => {
                e.file = o.label.clone();
                e.line = None;
            }
            None if !e.key.is_empty() => e.line = locate_key(&applied.original_text, &e.key),
            None => {}
        }
        e
    }
}

/// Whether the dotted `key` exists in `text` (array indices are not followed).
fn has_key(text: &str, key: &str) -> bool {
    let Ok(root) = text.parse::<toml::Table>() else {
        return false;
    };
    let mut table = Some(&root);
    let mut found = false;
    for part in key.split('.') {
        let v = table.and_then(|t| t.get(part));
        found = v.is_some();
        table = v.and_then(toml::Value::as_table);
    }
    found
}

/// Names an element of an array of tables, for key paths that select it by name
/// (`memory.pool.access_latency_ns`). The default reads the element's `name` key; a file
/// format whose elements have another default name (a machine's links: `a-b`) passes its own.
pub type ElementName = dyn Fn(&dyn toml_edit::TableLike) -> Option<String>;

/// The default [`ElementName`]: the element's `name` string.
pub fn name_key(t: &dyn toml_edit::TableLike) -> Option<String> {
    t.get("name").and_then(|i| i.as_str()).map(str::to_string)
}

/// Sets `key` (dotted) in `root`, creating tables on the way; refuses to go through a value.
/// A part naming an array of tables (`memory`) is followed by the name of one element
/// (`memory.pool.channels`), as `element_name` names them. Returns the path as the parser
/// reports keys (`memory[2].channels`), for attributing errors.
fn set(
    root: &mut toml_edit::Table,
    key: &str,
    value: &toml::Value,
    element_name: &ElementName,
) -> Result<String, String> {
    let literal = value.to_string();
    let new: toml_edit::Value = literal
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("cannot write the value as TOML: {}", e.message().trim()))?;
    let parts: Vec<&str> = key.split('.').collect();
    let mut table: &mut dyn toml_edit::TableLike = root;
    let mut walked = String::new();
    let mut concrete = String::new();
    let mut i = 0;
    while i + 1 < parts.len() {
        let part = parts[i];
        if !walked.is_empty() {
            walked.push('.');
            concrete.push('.');
        }
        walked.push_str(part);
        concrete.push_str(part);
        if table.get(part).is_none() {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            table.insert(part, toml_edit::Item::Table(t));
            // An inline table (`placement = { ... }`) holds only values: nest an inline table.
            if table.get(part).is_none() {
                table.insert(part, toml_edit::Item::Value(toml_edit::InlineTable::new().into()));
            }
        }
        let Some(item) = table.get_mut(part) else {
            return Err(format!("cannot create the table `{walked}`"));
        };
        if is_array(item) {
            // The next part names one element.
            let name = parts[i + 1];
            if i + 2 == parts.len() {
                return Err(format!(
                    "`{walked}.{name}` is an entry of `{walked}`; set one of its keys instead"
                ));
            }
            let (index, element) = select(item, name, element_name).map_err(|names| {
                if names.is_empty() {
                    format!("`{walked}` is a list of values, not of named entries")
                } else {
                    format!("`{walked}` has no entry named `{name}` (has: {})", names.join(", "))
                }
            })?;
            walked.push('.');
            walked.push_str(name);
            concrete.push_str(&format!("[{index}]"));
            table = element;
            i += 2;
            continue;
        }
        table = match item.as_table_like_mut() {
            Some(t) => t,
            None => {
                return Err(format!(
                    "`{walked}` is a value, not a table, so it has no key `{}.…`",
                    parts[i + 1]
                ))
            }
        };
        i += 1;
    }
    let last = parts[parts.len() - 1];
    if i + 1 != parts.len() {
        return Err(format!("`{key}` names an entry; set one of its keys instead"));
    }
    if !concrete.is_empty() {
        concrete.push('.');
    }
    concrete.push_str(last);
    match table.get_mut(last) {
        Some(item) if item.is_table_like() && !value.is_table() => {
            Err(format!("`{key}` is a table; set one of its keys instead"))
        }
        Some(item) if is_array(item) => Err(format!(
            "`{key}` is a list of entries; set a key of one of them (`{key}.<name>.<key>`)"
        )),
        Some(item) if item.is_value() => {
            // Keep the line's own formatting (comments after the value) where possible.
            let decor = item.as_value().map(|v| v.decor().clone());
            let mut new = new;
            if let Some(d) = decor {
                *new.decor_mut() = d;
            }
            *item = toml_edit::Item::Value(new);
            Ok(concrete)
        }
        _ => {
            table.insert(last, toml_edit::Item::Value(new));
            Ok(concrete)
        }
    }
}

/// Whether an item is an array of tables (`[[x]]`, or an inline array of inline tables).
fn is_array(item: &toml_edit::Item) -> bool {
    match item {
        toml_edit::Item::ArrayOfTables(_) => true,
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => !a.is_empty() && a.iter().all(|v| v.is_inline_table()),
        _ => false,
    }
}

/// The element of an array of tables named `name`: its index and table; else every name.
fn select<'a>(
    item: &'a mut toml_edit::Item,
    name: &str,
    element_name: &ElementName,
) -> Result<(usize, &'a mut dyn toml_edit::TableLike), Vec<String>> {
    let names: Vec<Option<String>> = match &*item {
        toml_edit::Item::ArrayOfTables(a) => a.iter().map(|t| element_name(t)).collect(),
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => a
            .iter()
            .map(|v| v.as_inline_table().and_then(|t| element_name(t)))
            .collect(),
        _ => Vec::new(),
    };
    let Some(index) = names.iter().position(|n| n.as_deref() == Some(name)) else {
        return Err(names.into_iter().flatten().collect());
    };
    let element: Option<&'a mut dyn toml_edit::TableLike> = match item {
        toml_edit::Item::ArrayOfTables(a) => a.get_mut(index).map(|t| t as &mut dyn toml_edit::TableLike),
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => a
            .get_mut(index)
            .and_then(|v| v.as_inline_table_mut())
            .map(|t| t as &mut dyn toml_edit::TableLike),
        _ => None,
    };
    element.map(|e| (index, e)).ok_or_else(Vec::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct W {
        kind: String,
        #[serde(default)]
        scale: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        seed: u64,
        workload: W,
        #[serde(default)]
        after: Option<String>,
    }

    const TEXT: &str = "seed = 7 # the seed\n[workload]\nkind = \"bfs\"\n[extra]\n";
    const TEXT_OK: &str = "seed = 7 # the seed\n[workload]\nkind = \"bfs\"\n\nafter_table = 1\n";

    fn src(text: &str) -> Source {
        Source::from_text("e.toml", text)
    }

    fn sets(args: &[&str]) -> Vec<Override> {
        args.iter().map(|a| Override::parse_set(a).unwrap()).collect()
    }

    #[test]
    fn values_are_typed_like_the_file() {
        let o = sets(&[
            "a=22",
            "b=starnuma",
            "c=1.5",
            "d=true",
            "e=\"22\"",
            "f=[1, 2]",
            "g={ pool = 0.2 }",
        ]);
        assert_eq!(o[0].value, toml::Value::Integer(22));
        assert_eq!(o[1].value, toml::Value::String("starnuma".into()));
        assert_eq!(o[2].value, toml::Value::Float(1.5));
        assert_eq!(o[3].value, toml::Value::Boolean(true));
        assert_eq!(o[4].value, toml::Value::String("22".into()));
        assert!(o[5].value.is_array());
        assert!(o[6].value.is_table());
    }

    #[test]
    fn malformed_sets_are_refused_naming_them() {
        let e = Override::parse_set("workload.scale").unwrap_err();
        assert!(
            e.to_string().contains("--set workload.scale: expected KEY=VALUE"),
            "{e}"
        );
        let e = Override::parse_set("workload..scale=1").unwrap_err();
        assert!(e.to_string().contains("not a dotted key"), "{e}");
    }

    #[test]
    fn overrides_replace_and_insert_and_parse_strictly() {
        let s = src("seed = 7 # the seed\n[workload]\nkind = \"bfs\"\n");
        let o = s.with_overrides(&sets(&["seed=9", "workload.scale=22"])).unwrap();
        let d: Doc = o.parse().unwrap();
        assert_eq!(d.seed, 9);
        assert_eq!(
            d.workload,
            W {
                kind: "bfs".into(),
                scale: 22
            }
        );
        assert!(o.text.contains("seed = 9 # the seed"), "{}", o.text);
        // The original is untouched.
        let d: Doc = s.parse().unwrap();
        assert_eq!(d.seed, 7);
    }

    #[test]
    fn an_unknown_key_is_refused_naming_the_override() {
        let s = src("seed = 7\n[workload]\nkind = \"bfs\"\n");
        let o = s.with_overrides(&sets(&["workload.scalee=22"])).unwrap();
        let e = o.parse::<Doc>().unwrap_err();
        assert_eq!(e.key, "workload.scalee");
        assert_eq!(e.file, "--set workload.scalee=22");
        assert_eq!(e.line, None);
        assert!(e.message.contains("unknown field"), "{e}");
    }

    #[test]
    fn a_wrong_type_is_refused_naming_the_override() {
        let s = src("seed = 7\n[workload]\nkind = \"bfs\"\n");
        let o = s.with_overrides(&sets(&["seed=many"])).unwrap();
        let e = o.parse::<Doc>().unwrap_err();
        assert_eq!(e.key, "seed");
        assert_eq!(e.file, "--set seed=many");
        assert!(e.message.contains("expected u64"), "{e}");
        // And a later validation error through `Source::error`.
        let e = o.error("seed", "too large");
        assert_eq!(e.to_string(), "--set seed=many: key `seed`: too large");
    }

    #[test]
    fn other_errors_keep_the_line_of_the_file_as_written() {
        // Inserting `scale` into [workload] shifts the lines after it in the edited text.
        let s = src(TEXT_OK);
        let o = s.with_overrides(&sets(&["workload.scale=3"])).unwrap();
        let e = o.parse::<Doc>().unwrap_err();
        assert_eq!(e.key, "workload.after_table");
        assert_eq!(e.file, "e.toml");
        assert_eq!(e.line, Some(5), "{e}");
        let e = src(TEXT)
            .with_overrides(&sets(&["workload.scale=3"]))
            .unwrap()
            .parse::<Doc>()
            .unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("extra", Some(4)), "{e}");
    }

    #[test]
    fn cannot_set_through_a_value_or_replace_a_table() {
        let s = src("seed = 7\n[workload]\nkind = \"bfs\"\n");
        let e = s.with_overrides(&sets(&["seed.x=1"])).unwrap_err();
        assert_eq!(e.file, "--set seed.x=1");
        assert!(e.message.contains("`seed` is a value"), "{e}");
        let e = s.with_overrides(&sets(&["workload=3"])).unwrap_err();
        assert!(e.message.contains("is a table"), "{e}");
    }

    #[test]
    fn keys_inside_inline_tables_can_be_set_and_created() {
        let s = src("seed = 7\nworkload = { kind = \"bfs\" }\n");
        let o = s.with_overrides(&sets(&["workload.scale=5"])).unwrap();
        let d: Doc = o.parse().unwrap();
        assert_eq!(d.workload.scale, 5);
        let o = s.with_overrides(&sets(&["workload.deep.x=1"])).unwrap();
        let e = o.parse::<Doc>().unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.file.as_str()),
            ("workload.deep", "--set workload.deep.x=1"),
            "{e}"
        );
    }

    #[test]
    fn a_table_can_be_created() {
        let s = src("seed = 7\n");
        let o = s.with_overrides(&sets(&["workload.kind=cc"])).unwrap();
        let d: Doc = o.parse().unwrap();
        assert_eq!(d.workload.kind, "cc");
        assert_eq!(o.overrides().len(), 1);
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Node {
        name: String,
        #[serde(default)]
        channels: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Nodes {
        memory: Vec<Node>,
        #[serde(default)]
        links: Vec<toml::Table>,
    }

    const NODES: &str = "links = [\n  { a = \"s0\", b = \"pool\" },\n]\n[[memory]]\nname = \"m0\"\nchannels = 2\n[[memory]]\nname = \"pool\"\nchannels = 4 # the pool\n";

    #[test]
    fn entries_of_arrays_are_selected_by_name() {
        let s = src(NODES);
        let o = s.with_overrides(&sets(&["memory.pool.channels=8"])).unwrap();
        let d: Nodes = o.parse().unwrap();
        assert_eq!((d.memory[0].channels, d.memory[1].channels), (2, 8));
        assert!(o.text.contains("channels = 8 # the pool"), "{}", o.text);
        // Inline arrays of inline tables too, named by the caller's rule.
        let link_name = |t: &dyn toml_edit::TableLike| {
            let end = |k: &str| t.get(k).and_then(|i| i.as_str()).map(str::to_string);
            name_key(t).or_else(|| Some(format!("{}-{}", end("a")?, end("b")?)))
        };
        let o = s
            .with_overrides_named(&sets(&["links.s0-pool.latency_ns=9"]), &link_name)
            .unwrap();
        let d: Nodes = o.parse().unwrap();
        assert_eq!(d.links[0]["latency_ns"].as_integer(), Some(9));
    }

    #[test]
    fn a_missing_entry_lists_the_names() {
        let e = src(NODES)
            .with_overrides(&sets(&["memory.pol.channels=8"]))
            .unwrap_err();
        assert_eq!(e.file, "--set memory.pol.channels=8");
        assert!(e.message.contains("no entry named `pol` (has: m0, pool)"), "{e}");
        let e = src(NODES).with_overrides(&sets(&["memory.pool=8"])).unwrap_err();
        assert!(e.message.contains("set one of its keys"), "{e}");
    }

    #[test]
    fn errors_in_selected_entries_name_the_override() {
        // The parser reports `memory[1].chanels`; the override wrote `memory.pool.chanels`.
        let o = src(NODES).with_overrides(&sets(&["memory.pool.chanels=8"])).unwrap();
        let e = o.parse::<Nodes>().unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.file.as_str()),
            ("memory[1].chanels", "--set memory.pool.chanels=8"),
            "{e}"
        );
        let e = o.error("memory[1].chanels", "bad");
        assert_eq!(e.file, "--set memory.pool.chanels=8");
        // A key of another entry keeps its line in the file.
        let e = o.error("memory[0].channels", "bad");
        assert_eq!((e.file.as_str(), e.line), ("e.toml", Some(6)), "{e}");
    }
}
