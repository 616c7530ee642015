//! Seeding: one experiment seed, independent deterministic streams per thread.

pub mod jump;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every workload uses: fast, small state, reproducible across platforms.
pub type Rng = Xoshiro256PlusPlus;

/// A stream for (`seed`, `stream`), independent of the order streams are created in.
pub fn stream(seed: u64, stream: u64) -> Rng {
    from_state(stream_state(seed, stream))
}

/// The generator whose xoshiro256 state is `s` (what [`jump::jumped`] returns).
pub fn from_state(s: [u64; 4]) -> Rng {
    let mut bytes = [0u8; 32];
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(s) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Rng::from_seed(bytes)
}

/// The state [`stream`] starts from: `Rng::seed_from_u64` of the mixed seed, which fills the
/// four state words with consecutive SplitMix64 outputs (rand_xoshiro's seeding, repeated
/// here because the generator does not expose its state; a test holds the two together).
pub fn stream_state(seed: u64, stream: u64) -> [u64; 4] {
    // SplitMix-style mixing so neighbouring stream ids give unrelated states.
    let mut z = seed
        ^ stream
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut x = z ^ (z >> 31);
    std::array::from_fn(|_| {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    /// `stream` gives exactly the generator `Rng::seed_from_u64` of the mixed seed gave.
    #[test]
    fn stream_state_is_the_crates_seeding() {
        for (seed, id) in [(0u64, 0u64), (1, 0x6752_6170_6800), (u64::MAX, 7), (42, 1 << 40)] {
            let mut z = seed
                ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .wrapping_add(0xD1B5_4A32_D192_ED03);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let mut want = Rng::seed_from_u64(z ^ (z >> 31));
            let mut got = stream(seed, id);
            for _ in 0..100 {
                assert_eq!(got.next_u64(), want.next_u64());
            }
        }
    }
}
