//! Key-value store workloads (StarNUMA §IV-E: Masstree).

pub mod masstree;
