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

/// Bytes between the start of a C heap chunk and the pointer `malloc` returns (glibc, 64-bit:
/// the previous chunk's size and this chunk's size).
pub const MALLOC_HEADER: u64 = 16;

/// Arrays of `sizes` bytes allocated one after another by glibc's `malloc` (or `new[]`): each
/// chunk holds its request plus an 8-byte size field, rounded up to 16 bytes (at least 32), and
/// the pointer returned is [`MALLOC_HEADER`] bytes into the chunk. Consecutive arrays are
/// therefore 16 bytes apart and none starts on a page boundary; the first starts 16 bytes into
/// a page, as the first chunk of a fresh heap or one the allocator maps on its own does. The
/// arrays are reserved as one block of `space`.
pub fn heap_arrays<const N: usize>(space: &mut AddressSpace, sizes: [u64; N]) -> [u64; N] {
    let chunk = |r: u64| ((r + 8).next_multiple_of(16)).max(32);
    let total: u64 = sizes.iter().map(|&r| chunk(r)).sum();
    let mut at = space.alloc(total + MALLOC_HEADER) + MALLOC_HEADER;
    sizes.map(|r| {
        let p = at;
        at += chunk(r);
        p
    })
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

    #[test]
    fn heap_arrays_follow_each_other_as_malloc_chunks() {
        let mut s = AddressSpace::new();
        let [a, b, c, d] = heap_arrays(&mut s, [65536, 65536, 2048, 1]);
        assert_eq!(a % 4096, MALLOC_HEADER, "the first array starts past its chunk header");
        assert_eq!(b, a + 65536 + 16, "request + size field, rounded to 16");
        assert_eq!(c, b + 65536 + 16);
        assert_eq!(d, c + 2048 + 16);
        assert!(d < s.alloc(1), "the block holds every array");
        let [x, y] = heap_arrays(&mut AddressSpace::new(), [1, 24]);
        assert_eq!(y - x, 32, "the smallest chunk is 32 bytes");
        let [v, w] = heap_arrays(&mut AddressSpace::new(), [24, 1]);
        assert_eq!(w - v, 32, "24 bytes and the size field fill a 32-byte chunk");
    }
}
