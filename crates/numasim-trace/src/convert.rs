//! Conversion of any [`AccessSource`] into a native trace.
//!
//! Used by `numasim trace convert --from starnuma FILES... -o OUT` and by `trace record`.
//! The source is drained one batch per thread, round-robin, through the streaming
//! [`NativeWriter`], so memory is O(threads × chunk) whatever the trace length.
//!
//! The output is written under a temporary name in its own directory and renamed over `out`
//! only when complete, so a failed conversion never leaves a truncated trace and never destroys
//! an existing file; [`refuse_output_among_inputs`] keeps `-o` from naming one of the inputs.

use std::path::{Path, PathBuf};

use crate::native::{NativeWriter, WriteSummary, DEFAULT_CHUNK_RECORDS};
use crate::source::{AccessSource, SourceError};
use crate::starnuma::StarnumaReader;

/// Statistics of a conversion: what the written trace holds.
pub type ConvertStats = WriteSummary;

/// How a conversion writes its native trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSettings {
    /// Records per chunk.
    pub chunk_records: usize,
    /// zstd level; `None`: the writer's default ([`crate::native::DEFAULT_COMPRESSION_LEVEL`],
    /// chosen for decode speed; higher levels give smaller files that decode more slowly).
    pub compression_level: Option<i32>,
}

impl Default for WriteSettings {
    fn default() -> Self {
        WriteSettings {
            chunk_records: DEFAULT_CHUNK_RECORDS,
            compression_level: None,
        }
    }
}

/// Writes every access of `src` to a native trace at `out`, with `metadata` in its header
/// (pass e.g. `json!({"source": src.describe()})`), with the default [`WriteSettings`].
pub fn convert(
    src: &mut dyn AccessSource,
    out: &Path,
    metadata: &serde_json::Value,
) -> Result<ConvertStats, SourceError> {
    convert_with(src, out, metadata, &WriteSettings::default())
}

/// [`convert`] with explicit [`WriteSettings`].
pub fn convert_with(
    src: &mut dyn AccessSource,
    out: &Path,
    metadata: &serde_json::Value,
    settings: &WriteSettings,
) -> Result<ConvertStats, SourceError> {
    let threads = src.threads();
    let tmp = TempOutput::reserve(out)?;
    let mut writer = NativeWriter::create(&tmp.path, threads, metadata)?;
    writer.set_chunk_records(settings.chunk_records)?;
    if let Some(level) = settings.compression_level {
        writer.set_compression_level(level)?;
    }
    drain_round_robin(src, |t, batch| writer.write_all(t, batch))?;
    let summary = writer.finish()?;
    tmp.persist()?;
    Ok(summary)
}

/// Reads every access of `src`, one batch per thread in turn, handing each non-empty batch to
/// `each(thread, batch)`. Round-robin, because generators coupled by barriers then only ever
/// buffer about one batch per thread (draining thread 0 first would force them to buffer all
/// the others).
pub fn drain_round_robin<E: From<SourceError>>(
    src: &mut dyn AccessSource,
    mut each: impl FnMut(usize, &[crate::record::Access]) -> Result<(), E>,
) -> Result<(), E> {
    let mut batch = Vec::new();
    let mut live = vec![true; src.threads()];
    let mut remaining = live.len();
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
                each(t, &batch)?;
            }
        }
    }
    Ok(())
}

/// How the output policy treats a device or FIFO given as a native trace's `-o`.
const NATIVE_SPECIAL: numasim_output::Special =
    numasim_output::Special::Refuse("a native trace is finished by rewriting its header, so it needs a regular file");

/// An output-policy error as a [`SourceError`]: a refusal says everything itself.
pub(crate) fn output_error(out: &Path, e: std::io::Error) -> SourceError {
    if e.kind() == std::io::ErrorKind::InvalidInput {
        SourceError::Invalid(e.to_string())
    } else {
        SourceError::Io {
            path: out.display().to_string(),
            source: e,
        }
    }
}

/// Checks `out` against numasim's output policy ([`numasim_output::file`]) for a native trace
/// read from `inputs`, before anything is opened: refuses an input (same device and inode,
/// through links and `..` detours), a link to nothing, a directory, a device or FIFO, and a
/// file of a results directory.
pub fn refuse_output_among_inputs(out: &Path, inputs: &[PathBuf]) -> Result<(), SourceError> {
    numasim_output::plan(out, inputs, NATIVE_SPECIAL)
        .map(drop)
        .map_err(|e| output_error(out, e))
}

/// A native trace being written beside its final name, removed unless persisted (also on
/// SIGINT/SIGTERM/SIGHUP).
pub(crate) struct TempOutput {
    pub(crate) path: PathBuf,
    file: numasim_output::OutputFile,
    out: PathBuf,
}

impl TempOutput {
    pub(crate) fn reserve(out: &Path) -> Result<Self, SourceError> {
        let file = numasim_output::plan(out, &[], NATIVE_SPECIAL)
            .and_then(numasim_output::OutputPlan::open)
            .map_err(|e| output_error(out, e))?;
        Ok(TempOutput {
            path: file.path().to_path_buf(),
            file,
            out: out.to_path_buf(),
        })
    }

    pub(crate) fn persist(self) -> Result<(), SourceError> {
        self.file.commit().map_err(|e| output_error(&self.out, e))
    }
}

/// Converts StarNUMA per-thread files (`inputs[i]` is thread `i`) to a native trace; the header
/// metadata records the source files.
pub fn convert_starnuma(inputs: &[PathBuf], out: &Path, settings: &WriteSettings) -> Result<ConvertStats, SourceError> {
    refuse_output_among_inputs(out, inputs)?;
    let mut src = StarnumaReader::open(inputs)?;
    let metadata = serde_json::json!({
        "generator": "numasim trace convert",
        "converted_from": src.describe(),
    });
    convert_with(&mut src, out, &metadata, settings)
}

/// Instructions between the phase markers [`export_starnuma`] writes (the artifact's tracer
/// writes one every 100 M instructions of a thread).
pub const STARNUMA_MARKER_INSTRUCTIONS: u64 = 100_000_000;

/// Kind of a StarNUMA export directory in its marker: an export replaces only another export.
pub const STARNUMA_EXPORT_KIND: &str = "starnuma-trace";

/// Writes every access of `src` as StarNUMA per-thread files `dir/memtrace_t<N>.out`, with a
/// phase marker each time a thread's instruction count passes a multiple of
/// [`STARNUMA_MARKER_INSTRUCTIONS`], as the artifact's tracer does. Addresses lose their low 4
/// bits, sizes and flops (the format has no room for them). Returns the file paths.
///
/// `dir` is a directory numasim writes whole ([`numasim_output::ResultsDir`]): it appears only
/// when every file is complete (a failed export leaves no shorter traces that read as valid),
/// it replaces only a directory numasim wrote, and one holding any of `inputs` is refused
/// before anything is written.
pub fn export_starnuma(
    src: &mut dyn AccessSource,
    dir: &Path,
    inputs: &[PathBuf],
) -> Result<Vec<PathBuf>, SourceError> {
    use crate::starnuma::StarnumaWriter;
    let out =
        numasim_output::ResultsDir::begin_kind(dir, inputs, STARNUMA_EXPORT_KIND).map_err(|e| output_error(dir, e))?;
    let threads = src.threads();
    let names: Vec<String> = (0..threads).map(|t| format!("memtrace_t{t}.out")).collect();
    let mut writers = Vec::with_capacity(threads);
    for name in &names {
        let (path, file) = out.create(name).map_err(|e| output_error(dir, e))?;
        writers.push(StarnumaWriter::from_file(path, file));
    }
    let mut next_marker = vec![STARNUMA_MARKER_INSTRUCTIONS; threads];
    drain_round_robin(src, |t, batch| {
        for a in batch {
            while a.instr >= next_marker[t] {
                writers[t].write_marker(next_marker[t])?;
                next_marker[t] = next_marker[t].saturating_add(STARNUMA_MARKER_INSTRUCTIONS);
            }
            writers[t].write(a)?;
        }
        Ok(())
    })?;
    for w in writers {
        w.finish()?;
    }
    let done = out.finish().map_err(|e| output_error(dir, e))?;
    Ok(names.iter().map(|n| done.join(n)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starnuma_file(path: &Path, records: &[(u64, u64)]) {
        let mut bytes = Vec::new();
        for (addr_rw, instr) in records {
            bytes.extend_from_slice(&addr_rw.to_le_bytes());
            bytes.extend_from_slice(&instr.to_le_bytes());
        }
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn converting_onto_one_of_the_inputs_is_refused_and_the_input_survives() {
        // Regression: `convert t0.out t1.out -o t1.out` used to truncate t1.out first.
        let dir = tempfile::tempdir().unwrap();
        let t0 = dir.path().join("t0.out");
        let t1 = dir.path().join("t1.out");
        starnuma_file(&t0, &[(0x1000, 1), (0x2001, 5)]);
        starnuma_file(&t1, &[(0x3000, 2)]);
        let before = std::fs::read(&t1).unwrap();
        let via_other_name = dir.path().join("alias.out");
        std::fs::hard_link(&t1, &via_other_name).unwrap();
        for out in [&t1, &via_other_name] {
            let e = convert_starnuma(&[t0.clone(), t1.clone()], out, &WriteSettings::default()).unwrap_err();
            assert!(e.to_string().contains("is the input"), "{e}");
        }
        assert_eq!(std::fs::read(&t1).unwrap(), before);
    }

    #[test]
    fn a_failed_conversion_keeps_the_existing_output_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = dir.path().join("t0.out");
        // A corrupt record (low nibble 7) fails the conversion midway.
        starnuma_file(&t0, &[(0x1000, 1), (0x2007, 2)]);
        let out = dir.path().join("out.nst");
        std::fs::write(&out, "previous trace").unwrap();
        assert!(convert_starnuma(std::slice::from_ref(&t0), &out, &WriteSettings::default()).is_err());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous trace");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // A good conversion replaces it.
        starnuma_file(&t0, &[(0x1000, 1)]);
        let stats = convert_starnuma(&[t0], &out, &WriteSettings::default()).unwrap();
        assert_eq!(stats.records, 1);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn exporting_into_the_directory_of_the_inputs_is_refused_before_anything_is_written() {
        // `convert --from native X --to starnuma -o DIR` must not touch inputs living in DIR.
        let dir = tempfile::tempdir().unwrap();
        let t0 = dir.path().join("memtrace_t0.out");
        starnuma_file(&t0, &[(0x1000, 1), (0x2001, 5)]);
        let before = std::fs::read(&t0).unwrap();
        let inputs = vec![t0.clone()];
        let mut src = StarnumaReader::open(&inputs).unwrap();
        let e = export_starnuma(&mut src, dir.path(), &inputs).unwrap_err();
        assert!(e.to_string().contains("holds the input"), "{e}");
        assert_eq!(std::fs::read(&t0).unwrap(), before);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_export_leaves_no_shorter_traces_and_a_good_one_replaces_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = dir.path().join("in.out");
        starnuma_file(&t0, &[(0x1000, 1), (0x2000, 2), (0x3007, 3)]);
        let out = dir.path().join("exported");
        let mut src = StarnumaReader::open(std::slice::from_ref(&t0)).unwrap();
        assert!(export_starnuma(&mut src, &out, std::slice::from_ref(&t0)).is_err());
        assert!(!out.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        starnuma_file(&t0, &[(0x1000, 1), (0x2000, 2)]);
        for _ in 0..2 {
            let mut src = StarnumaReader::open(std::slice::from_ref(&t0)).unwrap();
            let paths = export_starnuma(&mut src, &out, std::slice::from_ref(&t0)).unwrap();
            assert_eq!(std::fs::read(&paths[0]).unwrap(), std::fs::read(&t0).unwrap());
        }
        // A directory of the user's is not replaced.
        let mine = dir.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("memtrace_t0.out"), "mine").unwrap();
        let mut src = StarnumaReader::open(std::slice::from_ref(&t0)).unwrap();
        assert!(export_starnuma(&mut src, &mine, std::slice::from_ref(&t0)).is_err());
        assert_eq!(std::fs::read_to_string(mine.join("memtrace_t0.out")).unwrap(), "mine");
    }
}
