//! What `hydromech fit` prints and writes: the fitted values with their standard errors
//! and correlations, the agreement before and after on the fit window and the hold-out,
//! the fitted description (the source file with the fitted values and their provenance)
//! and before/after plots.

use super::{Agreement, Errors, Fit, Setup};
use crate::report::plot::{Series, line_plot};
use std::fmt::Write as _;

/// The table of fitted values and the agreement, as printed.
pub fn summary(s: &Setup, f: &Fit, before: &Agreement, after: &Agreement) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "fit over {:.6}..{:.6} s: {} residuals, {} simulations, {}",
        s.window().0,
        s.window().1,
        f.residuals,
        f.simulations,
        f.termination
    );
    let _ = writeln!(
        out,
        "weighted cost ½Σr²: {:.6e} → {:.6e} ({:.1} % of the start)\n",
        f.cost_start,
        f.cost,
        100.0 * f.cost / f.cost_start
    );
    let _ = writeln!(
        out,
        "{:<44} {:>14} {:>14} {:>12}  bounds",
        "field", "start", "fitted", "std. error"
    );
    for (j, free) in s.free.iter().enumerate() {
        let field = &s.fit.free[j][0];
        let (unit, factor) = field.unit.clone().unwrap_or_else(|| (String::new(), 1.0));
        let se = f.std_errors[j];
        let se = if se.is_finite() {
            format!("±{:.4e}", se / factor)
        } else if f.at_bound[j] {
            "at bound".into()
        } else {
            "unidentified".into()
        };
        let _ = writeln!(
            out,
            "{:<44} {:>14.6e} {:>14.6e} {:>12}  {}..{} {unit}",
            free.name,
            s.start[j] / factor,
            f.values[j] / factor,
            se,
            free.low / factor,
            free.high / factor
        );
    }
    if s.free.len() > 1 {
        let _ = writeln!(out, "\ncorrelation:");
        for i in 0..s.free.len() {
            let row: Vec<String> = (0..s.free.len())
                .map(|j| format!("{:>6.3}", f.correlation[(i, j)]))
                .collect();
            let _ = writeln!(out, "  {:<44} {}", s.free[i].name, row.join(" "));
        }
    }
    let _ = writeln!(
        out,
        "\nagreement with the record, start → fitted: RMS, max |error| (at t)"
    );
    for (c, name) in s.fit.outputs.iter().enumerate() {
        let (unit, factor) = &s.units[c];
        let show = |e: &Errors| {
            format!(
                "{:.4} / {:.4} (t = {:.3} s)",
                e.rms / factor,
                e.max / factor,
                e.at
            )
        };
        let unit = if unit.is_empty() { "SI" } else { unit };
        for (span, b, a) in [
            ("fit window", &before.window[c], &after.window[c]),
            ("hold-out", &before.holdout[c], &after.holdout[c]),
        ] {
            if !b.rms.is_nan() || !a.rms.is_nan() {
                let _ = writeln!(
                    out,
                    "  {:<36} {span:<10} {} → {}",
                    format!("{name} [{unit}]"),
                    show(b),
                    show(a)
                );
            }
        }
    }
    for (label, a) in [("start", before), ("fitted", after)] {
        if let Some(why) = &a.trajectory.failure {
            let _ = writeln!(
                out,
                "note: the record's run with the {label} values stopped: {why}"
            );
        }
    }
    out
}

/// The description with the fitted values, its provenance in the file's first comment.
#[allow(clippy::too_many_arguments)]
pub fn fitted_description(
    s: &Setup,
    f: &Fit,
    before: &Agreement,
    after: &Agreement,
    name: Option<&str>,
    data: &str,
    date: &str,
    command: &str,
) -> String {
    let mut doc = s.fit.description(&f.values);
    let mut lines = vec![
        format!("FITTED by `hydromech fit` on {date} to the record {data}"),
        format!(
            "over {}..{} s ({} weighted residuals; cost {:.4e} → {:.4e}):",
            s.window().0,
            s.window().1,
            f.residuals,
            f.cost_start,
            f.cost
        ),
    ];
    for (j, free) in s.free.iter().enumerate() {
        let (unit, factor) = s.fit.free[j][0]
            .unit
            .clone()
            .unwrap_or_else(|| (String::new(), 1.0));
        let se = f.std_errors[j];
        let se = if se.is_finite() {
            format!("± {}", num(round3(se / factor)))
        } else if f.at_bound[j] {
            "(at its bound)".into()
        } else {
            "(not identifiable from this record)".into()
        };
        let line = format!(
            "{} = {} {se} {unit} (was {}; bounds {}..{})",
            free.name,
            num(f.values[j] / factor),
            num(s.start[j] / factor),
            num(free.low / factor),
            num(free.high / factor)
        );
        for field in &s.fit.free[j] {
            doc.annotate(field, &format!("FITTED {date}: {line}"));
        }
        lines.push(format!("  {line}"));
    }
    lines.push("agreement with the record, RMS / max |error| (start values → fitted):".into());
    for (c, name) in s.fit.outputs.iter().enumerate() {
        let (unit, factor) = &s.units[c];
        for (span, b, a) in [
            ("fit window", &before.window[c], &after.window[c]),
            ("hold-out", &before.holdout[c], &after.holdout[c]),
        ] {
            if !a.rms.is_nan() {
                lines.push(format!(
                    "  {name} {span}: {} / {} → {} / {} {unit}",
                    num(round3(b.rms / factor)),
                    num(round3(b.max / factor)),
                    num(round3(a.rms / factor)),
                    num(round3(a.max / factor)),
                ));
            }
        }
    }
    lines.push(format!("command: {command}"));
    if let Some(name) = name {
        lines.push(format!("model.name changed to \"{name}\""));
        doc.set_string("model", "name", name);
        if let Some(d) = doc.get_string("model", "description") {
            let file = std::path::Path::new(data)
                .file_name()
                .map_or(data.to_string(), |f| f.to_string_lossy().into_owned());
            doc.set_string(
                "model",
                "description",
                &format!("{d}; parameters fitted by `hydromech fit` to {file}"),
            );
        }
    }
    doc.prepend_comment(&lines);
    doc.text()
}

/// One SVG per channel: the record, the start and the fitted run, the window's end marked
/// by the plot's title.
pub fn plots(s: &Setup, before: &Agreement, after: &Agreement) -> Vec<(String, String)> {
    let t = &s.record.times;
    let window = s.window();
    s.fit
        .outputs
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let (unit, factor) = &s.units[c];
            let scaled = |v: &[f64]| v.iter().map(|x| x / factor).collect::<Vec<f64>>();
            let curve = |label: &str, a: &Agreement, colour| Series {
                label: label.into(),
                time: t[..a.trajectory.reached].to_vec(),
                values: scaled(&a.trajectory.values[c]),
                colour,
                reference: false,
            };
            let series = [
                Series {
                    label: "measured".into(),
                    time: t.clone(),
                    values: scaled(&s.measured[c]),
                    colour: 0,
                    reference: true,
                },
                curve("start values", before, 1),
                curve("fitted", after, 2),
            ];
            let title = format!(
                "{name}: fitted on {}..{} s, the rest held out",
                window.0, window.1
            );
            let label = if unit.is_empty() {
                name.clone()
            } else {
                format!("{name} [{unit}]")
            };
            (format!("{name}.svg"), line_plot(&title, &label, &series))
        })
        .collect()
}

/// The record and both runs as CSV: `time`, then per channel its measured, start and
/// fitted values (in the column's unit).
pub fn trajectories_csv(s: &Setup, before: &Agreement, after: &Agreement) -> String {
    let mut out = String::from("time");
    for (name, (unit, _)) in s.fit.outputs.iter().zip(&s.units) {
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" [{unit}]")
        };
        for what in ["measured", "start", "fitted"] {
            let _ = write!(out, ",{name}.{what}{unit}");
        }
    }
    out.push('\n');
    for (i, t) in s.record.times.iter().enumerate() {
        let _ = write!(out, "{t}");
        for (c, (_, factor)) in s.units.iter().enumerate() {
            let at = |a: &Agreement| {
                if i < a.trajectory.reached {
                    format!("{}", a.trajectory.values[c][i] / factor)
                } else {
                    String::new()
                }
            };
            let _ = write!(
                out,
                ",{},{},{}",
                s.measured[c][i] / factor,
                at(before),
                at(after)
            );
        }
        out.push('\n');
    }
    out
}

/// A number to 7 significant digits, in exponent form when very small or large.
fn num(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e7) {
        let text = format!("{v:.6e}");
        // 6.110153e-4, not 6.110153000e-4.
        match text.split_once('e') {
            Some((m, e)) => {
                let m = m.trim_end_matches('0').trim_end_matches('.');
                format!("{m}e{e}")
            }
            None => text,
        }
    } else {
        format!("{}", super::field::significant(v))
    }
}

/// Rounds to 3 significant digits (standard errors, agreement).
fn round3(v: f64) -> f64 {
    format!("{v:.2e}").parse().unwrap_or(v)
}
