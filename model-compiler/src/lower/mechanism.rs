//! Bodies (sorted so that parents precede children), joints, markers, cut joints, forces.

use super::mass::MassProps;
use super::{Ctx, Expect};
use crate::description::{BodyDesc, CutType, Description, JointType, PointDesc, Shape};
use crate::units::Dim;
use fmu_runtime::model::{
    Body, CutJoint, CutKind, ForceElement, Frame, JointKind, Marker, Mechanism, PointForce,
    PointRef, SpringDamper,
};

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

pub(super) fn lower_mechanism(cx: &mut Ctx, d: &Description) -> Mechanism {
    for b in &d.bodies {
        cx.declare(&b.name, "body");
    }
    let order = topological_order(cx, &d.bodies);
    for (new_index, &i) in order.iter().enumerate() {
        cx.bodies
            .insert(d.bodies[i].name.get_ref().clone(), new_index);
    }
    let bodies: Vec<Body> = order
        .iter()
        .map(|&i| lower_body(cx, &d.bodies[i]))
        .collect();

    let mut markers = Vec::new();
    for m in &d.markers {
        if cx.declare(&m.name, "marker") {
            cx.markers.insert(m.name.get_ref().clone(), markers.len());
        }
        let body = cx.body_ref(&m.body);
        let point = cx.vec3(&m.point, LENGTH);
        markers.push(Marker {
            name: m.name.get_ref().clone(),
            point: PointRef { body, point },
        });
    }

    let mut cut_joints = Vec::new();
    for c in &d.cut_joints {
        cx.declare_joint(&c.name, "cut joint");
        let a = PointRef {
            body: cx.body_ref(&c.body_a),
            point: cx.vec3(&c.point_a, LENGTH),
        };
        let b = PointRef {
            body: cx.body_ref(&c.body_b),
            point: cx.vec3(&c.point_b, LENGTH),
        };
        let kind = match *c.kind.get_ref() {
            CutType::Spherical => {
                for axis in [&c.axis_a, &c.axis_b].into_iter().flatten() {
                    cx.error(
                        axis.span(),
                        "a spherical cut joint has no axes",
                        "remove axis_a/axis_b or use type = \"revolute\"",
                    );
                }
                CutKind::Spherical
            }
            CutType::Revolute => match (&c.axis_a, &c.axis_b) {
                (Some(aa), Some(ab)) => CutKind::Revolute {
                    axis_a: cx.direction(aa, "axis_a"),
                    axis_b: cx.direction(ab, "axis_b"),
                },
                _ => {
                    cx.error(
                        c.name.span(),
                        format!("revolute cut joint '{}' needs axis_a and axis_b", c.name.get_ref()),
                        "add the hinge axis in each body's frame, e.g. axis_a = [0, 0, 1] and axis_b = [0, 0, 1]",
                    );
                    CutKind::Spherical
                }
            },
            CutType::Prismatic => {
                if let Some(aa) = &c.axis_a {
                    cx.error(
                        aa.span(),
                        "a prismatic cut joint takes only axis_b",
                        "remove axis_a; axis_b is the slide direction on body_b",
                    );
                }
                match &c.axis_b {
                    Some(ab) => CutKind::Prismatic {
                        axis_b: cx.direction(ab, "axis_b"),
                    },
                    None => {
                        cx.error(
                            c.name.span(),
                            format!("prismatic cut joint '{}' needs axis_b", c.name.get_ref()),
                            "add the slide direction in body_b's frame, e.g. axis_b = [1, 0, 0]",
                        );
                        CutKind::Spherical
                    }
                }
            }
        };
        cut_joints.push(CutJoint {
            name: c.name.get_ref().clone(),
            kind,
            a,
            b,
        });
    }

    let mut forces = Vec::new();
    for s in &d.spring_dampers {
        cx.declare(&s.name, "spring-damper");
        let name = s.name.get_ref().clone();
        let a = point_ref(cx, &s.a);
        let b = point_ref(cx, &s.b);
        let k = cx.value(&s.stiffness, Expect::Dim(Dim::STIFFNESS));
        cx.require_non_negative(&s.stiffness, k, "stiffness");
        let c = cx.value_or(s.damping.as_ref(), Expect::Dim(Dim::DAMPING), 0.0);
        if let Some(q) = &s.damping {
            cx.require_non_negative(q, c, "damping");
        }
        let l0 = cx.value(&s.free_length, LENGTH);
        cx.require_non_negative(&s.free_length, l0, "free_length");
        forces.push(ForceElement::SpringDamper(SpringDamper {
            stiffness: cx.slot(
                format!("{name}.stiffness"),
                k,
                Expect::Dim(Dim::STIFFNESS),
                format!("Stiffness of {name}"),
            ),
            damping: cx.slot(
                format!("{name}.damping"),
                c,
                Expect::Dim(Dim::DAMPING),
                format!("Damping of {name}"),
            ),
            free_length: cx.slot(
                format!("{name}.free_length"),
                l0,
                LENGTH,
                format!("Free length of {name}"),
            ),
            name,
            a,
            b,
        }));
    }
    for f in &d.point_forces {
        cx.declare(&f.name, "point force");
        let name = f.name.get_ref().clone();
        let point = PointRef {
            body: cx.body_ref(&f.body),
            point: cx.vec3(&f.point, LENGTH),
        };
        let v = cx.vec3_or(f.force.as_ref(), Expect::Dim(Dim::FORCE), [0.0; 3]);
        let mut force = [fmu_runtime::model::ParamId(0); 3];
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            force[i] = cx.slot(
                format!("{name}.force.{axis}"),
                v[i],
                Expect::Dim(Dim::FORCE),
                format!("World {axis} component of force {name}"),
            );
        }
        forces.push(ForceElement::PointForce(PointForce { name, point, force }));
    }

    Mechanism {
        bodies,
        cut_joints,
        markers,
        forces,
    }
}

pub(super) fn point_ref(cx: &mut Ctx, p: &PointDesc) -> PointRef {
    PointRef {
        body: cx.body_ref(&p.body),
        point: cx.vec3(&p.point, LENGTH),
    }
}

/// Orders bodies so that every parent precedes its children (keeping the file order where
/// possible); reports unknown parents and cycles.
fn topological_order(cx: &mut Ctx, bodies: &[BodyDesc]) -> Vec<usize> {
    let index = |name: &str| bodies.iter().position(|b| b.name.get_ref() == name);
    let mut parent: Vec<Option<usize>> = Vec::with_capacity(bodies.len());
    for b in bodies {
        let p = b.parent.get_ref();
        if p == "ground" {
            parent.push(None);
        } else if let Some(i) = index(p) {
            parent.push(Some(i));
        } else {
            let mut c: Vec<&str> = bodies.iter().map(|b| b.name.get_ref().as_str()).collect();
            c.push("ground");
            cx.unknown(&b.parent, "body", c);
            parent.push(None);
        }
    }
    let mut placed = vec![false; bodies.len()];
    let mut order = Vec::with_capacity(bodies.len());
    while order.len() < bodies.len() {
        let next = (0..bodies.len()).find(|&i| !placed[i] && parent[i].is_none_or(|p| placed[p]));
        match next {
            Some(i) => {
                placed[i] = true;
                order.push(i);
            }
            None => {
                // Every remaining body waits for another remaining body: a cycle.
                let start = (0..bodies.len()).find(|&i| !placed[i]).unwrap();
                let mut path = vec![start];
                let mut cur = start;
                while let Some(p) = parent[cur] {
                    if path.contains(&p) {
                        path.push(p);
                        break;
                    }
                    path.push(p);
                    cur = p;
                }
                let first = *path.last().unwrap();
                let cycle_start = path.iter().position(|&i| i == first).unwrap();
                let names: Vec<&str> = path[cycle_start..]
                    .iter()
                    .map(|&i| bodies[i].name.get_ref().as_str())
                    .collect();
                let culprit = path[cycle_start];
                cx.error(
                    bodies[culprit].parent.span(),
                    format!("the parents of bodies form a cycle: {}", names.join(" → ")),
                    "the parent chain of every body must end at \"ground\"; cut one joint of the loop and add it as a [[cut_joints]] entry",
                );
                for (i, p) in placed.iter_mut().enumerate() {
                    if !*p {
                        *p = true;
                        order.push(i);
                    }
                }
            }
        }
    }
    order
}

fn lower_body(cx: &mut Ctx, b: &BodyDesc) -> Body {
    let name = b.name.get_ref().clone();
    let parent = if b.parent.get_ref() == "ground" {
        None
    } else {
        cx.bodies.get(b.parent.get_ref()).copied()
    };
    if b.parent.get_ref() == b.name.get_ref() {
        cx.error(
            b.parent.span(),
            format!("body '{name}' cannot be its own parent"),
            "set parent to another body or \"ground\"",
        );
    }
    let j = b.joint.get_ref();
    let joint_name = match &j.name {
        Some(n) => {
            cx.declare_joint(n, "joint");
            n.get_ref().clone()
        }
        None => {
            // Default joint name: the body's name (joints have their own namespace).
            if cx.joint_names.contains_key(&name) {
                cx.error(
                    b.joint.span_or(b.name.span()),
                    format!("the joint of body '{name}' would be named '{name}', which another joint already uses"),
                    "give this joint a `name`",
                );
            } else {
                cx.joint_names
                    .insert(name.clone(), ("joint", b.name.span()));
            }
            name.clone()
        }
    };
    let origin = cx.vec3_or(j.origin.as_ref(), LENGTH, [0.0; 3]);
    let rotation = match &j.rotation {
        None => [1.0, 0.0, 0.0, 0.0],
        Some(r) => {
            let axis = cx.direction(&r.axis, "the rotation axis");
            let angle = cx.value(&r.angle, Expect::Dim(Dim::ANGLE));
            let (s, c) = (angle / 2.0).sin_cos();
            [c, s * axis[0], s * axis[1], s * axis[2]]
        }
    };
    let kind = *j.kind.get_ref();
    let joint = match kind {
        JointType::Fixed => {
            if let Some(a) = &j.axis {
                cx.error(
                    a.span(),
                    "a fixed joint has no axis",
                    "remove `axis`, or use type = \"revolute\" or \"prismatic\"",
                );
            }
            if let Some(q) = &j.initial {
                cx.error(
                    q.span(),
                    "a fixed joint has no coordinate",
                    "remove `initial`",
                );
            }
            JointKind::Fixed
        }
        JointType::Revolute | JointType::Prismatic => match &j.axis {
            Some(a) => {
                let axis = cx.direction(a, "the joint axis");
                if kind == JointType::Revolute {
                    JointKind::Revolute { axis }
                } else {
                    JointKind::Prismatic { axis }
                }
            }
            None => {
                cx.error(
                    b.joint.span_or(j.kind.span()),
                    format!("the joint of body '{name}' has no axis"),
                    "add `axis = [0, 0, 1]` (in the joint frame) to the joint",
                );
                JointKind::Fixed
            }
        },
    };
    if let Some(&index) = cx.bodies.get(&name) {
        cx.joints.entry(joint_name.clone()).or_insert(index);
    }
    let q_expect = if kind == JointType::Prismatic {
        LENGTH
    } else {
        Expect::Dim(Dim::ANGLE)
    };
    let q0_value = cx.value_or(j.initial.as_ref(), q_expect, 0.0);
    let q_unit = if kind == JointType::Prismatic {
        "m"
    } else {
        "rad"
    };
    let q0 = cx.slot(
        format!("{name}.q0"),
        q0_value,
        q_expect,
        format!("Initial coordinate of joint {joint_name} [{q_unit}]"),
    );

    let props = mass_props(cx, b);
    let mass = cx.slot(
        format!("{name}.mass"),
        props.mass,
        Expect::Dim(Dim::MASS),
        format!("Mass of body {name}"),
    );
    Body {
        name,
        parent,
        joint,
        joint_name,
        joint_frame: Frame { origin, rotation },
        q0,
        mass,
        com: props.com,
        inertia: props.inertia,
    }
}

fn mass_props(cx: &mut Ctx, b: &BodyDesc) -> MassProps {
    let name = b.name.get_ref();
    let explicit = b.mass.is_some() || b.com.is_some() || b.inertia.is_some();
    let zero = MassProps::point(1.0, [0.0; 3]);
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
                "give `mass`, `com` and `inertia`, or `parts = [{ shape = \"rod\", mass = ..., from = ..., to = ... }]`",
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
                    if v[..3].iter().any(|&x| x < 0.0) {
                        cx.error(
                            i.span(),
                            "the principal components Ixx, Iyy, Izz must not be negative",
                            "check the inertia tensor",
                        );
                    }
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

fn part(cx: &mut Ctx, p: &crate::description::Located<crate::description::PartDesc>) -> MassProps {
    let span = p.span_or(p.value.shape.span());
    let p = p.get_ref();
    let mass = cx.value(&p.mass, Expect::Dim(Dim::MASS));
    cx.require_positive(&p.mass, mass, "mass");
    let shape = *p.shape.get_ref();
    let (wanted, name): (&[&str], &str) = match shape {
        Shape::Rod => (&["from", "to"], "rod"),
        Shape::Point => (&["at"], "point"),
        Shape::Box => (&["center", "size"], "box"),
    };
    let fields = [
        ("from", &p.from),
        ("to", &p.to),
        ("at", &p.at),
        ("center", &p.center),
        ("size", &p.size),
    ];
    for (key, v) in fields {
        match (wanted.contains(&key), v) {
            (true, None) => cx.error(
                span.clone(),
                format!("a {name} part needs `{key}`"),
                format!("add `{key} = [x, y, z]`"),
            ),
            (false, Some(v)) => cx.error(
                v.span(),
                format!("a {name} part has no `{key}`"),
                format!(
                    "a {name} part takes {}",
                    wanted
                        .iter()
                        .map(|w| format!("`{w}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            ),
            _ => {}
        }
    }
    let mut get = |v: &Option<crate::description::Vec3>| cx.vec3_or(v.as_ref(), LENGTH, [0.0; 3]);
    match shape {
        Shape::Rod => MassProps::rod(mass, get(&p.from), get(&p.to)),
        Shape::Point => MassProps::point(mass, get(&p.at)),
        Shape::Box => {
            let center = get(&p.center);
            let size = get(&p.size);
            MassProps::cuboid(mass, center, size)
        }
    }
}
