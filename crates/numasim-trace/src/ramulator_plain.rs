//! Ramulator traces as a list of memory requests (byte address, write), for `numasim bench
//! dram`: plain load/store traces (`LD|ST <address>`, the form `numasim bench dram
//! --emit-trace` writes and Ramulator 2's `LoadStoreTrace` front end reads) read fast, every
//! other file by the general reader. Why beside [`crate::ramulator`]: that reader turns every
//! line into an [`crate::record::Access`] of a thread stream, with line numbers and byte
//! offsets in its errors; the fast path only recognises the plain form and steps aside for
//! anything else, so the general reader's errors still apply. Where both accept a file they
//! give the same requests (tested).

use std::path::Path;

use crate::source::{AccessSource as _, SourceError};

/// The requests of one Ramulator trace file (any form [`crate::ramulator`] reads), at most
/// `max_requests` (more is an error naming the file): [`read_plain_load_store`] when it
/// accepts the file, else the general reader.
pub fn read_requests(path: &Path, max_requests: u64) -> Result<Vec<(u64, bool)>, SourceError> {
    match read_plain_load_store(path, max_requests)? {
        Some(requests) => Ok(requests),
        None => read_requests_general(path, max_requests),
    }
}

/// [`read_requests`] by the general reader alone.
fn read_requests_general(path: &Path, max_requests: u64) -> Result<Vec<(u64, bool)>, SourceError> {
    let mut src = crate::ramulator::open_ramulator(&[path.to_path_buf()])?;
    let (mut out, mut batch) = (Vec::new(), Vec::new());
    loop {
        src.next_batch(0, &mut batch)?;
        if batch.is_empty() {
            return Ok(out);
        }
        out.extend(batch.iter().map(|a| (a.vaddr, a.is_write())));
        if out.len() as u64 > max_requests {
            return Err(too_many(path, max_requests));
        }
    }
}

fn too_many(path: &Path, max_requests: u64) -> SourceError {
    SourceError::Invalid(format!("{}: more than {max_requests} requests", path.display()))
}

/// A plain (uncompressed) Ramulator 2 load/store trace read fast: `LD|ST <address>` lines
/// (hexadecimal with `0x` or decimal, separated by spaces or tabs), as (byte address, write),
/// at most `max_requests` (more is an error). Parsed as bytes from a buffer, without a line
/// or a record per request, because `numasim bench dram`'s side-by-side comparison with
/// Ramulator 2 times the whole process and the general reader costs about as much per line
/// as the DRAM model costs per stream request. `None` as soon as anything else turns up (another trace form, a
/// comment, compression, an odd token): the general reader then reads the file, with its
/// error messages, and gives the same requests where both accept a file.
pub fn read_plain_load_store(path: &Path, max_requests: u64) -> Result<Option<Vec<(u64, bool)>>, SourceError> {
    use std::io::Read as _;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    // Room for the requests at once (`LD 0x…` lines are 12–20 bytes), not by doubling.
    let bytes = file.metadata().map_or(0, |m| m.len());
    let mut out = Vec::with_capacity((bytes / 12).min(max_requests) as usize);
    let mut buf = vec![0u8; 1 << 20];
    // buf[..carry]: the start of a line the last read cut.
    let mut carry = 0;
    loop {
        let n = match file.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok(None),
        };
        let filled = carry + n;
        let mut pos = 0;
        loop {
            match parse_line(&buf[..filled], pos) {
                Line::Request(request, next) => {
                    out.push(request);
                    pos = next;
                }
                Line::Cut => break,
                Line::Other => return Ok(None),
            }
        }
        if n == 0 {
            if pos < filled {
                // A last line without a newline.
                let Some(request) = parse_load_store(&buf[pos..filled]) else {
                    return Ok(None);
                };
                out.push(request);
            }
            return Ok(Some(out));
        }
        if out.len() as u64 > max_requests {
            return Err(too_many(path, max_requests));
        }
        buf.copy_within(pos..filled, 0);
        carry = filled - pos;
        if carry == buf.len() {
            return Ok(None); // a line of a megabyte: not this form
        }
    }
}

/// Value of each byte as a hexadecimal digit, 0xFF for the others.
const HEX_DIGIT: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// What [`parse_line`] found.
enum Line {
    /// A request, and where the next line starts.
    Request((u64, bool), usize),
    /// The buffer ends before the line does.
    Cut,
    /// Not an `LD|ST <address>` line.
    Other,
}

/// The line of `b` starting at `pos`, parsed as it is scanned (one pass, no search for its
/// end first); the same lines as [`parse_load_store`], when they end with a newline.
#[inline]
fn parse_line(b: &[u8], pos: usize) -> Line {
    let n = b.len();
    if pos + 3 > n {
        return Line::Cut;
    }
    let write = match (b[pos], b[pos + 1]) {
        (b'L', b'D') => false,
        (b'S', b'T') => true,
        _ => return Line::Other,
    };
    let blank = |c: u8| c == b' ' || c == b'\t';
    let mut i = pos + 2;
    if !blank(b[i]) {
        return Line::Other;
    }
    while i < n && blank(b[i]) {
        i += 1;
    }
    if i + 1 >= n {
        return Line::Cut;
    }
    let mut v = 0u64;
    if b[i] == b'0' && (b[i + 1] == b'x' || b[i + 1] == b'X') {
        i += 2;
        let first = i;
        while i < n && HEX_DIGIT[usize::from(b[i])] <= 15 {
            v = (v << 4) | u64::from(HEX_DIGIT[usize::from(b[i])]);
            i += 1;
            if i - first > 16 {
                return Line::Other;
            }
        }
        if i == first && i < n {
            return Line::Other;
        }
    } else {
        let first = i;
        while i < n && b[i].is_ascii_digit() {
            v = v.wrapping_mul(10).wrapping_add(u64::from(b[i] - b'0'));
            i += 1;
            if i - first > 19 {
                return Line::Other;
            }
        }
        if i == first && i < n {
            return Line::Other;
        }
    }
    while i < n && (blank(b[i]) || b[i] == b'\r') {
        i += 1;
    }
    match b.get(i) {
        None => Line::Cut,
        Some(b'\n') => Line::Request((v, write), i + 1),
        Some(_) => Line::Other,
    }
}

/// `LD|ST <address>` → (byte address, write); `None` for anything else.
#[inline]
fn parse_load_store(line: &[u8]) -> Option<(u64, bool)> {
    let write = match line.get(..2)? {
        b"LD" => false,
        b"ST" => true,
        _ => return None,
    };
    let mut i = 2;
    let blank = |b: u8| b == b' ' || b == b'\t';
    if !blank(*line.get(i)?) {
        return None;
    }
    while i < line.len() && blank(line[i]) {
        i += 1;
    }
    let mut end = line.len();
    while end > i && (blank(line[end - 1]) || line[end - 1] == b'\r') {
        end -= 1;
    }
    let tok = &line[i..end];
    let addr = if let Some(hex) = tok.strip_prefix(b"0x").or_else(|| tok.strip_prefix(b"0X")) {
        if hex.is_empty() || hex.len() > 16 {
            return None;
        }
        let mut v = 0u64;
        for &b in hex {
            let d = HEX_DIGIT[usize::from(b)];
            if d > 15 {
                return None;
            }
            v = (v << 4) | u64::from(d);
        }
        v
    } else {
        if tok.is_empty() || tok.len() > 19 {
            return None;
        }
        let mut v = 0u64;
        for &b in tok {
            if !b.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u64::from(b - b'0');
        }
        v
    };
    Some((addr, write))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general reader's requests, for comparison.
    fn general(path: &Path) -> Result<Vec<(u64, bool)>, SourceError> {
        read_requests_general(path, u64::MAX)
    }

    #[test]
    fn the_fast_reader_gives_the_general_readers_requests_or_steps_aside() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, bool); 14] = [
            ("LD 5", true),
            ("ST 9999999999999999999\nLD 0xffffffffffffffff\n", true),
            ("ST 0x40\rX\n", false),
            ("LD 0x1g\n", false),
            ("LD 123456789012345678901\n", false),
            ("LD 0x40\nST 0x1fC0\r\nLD\t128  \nST 0XFFFFFFFFFFFFFFC0", true),
            ("LD 0x40\nST 64\n", true),
            ("", true),
            ("# comment\nLD 0x40\n", false),
            ("LD 0x40\n\nST 0x80\n", false),
            (" LD 0x40\n", false),
            ("LD 0x40 0x80\n", false),
            ("0x40 R\n0x80 W\n", false),
            ("LD 0x\n", false),
        ];
        for (i, (text, fast)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("t{i}.trace"));
            std::fs::write(&path, text).unwrap();
            let got = read_plain_load_store(&path, 1 << 20).unwrap();
            assert_eq!(got.is_some(), *fast, "{text:?}");
            // What it accepts, the general reader reads the same.
            if let Some(got) = got {
                assert_eq!(got, general(&path).unwrap(), "{text:?}");
            }
        }
        // A line cut by the buffer's edge: a long trace reads the same both ways.
        let path = dir.path().join("long.trace");
        let text: String = (0..200_000u64)
            .map(|i| format!("{} 0x{:x}\n", if i % 3 == 2 { "ST" } else { "LD" }, i * 4160))
            .collect();
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            read_plain_load_store(&path, 1 << 20).unwrap().unwrap(),
            general(&path).unwrap()
        );
        // More than the limit is an error naming the file, by either path.
        let err = read_plain_load_store(&path, 1000).unwrap_err().to_string();
        assert!(
            err.contains("long.trace") && err.contains("more than 1000 requests"),
            "{err}"
        );
        let err = read_requests_general(&path, 1000).unwrap_err().to_string();
        assert!(
            err.contains("long.trace") && err.contains("more than 1000 requests"),
            "{err}"
        );
    }

    #[test]
    fn read_requests_takes_the_fast_path_or_the_general_reader() {
        let dir = tempfile::tempdir().unwrap();
        for (i, text) in ["LD 0x40\nST 64\n", "# comment\nLD 0x40\n", "0x40 R\n0x80 W\n"]
            .iter()
            .enumerate()
        {
            let path = dir.path().join(format!("t{i}.trace"));
            std::fs::write(&path, text).unwrap();
            assert_eq!(read_requests(&path, 10).unwrap(), general(&path).unwrap(), "{text:?}");
        }
        // A refusal is the general reader's, naming the file and the byte offset.
        let path = dir.path().join("bad.trace");
        std::fs::write(&path, "LD 0x1g\n").unwrap();
        let (a, b) = (read_requests(&path, 10).unwrap_err(), general(&path).unwrap_err());
        assert_eq!(a.to_string(), b.to_string());
        assert!(
            a.to_string().contains("bad.trace") && a.to_string().contains("byte offset"),
            "{a}"
        );
    }
}
