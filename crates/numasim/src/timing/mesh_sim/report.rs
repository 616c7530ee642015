//! What a mesh run measured, and its summary from the engine's counters.

use super::*;

/// What a mesh run measured.
#[derive(Debug, Clone, Serialize)]
pub struct MeshResults {
    pub sim_time_ns: f64,
    pub accesses: u64,
    pub private_misses: u64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    /// DRAM bytes moved (reads + writes) per ns.
    pub dram_gbps: f64,
    pub vnets: Vec<VnetReport>,
    /// Mean hops over every packet of every VNET.
    pub avg_packet_distance: f64,
    pub link_utilisation_max: f64,
    pub link_utilisation_mean: f64,
    pub links: Vec<LinkUse>,
    /// Per quadrant: SLC lookups and hits of its slices.
    pub slc: Vec<NodeSlc>,
    /// Per quadrant: reads and writes of its controllers.
    pub controllers: Vec<NodeMc>,
    /// `[src][dst]` quadrant packets.
    pub inter_node_packets: Vec<Vec<u64>>,
    /// Pages placed on each NUMA node (one entry with NUMA off).
    pub pages_per_node: Vec<u64>,
    /// Phases run (1 without `phase_instructions`).
    pub phases: u64,
    /// Mean wait of a request for a home-node tracker / a controller read tracker, NoC cycles
    /// (0 when the machine sets no limit; the wait is also in the REQ VNET's queueing).
    pub home_tracker_wait_cycles: f64,
    pub controller_tracker_wait_cycles: f64,
    /// Requests a home node refused with RetryAck (`home_node_retry`; each was sent twice).
    pub home_retries: u64,
    /// Snoops the home slices sent (SNP packets) and stores that upgraded a shared copy.
    pub snoops: u64,
    pub upgrades: u64,
    /// `retry_throttle`: requests held at their thread behind an earlier refused request to
    /// the same home node, and their mean hold, NoC cycles (absent when none was held).
    #[serde(skip_serializing_if = "is_zero")]
    pub retry_throttled: u64,
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub retry_throttle_wait_cycles: f64,
    /// `direct_memory_transfer`: reads whose data went from memory to the requester (absent
    /// when none did).
    #[serde(skip_serializing_if = "is_zero")]
    pub direct_memory_reads: u64,
    pub params: MeshCoreParams,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

#[derive(Debug, Clone, Serialize)]
pub struct VnetReport {
    pub vnet: &'static str,
    pub packets: u64,
    pub hop_histogram: Vec<u64>,
    pub avg_hops: f64,
    pub avg_latency_cycles: f64,
    pub avg_queueing_cycles: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeSlc {
    pub node: usize,
    pub lookups: u64,
    pub hits: u64,
    pub hit_ratio: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeMc {
    pub node: usize,
    pub reads: u64,
    pub writes: u64,
}

impl MeshSim {
    pub(super) fn results(self, end_ps: u64, accesses: u64, private_misses: u64) -> MeshResults {
        let cyc = self.fabric.cycle_ps as f64;
        let vnets: Vec<VnetReport> = Vnet::ALL
            .iter()
            .map(|&v| {
                let c = &self.fabric.vnets[v as usize];
                let n = c.packets.max(1) as f64;
                let hop_sum: u64 = c.hops.iter().enumerate().map(|(h, &k)| h as u64 * k).sum();
                VnetReport {
                    vnet: v.name(),
                    packets: c.packets,
                    hop_histogram: c.hops.clone(),
                    avg_hops: hop_sum as f64 / n,
                    avg_latency_cycles: c.latency_ps as f64 / n / cyc,
                    avg_queueing_cycles: c.wait_ps as f64 / n / cyc,
                }
            })
            .collect();
        let packets: u64 = vnets.iter().map(|v| v.packets).sum();
        let dist: f64 = vnets.iter().map(|v| v.avg_hops * v.packets as f64).sum::<f64>() / packets.max(1) as f64;
        let links = self.fabric.link_use(end_ps);
        let used: Vec<f64> = links.iter().map(|l| l.utilisation).collect();
        let q = self.mesh.quadrants();
        let per = self.mesh.slices_per_home_node as usize;
        let mut slc: Vec<NodeSlc> = (0..q)
            .map(|node| NodeSlc {
                node,
                lookups: 0,
                hits: 0,
                hit_ratio: 0.0,
            })
            .collect();
        for s in 0..self.mesh.slices() {
            let node = self.mesh.quadrant_of(self.mesh.home_nodes[s / per]);
            slc[node].lookups += self.slc_lookups[s];
            slc[node].hits += self.slc_hits[s];
        }
        for n in &mut slc {
            n.hit_ratio = n.hits as f64 / n.lookups.max(1) as f64;
        }
        let mut controllers: Vec<NodeMc> = (0..q)
            .map(|node| NodeMc {
                node,
                reads: 0,
                writes: 0,
            })
            .collect();
        for (i, &at) in self.mesh.memory_controllers.iter().enumerate() {
            let node = self.mesh.quadrant_of(at);
            controllers[node].reads += self.mc_reads[i];
            controllers[node].writes += self.mc_writes[i];
        }
        let (reads, writes) = (self.mc_reads.iter().sum::<u64>(), self.mc_writes.iter().sum::<u64>());
        let sim_time_ns = end_ps as f64 / 1000.0;
        MeshResults {
            sim_time_ns,
            accesses,
            private_misses,
            dram_reads: reads,
            dram_writes: writes,
            dram_gbps: if end_ps == 0 {
                0.0
            } else {
                (reads + writes) as f64 * 64.0 / sim_time_ns
            },
            vnets,
            avg_packet_distance: dist,
            link_utilisation_max: used.iter().copied().fold(0.0, f64::max),
            link_utilisation_mean: used.iter().sum::<f64>() / used.len().max(1) as f64,
            links,
            slc,
            controllers,
            inter_node_packets: (0..q)
                .map(|a| self.fabric.inter_node[a * q..(a + 1) * q].to_vec())
                .collect(),
            pages_per_node: self.next_frame.clone(),
            phases: 1,
            home_tracker_wait_cycles: self.home_trackers.mean_wait(self.fabric.cycle_ps),
            controller_tracker_wait_cycles: self.mc_trackers.mean_wait(self.fabric.cycle_ps),
            home_retries: self.retries,
            snoops: self.snoops,
            upgrades: self.upgrades,
            retry_throttled: self.throttled,
            retry_throttle_wait_cycles: self.throttle_wait_ps as f64 / self.throttled.max(1) as f64 / cyc,
            direct_memory_reads: self.direct_reads,
            params: self.p,
        }
    }
}
