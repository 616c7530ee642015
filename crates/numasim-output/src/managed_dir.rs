//! Directories numasim adds files to over time (a sweep's root, a `repro` output directory),
//! as opposed to results directories, which are replaced whole ([`crate::results_dir`]).
//!
//! Such a directory carries a marker, [`DIR_MARKER`], listing every file numasim put there. A
//! file is written (or replaced) only if it is absent or listed, so a user's file that happens
//! to have the name numasim wants (`comparison.csv`, `sweep.json`) is never overwritten. An
//! existing directory is accepted only if it carries the marker, is empty, or is recognised as
//! one numasim wrote before the marker existed; anything else is refused before anything is
//! written, and so is a directory that holds one of the command's inputs.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use crate::{at, refuse};

/// Name of the marker file in a directory numasim adds files to.
pub const DIR_MARKER: &str = ".numasim-dir";
const HEADER: &str = "numasim output directory v1";

/// The names `dir`'s marker lists, or `None` if it has no (valid) marker.
fn listed(dir: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(dir.join(DIR_MARKER)).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return None;
    }
    Some(
        lines
            .filter_map(|l| l.strip_prefix("file "))
            .map(str::to_string)
            .collect(),
    )
}

/// Whether `dir` is a directory numasim manages and lists `name` (a path relative to it).
pub fn lists(dir: &Path, name: &str) -> bool {
    listed(dir).is_some_and(|l| l.iter().any(|n| n == name))
}

/// A directory numasim may add files to; see the module docs.
#[derive(Debug, Clone)]
pub struct ManagedDir {
    /// Canonical: every check and write goes here.
    path: PathBuf,
    /// As the user gave it: the paths returned name files this way.
    shown: PathBuf,
}

/// Recognises a directory numasim wrote before the marker existed: the names it wrote there,
/// or `None` if it is not one.
pub type Recognise<'a> = &'a dyn Fn(&Path) -> Option<Vec<String>>;

impl ManagedDir {
    /// Opens `dir` (`what` names it in messages, e.g. "sweep root"), creating it if absent.
    /// `inputs`: the files the command reads, none of which may be inside it. `recognise`:
    /// see [`Recognise`].
    pub fn open(dir: &Path, what: &str, inputs: &[PathBuf], recognise: Recognise) -> io::Result<ManagedDir> {
        let refused = |why: String| {
            refuse(format!(
                "refusing to use {} as the {what}: {why}; choose another directory",
                dir.display()
            ))
        };
        if matches!(dir.components().next_back(), None | Some(Component::RootDir)) {
            return Err(refused("it is the root directory".into()));
        }
        fs::create_dir_all(dir).map_err(|e| at(dir, "creating", e))?;
        let path = fs::canonicalize(dir).map_err(|e| at(dir, "resolving", e))?;
        if !path.is_dir() {
            return Err(refused("it is not a directory".into()));
        }
        if path.join(crate::results_dir::MARKER).exists() {
            return Err(refused("it is a results directory of `numasim run`".into()));
        }
        for input in inputs {
            if let Ok(i) = fs::canonicalize(input) {
                if i.starts_with(&path) {
                    return Err(refused(format!("it holds the input {}", input.display())));
                }
            }
        }
        let dirs = ManagedDir {
            path,
            shown: dir.to_path_buf(),
        };
        if listed(&dirs.path).is_some() {
            return Ok(dirs);
        }
        let mut entries = fs::read_dir(&dirs.path).map_err(|e| at(dir, "reading", e))?;
        let adopted = if entries.next().is_none() {
            Vec::new()
        } else {
            match recognise(&dirs.path) {
                Some(names) => names,
                None => {
                    return Err(refused(format!(
                        "it is not empty and has no {DIR_MARKER} file, so numasim did not make it"
                    )))
                }
            }
        };
        let mut text = format!("{HEADER}\n");
        for n in adopted {
            text.push_str(&format!("file {n}\n"));
        }
        let marker = dirs.path.join(DIR_MARKER);
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker)
            .map_err(|e| at(&marker, "creating", e))?;
        f.write_all(text.as_bytes()).map_err(|e| at(&marker, "writing", e))?;
        Ok(dirs)
    }

    /// The directory (canonical).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the subdirectory `rel` (not listed: numasim never removes it).
    pub fn create_dir(&self, rel: &str) -> io::Result<PathBuf> {
        let p = self.path.join(rel);
        fs::create_dir_all(&p).map_err(|e| at(&p, "creating", e))?;
        Ok(p)
    }

    /// Writes `bytes` as `rel` (a path relative to the directory), replacing it only if numasim
    /// wrote it; `inputs` as for [`crate::file::plan`]. Returns the file's path under the
    /// directory's name as given to [`open`](Self::open).
    pub fn write_file(&self, rel: &str, bytes: &[u8], inputs: &[PathBuf]) -> io::Result<PathBuf> {
        let plain = Path::new(rel).components().all(|c| matches!(c, Component::Normal(_)));
        if rel.is_empty() || !plain || rel == DIR_MARKER {
            return Err(refuse(format!("`{rel}` is not a plain relative file name")));
        }
        let target = self.path.join(rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| at(parent, "creating", e))?;
        }
        if fs::symlink_metadata(&target).is_ok() && !lists(&self.path, rel) {
            return Err(refuse(format!(
                "refusing to replace {}: numasim did not write it (it is not listed in {}); move it away or choose another directory",
                target.display(),
                self.path.join(DIR_MARKER).display()
            )));
        }
        crate::file::refuse_if_input(&target, &target, inputs)?;
        if !lists(&self.path, rel) {
            let marker = self.path.join(DIR_MARKER);
            let mut m = OpenOptions::new()
                .append(true)
                .open(&marker)
                .map_err(|e| at(&marker, "writing", e))?;
            // One write with O_APPEND: concurrent writers never interleave within a line.
            m.write_all(format!("file {rel}\n").as_bytes())
                .map_err(|e| at(&marker, "writing", e))?;
        }
        crate::file::write_listed(&target, bytes, inputs)?;
        Ok(self.shown.join(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never(_: &Path) -> Option<Vec<String>> {
        None
    }

    #[test]
    fn a_users_file_with_numasims_name_is_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        let m = ManagedDir::open(&root, "sweep root", &[], &never).unwrap();
        m.write_file("sweep.json", b"1", &[]).unwrap();
        m.write_file("sweep.json", b"2", &[]).unwrap();
        assert_eq!(fs::read(root.join("sweep.json")).unwrap(), b"2");
        fs::write(root.join("comparison.csv"), "mine").unwrap();
        let e = m.write_file("comparison.csv", b"x", &[]).unwrap_err();
        assert!(e.to_string().contains("numasim did not write it"), "{e}");
        assert_eq!(fs::read(root.join("comparison.csv")).unwrap(), b"mine");
        // Its listed files are not for other commands to overwrite either.
        let e = crate::file::write_file(&root.join("sweep.json"), b"a,b", &[]).unwrap_err();
        assert!(e.to_string().contains("numasim keeps"), "{e}");
    }

    #[test]
    fn a_users_directory_is_refused_unless_empty_or_recognised() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("sweep.json"), "user's").unwrap();
        let e = ManagedDir::open(d.path(), "sweep root", &[], &never).unwrap_err();
        assert!(e.to_string().contains("did not make it"), "{e}");
        assert!(!d.path().join(DIR_MARKER).exists());
        let ok = |_: &Path| Some(vec!["sweep.json".to_string()]);
        let m = ManagedDir::open(d.path(), "sweep root", &[], &ok).unwrap();
        m.write_file("sweep.json", b"numasim's", &[]).unwrap();
        let empty = d.path().join("empty");
        fs::create_dir(&empty).unwrap();
        ManagedDir::open(&empty, "sweep root", &[], &never).unwrap();
        assert!(ManagedDir::open(Path::new("/"), "sweep root", &[], &never).is_err());
    }

    #[test]
    fn a_directory_holding_an_input_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("sweep.toml");
        fs::write(&input, "base = 'x'").unwrap();
        let e = ManagedDir::open(d.path(), "sweep root", std::slice::from_ref(&input), &never).unwrap_err();
        assert!(e.to_string().contains("holds the input"), "{e}");
    }
}
