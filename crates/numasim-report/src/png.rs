//! PNG output: the figure's SVG rasterised with resvg.
//!
//! Why resvg rather than plotters' bitmap backend: one drawing path (SVG) serves both formats,
//! so a PNG is exactly the SVG figure; resvg is pure Rust and finds fonts itself (fontdb),
//! whereas plotters' bitmap text needs either font-kit (FreeType/fontconfig C libraries) or a
//! font file compiled in. A system sans-serif font is needed for the text; the error says so
//! when there is none.

use crate::error::ReportError;

/// Fonts tried, in order, for the figures' `sans-serif`.
const SANS: [&str; 5] = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial", "Helvetica"];

/// Rasterises `svg` at `scale` (2.0 gives print resolution for a figure drawn at screen size).
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, ReportError> {
    let mut opt = resvg::usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let family = SANS
        .iter()
        .find(|f| db.faces().any(|face| face.families.iter().any(|(n, _)| n == *f)));
    let Some(family) = family else {
        return Err(ReportError::render(
            "PNG",
            "no sans-serif system font found for the text (install fonts-dejavu-core), or write .svg instead",
        ));
    };
    db.set_sans_serif_family(*family);
    opt.font_family = family.to_string();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).map_err(|e| ReportError::render("PNG (parsing SVG)", e))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .ok_or_else(|| ReportError::render("PNG", "empty figure"))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| ReportError::render("PNG", "figure too large"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| ReportError::render("PNG (encoding)", e))
}
