//! `is`: NPB IS — bucket sort of integer keys.
//!
//! `keys` keys in `0..max_key`, each the scaled sum of four uniform numbers (NPB's
//! near-Gaussian key distribution), are ranked `iterations` times with NPB's bucketed
//! algorithm and, after the last iteration, fully sorted. Arrays: `key_array` (u32),
//! `key_buff2` (u32, keys grouped by bucket), `key_buff1` (u32 histogram over key values),
//! `bucket_size` and `bucket_ptrs` (u32, one row of `buckets` per thread, in one shared array
//! each), `sorted` (u32). Per iteration (barrier after each loop):
//! 1. per thread: thread 0 modifies two keys (NPB's per-iteration key change); every thread
//!    clears its `bucket_size` row;
//! 2. static over keys: read key, increment the thread's bucket count;
//! 3. per thread: bucket write pointers from every thread's counts (reads all rows);
//! 4. static over keys (same split): scatter each key into `key_buff2` at its bucket pointer;
//! 5. static over buckets: histogram the bucket's keys into `key_buff1`, prefix-sum the
//!    bucket's key range (ranks), and on the last iteration place keys into `sorted`.
//!
//! Initialisation writes `key_array` (serial or static split).
//!
//! Cost model: key loads 2, bucket computation (shift) +1, counter read-modify-write 1+2,
//! pointer loads 2, stores 1–2, prefix-sum step 3. Integer only (no flops).

use super::class::{fill, params_json};
use super::{Class, Init};
use crate::omp::{Kernel, Loop, Sched};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct IsParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        #[doc = Init::doc()]
        init: Init = Init::Serial, unit "-", Check::Any;
        #[doc = CLASS_DOC]
        class: Option<Class> = None, unit "-", Check::Any, unset "(none)";
        /// number of keys (NPB class W: 2^20)
        keys: usize = 1 << 20, unit "keys", Check::Range(1.0, 268435456.0);
        /// keys lie in 0..max_key (power of two)
        max_key: u32 = 1 << 16, unit "-", Check::Range(2.0, 268435456.0);
        /// number of buckets (power of two <= max_key)
        buckets: usize = 1 << 10, unit "buckets", Check::Range(1.0, 268435456.0);
        /// ranking iterations
        iterations: usize = 10, unit "iterations", Check::Range(1.0, u64::MAX as f64);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "is",
        summary: "NPB IS: bucketed integer sort (ranking iterations, then a full sort)",
        paper: "Tikir & Hollingsworth; HyDM (NPB suite)",
        params: IsParams::defs(),
    }
}

/// One row of NPB 3.x's IS class table (`TOTAL_KEYS_LOG_2`, `MAX_KEY_LOG_2`,
/// `NUM_BUCKETS_LOG_2`; `MAX_ITERATIONS` is 10 for every class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsClass {
    pub keys_log2: u32,
    pub max_key_log2: u32,
    pub buckets_log2: u32,
    pub iterations: usize,
}

/// NPB 3.x IS classes S, W, A, B, C.
#[rustfmt::skip]
pub const CLASSES: [IsClass; 5] = [
    IsClass { keys_log2: 16, max_key_log2: 11, buckets_log2: 9, iterations: 10 },
    IsClass { keys_log2: 20, max_key_log2: 16, buckets_log2: 10, iterations: 10 },
    IsClass { keys_log2: 23, max_key_log2: 19, buckets_log2: 10, iterations: 10 },
    IsClass { keys_log2: 25, max_key_log2: 21, buckets_log2: 10, iterations: 10 },
    IsClass { keys_log2: 27, max_key_log2: 23, buckets_log2: 10, iterations: 10 },
];

/// The keys `class` sets.
pub const CLASS_KEYS: &[&str] = &["keys", "max_key", "buckets", "iterations"];

impl IsClass {
    pub fn apply(&self, given: &std::collections::BTreeSet<String>, p: &mut IsParams) {
        fill(given, "keys", &mut p.keys, 1 << self.keys_log2);
        fill(given, "max_key", &mut p.max_key, 1 << self.max_key_log2);
        fill(given, "buckets", &mut p.buckets, 1 << self.buckets_log2);
        fill(given, "iterations", &mut p.iterations, self.iterations);
    }
}

/// `class`'s lines in `workload list` (a test holds them to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; sets the keys below the table leaves out (unset: their defaults)
S: keys 2^16, max_key 2^11, buckets 2^9, iterations 10
W: keys 2^20, max_key 2^16, buckets 2^10, iterations 10
A: keys 2^23, max_key 2^19, buckets 2^10, iterations 10
B: keys 2^25, max_key 2^21, buckets 2^10, iterations 10
C: keys 2^27, max_key 2^23, buckets 2^10, iterations 10";

/// Parses `is`'s table and resolves `class` (explicit keys override it).
pub fn params(table: toml::Table) -> Result<IsParams, WorkloadError> {
    super::class::resolve(table)
}

super::class::class_params!(IsParams, CLASSES);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Is::new)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Init,
    Clear,
    Count,
    Pointers,
    Scatter,
    Rank,
}

pub struct Is {
    params: IsParams,
    seed: u64,
    threads: usize,
    shift: u32,
    key_array: Vec<u32>,
    key_buff2: Vec<u32>,
    key_buff1: Vec<u32>,
    bucket_size: Vec<u32>,
    bucket_ptrs: Vec<u32>,
    bucket_start: Vec<u32>,
    /// The fully sorted keys (filled in the last iteration).
    pub sorted: Vec<u32>,
    a_keys: u64,
    a_buff2: u64,
    a_buff1: u64,
    a_size: u64,
    a_ptrs: u64,
    a_sorted: u64,
    step: Step,
    iteration: usize,
}

/// The arrays `is` lays out, `(name, bytes)` in allocation order (all u32): what
/// [`Is::new`] allocates, and its footprint.
pub fn layout(p: &IsParams) -> [(&'static str, u64); 6] {
    let n = p.keys as u64 * 4;
    let rows = (p.threads * p.buckets) as u64 * 4;
    [
        ("key_array", n),
        ("key_buff2", n),
        ("key_buff1", p.max_key as u64 * 4),
        ("bucket_size", rows),
        ("bucket_ptrs", rows),
        ("sorted", n),
    ]
}

impl Is {
    pub fn new(params: IsParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(params.keys >= params.threads, "keys", "must be at least `threads`")?;
        check(params.max_key.is_power_of_two(), "max_key", "must be a power of two")?;
        check(
            params.buckets.is_power_of_two() && params.buckets <= params.max_key as usize,
            "buckets",
            "must be a power of two no larger than max_key",
        )?;
        check(
            params.iterations * 2 <= params.keys,
            "iterations",
            "must be at most keys / 2",
        )?;
        let mut rng = stream(seed, 0x15);
        let quarter = params.max_key as f64 / 4.0;
        let key_array: Vec<u32> = (0..params.keys)
            .map(|_| {
                let s: f64 = (0..4).map(|_| rng.gen::<f64>()).sum();
                ((quarter * s) as u32).min(params.max_key - 1)
            })
            .collect();
        let t = params.threads;
        let nb = params.buckets;
        let mut space = AddressSpace::new();
        let [a_keys, a_buff2, a_buff1, a_size, a_ptrs, a_sorted] = layout(&params).map(|(_, bytes)| space.alloc(bytes));
        Ok(Is {
            shift: (params.max_key / nb as u32).trailing_zeros(),
            a_keys,
            a_buff2,
            a_buff1,
            a_size,
            a_ptrs,
            a_sorted,
            key_buff2: vec![0; params.keys],
            key_buff1: vec![0; params.max_key as usize],
            bucket_size: vec![0; t * nb],
            bucket_ptrs: vec![0; t * nb],
            bucket_start: vec![0; nb + 1],
            sorted: vec![0; params.keys],
            key_array,
            threads: t,
            params,
            seed,
            step: Step::Start,
            iteration: 0,
        })
    }
}

impl Kernel for Is {
    fn next_loop(&mut self) -> Option<Loop> {
        let keys = self.params.keys;
        let t = self.threads;
        let (step, items, sched) = match self.step {
            Step::Start => (Step::Init, keys, self.params.init.sched()),
            Step::Init => (Step::Clear, t, Sched::PerThread),
            Step::Clear => (Step::Count, keys, Sched::Static),
            Step::Count => {
                // Global bucket starts (what every thread's pointer computation sums up).
                let nb = self.params.buckets;
                let mut acc = 0u32;
                for b in 0..nb {
                    self.bucket_start[b] = acc;
                    acc += (0..t).map(|u| self.bucket_size[u * nb + b]).sum::<u32>();
                }
                self.bucket_start[nb] = acc;
                (Step::Pointers, t, Sched::PerThread)
            }
            Step::Pointers => (Step::Scatter, keys, Sched::Static),
            Step::Scatter => (Step::Rank, self.params.buckets, Sched::Static),
            Step::Rank => {
                self.iteration += 1;
                if self.iteration >= self.params.iterations {
                    return None;
                }
                (Step::Clear, t, Sched::PerThread)
            }
        };
        self.step = step;
        Some(Loop { items, sched })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let nb = self.params.buckets;
        match self.step {
            Step::Start => {}
            Step::Init => {
                for i in lo..hi {
                    e.write(2, self.a_keys + i as u64 * 4, 4);
                }
            }
            Step::Clear => {
                for u in lo..hi {
                    if u == 0 {
                        let it = self.iteration;
                        let other = it + self.params.iterations;
                        self.key_array[it] = it as u32;
                        self.key_array[other] = self.params.max_key - 1 - it as u32;
                        e.write(2, self.a_keys + it as u64 * 4, 4);
                        e.write(2, self.a_keys + other as u64 * 4, 4);
                    }
                    for b in 0..nb {
                        self.bucket_size[u * nb + b] = 0;
                        e.write(2, self.a_size + (u * nb + b) as u64 * 4, 4);
                    }
                }
            }
            Step::Count => {
                for i in lo..hi {
                    let b = (self.key_array[i] >> self.shift) as usize;
                    e.read(2, self.a_keys + i as u64 * 4, 4);
                    let at = self.a_size + (t * nb + b) as u64 * 4;
                    e.read(2, at, 4);
                    e.write(2, at, 4);
                    self.bucket_size[t * nb + b] += 1;
                }
            }
            Step::Pointers => {
                for u in lo..hi {
                    for b in 0..nb {
                        let mut ptr = self.bucket_start[b];
                        for v in 0..u {
                            e.read(2, self.a_size + (v * nb + b) as u64 * 4, 4);
                            ptr += self.bucket_size[v * nb + b];
                        }
                        self.bucket_ptrs[u * nb + b] = ptr;
                        e.write(2, self.a_ptrs + (u * nb + b) as u64 * 4, 4);
                    }
                }
            }
            Step::Scatter => {
                for i in lo..hi {
                    let k = self.key_array[i];
                    let b = (k >> self.shift) as usize;
                    e.read(2, self.a_keys + i as u64 * 4, 4);
                    let at = self.a_ptrs + (t * nb + b) as u64 * 4;
                    e.read(2, at, 4);
                    let pos = self.bucket_ptrs[t * nb + b] as usize;
                    self.bucket_ptrs[t * nb + b] += 1;
                    e.write(2, at, 4);
                    self.key_buff2[pos] = k;
                    e.write(1, self.a_buff2 + pos as u64 * 4, 4);
                }
            }
            Step::Rank => {
                let last = self.iteration + 1 == self.params.iterations;
                for b in lo..hi {
                    let (k0, k1) = (b << self.shift, (b + 1) << self.shift);
                    for v in k0..k1 {
                        self.key_buff1[v] = 0;
                        e.write(2, self.a_buff1 + v as u64 * 4, 4);
                    }
                    let (s, end) = (self.bucket_start[b] as usize, self.bucket_start[b + 1] as usize);
                    for i in s..end {
                        let k = self.key_buff2[i] as usize;
                        e.read(2, self.a_buff2 + i as u64 * 4, 4);
                        e.read(1, self.a_buff1 + k as u64 * 4, 4);
                        e.write(2, self.a_buff1 + k as u64 * 4, 4);
                        self.key_buff1[k] += 1;
                    }
                    // Prefix sum: key_buff1[v] = number of keys < v (the rank of v).
                    let mut acc = s as u32;
                    for v in k0..k1 {
                        e.read(2, self.a_buff1 + v as u64 * 4, 4);
                        let c = self.key_buff1[v];
                        self.key_buff1[v] = acc;
                        acc += c;
                        e.write(2, self.a_buff1 + v as u64 * 4, 4);
                    }
                    if last {
                        for i in s..end {
                            let k = self.key_buff2[i] as usize;
                            e.read(2, self.a_buff2 + i as u64 * 4, 4);
                            e.read(1, self.a_buff1 + k as u64 * 4, 4);
                            let pos = self.key_buff1[k] as usize;
                            self.key_buff1[k] += 1;
                            e.write(1, self.a_buff1 + k as u64 * 4, 4);
                            self.sorted[pos] = k as u32;
                            e.write(1, self.a_sorted + pos as u64 * 4, 4);
                        }
                    }
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "is", "seed": self.seed, "params": params_json(&self.params) })
    }

    /// The set-up generates the keys; the region of interest (NPB's timed ranking) starts with
    /// the first ranking.
    fn in_roi(&self) -> Option<bool> {
        Some(!matches!(self.step, Step::Start | Step::Init))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};
    use crate::{omp::OmpSource, params::parse};

    const SMALL: &str = "threads = 3\nkeys = 5000\nmax_key = 1024\nbuckets = 64\niterations = 3";

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
    }

    #[test]
    fn output_is_the_sorted_input() {
        let p: IsParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
        let mut src = OmpSource::new(Is::new(p, 9).unwrap(), 3);
        src.run_to_end();
        let k = src.kernel();
        let mut expect = k.key_array.clone();
        expect.sort_unstable();
        assert_eq!(k.sorted, expect);
        assert!(k.sorted.windows(2).all(|w| w[0] <= w[1]));
    }
}
