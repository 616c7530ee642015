//! Aggregates as the papers compute them: geomeans over the paper's whole set of workloads (a
//! workload without a value makes the mean no data rather than silently leaving it out), and
//! shares pooled over every event (a workload that moved nothing adds nothing to either side).

/// Geometric mean of `values` over every name of `set`: None (no data) when a name of the set
/// has no value or a value that is not a positive finite number, except that a zero counts
/// and makes the mean 0 (a share of 0 % is a result, not a gap). The names of `values` outside
/// `set` are ignored.
pub fn geomean_over(values: &[(&str, Option<f64>)], set: &[&str]) -> Option<f64> {
    let mut logs = 0.0;
    for name in set {
        let v = values.iter().find(|(n, _)| n == name).and_then(|(_, v)| *v)?;
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        if v == 0.0 {
            return Some(0.0);
        }
        logs += v.ln();
    }
    (!set.is_empty()).then(|| (logs / set.len() as f64).exp())
}

/// The names of `set` that [`geomean_over`] lacks a value for.
pub fn missing<'a>(values: &[(&str, Option<f64>)], set: &[&'a str]) -> Vec<&'a str> {
    set.iter()
        .copied()
        .filter(|name| {
            !values
                .iter()
                .any(|(n, v)| n == name && v.is_some_and(|x| x.is_finite() && x >= 0.0))
        })
        .collect()
}

/// A share pooled over events, percent: the sum of `part` over the sum of `whole` (None when
/// there is no event at all). Each item is (part, whole), e.g. pages moved to the pool and
/// pages moved.
pub fn pooled_share(items: &[(f64, f64)]) -> Option<f64> {
    let (part, whole) = items.iter().fold((0.0, 0.0), |(p, w), (a, b)| (p + a, w + b));
    (whole > 0.0).then(|| 100.0 * part / whole)
}

/// One workload's share, percent, when it had any event (None: nothing to share).
pub fn share(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| 100.0 * part / whole)
}

/// Arithmetic mean of `values` (None when empty or any is not finite).
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_covers_the_papers_set_and_counts_zeros() {
        let v = [("a", Some(2.0)), ("b", Some(8.0)), ("c", Some(1.0)), ("poa", Some(0.0))];
        // The paper's set without POA: (2 × 8 × 1)^(1/3).
        let g = geomean_over(&v, &["a", "b", "c"]).unwrap();
        assert!((g - 16f64.powf(1.0 / 3.0)).abs() < 1e-12);
        // A zero in the set counts: the mean is 0, not the mean of the others.
        assert_eq!(geomean_over(&v, &["a", "poa"]), Some(0.0));
        // A workload of the set without a value (it moved nothing: no share) is no data.
        let w = [("a", Some(100.0)), ("b", None), ("c", Some(100.0))];
        assert_eq!(geomean_over(&w, &["a", "b", "c"]), None);
        assert_eq!(missing(&w, &["a", "b", "c"]), ["b"]);
        assert_eq!(geomean_over(&w, &[]), None);
        assert_eq!(geomean_over(&[("a", Some(f64::NAN))], &["a"]), None);
    }

    #[test]
    fn pooled_share_weighs_every_move() {
        // Four workloads moved 1 page each, all to the pool; one moved 96, none to the pool.
        // The mean of the per-workload shares of the movers says 80 %; pooled it is 4 %.
        let items = [(1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 96.0), (0.0, 0.0)];
        assert!((pooled_share(&items).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(pooled_share(&[(0.0, 0.0)]), None);
        assert_eq!(share(3.0, 0.0), None);
        assert_eq!(share(1.0, 4.0), Some(25.0));
        assert_eq!(mean(&[1.0, 2.0]), Some(1.5));
        assert_eq!(mean(&[]), None);
    }
}
