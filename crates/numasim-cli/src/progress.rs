//! What a run shows while it works: a bar with percentage and ETA on a terminal (phases out of
//! `max_phases` when the run has a limit, else a spinner with the phase count), redrawn several
//! times a second; elsewhere (CI logs, batch jobs) one line every `LINE_EVERY` so a long run is
//! visibly alive. Setup time (graph generation, trace opening) is reported on its own.

use numasim::experiment::Progress;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LINE_EVERY: Duration = Duration::from_secs(10);

pub struct RunProgress {
    bar: Option<indicatif::ProgressBar>,
    state: Arc<Mutex<Option<Progress>>>,
    stop: Arc<(Mutex<bool>, std::sync::Condvar)>,
    printer: Option<std::thread::JoinHandle<()>>,
    quiet: bool,
    setup_reported: bool,
}

impl RunProgress {
    pub fn new(quiet: bool) -> Self {
        Self::with(quiet, std::io::stderr().is_terminal(), LINE_EVERY)
    }

    /// `tty`: draw a bar (else print a line every `every`).
    fn with(quiet: bool, tty: bool, every: Duration) -> Self {
        let state = Arc::new(Mutex::new(None::<Progress>));
        let stop = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let bar = (tty && !quiet).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} setting up the workload")
                    .expect("valid template"),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let printer = (!tty && !quiet).then(|| {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                let started = Instant::now();
                let (lock, cvar) = &*stop;
                let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    // The flag is checked before every wait (`wait_timeout_while`): a `finish`
                    // that ran before this thread first took the lock has already notified, and
                    // waiting regardless would hold the run up for a whole interval.
                    let (s, _) = cvar
                        .wait_timeout_while(stopped, every, |stop| !*stop)
                        .unwrap_or_else(|e| e.into_inner());
                    stopped = s;
                    if *stopped {
                        return;
                    }
                    let p = *state.lock().unwrap_or_else(|e| e.into_inner());
                    eprintln!("{}", line(p.as_ref(), started.elapsed()));
                }
            })
        });
        RunProgress {
            bar,
            state,
            stop,
            printer,
            quiet,
            setup_reported: false,
        }
    }

    /// Called by the driver after setup and after every phase.
    pub fn update(&mut self, p: &Progress) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(*p);
        if !self.setup_reported {
            self.setup_reported = true;
            if let Some(b) = &self.bar {
                b.println(format!("workload set up in {:.1} s", p.setup_s));
                let style = match p.max_phases {
                    Some(n) => {
                        b.set_length(n);
                        "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} phases {percent}% · ETA {eta} · {msg}"
                    }
                    None => "{spinner} {elapsed_precise} phase {pos} · {msg}",
                };
                b.set_style(indicatif::ProgressStyle::with_template(style).expect("valid template"));
            } else if !self.quiet {
                eprintln!("workload set up in {:.1} s", p.setup_s);
            }
        }
        if let Some(b) = &self.bar {
            b.set_position(p.phases_done);
            b.set_message(format!("{} accesses", p.accesses));
        }
    }

    pub fn finish(mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        let (lock, cvar) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cvar.notify_all();
        if let Some(h) = self.printer.take() {
            let _ = h.join();
        }
    }
}

/// The periodic line of a non-interactive run.
fn line(p: Option<&Progress>, elapsed: Duration) -> String {
    let t = elapsed.as_secs_f64();
    match p {
        None => format!("progress: {t:.0} s · setting up the workload"),
        Some(p) => {
            let of = match p.max_phases {
                Some(n) if n > 0 => format!("/{n} ({:.0} %)", 100.0 * p.phases_done as f64 / n as f64),
                _ => String::new(),
            };
            format!(
                "progress: {t:.0} s · phase {}{of} · {} accesses",
                p.phases_done, p.accesses
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_say_where_the_run_is() {
        assert!(line(None, Duration::from_secs(3)).contains("setting up"));
        let p = Progress {
            phases_done: 3,
            accesses: 1200,
            max_phases: Some(12),
            setup_s: 0.5,
        };
        assert_eq!(
            line(Some(&p), Duration::from_secs(20)),
            "progress: 20 s · phase 3/12 (25 %) · 1200 accesses"
        );
        let open = Progress { max_phases: None, ..p };
        assert_eq!(
            line(Some(&open), Duration::from_secs(20)),
            "progress: 20 s · phase 3 · 1200 accesses"
        );
    }

    #[test]
    fn finishing_right_after_starting_never_waits_for_the_printer() {
        // A `finish` that comes before the printer thread first takes its lock must not be a
        // lost wake-up (the run would wait a whole interval). With an interval of an hour, one
        // lost wake-up in this loop would hang it; the watchdog turns that into a failure
        // instead of timing anything.
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for _ in 0..500 {
                let p = RunProgress::with(false, false, Duration::from_secs(3600));
                p.finish();
            }
            let _ = done_tx.send(());
        });
        assert!(
            done_rx.recv_timeout(Duration::from_secs(120)).is_ok(),
            "a progress printer missed its stop signal"
        );
    }
}
