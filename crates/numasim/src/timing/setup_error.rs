//! Why a timing engine cannot be built from its machine and `[timing]` settings.

use crate::cache::TagArrayError;

/// An error of [`super::TimingSim::new`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error("timing mode supports at most {max} sockets; machine `{machine}` has {sockets}")]
    TooManySockets {
        max: usize,
        machine: String,
        sockets: usize,
    },
    /// The private caches' and TLBs' tags over all cores exceed the limit.
    #[error("timing.l1_bytes, l2_bytes and tlb_entries for {cores} cores need {gib:.1} GiB of cache tags, more than the limit of {limit_gib} GiB; make them smaller or use fewer threads")]
    CoreTags { cores: usize, gib: f64, limit_gib: u64 },
    /// The LLCs' tag arrays.
    #[error(transparent)]
    Llc(#[from] TagArrayError),
    /// A private cache's (or the TLB's) tag arrays; `key` is the `[timing]` key that sizes it.
    #[error("{key}: {source}")]
    PrivateCache { key: &'static str, source: TagArrayError },
}
