//! A body's collision shapes: listed, or its visual shapes reused.

use super::super::Ctx;
use super::super::mechanism::quaternion;
use super::mesh;
use super::{LENGTH, NONE, ShapeIn};
use crate::description::{
    BodyDesc, CollisionDesc, CollisionShapeDesc, CollisionShapeKind, Located, VisualShape,
};
use fmu_runtime::model::{Geometry, Hull};

/// The shapes listed, or the body's visual shapes for `collision = "visual"`.
pub(super) fn shapes_of<'a>(
    cx: &mut Ctx,
    b: &'a BodyDesc,
    c: &'a Located<CollisionDesc>,
    hulls: &mut Vec<Hull>,
) -> Vec<ShapeIn<'a>> {
    let span = c.span_or(b.name.span());
    match c.get_ref() {
        CollisionDesc::Shapes(list) => list
            .iter()
            .map(|s| ShapeIn {
                kind: *s.get_ref().shape.get_ref(),
                span: s.span_or(s.get_ref().shape.span()),
                desc: Some(s.get_ref()),
                geometry: None,
            })
            .collect(),
        CollisionDesc::Reuse(word) if word == "visual" => {
            let visuals = b
                .visual
                .as_ref()
                .map(|v| v.get_ref().as_slice())
                .unwrap_or(&[]);
            if visuals.is_empty() {
                cx.error(
                    span,
                    format!("body '{}' has no visual shapes to collide with", b.name.get_ref()),
                    "list the collision shapes: collision = [{ shape = \"box\", center = [...], size = [...] }]",
                );
                return Vec::new();
            }
            let mut out = Vec::new();
            for v in visuals {
                let vs = v.get_ref();
                let vspan = v.span_or(vs.shape.span());
                let mut vec =
                    |x: &Option<crate::description::Vec3>| cx.vec3_or(x.as_ref(), LENGTH, [0.0; 3]);
                let (center, size, from, to) =
                    (vec(&vs.center), vec(&vs.size), vec(&vs.from), vec(&vs.to));
                let radius = cx.value_or(vs.radius.as_ref(), LENGTH, 0.0);
                let (kind, geometry) = match vs.shape.get_ref() {
                    VisualShape::Box => (
                        CollisionShapeKind::Box,
                        Geometry::Box {
                            center,
                            rotation: [1.0, 0.0, 0.0, 0.0],
                            half: size.map(|x| 0.5 * x),
                        },
                    ),
                    VisualShape::Cylinder => (
                        CollisionShapeKind::Cylinder,
                        Geometry::Cylinder { from, to, radius },
                    ),
                    VisualShape::Sphere => (
                        CollisionShapeKind::Sphere,
                        Geometry::Sphere { center, radius },
                    ),
                    VisualShape::Mesh => {
                        let Some(file) = &vs.file else { continue };
                        let scale = cx.value_or(vs.scale.as_ref(), NONE, 1.0);
                        let Some(hull) = mesh::hull(cx, file, scale, [0.0; 3], hulls) else {
                            continue;
                        };
                        (CollisionShapeKind::Mesh, hull)
                    }
                };
                if !geometry.is_valid() {
                    cx.error(
                        vspan,
                        format!("this visual {} has no volume to collide with", kind.name()),
                        "give it positive sizes, or list the collision shapes",
                    );
                    continue;
                }
                out.push(ShapeIn {
                    kind,
                    span: vspan,
                    desc: None,
                    geometry: Some(geometry),
                });
            }
            out
        }
        CollisionDesc::Reuse(word) => {
            cx.error(
                span,
                format!("collision = \"{word}\" is not a shape list"),
                "write collision = \"visual\" to collide with the visual shapes, or a list of shapes",
            );
            Vec::new()
        }
    }
}

/// A listed shape's geometry, with its fields checked against its kind (a mesh's hull
/// into `hulls`).
pub(super) fn geometry(
    cx: &mut Ctx,
    s: &CollisionShapeDesc,
    hulls: &mut Vec<Hull>,
) -> Option<Geometry> {
    let kind = *s.shape.get_ref();
    let name = kind.name();
    let (wanted, optional): (&[&str], &[&str]) = match kind {
        CollisionShapeKind::Sphere => (&["radius"], &["center"]),
        CollisionShapeKind::Box => (&["size"], &["center", "rotation"]),
        CollisionShapeKind::Capsule | CollisionShapeKind::Cylinder => {
            (&["from", "to", "radius"], &[])
        }
        CollisionShapeKind::Mesh => (&["file"], &["center", "scale"]),
    };
    let v = |x: &Option<crate::description::Vec3>| x.as_ref().map(|x| x.span());
    let fields = [
        ("center", v(&s.center)),
        ("size", v(&s.size)),
        (
            "rotation",
            s.rotation.as_ref().map(|r| r.span_or(s.shape.span())),
        ),
        ("from", v(&s.from)),
        ("to", v(&s.to)),
        ("radius", s.radius.as_ref().map(|q| q.span())),
        ("file", s.file.as_ref().map(|f| f.span())),
        ("scale", s.scale.as_ref().map(|q| q.span())),
    ];
    let list = wanted
        .iter()
        .chain(optional)
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut ok = true;
    for (key, span) in fields {
        match (wanted.contains(&key), optional.contains(&key), span) {
            (true, _, None) => {
                ok = false;
                cx.error(
                    s.shape.span(),
                    format!("a collision {name} needs `{key}`"),
                    format!("a collision {name} takes {list}"),
                );
            }
            (false, false, Some(span)) => {
                ok = false;
                cx.error(
                    span,
                    format!("a collision {name} has no `{key}`"),
                    format!("a collision {name} takes {list}"),
                );
            }
            _ => {}
        }
    }
    let center = cx.vec3_or(s.center.as_ref(), LENGTH, [0.0; 3]);
    let from = cx.vec3_or(s.from.as_ref(), LENGTH, [0.0; 3]);
    let to = cx.vec3_or(s.to.as_ref(), LENGTH, [0.0; 3]);
    let radius = cx.value_or(s.radius.as_ref(), LENGTH, 0.0);
    if let Some(q) = &s.radius {
        cx.require_positive(q, radius, "the radius");
        ok &= radius > 0.0;
    }
    let size = cx.vec3_or(s.size.as_ref(), LENGTH, [0.0; 3]);
    if let Some(sz) = &s.size
        && !size.iter().all(|x| *x > 0.0 || x.is_nan())
    {
        ok = false;
        cx.error(
            sz.span(),
            "the edge lengths of a collision box must be positive",
            "give size = [x, y, z] with every length above zero",
        );
    }
    if matches!(
        kind,
        CollisionShapeKind::Cylinder | CollisionShapeKind::Capsule
    ) && s.from.is_some()
        && s.to.is_some()
        && from == to
    {
        ok = false;
        cx.error(
            s.to.as_ref().map_or(s.shape.span(), |t| t.span()),
            format!("a collision {name}'s `from` and `to` coincide"),
            format!("give the {name} a length: `to` away from `from`"),
        );
    }
    let rotation = match &s.rotation {
        Some(r) => quaternion(cx, r, s.shape.span()),
        None => [1.0, 0.0, 0.0, 0.0],
    };
    let all = center
        .iter()
        .chain(&from)
        .chain(&to)
        .chain(&size)
        .all(|x| x.is_finite())
        && radius.is_finite();
    if !ok || !all {
        return None;
    }
    if let (CollisionShapeKind::Mesh, Some(file)) = (kind, &s.file) {
        let scale = cx.value_or(s.scale.as_ref(), NONE, 1.0);
        if let Some(q) = &s.scale {
            cx.require_positive(q, scale, "the mesh scale");
        }
        if !(scale > 0.0 && scale.is_finite()) {
            return None;
        }
        return mesh::hull(cx, file, scale, center, hulls);
    }
    Some(match kind {
        CollisionShapeKind::Sphere => Geometry::Sphere { center, radius },
        CollisionShapeKind::Box => Geometry::Box {
            center,
            rotation,
            half: size.map(|x| 0.5 * x),
        },
        CollisionShapeKind::Capsule => Geometry::Capsule { from, to, radius },
        CollisionShapeKind::Cylinder | CollisionShapeKind::Mesh => {
            Geometry::Cylinder { from, to, radius }
        }
    })
}
