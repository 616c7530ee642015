//! Property tests: on random small machines, every derived route's latency equals the sum of its
//! link latencies plus intermediate transits, and no alternative path (brute force over simple
//! paths) is shorter; socket-to-socket latencies are symmetric and obey the triangle inequality
//! when every socket forwards.

use numasim_machine::{Machine, NodeRef};
use proptest::prelude::*;

fn machine_text(n: usize, transit: &[u32], edges: &[(usize, usize, u32)]) -> String {
    let mut t = String::from("name = \"rand\"\n");
    for (i, tr) in transit.iter().enumerate().take(n) {
        t.push_str(&format!(
            "[[sockets]]\nname = \"s{i}\"\ncores = 1\nfreq_ghz = 1.0\nllc_bytes = 65536\nllc_ways = 4\ntransit_latency_ns = {tr}\n"
        ));
        t.push_str(&format!(
            "[[memory]]\nname = \"m{i}\"\nkind = \"dram\"\ncapacity_bytes = 1024\nchannels = 1\ndram = \"ddr4-2400\"\naccess_latency_ns = 50\nsocket = \"s{i}\"\n"
        ));
    }
    // A ring guarantees connectivity; random chords add alternatives.
    for i in 0..n {
        let j = (i + 1) % n;
        if i != j {
            t.push_str(&format!(
                "[[links]]\nname = \"r{i}\"\na = \"s{i}\"\nb = \"s{j}\"\nbandwidth_gbps = 1\nlatency_ns = 10\n"
            ));
        }
    }
    for (k, &(a, b, lat)) in edges.iter().enumerate() {
        if a != b {
            t.push_str(&format!(
                "[[links]]\nname = \"c{k}\"\na = \"s{a}\"\nb = \"s{b}\"\nbandwidth_gbps = 1\nlatency_ns = {lat}\n"
            ));
        }
    }
    t
}

/// Minimum one-way latency over all simple socket paths (brute force DFS).
fn brute(m: &Machine, src: usize, dst: usize) -> f64 {
    fn dfs(m: &Machine, u: usize, dst: usize, src: usize, seen: &mut Vec<bool>, acc: f64, best: &mut f64) {
        if u == dst {
            *best = best.min(acc);
            return;
        }
        let transit = if u == src { 0.0 } else { m.sockets[u].transit_latency_ns };
        for l in &m.links {
            let (NodeRef::Socket(a), NodeRef::Socket(b)) = (l.a, l.b) else {
                continue;
            };
            let v = if a == u {
                b
            } else if b == u {
                a
            } else {
                continue;
            };
            if !seen[v] {
                seen[v] = true;
                dfs(m, v, dst, src, seen, acc + transit + l.latency_ns, best);
                seen[v] = false;
            }
        }
    }
    let mut seen = vec![false; m.num_sockets()];
    seen[src] = true;
    let mut best = f64::INFINITY;
    dfs(m, src, dst, src, &mut seen, 0.0, &mut best);
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn routes_are_shortest_and_consistent(
        n in 2usize..7,
        transit in proptest::collection::vec(0u32..20, 7),
        edges in proptest::collection::vec((0usize..7, 0usize..7, 1u32..40), 0..8),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(a, b, l)| (a % n, b % n, l)).collect();
        let text = machine_text(n, &transit, &edges);
        let m = Machine::from_text("rand.toml", &text).unwrap();
        for s in 0..n {
            for t in 0..n {
                let r = m.route_between_sockets(s, t);
                // Latency = links + intermediate transits.
                let links: f64 = r.links.iter().map(|h| m.links[h.link].latency_ns).sum();
                let inner = if r.nodes.len() > 2 { &r.nodes[1..r.nodes.len() - 1] } else { &[][..] };
                let transits: f64 = inner
                    .iter()
                    .map(|n| match n { NodeRef::Socket(i) => m.sockets[*i].transit_latency_ns, _ => 0.0 })
                    .sum();
                prop_assert_eq!(r.latency_ns, links + transits);
                prop_assert_eq!(r.hops as usize, r.links.len());
                // Consecutive hops really connect consecutive nodes in the stated direction.
                for (k, h) in r.links.iter().enumerate() {
                    let l = &m.links[h.link];
                    let (from, to) = if h.a_to_b { (l.a, l.b) } else { (l.b, l.a) };
                    prop_assert_eq!(from, r.nodes[k]);
                    prop_assert_eq!(to, r.nodes[k + 1]);
                }
                // Optimal.
                if s != t {
                    prop_assert_eq!(r.latency_ns, brute(&m, s, t));
                }
                // Symmetric.
                prop_assert_eq!(r.latency_ns, m.route_between_sockets(t, s).latency_ns);
                // Memory route = socket route to its home socket.
                prop_assert_eq!(m.load_latency_ns(s, t), 50.0 + 2.0 * r.latency_ns);
            }
        }
        // Triangle inequality (with the transit of the middle socket).
        for a in 0..n { for b in 0..n { for c in 0..n {
            if a != b && b != c && a != c {
                let ab = m.route_between_sockets(a, b).latency_ns;
                let bc = m.route_between_sockets(b, c).latency_ns;
                let ac = m.route_between_sockets(a, c).latency_ns;
                prop_assert!(ac <= ab + m.sockets[b].transit_latency_ns + bc + 1e-9);
            }
        }}}
        // Deterministic.
        prop_assert_eq!(&m, &Machine::from_text("rand.toml", &text).unwrap());
    }
}
