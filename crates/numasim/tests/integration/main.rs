//! The library's integration tests, one binary (each file a module): a test binary links the
//! whole simulator, so one binary instead of one per file saves most of the link time and disk.
//! Run one file's tests with `cargo test -p numasim --test integration FILE::`.

mod docs_agree;
mod dram_vs_ramulator;
mod hostile_input;
mod hydm;
mod layering;
mod measure_roi;
mod migration;
mod node_controllers;
mod npb_class;
mod page_size;
mod perf_block;
mod phase_ns;
mod processes;
mod sampled_timing;
mod sharing_analysis;
mod shipped_configs;
mod similarity;
mod splash_first_touch;
mod tikir_profiles;
mod timing_migration;
mod timing_validation;
mod worker_threads;
mod workloads_placement;
