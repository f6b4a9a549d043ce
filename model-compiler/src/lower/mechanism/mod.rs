//! Bodies (sorted so that parents precede children), joints, markers, cut joints, forces.

use super::{Ctx, Expect};
use crate::description::{BodyDesc, CutType, Description, JointType};
use crate::units::Dim;
use fmu_runtime::model::{
    Body, CutJoint, CutKind, ForceActuator, ForceElement, Marker, Mechanism, PointForce, PointRef,
    SpringDamper,
};

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

mod body;
mod inertia;
mod joints;

use body::lower_body;
pub(super) use joints::quaternion;

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
        let a = cx.point_ref(&s.a);
        let b = cx.point_ref(&s.b);
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
        let a = cx.point_ref(&f.a);
        let b = cx.point_ref(&f.b);
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
        contacts: Default::default(),
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
