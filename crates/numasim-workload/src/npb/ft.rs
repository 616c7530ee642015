//! `ft`: NPB FT — a 3-D FFT PDE solver: forward 3-D FFT once, then per iteration evolve the
//! spectrum and inverse-transform it.
//!
//! The grid is `nx`×`ny`×`nz` complex points (powers of two), stored x-fastest:
//! `(z·ny + y)·nx + x`. Shared arrays, as NPB's OpenMP C FT (`NPB3.0-omp-C`, `FT/ft.c`) has them
//! (each at its own base): `u0` (the spectrum), `u1` (the evolved spectrum, transformed back in
//! place), `u2` (the inverse transform's output), all complex f64; `indexmap` (i32, k̄² of each
//! point), `ex` (f64, `exp(−4π²α)^m` for every exponent m the run uses, α = 10⁻⁶) and `tmp`
//! (f64, one plane of random numbers). Each thread also has a private scratch buffer of `block`
//! lines, in its private window. As in NPB's `cffts1/2/3`, a 1-D transform along one dimension
//! gathers `block` lines (adjacent in x) into the scratch, runs an iterative radix-2 FFT there
//! and scatters them to the output array; the three dimensions are three parallel loops with a
//! static schedule and a barrier after each:
//! - x: items are rows `(z, y)` (contiguous lines);
//! - y: items are `(z, x-block)`: each thread works inside its own z planes (strided by `nx`);
//! - z: items are `(y, x-block)`: the strided gather across all planes — the transpose step,
//!   where every thread reads and writes every other thread's planes.
//!
//! Run, as NPB's: `compute_indexmap` (a parallel loop over x: every thread writes a column of
//! every page), the `ex` table and `compute_initial_conditions` (seeded random data into `u1`,
//! plane by plane through `tmp`) on thread 0, the forward FFT `u1 → u1 → u1 → u0` (x, y, z),
//! then per iteration t: `evolve` (`u1 = u0 · ex[t·indexmap]`), the inverse FFT
//! `u1 → u1 → u1 → u2` (z, y, x, scaled by 1/n per dimension so inverse(FFT(x)) = x) and NPB's
//! 1024-point checksum of `u2` by thread 0. `u0` is thus first written by the forward z pass
//! and `u2` by the first inverse x pass. Complex elements are loaded and stored as their real
//! and imaginary parts, two 8-byte accesses, as NPB's C code does. `init = "parallel"` (the
//! default) is this; `init = "serial"` has thread 0 write `u0`, `u2` and `indexmap` first
//! (a program whose set-up is serial). NPB's untimed first pass (set-up and forward FFT once
//! more) is not repeated.
//!
//! **Why the address stream does not depend on the seed.** The FFT is data-oblivious: the
//! access pattern is fixed by the grid size. The seed sets the initial data (hence the
//! spectrum and checksums), and the tests check same seed → identical output, other seed →
//! different data, rather than forcing seed-dependent addresses.
//!
//! Cost model (per complex access; its second part costs 1 more): gather = shared load 2 +
//! scratch store 2 (index arithmetic); scatter = scratch load 1 + shared store 2 (+2 flops and
//! 2 instructions when scaling the inverse); butterfly = 2 scratch loads (1 each; twiddle factor
//! computed in registers: +4 on the first) and 2 scratch stores (the 10 flops of a complex
//! multiply and two complex adds are charged to the first store, +10); bit-reversal swap = 2
//! loads + 2 stores, 1–2 each; evolve = `u0` load 2, `indexmap` load 1, `ex` load 2, `u1` store
//! 1 (2 flops); checksum = 1 load + 4 (index arithmetic, 2 flops); `indexmap` stores 3, `ex`
//! stores 3, random numbers 10 each, other set-up stores 2.

use super::class::{fill, params_json};
use super::{Class, Init};
use crate::omp::{Kernel, Loop, Sched, WaitPolicy};
use crate::params::check;
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{private_base, AddressSpace};
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct FtParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// parallel (NPB's OpenMP set-up: indexmap by a parallel loop over x, u1 filled on thread 0, u0 and u2 first written by the FFT passes) | serial (thread 0 writes u0, u2 and indexmap first)
        init: Init = Init::Parallel, unit "-", Check::Any;
        #[doc = CLASS_DOC]
        class: Option<Class> = None, unit "-", Check::Any, unset "(none)";
        /// grid points along x (power of two; NPB class S: 64)
        nx: usize = 64, unit "points", Check::Range(2.0, 1024.0);
        /// grid points along y (power of two; NPB class S: 64)
        ny: usize = 64, unit "points", Check::Range(2.0, 1024.0);
        /// grid points along z (power of two; NPB class S: 64)
        nz: usize = 32, unit "points", Check::Range(2.0, 1024.0);
        /// evolve + inverse FFT steps (NPB class S: 6)
        iterations: usize = 4, unit "iterations", Check::Range(1.0, 1000.0);
        /// lines gathered into the private scratch at once (NPB fftblock; ≤ nx)
        block: usize = 16, unit "lines", Check::Range(1.0, 1024.0);
        /// threads waiting at a barrier: active (spin, retiring instructions) | passive (sleep, as OMP_WAIT_POLICY=passive)
        wait_policy: WaitPolicy = WaitPolicy::Active, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "ft",
        summary: "NPB FT: 3-D FFT (x, y within planes; strided z gather across planes), evolve, inverse",
        paper: "Tikir & Hollingsworth (NPB OpenMP); HyDM (NPB)",
        params: FtParams::defs(),
    }
}

/// One row of NPB 3.x's FT class table (`nx`, `ny`, `nz`, `niter_default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FtClass {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    pub iterations: usize,
}

/// NPB 3.x FT classes S, W, A, B, C.
#[rustfmt::skip]
pub const CLASSES: [FtClass; 5] = [
    FtClass { nx: 64, ny: 64, nz: 64, iterations: 6 },
    FtClass { nx: 128, ny: 128, nz: 32, iterations: 6 },
    FtClass { nx: 256, ny: 256, nz: 128, iterations: 6 },
    FtClass { nx: 512, ny: 256, nz: 256, iterations: 20 },
    FtClass { nx: 512, ny: 512, nz: 512, iterations: 20 },
];

/// The keys `class` sets.
pub const CLASS_KEYS: &[&str] = &["nx", "ny", "nz", "iterations"];

impl FtClass {
    pub fn apply(&self, given: &std::collections::BTreeSet<String>, p: &mut FtParams) {
        fill(given, "nx", &mut p.nx, self.nx);
        fill(given, "ny", &mut p.ny, self.ny);
        fill(given, "nz", &mut p.nz, self.nz);
        fill(given, "iterations", &mut p.iterations, self.iterations);
    }
}

/// `class`'s lines in `workload list` (a test holds them to [`CLASSES`]).
pub const CLASS_DOC: &str = "NPB 3.x class; sets the keys below the table leaves out (unset: their defaults)
S: nx 64, ny 64, nz 64, iterations 6
W: nx 128, ny 128, nz 32, iterations 6
A: nx 256, ny 256, nz 128, iterations 6
B: nx 512, ny 256, nz 256, iterations 20
C: nx 512, ny 512, nz 512, iterations 20 (refused: over the 2^26 points held in memory)";

/// Parses `ft`'s table and resolves `class` (explicit keys override it).
pub fn params(table: toml::Table) -> Result<FtParams, WorkloadError> {
    super::class::resolve(table)
}

super::class::class_params!(FtParams, CLASSES, wait);

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    super::class::build_kernel(table, seed, CLASS_KEYS, Ft::new)
}

const C16: u64 = 16;
const F64: u64 = 8;
const I32: u64 = 4;
const ALPHA: f64 = 1e-6;

/// A complex number.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct C {
    pub re: f64,
    pub im: f64,
}

impl C {
    fn mul(self, o: C) -> C {
        C {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    fn add(self, o: C) -> C {
        C {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
    fn sub(self, o: C) -> C {
        C {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
    fn scale(self, s: f64) -> C {
        C {
            re: self.re * s,
            im: self.im * s,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arr {
    U0,
    U1,
    U2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    X,
    Y,
    Z,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Serial set-up: thread 0 writes `u0`, `u2` and `indexmap` (by rows).
    InitSerial,
    /// `compute_indexmap`: items are x columns.
    IndexMap,
    /// The `ex` table (thread 0).
    ExTable,
    /// `compute_initial_conditions`: `u1` plane by plane through `tmp` (thread 0).
    InitCond,
    /// 1-D transforms along `Dim` from the first array into the second; `true` = inverse.
    Fft(Arr, Arr, Dim, bool),
    /// `u1 = u0 · ex[t·indexmap]` at time step t.
    Evolve(usize),
    Checksum,
}

/// The FT kernel (public so tests can read the checksums and data).
pub struct Ft {
    params: FtParams,
    seed: u64,
    x0: Vec<C>,
    u0: Vec<C>,
    u1: Vec<C>,
    u2: Vec<C>,
    /// `exp(−4π²α·k̄²)` of each point (`ex[1]^indexmap`).
    twiddle: Vec<f64>,
    /// k̄² of each point (NPB's `indexmap`).
    kbar2: Vec<u32>,
    scratch: Vec<C>,
    a_u0: u64,
    a_u1: u64,
    a_u2: u64,
    a_map: u64,
    a_ex: u64,
    a_tmp: u64,
    plan: Vec<Op>,
    pos: usize,
    op: Op,
    /// NPB's checksum after each iteration.
    pub checksums: Vec<C>,
}

/// The arrays `ft` lays out, `(name, bytes)`: the shared `u0`, `u1`, `u2` (complex f64),
/// `indexmap` (i32), `ex` and `tmp` (f64) in allocation order, and each thread's private
/// scratch (`block` lines of the longest dimension, complex f64). What [`Ft::new`] allocates,
/// and its footprint.
pub fn layout(p: &FtParams) -> ([(&'static str, u64); 6], (&'static str, u64)) {
    let n = (p.nx * p.ny * p.nz) as u64;
    let maxlen = p.nx.max(p.ny).max(p.nz) as u64;
    (
        [
            ("u0", n * C16),
            ("u1", n * C16),
            ("u2", n * C16),
            ("indexmap", n * I32),
            ("ex", (expmax(p) + 1) * F64),
            ("tmp", (2 * (p.nx * p.ny) as u64 + 1) * F64),
        ],
        ("scratch", maxlen * p.block as u64 * C16),
    )
}

/// NPB's EXPMAX: the largest exponent `t·k̄²` the run reads from `ex`.
pub fn expmax(p: &FtParams) -> u64 {
    let h2 = |m: usize| ((m / 2) * (m / 2)) as u64;
    p.iterations as u64 * (h2(p.nx) + h2(p.ny) + h2(p.nz))
}

impl Ft {
    pub fn new(params: FtParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        for (key, v) in [("nx", params.nx), ("ny", params.ny), ("nz", params.nz)] {
            check(v.is_power_of_two(), key, "must be a power of two")?;
        }
        check(
            params.nx * params.ny * params.nz <= 1 << 26,
            "nx",
            "nx·ny·nz must be at most 2^26",
        )?;
        check(
            params.block >= 1 && params.block <= params.nx && params.nx.is_multiple_of(params.block),
            "block",
            "must divide nx",
        )?;
        let (nx, ny, nz) = (params.nx, params.ny, params.nz);
        let n = nx * ny * nz;
        let mut rng = stream(seed, 0xF7);
        let x0: Vec<C> = (0..n)
            .map(|_| C {
                re: rng.gen_range(0.0..1.0),
                im: rng.gen_range(0.0..1.0),
            })
            .collect();
        let kbar = |i: usize, m: usize| ((i + m / 2) % m) as f64 - (m / 2) as f64;
        let ap = -4.0 * ALPHA * std::f64::consts::PI * std::f64::consts::PI;
        let mut twiddle = vec![0.0; n];
        let mut kbar2 = vec![0u32; n];
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let k2 = kbar(x, nx).powi(2) + kbar(y, ny).powi(2) + kbar(z, nz).powi(2);
                    twiddle[(z * ny + y) * nx + x] = (ap * k2).exp();
                    kbar2[(z * ny + y) * nx + x] = k2 as u32;
                }
            }
        }
        let mut space = AddressSpace::new();
        let mut plan = match params.init {
            Init::Serial => vec![Op::InitSerial, Op::IndexMap],
            Init::Parallel => vec![Op::IndexMap],
        };
        plan.extend([
            Op::ExTable,
            Op::InitCond,
            Op::Fft(Arr::U1, Arr::U1, Dim::X, false),
            Op::Fft(Arr::U1, Arr::U1, Dim::Y, false),
            Op::Fft(Arr::U1, Arr::U0, Dim::Z, false),
        ]);
        for t in 1..=params.iterations {
            plan.extend([
                Op::Evolve(t),
                Op::Fft(Arr::U1, Arr::U1, Dim::Z, true),
                Op::Fft(Arr::U1, Arr::U1, Dim::Y, true),
                Op::Fft(Arr::U1, Arr::U2, Dim::X, true),
                Op::Checksum,
            ]);
        }
        let maxlen = nx.max(ny).max(nz);
        let [a_u0, a_u1, a_u2, a_map, a_ex, a_tmp] = layout(&params).0.map(|(_, bytes)| space.alloc(bytes));
        Ok(Ft {
            a_u0,
            a_u1,
            a_u2,
            a_map,
            a_ex,
            a_tmp,
            u0: vec![C::default(); n],
            u1: vec![C::default(); n],
            u2: vec![C::default(); n],
            x0,
            twiddle,
            kbar2,
            scratch: vec![C::default(); maxlen * params.block],
            plan,
            pos: 0,
            op: Op::Checksum,
            checksums: Vec::new(),
            params,
            seed,
        })
    }

    fn items(&self, op: Op) -> usize {
        let (nx, ny, nz, b) = (self.params.nx, self.params.ny, self.params.nz, self.params.block);
        match op {
            Op::InitSerial | Op::Evolve(_) | Op::Fft(_, _, Dim::X, _) => nz * ny,
            Op::IndexMap => nx,
            Op::InitCond => nz,
            Op::Fft(_, _, Dim::Y, _) => nz * (nx / b),
            Op::Fft(_, _, Dim::Z, _) => ny * (nx / b),
            Op::ExTable | Op::Checksum => 1,
        }
    }

    fn data(&self, a: Arr) -> &[C] {
        match a {
            Arr::U0 => &self.u0,
            Arr::U1 => &self.u1,
            Arr::U2 => &self.u2,
        }
    }

    fn base(&self, a: Arr) -> u64 {
        match a {
            Arr::U0 => self.a_u0,
            Arr::U1 => self.a_u1,
            Arr::U2 => self.a_u2,
        }
    }

    /// Transforms `count` lines of `len` elements: line l, element j is at index
    /// `first + l + j·stride` of the array.
    #[allow(clippy::too_many_arguments)]
    fn lines(
        &mut self,
        (src, dst): (Arr, Arr),
        first: usize,
        count: usize,
        stride: usize,
        len: usize,
        inv: bool,
        t: usize,
        e: &mut Emitter,
    ) {
        let sbase = private_base(t);
        let base = self.base(src);
        // Scratch layout: line l at l·len.
        for j in 0..len {
            for l in 0..count {
                let i = first + l + j * stride;
                read_c(e, 2, base + i as u64 * C16);
                self.scratch[l * len + j] = self.data(src)[i];
                write_c(e, 2, sbase + (l * len + j) as u64 * C16);
            }
        }
        let (data, base) = match dst {
            Arr::U0 => (&mut self.u0, self.a_u0),
            Arr::U1 => (&mut self.u1, self.a_u1),
            Arr::U2 => (&mut self.u2, self.a_u2),
        };
        let s = &mut self.scratch;
        let bits = len.trailing_zeros();
        let sign = if inv { 1.0 } else { -1.0 };
        for l in 0..count {
            let off = l * len;
            let line = &mut s[off..off + len];
            let at = |j: usize| sbase + (off + j) as u64 * C16;
            for j in 0..len {
                let r = j.reverse_bits() >> (usize::BITS - bits);
                if j < r {
                    read_c(e, 2, at(j));
                    read_c(e, 1, at(r));
                    line.swap(j, r);
                    write_c(e, 1, at(j));
                    write_c(e, 1, at(r));
                }
            }
            let mut half = 1;
            while half < len {
                let theta = sign * std::f64::consts::PI / half as f64;
                for start in (0..len).step_by(2 * half) {
                    for k in 0..half {
                        let w = C {
                            re: (theta * k as f64).cos(),
                            im: (theta * k as f64).sin(),
                        };
                        let (i, j) = (start + k, start + k + half);
                        read_c(e, 5, at(i));
                        read_c(e, 1, at(j));
                        let b = line[j].mul(w);
                        let a = line[i];
                        line[i] = a.add(b);
                        line[j] = a.sub(b);
                        e.flops(10);
                        write_c(e, 11, at(i));
                        write_c(e, 1, at(j));
                    }
                }
                half *= 2;
            }
        }
        let scale = 1.0 / len as f64;
        for j in 0..len {
            for l in 0..count {
                let i = first + l + j * stride;
                read_c(e, 1, sbase + (l * len + j) as u64 * C16);
                let v = s[l * len + j];
                if inv {
                    e.flops(2);
                    data[i] = v.scale(scale);
                    write_c(e, 4, base + i as u64 * C16);
                } else {
                    data[i] = v;
                    write_c(e, 2, base + i as u64 * C16);
                }
            }
        }
    }
}

/// A complex load: its real part (`cost` instructions), then its imaginary part (1).
fn read_c(e: &mut Emitter, cost: u64, at: u64) {
    e.read(cost, at, 8);
    e.read(1, at + 8, 8);
}

/// A complex store, real part then imaginary part.
fn write_c(e: &mut Emitter, cost: u64, at: u64) {
    e.write(cost, at, 8);
    e.write(1, at + 8, 8);
}

impl Kernel for Ft {
    fn next_loop(&mut self) -> Option<Loop> {
        let op = *self.plan.get(self.pos)?;
        self.pos += 1;
        self.op = op;
        let sched = match op {
            Op::IndexMap => self.params.init.sched(),
            Op::InitSerial | Op::ExTable | Op::InitCond | Op::Checksum => Sched::Serial,
            _ => Sched::Static,
        };
        Some(Loop {
            items: self.items(op),
            sched,
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let (nx, ny, nz, b) = (self.params.nx, self.params.ny, self.params.nz, self.params.block);
        match self.op {
            Op::InitSerial => {
                for row in lo..hi {
                    for i in row * nx..(row + 1) * nx {
                        for base in [self.a_u0, self.a_u2] {
                            write_c(e, 2, base + i as u64 * C16);
                        }
                        e.write(2, self.a_map + i as u64 * I32, 4);
                    }
                }
            }
            Op::IndexMap => {
                for x in lo..hi {
                    for y in 0..ny {
                        for z in 0..nz {
                            e.write(3, self.a_map + ((z * ny + y) * nx + x) as u64 * I32, 4);
                        }
                    }
                }
            }
            Op::ExTable => {
                for m in 0..=expmax(&self.params) {
                    e.flops(1);
                    e.write(3, self.a_ex + m * F64, 8);
                }
            }
            Op::InitCond => {
                let plane = nx * ny;
                for z in lo..hi {
                    // vranlc fills tmp[1..=2·plane]; the plane is copied from it.
                    for k in 1..=2 * plane as u64 {
                        e.write(10, self.a_tmp + k * F64, 8);
                    }
                    for i in z * plane..(z + 1) * plane {
                        let k = 1 + 2 * (i - z * plane) as u64;
                        e.read(2, self.a_tmp + k * F64, 8);
                        e.write(1, self.a_u1 + i as u64 * C16, 8);
                        e.read(1, self.a_tmp + (k + 1) * F64, 8);
                        e.write(1, self.a_u1 + i as u64 * C16 + 8, 8);
                        self.u1[i] = self.x0[i];
                    }
                }
            }
            Op::Fft(src, dst, dim, inv) => {
                let arr = (src, dst);
                for item in lo..hi {
                    match dim {
                        Dim::X => self.lines(arr, item * nx, 1, 1, nx, inv, t, e),
                        Dim::Y => {
                            let (z, xb) = (item / (nx / b), item % (nx / b));
                            self.lines(arr, z * ny * nx + xb * b, b, nx, ny, inv, t, e);
                        }
                        Dim::Z => {
                            let (y, xb) = (item / (nx / b), item % (nx / b));
                            self.lines(arr, y * nx + xb * b, b, nx * ny, nz, inv, t, e);
                        }
                    }
                }
            }
            Op::Evolve(step) => {
                for row in lo..hi {
                    for i in row * nx..(row + 1) * nx {
                        e.read(1, self.a_map + i as u64 * I32, 4);
                        let m = step as u64 * u64::from(self.kbar2[i]);
                        e.read(2, self.a_ex + m * F64, 8);
                        read_c(e, 2, self.a_u0 + i as u64 * C16);
                        self.u1[i] = self.u0[i].scale(self.twiddle[i].powi(step as i32));
                        e.flops(2);
                        write_c(e, 1, self.a_u1 + i as u64 * C16);
                    }
                }
            }
            Op::Checksum => {
                let mut sum = C::default();
                for j in 1..=1024 {
                    let i = ((j * 5) % nz * ny + (j * 3) % ny) * nx + j % nx;
                    e.flops(2);
                    read_c(e, 5, self.a_u2 + i as u64 * C16);
                    sum = sum.add(self.u2[i]);
                }
                self.checksums.push(sum);
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "ft", "seed": self.seed, "params": params_json(&self.params) })
    }
    /// The set-up writes the index map, the `ex` table and the initial conditions; the region
    /// of interest (NPB's timed part) starts with the forward FFT.
    fn in_roi(&self) -> Option<bool> {
        Some(self.pos > 0 && !matches!(self.op, Op::InitSerial | Op::IndexMap | Op::ExTable | Op::InitCond))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{collect_interleaved, first_toucher, via};
    use crate::{omp::OmpSource, params::parse};
    use numasim_trace::collect_all;

    const SMALL: &str = "threads = 3\nnx = 8\nny = 4\nnz = 8\nblock = 4\niterations = 2";

    fn kernel(seed: u64) -> Ft {
        Ft::new(parse(toml::from_str(SMALL).unwrap()).unwrap(), seed).unwrap()
    }

    /// Naive 3-D DFT (sign −1 forward, +1 inverse, unscaled).
    fn dft3(x: &[C], nx: usize, ny: usize, nz: usize, sign: f64) -> Vec<C> {
        let mut out = vec![C::default(); x.len()];
        for kz in 0..nz {
            for ky in 0..ny {
                for kx in 0..nx {
                    let mut s = C::default();
                    for z in 0..nz {
                        for y in 0..ny {
                            for xx in 0..nx {
                                let ph = sign
                                    * 2.0
                                    * std::f64::consts::PI
                                    * ((kx * xx) as f64 / nx as f64
                                        + (ky * y) as f64 / ny as f64
                                        + (kz * z) as f64 / nz as f64);
                                let w = C {
                                    re: ph.cos(),
                                    im: ph.sin(),
                                };
                                s = s.add(x[(z * ny + y) * nx + xx].mul(w));
                            }
                        }
                    }
                    out[(kz * ny + ky) * nx + kx] = s;
                }
            }
        }
        out
    }

    fn close(a: &[C], b: &[C], tol: f64) -> bool {
        a.iter()
            .zip(b)
            .all(|(p, q)| (p.re - q.re).abs() < tol && (p.im - q.im).abs() < tol)
    }

    /// Runs one FFT pass over all its items on thread 0.
    fn pass(k: &mut Ft, op: Op) {
        k.op = op;
        let mut e = Emitter::new();
        let n = k.items(op);
        k.run(0, 0, n, &mut e);
    }

    #[test]
    fn forward_matches_dft_and_inverse_restores_the_input() {
        let mut k = kernel(3);
        k.u1 = k.x0.clone();
        for d in [Dim::X, Dim::Y, Dim::Z] {
            pass(&mut k, Op::Fft(Arr::U1, Arr::U1, d, false));
        }
        let reference = dft3(&k.x0, 8, 4, 8, -1.0);
        assert!(close(&k.u1, &reference, 1e-9));
        for d in [Dim::Z, Dim::Y, Dim::X] {
            pass(&mut k, Op::Fft(Arr::U1, Arr::U1, d, true));
        }
        assert!(close(&k.u1, &k.x0, 1e-12));
    }

    #[test]
    fn run_computes_inverse_of_evolved_spectrum() {
        let mut src = OmpSource::new(kernel(4), 3);
        src.run_to_end();
        let k = src.kernel();
        let mut spec = dft3(&k.x0, 8, 4, 8, -1.0);
        for (s, tw) in spec.iter_mut().zip(&k.twiddle) {
            *s = s.scale(tw * tw);
        }
        let expect: Vec<C> = dft3(&spec, 8, 4, 8, 1.0).iter().map(|c| c.scale(1.0 / 256.0)).collect();
        assert!(close(&k.u2, &expect, 1e-9));
        assert_eq!(k.checksums.len(), 2);
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
        assert!(
            a == collect_all(&mut b(SMALL, 2)).unwrap(),
            "address stream is data-oblivious"
        );
        let run = |seed| {
            let mut src = OmpSource::new(kernel(seed), 3);
            src.run_to_end();
            (src.kernel().u2.clone(), src.kernel().checksums.clone())
        };
        let (x, y, z) = (run(1), run(1), run(2));
        assert_eq!(x, y);
        assert_ne!(x.0, z.0);
        assert_ne!(x.1, z.1);
    }

    #[test]
    fn z_pass_touches_every_threads_planes() {
        let a = collect_all(&mut via(build)(SMALL, 1)).unwrap();
        // Thread 0's static rows are planes 0..3 (of 8): its accesses to u0 beyond plane 3 can
        // only come from the z transposes.
        let plane_bytes = 8 * 4 * C16;
        let u0 = SHARED;
        let far = a[0]
            .iter()
            .filter(|x| x.vaddr >= u0 && x.vaddr < u0 + 8 * plane_bytes)
            .any(|x| x.vaddr >= u0 + 6 * plane_bytes);
        assert!(far);
        let flops: u64 = a.iter().flatten().map(|x| x.flops as u64).sum();
        assert!(flops > 256 * 3 * 10, "{flops}");
    }

    /// NPB's set-up: thread 0 fills `u1`, `indexmap` is written column by column by every
    /// thread (each of its pages has every thread as a writer), `u0` is first written by the
    /// forward z pass and `u2` by the first inverse x pass (each by the thread of its static
    /// block); complex elements go as two 8-byte accesses.
    #[test]
    fn parallel_set_up_is_npbs() {
        let text = "threads = 4\nnx = 32\nny = 32\nnz = 32\niterations = 1";
        let a = collect_all(&mut via(build)(text, 1)).unwrap();
        let k = Ft::new(parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap();
        let owner = first_toucher(&a);
        let n = 32 * 32 * 32u64;
        let pages = |base: u64, bytes: u64| (base >> 12)..=((base + bytes - 1) >> 12);
        assert!(pages(k.a_u1, n * C16).all(|pg| owner[&pg] == 0));
        for base in [k.a_u0, k.a_u2] {
            let owners: std::collections::BTreeSet<usize> = pages(base, n * C16).map(|pg| owner[&pg]).collect();
            assert_eq!(owners.len(), 4);
        }
        // u2's last page belongs to the last thread's planes.
        assert_eq!(owner[&((k.a_u2 + n * C16 - 1) >> 12)], 3);
        let map = k.a_map..k.a_map + n * I32;
        for (t, s) in a.iter().enumerate() {
            let writes = s.iter().filter(|x| x.is_write() && map.contains(&x.vaddr)).count();
            assert_eq!(writes, 32 * 32 * 8, "thread {t}");
        }
        assert!(a.iter().flatten().all(|x| x.size_bytes <= 8));
        let ser = collect_all(&mut via(build)(&format!("{text}\ninit = \"serial\""), 1)).unwrap();
        let shared = |pg: &u64| *pg < crate::vspace::PRIVATE_BASE >> 12;
        assert!(first_toucher(&ser)
            .iter()
            .filter(|(pg, _)| shared(pg))
            .all(|(_, &t)| t == 0));
    }

    const SHARED: u64 = crate::vspace::SHARED_BASE;

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |t: &str| build(toml::from_str(t).unwrap(), 1).err().unwrap().key;
        assert_eq!(bad("nx = 6"), "nx");
        assert_eq!(bad("nz = 1"), "nz");
        assert_eq!(bad("block = 3"), "block");
        assert_eq!(bad("iterations = 0"), "iterations");
    }
}
