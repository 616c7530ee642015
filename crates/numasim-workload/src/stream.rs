//! `stream`: McCalpin's STREAM kernels (copy, scale, add, triad) on three `f64` arrays.
//!
//! Used by HyDM and Tikir & Hollingsworth as the bandwidth-bound, perfectly partitioned case:
//! with parallel initialisation under first-touch every thread finds its slice in local memory;
//! with serial initialisation thread 0 touches every page first, so all pages land on one node
//! (the classic first-touch pitfall). Each array holds `array_bytes / 8` elements at its own
//! virtual base. Loops are `#pragma omp parallel for` with the static schedule, as in STREAM, so
//! a thread's kernel slice equals its parallel-initialisation slice.
//!
//! Cost model per element: copy `c[j] = a[j]` 1 load + 1 store + 2 loop instructions; scale
//! `b[j] = s·c[j]` adds 1 flop; add `c[j] = a[j] + b[j]` 2 loads, 1 flop; triad
//! `a[j] = b[j] + s·c[j]` 2 loads, 2 flops; initialisation stores 1 per array element. Flops
//! are attached to the store. The stream does not depend on array values, so values are not
//! materialised (memory stays O(threads)).

use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use serde::{Deserialize, Serialize};

/// Loop overhead per element (increment, compare, branch).
const LOOP: u64 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamKernel {
    Copy,
    Scale,
    Add,
    Triad,
    /// The four in STREAM's order, each iteration.
    All,
}

impl numasim_config::param::ParamKind for StreamKernel {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Init {
    Parallel,
    Serial,
}

impl numasim_config::param::ParamKind for Init {}

numasim_config::declare_params! {
    pub section struct StreamParams {
        /// OpenMP threads (access streams)
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// bytes of each of the arrays a, b, c
        array_bytes: u64 = 16 << 20, unit "bytes", Check::Range(8.0, 137438953472.0);
        /// copy | scale | add | triad | all (the four in order)
        kernel: StreamKernel = StreamKernel::Triad, unit "-", Check::Any;
        /// repetitions of the kernel(s)
        iterations: u32 = 5, unit "iterations", Check::Range(1.0, u32::MAX as f64);
        /// parallel (each thread its static slice) | serial (thread 0 initialises all)
        init: Init = Init::Parallel, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "stream",
        summary: "STREAM copy/scale/add/triad over three f64 arrays, static schedule",
        paper: "HyDM; Tikir & Hollingsworth (serial vs parallel first touch)",
        params: StreamParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: StreamParams = parse(table)?;
    Ok(Box::new(source(p, seed)?))
}

pub fn source(p: StreamParams, seed: u64) -> Result<OmpSource<Stream>, WorkloadError> {
    crate::params::in_range(&p)?;
    let n = p.array_bytes / 8;
    check(
        n >= p.threads as u64,
        "array_bytes",
        "must hold at least one f64 per thread",
    )?;
    let mut space = AddressSpace::new();
    let bases = [space.alloc(n * 8), space.alloc(n * 8), space.alloc(n * 8)];
    let threads = p.threads;
    let kernel = Stream {
        n: n as usize,
        bases,
        loops: Vec::new(),
        pos: 0,
        p,
        seed,
    };
    Ok(OmpSource::new(kernel.with_plan(), threads))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Init,
    Copy,
    Scale,
    Add,
    Triad,
}

/// The STREAM program: a fixed list of loops.
pub struct Stream {
    n: usize,
    /// Bases of a, b, c.
    bases: [u64; 3],
    loops: Vec<Op>,
    pos: usize,
    p: StreamParams,
    seed: u64,
}

impl Stream {
    fn with_plan(mut self) -> Self {
        let ops: &[Op] = match self.p.kernel {
            StreamKernel::Copy => &[Op::Copy],
            StreamKernel::Scale => &[Op::Scale],
            StreamKernel::Add => &[Op::Add],
            StreamKernel::Triad => &[Op::Triad],
            StreamKernel::All => &[Op::Copy, Op::Scale, Op::Add, Op::Triad],
        };
        self.loops.push(Op::Init);
        for _ in 0..self.p.iterations {
            self.loops.extend_from_slice(ops);
        }
        self
    }

    #[inline(always)]
    fn at(&self, array: usize, j: usize) -> u64 {
        self.bases[array] + j as u64 * 8
    }
}

impl Kernel for Stream {
    fn next_loop(&mut self) -> Option<Loop> {
        let op = *self.loops.get(self.pos)?;
        self.pos += 1;
        let sched = if op == Op::Init && self.p.init == Init::Serial {
            Sched::Serial
        } else {
            Sched::Static
        };
        Some(Loop { items: self.n, sched })
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let (a, b, c) = (0, 1, 2);
        match self.loops[self.pos - 1] {
            Op::Init => {
                for j in lo..hi {
                    e.write(1 + LOOP, self.at(a, j), 8);
                    e.write(1, self.at(b, j), 8);
                    e.write(1, self.at(c, j), 8);
                }
            }
            Op::Copy => {
                for j in lo..hi {
                    e.read(1 + LOOP, self.at(a, j), 8);
                    e.write(1, self.at(c, j), 8);
                }
            }
            Op::Scale => {
                for j in lo..hi {
                    e.read(1 + LOOP, self.at(c, j), 8);
                    e.flops(1);
                    e.write(2, self.at(b, j), 8);
                }
            }
            Op::Add => {
                for j in lo..hi {
                    e.read(1 + LOOP, self.at(a, j), 8);
                    e.read(1, self.at(b, j), 8);
                    e.flops(1);
                    e.write(2, self.at(c, j), 8);
                }
            }
            Op::Triad => {
                for j in lo..hi {
                    e.read(1 + LOOP, self.at(b, j), 8);
                    e.read(1, self.at(c, j), 8);
                    e.flops(2);
                    e.write(3, self.at(a, j), 8);
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "stream", "seed": self.seed, "params": self.p })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_trace::collect_all;

    fn run(extra: &str) -> Vec<Vec<numasim_trace::Access>> {
        let t: toml::Table = toml::from_str(&format!("threads = 4\narray_bytes = 65536\n{extra}")).unwrap();
        collect_all(&mut build(t, 1).unwrap()).unwrap()
    }

    #[test]
    fn counts_flops_and_first_touch_slices() {
        let s = run("kernel = \"all\"\niterations = 2");
        let n = 65536 / 8;
        let total: usize = s.iter().map(|v| v.len()).sum();
        // init 3, copy 2, scale 2, add 3, triad 3 accesses per element.
        assert_eq!(total, n * (3 + 2 * (2 + 2 + 3 + 3)));
        let flops: u64 = s.iter().flatten().map(|a| a.flops as u64).sum();
        assert_eq!(flops, (n * 2 * (1 + 1 + 2)) as u64);
        for v in &s {
            assert!(v.windows(2).all(|w| w[0].instr < w[1].instr));
        }
        let serial = run("init = \"serial\"\niterations = 1");
        // Thread 0 initialises all 3n elements; the others only run the triad.
        assert_eq!(serial[1].len(), 3 * n / 4);
        assert_eq!(serial[0].len(), 3 * n + 3 * n / 4);
    }

    #[test]
    fn same_output_for_same_seed() {
        assert_eq!(run(""), run(""));
    }
}
