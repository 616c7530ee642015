//! Seeding: one experiment seed, independent deterministic streams per thread.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every workload uses: fast, small state, reproducible across platforms.
pub type Rng = Xoshiro256PlusPlus;

/// A stream for (`seed`, `stream`), independent of the order streams are created in.
pub fn stream(seed: u64, stream: u64) -> Rng {
    // SplitMix-style mixing so neighbouring stream ids give unrelated states.
    let mut z = seed
        ^ stream
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Rng::seed_from_u64(z ^ (z >> 31))
}
