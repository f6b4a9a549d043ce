//! One body and its joint: frame, mass, stiffness and damping, limits, massless links.

use super::inertia::mass_props;
use super::joints::{initial_values, joint_parts, rotation};
use crate::description::{BodyDesc, JointType};
use crate::lower::mass::MassProps;
use crate::lower::{BodyInfo, Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::{Body, Frame, JointKind, JointLimit, ZyxRotation};

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

/// Lowers one body (and the massless bodies of a composite joint, first) into `out`.
/// Torsional stiffness N·m/rad and damping N·m·s/rad.
pub(super) const TORSIONAL_STIFFNESS: Dim = Dim([1, 2, -2, 0, 0, 0, 0, -1]);
pub(super) const TORSIONAL_DAMPING: Dim = Dim([1, 2, -1, 0, 0, 0, 0, -1]);

/// Lowers one body (and the massless links of a spherical/universal joint) into `out`;
/// returns the end stops of its joint, if it has `limits`.
pub(super) fn lower_body(cx: &mut Ctx, b: &BodyDesc, out: &mut Vec<Body>) -> Option<JointLimit> {
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
        .and_then(|f| crate::lower::flexible::reduce_body(cx, b, f));
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
                let nodes =
                    crate::lower::flexible::push_nodes(cx, &name, &span, index, &r.nodes, out);
                cx.flexible.push(crate::lower::flexible::FlexibleLowered {
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
