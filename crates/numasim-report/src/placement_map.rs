//! Per-phase page placement maps, read from results.json when a run has them.
//!
//! numasim writes `phases[i].placement_map` (see `numasim::mem::PlacementMap`): the pages
//! touched by the end of phase `i`, sorted by virtual page number and cut into at most 64 bins;
//! per bin `first_vpage`, `home` (index into `machine.memory_nodes` of the node holding most of
//! its pages), `home_permille` (that node's share, ‰) and `migrated` (pages moved at the phase's
//! boundary). Bin `b` of `B` over `P` pages holds ranks `[b·P/B, (b+1)·P/B)`.
//!
//! The reader is lenient, as for other late-arriving data: a phase whose map is missing or
//! malformed (arrays of different lengths, more bins than pages, absurd sizes) is skipped, and
//! missing optional arrays default to "whole bin on `home`" and "nothing migrated".

use crate::results::Run;
use serde_json::Value;

/// More bins than this in one phase is not something numasim writes; such a map is ignored so
/// a hostile file cannot make the figure enormous.
pub const MAX_BINS: usize = 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct PhaseMap {
    pub index: u64,
    /// Pages touched by the end of the phase.
    pub pages: u64,
    pub first_vpage: Vec<u64>,
    /// Dominant node index per bin (may be out of range in a bad file: drawn as unknown).
    pub home: Vec<usize>,
    /// Share of the bin on `home`, 0–1.
    pub home_share: Vec<f64>,
    pub migrated: Vec<u64>,
}

impl PhaseMap {
    pub fn bins(&self) -> usize {
        self.home.len()
    }

    /// Rank range `[lo, hi)` of bin `b` among the phase's touched pages.
    pub fn ranks(&self, b: usize) -> (u64, u64) {
        let (p, n) = (self.pages as u128, self.bins().max(1) as u128);
        ((b as u128 * p / n) as u64, ((b as u128 + 1) * p / n) as u64)
    }

    /// Pages in bin `b`.
    pub fn bin_pages(&self, b: usize) -> u64 {
        let (lo, hi) = self.ranks(b);
        hi - lo
    }
}

fn u64s(v: Option<&Value>) -> Option<Vec<u64>> {
    v?.as_array()?.iter().map(Value::as_u64).collect()
}

fn parse(index: u64, m: &Value) -> Option<PhaseMap> {
    let pages = m.get("pages")?.as_u64()?;
    let home: Vec<usize> = u64s(m.get("home"))?
        .into_iter()
        .map(|h| usize::try_from(h).unwrap_or(usize::MAX))
        .collect();
    let n = home.len();
    if n == 0 || n > MAX_BINS || n as u64 > pages {
        return None;
    }
    let same_len = |v: Option<Vec<u64>>, default: u64| match v {
        Some(v) if v.len() == n => Some(v),
        Some(_) => None,
        None => Some(vec![default; n]),
    };
    let first_vpage = same_len(u64s(m.get("first_vpage")), 0)?;
    let permille = same_len(u64s(m.get("home_permille")), 1000)?;
    let migrated = same_len(u64s(m.get("migrated")), 0)?;
    Some(PhaseMap {
        index,
        pages,
        first_vpage,
        home,
        home_share: permille.iter().map(|&x| x.min(1000) as f64 / 1000.0).collect(),
        migrated,
    })
}

/// The run's per-phase maps, in phase order; `None` when no phase has a usable one.
pub fn of(run: &Run) -> Option<Vec<PhaseMap>> {
    let phases = run.raw.get("phases")?.as_array()?;
    let maps: Vec<PhaseMap> = phases
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let index = p.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
            parse(index, p.get("placement_map")?)
        })
        .collect();
    (!maps.is_empty()).then_some(maps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_skips_malformed_phases() {
        let good = serde_json::json!({"pages": 10, "first_vpage": [0, 50], "home": [1, 0],
            "home_permille": [1000, 600], "migrated": [0, 3]});
        let m = parse(4, &good).unwrap();
        assert_eq!((m.index, m.bins(), m.ranks(1), m.bin_pages(0)), (4, 2, (5, 10), 5));
        assert_eq!(m.home_share, [1.0, 0.6]);
        // Lengths disagree, more bins than pages, too many bins, wrong types: skipped.
        for bad in [
            serde_json::json!({"pages": 10, "home": [1, 0], "migrated": [1]}),
            serde_json::json!({"pages": 1, "home": [1, 0]}),
            serde_json::json!({"pages": 100000, "home": vec![0; MAX_BINS + 1]}),
            serde_json::json!({"pages": "ten", "home": [0]}),
            serde_json::json!({"pages": 3, "home": [-1]}),
        ] {
            assert!(parse(0, &bad).is_none(), "{bad}");
        }
        // Optional arrays default.
        let m = parse(0, &serde_json::json!({"pages": 2, "home": [7]})).unwrap();
        assert_eq!((m.home_share[0], m.migrated[0], m.home[0]), (1.0, 0, 7));
    }
}
