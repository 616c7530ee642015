//! The machine as a graph: sockets on a ring, each socket's own memory outside it, switches
//! inside, pools at the centre; every link drawn with width and colour by the memory messages
//! it carried in the run (both directions). The layout is computed from machine.json alone, so
//! any machine file draws without a hand-made layout.

use super::{render_svg, text_style, titled, Area, DrawResult};
use crate::error::ReportError;
use crate::palette::{self, FONT_LABEL, FONT_TICK};
use crate::results::{MachineFile, Run};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::collections::BTreeMap;
use std::f64::consts::PI;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VertexKind {
    Socket,
    Memory,
    Pool,
    Switch,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Vertex {
    pub name: String,
    pub kind: VertexKind,
    pub x: f64,
    pub y: f64,
}

/// Positions of every vertex in a unit frame centred on (0, 0) with radius about 1.
pub fn layout(m: &MachineFile) -> Vec<Vertex> {
    let s = m.sockets.len().max(1);
    let angle = |i: usize| -PI / 2.0 + 2.0 * PI * i as f64 / s as f64;
    let socket_index: BTreeMap<&str, usize> = m.sockets.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut v: Vec<Vertex> = m
        .sockets
        .iter()
        .enumerate()
        .map(|(i, n)| Vertex {
            name: n.clone(),
            kind: VertexKind::Socket,
            x: 0.72 * angle(i).cos(),
            y: 0.72 * angle(i).sin(),
        })
        .collect();
    // Socket-attached memory, fanned out around its socket's angle.
    let mut per_socket: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    let mut pools = Vec::new();
    for n in &m.memory_nodes {
        match n.attached_socket.as_deref().and_then(|s| socket_index.get(s)) {
            Some(&i) if !n.kind.contains("pool") => per_socket.entry(i).or_default().push(&n.name),
            _ => pools.push(n.name.clone()),
        }
    }
    let fan = (PI / s as f64).min(0.35);
    for (i, names) in per_socket {
        let k = names.len();
        for (j, name) in names.into_iter().enumerate() {
            let a = angle(i) + fan * (j as f64 - (k as f64 - 1.0) / 2.0) / k.max(1) as f64;
            v.push(Vertex {
                name: name.to_string(),
                kind: VertexKind::Memory,
                x: 0.97 * a.cos(),
                y: 0.97 * a.sin(),
            });
        }
    }
    for (j, name) in pools.iter().enumerate() {
        let (x, y) = if pools.len() == 1 {
            (0.0, 0.0)
        } else {
            let a = -PI / 2.0 + 2.0 * PI * j as f64 / pools.len() as f64;
            (0.15 * a.cos(), 0.15 * a.sin())
        };
        v.push(Vertex {
            name: name.clone(),
            kind: VertexKind::Pool,
            x,
            y,
        });
    }
    // Switches: at the mean direction of the sockets they link to, staggered when they coincide.
    let mut placed: Vec<(f64, f64)> = Vec::new();
    let w = m.switches.len().max(1);
    for (k, sw) in m.switches.iter().enumerate() {
        let (mut sx, mut sy) = (0.0, 0.0);
        for l in &m.links {
            let other = if l.a == sw.name {
                &l.b
            } else if l.b == sw.name {
                &l.a
            } else {
                continue;
            };
            if let Some(&i) = socket_index.get(other.as_str()) {
                sx += angle(i).cos();
                sy += angle(i).sin();
            }
        }
        let a = if sx.hypot(sy) > 1e-6 {
            sy.atan2(sx)
        } else {
            -PI / 2.0 + 2.0 * PI * (k as f64 + 0.5) / w as f64
        };
        let mut r = 0.42;
        while placed
            .iter()
            .any(|&(px, py)| (px - r * a.cos()).hypot(py - r * a.sin()) < 0.09)
        {
            r -= 0.1;
        }
        placed.push((r * a.cos(), r * a.sin()));
        v.push(Vertex {
            name: sw.name.clone(),
            kind: VertexKind::Switch,
            x: r * a.cos(),
            y: r * a.sin(),
        });
    }
    v
}

pub fn available_for(run: &Run) -> bool {
    run.machine.as_ref().is_some_and(|m| !m.sockets.is_empty())
}

pub fn available(runs: &[Run]) -> bool {
    runs.iter().any(available_for)
}

fn draw_colourbar(area: &Area, x0: i32, y0: i32, width: i32, max: u64) -> DrawResult {
    let steps = 60;
    for i in 0..steps {
        let t = i as f64 / (steps - 1) as f64;
        let xa = x0 + width * i / steps;
        let xb = x0 + width * (i + 1) / steps;
        area.draw(&Rectangle::new([(xa, y0), (xb, y0 + 16)], link_colour(t).filled()))?;
    }
    area.draw(&Rectangle::new(
        [(x0, y0), (x0 + width, y0 + 16)],
        palette::BLACK.stroke_width(1),
    ))?;
    let ts = |h| text_style(FONT_TICK, palette::BLACK, h, VPos::Top);
    area.draw(&Text::new("0".to_string(), (x0, y0 + 22), ts(HPos::Center)))?;
    area.draw(&Text::new(format_count(max), (x0 + width, y0 + 22), ts(HPos::Center)))?;
    area.draw(&Text::new(
        "Memory messages on link (both directions)".to_string(),
        (x0 + width / 2, y0 + 22),
        ts(HPos::Center),
    ))?;
    Ok(())
}

/// Link colour for a load share `t` in [0, 1]: light for little traffic, dark for the most.
fn link_colour(t: f64) -> RGBColor {
    palette::viridis(0.85 * (1.0 - t))
}

pub fn format_count(n: u64) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.1} G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        n.to_string()
    }
}

/// Draws the machine graph of `run` into `area` (square-ish areas look best).
pub fn draw_run(area: &Area, run: &Run) -> DrawResult {
    let Some(m) = &run.machine else { return Ok(()) };
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as f64, h as f64 - 70.0);
    let radius = 0.5 * w.min(h) - 50.0;
    let (cx, cy) = (w / 2.0, h / 2.0 + 5.0);
    let verts = layout(m);
    let pos: BTreeMap<&str, (i32, i32)> = verts
        .iter()
        .map(|v| {
            (
                v.name.as_str(),
                ((cx + radius * v.x) as i32, (cy + radius * v.y) as i32),
            )
        })
        .collect();
    let msgs = &run.results.totals.summary.link_messages;
    let load = |name: &str| msgs.get(name).map(|[a, b]| a + b).unwrap_or(0);
    let max = m.links.iter().map(|l| load(&l.name)).max().unwrap_or(0);
    let mut links: Vec<_> = m.links.iter().collect();
    links.sort_by_key(|l| load(&l.name));
    for l in links {
        let (Some(&a), Some(&b)) = (pos.get(l.a.as_str()), pos.get(l.b.as_str())) else {
            continue;
        };
        let n = load(&l.name);
        let style = if n == 0 || max == 0 {
            palette::LIGHT_GREY.stroke_width(1)
        } else {
            let t = n as f64 / max as f64;
            link_colour(t).stroke_width(1 + (7.0 * t).round() as u32)
        };
        area.draw(&PathElement::new(vec![a, b], style))?;
    }
    // Socket-attached memory without a link of its own: a dotted tie to its socket.
    for n in &m.memory_nodes {
        if let (Some(s), Some(&p)) = (n.attached_socket.as_deref(), pos.get(n.name.as_str())) {
            let linked = m.links.iter().any(|l| l.a == n.name || l.b == n.name);
            if let (false, Some(&q)) = (linked, pos.get(s)) {
                area.draw(&PathElement::new(vec![p, q], palette::GREY.stroke_width(2)))?;
            }
        }
    }
    let served = &run.results.totals.summary.by_node;
    let served_total: u64 = served.values().sum();
    let r = (220.0 / verts.len().max(1) as f64 + 9.0).clamp(11.0, 24.0) as i32;
    let font = if r < 16 { 13 } else { 16 };
    for v in &verts {
        let (x, y) = pos[v.name.as_str()];
        let (fill, label_colour) = match v.kind {
            VertexKind::Socket => (palette::BLUE, RGBColor(255, 255, 255)),
            VertexKind::Memory => (palette::SKY_BLUE, palette::BLACK),
            VertexKind::Pool => (palette::VERMILLION, RGBColor(255, 255, 255)),
            VertexKind::Switch => (palette::GREY, palette::BLACK),
        };
        match v.kind {
            VertexKind::Socket => {
                area.draw(&Circle::new((x, y), r, fill.filled()))?;
            }
            VertexKind::Switch => {
                let d = r * 2 / 3;
                let pts = vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y)];
                area.draw(&Polygon::new(pts, fill.filled()))?;
            }
            VertexKind::Memory | VertexKind::Pool => {
                let s = if v.kind == VertexKind::Pool { r + 10 } else { r - 2 };
                area.draw(&Rectangle::new(
                    [(x - s, y - s * 3 / 4), (x + s, y + s * 3 / 4)],
                    fill.filled(),
                ))?;
            }
        }
        let inside = v.kind != VertexKind::Switch && v.name.chars().count() <= 4;
        let (ty, vpos, colour) = if inside {
            (y, VPos::Center, label_colour)
        } else {
            (y + r, VPos::Top, palette::BLACK)
        };
        area.draw(&Text::new(
            v.name.clone(),
            (x, ty),
            text_style(font, colour, HPos::Center, vpos),
        ))?;
        if matches!(v.kind, VertexKind::Memory | VertexKind::Pool) && served_total > 0 {
            let share = 100.0 * served.get(&v.name).copied().unwrap_or(0) as f64 / served_total as f64;
            let dy = if v.kind == VertexKind::Pool { r + 4 } else { r };
            let label = format!("{share:.0}%");
            area.draw(&Text::new(
                label,
                (x, y + dy),
                text_style(font - 2, palette::BLACK, HPos::Center, VPos::Top),
            ))?;
        }
    }
    let bar_w = (w * 0.5) as i32;
    draw_colourbar(area, (w as i32 - bar_w) / 2, h as i32 + 12, bar_w, max)?;
    Ok(())
}

pub fn svg(run: &Run) -> Result<String, ReportError> {
    render_svg("machine graph figure", 820, 900, |root| {
        let area = titled(
            root,
            &format!("Machine {} · link traffic of {}", run.results.machine.name, run.label),
        )?;
        let (graph, key) = area.split_vertically(820);
        draw_run(&graph, run)?;
        let items = [
            ("socket", palette::BLUE),
            ("socket memory (% of accesses served)", palette::SKY_BLUE),
            ("pool memory", palette::VERMILLION),
            ("switch", palette::GREY),
        ];
        let mut x = 20;
        for (label, c) in items {
            key.draw(&Rectangle::new([(x, 8), (x + 16, 24)], c.filled()))?;
            key.draw(&Text::new(
                label,
                (x + 22, 16),
                text_style(FONT_TICK - 2, palette::BLACK, HPos::Left, VPos::Center),
            ))?;
            x += 40 + 9 * label.len() as i32;
        }
        let _ = FONT_LABEL;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Link, MemoryNode, Switch};

    fn machine() -> MachineFile {
        let mem = |n: &str, s: Option<&str>, kind: &str| MemoryNode {
            name: n.into(),
            kind: kind.into(),
            capacity_bytes: 1 << 30,
            attached_socket: s.map(str::to_string),
            peak_bandwidth_gbps: 0.0,
        };
        let link = |a: &str, b: &str| Link {
            name: format!("{a}-{b}"),
            a: a.into(),
            b: b.into(),
            link_type: None,
            bandwidth_gbps_ab: 1.0,
            bandwidth_gbps_ba: 1.0,
        };
        MachineFile {
            name: "m".into(),
            description: String::new(),
            sockets: vec!["s0".into(), "s1".into(), "s2".into(), "s3".into()],
            memory_nodes: vec![
                mem("m0", Some("s0"), "dram"),
                mem("m1", Some("s1"), "dram"),
                mem("m2", Some("s2"), "dram"),
                mem("m3", Some("s3"), "dram"),
                mem("pool", None, "cxl-pool"),
            ],
            switches: vec![Switch { name: "x0".into() }, Switch { name: "x1".into() }],
            links: vec![
                link("s0", "x0"),
                link("s1", "x0"),
                link("s0", "x1"),
                link("s1", "x1"),
                link("s2", "pool"),
            ],
            load_latency_ns: vec![],
        }
    }

    #[test]
    fn layout_places_every_vertex_once_and_apart() {
        let v = layout(&machine());
        assert_eq!(v.len(), 4 + 5 + 2);
        for (i, a) in v.iter().enumerate() {
            for b in &v[i + 1..] {
                assert!((a.x - b.x).hypot(a.y - b.y) > 0.05, "{} and {} overlap", a.name, b.name);
            }
        }
        let pool = v.iter().find(|x| x.name == "pool").unwrap();
        assert_eq!((pool.x, pool.y, pool.kind), (0.0, 0.0, VertexKind::Pool));
        // Memory sits outside its socket, on the same bearing.
        let (s0, m0) = (&v[0], v.iter().find(|x| x.name == "m0").unwrap());
        assert!(m0.x.hypot(m0.y) > s0.x.hypot(s0.y));
        assert!((m0.y.atan2(m0.x) - s0.y.atan2(s0.x)).abs() < 1e-9);
    }
}
