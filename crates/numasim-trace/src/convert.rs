//! Conversion of any [`AccessSource`] into a native trace.
//!
//! Used by `numasim trace convert --from starnuma FILES... -o OUT` and by `trace record`.
//! The source is drained one batch per thread, round-robin, through the streaming
//! [`NativeWriter`], so memory is O(threads × chunk) whatever the trace length.

use std::path::{Path, PathBuf};

use crate::native::{NativeWriter, WriteSummary, DEFAULT_CHUNK_RECORDS};
use crate::source::{AccessSource, SourceError};
use crate::starnuma::StarnumaReader;

/// Statistics of a conversion: what the written trace holds.
pub type ConvertStats = WriteSummary;

/// Writes every access of `src` to a native trace at `out`, with `metadata` in its header
/// (pass e.g. `json!({"source": src.describe()})`). Uses the default chunk size.
pub fn convert(
    src: &mut dyn AccessSource,
    out: &Path,
    metadata: &serde_json::Value,
) -> Result<ConvertStats, SourceError> {
    convert_with_chunk_records(src, out, metadata, DEFAULT_CHUNK_RECORDS)
}

/// [`convert`] with an explicit number of records per chunk.
pub fn convert_with_chunk_records(
    src: &mut dyn AccessSource,
    out: &Path,
    metadata: &serde_json::Value,
    chunk_records: usize,
) -> Result<ConvertStats, SourceError> {
    let threads = src.threads();
    let mut writer = NativeWriter::create(out, threads, metadata)?;
    writer.set_chunk_records(chunk_records)?;
    let mut batch = Vec::new();
    // One batch per thread, round-robin: generators coupled by barriers only ever buffer about
    // one batch per thread (draining thread 0 first would force them to buffer all the others).
    let mut live = vec![true; threads];
    let mut remaining = threads;
    while remaining > 0 {
        for (t, alive) in live.iter_mut().enumerate() {
            if !*alive {
                continue;
            }
            src.next_batch(t, &mut batch)?;
            if batch.is_empty() {
                *alive = false;
                remaining -= 1;
            } else {
                writer.write_all(t, &batch)?;
            }
        }
    }
    writer.finish()
}

/// Converts StarNUMA per-thread files (`inputs[i]` is thread `i`) to a native trace; the header
/// metadata records the source files.
pub fn convert_starnuma(inputs: &[PathBuf], out: &Path) -> Result<ConvertStats, SourceError> {
    let mut src = StarnumaReader::open(inputs)?;
    let metadata = serde_json::json!({
        "generator": "numasim trace convert",
        "converted_from": src.describe(),
    });
    convert(&mut src, out, &metadata)
}

/// Instructions between the phase markers [`export_starnuma`] writes (the artifact's tracer
/// writes one every 100 M instructions of a thread).
pub const STARNUMA_MARKER_INSTRUCTIONS: u64 = 100_000_000;

/// Writes every access of `src` as StarNUMA per-thread files `dir/memtrace_t<N>.out`, with a
/// phase marker each time a thread's instruction count passes a multiple of
/// [`STARNUMA_MARKER_INSTRUCTIONS`], as the artifact's tracer does. Addresses lose their low 4
/// bits, sizes and flops (the format has no room for them). Returns the file paths.
pub fn export_starnuma(src: &mut dyn AccessSource, dir: &Path) -> Result<Vec<PathBuf>, SourceError> {
    use crate::starnuma::StarnumaWriter;
    std::fs::create_dir_all(dir).map_err(|source| SourceError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let threads = src.threads();
    let paths: Vec<PathBuf> = (0..threads).map(|t| dir.join(format!("memtrace_t{t}.out"))).collect();
    let mut writers = paths
        .iter()
        .map(StarnumaWriter::create)
        .collect::<Result<Vec<_>, _>>()?;
    let mut next_marker = vec![STARNUMA_MARKER_INSTRUCTIONS; threads];
    let mut live = vec![true; threads];
    let mut remaining = threads;
    let mut batch = Vec::new();
    // Round-robin over threads, one batch each, as in `convert`.
    while remaining > 0 {
        for t in 0..threads {
            if !live[t] {
                continue;
            }
            src.next_batch(t, &mut batch)?;
            if batch.is_empty() {
                live[t] = false;
                remaining -= 1;
                continue;
            }
            for a in &batch {
                while a.instr >= next_marker[t] {
                    writers[t].write_marker(next_marker[t])?;
                    next_marker[t] = next_marker[t].saturating_add(STARNUMA_MARKER_INSTRUCTIONS);
                }
                writers[t].write(a)?;
            }
        }
    }
    for w in writers {
        w.finish()?;
    }
    Ok(paths)
}
