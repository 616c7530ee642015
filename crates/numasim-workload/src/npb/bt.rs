//! `bt`: NPB BT — the block-tridiagonal ADI solver of the 3-D compressible Navier–Stokes
//! equations, with NPB 3.3-OMP's loop nests, array layout and static partitioning.
//!
//! Arrays (shared, [`super::cfd`]'s padded `[k][j][i]` layout): `us, vs, ws, qs, rho_i,
//! square` (one double a point), `forcing`, `u`, `rhs` (5 doubles a point, components
//! together). Per thread (`threadprivate`): `fjac`, `njac` (a 5×5 block per point of a line),
//! `lhs` (three 5×5 blocks AA, BB, CC per point of a line) and `exact_rhs`'s line buffers.
//!
//! Run: initialisation (`initialize`: u; `exact_rhs`: forcing, in x, y, z line passes), then
//! per time step NPB's `adi`:
//! 1. `compute_rhs`: auxiliary arrays from u (all points), rhs = forcing, the xi, eta and zeta
//!    flux + dissipation passes, rhs *= dt — each an `omp for` over planes k;
//! 2. `x_solve`: `omp for` over k; each line (k, j) along i: Jacobians `fjac`, `njac` at every
//!    point (loads rho_i, u, qs, square), the block rows AA, BB, CC of `lhs`, then the block
//!    Thomas algorithm: `binvcrhs` at i = 0, `matvec_sub` + `matmul_sub` + `binvcrhs` up the
//!    line, `binvrhs` at the end, and back substitution `rhs(i) −= CC(i)·rhs(i+1)` down it;
//! 3. `y_solve`: the same over k, lines (k, i) along j (stride `ip` points);
//! 4. `z_solve`: `omp for` over j, lines (j, i) along k (stride `ip·jp` points) — each thread
//!    reads and writes every other thread's planes;
//! 5. `add`: u += rhs (over k).
//!
//! NPB's warm-up step and re-initialisation before the timed loop are not modelled.
//! `init = "serial"` runs the initialisation loops (and a loop writing `rhs` and the auxiliary
//! arrays) on thread 0; `parallel` uses the static split of planes, as NPB 3.3-OMP does.
//!
//! Cost model (flops per operation, each flop one instruction charged to the next access,
//! loads/stores 1 instruction each): Jacobians 95 a point; lhs block row 260; `matvec_sub`
//! 50; `matmul_sub` 250; `binvcrhs` 365 (5 pivots of a 5×5 system with a 5×5 and a 5×1
//! right-hand side); `binvrhs` 140; back substitution 50; residual flux 55 and dissipation 45
//! a point and direction; pointwise loops 5. A step is then about 3 700 flops an interior
//! point: at n = 24, 1.4 % above NPB's own operation count (3 478.8 n³ − 17 655.7 n² +
//! 28 023.7 n; a test holds it).

use super::cfd::{Adi, AdiOp, Arrays, Class, ClassTable, Dir, Em, Lines, Private, COMPUTE_RHS, FORCING};
use super::Init;
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;

/// NPB 3.3 BT problem sizes and time steps.
pub const CLASSES: ClassTable = ClassTable {
    grid: [12, 24, 64, 102, 162],
    iterations: [60, 200, 200, 200, 200],
};

/// `bt`'s parameters (shared with the other CFD pseudo-applications).
pub type BtParams = super::cfd::CfdParams;

/// `class`'s line in `workload list` (a test holds it to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; grid and iterations override it\nS: grid 12^3, 60 time steps\nW: grid 24^3, 200 time steps\nA: grid 64^3, 200 time steps\nB: grid 102^3, 200 time steps\nC: grid 162^3, 200 time steps";

pub fn info() -> GeneratorInfo {
    super::cfd::generator_info(
        "bt",
        "NPB BT: ADI with 5x5 block-tridiagonal line solves along x, y, z (NPB 3.3-OMP layout)",
        "HyDM (NPB BT, class C)",
        CLASS_DOC,
        "overrides the number of time steps",
    )
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: BtParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Bt::new(p, seed)?, threads)))
}

/// The grid and iterations of `bt`, `sp` and `lu` (given, else the class's), checked.
pub(crate) fn sizes(
    table: &ClassTable,
    class: Class,
    grid: Option<usize>,
    iterations: Option<usize>,
) -> Result<(usize, usize), WorkloadError> {
    use super::cfd::{GRID_MAX, GRID_MIN};
    let n = grid.unwrap_or(table.grid(class));
    check(
        (GRID_MIN..=GRID_MAX).contains(&n),
        "grid",
        format!("must be between {GRID_MIN} and {GRID_MAX}"),
    )?;
    let it = iterations.unwrap_or(table.iterations(class));
    check(
        (1..=100_000).contains(&it),
        "iterations",
        "must be between 1 and 100000",
    )?;
    Ok((n, it))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Adi(AdiOp),
    Solve(Dir),
}

/// The BT kernel.
pub struct Bt {
    params: BtParams,
    seed: u64,
    threads: usize,
    adi: Adi,
    arrays: Arrays,
    fjac: Private,
    njac: Private,
    lhs: Private,
    plan: Vec<Op>,
    steps: usize,
    pos: usize,
    op: Op,
    lines: Lines,
}

impl Bt {
    pub fn new(params: BtParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let (n, steps) = sizes(&CLASSES, params.class, params.grid, params.iterations)?;
        let mut arrays = Arrays::default();
        let adi = Adi::new(&mut arrays, n, false);
        let line = (n + 1) as u64;
        let fjac = arrays.private("fjac", line * 25);
        let njac = arrays.private("njac", line * 25);
        let lhs = arrays.private("lhs", line * 75);
        let mut plan = vec![Op::Adi(AdiOp::InitU)];
        if params.init == Init::Serial {
            plan.push(Op::Adi(AdiOp::InitRest));
        }
        plan.extend(FORCING.iter().map(|&o| Op::Adi(o)));
        let threads = params.threads;
        Ok(Bt {
            threads,
            adi,
            arrays,
            fjac,
            njac,
            lhs,
            plan,
            steps,
            pos: 0,
            op: Op::Adi(AdiOp::InitU),
            lines: Lines::new(0, 0, 0, threads),
            params,
            seed,
        })
    }

    /// The arrays allocated (name, bytes, per thread or shared).
    pub fn arrays(&self) -> &Arrays {
        &self.arrays
    }

    /// The loops of one time step.
    fn step_plan() -> Vec<Op> {
        let mut v: Vec<Op> = COMPUTE_RHS.iter().map(|&o| Op::Adi(o)).collect();
        v.extend([
            Op::Solve(Dir::X),
            Op::Solve(Dir::Y),
            Op::Solve(Dir::Z),
            Op::Adi(AdiOp::Add),
        ]);
        v
    }

    fn is_init(op: Op) -> bool {
        matches!(
            op,
            Op::Adi(AdiOp::InitU | AdiOp::InitRest | AdiOp::ForcingZero | AdiOp::ForcingDir(_) | AdiOp::ForcingNeg)
        )
    }

    /// One line of a block-tridiagonal solve: `x_solve` / `y_solve` / `z_solve` for line
    /// `(a, b)` (both interior) along `dir`.
    fn solve_line(&self, dir: Dir, t: usize, (a, b): (usize, usize), em: &mut Em) {
        let g = &self.adi.g;
        let isize = g.n - 1;
        let (u, rhs) = (self.adi.u, self.adi.rhs);
        // aux order: us, vs, ws, qs, rho_i, square.
        let (qs, rho_i, square) = (self.adi.aux[3], self.adi.aux[4], self.adi.aux[5]);
        let (fjac, njac, lhs) = (self.fjac, self.njac, self.lhs);
        let pt = |s: usize| dir.point(g, a, b, s);
        // lhs block (s, which): which 0 = AA, 1 = BB, 2 = CC.
        let blk = |s: usize, which: usize| (s * 3 + which) * 25;
        for s in 0..=isize {
            let p = pt(s);
            em.rd(rho_i.addr(p, 0));
            em.rd_point(u, p);
            em.rd(qs.addr(p, 0));
            em.rd(square.addr(p, 0));
            em.flops(95);
            em.wr_priv(t, fjac, s * 25, 25);
            em.wr_priv(t, njac, s * 25, 25);
        }
        // lhsinit: the first and last points' three blocks.
        em.wr_priv(t, lhs, blk(0, 0), 75);
        em.wr_priv(t, lhs, blk(isize, 0), 75);
        for s in 1..isize {
            em.rd_priv(t, fjac, (s - 1) * 25, 25);
            em.rd_priv(t, njac, (s - 1) * 25, 25);
            em.rd_priv(t, njac, s * 25, 25);
            em.rd_priv(t, fjac, (s + 1) * 25, 25);
            em.rd_priv(t, njac, (s + 1) * 25, 25);
            em.flops(260);
            em.wr_priv(t, lhs, blk(s, 0), 75);
        }
        let binvcrhs = |em: &mut Em, s: usize| {
            em.rd_priv(t, lhs, blk(s, 1), 50);
            em.rd_point(rhs, pt(s));
            em.flops(365);
            em.wr_priv(t, lhs, blk(s, 1), 50);
            em.wr_point(rhs, pt(s));
        };
        let sub = |em: &mut Em, s: usize| {
            // matvec_sub: rhs(s) −= AA(s)·rhs(s−1).
            em.rd_priv(t, lhs, blk(s, 0), 25);
            em.rd_point(rhs, pt(s - 1));
            em.rd_point(rhs, pt(s));
            em.flops(50);
            em.wr_point(rhs, pt(s));
            // matmul_sub: BB(s) −= AA(s)·CC(s−1).
            em.rd_priv(t, lhs, blk(s, 0), 25);
            em.rd_priv(t, lhs, blk(s - 1, 2), 25);
            em.rd_priv(t, lhs, blk(s, 1), 25);
            em.flops(250);
            em.wr_priv(t, lhs, blk(s, 1), 25);
        };
        binvcrhs(em, 0);
        for s in 1..isize {
            sub(em, s);
            binvcrhs(em, s);
        }
        sub(em, isize);
        // binvrhs: rhs(isize) = BB(isize)⁻¹ rhs(isize).
        em.rd_priv(t, lhs, blk(isize, 1), 25);
        em.rd_point(rhs, pt(isize));
        em.flops(140);
        em.wr_priv(t, lhs, blk(isize, 1), 25);
        em.wr_point(rhs, pt(isize));
        for s in (0..isize).rev() {
            em.rd_priv(t, lhs, blk(s, 2), 25);
            em.rd_point(rhs, pt(s + 1));
            em.rd_point(rhs, pt(s));
            em.flops(50);
            em.wr_point(rhs, pt(s));
        }
    }
}

impl Kernel for Bt {
    fn next_loop(&mut self) -> Option<Loop> {
        if self.pos == self.plan.len() {
            if self.steps == 0 {
                return None;
            }
            self.steps -= 1;
            self.plan = Self::step_plan();
            self.pos = 0;
        }
        let op = self.plan[self.pos];
        self.pos += 1;
        self.op = op;
        let n = self.adi.g.n;
        self.lines = match op {
            Op::Adi(o) => self.adi.lines(o, self.threads),
            // x and y: omp for over k; z: omp for over j; n − 2 lines per outer index.
            Op::Solve(_) => Lines::new(1, n - 2, n - 2, self.threads).weighted(600 * n),
        };
        let sched = if Self::is_init(op) {
            self.params.init.sched()
        } else {
            Sched::Static
        };
        Some(Loop {
            items: self.lines.items(),
            sched,
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let mut em = Em::new(e);
        for idx in lo..hi {
            let Some((a, b)) = self.lines.line(idx) else {
                continue;
            };
            match self.op {
                Op::Adi(o) => self.adi.run(o, t, (a, b), &mut em),
                Op::Solve(dir) => self.solve_line(dir, t, (a, b + 1), &mut em),
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "generator": "bt",
            "seed": self.seed,
            "params": self.params,
            "grid": self.adi.g.n,
            "footprint_bytes": self.arrays.footprint_bytes(self.threads),
        })
    }

    /// The set-up is `initialize` and `exact_rhs` (the forcing term); the region of interest
    /// (NPB's timed loop) starts with the first time step.
    fn in_roi(&self) -> Option<bool> {
        Some(self.pos > 0 && !Self::is_init(self.op))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_oblivious_generator, via};
    use numasim_trace::{collect_all, Access};

    const SMALL: &str = "threads = 3\ngrid = 8\niterations = 1";

    fn kernel(text: &str) -> Bt {
        Bt::new(parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap()
    }

    /// Accesses of thread `t` running op `op` alone.
    fn run_op(k: &mut Bt, op: Op, t: usize) -> Vec<Access> {
        k.op = op;
        let n = k.adi.g.n;
        k.lines = match op {
            Op::Adi(o) => k.adi.lines(o, k.threads),
            Op::Solve(_) => Lines::new(1, n - 2, n - 2, k.threads).weighted(600 * n),
        };
        let per = k.lines.items() / k.threads;
        let mut e = Emitter::new();
        k.run(t, t * per, (t + 1) * per, &mut e);
        e.buf
    }

    #[test]
    fn deterministic_and_seed_independent() {
        check_oblivious_generator(via(build), SMALL);
    }

    #[test]
    fn x_sweep_walks_components_z_sweep_walks_planes() {
        let mut k = kernel("threads = 2\ngrid = 10\niterations = 1");
        let g = k.adi.g;
        let rhs = k.adi.rhs;
        let point_of = |a: &Access| (a.vaddr - rhs.base) / 8 / 5;
        for (dir, stride) in [(Dir::X, 1), (Dir::Y, g.ip as u64), (Dir::Z, (g.ip * g.jp) as u64)] {
            let acc = run_op(&mut k, Op::Solve(dir), 0);
            // The first line's first pass (binvcrhs up the line) touches rhs at successive
            // points `stride` apart.
            let pts: Vec<u64> = acc.iter().filter(|a| rhs.holds(&g, a.vaddr)).map(point_of).collect();
            let mut firsts = pts.clone();
            firsts.dedup();
            let up: Vec<u64> = firsts.windows(2).take(6).map(|w| w[1].wrapping_sub(w[0])).collect();
            assert!(up.contains(&stride), "{dir:?}: {up:?}");
            assert!(
                up.iter().all(|&d| d == stride || d == stride.wrapping_neg()),
                "{dir:?}: {up:?}"
            );
        }
        // Thread 0 of 2 owns planes k = 1..=4 in x_solve and rows j = 1..=4 in z_solve.
        let planes = |acc: &[Access]| -> std::collections::BTreeSet<u64> {
            acc.iter()
                .filter(|a| rhs.holds(&g, a.vaddr))
                .map(|a| point_of(a) / (g.ip * g.jp) as u64)
                .collect()
        };
        let xs = run_op(&mut k, Op::Solve(Dir::X), 0);
        assert_eq!(planes(&xs).into_iter().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        let zs = run_op(&mut k, Op::Solve(Dir::Z), 0);
        assert_eq!(planes(&zs).into_iter().collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn every_address_is_allocated_and_every_shared_page_touched() {
        let text = "threads = 2\ngrid = 12\niterations = 1";
        let k = kernel(text);
        let all = collect_all(&mut via(build)(text, 1)).unwrap();
        let g = k.adi.g;
        let mut fields = vec![k.adi.u, k.adi.rhs, k.adi.forcing];
        fields.extend(k.adi.aux.iter().copied());
        let private_bytes: u64 = k
            .arrays
            .table
            .iter()
            .filter(|a| a.per_thread)
            .map(|a| a.bytes.next_multiple_of(4096))
            .sum();
        for (t, s) in all.iter().enumerate() {
            for a in s {
                let shared = fields.iter().any(|&f| f.holds(&g, a.vaddr));
                let pb = crate::vspace::private_base(t);
                let private = a.vaddr >= pb && a.vaddr < pb + private_bytes;
                assert!(shared || private, "thread {t}: stray address {:#x}", a.vaddr);
            }
        }
        for f in fields {
            let pages: std::collections::BTreeSet<u64> = all
                .iter()
                .flatten()
                .filter(|a| f.holds(&g, a.vaddr))
                .map(|a| a.vaddr >> 12)
                .collect();
            let want = (f.base + g.points() * f.comps * 8 - 1) / 4096 - f.base / 4096 + 1;
            assert_eq!(pages.len() as u64, want);
        }
    }

    #[test]
    fn footprint_is_the_closed_form_of_the_array_shapes() {
        for c in Class::ALL {
            let k = kernel(&format!("threads = 4\nclass = \"{}\"", c.name()));
            let n = CLASSES.grid(c) as u64;
            let p = n / 2 * 2 + 1;
            // 6 scalar + 3 five-component arrays of n·p·p doubles; per thread fjac, njac (25),
            // lhs (75) and ue, buf (5) doubles per point of a line of n + 1.
            let shared = (6 + 3 * 5) * n * p * p * 8;
            let per_thread = (25 + 25 + 75 + 5 + 5) * (n + 1) * 8;
            assert_eq!(
                k.arrays().footprint_bytes(4),
                shared + 4 * per_thread,
                "class {}",
                c.name()
            );
        }
    }

    #[test]
    fn serial_init_is_thread_zero_and_bad_parameters_name_their_key() {
        let a = collect_all(&mut via(build)(SMALL, 1)).unwrap();
        let first_writes = |s: &Vec<Access>| s.iter().take_while(|a| a.is_write()).count();
        // Thread 0 writes u, then rhs and the six auxiliary arrays, at all 8·9·9 points.
        assert!(first_writes(&a[0]) >= 8 * 9 * 9 * (5 + 5 + 6) - 1);
        let par = collect_all(&mut via(build)(&format!("{SMALL}\ninit = \"parallel\""), 1)).unwrap();
        assert!(first_writes(&par[1]) > 0);
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("grid = 3"), "grid");
        assert_eq!(bad("class = \"D\""), "class");
        assert_eq!(bad("iterations = 0"), "iterations");
        assert_eq!(bad("threads = 0"), "threads");
    }
}
