//! Native trace format: round trips, chunk-size independence, truncation, corrupt headers.

use std::path::Path;

use numasim_trace::native::{MAX_METADATA_BYTES, MAX_THREADS};
use numasim_trace::{
    collect_all, scan_info, Access, AccessKind, AccessSource, NativeReader, NativeWriter, SourceError,
};
use proptest::prelude::*;
use serde_json::json;

fn write_trace(path: &Path, streams: &[Vec<Access>], chunk_records: usize) {
    let mut w = NativeWriter::create(path, streams.len(), &json!({"generator": "test"})).unwrap();
    w.set_chunk_records(chunk_records).unwrap();
    // Interleave threads so chunks of different threads alternate in the file.
    let longest = streams.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for (t, s) in streams.iter().enumerate() {
            if let Some(a) = s.get(i) {
                w.write(t, a).unwrap();
            }
        }
    }
    let summary = w.finish().unwrap();
    assert_eq!(summary.records, streams.iter().map(|s| s.len() as u64).sum::<u64>());
}

fn sample_streams() -> Vec<Vec<Access>> {
    let mut streams = Vec::new();
    for t in 0..3u64 {
        let mut s = Vec::new();
        let mut instr = 100 * t;
        for i in 0..40u64 {
            instr += i % 5;
            let vaddr = 0x7fff_0000_0000u64.wrapping_add(i * 64 * (t + 1)) ^ (i << 20);
            let mut a = if i % 3 == 0 {
                Access::write(instr, vaddr, (i % 256) as u8)
            } else {
                Access::read(instr, vaddr, 8)
            };
            a.flops = (i as u32) * 1000 * (i as u32 % 2);
            s.push(a);
        }
        streams.push(s);
    }
    streams
}

#[test]
fn round_trip_small() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nst");
    let streams = sample_streams();
    write_trace(&path, &streams, 7);
    let mut r = NativeReader::open(&path).unwrap();
    assert_eq!(r.threads(), 3);
    assert_eq!(r.header().format_version, numasim_trace::native::FORMAT_VERSION);
    assert_eq!(r.header().metadata, json!({"generator": "test"}));
    assert_eq!(collect_all(&mut r).unwrap(), streams);
}

#[test]
fn threads_read_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nst");
    let streams = sample_streams();
    write_trace(&path, &streams, 3);
    let mut r = NativeReader::open(&path).unwrap();
    let mut got = vec![Vec::new(); 3];
    let mut buf = Vec::new();
    // Round-robin, one batch per thread at a time, in reverse order.
    let mut live = [true; 3];
    while live.iter().any(|&l| l) {
        for t in (0..3).rev() {
            if !live[t] {
                continue;
            }
            r.next_batch(t, &mut buf).unwrap();
            if buf.is_empty() {
                live[t] = false;
            }
            got[t].extend_from_slice(&buf);
        }
    }
    assert_eq!(got, streams);
}

#[test]
fn all_sizes_round_trip_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nst");
    let s: Vec<Access> = (0..=255u32)
        .map(|i| Access {
            instr: i as u64,
            vaddr: u64::MAX - i as u64 * 0x1000,
            flops: if i % 2 == 0 { u32::MAX - i } else { 0 },
            size_bytes: i as u8,
            kind: if i % 2 == 0 {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
        })
        .collect();
    write_trace(&path, std::slice::from_ref(&s), 100);
    let mut r = NativeReader::open(&path).unwrap();
    assert_eq!(collect_all(&mut r).unwrap(), vec![s]);
}

#[test]
fn extreme_values_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nst");
    let s = vec![
        Access::read(0, 0, 1),
        Access::read(0, u64::MAX, 1),
        Access::write(u64::MAX / 2, 0, 64),
        Access::write(u64::MAX, 1 << 63, 63),
        Access::write(u64::MAX, (1 << 63) - 1, 0),
    ];
    write_trace(&path, &[s.clone(), vec![]], 2);
    let mut r = NativeReader::open(&path).unwrap();
    assert_eq!(collect_all(&mut r).unwrap(), vec![s, vec![]]);
}

#[test]
fn writer_rejects_decreasing_instr_and_bad_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = NativeWriter::create(dir.path().join("t.nst"), 2, &json!(null)).unwrap();
    w.write(0, &Access::read(10, 0, 8)).unwrap();
    w.write(0, &Access::read(10, 0, 8)).unwrap();
    assert!(matches!(
        w.write(0, &Access::read(9, 0, 8)),
        Err(SourceError::Invalid(_))
    ));
    // Across a chunk boundary too.
    w.set_chunk_records(1).unwrap();
    w.write(1, &Access::read(50, 0, 8)).unwrap();
    assert!(matches!(
        w.write(1, &Access::read(49, 0, 8)),
        Err(SourceError::Invalid(_))
    ));
    assert!(matches!(
        w.write(2, &Access::read(99, 0, 8)),
        Err(SourceError::Invalid(_))
    ));
    assert!(w.set_chunk_records(0).is_err());
    assert!(NativeWriter::create(dir.path().join("u.nst"), 5000, &json!(null)).is_err());
}

#[test]
fn scan_info_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nst");
    let streams = sample_streams();
    write_trace(&path, &streams, 16);
    let info = scan_info(&path).unwrap();
    assert_eq!(info.threads, 3);
    assert_eq!(info.records, 120);
    let writes: u64 = streams.iter().flatten().filter(|a| a.is_write()).count() as u64;
    assert_eq!(info.writes, writes);
    assert_eq!(info.reads, 120 - writes);
    assert_eq!(info.file_bytes, std::fs::metadata(&path).unwrap().len());
    for (t, s) in streams.iter().enumerate() {
        let ti = &info.per_thread[t];
        assert_eq!(ti.records, s.len() as u64);
        assert_eq!(ti.first_instr, Some(s[0].instr));
        assert_eq!(ti.last_instr, Some(s.last().unwrap().instr));
        let pages: std::collections::HashSet<u64> = s.iter().map(|a| a.vaddr >> 12).collect();
        assert_eq!(ti.footprint_pages_4k, pages.len() as u64);
        assert_eq!(ti.accessed_bytes, s.iter().map(|a| a.size_bytes as u64).sum::<u64>());
    }
    let all: std::collections::HashSet<u64> = streams.iter().flatten().map(|a| a.vaddr >> 12).collect();
    assert_eq!(info.footprint_pages_4k, all.len() as u64);
    assert_eq!(info.chunks, 9); // 40 records per thread at 16 per chunk: 3 chunks each
                                // Serializable for `trace info --json`.
    let v = serde_json::to_value(&info).unwrap();
    assert_eq!(v["records"], 120);
}

fn expect_corrupt(res: Result<(), SourceError>, len: u64, what: &str) -> u64 {
    match res {
        Err(SourceError::Corrupt { offset, .. }) => {
            assert!(offset <= len, "{what}: offset {offset} beyond file length {len}");
            offset
        }
        other => panic!("{what}: expected Corrupt, got {other:?}"),
    }
}

fn read_all(path: &Path, threads_order: &[usize]) -> Result<(), SourceError> {
    let mut r = NativeReader::open(path)?;
    let mut buf = Vec::new();
    for &t in threads_order {
        loop {
            r.next_batch(t, &mut buf)?;
            if buf.is_empty() {
                break;
            }
        }
    }
    Ok(())
}

#[test]
fn truncation_at_every_offset_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.nst");
    write_trace(&full, &sample_streams(), 13);
    let bytes = std::fs::read(&full).unwrap();
    read_all(&full, &[0, 1, 2]).unwrap();
    let cut = dir.path().join("cut.nst");
    for len in 0..bytes.len() {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        // Every thread on its own must notice, whichever it is.
        for t in 0..3 {
            expect_corrupt(read_all(&cut, &[t]), len as u64, &format!("cut at {len}, thread {t}"));
        }
        expect_corrupt(
            scan_info(&cut).map(|_| ()),
            len as u64,
            &format!("scan_info cut at {len}"),
        );
    }
    // Trailing garbage is corrupt too.
    let mut longer = bytes.clone();
    longer.push(0);
    std::fs::write(&cut, &longer).unwrap();
    expect_corrupt(read_all(&cut, &[0]), longer.len() as u64, "trailing byte");
}

#[test]
fn bit_flips_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.nst");
    write_trace(&full, &sample_streams(), 13);
    let bytes = std::fs::read(&full).unwrap();
    let bad = dir.path().join("bad.nst");
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            std::fs::write(&bad, &b).unwrap();
            // Must not panic; metadata JSON flips may legitimately still parse.
            let _ = read_all(&bad, &[0, 1, 2]);
            let _ = scan_info(&bad);
        }
    }
}

/// Writes a file with a valid-looking header whose fields are replaced.
fn raw_header(version: u32, threads: u32, meta_len: u32, meta: &[u8]) -> Vec<u8> {
    let mut b = b"NUMASIMT".to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&threads.to_le_bytes());
    b.extend_from_slice(&meta_len.to_le_bytes());
    b.extend_from_slice(meta);
    b
}

#[test]
fn corrupt_header_values_rejected_without_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("h.nst");
    let open_err = |bytes: &[u8]| {
        std::fs::write(&p, bytes).unwrap();
        match NativeReader::open(&p) {
            Err(SourceError::Corrupt { offset, message, .. }) => (offset, message),
            other => panic!("expected Corrupt, got {other:?}"),
        }
    };
    assert_eq!(open_err(&raw_header(1, u32::MAX, 4, b"null")).0, 12);
    assert_eq!(open_err(&raw_header(1, MAX_THREADS + 1, 4, b"null")).0, 12);
    assert_eq!(open_err(&raw_header(1, 2, u32::MAX, b"null")).0, 16);
    assert_eq!(open_err(&raw_header(1, 2, MAX_METADATA_BYTES + 1, b"null")).0, 16);
    assert_eq!(open_err(&raw_header(99, 2, 4, b"null")).0, 8);
    assert_eq!(open_err(b"NOTATRACE-at-all-nope").0, 0);
    assert_eq!(open_err(&raw_header(1, 2, 4, b"nul!")).0, 20);

    // Chunk header fields: huge record count, huge lengths, wrong thread.
    let chunk = |thread: u32, records: u32, clen: u32, ulen: u32| {
        let mut b = raw_header(1, 2, 4, b"null");
        b.extend_from_slice(b"CHNK");
        for v in [thread, records, clen, ulen] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&[0u8; 64]);
        b
    };
    for (bytes, want_offset) in [
        (chunk(0, u32::MAX, 10, 60), 24 + 8),
        (chunk(0, 10, u32::MAX, 60), 24 + 12),
        (chunk(0, 10, 10, u32::MAX), 24 + 16),
        (chunk(0, 10, 10, 5), 24 + 16),
        (chunk(7, 10, 10, 60), 24 + 4),
        (chunk(0, 10, 1000, 60), 24 + 20 + 64),
    ] {
        std::fs::write(&p, &bytes).unwrap();
        let off = expect_corrupt(read_all(&p, &[0]), bytes.len() as u64, "chunk header");
        assert_eq!(off, want_offset as u64);
    }
}

fn arb_stream(max_len: usize) -> impl Strategy<Value = Vec<Access>> {
    prop::collection::vec(
        (
            prop_oneof![0u64..4, 0u64..1000, any::<u32>().prop_map(u64::from)],
            prop_oneof![
                (-64i64..64).prop_map(|d| d * 8),
                any::<i32>().prop_map(i64::from),
                any::<i64>()
            ],
            prop_oneof![Just(0u32), any::<u32>()],
            any::<u8>(),
            any::<bool>(),
        ),
        0..max_len,
    )
    .prop_map(|steps| {
        let (mut instr, mut vaddr) = (0u64, 0x1000_0000u64);
        steps
            .into_iter()
            .map(|(di, dv, flops, size_bytes, w)| {
                instr = instr.saturating_add(di);
                vaddr = vaddr.wrapping_add(dv as u64);
                let kind = if w { AccessKind::Write } else { AccessKind::Read };
                Access {
                    instr,
                    vaddr,
                    flops,
                    size_bytes,
                    kind,
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_independent_of_chunk_size(
        streams in prop::collection::vec(arb_stream(300), 0..5),
        chunk_a in 1usize..50,
        chunk_b in 50usize..500,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let pa = dir.path().join("a.nst");
        let pb = dir.path().join("b.nst");
        write_trace(&pa, &streams, chunk_a);
        write_trace(&pb, &streams, chunk_b);
        let ga = collect_all(&mut NativeReader::open(&pa).unwrap()).unwrap();
        let gb = collect_all(&mut NativeReader::open(&pb).unwrap()).unwrap();
        prop_assert_eq!(&ga, &streams);
        prop_assert_eq!(&gb, &streams);
        let ia = scan_info(&pa).unwrap();
        let ib = scan_info(&pb).unwrap();
        prop_assert_eq!(ia.records, ib.records);
        prop_assert_eq!(ia.footprint_pages_4k, ib.footprint_pages_4k);
        prop_assert_eq!(&ia.per_thread, &ib.per_thread);
    }
}

/// Hand-built chunk whose lanes are each fine but whose records decrease across lanes.
#[test]
fn decreasing_instr_across_lanes_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("lanes.nst");
    // Records: lane 0 gets instr 10, lane 1 gets instr 5 (decreasing in record order).
    // Each record: varint instr, varint zigzag vaddr (0), flags (size code 8 << 2).
    let lanes: [Vec<u8>; 4] = [vec![10, 0, 8 << 2], vec![5, 0, 8 << 2], vec![], vec![]];
    let mut payload = Vec::new();
    for l in &lanes {
        payload.extend_from_slice(&(l.len() as u32).to_le_bytes());
    }
    for l in &lanes {
        payload.extend_from_slice(l);
    }
    // The format requires the frame's content checksum.
    let mut compressor = zstd::bulk::Compressor::new(1).unwrap();
    compressor.include_checksum(true).unwrap();
    let comp = compressor.compress(&payload).unwrap();
    let mut b = raw_header(1, 1, 4, b"null");
    let chunk_offset = b.len() as u64;
    b.extend_from_slice(b"CHNK");
    for v in [0u32, 2, comp.len() as u32, payload.len() as u32] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&comp);
    b.extend_from_slice(b"TEND");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    match read_all(&p, &[0]) {
        Err(SourceError::Corrupt { offset, message, .. }) => {
            assert_eq!(offset, chunk_offset);
            assert!(message.contains("record 1"), "{message}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert!(matches!(scan_info(&p), Err(SourceError::Corrupt { .. })));
}

/// Rewrites the first chunk's zstd frame of a one-chunk trace with `reframe(payload)`.
fn rewrite_first_frame(path: &Path, reframe: impl Fn(&[u8]) -> Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) as usize;
    let chunk = 20 + u32_at(16); // magic, version, threads, metadata length, metadata
    assert_eq!(&bytes[chunk..chunk + 4], b"CHNK");
    let clen = u32_at(chunk + 12);
    let frame = &bytes[chunk + 20..chunk + 20 + clen];
    let payload = zstd::bulk::decompress(frame, 1 << 26).unwrap();
    let new_frame = reframe(&payload);
    let mut out = bytes[..chunk + 12].to_vec();
    out.extend_from_slice(&(new_frame.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes[chunk + 16..chunk + 20]);
    out.extend_from_slice(&new_frame);
    out.extend_from_slice(&bytes[chunk + 20 + clen..]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn chunks_without_a_zstd_checksum_are_refused() {
    // Regression: the README says frames carry a checksum; frames without one were
    // accepted, so corrupted compressed bytes could decode into other records unnoticed.
    let dir = tempfile::tempdir().unwrap();
    let streams = vec![(0..50u64).map(|i| Access::read(i, 64 * i, 8)).collect::<Vec<_>>()];
    type Reframe = fn(&[u8]) -> Vec<u8>;
    let cases: [(&str, Reframe); 3] = [
        ("no checksum", |p| {
            let mut c = zstd::bulk::Compressor::new(1).unwrap();
            c.include_checksum(false).unwrap();
            c.compress(p).unwrap()
        }),
        ("trailing bytes", |p| {
            let mut c = zstd::bulk::Compressor::new(1).unwrap();
            c.include_checksum(true).unwrap();
            let mut f = c.compress(p).unwrap();
            f.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]); // an empty skippable frame
            f
        }),
        ("intact", |p| {
            let mut c = zstd::bulk::Compressor::new(1).unwrap();
            c.include_checksum(true).unwrap();
            c.compress(p).unwrap()
        }),
    ];
    for (name, reframe) in cases {
        let path = dir.path().join(format!("{}.nst", name.replace(' ', "_")));
        write_trace(&path, &streams, 1024);
        rewrite_first_frame(&path, reframe);
        let result = NativeReader::open(&path).and_then(|mut r| collect_all(&mut r));
        if name == "intact" {
            assert_eq!(result.unwrap()[0].len(), 50);
        } else {
            let e = result.expect_err(name);
            assert!(
                matches!(e, SourceError::Corrupt { offset, .. } if offset > 20),
                "{name}: {e}"
            );
        }
    }
}

/// Regression: chunk headers are read once, not once per thread.
#[test]
fn chunk_headers_read_once_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.nst");
    let threads = 64;
    let streams: Vec<Vec<Access>> = (0..threads as u64)
        .map(|t| (0..50u64).map(|i| Access::read(i, (t << 20) + i * 64, 8)).collect())
        .collect();
    write_trace(&path, &streams, 10); // 5 chunks per thread, interleaved in the file
    let info = scan_info(&path).unwrap();
    assert_eq!(info.chunks, 5 * threads as u64);
    let mut r = NativeReader::open(&path).unwrap();
    // Thread by thread: the worst order for a per-thread scan (each re-reads every header).
    assert_eq!(collect_all(&mut r).unwrap(), streams);
    assert_eq!(
        r.chunk_headers_read(),
        info.chunks + 1,
        "every chunk header and the trailer, once"
    );
    assert_eq!(r.held_buffer_bytes(), 0, "finished threads release their buffers");
}

/// Regression: the reader's chunk buffers are capped in total, with a clear error.
#[test]
fn reader_buffer_memory_is_capped_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.nst");
    let streams: Vec<Vec<Access>> = (0..16u64)
        .map(|t| {
            (0..4000u64)
                .map(|i| Access::read(i, (t << 30) ^ (i * 0x9E37_79B9), 8))
                .collect()
        })
        .collect();
    write_trace(&path, &streams, 4000);
    let mut r = NativeReader::open(&path).unwrap();
    r.set_buffer_limit_bytes(100_000); // ~ 7 threads' chunks
    let mut buf = Vec::new();
    let err = (0..16)
        .try_for_each(|t| r.next_batch(t, &mut buf))
        .expect_err("16 chunks cannot all be held in 100 kB");
    let msg = err.to_string();
    assert!(msg.contains("over the reader's limit of 100000 bytes"), "{msg}");
    assert!(msg.contains("byte offset"), "{msg}");
    assert!(r.held_buffer_bytes() <= 100_000);
    // Within the default cap the same trace reads completely.
    let mut r = NativeReader::open(&path).unwrap();
    assert_eq!(collect_all(&mut r).unwrap(), streams);
}

/// The writer sizes chunks by bytes too, so `threads × chunk payload` stays bounded.
#[test]
fn writer_caps_chunk_payload_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("capped.nst");
    let mut w = NativeWriter::create(&path, 2, &json!({})).unwrap();
    assert_eq!(
        w.max_chunk_payload_bytes(),
        numasim_trace::native::MAX_CHUNK_UNCOMPRESSED_BYTES as usize,
        "two threads: the per-chunk cap"
    );
    w.set_max_chunk_payload_bytes(4096);
    let stream: Vec<Access> = (0..20_000u64)
        .map(|i| Access::read(i * 1000, i.wrapping_mul(0x9E37_79B9_7F4A_7C15), 8))
        .collect();
    w.write_all(0, &stream).unwrap();
    w.write_all(1, &stream[..10]).unwrap();
    w.finish().unwrap();
    let info = scan_info(&path).unwrap();
    assert!(
        info.chunks >= 20_000 * 12 / 4096,
        "split by bytes: {} chunks",
        info.chunks
    );
    assert!(info.uncompressed_payload_bytes <= info.chunks * 4096);
    let mut r = NativeReader::open(&path).unwrap();
    assert_eq!(collect_all(&mut r).unwrap()[0], stream);
    let many = NativeWriter::create(dir.path().join("m.nst"), 4096, &json!({})).unwrap();
    assert!(
        many.max_chunk_payload_bytes() as u64 * 4096 <= numasim_trace::native::DEFAULT_READER_BUFFER_BYTES / 2,
        "4096 threads' chunks fit half the reader's cap"
    );
}
