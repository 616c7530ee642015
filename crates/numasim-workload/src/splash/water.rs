//! `water-nsq`: SPLASH-2 Water-Nsquared — molecular dynamics of rigid-ish 3-atom water
//! molecules with an O(n²) pairwise force loop, as Talbot & Kelly run it (512 molecules,
//! `VAR` and `PFORCES` the data structures marked for proxying).
//!
//! Why it matters for placement: `VAR` (every molecule's positions, derivatives and forces) is
//! written by the main thread when the molecules are set up, so first touch puts it on one
//! node, yet every thread reads half of it in every force step. `PFORCES` holds each thread's
//! private force accumulators in one shared allocation (also set up by the main thread).
//!
//! Arrays: `VAR`, one 504-byte record per molecule: `F[order][dir][atom]` f64 with 7 orders
//! (0 position, 1 velocity, 2 acceleration, 3–5 higher predictor derivatives, 6 force), 3
//! directions, 3 atoms (O, H, H), so the three atoms' coordinates along one direction are one
//! 24-byte access. `PFORCES`, threads × molecules × `[dir][atom]` f64 (72 bytes a record).
//! `MOL_LOCK`, one 8-byte lock word per molecule. `GLOBAL`, the kinetic-energy sums.
//!
//! Each thread owns a contiguous block of molecules (static split). A time step runs, with a
//! barrier after each: PREDIC + INTRAF (predictor over orders 0–5 and the intramolecular bond
//! forces of own molecules); INTERF, the real SPLASH-2 loop: each own molecule i against the
//! next n/2 molecules `(i+1 .. i+n/2) mod n` (one fewer for i ≥ n/2 when n is even), which
//! visits every unordered pair exactly once; per pair read both molecules' positions (3 + 3
//! accesses), test the O–O distance against the cutoff and, within it, accumulate the 9
//! atom–atom forces into the thread's `PFORCES` rows of both molecules (read + write, 3 + 3
//! each); then, per molecule, lock, add the thread's `PFORCES` row into `VAR`'s force order,
//! unlock; CORREC (acceleration from force, velocity update, zero the force for the next
//! step) and KINETI (kinetic energy, added into `GLOBAL` under a lock).
//!
//! Physics (reduced units): O–O Lennard-Jones plus Coulomb between all 9 atom pairs (charges
//! −0.82 / +0.41) with minimum-image periodic boundaries and a cutoff of min(L/2, 2.5); O–H
//! bonds are harmonic springs. It is a stand-in for SPLASH-2's potential with the same loop
//! structure; momentum is conserved (each pair adds equal and opposite forces), which the tests
//! check.
//!
//! Cost model: position or force access 1 instruction (+2 on a molecule's first); cutoff test
//! 9 flops charged to the next access; an interacting pair 9 × 14 flops; predictor 6 flops per
//! order; lock acquire/release 3 each.

use crate::npb::Init;
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
    pub section struct WaterParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// number of water molecules (Talbot & Kelly: 512)
        molecules: usize = 512, unit "molecules", Check::Range(2.0, 65536.0);
        /// time steps
        steps: usize = 2, unit "steps", Check::Range(1.0, 1000.0);
        /// serial (main thread sets up VAR and PFORCES, as SPLASH-2) | parallel (each thread its own molecules and its own PFORCES section)
        init: Init = Init::Serial, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "water-nsq",
        summary: "SPLASH-2 Water-Nsquared: O(n^2)/2 pairwise forces into per-thread PFORCES, locked update of VAR",
        paper: "Talbot & Kelly (Table 1.3: 512 molecules, VAR and PFORCES proxied)",
        params: WaterParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: WaterParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Water::new(p, seed)?, threads)))
}

/// The data structures Talbot & Kelly mark for proxying: `VAR` and `PFORCES`.
pub fn hot(table: toml::Table, seed: u64) -> Result<Vec<HotRange>, WorkloadError> {
    let w = Water::new(parse(table)?, seed)?;
    let n = w.n as u64;
    Ok(vec![
        HotRange {
            name: "VAR",
            start_vaddr: w.a_var,
            end_vaddr: w.a_var + n * MOL_BYTES,
        },
        HotRange {
            name: "PFORCES",
            start_vaddr: w.a_pf,
            end_vaddr: w.a_pf + w.params.threads as u64 * n * PF_BYTES,
        },
    ])
}

const ORDERS: usize = 7;
const FORCE: usize = 6;
const MOL_BYTES: u64 = (ORDERS * 9 * 8) as u64;
const PF_BYTES: u64 = 72;
const CHARGE: [f64; 3] = [-0.82, 0.41, 0.41];
const DT: f64 = 0.002;

/// Partners of molecule `i` in the INTERF loop: `(i+1 ..= i+half) mod n`, `half` = n/2 except
/// one fewer for i ≥ n/2 when n is even (so every unordered pair is visited exactly once).
pub fn partners(i: usize, n: usize) -> impl Iterator<Item = usize> {
    let half = if n.is_multiple_of(2) && i >= n / 2 {
        n / 2 - 1
    } else {
        n / 2
    };
    (1..=half).map(move |k| (i + k) % n)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Init,
    Predic,
    Interf,
    Correc,
}

/// The Water-Nsquared kernel (public so tests can read its counters and state).
pub struct Water {
    params: WaterParams,
    seed: u64,
    n: usize,
    box_len: f64,
    cutoff2: f64,
    /// Per molecule `[order][dir][atom]` (orders 0, 1, 2, 6 used by the integrator).
    pub var: Vec<[f64; ORDERS * 9]>,
    /// Per thread × molecule `[dir][atom]`.
    pforces: Vec<[f64; 9]>,
    a_var: u64,
    a_pf: u64,
    a_lock: u64,
    a_global: u64,
    phase: Phase,
    step: usize,
    /// Pairs visited in the last INTERF (all of them, within the cutoff or not).
    pub pairs_visited: usize,
    /// Pairs within the cutoff over the whole run.
    pub pairs_interacting: usize,
    /// Kinetic energy after each step.
    pub kinetic: Vec<f64>,
    partial_ke: Vec<f64>,
}

impl Water {
    pub fn new(params: WaterParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.molecules >= params.threads,
            "molecules",
            "must be at least threads",
        )?;
        let n = params.molecules;
        // A cubic lattice of spacing 1.1 (reduced units), randomly jittered and oriented.
        let side = (n as f64).cbrt().ceil() as usize;
        let box_len = side as f64 * 1.1;
        let mut rng = stream(seed, 0x3A);
        let mut var = vec![[0.0f64; ORDERS * 9]; n];
        for (m, rec) in var.iter_mut().enumerate() {
            let cell = [m % side, (m / side) % side, m / (side * side)];
            let o: Vec<f64> = cell
                .iter()
                .map(|&c| (c as f64 + 0.5) * 1.1 + rng.gen_range(-0.1..0.1))
                .collect();
            for d in 0..3 {
                rec[d * 3] = o[d];
                for h in 1..3 {
                    rec[d * 3 + h] = o[d] + rng.gen_range(-0.1..0.1);
                }
                for a in 0..3 {
                    rec[9 + d * 3 + a] = rng.gen_range(-0.5..0.5);
                }
            }
        }
        let mut space = AddressSpace::new();
        let a_var = space.alloc(n as u64 * MOL_BYTES);
        let a_pf = space.alloc((params.threads * n) as u64 * PF_BYTES);
        let a_lock = space.alloc(n as u64 * 8);
        let a_global = space.alloc(64);
        let cutoff = (box_len / 2.0).min(2.5);
        Ok(Water {
            pforces: vec![[0.0; 9]; params.threads * n],
            var,
            a_var,
            a_pf,
            a_lock,
            a_global,
            box_len,
            cutoff2: cutoff * cutoff,
            phase: Phase::Start,
            step: 0,
            pairs_visited: 0,
            pairs_interacting: 0,
            kinetic: Vec::new(),
            partial_ke: vec![0.0; params.threads],
            n,
            params,
            seed,
        })
    }

    #[inline]
    fn f(&self, m: usize, order: usize, dir: usize) -> u64 {
        self.a_var + m as u64 * MOL_BYTES + ((order * 3 + dir) * 24) as u64
    }

    #[inline]
    fn pf(&self, t: usize, m: usize, dir: usize) -> u64 {
        self.a_pf + (t * self.n + m) as u64 * PF_BYTES + dir as u64 * 24
    }

    /// Sum over molecules of the force order (zero when momentum is conserved).
    pub fn net_force(&self) -> [f64; 3] {
        let mut s = [0.0; 3];
        for rec in &self.var {
            for d in 0..3 {
                for a in 0..3 {
                    s[d] += rec[FORCE * 9 + d * 3 + a];
                }
            }
        }
        s
    }

    /// Minimum-image difference along one direction.
    #[inline]
    fn image(&self, d: f64) -> f64 {
        d - self.box_len * (d / self.box_len).round()
    }

    fn predic(&mut self, m: usize, e: &mut Emitter) {
        for order in 0..6 {
            for d in 0..3 {
                e.read(if order == 0 && d == 0 { 3 } else { 1 }, self.f(m, order, d), 24);
                e.flops(6);
                e.write(1, self.f(m, order, d), 24);
            }
        }
        let rec = &mut self.var[m];
        for i in 0..9 {
            rec[i] += rec[9 + i] * DT + 0.5 * rec[18 + i] * DT * DT;
            rec[9 + i] += 0.5 * rec[18 + i] * DT;
        }
        // INTRAF: harmonic O-H bonds of length 0.33.
        for d in 0..3 {
            e.read(1, self.f(m, 0, d), 24);
        }
        let rec = &mut self.var[m];
        for h in 1..3 {
            let dx: Vec<f64> = (0..3).map(|d| rec[d * 3 + h] - rec[d * 3]).collect();
            let r = dx.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
            let k = -50.0 * (r - 0.33) / r;
            for d in 0..3 {
                rec[FORCE * 9 + d * 3 + h] += k * dx[d];
                rec[FORCE * 9 + d * 3] -= k * dx[d];
            }
        }
        for d in 0..3 {
            e.read(1, self.f(m, FORCE, d), 24);
            e.flops(12);
            e.write(1, self.f(m, FORCE, d), 24);
        }
    }

    fn interf(&mut self, t: usize, i: usize, e: &mut Emitter) {
        let n = self.n;
        for d in 0..3 {
            e.read(if d == 0 { 3 } else { 1 }, self.f(i, 0, d), 24);
        }
        for j in partners(i, n) {
            self.pairs_visited += 1;
            for d in 0..3 {
                e.read(1, self.f(j, 0, d), 24);
            }
            let (pi, pj) = (&self.var[i], &self.var[j]);
            let oo: Vec<f64> = (0..3).map(|d| self.image(pi[d * 3] - pj[d * 3])).collect();
            let r2 = oo.iter().map(|x| x * x).sum::<f64>();
            e.flops(9);
            if r2 > self.cutoff2 {
                continue;
            }
            self.pairs_interacting += 1;
            // Shift of j's image so all 9 atom pairs use the same periodic copy.
            let shift: Vec<f64> = (0..3).map(|d| pi[d * 3] - pj[d * 3] - oo[d]).collect();
            let mut fi = [0.0f64; 9];
            for a in 0..3 {
                for b in 0..3 {
                    let dx: Vec<f64> = (0..3).map(|d| pi[d * 3 + a] - pj[d * 3 + b] - shift[d]).collect();
                    let s2 = dx.iter().map(|x| x * x).sum::<f64>().max(0.01);
                    let mut g = CHARGE[a] * CHARGE[b] / (s2 * s2.sqrt());
                    if a == 0 && b == 0 {
                        let inv6 = (0.8 * 0.8 / s2).powi(3);
                        g += 24.0 * (2.0 * inv6 * inv6 - inv6) / s2;
                    }
                    for (d, x) in dx.iter().enumerate() {
                        fi[d * 3 + a] += g * x;
                        self.pforces[t * n + j][d * 3 + b] -= g * x;
                    }
                }
            }
            for (k, v) in fi.iter().enumerate() {
                self.pforces[t * n + i][k] += v;
            }
            e.flops(9 * 14);
            for m in [i, j] {
                for d in 0..3 {
                    e.read(1, self.pf(t, m, d), 24);
                    e.write(1, self.pf(t, m, d), 24);
                }
            }
        }
    }
}

impl Kernel for Water {
    fn next_loop(&mut self) -> Option<Loop> {
        let n = self.n;
        let (phase, items, sched) = match self.phase {
            Phase::Start => (Phase::Init, n, self.params.init.sched()),
            Phase::Init | Phase::Correc => {
                if self.phase == Phase::Correc {
                    self.kinetic.push(self.partial_ke.iter().sum());
                    self.partial_ke.fill(0.0);
                    self.step += 1;
                    if self.step == self.params.steps {
                        return None;
                    }
                }
                (Phase::Predic, n, Sched::Static)
            }
            Phase::Predic => {
                self.pairs_visited = 0;
                (Phase::Interf, n, Sched::Static)
            }
            Phase::Interf => (Phase::Correc, n, Sched::Static),
        };
        self.phase = phase;
        Some(Loop { items, sched })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        for m in lo..hi {
            match self.phase {
                Phase::Start => {}
                Phase::Init => {
                    for order in 0..ORDERS {
                        for d in 0..3 {
                            e.write(2, self.f(m, order, d), 24);
                        }
                    }
                    e.write(2, self.a_lock + m as u64 * 8, 8);
                    // Serial: the main thread also zeroes every thread's PFORCES rows of m
                    // (parallel: each thread zeroes its own section, in `finish_thread`).
                    if self.params.init == Init::Serial {
                        for tt in 0..self.params.threads {
                            for d in 0..3 {
                                e.write(1, self.pf(tt, m, d), 24);
                            }
                        }
                    }
                }
                Phase::Predic => self.predic(m, e),
                Phase::Interf => self.interf(t, m, e),
                Phase::Correc => {
                    for d in 0..3 {
                        e.read(3, self.f(m, FORCE, d), 24);
                        e.flops(3);
                        e.write(1, self.f(m, 2, d), 24);
                        e.read(1, self.f(m, 1, d), 24);
                        e.flops(6);
                        e.write(1, self.f(m, 1, d), 24);
                        e.write(1, self.f(m, FORCE, d), 24);
                    }
                    let rec = &mut self.var[m];
                    let mut ke = 0.0;
                    for k in 0..9 {
                        let mass = if k % 3 == 0 { 16.0 } else { 1.0 };
                        rec[18 + k] = rec[FORCE * 9 + k] / mass;
                        rec[9 + k] += 0.5 * rec[18 + k] * DT;
                        rec[FORCE * 9 + k] = 0.0;
                        ke += 0.5 * mass * rec[9 + k] * rec[9 + k];
                    }
                    self.partial_ke[t] += ke;
                }
            }
        }
    }

    fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
        let n = self.n;
        match self.phase {
            Phase::Init if self.params.init == Init::Parallel => {
                for m in 0..n {
                    for d in 0..3 {
                        e.write(1, self.pf(t, m, d), 24);
                    }
                }
            }
            Phase::Interf => {
                // Locked update of VAR's forces from this thread's PFORCES, then zero them.
                for m in 0..n {
                    e.read(3, self.a_lock + m as u64 * 8, 8);
                    e.write(1, self.a_lock + m as u64 * 8, 8);
                    for d in 0..3 {
                        e.read(1, self.pf(t, m, d), 24);
                        e.read(1, self.f(m, FORCE, d), 24);
                        e.flops(3);
                        e.write(1, self.f(m, FORCE, d), 24);
                        e.write(1, self.pf(t, m, d), 24);
                    }
                    e.write(3, self.a_lock + m as u64 * 8, 8);
                    let pf = std::mem::take(&mut self.pforces[t * n + m]);
                    for (k, v) in pf.iter().enumerate() {
                        self.var[m][FORCE * 9 + k] += v;
                    }
                }
            }
            Phase::Correc => {
                e.read(3, self.a_global, 8);
                e.flops(1);
                e.write(1, self.a_global, 8);
            }
            _ => {}
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "water-nsq", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::static_range;
    use crate::npb::testutil::{check_generator, via};

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), "threads = 3\nmolecules = 30");
        check_generator(
            via(build),
            "threads = 4\nmolecules = 27\ninit = \"parallel\"\nsteps = 1",
        );
    }

    #[test]
    fn the_interf_loop_visits_every_pair_once() {
        for n in [2, 5, 8, 27, 64] {
            let mut seen = vec![0u32; n * n];
            for i in 0..n {
                for j in partners(i, n) {
                    seen[i.min(j) * n + i.max(j)] += 1;
                }
            }
            for i in 0..n {
                for j in i + 1..n {
                    assert_eq!(seen[i * n + j], 1, "n {n}: pair ({i}, {j})");
                }
            }
        }
        let p = WaterParams {
            threads: 4,
            molecules: 64,
            steps: 2,
            init: Init::Serial,
        };
        let mut src = OmpSource::new(Water::new(p, 1).unwrap(), 4);
        src.run_to_end();
        assert_eq!(src.kernel().pairs_visited, 64 * 63 / 2);
        assert!(src.kernel().pairs_interacting > 0);
        assert_eq!(src.kernel().kinetic.len(), 2);
    }

    /// Forces accumulated per thread and merged under locks still cancel pairwise (momentum
    /// is conserved), whatever the thread count.
    #[test]
    fn merged_forces_cancel() {
        let p = WaterParams {
            threads: 3,
            molecules: 27,
            steps: 1,
            init: Init::Serial,
        };
        let mut w = Water::new(p, 5).unwrap();
        let mut src_e = Emitter::new();
        // Drive one PREDIC + INTERF by hand and stop before CORREC clears the forces.
        w.next_loop();
        w.run(0, 0, 27, &mut src_e);
        w.next_loop();
        for t in 0..3 {
            let r = static_range(27, 3, t);
            w.run(t, r.start, r.end, &mut src_e);
        }
        w.next_loop();
        for t in 0..3 {
            let r = static_range(27, 3, t);
            w.run(t, r.start, r.end, &mut src_e);
            w.finish_thread(t, &mut src_e);
        }
        let f = w.net_force();
        let scale: f64 = w.var.iter().map(|r| r[FORCE * 9].abs()).sum();
        assert!(scale > 0.0);
        for d in f {
            assert!(d.abs() < 1e-9 * scale, "{f:?} vs {scale}");
        }
    }

    #[test]
    fn hot_ranges_cover_var_and_pforces() {
        let h = hot(toml::from_str("threads = 2\nmolecules = 10").unwrap(), 1).unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].end_vaddr - h[0].start_vaddr, 10 * 504);
        assert_eq!(h[1].end_vaddr - h[1].start_vaddr, 2 * 10 * 72);
    }
}
