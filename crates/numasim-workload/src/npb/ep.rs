//! `ep`: NPB EP — embarrassingly parallel Gaussian pair generation.
//!
//! `2^pairs_log2` pairs of uniform numbers are turned into Gaussian deviates with the
//! Marsaglia polar method and tallied into 10 annuli, as NPB EP does. Work is split into
//! blocks of `block_pairs` pairs (static schedule over blocks); each block's random numbers
//! come from their own seeded stream (NPB's skip-ahead), so results do not depend on the
//! thread count. A thread fills its own buffer `x` (2·`block_pairs` f64, one array per
//! thread) and then reads it back pair by pair, updating its own annulus counts and sums
//! (per-thread arrays). Nearly all data is thread-private; `init = "serial"` makes thread 0
//! first-touch every thread's buffer (NPB allocates them before the parallel region).
//!
//! Cost model: generating one uniform is 12 instructions with 6 flops (NPB's `vranlc` linear
//! congruential step in floating point) charged to its store; a pair's test is 2 loads + 4
//! flops; an accepted pair costs 24 more instructions with 20 flops (log, sqrt, two
//! multiplies, max, floor — charged to the annulus count update) plus the read-modify-write of
//! the count and two sums.

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
    pub section struct EpParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        #[doc = Init::doc()]
        init: Init = Init::Serial, unit "-", Check::Any;
        #[doc = CLASS_DOC]
        class: Option<Class> = None, unit "-", Check::Any, unset "(none)";
        /// 2^pairs_log2 random pairs in total
        pairs_log2: u32 = 22, unit "log2 pairs", Check::Range(0.0, 40.0);
        /// pairs per block (buffer of 2*block_pairs f64 per thread)
        block_pairs: usize = 1024, unit "pairs", Check::Range(1.0, 1048576.0);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "ep",
        summary: "NPB EP: Gaussian pairs by the polar method into per-thread tallies (private data)",
        paper: "Tikir & Hollingsworth; HyDM (NPB suite)",
        params: EpParams::defs(),
    }
}

/// NPB 3.x EP classes S, W, A, B, C: `M`, the log2 of the number of pairs. NPB's batch size
/// (`MK` = 16, 2^16 pairs a batch) is the same for every class, so `class` leaves
/// `block_pairs` alone; `block_pairs = 65536` gives NPB's 1 MiB buffer per thread.
#[rustfmt::skip]
pub const CLASSES: [EpClass; 5] = [
    EpClass { m: 24 },
    EpClass { m: 25 },
    EpClass { m: 28 },
    EpClass { m: 30 },
    EpClass { m: 32 },
];

/// One row of NPB 3.x's EP class table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpClass {
    pub m: u32,
}

/// The keys `class` sets.
pub const CLASS_KEYS: &[&str] = &["pairs_log2"];

impl EpClass {
    pub fn apply(&self, given: &std::collections::BTreeSet<String>, p: &mut EpParams) {
        fill(given, "pairs_log2", &mut p.pairs_log2, self.m);
    }
}

/// `class`'s lines in `workload list` (a test holds them to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; sets pairs_log2 (NPB's M) unless given (unset: its default)
S: pairs_log2 24
W: pairs_log2 25
A: pairs_log2 28
B: pairs_log2 30
C: pairs_log2 32";

/// Parses `ep`'s table and resolves `class` (explicit keys override it).
pub fn params(table: toml::Table) -> Result<EpParams, WorkloadError> {
    super::class::resolve(table)
}

super::class::class_params!(EpParams, CLASSES);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Ep::new)
}

pub struct Ep {
    params: EpParams,
    seed: u64,
    threads: usize,
    blocks: usize,
    buf: Vec<f64>,
    a_x: Vec<u64>,
    a_q: Vec<u64>,
    step: u8,
    /// Accepted pairs per annulus, per thread.
    pub counts: Vec<[u64; 10]>,
    /// Sums of the Gaussian deviates (x, y), per thread.
    pub sums: Vec<(f64, f64)>,
}

/// The arrays `ep` lays out for *each* thread, `(name, bytes)`: the pair buffer `x`
/// (2·`block_pairs` f64) and the tallies `q` (10 annulus counts and 2 sums). [`Ep::new`]
/// allocates every thread's `x`, then every thread's `q`.
pub fn layout(p: &EpParams) -> [(&'static str, u64); 2] {
    [("x", p.block_pairs as u64 * 16), ("q", 12 * 8)]
}

impl Ep {
    pub fn new(params: EpParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            (1u64 << params.pairs_log2) >= params.block_pairs as u64,
            "pairs_log2",
            "must give at least one block",
        )?;
        let t = params.threads;
        let mut space = AddressSpace::new();
        let [(_, x_bytes), (_, q_bytes)] = layout(&params);
        let a_x = (0..t).map(|_| space.alloc(x_bytes)).collect();
        let a_q = (0..t).map(|_| space.alloc(q_bytes)).collect();
        Ok(Ep {
            blocks: ((1u64 << params.pairs_log2) / params.block_pairs as u64) as usize,
            buf: vec![0.0; 2 * params.block_pairs],
            a_x,
            a_q,
            threads: t,
            params,
            seed,
            step: 0,
            counts: vec![[0; 10]; t],
            sums: vec![(0.0, 0.0); t],
        })
    }
}

impl Kernel for Ep {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        match self.step {
            // Initialisation: item = one thread's buffer and tallies.
            1 => Some(Loop {
                items: self.threads,
                sched: match self.params.init {
                    Init::Serial => Sched::Serial,
                    Init::Parallel => Sched::PerThread,
                },
            }),
            2 => Some(Loop {
                items: self.blocks,
                sched: Sched::Static,
            }),
            _ => None,
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let bp = self.params.block_pairs;
        if self.step == 1 {
            for u in lo..hi {
                for i in 0..2 * bp {
                    e.write(2, self.a_x[u] + i as u64 * 8, 8);
                }
                for i in 0..12 {
                    e.write(2, self.a_q[u] + i * 8, 8);
                }
            }
            return;
        }
        let (xa, qa) = (self.a_x[t], self.a_q[t]);
        for block in lo..hi {
            let mut rng = stream(self.seed, 0xE9_0000_0000 + block as u64);
            for (i, v) in self.buf.iter_mut().enumerate() {
                *v = rng.gen::<f64>() * 2.0 - 1.0;
                e.flops(6);
                e.write(12, xa + i as u64 * 8, 8);
            }
            for k in 0..bp {
                let (x, y) = (self.buf[2 * k], self.buf[2 * k + 1]);
                e.read(1, xa + (2 * k) as u64 * 8, 8);
                e.flops(4);
                e.read(6, xa + (2 * k + 1) as u64 * 8, 8);
                let s = x * x + y * y;
                if s <= 1.0 && s > 0.0 {
                    let f = (-2.0 * s.ln() / s).sqrt();
                    let (gx, gy) = (x * f, y * f);
                    let l = gx.abs().max(gy.abs()) as usize;
                    e.flops(20);
                    if l < 10 {
                        self.counts[t][l] += 1;
                        e.read(26, qa + l as u64 * 8, 8);
                        e.write(2, qa + l as u64 * 8, 8);
                    }
                    self.sums[t].0 += gx;
                    self.sums[t].1 += gy;
                    e.read(1, qa + 80, 8);
                    e.write(2, qa + 80, 8);
                    e.read(1, qa + 88, 8);
                    e.write(2, qa + 88, 8);
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "ep", "seed": self.seed, "params": params_json(&self.params) })
    }

    /// The set-up writes each thread's buffer and tallies; the region of interest is the
    /// generation of the pairs.
    fn in_roi(&self) -> Option<bool> {
        Some(self.step >= 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, single_thread_page_access_fraction, via};
    use crate::{omp::OmpSource, params::parse};

    const SMALL: &str = "threads = 4\npairs_log2 = 14\nblock_pairs = 256\ninit = \"parallel\"";

    #[test]
    fn deterministic_monotonic_and_private() {
        let all = check_generator(via(build), SMALL);
        assert!(single_thread_page_access_fraction(&all) > 0.99);
    }

    #[test]
    fn acceptance_rate_is_pi_over_four_and_independent_of_threads() {
        let run = |threads: usize| {
            let p: EpParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
            let mut src = OmpSource::new(Ep::new(EpParams { threads, ..p }, 3).unwrap(), threads);
            src.run_to_end();
            let c: u64 = src.kernel().counts.iter().flatten().sum();
            c
        };
        let accepted = run(4);
        let rate = accepted as f64 / (1 << 14) as f64;
        assert!((rate - std::f64::consts::FRAC_PI_4).abs() < 0.02, "{rate}");
        assert_eq!(accepted, run(3));
    }
}
