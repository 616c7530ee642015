//! Migration data, read from results.json when a run has it.
//!
//! numasim writes `migration` (run-long: policy, total_moves, moves_from_to, ping_pongs) and per
//! phase `phases[i].migration` (moves, moves_from_to, ping_pongs, capacity_pages_per_node);
//! the reader also accepts a few other shapes so hand-made or older files still draw. It looks for a top-level `migration` object (its presence
//! alone makes the Migration view appear) and, per phase, for the moves made at that phase's
//! boundary in `phases[i].migration` (or directly in `phases[i]`):
//! - `moves`: `{"SRC->DST": pages}` (also `→`), `{"SRC": {"DST": pages}}` or
//!   `[{"from": SRC, "to": DST, "pages": n}]` (`count`/`moves` accepted for `pages`);
//! - `ping_pongs` (pages moved back to a node they left recently);
//! - `pages_migrated` / `migrated_pages` (total, when `moves` is absent).
//!
//! Pool occupancy comes from the per-phase `pages_per_node` of pool-kind nodes (machine.json);
//! the capacity is `migration.pool_capacity_pages` (number, or per-node map) when given, else
//! the node's machine capacity divided by the page size.

use crate::results::Run;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhaseMigration {
    pub index: u64,
    /// (source node, destination node) → pages moved.
    pub moves: BTreeMap<(String, String), u64>,
    pub pages_moved: u64,
    pub ping_pongs: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PoolSeries {
    pub node: String,
    /// Pages on the pool node at the end of each phase.
    pub pages: Vec<u64>,
    pub capacity_pages: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    pub policy: Option<String>,
    pub phases: Vec<PhaseMigration>,
    pub pools: Vec<PoolSeries>,
}

impl Migration {
    pub fn total_moves(&self) -> u64 {
        self.phases.iter().map(|p| p.pages_moved).sum()
    }
    pub fn total_ping_pongs(&self) -> Option<u64> {
        let v: Vec<u64> = self.phases.iter().filter_map(|p| p.ping_pongs).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    }
    /// Every (source, destination) pair that moved pages in some phase, sorted.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut s: Vec<(String, String)> = self.phases.iter().flat_map(|p| p.moves.keys().cloned()).collect();
        s.sort();
        s.dedup();
        s
    }
}

fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

fn first_u64(obj: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| obj.get(*k).and_then(as_u64))
}

fn parse_moves(v: &Value) -> BTreeMap<(String, String), u64> {
    let mut out = BTreeMap::new();
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                if let Some(n) = as_u64(val) {
                    let pair = k.split_once("->").or_else(|| k.split_once('→'));
                    if let Some((a, b)) = pair {
                        *out.entry((a.trim().to_string(), b.trim().to_string())).or_default() += n;
                    }
                } else if let Value::Object(inner) = val {
                    for (dst, n) in inner {
                        if let Some(n) = as_u64(n) {
                            *out.entry((k.clone(), dst.clone())).or_default() += n;
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            for it in items {
                let from = it.get("from").or_else(|| it.get("src")).and_then(Value::as_str);
                let to = it.get("to").or_else(|| it.get("dst")).and_then(Value::as_str);
                let n = first_u64(it, &["pages", "count", "moves"]);
                if let (Some(a), Some(b), Some(n)) = (from, to, n) {
                    *out.entry((a.to_string(), b.to_string())).or_default() += n;
                }
            }
        }
        _ => {}
    }
    out.retain(|_, n| *n > 0);
    out
}

/// The run's migration data, or `None` when results.json has no `migration` object.
pub fn of(run: &Run) -> Option<Migration> {
    let top = run.raw.get("migration").filter(|v| v.is_object())?;
    // A run without a migration policy still writes the object; there is nothing to show then.
    if top
        .get("policy")
        .and_then(Value::as_str)
        .is_some_and(|p| matches!(p, "none" | "off" | ""))
    {
        return None;
    }
    let policy = top.get("policy").and_then(|p| {
        p.as_str()
            .map(str::to_string)
            .or_else(|| p.get("name")?.as_str().map(str::to_string))
    });
    let raw_phases = run.raw.get("phases").and_then(Value::as_array);
    let phases = raw_phases
        .map(|ps| {
            ps.iter()
                .enumerate()
                .map(|(i, p)| {
                    let m = p.get("migration").filter(|v| v.is_object()).unwrap_or(p);
                    let moves = m
                        .get("moves_from_to")
                        .or_else(|| m.get("moves").filter(|v| !v.is_number()))
                        .map(parse_moves)
                        .unwrap_or_default();
                    let pages_moved = if moves.is_empty() {
                        first_u64(m, &["moves", "pages_migrated", "migrated_pages", "pages_moved"]).unwrap_or(0)
                    } else {
                        moves.values().sum()
                    };
                    PhaseMigration {
                        index: p.get("index").and_then(as_u64).unwrap_or(i as u64),
                        moves,
                        pages_moved,
                        ping_pongs: first_u64(m, &["ping_pongs", "pingpongs"]),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let page_bytes = run.results.page_bytes.unwrap_or(4096).max(1);
    let cap = top.get("pool_capacity_pages");
    let pools = run
        .pool_nodes()
        .into_iter()
        .map(|n| PoolSeries {
            node: n.name.clone(),
            pages: run
                .results
                .phases
                .iter()
                .map(|p| p.pages_per_node.get(&n.name).copied().unwrap_or(0))
                .collect(),
            // Effective capacity (it may follow the footprint): the largest per-phase figure,
            // else the configured one, else the machine's.
            capacity_pages: raw_phases
                .and_then(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            p.get("migration")?
                                .get("capacity_pages_per_node")?
                                .get(&n.name)
                                .and_then(as_u64)
                        })
                        .max()
                })
                .or_else(|| cap.and_then(as_u64))
                .or_else(|| cap.and_then(|c| c.get(&n.name)).and_then(as_u64))
                .or_else(|| (n.capacity_bytes > 0).then(|| n.capacity_bytes / page_bytes)),
        })
        .collect();
    Some(Migration { policy, phases, pools })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn moves_in_every_accepted_shape() {
        let want: BTreeMap<(String, String), u64> = [(("m0".into(), "pool".into()), 5)].into_iter().collect();
        assert_eq!(parse_moves(&json!({"m0->pool": 5})), want);
        assert_eq!(parse_moves(&json!({"m0 → pool": 5})), want);
        assert_eq!(parse_moves(&json!({"m0": {"pool": 5}})), want);
        assert_eq!(
            parse_moves(&json!([{"from": "m0", "to": "pool", "pages": 2}, {"src": "m0", "dst": "pool", "count": 3}])),
            want
        );
        assert!(parse_moves(&json!({"m0->pool": 0})).is_empty());
        assert!(parse_moves(&json!("nonsense")).is_empty());
    }
}
