//! `interconnect-maxrate`: maximum-rate sampling of interconnect transactions (Tikir &
//! Hollingsworth §5.1, Table 1's first column, Fig. 2's leftmost point): the monitor software
//! reads the bus analyzer's FIFO as fast as it can instead of taking every N-th transaction.
//!
//! The paper's explanation of why this skews the samples (§5.1): the rate at which the
//! software reads bounds the samples it can take *for a processor*; a processor that requests
//! transactions faster than that loses most of them, one that requests them more slowly has
//! almost all recorded. The model says exactly that: each socket's transactions enter a buffer
//! of `buffer_entries` (the Sun Fire Link analyzer's FIFO is 8 deep), which the software empties
//! once every `read_period_instructions` of that socket's time (its threads' instruction
//! counts); a transaction that finds the buffer full is lost (`samples_lost`). Threads of a
//! socket that run behind the socket's newest period (the functional engine runs threads a
//! quantum at a time) share that period's buffer. The sampled share and the distance D therefore
//! depend on how unevenly the sockets' transaction rates vary, which is what the paper measured.
//!
//! The read period is not in the paper (it gives the outcome: 17.6 % sampled on CG class B);
//! the default, 750 instructions (1 µs at the Sun Fire's 750 MHz, a system call's order), is an
//! assumption, and `numasim repro tikir` reports the sampled share it gives.

use super::{ObserverCounts, PageProfile, Profiler, SampledCounts};
use numasim_config::declare_params;
use numasim_trace::Access;

declare_params! {
    /// Parameters of `interconnect-maxrate`.
    pub struct MaxRateParams {
        /// entries of the monitor's buffer per socket (Sun Fire Link bus analyzer FIFO: 8)
        buffer_entries: u64 = 8, unit "transactions", Check::Range(1.0, 1e9);
        /// the software empties the buffer once per this many instructions of the socket's time
        read_period_instructions: u64 = 750, unit "instructions", Check::Range(1.0, 1e15);
    }
}

#[derive(Debug, Clone)]
pub struct MaxRate {
    entries: u64,
    period: u64,
    /// Per socket: newest read period seen and transactions buffered in it.
    current: Vec<u64>,
    filled: Vec<u64>,
    lost: u64,
    counts: SampledCounts,
}

impl MaxRate {
    /// Transactions lost to a full buffer in the current phase.
    pub fn lost(&self) -> u64 {
        self.lost
    }
}

impl Profiler for MaxRate {
    const NAME: &'static str = "interconnect-maxrate";
    const SUMMARY: &'static str =
        "maximum-rate interconnect sampling: a per-socket buffer emptied at a fixed rate, transactions lost when full";
    type Params = MaxRateParams;

    fn new(p: &MaxRateParams, sockets: usize) -> Self {
        MaxRate {
            entries: p.buffer_entries.max(1),
            period: p.read_period_instructions.max(1),
            current: vec![0; sockets],
            filled: vec![0; sockets],
            lost: 0,
            counts: SampledCounts::new(sockets),
        }
    }
    fn grow(&mut self, _old: usize, new: usize) {
        self.counts.grow(new);
    }
    #[inline]
    fn observe(&mut self, socket: usize, page: u32, a: &Access, mem: bool, phase: &mut ObserverCounts) {
        if !mem {
            return;
        }
        let period = a.instr / self.period;
        if period > self.current[socket] {
            // The software read the buffer since this socket's last transaction.
            self.current[socket] = period;
            self.filled[socket] = 0;
        }
        if self.filled[socket] < self.entries {
            self.filled[socket] += 1;
            self.counts.bump(page as usize, socket, 1, phase);
        } else {
            self.lost += 1;
        }
    }
    fn profile(&self, _: &[u32], pages: usize) -> PageProfile {
        self.counts.profile(pages)
    }
    fn end_phase(&mut self, _: usize, _: &[u32], _: &mut ObserverCounts) -> u64 {
        self.counts.clear();
        self.lost = 0;
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::page_profile::distance;

    fn maxrate(entries: u64, period: u64) -> MaxRate {
        MaxRate::new(
            &MaxRateParams {
                buffer_entries: entries,
                read_period_instructions: period,
            },
            2,
        )
    }

    #[test]
    fn transactions_are_lost_when_the_buffer_is_full() {
        let mut m = maxrate(4, 100);
        let mut ph = ObserverCounts::default();
        m.grow(0, 1);
        // 10 transactions of socket 0 in one read period: 4 recorded, 6 lost.
        for i in 0..10u64 {
            m.observe(0, 0, &Access::read(i, 0, 8), true, &mut ph);
        }
        assert_eq!((ph.samples, m.lost()), (4, 6));
        // LLC hits are not transactions.
        m.observe(0, 0, &Access::read(50, 0, 8), false, &mut ph);
        assert_eq!(m.lost(), 6);
        // The next period: the buffer was read, room again.
        m.observe(0, 0, &Access::read(150, 0, 8), true, &mut ph);
        assert_eq!((ph.samples, m.lost()), (5, 6));
        // Socket 1 has its own buffer.
        m.observe(1, 0, &Access::read(160, 0, 8), true, &mut ph);
        assert_eq!(m.profile(&[], 1).counts, vec![5, 1]);
    }

    #[test]
    fn the_busier_socket_is_undersampled_and_d_rises_as_the_buffer_shrinks() {
        // Socket 0 makes 16 transactions per 100-instruction period, socket 1 makes 2: the
        // full profile says 8/9 of the transactions are socket 0's.
        let d_for = |entries: u64| {
            let mut m = maxrate(entries, 100);
            let mut ph = ObserverCounts::default();
            m.grow(0, 1);
            let mut all = PageProfile::new(2, 1);
            for period in 0..50u64 {
                for i in 0..16u64 {
                    m.observe(0, 0, &Access::read(period * 100 + i * 6, 0, 8), true, &mut ph);
                    all.counts[0] += 1;
                }
                for i in 0..2u64 {
                    m.observe(1, 0, &Access::read(period * 100 + i * 50, 0, 8), true, &mut ph);
                    all.counts[1] += 1;
                }
            }
            let d = distance(&m.profile(&[], 1), &all);
            let mean = d.iter().flatten().sum::<f64>() / 2.0;
            (mean, ph.samples as f64 / 900.0)
        };
        let (d_big, s_big) = d_for(16);
        let (d_mid, s_mid) = d_for(8);
        let (d_small, s_small) = d_for(2);
        // A buffer that holds a period's burst samples everything: no distortion.
        assert!(d_big < 1e-12 && (s_big - 1.0).abs() < 1e-12, "{d_big} {s_big}");
        // Smaller buffers lose more of socket 0's burst and D rises (the paper's trend:
        // maximum-rate sampling is the least representative).
        assert!(d_mid > 0.1 && d_small > d_mid, "{d_mid} {d_small}");
        assert!(s_small < s_mid && s_mid < 1.0);
    }
}
