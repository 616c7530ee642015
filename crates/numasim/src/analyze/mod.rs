//! Analyses of access streams (traces or generators) that are not experiments themselves.

pub mod profile;
pub mod sharing;

pub use sharing::{analyze_run, AnalyzeError, SharingAnalysis, SharingOptions};
