//! The FMI variables of the coupling ports: each port's inputs (its slots, or the slot of
//! the component it is on) and outputs (the computed side, power, work). Port variables
//! come after the user's, so a clash points at the user's variable.

use super::builder::{Builder, output, slot_display_unit};
use crate::description::Description;
use crate::lower::Ctx;
use fmu_runtime::model::{
    Binding, CarrierBase, Causality, CompiledModel, Element, JointKind, Node, ParamId, PortKind,
    Probe, VarType, Variability, Variable,
};

/// False (and an error at the user's variable) when `var` is already taken.
fn claim(cx: &mut Ctx, b: &Builder, var: &str, owner: &str, help: &str) -> bool {
    let Some(span) = b.names.get(var) else {
        return true;
    };
    cx.error(
        span.clone(),
        format!("'{var}' is a variable of the {owner}"),
        format!("rename this variable, or {help}"),
    );
    false
}

/// A continuous Real input bound to slot `id`.
fn input(
    cx: &Ctx,
    name: String,
    description: String,
    id: ParamId,
    unit: Option<String>,
) -> Variable {
    Variable {
        name,
        value_reference: 0,
        description,
        causality: Causality::Input,
        variability: Variability::Continuous,
        initial: None,
        var_type: VarType::Real,
        display_unit: slot_display_unit(cx, id, unit.as_deref()),
        unit,
        start: Some(cx.params[id.index()].default),
        min: None,
        max: None,
        nominal: None,
        binding: Binding::Param(id),
    }
}

/// The power and work outputs of port `k`, with `what` going through it.
fn power_and_work(k: usize, what: &str) -> [(&'static str, Probe, &'static str, String); 2] {
    [
        (
            "power",
            Probe::PortPower(k),
            "W",
            format!("Power {what} through the port"),
        ),
        (
            "work",
            Probe::PortWork(k),
            "J",
            format!("Work {what} through the port since initialization"),
        ),
    ]
}

/// The base port's inputs (the carrier's motion, one per slot, named as the slot) and
/// outputs (the wrench on the carrier, power and work through the port).
pub(super) fn base(cx: &mut Ctx, b: &mut Builder, d: &Description, port: &CarrierBase) {
    let prefix = crate::lower::base::port_name(d);
    let help = "give the port another prefix with `name = \"...\"` in [interface.base]";
    for id in port.params() {
        let name = cx.params[id.index()].name.clone();
        if claim(cx, b, &name, "base port", help) {
            let unit = cx.slots[id.index()].expect.unit_name();
            let description = cx.slots[id.index()].description.clone();
            b.push(input(cx, name, description, id, unit));
        }
    }
    for (suffix, probe, unit, description) in crate::lower::base::outputs(port.reference) {
        let name = format!("{prefix}.{suffix}");
        if claim(cx, b, &name, "base port", help) {
            b.push(output(
                &name,
                description,
                probe,
                VarType::Real,
                Some(unit.into()),
            ));
        }
    }
}

/// Every port of `model.ports`.
pub(super) fn ports(cx: &mut Ctx, b: &mut Builder, model: &CompiledModel) {
    for (k, port) in model.ports.iter().enumerate() {
        let owner = format!("port '{}'", port.name);
        if let PortKind::Mount { force, moment, .. } = port.kind {
            mount(cx, b, k, &port.name, [force, moment]);
            continue;
        }
        let Some((inputs, outputs)) = port_sides(model, k) else {
            continue;
        };
        let help = "rename the port";
        for (suffix, id, unit) in inputs {
            let var = format!("{}.{suffix}", port.name);
            if !claim(cx, b, &var, &owner, help) {
                continue;
            }
            if let Some(other) = b.bound.get(&id) {
                let span = b.names.get(other).cloned().unwrap_or_default();
                cx.error(
                    span,
                    format!(
                        "the port '{}' needs the slot '{}', which this variable already exposes",
                        port.name,
                        cx.params[id.index()].name
                    ),
                    "remove this variable: the port exposes the slot itself",
                );
                continue;
            }
            let description = format!(
                "{}: input of port {}",
                cx.slots[id.index()].description,
                port.name
            );
            b.push(input(cx, var, description, id, Some(unit.into())));
        }
        let extra = power_and_work(k, "delivered into the machine");
        for (suffix, probe, unit, text) in outputs.into_iter().chain(extra) {
            let var = format!("{}.{suffix}", port.name);
            if claim(cx, b, &var, &owner, help) {
                b.push(output(&var, text, probe, VarType::Real, Some(unit.into())));
            }
        }
    }
}

type Inputs = Vec<(&'static str, ParamId, &'static str)>;
type Outputs = Vec<(&'static str, Probe, &'static str, String)>;

/// What port `k` (not a mount) takes and gives: (suffix, slot, unit) and (suffix, probe,
/// unit, description).
fn port_sides(model: &CompiledModel, k: usize) -> Option<(Inputs, Outputs)> {
    let out = |suffix, probe, unit, text: &str| (suffix, probe, unit, text.to_string());
    Some(match model.ports[k].kind {
        PortKind::JointForce { body, force } => {
            let revolute = matches!(
                model.mechanism.bodies[body].joint,
                JointKind::Revolute { .. }
            );
            let (field, unit, rate) = if revolute {
                ("torque", "N.m", "rad/s")
            } else {
                ("force", "N", "m/s")
            };
            (
                vec![(field, force, unit)],
                vec![out(
                    "speed",
                    Probe::PortOutput(k),
                    rate,
                    "Rate of the driven joint",
                )],
            )
        }
        PortKind::JointMotion {
            body,
            position,
            velocity,
            acceleration,
        } => {
            let revolute = matches!(
                model.mechanism.bodies[body].joint,
                JointKind::Revolute { .. }
            );
            let (field, unit, units) = if revolute {
                ("torque", "N.m", ["rad", "rad/s", "rad/s2"])
            } else {
                ("force", "N", ["m", "m/s", "m/s2"])
            };
            (
                vec![
                    ("q", position, units[0]),
                    ("qd", velocity, units[1]),
                    ("qdd", acceleration, units[2]),
                ],
                vec![out(
                    field,
                    Probe::PortOutput(k),
                    unit,
                    "Torque or force the drive applies to the joint to move it as prescribed",
                )],
            )
        }
        PortKind::Flow { node, flow } => (
            vec![("flow", flow, "m3/s")],
            vec![out(
                "pressure",
                Probe::NodePressure(node),
                "Pa",
                "Pressure of the volume the port feeds",
            )],
        ),
        PortKind::Tlm {
            node,
            wave,
            impedance,
        } => (
            vec![("wave", wave, "Pa"), ("impedance", impedance, "Pa.s/m3")],
            vec![
                out(
                    "flow",
                    Probe::PortOutput(k),
                    "m3/s",
                    "Flow from the line into the machine, q = (c − p)/Zc",
                ),
                out(
                    "pressure",
                    Probe::NodePressure(node),
                    "Pa",
                    "Pressure at the line end (the volume's)",
                ),
            ],
        ),
        PortKind::Pressure { node } => {
            let Node::Pressure { pressure, .. } = model.circuit.nodes[node] else {
                return None;
            };
            (
                vec![("pressure", pressure, "Pa")],
                vec![out(
                    "flow",
                    Probe::PortOutput(k),
                    "m3/s",
                    "Flow from the pressure port into the machine",
                )],
            )
        }
        PortKind::PumpShaft { element } => {
            let Element::Pump(pump) = &model.circuit.elements[element] else {
                return None;
            };
            (
                vec![("speed", pump.speed, "rad/s")],
                vec![out(
                    "torque",
                    Probe::PortOutput(k),
                    "N.m",
                    "Torque the pump's shaft needs (displacement × pressure rise / 2π)",
                )],
            )
        }
        PortKind::Mount { .. } => return None,
    })
}

/// A carrier's mount: the carried machine's wrench in, the mount frame's motion out (world
/// axes, named like the base port's inputs so that the two connect one to one), power and
/// work.
fn mount(cx: &mut Ctx, b: &mut Builder, k: usize, name: &str, wrench: [[ParamId; 3]; 2]) {
    let help = "give the mount another prefix with `name` in [interface.mount]";
    for (ids, field, unit) in [(wrench[0], "force", "N"), (wrench[1], "moment", "N.m")] {
        for (id, axis) in ids.into_iter().zip(["x", "y", "z"]) {
            let var = format!("{name}.{field}.{axis}");
            if claim(cx, b, &var, "mount", help) {
                let description = cx.slots[id.index()].description.clone();
                b.push(input(cx, var, description, id, Some(unit.into())));
            }
        }
    }
    for (j, (suffix, unit, text)) in crate::lower::base::MOTION.iter().enumerate() {
        let var = format!("{name}.{suffix}");
        if claim(cx, b, &var, "mount", help) {
            let unit = (!unit.is_empty()).then(|| unit.to_string());
            let text = format!("{text} of the mount (world axes)");
            b.push(output(
                &var,
                text,
                Probe::MountMotion(k, j),
                VarType::Real,
                unit,
            ));
        }
    }
    for (suffix, probe, unit, text) in
        power_and_work(k, "the carried machine delivers into the carrier")
    {
        let var = format!("{name}.{suffix}");
        if claim(cx, b, &var, "mount", help) {
            b.push(output(&var, text, probe, VarType::Real, Some(unit.into())));
        }
    }
}
