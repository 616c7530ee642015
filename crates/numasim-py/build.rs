//! Nothing to build: this script exists so the `[build-dependencies]` entry in Cargo.toml, which
//! only aligns syn's features between the test and wheel builds, is a real host dependency.
fn main() {}
