//! A study's scorecard: every row with its verdict ([`crate::score`]), counted per verdict,
//! as `comparison.csv`, plain text, markdown (docs/validation) and an HTML section for the
//! top of the study's report.

use crate::{Comparison, ReproError, Verdict};
use std::fmt::Write as _;
use std::path::Path;

/// One scored row, as `comparison.csv` holds it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScoreRow {
    /// The paper headline it scores (empty: a supporting row).
    pub headline: String,
    pub source: String,
    pub quantity: String,
    pub unit: String,
    pub paper: Option<f64>,
    /// None: no data.
    pub numasim: Option<f64>,
    /// numasim minus the paper, in `difference_unit`: `pt` (points, for percentages) or `%`
    /// (relative).
    pub difference: Option<f64>,
    pub difference_unit: String,
    /// The band of a match (`±15 %`, `±2 pt`).
    pub band: String,
    /// The paper's direction and the effect it needs (`> 1 (by ≥ 0.27)`).
    pub paper_direction: String,
    pub direction_holds: Option<bool>,
    pub verdict: Verdict,
}

impl From<&Comparison> for ScoreRow {
    fn from(c: &Comparison) -> Self {
        ScoreRow {
            headline: c.headline.unwrap_or_default().into(),
            source: c.source.clone(),
            quantity: c.quantity.clone(),
            unit: c.unit.into(),
            paper: c.paper,
            numasim: c.value(),
            difference: c.difference(),
            difference_unit: c.difference_unit().into(),
            band: c.band().map(|b| b.text()).unwrap_or_default(),
            paper_direction: c.direction_text(),
            direction_holds: c.direction_holds(),
            verdict: c.verdict(),
        }
    }
}

/// Rows per verdict, in [`Verdict::ALL`]'s order, of `rows` that pass `keep`.
pub fn counts(rows: &[ScoreRow], keep: impl Fn(&ScoreRow) -> bool) -> Vec<(Verdict, usize)> {
    Verdict::ALL
        .iter()
        .map(|&v| (v, rows.iter().filter(|r| keep(r) && r.verdict == v).count()))
        .collect()
}

/// `12 match, 3 direction only, ...` (verdicts with no row left out).
pub fn counts_line(rows: &[ScoreRow], keep: impl Fn(&ScoreRow) -> bool) -> String {
    let parts: Vec<String> = counts(rows, keep)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {}", v.label()))
        .collect();
    if parts.is_empty() {
        "no rows".into()
    } else {
        parts.join(", ")
    }
}

fn number(x: Option<f64>) -> String {
    match x {
        None => "—".into(),
        Some(v) if v != 0.0 && (v.abs() >= 1e5 || v.abs() < 1e-3) => format!("{v:.3e}"),
        Some(v) => format!("{v:.3}"),
    }
}

fn difference(r: &ScoreRow) -> String {
    match r.difference {
        None => "—".into(),
        Some(d) => format!("{d:+.1} {}", r.difference_unit),
    }
}

/// The cells of one row: verdict, headline mark, source, quantity (unit), paper, numasim,
/// difference, band, direction.
fn cells(r: &ScoreRow) -> [String; 9] {
    [
        r.verdict.label().into(),
        if r.headline.is_empty() { "" } else { "*" }.into(),
        r.source.clone(),
        if r.unit.is_empty() {
            r.quantity.clone()
        } else {
            format!("{} ({})", r.quantity, r.unit)
        },
        number(r.paper),
        number(r.numasim),
        difference(r),
        r.band.clone(),
        r.paper_direction.clone(),
    ]
}

const HEADER: [&str; 9] = [
    "verdict",
    "H",
    "source",
    "quantity",
    "paper",
    "numasim",
    "difference",
    "band",
    "direction",
];

/// The scorecard as plain text: the counts per verdict (all rows, then the headlines), then
/// a table of every row (`*`: a headline).
pub fn render_text(rows: &[ScoreRow]) -> String {
    let body: Vec<[String; 9]> = rows.iter().map(cells).collect();
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|i| {
            body.iter()
                .map(|r| r[i].chars().count())
                .chain([HEADER[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "scorecard: {}", counts_line(rows, |_| true));
    let headlines = rows.iter().filter(|r| !r.headline.is_empty()).count();
    let _ = writeln!(
        out,
        "headlines ({headlines}): {}\n",
        counts_line(rows, |r| !r.headline.is_empty())
    );
    let line = |cells: &[String], out: &mut String| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(&HEADER.map(String::from), &mut out);
    line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(), &mut out);
    for r in &body {
        line(r, &mut out);
    }
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The scorecard as a markdown page (docs/validation/<paper>-scorecard.md): counts per
/// verdict, the headline rows, then the supporting rows.
pub fn render_markdown(study: &str, paper: &str, rows: &[ScoreRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Scorecard: {study}\n");
    let _ = writeln!(
        out,
        "<!-- Generated by `numasim repro {study} --scorecard DIR --markdown` from a finished study's \
         comparison.csv; regenerate rather than edit. -->\n"
    );
    let _ = writeln!(out, "Paper: {paper}.\n");
    let _ = writeln!(
        out,
        "Verdicts: **match** within the band of the paper's value; **direction only** the paper's \
         direction with at least half its effect; **wrong** otherwise; **no data** / **not run** \
         have no value; **input** (a value numasim is given) and **invariant** (cannot differ in \
         this model) are listed, never scored; **context** rows have neither a paper value nor a \
         direction.\n"
    );
    let _ = writeln!(out, "| verdict | headlines | all rows |\n|---|---:|---:|");
    let all = counts(rows, |_| true);
    let heads = counts(rows, |r| !r.headline.is_empty());
    for ((v, n), (_, h)) in all.iter().zip(&heads) {
        let _ = writeln!(out, "| {} | {h} | {n} |", v.label());
    }
    let table = |rows: &[&ScoreRow], out: &mut String| {
        let _ = writeln!(
            out,
            "| verdict | source | quantity | paper | numasim | difference | band | direction |\n\
             |---|---|---|---:|---:|---:|---|---|"
        );
        for r in rows {
            let c = cells(r);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                c[0],
                md_escape(&c[2]),
                md_escape(&c[3]),
                c[4],
                c[5],
                c[6],
                c[7],
                md_escape(&c[8])
            );
        }
    };
    let (heads, others): (Vec<&ScoreRow>, Vec<&ScoreRow>) = rows.iter().partition(|r| !r.headline.is_empty());
    let _ = writeln!(out, "\n## Headlines\n");
    table(&heads, &mut out);
    let _ = writeln!(out, "\n## Supporting rows\n");
    table(&others, &mut out);
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The scorecard as an HTML section (counts per verdict, then every row).
pub fn render_html(rows: &[ScoreRow]) -> String {
    let mut out = String::from(
        "<section id=\"scorecard\" style=\"font-family:sans-serif;margin:1em\">\n<h2>Scorecard against the paper</h2>\n",
    );
    let _ = writeln!(
        out,
        "<p><b>All rows:</b> {}<br><b>Headlines:</b> {}</p>",
        html_escape(&counts_line(rows, |_| true)),
        html_escape(&counts_line(rows, |r| !r.headline.is_empty()))
    );
    out.push_str("<table style=\"border-collapse:collapse;font-size:90%\">\n<tr>");
    for h in HEADER {
        let _ = write!(out, "<th style=\"text-align:left;padding:2px 6px\">{h}</th>");
    }
    out.push_str("</tr>\n");
    for r in rows {
        let colour = match r.verdict {
            Verdict::Match => "#d4f4d4",
            Verdict::Direction => "#f4f0c8",
            Verdict::Wrong => "#f8d0d0",
            Verdict::NoData | Verdict::NotRun => "#e0e0e0",
            _ => "#ffffff",
        };
        let _ = write!(out, "<tr style=\"background:{colour}\">");
        for c in cells(r) {
            let _ = write!(out, "<td style=\"padding:2px 6px\">{}</td>", html_escape(&c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n</section>\n");
    out
}

/// `html` with `section` right after its `<body ...>` tag (at the top when it has none).
pub fn insert_after_body(html: &str, section: &str) -> String {
    match html.find("<body").and_then(|i| html[i..].find('>').map(|j| i + j + 1)) {
        Some(at) => format!("{}\n{section}{}", &html[..at], &html[at..]),
        None => format!("{section}{html}"),
    }
}

fn csv_err(path: &Path) -> impl Fn(csv::Error) -> ReproError + '_ {
    move |e| ReproError::Io {
        path: path.into(),
        source: std::io::Error::other(e),
    }
}

/// `rows` as the bytes of `comparison.csv` (written under the output policy by the caller).
pub fn csv_bytes(rows: &[ScoreRow]) -> Result<Vec<u8>, ReproError> {
    let name = Path::new("comparison.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(csv_err(name))?;
    }
    w.into_inner().map_err(|e| ReproError::Io {
        path: name.into(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Reads a `comparison.csv` written from [`csv_bytes`]; a bad row is an error naming the file
/// and its line.
pub fn read_csv(path: &Path) -> Result<Vec<ScoreRow>, ReproError> {
    let mut r = csv::Reader::from_path(path).map_err(csv_err(path))?;
    let mut rows = Vec::new();
    for row in r.deserialize() {
        rows.push(row.map_err(|e: csv::Error| ReproError::Scorecard {
            path: path.into(),
            line: e.position().map_or(0, |p| p.line()),
            message: e.to_string(),
        })?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cmp, Expect};

    fn rows() -> Vec<ScoreRow> {
        [
            cmp("Fig. 8a", "speedup", "×", Some(1.54), 1.5, Expect::Above(1.0)).headline("s.fig8a"),
            cmp("Fig. 3a", "bw | ratio", "×", Some(0.495), 0.998, Expect::Below(1.0)).headline("z.fig3a"),
            cmp("Table 7", "gain", "%", Some(3.2), f64::NAN, Expect::None),
            cmp("setup", "share", "fraction", Some(0.47), 0.47, Expect::None).input(),
            cmp("Fig. 8c", "pool, T16", "%", None, 12.5, Expect::None),
        ]
        .iter()
        .map(ScoreRow::from)
        .collect()
    }

    #[test]
    fn csv_round_trips_and_renders() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("comparison.csv");
        let rows = rows();
        std::fs::write(&path, csv_bytes(&rows).unwrap()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("headline,source,quantity,unit,paper,numasim,difference,"),
            "{text}"
        );
        assert!(text.contains(",wrong\n") && text.contains(",no data\n"), "{text}");
        assert_eq!(read_csv(&path).unwrap(), rows);

        let t = render_text(&rows);
        assert!(
            t.starts_with(
                "scorecard: 1 match, 1 wrong, 1 no data, 1 input, 1 context\nheadlines (2): 1 match, 1 wrong\n"
            ),
            "{t}"
        );
        assert!(t.contains("+101.6 %") && t.contains("< 1 (by ≥ 0.253)"), "{t}");
        let md = render_markdown("zaourar", "paper.txt", &rows);
        assert!(md.contains("| wrong | 1 | 1 |") && md.contains("bw \\| ratio"), "{md}");
        let html = insert_after_body("<html><body class=\"x\"><p>runs</p></body></html>", &render_html(&rows));
        assert!(html.find("scorecard").unwrap() < html.find("<p>runs").unwrap());
        assert!(html.starts_with("<html><body class=\"x\">\n<section"));
    }

    #[test]
    fn a_bad_csv_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("comparison.csv");
        std::fs::write(&path, csv_bytes(&rows()).unwrap()).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        text = text.replacen(",match\n", ",maybe\n", 1);
        std::fs::write(&path, text).unwrap();
        let e = read_csv(&path).unwrap_err().to_string();
        assert!(e.contains("comparison.csv") && e.contains("line 2"), "{e}");
    }
}
