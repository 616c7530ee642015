//! Transaction-processing workloads (StarNUMA §IV-E: TPC-C).

pub mod tpcc;
