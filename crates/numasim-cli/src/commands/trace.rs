use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use numasim::trace::{native, starnuma, AccessSource};
use std::io::Read;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Native,
    Starnuma,
}

#[derive(Subcommand)]
pub enum TraceCommand {
    /// Summarise a trace: threads, records, read/write mix, footprint, compression.
    Info {
        /// Native trace, or StarNUMA per-thread files (one per thread, in thread order).
        files: Vec<PathBuf>,
        /// Input format (default: detected from the file's magic bytes).
        #[arg(long, value_enum)]
        format: Option<Format>,
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace into the native format.
    Convert {
        /// Input format.
        #[arg(long, value_enum)]
        from: Format,
        /// Input files (StarNUMA: one per thread, in thread order).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output native trace.
        #[arg(short, long)]
        out: PathBuf,
    },
    /// Run an experiment's workload (generator or trace) and save it as a native trace.
    Record {
        /// Experiment TOML whose `[workload]` is recorded.
        experiment: PathBuf,
        /// Output native trace.
        #[arg(short, long)]
        out: PathBuf,
    },
}

fn detect(path: &PathBuf) -> anyhow::Result<Format> {
    let mut magic = [0u8; 8];
    let mut f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let n = f.read(&mut magic)?;
    Ok(if n == 8 && magic == native::FILE_MAGIC {
        Format::Native
    } else {
        Format::Starnuma
    })
}

pub fn run(cmd: TraceCommand) -> anyhow::Result<()> {
    match cmd {
        TraceCommand::Info { files, format, json } => {
            anyhow::ensure!(!files.is_empty(), "give at least one trace file");
            let format = match format {
                Some(f) => f,
                None => detect(&files[0])?,
            };
            let info = match format {
                Format::Native => {
                    anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                    native::scan_info(&files[0])?
                }
                Format::Starnuma => {
                    // Summarise by converting to a temporary native trace in memory-bounded fashion.
                    let mut reader = starnuma::StarnumaReader::open(&files)?;
                    summarize_source(&mut reader, &files)?
                }
            };
            if json {
                return super::print_json(&info);
            }
            println!("{} (format version {})", info.path, info.format_version);
            println!(
                "threads {} · records {} · reads {} · writes {} · flops {}",
                info.threads, info.records, info.reads, info.writes, info.flops
            );
            println!(
                "footprint {} pages of 4 KiB ({:.1} MiB)",
                info.footprint_pages_4k,
                info.footprint_pages_4k as f64 * 4096.0 / (1 << 20) as f64
            );
            println!("file {} bytes · {} chunks", info.file_bytes, info.chunks);
            let mut t = crate::table::Table::new(["thread", "records", "reads", "writes", "first_instr", "last_instr"]);
            for (i, th) in info.per_thread.iter().enumerate() {
                t.row([
                    i.to_string(),
                    th.records.to_string(),
                    th.reads.to_string(),
                    th.writes.to_string(),
                    th.first_instr.map(|v| v.to_string()).unwrap_or_default(),
                    th.last_instr.map(|v| v.to_string()).unwrap_or_default(),
                ]);
            }
            print!("{}", t.render());
            Ok(())
        }
        TraceCommand::Convert { from, files, out } => {
            let stats = match from {
                Format::Starnuma => numasim::trace::convert::convert_starnuma(&files, &out)?,
                Format::Native => {
                    anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                    numasim::trace::convert::refuse_output_among_inputs(&out, &files)?;
                    let mut reader = native::NativeReader::open(&files[0])?;
                    let meta = reader.header().metadata.clone();
                    numasim::trace::convert::convert(&mut reader, &out, &meta)?
                }
            };
            println!("wrote {} ({:?})", out.display(), stats);
            Ok(())
        }
        TraceCommand::Record { experiment, out } => {
            let exp = numasim::experiment::Experiment::load(&experiment)?;
            let mut inputs = numasim::experiment::resolve::input_files(&exp);
            inputs.push(experiment.clone());
            numasim::trace::convert::refuse_output_among_inputs(&out, &inputs)?;
            let mut src = numasim::experiment::resolve::source(&exp)?;
            let meta = serde_json::json!({
                "generator": "numasim trace record",
                "experiment": experiment.display().to_string(),
                "seed": exp.spec.seed,
                "source": src.describe(),
            });
            let stats = numasim::trace::convert::convert(&mut *src, &out, &meta)?;
            println!(
                "wrote {} · {} threads · {} records · {} bytes",
                out.display(),
                stats.threads,
                stats.records,
                stats.file_bytes
            );
            Ok(())
        }
    }
}

/// StarNUMA files carry no summary; walk them once through a temporary native file.
fn summarize_source(src: &mut dyn AccessSource, files: &[PathBuf]) -> anyhow::Result<native::TraceInfo> {
    let tmp = std::env::temp_dir().join(format!("numasim-info-{}.trace", std::process::id()));
    let meta = serde_json::json!({ "converted_from": "starnuma", "files": files });
    let result = numasim::trace::convert::convert(src, &tmp, &meta)
        .map_err(anyhow::Error::from)
        .and_then(|_| native::scan_info(&tmp).map_err(anyhow::Error::from));
    let _ = std::fs::remove_file(&tmp);
    let mut info = result?;
    info.path = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(info)
}
