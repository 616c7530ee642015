//! Experiments: a TOML file in, a results directory out.
//!
//! `config` is the file's schema, `resolve` turns names into machine indices and live sources,
//! `run` drives the simulator phase by phase and assembles results, `results_dir` makes the
//! output directory appear only when complete.

pub mod analyses;
pub mod config;
pub mod resolve;
pub mod results_dir;
pub mod run;

pub use analyses::analyze_sharing;
pub use config::{Experiment, ExperimentSpec, Mode};
pub use run::{default_out_dir, run, simulate, Progress, RunError, RunResults};
