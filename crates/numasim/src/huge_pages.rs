//! Transparent huge pages for the simulator's own large arrays.
//!
//! LLC tag arrays and per-page counter rows are hundreds of MB touched at random, so with 4 KiB
//! host pages nearly every simulated access also misses the host TLB (profiles showed the
//! prefetch instructions themselves stalling on page walks). Asking the kernel for huge pages
//! (`madvise(MADV_HUGEPAGE)`, honoured when THP is in `madvise` or `always` mode) removes most
//! of those walks. Purely a speed hint: results never depend on it.

/// Advises huge pages for the allocation behind `v` (its whole capacity). Call before the
/// memory is first written, or after a reallocation, so page faults can allocate huge pages.
pub fn advise<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes < 2 * HUGE {
            return;
        }
        let start = v.as_ptr() as usize;
        let aligned = start.div_ceil(HUGE) * HUGE;
        let end = (start + bytes) / HUGE * HUGE;
        if end > aligned {
            // SAFETY: the range lies inside this Vec's allocation; MADV_HUGEPAGE changes no contents.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Advises huge pages for `bytes` bytes from `start` (an allocation of the caller's, aligned
/// to 2 MiB by it when the whole range should be huge pages). Purely a speed hint.
pub fn advise_bytes(start: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: the caller owns the range; MADV_HUGEPAGE changes no contents.
    unsafe {
        libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Makes room for `additional` more elements in `v`, keeping a large array in huge pages as it
/// grows: a reallocation of a large block moves its old 4 KiB pages as they are, so a
/// doubling array ends up mostly in small pages. Past a few MiB this allocates the doubled
/// block, advises it, and copies the elements over (amortised O(1) per element, like a
/// reallocation).
#[inline]
pub fn reserve<T: Copy>(v: &mut Vec<T>, additional: usize) {
    let need = v.len().saturating_add(additional);
    if need <= v.capacity() {
        return;
    }
    grow(v, need);
}

#[cold]
fn grow<T: Copy>(v: &mut Vec<T>, need: usize) {
    const SMALL_BYTES: usize = 4 << 20;
    let cap = need.max(v.capacity().saturating_mul(2)).max(1 << 12);
    if cap.saturating_mul(std::mem::size_of::<T>().max(1)) < SMALL_BYTES {
        v.reserve_exact(cap - v.len());
        return;
    }
    let mut bigger = Vec::with_capacity(cap);
    advise(&bigger);
    bigger.extend_from_slice(v);
    *v = bigger;
}

#[cfg(test)]
mod tests {
    #[test]
    fn reserve_keeps_the_elements_and_makes_room() {
        let mut v: Vec<u32> = (0..10).collect();
        super::reserve(&mut v, 5 << 20);
        assert!(v.capacity() >= 10 + (5 << 20));
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        let cap = v.capacity();
        super::reserve(&mut v, 1);
        assert_eq!(v.capacity(), cap, "no reallocation while there is room");
    }
}
