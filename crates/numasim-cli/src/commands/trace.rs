use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use numasim::trace::native;
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
        /// Native trace, or StarNUMA per-thread files (memtrace_t<N>.out: thread N from the name).
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
        /// Input files (StarNUMA: memtrace_t<N>.out per thread; threads come from the names, any order).
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
                // Read directly, once; thread order comes from the file names.
                Format::Starnuma => numasim::trace::scan_starnuma_info(&files)?,
            };
            if json {
                return super::print_json(&info);
            }
            if info.format == "starnuma" {
                println!("StarNUMA trace, {} files in thread order", info.files.len());
            } else {
                println!("{} (format version {})", info.path, info.format_version);
            }
            println!(
                "threads {} · records {} · reads {} · writes {} · flops {}",
                info.threads, info.records, info.reads, info.writes, info.flops
            );
            println!(
                "footprint {} pages of 4 KiB ({:.1} MiB)",
                info.footprint_pages_4k,
                info.footprint_pages_4k as f64 * 4096.0 / (1 << 20) as f64
            );
            if info.format == "starnuma" {
                let mut extra = format!("{} phase markers", info.markers);
                if info.ignored_trailing_bytes > 0 {
                    extra += &format!(" · {} trailing bytes ignored", info.ignored_trailing_bytes);
                }
                println!(
                    "input {} bytes in {} files · {extra}",
                    info.file_bytes,
                    info.files.len()
                );
            } else {
                println!("file {} bytes · {} chunks", info.file_bytes, info.chunks);
            }
            let starnuma = info.format == "starnuma";
            let mut head = vec!["thread", "records", "reads", "writes", "first_instr", "last_instr"];
            if starnuma {
                head.extend(["file", "bytes"]);
            }
            let mut t = crate::table::Table::new(head);
            for (i, th) in info.per_thread.iter().enumerate() {
                let mut row = vec![
                    i.to_string(),
                    th.records.to_string(),
                    th.reads.to_string(),
                    th.writes.to_string(),
                    th.first_instr.map(|v| v.to_string()).unwrap_or_default(),
                    th.last_instr.map(|v| v.to_string()).unwrap_or_default(),
                ];
                if let Some(f) = info.files.get(i).filter(|_| starnuma) {
                    row.extend([f.path.clone(), f.bytes.to_string()]);
                }
                t.row(row);
            }
            print!("{}", t.render());
            Ok(())
        }
        TraceCommand::Convert { from, files, out } => {
            let stats = match from {
                Format::Starnuma => numasim::trace::convert::convert_starnuma(&files, &out)?,
                Format::Native => {
                    anyhow::ensure!(files.len() == 1, "a native trace is a single file");
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
