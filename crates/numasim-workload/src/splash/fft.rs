//! `fft`: SPLASH-2 FFT — the six-step 1-D FFT of n = 2^m complex points viewed as a
//! √n × √n matrix, as Talbot & Kelly run it (64K points, all data proxied).
//!
//! Why it matters for placement: the three transposes are all-to-all — every thread reads a
//! block of every other thread's rows — while the row FFTs and the twiddle multiply touch only
//! the thread's own contiguous rows. SPLASH-2 initialises the data `x` and the roots of unity
//! (`umain`, `umain2`) in the main thread, so under first touch they start on one node;
//! `trans` is first written by the first transpose, each thread its own rows.
//!
//! Arrays (complex = 16 bytes): `x` and `trans` (n each, row-major √n × √n, no padding),
//! `umain` (the √n roots used by the row FFTs), `umain2` (the n twiddles w^(row·col)). Thread t
//! owns rows `static_range(√n, threads, t)` of both matrices. Steps (barrier after each):
//! initialisation; transpose x → trans; per own row of trans a radix-2 FFT then the twiddle
//! multiply; transpose trans → x; per own row of x a radix-2 FFT; transpose x → trans (the
//! result, in natural order). A transpose is SPLASH-2's blocked one: thread p fills its own
//! destination rows reading, processor by processor starting with p + 1, the source block
//! (rows of q) × (columns = p's rows), in 4 × 4 tiles (one 64-byte line of complexes).
//!
//! Cost model: transpose element read 1 + write 2 instructions; butterfly = root load 1, two
//! element loads 1 each, 10 flops, two stores 1 each; bit-reversal swap 2 loads + 2 stores;
//! twiddle = 2 loads, 6 flops, 1 store; initialisation store 2.

use crate::npb::{static_range, Init};
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::splash::HotRange;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct FftParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// log2 of the number of points, even (Talbot & Kelly: 16, 64K points)
        m: u32 = 16, unit "log2 points", Check::Range(2.0, 26.0);
        /// serial (main thread writes x and the roots, as SPLASH-2) | parallel (each thread its own rows)
        init: Init = Init::Serial, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "fft",
        summary: "SPLASH-2 six-step 1-D FFT: blocked all-to-all transposes, row FFTs on own rows, twiddle multiply",
        paper: "Talbot & Kelly (Table 1.3: 64K points, all data proxied)",
        params: FftParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: FftParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Fft::new(p, seed)?, threads)))
}

/// Talbot & Kelly proxy all of FFT's data.
pub fn hot(table: toml::Table, seed: u64) -> Result<Vec<HotRange>, WorkloadError> {
    let f = Fft::new(parse(table)?, seed)?;
    let n = (f.n1 * f.n1) as u64 * C;
    Ok(vec![
        HotRange {
            name: "x",
            start_vaddr: f.a_x,
            end_vaddr: f.a_x + n,
        },
        HotRange {
            name: "trans",
            start_vaddr: f.a_trans,
            end_vaddr: f.a_trans + n,
        },
        HotRange {
            name: "umain",
            start_vaddr: f.a_umain,
            end_vaddr: f.a_umain + f.n1 as u64 * C,
        },
        HotRange {
            name: "umain2",
            start_vaddr: f.a_umain2,
            end_vaddr: f.a_umain2 + n,
        },
    ])
}

const C: u64 = 16;
const TILE: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Init,
    /// Transpose number 0, 1 or 2.
    Transpose(u8),
    /// Row FFTs of trans with the twiddle multiply (`true`) or of x (`false`).
    Rows(bool),
    Done,
}

type Cx = (f64, f64);

/// The FFT kernel (public so tests can check the transform).
pub struct Fft {
    params: FftParams,
    seed: u64,
    n1: usize,
    /// Input (kept for checks), then the working arrays.
    pub input: Vec<Cx>,
    x: Vec<Cx>,
    /// The result after the run, in natural order.
    pub trans: Vec<Cx>,
    umain: Vec<Cx>,
    a_x: u64,
    a_trans: u64,
    a_umain: u64,
    a_umain2: u64,
    step: Step,
}

fn root(k: usize, n: usize) -> Cx {
    let a = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
    (a.cos(), a.sin())
}

fn mul(a: Cx, b: Cx) -> Cx {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

impl Fft {
    pub fn new(params: FftParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.m.is_multiple_of(2) && (1usize << (params.m / 2)) >= params.threads,
            "m",
            "must be even, with 2^(m/2) rows at least the thread count",
        )?;
        let n1 = 1usize << (params.m / 2);
        let n = n1 * n1;
        let mut rng = stream(seed, 0xFF7);
        let input: Vec<Cx> = (0..n)
            .map(|_| (rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
            .collect();
        let mut space = AddressSpace::new();
        Ok(Fft {
            a_x: space.alloc(n as u64 * C),
            a_trans: space.alloc(n as u64 * C),
            a_umain: space.alloc(n1 as u64 * C),
            a_umain2: space.alloc(n as u64 * C),
            x: input.clone(),
            trans: vec![(0.0, 0.0); n],
            umain: (0..n1).map(|k| root(k, n1)).collect(),
            input,
            n1,
            params,
            seed,
            step: Step::Start,
        })
    }

    /// Blocked transpose of `src` into `dst` for thread p's destination rows.
    fn transpose(&mut self, p: usize, to_trans: bool, e: &mut Emitter) {
        let (n1, threads) = (self.n1, self.params.threads);
        let (a_src, a_dst) = if to_trans {
            (self.a_x, self.a_trans)
        } else {
            (self.a_trans, self.a_x)
        };
        let mine = static_range(n1, threads, p);
        for k in 1..=threads {
            let q = (p + k) % threads;
            let theirs = static_range(n1, threads, q);
            for ib in theirs.clone().step_by(TILE) {
                for jb in mine.clone().step_by(TILE) {
                    for i in ib..(ib + TILE).min(theirs.end) {
                        for j in jb..(jb + TILE).min(mine.end) {
                            e.read(1, a_src + (i * n1 + j) as u64 * C, 16);
                            e.write(2, a_dst + (j * n1 + i) as u64 * C, 16);
                            if to_trans {
                                self.trans[j * n1 + i] = self.x[i * n1 + j];
                            } else {
                                self.x[j * n1 + i] = self.trans[i * n1 + j];
                            }
                        }
                    }
                }
            }
        }
    }

    /// In-place radix-2 FFT of row r of trans (`of_trans`) or x, then (for trans) the twiddles.
    fn row_fft(&mut self, r: usize, of_trans: bool, e: &mut Emitter) {
        let n1 = self.n1;
        let base = if of_trans { self.a_trans } else { self.a_x } + (r * n1) as u64 * C;
        let row = if of_trans {
            &mut self.trans[r * n1..(r + 1) * n1]
        } else {
            &mut self.x[r * n1..(r + 1) * n1]
        };
        let bits = n1.trailing_zeros();
        for i in 0..n1 {
            let j = if bits == 0 {
                0
            } else {
                i.reverse_bits() >> (usize::BITS - bits)
            };
            if i < j {
                e.read(2, base + i as u64 * C, 16);
                e.read(1, base + j as u64 * C, 16);
                e.write(1, base + i as u64 * C, 16);
                e.write(1, base + j as u64 * C, 16);
                row.swap(i, j);
            }
        }
        let mut len = 2;
        while len <= n1 {
            let stride = n1 / len;
            for start in (0..n1).step_by(len) {
                for k in 0..len / 2 {
                    let w = self.umain[k * stride];
                    let (a, b) = (start + k, start + k + len / 2);
                    e.read(1, self.a_umain + (k * stride) as u64 * C, 16);
                    e.read(1, base + a as u64 * C, 16);
                    e.read(1, base + b as u64 * C, 16);
                    let t = mul(w, row[b]);
                    let u = row[a];
                    row[a] = (u.0 + t.0, u.1 + t.1);
                    row[b] = (u.0 - t.0, u.1 - t.1);
                    e.flops(10);
                    e.write(1, base + a as u64 * C, 16);
                    e.write(1, base + b as u64 * C, 16);
                }
            }
            len *= 2;
        }
        if of_trans {
            let n = n1 * n1;
            for (k, v) in row.iter_mut().enumerate() {
                e.read(1, base + k as u64 * C, 16);
                e.read(1, self.a_umain2 + (r * n1 + k) as u64 * C, 16);
                *v = mul(*v, root((r * k) % n, n));
                e.flops(6);
                e.write(1, base + k as u64 * C, 16);
            }
        }
    }
}

impl Kernel for Fft {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step = match self.step {
            Step::Start => Step::Init,
            Step::Init => Step::Transpose(0),
            Step::Transpose(0) => Step::Rows(true),
            Step::Rows(true) => Step::Transpose(1),
            Step::Transpose(1) => Step::Rows(false),
            Step::Rows(false) => Step::Transpose(2),
            Step::Transpose(_) | Step::Done => Step::Done,
        };
        if self.step == Step::Done {
            return None;
        }
        let threads = self.params.threads;
        Some(match (self.step, self.params.init) {
            (Step::Init, Init::Serial) => Loop {
                items: 1,
                sched: Sched::Serial,
            },
            _ => Loop {
                items: threads,
                sched: Sched::PerThread,
            },
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let (n1, threads) = (self.n1, self.params.threads);
        for item in lo..hi {
            match self.step {
                Step::Init => {
                    // Serial: one item, thread 0 writes everything; parallel: own rows.
                    let rows = if self.params.init == Init::Serial {
                        0..n1
                    } else {
                        static_range(n1, threads, item)
                    };
                    for r in rows {
                        for c in 0..n1 {
                            e.write(2, self.a_x + (r * n1 + c) as u64 * C, 16);
                            e.write(2, self.a_umain2 + (r * n1 + c) as u64 * C, 16);
                        }
                    }
                    if item == 0 {
                        for k in 0..n1 {
                            e.write(2, self.a_umain + k as u64 * C, 16);
                        }
                    }
                }
                Step::Transpose(k) => self.transpose(t, k != 1, e),
                Step::Rows(of_trans) => {
                    for r in static_range(n1, threads, t) {
                        self.row_fft(r, of_trans, e);
                    }
                }
                Step::Start | Step::Done => {}
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "fft", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_oblivious_generator, via};
    use numasim_trace::AccessKind;

    #[test]
    /// The six-step FFT's accesses do not depend on the data: the seed changes only the values.
    fn deterministic_and_monotonic() {
        check_oblivious_generator(via(build), "threads = 4\nm = 8");
        check_oblivious_generator(via(build), "threads = 3\nm = 6\ninit = \"parallel\"");
    }

    #[test]
    fn computes_the_dft() {
        for (m, threads) in [(6u32, 2usize), (8, 4)] {
            let p = FftParams {
                threads,
                m,
                init: Init::Serial,
            };
            let mut src = OmpSource::new(Fft::new(p, 3).unwrap(), threads);
            src.run_to_end();
            let f = src.kernel();
            let n = 1usize << m;
            for k in 0..n {
                let mut s = (0.0, 0.0);
                for (j, &v) in f.input.iter().enumerate() {
                    let t = mul(v, root((j * k) % n, n));
                    s = (s.0 + t.0, s.1 + t.1);
                }
                let got = f.trans[k];
                assert!((got.0 - s.0).abs() < 1e-9 && (got.1 - s.1).abs() < 1e-9, "m {m} k {k}");
            }
        }
    }

    /// In every transpose each source element is read once and each destination element
    /// written once, by the thread owning the destination row.
    #[test]
    fn every_element_moves_once_per_transpose() {
        let threads = 3;
        let p = FftParams {
            threads,
            m: 8,
            init: Init::Serial,
        };
        let mut k = Fft::new(p, 1).unwrap();
        let n1 = 16u64;
        let mut transposes = 0;
        while let Some(_l) = k.next_loop() {
            let mut es: Vec<Emitter> = (0..threads).map(|_| Emitter::new()).collect();
            for (t, e) in es.iter_mut().enumerate() {
                k.run(t, t, t + 1, e);
            }
            let Step::Transpose(which) = k.step else { continue };
            transposes += 1;
            let (src, dst) = if which == 1 {
                (k.a_trans, k.a_x)
            } else {
                (k.a_x, k.a_trans)
            };
            let mut reads = vec![0u32; 256];
            let mut writes = vec![0u32; 256];
            for (t, e) in es.iter().enumerate() {
                for a in &e.buf {
                    match a.kind {
                        AccessKind::Read => reads[((a.vaddr - src) / C) as usize] += 1,
                        _ => {
                            let el = (a.vaddr - dst) / C;
                            writes[el as usize] += 1;
                            assert!(static_range(16, threads, t).contains(&((el / n1) as usize)));
                        }
                    }
                }
            }
            assert!(reads.iter().all(|&c| c == 1) && writes.iter().all(|&c| c == 1));
        }
        assert_eq!(transposes, 3);
    }
}
