//! A virtual address space for generators: every array at its own base.
//!
//! Arrays are laid out as a program's allocator would place large allocations: each starts on a
//! 2 MiB boundary with a 2 MiB gap after it, so no two arrays share a page (4 KiB or 2 MiB) and
//! page statistics can be attributed to data structures. Thread-private storage (local queues,
//! local bins) lives in a separate region, one 4 GiB window per thread, like per-thread heaps.

/// Start of shared data.
pub const SHARED_BASE: u64 = 0x10_0000_0000;
/// Start of thread-private data.
pub const PRIVATE_BASE: u64 = 0x7000_0000_0000;
const ALIGN: u64 = 2 << 20;

/// Base of thread `t`'s private window (4 GiB each).
#[inline]
pub fn private_base(t: usize) -> u64 {
    PRIVATE_BASE + ((t as u64) << 32)
}

/// Bump allocator over the shared region.
#[derive(Debug, Clone)]
pub struct AddressSpace {
    next: u64,
}

impl Default for AddressSpace {
    fn default() -> Self {
        Self::new()
    }
}

impl AddressSpace {
    pub fn new() -> Self {
        AddressSpace { next: SHARED_BASE }
    }

    /// Reserves `size_bytes` and returns the base address.
    pub fn alloc(&mut self, size_bytes: u64) -> u64 {
        let base = self.next;
        self.next = (base + size_bytes.max(1)).next_multiple_of(ALIGN) + ALIGN;
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_never_share_a_huge_page() {
        let mut s = AddressSpace::new();
        let a = s.alloc(10);
        let b = s.alloc(3 << 20);
        let c = s.alloc(1);
        assert!(b >= a + ALIGN && b.is_multiple_of(ALIGN));
        assert!(c >= b + (3 << 20) + ALIGN - (3 << 20) % ALIGN);
    }
}
