//! Machine descriptions for numasim: sockets, memory nodes, switches and links, read from strict
//! TOML, validated, and turned into *derived* routes and unloaded latencies.
//!
//! Why derived: a machine file states only physical facts (a link's one-way latency and
//! per-direction bandwidth, a memory node's access latency, a switch's transit latency). Routes
//! and the socket × memory latency matrix are computed from them
//! ([`graph::routing`]), so the matrix can never disagree with the topology the timing model puts
//! bytes on. Unloaded load latency = `access_latency_ns + 2 × (links + intermediate transits)`.
//!
//! Layout: [`spec`] (TOML schema), [`validate`] (rules and caps), [`graph`] (routing),
//! [`dram`] (memory kinds and per-channel bandwidth table), [`topology`] (validated parts),
//! [`machine`] ([`Machine`] and queries), [`presets`] (embedded `configs/machines/*.toml`),
//! [`summary`] (serialisable report), [`overrides`] (`--set machine.…` and shortcuts). Indices are dense: sockets `0..S`, memory `0..M`.

pub mod classes;
pub mod coherence;
pub mod core;
pub mod dram;
pub mod graph;
mod locate;
pub mod machine;
pub mod mesh;
pub mod overrides;
pub mod presets;
pub mod spec;
pub mod summary;
pub mod topology;
pub mod validate;

pub use classes::{AccessClass, BLOCK_TRANSFER};
pub use coherence::Coherence;
pub use core::{CoreModel, CoreSpec};
pub use dram::{DramKind, DramOverrides, DramTimings, MemoryKind};
pub use machine::Machine;
pub use numasim_config::{ConfigError, Source};
pub use summary::MachineSummary;
pub use topology::{Link, MemoryNode, NodeRef, Route, RouteHop, Socket, Switch};
