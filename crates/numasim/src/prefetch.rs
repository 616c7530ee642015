//! Software prefetch hints for the simulator's lookahead.
//!
//! The functional loop is bound by host cache misses on per-page arrays (page-table slot,
//! counter row, LLC set), not by arithmetic. The next accesses are already in the batch, so
//! their lines can be requested a few iterations early and the misses overlap.

/// Hints that the cache line holding `value` will be read soon. A no-op where unsupported.
#[inline(always)]
pub fn read<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(value as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
