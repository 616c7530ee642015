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

use crate::{cmp, number, Comparison, Expect, ReproError, Study, StudyContext};

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

const SETUPS: [(Setup, &str, &str); 4] = [
    (Setup::Infinite, "inf", ""),
    (Setup::InfiniteBasic, "inf-basic", "proxies = \"basic\"\n"),
    (Setup::Finite, "fin", "input_buffer_reads = 8\n"),
    (
        Setup::FiniteReactive,
        "fin-reactive",
        "input_buffer_reads = 8\nproxies = \"reactive\"\n",
    ),
];

const PLACEMENTS: [(&str, &str); 2] = [("ft", "first-touch"), ("rr", "round-robin")];

/// Per run: simulated time (ns), messages, mean remote read response (ns), mean input-buffer
/// queueing (cycles), bounces.
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
    table: String,
    /// Basic proxies mark only the generator's declared hot structures (else every address).
    hot_only: bool,
}

fn workloads(s: &Size) -> Vec<Workload> {
    let ocean = |partition: &str| {
        format!(
            "kind = \"ocean\"\nthreads = 64\nn = {}\ngrids = 1\nmax_sweeps = {}\npartition = \"{partition}\"\ninit = \"parallel\"\n",
            s.ocean_n, s.ocean_sweeps
        )
    };
    let mut out = vec![
        Workload {
            id: "ge",
            label: "GE",
            table: format!(
                "kind = \"ge\"\nthreads = 64\nn = {}\ninit = \"parallel\"\npivoting = false\n",
                s.ge_n
            ),
            hot_only: false,
        },
        Workload {
            id: "ocean-contig",
            label: "Ocean-Contig",
            table: ocean("contiguous"),
            hot_only: false,
        },
        Workload {
            id: "ocean-noncontig",
            label: "Ocean-Non-Contig",
            table: ocean("non-contiguous"),
            hot_only: false,
        },
    ];
    // As for GE and Ocean, each thread first-touches the data it works on (`init =
    // "parallel"`): the paper's first-touch placement is meant to place data where it is used,
    // while SPLASH-2's own main-thread initialisation would put everything on node 0 (the
    // generators' default `init = "serial"`, which the Zaourar study uses).
    let splash = [
        (
            "barnes",
            "Barnes",
            format!("bodies = {}", s.barnes_bodies),
            s.barnes_bodies > 0,
            false,
        ),
        ("fft", "FFT", format!("m = {}", s.fft_m), s.fft_m > 0, false),
        (
            "fmm",
            "FMM",
            format!("particles = {}", s.fmm_particles),
            s.fmm_particles > 0,
            true,
        ),
        (
            "water-nsq",
            "Water-Nsq",
            format!("molecules = {}", s.water_molecules),
            s.water_molecules > 0,
            true,
        ),
    ];
    for (id, label, size, run, hot_only) in splash {
        if run {
            out.push(Workload {
                id,
                label,
                table: format!("kind = \"{id}\"\nthreads = 64\n{size}\ninit = \"parallel\"\n"),
                hot_only,
            });
        }
    }
    out
}

/// `proxy_ranges = [[start, end], ...]` of the generator's declared hot structures.
fn hot_ranges_line(w: &Workload) -> Result<String, ReproError> {
    let fail = |message: String| ReproError::Results {
        id: w.id.into(),
        message,
    };
    let mut table: toml::Table = w.table.parse().map_err(|e: toml::de::Error| fail(e.to_string()))?;
    let kind = table
        .remove("kind")
        .and_then(|k| k.as_str().map(str::to_string))
        .unwrap_or_default();
    let ranges = numasim_workload::splash::hot_ranges(&kind, table, 1).map_err(|e| fail(e.to_string()))?;
    let list: Vec<String> = ranges
        .iter()
        .map(|r| format!("[{}, {}]", r.start_vaddr, r.end_vaddr))
        .collect();
    let names: Vec<&str> = ranges.iter().map(|r| r.name).collect();
    Ok(format!(
        "# basic proxies on the hot structures of Table 1.3: {}\nproxy_ranges = [{}]\n",
        names.join(", "),
        list.join(", ")
    ))
}

fn config(w: &Workload, placement: &str, extra: &str) -> String {
    format!(
        "# numasim repro talbot: {label}, {placement}\n\
         machine = \"talbot64\"\nseed = 1\nmode = \"timing\"\nphase_instructions = 1000000\n\n\
         [workload]\n{table}\n[placement]\npolicy = \"{placement}\"\npage_bytes = 8192\n\n\
         # The node (CPI-1 blocking core, FLC, SLC lookup) is talbot64's [core]; Table 1.2's\n\
         # occupancies at a 10 ns controller cycle.\n\
         [timing]\nnode_controller_cycle_ns = 10.0\n{extra}",
        label = w.label,
        table = w.table,
    )
}

fn read(v: &serde_json::Value) -> Run {
    let nc = |k: &str| number(v, &["timing", "node_controllers", k]).unwrap_or(0.0);
    Run {
        time: number(v, &["timing", "sim_time_ns"]).unwrap_or(0.0),
        messages: nc("messages_total"),
        remote_read_ns: nc("mean_remote_read_response_ns"),
        queueing: nc("mean_input_buffer_queueing_cycles"),
    }
}

/// Speedup of `new` over `base`, % (positive: `new` is faster).
fn gain(base: f64, new: f64) -> f64 {
    (base / new.max(1.0) - 1.0) * 100.0
}

fn change(base: f64, new: f64) -> f64 {
    (new / base.max(1e-9) - 1.0) * 100.0
}

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
            // runs[placement][setup]
            let mut runs = [[Run::default(); 4]; 2];
            let mut plan = Vec::new();
            for (pid, policy) in PLACEMENTS.iter() {
                for (setup, sid, extra) in SETUPS.iter() {
                    let mut extra = extra.to_string();
                    if *setup == Setup::InfiniteBasic && w.hot_only {
                        extra.push_str(&hot_ranges_line(&w)?);
                    }
                    plan.push((format!("{}-{pid}-{sid}", w.id), config(&w, policy, &extra)));
                }
            }
            // The eight runs of this program, in parallel; results in plan order.
            for (k, v) in ctx.run_experiments(&plan)?.iter().enumerate() {
                runs[k / SETUPS.len()][k % SETUPS.len()] = read(v);
            }
            let (ft, rr) = (&runs[0], &runs[1]);
            let l = w.label;
            let (inf, basic, fin, reactive) = (0, 1, 2, 3);
            match w.id {
                "ge" => {
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
                                format!(
                                    "{l}: {name} with basic proxies, speedup over first-touch without proxies, infinite buffers"
                                ),
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
                }
                "ocean-contig" => {
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
                }
                "ocean-noncontig" => {
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
                }
                "barnes" | "fft" | "fmm" | "water-nsq" => {
                    // §1.5.1: FMM and Water-Nsq marginally better under first touch, Barnes and
                    // FFT marginally better under round-robin; FT + basic proxies: FFT +9 %,
                    // FMM +0.3 %, Barnes −0.2 %, Water-Nsq −0.7 %.
                    let rr_better = matches!(w.id, "barnes" | "fft");
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
                    let (paper, expect, id) = match w.id {
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
                }
                _ => {}
            }
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
            if w.id != "ge" {
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
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full study marks FMM's `f_array` (64 threads × 4 reals) and Water-Nsq's `VAR`
    /// (512 × 504 bytes) and `PFORCES` (64 × 512 × 72 bytes) for basic proxies; the other
    /// workloads mark everything.
    #[test]
    fn basic_proxies_mark_the_declared_hot_structures() {
        let ranges = |line: &str| -> Vec<[u64; 2]> {
            let t: toml::Table = line.parse().unwrap();
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
            let line = hot_ranges_line(w).unwrap();
            println!("{}: {line}", w.id);
            let r = ranges(&line);
            let sizes: Vec<u64> = r.iter().map(|[a, b]| b - a).collect();
            match w.id {
                "fmm" => assert_eq!(sizes, [64 * 32]),
                _ => assert_eq!(sizes, [512 * 504, 64 * 512 * 72]),
            }
        }
    }
}
