//! Experiments: a TOML file in, a results directory out.
//!
//! `config` is the file's schema, `resolve` turns names into machine indices and live sources
//! and the whole experiment into a [`crate::driver::Run`] (once), `run` has the driver simulate
//! it and writes the results, `results_dir` makes the output directory appear only when
//! complete, `analyses` loads a trace or experiment file for `analyze sharing`, and `warnings`
//! explains results a reader should not take at face value.

pub mod analyses;
pub mod config;
pub mod phases_csv;
pub mod resolve;
pub mod results_dir;
pub mod run;
pub mod sweep;
pub mod warnings;

pub use analyses::{analyze_sharing, analyze_sharing_inputs, compare};
pub use config::{Experiment, ExperimentSpec, Mode};
pub use run::{default_out_dir, run, simulate, Progress, RunError, RunResults};
