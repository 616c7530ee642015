//! Colours and type sizes for every figure. Okabe & Ito's eight colours are distinguishable
//! under the common colour-vision deficiencies; sequences (latency, link load, many nodes) use
//! viridis, which is perceptually uniform and also colour-blind safe.

use plotters::style::RGBColor;

pub const BLACK: RGBColor = RGBColor(0, 0, 0);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const SKY_BLUE: RGBColor = RGBColor(86, 180, 233);
pub const BLUISH_GREEN: RGBColor = RGBColor(0, 158, 115);
pub const YELLOW: RGBColor = RGBColor(240, 228, 66);
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub const REDDISH_PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const GREY: RGBColor = RGBColor(150, 150, 150);
pub const LIGHT_GREY: RGBColor = RGBColor(225, 225, 225);

/// Okabe-Ito order for categorical series (black last: it is used for text).
pub const CATEGORICAL: [RGBColor; 7] = [BLUE, ORANGE, BLUISH_GREEN, VERMILLION, SKY_BLUE, REDDISH_PURPLE, YELLOW];

pub fn categorical(i: usize) -> RGBColor {
    CATEGORICAL[i % CATEGORICAL.len()]
}

/// Font sizes in px at the figure's native size: readable when a figure is shrunk to one
/// column of a paper (about half size).
pub const FONT_TITLE: u32 = 26;
pub const FONT_LABEL: u32 = 22;
pub const FONT_TICK: u32 = 18;
pub const FONT: &str = "sans-serif";

/// Sort key of access classes: local, remote by hop count, pool, block transfer, others.
pub fn class_order(class: &str) -> (u32, String) {
    let rank = if class == "local" {
        0
    } else if let Some(h) = class.strip_prefix("remote_").and_then(|s| s.strip_suffix("hop")) {
        h.parse::<u32>().map(|h| 1 + h.min(50)).unwrap_or(60)
    } else if class.contains("pool") {
        100
    } else if class.contains("block") {
        110
    } else {
        200
    };
    (rank, class.to_string())
}

/// Colour of an access class: local green, remote hops through blues and purple, pool vermillion.
pub fn class_colour(class: &str) -> RGBColor {
    match class_order(class).0 {
        0 => BLUISH_GREEN,
        r @ 1..=60 => [SKY_BLUE, BLUE, REDDISH_PURPLE, ORANGE, YELLOW][((r - 1) as usize).saturating_sub(1) % 5],
        100 => VERMILLION,
        110 => BLACK,
        _ => GREY,
    }
}

/// Human label of an access class: `remote_2hop` → `remote, 2 hops`.
pub fn class_label(class: &str) -> String {
    match class.strip_prefix("remote_").and_then(|s| s.strip_suffix("hop")) {
        Some("1") => "remote, 1 hop".into(),
        Some(h) => format!("remote, {h} hops"),
        None => class.replace('_', " "),
    }
}

/// Viridis at `t` in [0, 1] (piecewise linear through 9 samples of the matplotlib map).
pub fn viridis(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 9] = [
        (68, 1, 84),
        (71, 44, 122),
        (59, 81, 139),
        (44, 113, 142),
        (33, 144, 141),
        (39, 173, 129),
        (92, 200, 99),
        (170, 220, 50),
        (253, 231, 37),
    ];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = t * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

/// Text colour readable on `bg`.
pub fn text_on(bg: RGBColor) -> RGBColor {
    let l = 0.299 * bg.0 as f64 + 0.587 * bg.1 as f64 + 0.114 * bg.2 as f64;
    if l > 140.0 {
        BLACK
    } else {
        RGBColor(255, 255, 255)
    }
}

/// Colours of memory nodes: socket-attached nodes along viridis (their order is the socket
/// order), pool nodes vermillion/orange so they stand out.
pub fn node_colours(names: &[String], is_pool: impl Fn(&str) -> bool) -> Vec<RGBColor> {
    let dram: Vec<&String> = names.iter().filter(|n| !is_pool(n)).collect();
    let mut pool_i = 0;
    let mut dram_i = 0;
    names
        .iter()
        .map(|n| {
            if is_pool(n) {
                pool_i += 1;
                [VERMILLION, ORANGE, REDDISH_PURPLE][(pool_i - 1) % 3]
            } else if dram.len() <= 4 {
                dram_i += 1;
                [BLUE, SKY_BLUE, BLUISH_GREEN, YELLOW][dram_i - 1]
            } else {
                dram_i += 1;
                viridis(0.9 * (dram_i - 1) as f64 / (dram.len() - 1) as f64)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_sort_local_remote_by_hops_then_pool() {
        let mut c = vec!["pool", "remote_3hop", "local", "remote_10hop", "remote_1hop"];
        c.sort_by_key(|c| class_order(c));
        assert_eq!(c, ["local", "remote_1hop", "remote_3hop", "remote_10hop", "pool"]);
        assert_eq!(class_label("remote_1hop"), "remote, 1 hop");
        assert_eq!(class_label("remote_3hop"), "remote, 3 hops");
    }

    #[test]
    fn viridis_ends_and_nan() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(f64::NAN), RGBColor(68, 1, 84));
    }

    /// The Python package's plots colour access classes as the report does.
    #[test]
    fn python_plots_use_the_report_class_colours() {
        let plot = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../numasim-py/python/numasim/plot.py"
        ))
        .unwrap();
        let line = plot
            .lines()
            .find(|l| l.starts_with("CLASS_COLOURS = {"))
            .expect("plot.py has CLASS_COLOURS");
        let mut checked = 0;
        for pair in line["CLASS_COLOURS = {".len()..].trim_end_matches('}').split(", ") {
            let (class, hex) = pair.split_once(": ").unwrap();
            let (class, hex) = (class.trim_matches('"'), hex.trim_matches('"'));
            let c = class_colour(class);
            assert_eq!(hex, format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2), "{class}");
            checked += 1;
        }
        assert_eq!(checked, 8);
    }
}
