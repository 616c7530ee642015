//! The native numasim trace format: chunked, zstd-compressed, streamed per thread.
//!
//! # Why this shape
//! Traces hold billions of accesses, so a reader must stream in memory that depends on the
//! number of threads and the chunk size, never on the trace length. The simulator pulls
//! thread 0, then 1, ... in any order, so each thread reads its own chunks with positional
//! reads (`read_at`). Chunk headers are read once, by one forward scan shared by all threads
//! that queues each header for its thread (a per-thread scan re-read every header once per
//! thread: a million reads for 1024 threads). The queues hold only the headers between the
//! slowest and the fastest thread. Each thread holds one decompressed chunk, so the reader's
//! buffer memory is threads × chunk size: the format caps a chunk's decompressed size
//! ([`MAX_CHUNK_UNCOMPRESSED_BYTES`]), the reader caps the sum ([`DEFAULT_READER_BUFFER_BYTES`],
//! a clear error past it, never a huge allocation a header asked for), and the writer sizes
//! chunks so every trace it writes fits that sum. Records are delta + varint encoded (consecutive accesses of a thread are close in
//! instruction count and often in address) and then zstd-compressed per chunk; decoding is a
//! tight loop over a reused decompressed buffer with no allocation per record, writing
//! straight into the caller's batch. Decode time splits between zstd and that loop; the loop
//! packs varints with one BMI2 `pext` where the CPU has it (chosen at run time), and the
//! writer's default zstd level (-1) stores literals raw, because Huffman-decoding them was
//! half of all decode time. Together about 150–175 M accesses/s per core (docs/validation/peers.md).
//!
//! # Layout (all integers little-endian)
//! ```text
//! header:  b"NUMASIMT" | format_version u32 | threads u32 (<= 4096)
//!          | metadata_len_bytes u32 (<= 1 MiB) | metadata JSON (metadata_len_bytes)
//! chunk*:  chunk_magic u32 = b"CHNK" | thread u32 | record_count u32
//!          | compressed_len_bytes u32 | uncompressed_len_bytes u32 | zstd frame (compressed_len_bytes)
//! trailer: end_magic u32 = b"TEND" | threads u32 | record_count u64 per thread
//! ```
//! The file must end exactly after the trailer. A file cut anywhere lacks it, so every thread's
//! cursor, which scans forward to the trailer, reports a [`SourceError::Corrupt`] naming the
//! byte offset where data is missing; the per-thread record counts in the trailer also catch a
//! lost chunk. zstd frames carry a content checksum.
//!
//! # Chunk payload (after zstd decompression)
//! ```text
//! lane_len_bytes u32 × 4 | lane 0 records | lane 1 records | lane 2 records | lane 3 records
//! ```
//! Record `i` of a chunk is stored in lane `i % 4`. Each lane is its own delta chain, so the
//! decoder runs four independent varint dependency chains at once; a single chain is bound by
//! the load -> varint length -> next load latency (about 30 cycles per record), four chains
//! overlap in the out-of-order core.
//!
//! # Record encoding (inside a lane)
//! ```text
//! varint   instr delta     (unsigned, from the previous record of the same lane)
//! varint   vaddr delta     (zigzag, from the previous record of the same lane)
//! u8       flags           bit0 write, bit1 has-flops, bits2-7 size code:
//!                          1..=62 -> that size in bytes, 63 -> 64 bytes, 0 -> a size byte follows
//! [u8      size_bytes]     only for size code 0 (so every size 0..=255 round-trips exactly)
//! [varint  flops]          only when has-flops is set
//! ```
//! The first record of every lane of every chunk is delta-coded from zero (that is, absolute),
//! so each chunk decodes on its own. The instruction count must be non-decreasing in record
//! order across lanes and across a thread's chunks; the writer enforces it and the reader
//! checks it (a violation is Corrupt).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::Serialize;

use crate::record::{Access, AccessKind};
use crate::source::{AccessSource, SourceError};

/// First eight bytes of every native trace.
pub const FILE_MAGIC: [u8; 8] = *b"NUMASIMT";
/// Format version written by this crate; the reader refuses any other.
pub const FORMAT_VERSION: u32 = 1;
/// Largest thread count a header may declare.
pub const MAX_THREADS: u32 = 4096;
/// Largest metadata JSON a header may declare.
pub const MAX_METADATA_BYTES: u32 = 1 << 20;
/// Largest decompressed chunk payload a chunk header may declare.
pub const MAX_CHUNK_UNCOMPRESSED_BYTES: u32 = 8 << 20;
/// Largest compressed chunk payload a chunk header may declare (the zstd bound of the above).
pub const MAX_CHUNK_COMPRESSED_BYTES: u32 = (8 << 20) + (1 << 20);
/// Largest number of records per chunk (so a full chunk of the largest records, 27 bytes
/// each, always fits the byte cap).
pub const MAX_CHUNK_RECORDS: u32 = 1 << 18;
/// Default cap on the decompressed chunks a reader holds at once (one per unfinished thread).
/// The writer keeps `threads × chunk payload` within half of it, so every trace numasim writes
/// reads within it.
pub const DEFAULT_READER_BUFFER_BYTES: u64 = 1 << 30;
/// Default records per chunk for the writer.
pub const DEFAULT_CHUNK_RECORDS: usize = 65536;
/// Default zstd level for the writer. Decode speed is what the simulator waits on: level 1
/// decompresses markedly faster than 3, and negative levels store literals without Huffman
/// coding, whose decoding was half of all decode time at level 1 (record bytes are mostly
/// varint literals, which Huffman shrinks little). Traces written at any level read alike.
pub const DEFAULT_COMPRESSION_LEVEL: i32 = -1;
/// Shortest zstd match the default writer uses (zstd's own choice at level -1 is 6). Each
/// match is a sequence the decompressor decodes and copies; 6-byte matches are common in
/// record bytes and save little, and skipping them made decode 1.15× faster on a BFS trace
/// and on random addresses for files 5–12 % larger (and a zipf trace's 2 % smaller).
pub const DEFAULT_MIN_MATCH_BYTES: u32 = 7;

const CHUNK_MAGIC: u32 = u32::from_le_bytes(*b"CHNK");
const END_MAGIC: u32 = u32::from_le_bytes(*b"TEND");
const FIXED_HEADER_BYTES: u64 = 8 + 4 + 4 + 4;
const CHUNK_HEADER_BYTES: u64 = 20;
const END_FIXED_BYTES: u64 = 8;
/// Smallest encoded record: two one-byte varints and the flags byte.
const MIN_RECORD_BYTES: u64 = 3;
/// Largest encoded record: two ten-byte varints, flags, size byte, five-byte flops varint.
const MAX_RECORD_BYTES: u64 = 10 + 10 + 1 + 1 + 5;
/// Accesses handed out per `next_batch` call.
const BATCH_RECORDS: usize = 8192;

/// Independent delta chains (lanes) per chunk payload; record `i` is in lane `i % LANES`.
const LANES: usize = 4; // a power of two (masks below)
/// The payload starts with the byte length of each lane (u32 each).
const LANE_DIR_BYTES: usize = 4 * LANES;

const FLAG_WRITE: u8 = 1;
const FLAG_FLOPS: u8 = 2;

/// What the header of a native trace says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NativeHeader {
    pub format_version: u32,
    pub threads: usize,
    /// Free-form: generator, parameters, source files.
    pub metadata: serde_json::Value,
    /// Byte offset of the first chunk.
    pub data_offset_bytes: u64,
}

// ---------------------------------------------------------------------------------------------
// Encoding helpers

#[inline]
fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[inline]
fn encode_record(buf: &mut Vec<u8>, prev_instr: u64, prev_vaddr: u64, a: &Access) {
    put_varint(buf, a.instr - prev_instr);
    put_varint(buf, zigzag(a.vaddr.wrapping_sub(prev_vaddr) as i64));
    let size_code = match a.size_bytes {
        s @ 1..=62 => s,
        64 => 63,
        _ => 0,
    };
    let mut flags = size_code << 2;
    if a.kind == AccessKind::Write {
        flags |= FLAG_WRITE;
    }
    if a.flops != 0 {
        flags |= FLAG_FLOPS;
    }
    buf.push(flags);
    if size_code == 0 {
        buf.push(a.size_bytes);
    }
    if a.flops != 0 {
        put_varint(buf, a.flops as u64);
    }
}

/// Decodes a varint of at most 8 bytes from the low bytes of `word` (the 8 bytes at its
/// position): the terminator is found with `trailing_zeros`, and the 7-bit groups are packed
/// either by one BMI2 `pext` (`PEXT`, only instantiated inside [`decode_groups_bmi2`], which
/// runs only on CPUs that have it) or portably by three shift/mask steps; no loop and no branch
/// on the length either way. Returns `(value, length_bytes)`, or None for longer varints.
#[inline(always)]
fn varint_in_word<const PEXT: bool>(word: u64) -> Option<(u64, usize)> {
    let stops = !word & 0x8080_8080_8080_8080;
    if stops == 0 {
        return None;
    }
    // All bits up to and including the terminator's bit 7: exactly the varint's bytes.
    // (`x ^ (x - 1)` avoids a variable shift, which costs 3 uops on x86 without BMI2.)
    let x = word & (stops ^ (stops - 1));
    Some((pack_groups::<PEXT>(x), (stops.trailing_zeros() >> 3) as usize + 1))
}

/// Packs the low 7 bits of each byte of `x` (bytes past the varint already zeroed).
#[inline(always)]
fn pack_groups<const PEXT: bool>(x: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if PEXT {
        // SAFETY: `PEXT` is true only in code compiled for and dispatched to BMI2 CPUs
        // (`decode_groups_bmi2`, called after `is_x86_feature_detected!("bmi2")`).
        return unsafe { std::arch::x86_64::_pext_u64(x, 0x7f7f_7f7f_7f7f_7f7f) };
    }
    let mut x = x;
    x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

#[cfg(test)]
fn load_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

/// Reads a LEB128 varint with full bounds and overflow checks (any position, any length).
fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let b = *buf.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None; // overflows 64 bits (or an 11th byte would follow)
        }
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// Why a payload failed to decode (kept small: the hot loop only carries a tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PayloadError {
    Truncated,
    FlopsOverflow,
    InstrDecreasing,
}

impl PayloadError {
    fn message(self) -> &'static str {
        match self {
            PayloadError::Truncated => "record runs past the end of the chunk payload or has a malformed varint",
            PayloadError::InstrDecreasing => "instruction count decreases (or overflows 64 bits)",
            PayloadError::FlopsOverflow => "flops count does not fit 32 bits",
        }
    }
}

/// One encoded record: (instr delta, zigzagged vaddr delta, flags, size, flops, length).
type RawRecord = (u64, u64, u8, u8, u32, usize);

/// Bytes that must follow a record start for [`decode_fast`] to read without bounds failures
/// (largest record it accepts, 8+8+1+1+5 bytes, plus an 8-byte load at the last varint).
const FAST_WINDOW_BYTES: usize = 32;

#[inline(always)]
fn size_from_code(code: u8) -> u8 {
    if code == 63 {
        64
    } else {
        code
    }
}

/// Decodes the record at `p`, which has at least [`FAST_WINDOW_BYTES`] bytes after it.
/// Returns None for anything unusual (long varints, flops over 32 bits); the caller then
/// uses [`decode_checked`], which also produces the error.
#[inline(always)]
fn decode_fast<const PEXT: bool>(buf: &[u8], p: usize) -> Option<RawRecord> {
    // One bounds check for the whole window; every index below is masked to stay inside it,
    // which the compiler can see (varint lengths are 1..=8, so the masks never change them).
    let win: &[u8; FAST_WINDOW_BYTES] = buf[p..p + FAST_WINDOW_BYTES].try_into().unwrap();
    let word_at = |at: usize| u64::from_le_bytes(win[at..at + 8].try_into().unwrap());
    let w0 = word_at(0);
    // Instruction deltas are almost always below 128: a well-predicted one-byte path.
    let (d_instr, l0) = if w0 & 0x80 == 0 {
        (w0 & 0x7f, 1)
    } else {
        varint_in_word::<PEXT>(w0)?
    };
    let l0 = l0 & 15;
    let (d_vaddr, l1) = varint_in_word::<PEXT>(word_at(l0))?;
    let mut q = (l0 + (l1 & 15)) & 31;
    let flags = win[q];
    let code = flags >> 2;
    let size = if code == 0 {
        q += 1;
        win[q]
    } else {
        size_from_code(code)
    };
    q += 1;
    let mut flops = 0u32;
    if flags & FLAG_FLOPS != 0 {
        let (f, l2) = varint_in_word::<PEXT>(word_at(q))?;
        flops = u32::try_from(f).ok()?;
        q += l2;
    }
    Some((d_instr, d_vaddr, flags, size, flops, q))
}

/// True when this CPU has BMI2 (`pext`), so [`decode_groups_bmi2`] may run.
#[inline]
fn bmi2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Lane state of the whole-group loop, kept in locals (registers) while it runs.
#[derive(Debug, Clone, Copy)]
struct Lanes {
    pos: [usize; LANES],
    instr: [u64; LANES],
    vaddr: [u64; LANES],
}

/// Decodes whole groups of [`LANES`] records into `spare` (its length is a multiple of
/// `LANES`) until it is full or a record needs the checked path; returns how many records
/// were written and whether any instruction count went below the previous record's.
///
/// The previous record of lane `k` is the last one of lane `k - 1`, so the order check is
/// `instr[k] < instr[k - 1]` with no extra register (the caller checks a chunk's first
/// record against the thread's previous chunk). A lane delta that wraps 64 bits ends below
/// the lane's previous value, which is at most the previous record's, so the same check
/// catches it.
#[inline(always)]
fn decode_groups<const PEXT: bool>(
    buf: &[u8],
    fast_end: usize,
    lanes: &mut Lanes,
    spare: &mut [std::mem::MaybeUninit<Access>],
) -> (usize, bool) {
    let Lanes {
        mut pos,
        mut instr,
        mut vaddr,
    } = *lanes;
    let mut bad = false;
    let mut written = 0usize;
    // One macro expansion per lane so the lane state stays in registers. A record the fast
    // path cannot take ends the loop before anything of its group is committed... except
    // the lanes before it, which are kept: `written` counts exactly the records stored.
    macro_rules! lane {
        ($k:expr, $out:expr, $exit:lifetime) => {{
            const K: usize = $k;
            let p = pos[K];
            let fast = if p < fast_end {
                decode_fast::<PEXT>(buf, p)
            } else {
                None
            };
            let Some((di, dv, flags, size_bytes, flops, len)) = fast else {
                break $exit;
            };
            pos[K] = p + len;
            let ins = instr[K].wrapping_add(di);
            bad |= ins < instr[(K + LANES - 1) % LANES];
            instr[K] = ins;
            vaddr[K] = vaddr[K].wrapping_add(unzigzag(dv) as u64);
            let kind = if flags & FLAG_WRITE != 0 {
                AccessKind::Write
            } else {
                AccessKind::Read
            };
            $out.write(Access {
                instr: ins,
                vaddr: vaddr[K],
                flops,
                size_bytes,
                kind,
            });
            written += 1;
        }};
    }
    const _: () = assert!(LANES == 4);
    'groups: for group in spare.chunks_exact_mut(LANES) {
        let [o0, o1, o2, o3] = group else { unreachable!() };
        lane!(0, o0, 'groups);
        lane!(1, o1, 'groups);
        lane!(2, o2, 'groups);
        lane!(3, o3, 'groups);
    }
    *lanes = Lanes { pos, instr, vaddr };
    (written, bad)
}

fn decode_groups_portable(
    buf: &[u8],
    fast_end: usize,
    lanes: &mut Lanes,
    spare: &mut [std::mem::MaybeUninit<Access>],
) -> (usize, bool) {
    decode_groups::<false>(buf, fast_end, lanes, spare)
}

/// [`decode_groups`] compiled for BMI1/BMI2 (`pext` packs a varint in one instruction; `andn`,
/// `blsmsk` and `tzcnt` shorten the rest). Only called when [`bmi2_available`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn decode_groups_bmi2(
    buf: &[u8],
    fast_end: usize,
    lanes: &mut Lanes,
    spare: &mut [std::mem::MaybeUninit<Access>],
) -> (usize, bool) {
    decode_groups::<true>(buf, fast_end, lanes, spare)
}

/// Decodes the record at `p` with every check.
#[cold]
#[inline(never)]
fn decode_checked(buf: &[u8], p: usize) -> Result<RawRecord, PayloadError> {
    let mut q = p;
    let d_instr = get_varint(buf, &mut q).ok_or(PayloadError::Truncated)?;
    let d_vaddr = get_varint(buf, &mut q).ok_or(PayloadError::Truncated)?;
    let flags = *buf.get(q).ok_or(PayloadError::Truncated)?;
    q += 1;
    let code = flags >> 2;
    let size = if code == 0 {
        let s = *buf.get(q).ok_or(PayloadError::Truncated)?;
        q += 1;
        s
    } else {
        size_from_code(code)
    };
    let flops = if flags & FLAG_FLOPS != 0 {
        let f = get_varint(buf, &mut q).ok_or(PayloadError::Truncated)?;
        u32::try_from(f).map_err(|_| PayloadError::FlopsOverflow)?
    } else {
        0
    };
    Ok((d_instr, d_vaddr, flags, size, flops, q - p))
}

/// Decode state of one chunk payload: per-lane positions and delta bases.
///
/// Record `i` of a chunk lives in lane `i % LANES`; each lane is its own delta chain, so the
/// decoder runs `LANES` independent varint dependency chains at once (the out-of-order core
/// overlaps them) instead of one chain whose load -> length -> next-load latency bounds speed.
#[derive(Debug, Clone, Default)]
struct ChunkDecoder {
    pos: [usize; LANES],
    end: [usize; LANES],
    instr: [u64; LANES],
    vaddr: [u64; LANES],
    /// Chunk record index of the next record.
    next_index: usize,
    record_count: usize,
}

impl ChunkDecoder {
    /// Parses the lane directory at the start of a decompressed payload.
    fn start(payload: &[u8], record_count: usize) -> Result<Self, String> {
        if payload.len() < LANE_DIR_BYTES {
            return Err("chunk payload shorter than its lane directory".into());
        }
        let mut d = ChunkDecoder {
            record_count,
            ..Default::default()
        };
        let mut at = LANE_DIR_BYTES as u64;
        for k in 0..LANES {
            d.pos[k] = at.min(payload.len() as u64) as usize;
            at += le_u32(payload, 4 * k) as u64;
            d.end[k] = at.min(payload.len() as u64) as usize;
        }
        if at != payload.len() as u64 {
            return Err(format!(
                "lane lengths add up to {at} bytes, the payload holds {}",
                payload.len()
            ));
        }
        Ok(d)
    }

    fn remaining(&self) -> usize {
        self.record_count - self.next_index
    }

    /// True when every lane was consumed exactly (checked after the last record).
    fn consumed_exactly(&self) -> bool {
        self.pos == self.end
    }

    /// Decodes one record of lane `next_index % LANES` (unaligned heads and tails, and the
    /// records the whole-group loop leaves to the checked path), appending it to `out`.
    fn decode_single(
        &mut self,
        buf: &[u8],
        fast_end: usize,
        bad: &mut bool,
        out: &mut Vec<Access>,
    ) -> Result<(), (usize, PayloadError)> {
        let k = self.next_index % LANES;
        let p = self.pos[k];
        let fast = if p < fast_end {
            decode_fast::<false>(buf, p)
        } else {
            None
        };
        let (di, dv, flags, size_bytes, flops, len) = match fast {
            Some(r) => r,
            None => decode_checked(&buf[..self.end[k]], p).map_err(|e| (self.next_index, e))?,
        };
        self.pos[k] = p + len;
        let ins = self.instr[k].wrapping_add(di);
        // Same order check as `decode_groups`: against the previous record (lane k - 1).
        *bad |= ins < self.instr[(k + LANES - 1) % LANES];
        self.instr[k] = ins;
        self.vaddr[k] = self.vaddr[k].wrapping_add(unzigzag(dv) as u64);
        let kind = if flags & FLAG_WRITE != 0 {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        out.push(Access {
            instr: ins,
            vaddr: self.vaddr[k],
            flops,
            size_bytes,
            kind,
        });
        self.next_index += 1;
        Ok(())
    }

    /// Decodes the next `n` (at most `remaining()`) records, appending them to `out`.
    /// `floor_instr` is the instruction count of the record handed out before them; the
    /// decoded counts must not go below it or decrease. Errors carry the chunk record index.
    fn decode(
        &mut self,
        buf: &[u8],
        n: usize,
        floor_instr: u64,
        out: &mut Vec<Access>,
    ) -> Result<(), (usize, PayloadError)> {
        self.decode_with(buf, n, floor_instr, out, bmi2_available())
    }

    /// [`ChunkDecoder::decode`] with the BMI2 loop chosen by the caller (`pext` only when
    /// [`bmi2_available`]); the tests run both loops on the same payloads.
    fn decode_with(
        &mut self,
        buf: &[u8],
        n: usize,
        floor_instr: u64,
        out: &mut Vec<Access>,
        pext: bool,
    ) -> Result<(), (usize, PayloadError)> {
        debug_assert!(n <= self.remaining());
        // Records starting before `fast_end` have the whole fast window inside `buf`.
        let fast_end = buf.len().checked_sub(FAST_WINDOW_BYTES).map_or(0, |e| e + 1);
        let stop = self.next_index + n;
        let first_out = out.len();
        let first_index = self.next_index;
        let mut bad = false;
        out.reserve(n);
        loop {
            while self.next_index < stop && (!self.next_index.is_multiple_of(LANES) || stop - self.next_index < LANES) {
                self.decode_single(buf, fast_end, &mut bad, out)?;
            }
            if self.next_index == stop {
                break;
            }
            // Whole groups of LANES records, written straight into the reserved tail of `out`
            // (no per-record capacity check or length update).
            let want = (stop - self.next_index) / LANES * LANES;
            let mut lanes = Lanes {
                pos: self.pos,
                instr: self.instr,
                vaddr: self.vaddr,
            };
            let spare = &mut out.spare_capacity_mut()[..want];
            #[cfg(target_arch = "x86_64")]
            let (written, b) = if pext {
                debug_assert!(bmi2_available());
                // SAFETY: the CPU has BMI1/BMI2 (the caller checked `bmi2_available`).
                unsafe { decode_groups_bmi2(buf, fast_end, &mut lanes, spare) }
            } else {
                decode_groups_portable(buf, fast_end, &mut lanes, spare)
            };
            #[cfg(not(target_arch = "x86_64"))]
            let (written, b) = {
                let _ = pext;
                decode_groups_portable(buf, fast_end, &mut lanes, spare)
            };
            // SAFETY: `decode_groups` initialised exactly the first `written` slots of the
            // spare capacity, which `reserve(n)` made room for.
            unsafe { out.set_len(out.len() + written) };
            (self.pos, self.instr, self.vaddr) = (lanes.pos, lanes.instr, lanes.vaddr);
            self.next_index += written;
            bad |= b;
            if written < want {
                // A record the fast path declined (long varint, flops over 32 bits, window
                // past the payload end, or an error): the checked path decodes or names it.
                self.decode_single(buf, fast_end, &mut bad, out)?;
            }
        }
        if let Some(first) = out.get(first_out) {
            // A chunk's first record starts its lanes from zero: check it against the thread's
            // previous record here (later records are checked against their predecessor).
            bad |= first.instr < floor_instr;
        }
        if bad {
            let mut floor = floor_instr;
            for (i, a) in out[first_out..].iter().enumerate() {
                if a.instr < floor {
                    return Err((first_index + i, PayloadError::InstrDecreasing));
                }
                floor = a.instr;
            }
            // Not reached: `bad` is only set when some record is below its predecessor.
            return Err((first_index, PayloadError::InstrDecreasing));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Writer

/// What a finished native trace holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteSummary {
    pub threads: usize,
    pub records: u64,
    pub records_per_thread: Vec<u64>,
    pub chunks: u64,
    pub file_bytes: u64,
}

#[derive(Debug, Default)]
struct ThreadBuffer {
    /// Encoded records of the pending chunk, one buffer per lane.
    lanes: [Vec<u8>; LANES],
    pending_records: u32,
    /// Encoded bytes in the lanes of the pending chunk.
    pending_bytes: usize,
    /// Delta bases per lane (reset to zero at each chunk).
    prev_instr: [u64; LANES],
    prev_vaddr: [u64; LANES],
    last_instr: u64,
    total_records: u64,
}

/// Writes a native trace. Accesses are buffered per thread and flushed as one chunk when a
/// thread's buffer holds `chunk_records` records; [`NativeWriter::finish`] writes the rest and
/// the trailer. A writer dropped without `finish` leaves a file readers report as truncated.
pub struct NativeWriter {
    path: String,
    out: BufWriter<File>,
    threads: Vec<ThreadBuffer>,
    chunk_records: u32,
    /// A thread's chunk is flushed before its payload could pass this many bytes, so that
    /// `threads × chunk payload` stays within half of [`DEFAULT_READER_BUFFER_BYTES`].
    max_chunk_payload_bytes: usize,
    compressor: zstd::bulk::Compressor<'static>,
    payload: Vec<u8>,
    compressed: Vec<u8>,
    chunks: u64,
    written_bytes: u64,
    /// Thread count written in the header; [`NativeWriter::finish`] rewrites it if
    /// [`NativeWriter::add_thread`] changed it.
    header_threads: usize,
}

impl std::fmt::Debug for NativeWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeWriter")
            .field("path", &self.path)
            .field("threads", &self.threads.len())
            .field("chunk_records", &self.chunk_records)
            .finish_non_exhaustive()
    }
}

impl NativeWriter {
    /// Creates (truncates) `path` and writes the header.
    pub fn create(path: impl AsRef<Path>, threads: usize, metadata: &serde_json::Value) -> Result<Self, SourceError> {
        let path_ref = path.as_ref();
        let path_str = path_ref.display().to_string();
        if threads > MAX_THREADS as usize {
            return Err(SourceError::Invalid(format!(
                "{path_str}: {threads} threads exceeds the format limit of {MAX_THREADS}"
            )));
        }
        let meta =
            serde_json::to_vec(metadata).map_err(|e| SourceError::Invalid(format!("{path_str}: metadata: {e}")))?;
        if meta.len() > MAX_METADATA_BYTES as usize {
            return Err(SourceError::Invalid(format!(
                "{path_str}: metadata is {} bytes, the format limit is {MAX_METADATA_BYTES}",
                meta.len()
            )));
        }
        let io_err = |source| SourceError::Io {
            path: path_str.clone(),
            source,
        };
        let file = File::create(path_ref).map_err(io_err)?;
        let mut compressor = zstd::bulk::Compressor::new(DEFAULT_COMPRESSION_LEVEL).map_err(io_err)?;
        compressor.include_checksum(true).map_err(io_err)?;
        compressor
            .set_parameter(zstd::zstd_safe::CParameter::MinMatch(DEFAULT_MIN_MATCH_BYTES))
            .map_err(io_err)?;
        let mut w = NativeWriter {
            path: path_str.clone(),
            out: BufWriter::with_capacity(1 << 20, file),
            threads: (0..threads).map(|_| ThreadBuffer::default()).collect(),
            chunk_records: DEFAULT_CHUNK_RECORDS as u32,
            max_chunk_payload_bytes: (MAX_CHUNK_UNCOMPRESSED_BYTES as u64)
                .min(DEFAULT_READER_BUFFER_BYTES / 2 / threads.max(1) as u64)
                .max(LANE_DIR_BYTES as u64 + 64 * MAX_RECORD_BYTES) as usize,
            compressor,
            payload: Vec::new(),
            compressed: Vec::new(),
            chunks: 0,
            written_bytes: 0,
            header_threads: threads,
        };
        let mut header = Vec::with_capacity(FIXED_HEADER_BYTES as usize + meta.len());
        header.extend_from_slice(&FILE_MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&(threads as u32).to_le_bytes());
        header.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        header.extend_from_slice(&meta);
        w.put(&header)?;
        Ok(w)
    }

    /// Sets how many records of one thread make a chunk (1..=[`MAX_CHUNK_RECORDS`]).
    /// Takes effect from the next record on; reading results do not depend on it.
    pub fn set_chunk_records(&mut self, records: usize) -> Result<(), SourceError> {
        if records == 0 || records > MAX_CHUNK_RECORDS as usize {
            return Err(SourceError::Invalid(format!(
                "chunk_records must be in 1..={MAX_CHUNK_RECORDS}, got {records}"
            )));
        }
        self.chunk_records = records as u32;
        Ok(())
    }

    /// Sets the byte cap of one chunk's decompressed payload (at least 2 KiB, at most
    /// [`MAX_CHUNK_UNCOMPRESSED_BYTES`]); the default keeps `threads × cap` within half of
    /// [`DEFAULT_READER_BUFFER_BYTES`].
    pub fn set_max_chunk_payload_bytes(&mut self, bytes: usize) {
        self.max_chunk_payload_bytes = bytes.clamp(2048, MAX_CHUNK_UNCOMPRESSED_BYTES as usize);
    }

    /// Byte cap of one chunk's decompressed payload.
    pub fn max_chunk_payload_bytes(&self) -> usize {
        self.max_chunk_payload_bytes
    }

    /// Sets the zstd level (1..=22; negative levels are faster still) with zstd's own
    /// parameters for it (the default's [`DEFAULT_MIN_MATCH_BYTES`] no longer applies).
    pub fn set_compression_level(&mut self, level: i32) -> Result<(), SourceError> {
        let io_err = |source| SourceError::Io {
            path: self.path.clone(),
            source,
        };
        self.compressor.set_compression_level(level).map_err(io_err)?;
        // 0 = the level's own minimum match.
        self.compressor
            .set_parameter(zstd::zstd_safe::CParameter::MinMatch(0))
            .map_err(io_err)
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Adds a thread (an empty stream) and returns its index: for sources that discover their
    /// threads as they run (the QEMU tracer). [`NativeWriter::finish`] rewrites the header's
    /// thread count, and the chunk byte cap shrinks so `threads × cap` keeps within half of
    /// [`DEFAULT_READER_BUFFER_BYTES`].
    pub fn add_thread(&mut self) -> Result<usize, SourceError> {
        let n = self.threads.len() + 1;
        if n > MAX_THREADS as usize {
            return Err(SourceError::Invalid(format!(
                "{}: more than {MAX_THREADS} threads (the format limit)",
                self.path
            )));
        }
        self.threads.push(ThreadBuffer::default());
        let cap =
            (DEFAULT_READER_BUFFER_BYTES / 2 / n as u64).max(LANE_DIR_BYTES as u64 + 64 * MAX_RECORD_BYTES) as usize;
        self.max_chunk_payload_bytes = self.max_chunk_payload_bytes.min(cap);
        Ok(n - 1)
    }

    /// Appends one access to `thread`'s stream. `instr` must not decrease within a thread.
    #[inline]
    pub fn write(&mut self, thread: usize, access: &Access) -> Result<(), SourceError> {
        let Some(tb) = self.threads.get_mut(thread) else {
            return Err(SourceError::Invalid(format!(
                "{}: thread {thread} out of range (trace has {} threads)",
                self.path,
                self.threads.len()
            )));
        };
        if access.instr < tb.last_instr {
            return Err(SourceError::Invalid(format!(
                "{}: thread {thread}: instruction count {} after {} (must be non-decreasing)",
                self.path, access.instr, tb.last_instr
            )));
        }
        let k = tb.pending_records as usize % LANES;
        let before = tb.lanes[k].len();
        encode_record(&mut tb.lanes[k], tb.prev_instr[k], tb.prev_vaddr[k], access);
        tb.pending_bytes += tb.lanes[k].len() - before;
        tb.prev_instr[k] = access.instr;
        tb.prev_vaddr[k] = access.vaddr;
        tb.last_instr = access.instr;
        tb.pending_records += 1;
        tb.total_records += 1;
        // Flush before one more record could push the payload past its byte cap.
        if tb.pending_records >= self.chunk_records
            || LANE_DIR_BYTES + tb.pending_bytes + MAX_RECORD_BYTES as usize > self.max_chunk_payload_bytes
        {
            self.flush_thread(thread)?;
        }
        Ok(())
    }

    /// Appends a slice of accesses to `thread`'s stream.
    pub fn write_all(&mut self, thread: usize, accesses: &[Access]) -> Result<(), SourceError> {
        accesses.iter().try_for_each(|a| self.write(thread, a))
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), SourceError> {
        self.out.write_all(bytes).map_err(|source| SourceError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.written_bytes += bytes.len() as u64;
        Ok(())
    }

    fn flush_thread(&mut self, thread: usize) -> Result<(), SourceError> {
        let tb = &mut self.threads[thread];
        if tb.pending_records == 0 {
            return Ok(());
        }
        let payload = &mut self.payload;
        payload.clear();
        for lane in &tb.lanes {
            payload.extend_from_slice(&(lane.len() as u32).to_le_bytes());
        }
        for lane in &mut tb.lanes {
            payload.extend_from_slice(lane);
            lane.clear();
        }
        let bound = zstd::zstd_safe::compress_bound(payload.len());
        self.compressed.clear();
        self.compressed.reserve(bound);
        self.compressor
            .compress_to_buffer(&payload[..], &mut self.compressed)
            .map_err(|source| SourceError::Io {
                path: self.path.clone(),
                source,
            })?;
        let mut head = [0u8; CHUNK_HEADER_BYTES as usize];
        head[0..4].copy_from_slice(&CHUNK_MAGIC.to_le_bytes());
        head[4..8].copy_from_slice(&(thread as u32).to_le_bytes());
        head[8..12].copy_from_slice(&tb.pending_records.to_le_bytes());
        head[12..16].copy_from_slice(&(self.compressed.len() as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        tb.pending_records = 0;
        tb.pending_bytes = 0;
        tb.prev_instr = [0; LANES];
        tb.prev_vaddr = [0; LANES];
        let compressed = std::mem::take(&mut self.compressed);
        let res = self.put(&head).and_then(|()| self.put(&compressed));
        self.compressed = compressed;
        self.chunks += 1;
        res
    }

    /// Writes all buffered chunks and the trailer, and flushes the file.
    pub fn finish(mut self) -> Result<WriteSummary, SourceError> {
        for t in 0..self.threads.len() {
            self.flush_thread(t)?;
        }
        let mut trailer = Vec::with_capacity(8 + 8 * self.threads.len());
        trailer.extend_from_slice(&END_MAGIC.to_le_bytes());
        trailer.extend_from_slice(&(self.threads.len() as u32).to_le_bytes());
        for tb in &self.threads {
            trailer.extend_from_slice(&tb.total_records.to_le_bytes());
        }
        self.put(&trailer)?;
        let io_err = |source| SourceError::Io {
            path: self.path.clone(),
            source,
        };
        self.out.flush().map_err(io_err)?;
        if self.header_threads != self.threads.len() {
            use std::io::{Seek, SeekFrom};
            let f = self.out.get_mut();
            f.seek(SeekFrom::Start(12)).map_err(io_err)?;
            f.write_all(&(self.threads.len() as u32).to_le_bytes())
                .map_err(io_err)?;
            f.seek(SeekFrom::End(0)).map_err(io_err)?;
        }
        let records_per_thread: Vec<u64> = self.threads.iter().map(|t| t.total_records).collect();
        Ok(WriteSummary {
            threads: self.threads.len(),
            records: records_per_thread.iter().sum(),
            records_per_thread,
            chunks: self.chunks,
            file_bytes: self.written_bytes,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Low-level reading shared by the reader and scan_info

/// The open file with its length and name, for positional reads with offset-naming errors.
#[derive(Debug)]
struct TraceFile {
    file: File,
    path: String,
    len_bytes: u64,
}

#[derive(Debug, Clone, Copy)]
struct ChunkHeader {
    offset: u64,
    thread: u32,
    record_count: u32,
    compressed_len_bytes: u32,
    uncompressed_len_bytes: u32,
}

impl ChunkHeader {
    fn payload_offset(&self) -> u64 {
        self.offset + CHUNK_HEADER_BYTES
    }
    fn next_offset(&self) -> u64 {
        self.payload_offset() + self.compressed_len_bytes as u64
    }
}

#[derive(Debug, Clone, Copy)]
enum Block {
    Chunk(ChunkHeader),
    /// The trailer at this offset.
    End(u64),
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

impl TraceFile {
    fn corrupt(&self, offset: u64, message: impl Into<String>) -> SourceError {
        SourceError::Corrupt {
            path: self.path.clone(),
            offset,
            message: message.into(),
        }
    }

    /// Reads exactly `buf.len()` bytes at `offset`; data missing past the end is Corrupt at
    /// the first missing byte.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64, what: &str) -> Result<(), SourceError> {
        let fits = matches!(offset.checked_add(buf.len() as u64), Some(e) if e <= self.len_bytes);
        if !fits {
            return Err(self.corrupt(
                self.len_bytes.max(offset),
                format!(
                    "truncated: {what} needs {} bytes at offset {offset}, the file ends at {}",
                    buf.len(),
                    self.len_bytes
                ),
            ));
        }
        self.file.read_exact_at(buf, offset).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.corrupt(offset, format!("truncated while reading {what} (file shrank?)"))
            } else {
                SourceError::Io {
                    path: self.path.clone(),
                    source: e,
                }
            }
        })
    }

    fn read_header(&self) -> Result<NativeHeader, SourceError> {
        let mut fixed = [0u8; FIXED_HEADER_BYTES as usize];
        // Name the exact place a short header stops.
        if self.len_bytes < FIXED_HEADER_BYTES {
            let have = self.len_bytes as usize;
            let mut part = vec![0u8; have];
            self.read_exact_at(&mut part, 0, "header")?;
            if part[..have.min(8)] != FILE_MAGIC[..have.min(8)] {
                return Err(self.corrupt(0, "not a numasim trace (bad magic)"));
            }
            return Err(self.corrupt(
                self.len_bytes,
                format!("truncated header: {} of {FIXED_HEADER_BYTES} bytes", self.len_bytes),
            ));
        }
        self.read_exact_at(&mut fixed, 0, "header")?;
        if fixed[0..8] != FILE_MAGIC {
            return Err(self.corrupt(0, "not a numasim trace (bad magic)"));
        }
        let version = le_u32(&fixed, 8);
        if version != FORMAT_VERSION {
            return Err(self.corrupt(
                8,
                format!("unsupported format version {version} (this reader knows {FORMAT_VERSION})"),
            ));
        }
        let threads = le_u32(&fixed, 12);
        if threads > MAX_THREADS {
            return Err(self.corrupt(12, format!("thread count {threads} exceeds {MAX_THREADS}")));
        }
        let meta_len = le_u32(&fixed, 16);
        if meta_len > MAX_METADATA_BYTES {
            return Err(self.corrupt(
                16,
                format!("metadata length {meta_len} bytes exceeds {MAX_METADATA_BYTES}"),
            ));
        }
        let mut meta = vec![0u8; meta_len as usize];
        self.read_exact_at(&mut meta, FIXED_HEADER_BYTES, "metadata")?;
        let metadata = serde_json::from_slice(&meta)
            .map_err(|e| self.corrupt(FIXED_HEADER_BYTES, format!("metadata is not valid JSON: {e}")))?;
        Ok(NativeHeader {
            format_version: version,
            threads: threads as usize,
            metadata,
            data_offset_bytes: FIXED_HEADER_BYTES + meta_len as u64,
        })
    }

    /// Reads the chunk header or trailer at `offset`, validating every length against the caps
    /// before anything is allocated for it.
    fn read_block(&self, offset: u64, threads: usize) -> Result<Block, SourceError> {
        let avail = self.len_bytes.saturating_sub(offset);
        let n = avail.min(CHUNK_HEADER_BYTES) as usize;
        let mut head = [0u8; CHUNK_HEADER_BYTES as usize];
        if n < 4 {
            return Err(self.corrupt(
                self.len_bytes.max(offset),
                "truncated: expected a chunk header or the end-of-trace trailer",
            ));
        }
        self.read_exact_at(&mut head[..n], offset, "chunk header")?;
        match le_u32(&head, 0) {
            CHUNK_MAGIC => {
                if n < CHUNK_HEADER_BYTES as usize {
                    return Err(self.corrupt(self.len_bytes, format!("truncated chunk header at offset {offset}")));
                }
                let h = ChunkHeader {
                    offset,
                    thread: le_u32(&head, 4),
                    record_count: le_u32(&head, 8),
                    compressed_len_bytes: le_u32(&head, 12),
                    uncompressed_len_bytes: le_u32(&head, 16),
                };
                if h.thread as usize >= threads {
                    return Err(self.corrupt(
                        offset + 4,
                        format!("chunk for thread {} but the trace has {threads}", h.thread),
                    ));
                }
                if h.record_count == 0 || h.record_count > MAX_CHUNK_RECORDS {
                    return Err(self.corrupt(
                        offset + 8,
                        format!("chunk record count {} not in 1..={MAX_CHUNK_RECORDS}", h.record_count),
                    ));
                }
                if h.compressed_len_bytes > MAX_CHUNK_COMPRESSED_BYTES {
                    return Err(self.corrupt(
                        offset + 12,
                        format!(
                            "chunk compressed length {} bytes exceeds the cap",
                            h.compressed_len_bytes
                        ),
                    ));
                }
                let u = h.uncompressed_len_bytes as u64;
                let r = h.record_count as u64;
                if u > MAX_CHUNK_UNCOMPRESSED_BYTES as u64
                    || u < LANE_DIR_BYTES as u64 + r * MIN_RECORD_BYTES
                    || u > LANE_DIR_BYTES as u64 + r * MAX_RECORD_BYTES
                {
                    return Err(self.corrupt(
                        offset + 16,
                        format!("chunk uncompressed length {u} bytes impossible for {r} records"),
                    ));
                }
                if h.next_offset() > self.len_bytes {
                    return Err(self.corrupt(
                        self.len_bytes,
                        format!(
                            "truncated: chunk at offset {offset} needs {} payload bytes, the file ends at {}",
                            h.compressed_len_bytes, self.len_bytes
                        ),
                    ));
                }
                Ok(Block::Chunk(h))
            }
            END_MAGIC => {
                if n < END_FIXED_BYTES as usize {
                    return Err(self.corrupt(self.len_bytes, "truncated end-of-trace trailer"));
                }
                let t = le_u32(&head, 4);
                if t as usize != threads {
                    return Err(self.corrupt(offset + 4, format!("trailer names {t} threads, the header {threads}")));
                }
                let end = offset + END_FIXED_BYTES + 8 * threads as u64;
                if end > self.len_bytes {
                    return Err(self.corrupt(self.len_bytes, "truncated end-of-trace trailer"));
                }
                if end < self.len_bytes {
                    return Err(self.corrupt(end, "trailing bytes after the end-of-trace trailer"));
                }
                Ok(Block::End(offset))
            }
            m => Err(self.corrupt(
                offset,
                format!("expected a chunk header or trailer, found magic {m:#010x}"),
            )),
        }
    }

    /// Record count of `thread` stored in the trailer at `end_offset`.
    fn trailer_count(&self, end_offset: u64, thread: usize) -> Result<u64, SourceError> {
        let mut b = [0u8; 8];
        self.read_exact_at(&mut b, end_offset + END_FIXED_BYTES + 8 * thread as u64, "trailer")?;
        Ok(u64::from_le_bytes(b))
    }
}

/// The format promises one zstd frame per chunk carrying a content checksum (the writer always
/// adds it), so corruption of the compressed bytes cannot decode silently into other records.
/// A frame without the checksum flag, a skippable frame, or bytes after the frame are refused.
fn check_single_checksummed_frame(c: &[u8]) -> Result<(), String> {
    const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
    const CHECKSUM_FLAG: u8 = 0x04;
    if c.len() < 5 || c[0..4] != ZSTD_MAGIC {
        return Err("not a zstd frame".into());
    }
    if c[4] & CHECKSUM_FLAG == 0 {
        return Err("zstd frame carries no content checksum (the format requires one)".into());
    }
    match zstd::zstd_safe::find_frame_compressed_size(c) {
        Ok(n) if n == c.len() => Ok(()),
        Ok(n) => Err(format!("{} bytes follow the zstd frame", c.len() - n)),
        Err(_) => Err("malformed zstd frame".into()),
    }
}

/// Decompression context and compressed-bytes scratch, shared by all thread cursors.
struct Inflater {
    zstd: zstd::bulk::Decompressor<'static>,
    compressed: Vec<u8>,
}

impl Inflater {
    fn new(path: &str) -> Result<Self, SourceError> {
        let zstd = zstd::bulk::Decompressor::new().map_err(|source| SourceError::Io {
            path: path.to_string(),
            source,
        })?;
        Ok(Inflater {
            zstd,
            compressed: Vec::new(),
        })
    }

    /// Reads and decompresses the payload of `h` into `dst` (its length becomes the payload's).
    fn load(&mut self, file: &TraceFile, h: &ChunkHeader, dst: &mut Vec<u8>) -> Result<(), SourceError> {
        // Reuse the scratch at its largest length so far (only growth is zero-filled).
        let clen = h.compressed_len_bytes as usize;
        if self.compressed.len() < clen {
            self.compressed.resize(clen, 0);
        }
        let compressed = &mut self.compressed[..clen];
        file.read_exact_at(compressed, h.payload_offset(), "chunk payload")?;
        let want = h.uncompressed_len_bytes as usize;
        check_single_checksummed_frame(compressed)
            .map_err(|m| file.corrupt(h.payload_offset(), format!("chunk payload: {m}")))?;
        // zstd writes into the buffer's capacity and sets its length (nothing is zero-filled
        // first); the reader has already made room, within its buffer cap, for `want` bytes.
        dst.clear();
        dst.reserve(want);
        let got = self
            .zstd
            .decompress_to_buffer(&compressed[..], dst)
            .map_err(|e| file.corrupt(h.payload_offset(), format!("chunk payload does not decompress: {e}")))?;
        if got != want {
            return Err(file.corrupt(
                h.payload_offset(),
                format!("chunk payload decompresses to {got} bytes, header says {want}"),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Reader

#[derive(Debug, Default)]
struct ThreadCursor {
    finished: bool,
    /// Decompressed payload of the current chunk.
    payload: Vec<u8>,
    decoder: ChunkDecoder,
    chunk_offset_bytes: u64,
    last_instr: u64,
    records_read: u64,
}

/// The chunk headers read so far by the one forward scan, queued per thread.
#[derive(Debug)]
struct ChunkIndex {
    /// Offset of the next unread chunk header (or the trailer).
    frontier_bytes: u64,
    /// Offset of the trailer once the scan has reached it.
    end_offset: Option<u64>,
    /// Headers of each thread's chunks found by the scan and not yet loaded, in file order.
    pending: Vec<std::collections::VecDeque<ChunkHeader>>,
    /// Chunk headers read (each exactly once).
    headers_read: u64,
}

/// Streaming reader of a native trace; see the module docs for the layout and the reasons.
pub struct NativeReader {
    file: TraceFile,
    header: NativeHeader,
    cursors: Vec<ThreadCursor>,
    inflater: Inflater,
    index: ChunkIndex,
    /// Capacity of all threads' payload buffers together, and its cap.
    held_buffer_bytes: u64,
    buffer_limit_bytes: u64,
}

impl std::fmt::Debug for NativeReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeReader")
            .field("path", &self.file.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl NativeReader {
    /// Opens `path` and reads and validates the header. Chunks are read lazily per thread.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        let path_str = path.as_ref().display().to_string();
        let io_err = |source| SourceError::Io {
            path: path_str.clone(),
            source,
        };
        let file = File::open(path.as_ref()).map_err(io_err)?;
        let len_bytes = file.metadata().map_err(io_err)?.len();
        let file = TraceFile {
            file,
            path: path_str.clone(),
            len_bytes,
        };
        let header = file.read_header()?;
        let cursors = (0..header.threads).map(|_| ThreadCursor::default()).collect();
        let inflater = Inflater::new(&path_str)?;
        let index = ChunkIndex {
            frontier_bytes: header.data_offset_bytes,
            end_offset: None,
            pending: (0..header.threads).map(|_| Default::default()).collect(),
            headers_read: 0,
        };
        Ok(NativeReader {
            file,
            header,
            cursors,
            inflater,
            index,
            held_buffer_bytes: 0,
            buffer_limit_bytes: DEFAULT_READER_BUFFER_BYTES,
        })
    }

    pub fn header(&self) -> &NativeHeader {
        &self.header
    }

    pub fn path(&self) -> &str {
        &self.file.path
    }

    /// Sets the cap on the decompressed chunk buffers held at once (all threads together).
    pub fn set_buffer_limit_bytes(&mut self, bytes: u64) {
        self.buffer_limit_bytes = bytes;
    }

    /// Chunk headers read from the file so far (each is read once, whatever the thread count).
    pub fn chunk_headers_read(&self) -> u64 {
        self.index.headers_read
    }

    /// Bytes of decompressed-chunk buffers held now (all threads together).
    pub fn held_buffer_bytes(&self) -> u64 {
        self.held_buffer_bytes
    }

    /// Advances `thread` to its next chunk and decompresses it. Returns false at the trailer
    /// (after checking the thread's record count against it).
    fn load_next_chunk(&mut self, thread: usize) -> Result<bool, SourceError> {
        let threads = self.header.threads;
        loop {
            if let Some(h) = self.index.pending[thread].pop_front() {
                let c = &mut self.cursors[thread];
                let want = h.uncompressed_len_bytes as u64;
                let cap = c.payload.capacity() as u64;
                if want > cap {
                    let total = self.held_buffer_bytes - cap + want;
                    if total > self.buffer_limit_bytes {
                        return Err(self.file.corrupt(
                            h.offset + 16,
                            format!(
                                "chunk of thread {thread} decompresses to {want} bytes; with the chunks the other \
                                 threads hold, reading needs {total} bytes of chunk buffers, over the reader's limit \
                                 of {} bytes ({threads} threads × chunk size: re-write the trace with smaller chunks)",
                                self.buffer_limit_bytes
                            ),
                        ));
                    }
                    let mut fresh = Vec::new();
                    fresh.try_reserve_exact(want as usize).map_err(|e| {
                        self.file
                            .corrupt(h.offset + 16, format!("cannot allocate {want} bytes for a chunk: {e}"))
                    })?;
                    c.payload = fresh;
                    self.held_buffer_bytes = total - want + c.payload.capacity() as u64;
                }
                self.inflater.load(&self.file, &h, &mut c.payload)?;
                c.decoder = ChunkDecoder::start(&c.payload, h.record_count as usize)
                    .map_err(|m| self.file.corrupt(h.offset, m))?;
                c.chunk_offset_bytes = h.offset;
                return Ok(true);
            }
            if let Some(end_offset) = self.index.end_offset {
                let expected = self.file.trailer_count(end_offset, thread)?;
                let c = &mut self.cursors[thread];
                if expected != c.records_read {
                    return Err(self.file.corrupt(
                        end_offset,
                        format!(
                            "trailer says thread {thread} has {expected} records, the chunks hold {}",
                            c.records_read
                        ),
                    ));
                }
                c.finished = true;
                // Release the buffer of a finished thread.
                self.held_buffer_bytes -= c.payload.capacity() as u64;
                c.payload = Vec::new();
                return Ok(false);
            }
            // Scan one more header: each header is read once, for whichever thread owns it.
            let offset = self.index.frontier_bytes;
            self.index.headers_read += 1;
            match self.file.read_block(offset, threads)? {
                Block::End(end_offset) => self.index.end_offset = Some(end_offset),
                Block::Chunk(h) => {
                    self.index.frontier_bytes = h.next_offset();
                    self.index.pending[h.thread as usize].push_back(h);
                }
            }
        }
    }
}

impl AccessSource for NativeReader {
    fn threads(&self) -> usize {
        self.header.threads
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        out.clear();
        if thread >= self.cursors.len() {
            return Err(SourceError::Invalid(format!(
                "{}: thread {thread} out of range (trace has {} threads)",
                self.file.path, self.header.threads
            )));
        }
        if self.cursors[thread].finished {
            return Ok(());
        }
        if self.cursors[thread].decoder.remaining() == 0 && !self.load_next_chunk(thread)? {
            return Ok(());
        }
        let c = &mut self.cursors[thread];
        let n = c.decoder.remaining().min(BATCH_RECORDS);
        out.reserve(n);
        let res = c.decoder.decode(&c.payload, n, c.last_instr, out).and_then(|()| {
            if c.decoder.remaining() == 0 && !c.decoder.consumed_exactly() {
                Err((c.decoder.record_count, PayloadError::Truncated))
            } else {
                Ok(())
            }
        });
        if let Err((idx, e)) = res {
            out.clear();
            return Err(self.file.corrupt(
                c.chunk_offset_bytes,
                format!("chunk of thread {thread}: record {idx}: {}", e.message()),
            ));
        }
        c.records_read += n as u64;
        c.last_instr = out[n - 1].instr;
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "format": "numasim-native",
            "path": self.file.path,
            "format_version": self.header.format_version,
            "threads": self.header.threads,
            "metadata": self.header.metadata,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// scan_info

pub use crate::info::{ThreadInfo, TraceInfo};

/// Walks the whole trace once (chunks in file order) and summarises it. Memory grows with the
/// footprint (a set of page numbers), not with the trace length.
pub fn scan_info(path: impl AsRef<Path>) -> Result<TraceInfo, SourceError> {
    let reader = NativeReader::open(path)?;
    let NativeReader {
        file,
        header,
        mut inflater,
        ..
    } = reader;
    let threads = header.threads;
    let mut acc = crate::info::Accumulator::new(threads);
    let mut payload = Vec::new();
    let mut batch: Vec<Access> = Vec::new();
    let mut info = TraceInfo {
        path: file.path.clone(),
        format: "numasim-native".into(),
        format_version: header.format_version,
        threads,
        metadata: header.metadata.clone(),
        records: 0,
        reads: 0,
        writes: 0,
        flops: 0,
        accessed_bytes: 0,
        footprint_pages_4k: 0,
        chunks: 0,
        file_bytes: file.len_bytes,
        files: vec![crate::info::InputFile {
            path: file.path.clone(),
            bytes: file.len_bytes,
            thread: None,
        }],
        compressed_payload_bytes: 0,
        uncompressed_payload_bytes: 0,
        markers: 0,
        ignored_trailing_bytes: 0,
        per_thread: Vec::new(),
    };
    let mut offset = header.data_offset_bytes;
    let end_offset = loop {
        let h = match file.read_block(offset, threads)? {
            Block::End(e) => break e,
            Block::Chunk(h) => h,
        };
        offset = h.next_offset();
        inflater.load(&file, &h, &mut payload)?;
        batch.clear();
        batch.reserve(h.record_count as usize);
        let t = h.thread as usize;
        let floor = acc.last_instr(t);
        let mut decoder =
            ChunkDecoder::start(&payload, h.record_count as usize).map_err(|m| file.corrupt(h.offset, m))?;
        decoder
            .decode(&payload, h.record_count as usize, floor, &mut batch)
            .and_then(|()| {
                if decoder.consumed_exactly() {
                    Ok(())
                } else {
                    Err((decoder.record_count, PayloadError::Truncated))
                }
            })
            .map_err(|(i, e)| file.corrupt(h.offset, format!("chunk of thread {t}: record {i}: {}", e.message())))?;
        acc.add(t, &batch);
        info.chunks += 1;
        info.compressed_payload_bytes += h.compressed_len_bytes as u64;
        info.uncompressed_payload_bytes += h.uncompressed_len_bytes as u64;
    };
    for (t, ti) in acc.per_thread.iter().enumerate() {
        let expected = file.trailer_count(end_offset, t)?;
        if expected != ti.records {
            return Err(file.corrupt(
                end_offset,
                format!(
                    "trailer says thread {t} has {expected} records, the chunks hold {}",
                    ti.records
                ),
            ));
        }
    }
    acc.finish(&mut info);
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trip_edges() {
        let vals = [
            0u64,
            1,
            127,
            128,
            255,
            16383,
            16384,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX - 1,
            u64::MAX,
        ];
        for &v in &vals {
            for pad in [0usize, 3, 16] {
                let mut b = Vec::new();
                put_varint(&mut b, v);
                let n = b.len();
                b.resize(n + pad, 0xff);
                let mut p = 0;
                assert_eq!(get_varint(&b, &mut p), Some(v), "v={v} pad={pad}");
                assert_eq!(p, n);
                if b.len() >= 8 && n <= 8 {
                    assert_eq!(varint_in_word::<false>(load_u64(&b, 0)), Some((v, n)), "v={v}");
                    if bmi2_available() {
                        assert_eq!(varint_in_word::<true>(load_u64(&b, 0)), Some((v, n)), "v={v}");
                    }
                }
            }
        }
        // 11-byte / overflowing varints are rejected, not wrapped.
        let mut p = 0;
        assert_eq!(get_varint(&[0xff; 12], &mut p), None);
        let mut p = 0;
        assert_eq!(
            get_varint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], &mut p),
            None
        );
    }

    /// A chunk payload as the writer lays it out, from `records` (lane `i % LANES`).
    fn payload_of(records: &[Access]) -> Vec<u8> {
        let mut lanes: [Vec<u8>; LANES] = Default::default();
        let (mut pi, mut pv) = ([0u64; LANES], [0u64; LANES]);
        for (i, a) in records.iter().enumerate() {
            let k = i % LANES;
            encode_record(&mut lanes[k], pi[k], pv[k], a);
            (pi[k], pv[k]) = (a.instr, a.vaddr);
        }
        let mut p = Vec::new();
        for l in &lanes {
            p.extend_from_slice(&(l.len() as u32).to_le_bytes());
        }
        for l in &lanes {
            p.extend_from_slice(l);
        }
        p
    }

    /// Decodes `payload` in batches of `batch` records with the portable or the BMI2 loop.
    fn decode_all(
        payload: &[u8],
        count: usize,
        batch: usize,
        pext: bool,
    ) -> Result<Vec<Access>, (usize, PayloadError)> {
        let mut d = ChunkDecoder::start(payload, count).map_err(|_| (usize::MAX, PayloadError::Truncated))?;
        let (mut all, mut out, mut floor) = (Vec::new(), Vec::new(), 0u64);
        while d.remaining() > 0 {
            out.clear();
            let n = d.remaining().min(batch);
            d.decode_with(payload, n, floor, &mut out, pext)?;
            floor = out.last().map_or(floor, |a| a.instr);
            all.extend_from_slice(&out);
        }
        if d.consumed_exactly() {
            Ok(all)
        } else {
            Err((count, PayloadError::Truncated))
        }
    }

    #[test]
    fn portable_and_bmi2_loops_agree_on_valid_and_corrupt_payloads() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..60 {
            let n = (next() % 700) as usize;
            let mut instr = 0u64;
            let records: Vec<Access> = (0..n)
                .map(|_| {
                    let r = next();
                    // Mostly small deltas, sometimes huge ones (long varints take the checked path).
                    instr += if r % 50 == 0 { r >> 8 >> (r % 40) } else { r % 5 };
                    Access {
                        instr,
                        vaddr: if r % 3 == 0 {
                            next()
                        } else {
                            0x7f00_0000 + (r >> 40) * 8
                        },
                        flops: if r % 7 == 0 {
                            (next() >> (next() % 64)) as u32
                        } else {
                            0
                        },
                        size_bytes: (next() % 9) as u8 * 8 + (r % 2) as u8,
                        kind: if r % 4 == 0 {
                            AccessKind::Write
                        } else {
                            AccessKind::Read
                        },
                    }
                })
                .collect();
            let mut payload = payload_of(&records);
            if case % 3 == 1 && payload.len() > LANE_DIR_BYTES {
                // Corrupt a few payload bytes: both loops must give the same records or error.
                for _ in 0..3 {
                    let at = LANE_DIR_BYTES + (next() as usize) % (payload.len() - LANE_DIR_BYTES);
                    payload[at] = next() as u8;
                }
            }
            for batch in [1usize, 3, 8192] {
                let portable = decode_all(&payload, n, batch, false);
                if case % 3 != 1 {
                    assert_eq!(portable.as_ref().ok(), Some(&records), "case {case}");
                }
                if bmi2_available() {
                    assert_eq!(
                        decode_all(&payload, n, batch, true),
                        portable,
                        "case {case} batch {batch}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_compression_level_reads_back_the_same_records() {
        use crate::source::collect_all;
        let dir = tempfile::tempdir().unwrap();
        let mut lcg = 7u64;
        let stream: Vec<Access> = (0..50_000u64)
            .map(|i| {
                lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let vaddr = if lcg >> 62 == 0 { lcg >> 20 } else { 0x1000 + 8 * i };
                Access::read(i * 3, vaddr, 8)
            })
            .collect();
        let mut sizes = Vec::new();
        for level in [None, Some(1), Some(3), Some(-5)] {
            let path = dir.path().join(format!("{level:?}.nst"));
            let mut w = NativeWriter::create(&path, 1, &serde_json::json!({})).unwrap();
            if let Some(l) = level {
                w.set_compression_level(l).unwrap();
            }
            w.write_all(0, &stream).unwrap();
            sizes.push(w.finish().unwrap().file_bytes);
            let mut r = NativeReader::open(&path).unwrap();
            assert_eq!(collect_all(&mut r).unwrap(), vec![stream.clone()], "level {level:?}");
        }
        // The levels really differ (level 3 codes literals with Huffman, -5 matches least).
        assert!(sizes[2] < sizes[0] && sizes[0] < sizes[3], "{sizes:?}");
    }

    #[test]
    fn zigzag_round_trip() {
        for v in [0i64, 1, -1, i64::MAX, i64::MIN, 12345, -98765] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
