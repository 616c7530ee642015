//! How many threads a generator may use to build its data before the first access (a graph's
//! edge list and CSR), and the even split of work they share.
//!
//! The budget is a thread-local set around the build by [`crate::build_with_threads`], not a
//! parameter of every generator: only the graph builders use it, a study runs several builds
//! at once in one process (each with its own share of the cores), and whatever the budget,
//! the data built is the same (tested per builder), so it never reaches results.

use std::cell::Cell;
use std::ops::Range;

thread_local! {
    static BUILD_THREADS: Cell<usize> = const { Cell::new(1) };
}

/// The calling thread's build budget (1 unless inside [`with_build_threads`]).
pub fn build_threads() -> usize {
    BUILD_THREADS.with(Cell::get)
}

/// Runs `f` with a build budget of `threads` (at least 1), restoring the previous one after.
pub fn with_build_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUILD_THREADS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(BUILD_THREADS.with(|c| c.replace(threads.max(1))));
    f()
}

/// `0..len` cut into `parts` consecutive ranges of near-equal length (none when `len` is 0).
pub fn split(len: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, len.max(1));
    (0..parts)
        .map(|k| len * k / parts..len * (k + 1) / parts)
        .filter(|r| !r.is_empty())
        .collect()
}

/// How many parts to cut `len` items of work into: the budget, but no part below `min_len`.
pub fn parts_for(len: usize, min_len: usize) -> usize {
    build_threads().min(len / min_len.max(1)).max(1)
}

/// Runs `f(range, slice)` for each of `ranges` (consecutive, from 0) on its own thread (the
/// last on the caller's), `slice` being `data`'s elements of that range.
pub fn for_each_part<T: Send>(ranges: &[Range<usize>], data: &mut [T], f: impl Fn(&Range<usize>, &mut [T]) + Sync) {
    let f = &f;
    std::thread::scope(|s| {
        let mut rest = data;
        for (k, r) in ranges.iter().enumerate() {
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
            rest = tail;
            if k + 1 == ranges.len() {
                f(r, mine);
            } else {
                s.spawn(move || f(r, mine));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_scoped_and_restored() {
        assert_eq!(build_threads(), 1);
        let inner = with_build_threads(4, || (build_threads(), with_build_threads(0, build_threads)));
        assert_eq!(inner, (4, 1));
        assert_eq!(build_threads(), 1);
    }

    #[test]
    fn split_covers_every_item_once() {
        for (len, parts) in [(0, 3), (1, 4), (10, 3), (10, 10), (7, 1), (100, 7)] {
            let r = split(len, parts);
            assert_eq!(r.iter().map(|r| r.len()).sum::<usize>(), len);
            assert!(r.windows(2).all(|w| w[0].end == w[1].start));
            assert!(r.len() <= parts.max(1));
        }
    }
}
