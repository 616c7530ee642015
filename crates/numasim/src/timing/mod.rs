//! Timing mode (placeholder docs; completed below).
pub mod dram;
pub mod link;
pub mod params;
