use super::*;
use crate::timing::dram::{AddressMap, DramConfig};
use numasim_machine::DramKind;

fn controller() -> MemoryController {
    let kind = DramKind::Ddr4_3200;
    let cfg = DramConfig {
        channels: 1,
        page_bytes: 4096,
        row_bytes: 8192,
        capacity_bytes: 8 << 30,
        refresh: false,
        closed_page: false,
        map: AddressMap::parse("RoBaRaCoCh").unwrap(),
        write_queue_high: 0,
        write_queue_low: 0,
    };
    MemoryController::new(&kind.timings(), 64.0 / kind.channel_peak_gbps(), &cfg)
}

/// Reads that alternate between two rows of one bank, all queued at once, decided by the
/// scheduler named `name`: (row hits, completion of the last read, ps).
fn alternating_rows(name: &str) -> (usize, u64) {
    let mut m = controller();
    // 16 banks of 128 lines per row: line `row * 16 * 128 + col` is row `row` of bank 0.
    let line = |row: u64, col: u64| row * 16 * 128 + col;
    let (a, b) = (m.place(line(1, 0)), m.place(line(2, 0)));
    assert!(a.bank == b.bank && a.row != b.row);
    let mut q = (by_name(Some(name)).unwrap().make)(QueueParams {
        capacity: 32,
        bypass_cap: None,
    });
    for i in 0..32u64 {
        let row = 1 + i % 2;
        q.push(&mut m, i, 0, line(row, i / 2), i);
    }
    let (mut hits, mut last) = (0, 0);
    let mut decided = 0;
    while let Some(d) = q.decide(&mut m, 0, 0, u64::MAX) {
        hits += usize::from(d.result.row_hit);
        last = last.max(d.result.done_ps);
        decided += 1;
    }
    assert_eq!(decided, 32, "{name} decides every read");
    (hits, last)
}

/// Swapped by name, the scheduler changes the result as it should: FR-FCFS serves each open
/// row's reads together (one row switch), FCFS switches rows at every read.
#[test]
fn a_scheduler_swapped_by_name_reorders_row_hits() {
    let (fr_hits, fr_done) = alternating_rows("fr-fcfs");
    let (fifo_hits, fifo_done) = alternating_rows("fcfs");
    assert_eq!(fifo_hits, 0, "every read of FCFS opens the other row");
    assert!(fr_hits >= 30, "FR-FCFS: {fr_hits} row hits of 32");
    // FCFS: every read after the first waits a full row cycle (tRAS + tRP) of the bank.
    let t = DramKind::Ddr4_3200.timings();
    let row_cycle_ps = ((t.t_ras_ns + t.t_rp_ns) * 1000.0) as u64;
    assert!(fifo_done >= 31 * row_cycle_ps, "FCFS done at {fifo_done} ps");
    assert!(fifo_done > 5 * fr_done, "FCFS {fifo_done} ps vs FR-FCFS {fr_done} ps");
}

#[test]
fn unknown_names_are_refused_with_the_known_ones() {
    assert_eq!(by_name(None).unwrap().name, "fr-fcfs");
    let e = by_name(Some("bliss")).unwrap_err();
    assert_eq!(e.known, ["fr-fcfs", "fcfs"]);
    assert_eq!(e.to_string(), "unknown DRAM scheduler `bliss` (known: fr-fcfs, fcfs)");
}

/// `[timing] dram_scheduler` is checked against the registry, naming the key.
#[test]
fn the_timing_key_selects_a_registered_scheduler() {
    use crate::timing::TimingSpec;
    let with = |name: &str| TimingSpec {
        dram_scheduler: Some(name.to_string()),
        ..TimingSpec::default()
    };
    assert!(with("fcfs").validate().is_ok());
    let (key, message) = with("frfcfs").validate().unwrap_err();
    assert_eq!(key, "dram_scheduler");
    assert!(message.contains("known: fr-fcfs, fcfs"), "{message}");
}
