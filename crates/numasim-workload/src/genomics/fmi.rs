//! `fmi`: FM-index backward search over a synthetic DNA text (BWA/GenomicsBench's FMI kernel).
//!
//! A random DNA text of `text_len` bases (plus the `$` terminator) is indexed at build time:
//! suffix array → Burrows–Wheeler transform, stored as
//! - `bwt`: 2 bits per base packed in u64 words (32 rows per word; the `$` row is remembered
//!   separately),
//! - `occ`: every 64 rows a checkpoint of the four symbol counts (4×u32 = 16 bytes),
//! - `sa`: the suffix array sampled at every `sa_sample`-th row (u32),
//! - `count`: the C array (rows of suffixes starting with a smaller symbol).
//!
//! `rank(c, i)` reads one checkpoint and the one or two BWT words between it and row i.
//!
//! Each query is a random substring of the text of `query_len` bases with `mutation_rate`
//! random substitutions (so some queries have no occurrence), copied into the thread's query
//! buffer; backward search narrows [sp, ep) with two ranks per base, then up to `max_locate`
//! occurrences are located by walking LF until a sampled row. Queries are split statically.
//! The index is written once (thread 0 for `init = "serial"`, block-wise for `parallel`)
//! and then only read, by every thread: widely shared, read-mostly pages.
//!
//! Cost model: a rank = checkpoint load (3: address arithmetic) + word loads (4 each: shift,
//! mask, popcount) + C load (2); a query base load 2; a locate step 3 per BWT word load plus a
//! rank; SA sample load 3. Integer only.

use super::random_dna;
use crate::npb::Init;
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{private_base, AddressSpace};
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct FmiParams {
        /// number of threads
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        #[doc = Init::doc()]
        init: Init = Init::Serial, unit "-", Check::Any;
        /// bases in the indexed text (build time ~ n log n)
        text_len: usize = 1 << 20, unit "bases", Check::Range(64.0, 67108864.0);
        /// bases per query
        query_len: usize = 32, unit "bases", Check::Range(1.0, 67108864.0);
        /// queries each thread runs
        queries_per_thread: usize = 4000, unit "queries", Check::Range(1.0, u64::MAX as f64);
        /// per-base substitution probability of a query
        mutation_rate: f64 = 0.02, unit "probability", Check::Range(0.0, 1.0);
        /// suffix-array sampling interval (rows)
        sa_sample: usize = 32, unit "rows", Check::Range(1.0, 4096.0);
        /// occurrences located per query at most
        max_locate: usize = 4, unit "occurrences", Check::Range(0.0, u64::MAX as f64);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "fmi",
        summary: "FM-index backward search and locate over a synthetic DNA text (shared read-only index)",
        paper: "StarNUMA §IV-E (FMI)",
        params: FmiParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: FmiParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Fmi::new(p, seed)?, threads)))
}

/// The FM index (also usable on its own, without emitting accesses).
pub struct Index {
    pub text: Vec<u8>,
    bwt: Vec<u64>,
    dollar_row: usize,
    occ: Vec<[u32; 4]>,
    count: [u32; 5],
    sa_samples: Vec<u32>,
    sa_sample: usize,
    rows: usize,
}

impl Index {
    pub fn new(text: Vec<u8>, sa_sample: usize) -> Index {
        let n = text.len();
        let mut sa: Vec<u32> = (0..=n as u32).collect();
        // Suffix n is "$" (smallest). Compare suffixes as byte strings; a proper prefix sorts first.
        sa.sort_unstable_by(|&a, &b| text[a as usize..].cmp(&text[b as usize..]));
        let rows = n + 1;
        let mut bwt = vec![0u64; rows.div_ceil(32)];
        let mut occ = Vec::with_capacity(rows / 64 + 2);
        let mut counts = [0u32; 4];
        let mut dollar_row = 0;
        for (i, &s) in sa.iter().enumerate() {
            if i.is_multiple_of(64) {
                occ.push(counts);
            }
            if s == 0 {
                dollar_row = i;
            } else {
                let c = text[s as usize - 1];
                bwt[i / 32] |= (c as u64) << (2 * (i % 32));
                counts[c as usize] += 1;
            }
        }
        occ.push(counts);
        let mut count = [1u32; 5];
        for c in 0..4 {
            count[c + 1] = count[c] + counts[c];
        }
        let sa_samples = sa.iter().step_by(sa_sample).copied().collect();
        Index {
            text,
            bwt,
            dollar_row,
            occ,
            count,
            sa_samples,
            sa_sample,
            rows,
        }
    }

    #[inline]
    fn sym(&self, i: usize) -> u8 {
        ((self.bwt[i / 32] >> (2 * (i % 32))) & 3) as u8
    }

    /// Occurrences of `c` in bwt[0..i).
    #[inline]
    fn rank(&self, c: u8, i: usize) -> u32 {
        let blk = i / 64;
        let mut r = self.occ[blk][c as usize];
        for k in blk * 64..i {
            if k != self.dollar_row && self.sym(k) == c {
                r += 1;
            }
        }
        r
    }

    /// Rows [sp, ep) of suffixes prefixed by `pattern`.
    pub fn search(&self, pattern: &[u8]) -> (usize, usize) {
        let (mut sp, mut ep) = (0usize, self.rows);
        for &c in pattern.iter().rev() {
            sp = (self.count[c as usize] + self.rank(c, sp)) as usize;
            ep = (self.count[c as usize] + self.rank(c, ep)) as usize;
            if sp >= ep {
                return (sp, sp);
            }
        }
        (sp, ep)
    }

    /// Text position of row `i` (LF walk to a sampled row).
    pub fn locate(&self, mut i: usize) -> usize {
        let mut steps = 0;
        while !i.is_multiple_of(self.sa_sample) {
            if i == self.dollar_row {
                return steps;
            }
            let c = self.sym(i);
            i = (self.count[c as usize] + self.rank(c, i)) as usize;
            steps += 1;
        }
        self.sa_samples[i / self.sa_sample] as usize + steps
    }
}

pub struct Fmi {
    params: FmiParams,
    seed: u64,
    index: Index,
    a_bwt: u64,
    a_occ: u64,
    a_sa: u64,
    a_count: u64,
    query: Vec<Vec<u8>>,
    step: u8,
    /// Occurrence count of every query, in query order.
    pub hits: Vec<u32>,
}

impl Fmi {
    pub fn new(params: FmiParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.query_len <= params.text_len,
            "query_len",
            "must be at most text_len",
        )?;
        let text = random_dna(&mut stream(seed, 0xF0), params.text_len);
        let index = Index::new(text, params.sa_sample);
        let mut space = AddressSpace::new();
        let t = params.threads;
        Ok(Fmi {
            a_bwt: space.alloc(index.bwt.len() as u64 * 8),
            a_occ: space.alloc(index.occ.len() as u64 * 16),
            a_sa: space.alloc(index.sa_samples.len() as u64 * 4),
            a_count: space.alloc(5 * 4),
            index,
            query: vec![Vec::new(); t],
            hits: vec![0; t * params.queries_per_thread],
            params,
            seed,
            step: 0,
        })
    }

    /// The index (tests compare against naive search).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The query of number `q` (deterministic in the seed and q, not in the thread).
    pub fn make_query(&self, q: usize) -> Vec<u8> {
        let mut rng = stream(self.seed, 0xF1_0000_0000 + q as u64);
        let start = rng.gen_range(0..=self.params.text_len - self.params.query_len);
        let mut v = self.index.text[start..start + self.params.query_len].to_vec();
        for b in v.iter_mut() {
            if rng.gen_bool(self.params.mutation_rate) {
                *b = rng.gen_range(0..4u8);
            }
        }
        v
    }

    fn rank_e(&self, c: u8, i: usize, e: &mut Emitter) -> u32 {
        let blk = i / 64;
        e.read(2, self.a_count + c as u64 * 4, 4);
        e.read(3, self.a_occ + blk as u64 * 16 + c as u64 * 4, 4);
        let first = blk * 2;
        let last = i.div_ceil(32).max(first + 1);
        for w in first..last.min(first + 2) {
            e.read(4, self.a_bwt + w as u64 * 8, 8);
        }
        self.index.rank(c, i)
    }
}

impl Kernel for Fmi {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        match self.step {
            // Index construction's output: items are 64-row blocks.
            1 => Some(Loop {
                items: self.index.occ.len(),
                sched: self.params.init.sched(),
            }),
            2 => Some(Loop {
                items: self.params.threads * self.params.queries_per_thread,
                sched: Sched::Static,
            }),
            _ => None,
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        if self.step == 1 {
            for blk in lo..hi {
                for c in 0..4 {
                    e.write(2, self.a_occ + blk as u64 * 16 + c * 4, 4);
                }
                for w in blk * 2..(blk * 2 + 2).min(self.index.bwt.len()) {
                    e.write(2, self.a_bwt + w as u64 * 8, 8);
                }
                let s = self.index.sa_sample;
                for r in (blk * 64..(blk * 64 + 64).min(self.index.rows)).filter(|r| r.is_multiple_of(s)) {
                    e.write(2, self.a_sa + (r / s) as u64 * 4, 4);
                }
                if blk == 0 {
                    for c in 0..5 {
                        e.write(2, self.a_count + c * 4, 4);
                    }
                }
            }
            return;
        }
        let qbuf = private_base(t);
        for q in lo..hi {
            let pattern = self.make_query(q);
            for (i, _) in pattern.iter().enumerate() {
                e.write(2, qbuf + i as u64, 1);
            }
            let (mut sp, mut ep) = (0usize, self.index.rows);
            for (i, &c) in pattern.iter().enumerate().rev() {
                e.read(2, qbuf + i as u64, 1);
                sp = (self.index.count[c as usize] + self.rank_e(c, sp, e)) as usize;
                ep = (self.index.count[c as usize] + self.rank_e(c, ep, e)) as usize;
                if sp >= ep {
                    ep = sp;
                    break;
                }
            }
            self.hits[q] = (ep - sp) as u32;
            for row in sp..ep.min(sp + self.params.max_locate) {
                let mut i = row;
                while !i.is_multiple_of(self.index.sa_sample) && i != self.index.dollar_row {
                    e.read(3, self.a_bwt + (i / 32) as u64 * 8, 8);
                    let c = self.index.sym(i);
                    i = (self.index.count[c as usize] + self.rank_e(c, i, e)) as usize;
                }
                if i.is_multiple_of(self.index.sa_sample) {
                    e.read(3, self.a_sa + (i / self.index.sa_sample) as u64 * 4, 4);
                }
            }
            self.query[t] = pattern;
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "fmi", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};

    const SMALL: &str = "threads = 3\ntext_len = 4000\nquery_len = 8\nqueries_per_thread = 50\nmutation_rate = 0.1";

    fn naive(text: &[u8], p: &[u8]) -> Vec<usize> {
        (0..=text.len() - p.len())
            .filter(|&i| &text[i..i + p.len()] == p)
            .collect()
    }

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
    }

    #[test]
    fn search_and_locate_match_naive_search() {
        let mut rng = stream(1, 1);
        let text = random_dna(&mut rng, 3000);
        let idx = Index::new(text.clone(), 8);
        for len in [1, 2, 5, 7, 12] {
            for _ in 0..40 {
                let start = rng.gen_range(0..text.len() - len);
                let mut p = text[start..start + len].to_vec();
                if rng.gen_bool(0.3) {
                    p[0] = rng.gen_range(0..4);
                }
                let want = naive(&text, &p);
                let (sp, ep) = idx.search(&p);
                assert_eq!(ep - sp, want.len(), "len {len}");
                let mut got: Vec<usize> = (sp..ep).map(|r| idx.locate(r)).collect();
                got.sort_unstable();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn generator_hits_match_naive_counts() {
        let p: FmiParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
        let mut src = OmpSource::new(Fmi::new(p, 4).unwrap(), 3);
        src.run_to_end();
        let k = src.kernel();
        let mut zero = 0;
        for q in 0..150 {
            let pat = k.make_query(q);
            let n = naive(&k.index().text, &pat).len();
            assert_eq!(k.hits[q] as usize, n, "query {q}");
            zero += usize::from(n == 0);
        }
        assert!(zero < 150);
    }
}
