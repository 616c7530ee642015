//! Warnings about a finished run: numbers a reader could take at face value that the run
//! itself says are doubtful. They explain and suggest a fix; they never stop a run.

use super::config::Experiment;
use crate::driver::RunResults;

/// Page copies above this share of the run's own LLC misses (in cache lines) are a first-order
/// part of its memory traffic: the policy's moves, not the workload, then shape the result.
pub const HEAVY_MIGRATION_COPY_SHARE: f64 = 0.25;

/// A mean over fewer loads than this is printed as indicative only.
pub const FEW_SAMPLES: u64 = crate::timing::report::MIN_CLASS_LOADS;

/// The warnings of a run, one sentence or two each.
pub fn warnings(exp: &Experiment, r: &RunResults) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(heavy_migration(exp, r));
    out.extend(few_samples(r));
    out.extend(latency_floor(r));
    out.extend(many_phases(exp, r, MANY_PHASES));
    out
}

/// Phases above which a run says what its per-phase records cost. Each phase keeps a record
/// (accesses and misses by socket, class and node, migration, timing) for results.json and the
/// report: about 13 KB of JSON and 20 KB of memory a phase on a 16-socket machine
/// (docs/validation/README.md), so 10 000 phases are ~130 MB of results.
pub const MANY_PHASES: u64 = 10_000;

/// A run that recorded more than `limit` phases: their size, and how to record fewer.
fn many_phases(exp: &Experiment, r: &RunResults, limit: u64) -> Option<String> {
    let phases = r.phases.len() as u64;
    if phases <= limit {
        return None;
    }
    let bytes = serde_json::to_vec(&r.phases).map_or(0, |v| v.len());
    let longer = match exp.spec.phase_ns {
        Some(ns) => format!("--set phase_ns={}", ns.saturating_mul(10)),
        None => format!(
            "--set phase_instructions={}",
            exp.spec.phase_instructions.saturating_mul(10)
        ),
    };
    Some(format!(
        "this run recorded {phases} phases (more than {limit}): their records are {:.1} MB of results.json ({:.1} KB a phase) and were held in memory for the whole run; longer phases ({longer}) or `max_phases` record fewer",
        bytes as f64 / 1e6,
        bytes as f64 / 1e3 / phases as f64
    ))
}

/// Memory nodes whose `access_latency_ns` is below what the timing model can represent: an
/// unloaded miss walks the lookup path and an idle-bank DRAM access whatever the machine file
/// says, so those loads take longer than the file's latency. The run keeps going (a paper's
/// latency may be below the path the default core models, as on `talbot64`) and says so here
/// and in `timing.calibration.<node>.excess_ns`.
fn latency_floor(r: &RunResults) -> Vec<String> {
    let Some(t) = r.timing.as_ref() else {
        return Vec::new();
    };
    t.calibration
        .iter()
        .filter(|(_, c)| c.excess_ns > 0.0)
        .map(|(node, c)| {
            let floor = c.lookup_path_ns + c.dram_idle_access_ns;
            format!(
                "memory node {node}: access_latency_ns {:.1} is below what the model can represent ({floor:.1} ns: lookup path {:.1} + idle-bank DRAM access {:.1}), so its unloaded loads take {:.1} ns more than the machine says (timing.calibration.{node}.excess_ns); set access_latency_ns to at least {floor:.1}, or shorten the [timing] cache latencies or the DRAM timings",
                c.access_latency_ns, c.lookup_path_ns, c.dram_idle_access_ns, c.excess_ns
            )
        })
        .collect()
}

/// A policy whose page copies are large against the run's own traffic (StarNUMA's perfect
/// baseline at short phases moves a page as soon as another socket leads its accesses).
fn heavy_migration(exp: &Experiment, r: &RunResults) -> Option<String> {
    let m = &r.migration;
    let misses = r.totals.summary.counts.llc_misses;
    if m.total_moves == 0 || misses == 0 {
        return None;
    }
    let lines_per_page = (r.page_bytes / 64).max(1);
    let copied_lines = m.total_moves.saturating_mul(lines_per_page);
    let share = copied_lines as f64 / misses as f64;
    if share < HEAVY_MIGRATION_COPY_SHARE {
        return None;
    }
    let phases = r.totals.phases.max(1);
    let spec = &exp.spec;
    let (phase, longer) = match spec.phase_ns {
        Some(ns) => (format!("{ns} ns"), format!("--set phase_ns={}", ns.saturating_mul(10))),
        None => (
            format!("{} instructions per thread", spec.phase_instructions),
            format!(
                "--set phase_instructions={}",
                spec.phase_instructions.saturating_mul(10)
            ),
        ),
    };
    let limit = if exp.migration.params.contains_key("migration_limit_pages") {
        format!(
            ", or cap the moves per phase (--set migration.migration_limit_pages={})",
            (m.total_moves / phases / 10).max(1)
        )
    } else {
        String::new()
    };
    Some(format!(
        "migration policy {} moved {} pages in {phases} phases of {phase} ({} a phase); copying them moves {copied_lines} cache lines, {:.0} % of the run's own {misses} LLC misses, so page copies rather than the workload shape this run's time and traffic. Longer phases amortise a move over more accesses ({longer}){limit}.",
        m.policy,
        m.total_moves,
        m.total_moves / phases,
        100.0 * share
    ))
}

/// Means over few loads: the AMAT of an access class with fewer than [`FEW_SAMPLES`] loads.
fn few_samples(r: &RunResults) -> Option<String> {
    let t = r.timing.as_ref()?;
    let few: Vec<String> = t
        .amat_ns
        .by_class
        .iter()
        .filter(|(_, k)| k.count > 0 && k.count < FEW_SAMPLES)
        .map(|(c, k)| format!("{c} ({} loads)", k.count))
        .collect();
    if few.is_empty() {
        return None;
    }
    Some(format!(
        "the AMAT of {} is a mean of fewer than {FEW_SAMPLES} loads: indicative only (a longer run, or more phases, gives more)",
        few.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXP: &str = "machine = \"starnuma16-pool\"\nseed = 7\nphase_instructions = 2000\n\
        [workload]\nkind = \"synthetic\"\nthreads = 16\npattern = \"uniform\"\naccesses_per_thread = 4000\n";

    fn run(text: &str) -> (Experiment, RunResults) {
        let exp = Experiment::from_source(numasim_config::Source::from_text("e.toml", text), "e").unwrap();
        let r = super::super::simulate(&exp, &mut |_| {}).unwrap().1;
        (exp, r)
    }

    #[test]
    fn the_perfect_baseline_at_short_phases_is_warned_about_with_its_numbers_and_the_fix() {
        let (exp, r) = run(&format!("{EXP}[migration]\npolicy = \"perfect-baseline\"\n"));
        let lines = r.migration.total_moves * 64;
        assert!(lines as f64 >= HEAVY_MIGRATION_COPY_SHARE * r.totals.summary.counts.llc_misses as f64);
        let w = warnings(&exp, &r);
        let heavy = w
            .iter()
            .find(|w| w.contains("perfect-baseline"))
            .expect("a migration warning");
        assert!(
            heavy.contains(&format!("moved {} pages", r.migration.total_moves)),
            "{heavy}"
        );
        assert!(heavy.contains(&format!("{lines} cache lines")), "{heavy}");
        assert!(heavy.contains("--set phase_instructions=20000"), "{heavy}");
        assert!(heavy.contains("migration.migration_limit_pages"), "{heavy}");
        // Without migration, nothing to say.
        let (exp, r) = run(EXP);
        assert!(warnings(&exp, &r).is_empty());
    }

    #[test]
    fn a_latency_below_the_models_floor_is_warned_about_with_its_numbers() {
        // The pool's 10 ns cannot hold the lookup path and a DRAM access.
        let low = format!(
            "mode = \"timing\"\n{}",
            EXP.replace(
                "machine = \"starnuma16-pool\"",
                "machine = { base = \"starnuma16-pool\", memory.pool.access_latency_ns = 10.0 }"
            )
        );
        let (exp, r) = run(&low);
        let c = &r.timing.as_ref().unwrap().calibration["pool"];
        assert!(c.excess_ns > 0.0, "{c:?}");
        let w = warnings(&exp, &r);
        let floor = w
            .iter()
            .find(|w| w.contains("memory node pool"))
            .unwrap_or_else(|| panic!("a floor warning: {w:?}"));
        assert!(floor.contains("access_latency_ns 10.0"), "{floor}");
        assert!(floor.contains(&format!("{:.1} ns more", c.excess_ns)), "{floor}");
        assert!(floor.contains("timing.calibration.pool.excess_ns"), "{floor}");
        // The presets' own latencies are above the floor: nothing to say about them.
        let (exp, r) = run(&format!("mode = \"timing\"\n{EXP}"));
        assert!(!warnings(&exp, &r).iter().any(|w| w.contains("memory node")));
    }

    #[test]
    fn a_run_of_many_phases_says_what_they_cost() {
        let (exp, r) = run(EXP);
        let n = r.phases.len() as u64;
        assert!(n >= 2, "{n} phases");
        assert_eq!(many_phases(&exp, &r, n), None, "at the limit: nothing to say");
        let w = many_phases(&exp, &r, n - 1).expect("above the limit: a warning");
        assert!(w.contains(&format!("recorded {n} phases (more than {})", n - 1)), "{w}");
        assert!(
            w.contains("--set phase_instructions=20000") && w.contains("max_phases"),
            "{w}"
        );
        let bytes = serde_json::to_vec(&r.phases).unwrap().len();
        assert!(
            w.contains(&format!("{:.1} KB a phase", bytes as f64 / 1e3 / n as f64)),
            "{w}"
        );
        assert!(!warnings(&exp, &r).iter().any(|w| w.contains("phases (more than")));
    }

    #[test]
    fn means_over_few_loads_say_so() {
        let (exp, r) = run(&format!(
            "mode = \"timing\"\n{}",
            EXP.replace("accesses_per_thread = 4000", "accesses_per_thread = 300")
        ));
        let t = r.timing.as_ref().unwrap();
        let few: Vec<&String> = t
            .amat_ns
            .by_class
            .iter()
            .filter(|(_, k)| k.count > 0 && k.count < FEW_SAMPLES)
            .map(|(c, _)| c)
            .collect();
        let w = warnings(&exp, &r);
        match few.first() {
            Some(c) => assert!(
                w.iter()
                    .any(|w| w.contains("fewer than 100 loads") && w.contains(c.as_str())),
                "{w:?}"
            ),
            None => panic!("want a class with few loads: {:?}", t.amat_ns.by_class.keys()),
        }
    }
}
