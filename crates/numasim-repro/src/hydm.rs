//! HyDM (hydm-hybrid-memory-migration.txt): mixes of NPB programs sharing a Knights Landing in
//! flat mode, per-program execution time with HyDM normalised to the default placement (Fig. 5:
//! mean −6.5 %, CG.1 −22 %, CG.0 −15 %, FT.1 −10 %), beside the alternatives a user would try:
//! numactl `--preferred=MCDRAM` and (full study) everything in MCDRAM (no capacity limit: an
//! upper bound). The static oracle is not run: it places by unloaded latency, on which DDR
//! wins on KNL (130 against 150 ns), so it leaves every page on DDR.
//!
//! **The runs.** Timing mode on `knl-flat`, one `[[process]]` per program: the eight NPB
//! benchmarks twice (16 programs: `cg.0`, `cg.1`, … as the paper names instances) or four
//! times (32), threads on cores drawn at random with the run's seed (the paper assigns programs
//! to cores at random). KNL has no shared last-level cache (each tile's 1 MiB L2 is private),
//! so the LLC filter is off and the cores' private L2 stands for the tile's, when the study
//! keeps it ([`L2`]: with or without it, whichever gives Table I's memory accesses per flop
//! more nearly). The migration
//! mechanism is the paper's: Linux `move_pages` (`shootdown = "move-pages"`: a daemon copies
//! page after page; each page's TLB shootdown interrupts the cores of its own process).
//!
//! **Sized by one rule** (`numasim::similarity`; docs/guide/similarity.md). The reference is
//! the paper's mix: Table I's class C peak memory and run time of each program, p = 100 ms
//! and 16 GiB of MCDRAM. Pilot runs measure each program alone at the study's data-set size
//! (footprint, the time of one iteration and of the rest); from them ([`derive`]):
//! - the scale `s`: the mix's footprint over the paper's (Σ Table I);
//! - MCDRAM: 16 GiB × `s` (capacity over footprint kept);
//! - time: our ns per paper ns `τ` = `s` (simulated time per footprint byte kept), or less when
//!   the longest program (BT, 920 s) would then run past the budget; each program runs Table
//!   I's time × `τ` (the programs' relative lengths kept), by its iteration count;
//! - the window: p × `τ` (windows per run kept), longer when the longest program would span
//!   more windows than the budget;
//! - the per-page mechanism cycles (the IPI handler on every core of the moved program, the
//!   kernel's work per page, the scan) × `τ / s`: a program's pages scale with `s` and its
//!   run with `τ`, so this keeps the migration time per run of the paper's machine when the
//!   run is shorter than the rule's. The copy itself is the machine's bandwidth, not scaled.
//!
//! What the budget moved is reported as deviations beside each run's similarity numbers.

use crate::config::{require, Config};
use crate::{cmp, Comparison, Expect, ReproError, Study, StudyContext};
use numasim::similarity::{Deviation, Reference, Scaled};
use toml::{toml, Table};

pub struct Hydm;

/// One row of Table I: class C run time alone (s), floating-point operations (GFlop), memory
/// accesses, reads plus writes (millions), and peak memory (MB).
#[derive(Debug, Clone, Copy)]
struct Bench {
    name: &'static str,
    seconds: f64,
    gflop: f64,
    accesses_m: f64,
    peak_mb: f64,
}

const fn b(name: &'static str, seconds: f64, gflop: f64, accesses_m: f64, peak_mb: f64) -> Bench {
    Bench {
        name,
        seconds,
        gflop,
        accesses_m,
        peak_mb,
    }
}

/// Table I: average execution time alone (s), GFlop, memory accesses (reads + writes,
/// millions) and peak memory use (MB), class C.
const TABLE1: [Bench; 8] = [
    b("is", 31.0, 23.0, 758.0 + 338.0, 1572.0),
    b("ep", 462.0, 494.0, 2739.0 + 1028.0, 20.0),
    b("cg", 319.0, 261.0, 31174.0 + 810.0, 1102.0),
    b("mg", 129.0, 213.0, 7507.0 + 2940.0, 3536.0),
    b("ft", 335.0, 837.0, 18555.0 + 10197.0, 7188.0),
    b("bt", 920.0, 2560.0, 45682.0 + 17270.0, 1676.0),
    b("sp", 626.0, 1918.0, 92526.0 + 47727.0, 1416.0),
    b("lu", 733.0, 2504.0, 84716.0 + 38302.0, 760.0),
];

impl Bench {
    /// Memory accesses per floating-point operation at class C.
    fn accesses_per_flop(&self) -> f64 {
        self.accesses_m * 1e6 / (self.gflop * 1e9)
    }
}

/// Table II: the time window p, ns.
const WINDOW_NS: f64 = 100e6;
/// MCDRAM of the paper's KNL 7250, MB (Table I's MB are taken as MiB, as 16 GB is 16384 MB).
const MCDRAM_MB: f64 = 16384.0;
const MIB: f64 = 1048576.0;
/// The per-page costs of `move_pages` on KNL as the model charges them at full scale (its
/// software-shootdown defaults): the IPI handler on every core of the moved program, the
/// kernel's work per page (unmap, flush, remap), and the scan per page.
const HANDLER_CYCLES: f64 = 5000.0;
const KERNEL_CYCLES: f64 = 3000.0;
const SCAN_CYCLES: f64 = 5.0;

/// Fig. 5's numbers: per-program execution time with HyDM over the default.
const PAPER_MEAN: f64 = 1.0 - 0.065;
const PAPER_CG1: f64 = 1.0 - 0.22;
const PAPER_CG0: f64 = 1.0 - 0.15;
const PAPER_FT1: f64 = 1.0 - 0.10;

fn table1(name: &str) -> Bench {
    TABLE1
        .iter()
        .copied()
        .find(|b| b.name == name)
        .expect("every benchmark is in Table I")
}

/// What sets a program's run length: NPB's iteration count, or (EP) `2^pairs_log2` pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Length {
    Iterations(u64),
    PairsLog2(u32),
}

impl Length {
    fn table(self) -> Table {
        match self {
            Length::Iterations(n) => toml! { iterations = (n) },
            Length::PairsLog2(k) => toml! { pairs_log2 = (k) },
        }
    }
}

/// A benchmark's data set at the study's size (the run length follows from the rule) and the
/// pilots' two lengths (one unit of work apart).
fn data_set(kind: &str, quick: bool) -> (Table, [Length; 2]) {
    let it = [Length::Iterations(1), Length::Iterations(2)];
    let ep = |k: u32| [Length::PairsLog2(k), Length::PairsLog2(k + 1)];
    let t = match (kind, quick) {
        ("is", true) => toml! { keys = 65536 max_key = 8192 },
        ("is", false) => toml! { keys = 262144 max_key = 16384 },
        ("ep", _) => return (toml! { kind = "ep" }, ep(if quick { 12 } else { 14 })),
        ("cg", true) => toml! { rows = 3000 },
        ("cg", false) => toml! { rows = 7000 },
        ("mg", true) => toml! { grid_log2 = 5 },
        ("mg", false) => toml! { grid_log2 = 6 },
        ("ft", true) => toml! { nx = 32 ny = 32 nz = 32 },
        ("ft", false) => toml! { nx = 64 ny = 64 nz = 32 },
        _ => toml! { class = "S" },
    };
    let mut w = toml! { kind = (kind) };
    w.extend(t);
    (w, it)
}

/// One mix: `copies` of each benchmark, `threads` each, run with `seeds` seeds.
#[derive(Debug, Clone, Copy)]
struct Mix {
    label: &'static str,
    copies: usize,
    threads: usize,
    seeds: u64,
}

const ALL: [&str; 8] = ["is", "ep", "cg", "mg", "ft", "bt", "sp", "lu"];

fn mixes(quick: bool) -> Vec<Mix> {
    let mix = |label, copies, threads, seeds| Mix {
        label,
        copies,
        threads,
        seeds,
    };
    if quick {
        // The paper's 16 programs at the quick sizes, one thread each: MCDRAM holds under half.
        vec![mix("mix16", 2, 1, 1)]
    } else {
        vec![mix("mix16", 2, 2, 3), mix("mix32", 4, 1, 1)]
    }
}

impl Mix {
    fn programs(&self) -> usize {
        ALL.len() * self.copies
    }

    /// The paper's mix: Table I's footprints, the longest program's time and windows, MCDRAM.
    fn reference(&self) -> Reference {
        let mb: f64 = ALL.iter().map(|b| table1(b).peak_mb).sum::<f64>() * self.copies as f64;
        let longest = ALL.iter().map(|b| table1(b).seconds).fold(0.0, f64::max) * 1e9;
        Reference {
            source: Some(format!(
                "HyDM Tables I and II: {} class C programs, p = 100 ms, 16 GiB MCDRAM",
                self.programs()
            )),
            footprint_bytes: mb * MIB,
            capacity_bytes: [("mcdram".to_string(), MCDRAM_MB * MIB)].into(),
            phases: Some(longest / WINDOW_NS),
            run_ns: Some(longest),
            ..Default::default()
        }
    }
}

/// What the pilots measured about one benchmark alone (simulated ns).
#[derive(Debug, Clone, PartialEq)]
struct Pilot {
    name: &'static str,
    footprint_bytes: f64,
    /// The shorter pilot's length, the time of one more unit of work, and the rest.
    first: Length,
    unit_ns: f64,
    fixed_ns: f64,
    /// Memory accesses (reads and writes reaching DDR) per floating-point operation of the
    /// longer pilot; 0 when the program counts no flops.
    accesses_per_flop: f64,
}

/// The study's budget: the longest program's simulated time (ns) and its windows.
#[derive(Debug, Clone, Copy)]
struct Budget {
    run_ns: f64,
    windows: f64,
}

fn budget(quick: bool) -> Budget {
    if quick {
        Budget {
            run_ns: 4e6,
            windows: 100.0,
        }
    } else {
        Budget {
            run_ns: 12e6,
            windows: 200.0,
        }
    }
}

/// A mix sized by the rule (see the module docs).
#[derive(Debug, Clone)]
struct Plan {
    scaled: Scaled,
    /// Our simulated ns per paper ns.
    tau: f64,
    phase_ns: u64,
    capacity_bytes: u64,
    /// Per benchmark, its run length.
    lengths: Vec<(&'static str, Length)>,
    handler_cycles: u64,
    kernel_cycles: u64,
    scan_cycles: u64,
    deviations: Vec<Deviation>,
    /// The private L2 the mix runs with, and each choice's traffic ratio.
    cache: L2Choice,
}

/// The length of `p` whose simulated time alone is closest to `target_ns` (at least one unit).
fn length_for(p: &Pilot, target_ns: f64) -> Length {
    let units = ((target_ns - p.fixed_ns) / p.unit_ns.max(1e-9)).max(1.0);
    match p.first {
        // One unit is the pilot's `2^k` pairs: `units` of them are `2^(k + log2 units)`.
        Length::PairsLog2(k) => Length::PairsLog2(k + units.log2().round().max(0.0) as u32),
        Length::Iterations(_) => Length::Iterations(units.round() as u64),
    }
}

/// The simulated time alone of `p` at `length`, by the pilots' line.
fn time_of(p: &Pilot, length: Length) -> f64 {
    let units = match (p.first, length) {
        (Length::PairsLog2(k0), Length::PairsLog2(k)) => 2f64.powi(k as i32 - k0 as i32),
        (_, Length::Iterations(n)) => n as f64,
        _ => 1.0,
    };
    p.fixed_ns + units * p.unit_ns
}

/// Sizes `mix` from its pilots by the rule (module docs) within `budget`.
fn derive(mix: &Mix, pilots: &[Pilot], budget: Budget, cache: L2Choice) -> Plan {
    let reference = mix.reference();
    let footprint: f64 = pilots.iter().map(|p| p.footprint_bytes).sum::<f64>() * mix.copies as f64;
    let scaled = Scaled::for_footprint(reference.clone(), footprint);
    let s = scaled.factor;
    let longest = reference.run_ns.unwrap_or(0.0);
    // The longest program's run: the rule's, or the budget's (time per footprint byte moves).
    let (run_ns, dev_run) = numasim::similarity::fit_budget("sim_ns_per_footprint_byte", longest * s, budget.run_ns);
    let tau = run_ns / longest;
    let dev_run = dev_run.map(|d| {
        let per_byte = longest / reference.footprint_bytes;
        Deviation::new(d.number.as_str(), per_byte, per_byte * tau / s, d.reason)
    });
    let (windows, dev_windows) =
        numasim::similarity::fit_budget("phases_per_run", reference.phases.unwrap_or(0.0), budget.windows);
    let phase_ns = (longest * tau / windows).round() as u64;
    let cycles = |c: f64| (c * tau / s).round() as u64;
    let mut deviations: Vec<Deviation> = dev_run.into_iter().chain(dev_windows).collect();
    let lengths = pilots
        .iter()
        .map(|p| {
            let target = table1(p.name).seconds * 1e9 * tau;
            let l = length_for(p, target);
            let got = time_of(p, l);
            if (got / target - 1.0).abs() > 0.25 {
                deviations.push(Deviation::new(
                    &format!("run_ns_{}", p.name),
                    target,
                    got,
                    "a whole number of iterations (pairs: a power of two) alone",
                ));
            }
            (p.name, l)
        })
        .collect();
    Plan {
        capacity_bytes: scaled.capacity_bytes("mcdram", 4096).unwrap_or(4096),
        scaled,
        tau,
        phase_ns: phase_ns.max(1),
        lengths,
        handler_cycles: cycles(HANDLER_CYCLES),
        kernel_cycles: cycles(KERNEL_CYCLES),
        scan_cycles: cycles(SCAN_CYCLES),
        deviations,
        cache,
    }
}

/// The private L2 the runs have: KNL's (1 MiB a core, the machine's) or none.
///
/// At class C the L2 holds under 0.2 % of any program's data but EP's, so nearly every sweep
/// reaches memory; at the study's sizes it holds whole data sets, and the traffic to DDR, which
/// decides whether MCDRAM pays, falls by an order of magnitude. The capacity cannot be scaled
/// with the footprint (1 MiB × `s` is below one set), so the study keeps the number that the
/// capacity stands for, each program's memory accesses per flop (Table I), as closely as the
/// two choices allow: pilots run with each, and the one whose geometric mean over the programs
/// of (accesses per flop) / (Table I's) is nearer 1 is used ([`choose_l2`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum L2 {
    Knl,
    None,
}

impl L2 {
    /// The pilots' run id part.
    fn id(self) -> &'static str {
        match self {
            L2::Knl => "",
            L2::None => "-nol2",
        }
    }

    fn bytes(self) -> f64 {
        match self {
            L2::Knl => MIB,
            L2::None => 0.0,
        }
    }
}

/// The machine, mode and caches every run shares.
fn base(comment: &str, seed: u64, l2: L2) -> Config {
    let c = Config::new(
        comment,
        toml! {
            machine = "knl-flat"
            mode = "timing"
            seed = (seed)
            [llc]
            enabled = false
            [mapping]
            policy = "random"
        },
    );
    match l2 {
        L2::Knl => c,
        L2::None => c.with(toml! { [timing] l2_bytes = 0 }),
    }
}

/// The geometric mean, over the programs that count flops, of their memory accesses per flop
/// over Table I's.
fn traffic_ratio(pilots: &[Pilot]) -> f64 {
    let logs: Vec<f64> = pilots
        .iter()
        .filter(|p| p.accesses_per_flop > 0.0)
        .map(|p| (p.accesses_per_flop / table1(p.name).accesses_per_flop()).ln())
        .collect();
    if logs.is_empty() {
        return f64::NAN;
    }
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// The L2 a mix runs with, and the traffic ratio ([`traffic_ratio`]) of each choice.
#[derive(Debug, Clone, Copy)]
struct L2Choice {
    l2: L2,
    traffic: [(L2, f64); 2],
}

/// The L2 whose traffic ratio is nearer 1 (as a factor either way); KNL's on a tie or when a
/// ratio is unknown.
fn choose_l2(with: &[Pilot], without: &[Pilot]) -> L2Choice {
    let traffic = [(L2::Knl, traffic_ratio(with)), (L2::None, traffic_ratio(without))];
    let off = |r: f64| r.ln().abs();
    let l2 = if off(traffic[1].1) < off(traffic[0].1) {
        L2::None
    } else {
        L2::Knl
    };
    L2Choice { l2, traffic }
}

/// `[[process]]` entries: `copies` of each `(workload)`, `threads` each.
fn processes(workloads: &[Table], copies: usize, threads: usize) -> Table {
    let mut list = Vec::new();
    for _ in 0..copies {
        for w in workloads {
            let mut w = w.clone();
            w.insert("threads".into(), toml::Value::Integer(threads as i64));
            list.push(toml::Value::Table(toml! { workload = (w) }));
        }
    }
    Table::from_iter([("process".to_string(), toml::Value::Array(list))])
}

/// A pilot: `kind` alone at `length`, first touch (DDR).
fn pilot_experiment(kind: &str, length: Length, threads: usize, quick: bool, l2: L2) -> Config {
    let mut w = data_set(kind, quick).0;
    w.extend(length.table());
    base(
        "numasim repro hydm (pilot: sizes the mixes by the similarity rule)",
        1,
        l2,
    )
    .with(toml! { [placement] policy = "first-touch" })
    .with(processes(&[w], 1, threads))
}

/// Runs the pilots of every benchmark at `threads` threads with `l2`.
fn pilots(ctx: &mut StudyContext, threads: usize, l2: L2) -> Result<Vec<Pilot>, ReproError> {
    let quick = ctx.options.quick;
    let mut batch = Vec::new();
    for kind in ALL {
        for (i, l) in data_set(kind, quick).1.into_iter().enumerate() {
            let id = format!("pilot-{kind}-t{threads}{}-{}", l2.id(), i + 1);
            batch.push((id, pilot_experiment(kind, l, threads, quick, l2)));
        }
    }
    let runs = ctx.run_all(&batch)?;
    let finish = |r: &serde_json::Value| require(r, &["timing", "sim_time_ns"]);
    ALL.iter()
        .zip(runs.chunks(2))
        .map(|(&name, pair)| {
            let (t1, t2) = (finish(&pair[0])?, finish(&pair[1])?);
            // Pilots run first touch: every access reaching memory is a DDR access.
            let accesses = require(&pair[1], &["timing", "memory", "ddr", "accesses"])?;
            let flops = pair[1]
                .get("processes")
                .and_then(|p| p.get(0))
                .and_then(|p| p.get("flops"))
                .and_then(|f| f.as_f64())
                .unwrap_or(0.0);
            Ok(Pilot {
                name,
                footprint_bytes: require(&pair[0], &["totals", "footprint_bytes"])?,
                first: data_set(name, quick).1[0],
                unit_ns: (t2 - t1).max(1.0),
                fixed_ns: (2.0 * t1 - t2).max(0.0),
                accesses_per_flop: if flops > 0.0 { accesses / flops } else { 0.0 },
            })
        })
        .collect()
}

/// The study's configurations of a mix: name, placement, migration.
fn configs(plan: &Plan, quick: bool) -> Vec<(&'static str, Table, Table)> {
    let capped = toml! { policy = "first-touch" capacity_bytes = { mcdram = (plan.capacity_bytes) } };
    let mut preferred = capped.clone();
    preferred.extend(toml! { policy = "preferred" node = "mcdram" });
    let hydm = toml! {
        policy = "hydm"
        shootdown = "move-pages"
        window = 5
        threshold = 0.9
        shootdown_handler_cycles = (plan.handler_cycles)
        shootdown_initiator_cycles = (plan.kernel_cycles)
        scan_cycles_per_entry = (plan.scan_cycles)
    };
    let none = toml! { policy = "none" };
    let mut v = vec![
        ("default", capped.clone(), none.clone()),
        ("preferred", preferred, none.clone()),
        ("hydm", capped.clone(), hydm),
    ];
    if !quick {
        v.push(("all-mcdram", toml! { policy = "preferred" node = "mcdram" }, none));
    }
    v
}

/// A run of the mix: its programs at the plan's lengths, the window, the reference.
fn mix_experiment(mix: &Mix, plan: &Plan, seed: u64, placement: Table, migration: Table, quick: bool) -> Config {
    let workloads: Vec<Table> = plan
        .lengths
        .iter()
        .map(|(kind, l)| {
            let mut w = data_set(kind, quick).0;
            w.extend(l.table());
            w
        })
        .collect();
    let similarity = toml::Value::try_from(&plan.scaled.reference).expect("a reference serialises");
    base(
        &format!("numasim repro hydm: {} ({} programs)", mix.label, mix.programs()),
        seed,
        plan.cache.l2,
    )
    .with(toml! { phase_ns = (plan.phase_ns) })
    .with(Table::from_iter([
        ("placement".to_string(), toml::Value::Table(placement)),
        ("migration".to_string(), toml::Value::Table(migration)),
        ("similarity".to_string(), similarity),
    ]))
    .with(processes(&workloads, mix.copies, mix.threads))
}

/// Per process name: finish time (ns); an error names the run when a process has none.
fn finish_times(r: &serde_json::Value) -> Result<Vec<(String, f64)>, ReproError> {
    let fail = |m: &str| ReproError::Results {
        id: r.get("name").and_then(|n| n.as_str()).unwrap_or("?").to_string(),
        message: m.to_string(),
    };
    let ps = r
        .get("processes")
        .and_then(|p| p.as_array())
        .ok_or_else(|| fail("no `processes`"))?;
    ps.iter()
        .map(|p| {
            let name = p.get("name").and_then(|n| n.as_str());
            let t = p.get("finish_time_ns").and_then(|t| t.as_f64());
            match (name, t) {
                (Some(n), Some(t)) => Ok((n.to_string(), t)),
                _ => Err(fail("a process without `name` or `finish_time_ns`")),
            }
        })
        .collect()
}

/// Each program's time in a run over its time in the default run, by name.
type Normalised = Vec<(String, f64)>;

/// Each program's time in `run` over its time in `base`, by name.
fn normalised(base: &serde_json::Value, run: &serde_json::Value) -> Result<Normalised, ReproError> {
    let b = finish_times(base)?;
    Ok(finish_times(run)?
        .into_iter()
        .filter_map(|(n, t)| {
            let bt = b.iter().find(|(m, _)| *m == n)?.1;
            (bt > 0.0).then(|| (n, t / bt))
        })
        .collect())
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

fn of(v: &[(String, f64)], name: &str) -> f64 {
    v.iter().find(|(n, _)| n == name).map_or(f64::NAN, |x| x.1)
}

/// What a mix's runs gave: per configuration its normalised times per seed; HyDM's moves; the
/// first seed's HyDM results (for the similarity rows).
struct MixRuns {
    per_config: Vec<(&'static str, Vec<Normalised>)>,
    moves: Vec<f64>,
    hydm: Option<serde_json::Value>,
}

/// Runs every configuration of `mix` for every seed.
fn run_mix(ctx: &mut StudyContext, mix: &Mix, plan: &Plan) -> Result<MixRuns, ReproError> {
    let quick = ctx.options.quick;
    let mut out = MixRuns {
        per_config: Vec::new(),
        moves: Vec::new(),
        hydm: None,
    };
    for seed in 1..=mix.seeds {
        let plan_runs: Vec<(String, Config)> = configs(plan, quick)
            .into_iter()
            .map(|(name, placement, migration)| {
                let id = format!("{}-s{seed}-{name}", mix.label);
                (id, mix_experiment(mix, plan, seed, placement, migration, quick))
            })
            .collect();
        let runs = ctx.run_all(&plan_runs)?;
        let default = &runs[0];
        for ((name, _, _), r) in configs(plan, quick).into_iter().zip(&runs).skip(1) {
            if name == "hydm" {
                out.moves.push(require(r, &["migration", "total_moves"])?);
                out.hydm.get_or_insert_with(|| r.clone());
            }
            let n = normalised(default, r)?;
            match out.per_config.iter_mut().find(|(c, _)| *c == name) {
                Some((_, v)) => v.push(n),
                None => out.per_config.push((name, vec![n])),
            }
        }
    }
    Ok(out)
}

/// Fig. 5's rows of one configuration: the mean over programs (and its spread over seeds),
/// and for HyDM the programs the paper names.
fn fig5_rows(label: &str, name: &str, runs: &[Normalised]) -> Vec<Comparison> {
    let means: Vec<f64> = runs
        .iter()
        .map(|n| mean(&n.iter().map(|x| x.1).collect::<Vec<_>>()))
        .collect();
    let is_hydm = name == "hydm";
    let row = cmp(
        "Fig. 5",
        format!("{label}: mean time over default, {name}"),
        "×",
        is_hydm.then_some(PAPER_MEAN),
        mean(&means),
        if is_hydm { Expect::Below(1.0) } else { Expect::None },
    );
    let mut rows = vec![if is_hydm { row.headline("hydm.fig5.mean") } else { row }];
    if runs.len() > 1 {
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        rows.push(cmp(
            "Fig. 5",
            format!("{label}: spread of the mean over {} seeds, {name}", runs.len()),
            "×",
            None,
            hi - lo,
            Expect::None,
        ));
    }
    if !is_hydm {
        return rows;
    }
    for (program, paper, id) in [
        ("cg.1", PAPER_CG1, "hydm.fig5.cg1"),
        ("cg.0", PAPER_CG0, "hydm.fig5.cg0"),
        ("ft.1", PAPER_FT1, "hydm.fig5.ft1"),
    ] {
        // A mix without the program gives no data, not a value.
        let v: Vec<f64> = runs.iter().map(|n| of(n, program)).filter(|x| x.is_finite()).collect();
        rows.push(
            cmp(
                "Fig. 5",
                format!("{label}: {program} time over default, hydm"),
                "×",
                Some(paper),
                mean(&v),
                Expect::Below(1.0),
            )
            .headline(id),
        );
    }
    rows
}

/// The rule's inputs and derived lengths of a mix, as labelled input rows, then the HyDM run's
/// similarity numbers beside the paper's and what the budget moved.
fn sizing_rows(label: &str, plan: &Plan, hydm: Option<&serde_json::Value>) -> Vec<Comparison> {
    let input = |q: String, unit: &'static str, paper: Option<f64>, v: f64| {
        cmp("Similarity", format!("{label}: {q}"), unit, paper, v, Expect::None).input()
    };
    let r = &plan.scaled.reference;
    let mut rows = vec![
        input(
            "MCDRAM share of the mix's memory (16 GiB over Table I class C)".into(),
            "fraction",
            Some(r.capacity_bytes["mcdram"] / r.footprint_bytes),
            plan.capacity_bytes as f64 / plan.scaled.footprint_bytes(),
        ),
        input(
            "simulated ns per paper ns (footprint scale when affordable)".into(),
            "",
            Some(plan.scaled.factor),
            plan.tau,
        ),
        input("window p".into(), "ns", Some(WINDOW_NS), plan.phase_ns as f64),
        input(
            "private L2 per core (the choice nearer Table I's memory accesses per flop)".into(),
            "bytes",
            None,
            plan.cache.l2.bytes(),
        ),
        input(
            "IPI handler cycles per page (× simulated over rule run length)".into(),
            "cycles",
            Some(HANDLER_CYCLES),
            plan.handler_cycles as f64,
        ),
    ];
    for (name, l) in &plan.lengths {
        let (what, n) = match l {
            Length::Iterations(n) => ("iterations", *n as f64),
            Length::PairsLog2(k) => ("pairs_log2", f64::from(*k)),
        };
        rows.push(input(format!("{name} {what}"), "", None, n));
    }
    for (l2, ratio) in plan.cache.traffic {
        let which = match l2 {
            L2::Knl => "with KNL's 1 MiB L2",
            L2::None => "without an L2",
        };
        let q = format!("memory accesses per flop over Table I's, geometric mean over the programs alone, {which}");
        rows.push(cmp(
            "Similarity",
            format!("{label}: {q}"),
            "",
            Some(1.0),
            ratio,
            Expect::None,
        ));
    }
    if let Some(h) = hydm {
        rows.extend(crate::similarity::rows("Similarity", &format!("{label} hydm"), h));
    }
    for d in &plan.deviations {
        rows.push(crate::similarity::deviation_row("Similarity", label, d));
    }
    rows
}

impl Study for Hydm {
    fn name(&self) -> &'static str {
        "hydm"
    }
    fn paper(&self) -> &'static str {
        "hydm-hybrid-memory-migration.txt — HyDM: data migration for hybrid memories (KNL flat mode)"
    }
    fn summary(&self) -> &'static str {
        "NPB mixes of 16 and 32 programs on knl-flat sized by the similarity rule: per-program time with HyDM, numactl --preferred=MCDRAM and all-MCDRAM over the default (Fig. 5)"
    }

    fn headlines(&self) -> &'static [crate::Headline] {
        crate::headlines::HYDM
    }

    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let quick = ctx.options.quick;
        let mut rows = Vec::new();
        let mut measured: Vec<(usize, [Vec<Pilot>; 2])> = Vec::new();
        for mix in mixes(quick) {
            if !measured.iter().any(|(t, _)| *t == mix.threads) {
                let p = [pilots(ctx, mix.threads, L2::Knl)?, pilots(ctx, mix.threads, L2::None)?];
                measured.push((mix.threads, p));
            }
            let [with, without] = &measured.iter().find(|(t, _)| *t == mix.threads).expect("measured").1;
            let cache = choose_l2(with, without);
            let chosen = if cache.l2 == L2::Knl { with } else { without };
            let plan = derive(&mix, chosen, budget(quick), cache);
            let runs = run_mix(ctx, &mix, &plan)?;
            for (name, r) in &runs.per_config {
                rows.extend(fig5_rows(mix.label, name, r));
            }
            rows.push(cmp(
                "§IV",
                format!("{}: pages HyDM moved per run", mix.label),
                "pages",
                None,
                mean(&runs.moves),
                Expect::None,
            ));
            rows.extend(sizing_rows(mix.label, &plan, runs.hydm.as_ref()));
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pilot(name: &'static str, footprint: f64, unit_ns: f64, fixed_ns: f64) -> Pilot {
        let first = if name == "ep" {
            Length::PairsLog2(12)
        } else {
            Length::Iterations(1)
        };
        Pilot {
            name,
            footprint_bytes: footprint,
            first,
            unit_ns,
            fixed_ns,
            accesses_per_flop: table1(name).accesses_per_flop(),
        }
    }

    /// Pilots whose footprints are Table I's × `s`, each iteration 1 µs, no setup.
    fn pilots_at(s: f64) -> Vec<Pilot> {
        ALL.iter()
            .map(|&n| pilot(n, table1(n).peak_mb * MIB * s, 1000.0, 0.0))
            .collect()
    }

    /// KNL's L2, as pilots that keep Table I's traffic choose.
    fn knl() -> L2Choice {
        L2Choice {
            l2: L2::Knl,
            traffic: [(L2::Knl, 1.0), (L2::None, f64::NAN)],
        }
    }

    const MIX16: Mix = Mix {
        label: "m",
        copies: 2,
        threads: 1,
        seeds: 1,
    };

    #[test]
    fn the_reference_is_table_one_and_table_two() {
        let r = MIX16.reference();
        // 2 × 17 270 MiB of class C memory; BT's 920 s is the longest, 9200 windows of 100 ms.
        assert_eq!(r.footprint_bytes, 2.0 * 17270.0 * MIB);
        assert_eq!(r.run_ns, Some(920e9));
        assert_eq!(r.phases, Some(9200.0));
        assert_eq!(r.capacity_bytes["mcdram"], 16384.0 * MIB);
    }

    /// Affordable: every number is the paper's at the declared scale.
    #[test]
    fn an_affordable_mix_keeps_every_number() {
        let s = 1e-6;
        let big = Budget {
            run_ns: 1e18,
            windows: 1e9,
        };
        let plan = derive(&MIX16, &pilots_at(s), big, knl());
        assert!((plan.scaled.factor - s).abs() < 1e-18);
        assert_eq!(plan.tau, s);
        // p × s: 100 ms × 1e-6 = 100 ns; the run 920 s × 1e-6 spans 9200 windows.
        assert_eq!(plan.phase_ns, 100);
        // 16 GiB × s of a 2 × 17 270 MiB × s footprint: 16384 / 34540, to a page.
        let share = plan.capacity_bytes as f64 / plan.scaled.footprint_bytes();
        assert!((share - 16384.0 / 34540.0).abs() < 4096.0 / plan.scaled.footprint_bytes());
        // Mechanism cycles at the paper's: run length per byte kept.
        assert_eq!(
            (plan.handler_cycles, plan.kernel_cycles, plan.scan_cycles),
            (5000, 3000, 5)
        );
        // Each program runs Table I's time × s: 1 µs iterations, so seconds × 1e3 iterations.
        for (name, l) in &plan.lengths {
            let want = table1(name).seconds * 1e9 * s / 1000.0;
            match l {
                Length::Iterations(n) => assert_eq!(*n, want.round() as u64, "{name}"),
                // 462 µs of EP at 1 µs per 2^12 pairs: 2^(12 + log2 462) ≈ 2^21.
                Length::PairsLog2(k) => assert_eq!(*k, 12 + want.log2().round() as u32),
            }
        }
        assert!(plan.deviations.is_empty(), "{:?}", plan.deviations);
    }

    /// Over budget: time is compressed by the budget, the window with it (windows per run
    /// kept), the per-page cycles by the same ratio, and the deviation says by how much.
    #[test]
    fn a_budget_compresses_time_and_the_mechanism_with_it() {
        let s = 1e-3;
        let plan = derive(
            &MIX16,
            &pilots_at(s),
            Budget {
                run_ns: 46e6,
                windows: 1e9,
            },
            knl(),
        );
        // The rule's longest run is 920 s × 1e-3 = 0.92 s; 46 ms affordable: τ = 5e-5, τ/s = 0.05.
        assert!((plan.tau - 5e-5).abs() < 1e-15);
        assert_eq!(plan.phase_ns, 5000);
        assert_eq!(
            (plan.handler_cycles, plan.kernel_cycles, plan.scan_cycles),
            (250, 150, 0)
        );
        let d = &plan.deviations[0];
        assert_eq!(d.number, "sim_ns_per_footprint_byte");
        assert!((d.ratio - 0.05).abs() < 1e-12);
        // IS: 31 s × 5e-5 = 1.55 ms at 1 µs an iteration.
        assert!(plan.lengths.contains(&("is", Length::Iterations(1550))));
        // Windows budget: 9200 → 200, the window 46 ms / 200.
        let plan = derive(
            &MIX16,
            &pilots_at(s),
            Budget {
                run_ns: 46e6,
                windows: 200.0,
            },
            knl(),
        );
        assert_eq!(plan.phase_ns, 230_000);
        assert!(plan
            .deviations
            .iter()
            .any(|d| d.number == "phases_per_run" && (d.ratio - 200.0 / 9200.0).abs() < 1e-12));
    }

    /// A program whose one iteration is longer than its share of the run is run once and
    /// reported as a deviation.
    #[test]
    fn a_program_longer_than_its_share_is_a_deviation() {
        let mut p = pilots_at(1e-3);
        p[0].unit_ns = 1e7;
        let plan = derive(
            &MIX16,
            &p,
            Budget {
                run_ns: 46e6,
                windows: 1e9,
            },
            knl(),
        );
        assert!(plan.lengths.contains(&("is", Length::Iterations(1))));
        assert!(plan.deviations.iter().any(|d| d.number == "run_ns_is"));
    }

    #[test]
    fn experiments_carry_every_program_and_the_plan() {
        let plan = derive(
            &MIX16,
            &pilots_at(1e-3),
            Budget {
                run_ns: 46e6,
                windows: 1e9,
            },
            knl(),
        );
        let (_, p, m) = configs(&plan, true).remove(2);
        let text = mix_experiment(&MIX16, &plan, 3, p, m, true).text();
        let back: toml::Table = text.parse().expect("the experiment parses");
        assert_eq!(back["process"].as_array().unwrap().len(), 16);
        assert_eq!(back["seed"].as_integer(), Some(3));
        assert_eq!(back["phase_ns"].as_integer(), Some(5000));
        assert_eq!(back["migration"]["shootdown_handler_cycles"].as_integer(), Some(250));
        assert_eq!(back["similarity"]["run_ns"].as_float(), Some(920e9));
        let cg = &back["process"].as_array().unwrap()[2]["workload"];
        assert_eq!(cg["kind"].as_str(), Some("cg"));
        assert_eq!(cg["iterations"].as_integer(), Some(15950));
    }

    /// Table I's memory accesses per flop: CG.C 31 984 M over 261 GFlop.
    #[test]
    fn table_one_gives_each_programs_accesses_per_flop() {
        assert!((table1("cg").accesses_per_flop() - 31984e6 / 261e9).abs() < 1e-12);
        assert!((table1("ep").accesses_per_flop() - 3767e6 / 494e9).abs() < 1e-12);
    }

    /// The traffic ratio is a geometric mean over the programs that count flops, and the L2
    /// whose ratio is nearer 1, as a factor either way, is chosen.
    #[test]
    fn the_l2_is_the_choice_nearer_table_ones_traffic() {
        let at = |f: f64| {
            let mut p = pilots_at(1e-3);
            for x in &mut p {
                x.accesses_per_flop *= f;
            }
            // A program counting no flops (the IS generator) does not vote.
            p[0].accesses_per_flop = 0.0;
            p
        };
        assert!((traffic_ratio(&at(0.25)) - 0.25).abs() < 1e-12);
        assert!(traffic_ratio(&at(0.0)).is_nan());
        // A tenth of the paper's traffic with the L2, 1.5× without: without is nearer.
        assert_eq!(choose_l2(&at(0.1), &at(1.5)).l2, L2::None);
        // Half with it, 3× without: with it is nearer (a factor 2 against 3).
        assert_eq!(choose_l2(&at(0.5), &at(3.0)).l2, L2::Knl);
        // Unknown ratios keep the machine's L2.
        assert_eq!(choose_l2(&at(0.0), &at(0.0)).l2, L2::Knl);
    }

    /// Without the L2 every run of the mix carries `[timing] l2_bytes = 0`; with it, none.
    #[test]
    fn the_chosen_l2_reaches_every_run() {
        let mut plan = derive(
            &MIX16,
            &pilots_at(1e-3),
            Budget {
                run_ns: 46e6,
                windows: 1e9,
            },
            knl(),
        );
        for (l2, want) in [(L2::Knl, None), (L2::None, Some(0))] {
            plan.cache.l2 = l2;
            let (_, p, m) = configs(&plan, true).remove(0);
            let back: toml::Table = mix_experiment(&MIX16, &plan, 1, p, m, true).text().parse().unwrap();
            let got = back
                .get("timing")
                .and_then(|t| t.get("l2_bytes"))
                .and_then(|v| v.as_integer());
            assert_eq!(got, want, "{l2:?}");
        }
    }

    #[test]
    fn normalised_times_match_programs_by_name() {
        let a = serde_json::json!({"processes": [{"name": "cg.0", "finish_time_ns": 200.0}, {"name": "ep.0", "finish_time_ns": 50.0}]});
        let b = serde_json::json!({"processes": [{"name": "ep.0", "finish_time_ns": 25.0}, {"name": "cg.0", "finish_time_ns": 300.0}]});
        let n = normalised(&a, &b).unwrap();
        assert_eq!(of(&n, "cg.0"), 1.5);
        assert_eq!(of(&n, "ep.0"), 0.5);
        assert!(of(&n, "ft.1").is_nan());
    }

    /// A renamed results key fails naming the run and the key, never reading as 0.
    #[test]
    fn a_renamed_results_key_names_the_run() {
        let r = serde_json::json!({"name": "mix16-s1-hydm", "processes": [{"name": "cg.0", "finish_ns": 1.0}]});
        let e = finish_times(&r).unwrap_err().to_string();
        assert!(e.contains("mix16-s1-hydm") && e.contains("finish_time_ns"), "{e}");
        let e = require(&r, &["migration", "total_moves"]).unwrap_err().to_string();
        assert!(
            e.contains("mix16-s1-hydm") && e.contains("migration.total_moves"),
            "{e}"
        );
    }
}
