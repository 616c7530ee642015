//! Reader for ChampSim's binary instruction traces (`input_instr`, the format of the DPC-3 /
//! SPEC traces, usually `.champsimtrace.xz`).
//!
//! Each record is one retired instruction, 64 bytes, little-endian, no padding:
//! ```text
//! ip u64 | is_branch u8 | branch_taken u8 | destination_registers u8 × 2 | source_registers u8 × 4
//! | destination_memory u64 × 2 | source_memory u64 × 4
//! ```
//! A non-zero `source_memory` entry is a load, a non-zero `destination_memory` entry a store.
//! The instruction count of record `i` (0-based) is `i + 1`; its loads come before its stores.
//! The format has no access size, so every access gets [`CHAMPSIM_ACCESS_SIZE_BYTES`].
//!
//! A ChampSim trace is one thread; several files make a multi-threaded trace, one file per
//! thread in argument order (as ChampSim's multi-core runs take one trace per core).
//! Any 64 bytes are a syntactically possible record, so garbage is caught by the flag bytes
//! (`is_branch` and `branch_taken` must be 0 or 1) and by a trailing partial record; both are
//! [`SourceError::Corrupt`] naming the byte offset (in the decompressed stream for .xz/.gz).

use std::path::PathBuf;

use crate::foreign::{ForeignReader, Input, ThreadStream};
use crate::record::Access;
use crate::source::SourceError;

/// Bytes per ChampSim `input_instr` record.
pub const CHAMPSIM_RECORD_BYTES: usize = 64;
/// Access size given to every ChampSim access (the format records none).
pub const CHAMPSIM_ACCESS_SIZE_BYTES: u8 = 8;
/// Records decoded per read.
const RECORDS_PER_READ: usize = 1024;

struct ChampsimThread {
    input: Input,
    raw: Vec<u8>,
    instr: u64,
}

impl ThreadStream for ChampsimThread {
    fn fill(&mut self, out: &mut Vec<Access>, want: usize) -> Result<bool, SourceError> {
        while out.len() < want {
            let start = self.input.offset_bytes;
            let got = self.input.read_record(&mut self.raw)?;
            let whole = got - got % CHAMPSIM_RECORD_BYTES;
            for (i, rec) in self.raw[..whole].chunks_exact(CHAMPSIM_RECORD_BYTES).enumerate() {
                let (is_branch, taken) = (rec[8], rec[9]);
                if is_branch > 1 || taken > 1 {
                    out.clear();
                    return Err(self.input.corrupt(
                        start + (i * CHAMPSIM_RECORD_BYTES) as u64 + 8,
                        format!(
                            "not a ChampSim input_instr record: is_branch = {is_branch}, branch_taken = {taken} \
                             (each must be 0 or 1)"
                        ),
                    ));
                }
                self.instr += 1;
                let word = |at: usize| u64::from_le_bytes(rec[at..at + 8].try_into().unwrap());
                for k in 0..4 {
                    let a = word(32 + 8 * k);
                    if a != 0 {
                        out.push(Access::read(self.instr, a, CHAMPSIM_ACCESS_SIZE_BYTES));
                    }
                }
                for k in 0..2 {
                    let a = word(16 + 8 * k);
                    if a != 0 {
                        out.push(Access::write(self.instr, a, CHAMPSIM_ACCESS_SIZE_BYTES));
                    }
                }
            }
            if got != whole {
                out.clear();
                return Err(self.input.corrupt(
                    start + whole as u64,
                    format!(
                        "truncated record: {} of {CHAMPSIM_RECORD_BYTES} bytes at the end",
                        got - whole
                    ),
                ));
            }
            if got < self.raw.len() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Opens ChampSim traces (plain, .xz or .gz, detected from content), one file per thread.
pub fn open_champsim(paths: &[PathBuf]) -> Result<ForeignReader, SourceError> {
    ForeignReader::open_with(
        "champsim",
        paths,
        serde_json::json!({ "access_size_bytes": CHAMPSIM_ACCESS_SIZE_BYTES }),
        |input| {
            Box::new(ChampsimThread {
                input,
                raw: vec![0; RECORDS_PER_READ * CHAMPSIM_RECORD_BYTES],
                instr: 0,
            })
        },
    )
}

/// Encodes one `input_instr` record (tests and tools that write ChampSim traces).
pub fn encode_champsim_record(ip: u64, is_branch: bool, taken: bool, loads: &[u64], stores: &[u64]) -> [u8; 64] {
    let mut r = [0u8; CHAMPSIM_RECORD_BYTES];
    r[0..8].copy_from_slice(&ip.to_le_bytes());
    r[8] = is_branch as u8;
    r[9] = taken as u8;
    for (k, a) in stores.iter().take(2).enumerate() {
        r[16 + 8 * k..24 + 8 * k].copy_from_slice(&a.to_le_bytes());
    }
    for (k, a) in loads.iter().take(4).enumerate() {
        r[32 + 8 * k..40 + 8 * k].copy_from_slice(&a.to_le_bytes());
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeReader;
    use crate::source::{collect_all, AccessSource};
    use std::io::Write;

    fn sample(n: u64) -> (Vec<u8>, Vec<Access>) {
        let mut bytes = Vec::new();
        let mut want = Vec::new();
        for i in 0..n {
            let instr = i + 1;
            let (loads, stores): (Vec<u64>, Vec<u64>) = match i % 4 {
                0 => (vec![0x1000 + 8 * i], vec![]),
                1 => (vec![], vec![0x8000_0000 + i]),
                2 => (vec![0x10 + i, 0x20 + i], vec![0x30 + i]),
                _ => (vec![], vec![]), // no memory operand: counts as an instruction only
            };
            bytes.extend_from_slice(&encode_champsim_record(
                0x400000 + 4 * i,
                i % 7 == 0,
                i % 14 == 0,
                &loads,
                &stores,
            ));
            want.extend(loads.iter().map(|&a| Access::read(instr, a, 8)));
            want.extend(stores.iter().map(|&a| Access::write(instr, a, 8)));
        }
        (bytes, want)
    }

    #[test]
    fn plain_xz_and_gz_champsim_traces_convert_to_the_same_native_accesses() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, want) = sample(5000); // spans several reads of 1024 records
        let plain = dir.path().join("t.champsimtrace");
        std::fs::write(&plain, &bytes).unwrap();
        let xz = dir.path().join("t.champsimtrace.xz");
        let mut e = xz2::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 6);
        e.write_all(&bytes).unwrap();
        e.finish().unwrap();
        let gz = dir.path().join("t.champsimtrace.gz");
        let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
        e.write_all(&bytes).unwrap();
        e.finish().unwrap();
        // Two threads: the plain file as thread 0, the xz file as thread 1.
        let mut src = open_champsim(&[plain.clone(), xz.clone()]).unwrap();
        let out = dir.path().join("out.trace");
        let stats = crate::foreign::convert_foreign(&mut src, &out, &Default::default()).unwrap();
        assert_eq!(stats.records, 2 * want.len() as u64);
        let got = collect_all(&mut NativeReader::open(&out).unwrap()).unwrap();
        assert_eq!(got, vec![want.clone(), want.clone()]);
        let got = collect_all(&mut open_champsim(&[gz]).unwrap()).unwrap();
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn a_truncated_record_is_corrupt_at_its_offset_in_plain_and_xz_files() {
        let dir = tempfile::tempdir().unwrap();
        let (mut bytes, _) = sample(3000);
        bytes.truncate(2999 * 64 + 10);
        let plain = dir.path().join("cut");
        std::fs::write(&plain, &bytes).unwrap();
        let xz = dir.path().join("cut.xz");
        let mut e = xz2::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 1);
        e.write_all(&bytes).unwrap();
        e.finish().unwrap();
        for p in [plain, xz] {
            let e = collect_all(&mut open_champsim(std::slice::from_ref(&p)).unwrap())
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("byte offset {}", 2999 * 64)), "{e}");
            assert!(e.contains("truncated record: 10 of 64"), "{e}");
        }
    }

    #[test]
    fn garbage_is_refused_by_its_flag_bytes_and_a_cut_xz_stream_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (mut bytes, _) = sample(100);
        bytes[37 * 64 + 8] = 0x5a; // is_branch of record 37
        let p = dir.path().join("garbage");
        std::fs::write(&p, &bytes).unwrap();
        let mut src = open_champsim(std::slice::from_ref(&p)).unwrap();
        let mut batch = Vec::new();
        let e = src.next_batch(0, &mut batch).unwrap_err().to_string();
        assert!(
            e.contains(&format!("byte offset {}", 37 * 64 + 8)) && e.contains("is_branch = 90"),
            "{e}"
        );
        // Random bytes: refused, never a panic.
        let noise: Vec<u8> = (0..10_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        std::fs::write(&p, &noise).unwrap();
        assert!(collect_all(&mut open_champsim(std::slice::from_ref(&p)).unwrap()).is_err());
        // An xz stream cut in half.
        let (bytes, _) = sample(4000);
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
        e.write_all(&bytes).unwrap();
        let mut xz = e.finish().unwrap();
        xz.truncate(xz.len() / 2);
        std::fs::write(&p, &xz).unwrap();
        let e = collect_all(&mut open_champsim(&[p]).unwrap()).unwrap_err();
        assert!(matches!(e, SourceError::Corrupt { .. }), "{e}");
    }
}
