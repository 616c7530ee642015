//! `numasim trace info`: one streaming pass over a trace, summarised.
//!
//! Both formats are read directly (a StarNUMA trace is never converted first), through one
//! accumulator, so the figures mean the same for both. Memory grows with the footprint (a set
//! of page numbers per thread), never with the trace length.

use std::collections::HashSet;
use std::path::PathBuf;

use serde::Serialize;

use crate::record::Access;
use crate::source::{AccessSource, SourceError};
use crate::starnuma::{StarnumaFile, StarnumaReader};

/// Per-thread summary in [`TraceInfo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct ThreadInfo {
    pub thread: usize,
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    pub first_instr: Option<u64>,
    pub last_instr: Option<u64>,
    pub flops: u64,
    /// Sum of `size_bytes` over the thread's accesses.
    pub accessed_bytes: u64,
    /// Distinct 4 KiB virtual pages the thread touched.
    pub footprint_pages_4k: u64,
}

/// One input file and its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    pub path: String,
    pub bytes: u64,
    /// Thread whose accesses the file holds (StarNUMA: one file per thread), if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<usize>,
}

/// Summary of a whole trace, from one pass over it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceInfo {
    /// The input, or the inputs joined with ", ".
    pub path: String,
    /// `numasim-native` or `starnuma`.
    pub format: String,
    /// Native format version (0 for StarNUMA, which has none).
    pub format_version: u32,
    pub threads: usize,
    pub metadata: serde_json::Value,
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    pub flops: u64,
    /// Sum of `size_bytes` over all accesses.
    pub accessed_bytes: u64,
    /// Distinct 4 KiB virtual pages touched by any thread.
    pub footprint_pages_4k: u64,
    /// Native chunks (0 for StarNUMA).
    pub chunks: u64,
    /// Total size of the input files.
    pub file_bytes: u64,
    /// Every input file with its size.
    pub files: Vec<InputFile>,
    /// Sum of the chunks' compressed payloads (native only).
    pub compressed_payload_bytes: u64,
    /// Sum of the chunks' decompressed (varint-encoded) payloads (native only).
    pub uncompressed_payload_bytes: u64,
    /// StarNUMA phase-marker records skipped.
    pub markers: u64,
    /// Bytes ignored at the ends of StarNUMA files (the artifact's lone trailing words).
    pub ignored_trailing_bytes: u64,
    pub per_thread: Vec<ThreadInfo>,
}

/// Per-thread counters fed batch by batch.
pub(crate) struct Accumulator {
    pub per_thread: Vec<ThreadInfo>,
    pages: Vec<HashSet<u64>>,
    last_page: Vec<u64>,
}

impl Accumulator {
    pub fn new(threads: usize) -> Self {
        Accumulator {
            per_thread: (0..threads)
                .map(|t| ThreadInfo {
                    thread: t,
                    ..Default::default()
                })
                .collect(),
            pages: vec![HashSet::new(); threads],
            last_page: vec![u64::MAX; threads],
        }
    }

    /// Instruction count of the last access of `thread` seen so far (0 before any).
    pub fn last_instr(&self, thread: usize) -> u64 {
        self.per_thread[thread].last_instr.unwrap_or(0)
    }

    pub fn add(&mut self, thread: usize, batch: &[Access]) {
        let (Some(first), Some(last)) = (batch.first(), batch.last()) else {
            return;
        };
        let ti = &mut self.per_thread[thread];
        ti.first_instr.get_or_insert(first.instr);
        ti.last_instr = Some(last.instr);
        let set = &mut self.pages[thread];
        let mut last_page = self.last_page[thread];
        for a in batch {
            let w = a.is_write() as u64;
            ti.writes += w;
            ti.reads += 1 - w;
            ti.flops += a.flops as u64;
            ti.accessed_bytes += a.size_bytes as u64;
            // Consecutive accesses mostly stay on a page: skip the set for repeats.
            let page = a.vaddr >> 12;
            if page != last_page {
                set.insert(page);
                last_page = page;
            }
        }
        self.last_page[thread] = last_page;
        ti.records += batch.len() as u64;
    }

    /// Fills the totals of `info` and its per-thread list.
    pub fn finish(mut self, info: &mut TraceInfo) {
        for (t, ti) in self.per_thread.iter_mut().enumerate() {
            ti.footprint_pages_4k = self.pages[t].len() as u64;
            info.records += ti.records;
            info.reads += ti.reads;
            info.writes += ti.writes;
            info.flops += ti.flops;
            info.accessed_bytes += ti.accessed_bytes;
        }
        let mut all = self.pages.pop().unwrap_or_default();
        for s in self.pages {
            all.extend(s);
        }
        info.footprint_pages_4k = all.len() as u64;
        info.per_thread = self.per_thread;
    }
}

/// Summarises StarNUMA per-thread files (thread order from their names), reading them once,
/// directly. A trace with no access at all is refused: it is almost always a wrong path or
/// an empty file, and a summary of nothing would hide that.
pub fn scan_starnuma_info(paths: &[PathBuf]) -> Result<TraceInfo, SourceError> {
    let mut src = StarnumaReader::open(paths)?;
    let files: Vec<StarnumaFile> = src.files().to_vec();
    let threads = src.threads();
    let mut acc = Accumulator::new(threads);
    let mut batch = Vec::new();
    for t in 0..threads {
        loop {
            src.next_batch(t, &mut batch)?;
            if batch.is_empty() {
                break;
            }
            acc.add(t, &batch);
        }
    }
    let joined = files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut info = TraceInfo {
        path: joined.clone(),
        format: "starnuma".into(),
        format_version: 0,
        threads,
        metadata: serde_json::Value::Null,
        records: 0,
        reads: 0,
        writes: 0,
        flops: 0,
        accessed_bytes: 0,
        footprint_pages_4k: 0,
        chunks: 0,
        file_bytes: src.input_bytes(),
        files: files
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
        markers: src.markers_skipped(),
        ignored_trailing_bytes: src.ignored_trailing_bytes(),
        per_thread: Vec::new(),
    };
    acc.finish(&mut info);
    if info.records == 0 {
        return Err(SourceError::Invalid(format!(
            "{joined}: no access records ({} bytes{}); not a StarNUMA trace, or an empty one",
            info.file_bytes,
            if info.markers > 0 {
                format!(", {} phase markers only", info.markers)
            } else {
                String::new()
            }
        )));
    }
    Ok(info)
}
