//! `synthetic`: seeded access patterns for demos, tests and speed measurements.
//!
//! Not a model of any program (the real-algorithm generators are); it exists so the quickstart
//! needs no input file and so the simulator's speed can be measured with a source that costs
//! almost nothing. Each thread makes "visits": it picks a page by the pattern, then touches
//! `lines_per_visit` consecutive 64 B lines in it (spatial locality, so an LLC filter has
//! something to catch). Every access costs `instructions_per_access` instructions.
//!
//! Patterns over a shared region of `footprint_bytes` starting at [`BASE_VADDR`]:
//! - `uniform`: any page of the region, uniformly.
//! - `zipf`: pages by a Zipf law (exponent `zipf_exponent`) over a seeded permutation, so hot
//!   pages are scattered through the region.
//! - `shared-hot`: with probability `hot_access_fraction` a page of the hot set (the first
//!   `hot_fraction` of the region, shared by all threads), otherwise a page of the thread's own
//!   slice of the rest (private data). The StarNUMA "vagabond pages" situation in miniature.
//! - `private`: only the thread's own slice.

use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use numasim_trace::{Access, AccessKind, AccessSource, SourceError};
use rand::Rng as _;
use rand_distr::{Distribution, WeightedAliasIndex};
use serde::{Deserialize, Serialize};

/// Where the synthetic region starts (any 4 KiB-aligned address works).
pub const BASE_VADDR: u64 = 0x1000_0000;
const PAGE_BYTES: u64 = 4096;
const LINE_BYTES: u64 = 64;
const LINES_PER_PAGE: u64 = PAGE_BYTES / LINE_BYTES;
const BATCH: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    Uniform,
    Zipf,
    SharedHot,
    Private,
}

impl numasim_config::param::ParamKind for Pattern {}

numasim_config::declare_params! {
    pub section struct SyntheticParams {
        /// number of threads (access streams)
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// uniform | zipf | shared-hot | private
        pattern: Pattern = Pattern::SharedHot, unit "-", Check::Any;
        /// size of the shared region in bytes
        footprint_bytes: u64 = 256 << 20, unit "bytes", Check::Range(4096.0, 4398046511104.0);
        /// accesses each thread makes
        accesses_per_thread: u64 = 1_000_000, unit "accesses", Check::Range(0.0, u64::MAX as f64);
        /// instructions retired per access (memory + non-memory)
        instructions_per_access: u32 = 4, unit "instructions", Check::Range(1.0, u32::MAX as f64);
        /// probability an access is a write
        write_fraction: f64 = 0.3, unit "fraction", Check::Range(0.0, 1.0);
        /// Zipf exponent s of the zipf pattern
        zipf_exponent: f64 = 0.99, unit "-", Check::Above(0.0, f64::MAX);
        /// shared-hot: share of the region that is the hot set
        hot_fraction: f64 = 0.05, unit "fraction", Check::Below(0.0, 1.0);
        /// shared-hot: probability a visit goes to the hot set
        hot_access_fraction: f64 = 0.6, unit "fraction", Check::Range(0.0, 1.0);
        /// consecutive 64 B lines touched per page visit
        lines_per_visit: u32 = 4, unit "lines", Check::Range(1.0, 64.0);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "synthetic",
        summary: "seeded access patterns (uniform, zipf, shared-hot, private) for demos and speed tests",
        paper: "none (a test source, not a program model)",
        params: SyntheticParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let params: SyntheticParams = parse(table)?;
    Ok(Box::new(Synthetic::new(params, seed)?))
}

struct ThreadState {
    rng: Rng,
    instr: u64,
    remaining: u64,
    page: u64,
    line: u64,
    lines_left: u32,
}

/// The generator; see the module docs.
pub struct Synthetic {
    params: SyntheticParams,
    seed: u64,
    pages: u64,
    hot_pages: u64,
    slice_pages: u64,
    zipf: Option<(WeightedAliasIndex<f64>, Vec<u32>)>,
    state: Vec<ThreadState>,
}

impl Synthetic {
    pub fn new(params: SyntheticParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        let pages = params.footprint_bytes / PAGE_BYTES;
        check(
            pages >= params.threads as u64,
            "footprint_bytes",
            "must hold at least one 4 KiB page per thread",
        )?;
        let hot_pages = ((pages as f64 * params.hot_fraction) as u64).max(1);
        let private_pages = match params.pattern {
            Pattern::SharedHot => pages - hot_pages,
            _ => pages,
        };
        let slice_pages = private_pages / params.threads as u64;
        check(
            slice_pages >= 1,
            "footprint_bytes",
            "too small for one private page per thread",
        )?;
        let zipf = if params.pattern == Pattern::Zipf {
            check(
                pages <= 1 << 24,
                "footprint_bytes",
                "zipf supports at most 64 GiB (2^24 pages)",
            )?;
            let weights: Vec<f64> = (1..=pages)
                .map(|r| 1.0 / (r as f64).powf(params.zipf_exponent))
                .collect();
            let alias = WeightedAliasIndex::new(weights).map_err(|e| WorkloadError {
                key: "zipf_exponent".into(),
                message: e.to_string(),
            })?;
            // Rank -> page permutation, seeded (Fisher-Yates).
            let mut perm: Vec<u32> = (0..pages as u32).collect();
            let mut rng = stream(seed, u64::MAX);
            for i in (1..perm.len()).rev() {
                let j = rng.gen_range(0..=i);
                perm.swap(i, j);
            }
            Some((alias, perm))
        } else {
            None
        };
        let state = (0..params.threads)
            .map(|t| ThreadState {
                rng: stream(seed, t as u64),
                instr: 0,
                remaining: params.accesses_per_thread,
                page: 0,
                line: 0,
                lines_left: 0,
            })
            .collect();
        Ok(Synthetic {
            params,
            seed,
            pages,
            hot_pages,
            slice_pages,
            zipf,
            state,
        })
    }

    #[inline]
    fn pick_page(&self, thread: usize, rng: &mut Rng) -> u64 {
        let own_slice =
            |rng: &mut Rng, first: u64| first + thread as u64 * self.slice_pages + rng.gen_range(0..self.slice_pages);
        match self.params.pattern {
            Pattern::Uniform => rng.gen_range(0..self.pages),
            Pattern::Zipf => {
                let (alias, perm) = self.zipf.as_ref().expect("zipf table built for zipf pattern");
                perm[alias.sample(rng)] as u64
            }
            Pattern::SharedHot => {
                if rng.gen_bool(self.params.hot_access_fraction) {
                    rng.gen_range(0..self.hot_pages)
                } else {
                    own_slice(rng, self.hot_pages)
                }
            }
            Pattern::Private => own_slice(rng, 0),
        }
    }
}

impl AccessSource for Synthetic {
    fn threads(&self) -> usize {
        self.params.threads
    }

    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        out.clear();
        let mut st = std::mem::replace(
            &mut self.state[thread],
            ThreadState {
                rng: stream(0, 0),
                instr: 0,
                remaining: 0,
                page: 0,
                line: 0,
                lines_left: 0,
            },
        );
        let n = st.remaining.min(BATCH as u64) as usize;
        let step = self.params.instructions_per_access as u64;
        let write_threshold = (self.params.write_fraction * (1u64 << 32) as f64) as u64;
        for _ in 0..n {
            if st.lines_left == 0 {
                st.page = self.pick_page(thread, &mut st.rng);
                st.line = st.rng.gen_range(0..LINES_PER_PAGE);
                st.lines_left = self.params.lines_per_visit;
            }
            st.instr += step;
            let vaddr = BASE_VADDR + st.page * PAGE_BYTES + st.line * LINE_BYTES;
            let kind = if (st.rng.gen::<u32>() as u64) < write_threshold {
                AccessKind::Write
            } else {
                AccessKind::Read
            };
            out.push(Access {
                instr: st.instr,
                vaddr,
                flops: 0,
                size_bytes: 8,
                kind,
            });
            st.line = (st.line + 1) % LINES_PER_PAGE;
            st.lines_left -= 1;
        }
        st.remaining -= n as u64;
        self.state[thread] = st;
        Ok(())
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "synthetic", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_trace::collect_all;

    fn gen(pattern: &str, seed: u64) -> Vec<Vec<Access>> {
        let table: toml::Table = toml::from_str(&format!(
            "threads = 4\npattern = \"{pattern}\"\nfootprint_bytes = 4194304\naccesses_per_thread = 5000"
        ))
        .unwrap();
        let mut src = build(table, seed).unwrap();
        collect_all(&mut src).unwrap()
    }

    #[test]
    fn deterministic_per_seed_and_differs_across_seeds() {
        for p in ["uniform", "zipf", "shared-hot", "private"] {
            assert_eq!(gen(p, 1), gen(p, 1), "{p}");
            assert_ne!(gen(p, 1), gen(p, 2), "{p}");
        }
    }

    #[test]
    fn instructions_increase_and_counts_match() {
        for s in gen("zipf", 3) {
            assert_eq!(s.len(), 5000);
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr));
        }
    }

    #[test]
    fn private_threads_touch_disjoint_pages() {
        let streams = gen("private", 5);
        let pages: Vec<std::collections::HashSet<u64>> = streams
            .iter()
            .map(|s| s.iter().map(|a| a.vaddr >> 12).collect())
            .collect();
        for i in 0..pages.len() {
            for j in i + 1..pages.len() {
                assert!(pages[i].is_disjoint(&pages[j]));
            }
        }
    }

    #[test]
    fn addresses_stay_in_region() {
        for a in gen("uniform", 9).concat() {
            assert!(a.vaddr >= BASE_VADDR && a.vaddr < BASE_VADDR + 4194304);
        }
    }

    #[test]
    fn unknown_parameter_is_refused_with_its_key() {
        let table: toml::Table = toml::from_str("threads = 4\nfootprnt_bytes = 5").unwrap();
        let err = build(table, 1).err().unwrap();
        assert_eq!(err.key, "footprnt_bytes");
        let table: toml::Table = toml::from_str("write_fraction = 2.0").unwrap();
        assert_eq!(build(table, 1).err().unwrap().key, "write_fraction");
    }
}
