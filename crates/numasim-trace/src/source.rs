//! The interface between "where accesses come from" and "what the simulator does with them".
//!
//! Generators (running real algorithms) and trace readers both produce one access stream per
//! thread. The simulator pulls them in batches, thread by thread, and interleaves threads by
//! instruction count. Batches keep the per-access cost to a loop over a slice (no dynamic call
//! per access), and let a source do its work in whatever unit is natural to it (a chunk of a
//! compressed file, one BFS level).

use crate::record::Access;

/// Error from a source: a corrupt trace names the byte offset; a generator may fail on bad
/// parameters only before it starts.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{path}: byte offset {offset}: {message}")]
    Corrupt { path: String, offset: u64, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

/// Per-thread access streams, pulled in batches.
pub trait AccessSource: Send {
    /// Number of threads (streams). Fixed for the life of the source.
    fn threads(&self) -> usize;

    /// Replaces the contents of `out` with the next accesses of `thread`, in program order,
    /// with non-decreasing `instr`. Leaves `out` empty when the thread has finished.
    /// A batch may hold any number of accesses; sources aim for a few thousand.
    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError>;

    /// Free-form description recorded in results and trace headers (generator name and
    /// parameters, or the trace file it came from).
    fn describe(&self) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// Where the program's region of interest begins: the instruction count at which every
    /// thread has finished the set-up (building and first writing its data, as NPB's
    /// initialisation before its timed loop) and nothing of the computation proper has run.
    /// `Ok(None)` when the source declares no set-up. A source may produce (and buffer) the
    /// set-up's accesses to find it; the streams it hands out do not change.
    fn roi_start(&mut self) -> Result<Option<u64>, SourceError> {
        Ok(None)
    }
}

impl<S: AccessSource + ?Sized> AccessSource for Box<S> {
    fn threads(&self) -> usize {
        (**self).threads()
    }
    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        (**self).next_batch(thread, out)
    }
    fn describe(&self) -> serde_json::Value {
        (**self).describe()
    }
    fn roi_start(&mut self) -> Result<Option<u64>, SourceError> {
        (**self).roi_start()
    }
}

/// A source over in-memory vectors; handy in tests and for small converted traces.
#[derive(Debug, Clone)]
pub struct VecSource {
    streams: Vec<Vec<Access>>,
    cursor: Vec<usize>,
    batch: usize,
}

impl VecSource {
    pub fn new(streams: Vec<Vec<Access>>) -> Self {
        let n = streams.len();
        VecSource {
            streams,
            cursor: vec![0; n],
            batch: 4096,
        }
    }

    /// Sets the batch size (tests use it to check results do not depend on batching).
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }
}

impl AccessSource for VecSource {
    fn threads(&self) -> usize {
        self.streams.len()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        out.clear();
        let s = &self.streams[thread];
        let start = self.cursor[thread];
        let end = (start + self.batch).min(s.len());
        out.extend_from_slice(&s[start..end]);
        self.cursor[thread] = end;
        Ok(())
    }
}

/// Drains a source completely into vectors (tests and small conversions only).
pub fn collect_all(src: &mut dyn AccessSource) -> Result<Vec<Vec<Access>>, SourceError> {
    let mut all = vec![Vec::new(); src.threads()];
    let mut buf = Vec::new();
    for (t, stream) in all.iter_mut().enumerate() {
        loop {
            src.next_batch(t, &mut buf)?;
            if buf.is_empty() {
                break;
            }
            stream.extend_from_slice(&buf);
        }
    }
    Ok(all)
}
