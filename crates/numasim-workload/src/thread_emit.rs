//! Per-thread access emission with a per-operation instruction cost (used by [`crate::omp`]).
//!
//! Generators on the OpenMP-like runtime call [`ThreadEmitter::read`] / [`ThreadEmitter::write`]
//! at every load and store of the modelled data structures, passing the number of instructions
//! the operation costs (the memory instruction itself plus the non-memory instructions around
//! it, from each generator's documented cost model, e.g. [`crate::graph::cost`]). The counter is
//! the thread's retired-instruction count, so it increases strictly with every access and MPKI
//! is meaningful.

use numasim_trace::{Access, AccessKind};

/// One thread's output buffer and instruction counter.
#[derive(Debug, Default)]
pub struct ThreadEmitter {
    pub buf: Vec<Access>,
    /// Instructions retired so far by this thread.
    pub instr: u64,
    /// Floating-point operations since the previous access (attached to the next access).
    flops: u32,
}

impl ThreadEmitter {
    pub fn new() -> Self {
        ThreadEmitter {
            buf: Vec::with_capacity(8192),
            instr: 0,
            flops: 0,
        }
    }

    /// A load of `size_bytes` at `vaddr` costing `cost` (≥ 1) instructions.
    #[inline(always)]
    pub fn read(&mut self, cost: u64, vaddr: u64, size_bytes: u8) {
        self.push(cost, vaddr, size_bytes, AccessKind::Read);
    }

    /// A store (or the store of an atomic read-modify-write).
    #[inline(always)]
    pub fn write(&mut self, cost: u64, vaddr: u64, size_bytes: u8) {
        self.push(cost, vaddr, size_bytes, AccessKind::Write);
    }

    /// Non-memory instructions with no access (loop overhead, arithmetic).
    #[inline(always)]
    pub fn compute(&mut self, instructions: u64) {
        self.instr += instructions;
    }

    /// Floating-point operations retired before the next access (their instructions are part
    /// of the next access's `cost`).
    #[inline(always)]
    pub fn flops(&mut self, n: u32) {
        self.flops = self.flops.saturating_add(n);
    }

    #[inline(always)]
    fn push(&mut self, cost: u64, vaddr: u64, size_bytes: u8, kind: AccessKind) {
        self.instr += cost.max(1);
        self.buf.push(Access {
            instr: self.instr,
            vaddr,
            flops: self.flops,
            size_bytes,
            kind,
        });
        self.flops = 0;
    }
}
