//! `cg`: NPB CG — the inverse power method on NPB's random sparse symmetric matrix, each
//! outer step of it a conjugate-gradient solve, with the matrix built and first touched as
//! NPB's OpenMP C source (`NPB3.0-omp-C`, `CG/cg.c`) builds it.
//!
//! **The matrix (`makea`, `sparse`).** For each of the `rows` outer iterations, `makea` draws
//! a sparse vector of `nonzeros_per_row` (NONZER) distinct random positions (`sprnvc`: a
//! position below the next power of two at or above `rows`, rejected past the end or when
//! already drawn), sets the iteration's own index to 0.5 (`vecset`: appended when not drawn)
//! and appends the vector's outer product with itself, scaled by a factor decaying from 1 to
//! RCOND = 0.1, as (row, column, value) triples to the work arrays `arow`, `acol`, `aelt`;
//! then one diagonal triple per row. A row receives NONZER + 1 entries from every vector that
//! holds it: about (NONZER + 1)² + 1 triples on average (65 at class S), spread as widely as
//! the number of vectors holding it. `sparse` counts the triples per row, bucket-sorts them by
//! row into `a`/`colidx`, and merges each row's repeated columns (values summed, columns in
//! order of first appearance), compacting the matrix in place. The generator draws from its
//! own seeded generator, not NPB's `randlc`: its matrix is another draw of the same
//! construction. Its diagonal adds RCOND (NPB's RCOND − SHIFT only moves the eigenvalues), so
//! the matrix is positive definite.
//!
//! **Who first touches what** (`init`). NPB's OpenMP source runs these set-up loops as
//! `omp for` loops (static schedule): zeroing the `sprnvc` marks (`colidx[n+1..2n]`), zeroing
//! `rowstr` and `sparse`'s marks, "preloading" `a` row by row (so `a`'s pages go to the threads
//! of its pre-merge rows), clearing `sparse`'s dense work vector, shifting the column indices,
//! and setting `x`, `q`, `z`, `r`, `p`. The triple generation, the count, the prefix sums, the
//! bucket sort (the first writes of most of `colidx` and of `arow`, `acol`, `aelt`) and the
//! merge are serial. `init = "parallel"` (the default) is that; `init = "serial"` runs every
//! set-up loop on thread 0 as well (a program that builds all its data before going parallel).
//!
//! **Iterations.** `iterations` counts CG steps; every 25 (`cgitmax`) close one outer
//! iteration of the power method as `conj_grad` and NPB's main loop do: the residual
//! `r = A·z`, `‖x − r‖`, the norms `x·z` and `z·z`, and `x = z/‖z‖`; the next outer iteration
//! starts with `q = z = 0`, `r = p = x`. A CG step is four static loops over rows: `q = A·p`;
//! `p·q`; `z += α p`, `r −= α q` with `r·r`; `p = r + β p`.
//!
//! Arrays, in NPB's declaration order, each at its own base, indexed from 1 as in the C
//! source: `colidx`, `rowstr`, `iv`, `arow`, `acol` (i32), `v`, `aelt`, `a`, `x`, `z`, `p`, `q`,
//! `r` (f64).
//!
//! Cost model (instructions charged to each access): a `sprnvc` draw 40 (two `randlc` calls,
//! charged to the mark it reads, or as bare instructions when rejected); other set-up loads
//! and stores 2; `rowstr` read 3, `colidx` read 3, `a` read 1, `p[col]` read 3 (2 flops);
//! vector loads 1, stores 1 plus 2 per flop.

use super::class::{fill, params_json};
use super::{Class, Init};
use crate::omp::{Kernel, Loop, Sched, WaitPolicy};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct CgParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// parallel (the set-up loops NPB's OpenMP source runs as `omp for` are static parallel loops; the triples, bucket sort and merge stay on thread 0) | serial (thread 0 runs every set-up loop)
        init: Init = Init::Parallel, unit "-", Check::Any;
        #[doc = CLASS_DOC]
        class: Option<Class> = None, unit "-", Check::Any, unset "(none)";
        /// matrix order (NPB class A: 14000)
        rows: usize = 14_000, unit "rows", Check::Range(2.0, 67108864.0);
        /// NONZER: random positions of each of makea's sparse vectors (a row collects about (NONZER+1)^2 entries before merging)
        nonzeros_per_row: usize = 11, unit "nonzeros", Check::Range(1.0, 1000.0);
        /// CG steps (25 make one outer iteration of NPB's power method)
        iterations: usize = 15, unit "iterations", Check::Range(1.0, u64::MAX as f64);
        /// threads waiting at a barrier: active (spin, retiring instructions) | passive (sleep, as OMP_WAIT_POLICY=passive)
        wait_policy: WaitPolicy = WaitPolicy::Active, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "cg",
        summary: "NPB CG: inverse power method with CG solves on NPB makea's sparse matrix (CSR mat-vec)",
        paper: "Tikir & Hollingsworth (dynamic page migration, CG on Sun Fire 6800); HyDM (NPB)",
        params: CgParams::defs(),
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

super::class::class_params!(CgParams, CLASSES, wait);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Cg::new)
}

/// The arrays `cg` lays out for order `rows` and `triples` pre-merge entries (`(name, bytes)`
/// in allocation order): what [`Cg::new`] allocates, and its footprint. The triples are at
/// most [`triples_bound`].
pub fn layout(rows: usize, triples: u64) -> [(&'static str, u64); 13] {
    let n = rows as u64;
    let k = triples.max(2 * n) + 1;
    [
        ("colidx", k * U32),
        ("rowstr", (n + 2) * U32),
        ("iv", (2 * n + 2) * U32),
        ("arow", (triples + 1) * U32),
        ("acol", (triples + 1) * U32),
        ("v", (n + 2) * F64),
        ("aelt", (triples + 1) * F64),
        ("a", (triples + 1) * F64),
        ("x", (n + 3) * F64),
        ("z", (n + 3) * F64),
        ("p", (n + 3) * F64),
        ("q", (n + 3) * F64),
        ("r", (n + 3) * F64),
    ]
}

/// The most pre-merge triples `makea` makes: `rows` vectors of NONZER + 1 positions, each
/// giving (NONZER + 1)² triples, plus the diagonal.
pub fn triples_bound(rows: usize, nonzeros_per_row: usize) -> u64 {
    let m = nonzeros_per_row as u64 + 1;
    rows as u64 * (m * m + 1)
}

/// Most pre-merge triples the generator builds (NPB class C makes 38.4 M at most).
const MAX_TRIPLES: u64 = 1 << 28;
/// NPB's RCOND.
const RCOND: f64 = 0.1;

const F64: u64 = 8;
const U32: u64 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    /// `makea`: zero the `sprnvc` marks `colidx[n+1..=2n]` (omp for).
    MkMark,
    /// `makea`: the vectors and their outer products (serial; one item per vector).
    MkGen,
    /// `makea`: the diagonal triples (serial).
    MkDiag,
    /// `sparse`: zero `rowstr` and the marks `iv[1..=n]` (omp for).
    SpZero,
    /// `sparse`: count triples per row (serial; items: the vectors' groups, then the diagonal).
    SpCount,
    /// `sparse`: prefix sums of `rowstr` (serial).
    SpPrefix,
    /// `sparse`: preload `a` row by row (omp for over `j = 0..n`).
    SpPreload,
    /// `sparse`: bucket sort of the triples into `a`, `colidx` (serial).
    SpBucket,
    /// `sparse`: shift `rowstr` back one row (serial).
    SpShift,
    /// `sparse`: clear the dense work vector `v` and the marks (omp for).
    SpClear,
    /// `sparse`: merge repeated columns row by row (serial).
    SpMerge,
    /// main: shift the column indices (omp for).
    Shift,
    /// main: `x = 1` over `1..=n+1` (omp for).
    XInit,
    /// main: `q = z = r = p = 0` (omp for).
    VecInit,
    /// `conj_grad`: `q = z = 0`, `r = x`, `p = r` over `1..=n+1`.
    CgInit,
    /// `conj_grad`: `ρ = r·r`.
    Rho,
    MatVec,
    Dot,
    Update,
    Direction,
    /// `conj_grad`: `r = A·z`.
    ResMat,
    /// `conj_grad`: `‖x − r‖²`.
    ResSum,
    /// main: `x·z` and `z·z`.
    Norm,
    /// main: `x = z / ‖z‖`.
    Normalise,
}

/// The CG kernel (public so tests can read the matrix and the residual history).
pub struct Cg {
    params: CgParams,
    seed: u64,
    /// The `makea` vectors: positions (0-based rows) and values, vector `o` at
    /// `vec_off[o]..vec_off[o + 1]`.
    vec_idx: Vec<u32>,
    vec_off: Vec<u32>,
    /// Per vector: `sprnvc` draws (all, and those rejected as repeats).
    draws: Vec<u32>,
    repeats: Vec<u32>,
    /// Per vector: where `vecset` found the vector's own index (`None`: appended).
    own_at: Vec<Option<u32>>,
    /// Per row: the vectors holding it, vector-ascending, at `hold_off[i]..hold_off[i + 1]`.
    hold: Vec<u32>,
    hold_off: Vec<u32>,
    /// Pre-merge start of each row in `a` (1-based, NPB's `rowstr` after the prefix sums),
    /// and the end after the last row.
    pre_start: Vec<u32>,
    /// Merged CSR (0-based columns), row `i` at `rowptr[i]..rowptr[i + 1]`.
    rowptr: Vec<u32>,
    col: Vec<u32>,
    val: Vec<f64>,
    x: Vec<f64>,
    z: Vec<f64>,
    r: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
    base: [u64; 13],
    step: Step,
    /// CG steps done in all, and in this outer iteration.
    steps: usize,
    inner: usize,
    /// Serial bookkeeping: triples emitted so far, per-row bucket cursors, merge marks.
    nnza: u64,
    cursor: Vec<u32>,
    seen: Vec<u32>,
    partial: Vec<f64>,
    partial2: Vec<f64>,
    rho: f64,
    alpha: f64,
    beta: f64,
    norm: f64,
    /// `‖x − A·z‖` at the end of every outer iteration (NPB's `rnorm`).
    pub residual_norms: Vec<f64>,
    /// `x·z` at the end of every outer iteration (NPB's ζ is SHIFT + 1/(x·z)).
    pub xz: Vec<f64>,
}

const COLIDX: usize = 0;
const ROWSTR: usize = 1;
const IV: usize = 2;
const AROW: usize = 3;
const ACOL: usize = 4;
const V: usize = 5;
const AELT: usize = 6;
const A: usize = 7;
const X: usize = 8;
const Z: usize = 9;
const P: usize = 10;
const Q: usize = 11;
const R: usize = 12;

impl Cg {
    pub fn new(params: CgParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.nonzeros_per_row < params.rows,
            "nonzeros_per_row",
            "must be below rows",
        )?;
        check(
            triples_bound(params.rows, params.nonzeros_per_row) <= MAX_TRIPLES,
            "nonzeros_per_row",
            "rows x ((nonzeros_per_row + 1)^2 + 1), makea's triples, must be at most 2^28",
        )?;
        let n = params.rows;
        let nz = params.nonzeros_per_row;
        let mut rng = stream(seed, 0xC6);
        // sprnvc draws below the smallest power of two not less than n (NPB's nn1).
        let nn1 = n.next_power_of_two().max(2);
        let mut vec_idx = Vec::with_capacity(n * (nz + 1));
        let mut vec_val = Vec::with_capacity(n * (nz + 1));
        let mut vec_off = Vec::with_capacity(n + 1);
        let (mut draws, mut repeats, mut own_at) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut mark = vec![false; n];
        vec_off.push(0u32);
        for o in 0..n {
            let start = vec_idx.len();
            let (mut d, mut rep) = (0u32, 0u32);
            while vec_idx.len() - start < nz {
                let value: f64 = rng.gen_range(0.0..1.0);
                let at = rng.gen_range(0..nn1);
                d += 1;
                if at >= n {
                    continue;
                }
                if mark[at] {
                    rep += 1;
                    continue;
                }
                mark[at] = true;
                vec_idx.push(at as u32);
                vec_val.push(value);
            }
            for &i in &vec_idx[start..] {
                mark[i as usize] = false;
            }
            let own = vec_idx[start..].iter().position(|&i| i as usize == o);
            match own {
                Some(k) => vec_val[start + k] = 0.5,
                None => {
                    vec_idx.push(o as u32);
                    vec_val.push(0.5);
                }
            }
            own_at.push(own.map(|k| k as u32));
            draws.push(d);
            repeats.push(rep);
            vec_off.push(vec_idx.len() as u32);
        }
        // The vectors holding each row, vector-ascending (the order its triples arrive in).
        let mut hold_off = vec![0u32; n + 1];
        for &i in &vec_idx {
            hold_off[i as usize + 1] += 1;
        }
        for i in 0..n {
            hold_off[i + 1] += hold_off[i];
        }
        let mut hold = vec![0u32; vec_idx.len()];
        let mut hold_pos = vec![0u32; vec_idx.len()];
        let mut fill_at: Vec<u32> = hold_off[..n].to_vec();
        for o in 0..n {
            for pos in vec_off[o]..vec_off[o + 1] {
                let row = vec_idx[pos as usize] as usize;
                hold[fill_at[row] as usize] = o as u32;
                hold_pos[fill_at[row] as usize] = pos;
                fill_at[row] += 1;
            }
        }
        // Pre-merge row starts (1-based) and the merged rows, as `sparse` makes them.
        let ratio = RCOND.powf(1.0 / n as f64);
        let scale: Vec<f64> = std::iter::successors(Some(1.0f64), |s| Some(s * ratio))
            .take(n)
            .collect();
        let mut pre_start = Vec::with_capacity(n + 1);
        let mut at = 1u64;
        let mut acc = vec![0.0f64; n];
        let mut marked = vec![false; n];
        let mut nzloc: Vec<u32> = Vec::new();
        let (mut rowptr, mut col, mut val) = (vec![0u32], Vec::new(), Vec::new());
        for row in 0..n {
            pre_start.push(at as u32);
            let mut add = |c: u32, x: f64| {
                let c = c as usize;
                acc[c] += x;
                if !marked[c] && acc[c] != 0.0 {
                    marked[c] = true;
                    nzloc.push(c as u32);
                }
            };
            for h in hold_off[row] as usize..hold_off[row + 1] as usize {
                let o = hold[h] as usize;
                let vr = vec_val[hold_pos[h] as usize];
                for k in vec_off[o] as usize..vec_off[o + 1] as usize {
                    add(vec_idx[k], scale[o] * vec_val[k] * vr);
                }
                at += u64::from(vec_off[o + 1] - vec_off[o]);
            }
            add(row as u32, RCOND);
            at += 1;
            for &c in &nzloc {
                let c = c as usize;
                marked[c] = false;
                if acc[c] != 0.0 {
                    col.push(c as u32);
                    val.push(acc[c]);
                }
                acc[c] = 0.0;
            }
            nzloc.clear();
            rowptr.push(col.len() as u32);
        }
        pre_start.push(at as u32);
        let triples = at - 1;
        let mut space = AddressSpace::new();
        let base = layout(n, triples).map(|(_, bytes)| space.alloc(bytes));
        let threads = params.threads;
        Ok(Cg {
            params,
            seed,
            vec_idx,
            vec_off,
            draws,
            repeats,
            own_at,
            hold,
            hold_off,
            pre_start,
            rowptr,
            col,
            val,
            x: vec![0.0; n],
            z: vec![0.0; n],
            r: vec![0.0; n],
            p: vec![0.0; n],
            q: vec![0.0; n],
            base,
            step: Step::Start,
            steps: 0,
            inner: 0,
            nnza: 0,
            cursor: Vec::new(),
            seen: vec![u32::MAX; n],
            partial: vec![0.0; threads],
            partial2: vec![0.0; threads],
            rho: 0.0,
            alpha: 0.0,
            beta: 0.0,
            norm: 0.0,
            residual_norms: Vec::new(),
            xz: Vec::new(),
        })
    }

    /// Stored matrix entries after merging.
    pub fn nonzeros(&self) -> usize {
        self.col.len()
    }

    /// `makea`'s triples before merging (the diagonal's included).
    pub fn triples(&self) -> u64 {
        u64::from(self.pre_start[self.params.rows]) - 1
    }

    /// Row `i`'s stored entries after merging, and its triples before.
    pub fn row_lengths(&self, i: usize) -> (usize, usize) {
        (
            (self.rowptr[i + 1] - self.rowptr[i]) as usize,
            (self.pre_start[i + 1] - self.pre_start[i]) as usize,
        )
    }

    /// Address of element `k` (1-based, as in the C source) of array `which`.
    #[inline]
    fn at(&self, which: usize, k: u64) -> u64 {
        let size = if which <= ACOL { U32 } else { F64 };
        self.base[which] + k * size
    }

    fn take_sum(&mut self) -> f64 {
        let s = self.partial.iter().sum();
        self.partial.fill(0.0);
        s
    }

    fn take_sum2(&mut self) -> f64 {
        let s = self.partial2.iter().sum();
        self.partial2.fill(0.0);
        s
    }

    fn vector(&self, o: usize) -> std::ops::Range<usize> {
        self.vec_off[o] as usize..self.vec_off[o + 1] as usize
    }

    /// The rows (0-based) of group `g`'s triples in generation order: vector `g`'s outer
    /// product (columns outer, rows inner) for `g < n`, then row `g − n`'s diagonal.
    fn group_rows(&self, g: usize, out: &mut Vec<u32>) {
        let n = self.params.rows;
        if g < n {
            let r = self.vector(g);
            for _ in r.clone() {
                out.extend_from_slice(&self.vec_idx[r.clone()]);
            }
        } else {
            out.push((g - n) as u32);
        }
    }

    /// Row `i` of the merged matrix times `v` (array `vec_base`), emitting the loop's accesses.
    fn row_times(&self, i: usize, vec_base: usize, v: &[f64], e: &mut Emitter) -> f64 {
        e.read(3, self.at(ROWSTR, i as u64 + 2), 4);
        let mut sum = 0.0;
        for k in self.rowptr[i] as usize..self.rowptr[i + 1] as usize {
            let j = self.col[k] as usize;
            e.read(3, self.at(COLIDX, k as u64 + 1), 4);
            e.read(1, self.at(A, k as u64 + 1), 8);
            e.flops(2);
            e.read(3, self.at(vec_base, j as u64 + 1), 8);
            sum += self.val[k] * v[j];
        }
        sum
    }
}

impl Kernel for Cg {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.params.rows;
        let set_up = self.params.init.sched();
        let (step, items, sched) = match self.step {
            Step::Start => (Step::MkMark, n, set_up),
            Step::MkMark => (Step::MkGen, n, Sched::Serial),
            Step::MkGen => (Step::MkDiag, n, Sched::Serial),
            Step::MkDiag => (Step::SpZero, n, set_up),
            Step::SpZero => {
                self.nnza = 0;
                (Step::SpCount, 2 * n, Sched::Serial)
            }
            Step::SpCount => (Step::SpPrefix, n, Sched::Serial),
            Step::SpPrefix => (Step::SpPreload, n, set_up),
            Step::SpPreload => {
                self.nnza = 0;
                self.cursor = self.pre_start[..n].to_vec();
                (Step::SpBucket, 2 * n, Sched::Serial)
            }
            Step::SpBucket => {
                self.cursor = Vec::new();
                (Step::SpShift, n, Sched::Serial)
            }
            Step::SpShift => (Step::SpClear, n, set_up),
            Step::SpClear => (Step::SpMerge, n, Sched::Serial),
            Step::SpMerge => (Step::Shift, n, set_up),
            Step::Shift => {
                self.x.fill(1.0);
                (Step::XInit, n + 1, set_up)
            }
            Step::XInit => (Step::VecInit, n, set_up),
            Step::VecInit | Step::Normalise => {
                if self.steps >= self.params.iterations {
                    return None;
                }
                (Step::CgInit, n + 1, Sched::Static)
            }
            Step::CgInit => (Step::Rho, n, Sched::Static),
            Step::Rho => {
                self.rho = self.take_sum();
                self.inner = 0;
                (Step::MatVec, n, Sched::Static)
            }
            Step::MatVec => (Step::Dot, n, Sched::Static),
            Step::Dot => {
                self.alpha = self.rho / self.take_sum();
                (Step::Update, n, Sched::Static)
            }
            Step::Update => {
                let rho = self.take_sum();
                self.beta = rho / self.rho;
                self.rho = rho;
                self.steps += 1;
                self.inner += 1;
                (Step::Direction, n, Sched::Static)
            }
            Step::Direction => {
                if self.inner < CGITMAX && self.steps < self.params.iterations {
                    (Step::MatVec, n, Sched::Static)
                } else {
                    (Step::ResMat, n, Sched::Static)
                }
            }
            Step::ResMat => (Step::ResSum, n, Sched::Static),
            Step::ResSum => {
                let s = self.take_sum();
                self.residual_norms.push(s.sqrt());
                (Step::Norm, n, Sched::Static)
            }
            Step::Norm => {
                let xz = self.take_sum();
                self.xz.push(xz);
                self.norm = 1.0 / self.take_sum2().sqrt();
                (Step::Normalise, n, Sched::Static)
            }
        };
        self.step = step;
        Some(Loop { items, sched })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let n = self.params.rows as u64;
        match self.step {
            Step::Start => {}
            Step::MkMark => {
                for i in lo as u64..hi as u64 {
                    e.write(2, self.at(COLIDX, n + 1 + i), 4);
                }
            }
            Step::MkGen => {
                for o in lo..hi {
                    let r = self.vector(o);
                    let len = r.len() as u64;
                    let random = r.len() - usize::from(self.own_at[o].is_none());
                    // sprnvc: a draw past the end costs its two randlc calls only, a repeat
                    // reads its mark, a new position is marked and recorded.
                    let rejected = self.draws[o] - self.repeats[o] - random as u32;
                    e.compute(40 * u64::from(rejected));
                    for _ in 0..self.repeats[o] {
                        e.read(40, self.at(COLIDX, n + 1), 4);
                    }
                    for (k, pos) in r.clone().take(random).enumerate() {
                        let i = u64::from(self.vec_idx[pos]);
                        let k = k as u64 + 1;
                        e.read(40, self.at(COLIDX, n + 1 + i), 4);
                        e.write(2, self.at(COLIDX, n + 1 + i), 4);
                        e.write(2, self.at(COLIDX, k), 4);
                        e.write(2, self.at(V, k), 8);
                        e.write(2, self.at(IV, k), 4);
                    }
                    for (k, pos) in r.clone().take(random).enumerate() {
                        e.read(2, self.at(COLIDX, k as u64 + 1), 4);
                        e.write(2, self.at(COLIDX, n + 1 + u64::from(self.vec_idx[pos])), 4);
                    }
                    // vecset scans the vector, then sets or appends the own index.
                    for k in 1..=random as u64 {
                        e.read(2, self.at(IV, k), 4);
                    }
                    match self.own_at[o] {
                        Some(k) => e.write(2, self.at(V, u64::from(k) + 1), 8),
                        None => {
                            e.write(2, self.at(V, len), 8);
                            e.write(2, self.at(IV, len), 4);
                        }
                    }
                    // The outer product, appended as triples.
                    for c in 1..=len {
                        e.read(2, self.at(IV, c), 4);
                        e.read(2, self.at(V, c), 8);
                        for k in 1..=len {
                            e.read(2, self.at(IV, k), 4);
                            e.read(2, self.at(V, k), 8);
                            self.nnza += 1;
                            e.write(2, self.at(ACOL, self.nnza), 4);
                            e.write(2, self.at(AROW, self.nnza), 4);
                            e.flops(1);
                            e.write(2, self.at(AELT, self.nnza), 8);
                        }
                    }
                }
            }
            Step::MkDiag => {
                for _ in lo..hi {
                    self.nnza += 1;
                    e.write(2, self.at(ACOL, self.nnza), 4);
                    e.write(2, self.at(AROW, self.nnza), 4);
                    e.write(2, self.at(AELT, self.nnza), 8);
                }
            }
            Step::SpZero => {
                for j in lo as u64 + 1..=hi as u64 {
                    e.write(2, self.at(ROWSTR, j), 4);
                    e.write(2, self.at(IV, j), 4);
                }
            }
            Step::SpCount | Step::SpBucket => {
                let mut rows = Vec::new();
                for g in lo..hi {
                    self.group_rows(g, &mut rows);
                }
                for row in rows {
                    let row = row as usize;
                    self.nnza += 1;
                    e.read(2, self.at(AROW, self.nnza), 4);
                    if self.step == Step::SpCount {
                        e.read(2, self.at(ROWSTR, row as u64 + 2), 4);
                        e.write(2, self.at(ROWSTR, row as u64 + 2), 4);
                    } else {
                        let k = u64::from(self.cursor[row]);
                        self.cursor[row] += 1;
                        e.read(2, self.at(ROWSTR, row as u64 + 1), 4);
                        e.read(2, self.at(AELT, self.nnza), 8);
                        e.write(2, self.at(A, k), 8);
                        e.read(2, self.at(ACOL, self.nnza), 4);
                        e.write(2, self.at(COLIDX, k), 4);
                        e.write(2, self.at(ROWSTR, row as u64 + 1), 4);
                    }
                }
            }
            Step::SpPrefix => {
                for j in lo as u64 + 2..hi as u64 + 2 {
                    e.read(2, self.at(ROWSTR, j), 4);
                    e.write(2, self.at(ROWSTR, j), 4);
                }
            }
            Step::SpPreload => {
                // `for (j = 0; j <= nrows-1; j++) for (k = rowstr[j]; k < rowstr[j+1]; k++)`:
                // item 0 clears a[0], item j the pre-merge row j (1-based); the last row is
                // left to the bucket sort.
                for j in lo..hi {
                    e.read(2, self.at(ROWSTR, j as u64), 4);
                    let (from, to) = if j == 0 {
                        (0, 1)
                    } else {
                        (self.pre_start[j - 1], self.pre_start[j])
                    };
                    for k in from..to {
                        e.write(2, self.at(A, u64::from(k)), 8);
                    }
                }
            }
            Step::SpShift => {
                for item in lo as u64..hi as u64 {
                    let j = n - item;
                    e.read(2, self.at(ROWSTR, j), 4);
                    e.write(2, self.at(ROWSTR, j + 1), 4);
                }
            }
            Step::SpClear => {
                for i in lo as u64 + 1..=hi as u64 {
                    e.write(2, self.at(V, i), 8);
                    e.write(2, self.at(IV, i), 4);
                }
            }
            Step::SpMerge => {
                let mut seen = std::mem::take(&mut self.seen);
                for row in lo..hi {
                    // Accumulate the row's triples into the dense vector, marking new columns.
                    let mut k = u64::from(self.pre_start[row]);
                    let mut distinct = 0u64;
                    let mut cols = Vec::new();
                    for h in self.hold_off[row] as usize..self.hold_off[row + 1] as usize {
                        cols.extend_from_slice(&self.vec_idx[self.vector(self.hold[h] as usize)]);
                    }
                    cols.push(row as u32);
                    for c in cols {
                        let c64 = u64::from(c) + 1;
                        e.read(2, self.at(COLIDX, k), 4);
                        e.read(2, self.at(V, c64), 8);
                        e.read(2, self.at(A, k), 8);
                        e.write(2, self.at(V, c64), 8);
                        e.read(2, self.at(IV, c64), 4);
                        if seen[c as usize] != row as u32 {
                            seen[c as usize] = row as u32;
                            distinct += 1;
                            e.write(2, self.at(IV, c64), 4);
                            e.write(2, self.at(IV, n + distinct), 4);
                        }
                        k += 1;
                    }
                    // Extract the merged row.
                    for (m, kk) in (self.rowptr[row]..self.rowptr[row + 1]).enumerate() {
                        let c64 = u64::from(self.col[kk as usize]) + 1;
                        e.read(2, self.at(IV, n + 1 + m as u64), 4);
                        e.write(2, self.at(IV, c64), 4);
                        e.read(2, self.at(V, c64), 8);
                        e.write(2, self.at(V, c64), 8);
                        e.write(2, self.at(A, u64::from(kk) + 1), 8);
                        e.write(2, self.at(COLIDX, u64::from(kk) + 1), 4);
                    }
                    e.write(2, self.at(ROWSTR, row as u64 + 2), 4);
                }
                self.seen = seen;
            }
            Step::Shift => {
                for i in lo..hi {
                    e.read(3, self.at(ROWSTR, i as u64 + 2), 4);
                    for k in u64::from(self.rowptr[i]) + 1..=u64::from(self.rowptr[i + 1]) {
                        e.read(2, self.at(COLIDX, k), 4);
                        e.write(2, self.at(COLIDX, k), 4);
                    }
                }
            }
            Step::XInit => {
                for i in lo as u64 + 1..=hi as u64 {
                    e.write(2, self.at(X, i), 8);
                }
            }
            Step::VecInit => {
                for j in lo as u64 + 1..=hi as u64 {
                    for which in [Q, Z, R, P] {
                        e.write(2, self.at(which, j), 8);
                    }
                }
            }
            Step::CgInit => {
                for j in lo..hi {
                    let at = j as u64 + 1;
                    e.write(1, self.at(Q, at), 8);
                    e.write(1, self.at(Z, at), 8);
                    e.read(1, self.at(X, at), 8);
                    e.write(1, self.at(R, at), 8);
                    e.write(1, self.at(P, at), 8);
                    if j < self.params.rows {
                        self.q[j] = 0.0;
                        self.z[j] = 0.0;
                        self.r[j] = self.x[j];
                        self.p[j] = self.x[j];
                    }
                }
            }
            Step::Rho => {
                let mut s = 0.0;
                for j in lo..hi {
                    e.flops(2);
                    e.read(1, self.at(R, j as u64 + 1), 8);
                    s += self.r[j] * self.r[j];
                }
                self.partial[t] += s;
            }
            Step::MatVec => {
                for i in lo..hi {
                    let sum = self.row_times(i, P, &self.p, e);
                    self.q[i] = sum;
                    e.write(1, self.at(Q, i as u64 + 1), 8);
                }
            }
            Step::Dot => {
                let mut d = 0.0;
                for j in lo..hi {
                    e.read(1, self.at(P, j as u64 + 1), 8);
                    e.flops(2);
                    e.read(1, self.at(Q, j as u64 + 1), 8);
                    d += self.p[j] * self.q[j];
                }
                self.partial[t] += d;
            }
            Step::Update => {
                let mut rr = 0.0;
                for j in lo..hi {
                    let at = j as u64 + 1;
                    e.read(1, self.at(Z, at), 8);
                    e.read(1, self.at(P, at), 8);
                    e.flops(2);
                    e.write(3, self.at(Z, at), 8);
                    e.read(1, self.at(R, at), 8);
                    e.read(1, self.at(Q, at), 8);
                    e.flops(4);
                    e.write(5, self.at(R, at), 8);
                    self.z[j] += self.alpha * self.p[j];
                    self.r[j] -= self.alpha * self.q[j];
                    rr += self.r[j] * self.r[j];
                }
                self.partial[t] += rr;
            }
            Step::Direction => {
                for j in lo..hi {
                    let at = j as u64 + 1;
                    e.read(1, self.at(R, at), 8);
                    e.read(1, self.at(P, at), 8);
                    e.flops(2);
                    e.write(3, self.at(P, at), 8);
                    self.p[j] = self.r[j] + self.beta * self.p[j];
                }
            }
            Step::ResMat => {
                for i in lo..hi {
                    let d = self.row_times(i, Z, &self.z, e);
                    self.r[i] = d;
                    e.write(1, self.at(R, i as u64 + 1), 8);
                }
            }
            Step::ResSum => {
                let mut s = 0.0;
                for j in lo..hi {
                    e.read(1, self.at(X, j as u64 + 1), 8);
                    e.flops(3);
                    e.read(1, self.at(R, j as u64 + 1), 8);
                    let d = self.x[j] - self.r[j];
                    s += d * d;
                }
                self.partial[t] += s;
            }
            Step::Norm => {
                let (mut s11, mut s12) = (0.0, 0.0);
                for j in lo..hi {
                    e.read(1, self.at(X, j as u64 + 1), 8);
                    e.flops(4);
                    e.read(1, self.at(Z, j as u64 + 1), 8);
                    s11 += self.x[j] * self.z[j];
                    s12 += self.z[j] * self.z[j];
                }
                self.partial[t] += s11;
                self.partial2[t] += s12;
            }
            Step::Normalise => {
                for j in lo..hi {
                    e.read(1, self.at(Z, j as u64 + 1), 8);
                    e.flops(1);
                    e.write(2, self.at(X, j as u64 + 1), 8);
                    self.x[j] = self.norm * self.z[j];
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "cg", "seed": self.seed, "params": params_json(&self.params) })
    }

    /// The set-up is `makea`, `sparse` and main's vector initialisation; the region of
    /// interest (NPB's timed loop) starts with the first CG step.
    fn in_roi(&self) -> Option<bool> {
        Some(!matches!(
            self.step,
            Step::Start
                | Step::MkMark
                | Step::MkGen
                | Step::MkDiag
                | Step::SpZero
                | Step::SpCount
                | Step::SpPrefix
                | Step::SpPreload
                | Step::SpBucket
                | Step::SpShift
                | Step::SpClear
                | Step::SpMerge
                | Step::Shift
                | Step::XInit
                | Step::VecInit
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, first_touch_local_share, first_toucher, via};
    use crate::{omp::OmpSource, params::parse};

    const SMALL: &str = "threads = 3\nrows = 300\nnonzeros_per_row = 4\niterations = 30";

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
    }

    /// Every outer iteration's CG solve leaves a small residual `‖x − A·z‖` (x has norm 1
    /// after the first), and the power method's `x·z` moves less and less.
    #[test]
    fn power_method_converges() {
        let p: CgParams =
            parse(toml::from_str("threads = 3\nrows = 300\nnonzeros_per_row = 4\niterations = 100").unwrap()).unwrap();
        let mut src = OmpSource::new(Cg::new(p, 5).unwrap(), 3);
        src.run_to_end();
        let k = src.kernel();
        assert_eq!(k.residual_norms.len(), 4);
        // Relative to ‖x‖: √300 first, 1 after.
        let rel: Vec<f64> = k
            .residual_norms
            .iter()
            .enumerate()
            .map(|(i, r)| if i == 0 { r / 300f64.sqrt() } else { *r })
            .collect();
        assert!(rel.iter().all(|&r| r < 1e-3), "{rel:?}");
        let xz = &k.xz;
        assert!((xz[3] - xz[2]).abs() < (xz[2] - xz[1]).abs(), "{xz:?}");
    }

    /// makea's construction: (NONZER + 1)² + 1 triples a row before merging (a vector holds
    /// its own index unless it was drawn), and merged rows whose lengths spread with the
    /// number of vectors holding the row (a row per vector holding it, NONZER new columns
    /// each) — not the 2·NONZER + 1 of mirrored random entries.
    #[test]
    fn matrix_follows_makea() {
        let p: CgParams = parse(toml::from_str("threads = 1\nrows = 2000\nnonzeros_per_row = 7").unwrap()).unwrap();
        let cg = Cg::new(p, 3).unwrap();
        let per_row = cg.triples() as f64 / 2000.0;
        assert!((64.5..=65.0).contains(&per_row), "{per_row}");
        let merged: Vec<f64> = (0..2000).map(|i| cg.row_lengths(i).0 as f64).collect();
        let mean = merged.iter().sum::<f64>() / 2000.0;
        let sd = (merged.iter().map(|l| (l - mean) * (l - mean)).sum::<f64>() / 2000.0).sqrt();
        // A row in its own vector and in Binomial(n − 1, 7/n) others: 1 + 7·(1 + 7) columns
        // on average, standard deviation 7·√7 ≈ 18.5.
        assert!((52.0..=57.0).contains(&mean), "{mean}");
        assert!((15.0..=22.0).contains(&sd), "{sd}");
        assert_eq!(cg.nonzeros(), merged.iter().sum::<f64>() as usize);
    }

    /// Under NPB's parallel set-up the vectors and `a` are first touched by the threads that
    /// later work on them (more local accesses than under serial set-up), `colidx` by thread 0
    /// (the serial bucket sort), and every thread first touches part of `a`.
    #[test]
    fn parallel_set_up_spreads_first_touch_as_npb_does() {
        let text = "threads = 4\nrows = 2048\nnonzeros_per_row = 5\niterations = 100";
        let par = numasim_trace::collect_all(&mut *via(build)(text, 1)).unwrap();
        let ser = numasim_trace::collect_all(&mut *via(build)(&format!("{text}\ninit = \"serial\""), 1)).unwrap();
        let (lp, ls) = (first_touch_local_share(&par), first_touch_local_share(&ser));
        assert!(lp > ls + 0.12, "parallel {lp:.3}, serial {ls:.3}");
        let p: CgParams = parse(toml::from_str(text).unwrap()).unwrap();
        let cg = Cg::new(p, 1).unwrap();
        let owner = first_toucher(&par);
        let pages = |which: usize, from: u64, to: u64| (cg.at(which, from) >> 12)..=(cg.at(which, to) >> 12);
        let a_owners: std::collections::BTreeSet<usize> = pages(A, 1, cg.triples())
            .filter_map(|pg| owner.get(&pg).copied())
            .collect();
        assert_eq!(a_owners.len(), 4, "{a_owners:?}");
        // colidx past the marks (1-based index > 2n) was first written by the bucket sort.
        let past_marks = pages(COLIDX, 2 * 2048 + 1024, cg.triples());
        assert!(past_marks.clone().all(|pg| owner.get(&pg) == Some(&0)));
        // x's last page belongs to the last thread's static block.
        assert_eq!(owner[&(cg.at(X, 2048) >> 12)], 3);
        let all0 = first_toucher(&ser);
        assert!(all0.values().all(|&t| t == 0));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("rows = 1"), "rows");
        assert_eq!(bad("init = \"lazy\""), "init");
        assert_eq!(bad("nonzeros_per_row = 0"), "nonzeros_per_row");
        assert_eq!(bad("rows = 75000\nnonzeros_per_row = 91"), "nonzeros_per_row");
    }
}
