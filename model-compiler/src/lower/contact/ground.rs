//! `[contact] ground`: a plane, or a heightfield read from its file.

use super::super::Ctx;
use super::LENGTH;
use crate::description::{ContactSection, GroundDesc, GroundShape};
use crate::units::Dim;
use fmu_runtime::model::{Ground, GroundPlane, Heightfield};

/// The ground: a plane as given, through the origin facing up against gravity by default,
/// or a heightfield read from its file.
pub(super) fn ground(
    cx: &mut Ctx,
    section: Option<&ContactSection>,
    gravity: [f64; 3],
) -> Option<Ground> {
    let g = gravity;
    let norm = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    let up = if norm > 0.0 {
        [-g[0] / norm, -g[1] / norm, -g[2] / norm]
    } else {
        [0.0, 0.0, 1.0]
    };
    let Some(desc) = section.and_then(|s| s.ground.as_ref()) else {
        return Some(Ground::Plane(GroundPlane {
            point: [0.0; 3],
            normal: up,
        }));
    };
    let desc = desc.get_ref();
    let kind = *desc.shape.get_ref();
    let (takes, list): (&[&str], &str) = match kind {
        GroundShape::Plane => (&["point", "normal"], "`point`, `normal`"),
        GroundShape::Heightfield => (
            &["file", "spacing", "origin", "unit"],
            "`file`, `spacing`, `origin`, `unit`",
        ),
    };
    let given = [
        ("point", desc.point.as_ref().map(|v| v.span())),
        ("normal", desc.normal.as_ref().map(|v| v.span())),
        ("file", desc.file.as_ref().map(|v| v.span())),
        ("spacing", desc.spacing.as_ref().map(|v| v.span())),
        ("origin", desc.origin.as_ref().map(|v| v.span())),
        ("unit", desc.unit.as_ref().map(|v| v.span())),
    ];
    let name = match kind {
        GroundShape::Plane => "plane",
        GroundShape::Heightfield => "heightfield",
    };
    for (key, span) in given {
        if let Some(span) = span
            && !takes.contains(&key)
        {
            cx.error(
                span,
                format!("a ground {name} has no `{key}`"),
                format!("a ground {name} takes {list}"),
            );
        }
    }
    match kind {
        GroundShape::Plane => Some(Ground::Plane(GroundPlane {
            point: cx.vec3_or(desc.point.as_ref(), LENGTH, [0.0; 3]),
            normal: match &desc.normal {
                Some(n) => cx.direction(n, "the ground's normal"),
                None => up,
            },
        })),
        GroundShape::Heightfield => heightfield(cx, desc, up),
    }
}

/// A heightfield ground: the grid's spacing and origin, its heights read from the CSV.
fn heightfield(cx: &mut Ctx, desc: &GroundDesc, up: [f64; 3]) -> Option<Ground> {
    let span = desc.shape.span();
    if up != [0.0, 0.0, 1.0] {
        cx.error(
            span.clone(),
            "a heightfield's heights are along z, but gravity is not along −z",
            "give gravity = [0, 0, -9.81] for a machine on a heightfield",
        );
        return None;
    }
    let (Some(file), Some(spacing)) = (&desc.file, &desc.spacing) else {
        cx.error(
            span,
            "a ground heightfield needs `file` and `spacing`",
            "give file = \"terrain.csv\" (a row of heights per y) and spacing = [\"0.1 m\", \"0.1 m\"]",
        );
        return None;
    };
    let steps = spacing.get_ref().each_ref().map(|q| cx.value(q, LENGTH));
    for (q, v) in spacing.get_ref().iter().zip(steps) {
        cx.require_positive(q, v, "the heightfield's spacing");
    }
    let origin = cx.vec3_or(desc.origin.as_ref(), LENGTH, [0.0; 3]);
    let factor = match &desc.unit {
        None => 1.0,
        Some(u) => match crate::units::parse_unit(u.get_ref()) {
            Ok(unit) if unit.dim == Dim::LENGTH => unit.factor,
            Ok(_) | Err(_) => {
                cx.error(
                    u.span(),
                    format!("'{}' is not a unit of length", u.get_ref()),
                    "give the heights' unit: \"m\", \"mm\", \"cm\"",
                );
                return None;
            }
        },
    };
    let Some(base) = cx.base_dir.clone() else {
        cx.error(
            file.span(),
            "a description given as text cannot name a heightfield file",
            "compile the description from its file, next to the heightfield it names",
        );
        return None;
    };
    let path = base.join(file.get_ref());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            cx.error(
                file.span(),
                format!("cannot read {}: {e}", path.display()),
                "give the path relative to the description",
            );
            return None;
        }
    };
    let (columns, rows, heights) = match parse_heights(&text, file.get_ref(), factor) {
        Ok(grid) => grid,
        Err(e) => {
            cx.error(
                file.span(),
                e,
                "write one row of heights per y, each with a height per x, comma-separated",
            );
            return None;
        }
    };
    if !(steps.iter().all(|s| *s > 0.0) && origin.iter().all(|x| x.is_finite())) {
        return None;
    }
    Some(Ground::Heightfield(Heightfield {
        origin,
        spacing: steps,
        columns,
        rows,
        heights,
    }))
}

/// Heights from CSV text: rows of comma-separated numbers (`#` starts a comment, blank
/// lines skipped), every row as long as the first, at least 2 × 2; times `factor`.
/// Errors name the file, line and column.
pub(super) fn parse_heights(
    text: &str,
    file: &str,
    factor: f64,
) -> Result<(usize, usize, Vec<f64>), String> {
    let mut heights = Vec::new();
    let (mut columns, mut rows) = (0, 0);
    for (l, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("");
        if content.trim().is_empty() {
            continue;
        }
        let mut count = 0;
        let mut column = 1;
        for cell in content.split(',') {
            let word = cell.trim();
            let at = column + (cell.len() - cell.trim_start().len());
            let h = word
                .parse::<f64>()
                .ok()
                .filter(|h| h.is_finite())
                .ok_or_else(|| format!("{file}:{}:{at}: '{word}' is not a height", l + 1))?;
            heights.push(h * factor);
            count += 1;
            column += cell.chars().count() + 1;
        }
        if rows == 0 {
            columns = count;
        } else if count != columns {
            return Err(format!(
                "{file}:{}: {count} heights, the first row has {columns}",
                l + 1
            ));
        }
        rows += 1;
    }
    if columns < 2 || rows < 2 {
        return Err(format!(
            "{file}: {columns} × {rows} heights; a heightfield needs 2 × 2 or more"
        ));
    }
    Ok((columns, rows, heights))
}
