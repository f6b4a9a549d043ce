//! Line plots over time as small SVG files: several series sharing a y axis, "nice" ticks,
//! a grid, units in the axis labels and a legend. Hand-written like the scaling plot of
//! `hydromech bench` (crate::bench::svg): a handful of polylines needs no plotting crate.

use crate::bench::svg::{begin, esc};
use std::fmt::Write;

/// Line colours (matplotlib's tab10) and their light variants for reference curves.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
const LIGHT: [&str; 8] = [
    "#9ecae9", "#f4a3a3", "#a6dc96", "#ffc48a", "#cbb4e0", "#c9a99f", "#f3bddf", "#9fe3ea",
];

/// At most this many points are drawn per series (min/max per bucket keeps the peaks).
pub const MAX_POINTS: usize = 2000;

/// One curve.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub time: Vec<f64>,
    pub values: Vec<f64>,
    /// Colour index; a reference curve is drawn wide and light under the model curves.
    pub colour: usize,
    pub reference: bool,
}

/// Axis ticks: `step` and the tick values covering `[lo, hi]` (about `target` of them).
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> (f64, Vec<f64>) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        let pad = 0.5 * lo.abs().max(1e-9);
        (lo - pad, hi + pad)
    };
    let rough = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= rough * 0.999)
        .unwrap_or(10.0 * mag);
    let first = (lo / step - 1e-9).floor() as i64;
    let last = (hi / step + 1e-9).ceil() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    (step, ticks)
}

/// A tick label with as many decimals as the step needs.
pub fn tick_label(v: f64, step: f64) -> String {
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    if v == 0.0 {
        return "0".into();
    }
    if v != 0.0 && (v.abs() >= 1e6 || step < 1e-4) {
        return format!("{v:.2e}");
    }
    let mut decimals = (-step.log10().floor()).max(0.0) as usize;
    // 2.5, 0.25, ...: one more decimal.
    if ((step / 10f64.powi(-(decimals as i32))) - (step / 10f64.powi(-(decimals as i32))).round())
        .abs()
        > 1e-6
    {
        decimals += 1;
    }
    format!("{v:.decimals$}")
}

/// Indices of the points to draw: all of them, or per bucket the first, min and max.
pub fn decimate(values: &[f64], max_points: usize) -> Vec<usize> {
    let n = values.len();
    if n <= max_points {
        return (0..n).collect();
    }
    let buckets = (max_points / 2).max(1);
    let mut out = Vec::with_capacity(2 * buckets + 1);
    for b in 0..buckets {
        let (start, end) = (b * n / buckets, ((b + 1) * n / buckets).min(n));
        if start >= end {
            continue;
        }
        let (mut lo, mut hi) = (start, start);
        for i in start..end {
            if values[i] < values[lo] {
                lo = i;
            }
            if values[i] > values[hi] {
                hi = i;
            }
        }
        if lo == hi {
            out.push(lo);
        } else {
            out.push(lo.min(hi));
            out.push(lo.max(hi));
        }
    }
    if out.first() != Some(&0) {
        out.insert(0, 0);
    }
    if out.last() != Some(&(n - 1)) {
        out.push(n - 1);
    }
    out
}

/// An SVG line plot of `series` over time; `y_label` names the axis and its unit.
pub fn line_plot(title: &str, y_label: &str, series: &[Series]) -> String {
    xy_plot(title, "time [s]", y_label, series)
}

/// An SVG line plot of `series` (their `time` is the abscissa, named by `x_label`).
pub fn xy_plot(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    const W: f64 = 760.0;
    const LEFT: f64 = 78.0;
    const RIGHT: f64 = 24.0;
    const TOP: f64 = 36.0;
    const PLOT_H: f64 = 240.0;
    let frame = Frame {
        left: LEFT,
        right: W - RIGHT,
        top: TOP,
        bottom: TOP + PLOT_H,
        max_points: MAX_POINTS,
    };
    let legend = Legend::new(series, frame.left, frame.right);
    let h = frame.bottom + 50.0 + 18.0 * legend.rows as f64;
    let mut s = String::new();
    begin(&mut s, W, h, (frame.left + frame.right) / 2.0, title);
    draw(&mut s, &frame, x_label, y_label, series, &legend);
    s.push_str("</svg>\n");
    s
}

/// The plot area of a panel in SVG coordinates (y grows downwards: `top` < `bottom`).
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// At most this many points per curve ([`MAX_POINTS`]; a point per pixel of the
    /// width keeps every peak a screen shows).
    pub max_points: usize,
}

/// Where each series' legend entry goes: in rows below the x-axis label, wrapped at the
/// frame's width (a series without a label — the second bound of a band — has no entry).
pub struct Legend {
    places: Vec<(f64, usize)>,
    /// Rows used (at least one).
    pub rows: usize,
}

impl Legend {
    pub fn new(series: &[Series], left: f64, right: f64) -> Legend {
        let mut places = Vec::new();
        let (mut lx, mut row) = (left, 0usize);
        for s in series {
            if s.label.is_empty() {
                places.push((lx, row));
                continue;
            }
            let w = 40.0 + 7.0 * s.label.chars().count() as f64;
            if lx + w > right && lx > left {
                lx = left;
                row += 1;
            }
            places.push((lx, row));
            lx += w + 16.0;
        }
        Legend {
            places,
            rows: row + 1,
        }
    }
}

/// Draws into `s` a panel: grid and round-number ticks, the frame, the axis labels (none
/// where the label is empty), the curves (references wide and light under the
/// model's) and the legend below.
pub fn draw(
    s: &mut String,
    frame: &Frame,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    legend: &Legend,
) {
    let Frame {
        left: x0,
        right: x1,
        top: y1,
        bottom: y0,
        max_points,
    } = *frame;
    let t_range = series
        .iter()
        .filter(|s| !s.reference)
        .flat_map(|s| s.time.iter().copied())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
            (a.min(t), b.max(t))
        });
    let (t0, t1) = if t_range.0.is_finite() && t_range.1 > t_range.0 {
        t_range
    } else {
        (0.0, 1.0)
    };
    let in_range = |t: f64| t >= t0 - 1e-12 && t <= t1 + 1e-12;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for sr in series {
        for (&t, &v) in sr.time.iter().zip(&sr.values) {
            if in_range(t) && v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    let (ystep, yticks) = nice_ticks(lo, hi, 5);
    let (ylo, yhi) = (yticks[0], *yticks.last().unwrap_or(&(yticks[0] + 1.0)));
    let (xstep, xticks) = nice_ticks(t0, t1, 8);
    let px = |t: f64| x0 + (t - t0) / (t1 - t0) * (x1 - x0);
    let py = |v: f64| y0 - (v - ylo) / (yhi - ylo).max(1e-300) * (y0 - y1);

    // Grid and ticks.
    for &v in &yticks {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            x0 - 6.0,
            y + 4.0,
            tick_label(v, ystep)
        );
    }
    for &t in xticks.iter().filter(|&&t| in_range(t)) {
        let x = px(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{y1}" x2="{x:.1}" y2="{y0}" stroke="#e4e4e4"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            y0 + 16.0,
            tick_label(t, xstep)
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{x0}" y="{y1}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        x1 - x0,
        y0 - y1
    );
    if !x_label.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (x0 + x1) / 2.0,
            y0 + 36.0,
            esc(x_label)
        );
    }
    if !y_label.is_empty() {
        let _ = writeln!(
            s,
            r#"<text transform="translate({} {}) rotate(-90)" text-anchor="middle">{}</text>"#,
            x0 - 60.0,
            (y0 + y1) / 2.0,
            esc(y_label)
        );
    }

    // Curves: references first (wide, light), then the model.
    let mut order: Vec<&Series> = series.iter().filter(|s| s.reference).collect();
    order.extend(series.iter().filter(|s| !s.reference));
    for sr in order {
        let kept: Vec<(f64, f64)> = sr
            .time
            .iter()
            .zip(&sr.values)
            .filter(|(t, v)| in_range(**t) && v.is_finite())
            .map(|(t, v)| (*t, *v))
            .collect();
        let values: Vec<f64> = kept.iter().map(|p| p.1).collect();
        let mut points = String::new();
        for i in decimate(&values, max_points) {
            let _ = write!(points, "{:.1},{:.1} ", px(kept[i].0), py(kept[i].1));
        }
        let (colour, width) = style(sr);
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="{width}" stroke-linejoin="round" points="{}"/>"#,
            points.trim_end()
        );
    }
    // Below the x-axis label, or right below the tick labels without one.
    let legend_top = if x_label.is_empty() { 34.0 } else { 58.0 };
    for (sr, (lx, row)) in series.iter().zip(&legend.places) {
        if sr.label.is_empty() {
            continue;
        }
        let y = y0 + legend_top + 18.0 * *row as f64;
        let (colour, width) = style(sr);
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="{width}"/><text x="{}" y="{}">{}</text>"#,
            lx + 28.0,
            lx + 34.0,
            y + 4.0,
            esc(&sr.label)
        );
    }
}

/// Colour and line width of a series.
fn style(sr: &Series) -> (&'static str, f64) {
    if sr.reference {
        (LIGHT[sr.colour % LIGHT.len()], 3.5)
    } else {
        (COLOURS[sr.colour % COLOURS.len()], 1.6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_covering_the_range() {
        let (step, t) = nice_ticks(0.13, 9.7, 5);
        assert_eq!(step, 2.0);
        assert_eq!(t, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let (step, t) = nice_ticks(-27.3, -12.1, 5);
        assert_eq!(step, 5.0);
        assert_eq!(t.first(), Some(&-30.0));
        assert_eq!(t.last(), Some(&-10.0));
        assert_eq!(tick_label(0.25, 0.25), "0.25");
        assert_eq!(tick_label(-30.0, 5.0), "-30");
        assert_eq!(tick_label(0.1 + 0.2, 0.1), "0.3");
        // Zero is "0" on any scale, not 0.00000000000 beside 5.00e-11.
        assert_eq!(tick_label(0.0, 5e-11), "0");
        assert_eq!(tick_label(1e-12, 5e-3), "0");
        assert_eq!(tick_label(1e-10, 5e-11), "1.00e-10");
        // A constant signal still gets an axis.
        assert!(nice_ticks(3.0, 3.0, 5).1.len() >= 2);
    }

    #[test]
    fn decimation_keeps_peaks_and_ends() {
        let v: Vec<f64> = (0..100_000)
            .map(|i| if i == 54_321 { 10.0 } else { 0.0 })
            .collect();
        let kept = decimate(&v, 2000);
        assert!(kept.len() <= 2001);
        assert!(kept.contains(&54_321) && kept.contains(&0) && kept.contains(&99_999));
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
    }
}
