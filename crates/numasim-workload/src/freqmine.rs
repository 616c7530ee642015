//! `freqmine`: a Freqmine-like frequent-itemset miner (FP-growth on a transaction database,
//! OpenMP), the PARSEC program Zaourar et al. (§4.3) run as a *balanced* application.
//!
//! Why this shape: what matters to NUMA placement is who first touches which data and who
//! reads it later. Here every structure is first touched by the thread that builds it in a
//! parallel loop (the database by a static split of the transactions, each thread's FP-tree by
//! that thread), and the mining loop, dynamically scheduled over the frequent items, reads
//! every thread's tree, so memory traffic spreads over every node: the balanced case.
//! It is Freqmine-*like*, not a port: one level of conditional mining, hashed child lookup, no
//! pattern output.
//!
//! Data (shared region): the database in CSR form (`offsets`, u32 `items`), the global item
//! `counts` (u64), `rank` (u32: the item's position by descending support, or none), the
//! per-thread tree `heads` (u64 per thread and item: the first node of the item's node-link
//! list) and one node pool per thread (48-byte nodes: item, count, parent, node-link, child
//! table slot). Thread-private: local item counts and the conditional pattern base buffer.
//!
//! Loops (a barrier after each): (0) static over transactions: load (write the offsets and
//! items); (1) static over transactions: count (read each item, increment a thread-local
//! count); (2) static over items: reduce the local counts into `counts` and write `rank`;
//! (3) static over transactions: each thread inserts its transactions, frequent items sorted
//! by rank, into its own FP-tree (read the node, look up the child, increment or create it;
//! a new node is pushed on the item's node-link list); (4) dynamic (chunk 1) over the frequent
//! items, least frequent first: for every thread's tree, follow the item's node-link list and
//! walk each node's path to the root, writing the path into the private pattern base; then
//! count the base's items in private counts (the conditional tree's first scan).
//!
//! Transactions are drawn per transaction from the seed (length uniform in 1..=2·avg−1, items
//! by a Zipf law over a seeded permutation), so the database does not depend on `threads`.
//! Cost model: a read or write 2 instructions, a child lookup 6, sorting a transaction
//! 4 per item.

use crate::omp::{Kernel, Loop, OmpSource, Sched};
use crate::params::{check, parse};
use crate::registry::{GeneratorInfo, WorkloadError};
use crate::rng::stream;
use crate::thread_emit::ThreadEmitter as Emitter;
use crate::vspace::{private_base, AddressSpace};
use numasim_trace::AccessSource;
use rand::Rng as _;
use std::collections::HashMap;

numasim_config::declare_params! {
    pub section struct FreqmineParams {
        /// OpenMP threads (access streams)
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// transactions in the database
        transactions: usize = 20_000, unit "transactions", Check::Range(1.0, 16777216.0);
        /// distinct items
        items: usize = 1000, unit "items", Check::Range(1.0, 1048576.0);
        /// mean items per transaction (lengths uniform in 1..=2 avg - 1)
        avg_length: usize = 10, unit "items", Check::Range(1.0, 1000.0);
        /// Zipf exponent of item popularity
        zipf_exponent: f64 = 0.8, unit "-", Check::Range(0.0, 4.0);
        /// an item is frequent when it is in at least this fraction of the transactions
        min_support: f64 = 0.005, unit "fraction", Check::Above(0.0, 1.0);
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "freqmine",
        summary: "Freqmine-like FP-growth: parallel database load and count, per-thread FP-trees, dynamic mining over every tree",
        paper: "Zaourar et al. §4.3 (PARSEC Freqmine, a balanced application)",
        params: FreqmineParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: FreqmineParams = parse(table)?;
    Ok(Box::new(source(p, seed)?))
}

const NODE_BYTES: u64 = 48;
const NO_RANK: u32 = u32::MAX;
/// A read or write; a child lookup (hash of node and item, probe); sorting, per item.
const ACCESS: u64 = 2;
const LOOKUP: u64 = 6;
const SORT: u64 = 4;

pub fn source(p: FreqmineParams, seed: u64) -> Result<OmpSource<Freqmine>, WorkloadError> {
    crate::params::in_range(&p)?;
    check(
        p.transactions as u64 * (2 * p.avg_length as u64) <= 1 << 28,
        "transactions",
        "transactions x 2 avg_length must be at most 2^28 items",
    )?;
    // Zipf over a seeded permutation of the items: cumulative weights, then inverse sampling.
    let mut perm: Vec<u32> = (0..p.items as u32).collect();
    let mut r = stream(seed, u64::MAX);
    for i in (1..perm.len()).rev() {
        perm.swap(i, r.gen_range(0..=i));
    }
    let mut cdf = Vec::with_capacity(p.items);
    let mut sum = 0.0;
    for k in 0..p.items {
        sum += 1.0 / ((k + 1) as f64).powf(p.zipf_exponent);
        cdf.push(sum);
    }
    let mut offsets = Vec::with_capacity(p.transactions + 1);
    let mut items = Vec::new();
    offsets.push(0u32);
    let mut seen = vec![u32::MAX; p.items];
    for tx in 0..p.transactions {
        let mut r = stream(seed, tx as u64);
        let len = r.gen_range(1..=2 * p.avg_length - 1);
        for _ in 0..len {
            let u = r.gen::<f64>() * sum;
            let k = cdf.partition_point(|&c| c < u).min(p.items - 1);
            let item = perm[k];
            // An item appears once per transaction.
            if seen[item as usize] != tx as u32 {
                seen[item as usize] = tx as u32;
                items.push(item);
            }
        }
        offsets.push(items.len() as u32);
    }
    let mut space = AddressSpace::new();
    let n_items = p.items as u64;
    let threads = p.threads;
    let addr = Layout {
        offsets: space.alloc((p.transactions as u64 + 1) * 4),
        items: space.alloc(items.len() as u64 * 4),
        counts: space.alloc(n_items * 8),
        rank: space.alloc(n_items * 4),
        heads: space.alloc(threads as u64 * n_items * 8),
        // Each thread's pool holds at most its transactions' items (+ the root).
        pools: space.alloc((items.len() as u64 + threads as u64) * NODE_BYTES),
    };
    Ok(OmpSource::new(
        Freqmine {
            addr,
            offsets,
            items,
            local: vec![vec![0; p.items]; threads],
            counts: vec![0; p.items],
            rank: vec![NO_RANK; p.items],
            frequent: Vec::new(),
            trees: Vec::new(),
            pool_start: Vec::new(),
            base: vec![Vec::new(); threads],
            step: 0,
            p,
        },
        threads,
    ))
}

struct Layout {
    offsets: u64,
    items: u64,
    counts: u64,
    rank: u64,
    heads: u64,
    pools: u64,
}

/// One thread's FP-tree: node 0 is the root.
#[derive(Debug, Default, Clone)]
struct Tree {
    item: Vec<u32>,
    count: Vec<u32>,
    parent: Vec<u32>,
    /// Next node of the same item (node-link), or `u32::MAX`.
    link: Vec<u32>,
    child: HashMap<(u32, u32), u32>,
    /// Per item rank: the first node of its node-link list.
    head: HashMap<u32, u32>,
}

pub struct Freqmine {
    addr: Layout,
    offsets: Vec<u32>,
    items: Vec<u32>,
    local: Vec<Vec<u64>>,
    counts: Vec<u64>,
    rank: Vec<u32>,
    /// Frequent items by descending support.
    frequent: Vec<u32>,
    trees: Vec<Tree>,
    /// First node index of each thread's pool.
    pool_start: Vec<u64>,
    /// Each thread's conditional pattern base (items of the paths it collected).
    base: Vec<Vec<u32>>,
    step: u32,
    p: FreqmineParams,
}

impl Freqmine {
    fn node(&self, t: usize, n: u32) -> u64 {
        self.addr.pools + (self.pool_start[t] + u64::from(n)) * NODE_BYTES
    }

    fn head(&self, t: usize, item: u32) -> u64 {
        self.addr.heads + (t as u64 * self.p.items as u64 + u64::from(item)) * 8
    }

    /// Frequent items by descending support (known once the reduction has run).
    pub fn frequent_items(&self) -> &[u32] {
        &self.frequent
    }

    fn rank_items(&mut self) {
        let min = (self.p.min_support * self.p.transactions as f64).ceil().max(1.0) as u64;
        let mut f: Vec<u32> = (0..self.p.items as u32)
            .filter(|&i| self.counts[i as usize] >= min)
            .collect();
        f.sort_by_key(|&i| (std::cmp::Reverse(self.counts[i as usize]), i));
        for (r, &i) in f.iter().enumerate() {
            self.rank[i as usize] = r as u32;
        }
        self.frequent = f;
        // Pools: thread t's starts after the items of the transactions before its static share.
        let threads = self.local.len();
        self.trees = vec![Tree::default(); threads];
        self.pool_start = (0..threads)
            .map(|t| {
                let lo = crate::npb::static_range(self.p.transactions, threads, t).start;
                u64::from(self.offsets[lo]) + t as u64
            })
            .collect();
        for tree in &mut self.trees {
            tree.item.push(u32::MAX);
            tree.count.push(0);
            tree.parent.push(u32::MAX);
            tree.link.push(u32::MAX);
        }
    }

    fn insert(&mut self, t: usize, tx: usize, e: &mut Emitter) {
        let (lo, hi) = (self.offsets[tx] as usize, self.offsets[tx + 1] as usize);
        e.read(ACCESS, self.addr.offsets + tx as u64 * 4, 4);
        let mut path: Vec<(u32, u32)> = Vec::with_capacity(hi - lo);
        for k in lo..hi {
            let item = self.items[k];
            e.read(ACCESS, self.addr.items + k as u64 * 4, 4);
            e.read(ACCESS, self.addr.rank + u64::from(item) * 4, 4);
            let r = self.rank[item as usize];
            if r != NO_RANK {
                path.push((r, item));
            }
        }
        e.compute(SORT * path.len() as u64);
        path.sort_unstable();
        let mut cur = 0u32;
        for &(_, item) in &path {
            e.read(LOOKUP, self.node(t, cur), 8);
            let tree = &mut self.trees[t];
            let next = match tree.child.get(&(cur, item)) {
                Some(&c) => c,
                None => {
                    let c = tree.item.len() as u32;
                    tree.item.push(item);
                    tree.count.push(0);
                    tree.parent.push(cur);
                    let old = tree.head.insert(item, c).unwrap_or(u32::MAX);
                    tree.link.push(old);
                    tree.child.insert((cur, item), c);
                    // New node: item, parent, node-link; the list's head.
                    let (n, h) = (self.node(t, c), self.head(t, item));
                    e.write(ACCESS, n, 8);
                    e.write(ACCESS, n + 8, 8);
                    e.read(ACCESS, h, 8);
                    e.write(ACCESS, h, 8);
                    c
                }
            };
            self.trees[t].count[next as usize] += 1;
            e.read(ACCESS, self.node(t, next) + 4, 4);
            e.write(ACCESS, self.node(t, next) + 4, 4);
            cur = next;
        }
    }

    fn mine(&mut self, t: usize, k: usize, e: &mut Emitter) {
        // Least frequent first, as FP-growth processes the header table bottom-up.
        let item = self.frequent[self.frequent.len() - 1 - k];
        let mut base = std::mem::take(&mut self.base[t]);
        base.clear();
        let buf = private_base(t) + self.p.items as u64 * 8;
        for s in 0..self.trees.len() {
            e.read(ACCESS, self.head(s, item), 8);
            let mut n = self.trees[s].head.get(&item).copied().unwrap_or(u32::MAX);
            while n != u32::MAX {
                e.read(ACCESS, self.node(s, n), 8);
                let mut up = self.trees[s].parent[n as usize];
                while up != 0 && up != u32::MAX {
                    e.read(ACCESS, self.node(s, up), 8);
                    e.write(ACCESS, buf + (base.len() as u64 % (1 << 20)) * 4, 4);
                    base.push(self.trees[s].item[up as usize]);
                    up = self.trees[s].parent[up as usize];
                }
                n = self.trees[s].link[n as usize];
            }
        }
        // The conditional tree's first scan: count the base's items.
        for (i, &it) in base.iter().enumerate() {
            e.read(ACCESS, buf + (i as u64 % (1 << 20)) * 4, 4);
            let c = private_base(t) + u64::from(it) * 8;
            e.read(ACCESS, c, 8);
            e.write(ACCESS, c, 8);
        }
        self.base[t] = base;
    }
}

impl Kernel for Freqmine {
    fn next_loop(&mut self) -> Option<Loop> {
        let step = self.step;
        self.step += 1;
        let (items, sched) = match step {
            0..=1 => (self.p.transactions, Sched::Static),
            2 => (self.p.items, Sched::Static),
            3 => {
                self.rank_items();
                (self.p.transactions, Sched::Static)
            }
            4 => (self.frequent.len(), Sched::Dynamic(1)),
            _ => return None,
        };
        Some(Loop { items, sched })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        match self.step - 1 {
            0 => {
                for tx in lo..hi {
                    e.write(ACCESS, self.addr.offsets + tx as u64 * 4, 4);
                    for k in self.offsets[tx] as usize..self.offsets[tx + 1] as usize {
                        e.write(ACCESS, self.addr.items + k as u64 * 4, 4);
                    }
                }
            }
            1 => {
                for tx in lo..hi {
                    e.read(ACCESS, self.addr.offsets + tx as u64 * 4, 4);
                    for k in self.offsets[tx] as usize..self.offsets[tx + 1] as usize {
                        let item = self.items[k];
                        e.read(ACCESS, self.addr.items + k as u64 * 4, 4);
                        let c = private_base(t) + u64::from(item) * 8;
                        e.read(ACCESS, c, 8);
                        e.write(ACCESS, c, 8);
                        self.local[t][item as usize] += 1;
                    }
                }
            }
            2 => {
                for item in lo..hi {
                    let mut sum = 0;
                    for s in 0..self.local.len() {
                        e.read(ACCESS, private_base(s) + item as u64 * 8, 8);
                        sum += self.local[s][item];
                    }
                    self.counts[item] = sum;
                    e.write(ACCESS, self.addr.counts + item as u64 * 8, 8);
                    e.write(ACCESS, self.addr.rank + item as u64 * 4, 4);
                }
            }
            3 => {
                for tx in lo..hi {
                    self.insert(t, tx, e);
                }
            }
            _ => {
                for k in lo..hi {
                    self.mine(t, k, e);
                }
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "generator": "freqmine",
            "params": self.p,
            "database_items": self.items.len(),
            "frequent_items": self.frequent.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numasim_trace::Access;

    fn params(threads: usize) -> FreqmineParams {
        FreqmineParams {
            threads,
            transactions: 2000,
            items: 200,
            ..FreqmineParams::default()
        }
    }

    fn all(p: FreqmineParams, seed: u64) -> Vec<Vec<Access>> {
        let mut s = source(p, seed).unwrap();
        let n = s.threads();
        let mut out = vec![Vec::new(); n];
        let mut batch = Vec::new();
        let mut done = vec![false; n];
        while done.iter().any(|d| !d) {
            for t in 0..n {
                if !done[t] {
                    s.next_batch(t, &mut batch).unwrap();
                    done[t] = batch.is_empty();
                    out[t].extend_from_slice(&batch);
                }
            }
        }
        out
    }

    #[test]
    fn deterministic_per_seed_and_monotonic() {
        let a = all(params(4), 7);
        assert_eq!(a, all(params(4), 7));
        assert_ne!(a, all(params(4), 8));
        for s in &a {
            assert!(s.windows(2).all(|w| w[0].instr < w[1].instr));
        }
        // Every thread mines: the dynamic loop gives each some items.
        assert!(a.iter().all(|s| s.len() > 1000));
    }

    #[test]
    fn supports_and_trees_match_a_direct_count() {
        let p = params(3);
        let mut s = source(p.clone(), 1).unwrap();
        s.run_to_end();
        let k = s.kernel();
        let mut want = vec![0u64; p.items];
        for &i in &k.items {
            want[i as usize] += 1;
        }
        assert_eq!(k.counts, want);
        // Frequent items in descending support; every transaction's frequent items are counted
        // once along its path, so the trees' counts of an item sum to its support.
        let min = (p.min_support * p.transactions as f64).ceil() as u64;
        assert!(k
            .frequent
            .windows(2)
            .all(|w| want[w[0] as usize] >= want[w[1] as usize]));
        assert_eq!(k.frequent.len(), want.iter().filter(|&&c| c >= min).count());
        for &i in &k.frequent {
            let sum: u64 = k
                .trees
                .iter()
                .map(|t| {
                    (0..t.item.len())
                        .filter(|&n| t.item[n] == i)
                        .map(|n| u64::from(t.count[n]))
                        .sum::<u64>()
                })
                .sum();
            assert_eq!(sum, want[i as usize], "item {i}");
        }
        // The database does not depend on the thread count.
        let mut other = source(params(5), 1).unwrap();
        other.run_to_end();
        assert_eq!(other.kernel().items, k.items);
        assert_eq!(other.kernel().frequent, k.frequent);
    }

    #[test]
    fn bad_parameters_are_refused_with_their_key() {
        for (key, v) in [
            ("threads", toml::Value::Integer(0)),
            ("min_support", toml::Value::Float(0.0)),
            ("zipf_exponent", toml::Value::Float(f64::NAN)),
            ("avg_length", toml::Value::Integer(0)),
        ] {
            let mut t = toml::Table::new();
            t.insert(key.into(), v);
            let e = build(t, 1).err().unwrap();
            assert_eq!(e.key, key);
        }
    }
}
