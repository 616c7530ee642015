//! `numasim trace capture -o FILE -- PROGRAM ARGS...`: runs a Linux program under QEMU user-mode
//! emulation with numasim's TCG plugin and writes its memory accesses, one stream per guest
//! thread, as a native trace.
//!
//! The plugin (built from `tracer/` by this crate's build script and carried inside the binary)
//! is written to a private temporary file and loaded by `qemu-x86_64` or `qemu-aarch64` (chosen
//! from the program's ELF header). It streams records through a pipe whose write end QEMU
//! inherits; this process compresses them into the trace as they arrive, so neither side holds
//! more than a few buffers per thread. When the program dies (a crash, a kill), whatever reached
//! the pipe is written as a complete, readable trace and the command says what happened.
//!
//! With `--roi`, instruction counts cover only the region of interest: each thread counts from
//! its first block inside it, so threads that ran different amounts of set-up code before the
//! ROI start it together, as the simulator's instruction-count interleaving assumes.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use clap::Args;

#[derive(Args)]
pub struct CaptureArgs {
    /// Output native trace.
    #[arg(short, long)]
    out: PathBuf,
    /// Threads per socket K, recorded in the trace's metadata and used for the summary's page
    /// sharing (thread t on socket t / K).
    #[arg(long)]
    threads_per_socket: Option<usize>,
    /// Record only between the program's ROI markers (tracer/numasim_roi.h); default: the whole run.
    #[arg(long)]
    roi: bool,
    /// QEMU user-mode binary (default: qemu-x86_64 or qemu-aarch64, from the program's ELF header).
    #[arg(long)]
    qemu: Option<PathBuf>,
    /// Print the summary as JSON on standard output; the traced program's own standard output
    /// then goes to standard error, so standard output holds the JSON alone.
    #[arg(long)]
    json: bool,
    /// The program and its arguments (after `--`).
    #[arg(required = true, last = true)]
    command: Vec<std::ffi::OsString>,
}

#[cfg(numasim_tracer)]
const PLUGIN_SO: Option<&[u8]> = Some(include_bytes!(env!("NUMASIM_QEMU_PLUGIN_SO")));
#[cfg(not(numasim_tracer))]
const PLUGIN_SO: Option<&[u8]> = None;

/// Finds `program` as the shell would (a path if it has a slash, else on PATH).
fn resolve_program(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 || program.is_absolute() {
        return program.is_file().then(|| program.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// The QEMU user-mode binary for an ELF file's machine, or why there is none.
fn qemu_for(program: &Path) -> anyhow::Result<&'static str> {
    let mut head = [0u8; 20];
    let mut f = std::fs::File::open(program).with_context(|| format!("opening {}", program.display()))?;
    let n = f.read(&mut head)?;
    if n < 20 || head[..4] != *b"\x7fELF" {
        bail!(
            "{}: not an ELF executable (give a compiled program, not a script)",
            program.display()
        );
    }
    let machine = u16::from_le_bytes([head[18], head[19]]);
    match (head[4], machine) {
        (2, 62) => Ok("qemu-x86_64"),
        (2, 183) => Ok("qemu-aarch64"),
        _ => bail!(
            "{}: ELF machine {machine} is not supported (x86-64 and aarch64 programs are)",
            program.display()
        ),
    }
}

/// Writes the embedded plugin to a new private file in the temporary directory.
struct PluginFile(PathBuf);

impl PluginFile {
    fn write(bytes: &[u8]) -> anyhow::Result<Self> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let dir = std::env::temp_dir();
        for n in 0..1000u32 {
            let path = dir.join(format!("numasim-qemu-{}-{n}.so", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o700)
                .open(&path)
            {
                Ok(mut f) => {
                    numasim_output::signals::remove_on_signal(&path);
                    let me = PluginFile(path);
                    f.write_all(bytes)
                        .with_context(|| format!("writing the tracer plugin to {}", me.0.display()))?;
                    return Ok(me);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
        bail!("could not create the tracer plugin file in {}", dir.display())
    }
}

impl Drop for PluginFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        numasim_output::signals::forget_file(&self.0);
    }
}

/// QEMU in a process group of its own, killed (SIGKILL: QEMU ignores SIGTERM while it runs the
/// program) on every way out that did not wait for it: an error, a panic, SIGINT/SIGTERM/SIGHUP
/// (the signal thread kills the group), and numasim's own death (`PR_SET_PDEATHSIG`).
struct QemuGroup {
    child: std::process::Child,
    waited: bool,
}

impl QemuGroup {
    fn new(child: std::process::Child) -> Self {
        numasim_output::signals::kill_on_signal(child.id() as i32);
        QemuGroup { child, waited: false }
    }

    fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        let status = self.child.wait()?;
        self.waited = true;
        // The program's own children (a daemon it started) go with it.
        self.kill_group();
        numasim_output::signals::forget_process_group(self.child.id() as i32);
        Ok(status)
    }

    fn kill_group(&self) {
        // SAFETY: kill(2) on the process group this process created for QEMU.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
    }
}

impl Drop for QemuGroup {
    fn drop(&mut self) {
        if !self.waited {
            self.kill_group();
            let _ = self.child.wait();
            numasim_output::signals::forget_process_group(self.child.id() as i32);
        }
    }
}

pub fn capture(args: CaptureArgs) -> anyhow::Result<()> {
    let Some(plugin) = PLUGIN_SO else {
        bail!(
            "this numasim was built without its QEMU tracer (no C compiler at build time); install gcc \
             and rebuild (cargo build --release)"
        );
    };
    if let Some(0) = args.threads_per_socket {
        bail!("--threads-per-socket must be at least 1");
    }
    let program = PathBuf::from(&args.command[0]);
    let resolved =
        resolve_program(&program).with_context(|| format!("{}: no such program (nor on PATH)", program.display()))?;
    let qemu = match &args.qemu {
        Some(q) => q.clone(),
        None => PathBuf::from(qemu_for(&resolved)?),
    };
    let inputs = [resolved.clone()];
    numasim::trace::convert::refuse_output_among_inputs(&args.out, &inputs)?;
    let plugin_file = PluginFile::write(plugin)?;

    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors into the array; both are owned below.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error()).context("creating the trace pipe");
    }
    // SAFETY: freshly created descriptors, owned by nothing else.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let wfd = fds[1];
    let mut plugin_arg = format!("{},fd={wfd}", plugin_file.0.display());
    if args.roi {
        plugin_arg.push_str(",roi=on");
    }
    let mut cmd = Command::new(&qemu);
    cmd.arg("-plugin")
        .arg(&plugin_arg)
        .arg(&resolved)
        .args(&args.command[1..])
        .process_group(0);
    // SAFETY: only fcntl and prctl, async-signal-safe, between fork and exec: QEMU inherits the
    // write end, and is killed if numasim dies without reaching its cleanup (SIGKILL).
    unsafe {
        cmd.pre_exec(move || {
            if libc::fcntl(wfd, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    if args.json {
        // Standard output carries the JSON summary alone; the program prints to standard error.
        use std::os::fd::AsFd;
        let err = std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .context("duplicating standard error for the traced program's output")?;
        cmd.stdout(std::process::Stdio::from(err));
    }
    let started = std::time::Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => QemuGroup::new(c),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{} not found: numasim trace capture needs QEMU user-mode emulation (Debian/Ubuntu: \
             apt-get install qemu-user), or give --qemu PATH",
            qemu.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("starting {}", qemu.display())),
    };
    drop(write_end); // the pipe ends when QEMU (and the plugin) are gone
    let metadata = serde_json::json!({
        "generator": "numasim trace capture",
        "command": args.command.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        "qemu": qemu.display().to_string(),
        "roi": args.roi,
        "threads_per_socket": args.threads_per_socket,
        "access_size": "exact (from QEMU)",
        "instr": if args.roi {
            "per-thread count of guest instructions executed inside the ROI (from the thread's first block in it)"
        } else {
            "per-thread count of guest instructions executed since the thread started"
        },
    });
    let pipe = std::io::BufReader::with_capacity(1 << 20, std::fs::File::from(read_end));
    let written = numasim::trace::capture::write_capture(pipe, &args.out, &metadata);
    let status = child.wait().context("waiting for QEMU")?;
    let wall_s = started.elapsed().as_secs_f64();
    drop(plugin_file);
    let summary = written.with_context(|| format!("writing {}", args.out.display()))?;

    let records_per_s = summary.records as f64 / wall_s.max(1e-9);
    if args.json {
        let mut v = serde_json::to_value(&summary)?;
        v["wall_s"] = wall_s.into();
        v["records_per_s"] = records_per_s.into();
        v["exit_status"] = format!("{status}").into();
        super::print_json(&v)?;
    } else {
        eprintln!(
            "wrote {} · {} threads · {} records ({}) · {} bytes · {:.2} s, {:.1} M records/s",
            args.out.display(),
            summary.threads,
            summary.records,
            summary
                .records_per_thread
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(" + "),
            summary.file_bytes,
            wall_s,
            records_per_s / 1e6
        );
        eprintln!(
            "pages of 4 KiB: {} private to one thread, {} shared{}",
            summary.pages_private,
            summary.pages_shared,
            match args.threads_per_socket {
                Some(k) => format!(
                    " · threads per socket {k}: {} socket(s)",
                    summary.threads.div_ceil(k).max(1)
                ),
                None => String::new(),
            }
        );
        if args.roi && summary.roi_begins == 0 {
            eprintln!("note: --roi was given but the program reached no ROI begin marker, so nothing was recorded");
        }
    }
    let lost = if summary.complete {
        String::new()
    } else {
        " The tracer's end mark is missing, so up to 8192 accesses per thread that were still buffered are \
         not in it."
            .to_string()
    };
    if let Some(sig) = status.signal() {
        bail!(
            "{} was killed by signal {sig}{}; {} holds its accesses up to then ({} records, a complete, readable trace).{lost}",
            program.display(),
            signal_name(sig),
            args.out.display(),
            summary.records
        );
    }
    match status.code() {
        Some(0) => {
            if !lost.is_empty() {
                eprintln!("warning:{lost}");
            }
            Ok(())
        }
        Some(code) => bail!(
            "{} exited with status {code}; {} holds its {} records (a complete, readable trace).{lost}",
            program.display(),
            args.out.display(),
            summary.records
        ),
        None => Ok(()),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGILL => " (SIGILL)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGINT => " (SIGINT)",
        _ => "",
    }
}
