use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use numasim::trace::native;
use std::io::Read;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Native,
    Starnuma,
    /// ChampSim binary `input_instr` traces (plain, .xz or .gz), one file per thread.
    Champsim,
    /// Ramulator text traces (CPU, DRAM or load/store form), one file per thread.
    Ramulator,
    /// Valgrind lackey logs (`--tool=lackey --trace-mem=yes --log-file=F`), one file per thread.
    Lackey,
}

impl Format {
    /// Opens a trace in another tool's format (files are threads in argument order).
    fn open_foreign(self, files: &[PathBuf]) -> anyhow::Result<Option<numasim::trace::ForeignReader>> {
        Ok(Some(match self {
            Format::Champsim => numasim::trace::champsim::open_champsim(files)?,
            Format::Ramulator => numasim::trace::ramulator::open_ramulator(files)?,
            Format::Lackey => numasim::trace::lackey::open_lackey(files)?,
            Format::Native | Format::Starnuma => return Ok(None),
        }))
    }
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
        /// Print the trace's description (threads, records, files and sizes) as JSON.
        #[arg(long)]
        json: bool,
        /// Only decode and count records (no footprint): the speed of merely reading the trace.
        /// With one experiment TOML instead of a trace: the speed of its workload generator.
        #[arg(long)]
        decode_only: bool,
    },
    /// Convert a trace into the native format (or, with --to starnuma, export one).
    Convert {
        /// Input format.
        #[arg(long, value_enum)]
        from: Format,
        /// Input files (StarNUMA: memtrace_t<N>.out per thread; threads come from the names, any order;
        /// ChampSim, Ramulator, lackey: one file per thread, in argument order).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output native trace (with --to starnuma: a directory for memtrace_t<N>.out files).
        #[arg(short, long)]
        out: PathBuf,
        /// Output format: native (default), or starnuma (per-thread files with a phase marker
        /// every 100 M instructions, as the artifact's tracer writes them).
        #[arg(long, value_enum, default_value = "native")]
        to: Format,
        /// zstd level of the native trace written (default -1: raw literals, fastest to
        /// read; 1..=22 give smaller files that read more slowly: on a BFS trace level 3 is a
        /// third smaller and decodes 1.6x slower).
        #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-50..=22))]
        compression_level: Option<i32>,
    },
    /// Run a Linux program under QEMU with numasim's tracer: every data access of every thread,
    /// as a native trace (`trace capture -o OUT.trace [--roi] -- PROGRAM ARGS...`).
    Capture(super::trace_capture::CaptureArgs),
    /// Run an experiment's workload (generator or trace) and save it as a native trace.
    Record {
        /// Experiment TOML whose `[workload]` is recorded.
        experiment: PathBuf,
        /// Output native trace.
        #[arg(short, long)]
        out: PathBuf,
        /// zstd level of the native trace written (default -1: raw literals, fastest to
        /// read; 1..=22 give smaller files that read more slowly: on a BFS trace level 3 is a
        /// third smaller and decodes 1.6x slower).
        #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-50..=22))]
        compression_level: Option<i32>,
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
        TraceCommand::Info {
            files,
            format,
            json,
            decode_only,
        } => {
            anyhow::ensure!(!files.is_empty(), "give at least one trace file");
            if decode_only && files.len() == 1 && files[0].extension().is_some_and(|e| e == "toml") {
                // An experiment: drain its workload source (a generator's speed on its own).
                let mut exp = numasim::experiment::Experiment::load(&files[0])?;
                exp.worker_threads = 1;
                let src = numasim::experiment::resolve::source(&exp)?;
                return decode_only_pass(src, json);
            }
            let format = match format {
                Some(f) => f,
                None => detect(&files[0])?,
            };
            if let Some(src) = format.open_foreign(&files)? {
                if decode_only {
                    return decode_only_pass(Box::new(src), json);
                }
                let info = numasim::trace::scan_foreign_info(src)?;
                if json {
                    return super::print_json(&info);
                }
                println!("{} trace, {} files in thread order", info.format, info.files.len());
                println!(
                    "threads {} · records {} · reads {} · writes {} · footprint {} pages of 4 KiB",
                    info.threads, info.records, info.reads, info.writes, info.footprint_pages_4k
                );
                return Ok(());
            }
            if decode_only {
                let src: Box<dyn numasim::trace::AccessSource> = match format {
                    Format::Native => {
                        anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                        Box::new(native::NativeReader::open(&files[0])?)
                    }
                    _ => Box::new(numasim::trace::StarnumaReader::open(&files)?),
                };
                return decode_only_pass(src, json);
            }
            let info = match format {
                Format::Native => {
                    anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                    native::scan_info(&files[0])?
                }
                // Read directly, once; thread order comes from the file names.
                _ => numasim::trace::scan_starnuma_info(&files)?,
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
        TraceCommand::Convert {
            from,
            files,
            out,
            to,
            compression_level,
        } => {
            let settings = numasim::trace::WriteSettings {
                compression_level,
                ..Default::default()
            };
            anyhow::ensure!(
                matches!(to, Format::Native | Format::Starnuma),
                "--to: numasim writes only the native and StarNUMA formats"
            );
            if let Format::Starnuma = to {
                anyhow::ensure!(
                    compression_level.is_none(),
                    "--compression-level: StarNUMA files are not compressed"
                );
                let mut src: Box<dyn numasim::trace::AccessSource> = match from {
                    Format::Starnuma => Box::new(numasim::trace::StarnumaReader::open(&files)?),
                    Format::Champsim | Format::Ramulator | Format::Lackey => match from.open_foreign(&files)? {
                        Some(src) => Box::new(src),
                        None => unreachable!("open_foreign opens every foreign format"),
                    },
                    Format::Native => {
                        anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                        Box::new(native::NativeReader::open(&files[0])?)
                    }
                };
                let paths = numasim::trace::export_starnuma(&mut *src, &out, &files)?;
                println!("wrote {} StarNUMA thread files in {}", paths.len(), out.display());
                return Ok(());
            }
            if let Some(mut src) = from.open_foreign(&files)? {
                let stats = numasim::trace::convert_foreign(&mut src, &out, &settings)?;
                print_written(&out, &stats);
                return Ok(());
            }
            let stats = match from {
                Format::Starnuma => numasim::trace::convert::convert_starnuma(&files, &out, &settings)?,
                Format::Champsim | Format::Ramulator | Format::Lackey => unreachable!("converted above"),
                Format::Native => {
                    anyhow::ensure!(files.len() == 1, "a native trace is a single file");
                    numasim::trace::convert::refuse_output_among_inputs(&out, &files)?;
                    let mut reader = native::NativeReader::open(&files[0])?;
                    let meta = reader.header().metadata.clone();
                    numasim::trace::convert::convert_with(&mut reader, &out, &meta, &settings)?
                }
            };
            print_written(&out, &stats);
            Ok(())
        }
        TraceCommand::Capture(args) => super::trace_capture::capture(args),
        TraceCommand::Record {
            experiment,
            out,
            compression_level,
        } => {
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
            let settings = numasim::trace::WriteSettings {
                compression_level,
                ..Default::default()
            };
            let stats = numasim::trace::convert::convert_with(&mut *src, &out, &meta, &settings)?;
            print_written(&out, &stats);
            Ok(())
        }
    }
}

/// Reads every record of every thread and counts them: the cost of merely decoding the trace
/// (or generating the workload). Threads are drained one batch each in turn, as the simulator
/// and `trace record` pull them (a generator coupled by barriers would otherwise buffer).
fn decode_only_pass(mut src: Box<dyn numasim::trace::AccessSource>, json: bool) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let (mut records, mut writes, mut batches) = (0u64, 0u64, 0u64);
    numasim::trace::drain_round_robin(&mut *src, |_, batch| -> anyhow::Result<()> {
        records += batch.len() as u64;
        batches += 1;
        writes += batch.iter().filter(|a| a.is_write()).count() as u64;
        Ok(())
    })?;
    let wall_s = started.elapsed().as_secs_f64();
    let v = serde_json::json!({
        "threads": src.threads(),
        "records": records,
        "writes": writes,
        "batches": batches,
        "wall_s": wall_s,
        "records_per_s": records as f64 / wall_s.max(1e-9),
    });
    if json {
        return super::print_json(&v);
    }
    println!(
        "{records} records ({writes} writes, {batches} batches) in {:.3} s: {:.1} M records/s",
        wall_s,
        records as f64 / wall_s.max(1e-9) / 1e6
    );
    Ok(())
}

fn print_written(out: &std::path::Path, stats: &numasim::trace::convert::ConvertStats) {
    println!(
        "wrote {} · {} threads · {} records · {} bytes",
        out.display(),
        stats.threads,
        stats.records,
        stats.file_bytes
    );
}
