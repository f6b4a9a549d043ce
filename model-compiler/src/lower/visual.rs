//! Visual geometry of bodies: checked like everything else, written into the FMU's
//! documentation, ignored by the solver.

use super::{Ctx, Expect};
use crate::description::{Description, Located, Quantity, Vec3, VisualDesc, VisualShape};
use crate::units::Dim;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

/// One visual shape of a body, in body coordinates [m].
#[derive(Clone, Debug, PartialEq)]
pub struct Visual {
    pub body: String,
    pub shape: VisualGeometry,
    /// `#rrggbb`, if given.
    pub color: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum VisualGeometry {
    Box {
        center: [f64; 3],
        size: [f64; 3],
    },
    Cylinder {
        from: [f64; 3],
        to: [f64; 3],
        radius: f64,
    },
    Sphere {
        center: [f64; 3],
        radius: f64,
    },
    Mesh {
        file: String,
        scale: f64,
    },
}

impl VisualGeometry {
    /// A one-line description for the documentation.
    pub fn describe(&self) -> String {
        let v = |a: [f64; 3]| format!("[{}, {}, {}]", a[0], a[1], a[2]);
        match self {
            VisualGeometry::Box { center, size } => {
                format!("box at {} m, size {} m", v(*center), v(*size))
            }
            VisualGeometry::Cylinder { from, to, radius } => {
                format!(
                    "cylinder from {} to {} m, radius {radius} m",
                    v(*from),
                    v(*to)
                )
            }
            VisualGeometry::Sphere { center, radius } => {
                format!("sphere at {} m, radius {radius} m", v(*center))
            }
            VisualGeometry::Mesh { file, scale } => format!("mesh {file}, scale {scale}"),
        }
    }
}

pub(super) fn lower_visuals(cx: &mut Ctx, d: &Description) -> Vec<Visual> {
    let mut out = Vec::new();
    for b in &d.bodies {
        let Some(list) = &b.visual else { continue };
        for v in list.get_ref() {
            if let Some(shape) = visual(cx, v) {
                let color = v.get_ref().color.as_ref().and_then(|c| {
                    let t = c.get_ref();
                    let ok = t.len() == 7
                        && t.starts_with('#')
                        && t[1..].bytes().all(|b| b.is_ascii_hexdigit());
                    if ok {
                        Some(t.clone())
                    } else {
                        cx.error(
                            c.span(),
                            format!("'{t}' is not a colour"),
                            "write a colour as \"#rrggbb\", e.g. \"#f0a000\"",
                        );
                        None
                    }
                });
                out.push(Visual {
                    body: b.name.get_ref().clone(),
                    shape,
                    color,
                });
            }
        }
    }
    out
}

fn visual(cx: &mut Ctx, v: &Located<VisualDesc>) -> Option<VisualGeometry> {
    let span = v.span_or(v.value.shape.span());
    let v = v.get_ref();
    let shape = *v.shape.get_ref();
    let (wanted, name): (&[&str], &str) = match shape {
        VisualShape::Box => (&["center", "size"], "box"),
        VisualShape::Cylinder => (&["from", "to", "radius"], "cylinder"),
        VisualShape::Sphere => (&["center", "radius"], "sphere"),
        VisualShape::Mesh => (&["file"], "mesh"),
    };
    let vspan = |x: &Option<Vec3>| x.as_ref().map(|x| x.span());
    let qspan = |x: &Option<Quantity>| x.as_ref().map(|x| x.span());
    let fields = [
        ("center", vspan(&v.center)),
        ("size", vspan(&v.size)),
        ("from", vspan(&v.from)),
        ("to", vspan(&v.to)),
        ("radius", qspan(&v.radius)),
        ("file", v.file.as_ref().map(|f| f.span())),
        ("scale", qspan(&v.scale)),
    ];
    let optional: &[&str] = if shape == VisualShape::Mesh {
        &["scale"]
    } else {
        &[]
    };
    let list = wanted
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut ok = true;
    for (key, s) in fields {
        match (wanted.contains(&key) || optional.contains(&key), s) {
            (true, None) if !optional.contains(&key) => {
                ok = false;
                cx.error(
                    span.clone(),
                    format!("a visual {name} needs `{key}`"),
                    format!("a visual {name} takes {list}"),
                );
            }
            (false, Some(s)) => {
                ok = false;
                cx.error(
                    s,
                    format!("a visual {name} has no `{key}`"),
                    format!("a visual {name} takes {list}"),
                );
            }
            _ => {}
        }
    }
    let mut vec = |x: &Option<Vec3>| cx.vec3_or(x.as_ref(), LENGTH, [0.0; 3]);
    let center = vec(&v.center);
    let size = vec(&v.size);
    let from = vec(&v.from);
    let to = vec(&v.to);
    let radius = cx.value_or(v.radius.as_ref(), LENGTH, 0.0);
    if let Some(q) = &v.radius {
        cx.require_positive(q, radius, "radius");
    }
    if let Some(s) = &v.size
        && size.iter().any(|x| *x < 0.0)
    {
        cx.error(
            s.span(),
            "the edge lengths of a box must not be negative",
            "give size = [x, y, z] with lengths of zero or more",
        );
    }
    let scale = cx.value_or(v.scale.as_ref(), Expect::Dim(Dim::NONE), 1.0);
    if let Some(q) = &v.scale {
        cx.require_positive(q, scale, "scale");
    }
    if let Some(f) = &v.file
        && f.get_ref().trim().is_empty()
    {
        ok = false;
        cx.error(
            f.span(),
            "the mesh file name is empty",
            "give the file of the mesh, e.g. file = \"meshes/boom.stl\"",
        );
    }
    if !ok {
        return None;
    }
    Some(match shape {
        VisualShape::Box => VisualGeometry::Box { center, size },
        VisualShape::Cylinder => VisualGeometry::Cylinder { from, to, radius },
        VisualShape::Sphere => VisualGeometry::Sphere { center, radius },
        VisualShape::Mesh => VisualGeometry::Mesh {
            file: v
                .file
                .as_ref()
                .map(|f| f.get_ref().clone())
                .unwrap_or_default(),
            scale,
        },
    })
}
