//! An OpenMP-like runtime for generators: parallel loops, schedules and barriers, run
//! incrementally so a whole run's accesses are never held in memory.
//!
//! A [`Kernel`] is a sequence of parallel loops (`#pragma omp for`) separated by barriers. The
//! runtime hands out each loop's items to threads as OpenMP would:
//! - `static`: thread t owns one contiguous block (libgomp's split: the first n mod T threads get
//!   one more item), processed in order;
//! - `dynamic,c`: chunks of c items go, in order, to whichever thread is free first — modelled
//!   as the thread with the lowest instruction count. Ties happen when a loop starts (every
//!   thread leaves the barrier at once); which thread then takes the first chunk is a matter
//!   of the host's timing, so each loop breaks them from a different thread, a fixed
//!   pseudo-random one per loop. Breaking them by thread id instead gave thread k chunk k at
//!   every step, so per-vertex arrays stayed with the thread that first touched them, unlike
//!   the real program's;
//! - `serial`: thread 0 does everything (a `single`/master section), the others wait;
//! - `per-thread`: T items, item t on thread t (per-thread epilogues such as copying local bins).
//!
//! Work proceeds in rounds: each round gives every thread its next small piece of the current
//! loop, appending the accesses to that thread's buffer. [`OmpSource::next_batch`] runs rounds
//! only until the asked-for thread has data, so buffers stay small while the consumer reads
//! all threads at similar instruction counts. A kernel whose single items can be heavy (a hub
//! vertex's triangles) declares itself [`Kernel::PIECEWISE`]: a piece is then about
//! `PIECE_ACCESSES` accesses, not a number of items, and a batch at most
//! `MAX_BATCH_ACCESSES`. Races between threads (CAS on a parent array, atomic
//! minimum) are resolved in round order, which is deterministic. At a barrier every thread's
//! instruction count is raised to the latest arrival's plus [`BARRIER_INSTRUCTIONS`]: waiting
//! threads spin, so no thread's next-loop accesses can precede another's current-loop accesses
//! when the simulator interleaves threads by instruction count. Under [`WaitPolicy::Passive`]
//! (OpenMP's `OMP_WAIT_POLICY=passive`) waiting threads sleep instead: they retire only the
//! barrier's own instructions, so a thread's instruction count is what it executed, as in a
//! trace of a program run that way; the runtime still keeps each thread's time (instructions
//! plus the waits) and hands `dynamic` chunks by it, so the schedule is the same under both.

use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::{Access, AccessSource, SourceError};
use serde::{Deserialize, Serialize};

/// Instructions a barrier costs every thread beyond waiting for the latest one.
pub const BARRIER_INSTRUCTIONS: u64 = 50;
/// Items per round for static and serial loops.
const STATIC_GRAIN: usize = 64;
/// Accesses a [`Kernel::PIECEWISE`] kernel's thread emits per turn before the runtime moves on
/// to the next thread (the rest of its items stay its own, for its next turn).
const PIECE_ACCESSES: usize = 1 << 14;
/// Most accesses [`OmpSource::next_batch`] returns at once for a [`Kernel::PIECEWISE`] kernel.
/// A consumer that reads ahead (`numasim_trace::pipeline`) asks threads in turn, not in
/// instruction order, so a thread's buffer can hold far more than it will be asked for soon;
/// handing it out whole let one thread run a whole buffer ahead, the others' buffers grow to
/// its instruction count, and so on (a 64-thread `tc` at graph scale 17 held 2.7 GB). Other
/// kernels hand out whole buffers, as before: copying a part costs `tpcc`'s generation 7 %,
/// and their buffers stay small. Batching never changes a thread's stream.
const MAX_BATCH_ACCESSES: usize = 1 << 16;

/// The `schedule` parameter of generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ScheduleName {
    /// Every main loop `schedule(static)` (a study setting).
    #[default]
    Static,
    /// Every main loop `schedule(dynamic, chunk)` (a study setting).
    Dynamic,
    /// Every loop with the schedule the modelled program's source gives it (GAP's pragmas for
    /// the graph kernels), which may differ from loop to loop.
    Gap,
}

impl numasim_config::param::ParamKind for ScheduleName {}

/// What a thread waiting at a barrier does (OpenMP's `OMP_WAIT_POLICY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WaitPolicy {
    /// It spins: it retires instructions until the last thread arrives.
    #[default]
    Active,
    /// It sleeps: it retires none while it waits.
    Passive,
}

impl numasim_config::param::ParamKind for WaitPolicy {}

/// How one loop's items are split among threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sched {
    Static,
    /// Chunk size (≥ 1).
    Dynamic(usize),
    Serial,
    PerThread,
}

impl Sched {
    /// The schedule of a main loop whose source declares `native`, under a generator's
    /// `schedule` / `chunk` parameters: `static` and `dynamic` override every main loop alike;
    /// `gap` keeps each loop's own `native` schedule (and ignores `chunk`).
    pub fn from_param(name: ScheduleName, chunk: usize, native: Sched) -> Sched {
        match name {
            ScheduleName::Static => Sched::Static,
            ScheduleName::Dynamic => Sched::Dynamic(chunk.max(1)),
            ScheduleName::Gap => native,
        }
    }
}

/// One parallel loop: `items` iterations under `sched`.
#[derive(Debug, Clone, Copy)]
pub struct Loop {
    pub items: usize,
    pub sched: Sched,
}

/// An algorithm as a sequence of parallel loops.
pub trait Kernel: Send {
    /// The next loop after the previous barrier, or `None` when the algorithm has finished.
    /// Sequential decisions between loops (switching direction, convergence tests) happen here.
    fn next_loop(&mut self) -> Option<Loop>;
    /// Thread `t` runs items `lo..hi` of the current loop, emitting its accesses into `e`.
    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter);
    /// Items of one range may run in several calls, `run(t, lo, i)` then `run(t, i, hi)`,
    /// with the same accesses as one call: the runtime then runs a thread's share item by item,
    /// about `PIECE_ACCESSES` accesses per turn, so one heavy chunk or block (a hub vertex's
    /// triangles) never fills a buffer while the other threads' buffers fill up to its
    /// instruction count. Off by default: a kernel whose calls emit per-call accesses, or
    /// whose races are resolved per call, keeps its whole pieces. (A constant, so the other
    /// kernels' rounds compile as they did before it.)
    const PIECEWISE: bool = false;
    /// Thread `t` enters the loop (every thread, with or without items): the accesses every
    /// thread of the team makes there, such as reading the struct of shared variables.
    fn start_thread(&mut self, _t: usize, _e: &mut Emitter) {}
    /// Thread `t` reached the end of its share of the loop (before the barrier): flush
    /// thread-local buffers, publish reductions.
    fn finish_thread(&mut self, _t: usize, _e: &mut Emitter) {}
    /// Free-form description of the generator.
    fn describe(&self) -> serde_json::Value;
    /// Whether the loop [`Kernel::next_loop`] returned last (before the first: none) is in the
    /// program's region of interest, its computation proper; the loops before the first that
    /// is are its set-up (building and first writing the data). `None`: the kernel declares
    /// no set-up.
    fn in_roi(&self) -> Option<bool> {
        None
    }
}

#[derive(Debug, Clone, Copy)]
struct Cursor {
    next: usize,
    end: usize,
}

/// Runs a [`Kernel`] on T threads and serves its accesses as an [`AccessSource`].
pub struct OmpSource<K: Kernel> {
    kernel: K,
    em: Vec<Emitter>,
    current: Option<Loop>,
    cursors: Vec<Cursor>,
    dynamic_next: usize,
    finished: bool,
    /// Per thread: accesses of its buffer already handed out (a batch larger than
    /// [`MAX_BATCH_ACCESSES`] goes in several).
    taken: Vec<usize>,
    /// Loops started so far, and the thread that wins instruction-count ties in this one.
    loops: u64,
    tie_first: usize,
    wait: WaitPolicy,
    /// Per thread: instructions it waited at barriers without retiring them (passive waits).
    waited: Vec<u64>,
    /// Where the region of interest began, once its first loop has started (see
    /// [`AccessSource::roi_start`]); an error when the threads entered it at different
    /// instruction counts.
    roi: Option<Result<u64, String>>,
}

/// A fixed pseudo-random sequence (SplitMix64's output function).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<K: Kernel> OmpSource<K> {
    pub fn new(kernel: K, threads: usize) -> Self {
        OmpSource {
            kernel,
            em: (0..threads).map(|_| Emitter::new()).collect(),
            current: None,
            cursors: vec![Cursor { next: 0, end: 0 }; threads],
            dynamic_next: 0,
            finished: false,
            taken: vec![0; threads],
            loops: 0,
            tie_first: 0,
            wait: WaitPolicy::Active,
            waited: vec![0; threads],
            roi: None,
        }
    }

    /// The same runtime with waiting threads doing as `wait` says.
    pub fn with_wait(mut self, wait: WaitPolicy) -> Self {
        self.wait = wait;
        self
    }

    /// Thread `t`'s time: its instructions and its waits.
    fn clock(&self, t: usize) -> u64 {
        self.em[t].instr + self.waited[t]
    }

    /// The kernel (its results, for correctness checks).
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// Runs the algorithm to its end, discarding accesses (tests of algorithm results).
    pub fn run_to_end(&mut self) {
        while !self.finished {
            self.round();
            for e in &mut self.em {
                e.buf.clear();
            }
            self.taken.fill(0);
        }
    }

    fn start_loop(&mut self) -> bool {
        let Some(l) = self.kernel.next_loop() else {
            self.finished = true;
            return false;
        };
        let t_count = self.em.len();
        if self.roi.is_none() && self.kernel.in_roi() == Some(true) {
            self.roi = Some(self.roi_here());
        }
        let n = l.items;
        self.loops += 1;
        self.tie_first = (splitmix64(self.loops) % t_count.max(1) as u64) as usize;
        match l.sched {
            Sched::Static | Sched::PerThread => {
                let (q, r) = (n / t_count, n % t_count);
                let mut start = 0;
                for (t, c) in self.cursors.iter_mut().enumerate() {
                    let len = q + usize::from(t < r);
                    *c = Cursor {
                        next: start,
                        end: start + len,
                    };
                    start += len;
                }
            }
            Sched::Serial => {
                for c in self.cursors.iter_mut() {
                    *c = Cursor { next: 0, end: 0 };
                }
                self.cursors[0] = Cursor { next: 0, end: n };
            }
            // Every cursor is spent when a loop ends: a dynamic loop's chunks start empty.
            Sched::Dynamic(_) => self.dynamic_next = 0,
        }
        for t in 0..t_count {
            self.kernel.start_thread(t, &mut self.em[t]);
        }
        self.current = Some(l);
        true
    }

    /// The instruction count at which every thread starts the loop about to start: one count
    /// after a barrier with spinning waits; under passive waits the threads that slept retired
    /// fewer instructions, and no one count separates the set-up from what follows.
    fn roi_here(&self) -> Result<u64, String> {
        let first = self.em.first().map_or(0, |e| e.instr);
        if self.em.iter().all(|e| e.instr == first) {
            Ok(first)
        } else {
            Err(
                "the threads enter the region of interest at different instruction counts \
                 (wait_policy = \"passive\": the threads that slept through the set-up retired fewer \
                 instructions); measure the whole run, or use wait_policy = \"active\""
                    .into(),
            )
        }
    }

    /// One round: every thread gets its next piece of the current loop; ends the loop with a
    /// barrier when nothing is left.
    fn round(&mut self) {
        let l = match self.current {
            Some(l) => l,
            None => {
                if !self.start_loop() {
                    return;
                }
                self.current.expect("loop just started")
            }
        };
        match l.sched {
            Sched::Static | Sched::PerThread | Sched::Serial => {
                for t in 0..self.em.len() {
                    if self.cursors[t].next < self.cursors[t].end {
                        self.run_turn(t, STATIC_GRAIN);
                    }
                }
            }
            Sched::Dynamic(chunk) => {
                for _ in 0..self.em.len() {
                    let more = self.dynamic_next < l.items;
                    // The thread free first: the lowest instruction count among those with
                    // work left (a chunk of their own, or chunks left to take).
                    let (count, first) = (self.em.len(), self.tie_first);
                    let Some(t) = (0..count)
                        .filter(|&t| more || self.cursors[t].next < self.cursors[t].end)
                        .min_by_key(|&t| (self.clock(t), (t + count - first) % count))
                    else {
                        break;
                    };
                    if self.cursors[t].next >= self.cursors[t].end {
                        let lo = self.dynamic_next;
                        let hi = (lo + chunk).min(l.items);
                        self.dynamic_next = hi;
                        self.cursors[t] = Cursor { next: lo, end: hi };
                    }
                    self.run_turn(t, chunk);
                }
            }
        }
        let left = self.cursors.iter().any(|c| c.next < c.end)
            || matches!(l.sched, Sched::Dynamic(_)) && self.dynamic_next < l.items;
        if !left {
            for t in 0..self.em.len() {
                self.kernel.finish_thread(t, &mut self.em[t]);
            }
            let latest = (0..self.em.len()).map(|t| self.clock(t)).max().unwrap_or(0);
            for t in 0..self.em.len() {
                let wait = latest - self.clock(t);
                match self.wait {
                    WaitPolicy::Active => self.em[t].instr += wait,
                    WaitPolicy::Passive => self.waited[t] += wait,
                }
                self.em[t].instr += BARRIER_INSTRUCTIONS;
            }
            self.current = None;
        }
    }
}

impl<K: Kernel> OmpSource<K> {
    /// Thread `t`'s next turn on its own range: up to `items` items in one call, or, for a
    /// [`Kernel::PIECEWISE`] kernel, one item at a time until it has emitted
    /// [`PIECE_ACCESSES`] accesses this turn or the range ends.
    fn run_turn(&mut self, t: usize, items: usize) {
        let (e, c) = (&mut self.em[t], &mut self.cursors[t]);
        if K::PIECEWISE {
            let start = e.buf.len();
            while c.next < c.end && e.buf.len() - start < PIECE_ACCESSES {
                self.kernel.run(t, c.next, c.next + 1, e);
                c.next += 1;
            }
        } else {
            let hi = c.next.saturating_add(items).min(c.end);
            self.kernel.run(t, c.next, hi, e);
            c.next = hi;
        }
    }
}

impl<K: Kernel> AccessSource for OmpSource<K> {
    fn threads(&self) -> usize {
        self.em.len()
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        if thread >= self.em.len() {
            return Err(SourceError::Invalid(format!(
                "thread {thread} asked of a {}-thread generator",
                self.em.len()
            )));
        }
        while self.em[thread].buf.is_empty() && !self.finished {
            self.round();
        }
        out.clear();
        let (buf, taken) = (&mut self.em[thread].buf, &mut self.taken[thread]);
        if !K::PIECEWISE || (*taken == 0 && buf.len() <= MAX_BATCH_ACCESSES) {
            std::mem::swap(out, buf);
        } else {
            let end = (*taken + MAX_BATCH_ACCESSES).min(buf.len());
            out.extend_from_slice(&buf[*taken..end]);
            *taken = end;
            if end == buf.len() {
                buf.clear();
                *taken = 0;
            }
        }
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        self.kernel.describe()
    }

    /// Runs the kernel (buffering every thread's accesses) until the first loop of its region
    /// of interest has started; `None` when the kernel declares no set-up, or its run ends
    /// before any loop of the region.
    fn roi_start(&mut self) -> Result<Option<u64>, SourceError> {
        loop {
            match &self.roi {
                Some(Ok(r)) => return Ok(Some(*r)),
                Some(Err(e)) => return Err(SourceError::Invalid(e.clone())),
                None => {}
            }
            if self.finished || self.kernel.in_roi().is_none() {
                return Ok(None);
            }
            self.round();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_trace::collect_all;

    /// Each loop writes one word per item at item*8; loop 1 is static, 2 dynamic, 3 serial.
    struct Toy {
        loops: usize,
        items: usize,
    }
    impl Kernel for Toy {
        fn next_loop(&mut self) -> Option<Loop> {
            self.loops += 1;
            let sched = match self.loops {
                1 => Sched::Static,
                2 => Sched::Dynamic(3),
                3 => Sched::Serial,
                _ => return None,
            };
            Some(Loop {
                items: self.items,
                sched,
            })
        }
        fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
            for i in lo..hi {
                e.write(1 + (i % 5) as u64, (self.loops * 1_000_000 + i * 8) as u64, 8);
            }
        }
        fn describe(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
    }

    /// Item i writes `(i % 7) * 3000` words at its own addresses: heavy, uneven items.
    struct Heavy<const P: bool> {
        sched: Sched,
        started: bool,
    }
    impl<const P: bool> Kernel for Heavy<P> {
        fn next_loop(&mut self) -> Option<Loop> {
            if std::mem::replace(&mut self.started, true) {
                return None;
            }
            Some(Loop {
                items: 200,
                sched: self.sched,
            })
        }
        fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
            for i in lo..hi {
                for k in 0..(i % 7) * 3000 {
                    e.read(1, ((i << 20) + k * 8) as u64, 8);
                }
            }
        }
        const PIECEWISE: bool = P;
        fn describe(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
    }

    fn heavy<const P: bool>(sched: Sched) -> OmpSource<Heavy<P>> {
        OmpSource::new(Heavy::<P> { sched, started: false }, 4)
    }

    #[test]
    fn piecewise_items_keep_each_threads_items_and_bound_what_a_turn_emits() {
        // Static: a thread's block is its own, so its stream is the same piece by piece.
        let whole = collect_all(&mut heavy::<false>(Sched::Static)).unwrap();
        let mut pieces = heavy::<true>(Sched::Static);
        assert_eq!(collect_all(&mut pieces).unwrap(), whole);
        // Dynamic: every item once, each chunk of 8 on one thread, in order.
        let mut src = heavy::<true>(Sched::Dynamic(8));
        let all = collect_all(&mut src).unwrap();
        let mut owner = vec![usize::MAX; 200];
        for (t, s) in all.iter().enumerate() {
            for a in s {
                let i = (a.vaddr >> 20) as usize;
                assert!(owner[i] == usize::MAX || owner[i] == t, "item {i} on two threads");
                owner[i] = t;
            }
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr));
        }
        let total: usize = all.iter().map(Vec::len).sum();
        assert_eq!(total, (0..200).map(|i| (i % 7) * 3000).sum::<usize>());
        for c in 0..25 {
            let chunk: Vec<usize> = (c * 8..c * 8 + 8).filter(|&i| i % 7 != 0).map(|i| owner[i]).collect();
            assert!(chunk.windows(2).all(|w| w[0] == w[1]), "chunk {c}: {chunk:?}");
        }
        // One turn of a piecewise thread stops soon after PIECE_ACCESSES (items are ≤ 18 000).
        let mut src = heavy::<true>(Sched::Dynamic(8));
        src.round();
        assert!(src.em.iter().all(|e| e.buf.len() < PIECE_ACCESSES + 18_000));
    }

    #[test]
    fn batches_are_bounded_and_concatenate_to_the_stream() {
        let whole = collect_all(&mut heavy::<true>(Sched::Static)).unwrap();
        let mut src = heavy::<true>(Sched::Static);
        let mut got = vec![Vec::new(); 4];
        let mut batch = Vec::new();
        // Thread 3 first: the others' buffers fill meanwhile (static blocks, 64 items a round).
        for t in [3, 0, 1, 2] {
            loop {
                src.next_batch(t, &mut batch).unwrap();
                if batch.is_empty() {
                    break;
                }
                assert!(batch.len() <= MAX_BATCH_ACCESSES);
                got[t].extend_from_slice(&batch);
            }
        }
        assert_eq!(got, whole);
        assert!(whole.iter().any(|s| s.len() > MAX_BATCH_ACCESSES));
    }

    #[test]
    fn schedule_parameter_overrides_or_keeps_the_native_schedule() {
        let native = Sched::Dynamic(1024);
        assert_eq!(Sched::from_param(ScheduleName::Static, 64, native), Sched::Static);
        assert_eq!(Sched::from_param(ScheduleName::Dynamic, 64, native), Sched::Dynamic(64));
        assert_eq!(Sched::from_param(ScheduleName::Dynamic, 0, native), Sched::Dynamic(1));
        assert_eq!(Sched::from_param(ScheduleName::Gap, 64, native), native);
        assert_eq!(Sched::from_param(ScheduleName::Gap, 64, Sched::Static), Sched::Static);
        let name: ScheduleName = toml::Value::String("gap".into()).try_into().unwrap();
        assert_eq!(name, ScheduleName::Gap);
    }

    #[test]
    fn every_item_once_barriers_order_loops_and_instructions_increase() {
        let mut src = OmpSource::new(Toy { loops: 0, items: 1000 }, 4);
        let all = collect_all(&mut src).unwrap();
        let total: usize = all.iter().map(|s| s.len()).sum();
        assert_eq!(total, 3000);
        // Static: thread 1 owns items 250..500.
        let loop1: Vec<u64> = all[1]
            .iter()
            .filter(|a| a.vaddr / 1_000_000 == 1)
            .map(|a| a.vaddr)
            .collect();
        assert_eq!(loop1.len(), 250);
        assert_eq!(loop1[0], 1_000_000 + 250 * 8);
        // Serial: only thread 0.
        for s in &all[1..] {
            assert!(s.iter().all(|a| a.vaddr / 1_000_000 != 3));
        }
        // Barrier: every access of loop k+1 has a larger instruction count than all of loop k.
        for k in 1..3u64 {
            let end_k = all
                .iter()
                .flatten()
                .filter(|a| a.vaddr / 1_000_000 == k)
                .map(|a| a.instr)
                .max();
            let start_next = all
                .iter()
                .flatten()
                .filter(|a| a.vaddr / 1_000_000 == k + 1)
                .map(|a| a.instr)
                .min();
            assert!(end_k < start_next);
        }
        for s in &all {
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr));
        }
    }

    /// Loop 1 static, item i costing i + 1 instructions (later threads work longer); loop 2
    /// static, every item costing 1.
    struct Ramp {
        loops: usize,
    }
    impl Kernel for Ramp {
        fn next_loop(&mut self) -> Option<Loop> {
            self.loops += 1;
            (self.loops <= 2).then_some(Loop {
                items: 8,
                sched: Sched::Static,
            })
        }
        fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
            for i in lo..hi {
                let cost = if self.loops == 1 { i as u64 + 1 } else { 1 };
                e.read(cost, (self.loops * 100 + i) as u64, 4);
            }
        }
        fn describe(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
    }

    /// [`Toy`]'s loops (static, dynamic, serial) with the region of interest declared from
    /// loop `from` on.
    struct Declared {
        toy: Toy,
        from: usize,
    }
    impl Kernel for Declared {
        fn next_loop(&mut self) -> Option<Loop> {
            self.toy.next_loop()
        }
        fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
            self.toy.run(t, lo, hi, e)
        }
        fn describe(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn in_roi(&self) -> Option<bool> {
            Some(self.toy.loops >= self.from)
        }
    }

    fn declared(from: usize) -> OmpSource<Declared> {
        OmpSource::new(
            Declared {
                toy: Toy { loops: 0, items: 1000 },
                from,
            },
            4,
        )
    }

    #[test]
    fn the_region_of_interest_starts_after_every_set_up_access_and_before_every_other() {
        let whole = collect_all(&mut declared(3)).unwrap();
        let mut src = declared(3);
        let r = src.roi_start().unwrap().expect("declared");
        assert_eq!(src.roi_start().unwrap(), Some(r), "asked again: the same");
        // Asking generated the set-up ahead; the streams are unchanged.
        assert_eq!(collect_all(&mut src).unwrap(), whole);
        for a in whole.iter().flatten() {
            let in_roi = a.vaddr / 1_000_000 >= 3;
            assert_eq!(a.instr > r, in_roi, "{a:?} against {r}");
        }
        // The serial loop 3 starts after the barrier closing loop 2, at one count for all.
        let loop2_end = whole
            .iter()
            .flatten()
            .filter(|a| a.vaddr / 1_000_000 == 2)
            .map(|a| a.instr)
            .max();
        assert_eq!(r, loop2_end.unwrap() + BARRIER_INSTRUCTIONS);
        // A region that starts with the first loop starts at 0; a kernel without one, none.
        assert_eq!(declared(1).roi_start().unwrap(), Some(0));
        assert_eq!(declared(9).roi_start().unwrap(), None, "declared, never reached");
        let mut plain = OmpSource::new(Toy { loops: 0, items: 1000 }, 4);
        assert_eq!(plain.roi_start().unwrap(), None);
        assert_eq!(
            collect_all(&mut plain).unwrap(),
            collect_all(&mut OmpSource::new(Toy { loops: 0, items: 1000 }, 4)).unwrap()
        );
    }

    #[test]
    fn sleeping_threads_leave_no_single_start_of_the_region_of_interest() {
        // Under passive waits the threads leave the dynamic loop 2 with the instructions of the
        // chunks each took, not the latest thread's: no single count separates loop 3.
        let mut src = declared(3).with_wait(WaitPolicy::Passive);
        let e = src.roi_start().unwrap_err().to_string();
        assert!(e.contains("wait_policy"), "{e}");
    }

    #[test]
    fn passive_waits_retire_no_instructions_and_keep_the_schedule() {
        let run = |wait| {
            let mut src = OmpSource::new(Toy { loops: 0, items: 1000 }, 4).with_wait(wait);
            collect_all(&mut src).unwrap()
        };
        let (active, passive) = (run(WaitPolicy::Active), run(WaitPolicy::Passive));
        let addrs = |s: &[Access]| s.iter().map(|a| (a.vaddr, a.kind)).collect::<Vec<_>>();
        for (a, p) in active.iter().zip(&passive) {
            assert_eq!(addrs(a), addrs(p), "the same accesses on the same threads");
            assert!(p.windows(2).all(|w| w[0].instr < w[1].instr));
        }
        // Two threads, items 0..4 (costs 1+2+3+4) and 4..8 (5+6+7+8); then one item each.
        let ramp = |wait| collect_all(&mut OmpSource::new(Ramp { loops: 0 }, 2).with_wait(wait)).unwrap();
        let (active, passive) = (ramp(WaitPolicy::Active), ramp(WaitPolicy::Passive));
        let b = BARRIER_INSTRUCTIONS;
        assert_eq!(active[0][4].instr, 26 + b + 1, "spinning: thread 0 waits for thread 1");
        assert_eq!(passive[0][4].instr, 10 + b + 1, "sleeping: only the barrier's own");
        assert_eq!(active[1][4].instr, 26 + b + 1);
        assert_eq!(passive[1][4].instr, 26 + b + 1);
    }
}
