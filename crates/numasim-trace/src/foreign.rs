//! What the readers of other tools' traces share: opening a file that may be gzip- or
//! xz-compressed, reading it in bounded memory (text lines have a length cap, so a file
//! without newlines cannot make the reader allocate its whole size), and presenting one file
//! per thread as an [`AccessSource`].
//!
//! Errors name the byte offset in the *decompressed* stream (the only offset that means
//! anything inside a compressed file; for a plain file it is the file offset) and, for text
//! formats, the 1-based line number.
//!
//! Thread order is argument order: ChampSim, Ramulator and lackey traces are single-threaded
//! files whose names carry no thread number (unlike the StarNUMA artifact's).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::info::{Accumulator, InputFile, TraceInfo};
use crate::record::Access;
use crate::source::{AccessSource, SourceError};

/// Accesses handed out per `next_batch` call.
pub(crate) const BATCH_RECORDS: usize = 8192;
/// Read buffer per input file.
const READ_BUFFER_BYTES: usize = 64 << 10;
/// Longest text line accepted (the longest legitimate line of these formats is under 100
/// bytes; the cap keeps a hostile file from growing the line buffer).
pub const MAX_LINE_BYTES: usize = 4096;
/// Most input files (threads) per trace, the native format's thread limit.
pub const MAX_FOREIGN_THREADS: usize = crate::native::MAX_THREADS as usize;

/// How an input file is compressed, detected from its first bytes (never from its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    None,
    Gzip,
    Xz,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0x00];

/// A decompressed byte stream with the offset of the next unread byte.
pub(crate) struct Input {
    pub path: String,
    reader: Box<dyn BufRead + Send>,
    /// Offset (in the decompressed stream) of the next unread byte.
    pub offset_bytes: u64,
    /// 1-based number of the line [`Input::next_line`] returned last.
    pub line: u64,
}

impl Input {
    pub fn open(path: &Path) -> Result<(Self, Compression, u64), SourceError> {
        let shown = path.display().to_string();
        let io_err = |source| SourceError::Io {
            path: shown.clone(),
            source,
        };
        let mut file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if meta.is_dir() {
            return Err(SourceError::Invalid(format!(
                "{shown}: is a directory, not a trace file"
            )));
        }
        let mut magic = [0u8; 6];
        let mut got = 0;
        while got < magic.len() {
            match file.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(e)),
            }
        }
        file.rewind().map_err(io_err)?;
        let compression = if got >= 6 && magic == XZ_MAGIC {
            Compression::Xz
        } else if got >= 2 && magic[..2] == GZIP_MAGIC {
            Compression::Gzip
        } else {
            Compression::None
        };
        let reader: Box<dyn BufRead + Send> = match compression {
            Compression::None => Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, file)),
            Compression::Gzip => Box::new(BufReader::with_capacity(
                READ_BUFFER_BYTES,
                flate2::read::MultiGzDecoder::new(BufReader::new(file)),
            )),
            Compression::Xz => Box::new(BufReader::with_capacity(
                READ_BUFFER_BYTES,
                xz2::read::XzDecoder::new_multi_decoder(BufReader::new(file)),
            )),
        };
        Ok((
            Input {
                path: shown,
                reader,
                offset_bytes: 0,
                line: 0,
            },
            compression,
            meta.len(),
        ))
    }

    pub fn corrupt(&self, offset: u64, message: impl Into<String>) -> SourceError {
        SourceError::Corrupt {
            path: self.path.clone(),
            offset,
            message: message.into(),
        }
    }

    /// A read error: a decompressor's complaint is corruption at the current offset.
    fn read_error(&self, e: std::io::Error) -> SourceError {
        match e.kind() {
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput | std::io::ErrorKind::UnexpectedEof => {
                self.corrupt(self.offset_bytes, format!("cannot decompress: {e}"))
            }
            _ => SourceError::Io {
                path: self.path.clone(),
                source: e,
            },
        }
    }

    /// Fills `buf` completely, or as far as the stream goes; returns the bytes read.
    pub fn read_record(&mut self, buf: &mut [u8]) -> Result<usize, SourceError> {
        let mut n = 0;
        while n < buf.len() {
            match self.reader.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.offset_bytes += n as u64;
                    return Err(self.read_error(e));
                }
            }
        }
        self.offset_bytes += n as u64;
        Ok(n)
    }

    /// Reads the next line (without its `\n` or `\r\n`) into `line`; returns the offset of its
    /// first byte, or None at the end. A line longer than [`MAX_LINE_BYTES`] is Corrupt.
    pub fn next_line(&mut self, line: &mut Vec<u8>) -> Result<Option<u64>, SourceError> {
        line.clear();
        let start = self.offset_bytes;
        let mut any = false;
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(e)),
            };
            if avail.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if line.len() + take > MAX_LINE_BYTES + 2 {
                self.line += 1;
                return Err(self.corrupt(
                    start,
                    format!(
                        "line {}: longer than {MAX_LINE_BYTES} bytes (not a text trace?)",
                        self.line
                    ),
                ));
            }
            line.extend_from_slice(&avail[..take]);
            self.reader.consume(take);
            self.offset_bytes += take as u64;
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.line += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(start))
    }
}

/// One thread's stream in a foreign format.
pub(crate) trait ThreadStream: Send {
    /// Appends accesses to `out` until it holds at least `want` or the stream ends (it may
    /// overshoot by the accesses of one record); returns false once the stream has ended.
    fn fill(&mut self, out: &mut Vec<Access>, want: usize) -> Result<bool, SourceError>;
}

/// One input file of a foreign trace, as opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignFile {
    pub path: PathBuf,
    pub bytes: u64,
    pub compression: Compression,
}

/// A trace in another tool's format: one file per thread, in argument order.
pub struct ForeignReader {
    format: &'static str,
    files: Vec<ForeignFile>,
    streams: Vec<Box<dyn ThreadStream>>,
    finished: Vec<bool>,
    extra: serde_json::Value,
}

impl std::fmt::Debug for ForeignReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForeignReader")
            .field("format", &self.format)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl ForeignReader {
    /// Opens `paths` (one per thread) and makes each a stream with `make`.
    pub(crate) fn open_with(
        format: &'static str,
        paths: &[PathBuf],
        extra: serde_json::Value,
        mut make: impl FnMut(Input) -> Box<dyn ThreadStream>,
    ) -> Result<Self, SourceError> {
        if paths.is_empty() {
            return Err(SourceError::Invalid(format!("{format} trace: no input files given")));
        }
        if paths.len() > MAX_FOREIGN_THREADS {
            return Err(SourceError::Invalid(format!(
                "{format} trace: {} files given, at most {MAX_FOREIGN_THREADS} threads are supported",
                paths.len()
            )));
        }
        let mut files = Vec::with_capacity(paths.len());
        let mut streams = Vec::with_capacity(paths.len());
        for p in paths {
            let (input, compression, bytes) = Input::open(p)?;
            files.push(ForeignFile {
                path: p.clone(),
                bytes,
                compression,
            });
            streams.push(make(input));
        }
        Ok(ForeignReader {
            format,
            finished: vec![false; streams.len()],
            files,
            streams,
            extra,
        })
    }

    pub fn format(&self) -> &'static str {
        self.format
    }

    pub fn files(&self) -> &[ForeignFile] {
        &self.files
    }
}

impl AccessSource for ForeignReader {
    fn threads(&self) -> usize {
        self.streams.len()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        out.clear();
        let n = self.streams.len();
        let Some(stream) = self.streams.get_mut(thread) else {
            return Err(SourceError::Invalid(format!(
                "{} trace: thread {thread} out of range ({n} threads)",
                self.format
            )));
        };
        // Loop: a record may carry no access (a ChampSim instruction without memory operands),
        // and an empty batch means "finished".
        while out.len() < BATCH_RECORDS && !self.finished[thread] {
            if !stream.fill(out, BATCH_RECORDS)? {
                self.finished[thread] = true;
            }
        }
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "format": self.format,
            "files": self.files.iter().map(|f| f.path.display().to_string()).collect::<Vec<_>>(),
            "details": self.extra,
        })
    }
}

/// Summarises a foreign trace in one streaming pass (`numasim trace info --format ...`).
pub fn scan_foreign_info(mut src: ForeignReader) -> Result<TraceInfo, SourceError> {
    let threads = src.threads();
    let mut acc = Accumulator::new(threads);
    crate::convert::drain_round_robin(&mut src, |t, batch| -> Result<(), SourceError> {
        acc.add(t, batch);
        Ok(())
    })?;
    let joined = src
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut info = TraceInfo {
        path: joined,
        format: src.format.to_string(),
        format_version: 0,
        threads,
        metadata: src.describe(),
        records: 0,
        reads: 0,
        writes: 0,
        flops: 0,
        accessed_bytes: 0,
        footprint_pages_4k: 0,
        chunks: 0,
        file_bytes: src.files.iter().map(|f| f.bytes).sum(),
        files: src
            .files
            .iter()
            .enumerate()
            .map(|(t, f)| InputFile {
                path: f.path.display().to_string(),
                bytes: f.bytes,
                thread: Some(t),
            })
            .collect(),
        compressed_payload_bytes: 0,
        uncompressed_payload_bytes: 0,
        markers: 0,
        ignored_trailing_bytes: 0,
        per_thread: Vec::new(),
    };
    acc.finish(&mut info);
    Ok(info)
}

/// Converts a foreign trace to a native one at `out` (refusing an `out` that is an input).
pub fn convert_foreign(
    src: &mut ForeignReader,
    out: &Path,
    settings: &crate::convert::WriteSettings,
) -> Result<crate::convert::ConvertStats, SourceError> {
    let inputs: Vec<PathBuf> = src.files.iter().map(|f| f.path.clone()).collect();
    crate::convert::refuse_output_among_inputs(out, &inputs)?;
    let metadata = serde_json::json!({
        "generator": "numasim trace convert",
        "converted_from": src.describe(),
    });
    crate::convert::convert_with(src, out, &metadata, settings)
}

/// Parses an unsigned integer the way C's `strtoull(s, _, 0)` does for the forms traces use:
/// `0x`/`0X` prefix hexadecimal, otherwise decimal.
pub(crate) fn parse_u64_auto(tok: &[u8]) -> Option<u64> {
    if let Some(hex) = tok.strip_prefix(b"0x").or_else(|| tok.strip_prefix(b"0X")) {
        parse_u64_radix(hex, 16)
    } else {
        parse_u64_radix(tok, 10)
    }
}

/// Parses digits of `radix` (10 or 16) with overflow checks; None for empty or invalid input.
pub(crate) fn parse_u64_radix(tok: &[u8], radix: u32) -> Option<u64> {
    if tok.is_empty() || tok.len() > 32 {
        return None;
    }
    let mut v = 0u64;
    for &b in tok {
        let d = (b as char).to_digit(radix)? as u64;
        v = v.checked_mul(radix as u64)?.checked_add(d)?;
    }
    Some(v)
}

/// A line shown in an error message: at most 60 bytes, lossily decoded.
///
/// Control characters are escaped (`\u{1b}`, `\t`): a line of a binary file or of a program's
/// terminal output must not reach the user's terminal as escape sequences.
pub(crate) fn show_line(line: &[u8]) -> String {
    let cut = &line[..line.len().min(60)];
    let mut s = String::new();
    for c in String::from_utf8_lossy(cut).chars() {
        if c.is_control() {
            s.extend(c.escape_default());
        } else {
            s.push(c);
        }
    }
    if line.len() > 60 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_shown_line_carries_no_control_bytes() {
        // Control bytes of a trace line (terminal escape sequences) must not reach the terminal.
        let shown = show_line(b"LD 0x10\x1b[2J\x07\tx\r\0 \xc3\xa9");
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert_eq!(shown, "LD 0x10\\u{1b}[2J\\u{7}\\tx\\r\\u{0} \u{e9}");
    }

    #[test]
    fn numbers_parse_like_strtoull_base_0_and_refuse_overflow() {
        assert_eq!(parse_u64_auto(b"0x1f"), Some(31));
        assert_eq!(parse_u64_auto(b"123"), Some(123));
        assert_eq!(parse_u64_auto(b"0x"), None);
        assert_eq!(parse_u64_auto(b"12a"), None);
        assert_eq!(parse_u64_auto(b"18446744073709551616"), None);
        assert_eq!(parse_u64_radix(b"ffffffffffffffff", 16), Some(u64::MAX));
    }

    #[test]
    fn a_line_without_end_is_refused_at_the_cap_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt");
        let mut f = File::create(&p).unwrap();
        f.write_all(b"ok line\n").unwrap();
        f.write_all(&vec![b'a'; 1 << 20]).unwrap();
        drop(f);
        let (mut input, c, _) = Input::open(&p).unwrap();
        assert_eq!(c, Compression::None);
        let mut line = Vec::new();
        assert_eq!(input.next_line(&mut line).unwrap(), Some(0));
        assert_eq!(line, b"ok line");
        let e = input.next_line(&mut line).unwrap_err().to_string();
        assert!(e.contains("byte offset 8") && e.contains("line 2"), "{e}");
        assert!(line.capacity() < 16 * 1024, "buffer grew to {}", line.capacity());
    }

    #[test]
    fn gzip_and_xz_are_detected_from_content_and_read_transparently() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"first\r\nsecond\nthird";
        let gz = dir.path().join("a.txt"); // no telling extension on purpose
        let mut e = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap();
        let xz = dir.path().join("b");
        let mut e = xz2::write::XzEncoder::new(File::create(&xz).unwrap(), 6);
        e.write_all(text).unwrap();
        e.finish().unwrap();
        for (p, want) in [(gz, Compression::Gzip), (xz, Compression::Xz)] {
            let (mut input, c, _) = Input::open(&p).unwrap();
            assert_eq!(c, want);
            let mut line = Vec::new();
            let mut lines = Vec::new();
            while let Some(off) = input.next_line(&mut line).unwrap() {
                lines.push((off, String::from_utf8(line.clone()).unwrap()));
            }
            assert_eq!(
                lines,
                vec![(0, "first".into()), (7, "second".into()), (14, "third".into())]
            );
        }
    }

    #[test]
    fn a_corrupt_gzip_stream_is_an_error_with_an_offset_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for i in 0..20_000u32 {
            writeln!(e, "line {i}").unwrap();
        }
        let mut bytes = e.finish().unwrap();
        let n = bytes.len();
        bytes.truncate(n / 2); // cut mid-stream
        std::fs::write(&p, &bytes).unwrap();
        let (mut input, _, _) = Input::open(&p).unwrap();
        let mut line = Vec::new();
        let e = loop {
            match input.next_line(&mut line) {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("a cut gzip stream read to the end"),
                Err(e) => break e,
            }
        };
        assert!(matches!(e, SourceError::Corrupt { .. }), "{e}");
    }
}
