//! The FMU's icon: the side view of the machine at its initial pose (the drawing of its
//! model page, `report::drawing`) as a square PNG with a transparent margin, for
//! `model.png` (FMI 2.0, shown by Dymola, SimulationX and others) and
//! `terminalsAndIcons/icon.png` (FMI 3.0).

use crate::lower::Lowered;
use resvg::{tiny_skia, usvg};
use std::sync::Arc;

/// Edge of the square icon [px].
pub const SIZE: u32 = 256;

/// The PNG bytes of the icon.
pub fn png(l: &Lowered) -> Result<Vec<u8>, String> {
    // The pose as described (no equilibrium solve at build time: an icon needs no
    // settled springs).
    let instance = fmu_runtime::Instance::new(Arc::new(l.model.clone()));
    let z = instance.state().z.clone();
    let svg = crate::report::drawing::machine(l, &z, l.report.view, &l.body_names);
    // The labels, title, axes and scale bar are unreadable at icon size: bodies only.
    let svg = without_text(&svg);
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())
        .map_err(|e| format!("the icon's drawing is not valid SVG: {e}"))?;
    let size = tree.size();
    let scale = SIZE as f32 / size.width().max(size.height());
    let mut pixmap =
        tiny_skia::Pixmap::new(SIZE, SIZE).ok_or("cannot allocate the icon's pixels")?;
    let dy = (SIZE as f32 - scale * size.height()) / 2.0;
    let dx = (SIZE as f32 - scale * size.width()) / 2.0;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_row(scale, 0.0, 0.0, scale, dx, dy),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the icon: {e}"))
}

/// `svg` without its `<text>` elements.
fn without_text(svg: &str) -> String {
    svg.lines()
        .filter(|l| !l.contains("<text"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_icon_is_a_square_png_of_the_machine() {
        let l = crate::compile_shipped("excavator.toml");
        let bytes = png(&l).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let pixmap = tiny_skia::Pixmap::decode_png(&bytes).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (SIZE, SIZE));
        // The machine is drawn: coloured pixels, not only the white background.
        let coloured = pixmap
            .pixels()
            .iter()
            .filter(|p| p.alpha() > 0 && !(p.red() > 240 && p.green() > 240 && p.blue() > 240))
            .count();
        let share = coloured as f64 / (SIZE * SIZE) as f64;
        assert!(share > 0.05 && share < 0.9, "{share}");
    }
}
