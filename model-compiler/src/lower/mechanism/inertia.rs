//! Mass properties of a body: given, or summed from parts; checks of an inertia tensor.

use crate::description::{BodyDesc, Shape};
use crate::lower::mass::MassProps;
use crate::lower::{Ctx, Expect};
use crate::units::Dim;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

pub(super) fn mass_props(cx: &mut Ctx, b: &BodyDesc) -> MassProps {
    let name = b.name.get_ref();
    let explicit = b.mass.is_some() || b.com.is_some() || b.inertia.is_some();
    let zero = MassProps::point(1.0, [0.0; 3]);
    if let Some(m) = &b.massless
        && *m.get_ref()
    {
        if explicit || b.parts.is_some() {
            cx.error(
                m.span(),
                format!("body '{name}' is massless but gives mass properties"),
                "remove `massless = true`, or remove mass/com/inertia/parts",
            );
        }
        return MassProps {
            mass: 0.0,
            com: [0.0; 3],
            inertia: [0.0; 6],
        };
    }
    match (&b.parts, explicit) {
        (Some(parts), true) => {
            cx.error(
                parts.span_or(b.name.span()),
                format!("body '{name}' gives both `parts` and mass/com/inertia"),
                "keep either `parts` or `mass`, `com` and `inertia`",
            );
            zero
        }
        (None, false) => {
            cx.error(
                b.name.span(),
                format!("body '{name}' has no mass"),
                "give `mass`, `com` and `inertia`, or `parts = [{ shape = \"rod\", mass = ..., from = ..., to = ... }]`; a link without mass needs `massless = true`",
            );
            zero
        }
        (None, true) => {
            let Some(mq) = &b.mass else {
                cx.error(
                    b.name.span(),
                    format!("body '{name}' has com/inertia but no mass"),
                    "add `mass = \"... kg\"`",
                );
                return zero;
            };
            let mass = cx.value(mq, Expect::Dim(Dim::MASS));
            cx.require_positive(mq, mass, "mass");
            let com = match &b.com {
                Some(c) => cx.vec3(c, LENGTH),
                None => {
                    cx.error(
                        mq.span(),
                        format!("body '{name}' has no `com`"),
                        "add `com = [x, y, z]` (body coordinates)",
                    );
                    [0.0; 3]
                }
            };
            let inertia = match &b.inertia {
                Some(i) => {
                    let v = i
                        .get_ref()
                        .each_ref()
                        .map(|q| cx.value(q, Expect::Dim(Dim::INERTIA)));
                    check_inertia(cx, i.span(), v);
                    v
                }
                None => {
                    cx.error(
                        mq.span(),
                        format!("body '{name}' has no `inertia`"),
                        "add `inertia = [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` about the centre of mass, or use `parts`",
                    );
                    [0.0; 6]
                }
            };
            MassProps { mass, com, inertia }
        }
        (Some(parts), false) => {
            if parts.get_ref().is_empty() {
                cx.error(
                    parts.span_or(b.name.span()),
                    format!("body '{name}' has an empty `parts` list"),
                    "add at least one part",
                );
                return zero;
            }
            let list: Vec<MassProps> = parts.get_ref().iter().map(|p| part(cx, p)).collect();
            let total = MassProps::combine(&list);
            if total.mass <= 0.0 {
                cx.error(
                    parts.span_or(b.name.span()),
                    format!("the parts of body '{name}' have no mass"),
                    "give the parts positive masses",
                );
            }
            total
        }
    }
}

/// An explicit inertia tensor must be one of a real mass distribution: symmetric positive
/// semi-definite, principal moments obeying the triangle inequality. (Zero moments are
/// allowed: slender rods and point masses; whether the machine can move is checked on the
/// mass matrix.)
pub(super) fn check_inertia(cx: &mut Ctx, span: std::ops::Range<usize>, v: [f64; 6]) {
    if v.iter().any(|x| x.is_nan()) {
        return;
    }
    let [a, b, c] = principal_moments(v);
    let scale = a.abs().max(b.abs()).max(c.abs());
    let tol = 1e-9 * scale + 1e-300;
    if a < -tol {
        cx.error(
            span,
            format!(
                "the inertia tensor is not positive semi-definite (principal moments {}, {}, {})",
                g(a),
                g(b),
                g(c)
            ),
            "give [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] about the centre of mass as tensor components (Ixy is the (1,2) entry, i.e. minus the product of inertia); or use `parts` to compute it",
        );
    } else if a + b < c - tol {
        cx.error(
            span,
            format!(
                "the principal moments of inertia {}, {}, {} violate the triangle inequality ({} + {} < {}): no mass distribution has this inertia",
                g(a),
                g(b),
                g(c),
                g(a),
                g(b),
                g(c)
            ),
            "each principal moment must not exceed the sum of the other two; check the values (about the centre of mass, in kg·m²) or use `parts`",
        );
    }
}

pub(super) fn g(x: f64) -> String {
    format!("{:.6}", x)
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// Eigenvalues of the symmetric tensor `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`, ascending.
pub(crate) fn principal_moments(v: [f64; 6]) -> [f64; 3] {
    // Scaled to entries of at most 1 so that huge values cannot overflow.
    let scale = v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return [0.0; 3];
    }
    let v = v.map(|x| x / scale);
    let m = nalgebra::Matrix3::new(v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]);
    let Some(e) = nalgebra::SymmetricEigen::try_new(m, 1e-15, 10_000) else {
        return [0.0; 3];
    };
    let mut out = [e.eigenvalues[0], e.eigenvalues[1], e.eigenvalues[2]].map(|x| x * scale);
    out.sort_by(|a, b| a.total_cmp(b));
    out
}

pub(super) fn part(
    cx: &mut Ctx,
    p: &crate::description::Located<crate::description::PartDesc>,
) -> MassProps {
    let span = p.span_or(p.value.shape.span());
    let p = p.get_ref();
    let mass = cx.value(&p.mass, Expect::Dim(Dim::MASS));
    cx.require_positive(&p.mass, mass, "mass");
    let shape = *p.shape.get_ref();
    let cylinder_between_points = p.from.is_some() || p.to.is_some();
    let (wanted, name): (&[&str], &str) = match shape {
        Shape::Rod => (&["from", "to"], "rod"),
        Shape::Point => (&["at"], "point"),
        Shape::Box => (&["center", "size"], "box"),
        Shape::Cylinder if cylinder_between_points => (&["from", "to", "radius"], "cylinder"),
        Shape::Cylinder => (&["center", "axis", "length", "radius"], "cylinder"),
    };
    let spans = |v: &Option<crate::description::Vec3>| v.as_ref().map(|v| v.span());
    let qspan = |q: &Option<crate::description::Quantity>| q.as_ref().map(|q| q.span());
    let fields = [
        ("from", spans(&p.from)),
        ("to", spans(&p.to)),
        ("at", spans(&p.at)),
        ("center", spans(&p.center)),
        ("size", spans(&p.size)),
        ("axis", spans(&p.axis)),
        ("length", qspan(&p.length)),
        ("radius", qspan(&p.radius)),
    ];
    let list = wanted
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ");
    for (key, v) in fields {
        match (wanted.contains(&key), v) {
            (true, None) => cx.error(
                span.clone(),
                format!("a {name} part needs `{key}`"),
                if shape == Shape::Cylinder {
                    format!("a cylinder part takes {list} (or `from`, `to`, `radius`, or `center`, `axis`, `length`, `radius`)")
                } else {
                    format!("add `{key}`: a {name} part takes {list}")
                },
            ),
            (false, Some(s)) => cx.error(
                s,
                format!("a {name} part has no `{key}`"),
                format!("a {name} part takes {list}"),
            ),
            _ => {}
        }
    }
    let get = |cx: &mut Ctx, v: &Option<crate::description::Vec3>| {
        cx.vec3_or(v.as_ref(), LENGTH, [0.0; 3])
    };
    match shape {
        Shape::Rod => MassProps::rod(mass, get(cx, &p.from), get(cx, &p.to)),
        Shape::Point => MassProps::point(mass, get(cx, &p.at)),
        Shape::Box => {
            let center = get(cx, &p.center);
            let size = get(cx, &p.size);
            if let Some(s) = &p.size
                && size.iter().any(|x| *x < 0.0)
            {
                cx.error(
                    s.span(),
                    "the edge lengths of a box must not be negative",
                    "give size = [x, y, z] with lengths of zero or more",
                );
            }
            MassProps::cuboid(mass, center, size)
        }
        Shape::Cylinder => {
            let radius = cx.value_or(p.radius.as_ref(), LENGTH, 0.0);
            if let Some(q) = &p.radius {
                cx.require_positive(q, radius, "radius");
            }
            let (center, axis, length) = if cylinder_between_points {
                let from = get(cx, &p.from);
                let to = get(cx, &p.to);
                let d = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
                let l = dot(d, d).sqrt();
                let center = [
                    (from[0] + to[0]) / 2.0,
                    (from[1] + to[1]) / 2.0,
                    (from[2] + to[2]) / 2.0,
                ];
                if l > 0.0 {
                    (center, d.map(|x| x / l), l)
                } else {
                    if let Some(t) = &p.to
                        && !l.is_nan()
                    {
                        cx.error(
                            t.span(),
                            "the cylinder's `from` and `to` are the same point",
                            "give the two end centres of the cylinder, or use `center`, `axis`, `length`",
                        );
                    }
                    (center, [0.0, 0.0, 1.0], 0.0)
                }
            } else {
                let center = get(cx, &p.center);
                let axis = match &p.axis {
                    Some(a) => cx.direction(a, "the cylinder axis"),
                    None => [0.0, 0.0, 1.0],
                };
                let length = cx.value_or(p.length.as_ref(), LENGTH, 0.0);
                if let Some(q) = &p.length {
                    cx.require_positive(q, length, "length");
                }
                (center, axis, length)
            };
            MassProps::cylinder(mass, center, axis, radius, length)
        }
    }
}

pub(super) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(super) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
