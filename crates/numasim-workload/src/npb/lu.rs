//! `lu`: NPB LU — symmetric successive over-relaxation (SSOR) on the 3-D compressible
//! Navier–Stokes equations, with NPB 3.3-OMP's arrays, loop nests and pipelined wavefront.
//!
//! Arrays (shared, [`super::cfd`]'s padded `[k][j][i]` layout): `u`, `rsd`, `frct` (5 doubles
//! a point), `qs`, `rho_i` (one); the Jacobian blocks of one plane `a, b, c, d` (lower) and
//! `au, bu, cu, du` (upper), each `[n][ip][5][5]`; `tv` (`[n][n][5]`, the upper sweep's
//! temporary). No thread-private arrays are modelled.
//!
//! Run: initialisation (`setbv`/`setiv`: u at every point; `erhs`: `frct` = 0 and `rsd` set at
//! every point, then `frct` from the x, y and z flux + dissipation passes; the Jacobian
//! arrays zeroed in `ssor`'s split of rows j, ascending for `a..d`, descending for `au..du`),
//! then per SSOR iteration:
//! 1. `rsd *= dt` (`omp for` over k);
//! 2. the lower sweep: for k = 1, 2, …: `jacld(k)` (blocks a, b, c, d from u at the point and
//!    its k−1, j−1, i−1 neighbours) and `blts(k)` (rsd(k) −= a·rsd(k−1); then, in increasing
//!    j and i, rsd(k,j,i) = d⁻¹(rsd − b·rsd(j−1) − c·rsd(i−1))). Every thread owns a static
//!    block of rows j of every plane, and row j needs row j−1 of the same plane, so thread t
//!    works on plane k only after thread t−1 finished it: NPB's pipeline. Here it is a
//!    sequence of wavefront stages with a barrier between them — in stage s thread t works on
//!    plane k = 1 + s − t — instead of NPB's point-to-point flags, the same order with the
//!    same per-stage critical path;
//! 3. the upper sweep, mirrored: for k = n−2 down to 1, `jacu(k)` (du, au, bu, cu from the
//!    i+1, j+1, k+1 neighbours) and `buts(k)` (tv = cu·rsd(k+1); then in decreasing j and i
//!    rsd −= du⁻¹(tv + au·rsd(i+1) + bu·rsd(j+1))). The j loops run downwards, so thread 0's
//!    static block holds the highest rows and leads the wavefront again;
//! 4. `u += rsd/(ω(2−ω))` (over k);
//! 5. `rhs`: `rsd = −frct`, `rho_i`, `qs` at every point; the xi and eta flux + dissipation
//!    passes over k, the zeta pass over rows j (lines along k), as NPB splits it;
//! 6. after the last iteration, the residual norm (`l2norm`, a read of rsd over k).
//!
//! NPB's warm-up iteration is not modelled; `init` as in `bt`. NPB's private 1-D `flux`
//! buffer of the residual passes is not modelled (loads of u at the neighbours are).
//!
//! Cost model (flops, one instruction each, charged to the next access; loads and stores 1):
//! `jacld`/`jacu` 200 a point (four 5×5 blocks), `blts`/`buts` 55 for the k-neighbour product
//! and 200 for the two 5×5 products and the 5×5 solve, residual flux 55 and dissipation 45 a
//! point and direction, pointwise loops 5–10. An iteration is then about 1 250 flops an
//! interior point; at n = 24 that is 39 % below NPB's operation-count formula (1 984.77 n³ −
//! …; a test holds it): NPB's Jacobians and residual fluxes are heavier than modelled here.

use super::bt::sizes;
use super::cfd::{pointwise_row, residual_line, residual_row, Arrays, ClassTable, Dir, Em, Field, Layout, Lines};
use super::{static_range, Init};
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::parse;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;

/// NPB 3.3 LU problem sizes and SSOR iterations.
pub const CLASSES: ClassTable = ClassTable {
    grid: [12, 33, 64, 102, 162],
    iterations: [50, 300, 250, 250, 250],
};

/// `lu`'s parameters (shared with the other CFD pseudo-applications).
pub type LuParams = super::cfd::CfdParams;

/// `class`'s line in `workload list` (a test holds it to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; grid and iterations override it\nS: grid 12^3, 50 SSOR iterations\nW: grid 33^3, 300 SSOR iterations\nA: grid 64^3, 250 SSOR iterations\nB: grid 102^3, 250 SSOR iterations\nC: grid 162^3, 250 SSOR iterations";

pub fn info() -> GeneratorInfo {
    super::cfd::generator_info(
        "lu",
        "NPB LU: SSOR with lower/upper triangular sweeps as a pipelined wavefront over planes (NPB 3.3-OMP)",
        "HyDM (NPB LU, class C)",
        CLASS_DOC,
        "overrides the number of SSOR iterations",
    )
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: LuParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Lu::new(p, seed)?, threads)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// u at every point.
    InitU,
    /// `init = "serial"` only: thread 0 also writes qs, rho_i and tv.
    InitRest,
    /// frct = 0, rsd = exact solution at every point.
    ErhsInit,
    /// erhs: one direction's contribution to frct (from rsd).
    Erhs(Dir),
    /// The Jacobian arrays zeroed (rows j: ascending a..d, descending au..du).
    InitJac,
    /// rsd *= dt.
    Scale,
    /// Stage s of the lower (true) or upper (false) wavefront.
    Stage(bool, usize),
    /// u += rsd / (ω(2−ω)).
    Add,
    /// rsd = −frct, rho_i and qs from u, at every point.
    RhsInit,
    /// One direction's flux + dissipation into rsd.
    Rhs(Dir),
    /// The final residual norm (reads rsd).
    Norm,
}

/// The three passes of a wavefront stage on one plane.
const STAGE_PASSES: usize = 3;

/// The LU kernel.
pub struct Lu {
    params: LuParams,
    seed: u64,
    threads: usize,
    g: Layout,
    arrays: Arrays,
    u: Field,
    rsd: Field,
    frct: Field,
    qs: Field,
    rho_i: Field,
    /// a, b, c, d (lower) and au, bu, cu, du (upper).
    jac: [Field; 8],
    tv: Field,
    plan: Vec<Op>,
    steps: usize,
    step: usize,
    pos: usize,
    op: Op,
    lines: Lines,
    /// Rows j per thread of the widest block (wavefront stages).
    block: usize,
}

impl Lu {
    pub fn new(params: LuParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let (n, steps) = sizes(&CLASSES, params.class, params.grid, params.iterations)?;
        let g = Layout::new(n);
        let pts = g.points();
        let mut arrays = Arrays::default();
        let u = arrays.shared("u", pts, 5);
        let rsd = arrays.shared("rsd", pts, 5);
        let frct = arrays.shared("frct", pts, 5);
        let qs = arrays.shared("qs", pts, 1);
        let rho_i = arrays.shared("rho_i", pts, 1);
        let plane = (n * g.ip) as u64;
        let names = ["a", "b", "c", "d", "au", "bu", "cu", "du"];
        let jac = names.map(|name| arrays.shared(name, plane, 25));
        let tv = arrays.shared("tv", (n * n) as u64, 5);
        let mut plan = vec![Op::InitU];
        if params.init == Init::Serial {
            plan.push(Op::InitRest);
        }
        plan.extend([
            Op::ErhsInit,
            Op::Erhs(Dir::X),
            Op::Erhs(Dir::Y),
            Op::Erhs(Dir::Z),
            Op::InitJac,
            Op::RhsInit,
            Op::Rhs(Dir::X),
            Op::Rhs(Dir::Y),
            Op::Rhs(Dir::Z),
        ]);
        let threads = params.threads;
        Ok(Lu {
            threads,
            g,
            arrays,
            u,
            rsd,
            frct,
            qs,
            rho_i,
            jac,
            tv,
            plan,
            steps,
            step: 0,
            pos: 0,
            op: Op::InitU,
            lines: Lines::new(0, 0, 0, threads),
            block: (n - 2).div_ceil(threads),
            params,
            seed,
        })
    }

    /// The arrays allocated.
    pub fn arrays(&self) -> &Arrays {
        &self.arrays
    }

    /// Threads with rows in the wavefront (NPB's `mthreadnum + 1`).
    fn active(&self) -> usize {
        self.threads.min(self.g.n - 2)
    }

    fn step_plan(&self, last: bool) -> Vec<Op> {
        let stages = self.g.n - 2 + self.active() - 1;
        let mut v = vec![Op::Scale];
        v.extend((0..stages).map(|s| Op::Stage(true, s)));
        v.extend((0..stages).map(|s| Op::Stage(false, s)));
        v.extend([Op::Add, Op::RhsInit, Op::Rhs(Dir::X), Op::Rhs(Dir::Y), Op::Rhs(Dir::Z)]);
        if last {
            v.push(Op::Norm);
        }
        v
    }

    fn lines_of(&self, op: Op) -> Lines {
        let n = self.g.n;
        let t = self.threads;
        match op {
            Op::InitU | Op::InitRest | Op::ErhsInit | Op::RhsInit => Lines::new(0, n, n, t),
            // Rows j (interior), whole rows of i (the zeroing runs over ist..iend).
            Op::InitJac => Lines::new(1, n - 2, 2, t),
            Op::Stage(..) => Lines::new(0, 0, 0, t),
            _ => Lines::new(1, n - 2, n - 2, t),
        }
        // At most about 100 accesses a point (the residual passes).
        .weighted(100 * n)
    }

    /// Items per wavefront row: rows of about 130 accesses a point, spaced as
    /// [`Lines::weighted`] spaces lines.
    fn stage_repeat(&self) -> usize {
        let w = Lines::new(0, 1, 1, 1).weighted(130 * self.g.n);
        w.items()
    }

    /// The (pass, k, j) of wavefront item `idx` (`None`: padding or outside the pipeline).
    fn stage_item(&self, lower: bool, s: usize, idx: usize) -> Option<(usize, usize, usize)> {
        let n = self.g.n;
        let per = STAGE_PASSES * self.block;
        let (t, r) = (idx / per, idx % per);
        let (pass, jr) = (r / self.block, r % self.block);
        let rows = static_range(n - 2, self.threads, t);
        if jr >= rows.len() || s < t || s - t >= n - 2 {
            return None;
        }
        let it = rows.start + jr;
        Some(if lower {
            (pass, 1 + s - t, 1 + it)
        } else {
            (pass, n - 2 - (s - t), n - 2 - it)
        })
    }

    #[inline(always)]
    fn blk(&self, j: usize, i: usize) -> u64 {
        (j * self.g.ip + i) as u64
    }

    /// Four Jacobian blocks at (k, j, i): `targets[x]` from u at `points[x]`.
    fn jacobians(&self, em: &mut Em, (j, i): (usize, usize), points: [u64; 4], targets: [Field; 4]) {
        for (p, f) in points.into_iter().zip(targets) {
            em.rd_point(self.u, p);
            em.rd(self.rho_i.addr(p, 0));
            em.rd(self.qs.addr(p, 0));
            em.flops(50);
            em.wr_point(f, self.blk(j, i));
        }
    }

    /// One row j of pass `pass` of the lower (`jacld`, `blts` 1, `blts` 2) or upper (`jacu`,
    /// `buts` 1, `buts` 2) sweep on plane k.
    fn stage_row(&self, em: &mut Em, lower: bool, pass: usize, (k, j): (usize, usize)) {
        let g = &self.g;
        let n = g.n;
        let [a, b, c, d, au, bu, cu, du] = self.jac;
        let rsd = self.rsd;
        for x in 0..n - 2 {
            let i = if lower { 1 + x } else { n - 2 - x };
            let p = g.at(k, j, i);
            let bl = self.blk(j, i);
            match (lower, pass) {
                (true, 0) => self.jacobians(
                    em,
                    (j, i),
                    [p, g.at(k - 1, j, i), g.at(k, j - 1, i), g.at(k, j, i - 1)],
                    [d, a, b, c],
                ),
                (true, 1) => {
                    em.rd_point(a, bl);
                    em.rd_point(rsd, g.at(k - 1, j, i));
                    em.rd_point(rsd, p);
                    em.flops(55);
                    em.wr_point(rsd, p);
                }
                (true, _) => {
                    em.rd_point(rsd, p);
                    em.rd_point(b, bl);
                    em.rd_point(rsd, g.at(k, j - 1, i));
                    em.rd_point(c, bl);
                    em.rd_point(rsd, g.at(k, j, i - 1));
                    em.rd_point(d, bl);
                    em.flops(200);
                    em.wr_point(rsd, p);
                }
                (false, 0) => self.jacobians(
                    em,
                    (j, i),
                    [p, g.at(k, j, i + 1), g.at(k, j + 1, i), g.at(k + 1, j, i)],
                    [du, au, bu, cu],
                ),
                (false, 1) => {
                    em.rd_point(cu, bl);
                    em.rd_point(rsd, g.at(k + 1, j, i));
                    em.flops(55);
                    em.wr_point(self.tv, (j * n + i) as u64);
                }
                (false, _) => {
                    em.rd_point(self.tv, (j * n + i) as u64);
                    em.rd_point(au, bl);
                    em.rd_point(rsd, g.at(k, j, i + 1));
                    em.rd_point(bu, bl);
                    em.rd_point(rsd, g.at(k, j + 1, i));
                    em.rd_point(du, bl);
                    em.flops(200);
                    em.rd_point(rsd, p);
                    em.wr_point(rsd, p);
                }
            }
        }
    }

    fn run_line(&self, em: &mut Em, (a, b): (usize, usize)) {
        let g = &self.g;
        let n = g.n;
        let (u, rsd, frct) = (self.u, self.rsd, self.frct);
        let aux = [self.qs, self.rho_i];
        match self.op {
            Op::InitU => pointwise_row(em, g, (a, b), (0, n), &[], &[u], 60),
            Op::InitRest => {
                pointwise_row(em, g, (a, b), (0, n), &[], &[self.qs, self.rho_i], 0);
                if a == 0 {
                    for i in 0..n {
                        em.wr_point(self.tv, (b * n + i) as u64);
                    }
                }
            }
            Op::ErhsInit => pointwise_row(em, g, (a, b), (0, n), &[], &[frct, rsd], 60),
            Op::Erhs(Dir::Z) => residual_line(em, g, Dir::Z, (a, b + 1), rsd, &[], frct, (55, 45)),
            Op::Erhs(dir) => residual_row(em, g, dir, (a, b + 1), rsd, &[], frct, (55, 45)),
            Op::InitJac => {
                // b = 0: a..d in ascending rows; b = 1: au..du, the rows of the descending
                // loop (static block t of the iterations jend−1 down to jst).
                let j = if b == 0 { a } else { n - 1 - a };
                let fields = if b == 0 { &self.jac[..4] } else { &self.jac[4..] };
                for i in 1..n - 1 {
                    for &f in fields {
                        em.wr_point(f, self.blk(j, i));
                    }
                }
            }
            Op::Scale => pointwise_row(em, g, (a, b + 1), (1, n - 1), &[rsd], &[rsd], 5),
            Op::Add => pointwise_row(em, g, (a, b + 1), (1, n - 1), &[u, rsd], &[u], 10),
            Op::RhsInit => {
                for i in 0..n {
                    let p = g.at(a, b, i);
                    em.rd_point(frct, p);
                    em.rd_point(u, p);
                    em.flops(10);
                    em.wr_point(rsd, p);
                    em.wr(self.rho_i.addr(p, 0));
                    em.wr(self.qs.addr(p, 0));
                }
            }
            Op::Rhs(Dir::Z) => residual_line(em, g, Dir::Z, (a, b + 1), u, &aux, rsd, (55, 45)),
            Op::Rhs(dir) => residual_row(em, g, dir, (a, b + 1), u, &aux, rsd, (55, 45)),
            Op::Norm => pointwise_row(em, g, (a, b + 1), (1, n - 1), &[rsd], &[], 10),
            Op::Stage(..) => unreachable!("stages are not lines"),
        }
    }
}

impl Kernel for Lu {
    fn next_loop(&mut self) -> Option<Loop> {
        if self.pos == self.plan.len() {
            if self.step == self.steps {
                return None;
            }
            self.step += 1;
            self.plan = self.step_plan(self.step == self.steps);
            self.pos = 0;
        }
        let op = self.plan[self.pos];
        self.pos += 1;
        self.op = op;
        self.lines = self.lines_of(op);
        let items = match op {
            Op::Stage(..) => self.threads * STAGE_PASSES * self.block * self.stage_repeat(),
            _ => self.lines.items(),
        };
        let init = matches!(op, Op::InitU | Op::InitRest | Op::ErhsInit | Op::Erhs(_) | Op::InitJac);
        let sched = if init { self.params.init.sched() } else { Sched::Static };
        Some(Loop { items, sched })
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let mut em = Em::new(e);
        for idx in lo..hi {
            if let Op::Stage(lower, s) = self.op {
                let rep = self.stage_repeat();
                if !idx.is_multiple_of(rep) {
                    continue;
                }
                if let Some((pass, k, j)) = self.stage_item(lower, s, idx / rep) {
                    self.stage_row(&mut em, lower, pass, (k, j));
                }
            } else if let Some(line) = self.lines.line(idx) {
                self.run_line(&mut em, line);
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "generator": "lu",
            "seed": self.seed,
            "params": self.params,
            "grid": self.g.n,
            "footprint_bytes": self.arrays.footprint_bytes(self.threads),
        })
    }

    /// The set-up is `setiv`, `erhs`, the Jacobian's first touch and the steady-state residual
    /// `ssor` computes before starting its timer; the region of interest starts with the first
    /// SSOR iteration.
    fn in_roi(&self) -> Option<bool> {
        Some(self.step > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::cfd::Class;
    use crate::npb::testutil::{check_oblivious_generator, via};

    const SMALL: &str = "threads = 3\ngrid = 9\niterations = 2";

    fn kernel(text: &str) -> Lu {
        Lu::new(parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap()
    }

    #[test]
    fn deterministic_and_seed_independent() {
        check_oblivious_generator(via(build), SMALL);
    }

    /// (thread, plane k) of every blts pass-2 row, stage by stage.
    fn wavefront(k: &mut Lu, lower: bool) -> Vec<Vec<(usize, usize, usize)>> {
        let n = k.g.n;
        let stages = n - 2 + k.active() - 1;
        let per = STAGE_PASSES * k.block;
        (0..stages)
            .map(|s| {
                (0..k.threads * per)
                    .filter_map(|idx| k.stage_item(lower, s, idx).map(|x| (idx / per, x)))
                    .filter(|(_, (pass, _, _))| *pass == 2)
                    .map(|(t, (_, kk, j))| (t, kk, j))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn wavefront_thread_t_works_on_plane_k_after_thread_t_minus_1() {
        let mut k = kernel("threads = 3\ngrid = 11\niterations = 1");
        let n = k.g.n;
        for lower in [true, false] {
            let w = wavefront(&mut k, lower);
            let mut done = std::collections::BTreeSet::new();
            for stage in &w {
                for &(t, kk, j) in stage {
                    // Every row the solve depends on (j ∓ 1 on the same plane, plane k ∓ 1)
                    // was finished in an earlier stage or comes earlier in this thread's rows.
                    let (dj, dk): (isize, isize) = if lower { (-1, -1) } else { (1, 1) };
                    let prev_row = (kk, (j as isize + dj) as usize);
                    let prev_plane = ((kk as isize + dk) as usize, j);
                    let interior = |(a, b): (usize, usize)| (1..n - 1).contains(&a) && (1..n - 1).contains(&b);
                    for dep in [prev_row, prev_plane] {
                        let mine = stage.iter().any(|&(t2, a, b)| t2 == t && (a, b) == dep);
                        assert!(
                            !interior(dep) || done.contains(&dep) || mine,
                            "lower={lower}: thread {t} row {j} of plane {kk} before {dep:?}"
                        );
                    }
                }
                done.extend(stage.iter().map(|&(_, a, b)| (a, b)));
            }
            assert_eq!(done.len(), (n - 2) * (n - 2), "every row of every plane once");
            // Thread 0 leads: stage 0 holds only thread 0; the lower sweep starts at plane 1
            // and the bottom rows, the upper at plane n − 2 and the top rows.
            assert!(w[0].iter().all(|&(t, _, _)| t == 0));
            let (k0, j0) = (w[0][0].1, w[0][0].2);
            if lower {
                assert_eq!((k0, j0), (1, 1));
            } else {
                assert_eq!((k0, j0), (n - 2, n - 2));
            }
        }
    }

    #[test]
    fn lower_sweep_walks_i_upward_upper_sweep_downward() {
        let mut k = kernel("threads = 1\ngrid = 8\niterations = 1");
        let rsd = k.rsd;
        let g = k.g;
        for lower in [true, false] {
            k.op = Op::Stage(lower, 0);
            let mut e = Emitter::new();
            // Stage 0, thread 0, pass 2 (the triangular solve), its first row.
            let idx = 2 * k.block * k.stage_repeat();
            k.run(0, idx, idx + 1, &mut e);
            let writes: Vec<u64> = e
                .buf
                .iter()
                .filter(|a| a.is_write() && a.vaddr >= rsd.base && a.vaddr < rsd.base + g.points() * 40)
                .map(|a| (a.vaddr - rsd.base) / 40)
                .collect();
            let mut pts = writes.clone();
            pts.dedup();
            let want: Vec<u64> = if lower {
                (1..7).map(|i| g.at(1, 1, i)).collect()
            } else {
                (1..7).rev().map(|i| g.at(6, 6, i)).collect()
            };
            assert_eq!(pts, want, "lower = {lower}");
        }
    }

    #[test]
    fn footprint_is_the_closed_form_of_the_array_shapes() {
        for c in Class::ALL {
            let k = kernel(&format!("threads = 4\nclass = \"{}\"", c.name()));
            let n = CLASSES.grid(c) as u64;
            let p = n / 2 * 2 + 1;
            // u, rsd, frct (5) and qs, rho_i (1) over n·p·p points; eight 5×5 blocks over
            // n·p; tv: 5 over n·n. Nothing per thread.
            let want = ((3 * 5 + 2) * n * p * p + 8 * 25 * n * p + 5 * n * n) * 8;
            assert_eq!(k.arrays().footprint_bytes(4), want, "class {}", c.name());
            assert_eq!(k.arrays().footprint_bytes(1), want);
        }
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("grid = 6"), "grid");
        assert_eq!(bad("class = \"c\""), "class");
        assert_eq!(bad("iterations = 0"), "iterations");
    }
}
