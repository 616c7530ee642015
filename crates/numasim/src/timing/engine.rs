//! The timing engine: cores, private caches, LLCs, directory, links and DRAM on one
//! deterministic discrete-event clock (see the module docs of [`super`] for the model).

use super::dram::{ps, MemoryController};
use super::link::{Fabric, Path};
use super::params::{DramTiming, TimingSpec};
use super::private_cache::{Lookup, PrivCache};
use crate::cache::{Outcome, SetAssocCache};
use crate::mem::{PageTable, Placement};
use crate::sim::SimError;
use crate::stats::{PageStats, PhaseCounts};
use numasim_machine::Machine;
use numasim_trace::{Access, AccessSource};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const PENDING: u64 = u64::MAX;
const NO_OWNER: u8 = u8::MAX;
/// Most sockets the directory's sharer masks can name.
pub const MAX_SOCKETS: usize = 64;

/// Settings of the timing engine besides `[timing]`.
#[derive(Debug, Clone)]
pub struct TimingConfig {
    pub spec: TimingSpec,
    pub phase_instructions: u64,
    pub page_bytes: u64,
    /// Model the shared per-socket LLC (size and ways from the machine).
    pub llc: bool,
}

/// Per-class latency sums, ps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassSums {
    pub count: u64,
    pub unloaded_ps: u64,
    pub wait_ps: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Demand fetch of a line (load: tracked; store: traffic only). May be a block transfer.
    Fetch,
    /// Store to a line already present: ownership request, invalidations at the home.
    Upgrade,
    /// Invalidation home → sharer, then ack sharer → requester.
    Inval,
    /// Dirty LLC eviction to the home.
    WriteBack,
}

#[derive(Debug, Clone, Copy)]
struct Txn {
    kind: Kind,
    tracked: bool,
    stage: u8,
    core: u32,
    req: u16,
    owner: u8,
    home: u16,
    class: u16,
    bytes: u32,
    hop: u32,
    path: Path,
    rob_id: u64,
    row: u64,
    inval: u64,
    start_ps: u64,
    unloaded_ps: u64,
    wait_ps: u64,
}

struct Core {
    socket: usize,
    t: u64,
    last_instr: u64,
    buf: Vec<Access>,
    pos: usize,
    source_done: bool,
    finished: bool,
    blocked: bool,
    scheduled: bool,
    rob: VecDeque<(u64, u64)>,
    rob_front_id: u64,
    outstanding: u32,
    l1: PrivCache,
    l2: PrivCache,
    tlb: PrivCache,
    instructions: u64,
    instr_at_phase_start: u64,
    llc_misses: u64,
    end_ps: u64,
    cpi_milli_ps: u64,
}

/// Whole-run or per-phase timing counters.
#[derive(Debug, Clone, Default)]
pub struct TimingCounts {
    /// Indexed like [`TimingSim::class_names`].
    pub classes: Vec<ClassSums>,
    pub block_transfers_3hop: u64,
    pub block_transfers_4hop: u64,
    pub invalidations: u64,
    pub tlb_misses: u64,
    pub start_ps: u64,
    pub end_ps: u64,
}

/// The engine. Public fields are read by the report.
pub struct TimingSim {
    pub spec: TimingSpec,
    sockets: usize,
    nodes: usize,
    pub table: PageTable,
    pub home: Vec<u16>,
    frame: Vec<u32>,
    next_frame: Vec<u32>,
    pub placement: Placement,
    pub pages: PageStats,
    llcs: Vec<SetAssocCache>,
    llc_on: bool,
    dir_sharers: Vec<u64>,
    dir_owner: Vec<u8>,
    lines_per_page_shift: u32,
    pub fabric: Fabric,
    pub mem: Vec<MemoryController>,
    /// Per node: fixed on-chip latency = access_latency − lookup path − DRAM row miss (ps).
    pub fixed_ps: Vec<u64>,
    /// Per node: by how much the closed form exceeds the machine's access latency (0 = exact).
    pub mismatch_ps: Vec<u64>,
    /// Per socket: L1 + L2 (+ LLC) tag path of an LLC miss, ps.
    pub lookup_ps: Vec<u64>,
    l1_ps: Vec<u64>,
    l2_ps: Vec<u64>,
    walk_ps: Vec<u64>,
    snoop_ps: u64,
    header: u32,
    data: u32,
    cores: Vec<Core>,
    socket_cores: Vec<Vec<u32>>,
    is_pool: Vec<bool>,
    class_of: Vec<u16>,
    pub class_names: Vec<String>,
    bt_class: u16,
    heap: BinaryHeap<Reverse<(u64, u64, u64)>>,
    seq: u64,
    now: u64,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    counts: PhaseCounts,
    pub timing: TimingCounts,
    phase: u64,
    lookahead_ps: u64,
    rob_w: u64,
    mshrs: u32,
}

const EV_WAKE: u64 = 0;
const EV_HOP: u64 = 1;
const EV_ARRIVE: u64 = 2;

impl TimingSim {
    pub fn new(
        cfg: &TimingConfig,
        m: &Machine,
        thread_socket: Vec<usize>,
        placement: Placement,
    ) -> Result<Self, String> {
        let spec = cfg.spec.clone();
        let (sockets, nodes) = (m.sockets.len(), m.memory_nodes.len());
        if sockets > MAX_SOCKETS {
            return Err(format!(
                "timing mode supports at most {MAX_SOCKETS} sockets; machine `{}` has {sockets}",
                m.name
            ));
        }
        let cyc = |s: usize, c: u32| ps(f64::from(c) / m.sockets[s].freq_ghz);
        let l1_ps: Vec<u64> = (0..sockets).map(|s| cyc(s, spec.l1_latency_cycles)).collect();
        let l2_ps: Vec<u64> = (0..sockets).map(|s| cyc(s, spec.l2_latency_cycles)).collect();
        let llc_ps: Vec<u64> = (0..sockets)
            .map(|s| if cfg.llc { cyc(s, spec.llc_latency_cycles) } else { 0 })
            .collect();
        let walk_ps = (0..sockets).map(|s| cyc(s, spec.page_walk_cycles)).collect();
        let lookup_ps: Vec<u64> = (0..sockets).map(|s| l1_ps[s] + l2_ps[s] + llc_ps[s]).collect();
        let line_bytes = m.sockets.first().map_or(64, |s| s.line_bytes);
        let mut mem = Vec::with_capacity(nodes);
        let mut fixed_ps = Vec::with_capacity(nodes);
        let mut mismatch_ps = Vec::with_capacity(nodes);
        for n in &m.memory_nodes {
            let t = DramTiming::preset(n.dram, line_bytes);
            let mc = MemoryController::new(&t, n.channels, cfg.page_bytes, spec.dram_row_bytes, spec.dram_refresh);
            let lookup = lookup_ps[n.attached_socket.unwrap_or(0)];
            let need = lookup + mc.t.row_miss();
            let have = ps(n.access_latency_ns);
            fixed_ps.push(have.saturating_sub(need));
            mismatch_ps.push(need.saturating_sub(have));
            mem.push(mc);
        }
        let mut class_names: Vec<String> = Vec::new();
        let mut class_of = Vec::with_capacity(sockets * nodes);
        for s in 0..sockets {
            for (n, node) in m.memory_nodes.iter().enumerate() {
                let name = match node.attached_socket {
                    Some(a) if a == s => "local".to_string(),
                    Some(_) => format!("remote_{}hop", m.hops(s, n)),
                    None => "pool".to_string(),
                };
                let id = class_names.iter().position(|c| *c == name).unwrap_or_else(|| {
                    class_names.push(name);
                    class_names.len() - 1
                });
                class_of.push(id as u16);
            }
        }
        class_names.push("block_transfer".into());
        let bt_class = (class_names.len() - 1) as u16;
        let mut socket_cores = vec![Vec::new(); sockets];
        let cores = thread_socket
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                socket_cores[s].push(i as u32);
                Core {
                    socket: s,
                    t: 0,
                    last_instr: 0,
                    buf: Vec::with_capacity(4096),
                    pos: 0,
                    source_done: false,
                    finished: false,
                    blocked: false,
                    scheduled: false,
                    rob: VecDeque::with_capacity(spec.rob_entries as usize),
                    rob_front_id: 0,
                    outstanding: 0,
                    l1: PrivCache::new(spec.l1_bytes / 64, spec.l1_ways as usize),
                    l2: PrivCache::new(spec.l2_bytes / 64, spec.l2_ways as usize),
                    tlb: PrivCache::new(u64::from(spec.tlb_entries), spec.tlb_ways as usize),
                    instructions: 0,
                    instr_at_phase_start: 0,
                    llc_misses: 0,
                    end_ps: 0,
                    cpi_milli_ps: (spec.base_cpi / m.sockets[s].freq_ghz * 1e6).round() as u64,
                }
            })
            .collect();
        let classes = class_names.len();
        Ok(TimingSim {
            sockets,
            nodes,
            table: PageTable::new(cfg.page_bytes),
            home: Vec::new(),
            frame: Vec::new(),
            next_frame: vec![0; nodes],
            placement,
            pages: PageStats::new(sockets),
            llcs: if cfg.llc {
                m.sockets
                    .iter()
                    .map(|s| SetAssocCache::new(s.llc_bytes, s.llc_ways as usize))
                    .collect()
            } else {
                Vec::new()
            },
            llc_on: cfg.llc,
            dir_sharers: Vec::new(),
            dir_owner: Vec::new(),
            lines_per_page_shift: (cfg.page_bytes / 64).trailing_zeros(),
            fabric: Fabric::new(m, spec.link_bandwidth_scale),
            mem,
            fixed_ps,
            mismatch_ps,
            lookup_ps,
            l1_ps,
            l2_ps,
            walk_ps,
            snoop_ps: ps(spec.owner_snoop_ns),
            header: spec.header_bytes,
            data: spec.header_bytes + line_bytes,
            cores,
            socket_cores,
            is_pool: m.memory_nodes.iter().map(|n| n.attached_socket.is_none()).collect(),
            class_of,
            class_names,
            bt_class,
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
            txns: Vec::new(),
            free_txns: Vec::new(),
            counts: PhaseCounts::new(sockets, nodes),
            timing: TimingCounts {
                classes: vec![ClassSums::default(); classes],
                ..Default::default()
            },
            phase: 0,
            lookahead_ps: ps(spec.lookahead_ns),
            rob_w: u64::from(spec.rob_entries),
            mshrs: spec.mshrs,
            spec,
        })
    }

    pub fn threads(&self) -> usize {
        self.cores.len()
    }
    pub fn now_ps(&self) -> u64 {
        self.now
    }
    pub fn core_socket(&self, c: usize) -> usize {
        self.cores[c].socket
    }
    /// (instructions, LLC misses, finish time ps) of a core.
    pub fn core_stats(&self, c: usize) -> (u64, u64, u64) {
        let k = &self.cores[c];
        (k.instructions, k.llc_misses, k.end_ps.max(k.t))
    }

    #[inline]
    fn schedule(&mut self, t: u64, kind: u64, id: u64) {
        debug_assert!(t >= self.now);
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, kind << 32 | id)));
    }

    /// Runs one phase (`phase_instructions` more per thread; a barrier at its end). Returns
    /// the phase's functional counts and timing counters, or `None` once every thread is done.
    pub fn run_phase(
        &mut self,
        src: &mut dyn AccessSource,
        phase_instructions: u64,
    ) -> Result<Option<(PhaseCounts, TimingCounts)>, SimError> {
        if src.threads() != self.cores.len() {
            return Err(SimError::ThreadCount {
                source_threads: src.threads(),
                mapped: self.cores.len(),
            });
        }
        for c in 0..self.cores.len() {
            self.refill(c, src)?;
        }
        if self.cores.iter().all(|c| c.source_done) {
            return Ok(None);
        }
        let phase_end = (self.phase + 1).saturating_mul(phase_instructions.max(1));
        let start = self.now;
        for c in 0..self.cores.len() {
            if !self.cores[c].finished {
                self.cores[c].scheduled = true;
                let t = self.now.max(self.cores[c].t);
                self.schedule(t, EV_WAKE, c as u64);
            }
        }
        while let Some(Reverse((t, _, ev))) = self.heap.pop() {
            self.now = t;
            let id = (ev & 0xFFFF_FFFF) as usize;
            match ev >> 32 {
                EV_WAKE => self.run_core(id, phase_end, src)?,
                EV_HOP => self.hop(id),
                _ => self.arrive(id),
            }
        }
        self.phase += 1;
        let mut counts = std::mem::replace(&mut self.counts, PhaseCounts::new(self.sockets, self.nodes));
        for c in &mut self.cores {
            let at_end = if c.source_done {
                c.last_instr
            } else {
                c.last_instr.max(phase_end.min(c.buf[c.pos].instr))
            };
            let d = at_end.saturating_sub(c.instr_at_phase_start);
            counts.instructions += d;
            c.instructions += d;
            c.instr_at_phase_start = at_end;
        }
        let classes = self.class_names.len();
        let mut timing = std::mem::replace(
            &mut self.timing,
            TimingCounts {
                classes: vec![ClassSums::default(); classes],
                ..Default::default()
            },
        );
        timing.start_ps = start;
        timing.end_ps = self.now;
        Ok(Some((counts, timing)))
    }

    fn refill(&mut self, c: usize, src: &mut dyn AccessSource) -> Result<(), SimError> {
        let k = &mut self.cores[c];
        if k.source_done || k.pos < k.buf.len() {
            return Ok(());
        }
        src.next_batch(c, &mut k.buf)?;
        k.pos = 0;
        if k.buf.is_empty() {
            k.source_done = true;
        }
        Ok(())
    }

    fn run_core(&mut self, c: usize, phase_end: u64, src: &mut dyn AccessSource) -> Result<(), SimError> {
        let now = self.now;
        {
            let k = &mut self.cores[c];
            k.scheduled = false;
            k.blocked = false;
            k.t = k.t.max(now);
        }
        loop {
            self.refill(c, src)?;
            let k = &mut self.cores[c];
            if k.source_done {
                if k.outstanding == 0 {
                    if !k.finished {
                        k.finished = true;
                        let last = k.rob.iter().map(|e| e.1).max().unwrap_or(0);
                        k.end_ps = k.t.max(last);
                    }
                } else {
                    k.blocked = true;
                }
                return Ok(());
            }
            let a = k.buf[k.pos];
            if a.instr >= phase_end {
                return Ok(());
            }
            let mut t_issue = k.t + (a.instr.saturating_sub(k.last_instr) * k.cpi_milli_ps + 500) / 1000;
            while let Some(&(instr, done)) = k.rob.front() {
                if instr + self.rob_w > a.instr {
                    break;
                }
                if done == PENDING {
                    k.blocked = true;
                    return Ok(());
                }
                t_issue = t_issue.max(done);
                k.rob.pop_front();
                k.rob_front_id += 1;
            }
            if k.outstanding >= self.mshrs {
                k.blocked = true;
                return Ok(());
            }
            if t_issue > now + self.lookahead_ps {
                k.scheduled = true;
                self.schedule(t_issue, EV_WAKE, c as u64);
                return Ok(());
            }
            k.t = t_issue;
            k.last_instr = a.instr;
            k.pos += 1;
            self.try_access(c, &a, t_issue)?;
        }
    }

    fn push_rob(&mut self, c: usize, instr: u64, done: u64) -> u64 {
        let k = &mut self.cores[c];
        k.rob.push_back((instr, done));
        k.rob_front_id + k.rob.len() as u64 - 1
    }

    #[inline]
    fn dir_index(&self, page: u32, line: u64) -> usize {
        ((page as usize) << self.lines_per_page_shift) | (line as usize & ((1 << self.lines_per_page_shift) - 1))
    }

    fn page_of(&mut self, socket: usize, vaddr: u64) -> Result<u32, SimError> {
        let (page, new) = self.table.lookup_or_insert(vaddr);
        if new {
            let vpage = self.table.vpage(page);
            let footprint = self.table.pages() as u64;
            let node = self.placement.place(socket, vpage, footprint)?;
            self.home.push(node as u16);
            self.frame.push(self.next_frame[node]);
            self.next_frame[node] += 1;
            self.pages.push_page();
            self.counts.new_pages += 1;
            let n = 1usize << self.lines_per_page_shift;
            self.dir_sharers.resize(self.dir_sharers.len() + n, 0);
            self.dir_owner.resize(self.dir_owner.len() + n, NO_OWNER);
        }
        Ok(page)
    }

    fn try_access(&mut self, c: usize, a: &Access, t: u64) -> Result<(), SimError> {
        let socket = self.cores[c].socket;
        let write = a.is_write();
        let line = a.vaddr >> 6;
        self.counts.accesses += 1;
        if write {
            self.counts.writes += 1;
        } else {
            self.counts.reads += 1;
        }
        let mut t0 = t;
        let vpage = a.vaddr >> self.table.page_shift();
        if let Lookup::Miss { .. } = self.cores[c].tlb.access(vpage, false) {
            t0 += self.walk_ps[socket];
            self.timing.tlb_misses += 1;
        }
        // L1
        let r1 = self.cores[c].l1.access(line, write);
        if let Lookup::Miss { dirty_victim: Some(v) } = r1 {
            self.l2_victim(c, v, t);
        }
        if let Lookup::Hit { was_dirty } = r1 {
            self.counts.llc_hits += 1;
            if write && !was_dirty {
                self.store_ownership(socket, a.vaddr, t0)?;
            }
            if t0 != t {
                self.push_rob(c, a.instr, t0 + self.l1_ps[socket]);
            }
            return Ok(());
        }
        // L2
        let r2 = self.cores[c].l2.access(line, write);
        if let Lookup::Miss { dirty_victim: Some(v) } = r2 {
            self.llc_victim(socket, v, t);
        }
        if let Lookup::Hit { was_dirty } = r2 {
            self.counts.llc_hits += 1;
            if write && !was_dirty {
                self.store_ownership(socket, a.vaddr, t0)?;
            }
            self.push_rob(c, a.instr, t0 + self.l1_ps[socket] + self.l2_ps[socket]);
            return Ok(());
        }
        // LLC
        if self.llc_on {
            match self.llcs[socket].access(line, false) {
                Outcome::Hit => {
                    self.counts.llc_hits += 1;
                    if write {
                        self.store_ownership(socket, a.vaddr, t0)?;
                    }
                    self.push_rob(c, a.instr, t0 + self.lookup_ps[socket]);
                    return Ok(());
                }
                Outcome::Miss { writeback: Some(v) } => self.writeback(socket, v, t),
                Outcome::Miss { writeback: None } => {}
            }
        }
        // Memory (or another socket's cache).
        self.counts.llc_misses += 1;
        self.cores[c].llc_misses += 1;
        let page = self.page_of(socket, a.vaddr)?;
        let node = self.home[page as usize] as usize;
        self.counts.demand[socket * self.nodes + node] += 1;
        self.pages.record(page, socket);
        let di = self.dir_index(page, line);
        let owner = self.dir_owner[di];
        let bt = owner != NO_OWNER && owner as usize != socket;
        let me = 1u64 << socket;
        let mut inval = 0;
        if write {
            let owner_bit = if owner == NO_OWNER { 0 } else { 1u64 << owner };
            let others = (self.dir_sharers[di] | owner_bit) & !me;
            self.invalidate_sockets(line, others);
            // The owner (if any) loses its copy by supplying the data; the rest get messages.
            inval = others & !if bt { owner_bit } else { 0 };
            self.dir_owner[di] = socket as u8;
            self.dir_sharers[di] = me;
        } else {
            if bt {
                for &k in &self.socket_cores[owner as usize] {
                    self.cores[k as usize].l1.clean(line);
                    self.cores[k as usize].l2.clean(line);
                }
            }
            self.dir_sharers[di] |= me;
        }
        if bt {
            if self.is_pool[node] {
                self.timing.block_transfers_4hop += 1;
            } else {
                self.timing.block_transfers_3hop += 1;
            }
        }
        let tracked = !write;
        let rob_id = if tracked {
            self.cores[c].outstanding += 1;
            self.push_rob(c, a.instr, PENDING)
        } else {
            0
        };
        let row = self.mem[node].row_of(
            u64::from(self.frame[page as usize]),
            a.vaddr & ((1u64 << self.table.page_shift()) - 1),
        );
        let id = self.new_txn(Txn {
            kind: Kind::Fetch,
            tracked,
            stage: 0,
            core: c as u32,
            req: socket as u16,
            owner: if bt { owner } else { NO_OWNER },
            home: node as u16,
            class: if bt {
                self.bt_class
            } else {
                self.class_of[socket * self.nodes + node]
            },
            bytes: 0,
            hop: 0,
            path: Path::default(),
            rob_id,
            row,
            inval,
            start_ps: t0,
            unloaded_ps: self.lookup_ps[socket],
            wait_ps: 0,
        });
        let p = self.fabric.to_mem(socket, node);
        self.start_leg(id, p, self.header, t0 + self.lookup_ps[socket]);
        Ok(())
    }

    fn new_txn(&mut self, x: Txn) -> usize {
        if let Some(i) = self.free_txns.pop() {
            self.txns[i as usize] = x;
            i as usize
        } else {
            self.txns.push(x);
            self.txns.len() - 1
        }
    }

    fn blank_txn(kind: Kind, req: usize, home: usize, t: u64) -> Txn {
        Txn {
            kind,
            tracked: false,
            stage: 0,
            core: 0,
            req: req as u16,
            owner: NO_OWNER,
            home: home as u16,
            class: 0,
            bytes: 0,
            hop: 0,
            path: Path::default(),
            rob_id: 0,
            row: 0,
            inval: 0,
            start_ps: t,
            unloaded_ps: 0,
            wait_ps: 0,
        }
    }

    fn invalidate_sockets(&mut self, line: u64, mut mask: u64) {
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.timing.invalidations += 1;
            if self.llc_on {
                self.llcs[s].invalidate(line);
            }
            for &k in &self.socket_cores[s] {
                self.cores[k as usize].l1.invalidate(line);
                self.cores[k as usize].l2.invalidate(line);
            }
        }
    }

    /// A store to a line this socket holds but may not own exclusively.
    fn store_ownership(&mut self, socket: usize, vaddr: u64, t: u64) -> Result<(), SimError> {
        let page = self.page_of(socket, vaddr)?;
        let line = vaddr >> 6;
        let di = self.dir_index(page, line);
        let owner = self.dir_owner[di];
        let me = 1u64 << socket;
        let owner_bit = if owner == NO_OWNER { 0 } else { 1u64 << owner };
        let others = (self.dir_sharers[di] | owner_bit) & !me;
        self.dir_owner[di] = socket as u8;
        self.dir_sharers[di] = me;
        if others == 0 {
            return Ok(()); // exclusive already (E → M): silent
        }
        self.invalidate_sockets(line, others);
        let node = self.home[page as usize] as usize;
        let mut x = Self::blank_txn(Kind::Upgrade, socket, node, t);
        x.inval = others;
        let id = self.new_txn(x);
        let p = self.fabric.to_mem(socket, node);
        self.start_leg(id, p, self.header, t + self.lookup_ps[socket]);
        Ok(())
    }

    fn l2_victim(&mut self, c: usize, v: u64, t: u64) {
        if let Lookup::Miss { dirty_victim: Some(v2) } = self.cores[c].l2.access(v, true) {
            let s = self.cores[c].socket;
            self.llc_victim(s, v2, t);
        }
    }

    fn llc_victim(&mut self, socket: usize, v: u64, t: u64) {
        if self.llc_on {
            if let Outcome::Miss { writeback: Some(w) } = self.llcs[socket].access(v, true) {
                self.writeback(socket, w, t);
            }
        } else {
            self.writeback(socket, v, t);
        }
    }

    fn writeback(&mut self, socket: usize, line: u64, t: u64) {
        let Some(page) = self.table.lookup(line << 6) else {
            return;
        };
        self.counts.writebacks += 1;
        let node = self.home[page as usize] as usize;
        self.counts.writeback_to[socket * self.nodes + node] += 1;
        let di = self.dir_index(page, line);
        if self.dir_owner[di] as usize == socket {
            self.dir_owner[di] = NO_OWNER;
        }
        let mut x = Self::blank_txn(Kind::WriteBack, socket, node, t);
        x.row = self.mem[node].row_of(
            u64::from(self.frame[page as usize]),
            (line << 6) & ((1u64 << self.table.page_shift()) - 1),
        );
        let id = self.new_txn(x);
        let p = self.fabric.to_mem(socket, node);
        self.start_leg(id, p, self.data, t);
    }

    #[inline]
    fn start_leg(&mut self, id: usize, path: Path, bytes: u32, t: u64) {
        let x = &mut self.txns[id];
        x.path = path;
        x.bytes = bytes;
        x.hop = 0;
        x.unloaded_ps += path.latency_ps;
        let kind = if path.len == 0 { EV_ARRIVE } else { EV_HOP };
        self.schedule(t, kind, id as u64);
    }

    fn hop(&mut self, id: usize) {
        let x = self.txns[id];
        let h = self.fabric.hop(x.path, x.hop);
        let (start, w) = self.fabric.dirs[h.dir as usize].enqueue(self.now, x.bytes);
        let x = &mut self.txns[id];
        x.wait_ps += w;
        x.hop += 1;
        let kind = if x.hop == x.path.len { EV_ARRIVE } else { EV_HOP };
        self.schedule(start + h.after_ps, kind, id as u64);
    }

    /// Home-side memory access (directory read included): fixed on-chip time, then DRAM.
    fn memory_access(&mut self, id: usize) -> u64 {
        let x = self.txns[id];
        let h = x.home as usize;
        let fixed = self.fixed_ps[h];
        let r = self.mem[h].access(self.now + fixed, x.row);
        let x = &mut self.txns[id];
        x.unloaded_ps += fixed + r.service_ps;
        x.wait_ps += r.wait_ps;
        r.done_ps
    }

    fn spawn_invals(&mut self, home: usize, req: usize, mut mask: u64) {
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let mut x = Self::blank_txn(Kind::Inval, req, home, self.now);
            x.owner = s as u8;
            let id = self.new_txn(x);
            let p = self.fabric.from_mem(home, s);
            self.start_leg(id, p, self.header, self.now);
        }
    }

    fn free(&mut self, id: usize) {
        self.free_txns.push(id as u32);
    }

    fn arrive(&mut self, id: usize) {
        let x = self.txns[id];
        let (home, req) = (x.home as usize, x.req as usize);
        match (x.kind, x.stage) {
            (Kind::Fetch, 0) => {
                let done = self.memory_access(id);
                if x.inval != 0 {
                    self.spawn_invals(home, req, x.inval);
                    self.txns[id].inval = 0;
                }
                if x.owner != NO_OWNER {
                    self.txns[id].stage = 1;
                    let p = self.fabric.from_mem(home, x.owner as usize);
                    self.start_leg(id, p, self.header, done);
                } else {
                    self.txns[id].stage = 3;
                    let p = self.fabric.from_mem(home, req);
                    self.start_leg(id, p, self.data, done);
                }
            }
            (Kind::Fetch, 1) => {
                let t = self.now + self.snoop_ps;
                let owner = x.owner as usize;
                self.txns[id].unloaded_ps += self.snoop_ps;
                if self.is_pool[home] {
                    self.txns[id].stage = 2;
                    let p = self.fabric.to_mem(owner, home);
                    self.start_leg(id, p, self.data, t);
                } else {
                    self.txns[id].stage = 3;
                    let p = self.fabric.between(owner, req);
                    self.start_leg(id, p, self.data, t);
                }
            }
            (Kind::Fetch, 2) => {
                self.txns[id].stage = 3;
                let p = self.fabric.from_mem(home, req);
                self.start_leg(id, p, self.data, self.now);
            }
            (Kind::Fetch, _) => {
                if x.tracked {
                    debug_assert_eq!(x.start_ps + x.unloaded_ps + x.wait_ps, self.now);
                    let cs = &mut self.timing.classes[x.class as usize];
                    cs.count += 1;
                    cs.unloaded_ps += x.unloaded_ps;
                    cs.wait_ps += x.wait_ps;
                    let now = self.now;
                    let k = &mut self.cores[x.core as usize];
                    let i = (x.rob_id - k.rob_front_id) as usize;
                    k.rob[i].1 = now;
                    k.outstanding -= 1;
                    if k.blocked && !k.scheduled {
                        k.blocked = false;
                        k.scheduled = true;
                        self.schedule(now, EV_WAKE, u64::from(x.core));
                    }
                }
                self.free(id);
            }
            (Kind::Upgrade, _) => {
                self.spawn_invals(home, req, x.inval);
                self.free(id);
            }
            (Kind::Inval, 0) => {
                self.txns[id].stage = 1;
                let p = self.fabric.between(x.owner as usize, req);
                self.start_leg(id, p, self.header, self.now);
            }
            (Kind::Inval, _) => self.free(id),
            (Kind::WriteBack, _) => {
                self.memory_access(id);
                self.free(id);
            }
        }
    }

    /// Time a single isolated load would take right now on an idle system (tests and
    /// calibration): socket `req` reads a line homed at `home`, owned dirty by `owner` if given.
    /// Returns (total, unloaded, wait) in ps and leaves queues as they were used.
    pub fn probe_load(&mut self, req: usize, home: usize, owner: Option<usize>, row: u64) -> (u64, u64, u64) {
        let t0 = self.now;
        let mut x = Self::blank_txn(Kind::Fetch, req, home, t0);
        x.owner = owner.map_or(NO_OWNER, |o| o as u8);
        x.row = row;
        x.unloaded_ps = self.lookup_ps[req];
        let id = self.new_txn(x);
        let p = self.fabric.to_mem(req, home);
        self.start_leg(id, p, self.header, t0 + self.lookup_ps[req]);
        let mut result = (0, 0, 0);
        while let Some(Reverse((t, _, ev))) = self.heap.pop() {
            self.now = t;
            let eid = (ev & 0xFFFF_FFFF) as usize;
            if ev >> 32 == EV_HOP {
                self.hop(eid);
            } else if ev >> 32 == EV_ARRIVE {
                let x = self.txns[eid];
                if eid == id && x.stage == 3 {
                    result = (t - t0, x.unloaded_ps, x.wait_ps);
                    self.free(eid);
                    continue;
                }
                self.arrive(eid);
            }
        }
        result
    }
}
