//! What the foreign-trace targets share: the input split into per-thread files, read to the end.

use numasim_trace::{collect_all, ForeignReader, SourceError};
use std::path::PathBuf;

/// The first byte picks how many threads (1-4) the rest is split into; each part is written to
/// a file and `open` reads them all. Reading ends in records or in an error whose text (a byte
/// offset, and for text formats the line) carries no control bytes.
pub fn read_split(data: &[u8], open: fn(&[PathBuf]) -> Result<ForeignReader, SourceError>) {
    let Some((&first, rest)) = data.split_first() else { return };
    let threads = usize::from(first % 4) + 1;
    let dir = tempfile::tempdir().expect("temp dir");
    let per = rest.len() / threads;
    let mut paths = Vec::new();
    for t in 0..threads {
        let end = if t + 1 == threads { rest.len() } else { (t + 1) * per };
        let p = dir.path().join(format!("t{t}.trace"));
        std::fs::write(&p, &rest[t * per..end]).expect("write");
        paths.push(p);
    }
    let error = match open(&paths) {
        Ok(mut r) => collect_all(&mut r).err(),
        Err(e) => Some(e),
    };
    if let Some(e) = error {
        let text = e.to_string();
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
    }
}
