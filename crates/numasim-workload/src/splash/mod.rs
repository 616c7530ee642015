//! SPLASH-2-style kernels studied by Talbot & Kelly (first-touch vs round-robin placement,
//! reactive proxies): Gaussian elimination (`ge`) and Ocean's red-black SOR on several grids
//! (`ocean`), which share [`Partition`].
//!
//! Both take `partition`: `non-contiguous` stores each grid/matrix as one row-major array, so
//! a thread's block may share or span pages with other threads' blocks (SPLASH-2's
//! Ocean-Non-Contig, "easy to understand"); `contiguous` allocates each thread's block as its
//! own contiguous, page-aligned region (Ocean-Contig's 4-D arrays, "tuned for locality").

pub mod barnes;
pub mod fft;
pub mod fmm;
pub mod ge;
pub mod ocean;
pub mod water;

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

impl numasim_config::param::ParamKind for Partition {}

impl Partition {
    pub fn doc() -> &'static str {
        "non-contiguous (one row-major array) | contiguous (each thread's block in its own region)"
    }
}

/// A data structure a generator declares "hot" (Talbot & Kelly's basic proxies are applied to
/// the structures the programmer marks): its name and virtual address range `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HotRange {
    pub name: &'static str,
    pub start_vaddr: u64,
    pub end_vaddr: u64,
}

/// The hot structures of generator `kind` built from `params` (the `[workload]` table without
/// `kind`) and `seed`; empty for a generator that declares none. Nothing in the simulator reads
/// these by itself (so existing experiments are unchanged): a study turns them into
/// `[timing] proxy_ranges`.
pub fn hot_ranges(kind: &str, params: toml::Table, seed: u64) -> Result<Vec<HotRange>, crate::WorkloadError> {
    match kind {
        "ge" => ge::hot(params, seed),
        "ocean" => ocean::hot(params, seed),
        "barnes" => barnes::hot(params, seed),
        "fft" => fft::hot(params, seed),
        "fmm" => fmm::hot(params, seed),
        "water-nsq" => water::hot(params, seed),
        _ => Ok(Vec::new()),
    }
}
