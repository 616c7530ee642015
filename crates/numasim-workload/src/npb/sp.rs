//! `sp`: NPB SP — the scalar-pentadiagonal ADI solver of the 3-D compressible Navier–Stokes
//! equations, with NPB 3.3-OMP's loop nests, array layout and static partitioning.
//!
//! Arrays (shared, [`super::cfd`]'s padded `[k][j][i]` layout): `u` (5 doubles a point),
//! `us, vs, ws, qs, rho_i, speed, square` (one each), `rhs`, `forcing` (5 each). Per thread
//! (`threadprivate`): the line buffers `cv`, `rhon` and the three pentadiagonal factors `lhs`,
//! `lhsp`, `lhsm` of a whole plane (`[ip][ip][5]`: 5 diagonals per point) — 3 × 1 MB a thread
//! at class C, which makes SP's footprint grow with the thread count.
//!
//! Run: initialisation as in `bt` (u; `exact_rhs` in x, y, z line passes), then per time step
//! NPB's `adi`: `compute_rhs` (as BT, plus `speed`), `txinvr` (pointwise), `x_solve` +
//! `ninvr`, `y_solve` + `pinvr`, `z_solve` + `tzetar`, `add`. Each solve is an `omp for` over
//! planes k (x, y) or rows j (z); for every outer index it runs NPB's sequence of passes over
//! the whole plane, each a loop nest of its own: build the u-eigenvalue factor (`cv`, `rhon`
//! per line, then `lhs`), add the fourth-order dissipation, form `lhsp`/`lhsm` (reads
//! `speed`), Thomas forward elimination of the first three components, of the u±c
//! components, and back substitution. The nest order follows the reference: `x_solve` walks
//! line by line (`for j { for i }`); `y_solve` and `z_solve` build `cv`/`rhon` line by line but
//! run every later pass position-outer, line-inner (`for k { for i }` in `z_solve`), so their
//! elimination sweeps a whole row of i at each step along the line.
//!
//! NPB's warm-up step is not modelled; `init` as in `bt`.
//!
//! Cost model (flops, one instruction each, charged to the next access; loads and stores 1):
//! `cv`/`rhon` 8 a point, `lhs` row 8, dissipation 1 a diagonal, `lhsp`/`lhsm` 4, forward
//! elimination 26 (three components) and 32 (u±c), back substitution 20; `txinvr` 40,
//! `ninvr`/`pinvr` 15, `tzetar` 40 a point; `compute_rhs` as `bt`. At n = 24 a step counts
//! 17 % fewer flops than NPB's operation-count formula (881.174 n³ − …; a test holds it): the
//! reference's flux terms are heavier than modelled.

use super::bt::sizes;
use super::cfd::{pointwise_row, Adi, AdiOp, Arrays, ClassTable, Dir, Em, Field, Lines, Private, COMPUTE_RHS, FORCING};
use super::Init;
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::parse;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use numasim_trace::AccessSource;

/// NPB 3.3 SP problem sizes and time steps.
pub const CLASSES: ClassTable = ClassTable {
    grid: [12, 36, 64, 102, 162],
    iterations: [100, 400, 400, 400, 400],
};

/// `sp`'s parameters (shared with the other CFD pseudo-applications).
pub type SpParams = super::cfd::CfdParams;

/// `class`'s line in `workload list` (a test holds it to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; grid and iterations override it\nS: grid 12^3, 100 time steps\nW: grid 36^3, 400 time steps\nA: grid 64^3, 400 time steps\nB: grid 102^3, 400 time steps\nC: grid 162^3, 400 time steps";

pub fn info() -> GeneratorInfo {
    super::cfd::generator_info(
        "sp",
        "NPB SP: ADI with scalar pentadiagonal (Thomas) solves along x, y, z (NPB 3.3-OMP layout)",
        "HyDM (NPB SP, class C)",
        CLASS_DOC,
        "overrides the number of time steps",
    )
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: SpParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Sp::new(p, seed)?, threads)))
}

/// The passes of one solve, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Build,
    Dissipation,
    Factors,
    Forward,
    ForwardPm,
    Back,
}

const PASSES: [Pass; 6] = [
    Pass::Build,
    Pass::Dissipation,
    Pass::Factors,
    Pass::Forward,
    Pass::ForwardPm,
    Pass::Back,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Adi(AdiOp),
    /// `txinvr`, `ninvr`, `pinvr`, `tzetar` (pointwise over the interior).
    Txinvr,
    Ninvr,
    Pinvr,
    Tzetar,
    Solve(Dir),
}

/// The SP kernel.
pub struct Sp {
    params: SpParams,
    seed: u64,
    threads: usize,
    adi: Adi,
    arrays: Arrays,
    cv: Private,
    rhon: Private,
    lhs: [Private; 3],
    plan: Vec<Op>,
    steps: usize,
    pos: usize,
    op: Op,
    lines: Lines,
}

impl Sp {
    pub fn new(params: SpParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let (n, steps) = sizes(&CLASSES, params.class, params.grid, params.iterations)?;
        let mut arrays = Arrays::default();
        let adi = Adi::new(&mut arrays, n, true);
        let line = n as u64;
        let plane = (adi.g.ip * adi.g.ip) as u64 * 5;
        let cv = arrays.private("cv", line);
        let rhon = arrays.private("rhon", line);
        let lhs = [
            arrays.private("lhs", plane),
            arrays.private("lhsp", plane),
            arrays.private("lhsm", plane),
        ];
        let mut plan = vec![Op::Adi(AdiOp::InitU)];
        if params.init == Init::Serial {
            plan.push(Op::Adi(AdiOp::InitRest));
        }
        plan.extend(FORCING.iter().map(|&o| Op::Adi(o)));
        let threads = params.threads;
        Ok(Sp {
            threads,
            adi,
            arrays,
            cv,
            rhon,
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

    fn step_plan() -> Vec<Op> {
        let mut v: Vec<Op> = COMPUTE_RHS.iter().map(|&o| Op::Adi(o)).collect();
        v.extend([
            Op::Txinvr,
            Op::Solve(Dir::X),
            Op::Ninvr,
            Op::Solve(Dir::Y),
            Op::Pinvr,
            Op::Solve(Dir::Z),
            Op::Tzetar,
            Op::Adi(AdiOp::Add),
        ]);
        v
    }

    fn lines_of(&self, op: Op) -> Lines {
        let n = self.adi.g.n;
        match op {
            Op::Adi(o) => self.adi.lines(o, self.threads),
            // Per outer index: every pass, n − 2 items each.
            Op::Solve(_) => Lines::new(1, n - 2, PASSES.len() * (n - 2), self.threads).weighted(60 * n),
            _ => Lines::new(1, n - 2, n - 2, self.threads).weighted(20 * n),
        }
    }

    /// Offset of diagonal 0 of position `s` of line `line` in a private factor: x_solve
    /// indexes `lhs[j][i]` (line, position), y_solve and z_solve `lhs[j][i]` / `lhs[k][i]`
    /// (position, line).
    #[inline(always)]
    fn at(&self, dir: Dir, line: usize, s: usize) -> usize {
        let ip = self.adi.g.ip;
        match dir {
            Dir::X => (line * ip + s) * 5,
            Dir::Y | Dir::Z => (s * ip + line) * 5,
        }
    }

    /// Diagonals the dissipation pass updates at position `s` (NPB's boundary cases).
    fn diss_diagonals(s: usize, n: usize) -> std::ops::Range<usize> {
        match s {
            1 => 2..5,
            2 => 1..5,
            _ if s == n - 3 => 0..4,
            _ if s == n - 2 => 0..3,
            _ => 0..5,
        }
    }

    /// One elimination step at position s (first three components with `lhs`, or component
    /// `m` with `lhsp`/`lhsm`): scale row s, eliminate from rows s+1 (and s+2 unless `last`).
    #[allow(clippy::too_many_arguments)]
    fn eliminate(
        &self,
        em: &mut Em,
        t: usize,
        dir: Dir,
        f: Private,
        comps: &[usize],
        (a, line): (usize, usize),
        s: usize,
        last: bool,
    ) {
        let g = &self.adi.g;
        let rhs = self.adi.rhs;
        let pt = |s| dir.point(g, a, line, s);
        let r0 = self.at(dir, line, s);
        let r1 = self.at(dir, line, s + 1);
        em.rd(f.addr(t, r0 + 2));
        em.rd(f.addr(t, r0 + 3));
        em.rd(f.addr(t, r0 + 4));
        em.flops(3);
        em.wr(f.addr(t, r0 + 3));
        em.wr(f.addr(t, r0 + 4));
        let rmw = |em: &mut Em, p: u64, fl: u32| {
            for &m in comps {
                em.rd(rhs.addr(p, m));
                em.flops(fl);
                em.wr(rhs.addr(p, m));
            }
        };
        rmw(em, pt(s), 1);
        em.rd_priv(t, f, r1 + 1, 3);
        em.flops(4);
        em.wr_priv(t, f, r1 + 2, 2);
        rmw(em, pt(s + 1), 2);
        if !last {
            let r2 = self.at(dir, line, s + 2);
            em.rd_priv(t, f, r2, 3);
            em.flops(4);
            em.wr_priv(t, f, r2 + 1, 2);
            rmw(em, pt(s + 2), 2);
        }
    }

    /// Pass `pass` at position `s` of line `line` (interior index) of outer index `a`.
    fn pass_at(&self, em: &mut Em, t: usize, dir: Dir, pass: Pass, (a, line): (usize, usize), s: usize) {
        let g = &self.adi.g;
        let n = g.n;
        let rhs = self.adi.rhs;
        let [lhs, lhsp, lhsm] = self.lhs;
        let pt = |s| dir.point(g, a, line, s);
        match pass {
            Pass::Build => unreachable!("built per line"),
            Pass::Dissipation => {
                let r = self.at(dir, line, s);
                for d in Self::diss_diagonals(s, n) {
                    em.rd(lhs.addr(t, r + d));
                    em.flops(1);
                    em.wr(lhs.addr(t, r + d));
                }
            }
            Pass::Factors => {
                let r = self.at(dir, line, s);
                // aux order (SP): us, vs, ws, qs, rho_i, speed, square.
                let speed = self.adi.aux[5];
                em.rd_priv(t, lhs, r, 5);
                em.rd(speed.addr(pt(s - 1), 0));
                em.rd(speed.addr(pt(s + 1), 0));
                em.flops(4);
                em.wr_priv(t, lhsp, r, 5);
                em.wr_priv(t, lhsm, r, 5);
            }
            Pass::Forward => {
                self.eliminate(em, t, dir, lhs, &[0, 1, 2], (a, line), s, false);
                if s == n - 3 {
                    self.eliminate(em, t, dir, lhs, &[0, 1, 2], (a, line), n - 2, true);
                    let r = self.at(dir, line, n - 1);
                    em.rd(lhs.addr(t, r + 2));
                    for m in 0..3 {
                        em.rd(rhs.addr(pt(n - 1), m));
                        em.flops(1);
                        em.wr(rhs.addr(pt(n - 1), m));
                    }
                }
            }
            Pass::ForwardPm => {
                let last = s == n - 3;
                for (f, m) in [(lhsp, 3), (lhsm, 4)] {
                    self.eliminate(em, t, dir, f, &[m], (a, line), s, false);
                }
                if last {
                    for (f, m) in [(lhsp, 3), (lhsm, 4)] {
                        self.eliminate(em, t, dir, f, &[m], (a, line), n - 2, true);
                    }
                    for (f, m) in [(lhsp, 3), (lhsm, 4)] {
                        em.rd(f.addr(t, self.at(dir, line, n - 1) + 2));
                        em.rd(rhs.addr(pt(n - 1), m));
                        em.flops(1);
                        em.wr(rhs.addr(pt(n - 1), m));
                    }
                }
            }
            Pass::Back => {
                // s = n − 2 uses one row below it, the others two.
                let r = self.at(dir, line, s);
                let below: &[usize] = if s == n - 2 { &[1] } else { &[1, 2] };
                for (f, comps) in [(lhs, &[0usize, 1, 2][..]), (lhsp, &[3][..]), (lhsm, &[4][..])] {
                    for &m in comps {
                        for &d in below {
                            em.rd(f.addr(t, r + 2 + d));
                            em.rd(rhs.addr(pt(s + d), m));
                        }
                        em.rd(rhs.addr(pt(s), m));
                        em.flops(4);
                        em.wr(rhs.addr(pt(s), m));
                    }
                }
            }
        }
    }

    /// The Build pass for one line: `cv`, `rhon` at every point, then the `lhs` row (and
    /// `lhsinit`'s end rows of all three factors).
    fn build_line(&self, em: &mut Em, t: usize, dir: Dir, (a, line): (usize, usize)) {
        let g = &self.adi.g;
        let n = g.n;
        // aux order (SP): us, vs, ws, qs, rho_i, speed, square; the velocity along the line.
        let vel = self.adi.aux[match dir {
            Dir::X => 0,
            Dir::Y => 1,
            Dir::Z => 2,
        }];
        let rho_i = self.adi.aux[4];
        for f in self.lhs {
            em.wr_priv(t, f, self.at(dir, line, 0), 5);
            em.wr_priv(t, f, self.at(dir, line, n - 1), 5);
        }
        for s in 0..n {
            let p = dir.point(g, a, line, s);
            em.rd(rho_i.addr(p, 0));
            em.rd(vel.addr(p, 0));
            em.flops(8);
            em.wr(self.cv.addr(t, s));
            em.wr(self.rhon.addr(t, s));
        }
        for s in 1..n - 1 {
            em.rd_priv(t, self.cv, s - 1, 3);
            em.rd_priv(t, self.rhon, s - 1, 3);
            em.flops(8);
            em.wr_priv(t, self.lhs[0], self.at(dir, line, s), 5);
        }
    }

    /// Item `r` of pass `pass` for outer index `a`: x_solve items are lines (the whole pass
    /// along the line); y/z_solve Build items are lines, the other passes' items positions
    /// along the line (the pass at that position for every line).
    fn solve_item(&self, em: &mut Em, t: usize, dir: Dir, pass: Pass, a: usize, r: usize) {
        let n = self.adi.g.n;
        if pass == Pass::Build {
            self.build_line(em, t, dir, (a, r + 1));
            return;
        }
        // Positions of the pass along a line, in loop order.
        let (lo, hi) = match pass {
            Pass::Dissipation | Pass::Factors => (1, n - 1),
            Pass::Forward | Pass::ForwardPm => (0, n - 2),
            _ => (0, n - 1),
        };
        let back = pass == Pass::Back;
        let pos = |x: usize| if back { hi - 1 - x } else { lo + x };
        if dir == Dir::X {
            for x in 0..hi - lo {
                self.pass_at(em, t, dir, pass, (a, r + 1), pos(x));
            }
        } else {
            // n − 2 items per pass; Back has n − 1 positions, its first item does two.
            let xs = if back && r == 0 {
                0..2
            } else if back {
                r + 1..r + 2
            } else {
                r..r + 1
            };
            for x in xs {
                for line in 1..n - 1 {
                    self.pass_at(em, t, dir, pass, (a, line), pos(x));
                }
            }
        }
    }

    fn pointwise(&self, em: &mut Em, op: Op, (k, j): (usize, usize)) {
        let (g, rhs, u) = (&self.adi.g, self.adi.rhs, self.adi.u);
        let a = &self.adi.aux;
        let n = g.n;
        let (reads, flops): (Vec<Field>, u32) = match op {
            // rho_i, us, vs, ws, speed, qs.
            Op::Txinvr => (vec![a[4], a[0], a[1], a[2], a[5], a[3], rhs], 40),
            Op::Ninvr | Op::Pinvr => (vec![rhs], 15),
            // us, vs, ws, speed, u.
            Op::Tzetar => (vec![a[0], a[1], a[2], a[5], u, rhs], 40),
            _ => unreachable!("not pointwise"),
        };
        pointwise_row(em, g, (k, j), (1, n - 1), &reads, &[rhs], flops);
    }
}

impl Kernel for Sp {
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
        self.lines = self.lines_of(op);
        let init = matches!(
            op,
            Op::Adi(AdiOp::InitU | AdiOp::InitRest | AdiOp::ForcingZero | AdiOp::ForcingDir(_) | AdiOp::ForcingNeg)
        );
        let sched = if init { self.params.init.sched() } else { Sched::Static };
        Some(Loop {
            items: self.lines.items(),
            sched,
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let mut em = Em::new(e);
        let per_pass = self.adi.g.n - 2;
        for idx in lo..hi {
            let Some((a, b)) = self.lines.line(idx) else {
                continue;
            };
            match self.op {
                Op::Adi(o) => self.adi.run(o, t, (a, b), &mut em),
                Op::Solve(dir) => {
                    let pass = PASSES[b / per_pass];
                    self.solve_item(&mut em, t, dir, pass, a, b % per_pass);
                }
                op => self.pointwise(&mut em, op, (a, b + 1)),
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "generator": "sp",
            "seed": self.seed,
            "params": self.params,
            "grid": self.adi.g.n,
            "footprint_bytes": self.arrays.footprint_bytes(self.threads),
        })
    }

    /// The set-up is `initialize` and `exact_rhs` (the forcing term); the region of interest
    /// (NPB's timed loop) starts with the first time step.
    fn in_roi(&self) -> Option<bool> {
        Some(
            self.pos > 0
                && !matches!(
                    self.op,
                    Op::Adi(
                        AdiOp::InitU | AdiOp::InitRest | AdiOp::ForcingZero | AdiOp::ForcingDir(_) | AdiOp::ForcingNeg
                    )
                ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::cfd::Class;
    use crate::npb::testutil::{check_oblivious_generator, via};
    use numasim_trace::Access;

    const SMALL: &str = "threads = 3\ngrid = 9\niterations = 1";

    fn kernel(text: &str) -> Sp {
        Sp::new(parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap()
    }

    fn run_op(k: &mut Sp, op: Op, t: usize) -> Vec<Access> {
        k.op = op;
        k.lines = k.lines_of(op);
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
    fn x_elimination_runs_along_lines_z_elimination_across_them() {
        let mut k = kernel("threads = 1\ngrid = 10\niterations = 1");
        let g = k.adi.g;
        let rhs = k.adi.rhs;
        let point = |a: &Access| (a.vaddr - rhs.base) / 8 / 5;
        // The first rhs points the forward elimination touches, in order (deduplicated).
        let first_points = |acc: &[Access]| -> Vec<u64> {
            let mut v: Vec<u64> = acc.iter().filter(|a| rhs.holds(&g, a.vaddr)).map(point).collect();
            v.dedup();
            v.truncate(8);
            v
        };
        let x = first_points(&run_op(&mut k, Op::Solve(Dir::X), 0));
        let z = first_points(&run_op(&mut k, Op::Solve(Dir::Z), 0));
        // x: rows s, s+1, s+2 of line (k=1, j=1): i = 0, 1, 2, then 1, 2, 3 ...
        let at = |k_: usize, j: usize, i: usize| g.at(k_, j, i);
        assert_eq!(
            x[..6],
            [
                at(1, 1, 0),
                at(1, 1, 1),
                at(1, 1, 2),
                at(1, 1, 1),
                at(1, 1, 2),
                at(1, 1, 3)
            ]
        );
        // z (outer j = 1): position k = 0 for line i = 1 (rows k = 0, 1, 2), then line i = 2.
        assert_eq!(
            z[..6],
            [
                at(0, 1, 1),
                at(1, 1, 1),
                at(2, 1, 1),
                at(0, 1, 2),
                at(1, 1, 2),
                at(2, 1, 2)
            ]
        );
    }

    #[test]
    fn footprint_is_the_closed_form_of_the_array_shapes() {
        for c in Class::ALL {
            let k = kernel(&format!("threads = 4\nclass = \"{}\"", c.name()));
            let n = CLASSES.grid(c) as u64;
            let p = n / 2 * 2 + 1;
            // 7 scalar + 3 five-component arrays of n·p·p doubles; per thread cv, rhon (n),
            // ue, buf (5 (n + 1)) and lhs, lhsp, lhsm (5 p² each).
            let shared = (7 + 3 * 5) * n * p * p * 8;
            let per_thread = (2 * n + 10 * (n + 1) + 3 * 5 * p * p) * 8;
            assert_eq!(
                k.arrays().footprint_bytes(4),
                shared + 4 * per_thread,
                "class {}",
                c.name()
            );
        }
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("grid = 2000"), "grid");
        assert_eq!(bad("class = \"E\""), "class");
        assert_eq!(bad("threads = 5000"), "threads");
    }
}
