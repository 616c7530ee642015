//! Analyses of access streams (traces or generators) that are not experiments themselves.

pub mod sharing;

pub use sharing::{analyze_sharing, analyze_sharing_inputs, SharingAnalysis, SharingOptions};
