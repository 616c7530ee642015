//! numasim-output: how every numasim command writes, so that nothing numasim did not write is
//! ever replaced or deleted.
//!
//! * [`file`]: one output file (`-o report.html`): through a temporary file renamed into place,
//!   or directly into a device or FIFO; never replacing a link, a special file, an input or a
//!   file of a directory numasim manages.
//! * [`results_dir`]: a directory replaced whole (`run -o`, `trace convert --to starnuma -o`),
//!   appearing only when complete and replacing only what carries numasim's marker.
//! * [`managed_dir`]: a directory numasim adds files to (a sweep's root, `repro -o`), writing
//!   only files it listed in its marker.
//! * [`stat`]: statistics declared once (name, unit, meaning, how counts combine).
//! * [`signals`]: what an interrupted process undoes (partial directories, temporary files,
//!   child process groups).

pub mod file;
pub mod managed_dir;
pub mod results_dir;
pub mod signals;
pub mod stat;

pub use file::{plan, write_file, OutputFile, OutputPlan, Special};
pub use managed_dir::ManagedDir;
pub use results_dir::ResultsDir;

use std::io;
use std::path::Path;

/// An I/O error that names the path it concerns.
pub(crate) fn at(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

/// A refusal (the message says what and why).
pub(crate) fn refuse(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}
