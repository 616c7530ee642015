//! A study's similarity rows: each run's dimensionless numbers (results.json `similarity`)
//! beside the paper's, as comparison rows, so the study's report and CSV show how faithfully
//! every figure was scaled (see `numasim::similarity`).

use crate::{cmp, Comparison, Expect};
use numasim::similarity::Deviation;

/// One row per number of `results`' similarity block that has a run or a reference value,
/// labelled `<label> similarity: <number>`; the paper column is the reference's value.
pub fn rows(source: &str, label: &str, results: &serde_json::Value) -> Vec<Comparison> {
    let Some(numbers) = results
        .get("similarity")
        .and_then(|s| s.get("numbers"))
        .and_then(|n| n.as_array())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(scale) = results
        .get("similarity")
        .and_then(|s| s.get("scale"))
        .and_then(|s| s.as_f64())
    {
        out.push(cmp(
            source,
            format!("{label} similarity: footprint over the paper's (scale factor)"),
            "",
            None,
            scale,
            Expect::None,
        ));
    }
    for n in numbers {
        let Some(name) = n.get("number").and_then(|v| v.as_str()) else {
            continue;
        };
        let run = n.get("run").and_then(|v| v.as_f64());
        let reference = n.get("reference").and_then(|v| v.as_f64());
        // A number the paper does not give is shown only when the run has it.
        let Some(value) = run else { continue };
        out.push(cmp(
            source,
            format!("{label} similarity: {}", name.replace('_', " ")),
            "",
            reference,
            value,
            Expect::None,
        ));
    }
    out
}

/// A number the study could not keep (budget), as a comparison row.
pub fn deviation_row(source: &str, label: &str, d: &Deviation) -> Comparison {
    cmp(
        source,
        format!(
            "{label} similarity: {} not kept ({}; run / paper {:.3})",
            d.number.replace('_', " "),
            d.reason,
            d.ratio
        ),
        "",
        Some(d.reference),
        d.run,
        Expect::None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pair_the_run_with_the_reference() {
        let r = serde_json::json!({"similarity": {"footprint_bytes": 4e6, "scale": 0.01, "numbers": [
            {"number": "phases_per_run", "run": 4.0, "reference": 125.0},
            {"number": "llc_bytes_over_footprint", "run": 0.4},
            {"number": "timed_share", "reference": 0.1}]}});
        let rows = rows("Similarity", "cg", &r);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[0].numasim, 0.01);
        assert_eq!(rows[1].quantity, "cg similarity: phases per run");
        assert_eq!((rows[1].paper, rows[1].numasim), (Some(125.0), 4.0));
        assert_eq!((rows[2].paper, rows[2].numasim), (None, 0.4));
        assert!(rows_of_nothing().is_empty());
    }

    fn rows_of_nothing() -> Vec<Comparison> {
        rows("s", "x", &serde_json::json!({"totals": {}}))
    }
}
