//! An OpenMP-like runtime for generators: parallel loops, schedules and barriers, run
//! incrementally so a whole run's accesses are never held in memory.
//!
//! A [`Kernel`] is a sequence of parallel loops (`#pragma omp for`) separated by barriers. The
//! runtime hands out each loop's items to threads as OpenMP would:
//! - `static`: thread t owns one contiguous block (libgomp's split: the first n mod T threads get
//!   one more item), processed in order;
//! - `dynamic,c`: chunks of c items go, in order, to whichever thread is free first — modelled
//!   as the thread with the lowest instruction count (ties to the lowest id);
//! - `serial`: thread 0 does everything (a `single`/master section), the others wait;
//! - `per-thread`: T items, item t on thread t (per-thread epilogues such as copying local bins).
//!
//! Work proceeds in rounds: each round gives every thread its next small piece of the current
//! loop, appending the accesses to that thread's buffer. [`OmpSource::next_batch`] runs rounds
//! only until the asked-for thread has data, so buffers stay small while the consumer reads all
//! threads at similar instruction counts. Races between threads (CAS on a parent array, atomic
//! minimum) are resolved in round order, which is deterministic. At a barrier every thread's
//! instruction count is raised to the latest arrival's plus [`BARRIER_INSTRUCTIONS`]: waiting
//! threads spin, so no thread's next-loop accesses can precede another's current-loop accesses
//! when the simulator interleaves threads by instruction count.

use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::{Access, AccessSource, SourceError};
use serde::{Deserialize, Serialize};

/// Instructions a barrier costs every thread beyond waiting for the latest one.
pub const BARRIER_INSTRUCTIONS: u64 = 50;
/// Items per round for static and serial loops.
const STATIC_GRAIN: usize = 64;

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
    /// Thread `t` reached the end of its share of the loop (before the barrier): flush
    /// thread-local buffers, publish reductions.
    fn finish_thread(&mut self, _t: usize, _e: &mut Emitter) {}
    /// Free-form description of the generator.
    fn describe(&self) -> serde_json::Value;
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
        }
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
        }
    }

    fn start_loop(&mut self) -> bool {
        let Some(l) = self.kernel.next_loop() else {
            self.finished = true;
            return false;
        };
        let t_count = self.em.len();
        let n = l.items;
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
            Sched::Dynamic(_) => self.dynamic_next = 0,
        }
        self.current = Some(l);
        true
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
                    let c = self.cursors[t];
                    if c.next < c.end {
                        let hi = (c.next + STATIC_GRAIN).min(c.end);
                        self.kernel.run(t, c.next, hi, &mut self.em[t]);
                        self.cursors[t].next = hi;
                    }
                }
            }
            Sched::Dynamic(chunk) => {
                for _ in 0..self.em.len() {
                    if self.dynamic_next >= l.items {
                        break;
                    }
                    let t = (0..self.em.len())
                        .min_by_key(|&t| (self.em[t].instr, t))
                        .expect("at least one thread");
                    let lo = self.dynamic_next;
                    let hi = (lo + chunk).min(l.items);
                    self.dynamic_next = hi;
                    self.kernel.run(t, lo, hi, &mut self.em[t]);
                }
            }
        }
        let left = match l.sched {
            Sched::Dynamic(_) => self.dynamic_next < l.items,
            _ => self.cursors.iter().any(|c| c.next < c.end),
        };
        if !left {
            for t in 0..self.em.len() {
                self.kernel.finish_thread(t, &mut self.em[t]);
            }
            let latest = self.em.iter().map(|e| e.instr).max().unwrap_or(0);
            for e in &mut self.em {
                e.instr = latest + BARRIER_INSTRUCTIONS;
            }
            self.current = None;
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
        std::mem::swap(out, &mut self.em[thread].buf);
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        self.kernel.describe()
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
}
