//! Why a mesh run cannot be set up or cannot go on.

use crate::cache::TagArrayError;

/// An error of [`super::MeshSim::new`] or [`super::MeshSim::run`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshSimError {
    #[error("machine `{0}` has no [mesh] table")]
    NoMesh(String),
    #[error("no threads placed on cores")]
    NoThreads,
    #[error("{threads} threads: a mesh run has at most {max} (the home slices' directories keep a 64-bit sharer mask per line)")]
    TooManyThreads { threads: usize, max: usize },
    #[error("core {core} does not exist: the mesh has {cores} cores")]
    NoSuchCore { core: usize, cores: usize },
    #[error("first_touch_by = {thread}, but there are {threads} threads")]
    NoSuchFirstToucher { thread: usize, threads: usize },
    #[error("membind = {node}, but the machine has {nodes} NUMA nodes")]
    NoSuchMembindNode { node: usize, nodes: usize },
    #[error("bind to node {node}, but the machine has {nodes} NUMA nodes")]
    NoSuchBindNode { node: usize, nodes: usize },
    #[error("mshrs must be 1..=1024 and base_cpi finite and non-negative")]
    CoreParams,
    #[error("page_bytes must be a power of two between 4 KiB and 1 GiB")]
    PageBytes,
    #[error(transparent)]
    Caches(#[from] TagArrayError),
    #[error("NUMA node {node} is full ({bytes} bytes)")]
    NodeFull { node: usize, bytes: u64 },
    #[error("the workload has {workload} threads, {cores} cores were given")]
    ThreadCount { workload: usize, cores: usize },
    /// The workload's source failed.
    #[error("{0}")]
    Source(String),
}
