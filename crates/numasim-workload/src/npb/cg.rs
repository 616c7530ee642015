//! `cg`: NPB CG — conjugate gradient on a random sparse symmetric positive-definite matrix.
//!
//! The matrix has `rows` rows; each row draws `nonzeros_per_row` random off-diagonal columns
//! and every entry is mirrored, so the CSR holds about `2·nonzeros_per_row + 1` entries per
//! row; the diagonal is the row's absolute sum plus 1 (strictly diagonally dominant, hence
//! SPD). Arrays (each at its own base): `rowptr` (u32), `colidx` (u32), `values` (f64), and
//! the vectors `x`, `r`, `p`, `q` (f64). Unpreconditioned CG from x = 0, b = 1; each iteration
//! is three parallel loops over rows (static schedule, barrier after each):
//! 1. `q = A·p` and the partial dot product `p·q`;
//! 2. `x += α p`, `r -= α q` and the partial `r·r`;
//! 3. `p = r + β p`.
//!
//! The scalar α, β updates run between loops (per-thread partials summed in thread order).
//! Initialisation writes every array (the matrix rows and the vectors), by thread 0 alone
//! (`init = "serial"`, NPB's `makea` before the parallel region) or row block by row block.
//!
//! Cost model (instructions charged to each access): rowptr read 3 (load, loop bound setup),
//! colidx read 3 (load, increment, compare/branch), values read 1, `p[col]` read 3 (load +
//! multiply + add, 2 flops), q/x/r/p updates 1 per load plus 2 per flop; initialisation stores
//! 2 each.

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

crate::workload_params! {
    pub struct CgParams {
        threads: usize = 8 => "number of threads";
        init: Init = Init::Serial => Init::doc();
        class: Option<Class> = None => CLASS_DOC, shown "(none)";
        rows: usize = 14_000 => "matrix order (NPB class A: 14000)";
        nonzeros_per_row: usize = 11 => "random off-diagonal entries drawn per row (mirrored, so ~2x stored)";
        iterations: usize = 15 => "CG iterations";
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "cg",
        summary: "NPB CG: conjugate gradient with CSR sparse mat-vec on a random SPD matrix",
        paper: "Tikir & Hollingsworth (dynamic page migration, CG on Sun Fire 6800); HyDM (NPB)",
        params: CgParams::param_docs(),
    }
}

/// One row of NPB 3.x's CG class table (`setparams`: NA, NONZER, NITER, SHIFT).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CgClass {
    pub na: usize,
    pub nonzer: usize,
    pub niter: usize,
    pub shift: f64,
}

/// NPB 3.x CG classes S, W, A, B, C.
#[rustfmt::skip]
pub const CLASSES: [CgClass; 5] = [
    CgClass { na: 1_400, nonzer: 7, niter: 15, shift: 10.0 },
    CgClass { na: 7_000, nonzer: 8, niter: 15, shift: 12.0 },
    CgClass { na: 14_000, nonzer: 11, niter: 15, shift: 20.0 },
    CgClass { na: 75_000, nonzer: 13, niter: 75, shift: 60.0 },
    CgClass { na: 150_000, nonzer: 15, niter: 75, shift: 110.0 },
];

/// CG steps NPB runs per outer iteration (`cgitmax` in `conj_grad`).
pub const CGITMAX: usize = 25;

/// The keys `class` sets.
pub const CLASS_KEYS: &[&str] = &["rows", "nonzeros_per_row", "iterations"];

impl CgClass {
    /// `rows = NA`, `nonzeros_per_row = NONZER`, `iterations = NITER · 25`: the generator's
    /// iteration is one CG step, NPB's outer iteration runs 25 of them. SHIFT only moves the
    /// eigenvalues of NPB's matrix (values, not addresses); the generator's matrix is its own
    /// diagonally dominant one, so SHIFT is listed, not used.
    pub fn apply(&self, given: &std::collections::BTreeSet<String>, p: &mut CgParams) {
        fill(given, "rows", &mut p.rows, self.na);
        fill(given, "nonzeros_per_row", &mut p.nonzeros_per_row, self.nonzer);
        fill(given, "iterations", &mut p.iterations, self.niter * CGITMAX);
    }
}

/// `class`'s lines in `workload list` (a test holds them to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; sets the keys below the table leaves out (unset: their defaults)
S: rows 1400, nonzeros_per_row 7, iterations 375 (15 x 25 CG steps)
W: rows 7000, nonzeros_per_row 8, iterations 375 (15 x 25)
A: rows 14000, nonzeros_per_row 11, iterations 375 (15 x 25)
B: rows 75000, nonzeros_per_row 13, iterations 1875 (75 x 25)
C: rows 150000, nonzeros_per_row 15, iterations 1875 (75 x 25)";

/// Parses `cg`'s table and resolves `class` (explicit keys override it).
pub fn params(table: toml::Table) -> Result<CgParams, WorkloadError> {
    super::class::resolve(table)
}

super::class::class_params!(CgParams, CLASSES);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Cg::new)
}

const F64: u64 = 8;
const U32: u64 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Init,
    MatVec,
    Update,
    Direction,
}

/// The CG kernel (public so tests can read the residual history).
pub struct Cg {
    params: CgParams,
    seed: u64,
    rowptr: Vec<u32>,
    col: Vec<u32>,
    val: Vec<f64>,
    x: Vec<f64>,
    r: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
    a_rowptr: u64,
    a_col: u64,
    a_val: u64,
    a_x: u64,
    a_r: u64,
    a_p: u64,
    a_q: u64,
    step: Step,
    iteration: usize,
    partial: Vec<f64>,
    rho: f64,
    alpha: f64,
    beta: f64,
    /// ‖r‖₂ after initialisation and after every iteration.
    pub residual_norms: Vec<f64>,
}

/// The arrays `cg` lays out for order `rows` and `nonzeros` stored entries, `(name, bytes)`
/// in allocation order: what [`Cg::new`] allocates, and its footprint. The stored entries
/// are at most `rows · (2·nonzeros_per_row + 1)` (mirrored draws plus the diagonal; repeated
/// columns merge).
pub fn layout(rows: usize, nonzeros: u64) -> [(&'static str, u64); 7] {
    let n = rows as u64;
    [
        ("rowptr", (n + 1) * U32),
        ("colidx", nonzeros * U32),
        ("values", nonzeros * F64),
        ("x", n * F64),
        ("r", n * F64),
        ("p", n * F64),
        ("q", n * F64),
    ]
}

impl Cg {
    pub fn new(params: CgParams, seed: u64) -> Result<Self, WorkloadError> {
        check(
            (1..=4096).contains(&params.threads),
            "threads",
            "must be between 1 and 4096",
        )?;
        check(
            params.rows >= 2 && params.rows <= 1 << 26,
            "rows",
            "must be between 2 and 2^26",
        )?;
        check(
            params.nonzeros_per_row >= 1 && params.nonzeros_per_row < params.rows && params.nonzeros_per_row <= 1000,
            "nonzeros_per_row",
            "must be between 1 and min(rows - 1, 1000)",
        )?;
        check(params.iterations >= 1, "iterations", "must be at least 1")?;
        let n = params.rows;
        let mut rng = stream(seed, 0xC6);
        let mut entries: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for i in 0..n {
            for _ in 0..params.nonzeros_per_row {
                let mut j = rng.gen_range(0..n - 1);
                if j >= i {
                    j += 1;
                }
                let v = -rng.gen_range(0.1..1.0);
                entries[i].push((j as u32, v));
                entries[j].push((i as u32, v));
            }
        }
        let mut rowptr = Vec::with_capacity(n + 1);
        let mut col = Vec::new();
        let mut val = Vec::new();
        rowptr.push(0u32);
        for (i, row) in entries.iter_mut().enumerate() {
            row.sort_by_key(|e| e.0);
            let mut diag = 1.0;
            let start = col.len();
            for &(j, v) in row.iter() {
                diag += v.abs();
                if col.len() > start && *col.last().expect("nonempty") == j {
                    *val.last_mut().expect("nonempty") += v;
                } else {
                    col.push(j);
                    val.push(v);
                }
            }
            // Insert the diagonal in column order.
            let pos = start + col[start..].partition_point(|&j| (j as usize) < i);
            col.insert(pos, i as u32);
            val.insert(pos, diag);
            rowptr.push(col.len() as u32);
            *row = Vec::new();
        }
        let mut space = AddressSpace::new();
        let [a_rowptr, a_col, a_val, a_x, a_r, a_p, a_q] =
            layout(n, col.len() as u64).map(|(_, bytes)| space.alloc(bytes));
        let threads = params.threads;
        Ok(Cg {
            a_rowptr,
            a_col,
            a_val,
            a_x,
            a_r,
            a_p,
            a_q,
            params,
            seed,
            rowptr,
            col,
            val,
            x: vec![0.0; n],
            r: vec![0.0; n],
            p: vec![0.0; n],
            q: vec![0.0; n],
            step: Step::Start,
            iteration: 0,
            partial: vec![0.0; threads],
            rho: 0.0,
            alpha: 0.0,
            beta: 0.0,
            residual_norms: Vec::new(),
        })
    }

    /// Stored matrix entries.
    pub fn nonzeros(&self) -> usize {
        self.col.len()
    }

    fn take_sum(&mut self) -> f64 {
        let s = self.partial.iter().sum();
        self.partial.fill(0.0);
        s
    }
}

impl Kernel for Cg {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.params.rows;
        let rows = |sched| Some(Loop { items: n, sched });
        match self.step {
            Step::Start => {
                self.step = Step::Init;
                rows(self.params.init.sched())
            }
            Step::Init => {
                self.rho = self.take_sum();
                self.residual_norms.push(self.rho.sqrt());
                self.step = Step::MatVec;
                rows(Sched::Static)
            }
            Step::MatVec => {
                let pq = self.take_sum();
                self.alpha = self.rho / pq;
                self.step = Step::Update;
                rows(Sched::Static)
            }
            Step::Update => {
                let rho_new = self.take_sum();
                self.residual_norms.push(rho_new.sqrt());
                self.beta = rho_new / self.rho;
                self.rho = rho_new;
                self.iteration += 1;
                self.step = Step::Direction;
                rows(Sched::Static)
            }
            Step::Direction => {
                if self.iteration >= self.params.iterations {
                    return None;
                }
                self.step = Step::MatVec;
                rows(Sched::Static)
            }
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        match self.step {
            Step::Start => {}
            Step::Init => {
                for i in lo..hi {
                    e.write(2, self.a_rowptr + (i as u64 + 1) * U32, 4);
                    for k in self.rowptr[i] as usize..self.rowptr[i + 1] as usize {
                        e.write(2, self.a_col + k as u64 * U32, 4);
                        e.write(2, self.a_val + k as u64 * F64, 8);
                    }
                    let at = i as u64 * F64;
                    self.x[i] = 0.0;
                    self.r[i] = 1.0;
                    self.p[i] = 1.0;
                    self.q[i] = 0.0;
                    e.write(2, self.a_x + at, 8);
                    e.write(2, self.a_r + at, 8);
                    e.write(2, self.a_p + at, 8);
                    e.write(2, self.a_q + at, 8);
                    self.partial[t] += 1.0;
                }
            }
            Step::MatVec => {
                let mut dot = 0.0;
                for i in lo..hi {
                    e.read(3, self.a_rowptr + (i as u64 + 1) * U32, 4);
                    let mut sum = 0.0;
                    for k in self.rowptr[i] as usize..self.rowptr[i + 1] as usize {
                        let j = self.col[k] as usize;
                        e.read(3, self.a_col + k as u64 * U32, 4);
                        e.read(1, self.a_val + k as u64 * F64, 8);
                        e.flops(2);
                        e.read(3, self.a_p + j as u64 * F64, 8);
                        sum += self.val[k] * self.p[j];
                    }
                    self.q[i] = sum;
                    e.write(1, self.a_q + i as u64 * F64, 8);
                    e.flops(2);
                    e.read(3, self.a_p + i as u64 * F64, 8);
                    dot += self.p[i] * sum;
                }
                self.partial[t] += dot;
            }
            Step::Update => {
                let mut rr = 0.0;
                for i in lo..hi {
                    let at = i as u64 * F64;
                    e.read(1, self.a_p + at, 8);
                    e.read(1, self.a_x + at, 8);
                    e.flops(2);
                    e.write(3, self.a_x + at, 8);
                    e.read(1, self.a_q + at, 8);
                    e.read(1, self.a_r + at, 8);
                    e.flops(4);
                    e.write(5, self.a_r + at, 8);
                    self.x[i] += self.alpha * self.p[i];
                    self.r[i] -= self.alpha * self.q[i];
                    rr += self.r[i] * self.r[i];
                }
                self.partial[t] += rr;
            }
            Step::Direction => {
                for i in lo..hi {
                    let at = i as u64 * F64;
                    e.read(1, self.a_r + at, 8);
                    e.read(1, self.a_p + at, 8);
                    e.flops(2);
                    e.write(3, self.a_p + at, 8);
                    self.p[i] = self.r[i] + self.beta * self.p[i];
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "cg", "seed": self.seed, "params": params_json(&self.params) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};
    use crate::{omp::OmpSource, params::parse};

    const SMALL: &str = "threads = 3\nrows = 300\nnonzeros_per_row = 4\niterations = 6";

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
    }

    #[test]
    fn residual_decreases() {
        let p: CgParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
        let mut src = OmpSource::new(Cg::new(p, 5).unwrap(), 3);
        src.run_to_end();
        let r = &src.kernel().residual_norms;
        assert_eq!(r.len(), 7);
        assert!(r.windows(2).all(|w| w[1] < w[0]), "{r:?}");
        assert!(r[6] < 1e-3 * r[0], "{r:?}");
        // x solves A x = 1.
        let k = src.kernel();
        for i in 0..300 {
            let ax: f64 = (k.rowptr[i] as usize..k.rowptr[i + 1] as usize)
                .map(|j| k.val[j] * k.x[k.col[j] as usize])
                .sum();
            assert!((ax - 1.0).abs() < 1e-3, "row {i}: {ax}");
        }
    }

    #[test]
    fn serial_init_is_done_by_thread_zero_and_flops_are_counted() {
        let all = check_generator(via(build), SMALL);
        let init_stores = |s: &Vec<numasim_trace::Access>| s.iter().take_while(|a| a.is_write()).count();
        assert!(init_stores(&all[0]) > 300 * 4);
        assert_eq!(init_stores(&all[1]), 0);
        let flops: u64 = all.iter().flatten().map(|a| a.flops as u64).sum();
        assert!(flops > 6 * 2 * 300 * 9, "{flops}");
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("rows = 1"), "rows");
        assert_eq!(bad("init = \"lazy\""), "init");
        assert_eq!(bad("nonzeros_per_row = 0"), "nonzeros_per_row");
    }
}
