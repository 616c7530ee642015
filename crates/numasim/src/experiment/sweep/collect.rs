//! A finished sweep as one table: every run's parameters and results flattened into columns
//! (`numasim sweep collect`).

use super::*;

/// Scalar leaves of a JSON value as dotted names (arrays and the per-phase records left out).
fn json_leaves(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, v) in o {
                if prefix.is_empty() && matches!(k.as_str(), "phases" | "workload" | "thread_sockets") {
                    continue;
                }
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                json_leaves(&key, v, out);
            }
        }
        serde_json::Value::Array(_) | serde_json::Value::Null => {}
        serde_json::Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// Value of a dotted key in a TOML table, as a table cell (strings unquoted).
fn toml_cell(t: &toml::Table, key: &str) -> String {
    let mut cur: Option<&toml::Value> = None;
    let mut table = Some(t);
    for part in key.split('.') {
        cur = table.and_then(|t| t.get(part));
        table = cur.and_then(toml::Value::as_table);
    }
    match cur {
        None => String::new(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// One table of every complete run under `dir`: `run` (its name), the swept keys (from
/// `sweep.json`, values read from each run's resolved experiment), then every scalar of
/// results.json as a dotted column (the union over runs, sorted; `perf.*` are wall-clock
/// figures and differ between identical runs). Rows in the sweep's order (the baseline first),
/// then any other run by name.
pub fn collect(dir: &Path) -> std::io::Result<(Vec<String>, Vec<Vec<String>>)> {
    let manifest = dir.join(MANIFEST);
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    let (axes, order): (Vec<String>, Vec<String>) = match std::fs::read_to_string(&manifest) {
        Ok(text) => {
            let v: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", manifest.display())))?;
            (strings(&v["axes"]), strings(&v["order"]))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), Vec::new()),
        Err(e) => return Err(std::io::Error::new(e.kind(), format!("{}: {e}", manifest.display()))),
    };
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let partial = name.contains(".partial-") || name.contains(".old-");
            let complete = !name.starts_with('.') && !partial && e.path().join("results.json").is_file();
            complete.then_some(name)
        })
        .collect();
    ids.sort_by_key(|n| (order.iter().position(|o| o == n).unwrap_or(usize::MAX), n.clone()));
    let mut records = Vec::new();
    let mut columns = std::collections::BTreeSet::new();
    for id in &ids {
        let run = dir.join(id);
        let read = |f: &str| {
            std::fs::read_to_string(run.join(f))
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", run.join(f).display())))
        };
        let results: serde_json::Value = serde_json::from_str(&read("results.json")?)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", run.join("results.json").display())))?;
        let resolved: toml::Table = read("experiment.resolved.toml")?
            .parse()
            .map_err(|e| std::io::Error::other(format!("{}: {e}", run.join("experiment.resolved.toml").display())))?;
        let mut cells = BTreeMap::new();
        json_leaves("", &results, &mut cells);
        columns.extend(cells.keys().cloned());
        let params: Vec<String> = axes.iter().map(|a| toml_cell(&resolved, a)).collect();
        records.push((id.clone(), params, cells));
    }
    let mut header = vec!["run".to_string()];
    header.extend(axes.iter().cloned());
    // A metric with the same name as a swept key would be a duplicate column: prefix it.
    header.extend(columns.iter().map(|c| {
        if axes.contains(c) {
            format!("results.{c}")
        } else {
            c.clone()
        }
    }));
    let rows = records
        .into_iter()
        .map(|(id, params, cells)| {
            let mut row = vec![id];
            row.extend(params);
            row.extend(columns.iter().map(|c| cells.get(c).cloned().unwrap_or_default()));
            row
        })
        .collect();
    Ok((header, rows))
}

/// Every file [`collect`] reads under `dir` (so that an output can be checked against them).
pub fn collect_inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![dir.join(MANIFEST)];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            for f in ["results.json", "experiment.resolved.toml"] {
                let p = e.path().join(f);
                if p.is_file() {
                    files.push(p);
                }
            }
        }
    }
    files
}

/// Writes [`collect_csv`] of `dir` to `out` under numasim's output policy (never onto a run's
/// files, a device replaced or a link replaced; `-o /dev/stdout` streams); returns the rows.
pub fn write_collected(dir: &Path, out: &Path) -> std::io::Result<usize> {
    let csv = collect_csv(dir)?;
    numasim_output::write_file(out, &csv, &collect_inputs(dir))?;
    Ok(csv.iter().filter(|&&b| b == b'\n').count().saturating_sub(1))
}

/// [`collect`] as CSV text.
pub fn collect_csv(dir: &Path) -> std::io::Result<Vec<u8>> {
    let (header, rows) = collect(dir)?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).map_err(std::io::Error::other)?;
    for r in rows {
        w.write_record(&r).map_err(std::io::Error::other)?;
    }
    w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))
}
