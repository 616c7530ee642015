//! Writing one output file (`report -o`, `plot -o`, `sweep collect -o`, `trace convert -o`, ...).
//!
//! What `-o PATH` does, decided before anything is opened for writing:
//!
//! | PATH is                                   | numasim                                          |
//! |-------------------------------------------|--------------------------------------------------|
//! | absent, or a regular file                 | writes `.NAME.tmp-PID-N` beside it, renames it over PATH when complete (the file's permissions kept) |
//! | a symbolic link                           | follows it: the file it points to is written as above, the link stays |
//! | a link through `/dev/fd` or `/proc/*/fd` (`/dev/stdout`) | writes into it directly (appending)  |
//! | a character device or a FIFO (`/dev/null`, `mkfifo`) | writes into it directly, when the format allows a stream; refused otherwise |
//! | a block device, a socket, a directory, a dangling link | refused                                |
//! | the same file as one of the command's inputs | refused                                       |
//! | a file in a results directory (`.numasim-results`), or one numasim lists in a directory it manages | refused |
//!
//! Paths are canonicalised first, so `./d/../out.csv` is `out.csv`. A temporary file is removed
//! if the write fails, on SIGINT/SIGTERM/SIGHUP, and by the next write to the same path once
//! the process that left it is gone.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::signals::{self, Undo};
use crate::{at, refuse};

/// What to do with a special file (device, FIFO) given as the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// Write into it directly: the format is a stream (CSV, HTML, SVG, PNG).
    Stream,
    /// Refuse it, saying why: the writer must seek (a native trace rewrites its header).
    Refuse(&'static str),
}

/// Where the bytes of an output go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A regular file (absent or replaceable), at its canonical path: through a temporary file.
    Replace(PathBuf),
    /// A character device, FIFO or descriptor link: written directly.
    Direct(PathBuf),
}

/// An output path checked against the policy; [`OutputPlan::open`] starts writing it.
#[derive(Debug)]
pub struct OutputPlan {
    shown: PathBuf,
    target: Target,
}

/// Whether `path`'s chain of symbolic links passes through a file-descriptor link
/// (`/dev/stdout` → `/proc/self/fd/1`): such a path names an open stream, not a file to replace.
fn through_descriptor_link(path: &Path) -> bool {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        let s = p.to_string_lossy();
        if s.starts_with("/dev/fd/") || (s.starts_with("/proc/") && s.contains("/fd/")) {
            return true;
        }
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {}
            _ => return false,
        }
        let Ok(next) = fs::read_link(&p) else { return false };
        p = match p.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    false
}

/// `dev`/`ino` of a path, following links.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses `out` if it is the same file (device and inode) as one of `inputs`, or (for inputs
/// that are directories) lies inside one of them under a name the command reads. `out` must
/// exist to be the same file; an output that does not exist yet is no input.
pub fn refuse_if_input(out: &Path, shown: &Path, inputs: &[PathBuf]) -> io::Result<()> {
    let Some(o) = file_id(out) else { return Ok(()) };
    for input in inputs {
        if file_id(input) == Some(o) {
            return Err(refuse(format!(
                "refusing to write {}: it is the input {}; choose another output file",
                shown.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Why numasim must not put a file of its own at `target` (in a directory it manages), if so.
fn managed_conflict(target: &Path) -> Option<String> {
    let dir = target.parent()?;
    if dir.join(crate::results_dir::MARKER).exists() {
        return Some(format!(
            "{} is a results directory, which holds only what its run wrote; write the file elsewhere",
            dir.display()
        ));
    }
    let name = target.file_name()?.to_string_lossy();
    if crate::managed_dir::lists(dir, &name) {
        return Some(format!(
            "numasim keeps `{name}` in {} (listed in its {} file); write the file elsewhere",
            dir.display(),
            crate::managed_dir::DIR_MARKER
        ));
    }
    None
}

/// Checks `out` against the policy (see the module docs) without opening anything for writing.
/// `inputs` are the files (and directories) the command reads.
pub fn plan(out: &Path, inputs: &[PathBuf], special: Special) -> io::Result<OutputPlan> {
    plan_checked(out, inputs, special, true)
}

/// [`plan`]; `managed`: whether to refuse a file a managed directory lists (its owner, a
/// [`crate::managed_dir::ManagedDir`], writes them).
fn plan_checked(out: &Path, inputs: &[PathBuf], special: Special, managed: bool) -> io::Result<OutputPlan> {
    let shown = out.to_path_buf();
    let refused = |why: String| refuse(format!("refusing to write {}: {why}", shown.display()));
    if out.as_os_str().is_empty() {
        return Err(refused("the output path is empty".into()));
    }
    refuse_if_input(out, &shown, inputs)?;
    if through_descriptor_link(out) {
        if let Special::Refuse(why) = special {
            return Err(refused(why.to_string()));
        }
        return Ok(OutputPlan {
            shown,
            target: Target::Direct(out.to_path_buf()),
        });
    }
    let target = match fs::symlink_metadata(out) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let Some(Component::Normal(name)) = out.components().next_back() else {
                return Err(refused("name a file, not a directory".into()));
            };
            let parent = match out.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir = fs::canonicalize(parent).map_err(|e| at(parent, "resolving the output directory", e))?;
            if !dir.is_dir() {
                return Err(refused(format!("{} is not a directory", parent.display())));
            }
            Target::Replace(dir.join(name))
        }
        Err(e) => return Err(at(out, "inspecting", e)),
        Ok(_) => {
            let meta = fs::metadata(out).map_err(|e| {
                refused(format!(
                    "it is a symbolic link to nothing ({e}); numasim follows links but never replaces one"
                ))
            })?;
            let ft = meta.file_type();
            if ft.is_file() {
                Target::Replace(fs::canonicalize(out).map_err(|e| at(out, "resolving", e))?)
            } else if ft.is_dir() {
                return Err(refused("it is a directory; name a file".into()));
            } else if ft.is_char_device() || ft.is_fifo() {
                match special {
                    Special::Stream => Target::Direct(out.to_path_buf()),
                    Special::Refuse(why) => return Err(refused(why.to_string())),
                }
            } else if ft.is_block_device() {
                return Err(refused("it is a block device, which numasim never writes".into()));
            } else {
                return Err(refused(
                    "it is a socket or other special file, which numasim never writes".into(),
                ));
            }
        }
    };
    if let Target::Replace(t) = &target {
        refuse_if_input(t, &shown, inputs)?;
        if let Some(why) = managed.then(|| managed_conflict(t)).flatten() {
            return Err(refused(why));
        }
    }
    Ok(OutputPlan { shown, target })
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes `.NAME.tmp-PID-N` files beside `target` left by processes that are gone.
fn clear_stale_temporaries(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let prefix = format!(".{}.tmp-", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let fname = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = fname.strip_prefix(&prefix) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && pid as u32 != std::process::id() && !signals::process_alive(pid) {
            let _ = fs::remove_file(e.path());
        }
    }
}

impl OutputPlan {
    /// The path as the user gave it.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Whether the output is written directly (a device, FIFO or descriptor link).
    pub fn is_direct(&self) -> bool {
        matches!(self.target, Target::Direct(_))
    }

    /// Starts writing: reserves the temporary file (or opens the special file).
    pub fn open(self) -> io::Result<OutputFile> {
        match &self.target {
            Target::Direct(p) => {
                // No O_CREAT, no O_TRUNC: a stream is written, never created or cut.
                let file = OpenOptions::new()
                    .append(true)
                    .custom_flags(libc::O_NOCTTY)
                    .open(p)
                    .map_err(|e| at(&self.shown, "opening", e))?;
                Ok(OutputFile {
                    file: Some(file),
                    tmp: None,
                    target: p.clone(),
                    shown: self.shown,
                })
            }
            Target::Replace(t) => {
                clear_stale_temporaries(t);
                let name = t
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let keep_mode = fs::metadata(t).ok().map(|m| m.permissions());
                loop {
                    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
                    let tmp = t.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()));
                    // Registered first, so a signal between creating and registering cannot
                    // leave it behind.
                    signals::register(Undo::File(tmp.clone()));
                    // create_new: never follows or reuses something already at that name.
                    match OpenOptions::new().write(true).create_new(true).mode(0o666).open(&tmp) {
                        Ok(file) => {
                            if let Some(p) = keep_mode {
                                let _ = file.set_permissions(p);
                            }
                            return Ok(OutputFile {
                                file: Some(file),
                                tmp: Some(tmp),
                                target: t.clone(),
                                shown: self.shown,
                            });
                        }
                        Err(e) => {
                            signals::unregister(&Undo::File(tmp.clone()));
                            if e.kind() != io::ErrorKind::AlreadyExists {
                                return Err(at(&tmp, "creating", e));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// An output being written; nothing appears under the final name until [`commit`](Self::commit).
/// Dropped uncommitted, its temporary file is removed.
#[derive(Debug)]
pub struct OutputFile {
    file: Option<File>,
    tmp: Option<PathBuf>,
    target: PathBuf,
    shown: PathBuf,
}

impl OutputFile {
    /// Where the bytes go until the commit: the temporary file (or the special file itself).
    /// Writers that open files by name (the native trace writer) write here.
    pub fn path(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.target)
    }

    /// Flushes and moves the file into place. Refuses (and removes the temporary file) if the
    /// target became something numasim may not replace meanwhile.
    pub fn commit(mut self) -> io::Result<()> {
        let shown = self.shown.clone();
        if let Some(f) = self.file.as_mut() {
            f.flush().map_err(|e| at(&shown, "writing", e))?;
        }
        let Some(tmp) = self.tmp.clone() else {
            self.file = None;
            return Ok(());
        };
        if let Some(f) = self.file.take() {
            f.sync_all().map_err(|e| at(&shown, "writing", e))?;
        }
        let mut list = signals::locked();
        match fs::symlink_metadata(&self.target) {
            Ok(m) if !m.file_type().is_file() => {
                drop(list);
                return Err(refuse(format!(
                    "refusing to write {}: {} became a link, directory or special file while numasim wrote it",
                    shown.display(),
                    self.target.display()
                )));
            }
            _ => {}
        }
        fs::rename(&tmp, &self.target).map_err(|e| at(&self.target, "renaming the output into", e))?;
        signals::unregister_locked(&mut list, &Undo::File(tmp));
        self.tmp = None;
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("output already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        self.file = None;
        if let Some(tmp) = self.tmp.take() {
            let mut list = signals::locked();
            let _ = fs::remove_file(&tmp);
            signals::unregister_locked(&mut list, &Undo::File(tmp));
        }
    }
}

/// Writes `bytes` to `out` under the policy (special files written directly).
pub fn write_file(out: &Path, bytes: &[u8], inputs: &[PathBuf]) -> io::Result<()> {
    let mut f = plan(out, inputs, Special::Stream)?.open()?;
    f.write_all(bytes).map_err(|e| at(out, "writing", e))?;
    f.commit()
}

/// [`write_file`] for a file a managed directory lists.
pub(crate) fn write_listed(out: &Path, bytes: &[u8], inputs: &[PathBuf]) -> io::Result<()> {
    let mut f = plan_checked(out, inputs, Special::Stream, false)?.open()?;
    f.write_all(bytes).map_err(|e| at(out, "writing", e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_new_file_and_a_replaced_file_are_written_whole_and_nothing_else_is_left() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("t.csv");
        write_file(&out, b"one", &[]).unwrap();
        fs::set_permissions(&out, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
        write_file(&out, b"two", &[]).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"two");
        assert_eq!(fs::metadata(&out).unwrap().mode() & 0o777, 0o640);
        assert_eq!(names(d.path()), vec!["t.csv"]);
    }

    #[test]
    fn a_fifo_is_written_into_never_replaced() {
        // Stands in for a device node such as /dev/null, which must never become a regular file.
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("pipe");
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(&fifo).unwrap())
        };
        write_file(&fifo, b"streamed", &[]).unwrap();
        assert_eq!(reader.join().unwrap(), b"streamed");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        // A writer that must seek refuses it, naming why, and leaves it alone.
        let e = plan(&fifo, &[], Special::Refuse("a native trace needs a regular file")).unwrap_err();
        assert!(e.to_string().contains("native trace needs a regular file"), "{e}");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names(d.path()), vec!["pipe"]);
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.csv");
        fs::write(&real, "old").unwrap();
        let link = d.path().join("link.csv");
        symlink("real.csv", &link).unwrap();
        write_file(&link, b"new", &[]).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        // A dangling link is refused, not replaced.
        let dangling = d.path().join("dangling");
        symlink("nowhere/x", &dangling).unwrap();
        let e = write_file(&dangling, b"x", &[]).unwrap_err();
        assert!(e.to_string().contains("symbolic link to nothing"), "{e}");
        assert!(fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    }

    #[test]
    fn an_input_is_never_an_output_even_through_a_link_or_a_detour() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("sub")).unwrap();
        let input = d.path().join("in.trace");
        fs::write(&input, "precious").unwrap();
        let link = d.path().join("alias");
        symlink(&input, &link).unwrap();
        let detour = d.path().join("sub/../in.trace");
        for out in [&input, &link, &detour] {
            let e = write_file(out, b"x", std::slice::from_ref(&input)).unwrap_err();
            assert!(e.to_string().contains("is the input"), "{e}");
        }
        assert_eq!(fs::read(&input).unwrap(), b"precious");
    }

    #[test]
    fn a_detour_through_the_target_directory_writes_the_canonical_file() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("d")).unwrap();
        let out = d.path().join("d/../d/t.csv");
        write_file(&out, b"x", &[]).unwrap();
        assert_eq!(fs::read(d.path().join("d/t.csv")).unwrap(), b"x");
        assert_eq!(names(&d.path().join("d")), vec!["t.csv"]);
    }

    #[test]
    fn a_file_inside_a_results_directory_is_refused() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join(crate::results_dir::MARKER), "x").unwrap();
        fs::write(d.path().join("results.json"), "{}").unwrap();
        let e = write_file(&d.path().join("results.json"), b"a,b\n", &[]).unwrap_err();
        assert!(e.to_string().contains("results directory"), "{e}");
        assert_eq!(fs::read(d.path().join("results.json")).unwrap(), b"{}");
    }

    #[test]
    fn directories_and_empty_names_are_refused() {
        let d = tempfile::tempdir().unwrap();
        assert!(write_file(d.path(), b"x", &[]).is_err());
        assert!(write_file(Path::new(""), b"x", &[]).is_err());
        assert!(write_file(&d.path().join("a/.."), b"x", &[]).is_err());
        assert!(d.path().is_dir());
    }

    #[test]
    fn a_dropped_output_leaves_nothing_and_stale_temporaries_of_dead_processes_go() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("t.csv");
        fs::write(&out, "old").unwrap();
        {
            let mut f = plan(&out, &[], Special::Stream).unwrap().open().unwrap();
            f.write_all(b"half").unwrap();
        }
        assert_eq!(fs::read(&out).unwrap(), b"old");
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let dead = c.id();
        c.wait().unwrap();
        fs::write(d.path().join(format!(".t.csv.tmp-{dead}-0")), "left by a kill").unwrap();
        fs::write(d.path().join(".t.csv.tmp-notapid"), "not ours").unwrap();
        write_file(&out, b"new", &[]).unwrap();
        assert_eq!(names(d.path()), vec![".t.csv.tmp-notapid", "t.csv"]);
    }
}
