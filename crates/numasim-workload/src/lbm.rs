//! `lbm`: a WaLBerla-style uniform-grid lattice Boltzmann sweep (D3Q19, stream-pull + collide),
//! the OpenMP "UniformGrid" benchmark Zaourar et al. run in §4.3 as a balanced application.
//!
//! Why this shape: what matters to NUMA placement is the access structure, not the physics.
//! WaLBerla stores each PDF field as structure-of-arrays (`fzyx`: one array of cells per
//! direction), two fields (source and destination) swapped every time step, and its OpenMP
//! sweep splits the z planes statically, so each thread first-touches and then works on its
//! own slab and reads only the neighbouring planes of the next slabs. Per cell and time step:
//! 19 reads `src[q][cell − c_q]` (periodic boundaries), about 200 flops, 19 writes `dst[q][cell]`.
//! Data-oblivious: no values are computed.

use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;

/// Loop overhead per cell, instructions.
const LOOP: u64 = 4;
/// Flops of one D3Q19 BGK collision (equilibrium and relaxation), per cell.
const FLOPS_PER_CELL: u32 = 200;

/// D3Q19 velocity set.
const C: [[i64; 3]; 19] = [
    [0, 0, 0],
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
    [1, 1, 0],
    [-1, -1, 0],
    [1, -1, 0],
    [-1, 1, 0],
    [1, 0, 1],
    [-1, 0, -1],
    [1, 0, -1],
    [-1, 0, 1],
    [0, 1, 1],
    [0, -1, -1],
    [0, 1, -1],
    [0, -1, 1],
];

numasim_config::declare_params! {
    pub section struct LbmParams {
        /// OpenMP threads (access streams)
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// cells along x
        nx: usize = 64, unit "cells", Check::Range(1.0, 65536.0);
        /// cells along y
        ny: usize = 64, unit "cells", Check::Range(1.0, 65536.0);
        /// cells along z (split statically over the threads)
        nz: usize = 64, unit "cells", Check::Range(1.0, 65536.0);
        /// time steps (each a full sweep, fields swapped)
        timesteps: u32 = 2, unit "steps", Check::Range(1.0, u32::MAX as f64);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "lbm",
        summary: "WaLBerla-style uniform-grid D3Q19 lattice Boltzmann sweep, SoA fields, z slabs per thread",
        paper: "Zaourar et al. §4.3 (WaLBerla UniformGrid)",
        params: LbmParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: LbmParams = parse(table)?;
    Ok(Box::new(source(p, seed)?))
}

pub fn source(p: LbmParams, seed: u64) -> Result<OmpSource<Lbm>, WorkloadError> {
    crate::params::in_range(&p)?;
    let cells = (p.nx * p.ny * p.nz) as u64;
    check(cells * 19 * 8 <= 64 << 30, "nx", "the two PDF fields must fit 128 GiB")?;
    let mut space = AddressSpace::new();
    let fields = [space.alloc(cells * 19 * 8), space.alloc(cells * 19 * 8)];
    let threads = p.threads;
    Ok(OmpSource::new(
        Lbm {
            cells,
            fields,
            step: 0,
            p,
            seed,
        },
        threads,
    ))
}

pub struct Lbm {
    cells: u64,
    fields: [u64; 2],
    /// Loops issued so far: 0 is the initialisation, then one per time step.
    step: u32,
    p: LbmParams,
    seed: u64,
}

impl Lbm {
    #[inline(always)]
    fn at(&self, field: usize, q: usize, cell: u64) -> u64 {
        self.fields[field] + (q as u64 * self.cells + cell) * 8
    }
}

impl Kernel for Lbm {
    fn next_loop(&mut self) -> Option<Loop> {
        if self.step > self.p.timesteps {
            return None;
        }
        self.step += 1;
        Some(Loop {
            items: self.p.nz,
            sched: Sched::Static,
        })
    }

    fn run(&mut self, _t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let (nx, ny, nz) = (self.p.nx as i64, self.p.ny as i64, self.p.nz as i64);
        let plane = (nx * ny) as u64;
        if self.step == 1 {
            // Initialisation: each thread touches its own slab of both fields (first touch).
            for z in lo..hi {
                for q in 0..19 {
                    for k in 0..plane {
                        let cell = z as u64 * plane + k;
                        e.write(1 + LOOP, self.at(0, q, cell), 8);
                        e.write(1, self.at(1, q, cell), 8);
                    }
                }
            }
            return;
        }
        // Time step s reads field (s − 2) % 2 and writes the other.
        let src = ((self.step - 2) % 2) as usize;
        let dst = 1 - src;
        for z in lo as i64..hi as i64 {
            for y in 0..ny {
                for x in 0..nx {
                    let cell = ((z * ny + y) * nx + x) as u64;
                    for (q, c) in C.iter().enumerate() {
                        let (sx, sy, sz) = (
                            (x - c[0]).rem_euclid(nx),
                            (y - c[1]).rem_euclid(ny),
                            (z - c[2]).rem_euclid(nz),
                        );
                        let from = ((sz * ny + sy) * nx + sx) as u64;
                        e.read(if q == 0 { 1 + LOOP } else { 1 }, self.at(src, q, from), 8);
                    }
                    e.flops(FLOPS_PER_CELL);
                    for q in 0..19 {
                        e.write(1, self.at(dst, q, cell), 8);
                    }
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "lbm", "seed": self.seed, "params": self.p })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_trace::{collect_all, AccessKind};

    fn run(extra: &str) -> Vec<Vec<numasim_trace::Access>> {
        let t: toml::Table = toml::from_str(&format!("threads = 4\nnx = 4\nny = 3\nnz = 8\n{extra}")).unwrap();
        collect_all(&mut build(t, 1).unwrap()).unwrap()
    }

    #[test]
    fn each_cell_reads_19_neighbours_and_writes_19_pdfs_per_step() {
        let s = run("timesteps = 2");
        let cells = 4 * 3 * 8;
        let total: usize = s.iter().map(Vec::len).sum();
        // Init: 2 x 19 writes per cell; each step 19 reads + 19 writes per cell.
        assert_eq!(total, cells * 38 + 2 * cells * 38);
        // Thread 1 owns planes 2..4; its reads of field 0 (step 1) stay within planes 1..=4.
        let plane_bytes = 4 * 3 * 8u64;
        let base = s[0][0].vaddr; // field 0, q 0, cell 0
        let reads: Vec<u64> = s[1]
            .iter()
            .filter(|a| a.kind == AccessKind::Read && a.vaddr < base + cells as u64 * 19 * 8)
            .map(|a| ((a.vaddr - base) % (cells as u64 * 8)) / plane_bytes)
            .collect();
        assert_eq!(reads.len(), 2 * 12 * 19);
        assert!(reads.iter().all(|&z| (1..=4).contains(&z)), "{reads:?}");
        assert!(reads.contains(&1) && reads.contains(&4));
        for v in &s {
            assert!(v.windows(2).all(|w| w[0].instr < w[1].instr));
        }
    }

    #[test]
    fn same_output_for_same_seed() {
        assert_eq!(run(""), run(""));
    }
}
