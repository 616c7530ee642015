//! Homes chosen before a run (the static oracle's), keyed by virtual page.
//!
//! Keyed by virtual page, not by page id: page ids are handed out in first-touch order, which
//! in timing mode depends on the simulated interleaving of cores (and so on placement itself),
//! so an id learnt in one pass names a different page in the next. A virtual page is the same
//! page in every pass and both engines.

use std::collections::HashMap;

/// Node index of each virtual page that has a fixed home; empty when there is no oracle.
#[derive(Debug, Clone, Default)]
pub struct FixedHomes {
    by_vpage: HashMap<u64, u16>,
}

impl FixedHomes {
    /// From `(virtual page, node)` pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (u64, u16)>) -> Self {
        FixedHomes {
            by_vpage: pairs.into_iter().collect(),
        }
    }

    /// The fixed home of `vpage`, if it has one (looked up once per first touch).
    #[inline]
    pub fn get(&self, vpage: u64) -> Option<u16> {
        if self.by_vpage.is_empty() {
            return None;
        }
        self.by_vpage.get(&vpage).copied()
    }

    pub fn len(&self) -> usize {
        self.by_vpage.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_vpage.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_by_virtual_page() {
        let h = FixedHomes::from_pairs([(7, 1), (3, 0)]);
        assert_eq!(h.get(7), Some(1));
        assert_eq!(h.get(3), Some(0));
        assert_eq!(h.get(4), None);
        assert_eq!(FixedHomes::default().get(7), None);
        assert_eq!(h.len(), 2);
    }
}
