//! NAS Parallel Benchmark-style kernels CG, MG, FT, IS, EP and pseudo-applications BT, SP, LU.
//!
//! All eight are implemented (`cg`, `mg`, `ft`, `is`, `ep`, `bt`, `sp`, `lu`). MG and FT are
//! data-oblivious: their address streams depend only on the sizes, and the seed sets the input
//! data (see their docs). BT, SP and LU are data-oblivious too and emit their loop nests'
//! accesses without evaluating values ([`cfd`] says why); they use NPB 3.3-OMP's array shapes,
//! so their footprint is a closed form of the class. All eight take NPB's `class` (S, W, A, B,
//! C; [`class`] gives the semantics, docs/reference/npb-classes.md the sizes and footprints).
//!
//! **Class C footprints against HyDM's Table I** (peak memory use of each benchmark run alone
//! on their KNL; MB = 10⁶ bytes). "Allocated" is what the generator lays out, computed by
//! [`cfd::Arrays::footprint_bytes`] and held to these numbers by a test
//! (`class_c_footprints_match_the_documented_table`):
//!
//! | benchmark | HyDM peak | allocated, shared | + per thread | with 1 / 68 / 272 threads |
//! |---|---|---|---|---|
//! | BT.C | 1 676 MB | 723.1 MB | 0.176 MB | 723.3 / 735.1 / 771.0 MB |
//! | SP.C | 1 416 MB | 757.5 MB | 3.204 MB | 760.7 / 975.4 / 1 629.0 MB |
//! | LU.C | 760 MB | 628.7 MB | 0 | 628.7 MB |
//!
//! LU's arrays come within 17 % of HyDM's figure; SP's per-thread plane factors (`lhs`,
//! `lhsp`, `lhsm`) make its footprint depend on the thread count, which HyDM does not state
//! (their KNL has 68 cores, 272 hardware threads). BT's NPB 3.3-OMP arrays are 2.3× smaller
//! than HyDM's peak: the difference must come from the build they ran (version, MPI or
//! OpenMP, thread count), which the paper does not give — NPB's MPI BT, for instance, keeps a
//! 3-D array of 5×5 blocks (`lhsc`, 46 doubles a point in all, about 1.6 GB at class C) that
//! the OpenMP version replaced by per-line buffers. The
//! generators follow the OpenMP code and do not pad to the paper's figures.
//!
//! Tikir & Hollingsworth (hardware monitors for dynamic page migration) run NPB's OpenMP
//! kernels on a Sun Fire 6800, where the benchmarks' *serial initialisation* puts almost all
//! pages on the initialising thread's board under first touch (their MG figure); HyDM runs NPB
//! on KNL and ranks pages by arithmetic intensity, so the kernels count flops. Each kernel here
//! executes the real algorithm on real arrays through the OpenMP-like runtime
//! ([`crate::omp`]): `init = "serial"` means thread 0 writes every array before the parallel
//! part (a `single` region), `init = "parallel"` means each thread first-touches the part it
//! later computes on (the NPB 3.x OpenMP style).
//!
//! Common cost-model conventions (per access, the `cost` argument): a load or store is one
//! instruction; index arithmetic/loop control adds 1–2; every floating-point operation is one
//! instruction, counted in the cost of the access it precedes *and* recorded as flops.

pub mod bt;
pub mod cfd;
pub mod cg;
pub mod class;
pub mod ep;
pub mod ft;
pub mod is;
pub mod lu;
pub mod mg;
pub mod sp;

use crate::omp::Sched;
pub use cfd::Class;
use serde::{Deserialize, Serialize};

/// Who first-touches the arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Init {
    /// Thread 0 initialises everything (first touch puts it all on one node).
    #[default]
    Serial,
    /// Each thread initialises the block it later works on.
    Parallel,
}

impl numasim_config::param::ParamKind for Init {}

impl Init {
    /// The schedule of the initialisation loop.
    pub fn sched(self) -> Sched {
        match self {
            Init::Serial => Sched::Serial,
            Init::Parallel => Sched::Static,
        }
    }

    pub fn doc() -> &'static str {
        "serial (thread 0 writes all arrays first) | parallel (each thread first-touches its block)"
    }
}

/// OpenMP `schedule(static)`: thread `t`'s contiguous block of `0..n` (the first `n % threads`
/// threads get one more item), as [`crate::omp`] splits static loops.
pub fn static_range(n: usize, threads: usize, t: usize) -> std::ops::Range<usize> {
    let (q, r) = (n / threads, n % threads);
    let start = t * q + t.min(r);
    start..start + q + usize::from(t < r)
}

#[cfg(test)]
mod footprint_tests {
    /// The class C figures of the module docs' table (MB = 10⁶ bytes, 1 decimal).
    #[test]
    fn class_c_footprints_match_the_documented_table() {
        let mb = |b: u64| format!("{:.1}", b as f64 / 1e6);
        let text = "threads = 1\nclass = \"C\"";
        let bt = super::bt::Bt::new(crate::params::parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap();
        let sp = super::sp::Sp::new(crate::params::parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap();
        let lu = super::lu::Lu::new(crate::params::parse(toml::from_str(text).unwrap()).unwrap(), 1).unwrap();
        let row = |a: &super::cfd::Arrays| {
            let shared = a.footprint_bytes(0);
            let per = a.footprint_bytes(1) - shared;
            (
                mb(shared),
                format!("{:.3}", per as f64 / 1e6),
                [1, 68, 272].map(|t| mb(a.footprint_bytes(t))),
            )
        };
        assert_eq!(
            row(bt.arrays()),
            (
                "723.1".into(),
                "0.176".into(),
                ["723.3".into(), "735.1".into(), "771.0".into()]
            )
        );
        assert_eq!(
            row(sp.arrays()),
            (
                "757.5".into(),
                "3.204".into(),
                ["760.7".into(), "975.4".into(), "1629.0".into()]
            )
        );
        assert_eq!(
            row(lu.arrays()),
            (
                "628.7".into(),
                "0.000".into(),
                ["628.7".into(), "628.7".into(), "628.7".into()]
            )
        );
        // HyDM Table I peak memory use (MB): the LU ratio the docs quote.
        let lu_ratio = lu.arrays().footprint_bytes(1) as f64 / 760e6;
        assert!((0.82..0.84).contains(&lu_ratio), "{lu_ratio}");
    }
}

#[cfg(test)]
mod flop_tests {
    use numasim_trace::collect_all;

    /// Flops of one step (iterations 2 minus iterations 1) per grid point.
    fn flops_per_point_step(kind: &str, n: usize) -> f64 {
        let total = |it: usize| -> u64 {
            let text = format!("threads = 2\ngrid = {n}\niterations = {it}");
            let mut src = crate::build(kind, toml::from_str(&text).unwrap(), 1).unwrap();
            collect_all(&mut *src)
                .unwrap()
                .iter()
                .flatten()
                .map(|a| a.flops as u64)
                .sum()
        };
        (total(2) - total(1)) as f64 / (n * n * n) as f64
    }

    /// Flops per step against NPB's own operation-count formulas (the Mop/s numerator of
    /// bt.f, sp.f, applu.f, per n³) at n = 24: BT +1.4 %, SP −17 %, LU −39 %, as the module
    /// docs of bt, sp and lu state.
    #[test]
    fn flops_per_step_against_npb_operation_counts() {
        let n = 24.0f64;
        let npb = |c3: f64, c2: f64, c1: f64, c0: f64| (c3 * n * n * n - c2 * n * n + c1 * n - c0) / (n * n * n);
        let ratio = |kind: &str, want: f64| flops_per_point_step(kind, 24) / want;
        let bt = ratio("bt", npb(3478.8, 17655.7, 28023.7, 0.0));
        let sp = ratio("sp", npb(881.174, 4683.91, 11484.5, 19272.4));
        let lu = ratio("lu", npb(1984.77, 10923.3, 27770.9, 144010.0));
        assert!((1.00..1.03).contains(&bt), "bt {bt}");
        assert!((0.80..0.86).contains(&sp), "sp {sp}");
        assert!((0.58..0.64).contains(&lu), "lu {lu}");
    }
}

/// Test helpers shared by part B's generators.
#[cfg(test)]
pub(crate) mod testutil {
    use numasim_trace::{collect_all, Access, AccessSource};

    /// Drains `src` pulling threads round-robin, one batch at a time.
    pub fn collect_interleaved(src: &mut dyn AccessSource) -> Vec<Vec<Access>> {
        let n = src.threads();
        let mut all = vec![Vec::new(); n];
        let mut live = vec![true; n];
        let mut buf = Vec::new();
        while live.iter().any(|&l| l) {
            for t in 0..n {
                if live[t] {
                    src.next_batch(t, &mut buf).unwrap();
                    if buf.is_empty() {
                        live[t] = false;
                    }
                    all[t].extend_from_slice(&buf);
                }
            }
        }
        all
    }

    /// Same seed -> identical output (whatever the pull order), other seed -> different,
    /// strictly increasing instruction counts, every thread active. Returns seed 1's output.
    pub fn check_generator(build: impl Fn(&str, u64) -> Box<dyn AccessSource>, params: &str) -> Vec<Vec<Access>> {
        check_seeds(build, params, false)
    }

    /// [`check_generator`] for a data-oblivious generator (`bt`, `sp`, `lu`): its stream does
    /// not depend on the seed, so another seed must give the *same* output.
    pub fn check_oblivious_generator(
        build: impl Fn(&str, u64) -> Box<dyn AccessSource>,
        params: &str,
    ) -> Vec<Vec<Access>> {
        check_seeds(build, params, true)
    }

    fn check_seeds(
        build: impl Fn(&str, u64) -> Box<dyn AccessSource>,
        params: &str,
        seed_oblivious: bool,
    ) -> Vec<Vec<Access>> {
        let a = collect_all(&mut build(params, 1)).unwrap();
        let b = collect_interleaved(&mut *build(params, 1));
        assert!(a == b, "output depends on the order threads are pulled");
        let c = collect_all(&mut build(params, 2)).unwrap();
        if seed_oblivious {
            assert!(a == c, "data-oblivious generator: another seed changed the output");
        } else {
            assert!(a != c, "a different seed gives the same output");
        }
        for (t, s) in a.iter().enumerate() {
            assert!(!s.is_empty(), "thread {t} made no access");
            assert!(
                s.windows(2).all(|w| w[0].instr < w[1].instr),
                "thread {t}: instruction counts not increasing"
            );
        }
        a
    }

    pub fn via(
        build: fn(toml::Table, u64) -> Result<Box<dyn AccessSource>, crate::WorkloadError>,
    ) -> impl Fn(&str, u64) -> Box<dyn AccessSource> {
        move |text: &str, seed| build(toml::from_str(text).unwrap(), seed).unwrap()
    }

    /// The thread that first touches each 4 KiB page when the threads run interleaved by
    /// instruction count (ties to the lower thread), as the simulator's first-touch
    /// placement at a quantum of one instruction sees them.
    pub fn first_toucher(all: &[Vec<Access>]) -> std::collections::HashMap<u64, usize> {
        let mut order: Vec<(u64, usize, u64)> = all
            .iter()
            .enumerate()
            .flat_map(|(t, s)| s.iter().map(move |a| (a.instr, t, a.vaddr >> 12)))
            .collect();
        order.sort_unstable();
        let mut owner = std::collections::HashMap::new();
        for (_, t, page) in order {
            owner.entry(page).or_insert(t);
        }
        owner
    }

    /// Fraction of accesses whose page was first touched by the accessing thread (one
    /// thread per node: the first-touch local fraction).
    pub fn first_touch_local_share(all: &[Vec<Access>]) -> f64 {
        let owner = first_toucher(all);
        let total: usize = all.iter().map(Vec::len).sum();
        let local: usize = all
            .iter()
            .enumerate()
            .map(|(t, s)| s.iter().filter(|a| owner[&(a.vaddr >> 12)] == t).count())
            .sum();
        local as f64 / total as f64
    }

    /// Fraction of accesses that go to pages (4 KiB) touched by exactly one thread.
    pub fn single_thread_page_access_fraction(all: &[Vec<Access>]) -> f64 {
        let mut owners: std::collections::HashMap<u64, (usize, bool)> = Default::default();
        for (t, s) in all.iter().enumerate() {
            for a in s {
                let e = owners.entry(a.vaddr >> 12).or_insert((t, false));
                if e.0 != t {
                    e.1 = true;
                }
            }
        }
        let total: usize = all.iter().map(|s| s.len()).sum();
        let single: usize = all.iter().flatten().filter(|a| !owners[&(a.vaddr >> 12)].1).count();
        single as f64 / total as f64
    }
}

#[cfg(test)]
mod roi_tests {
    use numasim_trace::{collect_all, AccessSource};

    /// The set-up's accesses (before the region of interest) and the region's, of a 3-thread
    /// run with serial initialisation.
    fn split(kind: &str, params: &str) -> (u64, usize, usize) {
        let text = format!("threads = 3\ninit = \"serial\"\n{params}");
        let mut src = crate::build(kind, toml::from_str(&text).unwrap(), 1).unwrap();
        let r = src
            .roi_start()
            .unwrap()
            .unwrap_or_else(|| panic!("{kind}: no region of interest"));
        let all = collect_all(&mut *src).unwrap();
        let before = all.iter().flatten().filter(|a| a.instr < r).count();
        let after = all.iter().flatten().filter(|a| a.instr > r).count();
        assert_eq!(
            before + after,
            all.iter().flatten().count(),
            "{kind}: an access at the start itself"
        );
        (r, before, after)
    }

    /// Every NPB generator declares where its set-up ends: the set-up does not depend on the
    /// iteration count (same start, same accesses before it), and every added iteration lies
    /// in the region of interest.
    #[test]
    fn npb_set_up_ends_where_the_region_of_interest_starts() {
        for (kind, size) in [
            ("cg", "rows = 300\nnonzeros_per_row = 3"),
            ("mg", "grid_log2 = 3"),
            ("ft", "nx = 8\nny = 8\nnz = 8\nblock = 4"),
            ("is", "keys = 4096\nmax_key = 1024\nbuckets = 64"),
            ("bt", "grid = 8"),
            ("sp", "grid = 8"),
            ("lu", "grid = 8"),
        ] {
            let (r1, before1, after1) = split(kind, &format!("{size}\niterations = 1"));
            let (r2, before2, after2) = split(kind, &format!("{size}\niterations = 2"));
            assert!(r1 > 0 && before1 > 0, "{kind}: a set-up");
            if kind == "ft" {
                // FT's `ex` table has an entry per exponent the iterations use, as NPB's.
                assert!(
                    before2 > before1 && before2 < before1 + before1 / 50,
                    "{before1} then {before2}"
                );
            } else {
                assert_eq!(
                    (r1, before1),
                    (r2, before2),
                    "{kind}: the set-up depends on the iterations"
                );
            }
            assert!(after2 > after1, "{kind}: {after1} then {after2} accesses in the region");
        }
        let (r, before, after) = split("ep", "pairs_log2 = 12");
        assert!(r > 0 && before > 0 && after > 0, "ep: {r} {before} {after}");
    }

    /// A generator without a set-up declares none.
    #[test]
    fn a_generator_without_a_set_up_declares_no_region() {
        let text = "threads = 2\npattern = \"uniform\"\naccesses_per_thread = 100";
        let mut src = crate::build("synthetic", toml::from_str(text).unwrap(), 1).unwrap();
        assert_eq!(src.roi_start().unwrap(), None);
    }
}
