//! Zaourar et al., heterogeneous NUMA case studies (`heterogeneous-numa-case-studies.txt`):
//! the Neoverse V1 mesh of §3–4 on numasim's mesh model (`numasim::timing::mesh_sim`).
//!
//! Fig. 2: STREAM triad, 32 threads, on the 2-quadrant subset, N1/N2 × L0/L2. Fig. 3: STREAM
//! triad, 16 threads on node 0, buffer bound to node 0, 1 or 3, on the HBM2 machine. Fig. 4/5:
//! the DDR4 variant with 64 threads under Configuration 1 (no NUMA, interleaved), 2 (NUMA +
//! cache groups) and 3 (NUMA, no cache groups), on a balanced program (STREAM), a balanced
//! shared-data program (uniform random over one shared region), the Freqmine-like `freqmine`
//! (balanced: every structure first-touched by its builder, every tree read by every thread)
//! and an unbalanced one (the same
//! region allocated and initialised by the main thread, the situation the paper gives for
//! Barnes and FMM); `barnes` and `fmm` themselves run too when the workload registry has them,
//! and the full study adds the WaLBerla-style `lbm` sweep.
//!
//! Why these runs do not go through `numasim run`: the mesh is timed by its own driver (see
//! `mesh_sim`'s docs), so each run's inputs are written to `configs/<id>.toml` as a record
//! (machine, edits, workload, core parameters) and its outputs to `runs/<id>/results.json`,
//! and `report.md` lists every run's mesh outputs. `--quick` shrinks the arrays and, so that
//! the caches still matter at that size, the SLC slices and the private caches (both from
//! 1 MiB to 64 KiB, every other parameter as the preset); it is checked on directions only.

use crate::{cmp, Comparison, Expect, ReproError, Study, StudyContext};
use numasim::timing::mesh_sim::{MeshCoreParams, MeshResults, MeshSim};
use numasim_machine::Machine;
use std::fmt::Write as _;

pub struct Zaourar;

/// Sizes of one study run.
struct Size {
    /// Bytes of each STREAM array (the paper: 10 M doubles).
    stream_array_bytes: u64,
    /// Shared region of the Fig. 4/5 random-access programs, and accesses per thread.
    region_bytes: u64,
    region_accesses: u64,
    /// The SLC slice size the machine is given (the presets' 1 MiB, or smaller in --quick).
    slice_bytes: u64,
    /// Transactions of the Freqmine-like program.
    freqmine_transactions: i64,
}

const FULL: Size = Size {
    stream_array_bytes: 80_000_000,
    region_bytes: 24 << 20,
    region_accesses: 400_000,
    slice_bytes: 1 << 20,
    freqmine_transactions: 100_000,
};

const QUICK: Size = Size {
    stream_array_bytes: 1 << 20,
    region_bytes: 3 << 19,
    region_accesses: 12_000,
    slice_bytes: 64 << 10,
    freqmine_transactions: 5_000,
};

/// One mesh configuration: which preset, and its NUMA / cache-group / link settings.
#[derive(Clone, Copy)]
struct Config {
    preset: &'static str,
    numa: bool,
    cache_groups: bool,
    /// None: the preset's links; Some(true): one shared link (L0); Some(false): 2 per VNET (L2).
    l0: Option<bool>,
    /// The preset's router buffers with credit flow control (false: unbounded buffers).
    credits: bool,
    /// Requests without a free tracker wait in the network (`tracker_wait_in_network`), not
    /// at their source.
    wait_in_network: bool,
}

/// The preset with the configuration's edits (so the validator sees what runs), as text.
fn machine_text(c: Config, size: &Size) -> Result<String, ReproError> {
    let fail = |message: String| ReproError::Results {
        id: c.preset.into(),
        message,
    };
    let text = numasim_machine::presets::get(c.preset).ok_or_else(|| fail("no such preset".into()))?;
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| fail(e.to_string()))?;
    edit_machine(&mut table, c, size);
    toml::to_string(&table).map_err(|e| fail(e.to_string()))
}

/// `key = value` in `t` when `t` has `key`.
fn replace(t: &mut toml::Table, key: &str, value: impl Into<toml::Value>) {
    if let Some(v) = t.get_mut(key) {
        *v = value.into();
    }
}

/// The configuration's edits, in every table of the machine that has the key: the mesh's
/// NUMA, cache groups, links, router buffers and home-node retry; the SLC slices and each
/// socket's LLC (8 home nodes × 2 slices in every preset quadrant).
fn edit_machine(t: &mut toml::Table, c: Config, size: &Size) {
    let slices_per_quadrant = 8 * 2;
    replace(t, "numa", c.numa);
    if t.contains_key("router_vcs_per_vnet") {
        if !c.credits {
            replace(t, "router_vcs_per_vnet", 0);
        }
        if c.wait_in_network {
            t.insert("tracker_wait_in_network".into(), true.into());
        }
    }
    // A request waiting in the network is not retried (the two exclude each other).
    if c.wait_in_network {
        replace(t, "home_node_retry", false);
    }
    replace(t, "cache_groups", c.cache_groups);
    replace(t, "slc_slice_bytes", size.slice_bytes as i64);
    replace(t, "llc_bytes", (size.slice_bytes * slices_per_quadrant) as i64);
    if t.contains_key("links_per_vnet") {
        match c.l0 {
            Some(true) => {
                replace(t, "links_per_vnet", 1);
                t.insert("shared_link".into(), true.into());
            }
            Some(false) => replace(t, "links_per_vnet", 2),
            None => {}
        }
    }
    for (_, v) in t.iter_mut() {
        match v {
            toml::Value::Table(inner) => edit_machine(inner, c, size),
            toml::Value::Array(items) => {
                for inner in items.iter_mut().filter_map(toml::Value::as_table_mut) {
                    edit_machine(inner, c, size);
                }
            }
            _ => {}
        }
    }
}

/// Cores of quadrant `q`, in order.
fn cores_of(m: &Machine, q: usize) -> Vec<usize> {
    let mesh = m.mesh.as_ref().expect("a mesh preset");
    let per = mesh.cores_per_request_node as usize;
    mesh.request_nodes_in[q]
        .iter()
        .flat_map(|&rn| (0..per).map(move |k| rn * per + k))
        .collect()
}

struct Run<'a> {
    id: String,
    config: Config,
    workload: &'a str,
    params: toml::Table,
    cores: Vec<usize>,
    membind: Option<usize>,
    first_touch_by: Option<usize>,
    /// Instructions between the driver's global barriers (0: none).
    phase_instructions: u64,
    /// Fig. 6: a stream built here instead of `workload`'s generator, 64 KiB pages, ranges
    /// bound to nodes.
    copy: Option<PageCopy>,
    /// Misses in flight per core, when not the default.
    mshrs: Option<usize>,
}

impl<'a> Run<'a> {
    /// A run of `workload` on `config` with every other setting at its default (first touch,
    /// no phases, the workload's own generator, the default misses in flight).
    fn new(id: String, config: Config, workload: &'a str, params: toml::Table, cores: Vec<usize>) -> Run<'a> {
        Run {
            id,
            config,
            workload,
            params,
            cores,
            membind: None,
            first_touch_by: None,
            phase_instructions: 0,
            copy: None,
            mshrs: None,
        }
    }
}

/// One Fig. 6 batch: one thread copies `pages` pages of 64 KiB from `from_node` to node 0 in
/// loads and stores of `access_bytes` each.
#[derive(Clone)]
struct PageCopy {
    pages: u64,
    from_node: usize,
    access_bytes: u64,
}

const COPY_PAGE_BYTES: u64 = 64 << 10;
const COPY_SRC: u64 = 0x1_0000_0000;
const COPY_DST: u64 = 0x2_0000_0000;

impl PageCopy {
    fn stream(&self) -> numasim::trace::VecSource {
        let words = self.pages * COPY_PAGE_BYTES / self.access_bytes;
        let mut out = Vec::with_capacity(2 * words as usize);
        for w in 0..words {
            let off = w * self.access_bytes;
            // A load and a store, one instruction each (loop overhead folded in).
            out.push(numasim::trace::Access::read(
                2 * w + 1,
                COPY_SRC + off,
                self.access_bytes as u8,
            ));
            out.push(numasim::trace::Access::write(
                2 * w + 2,
                COPY_DST + off,
                self.access_bytes as u8,
            ));
        }
        numasim::trace::VecSource::new(vec![out])
    }
}

/// Whether the Fig. 4/5 runs keep the DDR4 preset's router buffers and credits. They do not:
/// what Fig. 4/5 measure (pages and DDR activity per node, SLC hit ratio, packet distance)
/// moved by at most 0.3 % with Garnet's 4 VCs per VNET (one exception: STREAM's SLC hit ratio
/// C2 / C1, 0.267 -> 0.342 in `--quick`, docs/validation/zaourar.md), while placing every packet of
/// their snoop-heavy programs under credits made the quick study 3x slower (30 -> 94 s).
const FIG45_CREDITS: bool = false;

/// Phase length of the Fig. 4/5 runs: the functional engine's default interleaving quantum
/// (`quantum_instructions`), so that no core runs more than about that many instructions
/// ahead of another and first touch follows program order across the runtime's barriers as
/// it does under `numasim run` (see `MeshSim::run`). Fig. 2/3 (STREAM bandwidth, each thread
/// touching its own block first) run without: a barrier drains every core's misses, which
/// would lower the bandwidth they measure.
const PHASE_INSTRUCTIONS: u64 = 1_000;

/// The record of a run's inputs written as `configs/<id>.toml`: the machine's edits in the
/// comment, then the workload and the core parameters.
fn record(size: &Size, r: &Run, p: &MeshCoreParams) -> Result<crate::config::Config, ReproError> {
    let c = r.config;
    let links = match c.l0 {
        Some(true) => "L0 (one shared link)",
        Some(false) => "L2 (2 per VNET)",
        None => "as the preset",
    };
    let vcs = if c.credits {
        "as the preset"
    } else {
        "unbounded (router_vcs_per_vnet = 0)"
    };
    let core = toml::Value::try_from(p).map_err(|e| ReproError::Results {
        id: r.id.clone(),
        message: e.to_string(),
    })?;
    let mut workload = toml::toml! { kind = (r.workload) };
    workload.extend(r.params.clone());
    Ok(crate::config::Config::new(
        format!(
            "numasim repro zaourar: run {} (timed by numasim::timing::mesh_sim, not `numasim run`)\n\
             machine: preset {} with numa = {}, cache_groups = {}, links {links}, slc_slice_bytes = {}, router buffers {vcs}",
            r.id, c.preset, c.numa, c.cache_groups, size.slice_bytes
        ),
        toml::toml! { seed = 1 },
    )
    .with(toml::Table::from_iter([
        ("workload".to_string(), toml::Value::Table(workload)),
        ("core".to_string(), core),
    ])))
}

/// Runs `r` on its own (it reads nothing another run writes, so a study's runs go in
/// parallel batches): writes its record to `configs/<id>.toml` and its outputs to
/// `runs/<id>/results.json` under `out`, and returns them with its section of `report.md`.
fn simulate(dir: &numasim_output::ManagedDir, size: &Size, r: &Run) -> Result<(MeshResults, String), ReproError> {
    let out = dir.path();
    let fail = |message: String| ReproError::Run {
        id: r.id.clone(),
        config: out.join("configs").join(format!("{}.toml", r.id)),
        message,
    };
    let text = machine_text(r.config, size)?;
    let m = Machine::from_text(&format!("<{} as edited by repro zaourar>", r.config.preset), &text)
        .map_err(|e| fail(e.to_string()))?;
    let mut p = MeshCoreParams::new(r.cores.clone());
    // The paper's private L2 is 1 MiB, the size of a slice: --quick scales both alike.
    p.private_bytes = size.slice_bytes;
    p.membind = r.membind;
    p.first_touch_by = r.first_touch_by;
    p.phase_instructions = r.phase_instructions;
    if let Some(m) = r.mshrs {
        p.mshrs = m;
    }
    if let Some(c) = &r.copy {
        p.page_bytes = COPY_PAGE_BYTES;
        let bytes = c.pages * COPY_PAGE_BYTES;
        p.bind = vec![(COPY_SRC, bytes, c.from_node), (COPY_DST, bytes, 0)];
    }
    let record = record(size, r, &p)?;
    crate::write_in(dir, &format!("configs/{}.toml", r.id), record.text().as_bytes())?;
    let mut src: Box<dyn numasim::trace::AccessSource> = match &r.copy {
        Some(c) => Box::new(c.stream()),
        None => numasim_workload::build(r.workload, r.params.clone(), 1).map_err(|e| fail(e.to_string()))?,
    };
    let sim = MeshSim::new(&m, p).map_err(|e| fail(e.to_string()))?;
    let res = sim.run(&mut *src).map_err(|e| fail(e.to_string()))?;
    let json = serde_json::json!({ "machine": m.name, "workload": r.workload, "mesh": &res });
    let text = serde_json::to_string_pretty(&json).unwrap_or_default();
    crate::write_in(dir, &format!("runs/{}/results.json", r.id), text.as_bytes())?;
    let mut section = String::new();
    describe(&r.id, &res, &mut section);
    Ok((res, section))
}

/// One run's outputs as a markdown section.
fn describe(id: &str, r: &MeshResults, out: &mut String) {
    let _ = writeln!(
        out,
        "## {id}\n\nsimulated {:.1} µs, {} accesses, DRAM {:.1} GB/s ({} reads, {} writes), \
         average packet distance {:.2} hops, link utilisation max {:.1} % mean {:.1} %, \
         {} phases, pages per node {:?}, mean tracker wait home {:.1} / controller {:.1} cycles, {} snoops, {} upgrades\n",
        r.sim_time_ns / 1000.0,
        r.accesses,
        r.dram_gbps,
        r.dram_reads,
        r.dram_writes,
        r.avg_packet_distance,
        100.0 * r.link_utilisation_max,
        100.0 * r.link_utilisation_mean,
        r.phases,
        r.pages_per_node,
        r.home_tracker_wait_cycles,
        r.controller_tracker_wait_cycles,
        r.snoops,
        r.upgrades
    );
    let _ = writeln!(
        out,
        "| VNET | packets | avg hops | latency (cycles) | queueing (cycles) | hops 0..8 |\n|---|---|---|---|---|---|"
    );
    for v in &r.vnets {
        let hist: Vec<String> = v.hop_histogram.iter().take(9).map(u64::to_string).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.1} | {:.1} | {} |",
            v.vnet,
            v.packets,
            v.avg_hops,
            v.avg_latency_cycles,
            v.avg_queueing_cycles,
            hist.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "\n| node | SLC lookups | SLC hit ratio | DRAM reads | DRAM writes |\n|---|---|---|---|---|"
    );
    for (s, c) in r.slc.iter().zip(&r.controllers) {
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {} | {} |",
            s.node, s.lookups, s.hit_ratio, c.reads, c.writes
        );
    }
    let _ = writeln!(
        out,
        "\ninter-node packets (row = source quadrant): {:?}\n",
        r.inter_node_packets
    );
}

fn table(pairs: &[(&str, toml::Value)]) -> toml::Table {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}
/// Fig. 3's run: STREAM triad on node 0's 16 cores with its buffer bound to `node`, on the
/// HBM2 mesh with NUMA and cache groups on; `mshrs` misses in flight per core when not the
/// default.
fn fig3_stream<'a>(
    id: String,
    config: Config,
    size: &Size,
    node0: &[usize],
    node: usize,
    mshrs: Option<usize>,
) -> Run<'a> {
    Run {
        membind: Some(node),
        mshrs,
        ..Run::new(id, config, "stream", stream(16, size, 1), node0.to_vec())
    }
}

/// Why a Fig. 3 point could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum Fig3Error {
    #[error(transparent)]
    Preset(#[from] ReproError),
    #[error(transparent)]
    Machine(#[from] numasim_machine::ConfigError),
    #[error("the preset has no mesh")]
    NoMesh,
    #[error(transparent)]
    Workload(#[from] numasim_workload::WorkloadError),
    #[error(transparent)]
    Mesh(#[from] numasim::timing::mesh_sim::MeshSimError),
}

/// One Fig. 3 point outside the study (for sensitivity maps): STREAM triad on node 0's 16
/// cores with its buffer bound to `node`, on the study's HBM2 machine at the quick or full
/// size with `edit` applied to its mesh, `mshrs` misses in flight per core. Returns the run's
/// outputs and its bandwidth as a share of the node's peak, %.
pub fn fig3_point(
    quick: bool,
    node: usize,
    mshrs: usize,
    edit: &dyn Fn(&mut numasim_machine::mesh::Mesh),
) -> Result<(MeshResults, f64), Fig3Error> {
    fig3_point_with(quick, node, edit, &|p: &mut MeshCoreParams| p.mshrs = mshrs)
}

/// [`fig3_point`] with the core-side parameters edited by `core` (after the study's own).
pub fn fig3_point_with(
    quick: bool,
    node: usize,
    edit: &dyn Fn(&mut numasim_machine::mesh::Mesh),
    core: &dyn Fn(&mut MeshCoreParams),
) -> Result<(MeshResults, f64), Fig3Error> {
    let size = if quick { &QUICK } else { &FULL };
    let text = machine_text(HBM_NUMA, size)?;
    let mut m = Machine::from_text("<neoverse-v1-mesh as edited for a Fig. 3 point>", &text)?;
    edit(m.mesh.as_mut().ok_or(Fig3Error::NoMesh)?);
    let mut p = MeshCoreParams::new(cores_of(&m, 0));
    p.private_bytes = size.slice_bytes;
    p.membind = Some(node);
    core(&mut p);
    let mut src = numasim_workload::build("stream", stream(16, size, 1), 1)?;
    let r = MeshSim::new(&m, p)?.run(&mut *src)?;
    let share = 100.0 * r.dram_gbps / peak_gbps(&m, &[node]);
    Ok((r, share))
}

/// The HBM2 mesh of Fig. 1(a) in NUMA mode with cache groups (Fig. 3 and Fig. 6).
const HBM_NUMA: Config = Config {
    preset: "neoverse-v1-mesh",
    numa: true,
    cache_groups: true,
    l0: None,
    credits: true,
    wait_in_network: false,
};

fn stream(threads: usize, size: &Size, iterations: i64) -> toml::Table {
    table(&[
        ("threads", toml::Value::Integer(threads as i64)),
        ("array_bytes", toml::Value::Integer(size.stream_array_bytes as i64)),
        ("kernel", toml::Value::String("triad".into())),
        ("iterations", toml::Value::Integer(iterations)),
    ])
}

fn uniform(threads: usize, size: &Size) -> toml::Table {
    table(&[
        ("threads", toml::Value::Integer(threads as i64)),
        ("pattern", toml::Value::String("uniform".into())),
        ("footprint_bytes", toml::Value::Integer(size.region_bytes as i64)),
        ("accesses_per_thread", toml::Value::Integer(size.region_accesses as i64)),
        ("write_fraction", toml::Value::Float(0.2)),
    ])
}

fn peak_gbps(m: &Machine, nodes: &[usize]) -> f64 {
    nodes
        .iter()
        .map(|&n| f64::from(m.memory_nodes[n].channels) * m.memory_nodes[n].dram.channel_peak_gbps())
        .sum()
}

impl Study for Zaourar {
    fn name(&self) -> &'static str {
        "zaourar"
    }
    fn paper(&self) -> &'static str {
        "heterogeneous-numa-case-studies.txt (Zaourar et al., NUMA case studies on a Neoverse V1 mesh)"
    }
    fn summary(&self) -> &'static str {
        "Neoverse V1 mesh: N1/N2 x L0/L2 (Fig. 2), remote buffer (Fig. 3), cache groups (Fig. 4/5), one-core page copies (Fig. 6)"
    }

    fn headlines(&self) -> &'static [crate::Headline] {
        crate::headlines::ZAOURAR
    }

    fn run(&self, ctx: &mut StudyContext) -> Result<Vec<Comparison>, ReproError> {
        let size = if ctx.options.quick { &QUICK } else { &FULL };
        let mut report = String::from("# numasim repro zaourar: mesh outputs of every run\n\n");
        let two = load("neoverse-v1-mesh-2q")?;
        let hbm = load("neoverse-v1-mesh")?;
        // Every run is specified first, then all of them go in one parallel batch, then the
        // comparisons read their results by index.
        let mut runs: Vec<Run> = Vec::new();
        let fig2 = plan_fig2(&mut runs, size, &two);
        let node0 = cores_of(&hbm, 0);
        let fig3 = plan_fig3(&mut runs, size, &node0);
        let fig45 = plan_fig45(&mut runs, size, ctx.options.quick);
        let pages = if ctx.options.quick { 16 } else { 256 };
        let fig6 = plan_fig6(&mut runs, pages, &node0);

        let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
        let out_dir = ctx.dir.clone();
        let mut rs = Vec::with_capacity(runs.len());
        for r in ctx.run_batch(&ids, |i| simulate(&out_dir, size, &runs[i])) {
            let (res, section) = r?;
            report.push_str(&section);
            rs.push(res);
        }

        let mut out = fig2_rows(&fig2, &rs, peak_gbps(&two, &[0, 1]));
        out.extend(fig3_rows(&hbm, &rs, fig3.0));
        out.extend(fig3_sensitivity_rows(&hbm, &rs, fig3.1, fig3.2));
        for &(label, first) in &fig45 {
            out.extend(fig45_rows(label, &rs[first..first + 3]));
        }
        out.extend(fig6_rows(&hbm, &rs, &fig6, pages));
        ctx.write("report.md", report.as_bytes())?;
        Ok(out)
    }
}

fn load(preset: &str) -> Result<Machine, ReproError> {
    Machine::load(preset).map_err(|e| ReproError::Results {
        id: preset.into(),
        message: e.to_string(),
    })
}

/// Fig. 3's buffer nodes.
const FIG3_NODES: [usize; 3] = [0, 1, 3];

/// Fig. 2's runs (2-quadrant subset, 32 threads over every core): (links, N, run index).
fn plan_fig2(runs: &mut Vec<Run<'static>>, size: &Size, two: &Machine) -> Vec<(&'static str, &'static str, usize)> {
    let all_cores: Vec<usize> = (0..two.mesh.as_ref().map_or(0, |m| m.cores())).collect();
    let mut fig2 = Vec::new();
    for (label, l0) in [("L0", true), ("L2", false)] {
        for (n, numa) in [("N1", false), ("N2", true)] {
            let id = format!("fig2-{}-{}", n.to_lowercase(), label.to_lowercase());
            fig2.push((label, n, runs.len()));
            runs.push(Run::new(
                id,
                Config {
                    preset: "neoverse-v1-mesh-2q",
                    numa,
                    cache_groups: numa,
                    l0: Some(l0),
                    credits: true,
                    wait_in_network: false,
                },
                "stream",
                stream(32, size, 1),
                all_cores.clone(),
            ));
        }
    }
    fig2
}

/// Fig. 3's runs (16 threads on node 0, buffer on node 0, 1, 3) and its two sensitivities:
/// the first run of each group.
fn plan_fig3(runs: &mut Vec<Run<'static>>, size: &Size, node0: &[usize]) -> (usize, usize, usize) {
    let fig3_first = runs.len();
    for node in FIG3_NODES {
        runs.push(fig3_stream(
            format!("fig3-buffer-node{node}"),
            HBM_NUMA,
            size,
            node0,
            node,
            None,
        ));
    }
    // Sensitivity (not the paper's setting, which it does not give): the same runs with 4
    // misses in flight per core instead of 16, so the cores, not DRAM, bound the bandwidth.
    let latency_bound_first = runs.len();
    for node in FIG3_NODES {
        let id = format!("fig3-4-misses-buffer-node{node}");
        runs.push(fig3_stream(id, HBM_NUMA, size, node0, node, Some(4)));
    }
    // Sensitivity (not CHI's protocol, which retries a request a home node cannot take):
    // requests without a free tracker wait in the destination router's buffer, holding a
    // VC there, so they back up the network behind them.
    let in_network = Config {
        wait_in_network: true,
        ..HBM_NUMA
    };
    let held_first = runs.len();
    for node in FIG3_NODES {
        let id = format!("fig3-network-wait-buffer-node{node}");
        runs.push(fig3_stream(id, in_network, size, node0, node, None));
    }
    (fig3_first, latency_bound_first, held_first)
}

/// Fig. 4/5's runs (DDR4 variant, 64 threads, Configurations 1-3): per program its label and
/// first run.
fn plan_fig45(runs: &mut Vec<Run<'static>>, size: &Size, quick: bool) -> Vec<(&'static str, usize)> {
    let cores64: Vec<usize> = (0..64).collect();
    let configs = [("c1", false, false), ("c2", true, true), ("c3", true, false)];
    let mut programs: Vec<(&str, &str, toml::Table, Option<usize>)> = vec![
        ("stream", "stream", stream(64, size, 2), None),
        ("uniform", "synthetic", uniform(64, size), None),
        ("unbalanced", "synthetic", uniform(64, size), Some(0)),
        (
            "freqmine",
            "freqmine",
            table(&[
                ("threads", toml::Value::Integer(64)),
                ("transactions", toml::Value::Integer(size.freqmine_transactions)),
            ]),
            None,
        ),
    ];
    // WaLBerla's uniform-grid sweep (64 z planes or more: one slab per thread at least);
    // full size only, it would take most of the --quick budget.
    if !quick {
        let t = table(&[
            ("threads", toml::Value::Integer(64)),
            ("nx", toml::Value::Integer(64)),
            ("ny", toml::Value::Integer(64)),
            ("nz", toml::Value::Integer(128)),
            ("timesteps", toml::Value::Integer(2)),
        ]);
        programs.push(("lbm", "lbm", t, None));
    }
    // The SPLASH-2 programs of §4.3, when this build has their generators.
    for name in ["barnes", "fmm"] {
        if numasim_workload::list().iter().any(|g| g.name == name) {
            let t = table(&[("threads", toml::Value::Integer(64))]);
            programs.push((name, name, t, None));
        }
    }
    let mut fig45 = Vec::new();
    for (label, kind, params, ftb) in programs {
        fig45.push((label, runs.len()));
        for (c, numa, groups) in configs {
            runs.push(Run {
                first_touch_by: ftb,
                phase_instructions: PHASE_INSTRUCTIONS,
                ..Run::new(
                    format!("fig45-{label}-{c}"),
                    Config {
                        preset: "neoverse-v1-mesh-ddr4",
                        numa,
                        cache_groups: groups,
                        l0: None,
                        // Unbounded router buffers: see FIG45_CREDITS.
                        credits: FIG45_CREDITS,
                        wait_in_network: false,
                    },
                    kind,
                    params.clone(),
                    cores64.clone(),
                )
            });
        }
    }
    fig45
}

/// Fig. 6's runs (one core copies pages from a near or far node): (method, pair) per run, the
/// first run's index.
fn plan_fig6(runs: &mut Vec<Run<'static>>, pages: u64, node0: &[usize]) -> (usize, Vec<(&'static str, &'static str)>) {
    let fig6_first = runs.len();
    let mut fig6_runs = Vec::new();
    for (pair, from_node) in [("near", 1usize), ("far", 3)] {
        for (method, access_bytes) in [("memcpy", 16u64), ("stream-copy", 32)] {
            fig6_runs.push((method, pair));
            runs.push(Run {
                copy: Some(PageCopy {
                    pages,
                    from_node,
                    access_bytes,
                }),
                ..Run::new(
                    format!("fig6-{method}-{pair}"),
                    HBM_NUMA,
                    "page-copy (built by repro zaourar)",
                    table(&[
                        ("pages", toml::Value::Integer(pages as i64)),
                        ("page_bytes", toml::Value::Integer(COPY_PAGE_BYTES as i64)),
                        ("from_node", toml::Value::Integer(from_node as i64)),
                        ("to_node", toml::Value::Integer(0)),
                        ("access_bytes", toml::Value::Integer(access_bytes as i64)),
                    ]),
                    vec![node0[0]],
                )
            });
        }
    }
    (fig6_first, fig6_runs)
}

/// Fig. 2's rows: bandwidth, hops and latency N2 / N1 with each link setting.
fn fig2_rows(fig2: &[(&str, &str, usize)], rs: &[MeshResults], peak2: f64) -> Vec<Comparison> {
    let mut out = Vec::new();
    let fig2: Vec<(&str, &str, &MeshResults)> = fig2.iter().map(|&(l, n, i)| (l, n, &rs[i])).collect();
    for pair in fig2.chunks(2) {
        let (label, _, n1) = &pair[0];
        let (_, _, n2) = &pair[1];
        for (n, r) in [("N1", n1), ("N2", n2)] {
            out.push(cmp(
                "Fig. 2a",
                format!("HBM2 bandwidth utilisation, {n} {label}"),
                "% of peak",
                None,
                100.0 * r.dram_gbps / peak2,
                Expect::None,
            ));
        }
        let ratio = n2.dram_gbps / n1.dram_gbps;
        // L0: "a great improvement" (no number: the default 5 % floor); L2: "no effect".
        out.push(if *label == "L0" {
            cmp(
                "Fig. 2a",
                format!("bandwidth N2 / N1, {label}"),
                "×",
                None,
                ratio,
                Expect::Above(1.0),
            )
            .headline("zaourar.fig2a.l0")
        } else {
            cmp(
                "Fig. 2a",
                format!("bandwidth N2 / N1, {label}"),
                "×",
                Some(1.0),
                ratio,
                Expect::None,
            )
            .headline("zaourar.fig2a.l2")
        });
        for v in [0usize, 3] {
            out.push(
                cmp(
                    "Fig. 2b",
                    format!("{} average hops N2 / N1, {label}", n1.vnets[v].vnet),
                    "×",
                    None,
                    n2.vnets[v].avg_hops / n1.vnets[v].avg_hops,
                    Expect::Below(1.0),
                )
                .headline("zaourar.fig2b.hops"),
            );
        }
        for v in [0usize, 2, 3] {
            out.push(
                cmp(
                    "Fig. 2c",
                    format!("{} packet latency N2 / N1, {label}", n1.vnets[v].vnet),
                    "×",
                    None,
                    n2.vnets[v].avg_latency_cycles / n1.vnets[v].avg_latency_cycles,
                    Expect::Below(1.0),
                )
                .headline("zaourar.fig2c.latency"),
            );
        }
    }
    out
}

/// A Fig. 3 group's runs (buffer on node 0, 1, 3) from its first index, each with its
/// bandwidth as a share of the buffer node's peak.
fn fig3_group<'r>(hbm: &Machine, rs: &'r [MeshResults], first: usize) -> Vec<(usize, &'r MeshResults, f64)> {
    FIG3_NODES
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            let r = &rs[first + k];
            (node, r, 100.0 * r.dram_gbps / peak_gbps(hbm, &[node]))
        })
        .collect()
}

/// Fig. 3's rows: bandwidth and REQ queueing with the buffer on node 0, 1 and 3.
fn fig3_rows(hbm: &Machine, rs: &[MeshResults], fig3_first: usize) -> Vec<Comparison> {
    let mut out = Vec::new();
    let mut fig3 = Vec::new();
    for ((node, r, share), (paper_share, paper_q)) in
        fig3_group(hbm, rs, fig3_first)
            .into_iter()
            .zip([(72.69, 8.0), (36.0, 221.0), (32.0, 258.0)])
    {
        out.push(
            cmp(
                "Fig. 3a",
                format!("HBM2 bandwidth, buffer on node {node}"),
                "% of node peak",
                Some(paper_share),
                share,
                Expect::None,
            )
            .headline(match node {
                0 => "zaourar.fig3a.node0",
                1 => "zaourar.fig3a.node1",
                _ => "zaourar.fig3a.node3",
            }),
        );
        out.push(
            cmp(
                "Fig. 3b",
                format!("REQ queueing, buffer on node {node}"),
                "cycles",
                Some(paper_q),
                r.vnets[0].avg_queueing_cycles,
                Expect::None,
            )
            .headline("zaourar.fig3b.req_queueing"),
        );
        out.push(cmp(
            "Fig. 3b",
            format!("controller tracker wait, buffer on node {node}"),
            "cycles",
            None,
            r.controller_tracker_wait_cycles,
            Expect::None,
        ));
        // CHI's retry at the home nodes (the preset's `home_node_retry`): the mean wait
        // from a request's first arrival to its accepted one (not network queueing).
        out.push(cmp(
            "Fig. 3b",
            format!("home-node tracker wait (retry), buffer on node {node}"),
            "cycles",
            None,
            r.home_tracker_wait_cycles,
            Expect::None,
        ));
        out.push(cmp(
            "Fig. 3b",
            format!("requests refused by a full home node, buffer on node {node}"),
            "% of requests",
            None,
            100.0 * r.home_retries as f64 / r.vnets[0].packets.max(1) as f64,
            Expect::None,
        ));
        fig3.push((share, r));
    }
    for (a, b, paper) in [(1, 0, 36.0 / 72.69), (2, 1, 32.0 / 36.0)] {
        let (na, nb) = ([0, 1, 3][a], [0, 1, 3][b]);
        out.push(cmp(
            "Fig. 3a",
            format!("bandwidth node {na} / node {nb} buffer"),
            "×",
            Some(paper),
            fig3[a].0 / fig3[b].0,
            Expect::Below(1.0),
        ));
    }
    // The paper's direction: a remote buffer queues requests longer (221 − 8 cycles).
    out.push(
        cmp(
            "Fig. 3b",
            "REQ queueing, node 1 minus node 0 buffer",
            "cycles",
            Some(213.0),
            fig3[1].1.vnets[0].avg_queueing_cycles - fig3[0].1.vnets[0].avg_queueing_cycles,
            Expect::Above(0.0),
        )
        .headline("zaourar.fig3b.req_queueing"),
    );
    out
}

/// The Fig. 3 sensitivities' rows: 4 misses in flight per core; requests waiting in the network.
fn fig3_sensitivity_rows(
    hbm: &Machine,
    rs: &[MeshResults],
    latency_bound_first: usize,
    held_first: usize,
) -> Vec<Comparison> {
    let mut out = Vec::new();
    let mut latency_bound = Vec::new();
    for (node, _, share) in fig3_group(hbm, rs, latency_bound_first) {
        latency_bound.push(share);
        out.push(cmp(
            "Fig. 3a",
            format!("4 misses in flight per core: HBM2 bandwidth, buffer on node {node}"),
            "% of node peak",
            None,
            latency_bound[latency_bound.len() - 1],
            Expect::None,
        ));
    }
    out.push(cmp(
        "Fig. 3a",
        "4 misses in flight per core: bandwidth node 1 / node 0 buffer",
        "×",
        Some(36.0 / 72.69),
        latency_bound[1] / latency_bound[0],
        Expect::Below(1.0),
    ));
    // The requests-wait-in-the-network sensitivity runs.
    let mut held = Vec::new();
    for (node, r, share) in fig3_group(hbm, rs, held_first) {
        out.push(cmp(
            "Fig. 3a",
            format!("requests wait in the network: HBM2 bandwidth, buffer on node {node}"),
            "% of node peak",
            None,
            share,
            Expect::None,
        ));
        out.push(cmp(
            "Fig. 3b",
            format!("requests wait in the network: REQ queueing, buffer on node {node}"),
            "cycles",
            None,
            r.vnets[0].avg_queueing_cycles,
            Expect::None,
        ));
        held.push(share);
    }
    out.push(cmp(
        "Fig. 3a",
        "requests wait in the network: bandwidth node 1 / node 0 buffer",
        "×",
        Some(36.0 / 72.69),
        held[1] / held[0],
        Expect::None,
    ));
    out
}

/// Fig. 4/5's rows of one program from its runs under Configurations 1-3.
fn fig45_rows(label: &str, rs: &[MeshResults]) -> Vec<Comparison> {
    let mut out = Vec::new();
    let hit = |r: &MeshResults| {
        let (h, l) = r.slc.iter().fold((0, 0), |(h, l), s| (h + s.hits, l + s.lookups));
        h as f64 / l.max(1) as f64
    };
    // Equal (both zero: no reuse at this size) counts as no change.
    let hit_ratio = if hit(&rs[0]) == 0.0 && hit(&rs[1]) == 0.0 {
        1.0
    } else {
        hit(&rs[1]) / hit(&rs[0]).max(1e-9)
    };
    let activity = |r: &MeshResults| (r.dram_reads + r.dram_writes) as f64;
    let balanced = label != "unbalanced" && label != "barnes" && label != "fmm";
    // "Up to 32 %" is the paper's largest cut (its STREAM-like best case); every
    // program shortens its packets ("consistent no matter the tested application").
    out.push(
        cmp(
            "Fig. 4a",
            format!("{label}: average packet distance C2 / C1"),
            "×",
            (label == "stream").then_some(0.68),
            rs[1].avg_packet_distance / rs[0].avg_packet_distance,
            Expect::Below(1.0),
        )
        .headline("zaourar.fig4a.distance"),
    );
    // "Comparable or slightly higher values than those of Configuration 1".
    out.push(
        cmp(
            "Fig. 4a",
            format!("{label}: average packet distance C3 / C1"),
            "×",
            Some(1.0),
            rs[2].avg_packet_distance / rs[0].avg_packet_distance,
            Expect::None,
        )
        .band_relative(0.1)
        .headline("zaourar.fig4a.c3"),
    );
    let mut hit = cmp(
        "Fig. 4b",
        format!("{label}: SLC hit ratio C2 / C1"),
        "×",
        if balanced { None } else { Some(0.61) },
        hit_ratio,
        if balanced { Expect::None } else { Expect::Below(1.0) },
    );
    let mut ddr = cmp(
        "Fig. 5",
        format!("{label}: DDR activity C2 / C1"),
        "×",
        if balanced { None } else { Some(1.31) },
        activity(&rs[1]) / activity(&rs[0]).max(1.0),
        if balanced { Expect::None } else { Expect::Above(1.0) },
    );
    if !balanced {
        hit = hit.headline("zaourar.fig4b.hit_ratio");
        ddr = ddr.headline("zaourar.fig5.ddr_increase");
    }
    out.push(hit);
    out.push(ddr);
    let pages: u64 = rs[1].pages_per_node.iter().sum();
    out.push(cmp(
        "Fig. 5",
        format!("{label}: busiest node's share of pages, C2"),
        "%",
        None,
        100.0 * rs[1].pages_per_node.iter().copied().max().unwrap_or(0) as f64 / pages.max(1) as f64,
        Expect::None,
    ));
    out.push(fig5_busiest_row(label, balanced, &rs[1]));
    out
}

/// Fig. 5's busiest node's share of DDR activity under Configuration 2.
fn fig5_busiest_row(label: &str, balanced: bool, r: &MeshResults) -> Comparison {
    let activity = |r: &MeshResults| (r.dram_reads + r.dram_writes) as f64;
    let max_share = |r: &MeshResults| {
        let total = activity(r).max(1.0);
        r.controllers
            .iter()
            .map(|c| (c.reads + c.writes) as f64 / total)
            .fold(0.0, f64::max)
    };
    let busiest = cmp(
        "Fig. 5",
        format!("{label}: busiest node's share of DDR activity, C2"),
        "%",
        if balanced { None } else { Some(95.0) },
        100.0 * max_share(r),
        if balanced {
            Expect::Below(50.0)
        } else {
            Expect::Above(95.0)
        },
    );
    // "More than 95 %": any value past 95 is the paper's direction. The synthetic
    // unbalanced program has every page on the main thread's node by construction.
    match label {
        "unbalanced" => busiest.invariant(),
        "barnes" | "fmm" => busiest
            .min_effect(0.0)
            .band_points(5.0)
            .headline("zaourar.fig5.unbalanced"),
        "stream" => busiest.headline("zaourar.fig5.balanced"),
        _ => busiest,
    }
}

/// Fig. 6's rows: one core's copy bandwidth as a share of the quadrant boundary's peak.
fn fig6_rows(hbm: &Machine, rs: &[MeshResults], fig6: &(usize, Vec<(&str, &str)>), pages: u64) -> Vec<Comparison> {
    let mut out = Vec::new();
    let (fig6_first, fig6_runs) = (fig6.0, &fig6.1);
    let mesh = hbm.mesh.as_ref().expect("a mesh preset");
    // Peak: the DAT links across one quadrant boundary, one direction.
    let boundary_gbps = f64::from(mesh.rows / mesh.quadrant_rows)
        * f64::from(mesh.links_per_vnet)
        * f64::from(mesh.link_width_bytes)
        * mesh.freq_ghz;
    let mut bandwidths = Vec::new();
    for (k, &(method, pair)) in fig6_runs.iter().enumerate() {
        let r = &rs[fig6_first + k];
        let gbps = (pages * COPY_PAGE_BYTES) as f64 / r.sim_time_ns;
        out.push(
            cmp(
                "Fig. 6",
                format!("{method}, {pair} node, one core: share of peak interconnect bandwidth"),
                "%",
                None,
                100.0 * gbps / boundary_gbps,
                Expect::Below(50.0),
            )
            .headline("zaourar.fig6.share"),
        );
        bandwidths.push(gbps);
    }
    for (k, method) in ["memcpy", "stream-copy"].iter().enumerate() {
        out.push(cmp(
            "Fig. 6",
            format!("{method}: far / near copy bandwidth"),
            "×",
            None,
            bandwidths[2 + k] / bandwidths[k],
            Expect::Below(1.0),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edits land on the preset's own keys (mesh and every socket), add the keys that go
    /// with them, and the edited machine validates.
    #[test]
    fn machine_edits_follow_the_configuration() {
        let c = Config {
            l0: Some(true),
            wait_in_network: true,
            ..HBM_NUMA
        };
        let text = machine_text(c, &QUICK).unwrap();
        let t: toml::Table = text.parse().unwrap();
        let mesh = t["mesh"].as_table().unwrap();
        assert_eq!(mesh["links_per_vnet"].as_integer(), Some(1));
        assert_eq!(mesh["shared_link"].as_bool(), Some(true));
        assert_eq!(mesh["router_vcs_per_vnet"].as_integer(), Some(4));
        assert_eq!(mesh["tracker_wait_in_network"].as_bool(), Some(true));
        assert_eq!(mesh["home_node_retry"].as_bool(), Some(false));
        assert_eq!(mesh["slc_slice_bytes"].as_integer(), Some(64 << 10));
        for s in t["sockets"].as_array().unwrap() {
            assert_eq!(s["llc_bytes"].as_integer(), Some(16 * (64 << 10)));
        }
        let m = Machine::from_text("<test>", &text).unwrap();
        assert_eq!(m.mesh.as_ref().unwrap().links_per_vnet, 1);
        // Without the edits' keys in the preset, nothing is added: L2 only sets the count.
        let l2: toml::Table = machine_text(
            Config {
                l0: Some(false),
                credits: false,
                ..HBM_NUMA
            },
            &FULL,
        )
        .unwrap()
        .parse()
        .unwrap();
        assert_eq!(l2["mesh"]["links_per_vnet"].as_integer(), Some(2));
        assert_eq!(l2["mesh"]["router_vcs_per_vnet"].as_integer(), Some(0));
        assert!(l2["mesh"].get("shared_link").is_none() && l2["mesh"].get("tracker_wait_in_network").is_none());
    }

    /// gem5 CHI's throttle on retry and direct memory transfer on Fig. 3's quick machine: the
    /// throttle keeps a refused thread's later requests in the thread, so fewer are refused
    /// and the far buffer's tracker wait falls (measured 162 -> 74 cycles with both); DMT
    /// sends each read's data once (controller -> requester) instead of twice.
    #[test]
    fn gem5_chi_throttle_and_dmt_on_the_fig3_machine() {
        let point = |node: usize, on: bool| {
            let edit = |m: &mut numasim_machine::mesh::Mesh| {
                m.retry_throttle = on;
                m.direct_memory_transfer = on;
            };
            fig3_point(true, node, 16, &edit).unwrap().0
        };
        let (off, on) = (point(3, false), point(3, true));
        assert_eq!(off.retry_throttled, 0);
        assert!(on.retry_throttled > 0 && on.retry_throttle_wait_cycles > 0.0);
        assert!(
            on.home_tracker_wait_cycles < 0.7 * off.home_tracker_wait_cycles,
            "{} {}",
            on.home_tracker_wait_cycles,
            off.home_tracker_wait_cycles
        );
        assert!(on.home_retries < off.home_retries);
        assert!(
            on.direct_memory_reads > on.dram_reads / 2,
            "{} {}",
            on.direct_memory_reads,
            on.dram_reads
        );
        let dat_per_read = |r: &MeshResults| r.vnets[3].packets as f64 / r.dram_reads as f64;
        assert!(
            dat_per_read(&on) < 0.8 * dat_per_read(&off),
            "{} {}",
            dat_per_read(&on),
            dat_per_read(&off)
        );
    }

    /// A run's record parses and holds its workload and core parameters.
    #[test]
    fn a_record_is_a_table() {
        let r = Run::new("x".into(), HBM_NUMA, "stream", stream(16, &QUICK, 1), vec![0, 1]);
        let p = MeshCoreParams::new(r.cores.clone());
        let text = record(&QUICK, &r, &p).unwrap().text();
        assert!(text.starts_with("# numasim repro zaourar: run x"), "{text}");
        let t: toml::Table = text.parse().unwrap();
        assert_eq!(t["workload"]["kind"].as_str(), Some("stream"));
        assert_eq!(t["workload"]["threads"].as_integer(), Some(16));
        assert!(t["core"].as_table().is_some());
    }
}
