//! numasim: where should a page of memory live on a non-uniform machine, and what does it
//! cost when it lives there?
//!
//! The library is the whole simulator; the `numasim` binary only parses arguments and calls
//! it. Modules follow the pipeline: accesses come from [`numasim_trace`] sources (trace files)
//! or [`numasim_workload`] generators, run on a [`numasim_machine::Machine`], pass the per-socket
//! LLC filter ([`cache`]), are placed and counted by page ([`mem`], [`stats`]) in the functional
//! simulator ([`sim`]) or the timing engine ([`timing`]), both driven phase by phase by
//! [`driver`] over one memory system ([`mem::Memory`]); [`experiment`] turns a TOML experiment
//! into a resolved [`driver::Run`] and writes the results directory.

pub mod analyze;
pub mod cache;
pub mod driver;
pub mod experiment;
pub mod huge_pages;
pub mod mem;
pub mod migrate;
mod prefetch;
pub mod profile;
pub mod rng;
pub mod sim;
pub mod similarity;
pub mod stats;
pub mod system;
pub mod timing;

pub use numasim_config as config;
pub use numasim_machine as machine;
pub use numasim_trace as trace;
pub use numasim_workload as workload;
