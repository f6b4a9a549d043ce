//! The text of a page: the description's leading comment, numbers, the interface tables.

use crate::lower::report::is_automatic;
use fmu_runtime::model::{Causality, Variability, Variable};
use std::fmt::Write as _;

/// The first paragraph of the description's leading comment block, as one line.
pub fn leading_paragraph(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(c) = line.strip_prefix('#') else {
            break;
        };
        let c = c.trim();
        if c.is_empty() {
            if out.is_empty() {
                continue;
            }
            break;
        }
        out.push(c);
    }
    out.join(" ")
}

/// The whole leading comment block (without the `# `).
pub(super) fn leading_comment(text: &str) -> String {
    text.lines()
        .map_while(|l| l.strip_prefix('#'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Markdown table cell text.
pub(super) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Compact number.
pub(super) fn num(x: f64) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    if (1e-3..1e6).contains(&x.abs()) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        // At most 6 significant digits.
        let digits = s.chars().filter(|c| c.is_ascii_digit()).count();
        if digits > 7 {
            return format!(
                "{:.*}",
                (5 - x.abs().log10().floor() as i32).max(0) as usize,
                x
            );
        }
        s.to_string()
    } else {
        format!("{x:.4e}")
    }
}

pub(super) fn unit_cell(v: &Variable) -> String {
    match (&v.unit, &v.display_unit) {
        (Some(u), Some(d)) if d != u => format!("{u} ({d})"),
        (Some(u), _) => u.clone(),
        _ => String::new(),
    }
}

pub(super) fn interface_tables(out: &mut String, variables: &[Variable]) {
    let inputs: Vec<&Variable> = variables
        .iter()
        .filter(|v| v.causality == Causality::Input)
        .collect();
    let params: Vec<&Variable> = variables
        .iter()
        .filter(|v| v.causality == Causality::Parameter && !is_automatic(&v.name))
        .collect();
    let outputs: Vec<&Variable> = variables
        .iter()
        .filter(|v| v.causality == Causality::Output && !is_automatic(&v.name))
        .collect();
    let range = |v: &Variable| match (v.min, v.max) {
        (None, None) => String::new(),
        (a, b) => format!(
            "{} … {}",
            a.map_or("".into(), num),
            b.map_or("".into(), num)
        ),
    };
    let _ = writeln!(out, "### Inputs\n");
    if inputs.is_empty() {
        let _ = writeln!(out, "None.\n");
    } else {
        let _ = writeln!(out, "| name | unit | start | range | description |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for v in inputs {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                v.name,
                unit_cell(v),
                v.start.map_or(String::new(), num),
                range(v),
                cell(&v.description)
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "### Parameters\n");
    if params.is_empty() {
        let _ = writeln!(out, "None.\n");
    } else {
        let _ = writeln!(out, "| name | variability | unit | start | description |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for v in params {
            let var = match v.variability {
                Variability::Tunable => "tunable",
                Variability::Fixed => "fixed",
                _ => "constant",
            };
            let _ = writeln!(
                out,
                "| `{}` | {var} | {} | {} | {} |",
                v.name,
                unit_cell(v),
                v.start.map_or(String::new(), num),
                cell(&v.description)
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "### Outputs\n");
    let _ = writeln!(out, "| name | unit | description |");
    let _ = writeln!(out, "|---|---|---|");
    for v in outputs {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            v.name,
            unit_cell(v),
            cell(&v.description)
        );
    }
    let auto: Vec<&str> = variables
        .iter()
        .filter(|v| is_automatic(&v.name))
        .map(|v| v.name.as_str())
        .collect();
    if !auto.is_empty() {
        let _ = writeln!(
            out,
            "\nEvery hydromech FMU also has {}.",
            auto.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out.push('\n');
}
