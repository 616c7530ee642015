//! The per-operation instruction cost model of the graph kernels.
//!
//! Each emitted access carries the instructions of the operation it belongs to: the memory
//! instruction itself plus the loop and compare/branch instructions a compiled GAP kernel
//! retires around it (x86-64, -O3, no vectorisation of the irregular loops). The figures are
//! round counts read off the loop structure, not measurements; they make instruction counts and
//! MPKI meaningful without claiming cycle accuracy.

/// Reading `index[u]` at the start of a neighbourhood: load + outer-loop increment/compare/branch.
pub const VERTEX_START: u64 = 4;
/// Reading `index[u + 1]` (the end pointer): load + subtract for the trip count.
pub const VERTEX_END: u64 = 2;
/// Reading one neighbour entry: load + pointer increment + compare + branch.
pub const EDGE: u64 = 4;
/// Reading a per-vertex property and testing it: load + compare + branch.
pub const PROP_READ: u64 = 3;
/// Plain store of a property.
pub const PROP_WRITE: u64 = 1;
/// Compare-and-swap (lock cmpxchg) with its operand setup.
pub const CAS: u64 = 4;
/// Reading a bitmap word and extracting a bit: load + shift + and + branch.
pub const BITMAP_READ: u64 = 5;
/// Setting a bit: shift + or + store (the atomic version retires a lock or).
pub const BITMAP_WRITE: u64 = 4;
/// Appending to a queue or bin: store + index increment + capacity check.
pub const QUEUE_PUSH: u64 = 3;
/// One element of a copy loop (load or store half of it).
pub const COPY: u64 = 2;
/// A floating-point operation's instruction.
pub const FLOP: u64 = 1;
