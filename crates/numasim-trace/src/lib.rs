//! Memory access records and where they come from.
//!
//! [`Access`] is the unit every later stage works on. [`AccessSource`] is the one interface
//! through which the simulator reads accesses, whether a generator computes them or a trace
//! file stores them. The native format ([`native`]) is chunked and zstd-compressed so traces
//! stream in bounded memory; [`starnuma`] reads the per-thread traces of the StarNUMA artifact
//! directly; [`champsim`], [`ramulator`] and [`lackey`] read other tools' traces (through the
//! shared [`foreign`] input layer) for `numasim trace convert`. [`pipeline::DecodeAhead`]
//! runs any source on its own thread, ahead of the simulator. [`capture`] turns the stream of
//! numasim's QEMU plugin (`tracer/`) into a native trace.

pub mod capture;
pub mod champsim;
pub mod convert;
pub mod foreign;
pub mod info;
pub mod lackey;
pub mod native;
pub mod pipeline;
pub mod processes;
pub mod ramulator;
pub mod ramulator_plain;
pub mod record;
pub mod source;
pub mod starnuma;

pub use convert::{
    convert, convert_starnuma, convert_with, drain_round_robin, export_starnuma, ConvertStats, WriteSettings,
};
pub use foreign::{convert_foreign, scan_foreign_info, ForeignReader};
pub use info::{scan_starnuma_info, InputFile, ThreadInfo, TraceInfo};
pub use native::{scan_info, NativeHeader, NativeReader, NativeWriter, WriteSummary};
pub use pipeline::DecodeAhead;
pub use processes::{Process, ProcessSet, PROCESS_SHIFT};
pub use record::{Access, AccessKind};
pub use source::{collect_all, AccessSource, SourceError, VecSource};
pub use starnuma::{StarnumaReader, StarnumaWriter};
