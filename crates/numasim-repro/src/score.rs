//! Scoring one row of a study against the paper: the band a value is judged by, the effect a
//! direction needs, and the verdict.
//!
//! A row with a paper value **matches** when numasim's value lies within its band (default
//! ±15 % of the paper's value; for quantities in percent or points, ±15 % of the paper's value
//! widened to 2 points, or to half the paper's value when that is less, and the difference is
//! given in points). Outside the band, a row
//! that states a direction gets **direction only** when numasim's value lies on the paper's
//! side of the bound by at least half the paper's own effect (the paper's value minus the
//! bound), and **wrong** otherwise: a value a hair past the bound is noise, not agreement.
//! Without a paper value, the effect needed is [`Comparison::min_effect`] when the study gives
//! one, else 5 % of the bound (1 point for percentages; 5 % of the bound's unit otherwise).
//! Values numasim is given (**input**) and quantities that cannot differ in this model
//! (**invariant**) are listed, never scored; a row whose value is missing is **no data**,
//! never 0; a headline the study did not run at this size is **not run**.

use crate::{Comparison, Expect};

/// What a row is, for scoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A result numasim computes: scored.
    #[default]
    Result,
    /// A value numasim is given (an input latency, a capacity): listed, never scored.
    Input,
    /// A quantity that cannot differ from the paper's in this model (true by construction):
    /// listed, never scored.
    Invariant,
}

/// How far from the paper's value a row may be and still match.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// A fraction of the paper's value (0.15: ±15 %).
    Relative(f64),
    /// Absolute, in the quantity's points (percentages).
    Points(f64),
}

impl Band {
    /// The default band of a quantity in `unit` whose paper value is `paper`.
    pub fn default_for(unit: &str, paper: f64) -> Band {
        if is_percentage(unit) {
            // ±15 % of the value, widened to 2 points for small percentages (a 3 % gain is
            // not judged to ±0.45 pt) but never past half the value (0.1 % sampled is not
            // within 2 points of 0.78 %).
            Band::Points((0.15 * paper.abs()).max((0.5 * paper.abs()).min(2.0)))
        } else {
            Band::Relative(0.15)
        }
    }

    pub fn contains(self, paper: f64, value: f64) -> bool {
        match self {
            Band::Relative(r) => (value - paper).abs() <= r * paper.abs(),
            Band::Points(p) => (value - paper).abs() <= p,
        }
    }

    pub fn text(self) -> String {
        match self {
            Band::Relative(r) => format!("±{} %", trim(100.0 * r)),
            Band::Points(p) => format!("±{} pt", trim(p)),
        }
    }
}

/// Whether a quantity in `unit` is a percentage (its differences are in points).
pub fn is_percentage(unit: &str) -> bool {
    unit.starts_with('%') || unit == "points"
}

/// The outcome of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// Within the band of the paper's value.
    #[serde(rename = "match")]
    Match,
    /// The paper's direction, with at least half its effect, but not its value.
    #[serde(rename = "direction only")]
    Direction,
    /// The wrong direction, too small an effect, or a value outside the band with no
    /// direction to fall back on.
    #[serde(rename = "wrong")]
    Wrong,
    /// The study ran but has no value (never scored as 0).
    #[serde(rename = "no data")]
    NoData,
    /// A headline the study does not run at this size.
    #[serde(rename = "not run")]
    NotRun,
    /// A value numasim is given.
    #[serde(rename = "input")]
    Input,
    /// Cannot differ in this model.
    #[serde(rename = "invariant")]
    Invariant,
    /// A numasim number with neither a paper value nor a direction: context, not scored.
    #[serde(rename = "context")]
    Context,
}

impl Verdict {
    /// Every verdict, in the order the scorecard counts them.
    pub const ALL: [Verdict; 8] = [
        Verdict::Match,
        Verdict::Direction,
        Verdict::Wrong,
        Verdict::NoData,
        Verdict::NotRun,
        Verdict::Input,
        Verdict::Invariant,
        Verdict::Context,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::Direction => "direction only",
            Verdict::Wrong => "wrong",
            Verdict::NoData => "no data",
            Verdict::NotRun => "not run",
            Verdict::Input => "input",
            Verdict::Invariant => "invariant",
            Verdict::Context => "context",
        }
    }

    /// Whether the verdict judges numasim against the paper (match, direction only, wrong).
    pub fn is_scored(self) -> bool {
        matches!(self, Verdict::Match | Verdict::Direction | Verdict::Wrong)
    }
}

/// `x` without trailing zeros.
fn trim(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

impl Comparison {
    /// The band this row is judged by (None without a paper value).
    pub fn band(&self) -> Option<Band> {
        let p = self.paper?;
        Some(self.band.unwrap_or_else(|| Band::default_for(self.unit, p)))
    }

    /// numasim's value, when it has one (a NaN or infinite value is no data).
    pub fn value(&self) -> Option<f64> {
        self.numasim.is_finite().then_some(self.numasim)
    }

    /// numasim minus the paper: in points for percentages, else relative in percent.
    pub fn difference(&self) -> Option<f64> {
        let (p, v) = (self.paper?, self.value()?);
        if is_percentage(self.unit) {
            Some(v - p)
        } else if p != 0.0 {
            Some(100.0 * (v - p) / p.abs())
        } else {
            None
        }
    }

    /// The unit of [`Self::difference`]: `pt` or `%`.
    pub fn difference_unit(&self) -> &'static str {
        if is_percentage(self.unit) {
            "pt"
        } else {
            "%"
        }
    }

    /// The effect past the bound a direction needs (in the quantity's unit), and whether it
    /// is half the paper's effect.
    pub fn required_effect(&self) -> Option<f64> {
        let (sign, bound) = match self.expect {
            Expect::Above(b) => (1.0, b),
            Expect::Below(b) => (-1.0, b),
            Expect::None => return None,
        };
        if let Some(e) = self.paper_effect {
            return Some(0.5 * e.abs());
        }
        if let Some(p) = self.paper {
            let e = sign * (p - bound);
            if e > 0.0 {
                return Some(0.5 * e);
            }
        }
        if let Some(m) = self.min_effect {
            return Some(m.abs());
        }
        Some(if is_percentage(self.unit) {
            1.0
        } else if bound != 0.0 {
            0.05 * bound.abs()
        } else {
            0.05
        })
    }

    /// Whether numasim's value is on the paper's side of the bound by the required effect
    /// (None: no direction stated, or no value).
    pub fn direction_holds(&self) -> Option<bool> {
        let v = self.value()?;
        let need = self.required_effect()?;
        let past = match self.expect {
            Expect::Above(b) => v - b,
            Expect::Below(b) => b - v,
            Expect::None => return None,
        };
        Some(past > 0.0 && past >= need)
    }

    /// The row's verdict.
    pub fn verdict(&self) -> Verdict {
        match self.kind {
            Kind::Input => return Verdict::Input,
            Kind::Invariant => return Verdict::Invariant,
            Kind::Result => {}
        }
        if self.not_run {
            return Verdict::NotRun;
        }
        let Some(v) = self.value() else {
            return Verdict::NoData;
        };
        // A match within the band must still lie on the paper's side of a stated bound.
        let right_side = match self.expect {
            Expect::Above(b) => v > b,
            Expect::Below(b) => v < b,
            Expect::None => true,
        };
        if let (Some(p), Some(band)) = (self.paper, self.band()) {
            if band.contains(p, v) && right_side {
                return Verdict::Match;
            }
        }
        match self.direction_holds() {
            Some(true) => Verdict::Direction,
            Some(false) => Verdict::Wrong,
            None if self.paper.is_some() => Verdict::Wrong,
            None => Verdict::Context,
        }
    }

    /// The direction as text: `> 1 (by ≥ 0.25)`.
    pub fn direction_text(&self) -> String {
        let base = match self.expect {
            Expect::Above(b) => format!("> {}", trim(b)),
            Expect::Below(b) => format!("< {}", trim(b)),
            Expect::None => return String::new(),
        };
        match self.required_effect() {
            Some(e) => format!("{base} (by ≥ {})", trim_sig(e)),
            None => base,
        }
    }
}

/// `x` with about three significant digits.
fn trim_sig(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmp;

    #[test]
    fn a_small_effect_in_the_right_direction_fails() {
        // Zaourar Fig. 3a: the paper's node 1 / node 0 bandwidth is 0.495; 0.998 is noise.
        let c = cmp("Fig. 3a", "bw", "×", Some(0.495), 0.998, Expect::Below(1.0));
        assert_eq!(c.direction_holds(), Some(false));
        assert_eq!(c.verdict(), Verdict::Wrong);
        // Half the paper's effect (1 − 0.495 = 0.505) is enough for the direction.
        let c = cmp("Fig. 3a", "bw", "×", Some(0.495), 0.74, Expect::Below(1.0));
        assert_eq!(c.verdict(), Verdict::Direction);
        let c = cmp("Fig. 3a", "bw", "×", Some(0.495), 0.76, Expect::Below(1.0));
        assert_eq!(c.verdict(), Verdict::Wrong);
        // Within ±15 % of 0.495.
        let c = cmp("Fig. 3a", "bw", "×", Some(0.495), 0.55, Expect::Below(1.0));
        assert_eq!(c.verdict(), Verdict::Match);
        // No paper value: 5 % of the bound.
        let c = cmp("Fig. 2a", "N2/N1", "×", None, 1.018, Expect::Above(1.0));
        assert_eq!(c.verdict(), Verdict::Wrong);
        let c = cmp("Fig. 2a", "N2/N1", "×", None, 1.06, Expect::Above(1.0));
        assert_eq!(c.verdict(), Verdict::Direction);
        // Its own floor when the study states one.
        let c = cmp("Fig. 2a", "N2/N1", "×", None, 1.06, Expect::Above(1.0)).min_effect(0.2);
        assert_eq!(c.verdict(), Verdict::Wrong);
    }

    #[test]
    fn percentages_differ_in_points_with_a_points_band() {
        // A speedup of 0.2 % against the paper's 3.2 %: −3 points, not −94 %.
        let c = cmp("Table 7", "gain", "%", Some(3.2), 0.2, Expect::None);
        assert_eq!(c.difference_unit(), "pt");
        assert!((c.difference().unwrap() + 3.0).abs() < 1e-12);
        // Widened to half the value below 4 %: 3.2 ± 1.6.
        assert_eq!(c.band(), Some(Band::Points(1.6)));
        assert_eq!(c.verdict(), Verdict::Wrong);
        let c = cmp("Table 7", "gain", "%", Some(3.2), 1.7, Expect::None);
        assert_eq!(c.verdict(), Verdict::Match);
        // ... and to 2 points above: 7.3 ± 2.
        assert_eq!(
            cmp("s", "q", "%", Some(7.3), 0.0, Expect::None).band(),
            Some(Band::Points(2.0))
        );
        // A small share is not within 2 points of an 8× larger one.
        let c = cmp("Table 1", "sampled", "%", Some(0.78), 0.098, Expect::None);
        assert_eq!(c.verdict(), Verdict::Wrong);
        // Within the band but past the wrong side of a stated bound: not a match.
        let c = cmp("Fig. 1.8", "gain", "%", Some(1.2), -0.5, Expect::Above(0.0));
        assert_eq!(c.verdict(), Verdict::Wrong);
        // ±15 % of 80 = 12 points.
        let c = cmp("Table 2", "non-local", "%", Some(80.0), 68.5, Expect::None);
        assert_eq!(c.verdict(), Verdict::Match);
        assert_eq!(c.band().unwrap().text(), "±12 pt");
        // Ratios: relative, in percent.
        let c = cmp("Fig. 8a", "speedup", "×", Some(1.7), 1.2, Expect::Above(1.0));
        assert!((c.difference().unwrap() + 29.41).abs() < 0.01);
        assert_eq!(c.difference_unit(), "%");
        // 1.2 − 1 = 0.2 is not half of 0.7.
        assert_eq!(c.verdict(), Verdict::Wrong);
        assert_eq!(c.direction_text(), "> 1 (by ≥ 0.35)");
    }

    #[test]
    fn inputs_invariants_missing_values_and_context_are_not_scored() {
        let c = cmp("setup", "share", "fraction", Some(0.47), 0.47, Expect::None).input();
        assert_eq!(c.verdict(), Verdict::Input);
        let c = cmp("Fig. 5", "one node", "%", Some(95.0), 100.0, Expect::Above(95.0)).invariant();
        assert_eq!(c.verdict(), Verdict::Invariant);
        let c = cmp("Fig. 5", "mean", "×", Some(0.935), f64::NAN, Expect::Below(1.0));
        assert_eq!(c.verdict(), Verdict::NoData);
        assert_eq!(c.difference(), None);
        let c = cmp("Fig. 8c", "share", "%", None, 12.0, Expect::None);
        assert_eq!(c.verdict(), Verdict::Context);
        // A paper value, no direction, outside the band: wrong.
        let c = cmp("Table III", "IPC", "IPC", Some(0.1), 0.2, Expect::None);
        assert_eq!(c.verdict(), Verdict::Wrong);
        // The paper's effect stated apart from the bound (Tikir Table 2: 80.5 → 8.3 % on the
        // paper's machine, judged against numasim's own no-migration share).
        let c = cmp("Table 2", "nl", "%", Some(8.3), 40.0, Expect::Below(60.0)).paper_effect(80.5 - 8.3);
        assert_eq!(c.verdict(), Verdict::Wrong);
        let c = cmp("Table 2", "nl", "%", Some(8.3), 20.0, Expect::Below(60.0)).paper_effect(80.5 - 8.3);
        assert_eq!(c.verdict(), Verdict::Direction);
    }
}
