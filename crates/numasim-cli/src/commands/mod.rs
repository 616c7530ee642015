pub mod analyze;
pub mod bench;
pub mod bench_dram;
pub mod demo;
pub mod machine;
pub mod params;
pub mod policy;
pub mod report;
pub mod repro;
pub mod run;
pub mod sweep;
pub mod trace;
pub mod trace_capture;
pub mod workload;

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
