//! The stream numasim's QEMU plugin (`tracer/numasim_qemu_plugin.c`) writes into a pipe, turned
//! into a native trace as it arrives (`numasim trace capture`).
//!
//! The plugin discovers threads as the guest creates them, so the native writer grows its
//! thread list ([`NativeWriter::add_thread`]) and rewrites the header's count at the end.
//! Reading is in blocks of at most [`READ_RECORDS`] records, so memory is the writer's
//! per-thread chunk buffers plus one small read buffer, however long the program runs.
//!
//! A stream that stops early (the guest was killed, or QEMU died) still gives a complete,
//! readable native trace of everything that arrived; [`CaptureSummary::complete`] is false and
//! [`CaptureSummary::cut_at_bytes`] says where the stream stopped.
//!
//! Stream layout (little-endian): header `NSQT` u32 magic, u32 version (1), u64 zero; then
//! blocks `kind u32 | thread u32 | count u32 | zero u32`, followed for [`BLOCK_RECORDS`] by
//! `count` records of `vaddr u64 | info u64` with `info = instr << 8 | size_log2 << 1 | store`.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::convert::TempOutput;
use crate::native::NativeWriter;
use crate::record::{Access, AccessKind};
use crate::source::SourceError;

pub const STREAM_MAGIC: u32 = u32::from_le_bytes(*b"NSQT");
pub const STREAM_VERSION: u32 = 1;
pub const BLOCK_RECORDS: u32 = 1;
pub const BLOCK_THREAD_START: u32 = 2;
pub const BLOCK_THREAD_EXIT: u32 = 3;
pub const BLOCK_ROI_BEGIN: u32 = 4;
pub const BLOCK_ROI_END: u32 = 5;
pub const BLOCK_END: u32 = 6;
/// Records read from the pipe at a time.
pub const READ_RECORDS: usize = 4096;
const RECORD_BYTES: usize = 16;

/// What a capture stream held.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CaptureSummary {
    pub threads: usize,
    pub records: u64,
    pub records_per_thread: Vec<u64>,
    /// Threads whose exit the tracer reported (the rest were still running at the end).
    pub threads_exited: usize,
    pub roi_begins: u64,
    pub roi_ends: u64,
    /// The tracer's end-of-run mark arrived: nothing was lost.
    pub complete: bool,
    /// Bytes of the stream read.
    pub stream_bytes: u64,
    /// Where the stream stopped, when it stopped inside a block (incomplete stream).
    pub cut_at_bytes: Option<u64>,
    pub file_bytes: u64,
    /// 4 KiB pages by how many threads touched them: `[one thread, several threads]`.
    pub pages_private: u64,
    pub pages_shared: u64,
}

struct Stream<R> {
    inner: R,
    offset: u64,
}

impl<R: Read> Stream<R> {
    /// Reads up to `buf.len()` bytes, as many as arrive before the end; returns the count.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, SourceError> {
        let mut n = 0;
        while n < buf.len() {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(SourceError::Io {
                        path: "trace pipe".into(),
                        source: e,
                    })
                }
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

fn corrupt(offset: u64, message: String) -> SourceError {
    SourceError::Corrupt {
        path: "tracer stream".into(),
        offset,
        message,
    }
}

/// Reads a capture stream from `input` to its end and writes it as a native trace at `out`
/// (through a temporary file renamed at the end). `metadata` goes into the header.
pub fn write_capture(
    input: impl Read,
    out: &Path,
    metadata: &serde_json::Value,
) -> Result<CaptureSummary, SourceError> {
    let tmp = TempOutput::reserve(out)?;
    let mut writer = NativeWriter::create(&tmp.path, 0, metadata)?;
    let mut summary = CaptureSummary::default();
    let mut pages: HashMap<u64, u32> = HashMap::new(); // page -> first thread + 1, or u32::MAX if shared
    let result = pump(input, &mut writer, &mut summary, &mut pages);
    // A corrupt stream is an error; an early end is not (the guest may have been killed).
    result?;
    let written = writer.finish()?;
    tmp.persist()?;
    summary.threads = written.threads;
    summary.records = written.records;
    summary.records_per_thread = written.records_per_thread;
    summary.file_bytes = written.file_bytes;
    summary.pages_shared = pages.values().filter(|&&v| v == u32::MAX).count() as u64;
    summary.pages_private = pages.len() as u64 - summary.pages_shared;
    Ok(summary)
}

fn pump(
    input: impl Read,
    writer: &mut NativeWriter,
    summary: &mut CaptureSummary,
    pages: &mut HashMap<u64, u32>,
) -> Result<(), SourceError> {
    let mut s = Stream {
        inner: input,
        offset: 0,
    };
    let mut head = [0u8; 16];
    let got = s.fill(&mut head)?;
    if got == 0 {
        return Err(SourceError::Invalid(
            "the tracer wrote nothing: QEMU did not load the plugin or failed to start the program".into(),
        ));
    }
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    if got < 16 || word(&head, 0) != STREAM_MAGIC || word(&head, 1) != STREAM_VERSION {
        return Err(corrupt(0, "not a numasim tracer stream (magic NSQT, version 1)".into()));
    }
    let mut raw = vec![0u8; READ_RECORDS * RECORD_BYTES];
    let mut batch: Vec<Access> = Vec::with_capacity(READ_RECORDS);
    let mut last_page = Vec::<u64>::new();
    loop {
        let at = s.offset;
        let got = s.fill(&mut head)?;
        if got == 0 {
            summary.stream_bytes = s.offset;
            return Ok(()); // ended between blocks, without the end mark
        }
        if got < 16 {
            summary.stream_bytes = s.offset;
            summary.cut_at_bytes = Some(at);
            return Ok(());
        }
        let (kind, thread, count) = (word(&head, 0), word(&head, 1), word(&head, 2));
        let known = (thread as usize) < writer.threads();
        match kind {
            BLOCK_THREAD_START => {
                if thread as usize != writer.threads() {
                    return Err(corrupt(
                        at,
                        format!("thread {thread} started, expected thread {}", writer.threads()),
                    ));
                }
                writer.add_thread()?;
                last_page.push(u64::MAX);
            }
            BLOCK_THREAD_EXIT if known => summary.threads_exited += 1,
            BLOCK_ROI_BEGIN => summary.roi_begins += 1,
            BLOCK_ROI_END => summary.roi_ends += 1,
            BLOCK_END => {
                summary.complete = true;
                summary.stream_bytes = s.offset;
                // Anything after the end mark (there should be nothing) is ignored.
                return Ok(());
            }
            BLOCK_RECORDS if known => {
                let t = thread as usize;
                let mut left = count as usize;
                while left > 0 {
                    let want = left.min(READ_RECORDS) * RECORD_BYTES;
                    let block_at = s.offset;
                    let got = s.fill(&mut raw[..want])?;
                    let whole = got / RECORD_BYTES;
                    batch.clear();
                    for rec in raw[..whole * RECORD_BYTES].chunks_exact(RECORD_BYTES) {
                        let vaddr = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                        let info = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                        let shift = (info >> 1) & 0x7f;
                        batch.push(Access {
                            instr: info >> 8,
                            vaddr,
                            flops: 0,
                            size_bytes: if shift < 8 { 1u16 << shift } else { 255 }.min(255) as u8,
                            kind: if info & 1 != 0 {
                                AccessKind::Write
                            } else {
                                AccessKind::Read
                            },
                        });
                        let page = vaddr >> 12;
                        if page != last_page[t] {
                            last_page[t] = page;
                            let owner = pages.entry(page).or_insert(t as u32 + 1);
                            if *owner != t as u32 + 1 {
                                *owner = u32::MAX;
                            }
                        }
                    }
                    writer
                        .write_all(t, &batch)
                        .map_err(|e| corrupt(block_at, e.to_string()))?;
                    if got < want {
                        summary.stream_bytes = s.offset;
                        summary.cut_at_bytes = Some(s.offset);
                        return Ok(());
                    }
                    left -= whole;
                }
            }
            _ => {
                return Err(corrupt(
                    at,
                    format!(
                        "block kind {kind} for thread {thread} ({} threads started)",
                        writer.threads()
                    ),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeReader;
    use crate::source::collect_all;

    fn block(out: &mut Vec<u8>, kind: u32, thread: u32, recs: &[(u64, u64, u64, bool)]) {
        for w in [kind, thread, recs.len() as u32, 0] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for &(instr, vaddr, shift, store) in recs {
            out.extend_from_slice(&vaddr.to_le_bytes());
            out.extend_from_slice(&((instr << 8) | (shift << 1) | store as u64).to_le_bytes());
        }
    }

    fn stream() -> Vec<u8> {
        let mut s = Vec::new();
        s.extend_from_slice(b"NSQT");
        s.extend_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&0u64.to_le_bytes());
        block(&mut s, BLOCK_THREAD_START, 0, &[]);
        block(&mut s, BLOCK_RECORDS, 0, &[(3, 0x1000, 3, false), (5, 0x2008, 2, true)]);
        block(&mut s, BLOCK_THREAD_START, 1, &[]);
        block(&mut s, BLOCK_ROI_BEGIN, 1, &[]);
        block(&mut s, BLOCK_RECORDS, 1, &[(1, 0x1010, 0, true), (9, 0x5000, 4, false)]);
        block(&mut s, BLOCK_RECORDS, 0, &[(7, 0x3000, 3, false)]);
        block(&mut s, BLOCK_THREAD_EXIT, 1, &[]);
        s
    }

    #[test]
    fn a_stream_becomes_a_native_trace_with_threads_added_as_they_start() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("c.trace");
        let mut s = stream();
        block(&mut s, BLOCK_END, 0, &[]);
        let sum = write_capture(&s[..], &out, &serde_json::json!({"generator": "test"})).unwrap();
        assert!(sum.complete && sum.cut_at_bytes.is_none());
        assert_eq!(
            (sum.threads, sum.records, sum.threads_exited, sum.roi_begins),
            (2, 5, 1, 1)
        );
        // Page 0x1 is touched by both threads; 0x2, 0x3 by thread 0, 0x5 by thread 1.
        assert_eq!((sum.pages_private, sum.pages_shared), (3, 1));
        let mut r = NativeReader::open(&out).unwrap();
        assert_eq!(r.header().threads, 2);
        assert_eq!(
            collect_all(&mut r).unwrap(),
            vec![
                vec![
                    Access::read(3, 0x1000, 8),
                    Access::write(5, 0x2008, 4),
                    Access::read(7, 0x3000, 8)
                ],
                vec![Access::write(1, 0x1010, 1), Access::read(9, 0x5000, 16)],
            ]
        );
    }

    #[test]
    fn a_stream_cut_anywhere_still_gives_a_readable_trace_of_what_arrived() {
        let dir = tempfile::tempdir().unwrap();
        let full = stream();
        for cut in 16..full.len() {
            let out = dir.path().join(format!("c{cut}.trace"));
            let sum = write_capture(&full[..cut], &out, &serde_json::Value::Null).unwrap();
            assert!(!sum.complete);
            let got = collect_all(&mut NativeReader::open(&out).unwrap()).unwrap();
            assert_eq!(
                got.iter().map(|t| t.len() as u64).sum::<u64>(),
                sum.records,
                "cut {cut}"
            );
        }
    }

    #[test]
    fn garbage_is_an_error_naming_the_offset_and_leaves_no_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g.trace");
        let mut s = stream();
        block(&mut s, 99, 0, &[]);
        let at = s.len() - 16;
        let e = write_capture(&s[..], &out, &serde_json::Value::Null)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("byte offset {at}")) && e.contains("block kind 99"),
            "{e}"
        );
        // Records of a thread that never started.
        let mut s = stream();
        block(&mut s, BLOCK_RECORDS, 7, &[(1, 1, 0, false)]);
        assert!(write_capture(&s[..], &out, &serde_json::Value::Null).is_err());
        // A decreasing instruction count.
        let mut s = stream();
        block(&mut s, BLOCK_RECORDS, 0, &[(2, 0x1000, 3, false)]);
        let e = write_capture(&s[..], &out, &serde_json::Value::Null)
            .unwrap_err()
            .to_string();
        assert!(e.contains("non-decreasing"), "{e}");
        assert!(write_capture(&b"garbage, not a stream"[..], &out, &serde_json::Value::Null).is_err());
        assert!(write_capture(&b""[..], &out, &serde_json::Value::Null).is_err());
        assert!(!out.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
