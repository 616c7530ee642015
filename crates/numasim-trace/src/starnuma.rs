//! Reader (and test writer) for the per-thread memory traces of the StarNUMA artifact
//! (`memtrace_t{tid}.out`, `mtrace_t{tid}_{phase}.out` of albertycho/StarNUMA_Artifact).
//!
//! Layout: no header; a flat stream of 16-byte little-endian records, one file per thread:
//! ```text
//! u64 addr_rw = (vaddr & !0xF) | rw     rw: 0 load, 1 store
//! u64 instr   = absolute per-thread instruction count
//! ```
//! A record whose `addr_rw` is `0xc0ffee` is a phase marker (written every 100 M instructions
//! in `memtrace_t*`); it is skipped. Any other record must have a low nibble of 0 or 1.
//!
//! # Which file is which thread
//! The files carry no thread id inside, only in their names, and a shell glob lists
//! `memtrace_t10.out` before `memtrace_t2.out`. Taking argument order as thread order would
//! silently permute threads (and with them every per-socket figure), so threads are taken
//! from the names: `memtrace_t<N>.out` or `mtrace_t<N>_<phase>.out` (one phase for all files).
//! The numbers must be consecutive (the artifact's profiler may start at an offset, e.g. 2, so
//! the lowest number becomes thread 0); a gap, a duplicate or a name without a number is
//! refused. A single file may have any name (it is thread 0).
//!
//! # Trailing word
//! The artifact's readers consume a file as 8-byte words, two per record, and stop at the first
//! record whose instruction word is missing. A file ending in one lone 8-byte word (an address
//! with no instruction count) is therefore read by the artifact, which ignores that word; this
//! reader does the same and reports the ignored bytes ([`StarnumaReader::ignored_trailing_bytes`]).
//! Any other partial record (1..=7 or 9..=15 bytes) is [`SourceError::Corrupt`].
//!
//! The format records no access size, so every access gets [`STARNUMA_ACCESS_SIZE_BYTES`]
//! (8), and no flop counts, so `flops` is 0. Addresses keep the format's 16-byte granularity.
//!
//! Reading streams through a buffered reader per thread: memory is O(threads × batch). A
//! decreasing instruction count is a [`SourceError::Corrupt`] error naming the byte offset of
//! the offending record.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::record::{Access, AccessKind};
use crate::source::{AccessSource, SourceError};

/// Bytes per StarNUMA record.
pub const STARNUMA_RECORD_BYTES: usize = 16;
/// `addr_rw` value of a phase-marker record.
pub const STARNUMA_MARKER: u64 = 0xc0ffee;
/// Access size given to every StarNUMA access (the format does not record one).
pub const STARNUMA_ACCESS_SIZE_BYTES: u8 = 8;
/// Largest number of per-thread files (the native format's thread limit, so every StarNUMA
/// trace converts; each open file also holds a read buffer).
pub const STARNUMA_MAX_THREADS: usize = crate::native::MAX_THREADS as usize;
/// Records read per `next_batch` call (per-thread buffer is this × 16 bytes).
const BATCH_RECORDS: usize = 8192;
/// Read buffer per thread file.
const READ_BUFFER_BYTES: usize = 64 << 10;

struct StarThread {
    path: String,
    reader: BufReader<File>,
    /// File offset of the next unread byte.
    offset_bytes: u64,
    /// Where the whole records end (the file length less an ignored trailing word).
    end_bytes: u64,
    last_instr: u64,
    finished: bool,
}

/// One input file of a StarNUMA trace, as opened.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StarnumaFile {
    pub path: PathBuf,
    /// The number in the file name (`memtrace_t<N>.out`), if any.
    pub name_thread: Option<u64>,
    pub bytes: u64,
    /// Bytes at the end ignored as the artifact ignores them (0 or 8).
    pub ignored_trailing_bytes: u64,
}

/// Streaming reader over one StarNUMA trace file per thread, threads ordered by file name.
pub struct StarnumaReader {
    files: Vec<StarnumaFile>,
    threads: Vec<StarThread>,
    raw: Vec<u8>,
    /// Marker records skipped so far.
    markers: u64,
}

impl std::fmt::Debug for StarnumaReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StarnumaReader")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

/// The thread number and phase in a StarNUMA file name: `memtrace_t<N>.out` -> (N, None),
/// `mtrace_t<N>_<P>.out` -> (N, Some(P)).
pub fn thread_from_name(path: &Path) -> Option<(u64, Option<u64>)> {
    let name = path.file_name()?.to_str()?;
    let digits = |s: &str| -> Option<u64> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    if let Some(rest) = name.strip_prefix("memtrace_t").and_then(|r| r.strip_suffix(".out")) {
        return Some((digits(rest)?, None));
    }
    let rest = name.strip_prefix("mtrace_t")?.strip_suffix(".out")?;
    let (t, p) = rest.split_once('_')?;
    Some((digits(t)?, Some(digits(p)?)))
}

/// Orders StarNUMA per-thread files by the thread number in their names (see the module docs):
/// returns the paths in thread order with their numbers. Refuses a gap, a duplicate, a name
/// without a number (when more than one file is given), mixed phases and too many files.
pub fn order_thread_files(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Option<u64>)>, SourceError> {
    if paths.is_empty() {
        return Err(SourceError::Invalid("StarNUMA trace: no per-thread files given".into()));
    }
    if paths.len() > STARNUMA_MAX_THREADS {
        return Err(SourceError::Invalid(format!(
            "StarNUMA trace: {} per-thread files given, at most {STARNUMA_MAX_THREADS} threads are supported",
            paths.len()
        )));
    }
    if paths.len() == 1 {
        return Ok(vec![(paths[0].clone(), thread_from_name(&paths[0]).map(|(t, _)| t))]);
    }
    let mut named = Vec::with_capacity(paths.len());
    let mut phase = None;
    for p in paths {
        let Some((t, ph)) = thread_from_name(p) else {
            return Err(SourceError::Invalid(format!(
                "{}: a StarNUMA thread file must be named memtrace_t<N>.out or mtrace_t<N>_<phase>.out \
                 (the thread number is taken from the name, never from argument order)",
                p.display()
            )));
        };
        match phase {
            None => phase = Some(ph),
            Some(prev) if prev != ph => {
                return Err(SourceError::Invalid(format!(
                    "{}: mixes file kinds or phases with {} (give the files of one phase)",
                    p.display(),
                    paths[0].display()
                )))
            }
            Some(_) => {}
        }
        named.push((t, p.clone()));
    }
    named.sort_by_key(|(t, _)| *t);
    for w in named.windows(2) {
        let ((a, pa), (b, pb)) = (&w[0], &w[1]);
        if a == b {
            return Err(SourceError::Invalid(format!(
                "StarNUMA trace: thread {a} given twice ({} and {})",
                pa.display(),
                pb.display()
            )));
        }
        if *b != a + 1 {
            return Err(SourceError::Invalid(format!(
                "StarNUMA trace: thread numbers jump from {a} ({}) to {b} ({}); the file(s) of thread {} \
                 are missing",
                pa.display(),
                pb.display(),
                if *b == a + 2 {
                    (a + 1).to_string()
                } else {
                    format!("{}..={}", a + 1, b - 1)
                }
            )));
        }
    }
    Ok(named.into_iter().map(|(t, p)| (p, Some(t))).collect())
}

impl StarnumaReader {
    /// Opens one file per thread, in the thread order of their names (see the module docs).
    /// A file whose length leaves a partial record other than the artifact's lone trailing
    /// 8-byte word is refused here (Corrupt at the offset of the partial record).
    pub fn open(paths: &[PathBuf]) -> Result<Self, SourceError> {
        let ordered = order_thread_files(paths)?;
        let mut threads = Vec::with_capacity(ordered.len());
        let mut files = Vec::with_capacity(ordered.len());
        for (p, name_thread) in ordered {
            let path = p.display().to_string();
            let io_err = |source| SourceError::Io {
                path: path.clone(),
                source,
            };
            let file = File::open(&p).map_err(io_err)?;
            let meta = file.metadata().map_err(io_err)?;
            if meta.is_dir() {
                return Err(SourceError::Invalid(format!(
                    "{path}: is a directory, not a trace file"
                )));
            }
            let len = meta.len();
            let rem = len % STARNUMA_RECORD_BYTES as u64;
            let ignored = if rem == 8 { 8 } else { 0 };
            if meta.is_file() && rem != 0 && rem != 8 {
                let at = len - rem;
                return Err(SourceError::Corrupt {
                    path,
                    offset: at,
                    message: format!(
                        "trailing partial record: {rem} bytes (file length {len} is neither a multiple of 16 \
                         nor a multiple of 16 plus the artifact's lone 8-byte trailing word)"
                    ),
                });
            }
            files.push(StarnumaFile {
                path: p.clone(),
                name_thread,
                bytes: len,
                ignored_trailing_bytes: ignored,
            });
            threads.push(StarThread {
                path,
                reader: BufReader::with_capacity(READ_BUFFER_BYTES, file),
                offset_bytes: 0,
                end_bytes: if meta.is_file() { len - ignored } else { u64::MAX },
                last_instr: 0,
                finished: false,
            });
        }
        Ok(StarnumaReader {
            files,
            threads,
            raw: Vec::new(),
            markers: 0,
        })
    }

    /// The input files in thread order.
    pub fn files(&self) -> &[StarnumaFile] {
        &self.files
    }

    /// Sum of the input files' sizes.
    pub fn input_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }

    /// Bytes ignored at the ends of the files (the artifact's lone trailing words).
    pub fn ignored_trailing_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.ignored_trailing_bytes).sum()
    }

    /// Phase-marker records skipped so far.
    pub fn markers_skipped(&self) -> u64 {
        self.markers
    }
}

/// Reads until `buf` is full or EOF; returns the bytes read.
fn fill(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl AccessSource for StarnumaReader {
    fn threads(&self) -> usize {
        self.threads.len()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        out.clear();
        let n_threads = self.threads.len();
        let Some(t) = self.threads.get_mut(thread) else {
            return Err(SourceError::Invalid(format!(
                "StarNUMA trace: thread {thread} out of range ({n_threads} threads)"
            )));
        };
        self.raw.resize(BATCH_RECORDS * STARNUMA_RECORD_BYTES, 0);
        out.reserve(BATCH_RECORDS);
        // Loop so a batch made only of markers does not look like the end of the stream.
        while out.is_empty() && !t.finished {
            let want = (self.raw.len() as u64).min(t.end_bytes - t.offset_bytes) as usize;
            let got = fill(&mut t.reader, &mut self.raw[..want]).map_err(|source| SourceError::Io {
                path: t.path.clone(),
                source,
            })?;
            let whole = got - got % STARNUMA_RECORD_BYTES;
            if got < self.raw.len() {
                t.finished = true;
            }
            let mut markers = 0u64;
            for (i, rec) in self.raw[..whole].chunks_exact(STARNUMA_RECORD_BYTES).enumerate() {
                let addr_rw = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                let instr = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                if addr_rw == STARNUMA_MARKER {
                    markers += 1;
                    continue;
                }
                if addr_rw & 0xe != 0 || instr < t.last_instr {
                    out.clear();
                    let offset = t.offset_bytes + (i * STARNUMA_RECORD_BYTES) as u64;
                    return Err(bad_record(&t.path, offset, addr_rw, instr, t.last_instr));
                }
                t.last_instr = instr;
                out.push(Access {
                    instr,
                    vaddr: addr_rw & !0xF,
                    flops: 0,
                    size_bytes: STARNUMA_ACCESS_SIZE_BYTES,
                    kind: if addr_rw & 1 != 0 {
                        AccessKind::Write
                    } else {
                        AccessKind::Read
                    },
                });
            }
            self.markers += markers;
            t.offset_bytes += whole as u64;
            // Only a stream that is not a regular file (its length unknown at open) can end
            // here in a partial record; the artifact's lone trailing word is ignored as usual.
            if got != whole && !(t.finished && got - whole == 8) {
                out.clear();
                return Err(SourceError::Corrupt {
                    path: t.path.clone(),
                    offset: t.offset_bytes,
                    message: format!("trailing partial record: {} bytes", got - whole),
                });
            }
        }
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "format": "starnuma",
            "files": self.files.iter().map(|f| f.path.display().to_string()).collect::<Vec<_>>(),
            "access_size_bytes": STARNUMA_ACCESS_SIZE_BYTES,
        })
    }
}

/// The error for a record that is not an access: low-nibble bits, or a decreasing count.
#[cold]
fn bad_record(path: &str, offset: u64, addr_rw: u64, instr: u64, last_instr: u64) -> SourceError {
    if addr_rw & 0xe != 0 {
        SourceError::Corrupt {
            path: path.to_string(),
            offset,
            message: format!("address field {addr_rw:#x} has low-nibble bits other than the R/W bit"),
        }
    } else {
        SourceError::Corrupt {
            path: path.to_string(),
            offset: offset + 8,
            message: format!("instruction count {instr} after {last_instr} (decreasing)"),
        }
    }
}

/// Writes one StarNUMA per-thread file in the artifact's exact layout (for tests and for
/// exporting). The address is stored as `(vaddr & !0xF) | rw`, so the low 4 bits are lost.
pub struct StarnumaWriter {
    path: String,
    out: BufWriter<File>,
}

impl StarnumaWriter {
    pub fn create(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        let path_str = path.as_ref().display().to_string();
        let file = File::create(path.as_ref()).map_err(|source| SourceError::Io {
            path: path_str.clone(),
            source,
        })?;
        Ok(StarnumaWriter {
            path: path_str,
            out: BufWriter::new(file),
        })
    }

    /// Writes into `file`, already open (`path` names it in errors).
    pub fn from_file(path: impl AsRef<Path>, file: File) -> Self {
        StarnumaWriter {
            path: path.as_ref().display().to_string(),
            out: BufWriter::new(file),
        }
    }

    fn put(&mut self, addr_rw: u64, instr: u64) -> Result<(), SourceError> {
        let mut rec = [0u8; STARNUMA_RECORD_BYTES];
        rec[0..8].copy_from_slice(&addr_rw.to_le_bytes());
        rec[8..16].copy_from_slice(&instr.to_le_bytes());
        self.out.write_all(&rec).map_err(|source| SourceError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes one access record.
    pub fn write(&mut self, access: &Access) -> Result<(), SourceError> {
        self.put((access.vaddr & !0xF) | access.is_write() as u64, access.instr)
    }

    /// Writes a phase-marker record (`0xc0ffee`, instruction count).
    pub fn write_marker(&mut self, instr: u64) -> Result<(), SourceError> {
        self.put(STARNUMA_MARKER, instr)
    }

    /// Flushes and closes the file.
    pub fn finish(mut self) -> Result<(), SourceError> {
        self.out.flush().map_err(|source| SourceError::Io {
            path: self.path.clone(),
            source,
        })
    }
}
