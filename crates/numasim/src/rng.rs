//! The policies' random choices (StarNUMA's "random sharer"), seeded from the experiment seed.
//!
//! SplitMix64: tiny, fast and fully specified, so the same seed gives the same moves on every
//! platform without pulling a random-number crate into the simulator library.

#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        // A fixed stream offset keeps policy draws unrelated to workload streams of the same seed.
        SplitMix64(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniformly chosen set bit of `mask` (None when empty).
    pub fn pick_bit(&mut self, mask: u128) -> Option<usize> {
        let n = mask.count_ones();
        if n == 0 {
            return None;
        }
        let mut k = self.below(u64::from(n));
        let mut m = mask;
        loop {
            let b = m.trailing_zeros() as usize;
            if k == 0 {
                return Some(b);
            }
            k -= 1;
            m &= m - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_only_set_bits_and_is_deterministic() {
        let mut a = SplitMix64::new(3);
        let mut b = SplitMix64::new(3);
        for _ in 0..100 {
            let x = a.pick_bit(0b1010_0100).unwrap();
            assert!([2, 5, 7].contains(&x));
            assert_eq!(Some(x), b.pick_bit(0b1010_0100));
        }
        assert_eq!(a.pick_bit(0), None);
    }
}
