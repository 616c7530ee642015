//! `fmm`: SPLASH-2 FMM — the adaptive fast multipole method in 2-D (Greengard–Rokhlin
//! complex expansions of the logarithmic potential) over an adaptive quadtree of boxes.
//!
//! Why it matters for placement (Talbot & Kelly; Zaourar et al. §4.3): particles, the box heap
//! and `G_Memory` are shared allocations the main thread sets up, so under first touch they sit
//! on one node; Talbot & Kelly proxy `f_array`, the part of `G_Memory` where every thread
//! publishes its local grid bounds and then reads every other thread's (SPLASH-2's
//! `MergeLocalGridSize`).
//!
//! Arrays: `particles` (64-byte records: position 0–16, charge 16, velocity 24, field 40,
//! potential 56); `boxes`, one shared heap of records (64-byte header: centre, size, level,
//! parent, 4 children, particle count and list offsets; then the multipole and the local
//! expansion, `terms` + 1 complex coefficients each, line-aligned); `plist` (each leaf's
//! particle indices, contiguous in tree order); `ilist` (every box's U, V, W and X interaction
//! lists); `f_array` (4 reals per thread); `locks`.
//!
//! A step (barrier after each part): grid bounds (each thread scans its particles, writes its
//! `f_array` row; then reads every row); tree build (the tree only depends on the particle
//! set: a box with more than `box_particles` particles has up to 4 non-empty children; each
//! thread inserts its particles, reading the child pointer at every level and writing its
//! particle into the leaf under a lock); costzones (leaves in tree order cut into contiguous
//! zones of equal cost, last step's interactions; a parent belongs to the owner of its first
//! leaf); list construction (each thread builds the lists of its boxes, reading the header of
//! every box examined: V = children of the parent's colleagues not adjacent; for a leaf,
//! U = adjacent leaves, W = non-adjacent children of adjacent boxes at its level or finer;
//! X = the dual of W); upward pass (P2M at leaves, M2M into parents, own boxes deepest first);
//! downward pass (own boxes top-down: L2L from the parent, M2L from V, P2L from X); evaluation
//! (own leaves' particles: L2P, M2P from W, direct P2P from U and the leaf itself); update
//! (velocity and position from the field). Step 0 starts with the initialisation (`init`).
//! Expansions are read and written a 64-byte line (4 coefficients) per access.
//!
//! Cost model: header or pointer read 1 instruction (+2 at a walk's start); a translation
//! (M2M, M2L, L2L) 8·(terms+1)² flops; P2M/P2L/M2P/L2P 8·(terms+1) flops per particle; P2P 12
//! flops; lock acquire/release 3 each.

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
    pub section struct FmmParams {
        /// number of threads
        threads: usize = 8, unit "threads", Check::Range(1.0, 4096.0);
        /// number of particles (Talbot & Kelly: 8192; the default is scaled for test runs)
        particles: usize = 2048, unit "particles", Check::Range(2.0, 4e6);
        /// time steps
        steps: usize = 2, unit "steps", Check::Range(1.0, 1000.0);
        /// expansion terms p (coefficients 0..=p)
        terms: usize = 12, unit "terms", Check::Range(2.0, 40.0);
        /// a box with more particles than this is split
        box_particles: usize = 20, unit "particles", Check::Range(1.0, 1000.0);
        /// serial (main thread creates the particles and clears the box heap, as SPLASH-2) | parallel (each thread its own particles; boxes first touched by their users)
        init: Init = Init::Serial, unit "-", Check::Any;
    }
}

pub fn info() -> GeneratorInfo {
    GeneratorInfo {
        name: "fmm",
        summary: "SPLASH-2 adaptive 2-D fast multipole: quadtree, U/V/W/X lists, upward/downward passes, f_array bounds merge",
        paper: "Talbot & Kelly (8K particles, f_array proxied); Zaourar et al. 4.3 (unbalanced under first touch)",
        params: FmmParams::defs(),
    }
}

pub fn build(table: toml::Table, seed: u64) -> Result<Box<dyn AccessSource>, WorkloadError> {
    let p: FmmParams = parse(table)?;
    let threads = p.threads;
    Ok(Box::new(OmpSource::new(Fmm::new(p, seed)?, threads)))
}

/// Talbot & Kelly proxy `f_array` (part of `G_Memory`).
pub fn hot(table: toml::Table, seed: u64) -> Result<Vec<HotRange>, WorkloadError> {
    let f = Fmm::new(parse(table)?, seed)?;
    Ok(vec![HotRange {
        name: "f_array",
        start_vaddr: f.a_farray,
        end_vaddr: f.a_farray + f.params.threads as u64 * 32,
    }])
}

const NONE: u32 = u32::MAX;

/// (box, box) pairs.
pub type BoxPairs = Vec<(u32, u32)>;
const MAXL: u32 = 30;
const DT: f64 = 1e-4;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Cx(f64, f64);

impl std::ops::Add for Cx {
    type Output = Cx;
    fn add(self, o: Cx) -> Cx {
        Cx(self.0 + o.0, self.1 + o.1)
    }
}
impl std::ops::Sub for Cx {
    type Output = Cx;
    fn sub(self, o: Cx) -> Cx {
        Cx(self.0 - o.0, self.1 - o.1)
    }
}
impl std::ops::Mul for Cx {
    type Output = Cx;
    fn mul(self, o: Cx) -> Cx {
        Cx(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
}
impl std::ops::Mul<f64> for Cx {
    type Output = Cx;
    fn mul(self, s: f64) -> Cx {
        Cx(self.0 * s, self.1 * s)
    }
}
impl Cx {
    const ZERO: Cx = Cx(0.0, 0.0);
    fn inv(self) -> Cx {
        let d = self.0 * self.0 + self.1 * self.1;
        Cx(self.0 / d, -self.1 / d)
    }
    fn ln(self) -> Cx {
        Cx(self.0.hypot(self.1).ln(), self.1.atan2(self.0))
    }
}

#[derive(Debug, Clone)]
struct Bx {
    level: u32,
    ix: u64,
    iy: u64,
    center: Cx,
    parent: u32,
    child: [u32; 4],
    parts: Vec<u32>,
    mp: Vec<Cx>,
    local: Vec<Cx>,
    u: Vec<u32>,
    v: Vec<u32>,
    w: Vec<u32>,
    x: Vec<u32>,
    owner: u32,
    /// Offsets of the box's particles in `plist` and of its lists in `ilist`.
    plist_at: u64,
    ilist_at: u64,
}

impl Bx {
    fn is_leaf(&self) -> bool {
        self.child.iter().all(|&c| c == NONE)
    }
    /// Closed extent in units of the finest level.
    fn extent(&self) -> (u64, u64, u64, u64) {
        let s = 1u64 << (MAXL - self.level);
        (self.ix * s, self.ix * s + s, self.iy * s, self.iy * s + s)
    }
}

fn adjacent(a: &Bx, b: &Bx) -> bool {
    let (ax0, ax1, ay0, ay1) = a.extent();
    let (bx0, bx1, by0, by1) = b.extent();
    ax0 <= bx1 && bx0 <= ax1 && ay0 <= by1 && by0 <= ay1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Init,
    Bounds,
    Build,
    Lists,
    Upward,
    Downward,
    Evaluate,
    Update,
}

/// The FMM kernel (public so tests can check the potentials and lists).
pub struct Fmm {
    params: FmmParams,
    seed: u64,
    n: usize,
    p: usize,
    pos: Vec<Cx>,
    vel: Vec<Cx>,
    q: Vec<f64>,
    /// Potential (real part) and its complex derivative at each particle, last evaluation.
    pub phi: Vec<f64>,
    dphi: Vec<Cx>,
    cost: Vec<u64>,
    boxes: Vec<Bx>,
    binom: Vec<Vec<f64>>,
    /// Particles in the build partition (step 0: index ranges) and each thread's zone.
    build_zones: Vec<Vec<u32>>,
    /// Per thread: its boxes in tree (pre-)order.
    owned: Vec<Vec<u32>>,
    origin: (f64, f64),
    side: f64,
    box_cap: usize,
    heap_cleared: usize,
    rec: u64,
    exp_bytes: u64,
    a_part: u64,
    a_box: u64,
    a_plist: u64,
    a_ilist: u64,
    ilist_cap: u64,
    a_farray: u64,
    a_lock: u64,
    part_bounds: Vec<(f64, f64, f64, f64)>,
    phase: Phase,
    step: usize,
}

impl Fmm {
    pub fn new(params: FmmParams, seed: u64) -> Result<Self, WorkloadError> {
        crate::params::in_range(&params)?;
        check(
            params.particles >= params.threads,
            "particles",
            "must be at least threads",
        )?;
        let n = params.particles;
        // Two Plummer clusters (SPLASH-2's default "two cluster" distribution), in 2-D.
        let mut rng = stream(seed, 0xF3);
        let mut pos = Vec::with_capacity(n);
        let mut q = Vec::with_capacity(n);
        for i in 0..n {
            let cx = if i % 2 == 0 { -1.5 } else { 1.5 };
            let m: f64 = rng.gen_range(0.0..0.99);
            let r = 0.3 / (m.powf(-2.0 / 3.0) - 1.0).max(1e-12).sqrt();
            let a: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
            pos.push(Cx(cx + r.min(3.0) * a.cos(), r.min(3.0) * a.sin()));
            q.push(if rng.gen_bool(0.5) { 1.0 } else { -1.0 } / n as f64);
        }
        let p = params.terms;
        let mut binom = vec![vec![0.0; 2 * p + 2]; 2 * p + 2];
        for a in 0..2 * p + 2 {
            binom[a][0] = 1.0;
            for b in 1..=a {
                binom[a][b] = binom[a - 1][b - 1] + if b < a { binom[a - 1][b] } else { 0.0 };
            }
        }
        let exp_bytes = (16 * (p as u64 + 1)).next_multiple_of(64);
        let rec = 64 + 2 * exp_bytes;
        let box_cap = 2 * n + 64;
        let heap_cleared = (n / 4 + 64).min(box_cap);
        let ilist_cap = box_cap as u64 * 64;
        let mut space = AddressSpace::new();
        let t = params.threads;
        Ok(Fmm {
            a_part: space.alloc(n as u64 * 64),
            a_box: space.alloc(box_cap as u64 * rec),
            a_plist: space.alloc(n as u64 * 4),
            a_ilist: space.alloc(ilist_cap * 4),
            a_farray: space.alloc(t as u64 * 32),
            a_lock: space.alloc(2048 * 8),
            vel: vec![Cx::ZERO; n],
            phi: vec![0.0; n],
            dphi: vec![Cx::ZERO; n],
            cost: vec![1; n],
            pos,
            q,
            boxes: Vec::new(),
            binom,
            build_zones: (0..t)
                .map(|i| static_range(n, t, i).map(|x| x as u32).collect())
                .collect(),
            owned: vec![Vec::new(); t],
            origin: (0.0, 0.0),
            side: 1.0,
            box_cap,
            heap_cleared,
            rec,
            exp_bytes,
            ilist_cap,
            part_bounds: vec![(f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY); t],
            phase: Phase::Start,
            step: 0,
            n,
            p,
            params,
            seed,
        })
    }
}

impl Fmm {
    #[inline]
    fn part(&self, i: u32) -> u64 {
        self.a_part + i as u64 * 64
    }
    #[inline]
    fn bx(&self, b: u32) -> u64 {
        self.a_box + (b as usize).min(self.box_cap - 1) as u64 * self.rec
    }
    #[inline]
    fn mp_addr(&self, b: u32) -> u64 {
        self.bx(b) + 64
    }
    #[inline]
    fn local_addr(&self, b: u32) -> u64 {
        self.bx(b) + 64 + self.exp_bytes
    }
    #[inline]
    fn lock(&self, b: u32) -> u64 {
        self.a_lock + (b as u64 % 2048) * 8
    }
    #[inline]
    fn ilist(&self, at: u64) -> u64 {
        self.a_ilist + at.min(self.ilist_cap - 1) * 4
    }

    /// One expansion, a line (4 coefficients) per access.
    fn exp_access(&self, e: &mut Emitter, addr: u64, write: bool) {
        for line in 0..self.exp_bytes / 64 {
            if write {
                e.write(1, addr + line * 64, 64);
            } else {
                e.read(1, addr + line * 64, 64);
            }
        }
    }

    /// Particle `i`'s integer coordinates at the finest level.
    fn grid(&self, i: u32) -> (u64, u64) {
        let top = (1u64 << MAXL) as f64;
        let g = |v: f64, o: f64| (((v - o) / self.side * top).floor().max(0.0) as u64).min((1u64 << MAXL) - 1);
        let z = self.pos[i as usize];
        (g(z.0, self.origin.0), g(z.1, self.origin.1))
    }

    /// The adaptive quadtree of the current particles (boxes in creation order, children only
    /// where particles are).
    fn build_tree(&mut self) {
        let k = self.params.box_particles;
        let terms = self.p + 1;
        let new_box = |level, ix, iy, parent, parts: Vec<u32>, s: &Self| {
            let cells = (1u64 << level) as f64;
            Bx {
                level,
                ix,
                iy,
                center: Cx(
                    s.origin.0 + (ix as f64 + 0.5) * s.side / cells,
                    s.origin.1 + (iy as f64 + 0.5) * s.side / cells,
                ),
                parent,
                child: [NONE; 4],
                parts,
                mp: vec![Cx::ZERO; terms],
                local: vec![Cx::ZERO; terms],
                u: Vec::new(),
                v: Vec::new(),
                w: Vec::new(),
                x: Vec::new(),
                owner: 0,
                plist_at: 0,
                ilist_at: 0,
            }
        };
        self.boxes.clear();
        let root = new_box(0, 0, 0, NONE, (0..self.n as u32).collect(), self);
        self.boxes.push(root);
        let mut stack = vec![0u32];
        while let Some(b) = stack.pop() {
            let (level, ix, iy) = (
                self.boxes[b as usize].level,
                self.boxes[b as usize].ix,
                self.boxes[b as usize].iy,
            );
            if self.boxes[b as usize].parts.len() <= k || level + 1 >= MAXL {
                continue;
            }
            let parts = std::mem::take(&mut self.boxes[b as usize].parts);
            let mut quads: [Vec<u32>; 4] = Default::default();
            for &i in &parts {
                let (gx, gy) = self.grid(i);
                let sh = MAXL - level - 1;
                quads[((gx >> sh) & 1 | ((gy >> sh) & 1) << 1) as usize].push(i);
            }
            for (qd, list) in quads.into_iter().enumerate() {
                if list.is_empty() {
                    continue;
                }
                let c = self.boxes.len() as u32;
                let child = new_box(
                    level + 1,
                    ix * 2 + (qd as u64 & 1),
                    iy * 2 + (qd as u64 >> 1),
                    b,
                    list,
                    self,
                );
                self.boxes.push(child);
                self.boxes[b as usize].child[qd] = c;
                stack.push(c);
            }
        }
    }

    /// Each leaf's offset in `plist` (leaves in tree order), needed by the insertions.
    fn partition_and_lists_plist_only(&mut self) {
        let mut at = 0u64;
        for b in self.preorder() {
            let bx = &mut self.boxes[b as usize];
            if bx.is_leaf() {
                bx.plist_at = at;
                at += bx.parts.len() as u64;
            }
        }
    }

    fn preorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.boxes.len());
        let mut stack = vec![0u32];
        while let Some(b) = stack.pop() {
            out.push(b);
            for &c in self.boxes[b as usize].child.iter().rev() {
                if c != NONE {
                    stack.push(c);
                }
            }
        }
        out
    }

    /// Costzones over the leaves in tree order, owners, particle-list offsets, and the
    /// interaction lists.
    fn partition_and_lists(&mut self) {
        let order = self.preorder();
        let t = self.params.threads;
        let leaves: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&b| self.boxes[b as usize].is_leaf())
            .collect();
        let leaf_cost = |s: &Self, b: u32| {
            s.boxes[b as usize]
                .parts
                .iter()
                .map(|&i| s.cost[i as usize].max(1))
                .sum::<u64>()
        };
        let total: u64 = leaves.iter().map(|&b| leaf_cost(self, b)).sum();
        let mut cum = 0u64;
        let mut at = 0u64;
        for &b in &leaves {
            let c = leaf_cost(self, b);
            cum += c;
            let bx = &mut self.boxes[b as usize];
            // The zone holding the leaf's cost midpoint.
            bx.owner = (((cum - c / 2) * t as u64) / total.max(1)).min(t as u64 - 1) as u32;
            bx.plist_at = at;
            at += bx.parts.len() as u64;
        }
        // A parent belongs to the owner of its first leaf (post-order: children first).
        for &b in order.iter().rev() {
            let first = self.boxes[b as usize].child.iter().copied().find(|&c| c != NONE);
            if let Some(c) = first {
                self.boxes[b as usize].owner = self.boxes[c as usize].owner;
            }
        }
        for o in &mut self.owned {
            o.clear();
        }
        for &b in &order {
            let owner = self.boxes[b as usize].owner as usize;
            self.owned[owner].push(b);
        }
        // Build partition for the next step: each thread's leaves' particles.
        for z in &mut self.build_zones {
            z.clear();
        }
        for &b in &leaves {
            let owner = self.boxes[b as usize].owner as usize;
            let parts = self.boxes[b as usize].parts.clone();
            self.build_zones[owner].extend(parts);
        }
        // Colleagues (top-down) and V lists.
        let mut colleagues: Vec<Vec<u32>> = vec![Vec::new(); self.boxes.len()];
        for &b in &order {
            let parent = self.boxes[b as usize].parent;
            let (mut col, mut v) = (Vec::new(), Vec::new());
            if parent != NONE {
                let mut cands: Vec<u32> = Vec::new();
                for &pc in std::iter::once(&parent).chain(colleagues[parent as usize].iter()) {
                    cands.extend(
                        self.boxes[pc as usize]
                            .child
                            .iter()
                            .copied()
                            .filter(|&c| c != NONE && c != b),
                    );
                }
                for c in cands {
                    if adjacent(&self.boxes[c as usize], &self.boxes[b as usize]) {
                        col.push(c);
                    } else {
                        v.push(c);
                    }
                }
            }
            colleagues[b as usize] = col;
            self.boxes[b as usize].v = v;
        }
        // U and W of every leaf, by a walk over the boxes adjacent to it.
        for &b in &leaves {
            let (mut u, mut w) = (Vec::new(), Vec::new());
            let mut stack = vec![0u32];
            while let Some(a) = stack.pop() {
                if a == b {
                    continue;
                }
                let (ab, bb) = (&self.boxes[a as usize], &self.boxes[b as usize]);
                if ab.is_leaf() {
                    u.push(a);
                    continue;
                }
                for &c in &ab.child {
                    if c == NONE {
                        continue;
                    }
                    if adjacent(&self.boxes[c as usize], bb) {
                        stack.push(c);
                    } else if ab.level >= bb.level {
                        w.push(c);
                    }
                }
            }
            u.sort_unstable();
            w.sort_unstable();
            self.boxes[b as usize].u = u;
            self.boxes[b as usize].w = w;
        }
        for bx in &mut self.boxes {
            bx.x.clear();
        }
        for &b in &leaves {
            for wi in 0..self.boxes[b as usize].w.len() {
                let w = self.boxes[b as usize].w[wi];
                self.boxes[w as usize].x.push(b);
            }
        }
        let mut at = 0u64;
        for &b in &order {
            let bx = &mut self.boxes[b as usize];
            bx.ilist_at = at;
            at += (bx.u.len() + bx.v.len() + bx.w.len() + bx.x.len()) as u64;
        }
    }

    fn p2m(&self, b: u32) -> Vec<Cx> {
        let bx = &self.boxes[b as usize];
        let mut a = vec![Cx::ZERO; self.p + 1];
        for &i in &bx.parts {
            let d = self.pos[i as usize] - bx.center;
            let qi = self.q[i as usize];
            a[0].0 += qi;
            let mut pw = d;
            for (k, ak) in a.iter_mut().enumerate().skip(1) {
                *ak = *ak - pw * (qi / k as f64);
                pw = pw * d;
            }
        }
        a
    }

    /// Multipole `a` about `z0` re-centred at `z1` (Greengard–Rokhlin lemma 2.3).
    fn m2m(&self, a: &[Cx], z0: Cx, z1: Cx) -> Vec<Cx> {
        let d = z0 - z1;
        let mut pw = vec![Cx(1.0, 0.0); self.p + 1];
        for l in 1..=self.p {
            pw[l] = pw[l - 1] * d;
        }
        let mut b = vec![Cx::ZERO; self.p + 1];
        b[0] = a[0];
        for l in 1..=self.p {
            let mut s = pw[l] * (-a[0].0 / l as f64);
            for k in 1..=l {
                s = s + a[k] * pw[l - k] * self.binom[l - 1][k - 1];
            }
            b[l] = s;
        }
        b
    }

    /// Multipole `a` about `zs` as a local expansion about `zl` (lemma 2.4).
    fn m2l(&self, a: &[Cx], zs: Cx, zl: Cx) -> Vec<Cx> {
        let z0 = zs - zl;
        let inv = z0.inv();
        let mut ip = vec![Cx(1.0, 0.0); 2 * self.p + 2];
        for k in 1..ip.len() {
            ip[k] = ip[k - 1] * inv;
        }
        let mut b = vec![Cx::ZERO; self.p + 1];
        let mut s = (z0 * -1.0).ln() * a[0].0;
        for k in 1..=self.p {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            s = s + a[k] * ip[k] * sign;
        }
        b[0] = s;
        for l in 1..=self.p {
            let mut s = ip[l] * (-a[0].0 / l as f64);
            for k in 1..=self.p {
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                s = s + a[k] * ip[l + k] * (self.binom[l + k - 1][k - 1] * sign);
            }
            b[l] = s;
        }
        b
    }

    /// Local expansion `c` about `z0` re-centred at `z1`.
    fn l2l(&self, c: &[Cx], z0: Cx, z1: Cx) -> Vec<Cx> {
        let d = z1 - z0;
        let mut pw = vec![Cx(1.0, 0.0); self.p + 1];
        for l in 1..=self.p {
            pw[l] = pw[l - 1] * d;
        }
        (0..=self.p)
            .map(|l| (l..=self.p).fold(Cx::ZERO, |s, k| s + c[k] * pw[k - l] * self.binom[k][l]))
            .collect()
    }

    /// Adds particle `i` (outside) to a local expansion about `zl`.
    fn p2l(&self, c: &mut [Cx], i: u32, zl: Cx) {
        let z0 = self.pos[i as usize] - zl;
        let qi = self.q[i as usize];
        c[0] = c[0] + (z0 * -1.0).ln() * qi;
        let inv = z0.inv();
        let mut ip = inv;
        for (l, cl) in c.iter_mut().enumerate().skip(1) {
            *cl = *cl - ip * (qi / l as f64);
            ip = ip * inv;
        }
    }

    /// Potential and derivative of multipole `a` about `z0` at `z`.
    fn m2p(&self, a: &[Cx], z0: Cx, z: Cx) -> (Cx, Cx) {
        let d = z - z0;
        let inv = d.inv();
        let (mut phi, mut dphi) = (d.ln() * a[0].0, inv * a[0].0);
        let mut ip = inv;
        for (k, ak) in a.iter().enumerate().skip(1) {
            phi = phi + *ak * ip;
            ip = ip * inv;
            dphi = dphi - *ak * ip * k as f64;
        }
        (phi, dphi)
    }

    fn l2p(&self, c: &[Cx], zl: Cx, z: Cx) -> (Cx, Cx) {
        let w = z - zl;
        let (mut phi, mut dphi, mut pw) = (c[0], Cx::ZERO, Cx(1.0, 0.0));
        for (l, cl) in c.iter().enumerate().skip(1) {
            dphi = dphi + *cl * pw * l as f64;
            pw = pw * w;
            phi = phi + *cl * pw;
        }
        (phi, dphi)
    }

    fn upward(&mut self) {
        for b in self.preorder().into_iter().rev() {
            let mp = if self.boxes[b as usize].is_leaf() {
                self.p2m(b)
            } else {
                let center = self.boxes[b as usize].center;
                let mut acc = vec![Cx::ZERO; self.p + 1];
                for c in self.boxes[b as usize].child {
                    if c != NONE {
                        let cb = &self.boxes[c as usize];
                        let shifted = self.m2m(&cb.mp, cb.center, center);
                        for (x, y) in acc.iter_mut().zip(shifted) {
                            *x = *x + y;
                        }
                    }
                }
                acc
            };
            self.boxes[b as usize].mp = mp;
        }
    }

    fn downward(&mut self) {
        for b in self.preorder() {
            let bx = &self.boxes[b as usize];
            let mut local = if bx.parent == NONE {
                vec![Cx::ZERO; self.p + 1]
            } else {
                let pb = &self.boxes[bx.parent as usize];
                self.l2l(&pb.local, pb.center, bx.center)
            };
            for &v in &bx.v {
                let vb = &self.boxes[v as usize];
                for (x, y) in local.iter_mut().zip(self.m2l(&vb.mp, vb.center, bx.center)) {
                    *x = *x + y;
                }
            }
            for &x in &bx.x {
                for &i in &self.boxes[x as usize].parts {
                    self.p2l(&mut local, i, bx.center);
                }
            }
            self.boxes[b as usize].local = local;
        }
    }

    fn evaluate(&mut self) {
        for b in 0..self.boxes.len() {
            let bx = &self.boxes[b];
            if !bx.is_leaf() {
                continue;
            }
            for &i in &bx.parts {
                let z = self.pos[i as usize];
                let (mut phi, mut dphi) = self.l2p(&bx.local, bx.center, z);
                let mut cost = 1u64;
                for &w in &bx.w {
                    let wb = &self.boxes[w as usize];
                    let (a, d) = self.m2p(&wb.mp, wb.center, z);
                    phi = phi + a;
                    dphi = dphi + d;
                    cost += 1;
                }
                for &u in bx.u.iter().chain(std::iter::once(&(b as u32))) {
                    for &j in &self.boxes[u as usize].parts {
                        if j != i {
                            let d = z - self.pos[j as usize];
                            let qj = self.q[j as usize];
                            phi = phi + d.ln() * qj;
                            dphi = dphi + d.inv() * qj;
                            cost += 1;
                        }
                    }
                }
                self.phi[i as usize] = phi.0;
                self.dphi[i as usize] = dphi;
                self.cost[i as usize] = cost;
            }
        }
    }

    /// Potentials by direct summation (tests).
    pub fn direct_potentials(&self) -> Vec<f64> {
        (0..self.n)
            .map(|i| {
                (0..self.n)
                    .filter(|&j| j != i)
                    .map(|j| self.q[j] * (self.pos[i] - self.pos[j]).ln().0)
                    .sum()
            })
            .collect()
    }

    /// (box, list) pairs of every U and V list (tests).
    pub fn uv_lists(&self) -> (BoxPairs, BoxPairs) {
        let mut u = Vec::new();
        let mut v = Vec::new();
        for (b, bx) in self.boxes.iter().enumerate() {
            u.extend(bx.u.iter().map(|&c| (b as u32, c)));
            v.extend(bx.v.iter().map(|&c| (b as u32, c)));
        }
        (u, v)
    }

    fn emit_plist(&self, e: &mut Emitter, b: u32) {
        let bx = &self.boxes[b as usize];
        for chunk in 0..(bx.parts.len() as u64).div_ceil(8) {
            e.read(
                1,
                self.a_plist + (bx.plist_at + chunk * 8).min(self.n as u64 - 1) * 4,
                32,
            );
        }
    }

    fn emit_ilist(&self, e: &mut Emitter, b: u32, count: usize, offset: usize, write: bool) {
        let at = self.boxes[b as usize].ilist_at + offset as u64;
        for chunk in 0..(count as u64).div_ceil(8) {
            if write {
                e.write(1, self.ilist(at + chunk * 8), 32);
            } else {
                e.read(1, self.ilist(at + chunk * 8), 32);
            }
        }
    }

    fn insert(&self, t: usize, i: u32, e: &mut Emitter) {
        let _ = t;
        e.read(3, self.part(i), 16);
        let (gx, gy) = self.grid(i);
        let mut b = 0u32;
        loop {
            let bx = &self.boxes[b as usize];
            if bx.parts.first() == Some(&i) || (!bx.is_leaf() && self.first_particle(b) == i) {
                // This particle creates the box.
                e.write(2, self.bx(b), 64);
            }
            e.read(1, self.bx(b) + 32, 32);
            if bx.is_leaf() {
                let slot = bx.parts.iter().position(|&x| x == i).unwrap_or(0) as u64;
                e.read(3, self.lock(b), 8);
                e.write(1, self.lock(b), 8);
                e.write(1, self.a_plist + (bx.plist_at + slot).min(self.n as u64 - 1) * 4, 4);
                e.write(1, self.bx(b) + 56, 8);
                e.write(3, self.lock(b), 8);
                return;
            }
            let sh = MAXL - bx.level - 1;
            let qd = ((gx >> sh) & 1 | ((gy >> sh) & 1) << 1) as usize;
            b = bx.child[qd];
            if b == NONE {
                return;
            }
        }
    }

    /// The lowest-numbered particle under box `b`.
    fn first_particle(&self, b: u32) -> u32 {
        let mut b = b;
        loop {
            let bx = &self.boxes[b as usize];
            if bx.is_leaf() {
                return bx.parts.first().copied().unwrap_or(u32::MAX);
            }
            b = bx.child.iter().copied().find(|&c| c != NONE).unwrap_or(b);
        }
    }
}

impl Kernel for Fmm {
    fn next_loop(&mut self) -> Option<Loop> {
        let t = self.params.threads;
        self.phase = match self.phase {
            Phase::Start => Phase::Init,
            Phase::Init | Phase::Update => {
                if self.phase == Phase::Update {
                    self.step += 1;
                    if self.step == self.params.steps {
                        return None;
                    }
                }
                self.part_bounds
                    .fill((f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY));
                Phase::Bounds
            }
            Phase::Bounds => {
                // MergeLocalGridSize: the square enclosing every thread's bounds.
                let (mut x0, mut x1, mut y0, mut y1) =
                    (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
                for &(a, b, c, d) in &self.part_bounds {
                    x0 = x0.min(a);
                    x1 = x1.max(b);
                    y0 = y0.min(c);
                    y1 = y1.max(d);
                }
                let side = (x1 - x0).max(y1 - y0) * 1.0001 + 1e-9;
                self.origin = (x0 - 1e-9, y0 - 1e-9);
                self.side = side;
                self.build_tree();
                self.partition_and_lists_plist_only();
                Phase::Build
            }
            Phase::Build => {
                self.partition_and_lists();
                Phase::Lists
            }
            Phase::Lists => {
                self.upward();
                Phase::Upward
            }
            Phase::Upward => {
                self.downward();
                Phase::Downward
            }
            Phase::Downward => {
                self.evaluate();
                Phase::Evaluate
            }
            Phase::Evaluate => Phase::Update,
        };
        Some(match self.phase {
            Phase::Init => Loop {
                items: self.n,
                sched: self.params.init.sched(),
            },
            _ => Loop {
                items: t,
                sched: Sched::PerThread,
            },
        })
    }

    fn run(&mut self, t: usize, lo: usize, hi: usize, e: &mut Emitter) {
        match self.phase {
            Phase::Init => {
                for i in lo..hi {
                    e.write(2, self.part(i as u32), 32);
                    e.write(1, self.part(i as u32) + 32, 32);
                    // The main thread also clears the box heap (evenly over its loop).
                    if self.params.init == Init::Serial {
                        let (from, to) = (i * self.heap_cleared / self.n, (i + 1) * self.heap_cleared / self.n);
                        for b in from..to {
                            for w in (0..self.rec).step_by(64) {
                                e.write(1, self.a_box + b as u64 * self.rec + w, 64);
                            }
                        }
                    }
                }
                if lo == 0 {
                    e.write(1, self.a_farray, 32);
                }
            }
            Phase::Bounds => {
                let mut bb = self.part_bounds[t];
                for k in 0..self.build_zones[t].len() {
                    let i = self.build_zones[t][k];
                    e.read(if k == 0 { 3 } else { 1 }, self.part(i), 16);
                    let z = self.pos[i as usize];
                    e.flops(4);
                    bb = (bb.0.min(z.0), bb.1.max(z.0), bb.2.min(z.1), bb.3.max(z.1));
                }
                self.part_bounds[t] = bb;
                e.write(2, self.a_farray + t as u64 * 32, 32);
            }
            Phase::Build => {
                // Reading every thread's f_array row happened before the tree was sized:
                // model it at the start of this loop, then insert own particles.
                for r in 0..self.params.threads {
                    e.read(1, self.a_farray + r as u64 * 32, 32);
                    e.flops(4);
                }
                for k in 0..self.build_zones[t].len() {
                    let i = self.build_zones[t][k];
                    self.insert(t, i, e);
                }
            }
            Phase::Lists => {
                for k in 0..self.owned[t].len() {
                    let b = self.owned[t][k];
                    let bx = &self.boxes[b as usize];
                    e.read(3, self.bx(b), 64);
                    if bx.parent != NONE {
                        let pb = &self.boxes[bx.parent as usize];
                        e.read(1, self.bx(bx.parent), 64);
                        for c in pb.child.iter().copied().filter(|&c| c != NONE) {
                            e.read(1, self.bx(c), 64);
                        }
                    }
                    for &c in bx.v.iter().chain(&bx.u).chain(&bx.w).chain(&bx.x) {
                        e.read(1, self.bx(c), 64);
                        e.flops(4);
                    }
                    let total = bx.u.len() + bx.v.len() + bx.w.len() + bx.x.len();
                    self.emit_ilist(e, b, total, 0, true);
                }
            }
            Phase::Upward => {
                let flops = (8 * (self.p + 1) * (self.p + 1)) as u32;
                for k in (0..self.owned[t].len()).rev() {
                    let b = self.owned[t][k];
                    let bx = &self.boxes[b as usize];
                    e.read(3, self.bx(b), 64);
                    if bx.is_leaf() {
                        self.emit_plist(e, b);
                        for &i in &bx.parts {
                            e.read(1, self.part(i), 24);
                            e.flops((8 * (self.p + 1)) as u32);
                        }
                    } else {
                        for c in bx.child.iter().copied().filter(|&c| c != NONE) {
                            self.exp_access(e, self.mp_addr(c), false);
                            e.flops(flops);
                        }
                    }
                    self.exp_access(e, self.mp_addr(b), true);
                }
            }
            Phase::Downward => {
                let flops = (8 * (self.p + 1) * (self.p + 1)) as u32;
                for k in 0..self.owned[t].len() {
                    let b = self.owned[t][k];
                    let bx = &self.boxes[b as usize];
                    e.read(3, self.bx(b), 64);
                    if bx.parent != NONE {
                        self.exp_access(e, self.local_addr(bx.parent), false);
                        e.flops(flops);
                    }
                    self.emit_ilist(e, b, bx.v.len() + bx.x.len(), bx.u.len(), false);
                    for &v in &bx.v {
                        self.exp_access(e, self.mp_addr(v), false);
                        e.flops(flops);
                    }
                    for &x in &bx.x {
                        self.emit_plist(e, x);
                        for &i in &self.boxes[x as usize].parts {
                            e.read(1, self.part(i), 24);
                            e.flops((8 * (self.p + 1)) as u32);
                        }
                    }
                    self.exp_access(e, self.local_addr(b), true);
                }
            }
            Phase::Evaluate => {
                let per = (8 * (self.p + 1)) as u32;
                for k in 0..self.owned[t].len() {
                    let b = self.owned[t][k];
                    let bx = &self.boxes[b as usize];
                    if !bx.is_leaf() {
                        continue;
                    }
                    let np = bx.parts.len() as u32;
                    e.read(3, self.bx(b), 64);
                    self.exp_access(e, self.local_addr(b), false);
                    self.emit_plist(e, b);
                    for &i in &bx.parts {
                        e.read(1, self.part(i), 24);
                        e.flops(per);
                    }
                    self.emit_ilist(e, b, bx.u.len(), 0, false);
                    for &w in &bx.w {
                        self.exp_access(e, self.mp_addr(w), false);
                        e.flops(per * np);
                    }
                    for &u in &bx.u {
                        self.emit_plist(e, u);
                        for &j in &self.boxes[u as usize].parts {
                            e.read(1, self.part(j), 24);
                            e.flops(12 * np);
                        }
                    }
                    for &i in &bx.parts {
                        e.flops(12 * np);
                        e.write(1, self.part(i) + 40, 16);
                        e.write(1, self.part(i) + 56, 8);
                    }
                }
            }
            Phase::Update => {
                for k in 0..self.owned[t].len() {
                    let b = self.owned[t][k];
                    if !self.boxes[b as usize].is_leaf() {
                        continue;
                    }
                    for pi in 0..self.boxes[b as usize].parts.len() {
                        let i = self.boxes[b as usize].parts[pi];
                        let a = self.part(i);
                        e.read(3, a + 40, 16);
                        e.read(1, a + 24, 16);
                        e.flops(6);
                        e.write(1, a + 24, 16);
                        e.read(1, a, 16);
                        e.flops(4);
                        e.write(1, a, 16);
                        let ii = i as usize;
                        // Field = -conj(dphi); charges of like sign repel.
                        let f = Cx(-self.dphi[ii].0, self.dphi[ii].1) * (self.q[ii] * self.n as f64);
                        self.vel[ii] = self.vel[ii] + f * DT;
                        self.pos[ii] = self.pos[ii] + self.vel[ii] * DT;
                    }
                }
            }
            Phase::Start => {}
        }
        let _ = (lo, hi);
    }

    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "generator": "fmm", "seed": self.seed, "params": self.params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npb::testutil::{check_generator, via};

    #[test]
    fn deterministic_and_monotonic() {
        check_generator(via(build), "threads = 3\nparticles = 300\nbox_particles = 8");
        check_generator(
            via(build),
            "threads = 4\nparticles = 200\ninit = \"parallel\"\nsteps = 1\nterms = 6",
        );
    }

    fn solved(threads: usize, n: usize, terms: usize, seed: u64) -> Fmm {
        let p = FmmParams {
            threads,
            particles: n,
            steps: 1,
            terms,
            box_particles: 8,
            init: Init::Serial,
        };
        // Run every phase up to the evaluation (the update would move the particles).
        let mut k = Fmm::new(p, seed).unwrap();
        let mut e = Emitter::new();
        while let Some(l) = k.next_loop() {
            if k.phase == Phase::Update {
                break;
            }
            match l.sched {
                Sched::PerThread => (0..threads).for_each(|t| k.run(t, t, t + 1, &mut e)),
                _ => k.run(0, 0, l.items, &mut e),
            }
            e.buf.clear();
        }
        k
    }

    #[test]
    fn potentials_match_direct_summation() {
        let k = solved(4, 600, 16, 2);
        assert!(k.boxes.len() > 50, "{} boxes", k.boxes.len());
        let direct = k.direct_potentials();
        let scale = direct.iter().map(|x| x.abs()).fold(0.0, f64::max);
        let err = k
            .phi
            .iter()
            .zip(&direct)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-5 * scale, "max error {err} vs scale {scale}");
    }

    #[test]
    fn interaction_lists_are_symmetric() {
        let k = solved(3, 500, 6, 5);
        let (u, v) = k.uv_lists();
        assert!(!u.is_empty() && !v.is_empty());
        let us: std::collections::BTreeSet<_> = u.iter().copied().collect();
        let vs: std::collections::BTreeSet<_> = v.iter().copied().collect();
        assert_eq!(us.len(), u.len(), "a U entry twice");
        for &(a, b) in &u {
            assert!(us.contains(&(b, a)), "U: {a} lists {b} but not the reverse");
        }
        for &(a, b) in &v {
            assert!(vs.contains(&(b, a)), "V: {a} lists {b} but not the reverse");
        }
        // W and X are duals.
        for (b, bx) in k.boxes.iter().enumerate() {
            for &w in &bx.w {
                assert!(k.boxes[w as usize].x.contains(&(b as u32)));
            }
        }
    }

    #[test]
    fn hot_range_is_f_array() {
        let h = hot(toml::from_str("threads = 4\nparticles = 100").unwrap(), 1).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].end_vaddr - h[0].start_vaddr, 128);
    }
}
