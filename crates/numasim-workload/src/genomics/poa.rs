//! `poa`: partial-order alignment (the consensus kernel of long-read assemblers).
//!
//! Each thread owns a partial-order graph (a DAG of bases: a random backbone of
//! `graph_nodes` bases with a bubble — an alternative base — at about one position in ten)
//! and aligns its `reads_per_thread` reads against it, as racon/spoa-style POA does per
//! window. A read is a copy of a random stretch of the backbone with `error_rate`
//! substitutions/insertions/deletions. For each read the thread fills a local-alignment DP
//! matrix `H[(nodes+1)×(len+1)]` (i32) in topological order — `H[v][j] = max(0, H[p][j−1] + s,
//! H[p][j] + gap, H[v][j−1] + gap)` over the predecessors p of v — then traces back from the best
//! cell and adds the read to the graph by incrementing the weights of the aligned nodes (a
//! structural fusion of new nodes is left out: it would not change the sharing pattern).
//!
//! Data: graph arrays (`base` u8, `pred_start` u32, `preds` u32, `weight` u32) and the DP
//! matrix are thread-private (each thread's in its own region, first touched by the thread);
//! the only shared array is the input `reads` (u8), written by thread 0 and read once per read
//! by the aligning thread, which copies (encodes) it into a private buffer as spoa does. So
//! nearly all accesses go to pages a single thread touches.
//!
//! Cost model: per DP cell, for each predecessor: pred index load (2), `H[p][j−1]` and `H[p][j]`
//! loads (2 each, add/max), node base load once per row (2), read base load per cell (2),
//! `H[v][j]` store (4: the two max with the left neighbour kept in a register); traceback step 6
//! per H load. Integer only.

use crate::genomics::random_dna;
use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{private_base, AddressSpace};
use numasim_trace::AccessSource;
use rand::Rng as _;

numasim_config::declare_params! {
    pub section struct PoaParams {
        /// number of threads
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// backbone length of each thread's graph
        graph_nodes: usize = 400, unit "nodes", Check::Range(2.0, 100000.0);
        /// bases per read (<= graph_nodes)
        read_len: usize = 200, unit "bases", Check::Range(1.0, 100000.0);
        /// reads each thread aligns
        reads_per_thread: usize = 8, unit "reads", Check::Range(1.0, u64::MAX as f64);
        /// per-base sequencing error probability
        error_rate: f64 = 0.1, unit "probability", Check::Range(0.0, 0.5);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "poa",
        summary: "partial-order alignment: each thread aligns reads to its own graph (private DP)",
        paper: "StarNUMA §IV-E (POA)",
        params: PoaParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: PoaParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Poa::new(p, seed)?, threads)))
}

const MATCH: i32 = 2;
const MISMATCH: i32 = -4;
const GAP: i32 = -4;

struct Graph {
    base: Vec<u8>,
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    weight: Vec<u32>,
    a_base: u64,
    a_pred_start: u64,
    a_preds: u64,
    a_weight: u64,
    a_h: u64,
}

pub struct Poa {
    params: PoaParams,
    seed: u64,
    graphs: Vec<Graph>,
    reads: Vec<u8>,
    a_reads: u64,
    h: Vec<Vec<i32>>,
    best: Vec<(i32, usize, usize)>,
    step: u8,
    /// Best local-alignment score of every read, in read order.
    pub scores: Vec<i32>,
}

impl Poa {
    pub fn new(params: PoaParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.read_len <= params.graph_nodes,
            "read_len",
            "must be at most graph_nodes",
        )?;
        let t = params.threads;
        let mut graphs = Vec::with_capacity(t);
        let mut reads = Vec::with_capacity(t * params.reads_per_thread * params.read_len);
        for th in 0..t {
            let mut rng = stream(seed, 0x90A0_0000 + th as u64);
            let backbone = random_dna(&mut rng, params.graph_nodes);
            let (mut base, mut pred_start, mut preds) = (Vec::new(), vec![0u32], Vec::new());
            let mut prev: Vec<u32> = Vec::new();
            for &b in &backbone {
                let me = base.len() as u32;
                base.push(b);
                preds.extend_from_slice(&prev);
                pred_start.push(preds.len() as u32);
                let mut next = vec![me];
                if rng.gen_bool(0.1) {
                    base.push((b + rng.gen_range(1..4u8)) % 4);
                    preds.extend_from_slice(&prev);
                    pred_start.push(preds.len() as u32);
                    next.push(me + 1);
                }
                prev = next;
            }
            let nodes = base.len();
            for _ in 0..params.reads_per_thread {
                let start = rng.gen_range(0..=params.graph_nodes - params.read_len);
                let mut read = Vec::with_capacity(params.read_len);
                let mut i = start;
                while read.len() < params.read_len {
                    let b = backbone[i.min(params.graph_nodes - 1)];
                    if rng.gen_bool(params.error_rate) {
                        match rng.gen_range(0..3) {
                            0 => read.push((b + rng.gen_range(1..4u8)) % 4),
                            1 => read.push(rng.gen_range(0..4u8)), // insertion
                            _ => {}                                // deletion
                        }
                        if read.len() < params.read_len && rng.gen_bool(0.5) {
                            i += 1;
                        }
                    } else {
                        read.push(b);
                        i += 1;
                    }
                }
                reads.extend_from_slice(&read);
            }
            let pb = private_base(th);
            let cols = params.read_len as u64 + 1;
            graphs.push(Graph {
                a_base: pb,
                a_pred_start: pb + (1 << 24),
                a_preds: pb + (2 << 24),
                a_weight: pb + (3 << 24),
                a_h: pb + (4 << 24),
                weight: vec![1; nodes],
                base,
                pred_start,
                preds,
            });
            let _ = cols;
        }
        let mut space = AddressSpace::new();
        let h = graphs
            .iter()
            .map(|g| vec![0; (g.base.len() + 1) * (params.read_len + 1)])
            .collect();
        Ok(Poa {
            a_reads: space.alloc(reads.len() as u64),
            reads,
            h,
            best: vec![(0, 0, 0); t],
            graphs,
            scores: vec![0; t * params.reads_per_thread],
            params,
            seed,
            step: 0,
        })
    }

    fn rows(&self) -> usize {
        // Per read: row 0 (clear), one row per node, one traceback item.
        self.graphs.iter().map(|g| g.base.len()).max().unwrap_or(0) + 2
    }
}

impl Kernel for Poa {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        let t = self.params.threads;
        match self.step {
            1 => Some(Loop {
                items: 1,
                sched: Sched::Serial,
            }),
            2 => Some(Loop {
                items: t,
                sched: Sched::PerThread,
            }),
            3 => Some(Loop {
                items: t * self.params.reads_per_thread * self.rows(),
                sched: Sched::Static,
            }),
            _ => None,
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let m = self.params.read_len;
        match self.step {
            1 => {
                for i in 0..self.reads.len() {
                    e.write(2, self.a_reads + i as u64, 1);
                }
            }
            2 => {
                for u in lo..hi {
                    let g = &self.graphs[u];
                    for v in 0..g.base.len() {
                        e.write(2, g.a_base + v as u64, 1);
                        e.write(2, g.a_weight + v as u64 * 4, 4);
                        e.write(2, g.a_pred_start + (v as u64 + 1) * 4, 4);
                    }
                    for k in 0..g.preds.len() {
                        e.write(2, g.a_preds + k as u64 * 4, 4);
                    }
                }
            }
            _ => {
                let rows = self.rows();
                let cols = m + 1;
                for item in lo..hi {
                    let (read_idx, row) = (item / rows, item % rows);
                    let g = &mut self.graphs[t];
                    let h = &mut self.h[t];
                    let nodes = g.base.len();
                    let read = &self.reads[read_idx * m..(read_idx + 1) * m];
                    // The read's encoded private copy (spoa encodes each sequence into its own
                    // buffer before aligning); the shared input is read once, at row 0.
                    let a_read = g.a_h - (1 << 20);
                    let hc = |v: usize, j: usize| g.a_h + ((v * cols + j) * 4) as u64;
                    if row == 0 {
                        for j in 0..m {
                            e.read(2, self.a_reads + (read_idx * m + j) as u64, 1);
                            e.write(2, a_read + j as u64, 1);
                        }
                        for (j, cell) in h[..cols].iter_mut().enumerate() {
                            *cell = 0;
                            e.write(2, hc(0, j), 4);
                        }
                        self.best[t] = (0, 0, 0);
                    } else if row <= nodes {
                        // Node v = row - 1 lives in H row `row`; predecessors p in row p + 1
                        // (no predecessors: row 0, the empty prefix).
                        let v = row - 1;
                        e.read(2, g.a_base + v as u64, 1);
                        e.read(2, g.a_pred_start + v as u64 * 4, 4);
                        e.read(2, g.a_pred_start + (v as u64 + 1) * 4, 4);
                        let (ps, pe) = (g.pred_start[v] as usize, g.pred_start[v + 1] as usize);
                        h[row * cols] = 0;
                        e.write(2, hc(row, 0), 4);
                        for j in 1..cols {
                            e.read(2, a_read + (j - 1) as u64, 1);
                            let s = if read[j - 1] == g.base[v] { MATCH } else { MISMATCH };
                            let mut best = (h[row * cols + j - 1] + GAP).max(0);
                            let mut prow_list = [0usize; 4];
                            let np = if ps == pe {
                                prow_list[0] = 0;
                                1
                            } else {
                                for (k, &p) in g.preds[ps..pe].iter().enumerate().take(4) {
                                    prow_list[k] = p as usize + 1;
                                }
                                (pe - ps).min(4)
                            };
                            for (k, &pr) in prow_list[..np].iter().enumerate() {
                                if ps != pe {
                                    e.read(2, g.a_preds + (ps + k) as u64 * 4, 4);
                                }
                                e.read(2, hc(pr, j - 1), 4);
                                e.read(2, hc(pr, j), 4);
                                best = best.max(h[pr * cols + j - 1] + s).max(h[pr * cols + j] + GAP);
                            }
                            h[row * cols + j] = best;
                            e.write(4, hc(row, j), 4);
                            if best > self.best[t].0 {
                                self.best[t] = (best, row, j);
                            }
                        }
                    } else {
                        // Traceback from the best cell, adding the read's support to the graph.
                        let (score, mut r, mut j) = self.best[t];
                        self.scores[read_idx] = score;
                        while r > 0 && j > 0 && h[r * cols + j] > 0 {
                            let v = r - 1;
                            e.read(6, hc(r, j), 4);
                            let (ps, pe) = (g.pred_start[v] as usize, g.pred_start[v + 1] as usize);
                            let s = if read[j - 1] == g.base[v] { MATCH } else { MISMATCH };
                            let cur = h[r * cols + j];
                            let prows: Vec<usize> = if ps == pe {
                                vec![0]
                            } else {
                                g.preds[ps..pe].iter().map(|&p| p as usize + 1).collect()
                            };
                            if let Some(&pr) = prows.iter().find(|&&pr| h[pr * cols + j - 1] + s == cur) {
                                g.weight[v] += 1;
                                e.read(2, g.a_weight + v as u64 * 4, 4);
                                e.write(2, g.a_weight + v as u64 * 4, 4);
                                r = pr;
                                j -= 1;
                            } else if let Some(&pr) = prows.iter().find(|&&pr| h[pr * cols + j] + GAP == cur) {
                                r = pr;
                            } else {
                                j -= 1;
                            }
                        }
                    }
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "poa", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, single_thread_page_access_fraction, via};

    const SMALL: &str = "threads = 4\ngraph_nodes = 120\nread_len = 60\nreads_per_thread = 3";

    #[test]
    fn deterministic_monotonic_and_mostly_private() {
        let all = check_generator(via(build), SMALL);
        let f = single_thread_page_access_fraction(&all);
        assert!(f > 0.95, "{f}");
    }

    #[test]
    fn exact_reads_score_full_match() {
        let p = PoaParams {
            threads: 2,
            graph_nodes: 80,
            read_len: 40,
            reads_per_thread: 2,
            error_rate: 0.0,
        };
        let mut src = OmpSource::new(Poa::new(p, 3).unwrap(), 2);
        src.run_to_end();
        assert!(
            src.kernel().scores.iter().all(|&s| s == 40 * MATCH),
            "{:?}",
            src.kernel().scores
        );
        // Every aligned base added weight to the graph.
        let w: u32 = src.kernel().graphs.iter().flat_map(|g| g.weight.iter()).sum();
        let nodes: usize = src.kernel().graphs.iter().map(|g| g.base.len()).sum();
        assert_eq!(w as usize, nodes + 4 * 40);
    }
}
