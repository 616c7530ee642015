//! `numasim repro talbot`: Talbot & Kelly, "Stable performance for cc-NUMA using first-touch
//! page placement and reactive proxies" (first-touch-and-reactive-proxies.txt).
//!
//! Every run is on the `talbot64` preset in timing mode with the paper's node (the preset's
//! `[core]`: a CPI-1 blocking processor, an 8 KiB direct-mapped FLC, the SLC's 8-cycle lookup),
//! 8 KiB pages, node controllers with 10 ns cycles and the occupancies of Table 1.2. Per workload it runs {first-touch, round-robin} × {infinite buffers without
//! proxies, infinite with basic proxies, 8-read buffers without proxies, 8-read buffers with
//! reactive proxies} and compares what §1.5 reports. Workloads: GE without pivoting (the
//! paper's data-oblivious GE), Ocean-Contig and Ocean-Non-Contig, and the full study adds
//! Barnes, FFT, FMM and Water-Nsquared at Table 1.3's sizes (`--quick` adds FFT at 16K points).
//! Basic proxies mark what Table 1.3 marks: every address for GE ("entire matrix", the
//! matrix is nearly all of GE's data), Barnes and FFT ("all"); FMM's `f_array` and
//! Water-Nsquared's `VAR` and `PFORCES` as the generators declare them
//! (`numasim_workload::splash::hot_ranges`, written to the run's `[timing] proxy_ranges`).
//! numasim's Ocean has no multigrid arrays, so its `q_multi`/`rhs_multi` marking has no
//! counterpart and all data is marked.

use crate::config::{require, Config};
use crate::{cmp, Comparison, Expect, ReproError, Study, StudyContext};
use toml::{toml, Table};

pub struct Talbot;

struct Size {
    ge_n: usize,
    ocean_n: usize,
    ocean_sweeps: usize,
    /// log2 of FFT's points; 0 = no FFT run.
    fft_m: u32,
    /// Barnes bodies, FMM particles, Water molecules; 0 = not run.
    barnes_bodies: usize,
    fmm_particles: usize,
    water_molecules: usize,
}

const QUICK: Size = Size {
    ge_n: 128,
    ocean_n: 128,
    ocean_sweeps: 6,
    fft_m: 14,
    barnes_bodies: 0,
    fmm_particles: 0,
    water_molecules: 0,
};
/// Table 1.3: GE 512 × 512, Ocean 258 × 258 (256 interior points a side), Barnes 16K
/// particles, FFT 64K points, FMM 8K particles, Water-Nsquared 512 molecules.
const FULL: Size = Size {
    ge_n: 512,
    ocean_n: 256,
    ocean_sweeps: 40,
    fft_m: 16,
    barnes_bodies: 16384,
    fmm_particles: 8192,
    water_molecules: 512,
};

/// The buffer/proxy configurations of Figs. 1.5–1.10.
#[derive(Clone, Copy, PartialEq)]
enum Setup {
    Infinite,
    InfiniteBasic,
    Finite,
    FiniteReactive,
}

const SETUPS: [(Setup, &str); 4] = [
    (Setup::Infinite, "inf"),
    (Setup::InfiniteBasic, "inf-basic"),
    (Setup::Finite, "fin"),
    (Setup::FiniteReactive, "fin-reactive"),
];

impl Setup {
    /// The setup's `[timing]` keys: finite input buffers and proxies.
    fn timing(self) -> Table {
        match self {
            Setup::Infinite => Table::new(),
            Setup::InfiniteBasic => toml! { proxies = "basic" },
            Setup::Finite => toml! { input_buffer_reads = 8 },
            Setup::FiniteReactive => toml! { input_buffer_reads = 8 proxies = "reactive" },
        }
    }
}

const PLACEMENTS: [(&str, &str); 2] = [("ft", "first-touch"), ("rr", "round-robin")];

/// Per run: simulated time (ns), messages, mean remote read response (ns), mean input-buffer
/// queueing (cycles).
#[derive(Clone, Copy, Default)]
struct Run {
    time: f64,
    messages: f64,
    remote_read_ns: f64,
    queueing: f64,
}

struct Workload {
    id: &'static str,
    label: &'static str,
    /// The `[workload]` table.
    table: Table,
    /// Basic proxies mark only the generator's declared hot structures (else every address).
    hot_only: bool,
}

fn workload(id: &'static str, label: &'static str, table: Table, hot_only: bool) -> Workload {
    Workload {
        id,
        label,
        table,
        hot_only,
    }
}

fn workloads(s: &Size) -> Vec<Workload> {
    let ocean = |partition: &str| {
        toml! {
            kind = "ocean"
            threads = 64
            n = (s.ocean_n)
            grids = 1
            max_sweeps = (s.ocean_sweeps)
            partition = (partition)
            init = "parallel"
        }
    };
    let ge = toml! { kind = "ge" threads = 64 n = (s.ge_n) init = "parallel" pivoting = false };
    let mut out = vec![
        workload("ge", "GE", ge, false),
        workload("ocean-contig", "Ocean-Contig", ocean("contiguous"), false),
        workload("ocean-noncontig", "Ocean-Non-Contig", ocean("non-contiguous"), false),
    ];
    // As for GE and Ocean, each thread first-touches the data it works on (`init =
    // "parallel"`): the paper's first-touch placement is meant to place data where it is used,
    // while SPLASH-2's own main-thread initialisation would put everything on node 0 (the
    // generators' default `init = "serial"`, which the Zaourar study uses).
    let splash = [
        ("barnes", "Barnes", "bodies", s.barnes_bodies, false),
        ("fft", "FFT", "m", s.fft_m as usize, false),
        ("fmm", "FMM", "particles", s.fmm_particles, true),
        ("water-nsq", "Water-Nsq", "molecules", s.water_molecules, true),
    ];
    for (id, label, key, size, hot_only) in splash {
        if size > 0 {
            let mut t = toml! { kind = (id) threads = 64 };
            t.insert(key.into(), toml::Value::Integer(size as i64));
            t.insert("init".into(), toml::Value::from("parallel"));
            out.push(workload(id, label, t, hot_only));
        }
    }
    out
}

/// `proxy_ranges` of the generator's declared hot structures, and their names.
fn hot_ranges(w: &Workload) -> Result<(Table, String), ReproError> {
    let mut table = w.table.clone();
    let kind = table
        .remove("kind")
        .and_then(|k| k.as_str().map(str::to_string))
        .unwrap_or_default();
    let ranges = numasim_workload::splash::hot_ranges(&kind, table, 1).map_err(|e| ReproError::Results {
        id: w.id.into(),
        message: e.to_string(),
    })?;
    let list: Vec<toml::Value> = ranges
        .iter()
        .map(|r| toml::Value::Array(vec![(r.start_vaddr as i64).into(), (r.end_vaddr as i64).into()]))
        .collect();
    let names: Vec<&str> = ranges.iter().map(|r| r.name).collect();
    Ok((
        Table::from_iter([("proxy_ranges".to_string(), toml::Value::Array(list))]),
        names.join(", "),
    ))
}

/// One run: `w` under `placement` with the setup's `[timing]` keys.
fn config(w: &Workload, placement: &str, timing: Table, note: &str) -> Config {
    let mut t = toml! { node_controller_cycle_ns = 10.0 };
    t.extend(timing);
    Config::new(
        format!(
            "numasim repro talbot: {}, {placement}{note}\n\
             The node (CPI-1 blocking core, FLC, SLC lookup) is talbot64's [core]; Table 1.2's\n\
             occupancies at a 10 ns controller cycle.",
            w.label
        ),
        toml! {
            machine = "talbot64"
            seed = 1
            mode = "timing"
            phase_instructions = 1000000
            [placement]
            policy = (placement)
            page_bytes = 8192
        },
    )
    .with(Table::from_iter([
        ("workload".to_string(), toml::Value::Table(w.table.clone())),
        ("timing".to_string(), toml::Value::Table(t)),
    ]))
}

/// The eight runs of `w`: per placement, per setup.
fn plan(w: &Workload) -> Result<Vec<(String, Config)>, ReproError> {
    let mut plan = Vec::new();
    for (pid, policy) in PLACEMENTS.iter() {
        for (setup, sid) in SETUPS.iter() {
            let mut timing = setup.timing();
            let mut note = String::new();
            if *setup == Setup::InfiniteBasic && w.hot_only {
                let (ranges, names) = hot_ranges(w)?;
                timing.extend(ranges);
                note = format!("; basic proxies on the hot structures of Table 1.3: {names}");
            }
            plan.push((format!("{}-{pid}-{sid}", w.id), config(w, policy, timing, &note)));
        }
    }
    Ok(plan)
}

fn read(v: &serde_json::Value) -> Result<Run, ReproError> {
    let nc = |k: &str| require(v, &["timing", "node_controllers", k]);
    Ok(Run {
        time: require(v, &["timing", "sim_time_ns"])?,
        messages: nc("messages_total")?,
        remote_read_ns: nc("mean_remote_read_response_ns")?,
        queueing: nc("mean_input_buffer_queueing_cycles")?,
    })
}

/// Speedup of `new` over `base`, % (positive: `new` is faster).
fn gain(base: f64, new: f64) -> f64 {
    (base / new.max(1.0) - 1.0) * 100.0
}

fn change(base: f64, new: f64) -> f64 {
    (new / base.max(1e-9) - 1.0) * 100.0
}

/// A program's runs: `[placement][setup]` (first-touch, round-robin; setups as [`SETUPS`]).
type Runs = [[Run; 4]; 2];
const INF: usize = 0;
const BASIC: usize = 1;
const FIN: usize = 2;
const REACTIVE: usize = 3;

impl Study for Talbot {
    fn name(&self) -> &'static str {
        "talbot"
    }

    fn paper(&self) -> &'static str {
        "first-touch-and-reactive-proxies.txt: Talbot & Kelly, stable performance for cc-NUMA using first-touch page placement and reactive proxies"
    }

    fn summary(&self) -> &'static str {
        "GE, Ocean-Contig, Ocean-Non-Contig, Barnes, FFT, FMM, Water-Nsq on talbot64: first-touch vs round-robin, no/basic/reactive proxies, infinite and 8-read buffers (Figs. 1.5-1.10, Table 1.4)"
    }

    fn headlines(&self) -> &'static [crate::Headline] {
        crate::headlines::TALBOT
    }

    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let size = if ctx.options.quick { &QUICK } else { &FULL };
        let mut out = Vec::new();
        for w in workloads(size) {
            let mut runs = [[Run::default(); 4]; 2];
            // The eight runs of this program, in parallel; results in plan order.
            for (k, v) in ctx.run_all(&plan(&w)?)?.iter().enumerate() {
                runs[k / SETUPS.len()][k % SETUPS.len()] = read(v)?;
            }
            let l = w.label;
            out.extend(match w.id {
                "ge" => ge_rows(l, &runs),
                "ocean-contig" => ocean_contig_rows(l, &runs),
                "ocean-noncontig" => ocean_noncontig_rows(l, &runs),
                id => splash_rows(l, &runs, id),
            });
            out.extend(common_rows(l, &runs, w.id));
        }
        Ok(out)
    }
}

/// GE's rows (Figs. 1.5–1.7 with infinite buffers, then [`ge_finite_rows`]).
fn ge_rows(l: &str, runs: &Runs) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (inf, basic) = (INF, BASIC);
    let mut out = Vec::new();
    out.push(
        cmp(
            "Fig. 1.5",
            format!("{l}: round-robin speedup over first-touch, infinite buffers"),
            "%",
            Some(7.3),
            gain(ft[inf].time, rr[inf].time),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.rr_inf"),
    );
    // "Nearly 10 %" more messages, and a remote read response 19 % better.
    out.push(
        cmp(
            "Fig. 1.6",
            format!("{l}: messages with round-robin vs first-touch, infinite"),
            "%",
            Some(10.0),
            change(ft[inf].messages, rr[inf].messages),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.rr_messages"),
    );
    out.push(
        cmp(
            "Fig. 1.7",
            format!("{l}: remote read response with round-robin vs first-touch, infinite"),
            "%",
            Some(-19.0),
            change(ft[inf].remote_read_ns, rr[inf].remote_read_ns),
            Expect::Below(0.0),
        )
        .headline("talbot.ge.rr_read_response"),
    );
    // "Both placement policies achieve more than 27 % speedup over first-touch
    // without proxies."
    for (p, name) in [(ft, "first-touch"), (rr, "round-robin")] {
        out.push(
            cmp(
                "Fig. 1.5",
                format!("{l}: {name} with basic proxies, speedup over first-touch without proxies, infinite buffers"),
                "%",
                Some(27.0),
                gain(ft[inf].time, p[basic].time),
                Expect::Above(0.0),
            )
            .headline("talbot.ge.basic_speedup"),
        );
    }
    out.push(
        cmp(
            "Fig. 1.6",
            format!("{l}: messages with basic proxies vs none, first-touch, infinite"),
            "%",
            Some(17.0),
            change(ft[inf].messages, ft[basic].messages),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.basic_messages"),
    );
    out.push(
        cmp(
            "Fig. 1.7",
            format!("{l}: remote read response with basic proxies vs none, first-touch, infinite"),
            "%",
            Some(-90.0),
            change(ft[inf].remote_read_ns, ft[basic].remote_read_ns),
            Expect::Below(0.0),
        )
        .headline("talbot.ge.basic_read_response"),
    );
    out.extend(ge_finite_rows(l, runs));
    out
}

/// GE's rows with finite buffers (Figs. 1.8–1.9, §1.5.2, Table 1.4).
fn ge_finite_rows(l: &str, runs: &Runs) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (fin, reactive) = (FIN, REACTIVE);
    let mut out = Vec::new();
    out.push(
        cmp(
            "Fig. 1.8",
            format!("{l}: round-robin speedup over first-touch, finite buffers"),
            "%",
            Some(1.2),
            gain(ft[fin].time, rr[fin].time),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.rr_fin"),
    );
    out.push(
        cmp(
            "§1.5.2",
            format!("{l}: reactive proxies speedup, first-touch, finite buffers"),
            "%",
            Some(22.2),
            gain(ft[fin].time, ft[reactive].time),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.reactive"),
    );
    out.push(
        cmp(
            "Fig. 1.9",
            format!("{l}: messages with reactive proxies vs none, first-touch, finite"),
            "%",
            None,
            change(ft[fin].messages, ft[reactive].messages),
            Expect::Below(0.0),
        )
        .headline("talbot.ge.reactive_messages"),
    );
    out.push(
        cmp(
            "Table 1.4",
            format!("{l}: mean input-buffer queueing, reactive vs none, first-touch, finite"),
            "%",
            None,
            change(ft[fin].queueing, ft[reactive].queueing),
            Expect::Above(0.0),
        )
        .headline("talbot.ge.reactive_queueing"),
    );
    out
}

/// Ocean-Contig's rows (§1.5.1, Fig. 1.8).
fn ocean_contig_rows(l: &str, runs: &Runs) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (inf, fin) = (INF, FIN);
    let mut out = Vec::new();
    out.push(
        cmp(
            "§1.5.1",
            format!("{l}: round-robin slowdown vs first-touch, infinite buffers"),
            "%",
            Some(19.0),
            -gain(ft[inf].time, rr[inf].time),
            Expect::Above(0.0),
        )
        .headline("talbot.ocean_contig.rr_inf"),
    );
    out.push(
        cmp(
            "Fig. 1.8",
            format!("{l}: round-robin slowdown vs first-touch, finite buffers"),
            "%",
            None,
            -gain(ft[fin].time, rr[fin].time),
            Expect::Above(0.0),
        )
        .headline("talbot.fin.rr_worse"),
    );
    out
}

/// Ocean-Non-Contig's rows (§1.5.1, Fig. 1.8).
fn ocean_noncontig_rows(l: &str, runs: &Runs) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (inf, basic, fin) = (INF, BASIC, FIN);
    let mut out = Vec::new();
    // §1.5.1: marginally better under first touch; best with first touch and
    // basic proxies, 1.8 % faster.
    out.push(
        cmp(
            "§1.5.1",
            format!("{l}: round-robin speedup over first-touch, infinite buffers"),
            "%",
            None,
            gain(ft[inf].time, rr[inf].time),
            Expect::Below(0.0),
        )
        .headline("talbot.splash.rr_inf"),
    );
    out.push(
        cmp(
            "§1.5.1",
            format!("{l}: basic proxies speedup, first-touch, infinite buffers"),
            "%",
            Some(1.8),
            gain(ft[inf].time, ft[basic].time),
            Expect::Above(0.0),
        )
        .headline("talbot.ocean_noncontig.basic"),
    );
    out.push(
        cmp(
            "Fig. 1.8",
            format!("{l}: round-robin slowdown vs first-touch, finite buffers"),
            "%",
            None,
            -gain(ft[fin].time, rr[fin].time),
            Expect::Above(0.0),
        )
        .headline("talbot.fin.rr_worse"),
    );
    out
}

/// The SPLASH-2 programs' rows (§1.5.1, Fig. 1.8, §1.5.2).
fn splash_rows(l: &str, runs: &Runs, id: &str) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (inf, basic, fin, reactive) = (INF, BASIC, FIN, REACTIVE);
    let mut out = Vec::new();
    // §1.5.1: FMM and Water-Nsq marginally better under first touch, Barnes and
    // FFT marginally better under round-robin; FT + basic proxies: FFT +9 %,
    // FMM +0.3 %, Barnes −0.2 %, Water-Nsq −0.7 %.
    let rr_better = matches!(id, "barnes" | "fft");
    out.push(
        cmp(
            "§1.5.1",
            format!("{l}: round-robin speedup over first-touch, infinite buffers"),
            "%",
            None,
            gain(ft[inf].time, rr[inf].time),
            if rr_better {
                Expect::Above(0.0)
            } else {
                Expect::Below(0.0)
            },
        )
        .headline("talbot.splash.rr_inf"),
    );
    // The paper's signs: FFT +9 %, FMM +0.3 %, Barnes −0.2 %, Water-Nsq −0.7 %.
    let (paper, expect, id) = match id {
        "fft" => (9.0, Expect::Above(0.0), "talbot.fft.basic"),
        "fmm" => (0.3, Expect::Above(0.0), "talbot.fmm.basic"),
        "barnes" => (-0.2, Expect::Below(0.0), "talbot.barnes.basic"),
        _ => (-0.7, Expect::Below(0.0), "talbot.water.basic"),
    };
    out.push(
        cmp(
            "§1.5.1",
            format!("{l}: basic proxies speedup, first-touch, infinite buffers"),
            "%",
            Some(paper),
            gain(ft[inf].time, ft[basic].time),
            expect,
        )
        .headline(id),
    );
    out.push(
        cmp(
            "Fig. 1.8",
            format!("{l}: round-robin slowdown vs first-touch, finite buffers"),
            "%",
            None,
            -gain(ft[fin].time, rr[fin].time),
            Expect::Above(0.0),
        )
        .headline("talbot.fin.rr_worse"),
    );
    out.push(cmp(
        "§1.5.2",
        format!("{l}: reactive proxies speedup, first-touch, finite buffers"),
        "%",
        None,
        gain(ft[fin].time, ft[reactive].time),
        Expect::Above(0.0),
    ));
    out
}

/// Every program's rows: §1.5.3, §1.5.2 (not GE) and Table 1.4.
fn common_rows(l: &str, runs: &Runs, id: &str) -> Vec<Comparison> {
    let (ft, rr) = (&runs[0], &runs[1]);
    let (fin, reactive) = (FIN, REACTIVE);
    let mut out = Vec::new();
    // §1.5.3: first-touch + reactive proxies never worse than either placement without
    // proxies (finite buffers): speedup over the better of the two.
    let best_plain = ft[fin].time.min(rr[fin].time);
    out.push(
        cmp(
            "§1.5.3",
            format!("{l}: first-touch + reactive vs best placement without proxies, finite"),
            "%",
            None,
            gain(best_plain, ft[reactive].time),
            Expect::Above(0.0),
        )
        .headline("talbot.reactive_never_worse"),
    );
    // §1.5.2: first-touch with reactive proxies is the best of the eight setups for
    // every program but GE (which basic proxies suit better): its time over the best
    // of the other seven.
    let best_other = (0..2)
        .flat_map(|p| (0..4).map(move |s| (p, s)))
        .filter(|&(p, s)| (p, s) != (0, reactive))
        .map(|(p, s)| runs[p][s].time)
        .fold(f64::INFINITY, f64::min);
    if id != "ge" {
        out.push(
            cmp(
                "§1.5.2",
                format!("{l}: first-touch + reactive time over the best other setup"),
                "×",
                None,
                ft[reactive].time / best_other,
                Expect::Below(1.0),
            )
            .min_effect(0.0)
            .headline("talbot.reactive_best"),
        );
    }
    out.push(cmp(
        "Table 1.4",
        format!("{l}: mean input-buffer queueing, first-touch, finite, no proxies"),
        "cycles",
        None,
        ft[fin].queueing,
        Expect::None,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full study marks FMM's `f_array` (64 threads × 4 reals) and Water-Nsq's `VAR`
    /// (512 × 504 bytes) and `PFORCES` (64 × 512 × 72 bytes) for basic proxies; the other
    /// workloads mark everything.
    #[test]
    fn basic_proxies_mark_the_declared_hot_structures() {
        let ranges = |t: &Table| -> Vec<[u64; 2]> {
            t["proxy_ranges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let r = r.as_array().unwrap();
                    [r[0].as_integer().unwrap() as u64, r[1].as_integer().unwrap() as u64]
                })
                .collect()
        };
        let all = workloads(&FULL);
        let marked: Vec<&str> = all.iter().filter(|w| w.hot_only).map(|w| w.id).collect();
        assert_eq!(marked, ["fmm", "water-nsq"]);
        for w in all.iter().filter(|w| w.hot_only) {
            let (table, names) = hot_ranges(w).unwrap();
            println!("{}: {names}", w.id);
            let r = ranges(&table);
            let sizes: Vec<u64> = r.iter().map(|[a, b]| b - a).collect();
            match w.id {
                "fmm" => assert_eq!(sizes, [64 * 32]),
                _ => assert_eq!(sizes, [512 * 504, 64 * 512 * 72]),
            }
        }
    }

    /// A renamed results key fails the study naming the run and the key, never reading as 0.
    #[test]
    fn a_missing_results_key_names_the_run() {
        let mut r = serde_json::json!({"name": "ge-ft-inf", "timing": {"sim_time_ns": 5.0,
            "node_controllers": {"messages_total": 1.0, "mean_remote_read_response_ns": 2.0,
            "mean_input_buffer_queueing_cycles": 3.0}}});
        assert_eq!(read(&r).unwrap().queueing, 3.0);
        r["timing"]["node_controllers"]
            .as_object_mut()
            .unwrap()
            .remove("messages_total");
        let e = read(&r).err().unwrap().to_string();
        assert!(
            e.contains("ge-ft-inf") && e.contains("timing.node_controllers.messages_total"),
            "{e}"
        );
    }

    /// Every run is on talbot64 with the paper's pages and controller cycle; each setup adds
    /// its buffers and proxies.
    #[test]
    fn each_setup_sets_its_buffers_and_proxies() {
        let w = &workloads(&QUICK)[0];
        let runs = plan(w).unwrap();
        assert_eq!(runs.len(), 8);
        assert_eq!(runs[7].0, "ge-rr-fin-reactive");
        let t: Table = runs[7].1.text().parse().unwrap();
        assert_eq!(t["machine"].as_str(), Some("talbot64"));
        assert_eq!(t["placement"]["policy"].as_str(), Some("round-robin"));
        assert_eq!(t["placement"]["page_bytes"].as_integer(), Some(8192));
        assert_eq!(t["workload"]["n"].as_integer(), Some(128));
        assert_eq!(t["timing"]["node_controller_cycle_ns"].as_float(), Some(10.0));
        assert_eq!(t["timing"]["input_buffer_reads"].as_integer(), Some(8));
        assert_eq!(t["timing"]["proxies"].as_str(), Some("reactive"));
        let inf: Table = runs[0].1.text().parse().unwrap();
        assert!(inf["timing"].get("proxies").is_none());
    }
}
