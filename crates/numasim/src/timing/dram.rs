//! One memory node's controller: channels of ranks, bank groups and banks, with the JEDEC
//! timing constraints of [`DramTimings`] and an open- or closed-page policy.
//!
//! Times are integer picoseconds so results are exact and byte-identical. Requests reach a
//! controller nearly but not exactly in time order (write-backs and migration copies are
//! booked when the engine meets them); every resource below is therefore a list of busy intervals (a [`Busy`], the
//! engine's [`Timeline`](super::timeline::Timeline) searched from the tail, see
//! [`super::dram_busy`]), and a request is placed at the earliest time where *every*
//! constraint holds, whatever order requests were presented in. Placement is exact
//! ([`Busy::peek_free`]: full-length gaps only), so no DRAM resource is ever booked beyond its
//! capacity.
//!
//! # One request
//! Address → (channel, rank, bank group, bank, row) by the bit-slice mapping (below). The
//! outcome is decided against the bank's last booked row: hit (`to_cas = 0`), empty
//! (`tRCD`), miss (`tRP + tRCD`, and the precharge not before `pre_ok`: the last activate +
//! tRAS, the last read CAS + tRTP, the last write data end + tWR). The commands of one request
//! are placed as a block starting at `start`: precharge at `start`, activate at
//! `act = start + to_cas − tRCD`, column command at `cas ≥ start + to_cas`, data at
//! `cas + tCL` (read) or `cas + tCWL` (write) for `tBL`. The block is placed where:
//! - the bank is free for `[start, cas + tBL)` (open page) or until its auto-precharge has
//!   completed (closed page), outside the rank's refresh windows;
//! - the activate is `≥ tRRD_S` from every activate of the rank, `≥ tRRD_L` from every one of
//!   its bank group, and no window of `tFAW` holds five activates of the rank;
//! - the column command is `≥ tCCD_S` from every column command of the rank and `≥ tCCD_L`
//!   from every one of its bank group;
//! - the data burst is free on the channel's bus, and read and write bursts keep their
//!   turnaround: a read's data starts `≥ tWTR + tCL` after a write burst ends (the read command
//!   waits tWTR after the write data), a write's data starts `≥ tRTW` after a read burst ends.
//!   Expressed as footprints: a read occupies `[d, d + tBL + tRTW)` and a write
//!   `[d, d + tBL + tWTR + tCL)` against the other direction, which is exactly both rules.
//!
//! The bank and activate rules move `start` (and the column command with it); the column and
//! bus rules move the column command alone, so an activate goes ahead of a column command that
//! waits for a turnaround or another group's burst, as a controller issues it (the bank is held
//! from `start` to the burst). Delaying the whole block instead cost a tFAW-bound 2:1
//! read:write mix 8 % of its bandwidth against Ramulator 2: activates sat idle behind write
//! turnarounds.
//!
//! # Closed forms (unloaded, open page)
//! Row miss `tRP + tRCD + tCL + tBL`, row hit `tCL + tBL`; a row-hit stream in one bank group
//! delivers one line per `max(tBL, tCCD_L)`, spread over bank groups one per `max(tBL,
//! tCCD_S)`; at most four activates per `tFAW` per rank; random reads saturate at `min(peak,
//! banks × line / (tRAS + tRP), 4 × line / tFAW per rank)`. Banks start with some other row
//! open (the steady state of an open-page controller), so a first access is a row miss, the
//! case the machine's `access_latency_ns` is calibrated against ([`DramPs::first_access`];
//! with a closed page it is `tRCD + tCL + tBL`).
//!
//! # Refresh (on by default)
//! Per rank: rank `r` refreshes during `[k·tREFI + r·tREFI/ranks, … + tRFC)` (staggered, as
//! controllers do); no bank command of that rank is placed across such a window, and a
//! refresh closes the rank's rows.
//!
//! # Address mapping
//! A request's physical line address is `frame × lines_per_page + line in page`: frames of a
//! node are consecutive, so rows can span pages. A mapping such as `RoBaRaCoCh` names the
//! fields from most to least significant: `Ch` channel, `Co` column (lines per row), `Ra` rank,
//! `Bg` bank group, `Ba` bank (bank group and bank together when `Bg` is not named, the bank
//! group the faster-changing digit), `Ro` row. Fields are mixed-radix digits, so channel and
//! bank counts need not be powers of two; the most significant field takes what is left.
//!
//! # Write queue
//! Writes (write-backs, migration copies) are posted: accepted at once into a per-channel queue
//! and, when `high` wait, the oldest down to `low` drain as one batch from that moment,
//! scheduled FR-FCFS among themselves ([`RequestWindow`]: the write that can start first goes
//! first; one bus turnaround for the batch instead of one per write). A read of a line still
//! queued is not forwarded from the queue (it goes to DRAM).
//!
//! # Read queue
//! [`MemoryController::access_at`] places a read when it is presented. The engine's demand
//! reads instead wait in a [`RequestWindow`] (FR-FCFS with a bypass cap, see
//! [`super::dram_window`]), built on [`MemoryController::probe`] and
//! [`MemoryController::commit`]: the same placement, split so that a scheduler can compare
//! candidates before it books one.
//!
//! Not modelled: rank-to-rank bus switching (tRTRS), and the tWTR_L / tWTR_S distinction (one
//! tWTR, applied across the channel).

use super::dram_busy::{Busy, RankActs};
use super::dram_window::RequestWindow;
use numasim_machine::DramTimings;

const OTHER_ROW: u64 = u64::MAX - 1;
const CLOSED: u64 = u64::MAX;

/// Picosecond conversion used everywhere in the timing model.
#[inline]
pub fn ps(ns: f64) -> u64 {
    (ns * 1000.0).round().max(0.0) as u64
}

/// Timing parameters in ps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramPs {
    pub t_rcd: u64,
    pub t_cl: u64,
    pub t_rp: u64,
    pub t_ras: u64,
    pub t_cwl: u64,
    pub t_bl: u64,
    pub t_ccd_s: u64,
    pub t_ccd_l: u64,
    pub t_rrd_s: u64,
    pub t_rrd_l: u64,
    pub t_faw: u64,
    pub t_rtp: u64,
    pub t_wr: u64,
    pub t_wtr: u64,
    pub t_rtw: u64,
    pub t_refi: u64,
    pub t_rfc: u64,
    /// Closed-page policy (auto-precharge after every access).
    pub closed_page: bool,
    /// An idle bank is found closed: closed page, or refresh on (every refresh precharges
    /// the rank, and an idle bank has seen one within tREFI).
    pub idle_closed: bool,
}

impl DramPs {
    /// `burst_ns`: one line on the channel (`line_bytes / channel peak`).
    pub fn new(t: &DramTimings, burst_ns: f64, closed_page: bool, refresh: bool) -> DramPs {
        DramPs {
            t_rcd: ps(t.t_rcd_ns),
            t_cl: ps(t.t_cl_ns),
            t_rp: ps(t.t_rp_ns),
            t_ras: ps(t.t_ras_ns),
            t_cwl: ps(t.t_cwl_ns),
            t_bl: ps(burst_ns).max(1),
            t_ccd_s: ps(t.t_ccd_s_ns),
            t_ccd_l: ps(t.t_ccd_l_ns),
            t_rrd_s: ps(t.t_rrd_s_ns),
            t_rrd_l: ps(t.t_rrd_l_ns),
            t_faw: ps(t.t_faw_ns),
            t_rtp: ps(t.t_rtp_ns),
            t_wr: ps(t.t_wr_ns),
            t_wtr: ps(t.t_wtr_ns),
            t_rtw: ps(t.t_rtw_ns),
            t_refi: ps(t.t_refi_ns).max(1),
            t_rfc: ps(t.t_rfc_ns),
            closed_page,
            idle_closed: closed_page || (refresh && t.t_rfc_ns > 0.0),
        }
    }
    /// Unloaded row-miss (conflict) read latency.
    pub fn row_miss(&self) -> u64 {
        self.t_rp + self.t_rcd + self.t_cl + self.t_bl
    }
    /// Unloaded row-hit read latency.
    pub fn row_hit(&self) -> u64 {
        self.t_cl + self.t_bl
    }
    /// Unloaded read latency of an access to an idle bank (what the node latency is calibrated
    /// against): an activate when idle banks are closed (closed page, or refresh on), else a
    /// row miss (banks start with another row open).
    pub fn first_access(&self) -> u64 {
        if self.idle_closed {
            self.t_rcd + self.t_cl + self.t_bl
        } else {
            self.row_miss()
        }
    }
    /// After the column command at `cas`: earliest precharge of the bank.
    #[inline]
    fn pre_after_cas(&self, write: bool) -> u64 {
        if write {
            self.t_cwl + self.t_bl + self.t_wr
        } else {
            self.t_rtp
        }
    }
}

/// Where a line lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub channel: usize,
    pub rank: usize,
    pub group: usize,
    /// Bank index within the channel (rank, group and bank together).
    pub bank: usize,
    pub row: u64,
}

#[derive(Debug, Clone)]
struct Bank {
    open_row: u64,
    /// Command occupancy (precharge/activate through the burst, or the auto-precharge).
    timeline: Busy,
    /// Earliest precharge: last activate + tRAS, last read + tRTP, last write + tWR.
    pre_ok_ps: u64,
    refresh_epoch: u64,
}

/// Activate and column-command spacing of a bank group.
#[derive(Debug, Clone, Default)]
struct Spacing {
    /// Activates as intervals `[act, act + tRRD)`: a free `[x, x + tRRD)` is `≥ tRRD` from each.
    acts: Busy,
    /// Column commands as intervals `[cas, cas + tCCD)`.
    cas: Busy,
}

/// One rank: its activates (tRRD_S, tFAW), column commands (tCCD_S), refresh windows.
#[derive(Debug, Clone, Default)]
struct Rank {
    acts: RankActs,
    /// Column commands as intervals `[cas, cas + tCCD_S)`.
    cas: Busy,
    /// First refresh window of the rank (staggered within the channel), ps.
    refresh_off_ps: u64,
    /// The last refresh window looked up, `refresh_off_ps + k·tREFI` (saves a division per
    /// lookup: requests come nearly in time order, so the next lookup is mostly this window
    /// or the next).
    refresh_k: u64,
    refresh_w_ps: u64,
}

impl Rank {
    /// Index `k` and start of the refresh period `[off + k·tREFI, off + (k+1)·tREFI)` that
    /// holds `s` (`s ≥ refresh_off_ps`).
    #[inline]
    fn refresh_period(&mut self, s: u64, t_refi: u64) -> (u64, u64) {
        let since = s.wrapping_sub(self.refresh_w_ps);
        if s < self.refresh_w_ps || since >= 2 * t_refi {
            self.refresh_k = (s - self.refresh_off_ps) / t_refi;
            self.refresh_w_ps = self.refresh_off_ps + self.refresh_k * t_refi;
        } else if since >= t_refi {
            self.refresh_k += 1;
            self.refresh_w_ps += t_refi;
        }
        (self.refresh_k, self.refresh_w_ps)
    }
}

/// One channel's data bus: bursts by direction, and each direction's turnaround footprint.
#[derive(Debug, Clone, Default)]
struct Bus {
    reads: Busy,
    writes: Busy,
    read_foot: Busy,
    write_foot: Busy,
}

/// A request placed but not booked ([`MemoryController::probe`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub place: Place,
    pub arrive_ps: u64,
    /// Start of the request's command block (precharge, activate or column command), ps.
    pub start_ps: u64,
    /// The column command, `≥ start_ps + to_cas` (later when it waits and the activate does not).
    pub cas_ps: u64,
    to_cas: u64,
    data_after_cas: u64,
    bank_len: u64,
    turn_len: u64,
    pub hit: bool,
    pub write: bool,
}

/// What one access cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramResult {
    pub done_ps: u64,
    /// DRAM command time of this access's row outcome (hit / empty / miss).
    pub service_ps: u64,
    /// Waiting: busy bank, timing constraints, refresh, data bus.
    pub wait_ps: u64,
    pub row_hit: bool,
}

#[derive(Debug, Clone)]
pub struct MemoryController {
    pub t: DramPs,
    map: AddressMap,
    /// The mapping's digits, least significant first (radix, and its log2 when a power of
    /// two: shifts instead of divisions in [`MemoryController::place`]).
    digits: [Digit; 6],
    /// The mapping names `Bg` (else `Ba` holds bank group and bank together).
    has_bg: bool,
    /// Splits a combined bank digit into bank group and bank.
    group_digit: Digit,
    /// When every radix is a power of two: each field as (shift, mask) of the line address.
    bits: Option<BitFields>,
    channels: u64,
    ranks: u64,
    groups: u64,
    banks_per_group: u64,
    lines_per_page: u64,
    refresh: bool,
    bank: Vec<Bank>,
    rank: Vec<Rank>,
    /// Per channel × rank × group.
    group: Vec<Spacing>,
    bus: Vec<Bus>,
    /// Per channel: ps the data bus carried data.
    pub bus_busy_ps: Vec<u64>,
    pub accesses: u64,
    pub row_hits: u64,
    pub writes: u64,
    pub activates: u64,
    /// Write-queue drains so far.
    pub drains: u64,
    /// Per channel: posted writes not yet drained (arrival, line address).
    write_q: Vec<Vec<(u64, u64)>>,
    wq_high: usize,
    wq_low: usize,
    /// A drain's batch, sorted (bank, row, line address): kept to avoid an allocation per drain.
    drain_batch: Vec<(usize, u64, u64)>,
    /// Probes that moved a bank into a new refresh period (closing its row): the only state
    /// a probe changes. While it stands still, probing the same place, direction and start
    /// bound again gives the same slot (the read window reuses it).
    pub(crate) refresh_closes: u64,
    /// No probe from before this changes state: the earliest start of a bank's next refresh
    /// period, over all banks (`u64::MAX` without refresh); `None` when a bank moved since it
    /// was computed ([`Self::refresh_quiet_until_ps`]).
    refresh_quiet_until_ps: Option<u64>,
    /// Banks whose next refresh period starts at `refresh_quiet_until_ps`: the minimum moves
    /// only when the last of them moves (banks of a rank tie, so one pass per round of
    /// refreshes instead of one per bank).
    refresh_quiet_ties: u32,
}

/// How a node's DRAM is organised and run, besides its timings.
#[derive(Debug, Clone, Copy)]
pub struct DramConfig {
    pub channels: u32,
    pub page_bytes: u64,
    pub row_bytes: u64,
    /// Node capacity: how many rows a bank has.
    pub capacity_bytes: u64,
    pub refresh: bool,
    pub closed_page: bool,
    pub map: AddressMap,
    /// Write queue watermarks per channel: a drain starts when `high` writes wait and stops at
    /// `low`. `high = 0`: no write queue (writes are scheduled on arrival).
    pub write_queue_high: u32,
    pub write_queue_low: u32,
}

impl DramConfig {
    /// One channel of `capacity_bytes` as DRAM simulators measure it alone: 8 KiB rows,
    /// RoBaRaCoCh, open page, refresh on, write queue drained from 26 down to 6 (the
    /// standalone comparisons' setting; machines set every field from their TOML).
    pub fn one_channel(capacity_bytes: u64) -> DramConfig {
        DramConfig {
            channels: 1,
            page_bytes: 4096,
            row_bytes: 8192,
            capacity_bytes,
            refresh: true,
            closed_page: false,
            map: AddressMap::parse("RoBaRaCoCh").expect("RoBaRaCoCh is a valid mapping"),
            write_queue_high: 26,
            write_queue_low: 6,
        }
    }
}

impl MemoryController {
    pub fn new(timings: &DramTimings, burst_ns: f64, cfg: &DramConfig) -> Self {
        let channels = u64::from(cfg.channels.max(1));
        let ranks = u64::from(timings.ranks.max(1));
        let groups = u64::from(timings.bank_groups.max(1));
        let banks_per_group = u64::from(timings.banks_per_group.max(1));
        let banks = (channels * ranks * groups * banks_per_group) as usize;
        let lines_per_row = (cfg.row_bytes / 64).max(1);
        let rows = (cfg.capacity_bytes / (cfg.row_bytes.max(64) * banks as u64)).max(1);
        let has_bg = cfg.map.fields[..cfg.map.len].contains(&Field::Bg);
        let mut digits = [Digit {
            field: Field::Co,
            radix: 1,
            shift: Some(0),
        }; 6];
        for (d, &field) in digits.iter_mut().zip(&cfg.map.fields[..cfg.map.len]) {
            let radix = match field {
                Field::Ch => channels,
                Field::Ra => ranks,
                Field::Bg => groups,
                Field::Ba if has_bg => banks_per_group,
                Field::Ba => groups * banks_per_group,
                Field::Ro => rows,
                Field::Co => lines_per_row,
            };
            *d = Digit {
                field,
                radix,
                shift: radix.is_power_of_two().then(|| radix.trailing_zeros()),
            };
        }
        let t = DramPs::new(timings, burst_ns, cfg.closed_page, cfg.refresh);
        let bits = BitFields::new(&digits[..cfg.map.len], channels, ranks, groups, banks_per_group);
        let mut m = MemoryController {
            bits,
            t,
            map: cfg.map,
            digits,
            has_bg,
            group_digit: Digit {
                field: Field::Bg,
                radix: groups,
                shift: groups.is_power_of_two().then(|| groups.trailing_zeros()),
            },
            channels,
            ranks,
            groups,
            banks_per_group,
            lines_per_page: (cfg.page_bytes / 64).max(1),
            refresh: cfg.refresh,
            bank: vec![
                Bank {
                    open_row: if cfg.closed_page { CLOSED } else { OTHER_ROW },
                    timeline: Busy::new(),
                    pre_ok_ps: 0,
                    refresh_epoch: 0,
                };
                banks
            ],
            rank: (0..channels * ranks)
                .map(|r| {
                    let off = (r % ranks) * t.t_refi / ranks;
                    Rank {
                        refresh_off_ps: off,
                        refresh_w_ps: off,
                        ..Rank::default()
                    }
                })
                .collect(),
            group: vec![Spacing::default(); (channels * ranks * groups) as usize],
            bus: vec![Bus::default(); channels as usize],
            bus_busy_ps: vec![0; channels as usize],
            accesses: 0,
            row_hits: 0,
            writes: 0,
            activates: 0,
            drains: 0,
            write_q: vec![Vec::with_capacity(cfg.write_queue_high as usize); channels as usize],
            wq_high: cfg.write_queue_high as usize,
            wq_low: cfg.write_queue_low.min(cfg.write_queue_high.saturating_sub(1)) as usize,
            drain_batch: Vec::new(),
            refresh_closes: 0,
            refresh_quiet_until_ps: None,
            refresh_quiet_ties: 0,
        };
        let (until, ties) = m.refresh_quiet_until();
        m.refresh_quiet_until_ps = Some(until);
        m.refresh_quiet_ties = ties;
        m
    }

    /// Physical line address of byte `offset` of page frame `frame`.
    #[inline]
    pub fn row_of(&self, frame: u64, offset: u64) -> u64 {
        frame * self.lines_per_page + (offset >> 6)
    }

    pub fn channels(&self) -> usize {
        self.channels as usize
    }

    /// Posted writes waiting for a drain, over all channels.
    pub fn queued_writes(&self) -> usize {
        self.write_q.iter().map(Vec::len).sum()
    }

    /// Serves one read arriving at `arrive_ps` (non-decreasing across calls).
    pub fn access(&mut self, arrive_ps: u64, addr: u64) -> DramResult {
        self.access_at(arrive_ps, addr, false, arrive_ps)
    }

    /// Refresh window of rank `rank` that `[s, s + len)` meets, as its end.
    #[inline]
    fn refresh_conflict(r: &mut Rank, t: &DramPs, s: u64, len: u64) -> Option<u64> {
        let off = r.refresh_off_ps;
        if s < off {
            // Before this rank's first window.
            return (s + len > off).then_some(off + t.t_rfc);
        }
        let (_, w) = r.refresh_period(s, t.t_refi);
        if s - w < t.t_rfc {
            Some(w + t.t_rfc)
        } else if s + len > w + t.t_refi {
            Some(w + t.t_refi + t.t_rfc)
        } else {
            None
        }
    }

    /// Serves one line access (`write`: a write) arriving at `arrive_ps`, presented in any
    /// order; no later request arrives before `horizon_ps`. The row outcome follows
    /// presentation order. With a write queue, a write is posted: it is accepted at once
    /// (`done_ps = arrive_ps`) and reaches the DRAM in the next drain.
    pub fn access_at(&mut self, arrive_ps: u64, addr: u64, write: bool, horizon_ps: u64) -> DramResult {
        if !write || self.wq_high == 0 {
            return self.schedule(arrive_ps, addr, write, horizon_ps);
        }
        let ch = self.place(addr).channel;
        self.write_q[ch].push((arrive_ps, addr));
        if self.write_q[ch].len() >= self.wq_high {
            let _ = self.drain(ch, arrive_ps, horizon_ps);
        }
        DramResult {
            done_ps: arrive_ps,
            service_ps: 0,
            wait_ps: 0,
            row_hit: false,
        }
    }

    /// Drains every posted write at `at` (end of a measurement: the queue's contents still
    /// cost bus time).
    /// Returns when the last of them completes (`at` if none were queued).
    pub fn drain_all_writes(&mut self, at: u64) -> u64 {
        let mut end = at;
        for ch in 0..self.write_q.len() {
            if !self.write_q[ch].is_empty() {
                let low = self.wq_low;
                self.wq_low = 0;
                end = end.max(self.drain(ch, at, at));
                self.wq_low = low;
            }
        }
        end
    }

    /// The high watermark is reached at `at`: the oldest writes, down to the low watermark,
    /// go to the DRAM as one batch from `at`, grouped by bank and row (row hits back to back,
    /// one bus turnaround for the batch).
    /// Returns when the batch's last write completes.
    fn drain(&mut self, ch: usize, at: u64, horizon_ps: u64) -> u64 {
        let n = self.write_q[ch].len() - self.wq_low;
        let mut batch = std::mem::take(&mut self.drain_batch);
        batch.clear();
        for &(_, a) in &self.write_q[ch][..n] {
            let p = self.place(a);
            batch.push((p.bank, p.row, a));
        }
        self.write_q[ch].drain(..n);
        // Writes with equal keys are the same line: their order does not matter.
        batch.sort_unstable();
        let mut end = at;
        // FR-FCFS over the batch: the write that can start first goes first (dram_window).
        let mut w = RequestWindow::new(batch.len(), None);
        for &(_, _, a) in &batch {
            w.push(self, at, at, a, true, 0);
        }
        while let Some(d) = w.decide(self, at, horizon_ps, u64::MAX) {
            end = end.max(d.result.done_ps);
        }
        self.drain_batch = batch;
        self.drains += 1;
        end
    }

    /// Places one request as a block of commands at the earliest time every constraint
    /// holds (module docs) and books it.
    ///
    /// Each constraint maps a candidate start `x` to its own earliest admissible start `≥ x`
    /// (every start in between breaks it), so applying them in turn until none moves the
    /// candidate finds the earliest start all admit; the order only changes how many steps
    /// that takes.
    fn schedule(&mut self, arrive_ps: u64, addr: u64, write: bool, horizon_ps: u64) -> DramResult {
        let slot = self.probe(arrive_ps, addr, write);
        self.commit(&slot, horizon_ps)
    }

    /// Where `Self::schedule` would place a request arriving at `arrive_ps` if it were
    /// presented now, without booking it: the earliest start every constraint admits given
    /// what is booked so far. Booking more can only move it later (each constraint is a
    /// busy list that only grows), which is what the read window's lazy re-probing relies on.
    pub fn probe(&mut self, arrive_ps: u64, addr: u64, write: bool) -> Slot {
        self.probe_from(arrive_ps, arrive_ps, addr, write)
    }

    /// [`Self::probe`] for a request that cannot start before `not_before_ps` (a read queue
    /// deciding after the busy lists forgot what ended before its horizon: placing from the
    /// horizon gives the same start whenever the true start lies beyond it).
    pub fn probe_from(&mut self, arrive_ps: u64, not_before_ps: u64, addr: u64, write: bool) -> Slot {
        let p = self.place(addr);
        self.probe_place(p, arrive_ps, not_before_ps, write)
    }

    /// Whether a probe of a request at `p` starting from `want_ps` (its arrival or the
    /// caller's bound, the later) would move the bank into a new refresh period, closing its
    /// row: the one thing a probe changes (see [`Self::probe_place`]). The bank's period is
    /// `e` (0 before its rank's first window); a probe moves it on from `off + e·tREFI`.
    #[inline]
    pub(crate) fn probe_changes_state(&self, p: &Place, want_ps: u64) -> bool {
        if !self.refresh || self.t.t_rfc == 0 {
            return false;
        }
        let e = self.bank[p.bank].refresh_epoch;
        let off = self.rank[p.rank].refresh_off_ps;
        want_ps >= off.saturating_add(e.saturating_mul(self.t.t_refi))
    }

    /// Before this time no probe changes state (see [`Self::probe_changes_state`]): the
    /// earliest start of a bank's next refresh period over all banks, `u64::MAX` without
    /// refresh. One pass over the banks after one of them moved, else kept.
    #[inline]
    pub(crate) fn refresh_quiet_until_ps(&mut self) -> u64 {
        match self.refresh_quiet_until_ps {
            Some(t) => t,
            None => {
                let (t, ties) = self.refresh_quiet_until();
                self.refresh_quiet_until_ps = Some(t);
                self.refresh_quiet_ties = ties;
                t
            }
        }
    }

    /// The earliest start of a bank's next refresh period, and how many banks share it.
    fn refresh_quiet_until(&self) -> (u64, u32) {
        if !self.refresh || self.t.t_rfc == 0 {
            return (u64::MAX, 0);
        }
        let banks_per_rank = (self.groups * self.banks_per_group) as usize;
        let mut until = (u64::MAX, 0);
        for (i, b) in self.bank.iter().enumerate() {
            let off = self.rank[i / banks_per_rank].refresh_off_ps;
            let next = off.saturating_add(b.refresh_epoch.saturating_mul(self.t.t_refi));
            if next < until.0 {
                until = (next, 1);
            } else if next == until.0 {
                until.1 += 1;
            }
        }
        until
    }

    /// Whether a request at `p` is a row hit as things stand: with nothing that closes the
    /// bank's row first (a refresh period, see [`Self::probe_changes_state`]), what
    /// [`Self::probe_place`] decides it against.
    #[inline]
    pub(crate) fn row_hit_now(&self, p: &Place) -> bool {
        !self.t.closed_page && self.bank[p.bank].open_row == p.row
    }

    /// Banks over all channels and ranks ([`Place::bank`] is below this).
    pub(crate) fn bank_count(&self) -> usize {
        self.bank.len()
    }

    /// Refresh: a request at `want` past the bank's refresh period closes its row (the
    /// refresh precharged it), and the earliest period still pending over the banks moves on.
    #[inline]
    fn refresh_closes_bank(&mut self, p: &Place, want: u64) {
        let t = self.t;
        let bank = &mut self.bank[p.bank];
        let rank = &mut self.rank[p.rank];
        let off = rank.refresh_off_ps;
        let epoch = if want >= off {
            rank.refresh_period(want, t.t_refi).0 + 1
        } else {
            0
        };
        if epoch > bank.refresh_epoch {
            // The bank's next period starts later now: the minimum over the banks moves
            // only if it was the last bank at it.
            let was = off.saturating_add(bank.refresh_epoch.saturating_mul(t.t_refi));
            if self.refresh_quiet_until_ps == Some(was) {
                self.refresh_quiet_ties -= 1;
                if self.refresh_quiet_ties == 0 {
                    self.refresh_quiet_until_ps = None;
                }
            }
            bank.open_row = CLOSED;
            bank.pre_ok_ps = 0;
            bank.refresh_epoch = epoch;
            self.refresh_closes += 1;
        }
    }

    /// The time from a request's start to its column command: 0 on a row hit, tRCD into a
    /// closed bank, tRP + tRCD past another open row, whose precharge waits for the bank's
    /// `pre_ok` (moving `want`) unless the request fits in a gap before the bank's last booking.
    #[inline]
    fn to_cas(bank: &Bank, t: &DramPs, hit: bool, want: &mut u64) -> u64 {
        if hit {
            0
        } else if bank.open_row == CLOSED {
            t.t_rcd
        } else {
            let slot = bank.timeline.peek_free(*want, t.t_rp + t.t_rcd + t.t_bl);
            if slot + t.t_ras >= bank.pre_ok_ps {
                *want = (*want).max(bank.pre_ok_ps);
            }
            t.t_rp + t.t_rcd
        }
    }

    /// [`Self::probe_from`] for a request already placed (`p` from [`Self::place`]): a queue
    /// places each request once, not at every probe.
    pub(crate) fn probe_place(&mut self, p: Place, arrive_ps: u64, not_before_ps: u64, write: bool) -> Slot {
        let refresh = self.refresh && self.t.t_rfc > 0;
        let mut want = arrive_ps.max(not_before_ps);
        if refresh {
            self.refresh_closes_bank(&p, want);
        }
        let t = &self.t;
        let bank = &mut self.bank[p.bank];
        let rank = &mut self.rank[p.rank];
        let hit = !t.closed_page && bank.open_row == p.row;
        let activates = !hit;
        let to_cas = Self::to_cas(bank, t, hit, &mut want);
        let data_after_cas = if write { t.t_cwl } else { t.t_cl };
        // This burst's turnaround footprint against the other direction (module docs).
        let turn_len = if write {
            t.t_bl + t.t_wtr + t.t_cl
        } else {
            t.t_bl + t.t_rtw
        };
        // The activate's offset from the block's start (after the precharge of a row miss).
        let act_off = to_cas - t.t_rcd.min(to_cas);
        let closed_page = t.closed_page;
        let pre_after_cas = t.pre_after_cas(write);
        // Bank occupancy from the block's start: through the burst (open page), or through
        // the auto-precharge (closed page).
        let bank_len = |start: u64, cas: u64| {
            if closed_page {
                (start + act_off + t.t_ras).max(cas + pre_after_cas) + t.t_rp - start
            } else {
                cas + t.t_bl - start
            }
        };
        let group = &self.group[p.group];
        let bus = &self.bus[p.channel];
        let (same, other_foot) = if write {
            (&bus.writes, &bus.read_foot)
        } else {
            (&bus.reads, &bus.write_foot)
        };
        // The constraints in turn: the bank and the activate's spacing move the block's start
        // (and the column command with it, never before `start + to_cas`); the column
        // command's spacing and the bus move the column command alone, so an activate can go
        // ahead of a column command that waits (for a turnaround, or another group's burst),
        // as a controller issues it. Stop when the one that last moved comes round again with
        // nothing moved since (it admits the times it chose, and all the others were checked
        // at them). A row hit has no activate: its start is its column command.
        // Written out in that order, each rule first checking whether it was the last to move.
        const NONE: usize = usize::MAX;
        let mut start = want;
        let mut cas = start + to_cas;
        let mut last_moved = NONE;
        // A rule giving the earliest admissible block start from `start`.
        macro_rules! start_rule {
            ($k:expr, $new:expr) => {{
                if last_moved == $k {
                    break;
                }
                let s: u64 = $new;
                if s != start {
                    start = s;
                    cas = cas.max(start + to_cas);
                    last_moved = $k;
                }
            }};
        }
        // A rule giving the earliest admissible column command from `cas`.
        macro_rules! cas_rule {
            ($k:expr, $new:expr) => {{
                if last_moved == $k {
                    break;
                }
                let c: u64 = $new;
                if c != cas {
                    cas = c;
                    if hit {
                        start = cas;
                    }
                    last_moved = $k;
                }
            }};
        }
        loop {
            start_rule!(0, {
                let mut s = bank.timeline.peek_free(start, bank_len(start, cas));
                if refresh {
                    while let Some(end) = Self::refresh_conflict(rank, t, s, bank_len(s, cas.max(s + to_cas))) {
                        s = bank.timeline.peek_free(end, bank_len(end, cas.max(end + to_cas)));
                    }
                }
                s
            });
            if activates {
                start_rule!(1, rank.acts.earliest(start + act_off, t.t_rrd_s, t.t_faw) - act_off);
                start_rule!(2, group.acts.peek_free(start + act_off, t.t_rrd_l) - act_off);
            }
            cas_rule!(3, rank.cas.peek_free(cas, t.t_ccd_s));
            cas_rule!(4, group.cas.peek_free(cas, t.t_ccd_l));
            cas_rule!(5, same.peek_free(cas + data_after_cas, t.t_bl) - data_after_cas);
            cas_rule!(6, other_foot.peek_free(cas + data_after_cas, turn_len) - data_after_cas);
            if last_moved == NONE {
                break;
            }
        }
        Slot {
            place: p,
            arrive_ps,
            start_ps: start,
            cas_ps: cas,
            to_cas,
            data_after_cas,
            bank_len: bank_len(start, cas),
            turn_len,
            hit,
            write,
        }
    }

    /// Books a request where [`Self::probe`] placed it. `slot` must come from a probe with
    /// nothing booked since (the read window re-probes before it commits).
    pub fn commit(&mut self, slot: &Slot, horizon_ps: u64) -> DramResult {
        let Slot {
            place: p,
            arrive_ps,
            start_ps: start,
            cas_ps: cas,
            to_cas,
            data_after_cas,
            bank_len,
            turn_len,
            hit,
            write,
        } = *slot;
        let t = self.t;
        let activates = !hit;
        let bank = &mut self.bank[p.bank];
        let rank = &mut self.rank[p.rank];
        let data = cas + data_after_cas;
        // Book everything the block uses.
        bank.timeline.insert(start, bank_len, horizon_ps);
        if activates {
            let act = start + to_cas - t.t_rcd;
            bank.pre_ok_ps = bank.pre_ok_ps.max(act + t.t_ras);
            rank.acts.insert(act, t.t_rrd_s, t.t_faw, horizon_ps);
            self.group[p.group].acts.insert(act, t.t_rrd_l, horizon_ps);
            self.activates += 1;
        }
        bank.pre_ok_ps = bank.pre_ok_ps.max(cas + t.pre_after_cas(write));
        bank.open_row = if t.closed_page { CLOSED } else { p.row };
        rank.cas.insert(cas, t.t_ccd_s, horizon_ps);
        self.group[p.group].cas.insert(cas, t.t_ccd_l, horizon_ps);
        let bus = &mut self.bus[p.channel];
        if write {
            bus.writes.insert(data, t.t_bl, horizon_ps);
            bus.write_foot.insert(data, turn_len, horizon_ps);
        } else {
            bus.reads.insert(data, t.t_bl, horizon_ps);
            bus.read_foot.insert(data, turn_len, horizon_ps);
        }
        let done = data + t.t_bl;
        let service = to_cas + data_after_cas + t.t_bl;
        self.bus_busy_ps[p.channel] += t.t_bl;
        self.accesses += 1;
        self.writes += u64::from(write);
        self.row_hits += u64::from(hit);
        DramResult {
            done_ps: done,
            service_ps: service,
            wait_ps: done - arrive_ps - service,
            row_hit: hit,
        }
    }
}

mod address;
pub use address::AddressMap;
use address::{BitFields, Digit, Field};
#[cfg(test)]
mod tests;
