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
pub mod similarity;
pub mod timing;

pub use error::ReportError;
pub use figure::Figure;
pub use results::{load_run, load_runs, Run};

use std::path::Path;

/// Reads `dirs` and writes the HTML report to `out`.
pub fn write_report<P: AsRef<Path>>(dirs: &[P], out: &Path) -> Result<(), ReportError> {
    let runs = load_runs(dirs)?;
    let html = html::render(&runs)?;
    write_output(dirs, out, html.as_bytes())
}

/// Files of a results directory that the report reads (and so must never overwrite).
const INPUT_FILES: [&str; 5] = [
    "results.json",
    "machine.json",
    "experiment.resolved.toml",
    "phases.csv",
    "machine.resolved.toml",
];

/// Writes `bytes` to `out` under numasim's output policy ([`numasim_output::file`]): through a
/// temporary file renamed at the end, directly into a device or FIFO, never replacing a link,
/// one of the input files (`report DIR -o DIR/results.json`), or a file in a results directory.
fn write_output<P: AsRef<Path>>(dirs: &[P], out: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    // A sweep root stands for its runs: their files are inputs too.
    let inputs: Vec<std::path::PathBuf> = dirs
        .iter()
        .flat_map(|d| results::expand_sweep_root(d.as_ref()))
        .flat_map(|d| {
            INPUT_FILES
                .iter()
                .chain([&numasim_output::results_dir::MARKER])
                .map(move |f| d.join(f))
        })
        .collect();
    numasim_output::write_file(out, bytes, &inputs).map_err(|source| ReportError::Write {
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
    write_output(dirs, out, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"schema_version":1,"name":"t","seed":1,
        "machine":{"name":"m","sockets":["s0"],"memory_nodes":["m0"]},
        "threads":1,"totals":{"accesses":3,"by_class":{"local":3}}}"#;

    #[test]
    fn a_report_never_overwrites_the_results_it_reads() {
        // Regression: `report DIR -o DIR/results.json` replaced the run's results.
        let d = tempfile::tempdir().unwrap();
        let results = d.path().join("results.json");
        std::fs::write(&results, MINIMAL).unwrap();
        let e = write_report(&[d.path()], &results).unwrap_err();
        assert!(e.to_string().contains("is the input"), "{e}");
        assert_eq!(std::fs::read_to_string(&results).unwrap(), MINIMAL);
        // Any other name in the directory is fine, and no temporary is left.
        write_report(&[d.path()], &d.path().join("report.html")).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["report.html", "results.json"]);
    }

    #[test]
    fn a_report_to_a_fifo_streams_into_it_and_leaves_it_a_fifo() {
        // `report DIR -o /dev/null` must write into the device, never replace it with a
        // regular file; a FIFO stands in for the device here.
        use std::os::unix::fs::FileTypeExt;
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("results.json"), MINIMAL).unwrap();
        let fifo = d.path().join("out.html");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(&fifo).unwrap())
        };
        write_report(&[d.path()], &fifo).unwrap();
        assert!(reader.join().unwrap().contains("<html"));
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
}
