//! Decode ahead: an [`AccessSource`] adapter that runs another source on its own thread.
//!
//! # Why
//! Decoding a trace (or generating a workload) and simulating it are two halves of the same
//! per-access cost; on a machine with a spare core they can overlap. [`DecodeAhead`] moves the
//! wrapped source to a worker thread that fills, for every simulated thread, a short queue of
//! batches ahead of the simulator; the simulator's `next_batch` then only swaps a ready batch
//! for its spent one (the spent buffer goes back to the worker, so batches are reused, never
//! allocated per batch in the steady state). The engines do not change: they see an ordinary
//! source.
//!
//! # Why results stay byte-identical
//! Every simulated thread's stream is the wrapped source's stream for that thread, batch for
//! batch, in the same order; only *when* a batch is produced changes. The simulators already
//! produce results that depend only on the per-thread streams (never on batching or on the
//! order in which threads are pulled), and the sources produce per-thread streams that do not
//! depend on the pull order (trace readers keep a cursor per thread; generators buffer). An
//! error is queued at its place in its thread's stream, so the simulator meets it exactly where
//! the single-threaded run would.
//!
//! # Never slower than no pipeline by much
//! The source sits behind its own lock, held for exactly one batch at a time. When the
//! simulator needs a batch that is not ready and the worker is not producing at that moment
//! (its thread descheduled on a busy machine, or waiting for room), the simulator takes the
//! lock and produces the batch itself instead of sleeping. Whoever produces, the batches of
//! a thread come out of the source in order: a thread's queue is checked while holding the
//! source lock, so no batch of it can be in flight then.
//!
//! # Bounded memory
//! At most [`MAX_DEPTH`] batches per thread and [`AHEAD_BUDGET_BYTES`] in all wait in the
//! queues; the only exception is the one batch the simulator is waiting for, which the worker
//! always produces (otherwise a full budget could stall both sides).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::record::Access;
use crate::source::{AccessSource, SourceError};

/// Largest number of ready batches queued per thread. With the simulator's own batch that is
/// triple buffering; more only grows the data handed between cores through the caches.
pub const MAX_DEPTH: usize = 2;
/// Budget of all queued batches together (estimated at their capacity).
pub const AHEAD_BUDGET_BYTES: usize = 256 << 20;

/// One queued item: a batch (empty = end of the thread's stream) or the error in its place.
type Item = Result<Vec<Access>, SourceError>;

struct State {
    queues: Vec<VecDeque<Item>>,
    /// The worker has queued the end (or an error) of this thread; it pulls it no more.
    producer_done: Vec<bool>,
    /// Spent batches handed back by the simulator, reused by the worker.
    free: Vec<Vec<Access>>,
    /// Bytes (capacity) of the batches in the queues.
    queued_bytes: usize,
    /// Batches in the queues, and whether the worker sleeps waiting for room. The simulator
    /// wakes a sleeping worker only once the queues are half empty (or it needs a batch), so
    /// the worker runs in bursts instead of being woken for every batch.
    queued_batches: usize,
    worker_sleeping: bool,
    /// Thread the simulator is waiting for, served first.
    wanted: Option<usize>,
    /// Round-robin position of the worker.
    next: usize,
    stop: bool,
    /// The worker has exited (normally, or by a panic in the wrapped source).
    worker_gone: bool,
}

struct Shared {
    /// The wrapped source; held while one batch is produced (lock order: source, then state).
    source: Mutex<Box<dyn AccessSource>>,
    state: Mutex<State>,
    /// Signals the simulator: a batch was queued (or the worker is gone).
    ready: Condvar,
    /// Signals the worker: room in a queue, a wanted thread, or stop.
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state lock is never held across a call into the source, so a poisoned lock only
        // means the other side panicked between plain field updates; the state is consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a produced batch (or error) of thread `t` in the state.
    fn account(st: &mut State, t: usize, item: &Item) {
        match item {
            Ok(b) if b.is_empty() => st.producer_done[t] = true,
            Ok(_) => {}
            Err(_) => st.producer_done[t] = true,
        }
        if st.wanted == Some(t) {
            st.wanted = None;
        }
    }
}

/// Sets `worker_gone` when the worker exits, also by unwinding, so the simulator never waits
/// for a worker that is gone.
struct GoneGuard(Arc<Shared>);

impl Drop for GoneGuard {
    fn drop(&mut self) {
        self.0.lock().worker_gone = true;
        self.0.ready.notify_all();
    }
}

/// Runs a source on a worker thread, decoding ahead of the simulator (see the module docs).
pub struct DecodeAhead {
    threads: usize,
    describe: serde_json::Value,
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
    /// The simulator has received the end (or an error) of this thread.
    ended: Vec<bool>,
    depth: usize,
}

impl std::fmt::Debug for DecodeAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecodeAhead")
            .field("threads", &self.threads)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

impl DecodeAhead {
    /// Starts the worker thread over `src`.
    pub fn new(src: Box<dyn AccessSource>) -> Result<Self, SourceError> {
        let threads = src.threads();
        let describe = src.describe();
        // A batch of a trace reader is up to 8192 accesses of 24 bytes.
        let batch_bytes = 8192 * std::mem::size_of::<Access>();
        let depth = (AHEAD_BUDGET_BYTES / batch_bytes / threads.max(1)).clamp(1, MAX_DEPTH);
        let shared = Arc::new(Shared {
            source: Mutex::new(src),
            state: Mutex::new(State {
                queues: (0..threads).map(|_| VecDeque::new()).collect(),
                producer_done: vec![false; threads],
                free: Vec::new(),
                queued_bytes: 0,
                queued_batches: 0,
                worker_sleeping: false,
                wanted: None,
                next: 0,
                stop: false,
                worker_gone: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
        });
        let for_worker = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("numasim-decode".into())
            .spawn(move || produce(for_worker, depth))
            .map_err(|e| SourceError::Invalid(format!("cannot start the decode-ahead thread: {e}")))?;
        Ok(DecodeAhead {
            threads,
            describe,
            shared,
            worker: Some(worker),
            ended: vec![false; threads],
            depth,
        })
    }
}

/// Picks the next thread to produce for: the wanted one if its queue is empty, else the next
/// thread in round-robin order with room, within the byte budget.
fn pick(st: &mut State, depth: usize) -> Option<usize> {
    if let Some(w) = st.wanted {
        if !st.producer_done[w] && st.queues[w].is_empty() {
            return Some(w);
        }
    }
    if st.queued_bytes >= AHEAD_BUDGET_BYTES {
        return None;
    }
    let n = st.queues.len();
    for k in 0..n {
        let t = (st.next + k) % n;
        if !st.producer_done[t] && st.queues[t].len() < depth {
            st.next = (t + 1) % n;
            return Some(t);
        }
    }
    None
}

fn produce(shared: Arc<Shared>, depth: usize) {
    let _gone = GoneGuard(Arc::clone(&shared));
    loop {
        // Wait for work without holding the source, so the simulator can help itself.
        {
            let mut st = shared.lock();
            loop {
                if st.stop || st.producer_done.iter().all(|&d| d) {
                    return;
                }
                let saved_next = st.next;
                let any = pick(&mut st, depth).is_some();
                st.next = saved_next;
                if any {
                    break;
                }
                st.worker_sleeping = true;
                st = shared.room.wait(st).unwrap_or_else(|e| e.into_inner());
                st.worker_sleeping = false;
            }
        }
        let mut src = shared.source.lock().unwrap_or_else(|e| e.into_inner());
        // Pick again under the source lock: the simulator may have produced meanwhile.
        let (t, mut buf) = {
            let mut st = shared.lock();
            let Some(t) = pick(&mut st, depth) else {
                continue;
            };
            (t, st.free.pop().unwrap_or_default())
        };
        let item = src.next_batch(t, &mut buf).map(|()| buf);
        let mut st = shared.lock();
        Shared::account(&mut st, t, &item);
        if let Ok(b) = &item {
            st.queued_bytes += b.capacity() * std::mem::size_of::<Access>();
            st.queued_batches += 1;
        }
        st.queues[t].push_back(item);
        drop(st);
        drop(src);
        shared.ready.notify_one();
    }
}

impl AccessSource for DecodeAhead {
    fn threads(&self) -> usize {
        self.threads
    }

    /// The wrapped source's, asked under its lock (between two of the worker's batches).
    fn roi_start(&mut self) -> Result<Option<u64>, SourceError> {
        self.shared.source.lock().unwrap_or_else(|e| e.into_inner()).roi_start()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        if thread >= self.threads {
            out.clear();
            return Err(SourceError::Invalid(format!(
                "thread {thread} out of range ({} threads)",
                self.threads
            )));
        }
        if self.ended[thread] {
            out.clear();
            return Ok(());
        }
        let mut st = self.shared.lock();
        loop {
            if let Some(item) = st.queues[thread].pop_front() {
                let batch = match item {
                    Ok(b) => b,
                    Err(e) => {
                        self.ended[thread] = true;
                        out.clear();
                        return Err(e);
                    }
                };
                st.queued_bytes -= batch.capacity() * std::mem::size_of::<Access>();
                st.queued_batches -= 1;
                let mut spent = std::mem::replace(out, batch);
                if spent.capacity() > 0 {
                    spent.clear();
                    st.free.push(spent);
                }
                if out.is_empty() {
                    self.ended[thread] = true;
                }
                let wake = st.worker_sleeping && 2 * st.queued_batches <= self.threads * self.depth;
                drop(st);
                if wake {
                    self.shared.room.notify_one();
                }
                return Ok(());
            }
            if st.worker_gone && !st.producer_done[thread] {
                // Only a panic in the source ends the worker early; do not call it again.
                out.clear();
                self.ended[thread] = true;
                return Err(SourceError::Invalid(format!(
                    "the decode-ahead thread stopped before thread {thread}'s stream ended (it panicked)"
                )));
            }
            // Not ready: produce it here if the worker is not producing right now.
            drop(st);
            if let Ok(mut src) = self.shared.source.try_lock() {
                let st = self.shared.lock();
                if st.queues[thread].is_empty() && !st.producer_done[thread] && !st.worker_gone {
                    drop(st);
                    let res = src.next_batch(thread, out);
                    let mut st = self.shared.lock();
                    match &res {
                        Ok(()) if out.is_empty() => st.producer_done[thread] = true,
                        Ok(()) => {}
                        Err(_) => st.producer_done[thread] = true,
                    }
                    if st.wanted == Some(thread) {
                        st.wanted = None;
                    }
                    drop(st);
                    drop(src);
                    if res.is_err() || out.is_empty() {
                        self.ended[thread] = true;
                    }
                    if res.is_err() {
                        out.clear();
                    }
                    return res;
                }
                drop(st);
                drop(src);
            }
            st = self.shared.lock();
            if !st.queues[thread].is_empty() {
                continue;
            }
            st.wanted = Some(thread);
            self.shared.room.notify_one();
            st = self.shared.ready.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn describe(&self) -> serde_json::Value {
        self.describe.clone()
    }
}

impl Drop for DecodeAhead {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.room.notify_all();
        if let Some(w) = self.worker.take() {
            // The worker finishes at most the one batch it is producing.
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{collect_all, VecSource};

    fn streams(threads: u64, len: u64) -> Vec<Vec<Access>> {
        (0..threads)
            .map(|t| {
                (0..len)
                    .map(|i| Access::read(i * 3 + t, (t << 32) + i * 64, 8))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn same_streams_in_any_pull_order() {
        let s = streams(7, 10_000);
        let mut d = DecodeAhead::new(Box::new(VecSource::new(s.clone()).with_batch(333))).unwrap();
        assert_eq!(collect_all(&mut d).unwrap(), s);
        // Interleaved pulls, one batch per thread in turn, as the simulator does.
        let mut d = DecodeAhead::new(Box::new(VecSource::new(s.clone()).with_batch(100))).unwrap();
        let mut got = vec![Vec::new(); 7];
        let mut buf = Vec::new();
        let mut live = 7;
        while live > 0 {
            live = 0;
            for (t, g) in got.iter_mut().enumerate().rev() {
                d.next_batch(t, &mut buf).unwrap();
                g.extend_from_slice(&buf);
                live += !buf.is_empty() as usize;
            }
        }
        assert_eq!(got, s);
        // After the end, a thread stays empty.
        d.next_batch(0, &mut buf).unwrap();
        assert!(buf.is_empty());
    }

    /// A source failing in thread 1 after two batches.
    struct Failing(VecSource, usize);
    impl AccessSource for Failing {
        fn threads(&self) -> usize {
            self.0.threads()
        }
        fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
            if thread == 1 {
                if self.1 == 2 {
                    return Err(SourceError::Invalid("boom".into()));
                }
                self.1 += 1;
            }
            self.0.next_batch(thread, out)
        }
    }

    #[test]
    fn error_arrives_at_its_place_in_the_stream() {
        let s = streams(3, 1000);
        let src = Failing(VecSource::new(s.clone()).with_batch(100), 0);
        let mut d = DecodeAhead::new(Box::new(src)).unwrap();
        let mut buf = Vec::new();
        for _ in 0..2 {
            d.next_batch(1, &mut buf).unwrap();
            assert_eq!(buf.len(), 100);
        }
        assert!(d.next_batch(1, &mut buf).unwrap_err().to_string().contains("boom"));
        // Other threads are unaffected.
        let mut all = Vec::new();
        loop {
            d.next_batch(2, &mut buf).unwrap();
            if buf.is_empty() {
                break;
            }
            all.extend_from_slice(&buf);
        }
        assert_eq!(all, s[2]);
    }

    struct Panicking;
    impl AccessSource for Panicking {
        fn threads(&self) -> usize {
            2
        }
        fn next_batch(&mut self, _: usize, _: &mut Vec<Access>) -> Result<(), SourceError> {
            panic!("source bug");
        }
    }

    #[test]
    fn a_panicking_source_is_an_error_or_a_panic_never_a_hang() {
        for _ in 0..20 {
            let mut d = DecodeAhead::new(Box::new(Panicking)).unwrap();
            let mut buf = Vec::new();
            // Whichever thread calls the source first meets the panic: the worker (then the
            // simulator gets an error) or the simulator itself (then it panics, as it would
            // without the pipeline).
            if let Ok(r) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| d.next_batch(1, &mut buf))) {
                let e = r.unwrap_err().to_string();
                assert!(e.contains("decode-ahead thread stopped"), "{e}");
            }
            drop(d); // joins the worker; must not hang
        }
    }

    #[test]
    fn dropping_early_stops_the_worker() {
        let s = streams(4, 100_000);
        let mut d = DecodeAhead::new(Box::new(VecSource::new(s).with_batch(1000))).unwrap();
        let mut buf = Vec::new();
        d.next_batch(0, &mut buf).unwrap();
        drop(d); // must return (joins the worker), not hang
    }
}
