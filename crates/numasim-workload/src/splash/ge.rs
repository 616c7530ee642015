//! `ge`: Gaussian elimination of a dense `n`×`n` system, as in Talbot & Kelly.
//!
//! Talbot & Kelly use GE as the example of widely shared data whose first-touch placement
//! "slowly becomes inappropriate": at step k every thread reads pivot row k (shared by all),
//! and the remaining rows k+1..n are re-split among the threads by a static schedule, so
//! responsibility for rows shifts during the run and the active rows concentrate on the pages
//! first touched by the last threads (or, with `init = "serial"`, all on thread 0's node).
//!
//! Arrays: matrix `a` (f64, n×n), right-hand side `b` and solution `x` (f64, n), row
//! permutation `perm` (u32, n). The matrix is random (uniform in −1..1); partial pivoting is
//! (`pivoting = true`, the default) is by row indirection: at each step thread 0 scans column k of the remaining rows (a `single`
//! region) and swaps two `perm` entries, so the access stream depends on the data. With
//! `pivoting = false` the matrix is made diagonally dominant and rows never move (the
//! data-oblivious GE of Talbot & Kelly's study: active rows are always the last ones, so under
//! first touch the traffic concentrates on the nodes holding them). Layout follows
//! `partition` (see [`super`]): non-contiguous = one row-major array; contiguous = the rows of
//! each thread's initialisation block (static split of all n rows) in that thread's own
//! region. Initialisation writes every row (thread 0 for `serial`, each thread its block for
//! `parallel`); then n−1 steps, each a serial pivot search and a static loop over rows k+1..n
//! (barrier after each), and a back substitution by thread 0.
//!
//! Cost model: pivot search per row = perm load (2) + element load with |x| and compare
//! (4, 1 flop); multiplier = 2 loads + 1 divide (cost 2 each, 1 flop); inner update per element
//! = load `a[k][j]` (1) + load `a[i][j]` (1) + multiply-subtract (2 flops) + store (3);
//! row loop overhead 3. Back substitution: 2 loads + 2 flops per element.

use super::Partition;
use crate::npb::Init;
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct GeParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// matrix order (Talbot & Kelly: 512)
        n: usize = 512, unit "rows", Check::Range(2.0, 16384.0);
        #[doc = Init::doc()]
        init: Init = Init::Parallel, unit "-", Check::Any;
        #[doc = Partition::doc()]
        partition: Partition = Partition::NonContiguous, unit "-", Check::Any;
        /// partial pivoting (data-dependent rows); false = diagonally dominant matrix, no swaps
        pivoting: bool = true, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "ge",
        summary: "Gaussian elimination (dense, no pivoting): pivot row widely shared, shifting row ownership",
        paper: "Talbot & Kelly (first-touch page placement and reactive proxies)",
        params: GeParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: GeParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Ge::new(p, seed)?, threads)))
}

/// Talbot & Kelly mark GE's "entire matrix" hot: the rows of `a` (one range per region).
pub fn hot(table: toml::Table, seed: u64) -> Result<Vec<crate::splash::HotRange>, WorkloadError> {
    let g = Ge::new(parse(table)?, seed)?;
    let row_bytes = g.n as u64 * 8;
    let mut out: Vec<crate::splash::HotRange> = Vec::new();
    for &r in &g.row_addr {
        match out.last_mut() {
            Some(last) if last.end_vaddr == r => last.end_vaddr += row_bytes,
            _ => out.push(crate::splash::HotRange {
                name: "matrix",
                start_vaddr: r,
                end_vaddr: r + row_bytes,
            }),
        }
    }
    Ok(out)
}

pub struct Ge {
    params: GeParams,
    seed: u64,
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    a0: Vec<f64>,
    b0: Vec<f64>,
    /// The solution (after the back substitution).
    pub x: Vec<f64>,
    perm: Vec<usize>,
    row_addr: Vec<u64>,
    a_perm: u64,
    swap: (usize, usize),
    a_b: u64,
    a_x: u64,
    step: usize,
}

impl Ge {
    pub fn new(params: GeParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(params.n >= params.threads, "n", "must be at least threads")?;
        let n = params.n;
        let mut rng = stream(seed, 0x6E);
        let mut a = vec![0.0f64; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = rng.gen_range(-1.0..1.0);
            }
            if !params.pivoting {
                let sum: f64 = (0..n).map(|j| a[i * n + j].abs()).sum();
                a[i * n + i] = sum + 1.0;
            }
        }
        let b: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let mut space = AddressSpace::new();
        let row_bytes = n as u64 * 8;
        let row_addr: Vec<u64> = match params.partition {
            Partition::NonContiguous => {
                let base = space.alloc(n as u64 * row_bytes);
                (0..n).map(|i| base + i as u64 * row_bytes).collect()
            }
            Partition::Contiguous => {
                let mut rows = Vec::with_capacity(n);
                for t in 0..params.threads {
                    let r = crate::npb::static_range(n, params.threads, t);
                    let base = space.alloc(r.len() as u64 * row_bytes);
                    rows.extend(r.clone().map(|i| base + (i - r.start) as u64 * row_bytes));
                }
                rows
            }
        };
        Ok(Ge {
            a_perm: space.alloc(n as u64 * 4),
            perm: (0..n).collect(),
            swap: (0, 0),
            a_b: space.alloc(n as u64 * 8),
            a_x: space.alloc(n as u64 * 8),
            a0: a.clone(),
            b0: b.clone(),
            a,
            b,
            x: vec![0.0; n],
            row_addr,
            n,
            params,
            seed,
            step: 0,
        })
    }

    /// max_i |(A x − b)_i| against the original system (x in original column order).
    pub fn residual(&self) -> f64 {
        let n = self.n;
        (0..n)
            .map(|i| ((0..n).map(|j| self.a0[i * n + j] * self.x[j]).sum::<f64>() - self.b0[i]).abs())
            .fold(0.0, f64::max)
    }

    /// Address of element j of physical row i.
    #[inline]
    fn el(&self, i: usize, j: usize) -> u64 {
        self.row_addr[i] + j as u64 * 8
    }
}

impl Kernel for Ge {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        let n = self.n;
        // step 1: init; steps 2..=2n-1: for k = (step-2)/2 a serial pivot search (even) then
        // the elimination (odd); step 2n: back substitution.
        if self.step == 1 {
            Some(Loop {
                items: n,
                sched: self.params.init.sched(),
            })
        } else if self.step < 2 * n {
            let k = (self.step - 2) / 2;
            if self.step.is_multiple_of(2) {
                let mut best = k;
                for i in k..n {
                    if self.a[self.perm[i] * n + k].abs() > self.a[self.perm[best] * n + k].abs() {
                        best = i;
                    }
                }
                if !self.params.pivoting {
                    best = k;
                }
                self.swap = (k, best);
                Some(Loop {
                    items: usize::from(self.params.pivoting),
                    sched: Sched::Serial,
                })
            } else {
                self.perm.swap(k, self.swap.1);
                Some(Loop {
                    items: n - k - 1,
                    sched: Sched::Static,
                })
            }
        } else if self.step == 2 * n {
            Some(Loop {
                items: 1,
                sched: Sched::Serial,
            })
        } else {
            None
        }
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let n = self.n;
        if self.step == 1 {
            for i in lo..hi {
                for j in 0..n {
                    e.write(2, self.el(i, j), 8);
                }
                e.write(2, self.a_b + i as u64 * 8, 8);
                e.write(2, self.a_perm + i as u64 * 4, 4);
            }
        } else if self.step < 2 * n && self.step.is_multiple_of(2) {
            let k = (self.step - 2) / 2;
            for i in k..n {
                e.read(2, self.a_perm + i as u64 * 4, 4);
                e.flops(1);
                e.read(4, self.el(self.perm[i], k), 8);
            }
            let (k, best) = self.swap;
            if best != k {
                e.write(3, self.a_perm + k as u64 * 4, 4);
                e.write(1, self.a_perm + best as u64 * 4, 4);
            }
        } else if self.step < 2 * n {
            let k = (self.step - 2) / 2;
            let pk = self.perm[k];
            let pivot = self.a[pk * n + k];
            for item in lo..hi {
                let pi = self.perm[k + 1 + item];
                e.read(2, self.a_perm + (k + 1 + item) as u64 * 4, 4);
                e.read(3, self.el(pk, k), 8);
                e.read(2, self.el(pi, k), 8);
                e.flops(1);
                let l = self.a[pi * n + k] / pivot;
                self.a[pi * n + k] = 0.0;
                for j in k + 1..n {
                    e.read(1, self.el(pk, j), 8);
                    e.read(1, self.el(pi, j), 8);
                    e.flops(2);
                    e.write(3, self.el(pi, j), 8);
                    self.a[pi * n + j] -= l * self.a[pk * n + j];
                }
                e.read(1, self.a_b + pk as u64 * 8, 8);
                e.read(1, self.a_b + pi as u64 * 8, 8);
                e.flops(2);
                e.write(3, self.a_b + pi as u64 * 8, 8);
                self.b[pi] -= l * self.b[pk];
            }
        } else {
            for i in (0..n).rev() {
                let pi = self.perm[i];
                let mut s = self.b[pi];
                e.read(2, self.a_perm + i as u64 * 4, 4);
                e.read(2, self.a_b + pi as u64 * 8, 8);
                for j in i + 1..n {
                    e.read(1, self.el(pi, j), 8);
                    e.flops(2);
                    e.read(3, self.a_x + j as u64 * 8, 8);
                    s -= self.a[pi * n + j] * self.x[j];
                }
                e.read(1, self.el(pi, i), 8);
                e.flops(1);
                e.write(2, self.a_x + i as u64 * 8, 8);
                self.x[i] = s / self.a[pi * n + i];
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "ge", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), "threads = 3\nn = 40");
        check_generator(
            via(build),
            "threads = 3\nn = 40\npartition = \"contiguous\"\ninit = \"serial\"",
        );
    }

    #[test]
    fn solves_the_system() {
        for part in [Partition::NonContiguous, Partition::Contiguous] {
            let p = GeParams {
                threads: 4,
                n: 48,
                init: Init::Parallel,
                partition: part,
                pivoting: part == Partition::Contiguous,
            };
            let mut src = OmpSource::new(Ge::new(p, 4).unwrap(), 4);
            src.run_to_end();
            assert!(src.kernel().residual() < 1e-8, "{}", src.kernel().residual());
        }
    }

    #[test]
    fn contiguous_blocks_do_not_share_pages() {
        let p = GeParams {
            threads: 4,
            n: 100,
            init: Init::Parallel,
            partition: Partition::Contiguous,
            pivoting: true,
        };
        let g = Ge::new(p, 1).unwrap();
        // Row 24 (last of thread 0) and row 25 (first of thread 1) are in different regions.
        assert!(g.row_addr[25] - g.row_addr[24] > 1 << 20);
        assert_eq!(g.row_addr[24] - g.row_addr[23], 800);
    }
}
