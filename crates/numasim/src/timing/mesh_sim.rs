//! Timing of a mesh machine: cores on request nodes, SLC slices on home nodes,
//! memory controllers at the edge, every message a packet booked on the [`MeshFabric`], every
//! memory access booked on the same [`MemoryController`] as the socket-level engine.
//!
//! Why a driver of its own rather than a mode of `TimingSim`: the socket engine's LLC is one
//! cache per socket, while the mesh's SLC is a chip-wide set of slices whose home for a line
//! depends on the address map (interleaved over all slices, or per NUMA node with cache
//! groups), so a line's home can be in another quadrant than its requester or its memory.
//! This driver keeps the engine's rules (each core issues in program order at its own clock,
//! bounded misses in flight, cores interleaved slowest first with a lookahead, whole
//! transactions booked at issue on timelines) and replaces the socket LLC and socket links by
//! slices and packets. Coherence between the cores' private caches is a directory at each
//! home slice (sharers and owner per line): stores to shared lines invalidate the other holders
//! with snoops on the SNP VNET, loads of a line held dirty elsewhere clean it. It has no
//! migration and no per-phase records; it reads any [`AccessSource`], so every generator runs
//! on it.
//!
//! A miss in a core's private cache (write-allocate: a store fetches its line too) is:
//! REQ core → home slice; slice lookup; on a hit DAT slice → core; on a miss REQ slice →
//! controller, DRAM read, DAT controller → slice, DAT slice → core; then RSP (CompAck) core →
//! slice. Dirty private victims go REQ (WriteBack) core → slice, RSP slice → core, DAT
//! core → slice, into the slice dirty; dirty slice victims go DAT slice → controller and a
//! posted DRAM write.
//!
//! Home-node trackers: a request without a free entry at its home slice waits at its source
//! until one frees when it would arrive (CHI's protocol credits), or, with `home_node_retry`,
//! travels, is refused with a RetryAck, and is sent again once the home grants it the entry
//! that frees first (PCrdGrant); that entry is reserved, idle, while the grant and the re-sent
//! request cross the mesh, so a requester far from its home holds entries longer per request
//! (tested against the closed form).
//!
//! Address map. Pages are placed by first touch on the toucher's quadrant (NUMA on), on one
//! node over every controller (NUMA off), or all on `membind`. Physical memory is one
//! contiguous range per node; within a node, `mc_interleave_bytes` go to each of its
//! controllers in turn. A line's home slice is a hash of its physical line address over every
//! slice, or — cache groups — over its node's quadrant's slices only.

use super::core::MAX_CLOCK_PS;
use super::dram::{ps, AddressMap, DramConfig, MemoryController};
use super::mesh::{LinkUse, MeshFabric, Vnet};
use crate::cache::{Outcome, SetAssocCache};
use numasim_machine::mesh::Mesh;
use numasim_machine::Machine;
use numasim_trace::{Access, AccessKind, AccessSource};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Core-side parameters (not in the paper; each an assumption, recorded in the results).
#[derive(Debug, Clone, Serialize)]
pub struct MeshCoreParams {
    /// Core of each thread (`cores_per_request_node` consecutive cores share a request node).
    pub cores: Vec<usize>,
    /// Every page on this NUMA node instead of first touch.
    pub membind: Option<usize>,
    /// Pages of these virtual ranges `(start, bytes, node)` on `node` (as `mbind` on a
    /// range), before `membind` and first touch.
    pub bind: Vec<(u64, u64, usize)>,
    /// Every page on the node of this thread's core, whoever touches it first: the main thread
    /// allocates and initialises the data (the unbalanced programs of §4.3).
    pub first_touch_by: Option<usize>,
    /// Misses in flight per core (loads and stores).
    pub mshrs: usize,
    /// Cycles per non-memory instruction.
    pub base_cpi: f64,
    /// Private cache per core (the last private level), bytes and ways.
    pub private_bytes: u64,
    pub private_ways: usize,
    pub page_bytes: u64,
    /// Fixed controller + PHY time before the DRAM commands, ns.
    pub controller_ns: f64,
    /// Close each DRAM row after its access (false: rows stay open, FR-FCFS favours hits).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub closed_page: bool,
    /// Stop each thread after this many accesses (0: run the source to its end).
    pub max_accesses_per_thread: u64,
    /// Instructions per thread between global barriers, as `phase_instructions` of the
    /// socket engines (0: no barriers; see [`MeshSim::run`]).
    pub phase_instructions: u64,
}

impl MeshCoreParams {
    pub fn new(cores: Vec<usize>) -> Self {
        MeshCoreParams {
            cores,
            membind: None,
            bind: Vec::new(),
            first_touch_by: None,
            mshrs: 16,
            base_cpi: 0.5,
            private_bytes: 1 << 20,
            private_ways: 8,
            page_bytes: 4096,
            controller_ns: 20.0,
            closed_page: false,
            max_accesses_per_thread: 0,
            phase_instructions: 0,
        }
    }
}

const NONE: u64 = u64::MAX;

/// A line's entry in its home slice's directory (snoop filter): the threads whose private
/// caches may hold it, and the one holding it unique (dirty), if any (thread + 1; 0: none).
#[derive(Debug, Clone, Copy, Default)]
struct DirEntry {
    sharers: u64,
    owner: u8,
}

/// Threads a mesh run can have: the directory keeps a 64-bit sharer mask per line.
pub const MAX_MESH_THREADS: usize = 64;

/// A mesh machine being timed.
pub struct MeshSim {
    mesh: Mesh,
    p: MeshCoreParams,
    fabric: MeshFabric,
    /// Router of each request node, home node, controller.
    rn_router: Vec<usize>,
    hn_router: Vec<usize>,
    mc_router: Vec<usize>,
    mcs: Vec<MemoryController>,
    mc_reads: Vec<u64>,
    mc_writes: Vec<u64>,
    slc: SetAssocCache,
    slc_lookups: Vec<u64>,
    slc_hits: Vec<u64>,
    private: SetAssocCache,
    /// NUMA nodes: quadrants, or 1 with NUMA off.
    nodes: usize,
    node_bytes: u64,
    next_frame: Vec<u64>,
    pages: HashMap<u64, u64>,
    header: u32,
    data: u32,
    slc_ps: u64,
    controller_ps: u64,
    core_cycle_ps: f64,
    /// Per slice (home node trackers) and per controller (read trackers).
    home_trackers: Trackers,
    mc_trackers: Trackers,
    /// Every line some private cache may hold (silent clean evictions leave stale sharers,
    /// which are snooped and answer without data, as a snoop filter's would).
    dir: HashMap<u64, DirEntry>,
    snoops: u64,
    upgrades: u64,
    retries: u64,
    /// `retry_throttle`: per thread and home node, when the thread may send that home node a
    /// new request (after its RetryAck and credit grant); requests held, and their wait.
    throttle_until: Vec<u64>,
    throttled: u64,
    throttle_wait_ps: u64,
    /// Reads whose data came from memory straight to the requester (`direct_memory_transfer`).
    direct_reads: u64,
}

impl MeshSim {
    pub fn new(m: &Machine, p: MeshCoreParams) -> Result<MeshSim, MeshSimError> {
        let mesh = m.mesh.clone().ok_or_else(|| MeshSimError::NoMesh(m.name.clone()))?;
        let threads = p.cores.len();
        if threads == 0 {
            return Err(MeshSimError::NoThreads);
        }
        if threads > MAX_MESH_THREADS {
            return Err(MeshSimError::TooManyThreads {
                threads,
                max: MAX_MESH_THREADS,
            });
        }
        if let Some(&core) = p.cores.iter().find(|&&c| c >= mesh.cores()) {
            return Err(MeshSimError::NoSuchCore {
                core,
                cores: mesh.cores(),
            });
        }
        let nodes = if mesh.numa { mesh.quadrants() } else { 1 };
        if let Some(thread) = p.first_touch_by.filter(|&t| t >= threads) {
            return Err(MeshSimError::NoSuchFirstToucher { thread, threads });
        }
        if let Some(node) = p.membind.filter(|&n| n >= nodes) {
            return Err(MeshSimError::NoSuchMembindNode { node, nodes });
        }
        if let Some(&(_, _, node)) = p.bind.iter().find(|b| b.2 >= nodes) {
            return Err(MeshSimError::NoSuchBindNode { node, nodes });
        }
        if !((1..=1024).contains(&p.mshrs) && p.base_cpi.is_finite() && p.base_cpi >= 0.0) {
            return Err(MeshSimError::CoreParams);
        }
        if !p.page_bytes.is_power_of_two() || p.page_bytes < 4096 || p.page_bytes > 1 << 30 {
            return Err(MeshSimError::PageBytes);
        }
        let map = AddressMap::parse("RoBaRaCoCh").expect("a fixed mapping parses");
        let node_bytes = m.memory_nodes.iter().map(|n| n.capacity_bytes).min().unwrap_or(0);
        let mut mcs = Vec::new();
        for (i, &at) in mesh.memory_controllers.iter().enumerate() {
            let node = &m.memory_nodes[mesh.quadrant_of(at)];
            let burst_ns = 64.0 / node.dram.channel_peak_gbps();
            let cfg = DramConfig {
                channels: mesh.channels_per_controller[i],
                page_bytes: p.page_bytes,
                row_bytes: 8192,
                // The bytes this controller serves: its node's share, or all memory's share.
                capacity_bytes: if mesh.numa {
                    node_bytes / mesh.controllers_in[mesh.quadrant_of(at)].len() as u64
                } else {
                    node_bytes * mesh.quadrants() as u64 / mesh.memory_controllers.len() as u64
                } + p.page_bytes,
                refresh: true,
                closed_page: p.closed_page,
                map,
                write_queue_high: 26,
                write_queue_low: 6,
            };
            mcs.push(MemoryController::new(&node.dram_timing, burst_ns, &cfg));
        }
        let slc = SetAssocCache::try_partitioned(mesh.slices(), mesh.slc_slice_bytes, mesh.slc_ways as usize)?;
        let private = SetAssocCache::try_partitioned(p.cores.len(), p.private_bytes, p.private_ways)?;
        let fabric = MeshFabric::new(&mesh);
        let core_freq = m.sockets[0].freq_ghz;
        Ok(MeshSim {
            rn_router: mesh.request_nodes.iter().map(|&a| mesh.router(a)).collect(),
            hn_router: mesh.home_nodes.iter().map(|&a| mesh.router(a)).collect(),
            mc_router: mesh.memory_controllers.iter().map(|&a| mesh.router(a)).collect(),
            mc_reads: vec![0; mcs.len()],
            mc_writes: vec![0; mcs.len()],
            mcs,
            slc_lookups: vec![0; mesh.slices()],
            slc_hits: vec![0; mesh.slices()],
            slc,
            private,
            nodes,
            node_bytes: if mesh.numa {
                node_bytes
            } else {
                node_bytes * mesh.quadrants() as u64
            },
            next_frame: vec![0; nodes],
            pages: HashMap::new(),
            header: mesh.header_bytes,
            data: mesh.header_bytes + 64,
            slc_ps: fabric.cycle_ps * u64::from(mesh.slc_hit_cycles),
            controller_ps: ps(p.controller_ns),
            core_cycle_ps: 1000.0 / core_freq,
            home_trackers: Trackers::new(mesh.slices(), mesh.home_node_trackers),
            mc_trackers: Trackers::new(mesh.memory_controllers.len(), mesh.controller_trackers),
            dir: HashMap::new(),
            snoops: 0,
            upgrades: 0,
            retries: 0,
            throttle_until: vec![0; threads * mesh.home_nodes.len()],
            throttled: 0,
            throttle_wait_ps: 0,
            direct_reads: 0,
            fabric,
            mesh,
            p,
        })
    }

    /// The quadrant of a thread's core.
    pub fn quadrant_of_core(&self, core: usize) -> usize {
        let rn = core / self.mesh.cores_per_request_node as usize;
        self.mesh.quadrant_of(self.mesh.request_nodes[rn])
    }

    /// Node of physical line `line`.
    fn node_of(&self, line: u64) -> usize {
        ((line << 6) / self.node_bytes) as usize
    }

    /// Home slice of physical line `line`.
    pub fn slice_of(&self, line: u64) -> usize {
        // SplitMix-style mixing, so strided arrays spread over the slices.
        let mut h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 32;
        let per = self.mesh.slices_per_home_node as usize;
        if self.mesh.cache_groups {
            let group = &self.mesh.home_nodes_in[self.node_of(line)];
            let k = (h % (group.len() * per) as u64) as usize;
            group[k / per] * per + k % per
        } else {
            (h % self.mesh.slices() as u64) as usize
        }
    }

    /// Controller of physical line `line` and the line's address inside it.
    fn controller_of(&self, line: u64) -> (usize, u64) {
        let node = self.node_of(line);
        let local = (line << 6) - node as u64 * self.node_bytes;
        let il = self.mesh.mc_interleave_bytes;
        let (list_len, pick) = if self.mesh.numa {
            let list = &self.mesh.controllers_in[node];
            let k = ((local / il) % list.len() as u64) as usize;
            (list.len() as u64, list[k])
        } else {
            let n = self.mesh.memory_controllers.len();
            (n as u64, ((local / il) % n as u64) as usize)
        };
        let inside = (local / (il * list_len)) * il + local % il;
        (pick, inside >> 6)
    }

    /// Physical line of `vaddr` touched by `core`, placing its page on first touch.
    fn translate(&mut self, vaddr: u64, core: usize) -> Result<u64, MeshSimError> {
        let vpage = vaddr / self.p.page_bytes;
        let base = match self.pages.get(&vpage) {
            Some(&b) => b,
            None => {
                let bound = self
                    .p
                    .bind
                    .iter()
                    .find(|&&(start, bytes, _)| vaddr >= start && vaddr - start < bytes)
                    .map(|b| b.2);
                let node = match (bound.or(self.p.membind), self.p.first_touch_by) {
                    (Some(n), _) => n,
                    _ if self.nodes == 1 => 0,
                    (None, Some(t)) => self.quadrant_of_core(self.p.cores[t]),
                    (None, None) => self.quadrant_of_core(core),
                };
                let frame = self.next_frame[node];
                if (frame + 1) * self.p.page_bytes > self.node_bytes {
                    return Err(MeshSimError::NodeFull {
                        node,
                        bytes: self.node_bytes,
                    });
                }
                self.next_frame[node] += 1;
                let b = node as u64 * self.node_bytes + frame * self.p.page_bytes;
                self.pages.insert(vpage, b);
                b
            }
        };
        Ok((base + vaddr % self.p.page_bytes) >> 6)
    }

    fn dram(&mut self, mc: usize, addr: u64, write: bool, t: u64) -> u64 {
        if write {
            self.mc_writes[mc] += 1;
        } else {
            self.mc_reads[mc] += 1;
        }
        self.mcs[mc]
            .access_at(t + self.controller_ps, addr, write, self.fabric.horizon_ps)
            .done_ps
    }

    /// A dirty line from slice `slice` (at `t`) to its controller.
    fn slice_writeback(&mut self, slice: usize, line: u64, t: u64) {
        let hn = self.hn_router[slice / self.mesh.slices_per_home_node as usize];
        let (mc, addr) = self.controller_of(line);
        let at = self.fabric.send(Vnet::Dat, hn, self.mc_router[mc], self.data, t);
        self.dram(mc, addr, true, at);
    }

    /// Brings `line` to slice `slice` (at `t`), reading it from memory on a miss; returns when
    /// the slice has it.
    fn slice_read(&mut self, slice: usize, line: u64, t: u64) -> u64 {
        self.slc_lookups[slice] += 1;
        let t = t + self.slc_ps;
        match self.slc.access_in(slice, line, false) {
            Outcome::Hit { .. } => {
                self.slc_hits[slice] += 1;
                t
            }
            Outcome::Miss { writeback } => {
                let hn = self.hn_router[slice / self.mesh.slices_per_home_node as usize];
                let back = self.memory_read(hn, line, t, hn);
                if let Some(victim) = writeback {
                    self.slice_writeback(slice, victim, t);
                }
                back
            }
        }
    }

    /// `line` read from its controller for the home node at router `hn` (REQ ReadNoSnp at
    /// `t`), its data (DAT) sent to router `to`: the home node, or the requester under
    /// `direct_memory_transfer`. Returns the data's arrival.
    fn memory_read(&mut self, hn: usize, line: u64, t: u64, to: usize) -> u64 {
        let (mc, addr) = self.controller_of(line);
        let mr = self.mc_router[mc];
        let (at, entry) = self.request(Vnet::Req, hn, mr, t, None, mc);
        let done = self.dram(mc, addr, false, at);
        if let Some(e) = entry {
            self.mc_trackers.release(e, done);
        }
        self.fabric.send(Vnet::Dat, mr, to, self.data, done)
    }

    /// A request packet from router `from` to a device with trackers (`home`: the requesting
    /// thread, to slice `dev`'s home node; `None`: to controller `dev`), ready at `t`: held at
    /// the injecting router until an entry is free when it would arrive (CHI's protocol
    /// credits: a home node without a free tracker does not accept the request). Returns its
    /// arrival and the claimed entry.
    fn request(
        &mut self,
        vnet: Vnet,
        from: usize,
        to: usize,
        t: u64,
        home: Option<usize>,
        dev: usize,
    ) -> (u64, Option<usize>) {
        let pool = if home.is_some() {
            &mut self.home_trackers
        } else {
            &mut self.mc_trackers
        };
        if !pool.enabled() {
            return (self.fabric.send(vnet, from, to, self.header, t), None);
        }
        if self.mesh.tracker_wait_in_network {
            // The request travels at once and waits in the destination router's buffer until
            // an entry is free when its tail would be in.
            let tail = self.fabric.flits(self.header).saturating_sub(1) * self.fabric.cycle_ps;
            // (The closure's last call is the packet's final placement: its wait for the entry.)
            let mut held = 0;
            let at = self.fabric.send_accepted(vnet, from, to, self.header, t, &mut |head| {
                let start = pool.pick(dev, head + tail).1 - tail;
                held = start - head;
                start
            });
            let (entry, start) = pool.claim(dev, at);
            debug_assert_eq!(start, at);
            pool.wait_ps += held;
            return (at, Some(entry));
        }
        if let (Some(thread), true) = (home, self.mesh.home_node_retry) {
            return self.request_retried(thread, from, to, t, dev);
        }
        let unloaded = self.fabric.unloaded_ps(from, to, self.header);
        let (entry, start) = pool.claim(dev, t + unloaded);
        let at = self.fabric.send_held(vnet, from, to, self.header, t, start - unloaded);
        (at, Some(entry))
    }

    /// A request to slice `slice`'s home node under CHI's retry (`home_node_retry`), ready at
    /// `t` at router `from`: it travels at once; if no entry is free when it arrives, the home
    /// node answers RetryAck (RSP), and when an entry frees it reserves it and sends a
    /// PCrdGrant (RSP); the requester sends the request again once it holds both, and the
    /// entry is held from the grant on. Returns the accepted request's arrival and its entry;
    /// the wait from the first arrival to the accepted one is the tracker wait.
    ///
    /// With `retry_throttle` (gem5 CHI's `throttle_req_on_retry`) a thread refused by a home
    /// node sends it nothing new until it holds both the RetryAck and the grant: a later
    /// request waits in the thread's transaction, before the network (its own counter).
    fn request_retried(&mut self, thread: usize, from: usize, to: usize, t: u64, slice: usize) -> (u64, Option<usize>) {
        let key = thread * self.mesh.home_nodes.len() + slice / self.mesh.slices_per_home_node as usize;
        let t = if self.mesh.retry_throttle && self.throttle_until[key] > t {
            self.throttled += 1;
            self.throttle_wait_ps += self.throttle_until[key] - t;
            self.throttle_until[key]
        } else {
            t
        };
        let first = self.fabric.send(Vnet::Req, from, to, self.header, t);
        let (_, free) = self.home_trackers.pick(slice, first);
        if free == first {
            let (entry, _) = self.home_trackers.claim(slice, first);
            return (first, Some(entry));
        }
        self.retries += 1;
        let retry_ack = self.fabric.send(Vnet::Rsp, to, from, self.header, first);
        // The entry that frees first is reserved for this request from then on.
        let (entry, reserved) = self.home_trackers.claim(slice, free);
        debug_assert_eq!(reserved, free);
        let grant = self.fabric.send(Vnet::Rsp, to, from, self.header, free);
        let resend = grant.max(retry_ack);
        if self.mesh.retry_throttle {
            self.throttle_until[key] = self.throttle_until[key].max(resend);
        }
        let again = self.fabric.send(Vnet::Req, from, to, self.header, resend);
        self.home_trackers.wait_ps += again - first;
        (again, Some(entry))
    }

    /// Router of thread `thread`'s request node.
    fn rn_of(&self, thread: usize) -> usize {
        self.rn_router[self.p.cores[thread] / self.mesh.cores_per_request_node as usize]
    }

    /// Snoops every thread but `thread` in `mask` for `line` from home router `hn` at `t`
    /// (SNP), invalidating (`invalidate`) or cleaning their private copies; each answers the
    /// home node, with the line (DAT) if its copy was dirty, else with a snoop response (RSP).
    /// Returns when the last answer is in and when the dirty data arrived, if any.
    fn snoop(
        &mut self,
        thread: usize,
        mask: u64,
        line: u64,
        hn: usize,
        t: u64,
        invalidate: bool,
    ) -> (u64, Option<u64>) {
        let (mut last, mut data) = (t, None);
        let mut others = mask & !(1u64 << thread);
        while others != 0 {
            let s = others.trailing_zeros() as usize;
            others &= others - 1;
            let rn = self.rn_of(s);
            let at = self.fabric.send(Vnet::Snp, hn, rn, self.header, t);
            self.snoops += 1;
            let dirty = self.private.invalidate_in(s, line);
            if dirty && !invalidate {
                // SnpShared: the owner keeps a clean copy (into the way just freed).
                self.private.access_in(s, line, false);
            }
            let back = if dirty {
                let d = self.fabric.send(Vnet::Dat, rn, hn, self.data, at);
                data = Some(d);
                d
            } else {
                self.fabric.send(Vnet::Rsp, rn, hn, self.header, at)
            };
            last = last.max(back);
        }
        (last, data)
    }

    /// The home slice's directory for a request of `thread` on `line` arriving at `at`:
    /// snoops the other holders a store (`unique`) must invalidate, or the dirty owner a load
    /// must clean; updates the entry. Returns (answers in, dirty data in).
    fn directory(&mut self, thread: usize, line: u64, hn: usize, at: u64, unique: bool) -> (u64, Option<u64>) {
        let me = 1u64 << thread;
        let e = *self.dir.get(&line).unwrap_or(&DirEntry::default());
        let t = at + self.slc_ps;
        let (done, data) = if unique && e.sharers & !me != 0 {
            self.snoop(thread, e.sharers, line, hn, t, true)
        } else if !unique && e.owner != 0 && e.owner != thread as u8 + 1 {
            let owner = usize::from(e.owner - 1);
            self.snoop(thread, 1u64 << owner, line, hn, t, false)
        } else {
            (at, None)
        };
        let entry = if unique {
            DirEntry {
                sharers: me,
                owner: thread as u8 + 1,
            }
        } else {
            DirEntry {
                sharers: e.sharers | me,
                owner: if e.owner == thread as u8 + 1 { e.owner } else { 0 },
            }
        };
        self.dir.insert(line, entry);
        (done, data)
    }

    /// A private-cache miss of thread `thread` on `line` issued at `t` (a store's too, `write`:
    /// it fetches the line unique, and the private cache holds it dirty); returns when the data
    /// is back.
    fn miss(&mut self, thread: usize, line: u64, write: bool, victim: Option<u64>, t: u64) -> u64 {
        let rn = self.rn_of(thread);
        let slice = self.slice_of(line);
        let hn = self.hn_router[slice / self.mesh.slices_per_home_node as usize];
        let (at, entry) = self.request(Vnet::Req, rn, hn, t, Some(thread), slice);
        // Direct memory transfer: no other core holds the line and the slice misses.
        let others = self.dir.get(&line).map_or(0, |e| e.sharers & !(1u64 << thread));
        let direct = self.mesh.direct_memory_transfer && others == 0 && !self.slc.contains_in(slice, line);
        let (acks, owner_data) = self.directory(thread, line, hn, at, write);
        if direct {
            // The home node looks the line up, misses and sends ReadNoSnp; the controller
            // sends the data to the requester, and the slice keeps no copy.
            self.direct_reads += 1;
            self.slc_lookups[slice] += 1;
            let done = self.memory_read(hn, line, at + self.slc_ps, rn);
            let ack = self.fabric.send(Vnet::Rsp, rn, hn, self.header, done);
            if let Some(e) = entry {
                self.home_trackers.release(e, ack);
            }
            if let Some(v) = victim {
                self.private_writeback(thread, rn, v, t);
            }
            return done;
        }
        let ready = match owner_data {
            // The owner's dirty copy comes back through the home node, which keeps it.
            Some(d) => {
                self.slc_lookups[slice] += 1;
                match self.slc.access_in(slice, line, true) {
                    Outcome::Hit { .. } => self.slc_hits[slice] += 1,
                    Outcome::Miss { writeback: Some(w) } => self.slice_writeback(slice, w, d),
                    Outcome::Miss { writeback: None } => {}
                }
                d.max(acks)
            }
            None => self.slice_read(slice, line, at).max(acks),
        };
        let done = self.fabric.send(Vnet::Dat, hn, rn, self.data, ready);
        // CompAck: the home node's tracker is held until it arrives.
        let ack = self.fabric.send(Vnet::Rsp, rn, hn, self.header, done);
        if let Some(e) = entry {
            self.home_trackers.release(e, ack);
        }
        if let Some(v) = victim {
            self.private_writeback(thread, rn, v, t);
        }
        done
    }

    /// Thread `thread`'s dirty private victim `v` written back from router `rn` at `t`
    /// (WriteBackFull; CompDBIDResp; the data), into its home slice dirty.
    fn private_writeback(&mut self, thread: usize, rn: usize, v: u64, t: u64) {
        {
            let vs = self.slice_of(v);
            let vh = self.hn_router[vs / self.mesh.slices_per_home_node as usize];
            let (a, entry) = self.request(Vnet::Req, rn, vh, t, Some(thread), vs);
            let r = self.fabric.send(Vnet::Rsp, vh, rn, self.header, a + self.slc_ps);
            let d = self.fabric.send(Vnet::Dat, rn, vh, self.data, r);
            if let Some(e) = entry {
                self.home_trackers.release(e, d);
            }
            // The writer no longer holds the line.
            if let Some(de) = self.dir.get_mut(&v) {
                de.sharers &= !(1u64 << thread);
                if de.owner == thread as u8 + 1 {
                    de.owner = 0;
                }
                if de.sharers == 0 {
                    self.dir.remove(&v);
                }
            }
            self.slc_lookups[vs] += 1;
            match self.slc.access_in(vs, v, true) {
                Outcome::Hit { .. } => self.slc_hits[vs] += 1,
                Outcome::Miss { writeback: Some(w) } => self.slice_writeback(vs, w, d + self.slc_ps),
                Outcome::Miss { writeback: None } => {}
            }
        }
    }

    /// Whether a store of `thread` hitting its clean private copy of `line` must ask the home
    /// node for it unique (other cores may hold it); if not, the copy was exclusive and the
    /// directory records the thread as the owner (a silent upgrade).
    fn needs_upgrade(&mut self, thread: usize, line: u64) -> bool {
        let me = 1u64 << thread;
        let e = self.dir.entry(line).or_default();
        if e.sharers & !me != 0 {
            return true;
        }
        *e = DirEntry {
            sharers: me,
            owner: thread as u8 + 1,
        };
        false
    }

    /// A store of `thread` hitting a clean private copy of `line` that other cores hold, at
    /// `t`: a CleanUnique to the home node, which invalidates them (SNP) before it answers
    /// (RSP Comp; then CompAck). Returns when the store may complete.
    fn upgrade(&mut self, thread: usize, line: u64, t: u64) -> u64 {
        self.upgrades += 1;
        let rn = self.rn_of(thread);
        let slice = self.slice_of(line);
        let hn = self.hn_router[slice / self.mesh.slices_per_home_node as usize];
        let (at, entry) = self.request(Vnet::Req, rn, hn, t, Some(thread), slice);
        let (acks, _) = self.directory(thread, line, hn, at, true);
        let comp = self
            .fabric
            .send(Vnet::Rsp, hn, rn, self.header, acks.max(at + self.slc_ps));
        let ack = self.fabric.send(Vnet::Rsp, rn, hn, self.header, comp);
        if let Some(e) = entry {
            self.home_trackers.release(e, ack);
        }
        comp
    }

    /// Runs `src` (one thread per entry of `cores`) to its end.
    ///
    /// Phases as the socket engine's ([`crate::sim::phase_window`]): with
    /// `phase_instructions > 0` every core stops before its first access at or past the phase
    /// end, computes up to it, and the next phase starts for every core when everything issued
    /// in this one has completed. The runtime's barriers are only instruction counts (every
    /// thread resumes at the latest arrival's count), so without phases a core whose thread
    /// waited at a barrier reaches its next loop after its own compute time, ahead of a thread
    /// still stalled on misses in a serial section, and first-touches that section's pages.
    pub fn run(mut self, src: &mut dyn AccessSource) -> Result<MeshResults, MeshSimError> {
        let threads = self.p.cores.len();
        if src.threads() != threads {
            return Err(MeshSimError::ThreadCount {
                workload: src.threads(),
                cores: threads,
            });
        }
        let lookahead_ps = 100_000;
        let mut clock = vec![0u64; threads];
        let mut last_instr = vec![0u64; threads];
        let mut mshr: Vec<Vec<u64>> = vec![Vec::with_capacity(self.p.mshrs); threads];
        let mut batch: Vec<Vec<Access>> = vec![Vec::new(); threads];
        let mut pos = vec![0usize; threads];
        let mut count = vec![0u64; threads];
        let mut done = vec![false; threads];
        let mut last_line = vec![NONE; threads];
        let mut end_ps = 0u64;
        let (mut accesses, mut misses) = (0u64, 0u64);
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::with_capacity(threads);
        let mut phase = 0u64;
        let mut phases = 0u64;
        let mut start_ps = 0u64;
        loop {
            for th in 0..threads {
                if !done[th] && pos[th] >= batch[th].len() {
                    src.next_batch(th, &mut batch[th])
                        .map_err(|e| MeshSimError::Source(e.to_string()))?;
                    crate::sim::clamp_instructions(&mut batch[th]);
                    pos[th] = 0;
                    done[th] = batch[th].is_empty();
                }
            }
            if done.iter().all(|&d| d) {
                break;
            }
            let phase_end = if self.p.phase_instructions == 0 {
                u64::MAX
            } else {
                let pending = (0..threads).filter(|&t| !done[t]).map(|t| batch[t][pos[t]].instr);
                let (next, end) = crate::sim::phase_window(phase, self.p.phase_instructions, pending);
                phase = next;
                end
            };
            phases += 1;
            for th in (0..threads).filter(|&t| !done[t]) {
                clock[th] = clock[th].max(start_ps);
                heap.push(Reverse((clock[th], th)));
            }
            while let Some(Reverse((t0, th))) = heap.pop() {
                self.fabric.horizon_ps = t0;
                let until = t0 + lookahead_ps;
                let mut at_barrier = false;
                while clock[th] < until {
                    if pos[th] >= batch[th].len() {
                        src.next_batch(th, &mut batch[th])
                            .map_err(|e| MeshSimError::Source(e.to_string()))?;
                        crate::sim::clamp_instructions(&mut batch[th]);
                        pos[th] = 0;
                        if batch[th].is_empty() {
                            done[th] = true;
                            break;
                        }
                    }
                    let a = batch[th][pos[th]];
                    if a.instr >= phase_end {
                        // The instructions up to the barrier run in this phase.
                        let d = phase_end.saturating_sub(last_instr[th]);
                        last_instr[th] = phase_end;
                        clock[th] = clock[th].saturating_add(self.compute_ps(d)).min(MAX_CLOCK_PS);
                        at_barrier = true;
                        break;
                    }
                    pos[th] += 1;
                    count[th] += 1;
                    if self.p.max_accesses_per_thread > 0 && count[th] > self.p.max_accesses_per_thread {
                        done[th] = true;
                        break;
                    }
                    accesses += 1;
                    let d = a.instr.saturating_sub(last_instr[th]);
                    last_instr[th] = a.instr;
                    clock[th] = clock[th].saturating_add(self.compute_ps(d)).min(MAX_CLOCK_PS);
                    let write = a.kind == AccessKind::Write;
                    let line = self.translate(a.vaddr, self.p.cores[th])?;
                    if line == last_line[th] && !write {
                        continue;
                    }
                    last_line[th] = line;
                    let (missed, completes) = self.private_access(th, line, write, &mut mshr[th], &mut clock[th]);
                    misses += u64::from(missed);
                    if let Some(t) = completes {
                        end_ps = end_ps.max(t);
                    }
                }
                if done[th] {
                    end_ps = end_ps.max(clock[th]);
                } else if !at_barrier {
                    heap.push(Reverse((clock[th], th)));
                }
            }
            // Barrier: the next phase starts when every core has reached it and everything
            // issued has completed (as the socket engine's).
            start_ps = (0..threads).map(|t| clock[t]).fold(end_ps, u64::max);
            for slots in &mut mshr {
                slots.clear();
            }
            if phase_end == u64::MAX {
                break;
            }
        }
        let end_ps = if self.p.phase_instructions == 0 {
            end_ps
        } else {
            end_ps.max(start_ps)
        };
        let mut res = self.results(end_ps, accesses, misses);
        res.phases = phases;
        Ok(res)
    }

    /// One access past the page table: the private caches, and on a miss or an upgrade a
    /// transaction that takes one of the core's miss slots (`slots`, moving its clock to when
    /// one is free). Returns whether it missed, and when its transaction completes if it made
    /// one.
    fn private_access(
        &mut self,
        th: usize,
        line: u64,
        write: bool,
        slots: &mut Vec<u64>,
        clock: &mut u64,
    ) -> (bool, Option<u64>) {
        match self.private.access_in(th, line, write) {
            Outcome::Hit { was_dirty } => {
                if write && !was_dirty && self.needs_upgrade(th, line) {
                    let t = self.claim_slot(slots, *clock);
                    *clock = t;
                    let done = self.upgrade(th, line, t);
                    slots.push(done);
                    return (false, Some(done));
                }
                (false, None)
            }
            Outcome::Miss { writeback } => {
                let t = self.claim_slot(slots, *clock);
                *clock = t;
                let done = self.miss(th, line, write, writeback, t);
                slots.push(done);
                (true, Some(done))
            }
        }
    }

    /// A miss slot for a request at `t`: when all are busy, the earliest outstanding one's
    /// completion frees it. Returns when the request can issue.
    fn claim_slot(&self, slots: &mut Vec<u64>, t: u64) -> u64 {
        if slots.len() < self.p.mshrs {
            return t;
        }
        let (k, &first) = slots.iter().enumerate().min_by_key(|&(_, &v)| v).expect("full");
        slots.swap_remove(k);
        t.max(first)
    }

    /// Time of `instructions` non-memory instructions, ps (saturating: a hostile trace may
    /// jump its count by 2^60).
    fn compute_ps(&self, instructions: u64) -> u64 {
        (instructions as f64 * self.p.base_cpi * self.core_cycle_ps).min(MAX_CLOCK_PS as f64) as u64
    }
}

mod error;
mod report;
#[cfg(test)]
mod tests;
mod trackers;
pub use error::MeshSimError;
pub use report::{MeshResults, NodeMc, NodeSlc, VnetReport};
use trackers::Trackers;
