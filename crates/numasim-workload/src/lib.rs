//! Workload generators: per-thread access streams computed in-process.
//!
//! A generator is named in the experiment (`[workload] kind = "..."`) with its parameters
//! beside it, and yields an [`AccessSource`](numasim_trace::AccessSource), exactly like a trace
//! reader, so everything downstream is indifferent to where accesses come from. Generators are
//! registered by name in [`registry`] (one entry per generator, each documenting its parameters)
//! and are deterministic functions of their parameters and the experiment seed.

pub mod freqmine;
pub mod genomics;
pub mod graph;
pub mod kv;
pub mod lbm;
pub mod npb;
pub mod oltp;
pub mod omp;
pub mod parallel;
pub mod params;
pub mod registry;
pub mod rng;
pub mod splash;
pub mod stream;
pub mod synthetic;
pub mod thread_emit;
pub mod vspace;

pub use registry::{build, build_with_threads, list, GeneratorInfo, WorkloadError};
