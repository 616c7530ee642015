//! Which socket each thread runs on.

/// Thread → socket mapping policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadMapping {
    /// Consecutive threads fill a socket before the next (thread t on socket t·S/T).
    Compact,
    /// Round-robin over sockets (thread t on socket t mod S).
    Scatter,
    /// One socket index per thread.
    Explicit(Vec<usize>),
    /// Threads on cores drawn at random: a seeded Fisher–Yates shuffle of the machine's cores
    /// (`core_sockets`: the socket of every core), thread t on core `shuffled[t mod cores]`.
    Random { core_sockets: Vec<usize>, seed: u64 },
}

impl ThreadMapping {
    /// Socket of every thread. `Explicit` lists are validated by the caller.
    pub fn sockets(&self, threads: usize, sockets: usize) -> Vec<usize> {
        match self {
            // Equals t / (T/S) when S divides T, and stays balanced when it does not.
            ThreadMapping::Compact => (0..threads).map(|t| t * sockets / threads).collect(),
            ThreadMapping::Scatter => (0..threads).map(|t| t % sockets).collect(),
            ThreadMapping::Explicit(list) => list.clone(),
            ThreadMapping::Random { core_sockets, seed } => {
                let mut cores = core_sockets.clone();
                let mut rng = crate::rng::SplitMix64::new(*seed ^ 0x6d61_7070_696e_6700);
                for i in (1..cores.len()).rev() {
                    cores.swap(i, rng.below(i as u64 + 1) as usize);
                }
                if cores.is_empty() {
                    return vec![0; threads];
                }
                (0..threads).map(|t| cores[t % cores.len()]).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_matches_block_formula() {
        let s = ThreadMapping::Compact.sockets(64, 16);
        for (t, &sock) in s.iter().enumerate() {
            assert_eq!(sock, t / 4);
        }
        assert_eq!(ThreadMapping::Compact.sockets(2, 16), vec![0, 8]);
        assert_eq!(ThreadMapping::Scatter.sockets(4, 2), vec![0, 1, 0, 1]);
    }

    #[test]
    fn random_is_a_seeded_permutation_of_the_cores() {
        // Two sockets of 3 cores: 6 threads take every core once, so 3 land on each socket.
        let m = |seed| ThreadMapping::Random {
            core_sockets: vec![0, 0, 0, 1, 1, 1],
            seed,
        };
        let a = m(7).sockets(6, 2);
        assert_eq!(a.iter().filter(|&&s| s == 0).count(), 3);
        assert_eq!(a, m(7).sockets(6, 2), "same seed, same assignment");
        let differs = (0..20).any(|seed| m(seed).sockets(6, 2) != a);
        assert!(differs, "other seeds give other assignments");
        assert_eq!(m(7).sockets(12, 2)[6..], a[..], "more threads than cores wrap around");
    }
}
