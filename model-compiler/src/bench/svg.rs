//! A small hand-written SVG line plot (log–log) of the scaling study: no plotting crate
//! is needed for two lines, axes and a legend.

use super::scaling::ScalingRow;
use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// `s` escaped for SVG text.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Opens an SVG document of `width` × `height` on a white background, with `title`
/// centred on `title_x` at the top.
pub(crate) fn begin(s: &mut String, width: f64, height: f64, title_x: f64, title: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{title_x}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        esc(title)
    );
}

/// Median (solid) and p99 (dashed) µs per step over the number of stages N, one colour per
/// family, with a slope-1 reference line ("linear in N").
pub fn scaling_plot(rows: &[ScalingRow], title: &str) -> String {
    let ok: Vec<&ScalingRow> = rows
        .iter()
        .filter(|r| r.failure.is_none() && r.step.n > 0)
        .collect();
    let mut s = String::new();
    begin(&mut s, W, H, LEFT + (W - LEFT - RIGHT) / 2.0, title);
    if ok.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{}">no data</text></svg>"#,
            H / 2.0
        );
        return s;
    }
    let us = |x: f64| x * 1e6;
    let xmin = ok.iter().map(|r| r.stages).min().unwrap_or(1).max(1) as f64;
    let xmax = (ok.iter().map(|r| r.stages).max().unwrap_or(1) as f64).max(xmin * 2.0);
    let ymin_raw = ok
        .iter()
        .map(|r| us(r.step.median))
        .fold(f64::INFINITY, f64::min);
    let ymax_raw = ok.iter().map(|r| us(r.step.median)).fold(0.0, f64::max);
    let ymin = 10f64.powf(ymin_raw.max(1e-3).log10().floor());
    let ymax = 10f64.powf(ymax_raw.max(ymin * 10.0).log10().ceil());
    let (x0, x1) = (LEFT, W - RIGHT);
    let (y0, y1) = (H - BOTTOM, TOP);
    let px = |x: f64| x0 + (x.log2() - xmin.log2()) / (xmax.log2() - xmin.log2()) * (x1 - x0);
    let py = |y: f64| y0 - (y.log10() - ymin.log10()) / (ymax.log10() - ymin.log10()) * (y0 - y1);

    // Axes, grid and ticks.
    let _ = writeln!(
        s,
        r##"<rect x="{x0}" y="{y1}" width="{}" height="{}" fill="none" stroke="#333"/>"##,
        x1 - x0,
        y0 - y1
    );
    let mut n = xmin;
    while n <= xmax * 1.0001 {
        let x = px(n);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{y1}" x2="{x:.1}" y2="{y0}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{n}</text>"##,
            y0 + 18.0
        );
        n *= 2.0;
    }
    let mut d = ymin;
    while d <= ymax * 1.0001 {
        let y = py(d);
        let label = if d >= 1.0 {
            format!("{d:.0}")
        } else {
            format!("{d}")
        };
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
            x0 - 6.0,
            y + 4.0
        );
        d *= 10.0;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">stages N (bodies = N chain and branches, 3N loops; volumes = 2N)</text>"#,
        (x0 + x1) / 2.0,
        H - 18.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(22 {}) rotate(-90)" text-anchor="middle">µs per internal step (1 ms)</text>"#,
        (y0 + y1) / 2.0
    );

    let families: Vec<&str> = {
        let mut f: Vec<&str> = ok.iter().map(|r| r.family).collect();
        f.dedup();
        f
    };
    let paths: Vec<&str> = {
        let mut p: Vec<&str> = ok.iter().map(|r| r.solver_path).collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let mut legend_y = TOP + 10.0;
    // Median per family (colour) and solver path (solid: dense, dashed: sparse); a filled
    // marker is the path the automatic rule picks.
    for (k, fam) in families.iter().enumerate() {
        let c = colours[k % colours.len()];
        for (j, path) in paths.iter().enumerate() {
            let dash = if j == 0 { "" } else { "6,4" };
            let pts: Vec<&&ScalingRow> = ok
                .iter()
                .filter(|r| r.family == *fam && r.solver_path == *path)
                .collect();
            if pts.is_empty() {
                continue;
            }
            let line: Vec<String> = pts
                .iter()
                .map(|r| format!("{:.1},{:.1}", px(r.stages as f64), py(us(r.step.median))))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                line.join(" ")
            );
            for r in &pts {
                let fill = if r.automatic { c } else { "white" };
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{fill}" stroke="{c}"><title>{} N={} ({}): median {:.2} µs, p99 {:.2} µs, {} unknowns</title></circle>"#,
                    px(r.stages as f64),
                    py(us(r.step.median)),
                    fam,
                    r.stages,
                    path,
                    us(r.step.median),
                    us(r.step.p99),
                    r.unknowns
                );
            }
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{legend_y}" x2="{}" y2="{legend_y}" stroke="{c}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{} {}</text>"#,
                x1 + 12.0,
                x1 + 40.0,
                x1 + 46.0,
                legend_y + 4.0,
                esc(fam),
                esc(path)
            );
            legend_y += 18.0;
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}">filled: automatic choice</text>"#,
        x1 + 12.0,
        legend_y + 4.0
    );
    legend_y += 18.0;
    // Reference slopes N, N², N³ through the first family's middle member, clipped to
    // the plot.
    let first: Vec<&&ScalingRow> = ok.iter().filter(|r| r.family == families[0]).collect();
    if let Some(r0) = first.get(first.len() / 2) {
        let (n0, m0) = (r0.stages as f64, us(r0.step.median));
        for (k, label, colour) in [
            (1.0, "∝ N", "#666"),
            (2.0, "∝ N²", "#999"),
            (3.0, "∝ N³", "#bbb"),
        ] {
            let n_lo = xmin.max(n0 * (ymin / m0).powf(1.0 / k));
            let n_hi = xmax.min(n0 * (ymax / m0).powf(1.0 / k));
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-dasharray="2,3"/><line x1="{}" y1="{legend_y}" x2="{}" y2="{legend_y}" stroke="{colour}" stroke-dasharray="2,3"/><text x="{}" y="{}">{label}</text>"#,
                px(n_lo),
                py(m0 * (n_lo / n0).powf(k)),
                px(n_hi),
                py(m0 * (n_hi / n0).powf(k)),
                x1 + 12.0,
                x1 + 40.0,
                x1 + 46.0,
                legend_y + 4.0
            );
            legend_y += 18.0;
        }
    }
    s.push_str("</svg>\n");
    s
}
