//! Caches. Functional mode uses the per-socket shared LLC as a filter in front of memory.

pub mod set_assoc;
pub mod sharers;

pub use set_assoc::{Outcome, SetAssocCache, TagArrayError};
pub use sharers::SharerMap;
