//! Simulation engines. Functional mode counts where accesses go; timing mode
//! (the `timing` module) adds a clock over the same pipeline.

pub mod functional;

pub use functional::{FunctionalConfig, FunctionalSim, SetupReport, SimError};
use numasim_trace::Access;

/// One thread's place in its access stream, handed between the functional and timing engines
/// by sampled timing (the driver): the accesses already read from the source but not yet
/// run, the instruction count the thread has reached, and whether its source is exhausted.
#[derive(Debug, Clone, Default)]
pub struct ThreadPlace {
    pub pending: Vec<Access>,
    pub instr: u64,
    pub done: bool,
}

/// Highest instruction count an engine accepts. Phase ends are `(k + 1) × phase_instructions`,
/// saturating at `u64::MAX`; an access at `u64::MAX` itself would never fall before a phase
/// end and the run would never finish, so counts from a trace are clamped one below it.
pub const MAX_INSTRUCTION: u64 = u64::MAX - 1;

/// Clamps a batch's instruction counts to [`MAX_INSTRUCTION`] (hostile or corrupt traces).
#[inline]
pub fn clamp_instructions(batch: &mut [Access]) {
    for a in batch {
        a.instr = a.instr.min(MAX_INSTRUCTION);
    }
}

/// The phase an engine runs next and where it ends, given the phase index `phase`, the phase
/// length, and the instruction count of every unfinished thread's next access.
///
/// Normally that is phase `phase`, ending at `(phase + 1) × phase_instructions`, and the next
/// index is `phase + 1`. If no thread has an access before that end, the phases up to the one
/// holding the earliest pending access are empty: they are merged into one empty phase ending
/// where that phase starts, so an instruction-count gap of any length costs one record, not
/// one per phase (a trace jumping to instruction 10^12 with 2000-instruction phases would
/// otherwise produce 5 × 10^8 records). Returns `(next phase index, phase end)`.
pub fn phase_window(phase: u64, phase_instructions: u64, pending: impl Iterator<Item = u64>) -> (u64, u64) {
    let p = phase_instructions.max(1);
    let end = (phase + 1).saturating_mul(p);
    match pending.min() {
        Some(earliest) if earliest >= end => {
            // Phase holding the earliest access; every phase before it is empty.
            let first_busy = earliest / p;
            (first_busy, first_busy.saturating_mul(p))
        }
        _ => (phase + 1, end),
    }
}

#[cfg(test)]
mod tests {
    use super::phase_window;

    #[test]
    fn a_busy_phase_is_one_phase() {
        assert_eq!(phase_window(0, 100, [5, 300].into_iter()), (1, 100));
        assert_eq!(phase_window(3, 100, [399].into_iter()), (4, 400));
        // No pending access (every thread done): the phase still ends at its boundary.
        assert_eq!(phase_window(2, 100, std::iter::empty()), (3, 300));
    }

    #[test]
    fn empty_phases_up_to_the_next_access_are_one_window() {
        // Phase 0 ends at 2000; the next access is at 10^12 (phase 5 × 10^8).
        assert_eq!(
            phase_window(1, 2000, [1_000_000_000_000].into_iter()),
            (500_000_000, 1_000_000_000_000)
        );
        // One empty phase is still one phase.
        assert_eq!(phase_window(0, 100, [150].into_iter()), (1, 100));
        // Near the top of u64 with 1-instruction phases.
        let top = super::MAX_INSTRUCTION;
        assert_eq!(phase_window(0, 1, [top].into_iter()), (top, top));
    }
}
