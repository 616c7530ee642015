//! How fast could a command-level DRAM scheduler be? A speed bound for a "50× Ramulator
//! 2" target, measured beside numasim's own controller on the same requests in one run.
//!
//!   cargo run --release -p numasim --example dram_command_level_bound [-- REQUESTS]
//!
//! numasim's controller ([`windowed_loop`]: exact placement on busy lists behind a 32-read FR-FCFS
//! queue) costs about 0.7 µs per random read. The redesign docs/design/dram.md names as the way
//! to 50× is a command-level scheduler with scalar state, Ramulator's structure without its
//! cycle-by-cycle ticking. This sketch is that design, made as cheap as it can be: scalar
//! ready times per bank, bank group and rank; FR-FCFS over the same 32-read queue, where per bank
//! only two requests can win (the oldest that hits the open row, and the oldest other one,
//! since every request of a class waits for the same command), so one step is a branch-free
//! pass over the banks; commands issued one per tCK, as in Ramulator 2.
//!
//! It models less than numasim's controller: reads only, and no refresh, write queue, bus
//! turnarounds or bypass cap (tRCD, tRP, tRAS, tCL, tBL, tCCD_S/L, tRRD_S/L, tFAW and tRTP are
//! in). Each of those would add work, so its speed is an upper bound on what the design gives
//! with them; its bandwidth is printed so that one can see it schedules sensibly (without
//! refresh it should come out a few per cent above the full model).
//!
//! Not used by the simulator: this is a measurement, kept so the figure in the docs can be
//! re-run. Results on the 2-core CI machine are in docs/design/dram.md ("Why DRAM speed stops
//! near 10× Ramulator 2").

use numasim::machine::DramKind;
use numasim::timing::dram::{DramConfig, MemoryController};
use numasim::timing::dram_loop::{pattern_requests, windowed_loop, Pattern};
use std::time::Instant;

const QUEUE: usize = 32;
/// Bank row state: no row open.
const CLOSED: u64 = u64::MAX;
/// A class of a bank with no queued request.
const EMPTY: u64 = u64::MAX;
/// Bits of a packed candidate key below the wait: class key (33 bits), bank (6), hit (1).
const WAIT_SHIFT: u32 = 40;
const MAX_WAIT_PS: u64 = (1 << (64 - WAIT_SHIFT)) - 1;

#[derive(Debug, Clone, Copy)]
struct Queued {
    seq: u64,
    row: u64,
    active: bool,
    arrive_ps: u64,
}

#[derive(Debug, Clone)]
struct Bank {
    queue: Vec<Queued>,
    open_row: u64,
    group: usize,
    /// Earliest column command, activate and precharge.
    cas_ok_ps: u64,
    act_ok_ps: u64,
    pre_ok_ps: u64,
    /// The class keys (an activated request first, then the oldest) of the oldest hit and the
    /// oldest other request, with their indices in `queue`.
    hit: (u64, usize),
    other: (u64, usize),
}

impl Bank {
    fn class_key(q: &Queued) -> u64 {
        (u64::from(!q.active) << 32) | (q.seq & 0xFFFF_FFFF)
    }

    fn classify(&mut self) {
        self.hit = (EMPTY, 0);
        self.other = (EMPTY, 0);
        for (i, q) in self.queue.iter().enumerate() {
            let k = Self::class_key(q);
            let slot = if q.row == self.open_row {
                &mut self.hit
            } else {
                &mut self.other
            };
            if k < slot.0 {
                *slot = (k, i);
            }
        }
    }
}

/// Runs `requests` (bank, bank group, row) through the sketch; returns (end ps, mean latency ps).
fn command_level(requests: &[(usize, usize, u64)], banks: usize, groups: usize, m: &MemoryController) -> (u64, f64) {
    let t = m.t;
    // DDR4 moves a BL8 burst in four clocks.
    let t_ck = (t.t_bl / 4).max(1);
    let mut bank: Vec<Bank> = (0..banks)
        .map(|_| Bank {
            queue: Vec::with_capacity(QUEUE),
            open_row: CLOSED,
            group: 0,
            cas_ok_ps: 0,
            act_ok_ps: 0,
            pre_ok_ps: 0,
            hit: (EMPTY, 0),
            other: (EMPTY, 0),
        })
        .collect();
    let mut group_cas_ps = vec![0u64; groups];
    let mut group_act_ps = vec![0u64; groups];
    let (mut rank_cas_ps, mut rank_act_ps) = (0u64, 0u64);
    let mut faw = [0u64; 4];
    let mut faw_at = 0;
    // Banks with queued requests.
    let mut busy = 0u64;
    let (mut now, mut seq, mut queued, mut done, mut latency, mut end) = (0u64, 0u64, 0usize, 0u64, 0u64, 0u64);
    let mut next = requests.iter();
    loop {
        while queued < QUEUE {
            let Some(&(b, g, row)) = next.next() else { break };
            let k = &mut bank[b];
            k.group = g;
            k.queue.push(Queued {
                seq,
                row,
                active: false,
                arrive_ps: now,
            });
            // A newcomer is the youngest: it can only fill an empty class.
            let slot = if row == k.open_row { &mut k.hit } else { &mut k.other };
            if slot.0 == EMPTY {
                *slot = (Bank::class_key(k.queue.last().expect("just pushed")), k.queue.len() - 1);
            }
            busy |= 1 << b;
            seq += 1;
            queued += 1;
        }
        if queued == 0 {
            break;
        }
        let rank_act = rank_act_ps.max(faw[faw_at] + t.t_faw).max(now);
        let rank_cas = rank_cas_ps.max(now);
        // The least (wait, class key) over every bank's two candidates, branch-free.
        let mut best = u64::MAX;
        let mut left = busy;
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            left &= left - 1;
            let k = &bank[i];
            let g = k.group;
            let hit_ps = k.cas_ok_ps.max(group_cas_ps[g]).max(rank_cas) - now;
            let other_ps = if k.open_row == CLOSED {
                k.act_ok_ps.max(group_act_ps[g]).max(rank_act)
            } else {
                k.pre_ok_ps.max(now)
            } - now;
            let tail = ((i as u64) << 1) & 0x7E;
            let hit = if k.hit.0 == EMPTY {
                u64::MAX
            } else {
                (hit_ps.min(MAX_WAIT_PS) << WAIT_SHIFT) | (k.hit.0 << 7) | tail | 1
            };
            let other = if k.other.0 == EMPTY {
                u64::MAX
            } else {
                (other_ps.min(MAX_WAIT_PS) << WAIT_SHIFT) | (k.other.0 << 7) | tail
            };
            best = best.min(hit).min(other);
        }
        let at = now + (best >> WAIT_SHIFT);
        let b = ((best >> 1) & 0x3F) as usize;
        let k = &mut bank[b];
        let g = k.group;
        if best & 1 == 1 {
            // Read: column command now, data tCL later for tBL.
            let q = k.queue.swap_remove(k.hit.1);
            group_cas_ps[g] = at + t.t_ccd_l;
            rank_cas_ps = at + t.t_ccd_s.max(t.t_bl);
            k.pre_ok_ps = k.pre_ok_ps.max(at + t.t_rtp);
            let data_end = at + t.t_cl + t.t_bl;
            latency += data_end - q.arrive_ps;
            end = end.max(data_end);
            done += 1;
            queued -= 1;
            if k.queue.is_empty() {
                busy &= !(1 << b);
            }
        } else if k.open_row == CLOSED {
            let i = k.other.1;
            k.open_row = k.queue[i].row;
            k.queue[i].active = true;
            k.cas_ok_ps = at + t.t_rcd;
            k.pre_ok_ps = at + t.t_ras;
            group_act_ps[g] = at + t.t_rrd_l;
            rank_act_ps = at + t.t_rrd_s;
            faw[faw_at] = at;
            faw_at = (faw_at + 1) % 4;
        } else {
            k.open_row = CLOSED;
            k.act_ok_ps = at + t.t_rp;
        }
        k.classify();
        now = at + t_ck;
    }
    (end, latency as f64 / done.max(1) as f64)
}

fn main() {
    let n: u64 = match std::env::args().nth(1).map_or(Ok(2_000_000), |s| s.parse()) {
        Ok(n) if n > 0 => n,
        _ => {
            eprintln!("usage: dram_command_level_bound [REQUESTS (a positive number)]");
            std::process::exit(2);
        }
    };
    let kind = DramKind::Ddr4_2400Cl16;
    let lines = (8u64 << 30) / 64;
    let cfg = DramConfig {
        refresh: false,
        ..DramConfig::one_channel(8 << 30)
    };
    let fresh = || MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg);
    println!(
        "{:<8} {:>26} {:>14} {:>26} {:>14}",
        "pattern", "numasim model (M reads/s)", "GB/s", "command-level (M reads/s)", "GB/s"
    );
    for (name, pattern) in [("random", Pattern::Random), ("stream", Pattern::Stream)] {
        let m = fresh();
        let placed: Vec<(usize, usize, u64)> = pattern_requests(pattern, n, lines, 1)
            .map(|(line, _)| {
                let p = m.place(line);
                (p.bank, p.group, p.row)
            })
            .collect();
        let banks = placed.iter().map(|r| r.0 + 1).max().unwrap_or(1);
        let groups = placed.iter().map(|r| r.1 + 1).max().unwrap_or(1);
        // (One DDR4 channel has 16 banks; the key packs a bank in 6 bits.)
        debug_assert!(banks <= 64);

        let mut model = fresh();
        let start = Instant::now();
        let s = windowed_loop(&mut model, pattern_requests(pattern, n, lines, 1), QUEUE, Some(16));
        let model_s = start.elapsed().as_secs_f64();

        let start = Instant::now();
        let (end_ps, _) = command_level(&placed, banks, groups, &m);
        let sketch_s = start.elapsed().as_secs_f64();
        println!(
            "{:<8} {:>26.2} {:>14.2} {:>26.2} {:>14.2}",
            name,
            n as f64 / model_s / 1e6,
            s.bandwidth_gbps(64),
            n as f64 / sketch_s / 1e6,
            (n * 64) as f64 / (end_ps as f64 * 1e-3)
        );
    }
}
