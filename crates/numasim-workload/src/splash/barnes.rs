//! `barnes`: SPLASH-2 Barnes — the Barnes-Hut hierarchical N-body method in 3-D: an octree
//! rebuilt every step by all threads, a centre-of-mass upward pass, force computation by tree
//! walks with an opening criterion, and a leapfrog position update, with costzones
//! partitioning.
//!
//! Why it matters for placement (Talbot & Kelly; Zaourar et al. §4.3): the bodies and the
//! cell and leaf tables are shared arrays that one thread allocates and initialises (the main
//! thread generates the Plummer model and the tables), so under first touch they sit on one
//! node and every tree walk of every thread reads them there.
//!
//! Arrays (128-byte records): `bodies` (position 0–24, mass 24, velocity 32, acceleration 56,
//! potential 80, cost 88); `cells` (centre of mass 0–24, mass 24, 8 child pointers 32–96, cost
//! 96); `leaves` (centre of mass, mass, body count 32, up to 10 body pointers 40–120, SPLASH-2's
//! MAX_BODIES_PER_LEAF); `locks` (2048 words, SPLASH-2's cell-lock array); `global` (bounding
//! box and counters). The tables hold 2·bodies + 64 cells and bodies/2 + 64 leaves (SPLASH-2's fcells = 2,
//! fleaves = 0.5); cells and leaves are numbered in
//! creation order (one shared allocator).
//!
//! A step (barrier after each part): thread 0 resets the root (sized from the last bounding
//! box); every thread inserts its bodies (read the child pointer on each level of the path; a
//! new leaf or a leaf slot is written under the cell's lock; a full leaf splits into a cell and
//! new leaves), in the runtime's deterministic round order; each thread computes the centres
//! of mass of the cells and leaves it created, youngest first (read children, write own); the
//! costzones split of the tree-ordered bodies into contiguous zones of equal cost (the number
//! of interactions in the previous step); each thread walks the tree from the root for each of
//! its bodies: a node whose side is below `theta` × distance to its centre of mass is one
//! interaction, else a cell's children are visited, a leaf's bodies are interactions; then the
//! body's acceleration, potential and cost are written; the update (leapfrog, dt 0.025,
//! softening 0.05) reads and writes the thread's bodies and merges its bounding box into
//! `global` under a lock. Step 0 starts with the initialisation (`init`) and inserts by body
//! index ranges.
//!
//! Cost model: pointer or record read 1 instruction (+2 on a walk's or insertion's first
//! node); an interaction 20 flops; lock acquire/release 3 each; record write 2; update 12
//! flops per body.

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
    pub section struct BarnesParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// number of bodies (Talbot & Kelly: 16384; the default is scaled for test runs)
        bodies: usize = 2048, unit "bodies", Check::Range(2.0, 4e6);
        /// time steps
        steps: usize = 2, unit "steps", Check::Range(1.0, 1000.0);
        /// opening criterion: a node is one interaction when side < theta x distance (SPLASH-2 tol)
        theta: f64 = 1.0, unit "-", Check::Above(0.0, 10.0);
        /// serial (main thread generates bodies and clears the tables, as SPLASH-2) | parallel (each thread its own bodies; tables first touched by their users)
        init: Init = Init::Serial, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "barnes",
        summary: "SPLASH-2 Barnes-Hut 3-D: shared octree built by all threads, tree-walk forces (theta), costzones",
        paper: "Talbot & Kelly (16K bodies, all proxied); Zaourar et al. 4.3 (unbalanced under first touch)",
        params: BarnesParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: BarnesParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Barnes::new(p, seed)?, threads)))
}

/// Talbot & Kelly proxy all of Barnes's data.
pub fn hot(table: toml::Table, seed: u64) -> Result<Vec<HotRange>, WorkloadError> {
    let b = Barnes::new(parse(table)?, seed)?;
    let n = b.n as u64;
    let r = |name, start, len| HotRange {
        name,
        start_vaddr: start,
        end_vaddr: start + len,
    };
    Ok(vec![
        r("bodies", b.a_body, n * REC),
        r("cells", b.a_cell, b.cap as u64 * REC),
        r("leaves", b.a_leaf, b.leaf_cap as u64 * REC),
        r("locks", b.a_lock, LOCKS as u64 * 8),
        r("global", b.a_global, 64),
    ])
}

const REC: u64 = 128;
const LEAF_MAX: usize = 10;
const LOCKS: usize = 2048;
const MAX_DEPTH: usize = 40;
const DT: f64 = 0.025;
const EPS2: f64 = 0.05 * 0.05;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Child {
    Empty,
    Cell(u32),
    Leaf(u32),
}

#[derive(Debug, Clone)]
struct Cell {
    center: [f64; 3],
    half: f64,
    child: [Child; 8],
    com: [f64; 3],
    mass: f64,
}

#[derive(Debug, Clone)]
struct Leaf {
    center: [f64; 3],
    half: f64,
    bodies: Vec<u32>,
    com: [f64; 3],
    mass: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Init,
    Root,
    Load,
    Com,
    Force,
    Update,
}

/// The Barnes kernel (public so tests can check forces and the tree).
pub struct Barnes {
    params: BarnesParams,
    seed: u64,
    n: usize,
    cap: usize,
    leaf_cap: usize,
    pub pos: Vec<[f64; 3]>,
    vel: Vec<[f64; 3]>,
    pub acc: Vec<[f64; 3]>,
    mass: Vec<f64>,
    /// Interactions of each body in its last force walk.
    pub cost: Vec<u32>,
    cells: Vec<Cell>,
    leaves: Vec<Leaf>,
    /// Bodies in the partition order of the current loop, and each thread's zone of it.
    order: Vec<u32>,
    zones: Vec<std::ops::Range<usize>>,
    zmax: usize,
    /// Per thread, the cells (`true`) and leaves it created, in creation order.
    created: Vec<Vec<Child>>,
    bbox: ([f64; 3], [f64; 3]),
    part_bbox: Vec<([f64; 3], [f64; 3])>,
    stack: Vec<Child>,
    a_body: u64,
    a_cell: u64,
    a_leaf: u64,
    a_lock: u64,
    a_global: u64,
    phase: Phase,
    step: usize,
    /// Force walks (one per body per step) that started by reading the root.
    pub walks: usize,
}

fn octant(p: &[f64; 3], c: &[f64; 3]) -> usize {
    usize::from(p[0] >= c[0]) | usize::from(p[1] >= c[1]) << 1 | usize::from(p[2] >= c[2]) << 2
}

fn child_center(c: &[f64; 3], half: f64, oct: usize) -> [f64; 3] {
    let q = half / 2.0;
    [
        c[0] + if oct & 1 != 0 { q } else { -q },
        c[1] + if oct & 2 != 0 { q } else { -q },
        c[2] + if oct & 4 != 0 { q } else { -q },
    ]
}

const EMPTY_BOX: ([f64; 3], [f64; 3]) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);

impl Barnes {
    pub fn new(params: BarnesParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(params.bodies >= params.threads, "bodies", "must be at least threads")?;
        let n = params.bodies;
        // Plummer model (as SPLASH-2's testdata): radius from the cumulative mass, uniform
        // direction, small random velocities.
        let mut rng = stream(seed, 0xBA);
        let mut pos = Vec::with_capacity(n);
        let mut vel = Vec::with_capacity(n);
        for _ in 0..n {
            let m: f64 = rng.gen_range(0.0..0.999);
            let r = 1.0 / (m.powf(-2.0 / 3.0) - 1.0).max(1e-12).sqrt() * (3.0 * std::f64::consts::PI / 16.0);
            let z: f64 = rng.gen_range(-1.0..1.0);
            let phi: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
            let s = (1.0 - z * z).sqrt();
            pos.push([r * s * phi.cos(), r * s * phi.sin(), r * z]);
            vel.push([0.0, 0.0, 0.0].map(|_: f64| rng.gen_range(-0.3..0.3)));
        }
        // SPLASH-2's table sizes: fcells = 2.0 cells and fleaves = 0.5 leaves per body.
        let cap = 2 * n + 64;
        let leaf_cap = n / 2 + 64;
        let mut space = AddressSpace::new();
        let t = params.threads;
        let mut b = Barnes {
            a_body: space.alloc(n as u64 * REC),
            a_cell: space.alloc(cap as u64 * REC),
            a_leaf: space.alloc(leaf_cap as u64 * REC),
            a_lock: space.alloc(LOCKS as u64 * 8),
            a_global: space.alloc(64),
            acc: vec![[0.0; 3]; n],
            mass: vec![1.0 / n as f64; n],
            cost: vec![1; n],
            pos,
            vel,
            cells: Vec::new(),
            leaves: Vec::new(),
            order: (0..n as u32).collect(),
            zones: (0..t).map(|i| static_range(n, t, i)).collect(),
            zmax: n.div_ceil(t),
            created: vec![Vec::new(); t],
            bbox: EMPTY_BOX,
            part_bbox: vec![EMPTY_BOX; t],
            stack: Vec::new(),
            phase: Phase::Start,
            step: 0,
            walks: 0,
            cap,
            leaf_cap,
            n,
            params,
            seed,
        };
        for p in &b.pos {
            for (d, &x) in p.iter().enumerate() {
                b.bbox.0[d] = b.bbox.0[d].min(x);
                b.bbox.1[d] = b.bbox.1[d].max(x);
            }
        }
        Ok(b)
    }

    #[inline]
    fn body(&self, i: u32) -> u64 {
        self.a_body + i as u64 * REC
    }
    #[inline]
    fn cell(&self, c: u32) -> u64 {
        self.a_cell + (c as usize).min(self.cap - 1) as u64 * REC
    }
    #[inline]
    fn leaf(&self, l: u32) -> u64 {
        self.a_leaf + (l as usize).min(self.leaf_cap - 1) as u64 * REC
    }
    #[inline]
    fn lock(&self, c: u32) -> u64 {
        self.a_lock + (c as usize % LOCKS) as u64 * 8
    }

    fn new_leaf(&mut self, t: usize, center: [f64; 3], half: f64, e: &mut Emitter) -> u32 {
        let l = self.leaves.len() as u32;
        self.leaves.push(Leaf {
            center,
            half,
            bodies: Vec::with_capacity(LEAF_MAX),
            com: [0.0; 3],
            mass: 0.0,
        });
        self.created[t].push(Child::Leaf(l));
        e.write(2, self.leaf(l) + 32, 8);
        l
    }

    /// Inserts body `b` (thread `t`), splitting full leaves.
    fn insert(&mut self, t: usize, b: u32, e: &mut Emitter) {
        let p = self.pos[b as usize];
        e.read(3, self.body(b), 32);
        let (mut c, mut depth, mut cost) = (0u32, 0usize, 3);
        loop {
            let cell = &self.cells[c as usize];
            let oct = octant(&p, &cell.center);
            let (center, half) = (cell.center, cell.half);
            e.read(cost, self.cell(c) + 32 + oct as u64 * 8, 8);
            cost = 1;
            match cell.child[oct] {
                Child::Cell(k) => {
                    c = k;
                    depth += 1;
                }
                Child::Empty => {
                    e.read(3, self.lock(c), 8);
                    e.write(1, self.lock(c), 8);
                    let l = self.new_leaf(t, child_center(&center, half, oct), half / 2.0, e);
                    self.leaves[l as usize].bodies.push(b);
                    e.write(2, self.leaf(l) + 40, 8);
                    self.cells[c as usize].child[oct] = Child::Leaf(l);
                    e.write(2, self.cell(c) + 32 + oct as u64 * 8, 8);
                    e.write(3, self.lock(c), 8);
                    return;
                }
                Child::Leaf(l) => {
                    let count = self.leaves[l as usize].bodies.len();
                    e.read(1, self.leaf(l) + 32, 8);
                    if count < LEAF_MAX || depth + 1 >= MAX_DEPTH {
                        e.read(3, self.lock(c), 8);
                        e.write(1, self.lock(c), 8);
                        self.leaves[l as usize].bodies.push(b);
                        e.write(2, self.leaf(l) + 40 + (count % LEAF_MAX) as u64 * 8, 8);
                        e.write(1, self.leaf(l) + 32, 8);
                        e.write(3, self.lock(c), 8);
                        return;
                    }
                    // Split: a new cell takes the leaf's place; its bodies move into leaves
                    // under the new cell (the old leaf record is reused for the first).
                    e.read(3, self.lock(c), 8);
                    e.write(1, self.lock(c), 8);
                    let k = self.cells.len() as u32;
                    let (lc, lh) = (self.leaves[l as usize].center, self.leaves[l as usize].half);
                    self.cells.push(Cell {
                        center: lc,
                        half: lh,
                        child: [Child::Empty; 8],
                        com: [0.0; 3],
                        mass: 0.0,
                    });
                    self.created[t].push(Child::Cell(k));
                    for w in 0..4 {
                        e.write(2, self.cell(k) + w * 32, 32);
                    }
                    let moved = std::mem::take(&mut self.leaves[l as usize].bodies);
                    let mut reused = false;
                    for &mb in &moved {
                        e.read(1, self.body(mb), 32);
                        let o = octant(&self.pos[mb as usize], &lc);
                        let target = match self.cells[k as usize].child[o] {
                            Child::Leaf(x) => x,
                            _ => {
                                let x = if reused {
                                    self.new_leaf(t, child_center(&lc, lh, o), lh / 2.0, e)
                                } else {
                                    reused = true;
                                    let leaf = &mut self.leaves[l as usize];
                                    leaf.center = child_center(&lc, lh, o);
                                    leaf.half = lh / 2.0;
                                    l
                                };
                                self.cells[k as usize].child[o] = Child::Leaf(x);
                                e.write(1, self.cell(k) + 32 + o as u64 * 8, 8);
                                x
                            }
                        };
                        let slot = self.leaves[target as usize].bodies.len();
                        self.leaves[target as usize].bodies.push(mb);
                        e.write(1, self.leaf(target) + 40 + (slot % LEAF_MAX) as u64 * 8, 8);
                        e.write(1, self.leaf(target) + 32, 8);
                    }
                    self.cells[c as usize].child[oct] = Child::Cell(k);
                    e.write(2, self.cell(c) + 32 + oct as u64 * 8, 8);
                    e.write(3, self.lock(c), 8);
                    // Continue inserting b below the new cell.
                    c = k;
                    depth += 1;
                }
            }
        }
    }

    /// Centres of mass of the subtree under `node` (post-order), computed before the pass's
    /// accesses are emitted.
    fn compute_com(&mut self, node: Child) -> ([f64; 3], f64) {
        match node {
            Child::Empty => ([0.0; 3], 0.0),
            Child::Leaf(l) => {
                let (mut s, mut m) = ([0.0; 3], 0.0);
                for &b in &self.leaves[l as usize].bodies {
                    let (p, mb) = (self.pos[b as usize], self.mass[b as usize]);
                    for d in 0..3 {
                        s[d] += p[d] * mb;
                    }
                    m += mb;
                }
                let com = s.map(|x| x / m.max(1e-300));
                let leaf = &mut self.leaves[l as usize];
                leaf.com = com;
                leaf.mass = m;
                (com, m)
            }
            Child::Cell(c) => {
                let (mut s, mut m) = ([0.0; 3], 0.0);
                for o in 0..8 {
                    let ch = self.cells[c as usize].child[o];
                    let (cc, cm) = self.compute_com(ch);
                    for d in 0..3 {
                        s[d] += cc[d] * cm;
                    }
                    m += cm;
                }
                let com = s.map(|x| x / m.max(1e-300));
                let cell = &mut self.cells[c as usize];
                cell.com = com;
                cell.mass = m;
                (com, m)
            }
        }
    }

    fn tree_order(&self, node: Child, out: &mut Vec<u32>) {
        match node {
            Child::Empty => {}
            Child::Leaf(l) => out.extend_from_slice(&self.leaves[l as usize].bodies),
            Child::Cell(c) => {
                for o in 0..8 {
                    self.tree_order(self.cells[c as usize].child[o], out);
                }
            }
        }
    }

    /// Costzones: the tree-ordered bodies cut into contiguous zones of equal total cost.
    fn costzones(&mut self) {
        let mut order = Vec::with_capacity(self.n);
        self.tree_order(Child::Cell(0), &mut order);
        let t = self.params.threads;
        let total: u64 = order.iter().map(|&b| self.cost[b as usize].max(1) as u64).sum();
        let mut zones = Vec::with_capacity(t);
        let (mut start, mut cum) = (0usize, 0u64);
        for (i, &b) in order.iter().enumerate() {
            cum += self.cost[b as usize].max(1) as u64;
            // Zone z ends once the cumulative cost reaches (z+1)/t of the total, leaving at
            // least one body for each remaining zone.
            let left = order.len() - (i + 1);
            if zones.len() + 1 < t && cum * t as u64 >= total * (zones.len() + 1) as u64 && left >= t - zones.len() - 1
            {
                zones.push(start..i + 1);
                start = i + 1;
            }
        }
        while zones.len() < t {
            let end = if zones.len() + 1 == t { order.len() } else { start };
            zones.push(start..end);
            start = end;
        }
        self.zmax = zones.iter().map(|z| z.len()).max().unwrap_or(0).max(1);
        self.zones = zones;
        self.order = order;
    }

    fn force(&mut self, t: usize, b: u32, e: &mut Emitter) {
        let _ = t;
        let p = self.pos[b as usize];
        e.read(3, self.body(b), 32);
        let theta2 = self.params.theta * self.params.theta;
        let (mut a, mut phi, mut inter) = ([0.0f64; 3], 0.0f64, 0u32);
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(Child::Cell(0));
        let mut first = true;
        let interact = |q: &[f64; 3], m: f64, a: &mut [f64; 3], phi: &mut f64, e: &mut Emitter| {
            let dr = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let d2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] + EPS2;
            let inv = 1.0 / d2.sqrt();
            let f = m * inv * inv * inv;
            for d in 0..3 {
                a[d] += f * dr[d];
            }
            *phi -= m * inv;
            e.flops(20);
        };
        while let Some(node) = stack.pop() {
            let (addr, com, mass, half) = match node {
                Child::Cell(c) => {
                    let x = &self.cells[c as usize];
                    (self.cell(c), x.com, x.mass, x.half)
                }
                Child::Leaf(l) => {
                    let x = &self.leaves[l as usize];
                    (self.leaf(l), x.com, x.mass, x.half)
                }
                Child::Empty => continue,
            };
            if first {
                self.walks += usize::from(node == Child::Cell(0));
            }
            e.read(if first { 3 } else { 1 }, addr, 32);
            first = false;
            let dr = [com[0] - p[0], com[1] - p[1], com[2] - p[2]];
            let d2 = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2];
            let side = 2.0 * half;
            if side * side < theta2 * d2 {
                interact(&com, mass, &mut a, &mut phi, e);
                inter += 1;
                continue;
            }
            match node {
                Child::Cell(c) => {
                    e.read(1, addr + 32, 32);
                    e.read(1, addr + 64, 32);
                    for o in (0..8).rev() {
                        let ch = self.cells[c as usize].child[o];
                        if ch != Child::Empty {
                            stack.push(ch);
                        }
                    }
                }
                Child::Leaf(l) => {
                    let bodies = &self.leaves[l as usize].bodies;
                    e.read(1, addr + 32, 8);
                    for chunk in 0..bodies.len().min(LEAF_MAX).div_ceil(4) {
                        e.read(1, addr + 40 + chunk as u64 * 32, 32);
                    }
                    for &j in bodies {
                        if j != b {
                            e.read(1, self.a_body + j as u64 * REC, 32);
                            interact(&self.pos[j as usize], self.mass[j as usize], &mut a, &mut phi, e);
                            inter += 1;
                        }
                    }
                }
                Child::Empty => {}
            }
        }
        self.stack = stack;
        self.acc[b as usize] = a;
        self.cost[b as usize] = inter;
        e.write(1, self.body(b) + 56, 24);
        e.write(1, self.body(b) + 80, 8);
        e.write(1, self.body(b) + 88, 8);
    }

    fn body_of(&self, item: usize) -> Option<u32> {
        let (z, k) = (item / self.zmax, item % self.zmax);
        let zone = self.zones.get(z)?;
        (k < zone.len()).then(|| self.order[zone.start + k])
    }

    /// Every body is in exactly one leaf of the current tree (test helper).
    pub fn bodies_in_tree(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.tree_order(Child::Cell(0), &mut out);
        out
    }

    /// Root cell's address (test helper).
    pub fn root_addr(&self) -> u64 {
        self.a_cell
    }
}

impl Kernel for Barnes {
    fn next_loop(&mut self) -> Option<Loop> {
        let t = self.params.threads;
        let per_zone = |s: &Self| Loop {
            items: t * s.zmax,
            sched: Sched::Static,
        };
        self.phase = match self.phase {
            Phase::Start => Phase::Init,
            Phase::Init => Phase::Root,
            Phase::Root => Phase::Load,
            Phase::Load => Phase::Com,
            Phase::Com => Phase::Force,
            Phase::Force => Phase::Update,
            Phase::Update => {
                self.step += 1;
                if self.step == self.params.steps {
                    return None;
                }
                Phase::Root
            }
        };
        Some(match self.phase {
            Phase::Init => Loop {
                items: t * self.zmax,
                sched: if self.params.init == Init::Serial {
                    Sched::Serial
                } else {
                    Sched::Static
                },
            },
            Phase::Root => {
                // The root spans the last bounding box (a cube, slightly enlarged).
                let (lo, hi) = self.bbox;
                let center = [0, 1, 2].map(|d| (lo[d] + hi[d]) / 2.0);
                let half = (0..3).map(|d| hi[d] - lo[d]).fold(0.0, f64::max) / 2.0 * 1.0001 + 1e-9;
                self.cells.clear();
                self.leaves.clear();
                for c in &mut self.created {
                    c.clear();
                }
                self.cells.push(Cell {
                    center,
                    half,
                    child: [Child::Empty; 8],
                    com: [0.0; 3],
                    mass: 0.0,
                });
                Loop {
                    items: 1,
                    sched: Sched::Serial,
                }
            }
            Phase::Load => per_zone(self),
            Phase::Com => {
                self.compute_com(Child::Cell(0));
                Loop {
                    items: t,
                    sched: Sched::PerThread,
                }
            }
            Phase::Force => {
                self.costzones();
                per_zone(self)
            }
            Phase::Update => {
                self.bbox = EMPTY_BOX;
                self.part_bbox.fill(EMPTY_BOX);
                per_zone(self)
            }
            Phase::Start => unreachable!("never re-entered"),
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        match self.phase {
            Phase::Init => {
                for item in lo..hi {
                    let Some(b) = self.body_of(item) else { continue };
                    for w in 0..4 {
                        e.write(2, self.body(b) + w * 32, 32);
                    }
                    // The main thread also clears the cell and leaf tables (two cells per body,
                    // one leaf per two bodies).
                    if self.params.init == Init::Serial {
                        for r in [2 * b as u64, 2 * b as u64 + 1] {
                            for w in 0..4 {
                                e.write(1, self.a_cell + r * REC + w * 32, 32);
                            }
                        }
                        if b % 2 == 0 {
                            for w in 0..4 {
                                e.write(1, self.a_leaf + (b / 2) as u64 * REC + w * 32, 32);
                            }
                        }
                    }
                }
            }
            Phase::Root => {
                for w in 0..4 {
                    e.write(2, self.cell(0) + w * 32, 32);
                }
                e.read(1, self.a_global, 64);
            }
            Phase::Load => {
                for item in lo..hi {
                    if let Some(b) = self.body_of(item) {
                        self.insert(t, b, e);
                    }
                }
            }
            Phase::Com => {
                let mine = std::mem::take(&mut self.created[t]);
                for &node in mine.iter().rev() {
                    match node {
                        Child::Leaf(l) => {
                            let a = self.leaf(l);
                            e.read(3, a + 32, 8);
                            let bodies = &self.leaves[l as usize].bodies;
                            for chunk in 0..bodies.len().min(LEAF_MAX).div_ceil(4) {
                                e.read(1, a + 40 + chunk as u64 * 32, 32);
                            }
                            for &b in bodies {
                                e.read(1, self.a_body + b as u64 * REC, 32);
                                e.flops(7);
                            }
                            e.write(2, a, 32);
                        }
                        Child::Cell(c) => {
                            let a = self.cell(c);
                            e.read(3, a + 32, 32);
                            e.read(1, a + 64, 32);
                            for o in 0..8 {
                                match self.cells[c as usize].child[o] {
                                    Child::Cell(k) => e.read(1, self.cell(k), 32),
                                    Child::Leaf(l) => e.read(1, self.leaf(l), 32),
                                    Child::Empty => continue,
                                }
                                e.flops(7);
                            }
                            e.write(2, a, 32);
                            e.write(1, a + 96, 8);
                        }
                        Child::Empty => {}
                    }
                }
                self.created[t] = mine;
            }
            Phase::Force => {
                for item in lo..hi {
                    if let Some(b) = self.body_of(item) {
                        self.force(t, b, e);
                    }
                }
            }
            Phase::Update => {
                for item in lo..hi {
                    let Some(b) = self.body_of(item) else { continue };
                    let i = b as usize;
                    let a = self.body(b);
                    e.read(3, a + 56, 24);
                    e.read(1, a + 32, 24);
                    e.flops(6);
                    e.write(1, a + 32, 24);
                    e.read(1, a, 24);
                    e.flops(6);
                    e.write(1, a, 24);
                    let bb = &mut self.part_bbox[t];
                    for d in 0..3 {
                        self.vel[i][d] += self.acc[i][d] * DT;
                        self.pos[i][d] += self.vel[i][d] * DT;
                        bb.0[d] = bb.0[d].min(self.pos[i][d]);
                        bb.1[d] = bb.1[d].max(self.pos[i][d]);
                    }
                }
            }
            Phase::Start => {}
        }
    }

    fn finish_thread(&mut self, t: usize, e: &mut Emitter) {
        if self.phase == Phase::Update {
            e.read(3, self.a_lock, 8);
            e.write(1, self.a_lock, 8);
            e.read(1, self.a_global, 64);
            e.flops(6);
            e.write(1, self.a_global, 64);
            e.write(3, self.a_lock, 8);
            let pb = self.part_bbox[t];
            for d in 0..3 {
                self.bbox.0[d] = self.bbox.0[d].min(pb.0[d]);
                self.bbox.1[d] = self.bbox.1[d].max(pb.1[d]);
            }
        }
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "barnes", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};
    use numasim_trace::AccessKind;

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), "threads = 3\nbodies = 200");
        check_generator(via(build), "threads = 4\nbodies = 150\ninit = \"parallel\"\nsteps = 1");
    }

    fn params(threads: usize, bodies: usize, theta: f64) -> BarnesParams {
        BarnesParams {
            threads,
            bodies,
            steps: 1,
            theta,
            init: Init::Serial,
        }
    }

    /// Drives the kernel one loop at a time (thread by thread, every item); returns per loop
    /// the phase and each thread's accesses.
    fn drive(k: &mut Barnes) -> Vec<(Phase, Vec<Vec<numasim_trace::Access>>)> {
        let threads = k.params.threads;
        let mut out = Vec::new();
        while let Some(l) = k.next_loop() {
            let mut es: Vec<Emitter> = (0..threads).map(|_| Emitter::new()).collect();
            for (t, e) in es.iter_mut().enumerate() {
                let r = match l.sched {
                    Sched::Serial if t == 0 => 0..l.items,
                    Sched::Serial => 0..0,
                    Sched::PerThread => t..t + 1,
                    _ => static_range(l.items, threads, t),
                };
                k.run(t, r.start, r.end, e);
                k.finish_thread(t, e);
            }
            out.push((k.phase, es.into_iter().map(|e| e.buf).collect()));
        }
        out
    }

    /// Every body's force walk starts at the root (one root read per body, by the thread whose
    /// zone holds it), every body sits in exactly one leaf, and the zones cover every body.
    #[test]
    fn every_walk_visits_the_root_and_every_body_is_in_the_tree() {
        let mut k = Barnes::new(params(4, 300, 1.0), 7).unwrap();
        let phases = drive(&mut k);
        let mut tree = k.bodies_in_tree();
        tree.sort_unstable();
        assert_eq!(tree, (0..300).collect::<Vec<u32>>());
        let zone_total: usize = k.zones.iter().map(|z| z.len()).sum();
        assert_eq!(zone_total, 300);
        let root = k.root_addr();
        let (_, force) = phases.iter().find(|(p, _)| *p == Phase::Force).unwrap();
        for (t, s) in force.iter().enumerate() {
            let root_reads = s
                .iter()
                .filter(|a| a.kind == AccessKind::Read && a.vaddr == root)
                .count();
            assert_eq!(root_reads, k.zones[t].len(), "thread {t}");
        }
        assert_eq!(k.walks, 300);
    }

    /// With a small theta the tree forces approach the direct sum; a large theta uses fewer
    /// interactions.
    #[test]
    fn forces_match_direct_summation() {
        let direct = |k: &Barnes, b: usize| {
            let mut a = [0.0; 3];
            for j in 0..k.n {
                if j != b {
                    let dr = [0, 1, 2].map(|d| k.pos[j][d] - k.pos[b][d]);
                    let d2 = dr.iter().map(|x| x * x).sum::<f64>() + EPS2;
                    let f = k.mass[j] / (d2 * d2.sqrt());
                    for d in 0..3 {
                        a[d] += f * dr[d];
                    }
                }
            }
            a
        };
        let mut costs = Vec::new();
        for theta in [0.3, 1.0] {
            let mut k = Barnes::new(params(2, 400, theta), 3).unwrap();
            // Stop before the update moves the bodies.
            let threads = 2;
            while let Some(l) = k.next_loop() {
                if k.phase == Phase::Update {
                    break;
                }
                let mut e = Emitter::new();
                for t in 0..threads {
                    let r = match l.sched {
                        Sched::Serial if t == 0 => 0..l.items,
                        Sched::Serial => 0..0,
                        Sched::PerThread => t..t + 1,
                        _ => static_range(l.items, threads, t),
                    };
                    k.run(t, r.start, r.end, &mut e);
                }
            }
            let (mut err, mut norm) = (0.0f64, 0.0f64);
            for b in 0..400 {
                let d = direct(&k, b);
                for (x, dx) in d.iter().enumerate() {
                    err += (k.acc[b][x] - dx).powi(2);
                    norm += dx.powi(2);
                }
            }
            let rel = (err / norm).sqrt();
            if theta < 0.5 {
                assert!(rel < 0.01, "theta {theta}: relative error {rel}");
            } else {
                assert!(rel < 0.1, "theta {theta}: relative error {rel}");
            }
            costs.push(k.cost.iter().map(|&c| c as u64).sum::<u64>());
        }
        assert!(costs[1] < costs[0], "{costs:?}");
    }

    #[test]
    fn serial_init_writes_all_bodies_on_thread_0() {
        let mut k = Barnes::new(params(4, 100, 1.0), 1).unwrap();
        let phases = drive(&mut k);
        let (_, init) = &phases[0];
        assert!(init[1..].iter().all(|s| s.is_empty()));
        assert!(init[0].len() >= 400);
    }
}
