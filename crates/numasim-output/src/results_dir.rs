//! Writing a results directory so that it is either complete or visibly not, and so that no
//! user data is ever deleted.
//!
//! * Files are written into a sibling `<dir>.partial-<pid>` directory that appears under its
//!   final name only after the last file is written.
//! * Every directory numasim writes carries a marker file, [`MARKER`], holding the run id and the
//!   name of every file the run wrote. An existing directory is replaced (and a stale partial
//!   removed) only if it has a marker and holds nothing the marker does not list, so a mistyped
//!   `-o`, or a note a user saved in a results directory, is never deleted. Directories written by
//!   numasim before the marker existed are recognised by holding exactly the four files it wrote
//!   (results.json with a `schema_version`); an empty directory holds nothing to lose.
//! * `-o .`, `-o ..`, a directory containing the working directory, and a symbolic link are
//!   refused: replacing them would pull the directory out from under the user.
//! * The swap is rename-old-aside, rename-new-in, delete-old: a kill at any point leaves either
//!   the old or the new results under the final name (or the old ones under `<dir>.old-<pid>`,
//!   which the next run puts back).
//! * A lock file (`.<dir>.numasim-lock`, `flock`) makes a second run to the same `-o` fail with a
//!   clear message instead of silently replacing the first one's results.
//! * [`crate::signals::install_signal_cleanup`] removes the partial directory on SIGINT, SIGTERM
//!   and SIGHUP; a run killed harder (SIGKILL, out of memory) leaves a partial that the next run
//!   to the same `-o` removes once its process is gone.
//! * The parent directory is canonicalised first (`-o d/../d` is `d`), and a directory holding
//!   one of the command's inputs is never replaced.
//! * If the old directory gains a file of the user's while a run writes the new one, the new
//!   results are kept beside it (`<dir>.kept-<pid>`) instead of being discarded.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Component, Path, PathBuf};

use crate::signals::{self, process_alive, Undo};
use crate::{at, refuse};

/// Name of the marker file in every results directory numasim writes.
pub const MARKER: &str = ".numasim-results";
const MARKER_HEADER: &str = "numasim results directory v1";
/// What numasim wrote into a results directory before the marker existed.
const LEGACY_FILES: [&str; 4] = ["experiment.resolved.toml", "machine.json", "phases.csv", "results.json"];

/// Kind of a run's results directory, as its marker records it.
pub const KIND_RESULTS: &str = "results";

/// Why numasim may not delete `dir`, or `None` if everything in it is numasim's (and, with
/// `kind`, of that kind: a trace export never replaces a run's results, nor the reverse; a
/// marker that names no kind is any kind's).
fn foreign_content(dir: &Path, kind: Option<&str>) -> io::Result<Option<String>> {
    let mut names = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| at(dir, "reading", e))? {
        let e = e.map_err(|e| at(dir, "reading", e))?;
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        names.push((e.file_name().to_string_lossy().into_owned(), is_file));
    }
    let listed: Vec<String> = match fs::read_to_string(dir.join(MARKER)) {
        Ok(text) => {
            let mut lines = text.lines();
            if lines.next() != Some(MARKER_HEADER) {
                return Ok(Some(format!("its {MARKER} file was not written by this numasim")));
            }
            let theirs = text.lines().find_map(|l| l.strip_prefix("kind "));
            if let (Some(want), Some(theirs)) = (kind, theirs) {
                if want != theirs {
                    return Ok(Some(format!(
                        "numasim wrote it as a {theirs} directory, and this command writes a {want} one"
                    )));
                }
            }
            lines
                .filter_map(|l| l.strip_prefix("file "))
                .map(str::to_string)
                .chain([MARKER.to_string()])
                .collect()
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // An empty directory holds nothing to lose.
            if names.is_empty() {
                return Ok(None);
            }
            // Before the marker: exactly the four files numasim wrote, results.json its own.
            let all_four = LEGACY_FILES
                .iter()
                .all(|f| names.iter().any(|(n, file)| n == f && *file));
            let ours = all_four
                && names.len() == LEGACY_FILES.len()
                && fs::read_to_string(dir.join("results.json")).is_ok_and(|t| t.contains("\"schema_version\""));
            if !ours {
                if let Some((name, _)) = names.iter().find(|(n, _)| !LEGACY_FILES.contains(&n.as_str())) {
                    return Ok(Some(format!("it holds `{name}`, which numasim did not write there")));
                }
                return Ok(Some(format!("it has no {MARKER} file, so numasim did not write it")));
            }
            if kind.is_some_and(|k| k != KIND_RESULTS) {
                return Ok(Some("it holds a run's results".to_string()));
            }
            LEGACY_FILES.iter().map(|s| s.to_string()).collect()
        }
        Err(e) => return Err(at(&dir.join(MARKER), "reading", e)),
    };
    for (name, is_file) in &names {
        if !is_file || !listed.iter().any(|l| l == name) {
            return Ok(Some(format!("it holds `{name}`, which numasim did not write there")));
        }
    }
    Ok(None)
}

/// Removes `dir` if it is numasim's; leaves it alone otherwise.
fn remove_if_ours(dir: &Path) -> io::Result<()> {
    if foreign_content(dir, None)?.is_none() {
        fs::remove_dir_all(dir).map_err(|e| at(dir, "removing", e))?;
    }
    Ok(())
}

/// An exclusive `flock` on `.<name>.numasim-lock` beside the results directory.
struct Lock {
    path: PathBuf,
    file: File,
}

impl Lock {
    fn acquire(path: PathBuf, target: &Path) -> io::Result<Lock> {
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| at(&path, "creating lock file", e))?;
            // SAFETY: flock on a file descriptor we own.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                    return Err(io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!(
                            "another numasim run is writing {} (lock {} is held); wait for it or choose another -o",
                            target.display(),
                            path.display()
                        ),
                    ));
                }
                return Err(at(&path, "locking", e));
            }
            // The previous holder unlinks the file on release; make sure we locked the file
            // that is still at `path`, or a third run could lock a new one concurrently.
            let held = file.metadata().map_err(|e| at(&path, "locking", e))?;
            match fs::metadata(&path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => {
                    signals::register(Undo::File(path.clone()));
                    return Ok(Lock { path, file });
                }
                _ => continue,
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Unlink while still holding the lock (see `acquire`), then close.
        let mut list = signals::locked();
        let _ = fs::remove_file(&self.path);
        signals::unregister_locked(&mut list, &Undo::File(self.path.clone()));
        let _ = &self.file;
    }
}

/// The directory being written; see the module docs.
pub struct ResultsDir {
    /// The path as the user gave it (`.` components dropped), returned by `finish`.
    shown: PathBuf,
    /// The final directory, under its canonical parent.
    final_path: PathBuf,
    partial_path: PathBuf,
    parent: PathBuf,
    name: String,
    run_id: String,
    /// What the directory holds (its marker's `kind`).
    kind: String,
    finished: bool,
    _lock: Lock,
}

/// `path` with `.` components and trailing slashes dropped, and its last component; refuses
/// names that are not a plain directory name (`.`, `..`, `/`).
fn normalize(path: &Path) -> io::Result<(PathBuf, PathBuf, String)> {
    let mut clean = PathBuf::new();
    for c in path.components() {
        if c != Component::CurDir {
            clean.push(c.as_os_str());
        }
    }
    let name = match clean.components().next_back() {
        Some(Component::Normal(n)) => n.to_string_lossy().into_owned(),
        _ => {
            return Err(refuse(format!(
                "refusing to write results to `{}`: name the results directory itself (not `.`, `..` or `/`)",
                path.display()
            )))
        }
    };
    let parent = match clean.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((clean, parent, name))
}

/// Refuses to replace `final_path` unless it is a numasim results directory that is not a
/// symbolic link and does not contain the working directory or one of `inputs`.
fn check_replaceable(final_path: &Path, shown: &Path, inputs: &[PathBuf], kind: &str) -> io::Result<()> {
    let meta = match fs::symlink_metadata(final_path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(at(final_path, "inspecting", e)),
    };
    let why = if meta.file_type().is_symlink() {
        Some("it is a symbolic link (give the directory it points to)".to_string())
    } else if !meta.is_dir() {
        Some("it is not a directory".to_string())
    } else {
        let canon = fs::canonicalize(final_path).map_err(|e| at(final_path, "resolving", e))?;
        let cwd = std::env::current_dir().and_then(fs::canonicalize);
        let input = inputs
            .iter()
            .find(|i| fs::canonicalize(i).is_ok_and(|i| i.starts_with(&canon)));
        if cwd.map(|c| c.starts_with(&canon)).unwrap_or(false) {
            Some("it contains the working directory".to_string())
        } else if let Some(i) = input {
            Some(format!("it holds the input {}", i.display()))
        } else {
            foreign_content(final_path, Some(kind))?
        }
    };
    match why {
        None => Ok(()),
        Some(why) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} exists and numasim will not replace it: {why}; choose another -o",
                shown.display()
            ),
        )),
    }
}

/// A run id unique enough to tell runs apart in the marker: pid and start time.
fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{nanos}", std::process::id())
}

impl ResultsDir {
    /// Checks that `final_path` may be written, takes the lock, clears stale partials of dead
    /// runs and creates the partial directory.
    pub fn begin(final_path: &Path) -> io::Result<Self> {
        Self::begin_with_inputs(final_path, &[])
    }

    /// [`begin`](Self::begin) for a command that reads `inputs`: a directory holding one of
    /// them is never replaced.
    pub fn begin_with_inputs(final_path: &Path, inputs: &[PathBuf]) -> io::Result<Self> {
        Self::begin_kind(final_path, inputs, KIND_RESULTS)
    }

    /// [`begin_with_inputs`](Self::begin_with_inputs) for a directory of another `kind` (a
    /// trace export): the marker records it, and a directory numasim wrote as another kind is
    /// never replaced.
    pub fn begin_kind(final_path: &Path, inputs: &[PathBuf], kind: &str) -> io::Result<Self> {
        let (clean, parent, name) = normalize(final_path)?;
        // The parent is canonicalised before anything is renamed: with `-o d/../d`, the path
        // through `d` stops resolving the moment `d` is moved aside.
        if let Ok(p) = fs::canonicalize(&parent) {
            check_replaceable(&p.join(&name), final_path, inputs, kind)?;
        }
        fs::create_dir_all(&parent).map_err(|e| at(&parent, "creating", e))?;
        let parent = fs::canonicalize(&parent).map_err(|e| at(&parent, "resolving", e))?;
        let final_canon = parent.join(&name);
        check_replaceable(&final_canon, final_path, inputs, kind)?;
        let lock = Lock::acquire(parent.join(format!(".{name}.numasim-lock")), final_path)?;
        let pid = std::process::id();
        let dir = ResultsDir {
            shown: clean,
            partial_path: parent.join(format!("{name}.partial-{pid}")),
            final_path: final_canon,
            parent,
            name,
            run_id: new_run_id(),
            kind: kind.to_string(),
            finished: false,
            _lock: lock,
        };
        dir.clear_stale()?;
        // Registered before it exists: a signal right after creating it still removes it.
        signals::register(Undo::Dir(dir.partial_path.clone()));
        fs::create_dir(&dir.partial_path).map_err(|e| at(&dir.partial_path, "creating", e))?;
        let marker = dir.partial_path.join(MARKER);
        fs::write(
            &marker,
            format!("{MARKER_HEADER}\nrun_id {}\nkind {kind}\n", dir.run_id),
        )
        .map_err(|e| at(&marker, "writing", e))?;
        Ok(dir)
    }

    /// Removes `<name>.partial-<pid>` left by runs whose process is gone, and puts back
    /// `<name>.old-<pid>` if a run died between moving the old results aside and moving the new
    /// ones in. Called with the lock held, so no live run owns them.
    fn clear_stale(&self) -> io::Result<()> {
        let entries = match fs::read_dir(&self.parent) {
            Ok(e) => e,
            Err(e) => return Err(at(&self.parent, "reading", e)),
        };
        let mut stale = Vec::new();
        for e in entries.flatten() {
            let fname = e.file_name().to_string_lossy().into_owned();
            let Some(rest) = fname.strip_prefix(self.name.as_str()) else {
                continue;
            };
            let (old, pid) = if let Some(p) = rest.strip_prefix(".partial-") {
                (false, p)
            } else if let Some(p) = rest.strip_prefix(".old-") {
                (true, p)
            } else {
                continue;
            };
            let Ok(pid) = pid.parse::<i32>() else { continue };
            let own = pid as u32 == std::process::id();
            if own || !process_alive(pid) {
                stale.push((old, self.parent.join(fname)));
            }
        }
        for (old, path) in stale {
            if old && fs::symlink_metadata(&self.final_path).is_err() && foreign_content(&path, None)?.is_none() {
                fs::rename(&path, &self.final_path).map_err(|e| at(&path, "restoring", e))?;
            } else {
                remove_if_ours(&path)?;
            }
        }
        Ok(())
    }

    /// Where to write files before [`finish`](Self::finish).
    pub fn path(&self) -> &Path {
        &self.partial_path
    }

    /// The run id recorded in the marker.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Lists `file` in the marker, so the marker always covers what is in the directory.
    fn list(&self, file: &str) -> io::Result<PathBuf> {
        if file.is_empty() || file.contains('/') || file == MARKER || file == "." || file == ".." {
            return Err(refuse(format!("`{file}` is not a plain file name")));
        }
        let marker = self.partial_path.join(MARKER);
        let mut m = OpenOptions::new()
            .append(true)
            .open(&marker)
            .map_err(|e| at(&marker, "writing", e))?;
        writeln!(m, "file {file}").map_err(|e| at(&marker, "writing", e))?;
        Ok(self.partial_path.join(file))
    }

    /// Writes one file (listed in the marker first).
    pub fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> io::Result<()> {
        let path = self.list(file)?;
        fs::write(&path, contents).map_err(|e| at(&path, "writing", e))
    }

    /// Creates one file to stream into (listed in the marker first).
    pub fn create(&self, file: &str) -> io::Result<(PathBuf, File)> {
        let path = self.list(file)?;
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| at(&path, "creating", e))?;
        Ok((path, f))
    }

    /// Moves the complete directory into place: old results aside, new ones in, old ones
    /// deleted. A signal cannot fall between the two renames (the cleanup thread waits).
    ///
    /// If the old directory stopped being replaceable while this one was written (a user saved
    /// a file in it), the new results are kept beside it as `<name>.kept-<pid>` and the error
    /// says so: neither the user's file nor a long run's results are lost.
    pub fn finish(mut self) -> io::Result<PathBuf> {
        let aside = self.parent.join(format!("{}.old-{}", self.name, std::process::id()));
        let mut list = signals::locked();
        let had_old = match fs::symlink_metadata(&self.final_path) {
            Ok(_) => {
                if let Err(why) = check_replaceable(&self.final_path, &self.shown, &[], &self.kind) {
                    let kept = self.keep_aside()?;
                    signals::unregister_locked(&mut list, &Undo::Dir(self.partial_path.clone()));
                    self.finished = true;
                    return Err(io::Error::new(
                        why.kind(),
                        format!("{why}; this run's results are complete in {}", kept.display()),
                    ));
                }
                fs::rename(&self.final_path, &aside).map_err(|e| at(&self.final_path, "moving aside", e))?;
                true
            }
            Err(_) => false,
        };
        if let Err(e) = fs::rename(&self.partial_path, &self.final_path) {
            if had_old {
                let _ = fs::rename(&aside, &self.final_path);
            }
            return Err(at(&self.final_path, "renaming results into", e));
        }
        signals::unregister_locked(&mut list, &Undo::Dir(self.partial_path.clone()));
        self.finished = true;
        drop(list);
        if had_old {
            fs::remove_dir_all(&aside).map_err(|e| at(&aside, "removing previous results", e))?;
        }
        Ok(self.shown.clone())
    }

    /// Renames the complete partial directory to a free `<name>.kept-<pid>[-n]`.
    fn keep_aside(&self) -> io::Result<PathBuf> {
        let pid = std::process::id();
        for n in 0..1000 {
            let kept = if n == 0 {
                self.parent.join(format!("{}.kept-{pid}", self.name))
            } else {
                self.parent.join(format!("{}.kept-{pid}-{n}", self.name))
            };
            if fs::symlink_metadata(&kept).is_ok() {
                continue;
            }
            fs::rename(&self.partial_path, &kept).map_err(|e| at(&kept, "keeping the results in", e))?;
            return Ok(kept);
        }
        Err(refuse(format!(
            "no free name beside {} to keep the results",
            self.final_path.display()
        )))
    }
}

impl Drop for ResultsDir {
    fn drop(&mut self) {
        if !self.finished {
            let mut list = signals::locked();
            let _ = fs::remove_dir_all(&self.partial_path);
            signals::unregister_locked(&mut list, &Undo::Dir(self.partial_path.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn complete(target: &Path, content: &str) {
        let d = ResultsDir::begin(target).unwrap();
        d.write("results.json", content).unwrap();
        d.finish().unwrap();
    }

    #[test]
    fn dropped_without_finish_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        {
            let d = ResultsDir::begin(&target).unwrap();
            d.write("results.json", "{}").unwrap();
        }
        assert!(!target.exists());
        assert_eq!(names(tmp.path()), Vec::<String>::new());
    }

    #[test]
    fn refuses_to_replace_a_foreign_directory() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("precious.txt"), "x").unwrap();
        assert!(ResultsDir::begin(tmp.path()).is_err());
        assert!(tmp.path().join("precious.txt").exists());
    }

    #[test]
    fn a_results_json_alone_does_not_make_a_directory_replaceable() {
        // Regression: any directory with a results.json used to be deleted whole.
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("mine");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("results.json"), "{}").unwrap();
        fs::write(target.join("thesis.tex"), "years of work").unwrap();
        let e = ResultsDir::begin(&target).err().expect("refused");
        assert!(e.to_string().contains("thesis.tex"), "{e}");
        assert!(target.join("thesis.tex").exists());
    }

    #[test]
    fn a_file_added_to_results_after_the_run_blocks_replacement() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        complete(&target, "1");
        fs::write(target.join("notes.md"), "mine").unwrap();
        assert!(ResultsDir::begin(&target).is_err());
        assert!(target.join("notes.md").exists());
    }

    #[test]
    fn legacy_results_without_marker_are_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        fs::create_dir(&target).unwrap();
        for f in LEGACY_FILES {
            fs::write(target.join(f), "old").unwrap();
        }
        fs::write(target.join("results.json"), r#"{"schema_version": 1}"#).unwrap();
        complete(&target, "new");
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "new");
    }

    #[test]
    fn refuses_dot_dotdot_root_and_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        for p in [".", "..", "/", "a/.."] {
            assert!(ResultsDir::begin(Path::new(p)).is_err(), "{p}");
        }
        let real = tmp.path().join("real");
        complete(&real, "1");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for l in [link.clone(), PathBuf::from(format!("{}/", link.display()))] {
            let e = ResultsDir::begin(&l).err().expect("symlink refused");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(fs::read_to_string(real.join("results.json")).unwrap(), "1");
    }

    #[test]
    fn finish_replaces_previous_results_and_leaves_only_the_results() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        for content in ["1", "2"] {
            complete(&target, content);
        }
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "2");
        assert_eq!(names(tmp.path()), vec!["run"]);
        let marker = fs::read_to_string(target.join(MARKER)).unwrap();
        assert!(
            marker.starts_with(MARKER_HEADER) && marker.contains("run_id ") && marker.contains("file results.json")
        );
    }

    #[test]
    fn old_results_stay_until_the_new_ones_are_complete() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        complete(&target, "old");
        let d = ResultsDir::begin(&target).unwrap();
        d.write("results.json", "new").unwrap();
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "old");
        drop(d);
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "old");
    }

    /// A pid that is certainly not running: a child that has been reaped.
    fn dead_pid() -> u32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    }

    #[test]
    fn stale_partials_of_dead_runs_are_removed_and_an_interrupted_swap_is_undone() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        complete(&target, "old");
        let pid = dead_pid();
        // A run killed between "old aside" and "new in".
        fs::rename(&target, tmp.path().join(format!("run.old-{pid}"))).unwrap();
        let partial = tmp.path().join(format!("run.partial-{pid}"));
        fs::create_dir(&partial).unwrap();
        fs::write(
            partial.join(MARKER),
            format!("{MARKER_HEADER}\nrun_id x\nfile results.json\n"),
        )
        .unwrap();
        fs::write(partial.join("results.json"), "half").unwrap();
        // A partial-looking directory that numasim did not write stays.
        let foreign = tmp.path().join(format!("run.partial-{}", dead_pid()));
        fs::create_dir(&foreign).unwrap();
        fs::write(foreign.join("keep"), "x").unwrap();
        let d = ResultsDir::begin(&target).unwrap();
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "old");
        assert!(!partial.exists());
        assert!(foreign.join("keep").exists());
        drop(d);
    }

    #[test]
    fn a_second_run_to_the_same_directory_is_refused_while_the_first_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        let first = ResultsDir::begin(&target).unwrap();
        let e = ResultsDir::begin(&target).err().expect("second run refused");
        assert!(e.to_string().contains("another numasim run"), "{e}");
        first.write("results.json", "1").unwrap();
        first.finish().unwrap();
        // Released: the next run proceeds, and no lock file is left behind.
        complete(&target, "2");
        assert_eq!(names(tmp.path()), vec!["run"]);
    }

    #[test]
    fn io_errors_name_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let blocker = tmp.path().join("file");
        fs::write(&blocker, "x").unwrap();
        let e = ResultsDir::begin(&blocker.join("sub/run"))
            .err()
            .expect("cannot create");
        assert!(e.to_string().contains(&blocker.display().to_string()), "{e}");
    }

    #[test]
    fn a_subset_of_the_legacy_names_is_a_users_directory() {
        // With --force, a directory holding only results.json (or any subset of the four names
        // numasim wrote before the marker) is the user's and must stay.
        let tmp = tempfile::tempdir().unwrap();
        let subsets: [&[&str]; 3] = [&["results.json"], &["results.json", "phases.csv"], &LEGACY_FILES[..3]];
        for (i, files) in subsets.iter().enumerate() {
            let target = tmp.path().join(format!("mine{i}"));
            fs::create_dir(&target).unwrap();
            for f in *files {
                fs::write(target.join(f), "mine").unwrap();
            }
            assert!(ResultsDir::begin(&target).is_err(), "{files:?}");
            assert_eq!(fs::read_to_string(target.join(files[0])).unwrap(), "mine");
        }
        // All four, but results.json is not numasim's.
        let target = tmp.path().join("four");
        fs::create_dir(&target).unwrap();
        for f in LEGACY_FILES {
            fs::write(target.join(f), "mine").unwrap();
        }
        assert!(ResultsDir::begin(&target).is_err());
    }

    #[test]
    fn a_path_through_the_target_itself_is_resolved_first() {
        // With `-o d/../d`, moving `d` aside makes the path stop resolving: it is resolved
        // first, so `d` is replaced in place and never goes missing.
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("d");
        complete(&target, "old");
        let detour = tmp.path().join("d/../d");
        complete(&detour, "new");
        assert_eq!(fs::read_to_string(target.join("results.json")).unwrap(), "new");
        assert_eq!(names(tmp.path()), vec!["d"]);
    }

    #[test]
    fn a_directory_of_another_kind_is_not_replaced() {
        // A trace export must not replace a run's results (nor the reverse); same kinds do.
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        complete(&run, "old");
        let e = ResultsDir::begin_kind(&run, &[], "trace").err().expect("refused");
        assert!(e.to_string().contains("as a results directory"), "{e}");
        assert_eq!(fs::read_to_string(run.join("results.json")).unwrap(), "old");
        let export = tmp.path().join("export");
        let d = ResultsDir::begin_kind(&export, &[], "trace").unwrap();
        d.write("t0.out", "trace").unwrap();
        d.finish().unwrap();
        assert!(ResultsDir::begin(&export).is_err(), "a run does not replace an export");
        let d = ResultsDir::begin_kind(&export, &[], "trace").unwrap();
        d.write("t0.out", "new").unwrap();
        d.finish().unwrap();
        assert_eq!(fs::read_to_string(export.join("t0.out")).unwrap(), "new");
        // The four files numasim wrote before the marker are a run's.
        let legacy = tmp.path().join("legacy");
        fs::create_dir(&legacy).unwrap();
        for f in LEGACY_FILES {
            fs::write(legacy.join(f), "{\"schema_version\": 1}").unwrap();
        }
        assert!(ResultsDir::begin_kind(&legacy, &[], "trace").is_err());
        assert!(ResultsDir::begin(&legacy).is_ok());
    }

    #[test]
    fn a_directory_holding_an_input_is_not_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        complete(&target, "old");
        let input = target.join("results.json");
        let e = ResultsDir::begin_with_inputs(&target, std::slice::from_ref(&input))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("holds the input"), "{e}");
    }

    #[test]
    fn results_finished_after_the_old_directory_changed_are_kept_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        complete(&target, "old");
        let d = ResultsDir::begin(&target).unwrap();
        d.write("results.json", "long run").unwrap();
        fs::write(target.join("notes.md"), "written during the run").unwrap();
        let e = d.finish().unwrap_err();
        let kept = tmp.path().join(format!("run.kept-{}", std::process::id()));
        assert!(e.to_string().contains(&kept.display().to_string()), "{e}");
        assert_eq!(fs::read_to_string(kept.join("results.json")).unwrap(), "long run");
        assert!(target.join("notes.md").exists());
        // A later run neither removes the kept results nor the user's directory.
        assert!(ResultsDir::begin(&target).is_err());
        assert!(kept.join("results.json").exists());
    }

    #[test]
    fn an_empty_partial_left_by_a_signal_is_removed_by_the_next_run() {
        // A signal between creating the partial directory and writing its marker leaves an
        // empty, unmarked directory: it holds nothing to lose, so the next run removes it.
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        let partial = tmp.path().join(format!("run.partial-{}", dead_pid()));
        fs::create_dir(&partial).unwrap();
        complete(&target, "1");
        assert!(!partial.exists());
        assert_eq!(names(tmp.path()), vec!["run"]);
    }
}
