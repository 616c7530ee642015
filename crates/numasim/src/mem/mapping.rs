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
}

impl ThreadMapping {
    /// Socket of every thread. `Explicit` lists are validated by the caller.
    pub fn sockets(&self, threads: usize, sockets: usize) -> Vec<usize> {
        match self {
            // Equals t / (T/S) when S divides T, and stays balanced when it does not.
            ThreadMapping::Compact => (0..threads).map(|t| t * sockets / threads).collect(),
            ThreadMapping::Scatter => (0..threads).map(|t| t % sockets).collect(),
            ThreadMapping::Explicit(list) => list.clone(),
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
}
