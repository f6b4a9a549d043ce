//! `<component>.<quantity>` names of interface outputs and sensors → probe, type, unit.

use crate::description::Name;
use crate::lower::Ctx;
use crate::names;
use fmu_runtime::model::{Axis, CompiledModel, Element, JointKind, Probe, VarType};
use std::collections::HashMap;

/// Quantities of the whole model, added to every interface in this order.
pub(super) const GLOBAL_QUANTITIES: &[(&str, Probe)] = &[
    ("energy.kinetic", Probe::KineticEnergy),
    ("energy.potential", Probe::PotentialEnergy),
    ("energy.total", Probe::TotalEnergy),
    ("energy.actuator_work", Probe::ActuatorWork),
    ("energy.parameter_work", Probe::ParameterWork),
    ("energy.balance_error", Probe::EnergyBalanceError),
    ("constraints.phi_norm", Probe::ConstraintNorm),
    ("constraints.dphi_norm", Probe::ConstraintVelocityNorm),
    ("constraints.ddphi_norm", Probe::ConstraintAccelerationNorm),
    ("solver.iterations", Probe::NewtonIterations),
    ("solver.steps", Probe::StepCount),
];

pub(super) struct Resolved {
    pub(super) probe: Probe,
    pub(super) var_type: VarType,
    pub(super) unit: Option<String>,
    pub(super) description: String,
}

fn real(probe: Probe, unit: &str, description: String) -> Resolved {
    Resolved {
        probe,
        var_type: VarType::Real,
        unit: Some(unit.to_string()),
        description,
    }
}

pub(super) fn global_quantity(probe: &Probe) -> Resolved {
    let (unit, text) = match probe {
        Probe::KineticEnergy => (Some("J"), "Kinetic energy of the mechanism"),
        Probe::PotentialEnergy => (Some("J"), "Gravitational potential energy of the mechanism"),
        Probe::TotalEnergy => (Some("J"), "Kinetic plus potential energy"),
        Probe::ActuatorWork => (
            Some("J"),
            "Work done on the mechanism by actuators, applied forces and dampers",
        ),
        Probe::ParameterWork => (
            Some("J"),
            "Energy added at once by changes of tunable parameters (a mass, a stiffness) between steps",
        ),
        Probe::EnergyBalanceError => (
            Some("J"),
            "Total energy minus initial energy minus actuator and parameter work (0 for an exact integrator)",
        ),
        Probe::ConstraintNorm => (None, "Norm of the loop-closure constraint violation Φ"),
        Probe::ConstraintVelocityNorm => (None, "Norm of the constraint velocity violation dΦ/dt"),
        Probe::ConstraintAccelerationNorm => (
            None,
            "Norm of the constraint acceleration violation d²Φ/dt²",
        ),
        Probe::NewtonIterations => (None, "Newton iterations of the last internal step"),
        Probe::StepCount => (None, "Internal steps taken since initialization"),
        _ => (None, ""),
    };
    let integer = matches!(probe, Probe::NewtonIterations | Probe::StepCount);
    Resolved {
        probe: *probe,
        var_type: if integer {
            VarType::Integer
        } else {
            VarType::Real
        },
        unit: unit.map(str::to_string),
        description: text.to_string(),
    }
}

/// The probe of a sensor's quantity (`[[estimator.sensors]] measures`), named as an
/// interface output's.
pub(in crate::lower) fn sensor_quantity(
    cx: &mut Ctx,
    q: &Name,
    model: &CompiledModel,
) -> Option<Probe> {
    resolve_quantity(cx, q, model, &HashMap::new()).map(|r| r.probe)
}

/// `<component>.<quantity>` → probe, type, unit and description.
pub(super) fn resolve_quantity(
    cx: &mut Ctx,
    q: &Name,
    model: &CompiledModel,
    spool_units: &HashMap<usize, String>,
) -> Option<Resolved> {
    let text = q.get_ref().as_str();
    if let Some((name, probe)) = GLOBAL_QUANTITIES.iter().find(|(n, _)| *n == text) {
        let _ = name;
        return Some(global_quantity(probe));
    }
    let Some((head, tail)) = text.split_once('.') else {
        cx.error(
            q.span(),
            format!("'{text}' is not a quantity"),
            "write <component>.<quantity>, e.g. \"cylinder.length\" or \"pivot.q\"",
        );
        return None;
    };
    if head == "contact" && !model.mechanism.contacts.is_empty() {
        return contact_quantity(cx, q, tail, model);
    }
    // A flexible body's own quantities (its name may also be its joint's).
    if let Some(&body) = cx.bodies.get(head)
        && let Some(f) = model
            .mechanism
            .flexible
            .iter()
            .position(|fb| fb.body == body)
        && let Some(r) = flexible_quantity(cx, q, head, tail, f, model)
    {
        return r;
    }
    let bad = |cx: &mut Ctx, kind: &str, valid: &[&str]| {
        cx.error(
            q.span(),
            format!("{kind} '{head}' has no quantity '{tail}'"),
            format!(
                "a {kind} offers: {}",
                valid
                    .iter()
                    .map(|v| format!("{head}.{v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        None
    };
    if let Some(parts) = cx.composite_joints.get(head) {
        let (part, kind) = tail.split_once('.').unwrap_or((tail, ""));
        let offers: Vec<String> = parts
            .iter()
            .flat_map(|(p, _)| ["q", "qd", "qdd"].map(|k| format!("{p}.{k}")))
            .collect();
        let Some(&(_, body)) = parts.iter().find(|(p, _)| p == part) else {
            let offers: Vec<&str> = offers.iter().map(String::as_str).collect();
            return bad(cx, "composite joint", &offers);
        };
        // A free joint's x, y, z are slides: lengths, not angles.
        let slide = matches!(
            model.mechanism.bodies[body].joint,
            JointKind::Prismatic { .. }
        );
        let text = match (kind, slide) {
            ("q", false) => "Angle",
            ("q", true) => "Position",
            ("qd", _) => "Rate",
            ("qdd", _) => "Acceleration",
            _ => {
                let offers: Vec<&str> = offers.iter().map(String::as_str).collect();
                return bad(cx, "composite joint", &offers);
            }
        };
        let (probe, unit) = match (kind, slide) {
            ("q", false) => (Probe::JointPosition(body), "rad"),
            ("qd", false) => (Probe::JointVelocity(body), "rad/s"),
            (_, false) => (Probe::JointAcceleration(body), "rad/s2"),
            ("q", true) => (Probe::JointPosition(body), "m"),
            ("qd", true) => (Probe::JointVelocity(body), "m/s"),
            (_, true) => (Probe::JointAcceleration(body), "m/s2"),
        };
        return Some(real(probe, unit, format!("{text} {part} of joint {head}")));
    }
    if let Some(&body) = cx.joints.get(head) {
        let b = &model.mechanism.bodies[body];
        let (pos, vel, acc) = match b.joint {
            JointKind::Revolute { .. } => ("rad", "rad/s", "rad/s2"),
            JointKind::Prismatic { .. } => ("m", "m/s", "m/s2"),
            JointKind::Fixed | JointKind::Node { .. } => {
                cx.error(
                    q.span(),
                    format!("joint '{head}' is fixed and has no coordinate"),
                    "pick a revolute or prismatic joint",
                );
                return None;
            }
        };
        return match tail {
            "q" => Some(real(
                Probe::JointPosition(body),
                pos,
                format!("Coordinate of joint {head}"),
            )),
            "qd" => Some(real(
                Probe::JointVelocity(body),
                vel,
                format!("Rate of joint {head}"),
            )),
            "qdd" => Some(real(
                Probe::JointAcceleration(body),
                acc,
                format!("Acceleration of joint {head}"),
            )),
            _ => bad(cx, "joint", &["q", "qd", "qdd"]),
        };
    }
    if let Some(&i) = cx.motors.get(head) {
        return match tail {
            "speed" => Some(real(
                Probe::MotorSpeed(i),
                "rad/s",
                format!("Shaft speed of motor {head}"),
            )),
            "torque" => Some(real(
                Probe::MotorTorque(i),
                "N.m",
                format!("Torque of motor {head} on its joint"),
            )),
            "flow" => Some(real(
                Probe::MotorFlow(i),
                "m3/s",
                format!("Flow of motor {head} from A to B"),
            )),
            "p_a" | "p_b" => {
                let m = &model.circuit.motors[i];
                let (node, port) = if tail == "p_a" {
                    (m.port_a, "A")
                } else {
                    (m.port_b, "B")
                };
                Some(real(
                    Probe::NodePressure(node),
                    "Pa",
                    format!("Pressure at port {port} of motor {head}"),
                ))
            }
            _ => bad(cx, "motor", &["speed", "torque", "flow", "p_a", "p_b"]),
        };
    }
    if let Some(&i) = cx.actuators.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::ActuatorLength(i),
                "m",
                format!("Pin-to-pin length of actuator {head}"),
            )),
            "speed" => Some(real(
                Probe::ActuatorSpeed(i),
                "m/s",
                format!("Extension speed of actuator {head}"),
            )),
            _ => bad(cx, "force actuator", &["length", "speed"]),
        };
    }
    if let Some(&i) = cx.ropes.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::RopeLength(i),
                "m",
                format!("Length of rope {head}'s path from the drum to the hook"),
            )),
            "out" => Some(real(
                Probe::RopeOut(i),
                "m",
                format!("Unstretched rope {head} paid out"),
            )),
            "tension" => Some(real(
                Probe::RopeTension(i),
                "N",
                format!("Tension of rope {head} (0 when slack)"),
            )),
            _ => bad(cx, "rope", &["length", "out", "tension"]),
        };
    }
    if let Some(&i) = cx.accumulators.get(head) {
        return match tail {
            "volume" => Some(real(
                Probe::AccumulatorVolume(i),
                "m3",
                format!("Oil held by accumulator {head}"),
            )),
            "p" => Some(real(
                Probe::NodePressure(model.circuit.accumulators[i].node),
                "Pa",
                format!("Pressure of accumulator {head}"),
            )),
            _ => bad(cx, "accumulator", &["volume", "p"]),
        };
    }
    if let Some(&i) = cx.cylinders.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::CylinderLength(i),
                "m",
                format!("Pin-to-pin length of cylinder {head}"),
            )),
            "speed" => Some(real(
                Probe::CylinderSpeed(i),
                "m/s",
                format!("Extension speed of cylinder {head}"),
            )),
            "force" => Some(real(
                Probe::CylinderForce(i),
                "N",
                format!(
                    "Force of cylinder {head} on the mechanism (positive pushes the pins apart)"
                ),
            )),
            "friction" => Some(real(
                Probe::CylinderFriction(i),
                "N",
                format!("Seal friction force of cylinder {head}"),
            )),
            "p_cap" | "p_rod" => {
                let c = &model.circuit.cylinders[i];
                let (node, side) = if tail == "p_cap" {
                    (c.cap_node, "cap (piston)")
                } else {
                    (c.rod_node, "rod")
                };
                Some(real(
                    Probe::NodePressure(node),
                    "Pa",
                    format!("Pressure of the {side} side of cylinder {head}"),
                ))
            }
            _ => bad(
                cx,
                "cylinder",
                &["length", "speed", "force", "friction", "p_cap", "p_rod"],
            ),
        };
    }
    if let Some(&i) = cx.nodes.get(head) {
        return match tail {
            "p" => Some(real(
                Probe::NodePressure(i),
                "Pa",
                format!("Pressure of {head}"),
            )),
            _ => bad(cx, "hydraulic node", &["p"]),
        };
    }
    if let Some(&i) = cx.elements.get(head) {
        let flow = real(Probe::ElementFlow(i), "m3/s", String::new());
        return match (&model.circuit.elements[i], tail) {
            (Element::DirectionalValve(_), "flow") => Some(Resolved {
                description: format!("Flow of valve {head} into port A"),
                ..flow
            }),
            (Element::DirectionalValve(_), "spool") => {
                let s = cx.spools[head];
                Some(Resolved {
                    probe: Probe::SpoolPosition(s),
                    var_type: VarType::Real,
                    unit: spool_units.get(&s).cloned(),
                    description: format!("Spool position of valve {head}"),
                })
            }
            (Element::DirectionalValve(_), _) => bad(cx, "valve", &["spool", "flow"]),
            (Element::Pump(_) | Element::LoadSensingPump(_), "power") => Some(real(
                Probe::PumpPower(i),
                "W",
                format!("Hydraulic power delivered by pump {head}"),
            )),
            (Element::Pump(_) | Element::LoadSensingPump(_), "flow") => Some(Resolved {
                description: format!("Flow of pump {head}"),
                ..flow
            }),
            (Element::Pump(p), "p") => Some(real(
                Probe::NodePressure(p.outlet),
                "Pa",
                format!("Outlet pressure of pump {head}"),
            )),
            (Element::LoadSensingPump(p), "p") => Some(real(
                Probe::NodePressure(p.outlet),
                "Pa",
                format!("Outlet pressure of pump {head}"),
            )),
            (Element::LoadSensingPump(_), "displacement") => Some(Resolved {
                probe: Probe::PumpDisplacement(i),
                var_type: VarType::Real,
                unit: None,
                description: format!(
                    "Relative displacement of pump {head} (0 destroked, 1 full displacement)"
                ),
            }),
            (Element::LoadSensingPump(_), _) => {
                bad(cx, "pump", &["p", "displacement", "flow", "power"])
            }
            (Element::Pump(_), _) => bad(cx, "pump", &["p", "flow", "power"]),
            (_, "flow") => Some(Resolved {
                description: format!("Flow through {head}"),
                ..flow
            }),
            (_, _) => bad(cx, "hydraulic element", &["flow"]),
        };
    }
    if let Some(&i) = cx.markers.get(head) {
        let (kind, axis) = split_axis(tail);
        return match (kind, axis) {
            ("deflection", Some(a)) => Some(real(
                Probe::MarkerDeflection(i, a),
                "m",
                format!(
                    "Deflection of marker {head} relative to its flexible body's frame, body {} axis",
                    &tail[tail.len() - 1..]
                ),
            )),
            ("position", Some(a)) => Some(real(
                Probe::MarkerPosition(i, a),
                "m",
                format!(
                    "World {} position of marker {head}",
                    &tail[tail.len() - 1..]
                ),
            )),
            ("velocity", Some(a)) => Some(real(
                Probe::MarkerVelocity(i, a),
                "m/s",
                format!(
                    "World {} velocity of marker {head}",
                    &tail[tail.len() - 1..]
                ),
            )),
            _ => bad(
                cx,
                "marker",
                &[
                    "position.x",
                    "position.y",
                    "position.z",
                    "velocity.x",
                    "velocity.y",
                    "velocity.z",
                ],
            ),
        };
    }
    if let Some(&body) = cx.bodies.get(head) {
        let (kind, axis) = split_axis(tail);
        let a = &tail[tail.len() - 1..];
        return match (kind, axis) {
            ("angle", Some(ax)) => Some(real(
                Probe::BodyAngle(body, ax),
                "rad",
                format!(
                    "Absolute rotation of body {head} about the world {a} axis (planar angle, −π..π)"
                ),
            )),
            ("angular_velocity", Some(ax)) => Some(real(
                Probe::BodyAngularVelocity(body, ax),
                "rad/s",
                format!("World {a} angular velocity of body {head}"),
            )),
            _ => {
                let joint = &model.mechanism.bodies[body].joint_name;
                cx.error(
                    q.span(),
                    format!("'{head}' is a body: its quantities are angle.x|y|z and angular_velocity.x|y|z; joint quantities are named after the joint"),
                    format!("write \"{joint}.{tail}\" (the joint of body {head}), \"{head}.angle.z\", or add a [[markers]] entry for point quantities"),
                );
                None
            }
        };
    }
    let mut candidates: Vec<&str> = Vec::new();
    for t in [
        &cx.joints.keys().collect::<Vec<_>>(),
        &cx.composite_joints.keys().collect(),
        &cx.cylinders.keys().collect(),
        &cx.nodes.keys().collect(),
        &cx.elements.keys().collect(),
        &cx.markers.keys().collect(),
    ] {
        candidates.extend(t.iter().map(|s| s.as_str()));
    }
    let help = match names::closest(head, candidates.iter().copied()) {
        Some(c) => format!("did you mean '{c}.{tail}'?"),
        None => "quantities are <joint>.q|qd|qdd, <cylinder>.length|speed|force|friction, <node>.p, <valve>.spool, <element>.flow, <pump>.power, <marker>.position.x, energy.total, ...".into(),
    };
    cx.error(
        q.span(),
        format!("unknown component '{head}' in quantity '{text}'"),
        help,
    );
    None
}

/// `position.x` → (`position`, Some(X)); no or another suffix → None.
/// `mode<k>`, `mode<k>.rate` and `strain_energy` of flexible body `f`; `None` for other
/// tails (the rigid-body quantities), `Some(None)` after an error.
fn flexible_quantity(
    cx: &mut Ctx,
    q: &Name,
    head: &str,
    tail: &str,
    f: usize,
    model: &CompiledModel,
) -> Option<Option<Resolved>> {
    let modes = model.mechanism.flexible[f].modes();
    if tail == "strain_energy" {
        return Some(Some(real(
            Probe::StrainEnergy(f),
            "J",
            format!("Strain energy of flexible body {head}"),
        )));
    }
    let (mode, rate) = match tail.strip_suffix(".rate") {
        Some(m) => (m, true),
        None => (tail, false),
    };
    let k: usize = mode.strip_prefix("mode")?.parse().ok()?;
    if k == 0 || k > modes {
        cx.error(
            q.span(),
            format!("flexible body '{head}' has modes 1 to {modes}, not {k}"),
            format!("write {head}.mode1 … {head}.mode{modes}"),
        );
        return Some(None);
    }
    let (probe, what) = if rate {
        (Probe::ModalVelocity(f, k - 1), "Rate of modal coordinate")
    } else {
        (Probe::ModalCoordinate(f, k - 1), "Modal coordinate")
    };
    // m·√kg (mass-normalised modes) has no FMI unit: declared dimensionless.
    Some(Some(Resolved {
        probe,
        var_type: VarType::Real,
        unit: None,
        description: format!(
            "{what} {k} of flexible body {head} (mass-normalised mode: m·√kg{})",
            if rate { "/s" } else { "" }
        ),
    }))
}

fn split_axis(tail: &str) -> (&str, Option<Axis>) {
    let (kind, axis) = tail.split_once('.').unwrap_or((tail, ""));
    let axis = match axis {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    };
    (kind, axis)
}

/// `contact.points`, `contact.dissipation` and `contact.<body>.<quantity>` of a body's
/// contact with the ground.
fn contact_quantity(cx: &mut Ctx, q: &Name, tail: &str, model: &CompiledModel) -> Option<Resolved> {
    let pairs = &model.mechanism.contacts.pairs;
    match tail {
        "points" => {
            return Some(Resolved {
                probe: Probe::ContactActivePoints,
                var_type: VarType::Integer,
                unit: None,
                description: "Contact points carrying force".into(),
            });
        }
        "dissipation" => {
            return Some(real(
                Probe::ContactDissipation,
                "W",
                "Power the contacts' damping and friction dissipate".into(),
            ));
        }
        _ => {}
    }
    let offers = || {
        let mut o = vec![
            "contact.points".to_string(),
            "contact.dissipation".to_string(),
        ];
        if let Some(p) = pairs.first() {
            o.extend(
                [
                    "normal_force",
                    "penetration",
                    "slip_speed",
                    "friction_force",
                    "points",
                ]
                .map(|k| format!("contact.{}.{k}", p.name)),
            );
        }
        o.join(", ")
    };
    let found = tail
        .rsplit_once('.')
        .and_then(|(body, kind)| Some((pairs.iter().position(|p| p.name == body)?, body, kind)));
    let Some((i, body, kind)) = found else {
        cx.error(
            q.span(),
            format!("'{}' is not a contact quantity", q.get_ref()),
            format!("the bodies with collision shapes offer: {}", offers()),
        );
        return None;
    };
    let r = match kind {
        "normal_force" => real(
            Probe::ContactNormalForce(i),
            "N",
            format!("Normal force of the ground on {body}"),
        ),
        "penetration" => real(
            Probe::ContactPenetration(i),
            "m",
            format!("Deepest penetration of {body} into the ground (negative: the gap)"),
        ),
        "slip_speed" => real(
            Probe::ContactSlipSpeed(i),
            "m/s",
            format!("Slip speed of {body} on the ground (weighted by the points' normal forces)"),
        ),
        "friction_force" => real(
            Probe::ContactFrictionForce(i),
            "N",
            format!("Friction force of the ground on {body}"),
        ),
        "points" => Resolved {
            probe: Probe::ContactPoints(i),
            var_type: VarType::Integer,
            unit: None,
            description: format!("Points of {body} touching the ground"),
        },
        _ => {
            cx.error(
                q.span(),
                format!("contact of '{body}' has no quantity '{kind}'"),
                format!("a contact offers: {}", offers()),
            );
            return None;
        }
    };
    Some(r)
}
