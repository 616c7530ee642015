//! `mg`: NPB MG — V-cycle multigrid for the 3-D Poisson equation on a periodic grid.
//!
//! The finest grid has `2^grid_log2` points per dimension; coarser levels halve it down to
//! 2×2×2. Each level k has a correction/solution array `u_k` and a residual array `r_k`
//! (f64, z-major: `(z·n + y)·n + x`), each at its own base; the finest level also has the
//! right-hand side `v`. As in NPB's `zran3`, `v` is zero except for ten +1 and ten −1 entries at
//! seeded random points. The operator is the 7-point Laplacian `A_k u = (6u − Σ neighbours)/h_k²`
//! with periodic wrap (h doubles per coarser level). One iteration is NPB's `mg3P` V-cycle:
//! 1. restrict the residual down the hierarchy (`rprj3`: 27-point full weighting);
//! 2. on the coarsest level smooth from zero (`u = ω r / diag`);
//! 3. up the hierarchy: prolong (`interp`, trilinear; assigns on coarse levels, adds to the
//!    finest u), recompute the residual (`resid`: `r = r − A u`, finest `r = v − A u`) and smooth
//!    (`psinv`: damped Jacobi `u += ω r / diag`, ω = 2/3).
//!
//! followed by the finest residual, whose norm is recorded ([`Mg::residual_norms`]). Each
//! operation is one parallel loop over the rows `(z, y)` of its output grid under a static
//! schedule (NPB parallelises the outer z loop; a static split of rows is the same split when
//! threads divide the planes), with a barrier after it.
//!
//! **Initialisation** (`init`). NPB's OpenMP MG (`NPB3.0-omp-C`, `MG/mg.c`) zeroes the finest
//! `u` in a parallel loop over planes (`zero3`), and `zran3` zeroes `v` the same way, fills it
//! with random numbers and searches it for the ten largest and smallest on thread 0, zeroes it
//! again in parallel and writes the ±1 points; `r` and the coarser levels are first written
//! by the V-cycle's own parallel loops. `init = "parallel"` (the default) does that (static
//! row blocks stand for NPB's plane blocks); `init = "serial"` has thread 0 zero every `u_k`,
//! `r_k` and write `v` before the parallel part (a program whose set-up is serial, as the
//! MG Tikir & Hollingsworth ran).
//!
//! **Why the address stream hardly depends on the seed.** Multigrid is data-oblivious: which
//! points are read and written, in which order, is fixed by the grid size. The seed chooses
//! the ±1 points of `v`, so it changes every value (and the residual history); the only
//! addresses it moves are the twenty stores that place those points (`zran3`'s last loop,
//! in the parallel set-up). The tests check that the same seed gives identical output and that
//! another seed gives different data and differs in no other address.
//!
//! Cost model (instructions charged to each access): stencil/grid loads 1 plus 1 per flop that
//! follows them (each point's index arithmetic: +2 on the first load); stores 2 plus the flops
//! just before them. Resid: 7 u loads + 1 r/v load, 9 flops, 1 store. Restrict: 27 loads,
//! 27 flops (multiply-add counted as 1 each), 1 store. Interp: 2^d coarse loads (d = odd
//! coordinates of the fine point), 2^d flops, plus a u load on the finest level. Smooth: 2 loads,
//! 3 flops, 1 store. Initialisation stores cost 2.

use super::class::{fill, params_json};
use super::{Class, Init};
use crate::omp::{Kernel, Loop, Sched, WaitPolicy};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct MgParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// parallel (NPB's OpenMP set-up: u and v zeroed by static row blocks, v's random fill and search on thread 0, r and coarser levels first written by the V-cycle) | serial (thread 0 zeroes every level and writes v first)
        init: Init = Init::Parallel, unit "-", Check::Any;
        #[doc = CLASS_DOC]
        class: Option<Class> = None, unit "-", Check::Any, unset "(none)";
        /// finest grid is 2^grid_log2 points per dimension (NPB class S: 5, W: 7, A: 8)
        grid_log2: u32 = 6, unit "log2 points", Check::Range(2.0, 9.0);
        /// V-cycles (NPB: 4 for classes S-A)
        iterations: usize = 4, unit "iterations", Check::Range(1.0, 1000.0);
        /// threads waiting at a barrier: active (spin, retiring instructions) | passive (sleep, as OMP_WAIT_POLICY=passive)
        wait_policy: WaitPolicy = WaitPolicy::Active, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "mg",
        summary: "NPB MG: 3-D multigrid V-cycle (7-point residual, restriction, prolongation, smoothing)",
        paper: "Tikir & Hollingsworth (MG: serial init puts pages on one board); HyDM (NPB)",
        params: MgParams::defs(),
    }
}

/// One row of NPB 3.x's MG class table (`problem_size` = 2^grid_log2, `nit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MgClass {
    pub grid_log2: u32,
    pub iterations: usize,
}

/// NPB 3.x MG classes S, W, A, B, C.
#[rustfmt::skip]
pub const CLASSES: [MgClass; 5] = [
    MgClass { grid_log2: 5, iterations: 4 },
    MgClass { grid_log2: 7, iterations: 4 },
    MgClass { grid_log2: 8, iterations: 4 },
    MgClass { grid_log2: 8, iterations: 20 },
    MgClass { grid_log2: 9, iterations: 20 },
];

/// The keys `class` sets.
pub const CLASS_KEYS: &[&str] = &["grid_log2", "iterations"];

impl MgClass {
    pub fn apply(&self, given: &std::collections::BTreeSet<String>, p: &mut MgParams) {
        fill(given, "grid_log2", &mut p.grid_log2, self.grid_log2);
        fill(given, "iterations", &mut p.iterations, self.iterations);
    }
}

/// `class`'s lines in `workload list` (a test holds them to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; sets the keys below the table leaves out (unset: their defaults)
S: grid_log2 5 (32^3), iterations 4
W: grid_log2 7 (128^3), iterations 4
A: grid_log2 8 (256^3), iterations 4
B: grid_log2 8 (256^3), iterations 20
C: grid_log2 9 (512^3), iterations 20";

/// Parses `mg`'s table and resolves `class` (explicit keys override it).
pub fn params(table: toml::Table) -> Result<MgParams, WorkloadError> {
    super::class::resolve(table)
}

super::class::class_params!(MgParams, CLASSES, wait);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Mg::new)
}

const F64: u64 = 8;
/// Damping of the Jacobi smoother.
const OMEGA: f64 = 2.0 / 3.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Zero u_k, r_k (and write v on the finest level): serial set-up.
    Init(usize),
    /// NPB's set-up: zero the finest u (`zero3`).
    ZeroU,
    /// `zran3`: zero v, fill it (serial), search it (serial), place the ±1 points (serial).
    ZeroV,
    FillV,
    SearchV,
    PlaceV,
    /// r_k = r_k − A u_k (finest: r = v − A u); `true`: record the norm (end of a V-cycle).
    Resid(usize, bool),
    /// r_{k-1} = R r_k.
    Restrict(usize),
    /// u_0 = ω r_0 / diag.
    Bottom,
    /// u_k (=|+=) P u_{k-1}.
    Interp(usize),
    /// u_k += ω r_k / diag.
    Smooth(usize),
}

/// The MG kernel (public so tests can read the residual history and data).
pub struct Mg {
    params: MgParams,
    seed: u64,
    /// Levels, coarsest (0, n = 2) to finest (`levels − 1`).
    n: Vec<usize>,
    u: Vec<Vec<f64>>,
    r: Vec<Vec<f64>>,
    v: Vec<f64>,
    a_u: Vec<u64>,
    a_r: Vec<u64>,
    a_v: u64,
    plan: Vec<Op>,
    /// The ±1 points of `v`.
    charges: Vec<usize>,
    pos: usize,
    op: Op,
    partial: Vec<f64>,
    /// ‖r‖₂ of the finest residual before the first V-cycle and after each.
    pub residual_norms: Vec<f64>,
}

/// The arrays `mg` lays out (f64): `(u_k, r_k)` bytes for each level from the coarsest (2³)
/// to the finest, then the right-hand side `v`, in allocation order. What [`Mg::new`]
/// allocates, and its footprint.
pub fn layout(p: &MgParams) -> (Vec<(u64, u64)>, u64) {
    let cube = |m: u64| m * m * m * F64;
    let levels = (1..=p.grid_log2).map(|l| (cube(1 << l), cube(1 << l))).collect();
    (levels, cube(1 << p.grid_log2))
}

impl Mg {
    pub fn new(params: MgParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let levels = params.grid_log2 as usize;
        let n: Vec<usize> = (1..=levels).map(|l| 1usize << l).collect();
        let fine = levels - 1;
        let nf = n[fine];
        let mut v = vec![0.0; nf * nf * nf];
        let mut rng = stream(seed, 0x36);
        let mut placed = 0;
        while placed < 20 {
            let i = rng.gen_range(0..v.len());
            if v[i] == 0.0 {
                v[i] = if placed < 10 { 1.0 } else { -1.0 };
                placed += 1;
            }
        }
        let mut space = AddressSpace::new();
        let mut a_u = Vec::new();
        let mut a_r = Vec::new();
        let (levels_bytes, v_bytes) = layout(&params);
        for (u_bytes, r_bytes) in levels_bytes {
            a_u.push(space.alloc(u_bytes));
            a_r.push(space.alloc(r_bytes));
        }
        let a_v = space.alloc(v_bytes);
        let charges: Vec<usize> = (0..v.len()).filter(|&i| v[i] != 0.0).collect();
        let mut plan: Vec<Op> = match params.init {
            Init::Serial => (0..levels).rev().map(Op::Init).collect(),
            Init::Parallel => vec![Op::ZeroU, Op::ZeroV, Op::FillV, Op::SearchV, Op::ZeroV, Op::PlaceV],
        };
        plan.push(Op::Resid(fine, true));
        for _ in 0..params.iterations {
            plan.extend((1..levels).rev().map(Op::Restrict));
            plan.push(Op::Bottom);
            for k in 1..levels {
                plan.extend([Op::Interp(k), Op::Resid(k, false), Op::Smooth(k)]);
            }
            plan.push(Op::Resid(fine, true));
        }
        let threads = params.threads;
        Ok(Mg {
            u: n.iter().map(|&m| vec![0.0; m * m * m]).collect(),
            r: n.iter().map(|&m| vec![0.0; m * m * m]).collect(),
            n,
            v,
            a_u,
            a_r,
            a_v,
            plan,
            charges,
            pos: 0,
            op: Op::Bottom,
            partial: vec![0.0; threads],
            residual_norms: Vec::new(),
            params,
            seed,
        })
    }

    /// The finest-level solution (for tests).
    pub fn solution(&self) -> &[f64] {
        self.u.last().expect("at least one level")
    }

    fn fine(&self) -> usize {
        self.n.len() - 1
    }

    /// 1/h_k² with h = 1 on the finest level.
    fn inv_h2(&self, k: usize) -> f64 {
        let h = (1usize << (self.fine() - k)) as f64;
        1.0 / (h * h)
    }
}

#[inline(always)]
fn idx(n: usize, z: usize, y: usize, x: usize) -> usize {
    (z * n + y) * n + x
}

impl Kernel for Mg {
    fn next_loop(&mut self) -> Option<Loop> {
        if self.pos > 0 && self.op == Op::Resid(self.fine(), true) {
            let s: f64 = self.partial.iter().sum();
            self.partial.fill(0.0);
            self.residual_norms.push(s.sqrt());
        }
        let op = *self.plan.get(self.pos)?;
        self.pos += 1;
        self.op = op;
        let fine = self.fine();
        let (k, sched) = match op {
            Op::Init(k) => (k, self.params.init.sched()),
            Op::ZeroU | Op::ZeroV => (fine, Sched::Static),
            Op::FillV | Op::SearchV => (fine, Sched::Serial),
            Op::PlaceV => {
                return Some(Loop {
                    items: 1,
                    sched: Sched::Serial,
                })
            }
            Op::Resid(k, _) | Op::Interp(k) | Op::Smooth(k) => (k, Sched::Static),
            Op::Restrict(k) => (k - 1, Sched::Static),
            Op::Bottom => (0, Sched::Static),
        };
        Some(Loop {
            items: self.n[k] * self.n[k],
            sched,
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let fine = self.fine();
        match self.op {
            Op::Init(k) => {
                let n = self.n[k];
                for row in lo..hi {
                    for x in 0..n {
                        let at = (row * n + x) as u64 * F64;
                        e.write(2, self.a_u[k] + at, 8);
                        e.write(2, self.a_r[k] + at, 8);
                        if k == fine {
                            e.write(2, self.a_v + at, 8);
                        }
                    }
                }
            }
            Op::ZeroU | Op::ZeroV | Op::FillV | Op::SearchV => {
                let n = self.n[fine];
                let (base, cost) = match self.op {
                    Op::ZeroU => (self.a_u[fine], 2),
                    // vranlc: a multiply-and-reduce of the seed per point.
                    Op::FillV => (self.a_v, 12),
                    // Two compares per point against the current extremes.
                    Op::SearchV => (self.a_v, 5),
                    _ => (self.a_v, 2),
                };
                for row in lo..hi {
                    for x in 0..n {
                        let at = base + (row * n + x) as u64 * F64;
                        if self.op == Op::SearchV {
                            e.read(cost, at, 8);
                        } else {
                            e.write(cost, at, 8);
                        }
                    }
                }
            }
            Op::PlaceV => {
                for &c in &self.charges {
                    e.write(4, self.a_v + c as u64 * F64, 8);
                }
            }
            Op::Resid(k, _) => {
                let n = self.n[k];
                let m = n - 1;
                let s = self.inv_h2(k);
                let (au, ar, src) = (self.a_u[k], self.a_r[k], if k == fine { self.a_v } else { self.a_r[k] });
                let mut sq = 0.0;
                for row in lo..hi {
                    let (z, y) = (row / n, row % n);
                    let (zm, zp, ym, yp) = ((z + m) & m, (z + 1) & m, (y + m) & m, (y + 1) & m);
                    for x in 0..n {
                        let (xm, xp) = ((x + m) & m, (x + 1) & m);
                        let c = idx(n, z, y, x);
                        let nb = [
                            idx(n, z, y, xm),
                            idx(n, z, y, xp),
                            idx(n, z, ym, x),
                            idx(n, z, yp, x),
                            idx(n, zm, y, x),
                            idx(n, zp, y, x),
                        ];
                        let u = &self.u[k];
                        e.read(3, au + c as u64 * F64, 8);
                        let mut sum = 0.0;
                        for &j in &nb {
                            e.flops(1);
                            e.read(2, au + j as u64 * F64, 8);
                            sum += u[j];
                        }
                        let au_c = (6.0 * u[c] - sum) * s;
                        e.flops(2);
                        e.read(3, src + c as u64 * F64, 8);
                        let rhs = if k == fine { self.v[c] } else { self.r[k][c] };
                        let res = rhs - au_c;
                        self.r[k][c] = res;
                        sq += res * res;
                        e.flops(1);
                        e.write(3, ar + c as u64 * F64, 8);
                    }
                }
                self.partial[t] += sq;
            }
            Op::Restrict(k) => {
                // Coarse level k − 1 from fine level k.
                let (nc, nf) = (self.n[k - 1], self.n[k]);
                let mf = nf - 1;
                let (af, ac) = (self.a_r[k], self.a_r[k - 1]);
                let (lower, upper) = self.r.split_at_mut(k);
                let (rc, rf) = (&mut lower[k - 1], &upper[0]);
                for row in lo..hi {
                    let (z, y) = (row / nc, row % nc);
                    for x in 0..nc {
                        let mut acc = 0.0;
                        let mut first = true;
                        for (dz, wz) in WEIGHT.iter().enumerate() {
                            let fz = (2 * z + mf + dz) & mf;
                            for (dy, wy) in WEIGHT.iter().enumerate() {
                                let fy = (2 * y + mf + dy) & mf;
                                for (dx, wx) in WEIGHT.iter().enumerate() {
                                    let fx = (2 * x + mf + dx) & mf;
                                    let w = wz * wy * wx;
                                    let j = idx(nf, fz, fy, fx);
                                    e.flops(1);
                                    e.read(if first { 4 } else { 2 }, af + j as u64 * F64, 8);
                                    first = false;
                                    acc += w * rf[j];
                                }
                            }
                        }
                        let c = idx(nc, z, y, x);
                        rc[c] = acc;
                        e.write(2, ac + c as u64 * F64, 8);
                    }
                }
            }
            Op::Bottom => {
                let n = self.n[0];
                let scale = OMEGA / (6.0 * self.inv_h2(0));
                for row in lo..hi {
                    for x in 0..n {
                        let c = row * n + x;
                        e.read(3, self.a_r[0] + c as u64 * F64, 8);
                        self.u[0][c] = scale * self.r[0][c];
                        e.flops(1);
                        e.write(3, self.a_u[0] + c as u64 * F64, 8);
                    }
                }
            }
            Op::Interp(k) => {
                let (nc, nf) = (self.n[k - 1], self.n[k]);
                let mc = nc - 1;
                let (ac, afu) = (self.a_u[k - 1], self.a_u[k]);
                let add = k == fine;
                let (lower, upper) = self.u.split_at_mut(k);
                let (uc, uf) = (&lower[k - 1], &mut upper[0]);
                for row in lo..hi {
                    let (z, y) = (row / nf, row % nf);
                    let (cz, oz) = (z / 2, z % 2);
                    let (cy, oy) = (y / 2, y % 2);
                    for x in 0..nf {
                        let (cx, ox) = (x / 2, x % 2);
                        let d = oz + oy + ox;
                        let w = 1.0 / (1u32 << d) as f64;
                        let mut acc = 0.0;
                        let mut first = true;
                        for sz in 0..=oz {
                            for sy in 0..=oy {
                                for sx in 0..=ox {
                                    let j = idx(nc, (cz + sz) & mc, (cy + sy) & mc, (cx + sx) & mc);
                                    e.flops(1);
                                    e.read(if first { 4 } else { 2 }, ac + j as u64 * F64, 8);
                                    first = false;
                                    acc += uc[j];
                                }
                            }
                        }
                        let c = idx(nf, z, y, x);
                        let val = w * acc;
                        if add {
                            e.read(1, afu + c as u64 * F64, 8);
                            e.flops(2);
                            uf[c] += val;
                        } else {
                            e.flops(1);
                            uf[c] = val;
                        }
                        e.write(3, afu + c as u64 * F64, 8);
                    }
                }
            }
            Op::Smooth(k) => {
                let n = self.n[k];
                let scale = OMEGA / (6.0 * self.inv_h2(k));
                for row in lo..hi {
                    for x in 0..n {
                        let c = row * n + x;
                        let at = c as u64 * F64;
                        e.read(3, self.a_r[k] + at, 8);
                        e.read(1, self.a_u[k] + at, 8);
                        self.u[k][c] += scale * self.r[k][c];
                        e.flops(2);
                        e.write(3, self.a_u[k] + at, 8);
                    }
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "mg", "seed": self.seed, "params": params_json(&self.params) })
    }
    /// The set-up zeroes the grids and builds `v` (`zero3`, `zran3`); the region of interest
    /// (NPB's timed part) starts with the first residual.
    fn in_roi(&self) -> Option<bool> {
        Some(
            self.pos > 0
                && !matches!(
                    self.op,
                    Op::Init(_) | Op::ZeroU | Op::ZeroV | Op::FillV | Op::SearchV | Op::PlaceV
                ),
        )
    }
}

/// Full-weighting restriction weights along one dimension (offsets −1, 0, +1); their
/// 27-point product sums to 1.
const WEIGHT: [f64; 3] = [0.25, 0.5, 0.25];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{collect_interleaved, first_touch_local_share, first_toucher, via};
    use crate::{omp::OmpSource, params::parse};
    use numasim_trace::collect_all;

    const SMALL: &str = "threads = 3\ngrid_log2 = 4\niterations = 3";

    /// (v, residual norms, finest solution) after a run.
    fn run(seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let p: MgParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
        let mut src = OmpSource::new(Mg::new(p, seed).unwrap(), 3);
        src.run_to_end();
        let k = src.kernel();
        (k.v.clone(), k.residual_norms.clone(), k.solution().to_vec())
    }

    #[test]
    fn deterministic_monotonic_and_seed_changes_data_not_addresses() {
        let b = via(build);
        let a = collect_all(&mut b(SMALL, 1)).unwrap();
        assert!(a == collect_interleaved(&mut *b(SMALL, 1)), "depends on pull order");
        for (t, s) in a.iter().enumerate() {
            assert!(!s.is_empty(), "thread {t} idle");
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr), "thread {t}");
        }
        // Data-oblivious: another seed gives the same addresses but for the twenty ±1 stores
        // of thread 0 (see module docs) ...
        let c = collect_all(&mut b(SMALL, 2)).unwrap();
        assert!(a[1..] == c[1..]);
        let differ = a[0].iter().zip(&c[0]).filter(|(x, y)| x != y).count();
        assert!(a[0].len() == c[0].len() && (1..=20).contains(&differ), "{differ}");
        // ... but different data, while the same seed gives the same data.
        let (x, y, z) = (run(1), run(1), run(2));
        assert_eq!(x, y);
        assert_ne!(x.0, z.0);
        assert_ne!(x.2, z.2);
    }

    #[test]
    fn v_cycles_reduce_the_residual() {
        let (_, r, _) = run(5);
        assert_eq!(r.len(), 4, "{r:?}");
        assert!((r[0] - 20f64.sqrt()).abs() < 1e-12, "{r:?}");
        // V(0,1) cycles (no pre-smoothing, as NPB's mg3P): the first cycle barely changes the
        // spiky initial residual, later ones cut it by about half each.
        assert!(r[1..].windows(2).all(|w| w[1] < 0.7 * w[0]), "{r:?}");
        assert!(r[3] < 0.3 * r[0], "{r:?}");
    }

    #[test]
    fn serial_init_by_thread_zero_and_flops_counted() {
        let a = collect_all(&mut via(build)(&format!("{SMALL}\ninit = \"serial\""), 1)).unwrap();
        let init_stores = |s: &Vec<numasim_trace::Access>| s.iter().take_while(|a| a.is_write()).count();
        // Every level's u and r, plus v: 3·16³ + 2·(8³ + 4³ + 2³).
        assert_eq!(init_stores(&a[0]), 3 * 4096 + 2 * (512 + 64 + 8));
        assert_eq!(init_stores(&a[1]), 0);
        let flops: u64 = a.iter().flatten().map(|x| x.flops as u64).sum();
        assert!(flops > 3 * 4096 * 9, "{flops}");
    }

    /// NPB's set-up: each thread zeroes its rows of the finest `u` and `v` (its first writes),
    /// thread 0 alone fills and searches `v`, and the V-cycle's loops first touch `r` and the
    /// coarser levels; first touch is then far more local than under serial set-up, where
    /// thread 0 touches every page first.
    #[test]
    fn parallel_set_up_is_npbs() {
        let text = "threads = 4\ngrid_log2 = 5\niterations = 2";
        let par = collect_all(&mut via(build)(text, 1)).unwrap();
        let ser = collect_all(&mut via(build)(&format!("{text}\ninit = \"serial\""), 1)).unwrap();
        let p: MgParams = parse(toml::from_str(text).unwrap()).unwrap();
        let mg = Mg::new(p, 1).unwrap();
        let fine = mg.fine();
        // Thread 1's first 2·32³/4 accesses zero its quarter of u and v.
        let rows = 32 * 32 / 4;
        let first: Vec<u64> = par[1].iter().take(2 * rows * 32).map(|a| a.vaddr).collect();
        assert!(par[1][..2 * rows * 32].iter().all(|a| a.is_write()));
        let quarter = |base: u64| base + (rows * 32 * 8) as u64..base + (2 * rows * 32 * 8) as u64;
        assert!(first
            .iter()
            .all(|a| quarter(mg.a_u[fine]).contains(a) || quarter(mg.a_v).contains(a)));
        // Thread 0 reads all of v (the search); the other threads' v reads come later.
        let v = mg.a_v..mg.a_v + 32 * 32 * 32 * 8;
        assert!(par[0].iter().filter(|a| !a.is_write() && v.contains(&a.vaddr)).count() >= 32 * 32 * 32);
        let owner = first_toucher(&par);
        for (k, &base) in mg.a_r.iter().enumerate() {
            let n = mg.n[k] as u64;
            let owners: std::collections::BTreeSet<usize> = (base >> 12..=(base + n * n * n * 8 - 1) >> 12)
                .map(|pg| owner[&pg])
                .collect();
            // Level k has n² rows; a level with fewer 4 KiB pages than threads has fewer owners.
            let pages = (n * n * n * 8).div_ceil(4096) as usize;
            assert_eq!(owners.len(), pages.min(4), "r level {k}: {owners:?}");
        }
        assert!(owner.iter().all(|(_, &t)| t < 4));
        let (lp, ls) = (first_touch_local_share(&par), first_touch_local_share(&ser));
        assert!(lp > ls + 0.4, "parallel {lp:.3}, serial {ls:.3}");
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("grid_log2 = 1"), "grid_log2");
        assert_eq!(bad("iterations = 0"), "iterations");
        assert_eq!(bad("init = \"lazy\""), "init");
    }
}
