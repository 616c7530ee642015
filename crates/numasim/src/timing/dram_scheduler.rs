//! DRAM read schedulers, registered by name: the rule a memory node's read queue uses to pick
//! the next read (`[timing] dram_scheduler`).
//!
//! A scheduler is a [`ReadQueue`]: it holds the reads presented to one controller and, asked
//! for a decision, books one of them with [`MemoryController::commit`]. The contract the event
//! loop relies on: [`ReadQueue::next_start_bound_ps`] is a lower bound of the start of the next
//! read [`ReadQueue::decide`] would take, and `decide` takes nothing that starts after its
//! `limit_ps` (a read presented later could arrive before it).
//!
//! Adding one: a file in `dram_scheduler/` with a type implementing [`ReadQueue`] and a
//! [`DramScheduler`] constant naming it, plus its `mod` line and its entry in [`SCHEDULERS`].

mod fcfs;

use super::dram::MemoryController;
use super::dram_window::{Decided, RequestWindow};

/// A memory node's read queue and the rule that picks its next read (module docs).
pub trait ReadQueue: std::fmt::Debug + Send {
    /// Presents a read of line address `addr` arriving at `arrive_ps`; it cannot start before
    /// `not_before_ps`. `token` names it in the [`Decided`] that takes it.
    fn push(&mut self, m: &mut MemoryController, arrive_ps: u64, not_before_ps: u64, addr: u64, token: u64);
    /// Lower bound of the start of the next decision (`None` when empty).
    fn next_start_bound_ps(&self) -> Option<u64>;
    /// Books and removes the next read if it starts by `limit_ps` (`None`: empty or not yet).
    fn decide(
        &mut self,
        m: &mut MemoryController,
        not_before_ps: u64,
        horizon_ps: u64,
        limit_ps: u64,
    ) -> Option<Decided>;
}

/// What a scheduler is built from: the `[timing]` keys of a read queue.
#[derive(Debug, Clone, Copy)]
pub struct QueueParams {
    /// `dram_read_queue`: requests the controller holds (at least 1).
    pub capacity: usize,
    /// `dram_bypass_cap` (`None`: uncapped).
    pub bypass_cap: Option<u32>,
}

/// A registered scheduler.
#[derive(Debug)]
pub struct DramScheduler {
    /// Its value of `[timing] dram_scheduler`.
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    pub make: fn(QueueParams) -> Box<dyn ReadQueue>,
}

/// FR-FCFS with a bypass cap ([`RequestWindow`]): the default.
const FR_FCFS: DramScheduler = DramScheduler {
    name: "fr-fcfs",
    summary: "the queued read that can start first (a row hit before a row miss), the oldest on ties; dram_bypass_cap bounds how often younger reads of a bank pass an older one",
    make: |p| Box::new(RequestWindow::new(p.capacity, p.bypass_cap)),
};

/// Every scheduler, the default first.
pub const SCHEDULERS: &[DramScheduler] = &[FR_FCFS, fcfs::SCHEDULER];

/// A `[timing] dram_scheduler` no scheduler is registered under.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown DRAM scheduler `{name}` (known: {})", known.join(", "))]
pub struct UnknownScheduler {
    pub name: String,
    pub known: Vec<&'static str>,
}

/// The scheduler `[timing] dram_scheduler` names (`None`: the default).
pub fn by_name(name: Option<&str>) -> Result<&'static DramScheduler, UnknownScheduler> {
    let Some(name) = name else {
        return Ok(&SCHEDULERS[0]);
    };
    SCHEDULERS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| UnknownScheduler {
            name: name.to_string(),
            known: SCHEDULERS.iter().map(|s| s.name).collect(),
        })
}

impl ReadQueue for RequestWindow {
    fn push(&mut self, m: &mut MemoryController, arrive_ps: u64, not_before_ps: u64, addr: u64, token: u64) {
        RequestWindow::push(self, m, arrive_ps, not_before_ps, addr, false, token);
    }
    fn next_start_bound_ps(&self) -> Option<u64> {
        RequestWindow::next_start_bound_ps(self)
    }
    fn decide(
        &mut self,
        m: &mut MemoryController,
        not_before_ps: u64,
        horizon_ps: u64,
        limit_ps: u64,
    ) -> Option<Decided> {
        RequestWindow::decide(self, m, not_before_ps, horizon_ps, limit_ps)
    }
}

#[cfg(test)]
mod tests;
