//! Generated graphs kept for reuse inside one process, when asked for.
//!
//! A reproduction study runs the same graph kernel on several machines and policies. The graph
//! depends only on its parameters and the seed, and at the scales the studies aim for (2^24
//! vertices) building it costs tens of seconds and gigabytes each time. [`keep_graphs`] sets a
//! byte budget of recently built graphs kept alive; 0 (the default) keeps none, so a single
//! `numasim run` holds only its own graph. Runs that want the same graph at the same time wait
//! for one build. A kept graph is the graph a fresh build would give, so results do not depend
//! on the cache.

use super::csr::{Graph, GraphKind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a generated graph is a function of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphKey {
    pub kind: GraphKind,
    pub scale: u32,
    pub degree: u32,
    pub weighted: bool,
    pub seed: u64,
}

struct Entry {
    key: GraphKey,
    graph: Arc<OnceLock<Arc<Graph>>>,
    /// Order of last use (larger is more recent).
    used: u64,
}

static BUDGET_BYTES: AtomicU64 = AtomicU64::new(0);
static CLOCK: AtomicU64 = AtomicU64::new(0);
static ENTRIES: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Keeps up to `bytes` of generated graphs alive for reuse (least recently used dropped
/// first); 0 keeps none and drops what is kept.
pub fn keep_graphs(bytes: u64) {
    BUDGET_BYTES.store(bytes, Ordering::Relaxed);
    evict(None);
}

/// Heap bytes of a graph's arrays.
pub fn graph_bytes(g: &Graph) -> u64 {
    (g.offsets.len() * 8 + g.neigh.len() * 4 + g.weights.len() * 4) as u64
}

/// The graph of `key`, built by `build` unless a kept (or concurrent) build of it exists.
pub fn get_or_build(key: GraphKey, build: impl FnOnce() -> Graph) -> Arc<Graph> {
    if BUDGET_BYTES.load(Ordering::Relaxed) == 0 {
        return Arc::new(build());
    }
    let cell = {
        let mut entries = ENTRIES.lock().unwrap_or_else(|p| p.into_inner());
        let used = CLOCK.fetch_add(1, Ordering::Relaxed);
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => {
                e.used = used;
                e.graph.clone()
            }
            None => {
                let cell = Arc::new(OnceLock::new());
                entries.push(Entry {
                    key,
                    graph: cell.clone(),
                    used,
                });
                cell
            }
        }
    };
    // Built outside the lock: other keys proceed; the same key waits for this build.
    let graph = cell.get_or_init(|| Arc::new(build())).clone();
    evict(Some(key));
    graph
}

/// Drops least recently used built graphs until the kept ones fit the budget, never `keep`.
fn evict(keep: Option<GraphKey>) {
    let budget = BUDGET_BYTES.load(Ordering::Relaxed);
    let mut entries = ENTRIES.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let total: u64 = entries
            .iter()
            .filter_map(|e| e.graph.get())
            .map(|g| graph_bytes(g))
            .sum();
        if total <= budget {
            break;
        }
        let victim = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| Some(e.key) != keep && e.graph.get().is_some())
            .min_by_key(|(_, e)| e.used)
            .map(|(i, _)| i);
        match victim {
            Some(i) => {
                entries.swap_remove(i);
            }
            None => break,
        }
    }
    if budget == 0 {
        // Nothing is kept: forget pending entries too (their builders still finish).
        entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(scale: u32) -> GraphKey {
        GraphKey {
            kind: GraphKind::Kronecker,
            scale,
            degree: 4,
            weighted: false,
            seed: 1,
        }
    }

    // One test, because the cache is process-wide state.
    #[test]
    fn kept_graphs_are_reused_within_the_budget_and_equal_fresh_builds() {
        let build = |scale| move || Graph::generate(GraphKind::Kronecker, scale, 4, false, 1);
        // Budget 0: every call builds.
        keep_graphs(0);
        let a = get_or_build(key(8), build(8));
        let b = get_or_build(key(8), build(8));
        assert!(!Arc::ptr_eq(&a, &b));
        // A budget: the same key gives the same graph, equal to a fresh build.
        keep_graphs(1 << 30);
        let c = get_or_build(key(8), build(8));
        let d = get_or_build(key(8), || panic!("a kept graph is not rebuilt"));
        assert!(Arc::ptr_eq(&c, &d));
        assert_eq!(c.neigh, a.neigh);
        assert_eq!(c.offsets, a.offsets);
        // A budget that holds one graph: the least recently used goes.
        keep_graphs(graph_bytes(&get_or_build(key(9), build(9))));
        let _ = get_or_build(key(8), build(8));
        let mut rebuilt = false;
        let _ = get_or_build(key(9), || {
            rebuilt = true;
            Graph::generate(GraphKind::Kronecker, 9, 4, false, 1)
        });
        assert!(rebuilt, "scale 9 was evicted when scale 8 came back");
        keep_graphs(0);
        assert!(ENTRIES.lock().unwrap().is_empty());
    }
}
