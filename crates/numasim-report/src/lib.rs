//! numasim-report: reads results directories written by `numasim run` and turns them into
//! what researchers look at — one self-contained HTML report comparing runs, and single
//! paper-ready figures (SVG, or PNG).
//!
//! It only reads results; it never re-runs a simulation, so a report can be made anywhere the
//! results directories are copied to. Views appear only when their data exists: runs from before
//! the timing and migration models simply have fewer views, and the views light up as the
//! simulator starts writing that data ([`migration`], [`timing`] say what they look for).
//!
//! Pipeline: [`results`] reads and checks a directory; [`charts`] draws figures with plotters'
//! SVG backend in the house style of [`palette`] (Okabe-Ito, readable type); [`html`] puts them
//! into a minijinja template; [`png`] rasterises a figure with resvg.

pub mod charts;
pub mod error;
pub mod figure;
pub mod html;
pub mod migration;
pub mod palette;
pub mod placement_map;
pub mod png;
pub mod results;
pub mod timing;

pub use error::ReportError;
pub use figure::Figure;
pub use results::{load_run, load_runs, Run};

use std::path::Path;

/// Reads `dirs` and writes the HTML report to `out`.
pub fn write_report<P: AsRef<Path>>(dirs: &[P], out: &Path) -> Result<(), ReportError> {
    let runs = load_runs(dirs)?;
    let html = html::render(&runs)?;
    std::fs::write(out, html).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })
}

/// Output format of a figure, from the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureFormat {
    Svg,
    Png,
}

impl FigureFormat {
    pub fn from_path(path: &Path) -> Result<Self, ReportError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(FigureFormat::Svg),
            Some("png") => Ok(FigureFormat::Png),
            _ => Err(ReportError::render(
                format!("{}", path.display()),
                "unknown figure format: the output file must end in .svg or .png",
            )),
        }
    }
}

/// Reads `dirs` and writes one figure to `out` (.svg or .png).
pub fn write_figure<P: AsRef<Path>>(dirs: &[P], figure: Figure, out: &Path) -> Result<(), ReportError> {
    let format = FigureFormat::from_path(out)?;
    let runs = load_runs(dirs)?;
    let svg = figure.svg(&runs)?;
    let bytes = match format {
        FigureFormat::Svg => svg.into_bytes(),
        FigureFormat::Png => png::svg_to_png(&svg, 2.0)?,
    };
    std::fs::write(out, bytes).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })
}
