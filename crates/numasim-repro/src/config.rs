//! An experiment a study runs, built as a TOML table from typed values.
//!
//! A study's experiments are a base and a few keys that differ. Building them as
//! [`toml::Table`]s (usually with [`toml::toml!`], whose `(expr)` values are typed Rust values)
//! keeps every value typed, merges overrides key by key, and leaves the syntax to the `toml`
//! crate: no experiment is assembled from text, so a value can never break the file around it.
//! What a study writes as `configs/<id>.toml` is the table under a comment line, so every run
//! can still be repeated by hand, and a misspelt key fails that run with the file, line and key
//! as in any experiment file.
//!
//! Results are read back with [`require`]: a results key that was renamed or never written fails
//! the study naming the run and the key, instead of reading as 0.

use crate::ReproError;

/// One experiment: a comment line (what the run is for) and its table.
#[derive(Debug, Clone)]
pub struct Config {
    comment: String,
    table: toml::Table,
}

impl Config {
    pub fn new(comment: impl Into<String>, table: toml::Table) -> Self {
        Config {
            comment: comment.into(),
            table,
        }
    }

    /// `overlay`'s keys over this experiment's; tables are merged key by key.
    pub fn with(mut self, overlay: toml::Table) -> Self {
        merge(&mut self.table, overlay);
        self
    }

    /// [`Self::with`] for a table under `key` (a workload's generator keys under `workload`).
    pub fn with_in(self, key: &str, table: toml::Table) -> Self {
        self.with(toml::Table::from_iter([(key.to_string(), toml::Value::Table(table))]))
    }

    /// The experiment file's text: the comment, then the table.
    pub fn text(&self) -> String {
        let body = toml::to_string(&self.table).expect("a TOML table serialises");
        let comment: String = self.comment.lines().map(|l| format!("# {l}\n")).collect();
        comment + &body
    }
}

/// `overlay` into `base`: a key in both whose values are tables is merged, any other value of
/// `overlay` replaces `base`'s.
pub fn merge(base: &mut toml::Table, overlay: toml::Table) {
    for (k, v) in overlay {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The number at `path` of a run's results.json, or an error naming the run and the path.
pub fn require(results: &serde_json::Value, path: &[&str]) -> Result<f64, ReproError> {
    crate::number(results, path).ok_or_else(|| ReproError::Results {
        id: results
            .get("name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?")
            .to_string(),
        message: format!("no number at `{}`", path.join(".")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlays_merge_tables_and_replace_values() {
        let base = toml::toml! {
            seed = 1
            [workload]
            kind = "cg"
            threads = 24
            [migration]
            policy = "none"
        };
        let c = Config::new("a study run\nsecond line", base)
            .with(toml::toml! {
                seed = 2
                [migration]
                profiler = "interconnect"
            })
            .with_in("workload", toml::toml! { rows = 14000 });
        let text = c.text();
        assert!(text.starts_with("# a study run\n# second line\n"), "{text}");
        let back: toml::Table = text.parse().expect("the text parses");
        assert_eq!(back["seed"].as_integer(), Some(2));
        assert_eq!(back["workload"]["kind"].as_str(), Some("cg"));
        assert_eq!(back["workload"]["threads"].as_integer(), Some(24));
        assert_eq!(back["workload"]["rows"].as_integer(), Some(14000));
        assert_eq!(back["migration"]["policy"].as_str(), Some("none"));
        assert_eq!(back["migration"]["profiler"].as_str(), Some("interconnect"));
    }

    #[test]
    fn a_value_with_toml_syntax_stays_one_value() {
        let name = "x\"\n[migration]\npolicy = \"all\"";
        let c = Config::new("quoting", toml::toml! { machine = (name) });
        let back: toml::Table = c.text().parse().expect("the text parses");
        assert_eq!(back["machine"].as_str(), Some(name));
        assert!(back.get("migration").is_none());
    }

    #[test]
    fn a_missing_result_names_the_run_and_the_key() {
        let r = serde_json::json!({"name": "cg-none", "totals": {"instructions": 5.0}});
        assert_eq!(require(&r, &["totals", "instructions"]).unwrap(), 5.0);
        let e = require(&r, &["totals", "instrs"]).unwrap_err().to_string();
        assert!(e.contains("cg-none") && e.contains("`totals.instrs`"), "{e}");
    }
}
