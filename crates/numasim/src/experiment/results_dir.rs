//! Writing a results directory so that it is either complete or visibly not.
//!
//! Files are written into a sibling `<dir>.partial-<pid>` directory and renamed into place only
//! after the last file is written. A failed or interrupted run therefore never leaves a
//! directory that looks complete. An existing directory is replaced only if it is itself a
//! numasim results directory (has `results.json`), so a mistyped `-o` cannot delete user data.

use std::io;
use std::path::{Path, PathBuf};

pub struct ResultsDir {
    final_path: PathBuf,
    partial_path: PathBuf,
    finished: bool,
}

impl ResultsDir {
    pub fn begin(final_path: &Path) -> io::Result<Self> {
        if final_path.exists() && !final_path.join("results.json").exists() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists and is not a numasim results directory; choose another -o",
                    final_path.display()
                ),
            ));
        }
        let name = final_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "results".into());
        let partial_path = final_path.with_file_name(format!("{name}.partial-{}", std::process::id()));
        if partial_path.exists() {
            std::fs::remove_dir_all(&partial_path)?;
        }
        std::fs::create_dir_all(&partial_path)?;
        Ok(ResultsDir {
            final_path: final_path.to_path_buf(),
            partial_path,
            finished: false,
        })
    }

    /// Where to write files before [`finish`](Self::finish).
    pub fn path(&self) -> &Path {
        &self.partial_path
    }

    pub fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> io::Result<()> {
        std::fs::write(self.partial_path.join(file), contents)
    }

    /// Moves the complete directory into place.
    pub fn finish(mut self) -> io::Result<PathBuf> {
        if self.final_path.exists() {
            std::fs::remove_dir_all(&self.final_path)?;
        }
        std::fs::rename(&self.partial_path, &self.final_path)?;
        self.finished = true;
        Ok(self.final_path.clone())
    }
}

impl Drop for ResultsDir {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.partial_path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_without_finish_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        {
            let d = ResultsDir::begin(&target).unwrap();
            d.write("results.json", "{}").unwrap();
        }
        assert!(!target.exists());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn refuses_to_replace_a_foreign_directory() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("precious.txt"), "x").unwrap();
        assert!(ResultsDir::begin(tmp.path()).is_err());
        assert!(tmp.path().join("precious.txt").exists());
    }

    #[test]
    fn finish_replaces_previous_results() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("run");
        for content in ["1", "2"] {
            let d = ResultsDir::begin(&target).unwrap();
            d.write("results.json", content).unwrap();
            d.finish().unwrap();
        }
        assert_eq!(std::fs::read_to_string(target.join("results.json")).unwrap(), "2");
    }
}
