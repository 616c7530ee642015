//! Memory: page table, placement, thread mapping.

pub mod fixed_homes;
pub mod frames;
pub mod mapping;
pub mod memory;
pub mod page_table;
pub mod placement;
pub mod placement_map;

pub use fixed_homes::FixedHomes;
pub use frames::{FrameOrder, Frames};
pub use mapping::ThreadMapping;
pub use memory::{Memory, Moved};
pub use page_table::PageTable;
pub use placement::{Capacity, Placement, PlacementError, PlacementPolicy};
pub use placement_map::{PlacementMap, PlacementMapper, DEFAULT_MAP_BINS};
