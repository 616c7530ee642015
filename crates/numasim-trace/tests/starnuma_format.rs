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
    let stats = convert_starnuma(&paths, &out, &Default::default()).unwrap();
    assert_eq!(stats.records, 30_000);
    assert_eq!(stats.records_per_thread, vec![10_000; 3]);
    let mut r = NativeReader::open(&out).unwrap();
    assert_eq!(r.header().metadata["converted_from"]["format"], "starnuma");
    assert_eq!(collect_all(&mut r).unwrap(), streams);
    assert_eq!(scan_info(&out).unwrap().records, 30_000);
}

/// threads come from the file names, never from argument order.
#[test]
fn threads_from_names_in_any_argument_order() {
    let dir = tempfile::tempdir().unwrap();
    // 12 threads so shell glob order (t0, t1, t10, t11, t2, ...) differs from thread order.
    let streams: Vec<Vec<Access>> = (0..12u64)
        .map(|t| (0..50u64).map(|i| Access::read(i + t, (t << 24) + i * 16, 8)).collect())
        .collect();
    let mut paths = write_files(dir.path(), &streams);
    let in_order = collect_all(&mut StarnumaReader::open(&paths).unwrap()).unwrap();
    assert_eq!(in_order, streams);
    paths.sort(); // glob order
    assert_ne!(paths[2].file_name().unwrap(), "memtrace_t2.out");
    assert_eq!(
        collect_all(&mut StarnumaReader::open(&paths).unwrap()).unwrap(),
        streams
    );
    paths.reverse();
    assert_eq!(
        collect_all(&mut StarnumaReader::open(&paths).unwrap()).unwrap(),
        streams
    );
    // Conversion follows the names as well.
    let out = dir.path().join("c.nst");
    convert_starnuma(&paths, &out, &Default::default()).unwrap();
    assert_eq!(collect_all(&mut NativeReader::open(&out).unwrap()).unwrap(), streams);
}

#[test]
fn gap_duplicate_and_unnamed_files_refused() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), &starnuma_streams()); // t0, t1, t2
    let msg = |r: Result<StarnumaReader, SourceError>| r.expect_err("must be refused").to_string();
    let gap = msg(StarnumaReader::open(&[paths[0].clone(), paths[2].clone()]));
    assert!(gap.contains("thread 1") && gap.contains("missing"), "{gap}");
    let dup = msg(StarnumaReader::open(&[
        paths[0].clone(),
        paths[1].clone(),
        paths[0].clone(),
    ]));
    assert!(dup.contains("thread 0 given twice"), "{dup}");
    let other = dir.path().join("data.bin");
    std::fs::copy(&paths[1], &other).unwrap();
    let unnamed = msg(StarnumaReader::open(&[paths[0].clone(), other]));
    assert!(unnamed.contains("memtrace_t<N>.out"), "{unnamed}");
    let mixed = msg(StarnumaReader::open(&[
        paths[0].clone(),
        dir.path().join("mtrace_t1_0.out"),
    ]));
    assert!(mixed.contains("phases"), "{mixed}");
    // Too many threads is refused before any file is opened.
    let many: Vec<PathBuf> = (0..=numasim_trace::starnuma::STARNUMA_MAX_THREADS)
        .map(|t| dir.path().join(format!("memtrace_t{t}.out")))
        .collect();
    assert!(msg(StarnumaReader::open(&many)).contains("at most 4096 threads"));
    // A contiguous range starting above 0 (the artifact's THR_OFFSET_VAL) is threads 0.. in order.
    let sub = dir.path().join("shifted");
    std::fs::create_dir(&sub).unwrap();
    let shifted: Vec<PathBuf> = (0..3)
        .map(|t| {
            let p = sub.join(format!("memtrace_t{}.out", t + 2));
            std::fs::copy(&paths[t], &p).unwrap();
            p
        })
        .collect();
    let mut r = StarnumaReader::open(&[shifted[2].clone(), shifted[0].clone(), shifted[1].clone()]).unwrap();
    assert_eq!(r.files()[0].name_thread, Some(2));
    assert!(collect_all(&mut r).unwrap() == starnuma_streams());
}

/// The artifact's readers ignore a lone trailing 8-byte word; so does numasim.
#[test]
fn artifact_trailing_word_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let streams = starnuma_streams();
    let paths = write_files(dir.path(), &streams);
    for p in &paths {
        let mut raw = std::fs::read(p).unwrap();
        raw.extend_from_slice(&0x7fff_1234_5670u64.to_le_bytes());
        std::fs::write(p, &raw).unwrap();
    }
    let mut r = StarnumaReader::open(&paths).unwrap();
    assert_eq!(r.ignored_trailing_bytes(), 24);
    assert_eq!(collect_all(&mut r).unwrap(), streams);
    let info = numasim_trace::scan_starnuma_info(&paths).unwrap();
    assert_eq!(info.records, 30_000);
    assert_eq!(info.ignored_trailing_bytes, 24);
    // Any other partial record stays an error.
    let mut raw = std::fs::read(&paths[0]).unwrap();
    raw.extend_from_slice(&[0; 4]);
    std::fs::write(&paths[0], &raw).unwrap();
    assert!(matches!(StarnumaReader::open(&paths), Err(SourceError::Corrupt { .. })));
}

/// `trace info` reads StarNUMA files directly and reports the inputs' own sizes.
#[test]
fn info_reports_inputs_and_refuses_empty() {
    let dir = tempfile::tempdir().unwrap();
    let streams = starnuma_streams();
    let paths = write_files(dir.path(), &streams);
    let info = numasim_trace::scan_starnuma_info(&paths).unwrap();
    assert_eq!(info.format, "starnuma");
    assert_eq!(info.threads, 3);
    assert_eq!(info.records, 30_000);
    assert_eq!(info.writes, 3 * 2500);
    assert_eq!(info.markers, 3 * 11);
    let sizes: Vec<u64> = paths.iter().map(|p| std::fs::metadata(p).unwrap().len()).collect();
    assert_eq!(info.files.iter().map(|f| f.bytes).collect::<Vec<_>>(), sizes);
    assert_eq!(info.file_bytes, sizes.iter().sum::<u64>());
    let empty = dir.path().join("memtrace_t0.out");
    std::fs::write(&empty, b"").unwrap();
    let err = numasim_trace::scan_starnuma_info(&[empty]).unwrap_err().to_string();
    assert!(err.contains("no access records"), "{err}");
}
