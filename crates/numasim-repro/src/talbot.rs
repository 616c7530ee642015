//! `numasim repro talbot`: Talbot & Kelly, "Stable performance for cc-NUMA using first-touch
//! page placement and reactive proxies" (first-touch-and-reactive-proxies.txt).
//!
//! Every run is on the `talbot64` preset in timing mode with the paper's node: CPI 1.0, an
//! 8 KiB direct-mapped FLC, 8 KiB pages, node controllers with 10 ns cycles and the occupancies
//! of Table 1.2. Per workload it runs {first-touch, round-robin} × {infinite buffers without
//! proxies, infinite with basic proxies, 8-read buffers without proxies, 8-read buffers with
//! reactive proxies} and compares what §1.5 reports. Workloads: GE without pivoting (the
//! paper's data-oblivious GE), Ocean-Contig and Ocean-Non-Contig. Barnes, FFT, FMM and
//! Water-Nsquared have no generator yet. Basic proxies mark every address (the paper marks all
//! data for GE — "entire matrix" — Barnes and FFT; numasim's Ocean has no multigrid arrays, so
//! its `q_multi`/`rhs_multi` marking has no counterpart and all data is marked).

use crate::{cmp, number, Comparison, Expect, ReproError, Study, StudyContext};

pub struct Talbot;

struct Size {
    ge_n: usize,
    ocean_n: usize,
    ocean_sweeps: usize,
}

const QUICK: Size = Size {
    ge_n: 128,
    ocean_n: 128,
    ocean_sweeps: 6,
};
/// Table 1.3: GE 512 × 512, Ocean 258 × 258 (256 interior points a side).
const FULL: Size = Size {
    ge_n: 512,
    ocean_n: 256,
    ocean_sweeps: 40,
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
}

fn workloads(s: &Size) -> Vec<Workload> {
    let ocean = |partition: &str| {
        format!(
            "kind = \"ocean\"\nthreads = 64\nn = {}\ngrids = 1\nmax_sweeps = {}\npartition = \"{partition}\"\ninit = \"parallel\"\n",
            s.ocean_n, s.ocean_sweeps
        )
    };
    vec![
        Workload {
            id: "ge",
            label: "GE",
            table: format!(
                "kind = \"ge\"\nthreads = 64\nn = {}\ninit = \"parallel\"\npivoting = false\n",
                s.ge_n
            ),
        },
        Workload {
            id: "ocean-contig",
            label: "Ocean-Contig",
            table: ocean("contiguous"),
        },
        Workload {
            id: "ocean-noncontig",
            label: "Ocean-Non-Contig",
            table: ocean("non-contiguous"),
        },
    ]
}

fn config(w: &Workload, placement: &str, extra: &str) -> String {
    format!(
        "# numasim repro talbot: {label}, {placement}\n\
         machine = \"talbot64\"\nseed = 1\nmode = \"timing\"\nphase_instructions = 1000000\n\n\
         [workload]\n{table}\n[placement]\npolicy = \"{placement}\"\npage_bytes = 8192\n\n\
         # Table 1.1: CPI 1.0, 8 KiB direct-mapped FLC; Table 1.2 at a 10 ns controller cycle.\n\
         [timing]\nbase_cpi = 1.0\nl1_bytes = 8192\nl1_ways = 1\nnode_controller_cycle_ns = 10.0\n{extra}",
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
        "GE, Ocean-Contig, Ocean-Non-Contig on talbot64: first-touch vs round-robin, no/basic/reactive proxies, infinite and 8-read buffers (Figs. 1.5-1.10, Table 1.4)"
    }

    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let size = if ctx.options.quick { &QUICK } else { &FULL };
        let mut out = Vec::new();
        for w in workloads(size) {
            // runs[placement][setup]
            let mut runs = [[Run::default(); 4]; 2];
            for (pi, (pid, policy)) in PLACEMENTS.iter().enumerate() {
                for (si, (_, sid, extra)) in SETUPS.iter().enumerate() {
                    let v = ctx.run_experiment(&format!("{}-{pid}-{sid}", w.id), &config(&w, policy, extra))?;
                    runs[pi][si] = read(&v);
                }
            }
            let (ft, rr) = (&runs[0], &runs[1]);
            let l = w.label;
            let (inf, basic, fin, reactive) = (0, 1, 2, 3);
            match w.id {
                "ge" => {
                    out.push(cmp(
                        "Fig. 1.5",
                        format!("{l}: round-robin speedup over first-touch, infinite buffers"),
                        "%",
                        Some(7.3),
                        gain(ft[inf].time, rr[inf].time),
                        Expect::Above(0.0),
                    ));
                    for (p, name) in [(ft, "first-touch"), (rr, "round-robin")] {
                        out.push(cmp(
                            "Fig. 1.5",
                            format!("{l}: basic proxies speedup, {name}, infinite buffers"),
                            "%",
                            Some(27.0),
                            gain(p[inf].time, p[basic].time),
                            Expect::Above(0.0),
                        ));
                    }
                    out.push(cmp(
                        "Fig. 1.6",
                        format!("{l}: messages with basic proxies vs none, first-touch, infinite"),
                        "%",
                        Some(17.0),
                        change(ft[inf].messages, ft[basic].messages),
                        Expect::Above(0.0),
                    ));
                    out.push(cmp(
                        "Fig. 1.7",
                        format!("{l}: remote read response with basic proxies vs none, first-touch, infinite"),
                        "%",
                        Some(-90.0),
                        change(ft[inf].remote_read_ns, ft[basic].remote_read_ns),
                        Expect::Below(0.0),
                    ));
                    out.push(cmp(
                        "Fig. 1.8",
                        format!("{l}: round-robin speedup over first-touch, finite buffers"),
                        "%",
                        Some(1.2),
                        gain(ft[fin].time, rr[fin].time),
                        Expect::None,
                    ));
                    out.push(cmp(
                        "§1.5.2",
                        format!("{l}: reactive proxies speedup, first-touch, finite buffers"),
                        "%",
                        Some(22.2),
                        gain(ft[fin].time, ft[reactive].time),
                        Expect::Above(0.0),
                    ));
                    out.push(cmp(
                        "Fig. 1.9",
                        format!("{l}: messages with reactive proxies vs none, first-touch, finite"),
                        "%",
                        None,
                        change(ft[fin].messages, ft[reactive].messages),
                        Expect::Below(0.0),
                    ));
                    out.push(cmp(
                        "Table 1.4",
                        format!("{l}: mean input-buffer queueing, reactive vs none, first-touch, finite"),
                        "%",
                        None,
                        change(ft[fin].queueing, ft[reactive].queueing),
                        Expect::Above(0.0),
                    ));
                }
                "ocean-contig" => {
                    out.push(cmp(
                        "§1.5.1",
                        format!("{l}: round-robin slowdown vs first-touch, infinite buffers"),
                        "%",
                        Some(19.0),
                        -gain(ft[inf].time, rr[inf].time),
                        Expect::Above(0.0),
                    ));
                    out.push(cmp(
                        "Fig. 1.8",
                        format!("{l}: round-robin slowdown vs first-touch, finite buffers"),
                        "%",
                        None,
                        -gain(ft[fin].time, rr[fin].time),
                        Expect::Above(0.0),
                    ));
                }
                _ => {}
            }
            // §1.5.3: first-touch + reactive proxies never worse than either placement without
            // proxies (finite buffers): speedup over the better of the two.
            let best_plain = ft[fin].time.min(rr[fin].time);
            out.push(cmp(
                "§1.5.3",
                format!("{l}: first-touch + reactive vs best placement without proxies, finite"),
                "%",
                None,
                gain(best_plain, ft[reactive].time),
                Expect::Above(0.0),
            ));
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
