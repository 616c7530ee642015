//! Statistics: what is counted while simulating, and how it is summarised.

pub mod page_stats;
pub mod phase;
pub mod sharing;
pub mod shown;
pub mod threads;

pub use page_stats::PageStats;
pub use phase::{AccessClasses, PhaseCounts, PhaseSummary};
pub use sharing::{SharingBuckets, SharingHistogram};
pub use threads::ThreadTotals;
