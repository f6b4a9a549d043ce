//! `[[interface.ports]]`: joint, hydraulic and shaft ports (the base port is
//! [`super::base`]). Each port gets input slots `<name>.<input>` (or binds an existing
//! slot: a pressure source's pressure, a pump's speed) and outputs (see
//! [`interface::ports`](super::interface)).

use super::{Ctx, Expect};
use crate::description::{Description, FormulationDesc, MountDesc, PortDesc, PortTypeDesc};
use crate::units::Dim;
use fmu_runtime::model::{Circuit, Element, JointKind, Mechanism, Node, Port, PortKind};
use std::collections::HashMap;

pub(super) fn lower_ports(
    cx: &mut Ctx,
    d: &Description,
    mech: &Mechanism,
    circuit: &Circuit,
) -> Vec<Port> {
    let Some(iface) = d.interface.as_ref() else {
        return Vec::new();
    };
    let double_step = d
        .solver
        .as_ref()
        .and_then(|s| s.formulation)
        .is_some_and(|f| f == FormulationDesc::DoubleStep);
    let mut ports = Vec::new();
    // Target → port already on it.
    let mut taken: HashMap<String, String> = HashMap::new();
    for p in &iface.ports {
        let name = p.name.get_ref().clone();
        if let Err(e) = crate::names::check_structured(&name) {
            cx.error(
                p.name.span(),
                format!("'{name}' is not a valid FMI structured name: {e}"),
                "use an identifier such as \"supply\" or \"slew_drive\"",
            );
            continue;
        }
        let target = p.on.get_ref();
        if let Some(other) = taken.get(target) {
            cx.error(
                p.on.span(),
                format!("'{target}' already has the port '{other}'"),
                "one port per joint, volume, pressure source or pump",
            );
            continue;
        }
        let Some(kind) = port_kind(cx, p, &name, (mech, circuit), double_step) else {
            continue;
        };
        taken.insert(target.clone(), name.clone());
        ports.push(Port { name, kind });
    }
    if let Some(mount) = &iface.mount
        && let Some(port) = lower_mount(cx, mount)
    {
        ports.push(port);
    }
    ports
}

/// A prescribed-motion joint: input slots `<name>.q|qd|qdd`, q starting at the joint's
/// initial coordinate.
fn joint_motion(
    cx: &mut Ctx,
    p: &PortDesc,
    (name, body, revolute): (&str, usize, bool),
    mech: &Mechanism,
    double_step: bool,
) -> Option<PortKind> {
    if double_step {
        cx.error(
            p.kind.span(),
            "a prescribed-motion joint needs the augmented-Lagrangian formulation",
            "remove `formulation = \"double-step\"` from [solver], or drive the joint with a \"joint-force\" port",
        );
        return None;
    }
    let dims = if revolute {
        [Dim::ANGLE, Dim::ANGULAR_VELOCITY, Dim::ANGULAR_ACCELERATION]
    } else {
        [Dim::LENGTH, Dim::VELOCITY, Dim::ACCELERATION]
    };
    let q0 = cx.params[mech.bodies[body].q0.index()].default;
    let [position, velocity, acceleration] = [
        ("q", q0, "Prescribed coordinate"),
        ("qd", 0.0, "Prescribed rate"),
        ("qdd", 0.0, "Prescribed acceleration"),
    ]
    .into_iter()
    .zip(dims)
    .map(|((field, start, what), dim)| cx.field_slot(name, field, start, Expect::Dim(dim), what))
    .collect::<Vec<_>>()
    .try_into()
    .ok()?;
    Some(PortKind::JointMotion {
        body,
        position,
        velocity,
        acceleration,
    })
}

/// The carrier's mount: wrench input slots `<name>.force|moment.<axis>` (mount axes).
fn lower_mount(cx: &mut Ctx, desc: &MountDesc) -> Option<Port> {
    let name = desc
        .name
        .as_ref()
        .map_or(super::MOUNT_DEFAULT_NAME.to_string(), |n| {
            n.get_ref().clone()
        });
    if let Some(n) = &desc.name
        && let Err(e) = crate::names::check_structured(n.get_ref())
    {
        cx.error(
            n.span(),
            format!("'{}' is not a valid FMI structured name: {e}", n.get_ref()),
            "use an identifier such as \"deck\"",
        );
        return None;
    }
    if desc.body.get_ref() == "ground" {
        cx.error(
            desc.body.span(),
            "a mount on the ground does not move",
            "name the carrier body the machine stands on",
        );
        return None;
    }
    let body = cx.body_ref(&desc.body)?;
    let origin = cx.vec3_or(desc.origin.as_ref(), Expect::Dim(Dim::LENGTH), [0.0; 3]);
    let mut vector = |field: &str, expect: Expect, what: &str| {
        ["x", "y", "z"].map(|a| {
            cx.slot(
                format!("{name}.{field}.{a}"),
                0.0,
                expect,
                format!("{what}, {a} (mount axes)"),
            )
        })
    };
    let force = vector(
        "force",
        Expect::Dim(Dim::FORCE),
        "Force the carried machine exerts on the mount",
    );
    let moment = vector(
        "moment",
        Expect::Plain("N·m"),
        "Moment the carried machine exerts on the mount, about its origin",
    );
    Some(Port {
        name,
        kind: PortKind::Mount {
            body,
            origin,
            force,
            moment,
        },
    })
}

fn port_kind(
    cx: &mut Ctx,
    p: &PortDesc,
    name: &str,
    (mech, circuit): (&Mechanism, &Circuit),
    double_step: bool,
) -> Option<PortKind> {
    let target = &p.on;
    let wrong = |cx: &mut Ctx, what: &str, help: &str| {
        cx.error(
            target.span(),
            format!("a {} port needs {what}", p.kind.get_ref().describe()),
            help.to_string(),
        );
        None
    };
    let volume = |cx: &mut Ctx| -> Option<usize> {
        let node = *cx.nodes.get(target.get_ref())?;
        matches!(circuit.nodes[node], Node::Volume(_)).then_some(node)
    };
    match p.kind.get_ref() {
        PortTypeDesc::JointForce | PortTypeDesc::JointMotion => {
            let Some(&body) = cx.joints.get(target.get_ref()) else {
                if !cx.joint_names.contains_key(target.get_ref()) {
                    let joints: Vec<String> = cx.joints.keys().cloned().collect();
                    cx.unknown(
                        target,
                        "tree joint",
                        joints.iter().map(String::as_str).collect(),
                    );
                    return None;
                }
                return wrong(
                    cx,
                    "a revolute or prismatic tree joint",
                    "name a tree joint (`joint = { name = ... }` of a body)",
                );
            };
            let revolute = match mech.bodies[body].joint {
                JointKind::Revolute { .. } => true,
                JointKind::Prismatic { .. } => false,
                JointKind::Fixed | JointKind::Node { .. } => {
                    return wrong(
                        cx,
                        "a revolute or prismatic joint",
                        "a fixed joint has no motion to drive",
                    );
                }
            };
            if *p.kind.get_ref() == PortTypeDesc::JointMotion {
                return joint_motion(cx, p, (name, body, revolute), mech, double_step);
            }
            let (field, dim) = if revolute {
                ("torque", Expect::Plain("N·m"))
            } else {
                ("force", Expect::Dim(Dim::FORCE))
            };
            let force = cx.field_slot(name, field, 0.0, dim, "Drive on the joint from outside");
            Some(PortKind::JointForce { body, force })
        }
        PortTypeDesc::Flow => {
            let Some(node) = volume(cx) else {
                return wrong(cx, "a control volume", "name one of [[hydraulics.volumes]]");
            };
            let start = cx.value_or(p.flow.as_ref(), Expect::Dim(Dim::VOLUME_FLOW), 0.0);
            let flow = cx.field_slot(
                name,
                "flow",
                start,
                Expect::Dim(Dim::VOLUME_FLOW),
                "Volume flow into the machine",
            );
            Some(PortKind::Flow { node, flow })
        }
        PortTypeDesc::Tlm => {
            let Some(node) = volume(cx) else {
                return wrong(cx, "a control volume", "name one of [[hydraulics.volumes]]");
            };
            let c = cx.value_or(p.wave.as_ref(), Expect::Dim(Dim::PRESSURE), 1e5);
            let zc = cx.value_or(p.impedance.as_ref(), Expect::Dim(Dim::IMPEDANCE), 1e10);
            if let Some(q) = &p.impedance
                && (zc.is_nan() || zc <= 0.0)
            {
                cx.error(
                    q.span(),
                    format!("the line impedance must be positive, got {zc}"),
                    "a hose's Zc = ρ a / A, e.g. \"1e10 Pa s/m3\"",
                );
            }
            let wave = cx.field_slot(
                name,
                "wave",
                c,
                Expect::Dim(Dim::PRESSURE),
                "Wave variable c of the line",
            );
            let impedance = cx.field_slot(
                name,
                "impedance",
                zc,
                Expect::Dim(Dim::IMPEDANCE),
                "Characteristic impedance Zc of the line",
            );
            Some(PortKind::Tlm {
                node,
                wave,
                impedance,
            })
        }
        PortTypeDesc::Pressure => {
            let node = cx.nodes.get(target.get_ref()).copied();
            match node.map(|n| &circuit.nodes[n]) {
                Some(Node::Pressure { .. }) => Some(PortKind::Pressure { node: node? }),
                _ => wrong(
                    cx,
                    "a pressure source",
                    "name one of [[hydraulics.pressure_sources]]; a volume takes a \"flow\" or \"tlm\" port",
                ),
            }
        }
        PortTypeDesc::Shaft => {
            let element = cx.elements.get(target.get_ref()).copied();
            match element.map(|e| &circuit.elements[e]) {
                Some(Element::Pump(_)) => Some(PortKind::PumpShaft { element: element? }),
                _ => wrong(
                    cx,
                    "a fixed-displacement pump",
                    "name one of [[hydraulics.pumps]] without load sensing",
                ),
            }
        }
    }
}
