//! What to undo when the process is interrupted: partial results directories, temporary output
//! files and child process groups (`trace capture`'s QEMU), undone by one thread that takes
//! SIGINT, SIGTERM and SIGHUP.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// One thing to undo on a signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Undo {
    /// A directory numasim is writing (removed whole).
    Dir(PathBuf),
    /// A temporary file or a lock file (removed).
    File(PathBuf),
    /// A child process group (sent SIGKILL).
    Group(i32),
}

static CLEANUP: Mutex<Vec<Undo>> = Mutex::new(Vec::new());

/// The list, locked. Holding it keeps the signal thread from acting meanwhile, so a rename that
/// must not be separated from its bookkeeping holds it.
pub(crate) fn locked() -> MutexGuard<'static, Vec<Undo>> {
    CLEANUP.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn register(undo: Undo) {
    locked().push(undo);
}

pub(crate) fn unregister_locked(list: &mut Vec<Undo>, undo: &Undo) {
    list.retain(|u| u != undo);
}

pub(crate) fn unregister(undo: &Undo) {
    unregister_locked(&mut locked(), undo);
}

/// Kills process group `pgid` (SIGKILL) if the process is interrupted, until
/// [`forget_process_group`]. For children that ignore SIGTERM, such as QEMU running a traced
/// program.
pub fn kill_on_signal(pgid: i32) {
    if pgid > 0 {
        register(Undo::Group(pgid));
    }
}

/// Undoes [`kill_on_signal`] (the group has ended).
pub fn forget_process_group(pgid: i32) {
    unregister(&Undo::Group(pgid));
}

/// Removes `path` (a file) if the process is interrupted, until [`forget_file`].
pub fn remove_on_signal(path: &Path) {
    register(Undo::File(path.to_path_buf()));
}

/// Undoes [`remove_on_signal`].
pub fn forget_file(path: &Path) {
    unregister(&Undo::File(path.to_path_buf()));
}

fn undo_all(list: &[Undo]) {
    for u in list {
        let _ = match u {
            Undo::Dir(p) => fs::remove_dir_all(p),
            Undo::File(p) => fs::remove_file(p),
            Undo::Group(g) => {
                // SAFETY: kill(2) on a process group this process started.
                unsafe { libc::kill(-g, libc::SIGKILL) };
                Ok(())
            }
        };
    }
}

/// Removes partial results and temporary outputs and kills registered child process groups
/// when the process receives SIGINT, SIGTERM or SIGHUP, then dies of that signal (so the exit
/// status stays the conventional one).
///
/// Call once, first thing in `main`, before any other thread exists: the signals are blocked in
/// the calling thread (and so in every thread spawned later) and taken by a dedicated thread with
/// `sigwait`, where removing files is safe (a signal handler could not allocate).
pub fn install_signal_cleanup() {
    // SAFETY: plain libc calls on a locally owned, initialised signal set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("numasim-signals".into())
            .spawn(move || loop {
                let mut sig: libc::c_int = 0;
                if libc::sigwait(&set, &mut sig) != 0 {
                    continue;
                }
                // Holding the lock keeps renames that must stay paired from running meanwhile;
                // it is never released, so nothing is registered after the cleanup.
                let list = locked();
                undo_all(&list);
                let mut one: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut one);
                libc::sigaddset(&mut one, sig);
                libc::signal(sig, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
                libc::raise(sig);
                // Only reached if the default action did not end the process.
                libc::_exit(128 + sig);
            });
        if spawned.is_err() {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// Whether process `pid` still exists.
pub(crate) fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks for existence.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}
