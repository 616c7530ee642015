//! Statistics, each declared once.
//!
//! A counter struct is written with [`declare_stats!`](crate::declare_stats): one entry per
//! counter gives its field, type, how two counts of it combine ([`Merge`]), its unit and a
//! one-line meaning (the entry's doc line). The macro turns that one declaration into
//! - the struct the simulator increments (`pub` fields),
//! - its table of [`StatDef`]s ([`Stats::STATS`]), which reports, the results reference and
//!   its JSON Schema read for names, units and meanings,
//! - the walk over its counters ([`Counter::zip`]) behind [`Stats::add`] (a run's total from
//!   its phases) and [`Stats::since`] (a phase's counts from two snapshots), so neither is
//!   written field by field.
//!
//! Counters are `u64`s, fixed arrays and vectors of them, or other declared structs (a vector
//! of per-class sums). Sums saturate rather than wrap: hostile traces reach counts near 2^64.
//!
//! Syntax (one doc line per counter):
//! ```
//! numasim_output::declare_stats! {
//!     /// Counters of one phase.
//!     #[derive(Debug, Clone, Default, PartialEq)]
//!     pub struct Counts {
//!         /// loads issued
//!         loads: u64, Sum, unit "loads";
//!         /// loads by kind
//!         by_kind: [u64; 2], Sum, unit "loads";
//!         /// when the phase ended
//!         end_ps: u64, Max, unit "ps";
//!     }
//! }
//! use numasim_output::stat::Stats;
//! let a = Counts { loads: 3, by_kind: [1, 2], end_ps: 10 };
//! let mut b = Counts { loads: 5, by_kind: [2, 3], end_ps: 20 };
//! assert_eq!(b.since(&a), Counts { loads: 2, by_kind: [1, 1], end_ps: 20 });
//! b.add(&a);
//! assert_eq!(b, Counts { loads: 8, by_kind: [3, 5], end_ps: 20 });
//! assert_eq!(Counts::def("by_kind").unit, "loads");
//! ```

/// How two counts of one counter combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Counts add up (a run's total is the sum of its phases'; a phase's is the difference).
    Sum,
    /// A time stamp that only moves forward: the total keeps the latest, a difference the
    /// later snapshot's.
    Max,
    /// A value fixed at the start (a phase's start): the total keeps its own, a difference
    /// the later snapshot's.
    Keep,
}

/// One declared statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatDef {
    pub name: &'static str,
    /// Unit of a count (`"messages"`, `"ps"`, `"loads"`...).
    pub unit: &'static str,
    /// One-line meaning.
    pub meaning: &'static str,
    pub merge: Merge,
}

/// A value made of counters: visits each `u64` beside its peer in `other`.
pub trait Counter {
    /// Calls `f(merge, mine, theirs)` on every counter of `self` and the same one of
    /// `other`; `merge` is the declared [`Merge`] of the counter (`outer` for a bare number).
    /// A vector shorter than `other`'s is first extended with zeros.
    fn zip(&mut self, other: &Self, outer: Merge, f: &mut dyn FnMut(Merge, &mut u64, u64));
}

impl Counter for u64 {
    fn zip(&mut self, other: &Self, outer: Merge, f: &mut dyn FnMut(Merge, &mut u64, u64)) {
        f(outer, self, *other)
    }
}

impl<T: Counter, const N: usize> Counter for [T; N] {
    fn zip(&mut self, other: &Self, outer: Merge, f: &mut dyn FnMut(Merge, &mut u64, u64)) {
        for (a, b) in self.iter_mut().zip(other) {
            a.zip(b, outer, f);
        }
    }
}

impl<T: Counter + Clone + Default> Counter for Vec<T> {
    fn zip(&mut self, other: &Self, outer: Merge, f: &mut dyn FnMut(Merge, &mut u64, u64)) {
        if self.len() < other.len() {
            self.resize(other.len(), T::default());
        }
        for (a, b) in self.iter_mut().zip(other) {
            a.zip(b, outer, f);
        }
    }
}

/// A declared counter struct (see [`declare_stats!`](crate::declare_stats)).
pub trait Stats: Counter + Clone + Sized {
    /// Every counter, in declaration order.
    const STATS: &'static [StatDef];

    /// Adds `other`'s counts to these (sums add, saturating; time stamps keep the latest).
    fn add(&mut self, other: &Self) {
        self.zip(other, Merge::Sum, &mut |m, a, b| match m {
            Merge::Sum => *a = a.saturating_add(b),
            Merge::Max => *a = (*a).max(b),
            Merge::Keep => {}
        });
    }

    /// The counts added since `earlier`, a snapshot of the same counters (sums subtract,
    /// saturating; time stamps are these).
    fn since(&self, earlier: &Self) -> Self {
        let mut d = self.clone();
        d.zip(earlier, Merge::Sum, &mut |m, a, b| {
            if m == Merge::Sum {
                *a = a.saturating_sub(b)
            }
        });
        d
    }

    /// The declaration of counter `name` (a misspelt name fails where it is evaluated: at
    /// compile time in a `const`).
    fn def(name: &str) -> &'static StatDef {
        find(Self::STATS, name)
    }
}

/// The statistic called `name` among `defs`; usable in `const` items, where a missing name is
/// a compile error.
pub const fn find(defs: &'static [StatDef], name: &str) -> &'static StatDef {
    let mut i = 0;
    while i < defs.len() {
        if str_eq(defs[i].name, name) {
            return &defs[i];
        }
        i += 1;
    }
    panic!("no statistic of that name is declared")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A doc line's text without the space `///` leaves before it (usable in `const` items).
pub const fn doc_text(doc: &'static str) -> &'static str {
    match doc.as_bytes() {
        [b' ', ..] => match std::str::from_utf8(doc.as_bytes().split_at(1).1) {
            Ok(rest) => rest,
            Err(_) => doc,
        },
        _ => doc,
    }
}

/// Declares a counter struct once: fields, merge rule, unit and meaning (module docs of
/// [`stat`](crate::stat)).
#[macro_export]
macro_rules! declare_stats {
    (
        $(#[$smeta:meta])*
        $vis:vis struct $name:ident {
            $(
                #[doc = $doc:literal]
                $field:ident : $ty:ty, $merge:ident, unit $unit:literal;
            )*
        }
    ) => {
        $(#[$smeta])*
        $vis struct $name {
            $( #[doc = $doc] pub $field: $ty, )*
        }

        impl $crate::stat::Counter for $name {
            fn zip(
                &mut self,
                other: &Self,
                _outer: $crate::stat::Merge,
                f: &mut dyn FnMut($crate::stat::Merge, &mut u64, u64),
            ) {
                $( $crate::stat::Counter::zip(&mut self.$field, &other.$field, $crate::stat::Merge::$merge, f); )*
            }
        }

        impl $crate::stat::Stats for $name {
            const STATS: &'static [$crate::stat::StatDef] = &[$(
                $crate::stat::StatDef {
                    name: stringify!($field),
                    unit: $unit,
                    meaning: $crate::stat::doc_text($doc),
                    merge: $crate::stat::Merge::$merge,
                }
            ),*];
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    declare_stats! {
        /// Per-class sums.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Class {
            /// loads
            count: u64, Sum, unit "loads";
            /// their summed latency
            sum_ps: u64, Sum, unit "ps";
        }
    }

    declare_stats! {
        /// A phase's counters.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Phase {
            /// loads by class
            classes: Vec<Class>, Sum, unit "loads";
            /// messages by kind
            kinds: [u64; 3], Sum, unit "messages";
            /// start of the phase
            start_ps: u64, Keep, unit "ps";
            /// end of the phase
            end_ps: u64, Max, unit "ps";
        }
    }

    fn phase(c: &[(u64, u64)], kinds: [u64; 3], start_ps: u64, end_ps: u64) -> Phase {
        Phase {
            classes: c.iter().map(|&(count, sum_ps)| Class { count, sum_ps }).collect(),
            kinds,
            start_ps,
            end_ps,
        }
    }

    #[test]
    fn add_sums_counts_keeps_the_start_and_the_latest_end() {
        let mut total = phase(&[(1, 10)], [1, 0, 2], 0, 100);
        total.add(&phase(&[(2, 5), (3, 30)], [0, 4, u64::MAX], 100, 250));
        assert_eq!(total, phase(&[(3, 15), (3, 30)], [1, 4, u64::MAX], 0, 250));
    }

    #[test]
    fn since_is_the_difference_of_sums_and_the_later_stamps() {
        let earlier = phase(&[(1, 10)], [1, 0, 2], 0, 100);
        let now = phase(&[(4, 70), (2, 8)], [3, 5, 2], 0, 180);
        assert_eq!(now.since(&earlier), phase(&[(3, 60), (2, 8)], [2, 5, 0], 0, 180));
        // A later snapshot never goes below zero, even against a mismatched one.
        assert_eq!(earlier.since(&now).kinds, [0, 0, 0]);
    }

    #[test]
    fn declarations_carry_names_units_and_meanings_in_order() {
        let names: Vec<&str> = Phase::STATS.iter().map(|d| d.name).collect();
        assert_eq!(names, ["classes", "kinds", "start_ps", "end_ps"]);
        let d = Phase::def("end_ps");
        assert_eq!((d.unit, d.meaning, d.merge), ("ps", "end of the phase", Merge::Max));
        const K: &StatDef = find(Phase::STATS, "kinds");
        assert_eq!(K.meaning, "messages by kind");
    }
}
