//! Which sockets' LLCs may hold each line: the functional engine's coherence, reduced to what
//! changes miss counts.
//!
//! A store makes the writer's copy the only one, so the next access by another socket misses.
//! Without this, functional mode kept lines that a store on another socket would have
//! invalidated, and on write-shared streams counted 5× fewer LLC misses than timing mode, whose
//! directory does invalidate. One mask per line of every touched page, as narrow as the machine's
//! socket count allows (2 B per line for 16 sockets: 1/32 of the footprint). A bit may outlive
//! the line it stands for (evictions do not clear it); that only costs a no-op invalidation.

/// Sharer masks of every line of every touched page, indexed by `page id × lines per page +
/// line within the page`.
#[derive(Debug, Clone)]
pub enum SharerMap {
    /// Up to 16 sockets.
    Narrow(Vec<u16>),
    /// Up to 64 sockets.
    Wide(Vec<u64>),
    /// More than 64 sockets: no masks; a store probes every other socket's LLC.
    Broadcast { sockets: usize },
}

impl SharerMap {
    pub fn new(sockets: usize) -> Self {
        match sockets {
            0..=16 => SharerMap::Narrow(Vec::new()),
            17..=64 => SharerMap::Wide(Vec::new()),
            _ => SharerMap::Broadcast { sockets },
        }
    }

    /// Bytes kept per line of every touched page.
    pub fn bytes_per_line(&self) -> u64 {
        match self {
            SharerMap::Narrow(_) => 2,
            SharerMap::Wide(_) => 8,
            SharerMap::Broadcast { .. } => 0,
        }
    }

    /// Makes room for the lines of one more page (called at first touch).
    pub fn push_page(&mut self, lines_per_page: usize) {
        match self {
            SharerMap::Narrow(v) => v.resize(v.len() + lines_per_page, 0),
            SharerMap::Wide(v) => v.resize(v.len() + lines_per_page, 0),
            SharerMap::Broadcast { .. } => {}
        }
    }

    /// Makes room for the lines of `pages` pages in all (pages first touched by another
    /// engine in sampled timing; their lines start with no sharers).
    pub fn grow_to(&mut self, pages: usize, lines_per_page: usize) {
        let n = pages * lines_per_page;
        match self {
            SharerMap::Narrow(v) if v.len() < n => v.resize(n, 0),
            SharerMap::Wide(v) if v.len() < n => v.resize(n, 0),
            _ => {}
        }
    }

    /// Socket `me` reads line `idx`: it becomes a sharer.
    #[inline]
    pub fn add(&mut self, idx: usize, me: usize) {
        match self {
            SharerMap::Narrow(v) => v[idx] |= 1 << me,
            SharerMap::Wide(v) => v[idx] |= 1 << me,
            SharerMap::Broadcast { .. } => {}
        }
    }

    /// Socket `me` writes line `idx`: calls `invalidate(other)` for every other socket that may
    /// hold it, and leaves `me` the only sharer.
    #[inline]
    pub fn make_exclusive(&mut self, idx: usize, me: usize, mut invalidate: impl FnMut(usize)) {
        let mut others = match self {
            SharerMap::Narrow(v) => {
                let o = u64::from(v[idx]) & !(1 << me);
                v[idx] = 1 << me;
                o
            }
            SharerMap::Wide(v) => {
                let o = v[idx] & !(1 << me);
                v[idx] = 1 << me;
                o
            }
            SharerMap::Broadcast { sockets } => {
                for s in (0..*sockets).filter(|&s| s != me) {
                    invalidate(s);
                }
                return;
            }
        };
        while others != 0 {
            invalidate(others.trailing_zeros() as usize);
            others &= others - 1;
        }
    }

    /// Adds `masks[i]` to the sharers of line `i` (sampled timing: the timing engine's
    /// directory tells which sockets read lines while this map was not watching). Lines
    /// beyond this map's length are ignored.
    pub fn merge(&mut self, masks: &[u64]) {
        match self {
            SharerMap::Narrow(v) => v.iter_mut().zip(masks).for_each(|(a, &b)| *a |= b as u16),
            SharerMap::Wide(v) => v.iter_mut().zip(masks).for_each(|(a, &b)| *a |= b),
            SharerMap::Broadcast { .. } => {}
        }
    }

    /// Adds this map's sharers of every line to `masks` (the reverse of [`Self::merge`]);
    /// with no masks (more than 64 sockets) every socket is a possible sharer.
    pub fn merge_into(&self, masks: &mut [u64]) {
        match self {
            SharerMap::Narrow(v) => masks.iter_mut().zip(v).for_each(|(a, &b)| *a |= u64::from(b)),
            SharerMap::Wide(v) => masks.iter_mut().zip(v).for_each(|(a, &b)| *a |= b),
            SharerMap::Broadcast { sockets } => {
                let all = if *sockets >= 64 {
                    u64::MAX
                } else {
                    (1u64 << *sockets) - 1
                };
                masks.iter_mut().for_each(|a| *a |= all);
            }
        }
    }

    /// Bytes held (for memory reports).
    pub fn bytes(&self) -> usize {
        match self {
            SharerMap::Narrow(v) => v.len() * 2,
            SharerMap::Wide(v) => v.len() * 8,
            SharerMap::Broadcast { .. } => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalidated(m: &mut SharerMap, idx: usize, me: usize) -> Vec<usize> {
        let mut v = Vec::new();
        m.make_exclusive(idx, me, |s| v.push(s));
        v
    }

    #[test]
    fn a_store_invalidates_exactly_the_other_readers_and_leaves_the_writer_alone() {
        for sockets in [4, 40] {
            let mut m = SharerMap::new(sockets);
            m.push_page(64);
            m.add(3, 0);
            m.add(3, 2);
            m.add(3, sockets - 1);
            m.add(4, 1);
            assert_eq!(invalidated(&mut m, 3, 2), vec![0, sockets - 1]);
            // Now only the writer holds it: its next store invalidates nobody, another's store
            // invalidates the writer.
            assert!(invalidated(&mut m, 3, 2).is_empty());
            assert_eq!(invalidated(&mut m, 3, 1), vec![2]);
            // Other lines are untouched.
            assert_eq!(invalidated(&mut m, 4, 0), vec![1]);
        }
    }

    #[test]
    fn beyond_64_sockets_a_store_probes_every_other_socket() {
        let mut m = SharerMap::new(100);
        m.push_page(64);
        assert_eq!(invalidated(&mut m, 0, 7).len(), 99);
        assert_eq!(m.bytes(), 0);
    }
}
