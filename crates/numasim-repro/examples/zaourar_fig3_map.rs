//! Sensitivity map of Zaourar et al.'s Fig. 3 (STREAM triad on node 0, buffer on node 0 / 1 /
//! 3): bandwidth (% of the node's peak), REQ and DAT network queueing and the mean wait for a
//! home-node tracker, against the home node's tracker entries per slice, CHI's retry on or
//! off, misses in flight per core, the inter-quadrant link latency, the router buffers, and
//! gem5 CHI's direct memory transfer and throttle on retry. Prints markdown tables
//! (`scripts/zaourar-fig3-map.sh` runs it; `--full` for the paper's sizes, `--preset` for the
//! shipped machine's row only, `--chi` for the last table only).

use numasim_repro::zaourar::fig3_point_with;

/// gem5 CHI defaults the map switches (None: the preset's value).
#[derive(Clone, Copy, Default)]
struct Chi {
    dmt: Option<bool>,
    throttle: Option<bool>,
    /// Reads each memory controller tracks (gem5's SN-F: 256 TBEs, AbstractController's default).
    mc_trackers: Option<u32>,
    /// DRAM rows closed after each access (gem5's HBM_2000_4H_1x64: close_adaptive).
    closed_page: bool,
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--full");
    let nodes = [0usize, 1, 3];
    println!(
        "Fig. 3 sensitivity ({} size). Cells: bandwidth % of node peak / REQ queueing / \
         DAT queueing / home-tracker wait (NoC cycles), buffer on node 0 | 1 | 3; last column node 1 / node 0 bandwidth.\n",
        if quick { "quick" } else { "full" }
    );
    let row_with = |label: String, mshrs: usize, trackers: u32, retry: bool, iq: u32, vcs: u32, chi: Chi| {
        let mut cells = Vec::new();
        let mut shares = Vec::new();
        for &node in &nodes {
            let edit = |m: &mut numasim_machine::mesh::Mesh| {
                m.home_node_trackers = trackers;
                m.home_node_retry = retry && trackers > 0;
                m.inter_quadrant_link_cycles = iq;
                m.router_vcs_per_vnet = vcs;
                if let Some(dmt) = chi.dmt {
                    m.direct_memory_transfer = dmt;
                }
                if let Some(throttle) = chi.throttle {
                    m.retry_throttle = throttle && m.home_node_retry;
                }
                if let Some(n) = chi.mc_trackers {
                    m.controller_trackers = n;
                }
            };
            let core = |p: &mut numasim::timing::mesh_sim::MeshCoreParams| {
                p.mshrs = mshrs;
                p.closed_page = chi.closed_page;
            };
            match fig3_point_with(quick, node, &edit, &core) {
                Ok((r, share)) => {
                    let mut cell = format!(
                        "{share:.1} / {:.0} / {:.0} / {:.0}",
                        r.vnets[0].avg_queueing_cycles, r.vnets[3].avg_queueing_cycles, r.home_tracker_wait_cycles
                    );
                    if chi.throttle == Some(true) {
                        // The mean hold of a request the throttle held.
                        cell += &format!(" / {:.0}", r.retry_throttle_wait_cycles);
                    }
                    cells.push(cell);
                    shares.push(share);
                }
                Err(e) => {
                    eprintln!("{label}: {e}");
                    std::process::exit(1);
                }
            }
        }
        println!("| {label} | {} | {:.2} |", cells.join(" | "), shares[1] / shares[0]);
    };
    let row = |label: String, mshrs: usize, trackers: u32, retry: bool, iq: u32, vcs: u32| {
        row_with(label, mshrs, trackers, retry, iq, vcs, Chi::default())
    };
    let header = |what: &str| {
        println!("| {what} | node 0 | node 1 | node 3 | 1 / 0 |");
        println!("| --- | --- | --- | --- | --- |");
    };
    if std::env::args().any(|a| a == "--preset") {
        header("the preset (16 trackers per slice, retry on, 16 misses per core, 3-cycle links)");
        row("preset".into(), 16, 16, true, 3, 4);
        return;
    }
    let chi_section = || {
        header(
            "direct memory transfer (DMT) and throttle on retry (16 trackers per slice, retry on, 16 misses per core; with the throttle a fifth value: mean hold of a request the throttle held, NoC cycles)",
        );
        for iq in [3u32, 10, 30] {
            for (dmt, throttle) in [(false, false), (true, false), (false, true), (true, true)] {
                let label = format!(
                    "{iq}-cycle links, DMT {}, throttle {}",
                    if dmt { "on" } else { "off" },
                    if throttle { "on" } else { "off" }
                );
                let chi = Chi {
                    dmt: Some(dmt),
                    throttle: Some(throttle),
                    mc_trackers: None,
                    closed_page: false,
                };
                row_with(label, 16, 16, true, iq, 4, chi);
            }
        }
        let chi = Chi {
            dmt: Some(true),
            throttle: Some(true),
            mc_trackers: Some(256),
            closed_page: false,
        };
        row_with(
            "3-cycle links, DMT and throttle on, 256 controller trackers".into(),
            16,
            16,
            true,
            3,
            4,
            chi,
        );
        let chi = Chi {
            closed_page: true,
            ..Chi::default()
        };
        row_with(
            "3-cycle links, DRAM rows closed after each access".into(),
            16,
            16,
            true,
            3,
            4,
            chi,
        );
        let chi = Chi {
            dmt: Some(true),
            throttle: Some(true),
            mc_trackers: None,
            closed_page: true,
        };
        row_with(
            "3-cycle links, DMT and throttle on, DRAM rows closed after each access".into(),
            16,
            16,
            true,
            3,
            4,
            chi,
        );
    };
    if std::env::args().any(|a| a == "--chi") {
        chi_section();
        return;
    }
    header("home-node trackers per slice, retry (16 misses per core, 3-cycle inter-quadrant links)");
    for trackers in [0u32, 64, 16, 8, 4, 2] {
        for retry in [true, false] {
            if trackers == 0 && !retry {
                continue;
            }
            let label = if trackers == 0 {
                "unbounded".to_string()
            } else {
                format!("{trackers}, retry {}", if retry { "on" } else { "off" })
            };
            row(label, 16, trackers, retry, 3, 4);
        }
    }
    println!();
    header("misses in flight per core (16 trackers per slice, retry on, 3-cycle links)");
    for mshrs in [4usize, 8, 16, 32] {
        row(format!("{mshrs}"), mshrs, 16, true, 3, 4);
    }
    println!();
    header("inter-quadrant link cycles (16 trackers per slice, retry on, 16 misses per core)");
    for iq in [3u32, 10, 30, 100] {
        row(format!("{iq}"), 16, 16, true, iq, 4);
    }
    println!();
    header("router VCs per VNET and inter-quadrant link cycles (16 trackers per slice, retry on, 16 misses per core)");
    for iq in [10u32, 30] {
        for vcs in [0u32, 2, 4, 8] {
            let label = match vcs {
                0 => format!("{iq} cycles, unbounded buffers"),
                v => format!("{iq} cycles, {v} VCs"),
            };
            row(label, 16, 16, true, iq, vcs);
        }
    }
    println!();
    chi_section();
}
