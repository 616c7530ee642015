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
//! The format records no access size, so every access gets [`STARNUMA_ACCESS_SIZE_BYTES`]
//! (8), and no flop counts, so `flops` is 0. Addresses keep the format's 16-byte granularity.
//!
//! Reading streams through a buffered reader per thread: memory is O(threads × batch). A
//! trailing partial record and a decreasing instruction count are [`SourceError::Corrupt`]
//! errors naming the byte offset of the offending record.

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
/// Records read per `next_batch` call (per-thread buffer is this × 16 bytes).
const BATCH_RECORDS: usize = 4096;

struct StarThread {
    path: String,
    reader: BufReader<File>,
    /// File offset of the next unread byte.
    offset_bytes: u64,
    last_instr: u64,
    finished: bool,
}

/// Streaming reader over one StarNUMA trace file per thread (`paths[i]` is thread `i`).
pub struct StarnumaReader {
    paths: Vec<PathBuf>,
    threads: Vec<StarThread>,
    raw: Vec<u8>,
}

impl std::fmt::Debug for StarnumaReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StarnumaReader")
            .field("paths", &self.paths)
            .finish_non_exhaustive()
    }
}

impl StarnumaReader {
    /// Opens one file per thread. A file whose length is not a multiple of 16 is refused here
    /// (Corrupt at the offset of the partial record).
    pub fn open(paths: &[PathBuf]) -> Result<Self, SourceError> {
        if paths.is_empty() {
            return Err(SourceError::Invalid("StarNUMA trace: no per-thread files given".into()));
        }
        let mut threads = Vec::with_capacity(paths.len());
        for p in paths {
            let path = p.display().to_string();
            let io_err = |source| SourceError::Io {
                path: path.clone(),
                source,
            };
            let file = File::open(p).map_err(io_err)?;
            let meta = file.metadata().map_err(io_err)?;
            let len = meta.len();
            if meta.is_file() && len % STARNUMA_RECORD_BYTES as u64 != 0 {
                let at = len - len % STARNUMA_RECORD_BYTES as u64;
                return Err(SourceError::Corrupt {
                    path,
                    offset: at,
                    message: format!(
                        "trailing partial record: {} bytes (file length {len} is not a multiple of 16)",
                        len - at
                    ),
                });
            }
            threads.push(StarThread {
                path,
                reader: BufReader::with_capacity(64 << 10, file),
                offset_bytes: 0,
                last_instr: 0,
                finished: false,
            });
        }
        Ok(StarnumaReader {
            paths: paths.to_vec(),
            threads,
            raw: Vec::new(),
        })
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
        // Loop so a batch made only of markers does not look like the end of the stream.
        while out.is_empty() && !t.finished {
            let got = fill(&mut t.reader, &mut self.raw).map_err(|source| SourceError::Io {
                path: t.path.clone(),
                source,
            })?;
            let whole = got - got % STARNUMA_RECORD_BYTES;
            if got < self.raw.len() {
                t.finished = true;
            }
            for (i, rec) in self.raw[..whole].chunks_exact(STARNUMA_RECORD_BYTES).enumerate() {
                let addr_rw = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                let instr = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                if addr_rw == STARNUMA_MARKER {
                    continue;
                }
                let offset = t.offset_bytes + (i * STARNUMA_RECORD_BYTES) as u64;
                if addr_rw & 0xe != 0 {
                    out.clear();
                    return Err(SourceError::Corrupt {
                        path: t.path.clone(),
                        offset,
                        message: format!("address field {addr_rw:#x} has low-nibble bits other than the R/W bit"),
                    });
                }
                if instr < t.last_instr {
                    out.clear();
                    return Err(SourceError::Corrupt {
                        path: t.path.clone(),
                        offset: offset + 8,
                        message: format!("instruction count {instr} after {} (decreasing)", t.last_instr),
                    });
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
            t.offset_bytes += whole as u64;
            if got != whole {
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
            "files": self.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "access_size_bytes": STARNUMA_ACCESS_SIZE_BYTES,
        })
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
