//! Shared pieces of the NPB pseudo-applications `bt`, `sp` and `lu`: problem classes, the
//! padded grid layout of NPB 3.3-OMP, the arrays each program allocates (so the footprint is a
//! closed form of the array shapes) and the mapping of a loop nest's lines onto OpenMP's
//! static partition of its outer loop.
//!
//! **Why no values are computed.** The three solvers are data-oblivious: every loop bound,
//! index and operation count depends only on the grid size (LU's convergence test never fires
//! for the standard classes; NPB runs the full iteration count). The generators therefore emit
//! the loop nests' loads and stores (same arrays, same element order, same per-point counts as
//! the reference code's statements) without evaluating the floating-point values, which would
//! change no address. The seed is accepted for uniformity and changes nothing (tests check
//! that the same seed gives identical output and that the stream is seed-independent).
//!
//! **Layout (NPB 3.3-OMP, C order).** A point `(k, j, i)` of an `n³` grid is stored at
//! `(k·jp + j)·ip + i` with `ip = jp = n/2·2 + 1` (NPB pads even sizes by one "to improve cache
//! performance") and `k` unpadded; 5-component arrays (`u`, `rhs`, `forcing`, LU's `rsd`,
//! `frct`) keep the 5 components of a point together (`[k][j][i][5]`). Arrays private to a
//! thread (`threadprivate` work arrays) live in that thread's private window
//! ([`crate::vspace::private_base`]) at the same offset in every window.

use super::static_range;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{private_base, AddressSpace};
use serde::{Deserialize, Serialize};

numasim_config::declare_params! {
    /// The parameters `bt`, `sp` and `lu` share: one struct, so their keys, defaults and docs
    /// cannot drift apart (each generator keeps its own name for it).
    pub section struct CfdParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        #[doc = super::Init::doc()]
        init: super::Init = super::Init::Serial, unit "-", Check::Any;
        /// NPB problem class S | W | A | B | C: sets the grid and the iterations
        class: Class = Class::S, unit "-", Check::Any;
        /// overrides the grid points per dimension (7-1024)
        grid: Option<usize> = None, unit "points", Check::Range(GRID_MIN as f64, GRID_MAX as f64), unset "(class)";
        /// overrides the class's outer iterations
        iterations: Option<usize> = None, unit "iterations", Check::Range(1.0, 100000.0), unset "(class)";
    }
}

/// What `workload list` prints for a CFD pseudo-application: `class_doc` and
/// `iterations_doc` name its outer loop ("time steps", "SSOR iterations").
pub fn generator_info(
    name: &'static str,
    summary: &'static str,
    paper: &'static str,
    class_doc: &'static str,
    iterations_doc: &'static str,
) -> crate::registry::GeneratorInfo {
    let mut params = CfdParams::defs();
    crate::params::adjust_doc(&mut params, "class", None, Some(class_doc));
    crate::params::adjust_doc(&mut params, "iterations", None, Some(iterations_doc));
    crate::registry::GeneratorInfo {
        name,
        summary,
        paper,
        params,
    }
}

/// Bytes of one double.
pub const F64: u64 = 8;

/// NPB problem class: sets the grid size and the iteration count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Class {
    #[default]
    S,
    W,
    A,
    B,
    C,
}

impl numasim_config::param::ParamKind for Class {}

impl Class {
    pub const ALL: [Class; 5] = [Class::S, Class::W, Class::A, Class::B, Class::C];

    pub fn name(self) -> &'static str {
        match self {
            Class::S => "S",
            Class::W => "W",
            Class::A => "A",
            Class::B => "B",
            Class::C => "C",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Grid points per dimension and iterations of one benchmark for classes S, W, A, B, C
/// (NPB 3.3 `setparams`).
#[derive(Debug, Clone, Copy)]
pub struct ClassTable {
    pub grid: [usize; 5],
    pub iterations: [usize; 5],
}

impl ClassTable {
    pub fn grid(&self, c: Class) -> usize {
        self.grid[c.index()]
    }
    pub fn iterations(&self, c: Class) -> usize {
        self.iterations[c.index()]
    }
    /// The `class` documentation `workload list` prints: a heading line, then one line a
    /// class ("S: grid 12^3, 60 time steps"); `what` names the outer loop.
    pub fn doc(&self, what: &str) -> String {
        let mut text = String::from("NPB 3.x class; grid and iterations override it");
        for c in Class::ALL {
            text += &format!("\n{}: grid {}^3, {} {what}", c.name(), self.grid(c), self.iterations(c));
        }
        text
    }
}

/// Smallest and largest grid accepted by the `grid` override (the fourth-order dissipation
/// needs 5 interior points; 1024³ keeps a run finite).
pub const GRID_MIN: usize = 7;
pub const GRID_MAX: usize = 1024;

/// The padded grid of NPB 3.3-OMP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Points per dimension.
    pub n: usize,
    /// Padded extent of i (and j): `n/2·2 + 1`.
    pub ip: usize,
    pub jp: usize,
}

impl Layout {
    pub fn new(n: usize) -> Self {
        Layout {
            n,
            ip: n / 2 * 2 + 1,
            jp: n / 2 * 2 + 1,
        }
    }

    /// Stored points of one 3-D array (`n · jp · ip`).
    pub fn points(&self) -> u64 {
        (self.n * self.jp * self.ip) as u64
    }

    /// Linear index of point `(k, j, i)`.
    #[inline(always)]
    pub fn at(&self, k: usize, j: usize, i: usize) -> u64 {
        ((k * self.jp + j) * self.ip + i) as u64
    }
}

/// A shared array of `comps` doubles per grid point (or per element of another shape).
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub base: u64,
    pub comps: u64,
}

impl Field {
    /// Whether `vaddr` lies in this field, on grid `g` (tests check where accesses land).
    #[cfg(test)]
    pub fn holds(&self, g: &Layout, vaddr: u64) -> bool {
        vaddr >= self.base && vaddr < self.base + g.points() * self.comps * F64
    }

    #[inline(always)]
    pub fn addr(&self, p: u64, m: usize) -> u64 {
        self.base + (p * self.comps + m as u64) * F64
    }
}

/// A thread-private array of doubles: the same offset in every thread's private window.
#[derive(Debug, Clone, Copy)]
pub struct Private {
    pub offset: u64,
}

impl Private {
    #[inline(always)]
    pub fn addr(&self, t: usize, idx: usize) -> u64 {
        private_base(t) + self.offset + idx as u64 * F64
    }
}

/// One allocation, for the footprint table.
#[derive(Debug, Clone, Serialize)]
pub struct Allocation {
    pub name: &'static str,
    pub bytes: u64,
    /// One copy per thread (`threadprivate`).
    pub per_thread: bool,
}

/// Allocates the program's arrays and records them.
#[derive(Debug, Clone, Default)]
pub struct Arrays {
    space: AddressSpace,
    private_next: u64,
    pub table: Vec<Allocation>,
}

impl Arrays {
    /// A shared array of `elements` × `comps` doubles.
    pub fn shared(&mut self, name: &'static str, elements: u64, comps: u64) -> Field {
        let bytes = elements * comps * F64;
        self.table.push(Allocation {
            name,
            bytes,
            per_thread: false,
        });
        Field {
            base: self.space.alloc(bytes),
            comps,
        }
    }

    /// A thread-private array of `doubles` doubles (page aligned inside the window).
    pub fn private(&mut self, name: &'static str, doubles: u64) -> Private {
        let bytes = doubles * F64;
        self.table.push(Allocation {
            name,
            bytes,
            per_thread: true,
        });
        let offset = self.private_next;
        self.private_next = (offset + bytes.max(1)).next_multiple_of(4096);
        Private { offset }
    }

    /// Bytes allocated with `threads` threads: shared arrays plus one copy of every private
    /// array per thread.
    pub fn footprint_bytes(&self, threads: usize) -> u64 {
        self.table
            .iter()
            .map(|a| {
                if a.per_thread {
                    a.bytes * threads as u64
                } else {
                    a.bytes
                }
            })
            .sum()
    }
}

/// A parallel loop over lines: `outer_n` values of the partitioned (OpenMP `for`) index,
/// starting at `outer_lo`, each with `inner_n` lines, under `schedule(static)` on the outer
/// index. The runtime hands out items in small grains; item `t·M + r` is the r-th line of
/// thread t's block (`M` = the largest block), so the split is exactly OpenMP's split of the
/// outer loop (not a split of lines) while lines are still emitted a few at a time.
#[derive(Debug, Clone, Copy)]
pub struct Lines {
    pub outer_lo: usize,
    pub outer_n: usize,
    pub inner_n: usize,
    threads: usize,
    per_thread: usize,
    /// Items per line (1 + empty items after each line, see [`Lines::weighted`]).
    repeat: usize,
}

/// Accesses a thread should buffer per round of the runtime (which hands out up to 64 items
/// a round): a class C line of BT's solve is about 90 000 accesses, so without spacing 64 of
/// them would buffer hundreds of MB per thread.
const ROUND_ACCESSES: usize = 1 << 17;
/// Items the runtime gives a thread per round of a static loop (`omp::STATIC_GRAIN`).
const GRAIN: usize = 64;

impl Lines {
    pub fn new(outer_lo: usize, outer_n: usize, inner_n: usize, threads: usize) -> Self {
        Lines {
            outer_lo,
            outer_n,
            inner_n,
            threads,
            per_thread: outer_n.div_ceil(threads) * inner_n,
            repeat: 1,
        }
    }

    /// Spaces lines of about `accesses_per_line` accesses with empty items so one round of
    /// the runtime buffers about `ROUND_ACCESSES` a thread; the split and the order of lines
    /// are unchanged.
    pub fn weighted(mut self, accesses_per_line: usize) -> Self {
        self.repeat = (GRAIN * accesses_per_line).div_ceil(ROUND_ACCESSES).clamp(1, GRAIN);
        self
    }

    /// Items of the loop (`threads · M · repeat`).
    pub fn items(&self) -> usize {
        self.threads * self.per_thread * self.repeat
    }

    /// The (outer, inner) line of item `idx`, or `None` for a padding item of a thread whose
    /// block is shorter than the longest, or a spacing item.
    #[inline]
    pub fn line(&self, idx: usize) -> Option<(usize, usize)> {
        if self.per_thread == 0 || !idx.is_multiple_of(self.repeat) {
            return None;
        }
        let idx = idx / self.repeat;
        let (owner, r) = (idx / self.per_thread, idx % self.per_thread);
        let block = static_range(self.outer_n, self.threads, owner);
        let o = r / self.inner_n;
        (o < block.len()).then(|| (self.outer_lo + block.start + o, r % self.inner_n))
    }
}

/// Emission with flops: floating-point operations are recorded on the next access and each
/// costs one instruction, charged to that access (the NPB cost-model convention of
/// [`super`]). Loads and stores cost 1 instruction plus pending flops.
pub struct Em<'a> {
    pub e: &'a mut Emitter,
    pending: u64,
}

impl<'a> Em<'a> {
    pub fn new(e: &'a mut Emitter) -> Self {
        Em { e, pending: 0 }
    }

    #[inline(always)]
    pub fn flops(&mut self, n: u32) {
        self.e.flops(n);
        self.pending += n as u64;
    }

    #[inline(always)]
    pub fn rd(&mut self, addr: u64) {
        self.e.read(1 + self.pending, addr, 8);
        self.pending = 0;
    }

    #[inline(always)]
    pub fn wr(&mut self, addr: u64) {
        self.e.write(1 + self.pending, addr, 8);
        self.pending = 0;
    }

    /// Loads all `comps` components of point `p` of `f`.
    #[inline(always)]
    pub fn rd_point(&mut self, f: Field, p: u64) {
        for m in 0..f.comps as usize {
            self.rd(f.addr(p, m));
        }
    }

    /// Stores all components of point `p` of `f`.
    #[inline(always)]
    pub fn wr_point(&mut self, f: Field, p: u64) {
        for m in 0..f.comps as usize {
            self.wr(f.addr(p, m));
        }
    }

    /// Loads `len` consecutive doubles of private array `a` from element `from`.
    #[inline(always)]
    pub fn rd_priv(&mut self, t: usize, a: Private, from: usize, len: usize) {
        for x in from..from + len {
            self.rd(a.addr(t, x));
        }
    }

    /// Stores `len` consecutive doubles of private array `a` from element `from`.
    #[inline(always)]
    pub fn wr_priv(&mut self, t: usize, a: Private, from: usize, len: usize) {
        for x in from..from + len {
            self.wr(a.addr(t, x));
        }
    }
}

impl Drop for Em<'_> {
    fn drop(&mut self) {
        // Flops with no access after them still retire.
        self.e.compute(self.pending);
    }
}

/// The three sweep directions of the ADI solvers and residual computations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    X,
    Y,
    Z,
}

impl Dir {
    /// The grid point at position `s` along the line (`a`, `b`) of this direction: x-lines are
    /// `(k, j) = (a, b)`, y-lines `(k, i)`, z-lines `(j, i)`.
    #[inline(always)]
    pub fn point(self, g: &Layout, a: usize, b: usize, s: usize) -> u64 {
        match self {
            Dir::X => g.at(a, b, s),
            Dir::Y => g.at(a, s, b),
            Dir::Z => g.at(s, a, b),
        }
    }
}

/// NPB's residual contribution of one direction on one interior row `(k, j)` of the
/// `k, j, i` loop nest (`compute_rhs`'s xi/eta/zeta parts, LU's `rhs`): for every interior
/// point the flux pass loads `u` at c−1, c, c+1 along `dir` (c = the point's coordinate along
/// `dir`) and each auxiliary array at the same three points, and updates the 5 components of
/// `rhs`; the fourth-order dissipation pass then loads `u` at c−2..c+2 (clipped to the
/// interior, NPB's boundary cases) and updates `rhs` again. `flops` = per point of each pass.
#[allow(clippy::too_many_arguments)]
pub fn residual_row(
    em: &mut Em,
    g: &Layout,
    dir: Dir,
    (k, j): (usize, usize),
    u: Field,
    aux: &[Field],
    rhs: Field,
    (flux_flops, diss_flops): (u32, u32),
) {
    let along = |i: usize, c: usize| match dir {
        Dir::X => g.at(k, j, c),
        Dir::Y => g.at(k, c, i),
        Dir::Z => g.at(c, j, i),
    };
    let coord = |i: usize| match dir {
        Dir::X => i,
        Dir::Y => j,
        Dir::Z => k,
    };
    residual(em, g.n, along, coord, u, aux, rhs, (flux_flops, diss_flops));
}

/// [`residual_row`] along one line `(a, b)` of `dir` ([`Dir::point`]) instead of a row of the
/// `k, j, i` nest: the order of loops that split the other dimension (LU's zeta pass, over j).
#[allow(clippy::too_many_arguments)]
pub fn residual_line(
    em: &mut Em,
    g: &Layout,
    dir: Dir,
    (a, b): (usize, usize),
    u: Field,
    aux: &[Field],
    rhs: Field,
    flops: (u32, u32),
) {
    residual(em, g.n, |_, c| dir.point(g, a, b, c), |s| s, u, aux, rhs, flops);
}

/// The two passes over positions x = 1..n−1; `along(x, c)` is the point at coordinate c along
/// the direction for position x, `coord(x)` position x's own coordinate.
#[allow(clippy::too_many_arguments)]
fn residual(
    em: &mut Em,
    n: usize,
    along: impl Fn(usize, usize) -> u64,
    coord: impl Fn(usize) -> usize,
    u: Field,
    aux: &[Field],
    rhs: Field,
    (flux_flops, diss_flops): (u32, u32),
) {
    for x in 1..n - 1 {
        let c = coord(x);
        for d in [c - 1, c, c + 1] {
            em.rd_point(u, along(x, d));
        }
        for f in aux {
            for d in [c - 1, c, c + 1] {
                em.rd(f.addr(along(x, d), 0));
            }
        }
        let p = along(x, c);
        em.rd_point(rhs, p);
        em.flops(flux_flops);
        em.wr_point(rhs, p);
    }
    for x in 1..n - 1 {
        let c = coord(x);
        for d in c.saturating_sub(2).max(1)..=(c + 2).min(n - 2) {
            em.rd_point(u, along(x, d));
        }
        let p = along(x, c);
        em.rd_point(rhs, p);
        em.flops(diss_flops);
        em.wr_point(rhs, p);
    }
}

/// `x[p] = op(x[p])` over the 5 components of every point of a line along x (i = `lo..hi`):
/// the pointwise loops (`rhs *= dt`, `u += rhs`, ...). Loads each of `reads` at the point,
/// then writes `out`.
pub fn pointwise_row(
    em: &mut Em,
    g: &Layout,
    (k, j): (usize, usize),
    (lo, hi): (usize, usize),
    reads: &[Field],
    out: &[Field],
    flops: u32,
) {
    for i in lo..hi {
        let p = g.at(k, j, i);
        for f in reads {
            em.rd_point(*f, p);
        }
        em.flops(flops);
        for f in out {
            em.wr_point(*f, p);
        }
    }
}

/// What BT and SP share: the arrays and loops of NPB's `initialize`, `exact_rhs`,
/// `compute_rhs` and `add`.
#[derive(Debug, Clone)]
pub struct Adi {
    pub g: Layout,
    pub u: Field,
    pub rhs: Field,
    pub forcing: Field,
    /// `us, vs, ws, qs, rho_i, square` (and SP's `speed`), in declaration order.
    pub aux: Vec<Field>,
    /// `exact_rhs`'s per-thread line buffers (`ue`, `buf`: 5 doubles per point of a line).
    ue: Private,
    buf: Private,
}

/// One loop of the shared part; each is an `omp for` with a barrier after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdiOp {
    /// `initialize`: u at every point.
    InitU,
    /// `init = "serial"` only: thread 0 also writes `rhs` and the auxiliary arrays, so every
    /// array is first-touched by thread 0 (with `parallel`, `compute_rhs` touches them with the
    /// same static split of planes).
    InitRest,
    /// `exact_rhs`: forcing = 0 at every point.
    ForcingZero,
    /// `exact_rhs`: one direction's contribution along lines (x, y: planes split, z: rows j).
    ForcingDir(Dir),
    /// `exact_rhs`: forcing = −forcing (interior).
    ForcingNeg,
    /// `compute_rhs`: the auxiliary arrays from u at every point.
    RhsAux,
    /// `compute_rhs`: rhs = forcing at every point.
    RhsCopy,
    /// `compute_rhs`: one direction's fluxes and dissipation (planes split).
    RhsDir(Dir),
    /// `compute_rhs`: rhs *= dt (interior).
    RhsScale,
    /// `add`: u += rhs (interior).
    Add,
}

impl Adi {
    /// Allocates the shared arrays in NPB's declaration order — BT (`sp_order = false`):
    /// `us, vs, ws, qs, rho_i, square, forcing, u, rhs`; SP: `u, us, vs, ws, qs, rho_i, speed,
    /// square, rhs, forcing` — and `exact_rhs`'s private line buffers.
    pub fn new(arrays: &mut Arrays, n: usize, sp_order: bool) -> Self {
        let g = Layout::new(n);
        let pts = g.points();
        let line = (n + 1) as u64;
        let scalar_names: &[&'static str] = if sp_order {
            &["us", "vs", "ws", "qs", "rho_i", "speed", "square"]
        } else {
            &["us", "vs", "ws", "qs", "rho_i", "square"]
        };
        let (u, aux, rhs, forcing) = if sp_order {
            let u = arrays.shared("u", pts, 5);
            let aux: Vec<Field> = scalar_names.iter().map(|&s| arrays.shared(s, pts, 1)).collect();
            let rhs = arrays.shared("rhs", pts, 5);
            let forcing = arrays.shared("forcing", pts, 5);
            (u, aux, rhs, forcing)
        } else {
            let aux: Vec<Field> = scalar_names.iter().map(|&s| arrays.shared(s, pts, 1)).collect();
            let forcing = arrays.shared("forcing", pts, 5);
            let u = arrays.shared("u", pts, 5);
            let rhs = arrays.shared("rhs", pts, 5);
            (u, aux, rhs, forcing)
        };
        let ue = arrays.private("ue", line * 5);
        let buf = arrays.private("buf", line * 5);
        Adi {
            g,
            u,
            rhs,
            forcing,
            aux,
            ue,
            buf,
        }
    }

    /// The lines of `op` under a static split on `threads`.
    pub fn lines(&self, op: AdiOp, threads: usize) -> Lines {
        let n = self.g.n;
        match op {
            AdiOp::InitU | AdiOp::InitRest | AdiOp::ForcingZero | AdiOp::RhsAux | AdiOp::RhsCopy => {
                Lines::new(0, n, n, threads)
            }
            _ => Lines::new(1, n - 2, n - 2, threads),
        }
        // At most about 100 accesses a point (the residual passes).
        .weighted(100 * n)
    }

    /// Thread `t` runs line `(a, b)` of `op` (inner index offset by 1 for interior loops).
    pub fn run(&self, op: AdiOp, t: usize, (a, b): (usize, usize), em: &mut Em) {
        let g = &self.g;
        let n = g.n;
        let inner = |b: usize| match op {
            AdiOp::InitU | AdiOp::InitRest | AdiOp::ForcingZero | AdiOp::RhsAux | AdiOp::RhsCopy => b,
            _ => b + 1,
        };
        let b = inner(b);
        match op {
            AdiOp::InitU => pointwise_row(em, g, (a, b), (0, n), &[], &[self.u], 60),
            AdiOp::InitRest => {
                let mut out = vec![self.rhs];
                out.extend_from_slice(&self.aux);
                pointwise_row(em, g, (a, b), (0, n), &[], &out, 0)
            }
            AdiOp::ForcingZero => pointwise_row(em, g, (a, b), (0, n), &[], &[self.forcing], 0),
            AdiOp::ForcingDir(dir) => self.forcing_line(dir, t, (a, b), em),
            AdiOp::ForcingNeg => pointwise_row(em, g, (a, b), (1, n - 1), &[self.forcing], &[self.forcing], 5),
            AdiOp::RhsAux => {
                let flops = 11 + 4 * (self.aux.len() as u32 - 6);
                pointwise_row(em, g, (a, b), (0, n), &[self.u], &self.aux, flops)
            }
            AdiOp::RhsCopy => pointwise_row(em, g, (a, b), (0, n), &[self.forcing], &[self.rhs], 0),
            AdiOp::RhsDir(dir) => residual_row(em, g, dir, (a, b), self.u, &self.aux, self.rhs, (55, 45)),
            AdiOp::RhsScale => pointwise_row(em, g, (a, b), (1, n - 1), &[self.rhs], &[self.rhs], 5),
            AdiOp::Add => pointwise_row(em, g, (a, b), (1, n - 1), &[self.u, self.rhs], &[self.u], 5),
        }
    }

    /// `exact_rhs` along one line: the exact solution at every point into the private `ue`
    /// and `buf` (about 40 flops a point), then the flux pass (ue, buf at s−1..s+1; forcing
    /// updated) and the dissipation pass (ue at s−2..s+2 clipped to the interior).
    fn forcing_line(&self, dir: Dir, t: usize, (a, b): (usize, usize), em: &mut Em) {
        let (g, n) = (&self.g, self.g.n);
        for s in 0..n {
            em.flops(40);
            em.wr_priv(t, self.ue, s * 5, 5);
            em.wr_priv(t, self.buf, s * 5, 5);
        }
        for s in 1..n - 1 {
            em.rd_priv(t, self.ue, (s - 1) * 5, 15);
            em.rd_priv(t, self.buf, (s - 1) * 5, 15);
            let p = dir.point(g, a, b, s);
            em.rd_point(self.forcing, p);
            em.flops(50);
            em.wr_point(self.forcing, p);
        }
        for s in 1..n - 1 {
            let lo = s.saturating_sub(2).max(1);
            let hi = (s + 2).min(n - 2);
            em.rd_priv(t, self.ue, lo * 5, (hi - lo + 1) * 5);
            let p = dir.point(g, a, b, s);
            em.rd_point(self.forcing, p);
            em.flops(45);
            em.wr_point(self.forcing, p);
        }
    }
}

/// The loops of `exact_rhs` in order: zero, x, y, z contributions, negation.
pub const FORCING: [AdiOp; 5] = [
    AdiOp::ForcingZero,
    AdiOp::ForcingDir(Dir::X),
    AdiOp::ForcingDir(Dir::Y),
    AdiOp::ForcingDir(Dir::Z),
    AdiOp::ForcingNeg,
];

/// The loops of `compute_rhs` in order.
pub const COMPUTE_RHS: [AdiOp; 6] = [
    AdiOp::RhsAux,
    AdiOp::RhsCopy,
    AdiOp::RhsDir(Dir::X),
    AdiOp::RhsDir(Dir::Y),
    AdiOp::RhsDir(Dir::Z),
    AdiOp::RhsScale,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_the_static_split_of_the_outer_loop() {
        // 10 planes on 4 threads: blocks 3, 3, 2, 2 planes of 5 lines each.
        let l = Lines::new(1, 10, 5, 4);
        assert_eq!(l.items(), 4 * 15);
        let mut seen = Vec::new();
        for t in 0..4 {
            let lines: Vec<_> = (t * 15..(t + 1) * 15).filter_map(|i| l.line(i)).collect();
            let planes: std::collections::BTreeSet<usize> = lines.iter().map(|x| x.0).collect();
            let want: Vec<usize> = static_range(10, 4, t).map(|k| k + 1).collect();
            assert_eq!(planes.into_iter().collect::<Vec<_>>(), want, "thread {t}");
            assert_eq!(lines.len(), want.len() * 5);
            seen.extend(lines);
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 50, "every line exactly once");
        assert_eq!(Lines::new(0, 0, 5, 4).items(), 0);
        // Spacing keeps the split and order: the same lines, each followed by empty items.
        let w = Lines::new(1, 10, 5, 4).weighted(20_000);
        assert!(w.repeat > 1);
        let spaced: Vec<_> = (0..w.items()).filter_map(|i| w.line(i)).collect();
        let plain: Vec<_> = (0..l.items()).filter_map(|i| l.line(i)).collect();
        assert_eq!(spaced, plain);
    }

    #[test]
    fn layout_pads_even_sizes_only() {
        assert_eq!(Layout::new(12).ip, 13);
        assert_eq!(Layout::new(13).ip, 13);
        assert_eq!(Layout::new(162).points(), 162 * 163 * 163);
    }
}
