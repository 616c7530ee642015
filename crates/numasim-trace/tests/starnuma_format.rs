//! StarNUMA per-thread traces: round trip with markers skipped, bad lengths and order detected,
//! conversion to native.

use std::path::PathBuf;

use numasim_trace::starnuma::{STARNUMA_ACCESS_SIZE_BYTES, STARNUMA_MARKER};
use numasim_trace::{
    collect_all, convert_starnuma, scan_info, Access, AccessSource, NativeReader, SourceError, StarnumaReader,
    StarnumaWriter,
};

fn starnuma_streams() -> Vec<Vec<Access>> {
    (0..3u64)
        .map(|t| {
            (0..10_000u64)
                .map(|i| {
                    let vaddr = (0x5555_0000_0000 + t * 0x100_0000 + i * 48) & !0xF;
                    let instr = 1 + i * 3 + t;
                    if i % 4 == 0 {
                        Access::write(instr, vaddr, STARNUMA_ACCESS_SIZE_BYTES)
                    } else {
                        Access::read(instr, vaddr, STARNUMA_ACCESS_SIZE_BYTES)
                    }
                })
                .collect()
        })
        .collect()
}

fn write_files(dir: &std::path::Path, streams: &[Vec<Access>]) -> Vec<PathBuf> {
    streams
        .iter()
        .enumerate()
        .map(|(t, s)| {
            let p = dir.join(format!("memtrace_t{t}.out"));
            let mut w = StarnumaWriter::create(&p).unwrap();
            w.write_marker(0).unwrap();
            for (i, a) in s.iter().enumerate() {
                w.write(a).unwrap();
                if i % 1000 == 999 {
                    // Marker carries the instruction count; it must be skipped.
                    w.write_marker(a.instr).unwrap();
                }
            }
            w.finish().unwrap();
            p
        })
        .collect()
}

#[test]
fn round_trip_skips_markers() {
    let dir = tempfile::tempdir().unwrap();
    let streams = starnuma_streams();
    let paths = write_files(dir.path(), &streams);
    // Byte layout: 16-byte LE records, marker first.
    let raw = std::fs::read(&paths[0]).unwrap();
    assert_eq!(raw.len(), (10_000 + 11) * 16);
    assert_eq!(u64::from_le_bytes(raw[0..8].try_into().unwrap()), STARNUMA_MARKER);
    assert_eq!(
        u64::from_le_bytes(raw[16..24].try_into().unwrap()),
        streams[0][0].vaddr | 1
    );
    assert_eq!(u64::from_le_bytes(raw[24..32].try_into().unwrap()), streams[0][0].instr);

    let mut r = StarnumaReader::open(&paths).unwrap();
    assert_eq!(r.threads(), 3);
    assert_eq!(collect_all(&mut r).unwrap(), streams);
    assert_eq!(r.describe()["format"], "starnuma");
}

#[test]
fn only_markers_is_empty_thread() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.out");
    let mut w = StarnumaWriter::create(&p).unwrap();
    for i in 0..10_000 {
        w.write_marker(i).unwrap();
    }
    w.finish().unwrap();
    let mut r = StarnumaReader::open(&[p]).unwrap();
    assert_eq!(collect_all(&mut r).unwrap(), vec![vec![]]);
}

#[test]
fn bad_length_detected_with_offset() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), &starnuma_streams()[..1]);
    let mut raw = std::fs::read(&paths[0]).unwrap();
    let whole = raw.len() as u64;
    raw.extend_from_slice(&[1, 2, 3, 4, 5]);
    std::fs::write(&paths[0], &raw).unwrap();
    match StarnumaReader::open(&paths) {
        Err(SourceError::Corrupt { offset, .. }) => assert_eq!(offset, whole),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn decreasing_instr_detected_with_offset() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.out");
    let mut w = StarnumaWriter::create(&p).unwrap();
    for i in 0..5000u64 {
        w.write(&Access::read(i + 10, i * 64, 8)).unwrap();
    }
    w.write(&Access::read(3, 0, 8)).unwrap(); // record 5000
    w.finish().unwrap();
    let mut r = StarnumaReader::open(&[p]).unwrap();
    match collect_all(&mut r) {
        Err(SourceError::Corrupt { offset, .. }) => assert_eq!(offset, 5000 * 16 + 8),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn non_rw_low_bits_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.out");
    let mut raw = Vec::new();
    for (addr, instr) in [(0x1000u64, 1u64), (0x2004, 2)] {
        raw.extend_from_slice(&addr.to_le_bytes());
        raw.extend_from_slice(&instr.to_le_bytes());
    }
    std::fs::write(&p, &raw).unwrap();
    let mut r = StarnumaReader::open(&[p]).unwrap();
    match collect_all(&mut r) {
        Err(SourceError::Corrupt { offset, .. }) => assert_eq!(offset, 16),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn convert_to_native() {
    let dir = tempfile::tempdir().unwrap();
    let streams = starnuma_streams();
    let paths = write_files(dir.path(), &streams);
    let out = dir.path().join("conv.nst");
    let stats = convert_starnuma(&paths, &out).unwrap();
    assert_eq!(stats.records, 30_000);
    assert_eq!(stats.records_per_thread, vec![10_000; 3]);
    let mut r = NativeReader::open(&out).unwrap();
    assert_eq!(r.header().metadata["converted_from"]["format"], "starnuma");
    assert_eq!(collect_all(&mut r).unwrap(), streams);
    assert_eq!(scan_info(&out).unwrap().records, 30_000);
}
