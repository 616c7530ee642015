//! Every headline result of the five papers, one list per paper: the claim, where the paper
//! states it, and an id the study's rows carry ([`crate::Comparison::headline`]). A study must
//! give each of its paper's headlines at least one row; [`crate::run_study`] lists a headline
//! without a row as not run (`full_only`, at `--quick`) or as missing, and the CLI tests fail
//! on a missing one, so a renamed or dropped row cannot go unnoticed.

/// One headline result of a paper.
#[derive(Debug, Clone, Copy)]
pub struct Headline {
    pub id: &'static str,
    /// Figure, table or section.
    pub source: &'static str,
    /// The claim, close to the paper's words.
    pub claim: &'static str,
    /// Run by the full study only (its --quick run lists the headline as not run).
    pub full_only: bool,
}

const fn h(id: &'static str, source: &'static str, claim: &'static str) -> Headline {
    Headline {
        id,
        source,
        claim,
        full_only: false,
    }
}

const fn full(id: &'static str, source: &'static str, claim: &'static str) -> Headline {
    Headline {
        id,
        source,
        claim,
        full_only: true,
    }
}

/// StarNUMA (starnuma-memory-pooling.txt).
pub const STARNUMA: &[Headline] = &[
    h(
        "starnuma.fig2.pages_gt8",
        "Fig. 2a",
        "7 % of BFS's pages have more than eight sharers",
    ),
    h(
        "starnuma.fig2.accesses_gt8",
        "Fig. 2b",
        "68 % of BFS's accesses go to pages with more than eight sharers",
    ),
    h(
        "starnuma.fig2.pages_all16",
        "§II-B",
        "2 % of BFS's pages are shared by all 16 sockets",
    ),
    h(
        "starnuma.fig2.accesses_all16",
        "§II-B",
        "those 2 % take 36 % of the accesses",
    ),
    h(
        "starnuma.amat_unloaded_bfs",
        "§II-B",
        "BFS's AMAT from unloaded latencies alone is 300 ns",
    ),
    h(
        "starnuma.amat_triples_bfs",
        "§II-B",
        "BFS's AMAT more than triples with bandwidth constraints",
    ),
    h(
        "starnuma.fig8a.geomean_t16",
        "Fig. 8a / abstract",
        "StarNUMA T16: 1.54× geomean speedup over the baseline",
    ),
    h("starnuma.fig8a.max_t16", "Fig. 8a / abstract", "up to 2.17× speedup"),
    h("starnuma.fig8a.bfs", "Fig. 8a / §V-G", "BFS 1.7× (SC1)"),
    h("starnuma.fig8a.tc", "§V-C", "TC 1.63× with the default pool"),
    h("starnuma.fig8a.fmi", "§V-E", "FMI 1.22× with the default pool"),
    h("starnuma.fig8a.poa", "§V-A", "POA is insensitive: no migration, 1.0×"),
    h(
        "starnuma.fig8a.geomean_t0",
        "Fig. 8a / §V-A",
        "T0 captures most of T16's gains: 1.35× geomean",
    ),
    h(
        "starnuma.fig8a.t0_below_t16",
        "Fig. 8a",
        "T16 achieves additional speedup over T0 (1.35 / 1.54)",
    ),
    h(
        "starnuma.fig8b.amat_mean",
        "Fig. 8b / abstract",
        "AMAT reduced by 48 % on average",
    ),
    h(
        "starnuma.table3.ipc",
        "Table III",
        "baseline per-core IPC of each workload",
    ),
    h(
        "starnuma.table4.per_workload",
        "Table IV",
        "share of migrations to the pool per workload",
    ),
    h(
        "starnuma.table4.geomean",
        "Table IV / §V-A",
        "geomean share of migrations to the pool excluding POA: 83 %",
    ),
    h(
        "starnuma.fig9.static_baseline",
        "Fig. 9 / §V-B",
        "oracle static placement on the baseline yields no gain over dynamic migration",
    ),
    h(
        "starnuma.fig9.static_pool",
        "Fig. 9 / §V-B",
        "oracle static placement slightly outperforms dynamic migration on StarNUMA",
    ),
    h(
        "starnuma.fig10.ratio",
        "Fig. 10 / §V-C",
        "a 270 ns pool lowers the speedup (1.54× → 1.34×)",
    ),
    full(
        "starnuma.fig10.geomean",
        "Fig. 10 / §V-C",
        "geomean speedup with a 270 ns pool: 1.34×",
    ),
    full("starnuma.fig10.tc", "§V-C", "TC is the most affected: 1.63× → 1.11×"),
    full(
        "starnuma.fig11.isobw",
        "Fig. 11 / §V-D",
        "Baseline ISO-BW: 1.14× geomean",
    ),
    h("starnuma.fig11.isobw_bfs", "§V-D", "ISO-BW on BFS: 1.29×"),
    full("starnuma.fig11.isobw_sssp", "§V-D", "ISO-BW on SSSP: 1.4×"),
    full(
        "starnuma.fig11.over_2xbw",
        "Fig. 11 / §V-D",
        "StarNUMA outperforms Baseline 2×BW by 12 % on average",
    ),
    h(
        "starnuma.fig11.bfs_2xbw",
        "§V-D",
        "only for BFS does Baseline 2×BW slightly outperform StarNUMA",
    ),
    full(
        "starnuma.fig11.halfbw_over_isobw",
        "Fig. 11 / §V-D",
        "StarNUMA half-BW outperforms ISO-BW by 11 % on average",
    ),
    h("starnuma.fig11.halfbw_bfs", "§V-D", "half-BW on BFS: only 2 % (1.02×)"),
    full("starnuma.fig11.halfbw_sssp", "§V-D", "half-BW on SSSP: 1.21×"),
    h(
        "starnuma.fig12.ratio",
        "Fig. 12 / §V-E",
        "a 4× smaller pool minimally drops the speedup (1.54× → 1.48×)",
    ),
    full(
        "starnuma.fig12.geomean",
        "Fig. 12 / §V-E",
        "geomean speedup with a 4× smaller pool: 1.48×",
    ),
    full("starnuma.fig12.fmi", "§V-E", "FMI is the most affected: 1.22× → 1.05×"),
];

/// Talbot & Kelly (first-touch-and-reactive-proxies.txt).
pub const TALBOT: &[Headline] = &[
    h(
        "talbot.ge.rr_inf",
        "Fig. 1.5",
        "GE: round-robin 7.3 % faster than first-touch (infinite buffers)",
    ),
    h(
        "talbot.ge.rr_messages",
        "Fig. 1.6",
        "GE: round-robin sends nearly 10 % more messages",
    ),
    h(
        "talbot.ge.rr_read_response",
        "Fig. 1.7",
        "GE: round-robin improves the remote read response by 19 %",
    ),
    h(
        "talbot.ge.basic_speedup",
        "Fig. 1.5",
        "GE: basic proxies give more than 27 % over first-touch, both placements",
    ),
    h(
        "talbot.ge.basic_messages",
        "Fig. 1.6",
        "GE: basic proxies add 17 % messages",
    ),
    h(
        "talbot.ge.basic_read_response",
        "Fig. 1.7",
        "GE: basic proxies cut the remote read response by about 90 %",
    ),
    h(
        "talbot.ocean_contig.rr_inf",
        "§1.5.1",
        "Ocean-Contig: round-robin nearly 19 % slower",
    ),
    full(
        "talbot.splash.rr_inf",
        "§1.5.1",
        "FMM, Ocean-Non-Contig, Water-Nsq marginally better under first-touch; Barnes, FFT under round-robin",
    ),
    h(
        "talbot.fft.basic",
        "§1.5.1",
        "FFT: first-touch with basic proxies 9 % faster",
    ),
    full(
        "talbot.fmm.basic",
        "§1.5.1",
        "FMM: first-touch with basic proxies 0.3 % faster",
    ),
    h(
        "talbot.ocean_noncontig.basic",
        "§1.5.1",
        "Ocean-Non-Contig: first-touch with basic proxies 1.8 % faster",
    ),
    full("talbot.barnes.basic", "§1.5.1", "Barnes: basic proxies 0.2 % slower"),
    full("talbot.water.basic", "§1.5.1", "Water-Nsq: basic proxies 0.7 % slower"),
    h(
        "talbot.fin.rr_worse",
        "Fig. 1.8",
        "finite buffers: round-robin slower than first-touch for six of seven programs",
    ),
    h(
        "talbot.ge.rr_fin",
        "Fig. 1.8",
        "GE: round-robin's benefit cut to 1.2 % with finite buffers",
    ),
    h(
        "talbot.ge.reactive",
        "§1.5.2",
        "GE: reactive proxies 22.2 % faster (first-touch, finite buffers)",
    ),
    h(
        "talbot.ge.reactive_messages",
        "Fig. 1.9",
        "GE: reactive proxies send fewer messages (finite buffers)",
    ),
    h(
        "talbot.ge.reactive_queueing",
        "Table 1.4",
        "GE: input-buffer queueing rises with proxies",
    ),
    h(
        "talbot.reactive_best",
        "§1.5.2",
        "first-touch with reactive proxies is the best setup for six of seven programs",
    ),
    h(
        "talbot.reactive_never_worse",
        "§1.5.3 / §1.7",
        "first-touch with reactive proxies always beats either placement without proxies",
    ),
];

/// Tikir & Hollingsworth (hardware-monitors-dynamic-page-migration.txt).
pub const TIKIR: &[Headline] = &[
    h(
        "tikir.table1.maxrate_d",
        "Table 1 / Fig. 2",
        "max-rate sampling: mean distance D 0.56, far above interval sampling's 0.02",
    ),
    h(
        "tikir.fig2.interval_d",
        "Table 1 / Fig. 2",
        "interval sampling from every 256th transaction keeps D low (0.02)",
    ),
    h(
        "tikir.table2.per_app",
        "Table 2",
        "non-local share with migration per application",
    ),
    h(
        "tikir.table2.mean_reduction",
        "Table 2",
        "migration reduces non-local accesses by 58.3 % on average (19.7–89.6 %)",
    ),
    h(
        "tikir.static.gap",
        "§5.2.3",
        "profile-driven static placement reduces non-local accesses 28.6 % less than dynamic migration",
    ),
    h(
        "tikir.table3.writebacks",
        "Table 3",
        "write-backs barely change with migration",
    ),
    h("tikir.fig3.mg", "Table 4 / Fig. 3", "MG 15.9 % faster with migration"),
    full("tikir.fig3.cg", "Table 4 / Fig. 3", "CG 14.5 % faster with migration"),
    full("tikir.fig3.sp", "Table 4 / Fig. 3", "SP 14.2 % faster with migration"),
    full(
        "tikir.fig3.ft",
        "Table 4 / Fig. 3",
        "FT 4.2 % slower with migration (overhead)",
    ),
    full("tikir.fig3.bt", "Table 4 / Fig. 3", "BT 2.9 % faster with migration"),
    full("tikir.fig3.lu", "Table 4 / Fig. 3", "LU 0.8 % faster with migration"),
    full(
        "tikir.mg.round_robin",
        "§5.3.3",
        "MG with pages spread over the boards: 10.2 % faster, non-local stays ~80 %",
    ),
    h(
        "tikir.table6.per_source",
        "Table 6",
        "non-local share per profile source and application",
    ),
    h(
        "tikir.table6.tlb_miss_worst",
        "Table 6 / §7",
        "TLB-miss profiles perform poorly against the other sources",
    ),
    h(
        "tikir.table7.mg",
        "Table 7",
        "MG improves with every profile source, up to 18.3 %",
    ),
    full(
        "tikir.table7.others",
        "Table 7",
        "CG and SP improve with every source; FT slows slightly with every source",
    ),
    full(
        "tikir.interval.mg",
        "§5.2",
        "only MG is sensitive to the migration interval",
    ),
];

/// Zaourar et al. (heterogeneous-numa-case-studies.txt).
pub const ZAOURAR: &[Headline] = &[
    h(
        "zaourar.fig2a.l0",
        "Fig. 2a",
        "L0: NUMA partitioning causes a great improvement in memory bandwidth",
    ),
    h(
        "zaourar.fig2a.l2",
        "Fig. 2a",
        "L2: NUMA partitioning has no effect on the saturated bandwidth",
    ),
    h(
        "zaourar.fig2b.hops",
        "Fig. 2b",
        "NUMA partitioning shifts the hop distribution left (REQ, DAT)",
    ),
    h(
        "zaourar.fig2c.latency",
        "Fig. 2c",
        "N2 always has a lower packet latency than N1, more so at L0",
    ),
    h(
        "zaourar.fig3a.node0",
        "Fig. 3a",
        "buffer on node 0: 72.69 % of peak HBM2 bandwidth",
    ),
    h("zaourar.fig3a.node1", "Fig. 3a", "buffer on node 1: 36 %"),
    h("zaourar.fig3a.node3", "Fig. 3a", "buffer on node 3: 32 %"),
    h(
        "zaourar.fig3b.req_queueing",
        "Fig. 3b",
        "REQ queueing 8 → 221 → 258 cycles as the buffer moves away",
    ),
    h(
        "zaourar.fig4a.distance",
        "Fig. 4a",
        "Configuration 2 cuts the average packet distance by up to 32 %, for every application",
    ),
    h(
        "zaourar.fig4a.c3",
        "Fig. 4a",
        "Configuration 3 loses that benefit: comparable or slightly higher distance than Configuration 1",
    ),
    h(
        "zaourar.fig4b.hit_ratio",
        "Fig. 4b",
        "cache groups lower the SLC hit ratio by up to 39 %",
    ),
    h(
        "zaourar.fig5.ddr_increase",
        "Fig. 5",
        "up to 31 % more DDR activity with NUMA and cache groups",
    ),
    h(
        "zaourar.fig5.unbalanced",
        "Fig. 5",
        "Barnes and FMM: more than 95 % of accesses on one memory region",
    ),
    h(
        "zaourar.fig5.balanced",
        "Fig. 5",
        "balanced programs (STREAM) spread DDR activity under NUMA",
    ),
    h(
        "zaourar.fig6.share",
        "Fig. 6",
        "one core moves pages at a small share of the peak interconnect bandwidth",
    ),
];

/// HyDM (hydm-hybrid-memory-migration.txt).
pub const HYDM: &[Headline] = &[
    h(
        "hydm.fig5.mean",
        "Fig. 5",
        "HyDM reduces the mean execution time by 6.5 %",
    ),
    h("hydm.fig5.cg1", "Fig. 5 / abstract", "CG.1 22 % faster (up to 22 %)"),
    h("hydm.fig5.cg0", "Fig. 5", "CG.0 15 % faster"),
    h("hydm.fig5.ft1", "Fig. 5", "FT.1 10 % faster"),
];

/// The headlines a run lacks rows for, with whether each is expected to be absent (full
/// study only, in a --quick run).
pub fn absent<'a>(headlines: &'a [Headline], rows: &[crate::Comparison], quick: bool) -> Vec<(&'a Headline, bool)> {
    headlines
        .iter()
        .filter(|h| !rows.iter().any(|r| r.headline == Some(h.id)))
        .map(|h| (h, quick && h.full_only))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_name_their_paper() {
        let mut seen = std::collections::HashSet::new();
        for (prefix, list) in [
            ("starnuma.", STARNUMA),
            ("talbot.", TALBOT),
            ("tikir.", TIKIR),
            ("zaourar.", ZAOURAR),
            ("hydm.", HYDM),
        ] {
            assert!(!list.is_empty());
            for h in list {
                assert!(h.id.starts_with(prefix), "{}", h.id);
                assert!(seen.insert(h.id), "duplicate {}", h.id);
                assert!(!h.source.is_empty() && !h.claim.is_empty(), "{}", h.id);
            }
        }
    }

    #[test]
    fn absent_headlines_are_listed_as_expected_or_missing() {
        let rows = [
            crate::cmp("Fig. 5", "mean", "×", Some(0.935), 1.2, crate::Expect::Below(1.0)).headline("hydm.fig5.mean"),
        ];
        let list = [HYDM[0], HYDM[1], full("hydm.x", "s", "c")];
        let a = absent(&list, &rows, true);
        let ids: Vec<(&str, bool)> = a.iter().map(|(h, expected)| (h.id, *expected)).collect();
        assert_eq!(ids, [("hydm.fig5.cg1", false), ("hydm.x", true)]);
        assert!(!absent(&list, &rows, false)[1].1);
    }
}
