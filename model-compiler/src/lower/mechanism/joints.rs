//! Tree joints: the coordinates of a (composite) joint, its frame rotation, its initial values.

use super::inertia::{cross, dot};
use crate::description::{BodyDesc, InitialDesc, JointType, Located, RotationDesc};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::JointKind;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

/// The coordinates of a tree joint: names of the parts of a composite joint and their axes
/// (in the frame of the body before each part).
pub(super) fn joint_parts(
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
pub(super) fn rotation(cx: &mut Ctx, b: &BodyDesc) -> [f64; 4] {
    let j = b.joint.get_ref();
    match &j.rotation {
        None => [1.0, 0.0, 0.0, 0.0],
        Some(r) => quaternion(cx, r, b.joint.span_or(j.kind.span())),
    }
}

/// A `rotation = { axis, angle }` or `{ quaternion }` as a unit quaternion `[w, x, y, z]`;
/// `fallback` locates it when it has no span of its own.
pub(in crate::lower) fn quaternion(
    cx: &mut Ctx,
    r: &Located<RotationDesc>,
    fallback: std::ops::Range<usize>,
) -> [f64; 4] {
    let span = r.span_or(fallback);
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
pub(super) fn initial_values(
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
