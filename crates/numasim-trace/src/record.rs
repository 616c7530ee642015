//! One memory access as every stage of numasim sees it.

/// Read or write. A closed set, so an enum (the hot path matches on it, never on strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum AccessKind {
    #[default]
    Read = 0,
    Write = 1,
}

/// A memory access made by one thread, in that thread's program order.
///
/// `instr` is the thread's cumulative retired-instruction count at this access (memory and
/// non-memory instructions), so instruction counts, MPKI and phase boundaries are meaningful.
/// `flops` is the number of floating-point operations the thread retired since its previous
/// access (0 for integer code); HyDM-style arithmetic-intensity estimates need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Access {
    pub instr: u64,
    pub vaddr: u64,
    pub flops: u32,
    pub size_bytes: u8,
    pub kind: AccessKind,
}

impl Access {
    #[inline]
    pub fn read(instr: u64, vaddr: u64, size_bytes: u8) -> Self {
        Access {
            instr,
            vaddr,
            flops: 0,
            size_bytes,
            kind: AccessKind::Read,
        }
    }

    #[inline]
    pub fn write(instr: u64, vaddr: u64, size_bytes: u8) -> Self {
        Access {
            instr,
            vaddr,
            flops: 0,
            size_bytes,
            kind: AccessKind::Write,
        }
    }

    #[inline]
    pub fn is_write(&self) -> bool {
        self.kind == AccessKind::Write
    }
}
