//! The CLI's integration tests, one binary (each file a module): a test binary links the
//! whole simulator, so one binary instead of one per file saves most of the link time and disk.
//! Run one file's tests with `cargo test -p numasim-cli --test integration FILE::`. The docs
//! and browser checks stay binaries of their own (`--test docs`, `--test report_browser`).

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod cli;
mod fidelity;
mod first_hour;
mod repro;
mod repro_hydm;
mod repro_talbot;
mod repro_tikir;
mod repro_zaourar;
mod sweep;
mod trace_capture;
mod trace_foreign;
