//! Bodies (sorted so that parents precede children), joints, markers, cut joints, forces.

use super::mass::MassProps;
use super::{BodyInfo, Ctx, Expect};
use crate::description::{
    BodyDesc, CutType, Description, InitialDesc, JointType, PointDesc, Shape,
};
use crate::units::Dim;
use fmu_runtime::model::{
    Body, CutJoint, CutKind, ForceActuator, ForceElement, Frame, JointKind, JointLimit, Marker,
    Mechanism, PointForce, PointRef, SpringDamper, ZyxRotation,
};

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

pub(super) fn lower_mechanism(cx: &mut Ctx, d: &Description) -> Mechanism {
    for b in &d.bodies {
        cx.declare(&b.name, "body");
    }
    let order = topological_order(cx, &d.bodies);
    // Final indices: a spherical (universal) joint puts two (one) generated massless
    // bodies right before its body.
    let mut next = 0;
    for &i in &order {
        next += match d.bodies[i].joint.get_ref().kind.get_ref() {
            JointType::Spherical => 2,
            JointType::Universal => 1,
            JointType::Free => 5,
            _ => 0,
        };
        cx.bodies
            .entry(d.bodies[i].name.get_ref().clone())
            .or_insert(next);
        // A flexible body's interface nodes come right after it.
        next += 1 + super::flexible::node_count(&d.bodies[i]);
    }
    let mut bodies: Vec<Body> = Vec::with_capacity(next);
    let mut limits = Vec::new();
    for &i in &order {
        limits.extend(lower_body(cx, &d.bodies[i], &mut bodies));
    }

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

    for f in &d.force_actuators {
        cx.declare(&f.name, "force actuator");
        let name = f.name.get_ref().clone();
        let a = point_ref(cx, &f.a);
        let b = point_ref(cx, &f.b);
        let start = cx.value_or(f.force.as_ref(), Expect::Dim(Dim::FORCE), 0.0);
        let force = cx.slot(
            format!("{name}.force"),
            start,
            Expect::Dim(Dim::FORCE),
            format!("Force of actuator {name} (positive pushes its points apart)"),
        );
        cx.actuators.insert(name.clone(), forces.len());
        forces.push(ForceElement::ForceActuator(ForceActuator {
            name,
            a,
            b,
            force,
        }));
    }
    forces.extend(limits.into_iter().map(ForceElement::JointLimit));
    for r in &d.ropes {
        if let Some(rope) = super::rope::lower_rope(cx, r, &bodies) {
            cx.ropes.insert(rope.name.clone(), cx.ropes.len());
            forces.push(ForceElement::Rope(rope));
        }
    }
    Mechanism {
        bodies,
        cut_joints,
        markers,
        forces,
        base: None,
        rotations: std::mem::take(&mut cx.rotations),
        flexible: cx.flexible.iter().map(|f| f.runtime_body()).collect(),
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

/// The coordinates of a tree joint: names of the parts of a composite joint and their axes
/// (in the frame of the body before each part).
fn joint_parts(
    cx: &mut Ctx,
    b: &BodyDesc,
    joint_name: &str,
) -> (JointType, Vec<(&'static str, JointKind)>) {
    let name = b.name.get_ref();
    let j = b.joint.get_ref();
    let kind = *j.kind.get_ref();
    let type_name = kind.name();
    let no_axis = |cx: &mut Ctx, why: &str| {
        if let Some(a) = &j.axis {
            cx.error(
                a.span(),
                format!("a {type_name} joint has no `axis`"),
                why.to_string(),
            );
        }
    };
    let no_axes = |cx: &mut Ctx, why: &str| {
        if let Some(a) = &j.axes {
            cx.error(
                a.span(),
                format!("a {type_name} joint has no `axes`"),
                why.to_string(),
            );
        }
    };
    let parts = match kind {
        JointType::Fixed => {
            no_axis(
                cx,
                "remove `axis`, or use type = \"revolute\" or \"prismatic\"",
            );
            no_axes(cx, "remove `axes`");
            vec![("", JointKind::Fixed)]
        }
        JointType::Revolute | JointType::Prismatic => {
            no_axes(
                cx,
                "a revolute or prismatic joint has one `axis`; `axes` is for universal joints",
            );
            match &j.axis {
                Some(a) => {
                    let axis = cx.direction(a, "the joint axis");
                    if kind == JointType::Revolute {
                        vec![("", JointKind::Revolute { axis })]
                    } else {
                        vec![("", JointKind::Prismatic { axis })]
                    }
                }
                None => {
                    cx.error(
                        b.joint.span_or(j.kind.span()),
                        format!("the joint of body '{name}' has no axis"),
                        "add `axis = [0, 0, 1]` (in the joint frame) to the joint",
                    );
                    vec![("", JointKind::Fixed)]
                }
            }
        }
        JointType::Free => {
            let why = "a free joint moves along x, y, z, then turns about z, y, x of its joint frame; orient the frame with `rotation` instead";
            no_axis(cx, why);
            no_axes(cx, why);
            let slide = |axis| JointKind::Prismatic { axis };
            let turn = |axis| JointKind::Revolute { axis };
            vec![
                ("x", slide([1.0, 0.0, 0.0])),
                ("y", slide([0.0, 1.0, 0.0])),
                ("z", slide([0.0, 0.0, 1.0])),
                ("yaw", turn([0.0, 0.0, 1.0])),
                ("pitch", turn([0.0, 1.0, 0.0])),
                ("roll", turn([1.0, 0.0, 0.0])),
            ]
        }
        JointType::Spherical => {
            let why = "a spherical joint turns about z, then y, then x of its joint frame (yaw, pitch, roll); orient the frame with `rotation` instead";
            no_axis(cx, why);
            no_axes(cx, why);
            vec![
                (
                    "yaw",
                    JointKind::Revolute {
                        axis: [0.0, 0.0, 1.0],
                    },
                ),
                (
                    "pitch",
                    JointKind::Revolute {
                        axis: [0.0, 1.0, 0.0],
                    },
                ),
                (
                    "roll",
                    JointKind::Revolute {
                        axis: [1.0, 0.0, 0.0],
                    },
                ),
            ]
        }
        JointType::Universal => {
            no_axis(
                cx,
                "a universal joint has two axes: write `axes = [[0, 0, 1], [0, 1, 0]]`",
            );
            let fallback = vec![
                (
                    "axis1",
                    JointKind::Revolute {
                        axis: [0.0, 0.0, 1.0],
                    },
                ),
                (
                    "axis2",
                    JointKind::Revolute {
                        axis: [0.0, 1.0, 0.0],
                    },
                ),
            ];
            match &j.axes {
                Some(list) if list.get_ref().len() == 2 => {
                    let a1 = cx.direction(&list.get_ref()[0], "the first axis");
                    let a2 = cx.direction(&list.get_ref()[1], "the second axis");
                    let c = cross(a1, a2);
                    if dot(c, c).sqrt() < 1e-6 {
                        cx.error(
                            list.span(),
                            format!("the two axes of universal joint '{joint_name}' are parallel"),
                            "give two different directions, usually perpendicular, e.g. axes = [[0, 0, 1], [0, 1, 0]]",
                        );
                    }
                    vec![
                        ("axis1", JointKind::Revolute { axis: a1 }),
                        ("axis2", JointKind::Revolute { axis: a2 }),
                    ]
                }
                Some(list) => {
                    cx.error(
                        list.span(),
                        format!(
                            "a universal joint has two axes, got {}",
                            list.get_ref().len()
                        ),
                        "write `axes = [[x1, y1, z1], [x2, y2, z2]]`: the first turns in the parent, the second in the cross piece",
                    );
                    fallback
                }
                None => {
                    cx.error(
                        b.joint.span_or(j.kind.span()),
                        format!("universal joint '{joint_name}' needs `axes`"),
                        "add `axes = [[0, 0, 1], [0, 1, 0]]` (joint frame): the first turns in the parent, the second in the cross piece",
                    );
                    fallback
                }
            }
        }
    };
    (kind, parts)
}

/// The joint frame rotation as a unit quaternion `[w, x, y, z]`.
fn rotation(cx: &mut Ctx, b: &BodyDesc) -> [f64; 4] {
    let j = b.joint.get_ref();
    let Some(r) = &j.rotation else {
        return [1.0, 0.0, 0.0, 0.0];
    };
    let span = r.span_or(b.joint.span_or(j.kind.span()));
    let r = r.get_ref();
    match (&r.axis, &r.angle, &r.quaternion) {
        (Some(axis), Some(angle), None) => {
            let axis = cx.direction(axis, "the rotation axis");
            let angle = cx.value(angle, Expect::Dim(Dim::ANGLE));
            if angle.is_nan() {
                return [1.0, 0.0, 0.0, 0.0];
            }
            let (s, c) = (angle / 2.0).sin_cos();
            [c, s * axis[0], s * axis[1], s * axis[2]]
        }
        (None, None, Some(q)) => {
            let v = q
                .get_ref()
                .each_ref()
                .map(|x| cx.value(x, Expect::Dim(Dim::NONE)));
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n.is_nan() {
                [1.0, 0.0, 0.0, 0.0]
            } else if n > 1e-12 && n.is_finite() {
                v.map(|x| x / n)
            } else {
                cx.error(
                    q.span(),
                    "the quaternion is zero",
                    "give a unit quaternion [w, x, y, z], e.g. [1, 0, 0, 0] for no rotation",
                );
                [1.0, 0.0, 0.0, 0.0]
            }
        }
        _ => {
            cx.error(
                span,
                "a rotation is either `axis` + `angle` or `quaternion`",
                "write rotation = { axis = [0, 0, 1], angle = \"90 deg\" } or rotation = { quaternion = [w, x, y, z] }",
            );
            [1.0, 0.0, 0.0, 0.0]
        }
    }
}

/// Initial values of the joint coordinates, one per part.
fn initial_values(
    cx: &mut Ctx,
    b: &BodyDesc,
    kind: JointType,
    parts: &[(&str, JointKind)],
) -> Vec<f64> {
    let j = b.joint.get_ref();
    let n = parts.len();
    let expect = |k: &JointKind| match k {
        JointKind::Prismatic { .. } => LENGTH,
        _ => Expect::Dim(Dim::ANGLE),
    };
    let zeros = vec![0.0; n];
    let Some(init) = &j.initial else {
        return zeros;
    };
    match (kind, init.get_ref()) {
        (JointType::Fixed, _) => {
            cx.error(
                init.span(),
                "a fixed joint has no coordinate",
                "remove `initial`",
            );
            zeros
        }
        (JointType::Revolute | JointType::Prismatic, InitialDesc::One(v)) => {
            let q = toml::Spanned::new(init.span(), v.clone());
            vec![cx.value(&q, expect(&parts[0].1))]
        }
        (JointType::Revolute | JointType::Prismatic, InitialDesc::Many(_)) => {
            cx.error(
                init.span(),
                "this joint has one coordinate; `initial` is one value",
                "write e.g. initial = \"30 deg\" (revolute) or initial = \"10 mm\" (prismatic)",
            );
            zeros
        }
        (_, InitialDesc::Many(list)) if list.len() == n => list
            .iter()
            .zip(parts)
            .map(|(q, (_, k))| cx.value(q, expect(k)))
            .collect(),
        _ => {
            let (what, example) = match kind {
                JointType::Spherical => ("[yaw, pitch, roll]", "initial = [\"30 deg\", 0, 0]"),
                JointType::Free => (
                    "[x, y, z, yaw, pitch, roll]",
                    "initial = [0, \"1.2 m\", 0, 0, 0, \"2 deg\"]",
                ),
                _ => ("[q1, q2]", "initial = [\"10 deg\", \"-5 deg\"]"),
            };
            cx.error(
                init.span(),
                format!("a {} joint takes `initial = {what}`", kind.name()),
                format!("write e.g. {example}, or leave `initial` out for zeros"),
            );
            zeros
        }
    }
}

/// Lowers one body (and the massless bodies of a composite joint, first) into `out`.
/// Torsional stiffness N·m/rad and damping N·m·s/rad.
const TORSIONAL_STIFFNESS: Dim = Dim([1, 2, -2, 0, 0, 0, 0, -1]);
const TORSIONAL_DAMPING: Dim = Dim([1, 2, -1, 0, 0, 0, 0, -1]);

/// Lowers one body (and the massless links of a spherical/universal joint) into `out`;
/// returns the end stops of its joint, if it has `limits`.
fn lower_body(cx: &mut Ctx, b: &BodyDesc, out: &mut Vec<Body>) -> Option<JointLimit> {
    let name = b.name.get_ref().clone();
    let mut parent = if b.parent.get_ref() == "ground" {
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
    let joint_span = b.joint.span_or(j.kind.span());
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
    let rotation = rotation(cx, b);
    let (kind, parts) = joint_parts(cx, b, &joint_name);
    let q0_values = initial_values(cx, b, kind, &parts);
    if let Some(pitch) = kind.pitch()
        && q0_values
            .get(pitch)
            .is_some_and(|pitch| pitch.cos().abs() < 1e-6)
        && let Some(init) = &j.initial
    {
        cx.error(
            init.span(),
            format!("the initial pitch of the {} joint is ±90°, where yaw and roll turn about the same axis (gimbal lock of the z-y-x composition)", kind.name()),
            "turn the joint frame with `rotation` so that the initial pitch is far from ±90°",
        );
    }
    let mut limit = None;
    if let Some(l) = &j.limits {
        let expect = match kind {
            JointType::Prismatic => LENGTH,
            _ => Expect::Dim(Dim::ANGLE),
        };
        let [lo_q, hi_q] = l.get_ref();
        let lo = cx.value(lo_q, expect);
        let hi = cx.value(hi_q, expect);
        if kind == JointType::Fixed {
            cx.error(
                l.span(),
                "a fixed joint has no coordinate to limit",
                "remove `limits`",
            );
        } else if lo >= hi {
            cx.error(
                l.span(),
                format!("the limits [{lo}, {hi}] are empty"),
                "write limits = [lower, upper] with lower < upper",
            );
        } else if matches!(kind, JointType::Revolute | JointType::Prismatic)
            && q0_values.first().is_some_and(|q| *q < lo || *q > hi)
        {
            cx.error(
                l.span(),
                format!(
                    "the initial coordinate {} lies outside the limits [{lo}, {hi}]",
                    q0_values[0]
                ),
                "widen the limits or change `initial`",
            );
        } else if !matches!(kind, JointType::Revolute | JointType::Prismatic) {
            cx.error(
                l.span(),
                "end stops are supported on revolute and prismatic joints",
                "remove `limits`, or model the stop with a spring-damper",
            );
        } else {
            // Our choice of defaults: stiff stops (1 mrad under 10 kN·m, 0.1 mm under
            // 10 kN) with some damping; give values fitting the machine's inertia.
            let prismatic = kind == JointType::Prismatic;
            let (k_dim, d_dim, k0, d0) = if prismatic {
                (Dim::STIFFNESS, Dim::DAMPING, 1e8, 1e4)
            } else {
                (TORSIONAL_STIFFNESS, TORSIONAL_DAMPING, 1e7, 1e4)
            };
            let k = cx.value_or(j.limit_stiffness.as_ref(), Expect::Dim(k_dim), k0);
            if let Some(q) = &j.limit_stiffness {
                cx.require_positive(q, k, "limit_stiffness");
            }
            let d = cx.value_or(j.limit_damping.as_ref(), Expect::Dim(d_dim), d0);
            if let Some(q) = &j.limit_damping {
                cx.require_non_negative(q, d, "limit_damping");
            }
            let body = out.len() + parts.len() - 1;
            let slot = |cx: &mut Ctx, key: &str, v: f64, e: Expect, what: &str| {
                cx.slot(
                    format!("{joint_name}.limits.{key}"),
                    v,
                    e,
                    format!("{what} of joint {joint_name}"),
                )
            };
            limit = Some(JointLimit {
                body,
                lower: slot(cx, "lower", lo, expect, "Lower end stop"),
                upper: slot(cx, "upper", hi, expect, "Upper end stop"),
                stiffness: slot(cx, "stiffness", k, Expect::Dim(k_dim), "End-stop stiffness"),
                damping: slot(cx, "damping", d, Expect::Dim(d_dim), "End-stop damping"),
            });
        }
    }

    let flexible = b
        .flexible
        .as_ref()
        .and_then(|f| super::flexible::reduce_body(cx, b, f));
    let props = match &flexible {
        Some(r) => r.props,
        None if b.flexible.is_some() => MassProps::point(1.0, [0.0; 3]),
        None => mass_props(cx, b),
    };
    let index = out.len() + parts.len() - 1;
    if cx.bodies.get(&name) == Some(&index) && parts.len() == 1 {
        cx.joints.entry(joint_name.clone()).or_insert(index);
    }
    let composite = parts.len() > 1;
    let mut composite_parts = Vec::new();
    for (k, ((part, joint), q0)) in parts.iter().zip(&q0_values).enumerate() {
        let last = k + 1 == parts.len();
        let (q_expect, q_unit) = match joint {
            JointKind::Prismatic { .. } => (LENGTH, "m"),
            _ => (Expect::Dim(Dim::ANGLE), "rad"),
        };
        let part_joint = if composite {
            format!("{joint_name}.{part}")
        } else {
            joint_name.clone()
        };
        let q0 = cx.slot(
            if composite {
                format!("{name}.q0.{part}")
            } else {
                format!("{name}.q0")
            },
            *q0,
            q_expect,
            format!("Initial coordinate of joint {part_joint} [{q_unit}]"),
        );
        let frame = if k == 0 {
            Frame { origin, rotation }
        } else {
            Frame::IDENTITY
        };
        let body_index = out.len();
        if composite {
            composite_parts.push((part.to_string(), body_index));
        }
        if last {
            let mass = cx.slot(
                format!("{name}.mass"),
                props.mass,
                Expect::Dim(Dim::MASS),
                format!("Mass of body {name}"),
            );
            if b.massless.as_ref().is_some_and(|m| *m.get_ref()) {
                cx.hidden.insert(
                    mass,
                    format!("body '{name}' is massless (`massless = true`)"),
                );
            }
            cx.body_info.push(BodyInfo {
                span: b.name.span(),
                generated: false,
                massless: props.mass == 0.0,
            });
            out.push(Body {
                name: name.clone(),
                parent,
                joint: *joint,
                joint_name: part_joint,
                joint_frame: frame,
                q0,
                mass,
                com: props.com,
                inertia: props.inertia,
            });
            if let (Some(r), Some(f)) = (&flexible, &b.flexible) {
                cx.hidden.insert(
                    mass,
                    format!("the mass of flexible body '{name}' comes from its beam"),
                );
                let span = f.nodes.span_or(b.name.span());
                let index = (body_index, cx.flexible.len());
                let nodes = super::flexible::push_nodes(cx, &name, &span, index, &r.nodes, out);
                cx.flexible.push(super::flexible::FlexibleLowered {
                    name: name.clone(),
                    span,
                    body: body_index,
                    nodes,
                    by_station: r.by_station,
                    reduction: r.reduction.clone(),
                    extent: r.extent,
                    defaults: r.defaults.clone(),
                    spiders: r.spiders.clone(),
                });
            }
        } else {
            let body_name = format!("{joint_name}.{part}");
            let mass = cx.slot(
                format!("{name}.{part}.mass"),
                0.0,
                Expect::Dim(Dim::MASS),
                format!("Mass of the massless link {body_name} (generated)"),
            );
            cx.hidden.insert(
                mass,
                format!(
                    "'{body_name}' is a massless link generated for the {} joint '{joint_name}'",
                    kind.name()
                ),
            );
            cx.body_info.push(BodyInfo {
                span: joint_span.clone(),
                generated: true,
                massless: true,
            });
            out.push(Body {
                name: body_name,
                parent,
                joint: *joint,
                joint_name: part_joint,
                joint_frame: frame,
                q0,
                mass,
                com: [0.0; 3],
                inertia: [0.0; 6],
            });
            parent = Some(body_index);
        }
    }
    if let Some(pitch) = kind.pitch()
        && let Some([yaw, pitch, roll]) = composite_parts.get(pitch - 1..pitch + 2)
    {
        cx.rotations.push(ZyxRotation {
            name: joint_name.clone(),
            bodies: [yaw.1, pitch.1, roll.1],
        });
    }
    if composite && !cx.composite_joints.contains_key(&joint_name) {
        cx.composite_joints.insert(joint_name, composite_parts);
    }
    limit
}

fn mass_props(cx: &mut Ctx, b: &BodyDesc) -> MassProps {
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
fn check_inertia(cx: &mut Ctx, span: std::ops::Range<usize>, v: [f64; 6]) {
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

fn g(x: f64) -> String {
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

fn part(cx: &mut Ctx, p: &crate::description::Located<crate::description::PartDesc>) -> MassProps {
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

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
