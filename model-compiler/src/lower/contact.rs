//! `collision = [...]` on bodies and `[contact]`: the shapes, the ground and each shape's
//! material, checked and lowered into [`Contacts`].

use super::mechanism::quaternion;
use super::{Ctx, Expect};
use crate::description::{
    BodyDesc, CollisionDesc, CollisionShapeDesc, CollisionShapeKind, ContactFrictionDesc,
    ContactSection, Description, GroundDesc, GroundShape, Located, Name, Quantity, VisualShape,
};
use crate::units::Dim;
use fmu_runtime::contact::law::damping_for_restitution;
use fmu_runtime::model::{
    CollisionShape, ContactPair, Contacts, Geometry, Ground, GroundPlane, Heightfield, Material,
    Mechanism, OtherBody, ShapeContact,
};
use std::ops::Range;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);
const NONE: Expect = Expect::Dim(Dim::NONE);
const VELOCITY: Expect = Expect::Dim(Dim::VELOCITY);

/// Our defaults: a stiff rubber-on-steel contact (1e6 N/m at 1 mm), a restitution of 0.5,
/// dry friction μ_s = 0.6, μ_k = 0.5, stiction below 0.1 mm/s, Stribeck speed 10 mm/s.
pub const DEFAULT_STIFFNESS: f64 = 1e6;
pub const DEFAULT_RESTITUTION: f64 = 0.5;
pub const DEFAULT_FRICTION: (f64, f64) = (0.6, 0.5);
pub const DEFAULT_STICTION_VELOCITY: f64 = 1e-4;
pub const DEFAULT_STRIBECK_VELOCITY: f64 = 1e-2;

/// The material fields of a shape or of the `[contact]` section.
struct MaterialFields<'a> {
    stiffness: Option<&'a Quantity>,
    exponent: Option<&'a Quantity>,
    restitution: Option<&'a Quantity>,
    friction: Option<&'a Located<ContactFrictionDesc>>,
    stiction_velocity: Option<&'a Quantity>,
    stribeck_velocity: Option<&'a Quantity>,
}

impl<'a> MaterialFields<'a> {
    fn of_shape(s: &'a CollisionShapeDesc) -> Self {
        MaterialFields {
            stiffness: s.stiffness.as_ref(),
            exponent: s.exponent.as_ref(),
            restitution: s.restitution.as_ref(),
            friction: s.friction.as_ref(),
            stiction_velocity: s.stiction_velocity.as_ref(),
            stribeck_velocity: s.stribeck_velocity.as_ref(),
        }
    }

    fn of_section(c: Option<&'a ContactSection>) -> Self {
        MaterialFields {
            stiffness: c.and_then(|c| c.stiffness.as_ref()),
            exponent: c.and_then(|c| c.exponent.as_ref()),
            restitution: c.and_then(|c| c.restitution.as_ref()),
            friction: c.and_then(|c| c.friction.as_ref()),
            stiction_velocity: c.and_then(|c| c.stiction_velocity.as_ref()),
            stribeck_velocity: c.and_then(|c| c.stribeck_velocity.as_ref()),
        }
    }

    /// The shape's field, else the section's.
    fn or(self, section: &MaterialFields<'a>) -> Self {
        MaterialFields {
            stiffness: self.stiffness.or(section.stiffness),
            exponent: self.exponent.or(section.exponent),
            restitution: self.restitution.or(section.restitution),
            friction: self.friction.or(section.friction),
            stiction_velocity: self.stiction_velocity.or(section.stiction_velocity),
            stribeck_velocity: self.stribeck_velocity.or(section.stribeck_velocity),
        }
    }
}

/// A shape as the lowering sees it, from `collision` or from a reused visual.
struct ShapeIn<'a> {
    kind: CollisionShapeKind,
    span: Range<usize>,
    desc: Option<&'a CollisionShapeDesc>,
    geometry: Option<Geometry>,
}

pub(super) fn lower_contacts(
    cx: &mut Ctx,
    d: &Description,
    mech: &Mechanism,
    gravity: [f64; 3],
) -> Contacts {
    let section = d.contact.as_ref();
    let defaults = MaterialFields::of_section(section);
    let mut out = Contacts::default();
    for b in &d.bodies {
        let Some(collision) = &b.collision else {
            continue;
        };
        let Some(&body) = cx.bodies.get(b.name.get_ref()) else {
            continue;
        };
        let span = collision.span_or(b.name.span());
        if mech.base.is_some() {
            cx.error(
                span.clone(),
                "contact on a machine whose base a carrier moves is not supported yet",
                "remove `collision` or the base port; contact needs the fixed world as its ground",
            );
            continue;
        }
        let name = b.name.get_ref().clone();
        let mass = mech.bodies[body].mass;
        let mut shapes = Vec::new();
        for (k, shape) in shapes_of(cx, b, collision).into_iter().enumerate() {
            let Some(geometry) = shape
                .geometry
                .or_else(|| shape.desc.and_then(|s| geometry(cx, s)))
            else {
                continue;
            };
            let own = shape.desc.map(MaterialFields::of_shape);
            let fields = match own {
                Some(f) => f.or(&defaults),
                None => MaterialFields::of_section(section),
            };
            let component = format!("{name}.collision{}", k + 1);
            // A bad `[contact]` default is reported once, not for every shape inheriting it.
            let before = cx.errors.len();
            let material = material(cx, &component, &fields, shape.kind, &shape.span);
            let mut k = before;
            while k < cx.errors.len() {
                if cx.errors[..before].contains(&cx.errors[k]) {
                    cx.errors.remove(k);
                } else {
                    k += 1;
                }
            }
            shapes.push(out.shapes.len());
            out.shapes.push(CollisionShape {
                body,
                geometry,
                material,
            });
        }
        if shapes.is_empty() {
            continue;
        }
        if cx
            .params
            .get(mass.index())
            .is_some_and(|s| s.default <= 0.0)
        {
            cx.error(
                span,
                format!("body '{name}' has collision shapes but no mass"),
                "put the shapes on a body that carries mass (the restitution is calibrated for it)",
            );
            continue;
        }
        let own = shapes
            .iter()
            .map(|&shape| {
                let m = &out.shapes[shape].material;
                ShapeContact {
                    shape,
                    other: None,
                    exponent: m.exponent,
                    restitution: m.restitution,
                    damping: m.damping,
                }
            })
            .collect();
        out.pairs.push(ContactPair {
            name,
            body,
            shapes: own,
            mass,
            other: None,
        });
    }
    if out.pairs.is_empty() {
        if let Some(s) = section {
            for list in [&s.pairs, &s.groups].into_iter().flatten().flatten() {
                cx.error(
                    list.span_or(0..0),
                    "no body has collision shapes for these bodies to touch with",
                    "give the bodies `collision = [...]` shapes",
                );
            }
        }
        return out;
    }
    out.ground = ground(cx, section, gravity);
    if let Some(s) = section {
        body_pairs(cx, d, s, mech, &mut out);
    }
    out
}

/// `[contact] pairs` and `groups`: the pairs of bodies whose shapes touch each other,
/// each with the combined law of every pair of their shapes.
fn body_pairs(
    cx: &mut Ctx,
    d: &Description,
    s: &ContactSection,
    mech: &Mechanism,
    out: &mut Contacts,
) {
    let mut wanted: Vec<(usize, usize)> = Vec::new();
    let lists = [(&s.pairs, true), (&s.groups, false)];
    for (lists, explicit) in lists {
        for list in lists.iter().flatten() {
            let names = list.get_ref().bodies.get_ref();
            let span = list.get_ref().bodies.span();
            if explicit && names.len() != 2 {
                cx.error(
                    span,
                    format!("a contact pair names two bodies, got {}", names.len()),
                    "write pairs = [{ bodies = [\"left_jaw\", \"log\"] }]; list more bodies in `groups`",
                );
                continue;
            }
            if !explicit && names.len() < 2 {
                cx.error(
                    span,
                    "a contact group needs two bodies or more",
                    "list the bodies whose shapes touch each other",
                );
                continue;
            }
            let mut bodies = Vec::new();
            for n in names {
                match contact_body(cx, d, n, out) {
                    Some(b) if bodies.contains(&b) => cx.error(
                        n.span(),
                        format!("body '{}' is named twice", n.get_ref()),
                        "name each body once",
                    ),
                    Some(b) => bodies.push(b),
                    None => {}
                }
            }
            for (i, &a) in bodies.iter().enumerate() {
                for &b in &bodies[i + 1..] {
                    let joined = joint_parent(cx, mech, a) == Some(b)
                        || joint_parent(cx, mech, b) == Some(a);
                    let key = (a.min(b), a.max(b));
                    if (explicit || !joined) && !wanted.contains(&key) {
                        wanted.push(key);
                    }
                }
            }
        }
    }
    for (a, b) in wanted {
        let (pa, pb) = (ground_pair(out, a), ground_pair(out, b));
        let mut shapes = Vec::new();
        for sa in &out.pairs[pa].shapes {
            for sb in &out.pairs[pb].shapes {
                let (ma, mb) = (
                    &out.shapes[sa.shape].material,
                    &out.shapes[sb.shape].material,
                );
                let exponent = ma.exponent.max(mb.exponent);
                let restitution = ma.restitution.min(mb.restitution);
                shapes.push(ShapeContact {
                    shape: sa.shape,
                    other: Some(sb.shape),
                    exponent,
                    restitution,
                    damping: damping_for_restitution(restitution, exponent),
                });
            }
        }
        let name = format!("{}.{}", out.pairs[pa].name, out.pairs[pb].name);
        let other = OtherBody {
            body: b,
            mass: out.pairs[pb].mass,
        };
        out.pairs.push(ContactPair {
            name,
            body: a,
            shapes,
            mass: out.pairs[pa].mass,
            other: Some(other),
        });
    }
}

/// The described body a joint joins `body` to: its parent, past the massless bodies a
/// spherical, universal or free joint is made of (none: the ground).
fn joint_parent(cx: &Ctx, mech: &Mechanism, body: usize) -> Option<usize> {
    let described = |b: usize| cx.bodies.values().any(|&v| v == b);
    let mut parent = mech.bodies[body].parent;
    while let Some(p) = parent
        && !described(p)
    {
        parent = mech.bodies[p].parent;
    }
    parent
}

/// The ground pair of a body (every body with shapes has one).
fn ground_pair(out: &Contacts, body: usize) -> usize {
    out.pairs
        .iter()
        .position(|p| p.body == body && p.other.is_none())
        .expect("a body in a pair has its ground pair")
}

/// A body named in a pair or group: known, with collision shapes that can touch bodies.
fn contact_body(cx: &mut Ctx, d: &Description, n: &Name, out: &Contacts) -> Option<usize> {
    let Some(&body) = cx.bodies.get(n.get_ref()) else {
        let names: Vec<&str> = d
            .bodies
            .iter()
            .filter(|b| b.collision.is_some())
            .map(|b| b.name.get_ref().as_str())
            .collect();
        cx.error(
            n.span(),
            format!("no body is named '{}'", n.get_ref()),
            format!("the bodies with collision shapes: {}", names.join(", ")),
        );
        return None;
    };
    let Some(pair) = out.pairs.iter().find(|p| p.body == body) else {
        cx.error(
            n.span(),
            format!("body '{}' has no collision shapes", n.get_ref()),
            "give it `collision = [...]` shapes to touch other bodies with",
        );
        return None;
    };
    if pair
        .shapes
        .iter()
        .any(|s| !out.shapes[s.shape].geometry.pairs_with_bodies())
    {
        cx.error(
            n.span(),
            format!(
                "body '{}' has a collision cylinder, which touches only the ground so far",
                n.get_ref()
            ),
            "use a capsule (or a box) for contact between bodies",
        );
        return None;
    }
    Some(body)
}

/// The ground: a plane as given, through the origin facing up against gravity by default,
/// or a heightfield read from its file.
fn ground(cx: &mut Ctx, section: Option<&ContactSection>, gravity: [f64; 3]) -> Option<Ground> {
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

/// The shapes listed, or the body's visual shapes for `collision = "visual"`.
fn shapes_of<'a>(cx: &mut Ctx, b: &'a BodyDesc, c: &'a Located<CollisionDesc>) -> Vec<ShapeIn<'a>> {
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
                        cx.error(
                            vspan,
                            "a visual mesh cannot collide yet",
                            "list primitive collision shapes (sphere, box, capsule, cylinder) that cover the mesh",
                        );
                        continue;
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

/// A listed shape's geometry, with its fields checked against its kind.
fn geometry(cx: &mut Ctx, s: &CollisionShapeDesc) -> Option<Geometry> {
    let kind = *s.shape.get_ref();
    let name = kind.name();
    let (wanted, optional): (&[&str], &[&str]) = match kind {
        CollisionShapeKind::Sphere => (&["radius"], &["center"]),
        CollisionShapeKind::Box => (&["size"], &["center", "rotation"]),
        CollisionShapeKind::Capsule | CollisionShapeKind::Cylinder => {
            (&["from", "to", "radius"], &[])
        }
        CollisionShapeKind::Mesh => {
            cx.error(
                s.shape.span(),
                "collision meshes are not supported yet",
                "cover the mesh with primitive shapes: sphere, box, capsule, cylinder",
            );
            return None;
        }
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

/// A shape's material: its slots `<component>.stiffness|static_friction|...` and the
/// restitution's damping factor.
fn material(
    cx: &mut Ctx,
    component: &str,
    f: &MaterialFields<'_>,
    kind: CollisionShapeKind,
    span: &Range<usize>,
) -> Material {
    let stiffness = cx.value_or(f.stiffness, Expect::Dim(Dim::STIFFNESS), DEFAULT_STIFFNESS);
    if let Some(q) = f.stiffness {
        cx.require_positive(q, stiffness, "the contact stiffness");
    }
    let curved = matches!(
        kind,
        CollisionShapeKind::Sphere | CollisionShapeKind::Capsule
    );
    let exponent = cx.value_or(f.exponent, NONE, if curved { 1.5 } else { 1.0 });
    if let Some(q) = f.exponent
        && !(1.0..=3.0).contains(&exponent)
        && !exponent.is_nan()
    {
        cx.error(
            q.span(),
            format!("the contact exponent must be from 1 to 3, got {exponent}"),
            "use 1.5 (Hertz, curved surfaces) or 1 (a linear spring)",
        );
    }
    let restitution = cx.value_or(f.restitution, NONE, DEFAULT_RESTITUTION);
    if let Some(q) = f.restitution
        && !(restitution > 0.0 && restitution <= 1.0)
        && !restitution.is_nan()
    {
        cx.error(
            q.span(),
            format!("the coefficient of restitution must be in (0, 1], got {restitution}"),
            "give e between 0 (exclusive: a dead impact) and 1 (elastic), e.g. 0.5",
        );
    }
    let (mu_s, mu_k) = match f.friction {
        None => DEFAULT_FRICTION,
        Some(fr) => {
            let span = fr.span_or(span.clone());
            let (s, k) = match fr.get_ref() {
                ContactFrictionDesc::Both(mu) => (*mu, *mu),
                ContactFrictionDesc::Pair { static_, kinetic } => {
                    let s = cx.value_or(static_.as_ref(), NONE, f64::NAN);
                    let k = cx.value_or(kinetic.as_ref(), NONE, s);
                    (if static_.is_none() { k } else { s }, k)
                }
            };
            if s.is_nan() && k.is_nan() {
                cx.error(
                    span.clone(),
                    "friction needs a coefficient",
                    "write friction = 0.5 or friction = { static = 0.7, kinetic = 0.5 }",
                );
            } else if !(s >= 0.0 && k >= 0.0 && s.is_finite() && k.is_finite()) {
                cx.error(
                    span.clone(),
                    format!(
                        "friction coefficients must be finite and not negative, got {s} and {k}"
                    ),
                    "give coefficients of zero or more, e.g. friction = 0.5",
                );
            } else if k > s {
                cx.error(
                    span.clone(),
                    format!("kinetic friction {k} exceeds static friction {s}"),
                    "static friction is the larger (or equal): swap them or give one number",
                );
            }
            (s, k)
        }
    };
    let stiction = cx.value_or(f.stiction_velocity, VELOCITY, DEFAULT_STICTION_VELOCITY);
    if let Some(q) = f.stiction_velocity {
        cx.require_positive(q, stiction, "the stiction velocity");
    }
    let stribeck = cx.value_or(f.stribeck_velocity, VELOCITY, DEFAULT_STRIBECK_VELOCITY);
    if let Some(q) = f.stribeck_velocity {
        cx.require_positive(q, stribeck, "the Stribeck velocity");
    }
    let usable = restitution > 0.0 && restitution <= 1.0 && (1.0..=3.0).contains(&exponent);
    let damping = if usable {
        damping_for_restitution(restitution, exponent)
    } else {
        0.0
    };
    let mut slot = |field: &str, value: f64, expect: Expect, what: &str| {
        cx.field_slot(component, field, value, expect, what)
    };
    Material {
        stiffness: slot(
            "stiffness",
            stiffness,
            Expect::Dim(Dim::STIFFNESS),
            "Contact stiffness (secant at 1 mm of penetration)",
        ),
        exponent: if exponent.is_finite() { exponent } else { 1.0 },
        restitution: if usable { restitution } else { 1.0 },
        damping,
        static_friction: slot("static_friction", mu_s, NONE, "Static friction coefficient"),
        kinetic_friction: slot(
            "kinetic_friction",
            mu_k,
            NONE,
            "Kinetic friction coefficient",
        ),
        stiction_velocity: slot(
            "stiction_velocity",
            stiction,
            VELOCITY,
            "Slip speed below which friction is regularized",
        ),
        stribeck_velocity: slot(
            "stribeck_velocity",
            stribeck,
            VELOCITY,
            "Speed over which static friction falls to kinetic",
        ),
    }
}
