//! First come, first served: reads go to DRAM in arrival order, whatever row each opens
//! (the baseline FR-FCFS is measured against: no row hit ever passes an older row miss).

use super::{DramScheduler, QueueParams, ReadQueue};
use crate::timing::dram::{MemoryController, Place};
use crate::timing::dram_window::Decided;
use std::collections::VecDeque;

pub const SCHEDULER: DramScheduler = DramScheduler {
    name: "fcfs",
    summary: "the oldest queued read, whatever its row (no reordering)",
    make: |_: QueueParams| Box::<Fcfs>::default(),
};

/// One read waiting.
#[derive(Debug, Clone, Copy)]
struct Queued {
    arrive_ps: u64,
    place: Place,
    /// Lower bound of its start (its last probe: bookings only move it later).
    start_ps: u64,
    token: u64,
}

/// The reads of one controller in arrival order (presentation order on ties).
#[derive(Debug, Default)]
pub struct Fcfs {
    queued: VecDeque<Queued>,
}

impl ReadQueue for Fcfs {
    fn push(&mut self, m: &mut MemoryController, arrive_ps: u64, not_before_ps: u64, addr: u64, token: u64) {
        let place = m.place(addr);
        let start_ps = m.probe_place(place, arrive_ps, not_before_ps, false).start_ps;
        // Reads come nearly in arrival order: the place is searched from the back.
        let at = self
            .queued
            .iter()
            .rposition(|q| q.arrive_ps <= arrive_ps)
            .map_or(0, |i| i + 1);
        self.queued.insert(
            at,
            Queued {
                arrive_ps,
                place,
                start_ps,
                token,
            },
        );
    }

    fn next_start_bound_ps(&self) -> Option<u64> {
        self.queued.front().map(|q| q.start_ps)
    }

    fn decide(
        &mut self,
        m: &mut MemoryController,
        not_before_ps: u64,
        horizon_ps: u64,
        limit_ps: u64,
    ) -> Option<Decided> {
        let head = self.queued.front_mut()?;
        if head.start_ps > limit_ps {
            return None;
        }
        let slot = m.probe_place(head.place, head.arrive_ps, not_before_ps, false);
        if slot.start_ps > limit_ps {
            head.start_ps = slot.start_ps;
            return None;
        }
        let token = head.token;
        self.queued.pop_front();
        let result = m.commit(&slot, horizon_ps);
        Some(Decided { token, slot, result })
    }
}
