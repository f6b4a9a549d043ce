//! The flexible bodies on a model's page: per body its reduction (every kept mode's
//! frequency clamped at the joint and free–free, the share of the mass it carries, its
//! damping) and its bending line at instants of the standard manoeuvre.

use super::plot::{self, Series};
use super::{cell, num};
use crate::description::{Description, OutputDesc};
use crate::lower::flexible::FlexibleLowered;
use std::fmt::Write as _;
use toml::Spanned;

/// Instants of the manoeuvre at which the bending lines are drawn.
const INSTANTS: usize = 5;

/// The report run's output for modal coordinate `k` (1-based) of flexible body `body`.
pub fn modal_output(body: &str, k: usize) -> String {
    format!("report.{body}.mode{k}")
}

/// `d` with every flexible body's modal coordinates as outputs, so that the report's run
/// records them; the FMUs that `build` writes keep the interface as described.
pub fn with_modal_outputs(d: &Description, flexible: &[FlexibleLowered]) -> Description {
    let mut d = d.clone();
    let interface = d.interface.get_or_insert_with(Default::default);
    for f in flexible {
        for k in 1..=f.reduction.flexible.modes() {
            interface.outputs.push(OutputDesc {
                name: Spanned::new(0..0, modal_output(&f.name, k)),
                quantity: Spanned::new(0..0, format!("{}.mode{k}", f.name)),
                description: None,
            });
        }
    }
    d
}

/// A point of the bending line: its position along the body's x axis [m] and its
/// translation per unit modal coordinate (body axes, one entry per mode).
struct Station {
    x: f64,
    shape: Vec<[f64; 3]>,
}

/// The stations of a body's bending line: every node of a meshed beam; for an FE model the
/// reference (x = 0, clamped) and the interface nodes.
fn stations(f: &FlexibleLowered) -> Vec<Station> {
    let r = &f.reduction;
    let modes = r.flexible.modes();
    let mut out: Vec<Station> = if f.by_station {
        (r.positions.iter().enumerate())
            .map(|(i, p)| Station {
                x: p[0],
                shape: (0..modes)
                    .map(|k| std::array::from_fn(|c| r.shapes[(r.dofs.start(i) + c, k)]))
                    .collect(),
            })
            .collect()
    } else {
        let mut s: Vec<Station> = (r.flexible.nodes.iter())
            .map(|n| Station {
                x: n.position[0],
                shape: n.translation.clone(),
            })
            .collect();
        s.push(Station {
            x: 0.0,
            shape: vec![[0.0; 3]; modes],
        });
        s
    };
    out.sort_by(|a, b| a.x.total_cmp(&b.x));
    out
}

/// The body's deflection along x at modal coordinates `eta`: (x [m], translation [m] in body
/// axes) at each station, by x.
///
/// ```
/// # use model_compiler::diagnostic::Source;
/// let text = r#"
/// [model]
/// name = "strip"
/// [[bodies]]
/// name = "strip"
/// parent = "ground"
/// joint = { type = "fixed" }
/// [bodies.flexible]
/// beam = { length = "1 m", section = { shape = "rectangle", width = "40 mm", height = "10 mm" }, young = "210 GPa", poisson = 0.3, density = "7850 kg/m3" }
/// nodes = [{ name = "tip", at = "1 m" }]
/// "#;
/// let l = model_compiler::compile(&Source::new("strip.toml", text)).unwrap();
/// let line = model_compiler::report::flexible::bending_line(&l.flexible[0], &[1e-3, 0.0, 0.0, 0.0]);
/// assert!(line[0].1.iter().all(|u| u.abs() < 1e-15)); // clamped at the joint
/// assert!(line.last().unwrap().1.iter().any(|u| u.abs() > 1e-6)); // the first mode bends the tip
/// ```
pub fn bending_line(f: &FlexibleLowered, eta: &[f64]) -> Vec<(f64, [f64; 3])> {
    (stations(f).iter())
        .map(|s| {
            let u = std::array::from_fn(|c| (s.shape.iter().zip(eta)).map(|(p, e)| p[c] * e).sum());
            (s.x, u)
        })
        .collect()
}

/// Writes the page's section on the flexible bodies; `column(name)` is a recorded output
/// of the run at `time`, `write(file, svg)` stores a picture next to the page.
pub fn section(
    page: &mut String,
    flexible: &[FlexibleLowered],
    time: &[f64],
    column: &dyn Fn(&str) -> Vec<f64>,
    stem: &str,
    write: &mut dyn FnMut(&str, &str) -> Result<(), String>,
) -> Result<(), String> {
    if flexible.is_empty() {
        return Ok(());
    }
    let _ = writeln!(page, "## Flexible bodies\n");
    for f in flexible {
        reduction_table(page, f);
        let name = format!("{}-bending.svg", f.name);
        if let Some(svg) = bending_lines(f, time, column) {
            write(&name, &svg)?;
            let _ = writeln!(page, "![bending line of {}]({stem}/{name})\n", f.name);
            let _ = writeln!(
                page,
                "*The bending line of {} in its own axes (the frame clamped at its joint: deflection from the tangent there), at {INSTANTS} instants of the standard manoeuvre.*\n",
                f.name
            );
        }
    }
    Ok(())
}

/// The body's reduction as a table: every kept mode.
fn reduction_table(page: &mut String, f: &FlexibleLowered) {
    let r = &f.reduction;
    let fb = &r.flexible;
    let _ = writeln!(page, "### {}\n", f.name);
    let _ = writeln!(page, "{}\n", cell(&f.summary(num)));
    let _ = writeln!(
        page,
        "| mode | clamped at the joint [Hz] | free–free [Hz] | mass share x / y / z [%] | damping ratio |"
    );
    let _ = writeln!(page, "|---|---|---|---|---|");
    for (k, freq) in r.frequencies.iter().enumerate() {
        let s = r.mass_shares[k];
        let _ = writeln!(
            page,
            "| {} | {freq:.2} | {} | {:.1} / {:.1} / {:.1} | {:.3} |",
            k + 1,
            r.free_frequencies
                .get(k)
                .map_or("—".into(), |f| format!("{f:.2}")),
            100.0 * s[0],
            100.0 * s[1],
            100.0 * s[2],
            fb.damping_ratio(k),
        );
    }
    let _ = writeln!(page);
}

/// The bending line (transverse deflection along x, mm) at [`INSTANTS`] instants spread
/// over the run; `None` when the run recorded nothing or the body never bends.
fn bending_lines(
    f: &FlexibleLowered,
    time: &[f64],
    column: &dyn Fn(&str) -> Vec<f64>,
) -> Option<String> {
    let modes = f.reduction.flexible.modes();
    let eta: Vec<Vec<f64>> = (1..=modes)
        .map(|k| column(&modal_output(&f.name, k)))
        .collect();
    if time.is_empty() || eta.iter().any(|e| e.len() != time.len()) {
        return None;
    }
    let (t0, t1) = (time[0], time[time.len() - 1]);
    let rows: Vec<usize> = (0..INSTANTS)
        .map(|i| {
            let t = t0 + (t1 - t0) * i as f64 / (INSTANTS - 1) as f64;
            time.partition_point(|&x| x < t).min(time.len() - 1)
        })
        .collect();
    // Deflection [mm] of component c at each station, at row `row`.
    let line = |row: usize, c: usize| -> Vec<f64> {
        let at: Vec<f64> = eta.iter().map(|e| e[row]).collect();
        (bending_line(f, &at).iter())
            .map(|(_, u)| 1e3 * u[c])
            .collect()
    };
    let largest = |c: usize| {
        (rows.iter())
            .flat_map(|&row| line(row, c))
            .fold(0.0f64, |m, v| m.max(v.abs()))
    };
    let (ly, lz) = (largest(1), largest(2));
    let top = ly.max(lz);
    if top.is_nan() || top <= 0.0 {
        return None;
    }
    // The transverse directions it bends in (a planar machine's beam: one).
    let components: Vec<(usize, &str)> = [(1, "y"), (2, "z")]
        .into_iter()
        .filter(|&(c, _)| [ly, lz][c - 1] >= 1e-3 * top)
        .collect();
    let x: Vec<f64> = stations(f).iter().map(|s| s.x).collect();
    let mut series = Vec::new();
    for (i, &row) in rows.iter().enumerate() {
        for &(c, axis) in &components {
            let label = if components.len() > 1 {
                format!("t = {} s ({axis})", num(time[row]))
            } else {
                format!("t = {} s", num(time[row]))
            };
            series.push(Series {
                label,
                time: x.clone(),
                values: line(row, c),
                colour: i,
                reference: false,
            });
        }
    }
    let axes: Vec<&str> = components.iter().map(|c| c.1).collect();
    Some(plot::xy_plot(
        &format!("Bending line of {}", f.name),
        "x along the body [m]",
        &format!("deflection {} [mm]", axes.join(", ")),
        &series,
    ))
}
