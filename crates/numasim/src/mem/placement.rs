//! Where a page goes when it is first touched: numactl's policies plus Talbot's round-robin.
//!
//! A closed set, so an enum matched once per new page (never per access). Capacity is
//! enforced per node; a full node falls back to the nearest node with room as seen from the
//! requesting socket, which is what Linux does for non-strict policies. A node's capacity may
//! be a fraction of the footprint touched so far (StarNUMA caps the pool at 20 % of each
//! workload's footprint rather than at an absolute size).

use super::frames::{FrameOrder, Frames};

/// Placement policy over memory-node indices of the machine.
#[derive(Debug, Clone, PartialEq)]
pub enum PlacementPolicy {
    /// The toucher's nearest memory node (Linux default).
    FirstTouch,
    /// Only these nodes, nearest first; out of memory when all are full (numactl --membind).
    Bind(Vec<usize>),
    /// This node, else the nearest with room (numactl --preferred).
    Preferred(usize),
    /// Page number modulo the node list (numactl --interleave).
    Interleave(Vec<usize>),
    /// Page number over cumulative weights (Linux weighted interleave).
    WeightedInterleave(Vec<(usize, u32)>),
    /// Talbot & Kelly's page round-robin over every socket-attached node: each new page goes to
    /// the next node in turn, in the order pages are first touched ("allocation cycles around
    /// the nodes, placing a page in turn at each node", §1.2). Not the page number modulo the
    /// node count: generators align every array to 2 MiB (512 pages), so `vpage mod 64` put
    /// every 64-thread Ocean-Contig block's first page on node 0 and second on node 1.
    RoundRobin(Vec<usize>),
}

/// Capacity of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    Pages(u64),
    /// A fraction of the number of pages touched so far.
    FractionOfFootprint(f64),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    #[error(
        "out of memory: no node allowed by the policy has room for another page (footprint {footprint_pages} pages)"
    )]
    OutOfMemory { footprint_pages: u64 },
    #[error(
        "the simulator's per-line state (coherence directory, LLC sharers: {line_state_bytes} bytes per 64-byte line) \
         for {pages} touched pages of {page_bytes} bytes would take more than {limit_mib} MiB, half of this \
         host's memory; use smaller pages (`placement.page_bytes`), or functional mode without the LLC filter"
    )]
    LineStateLimit {
        pages: u64,
        page_bytes: u64,
        line_state_bytes: u64,
        limit_mib: u64,
    },
}

/// Placement state: policy, capacities and occupancy per node.
#[derive(Debug, Clone)]
pub struct Placement {
    policy: PlacementPolicy,
    /// Multi-process experiments: the policy of each process after the first (process 0 uses
    /// `policy`), each with its own round-robin turn; the process of a page is read from its
    /// number ([`numasim_trace::processes`]). Empty for one workload.
    per_process: Vec<(PlacementPolicy, u64)>,
    /// Page-number shift that leaves the process number (48 − page shift).
    process_shift: u32,
    capacity: Vec<Capacity>,
    used_pages: Vec<u64>,
    /// Per socket: memory nodes by increasing load latency.
    nearest: Vec<Vec<usize>>,
    /// Round-robin: pages placed so far (the next page goes to `nodes[rr_next % len]`).
    rr_next: u64,
    /// The frame each node hands out next ([`super::frames`]).
    frames: Frames,
}

impl Placement {
    pub fn new(policy: PlacementPolicy, capacity: Vec<Capacity>, nearest: Vec<Vec<usize>>) -> Self {
        let n = capacity.len();
        Placement {
            policy,
            capacity,
            used_pages: vec![0; n],
            nearest,
            rr_next: 0,
            per_process: Vec::new(),
            process_shift: 64,
            frames: Frames::sequential(n),
        }
    }

    /// Frames handed out by `frames` instead of in touch order.
    pub fn with_frames(mut self, frames: Frames) -> Self {
        self.frames = frames;
        self
    }

    /// The next frame of `node`, for a page placed or moved there.
    #[inline]
    pub fn take_frame(&mut self, node: usize) -> u32 {
        self.frames.take(node)
    }

    pub fn frame_order(&self) -> FrameOrder {
        self.frames.order()
    }

    /// A policy per process (`policies[p]` for process p; the first replaces `policy`), for
    /// pages of `page_bytes`.
    pub fn with_process_policies(mut self, mut policies: Vec<PlacementPolicy>, page_bytes: u64) -> Self {
        if policies.is_empty() {
            return self;
        }
        self.policy = policies.remove(0);
        self.per_process = policies.into_iter().map(|p| (p, 0)).collect();
        self.process_shift =
            numasim_trace::PROCESS_SHIFT - page_bytes.trailing_zeros().min(numasim_trace::PROCESS_SHIFT);
        self
    }

    pub fn policy(&self) -> &PlacementPolicy {
        &self.policy
    }

    /// Pages currently on each node.
    pub fn used_pages(&self) -> &[u64] {
        &self.used_pages
    }

    /// Capacity of `node` in pages, given the current footprint.
    pub fn capacity_pages(&self, node: usize, footprint_pages: u64) -> u64 {
        match self.capacity[node] {
            Capacity::Pages(p) => p,
            Capacity::FractionOfFootprint(f) => (f * footprint_pages as f64).floor() as u64,
        }
    }

    /// [`Placement::place`], then — if `oracle` names another node with room — the page goes
    /// there instead (oracle static placement: the policy's choice counted, then moved).
    pub fn place_or_oracle(
        &mut self,
        socket: usize,
        vpage: u64,
        footprint_pages: u64,
        oracle: Option<u16>,
    ) -> Result<usize, PlacementError> {
        let node = self.place(socket, vpage, footprint_pages)?;
        match oracle.map(usize::from) {
            Some(fixed) if fixed != node && fixed < self.used_pages.len() && self.has_room(fixed, footprint_pages) => {
                self.moved(node, fixed);
                Ok(fixed)
            }
            _ => Ok(node),
        }
    }

    pub fn has_room(&self, node: usize, footprint_pages: u64) -> bool {
        self.used_pages[node] < self.capacity_pages(node, footprint_pages)
    }

    /// Chooses and reserves a home for a new page touched by `socket`.
    /// `footprint_pages` includes the new page.
    pub fn place(&mut self, socket: usize, vpage: u64, footprint_pages: u64) -> Result<usize, PlacementError> {
        let process = if self.per_process.is_empty() {
            0
        } else {
            (vpage >> self.process_shift) as usize
        };
        // Each process's own policy and round-robin turn (process 0 and any process without
        // one: the first policy).
        let slot = process.checked_sub(1).filter(|&i| i < self.per_process.len());
        let (policy, rr_next) = match slot {
            Some(i) => {
                let (p, rr) = &mut self.per_process[i];
                (&*p, rr)
            }
            None => (&self.policy, &mut self.rr_next),
        };
        if matches!(policy, PlacementPolicy::RoundRobin(_)) {
            *rr_next += 1;
        }
        let rr_turn = rr_next.wrapping_sub(1);
        let policy = match slot {
            Some(i) => &self.per_process[i].0,
            None => &self.policy,
        };
        let wanted = match policy {
            PlacementPolicy::FirstTouch => self.nearest[socket][0],
            PlacementPolicy::Preferred(n) => *n,
            PlacementPolicy::Bind(nodes) => {
                let order = &self.nearest[socket];
                let found = order
                    .iter()
                    .copied()
                    .filter(|n| nodes.contains(n))
                    .find(|&n| self.has_room(n, footprint_pages));
                return match found {
                    Some(n) => {
                        self.used_pages[n] += 1;
                        Ok(n)
                    }
                    None => Err(PlacementError::OutOfMemory { footprint_pages }),
                };
            }
            PlacementPolicy::Interleave(nodes) => nodes[(vpage % nodes.len() as u64) as usize],
            PlacementPolicy::RoundRobin(nodes) => nodes[(rr_turn % nodes.len() as u64) as usize],
            PlacementPolicy::WeightedInterleave(weights) => {
                let total: u64 = weights.iter().map(|&(_, w)| w as u64).sum();
                let mut r = vpage % total;
                let mut chosen = weights[0].0;
                for &(n, w) in weights {
                    if r < w as u64 {
                        chosen = n;
                        break;
                    }
                    r -= w as u64;
                }
                chosen
            }
        };
        let node = if self.has_room(wanted, footprint_pages) {
            wanted
        } else {
            let order = &self.nearest[socket];
            order
                .iter()
                .copied()
                .find(|&n| self.has_room(n, footprint_pages))
                .ok_or(PlacementError::OutOfMemory { footprint_pages })?
        };
        self.used_pages[node] += 1;
        Ok(node)
    }

    /// Records that a page moved (migration); capacity checks are the caller's business.
    pub fn moved(&mut self, from: usize, to: usize) {
        self.used_pages[from] -= 1;
        self.used_pages[to] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nearest() -> Vec<Vec<usize>> {
        vec![vec![0, 1, 2], vec![1, 0, 2]]
    }

    #[test]
    fn first_touch_is_local_then_falls_back_to_nearest_with_room() {
        let mut p = Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::Pages(2), Capacity::Pages(10), Capacity::Pages(10)],
            nearest(),
        );
        assert_eq!(p.place(0, 0, 1), Ok(0));
        assert_eq!(p.place(1, 1, 2), Ok(1));
        assert_eq!(p.place(0, 2, 3), Ok(0));
        assert_eq!(p.place(0, 3, 4), Ok(1), "node 0 full: next nearest");
        assert_eq!(p.used_pages(), &[2, 2, 0]);
    }

    #[test]
    fn round_robin_cycles_in_touch_order_whatever_the_page_numbers() {
        // Page numbers 512 apart (2 MiB-aligned arrays) all fall on one node under interleave;
        // round-robin still gives each new page the next node.
        let mut p = Placement::new(
            PlacementPolicy::RoundRobin(vec![0, 1, 2]),
            vec![Capacity::Pages(100); 3],
            nearest(),
        );
        let homes: Vec<usize> = (0..5).map(|i| p.place(1, i * 512, i + 1).unwrap()).collect();
        assert_eq!(homes, vec![0, 1, 2, 0, 1]);
        assert_eq!(p.used_pages(), &[2, 2, 1]);
    }

    #[test]
    fn interleave_follows_page_numbers() {
        let mut p = Placement::new(
            PlacementPolicy::Interleave(vec![0, 2]),
            vec![Capacity::Pages(100); 3],
            nearest(),
        );
        let homes: Vec<usize> = (0..4).map(|v| p.place(1, v, v + 1).unwrap()).collect();
        assert_eq!(homes, vec![0, 2, 0, 2]);
    }

    #[test]
    fn weighted_interleave_respects_weights() {
        let mut p = Placement::new(
            PlacementPolicy::WeightedInterleave(vec![(0, 3), (1, 1)]),
            vec![Capacity::Pages(100); 3],
            nearest(),
        );
        let homes: Vec<usize> = (0..8).map(|v| p.place(0, v, v + 1).unwrap()).collect();
        assert_eq!(homes.iter().filter(|&&h| h == 0).count(), 6);
    }

    #[test]
    fn bind_fails_when_full() {
        let mut p = Placement::new(
            PlacementPolicy::Bind(vec![2]),
            vec![Capacity::Pages(100), Capacity::Pages(100), Capacity::Pages(1)],
            nearest(),
        );
        assert_eq!(p.place(0, 0, 1), Ok(2));
        assert!(matches!(p.place(0, 1, 2), Err(PlacementError::OutOfMemory { .. })));
    }

    #[test]
    fn fractional_capacity_tracks_footprint() {
        let p = Placement::new(
            PlacementPolicy::FirstTouch,
            vec![Capacity::FractionOfFootprint(0.2)],
            vec![vec![0]],
        );
        assert_eq!(p.capacity_pages(0, 100), 20);
        assert_eq!(p.capacity_pages(0, 4), 0);
    }
}
