//! Timing mode: the functional pipeline (same sources, page table, placement, LLC) with a
//! clock — cores with bounded memory-level parallelism, FIFO link directions, banked DRAM and
//! a socket-level directory — giving AMAT per access class, IPC and utilisations.
//!
//! Why a separate engine rather than a flag in the functional one: the functional engine is
//! tuned for counting speed and has no notion of time; here every shared resource is a queue
//! that must see requests in time order, which needs an event clock. Both reuse
//! [`crate::mem`] (page table, placement), [`crate::cache::SetAssocCache`] (the LLC) and
//! [`crate::stats`] (per-phase counts, so `by_class`, sharing and `phases.csv` mean the same).
//!
//! # Clock
//! Each core has its own clock (integer ps) and issues its accesses in program order. A whole
//! transaction — request legs, the home's directory and DRAM, invalidations, forwards and data
//! legs — is booked when its core issues it, on the [`timeline::Timeline`] of every link
//! direction, DRAM bank and data bus it crosses, so its completion time is known at once.
//! Cores are interleaved in time order: a heap of cores keyed by (clock, id) pops the slowest,
//! which runs until its clock is `lookahead_ns` past the popped time. Resources therefore see
//! requests almost in time order, and a timeline books the earliest free interval at or after
//! a request's arrival that holds it whole, so one presented late still uses an idle gap it
//! fits in (fed in time order, a timeline is an exact FIFO server). This replaced a per-hop discrete-event
//! engine: 5–10 heap operations per LLC miss held it near 1 M accesses/s, and a BFS run with
//! 64 cores did not finish; booking at issue costs no event at all. Same inputs → same order of
//! bookings → byte-identical results.
//!
//! # Read queues: the one deferred decision
//! A demand miss's DRAM read is the exception (`dram_read_queue > 0`, the default): its
//! request legs are booked at issue, then the read waits in its home's read queue
//! ([`dram_window`]), where the controller takes the read that can start first (FR-FCFS), as
//! a real one does among the requests it holds. Its completion is therefore unknown at issue:
//! the core records it as [`core::PENDING`] and runs on until it needs it (the ROB must retire
//! it, or every MSHR or store-buffer slot waits on one), then leaves the heap. Decisions and
//! cores run in one time order, a conservative event loop: node n's next read can be decided
//! once its start is no later than the slowest running core's clock (or any read still
//! pending, which could wake a core) plus the least time from issue to arrival at n, because
//! no read presented later can arrive before it. The data's legs are then booked and the core,
//! if it waits, goes back on the heap at the completion: of the read it must retire, or (all
//! its slots waiting) of the first of them decided, which frees the slot it takes. That is
//! decision order, and a read decided later may complete a little earlier (another node, a
//! shorter way back); the core does not wait for it, and so never issues before the clock at
//! which it went back on the heap (test builds assert that no message is booked before the
//! event loop's horizon). Measured (2026-11-24, a counter added for the measurement and
//! removed): on 64-thread `shared-hot` (quickstart in timing mode, 32 M accesses) 7 246 of
//! 11 013 slot waits had a read that completed before the one taken, by 149 ns on average;
//! summed, the cores went back on the heap at most 1.08 ms late out of 402 core-ms (0.27 %).
//! On `starnuma-bfs-timing.toml`, 708 of 2 364, at most 0.93 ms of 1 003 core-ms (0.09 %). Why only DRAM reads: they are what a
//! scheduling window reorders (saturated bandwidth came out 6–15 % below Ramulator 2 without
//! one, within 1.5 % with it); links stay FIFO and are booked at issue. Write-backs, page
//! copies and Talbot & Kelly's node controllers (which model the home's queueing themselves)
//! keep booking at issue; only a proxy's pending chain is decided in the same loop (its first
//! client gets the data last, after clients that join later: see [`node_controller`]).
//!
//! # Core ([`core`])
//! One core per thread. Non-memory instructions cost `base_cpi` cycles each, so the issue time
//! of an access is `t_prev + Δinstr · base_cpi / f`. A ROB of W entries: an access at
//! instruction `i` cannot issue before every tracked access at instruction `≤ i − W` has
//! completed (retirement is in order; a miss at the ROB head blocks the core). At most M
//! LLC-miss loads are outstanding (MSHRs); a further miss load waits for the earliest to
//! complete, and issue (in order) waits with it.
//! Tracked accesses are L2 hits, LLC hits and LLC-miss loads; L1 hits are assumed hidden by
//! the base CPI (unless their TLB walk adds latency). Stores retire through the store buffer:
//! they do not hold up retirement, but at most `store_buffer_entries` LLC-miss stores are in
//! flight (a further one waits for the oldest), so store traffic has backpressure; their
//! ownership requests, fetches and invalidations are simulated as traffic. The TLB is a
//! set-associative cache of page numbers; a miss adds a fixed `page_walk_cycles` (walk caches
//! assumed to hit; the walk makes no memory traffic). `core = "blocking"` (a machine's `[core]
//! model`, Talbot & Kelly's CPI-1 processor) has no window: each access waits for every
//! earlier one, stores included, and the instructions after a miss run once it completes.
//!
//! # Caches ([`private`])
//! Private L1-D and L2 per core ([`crate::cache::SetAssocCache`], as the LLC and the TLB) (write-back, LRU, filled on every miss; dirty victims go one
//! level down, L2 victims into the LLC), the shared per-socket LLC (non-inclusive; filled on
//! memory fetches and by L2 victims; dirty LLC victims are written back to the home). Latency
//! of an access: L1 hit `l1`, L2 hit `l1 + l2`, LLC hit `l1 + l2 + llc` (Table I cycles at the
//! socket's clock). Private caches are not kept coherent within a socket (cores of one socket
//! share data through the LLC only in the sense of the directory); across sockets they are
//! invalidated with the socket's LLC — only the cores the directory marks as possible holders
//! of the line (a superset kept per line), so a store does not probe every core's L1 and L2.
//!
//! # Coherence: socket-level directory at the home (MOESI-like; [`directory`])
//! Per line: a sharer mask of sockets and an owner socket (the last writer, holding it dirty).
//! State changes are applied when the request issues (no transient states or races).
//! - Load miss, no other owner: request R→H (header), home memory access, data H→R.
//! - Load miss, owner O ≠ R (**block transfer**): R→H, home memory access (the directory lives
//!   with memory, so the home pays its access), H→O forward (header), owner supplies the line
//!   after `owner_snoop_ns`, data O→R (socket home: 3 hops) or O→H→R (CXL pool home: 4 hops,
//!   StarNUMA §II). O keeps the line (Owned) and its private copies become clean. With
//!   `coherence = "mesi"` O instead writes the line back to H (data O→H and a posted DRAM
//!   write, booked from the request's issue: off the critical path) and keeps a clean shared
//!   copy, so the next reader's miss is served by memory, as in the StarNUMA artifact's
//!   directory; `timing.block_transfers.sharing_writebacks` counts these write-backs. The
//!   protocol is the machine file's `coherence` (MOESI when absent) unless the experiment's
//!   `[timing] coherence` sets it; `timing.coherence` in results.json says which was used.
//! - Store without exclusive ownership: sharers and owner are invalidated (their LLC and private
//!   copies dropped now); messages H→S (header) and acks S→R (header) are sent; on an LLC miss
//!   the data is fetched as for a load (from the owner if any) without stalling the core.
//! - Dirty LLC eviction: data R→H and a DRAM write (posted; no ack modelled); clears the owner.
//!
//! Message sizes: header `header_bytes` (16), data `header + line` (80).
//!
//! # Interconnect ([`link`]) and memory ([`dram`]), booked by [`booking`]
//! Each link direction is a FIFO server (bandwidth × `link_bandwidth_scale`, latency); memory
//! nodes have channels of ranks, bank groups and banks under the JEDEC constraints of the
//! node's timings, with refresh, a write queue and open or closed pages; formulas are in those
//! modules.
//!
//! # Calibration against the machine file
//! A node's `access_latency_ns` (e.g. StarNUMA local 80 ns) is the unloaded load-to-use time of
//! an LLC miss served by it to a directly attached socket, so it is split as
//! `lookup path (L1 + L2 + LLC tag latencies) + on-chip fixed + DRAM access to an idle bank`
//! (`tRCD + tCL + tBL` when idle banks are closed — refresh on, the default, or a closed page —
//! else a row miss `tRP + tRCD + tCL + tBL`), and `onchip_fixed = access_latency − lookup −
//! idle-bank access` is charged at the home before DRAM. An unloaded load therefore takes
//! exactly `access_latency_ns + 2 × route latency` whatever the DRAM timings — the machine's derived matrix (80/130/360/180 ns
//! on the StarNUMA presets). If the closed form exceeds `access_latency_ns` the fixed part is
//! 0 and `calibration.<node>.excess_ns` says by how much.
//!
//! Unloaded block-transfer latency is `access_latency_ns(H) + owner_snoop_ns` plus
//! `d(R,H) + d(H,O) + d(O,R)` (socket home) or `d(R,H) + 2 d(H,O) + d(H,R)` (pool home), `d` the one-way route
//! latency (0 between a socket and its own memory). StarNUMA §V-A charges "80ns for memory
//! access and directory lookup" on top of the network (§III-C: 333 ns 3-hop, 200 ns 4-hop
//! averages), i.e. 413 and 280 ns; the default `owner_snoop_ns = 0` follows that accounting.
//! Averaging over requester R, home H and owner O ≠ R, with H uniform over the 16 sockets
//! (H may equal R or O), the StarNUMA baseline preset gives 80 + 336.4 = 416.4 ns (+0.8 % vs
//! 413: the paper's 333 ns takes every leg 25 % intra-chassis, we take pairs of distinct
//! sockets, 3 of 15 intra-chassis, and zero-length legs when H is R's or O's); the pool path
//! is exactly 80 + 4 × 50 = 280 ns.
//!
//! # Outputs
//! `amat_ns.total` (`null` when no LLC-miss load was timed: no data, not 0; `amat_ns.loads`
//! counts them) and `amat_ns.by_class.<class>` (`count`, `mean`, `unloaded`, `contention`:
//! ns means over that class's LLC-miss loads; `few_samples: true` below
//! [`report::MIN_CLASS_LOADS`] loads; unloaded = fixed latencies + the DRAM command
//! time of the access's own row outcome, contention = every wait in a link, bank, tRAS or bus
//! queue; mean = unloaded + contention). Classes are those of functional mode — `local`,
//! `remote_<h>hop` (h = links on the route: 1 inside a StarNUMA chassis, 3 across chassis via
//! two FLEX ASICs), `pool` — plus `block_transfer`. Also IPC per core/socket, `sim_time_ns`,
//! link-direction and DRAM-channel utilisation, per-thread instructions and LLC MPKI. In the
//! functional-style counters, `llc_hits` counts every access that did not reach memory.
//!
//! # Migration
//! The same [`crate::migrate::Migrator`] as functional mode runs at each phase barrier (the
//! profilers observe the same events: LLC misses reaching memory, and every cache hit for the
//! TLB-level sources). Its moves are then charged in time by `TimingSim::charge_moves`: page
//! copies booked on links, banks and buses from the barrier (contending with the next phase),
//! misses to a page in flight wait until it lands, TLB shootdowns stall cores (hardware: the
//! initiator only; software: every core), and the OS thread's scan stalls the initiator.
//! `timing.migration` and each phase's `timing.migration` report pages, copy span, core stall
//! and in-flight waits.
//!
//! # Limits
//! Phase ends are global barriers: the next phase starts when everything issued has completed.
//! Every resource (link directions, node controllers, mesh lanes, DRAM banks, buses and
//! command spacings) books full-length gaps only, so none is ever booked beyond its capacity.
//! They are exact FIFO servers only for requests presented in time order; within the
//! lookahead and a route's length, an earlier-issued booking may hold an interval a
//! later-issued but earlier-arriving request would have taken first, and that request then
//! waits for the next gap that holds it whole. The order is approximate, the capacity exact;
//! [`reference`] (tests only) measures how far per-request latencies are from an exact
//! arrival-order discrete-event engine.
//! At most 64 sockets (sharer masks). Each thread has its own core even if a socket lists
//! fewer cores.

pub mod booking;
pub mod core;
pub mod directory;
pub mod dram;
pub mod dram_busy;
pub mod dram_loop;
pub mod dram_scheduler;
pub mod dram_window;
pub mod engine;
pub mod link;
pub mod mesh;
pub mod mesh_sim;
pub mod node_controller;
pub mod params;
pub mod private;
#[cfg(test)]
mod reference;
pub mod report;
mod setup_error;
pub mod timeline;

pub use setup_error::SetupError;

pub use engine::{TimingConfig, TimingSim};
pub use params::{Coherence, CoherenceChoice, CoherenceSource, CoreModel, DramPagePolicy, ProxyMode, TimingSpec};
pub use report::{PhaseTiming, TimingResults};
