//! `starnuma` with `rules = "artifact"` against the StarNUMA artifact's trace profiler
//! (`mem_profile`, `512KBpage_pp_TH_eviction.cpp`): the same decisions, phase by phase, on two
//! StarNUMA-format traces written here.
//!
//! The recorded decisions (crates/numasim-cli/tests/fixtures/starnuma-artifact/, with the commands that made them
//! in its README) hold numasim to the artifact without the artifact; with
//! `STARNUMA_DECISIONS_PROFILER` naming a profiler built by `benches/starnuma-decisions.sh`, the
//! live artifact is run on the same traces too (skipped when unset).
//!
//! The traces keep the artifact's random draws from deciding anything: every region is either
//! private to one socket (its first home, its most-accessing socket and its victim destination
//! are that socket) or, when shared, shared by all 16 sockets (it goes to the pool whenever it is
//! hot) and afterwards only ever hot-and-wide, idle, or cold on one socket; hot regions' counts
//! differ (no ties in the artifact's sort).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

const THREADS: usize = 64;
const SOCKETS: usize = 16;
const PHASES: usize = 10;
const PHASE_INSTRUCTIONS: u64 = 1_000_000_000;
const MARKER: u64 = 0xc0ffee;
const REGION_BYTES: u64 = 512 << 10;
const BASE: u64 = 1 << 30;

/// The artifact's per-phase decisions: HI used, regions moved to the pool, regions moved to a
/// socket, entries of its eviction table (victims, plus one for a missing victim), missing victims.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decisions {
    phase: usize,
    hi: u64,
    pool: u64,
    socket: u64,
    evicted: u64,
    no_victim: u64,
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// What a region does in a phase.
#[derive(Clone, Copy)]
enum Act {
    Idle,
    /// `count` accesses from one socket.
    Private(usize, u64),
    /// `count` accesses spread over all sockets.
    Wide(u64),
}

/// The schedule of a trace: `wide` regions shared by all sockets, in each phase after their
/// first hot in `wide_hot` % of phases, idle in `wide_idle` %, else cold on one socket;
/// `private` ones each on one socket at a time. Hot and warm counts are `v * 100 + region`
/// (distinct; region < 100); cold counts stay below the initial LO.
fn schedule(t: &Trace) -> Vec<Vec<Act>> {
    let (seed, wide, private) = (t.seed, t.wide, t.private);
    let idle_until = t.wide_hot + t.wide_idle;
    let mut rng = Rng(seed);
    let regions = wide + private;
    assert!(regions < 100);
    let mut owner: Vec<usize> = (0..regions).map(|_| rng.below(SOCKETS as u64) as usize).collect();
    (0..PHASES)
        .map(|k| {
            (0..regions)
                .map(|r| {
                    let hot = (25 + rng.below(40)) * 100 + r as u64;
                    let warm = (2 + rng.below(14)) * 100 + r as u64;
                    let cold = 5 + rng.below(90);
                    let roll = rng.below(100);
                    if r < wide {
                        match (k, roll) {
                            (0, _) => Act::Wide(hot),
                            (_, x) if x < t.wide_hot => Act::Wide(hot),
                            (_, x) if x < idle_until => Act::Idle,
                            _ => Act::Private(rng.below(SOCKETS as u64) as usize, cold),
                        }
                    } else {
                        if k > 0 && rng.below(3) == 0 {
                            owner[r] = rng.below(SOCKETS as u64) as usize;
                        }
                        let s = owner[r];
                        match (k, roll) {
                            (0, 0..50) | (1.., 0..40) => Act::Private(s, hot),
                            (0, _) | (1.., 40..70) => Act::Private(s, warm),
                            (_, 70..90) => Act::Idle,
                            _ => Act::Private(s, cold),
                        }
                    }
                })
                .collect()
        })
        .collect()
}

/// Writes `memtrace_t<N>.out` for every thread (thread t runs on socket t / 4, as the artifact
/// assumes): each phase's accesses spread over its instruction window, a phase marker between
/// phases. Every region's first phase touches all its 128 pages.
fn write_trace(dir: &Path, plan: &[Vec<Act>]) {
    let mut per_thread: Vec<Vec<u8>> = vec![Vec::new(); THREADS];
    for (k, acts) in plan.iter().enumerate() {
        let mut recs: Vec<Vec<u64>> = vec![Vec::new(); THREADS];
        for (r, act) in acts.iter().enumerate() {
            let base = BASE + r as u64 * REGION_BYTES;
            let (sockets, count): (Vec<usize>, u64) = match *act {
                Act::Idle => continue,
                Act::Private(s, c) => (vec![s], c),
                Act::Wide(c) => ((0..SOCKETS).collect(), c),
            };
            for j in 0..count {
                let s = sockets[(j % sockets.len() as u64) as usize];
                let t = s * 4 + ((j / sockets.len() as u64) % 4) as usize;
                let addr = base + (j % 128) * 4096 + ((j / 128) % 64) * 64;
                recs[t].push(addr | u64::from(j % 3 == 0));
            }
        }
        for (t, addrs) in recs.iter().enumerate() {
            let start = k as u64 * PHASE_INSTRUCTIONS + 1;
            let step = (PHASE_INSTRUCTIONS - 2) / (addrs.len() as u64 + 1);
            for (i, &a) in addrs.iter().enumerate() {
                per_thread[t].extend_from_slice(&a.to_le_bytes());
                per_thread[t].extend_from_slice(&(start + i as u64 * step).to_le_bytes());
            }
            if k + 1 < plan.len() {
                per_thread[t].extend_from_slice(&MARKER.to_le_bytes());
                per_thread[t].extend_from_slice(&((k as u64 + 1) * PHASE_INSTRUCTIONS).to_le_bytes());
            }
        }
    }
    for (t, bytes) in per_thread.iter().enumerate() {
        let mut f = std::fs::File::create(dir.join(format!("memtrace_t{t}.out"))).unwrap();
        f.write_all(bytes).unwrap();
    }
}

/// A test trace: its name, seed, shared and private regions, how often a shared one is hot or
/// idle (%).
struct Trace {
    name: &'static str,
    seed: u64,
    wide: usize,
    private: usize,
    wide_hot: u64,
    wide_idle: u64,
}

/// `drift`: owners change, the pool fills and finds victims. `pressure`: more shared regions
/// than the pool holds, seldom cold, so the pool often has no victim.
const TRACES: [Trace; 2] = [
    Trace {
        name: "drift",
        seed: 1,
        wide: 10,
        private: 30,
        wide_hot: 45,
        wide_idle: 30,
    },
    Trace {
        name: "pressure",
        seed: 2,
        wide: 24,
        private: 30,
        wide_hot: 60,
        wide_idle: 38,
    },
];

fn trace_dir(t: &Trace) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write_trace(tmp.path(), &schedule(t));
    tmp
}

/// numasim's decisions: `starnuma` under `rules`, the constants the artifact was built
/// with (HI 2000, LO 100, a limit of 6 regions), every access counted (LLC off).
fn numasim_decisions(dir: &Path, rules: &str) -> Vec<Decisions> {
    let files: Vec<String> = (0..THREADS)
        .map(|t| format!("\"{}\"", dir.join(format!("memtrace_t{t}.out")).display()))
        .collect();
    let sockets: Vec<String> = (0..THREADS).map(|t| format!("\"s{}\"", t / 4)).collect();
    let toml = format!(
        "machine = \"starnuma16-pool\"\nseed = 1\nphase_instructions = {PHASE_INSTRUCTIONS}\n\
         [workload]\ntrace = [{}]\nformat = \"starnuma\"\n\
         [mapping]\npolicy = \"explicit\"\nsockets = [{}]\n\
         [placement]\npolicy = \"first-touch\"\n[llc]\nenabled = false\n\
         [migration]\npolicy = \"starnuma\"\nrules = \"{rules}\"\nhi_start = 2000\nlo_start = 100\n\
         migration_limit_pages = 768\n",
        files.join(", "),
        sockets.join(", ")
    );
    std::fs::write(dir.join("exp.toml"), toml).unwrap();
    common::ok(&common::numasim(&["run", "exp.toml", "-o", "res", "-q"], dir));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("res/results.json")).unwrap()).unwrap();
    v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = &p["migration"]["policy_state"];
            let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("phase {i}: no {k} in {s}"));
            Decisions {
                phase: i,
                hi: n("hi_threshold"),
                pool: n("pool_regions"),
                socket: n("migrated_regions") - n("pool_regions"),
                evicted: n("victim_regions") + n("no_victim"),
                no_victim: n("no_victim"),
            }
        })
        .collect()
}

/// Runs the artifact's profiler in `dir` and reads its decisions from its output.
fn artifact_decisions(profiler: &Path, dir: &Path) -> Vec<Decisions> {
    let out = std::process::Command::new(profiler)
        .current_dir(dir)
        .output()
        .expect("run the profiler");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<Decisions> = Vec::new();
    let num = |line: &str, after: &str| -> u64 {
        let rest = &line[line.find(after).unwrap() + after.len()..];
        rest.trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap()
    };
    for line in text.lines() {
        if line.starts_with("starting phase ") {
            let phase = num(line, "starting phase ") as usize;
            v.push(Decisions {
                phase,
                hi: 0,
                pool: 0,
                socket: 0,
                evicted: 0,
                no_victim: 0,
            });
        }
        let Some(d) = v.last_mut() else { continue };
        if line.starts_with("WARNING: needed to find eviction candidate") {
            d.no_victim += 1;
        } else if line.starts_with("reassign owners done") {
            d.hi = num(line, "migration_threshold:");
        } else if line.starts_with("CXLisland  migrations:") {
            d.socket = num(line, "(");
        } else if line.starts_with("Migration to CXL_node:") {
            d.pool = num(line, ":");
        }
    }
    for d in &mut v {
        let suffix = format!("_Phase{}", d.phase);
        let phase_dir = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir() && p.file_name().unwrap().to_string_lossy().ends_with(&suffix))
            .unwrap_or_else(|| panic!("no *{suffix} directory"));
        let table = std::fs::read_to_string(phase_dir.join("evicted_pages_table_CI.txt")).unwrap_or_default();
        d.evicted = table.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    }
    v
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/starnuma-artifact/{name}.csv"))
}

const HEADER: &str = "phase,hi,pool,socket,evicted,no_victim";

fn to_csv(v: &[Decisions]) -> String {
    let mut s = format!("{HEADER}\n");
    for d in v {
        s += &format!(
            "{},{},{},{},{},{}\n",
            d.phase, d.hi, d.pool, d.socket, d.evicted, d.no_victim
        );
    }
    s
}

fn from_csv(text: &str) -> Vec<Decisions> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && *l != HEADER)
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            Decisions {
                phase: f[0] as usize,
                hi: f[1],
                pool: f[2],
                socket: f[3],
                evicted: f[4],
                no_victim: f[5],
            }
        })
        .collect()
}

#[test]
fn artifact_rules_make_the_recorded_artifact_decisions_on_two_traces() {
    for t in &TRACES {
        let (name, dir) = (t.name, trace_dir(t));
        let recorded = from_csv(&std::fs::read_to_string(fixture_path(name)).unwrap());
        assert_eq!(recorded.len(), PHASES, "{name}: a decision row per phase");
        let ours = numasim_decisions(dir.path(), "artifact");
        assert_eq!(
            to_csv(&ours),
            to_csv(&recorded),
            "trace {name}: numasim (left) vs the artifact (right)"
        );
    }
}

#[test]
fn paper_rules_decide_otherwise_on_the_same_trace() {
    let t = &TRACES[0];
    let dir = trace_dir(t);
    let recorded = from_csv(&std::fs::read_to_string(fixture_path(t.name)).unwrap());
    assert_ne!(to_csv(&numasim_decisions(dir.path(), "paper")), to_csv(&recorded));
}

#[test]
fn the_recorded_decisions_exercise_every_rule() {
    let all: Vec<Decisions> = TRACES
        .iter()
        .flat_map(|t| from_csv(&std::fs::read_to_string(fixture_path(t.name)).unwrap()))
        .collect();
    let any = |f: &dyn Fn(&Decisions) -> bool| all.iter().any(f);
    assert!(any(&|d| d.pool > 0) && any(&|d| d.socket > 0), "pool and socket moves");
    assert!(any(&|d| d.evicted > d.no_victim), "a victim found");
    assert!(any(&|d| d.no_victim > 0), "a missing victim (overfill)");
    assert!(
        any(&|d| d.pool + d.socket + d.evicted - d.no_victim >= 6),
        "the limit of 6 regions reached"
    );
    assert!(all.windows(2).any(|w| w[1].phase > 0 && w[1].hi < w[0].hi), "HI decays");
}

/// The live artifact on the same traces (skips when `STARNUMA_DECISIONS_PROFILER` is unset);
/// with `NUMASIM_WRITE_FIXTURE=1` it rewrites the recorded decisions from the artifact's output.
#[test]
fn artifact_rules_match_the_live_artifact() {
    let Some(profiler) = std::env::var_os("STARNUMA_DECISIONS_PROFILER").map(PathBuf::from) else {
        eprintln!("SKIPPED: STARNUMA_DECISIONS_PROFILER is not set (benches/starnuma-decisions.sh builds it)");
        return;
    };
    for t in &TRACES {
        let (name, dir) = (t.name, trace_dir(t));
        let theirs = artifact_decisions(&profiler, dir.path());
        if std::env::var_os("NUMASIM_WRITE_FIXTURE").is_some() {
            let head = format!(
                "# Decisions of the StarNUMA artifact's profiler on trace `{name}` of \
                 crates/numasim-cli/tests/starnuma_artifact.rs; see README.md.\n"
            );
            std::fs::create_dir_all(fixture_path(name).parent().unwrap()).unwrap();
            std::fs::write(fixture_path(name), head + &to_csv(&theirs)).unwrap();
        }
        let ours = numasim_decisions(dir.path(), "artifact");
        assert_eq!(
            to_csv(&ours),
            to_csv(&theirs),
            "trace {name}: numasim (left) vs the artifact (right)"
        );
    }
}
