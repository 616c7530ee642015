//! SPLASH-2-style kernels studied by Talbot & Kelly (first-touch vs round-robin placement,
//! reactive proxies): Gaussian elimination (`ge`) and Ocean's red-black SOR on several grids
//! (`ocean`), which share [`Partition`].
//!
//! Both take `partition`: `non-contiguous` stores each grid/matrix as one row-major array, so
//! a thread's block may share or span pages with other threads' blocks (SPLASH-2's
//! Ocean-Non-Contig, "easy to understand"); `contiguous` allocates each thread's block as its
//! own contiguous, page-aligned region (Ocean-Contig's 4-D arrays, "tuned for locality").

pub mod ge;
pub mod ocean;

use serde::{Deserialize, Serialize};

/// Data layout of the partitioned arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Partition {
    /// One row-major array: a thread's block is strided through the whole array.
    #[default]
    NonContiguous,
    /// Each thread's block is allocated contiguously, in its own region.
    Contiguous,
}

impl Partition {
    pub fn doc() -> &'static str {
        "non-contiguous (one row-major array) | contiguous (each thread's block in its own region)"
    }
}
