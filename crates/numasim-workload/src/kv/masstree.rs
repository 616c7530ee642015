//! `masstree`: a Masstree-like in-memory key-value store — a B+-tree index over `keys` 64-bit
//! keys plus a value area — serving gets and puts from every thread.
//!
//! The tree is built bottom-up at load time: leaves hold `fanout`·3/4 sorted keys (room for
//! inserts, as after a bulk load), interior nodes `fanout`·3/4 children. A node is laid out as
//! Masstree's border/interior nodes are: a version word, `fanout` keys and `fanout` child (or
//! value) pointers, padded to whole cache lines; all nodes live in one node area, values
//! (`value_bytes` each) in a value area. Each operation picks a key — uniformly, or by a Zipf
//! law of exponent `zipf_exponent` over a seeded permutation so hot keys are scattered — and
//! descends from the root: at every node it reads the version, binary-searches the keys and
//! reads the chosen child pointer; at the leaf it reads the value pointer, then reads the
//! value (`get`, probability `read_fraction`) or locks the leaf (version write), writes the
//! value and unlocks (`put`, in place: no structural change). The load phase writes every
//! node and value (static split: each thread loads a slice), then each thread runs
//! `ops_per_thread` operations. Root and upper levels are read by everyone; leaves and values
//! are shared according to the key distribution.
//!
//! Cost model: version load 3 (load + fence/compare), key probe 4 (load, compare, branch,
//! index update), child pointer load 2, value line load 2 (8 B of every 64 B line: the copy's
//! loads), value line store 2, version store 3 (lock/unlock), per-operation key generation 20.

use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::{stream, Rng};
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::AddressSpace;
use numasim_trace::AccessSource;
use rand::Rng as _;
use rand_distr::{Distribution, Zipf};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum KeyDistribution {
    #[default]
    Uniform,
    Zipf,
}

impl numasim_config::param::ParamKind for KeyDistribution {}

numasim_config::declare_params! {
    pub section struct MasstreeParams {
        /// number of threads
        threads: usize = 16, unit "threads", Check::Range(1.0, 4096.0);
        /// keys in the store
        keys: usize = 1 << 20, unit "keys", Check::Range(16.0, 268435456.0);
        /// uniform | zipf
        key_distribution: KeyDistribution = KeyDistribution::Uniform, unit "-", Check::Any;
        /// Zipf exponent for key_distribution = zipf
        zipf_exponent: f64 = 0.99, unit "-", Check::Above(0.0, f64::MAX);
        /// share of operations that are gets
        read_fraction: f64 = 0.5, unit "fraction", Check::Range(0.0, 1.0);
        /// operations each thread runs
        ops_per_thread: usize = 50_000, unit "operations", Check::Range(0.0, u64::MAX as f64);
        /// bytes per value (multiple of 8)
        value_bytes: u64 = 64, unit "bytes", Check::Range(8.0, 65536.0);
        /// keys per node (Masstree: 15)
        fanout: usize = 15, unit "keys per node", Check::Range(4.0, 256.0);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "masstree",
        summary: "Masstree-like KV store: B+-tree descent, get/put of values, uniform or zipf keys",
        paper: "StarNUMA §IV-E (Masstree)",
        params: MasstreeParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: MasstreeParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Masstree::new(p, seed)?, threads)))
}

struct Node {
    keys: Vec<u64>,
    /// Child node ids (interior) or value ids (leaf).
    children: Vec<u32>,
    leaf: bool,
}

pub struct Masstree {
    params: MasstreeParams,
    seed: u64,
    keys: Vec<u64>,
    perm: Vec<u32>,
    nodes: Vec<Node>,
    root: usize,
    node_bytes: u64,
    a_nodes: u64,
    a_values: u64,
    rngs: Vec<Rng>,
    zipf: Option<Zipf<f64>>,
    step: u8,
    /// Operations whose lookup found the requested key (all of them, if the tree is right).
    pub found: u64,
    /// Operations run.
    pub ops: u64,
}

impl Masstree {
    pub fn new(params: MasstreeParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.value_bytes.is_multiple_of(8),
            "value_bytes",
            "must be a multiple of 8",
        )?;
        let mut rng = stream(seed, 0x3A55);
        let mut keys: Vec<u64> = (0..params.keys).map(|_| rng.gen()).collect();
        keys.sort_unstable();
        keys.dedup();
        let n = keys.len();
        let fill = params.fanout * 3 / 4;
        let mut nodes = Vec::new();
        // Leaves, then interior levels; a node's separator keys are its children's first keys.
        let mut level: Vec<(u64, u32)> = Vec::new();
        for chunk_start in (0..n).step_by(fill) {
            let end = (chunk_start + fill).min(n);
            level.push((keys[chunk_start], nodes.len() as u32));
            nodes.push(Node {
                keys: keys[chunk_start..end].to_vec(),
                children: (chunk_start as u32..end as u32).collect(),
                leaf: true,
            });
        }
        while level.len() > 1 {
            let mut up = Vec::new();
            for chunk in level.chunks(fill) {
                up.push((chunk[0].0, nodes.len() as u32));
                nodes.push(Node {
                    keys: chunk.iter().map(|c| c.0).collect(),
                    children: chunk.iter().map(|c| c.1).collect(),
                    leaf: false,
                });
            }
            level = up;
        }
        let root = level[0].1 as usize;
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.gen_range(0..=i));
        }
        let node_bytes = (8 + 16 * params.fanout as u64).div_ceil(64) * 64;
        let mut space = AddressSpace::new();
        let zipf = match params.key_distribution {
            KeyDistribution::Uniform => None,
            KeyDistribution::Zipf => Some(Zipf::new(n as u64, params.zipf_exponent).map_err(|e| WorkloadError {
                key: "zipf_exponent".into(),
                message: e.to_string(),
            })?),
        };
        Ok(Masstree {
            a_nodes: space.alloc(nodes.len() as u64 * node_bytes),
            a_values: space.alloc(n as u64 * params.value_bytes),
            rngs: (0..params.threads)
                .map(|t| stream(seed, 0x3A56_0000 + t as u64))
                .collect(),
            keys,
            perm,
            nodes,
            root,
            node_bytes,
            zipf,
            params,
            seed,
            step: 0,
            found: 0,
            ops: 0,
        })
    }

    #[inline]
    fn node_addr(&self, id: usize) -> u64 {
        self.a_nodes + id as u64 * self.node_bytes
    }
}

impl Kernel for Masstree {
    fn next_loop(&mut self) -> Option<Loop> {
        self.step += 1;
        match self.step {
            1 => Some(Loop {
                items: self.nodes.len(),
                sched: Sched::Static,
            }),
            2 => Some(Loop {
                items: self.params.threads * self.params.ops_per_thread,
                sched: Sched::Static,
            }),
            _ => None,
        }
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        let fanout = self.params.fanout as u64;
        let vb = self.params.value_bytes;
        if self.step == 1 {
            for id in lo..hi {
                let a = self.node_addr(id);
                let node = &self.nodes[id];
                e.write(2, a, 8);
                for k in 0..node.keys.len() as u64 {
                    e.write(2, a + 8 + k * 8, 8);
                    e.write(2, a + 8 + fanout * 8 + k * 8, 8);
                }
                if node.leaf {
                    for &v in &node.children {
                        for off in (0..vb).step_by(8) {
                            e.write(2, self.a_values + v as u64 * vb + off, 8);
                        }
                    }
                }
            }
            return;
        }
        for _ in lo..hi {
            let rng = &mut self.rngs[t];
            let rank = match &self.zipf {
                Some(z) => z.sample(rng) as usize - 1,
                None => rng.gen_range(0..self.keys.len()),
            };
            let is_get = rng.gen_bool(self.params.read_fraction);
            let key = self.keys[self.perm[rank.min(self.keys.len() - 1)] as usize];
            e.compute(20);
            let mut id = self.root;
            loop {
                let a = self.node_addr(id);
                let node = &self.nodes[id];
                e.read(3, a, 8);
                // Binary search for the last key <= `key`, reading every probed key.
                let (mut lo_k, mut hi_k) = (0usize, node.keys.len());
                while hi_k - lo_k > 1 {
                    let mid = (lo_k + hi_k) / 2;
                    e.read(4, a + 8 + mid as u64 * 8, 8);
                    if node.keys[mid] <= key {
                        lo_k = mid;
                    } else {
                        hi_k = mid;
                    }
                }
                if node.leaf {
                    e.read(4, a + 8 + lo_k as u64 * 8, 8);
                }
                e.read(2, a + 8 + fanout * 8 + lo_k as u64 * 8, 8);
                let child = node.children[lo_k] as usize;
                if !node.leaf {
                    id = child;
                    continue;
                }
                self.ops += 1;
                if node.keys[lo_k] == key {
                    self.found += 1;
                }
                let va = self.a_values + child as u64 * vb;
                if is_get {
                    for off in (0..vb).step_by(64) {
                        e.read(2, va + off, 8);
                    }
                } else {
                    e.write(3, a, 8);
                    for off in (0..vb).step_by(64) {
                        e.write(2, va + off, 8);
                    }
                    e.write(3, a, 8);
                }
                break;
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "masstree", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};

    const SMALL: &str = "threads = 4\nkeys = 20000\nops_per_thread = 2000";

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), SMALL);
        check_generator(
            via(build),
            &format!("{SMALL}\nkey_distribution = \"zipf\"\nread_fraction = 0.9"),
        );
    }

    #[test]
    fn every_lookup_finds_its_key() {
        let p: MasstreeParams = parse(toml::from_str(SMALL).unwrap()).unwrap();
        let mut src = OmpSource::new(Masstree::new(p, 7).unwrap(), 4);
        src.run_to_end();
        assert_eq!(src.kernel().ops, 8000);
        assert_eq!(src.kernel().found, 8000);
    }

    #[test]
    fn zipf_concentrates_value_accesses() {
        // Distinct values (lines) read by the operations: a skewed key choice touches far fewer.
        let distinct = |dist: &str| {
            let text = format!("{SMALL}\nkey_distribution = \"{dist}\"\nread_fraction = 1.0");
            let p: MasstreeParams = parse(toml::from_str(&text).unwrap()).unwrap();
            let mut src = OmpSource::new(Masstree::new(p, 3).unwrap(), 4);
            let all = numasim_trace::collect_all(&mut src).unwrap();
            let base = src.kernel().a_values;
            let pages: std::collections::HashSet<u64> = all
                .iter()
                .flatten()
                .filter(|a| !a.is_write() && a.vaddr >= base)
                .map(|a| a.vaddr / 64)
                .collect();
            pages.len()
        };
        let (u, z) = (distinct("uniform"), distinct("zipf"));
        assert!((z as f64) < 0.7 * u as f64, "zipf {z} distinct values vs uniform {u}");
    }
}
