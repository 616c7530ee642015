use super::*;
use crate::mem::{Capacity, Memory, PlacementPolicy};
use numasim_trace::VecSource;

fn sim(llc: bool, threads: usize) -> (FunctionalSim, System) {
    let cfg = FunctionalConfig {
        phase_instructions: 100,
        quantum_instructions: 10,
        llc: llc.then(|| vec![(4096, 4), (4096, 4)]),
        page_bytes: 4096,
        observer_thread: false,
    };
    let placement = Placement::new(
        PlacementPolicy::FirstTouch,
        vec![Capacity::Pages(1 << 20); 2],
        vec![vec![0, 1], vec![1, 0]],
    );
    let system = FunctionalSim::system(&cfg, 2, placement).unwrap();
    (
        FunctionalSim::new(&cfg, 2, 2, (0..threads).map(|t| t % 2).collect()),
        system,
    )
}

#[test]
fn first_touch_goes_to_the_earliest_toucher_by_instruction_count() {
    // Thread 1 touches page 0x5000 at instr 5, thread 0 at instr 50: thread 1's socket wins.
    let streams = vec![vec![Access::read(50, 0x5000, 8)], vec![Access::read(5, 0x5000, 8)]];
    let (mut s, mut sys) = sim(false, 2);
    let mut src = VecSource::new(streams);
    let c = s.run_phase(&mut sys, &mut src).unwrap().unwrap();
    assert_eq!(sys.memory.home, vec![1]);
    assert_eq!(c.demand, vec![0, 1, 0, 1]); // socket 0 → node 1, socket 1 → node 1
    assert!(s.run_phase(&mut sys, &mut src).unwrap().is_none());
}

#[test]
fn phases_split_by_instruction_count() {
    let streams = vec![(0..30).map(|i| Access::read(i * 10 + 1, i * 4096, 8)).collect()];
    let cfg = FunctionalConfig {
        phase_instructions: 100,
        quantum_instructions: 7,
        llc: None,
        page_bytes: 4096,
        observer_thread: false,
    };
    let placement = Placement::new(PlacementPolicy::FirstTouch, vec![Capacity::Pages(100)], vec![vec![0]]);
    let (mut s, mut sys) = (
        FunctionalSim::new(&cfg, 1, 1, vec![0]),
        FunctionalSim::system(&cfg, 1, placement).unwrap(),
    );
    let mut src = VecSource::new(streams);
    let mut per_phase = vec![];
    while let Some(c) = s.run_phase(&mut sys, &mut src).unwrap() {
        per_phase.push((c.accesses, c.instructions));
    }
    assert_eq!(per_phase, vec![(10, 100), (10, 100), (10, 91)]);
}

#[test]
fn llc_filters_repeated_lines_and_writes_back_dirty_victims() {
    // 4 KiB, 4 ways, 64 B lines: 16 sets. Write 100 distinct lines, then re-read the last one.
    let mut stream: Vec<Access> = (0..100).map(|i| Access::write(1, i * 64, 8)).collect();
    stream.push(Access::read(2, 99 * 64, 8));
    let (mut s, mut sys) = sim(true, 1);
    let c = s
        .run_phase(&mut sys, &mut VecSource::new(vec![stream]))
        .unwrap()
        .unwrap();
    assert_eq!(c.llc_hits, 1);
    assert_eq!(c.llc_misses, 100);
    assert!(c.writebacks >= 100 - 64, "{}", c.writebacks);
    assert_eq!(c.writeback_to.iter().sum::<u64>(), c.writebacks);
}

#[test]
fn wrong_thread_count_is_an_error() {
    let (mut s, mut sys) = sim(false, 2);
    let err = s.run_phase(&mut sys, &mut VecSource::new(vec![vec![]])).err().unwrap();
    assert!(matches!(err, SimError::ThreadCount { .. }));
}

/// With the LLC filter off a quantum runs from one schedule; pages must still be mapped
/// in quantum order, thread by thread within a quantum, and the schedule's cap (flushing
/// it mid-quantum) must change nothing. Checked against that order replayed by hand.
#[test]
fn the_schedule_runs_accesses_in_quantum_then_thread_order() {
    let q = 10u64;
    let mut x = 7u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Thread 0 has more accesses in its first quantum than the schedule holds.
    let mut streams: Vec<Vec<Access>> = vec![(0..SCHEDULE_CAP as u64 + 500)
        .map(|i| Access::read(i / 4000, (next() % 5000) << 12, 8))
        .collect()];
    for _ in 1..3 {
        let mut instr = 0;
        streams.push(
            (0..3000)
                .map(|_| {
                    instr += next() % 7;
                    Access::write(instr, (next() % 5000) << 12, 8)
                })
                .collect(),
        );
    }
    let cfg = FunctionalConfig {
        phase_instructions: 1000,
        quantum_instructions: q,
        llc: None,
        page_bytes: 4096,
        observer_thread: false,
    };
    let placement = || {
        Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(1 << 20); 2],
            vec![vec![0, 1], vec![1, 0]],
        )
    };
    for min_row_bytes in [0, usize::MAX] {
        let mut s = FunctionalSim::new(&cfg, 2, 2, vec![0, 1, 0]);
        let mut sys = FunctionalSim::system(&cfg, 2, placement()).unwrap();
        s.schedule_min_row_bytes = min_row_bytes;
        let mut src = VecSource::new(streams.clone()).with_batch(777);
        let mut counts = vec![];
        while let Some(c) = s.run_phase(&mut sys, &mut src).unwrap() {
            counts.push(c.demand);
        }
        let mut order: Vec<(u64, usize, usize)> = streams
            .iter()
            .enumerate()
            .flat_map(|(t, st)| st.iter().enumerate().map(move |(i, a)| (a.instr / q, t, i)))
            .collect();
        order.sort_unstable();
        let mut m = Memory::new(4096, 2, placement());
        let mut demand = vec![0u64; 4];
        for &(_, t, i) in &order {
            let socket = [0, 1, 0][t];
            let (page, _) = m.touch(socket, streams[t][i].vaddr).unwrap();
            demand[socket * 2 + m.home_of(page)] += 1;
        }
        assert_eq!(sys.memory.table.pages(), m.table.pages());
        for id in 0..m.table.pages() as u32 {
            assert_eq!(sys.memory.table.vpage(id), m.table.vpage(id), "page id {id}");
        }
        assert_eq!(sys.memory.home, m.home);
        let total = counts.iter().fold(vec![0u64; 4], |mut acc, d| {
            acc.iter_mut().zip(d).for_each(|(a, b)| *a += b);
            acc
        });
        assert_eq!(total, demand);
    }
}

/// Everything the simulator reports, phase by phase, for comparing runs.
/// Per phase: demand matrix, write-back matrix, LLC hits, instructions, per-page counts.
type Fingerprint = Vec<(Vec<u64>, Vec<u64>, u64, u64, Vec<u32>)>;

fn fingerprint(streams: &[Vec<Access>], batch: usize, llc: bool, schedule: bool) -> Fingerprint {
    let (mut s, mut sys) = sim(llc, streams.len());
    if schedule {
        s.schedule_min_row_bytes = 0;
    }
    let mut src = VecSource::new(streams.to_vec()).with_batch(batch);
    let mut out = vec![];
    while let Some(c) = s.run_phase(&mut sys, &mut src).unwrap() {
        out.push((
            c.demand,
            c.writeback_to,
            c.llc_hits,
            c.instructions,
            sys.memory.pages.phase_counts.clone(),
        ));
        sys.memory.pages.end_phase();
    }
    out
}

proptest::proptest! {
    #[test]
    fn results_do_not_depend_on_how_sources_batch(
        raw in proptest::collection::vec(proptest::collection::vec((0u64..40, 0u64..64, proptest::bool::ANY), 0..300), 1..4),
        batch_a in 1usize..50,
        batch_b in 50usize..5000,
        llc in proptest::bool::ANY,
    ) {
        let streams: Vec<Vec<Access>> = raw
            .iter()
            .map(|s| {
                let mut instr = 0;
                s.iter()
                    .map(|&(step, page, w)| {
                        instr += step;
                        let vaddr = page * 4096 + (step % 64) * 64;
                        if w { Access::write(instr, vaddr, 8) } else { Access::read(instr, vaddr, 8) }
                    })
                    .collect()
            })
            .collect();
        // LLC off: thread by thread against the schedule, too.
        proptest::prop_assert_eq!(fingerprint(&streams, batch_a, llc, false), fingerprint(&streams, batch_b, llc, true));
    }
}

/// A source over streams whose region of interest starts at instruction `roi`.
struct WithRoi {
    inner: VecSource,
    roi: Option<u64>,
}

impl AccessSource for WithRoi {
    fn threads(&self) -> usize {
        self.inner.threads()
    }
    fn next_batch(&mut self, thread: usize, out: &mut Vec<Access>) -> Result<(), SourceError> {
        self.inner.next_batch(thread, out)
    }
    fn roi_start(&mut self) -> Result<Option<u64>, SourceError> {
        Ok(self.roi)
    }
}

/// Thread 0 writes pages 0-9 at instructions 1-10 (the set-up); from instruction 1000 both
/// threads read them, one every 10 instructions, 30 reads each.
fn set_up_then_shared() -> Vec<Vec<Access>> {
    let mut t0: Vec<Access> = (0..10).map(|i| Access::write(i + 1, i * 4096, 8)).collect();
    t0.extend((0..30).map(|i| Access::read(1000 + i * 10 + 1, (i % 10) * 4096, 8)));
    let t1 = (0..30)
        .map(|i| Access::read(1000 + i * 10 + 5, (i % 10) * 4096, 8))
        .collect();
    vec![t0, t1]
}

#[test]
fn measured_from_the_region_of_interest_the_set_up_places_pages_but_is_not_counted() {
    let (mut s, mut sys) = sim(false, 2);
    s.measure_from_roi();
    let mut src = WithRoi {
        inner: VecSource::new(set_up_then_shared()),
        roi: Some(1000),
    };
    let mut phases = vec![];
    while let Some(c) = s.run_phase(&mut sys, &mut src).unwrap() {
        phases.push((c.accesses, c.instructions, c.new_pages));
    }
    // Phases of 100 instructions count from 1000: three, ten reads of each thread in each, no
    // page new (the set-up placed them all, on thread 0's socket).
    assert_eq!(phases, vec![(20, 200, 0), (20, 200, 0), (20, 91 + 95, 0)]);
    assert_eq!(sys.memory.home, vec![0; 10]);
    let setup = s.setup().unwrap();
    assert_eq!(
        (
            setup.roi_start_instruction,
            setup.accesses,
            setup.llc_misses,
            setup.pages,
            setup.region_pages
        ),
        (1000, 10, 10, 10, 0)
    );
    assert_eq!(setup.instructions, 2 * 1000);
    // Per-thread and per-page totals are the region's only.
    assert_eq!(s.thread_totals()[0].accesses, 30);
    sys.memory.pages.end_phase();
    assert_eq!(
        sys.memory.pages.total.iter().sum::<u64>(),
        60,
        "the region's reads, not the set-up's writes"
    );
}

#[test]
fn measuring_from_a_region_the_source_does_not_declare_is_an_error() {
    let (mut s, mut sys) = sim(false, 2);
    s.measure_from_roi();
    let mut src = WithRoi {
        inner: VecSource::new(set_up_then_shared()),
        roi: None,
    };
    let err = s.run_phase(&mut sys, &mut src).err().unwrap();
    assert!(matches!(err, SimError::NoRegionOfInterest), "{err}");
    // Without measure_from_roi the same source is counted whole: the first phase is the set-up.
    let (mut s, mut sys) = sim(false, 2);
    let mut src = WithRoi {
        inner: VecSource::new(set_up_then_shared()),
        roi: Some(1000),
    };
    assert_eq!(s.run_phase(&mut sys, &mut src).unwrap().unwrap().accesses, 10);
}
