//! Physical frames: which frame of its home node a page gets when it is placed or moved.
//!
//! Frames decide nothing but DRAM rows, banks and channels (the timing engine's address
//! mapping), yet that is enough to change a memory-bound result: handed out in touch order,
//! the frames of a uniformly random virtual stream are consecutive, so the stream's early
//! accesses become a sequential physical one that hits open rows. An OS allocator that has run
//! for a while hands out frames scattered over the device instead. Both are offered:
//!
//! - `sequential` (the default): a node's k-th frame is frame k, the allocator of a freshly
//!   booted machine, and what every preset's calibration assumes.
//! - `random`: a node's k-th frame is a seeded permutation of k over the node's frames (the
//!   power of two at or above the device's page count), the long-running allocator's scatter.
//!   The permutation is a bijection, so two pages never share a frame; frames past the
//!   permutation's range (moves take fresh frames, never freed) keep their high bits.

use serde::{Deserialize, Serialize};

/// How a node hands out frames (`[placement] frames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FrameOrder {
    /// The k-th frame handed out is frame k.
    #[default]
    Sequential,
    /// The k-th frame handed out is a seeded permutation of k over the node's frames.
    Random,
}

/// Per-node frame counters and the order they are handed out in.
#[derive(Debug, Clone)]
pub struct Frames {
    next: Vec<u32>,
    order: FrameOrder,
    /// Per node: the permutation's domain minus one (a power of two minus one), and its key.
    mask: Vec<u32>,
    key: Vec<u32>,
}

impl Frames {
    /// Sequential frames on `nodes` nodes.
    pub fn sequential(nodes: usize) -> Self {
        Frames {
            next: vec![0; nodes],
            order: FrameOrder::Sequential,
            mask: vec![0; nodes],
            key: vec![0; nodes],
        }
    }

    /// Frames in `order` on nodes of `device_pages` pages each, the permutation keyed by `seed`.
    pub fn new(order: FrameOrder, device_pages: &[u64], seed: u64) -> Self {
        let mask = device_pages
            .iter()
            .map(|&p| {
                let p = p.clamp(2, 1 << 32);
                (p.next_power_of_two() - 1) as u32
            })
            .collect();
        let key = (0..device_pages.len())
            .map(|n| {
                let mut x = seed ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                (x ^ (x >> 31)) as u32
            })
            .collect();
        Frames {
            next: vec![0; device_pages.len()],
            order,
            mask,
            key,
        }
    }

    pub fn order(&self) -> FrameOrder {
        self.order
    }

    /// The next frame of `node`.
    #[inline]
    pub fn take(&mut self, node: usize) -> u32 {
        let k = self.next[node];
        self.next[node] += 1;
        match self.order {
            FrameOrder::Sequential => k,
            FrameOrder::Random => {
                let m = self.mask[node];
                (k & !m) | permute(k & m, m, self.key[node])
            }
        }
    }
}

/// A bijection of `0..=mask` (`mask` = 2^b − 1): each step (add a key, multiply by an odd
/// number, xor with a right shift) is invertible modulo 2^b, so the composition is too.
fn permute(mut x: u32, mask: u32, key: u32) -> u32 {
    let bits = mask.count_ones();
    let shift = (bits / 2).max(1);
    for round in 0..3u32 {
        x = x.wrapping_add(key.rotate_left(round * 11)) & mask;
        x = x.wrapping_mul(0x2C1B_3C6D | 1) & mask;
        x ^= x >> shift;
    }
    x & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_frames_count_per_node() {
        let mut f = Frames::sequential(2);
        assert_eq!([f.take(0), f.take(1), f.take(0)], [0, 0, 1]);
    }

    #[test]
    fn random_frames_are_a_permutation_of_the_device() {
        for pages in [2u64, 5, 1000, 4096] {
            let mut f = Frames::new(FrameOrder::Random, &[pages], 7);
            let domain = pages.next_power_of_two();
            let mut seen: Vec<u32> = (0..domain).map(|_| f.take(0)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..domain as u32).collect::<Vec<_>>(), "{pages} pages");
            // Past the domain (frames of moves) the high bits carry on.
            assert!(f.take(0) >= domain as u32);
        }
    }

    #[test]
    fn random_frames_scatter_and_follow_the_seed() {
        let take = |seed| {
            let mut f = Frames::new(FrameOrder::Random, &[1 << 20], seed);
            (0..64).map(|_| f.take(0)).collect::<Vec<_>>()
        };
        let a = take(1);
        assert_eq!(a, take(1), "deterministic");
        assert_ne!(a, take(2), "seeded");
        let adjacent = a.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(
            adjacent <= 2,
            "consecutive pages get scattered frames: {adjacent} adjacent of 63"
        );
    }
}
