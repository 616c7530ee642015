//! Simulation engines. Functional mode counts where accesses go; timing mode (later) adds a clock
//! over the same pipeline.

pub mod functional;

pub use functional::{FunctionalConfig, FunctionalSim, SimError};
