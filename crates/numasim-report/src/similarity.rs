//! How faithfully each run is scaled: results.json's `similarity` block, read from the raw
//! JSON (runs written before the block existed simply have none).
//!
//! The block holds `numbers: [{number, run, reference}]` (each value optional),
//! `footprint_bytes` and, when the experiment declared the paper's reference, `scale` (the
//! run's footprint over the paper's) and `reference.source`.

use crate::results::Run;
use serde_json::Value;

/// One number of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub number: String,
    pub run: Option<f64>,
    pub reference: Option<f64>,
}

impl Row {
    /// Run over reference, when both are there and the reference is not 0.
    pub fn ratio(&self) -> Option<f64> {
        match (self.run, self.reference) {
            (Some(r), Some(p)) if p != 0.0 && r.is_finite() && p.is_finite() => Some(r / p),
            _ => None,
        }
    }
}

/// A run's similarity block.
#[derive(Debug, Clone, PartialEq)]
pub struct Similarity {
    pub scale: Option<f64>,
    pub source: Option<String>,
    pub rows: Vec<Row>,
}

/// The run's block, if it has one with at least one number.
pub fn of(run: &Run) -> Option<Similarity> {
    let s = run.raw.get("similarity")?;
    let rows: Vec<Row> = s
        .get("numbers")?
        .as_array()?
        .iter()
        .filter_map(|r| {
            Some(Row {
                number: r.get("number")?.as_str()?.to_string(),
                run: r.get("run").and_then(Value::as_f64),
                reference: r.get("reference").and_then(Value::as_f64),
            })
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(Similarity {
        scale: s.get("scale").and_then(Value::as_f64),
        source: s
            .get("reference")
            .and_then(|r| r.get("source"))
            .and_then(Value::as_str)
            .map(str::to_string),
        rows,
    })
}

/// A number for a table: 4 significant digits, "—" when absent.
pub fn format_value(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) if !x.is_finite() => format!("{x}"),
        Some(0.0) => "0".into(),
        Some(x) if x.abs() >= 1e4 || x.abs() < 1e-3 => format!("{x:.3e}"),
        Some(x) => {
            let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
            format!("{x:.digits$}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_four_significant_digits() {
        assert_eq!(format_value(None), "—");
        assert_eq!(format_value(Some(0.0)), "0");
        assert_eq!(format_value(Some(2.031)), "2.031");
        assert_eq!(format_value(Some(125.0)), "125.0");
        assert_eq!(format_value(Some(0.01234)), "0.01234");
        assert_eq!(format_value(Some(36_000.0)), "3.600e4");
    }

    #[test]
    fn ratio_needs_both_values() {
        let r = Row {
            number: "x".into(),
            run: Some(1.0),
            reference: Some(4.0),
        };
        assert_eq!(r.ratio(), Some(0.25));
        assert_eq!(
            Row {
                reference: None,
                ..r.clone()
            }
            .ratio(),
            None
        );
        assert_eq!(
            Row {
                reference: Some(0.0),
                ..r
            }
            .ratio(),
            None
        );
    }
}
