//! Simulation engines. Functional mode counts where accesses go; timing mode
//! ([`crate::timing`]) adds a clock over the same pipeline.

pub mod functional;

pub use functional::{FunctionalConfig, FunctionalSim, SimError};
use numasim_trace::Access;

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
