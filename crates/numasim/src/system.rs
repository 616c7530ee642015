//! The simulated machine's state that outlives any one engine: the memory system (page table,
//! homes, frames, placement, per-page counters), the per-socket LLC tag arrays and the
//! migration profiler's observer.
//!
//! The driver owns one [`System`] per run and lends it (`&mut`) to whichever engine runs a
//! span of accesses: the functional engine, the timing engine, or both in turn under sampled
//! timing. An engine keeps only what is its own model of the machine: its threads' places in
//! their streams, its counters and, for the timing engine, the cores' clocks, private caches,
//! TLBs and the booked fabric. So a page placed or moved, a line filled or evicted, and a
//! sample the profiler took are seen by the next span whichever engine runs it, with nothing
//! handed across between spans.
//!
//! The coherence directory is not here: each engine models it at its own detail (the
//! functional engine a sharer mask per line; the timing engine masks, owners and per-core
//! marks), so sampled timing reconciles the two at each switch of engine (their sharer masks
//! are merged both ways).

use crate::cache::SetAssocCache;
use crate::mem::Memory;
use crate::profile::Observer;

/// The machine state an engine runs on; see the module docs.
pub struct System {
    /// Page table, homes and frames, placement and per-page statistics.
    pub memory: Memory,
    /// Per-socket LLC tag arrays (empty when the run models no LLC).
    pub llcs: Vec<SetAssocCache>,
    /// The migration profiler's observer of accesses, if the policy uses one.
    pub observer: Option<Box<Observer>>,
}

impl System {
    /// A system on `memory` with these LLC tag arrays and no observer.
    pub fn new(memory: Memory, llcs: Vec<SetAssocCache>) -> Self {
        System {
            memory,
            llcs,
            observer: None,
        }
    }

    /// Installs a migration profiler's observer.
    pub fn set_observer(&mut self, observer: Observer) {
        self.observer = Some(Box::new(observer));
    }

    pub fn observer_mut(&mut self) -> Option<&mut Observer> {
        self.observer.as_deref_mut()
    }

    /// Per-socket LLC tag arrays of `(bytes, ways)` each (one partition, as both engines use
    /// them).
    pub fn llcs_of(shape: &[(u64, usize)]) -> Result<Vec<SetAssocCache>, crate::cache::TagArrayError> {
        shape
            .iter()
            .map(|&(bytes, ways)| SetAssocCache::try_partitioned(1, bytes, ways))
            .collect()
    }
}
