//! The cache-coherence protocol a machine's directory runs, as declared by its machine file
//! (`coherence = "mesi"`). The timing engine uses it for block transfers (a load whose line is
//! dirty in another socket's LLC); an experiment's `[timing] coherence` overrides it.

use serde::{Deserialize, Serialize};

/// What the directory does when a block transfer serves a load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coherence {
    /// The supplier keeps the line Owned (dirty): every later reader's miss is a block
    /// transfer from it too, until it writes the line back or another socket stores to it.
    /// The protocol of a machine file that declares none.
    #[default]
    Moesi,
    /// The supplier writes the line back to its home (a posted DRAM write) and keeps a clean
    /// shared copy: later readers are served by memory. Intel's multi-socket protocol (a
    /// modified line read by another socket is written back and both copies become shared)
    /// and the StarNUMA artifact's directory (a second reader moves the line to S, and an S
    /// line is read from memory) do this.
    Mesi,
}

impl numasim_config::param::ParamKind for Coherence {}

impl Coherence {
    /// The name used in machine files, experiments and results (`moesi`, `mesi`).
    pub fn name(self) -> &'static str {
        match self {
            Coherence::Moesi => "moesi",
            Coherence::Mesi => "mesi",
        }
    }
}

impl std::fmt::Display for Coherence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
