//! `<model>_OspModelDescription.xml`: the model's coupling ports as OSP-IS variable groups
//! (OspModelDescription 1.0.1), written next to the FMU so that OSP tools (Kopl, libcosim,
//! the osp-validator) connect ports instead of scalars.
//!
//! Rules followed (osp-validator, `OspModelDescription-1.0.1.xsd`): namespace
//! `https://open-simulation-platform.com/OspModelDescription/1.0.1`, `version="1.0"`; the
//! children of `VariableGroups` in the schema's sequence order ([`Kind`] is declared in that
//! order); at most three variables in a quantity group; in a port, effort and flow of
//! opposite causality (the validator's rule); group names unique; every `ref` an FMI
//! variable, every `unit` one of its units. Frames are not part of OSP-IS: the group names
//! and the FMI descriptions say which axes each vector is in.

use crate::emit::documentation::escape as xml_escape;
use fmu_runtime::model::{Axis, Binding, CompiledModel, JointKind, PortKind, Probe, Variable};

/// Group kinds, in the order the schema's `VariableGroupsType` sequence requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Generic,
    LinearDisplacement,
    LinearAcceleration,
    AngularAcceleration,
    LinearMechanicalPort,
    AngularMechanicalPort,
    HydraulicPort,
}

impl Kind {
    fn element(self) -> &'static str {
        match self {
            Kind::Generic => "Generic",
            Kind::LinearDisplacement => "LinearDisplacement",
            Kind::LinearAcceleration => "LinearAcceleration",
            Kind::AngularAcceleration => "AngularAcceleration",
            Kind::LinearMechanicalPort => "LinearMechanicalPort",
            Kind::AngularMechanicalPort => "AngularMechanicalPort",
            Kind::HydraulicPort => "HydraulicPort",
        }
    }

    /// The two quantity elements of a port (effort, flow).
    fn parts(self) -> Option<(&'static str, &'static str)> {
        match self {
            Kind::LinearMechanicalPort => Some(("Force", "LinearVelocity")),
            Kind::AngularMechanicalPort => Some(("Torque", "AngularVelocity")),
            Kind::HydraulicPort => Some(("Pressure", "VolumeFlowRate")),
            _ => None,
        }
    }
}

/// One variable group: a quantity (one list) or a port (effort list, flow list).
struct Group<'a> {
    kind: Kind,
    name: String,
    lists: Vec<Vec<&'a Variable>>,
}

/// The document, or `None` when the model has no ports.
pub fn render(model: &CompiledModel) -> Option<String> {
    let groups = groups(model);
    if groups.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OspModelDescription xmlns=\"https://open-simulation-platform.com/OspModelDescription/1.0.1\" version=\"1.0\">\n  <VariableGroups>\n",
    );
    for g in &groups {
        let name = xml_escape(&g.name);
        match g.kind.parts() {
            None => {
                out += &format!("    <{} name=\"{name}\">\n", g.kind.element());
                variables(&mut out, &g.lists[0], "      ");
                out += &format!("    </{}>\n", g.kind.element());
            }
            Some((effort, flow)) => {
                out += &format!("    <{} name=\"{name}\">\n", g.kind.element());
                for (part, list) in [(effort, &g.lists[0]), (flow, &g.lists[1])] {
                    out += &format!("      <{part} name=\"{name}.{}\">\n", snake(part));
                    variables(&mut out, list, "        ");
                    out += &format!("      </{part}>\n");
                }
                out += &format!("    </{}>\n", g.kind.element());
            }
        }
    }
    out += "  </VariableGroups>\n</OspModelDescription>\n";
    Some(out)
}

/// `LinearVelocity` → `linear_velocity` (the name of a port's quantity group).
fn snake(element: &str) -> String {
    let mut out = String::new();
    for (i, c) in element.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn variables(out: &mut String, list: &[&Variable], indent: &str) {
    let vector = list.len() == 3;
    for (i, v) in list.iter().enumerate() {
        *out += &format!("{indent}<Variable ref=\"{}\"", xml_escape(&v.name));
        if let Some(u) = &v.unit {
            *out += &format!(" unit=\"{}\"", xml_escape(u));
        }
        if vector {
            *out += &format!(" axis=\"{}\"", ["x", "y", "z"][i]);
        }
        *out += "/>\n";
    }
}

fn by_probe(model: &CompiledModel, probe: Probe) -> Option<&Variable> {
    model
        .variables
        .iter()
        .find(|v| v.binding == Binding::Probe(probe))
}

fn by_slot(model: &CompiledModel, id: fmu_runtime::model::ParamId) -> Option<&Variable> {
    model
        .variables
        .iter()
        .find(|v| v.binding == Binding::Param(id))
}

fn by_name<'a>(model: &'a CompiledModel, name: &str) -> Option<&'a Variable> {
    model.variables.iter().find(|v| v.name == name)
}

/// Adds a group unless one of its variables is missing from the interface.
fn push<'a>(
    groups: &mut Vec<Group<'a>>,
    kind: Kind,
    name: String,
    lists: Vec<Vec<Option<&'a Variable>>>,
) {
    let lists: Option<Vec<Vec<&Variable>>> =
        lists.into_iter().map(|l| l.into_iter().collect()).collect();
    if let Some(lists) = lists {
        groups.push(Group { kind, name, lists });
    }
}

fn groups(model: &CompiledModel) -> Vec<Group<'_>> {
    let mut groups = Vec::new();
    let mut push = |kind, name, lists| push(&mut groups, kind, name, lists);
    const AXES: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];
    if let Some(base) = &model.mechanism.base
        && let Some(force) = by_probe(model, Probe::BaseForce(Axis::X))
    {
        let prefix = force.name.trim_end_matches(".force.x").to_string();
        let slots = |ids: &[fmu_runtime::model::ParamId]| {
            ids.iter().map(|id| by_slot(model, *id)).collect::<Vec<_>>()
        };
        let probes = |f: fn(Axis) -> Probe| AXES.map(|a| by_probe(model, f(a))).to_vec();
        push(
            Kind::Generic,
            format!("{prefix}.orientation"),
            vec![slots(&base.orientation)],
        );
        push(
            Kind::LinearDisplacement,
            format!("{prefix}.position"),
            vec![slots(&base.position)],
        );
        push(
            Kind::LinearAcceleration,
            format!("{prefix}.acceleration"),
            vec![slots(&base.acceleration)],
        );
        push(
            Kind::AngularAcceleration,
            format!("{prefix}.angular_acceleration"),
            vec![slots(&base.angular_acceleration)],
        );
        push(
            Kind::LinearMechanicalPort,
            format!("{prefix}.linear"),
            vec![probes(Probe::BaseForce), slots(&base.velocity)],
        );
        push(
            Kind::AngularMechanicalPort,
            format!("{prefix}.angular"),
            vec![probes(Probe::BaseMoment), slots(&base.angular_velocity)],
        );
    }
    for (k, port) in model.ports.iter().enumerate() {
        let name = &port.name;
        let var = |suffix: &str| by_name(model, &format!("{name}.{suffix}"));
        match port.kind {
            PortKind::JointForce { body, force } => {
                let kind = match model.mechanism.bodies[body].joint {
                    JointKind::Prismatic { .. } => Kind::LinearMechanicalPort,
                    _ => Kind::AngularMechanicalPort,
                };
                push(
                    kind,
                    name.clone(),
                    vec![
                        vec![by_slot(model, force)],
                        vec![by_probe(model, Probe::PortOutput(k))],
                    ],
                );
            }
            // The same pair the other way round: the velocity in, the drive's force out.
            PortKind::JointMotion { body, velocity, .. } => {
                let kind = match model.mechanism.bodies[body].joint {
                    JointKind::Prismatic { .. } => Kind::LinearMechanicalPort,
                    _ => Kind::AngularMechanicalPort,
                };
                push(
                    kind,
                    name.clone(),
                    vec![
                        vec![by_probe(model, Probe::PortOutput(k))],
                        vec![by_slot(model, velocity)],
                    ],
                );
            }
            PortKind::Flow { flow, .. } => push(
                Kind::HydraulicPort,
                name.clone(),
                vec![vec![var("pressure")], vec![by_slot(model, flow)]],
            ),
            PortKind::Pressure { .. } => push(
                Kind::HydraulicPort,
                name.clone(),
                vec![
                    vec![var("pressure")],
                    vec![by_probe(model, Probe::PortOutput(k))],
                ],
            ),
            // c and Zc in, q and p out: not an effort/flow pair of opposite causality.
            PortKind::Tlm { .. } => push(
                Kind::Generic,
                name.clone(),
                vec![vec![
                    var("wave"),
                    var("impedance"),
                    var("flow"),
                    var("pressure"),
                ]],
            ),
            PortKind::PumpShaft { .. } => push(
                Kind::AngularMechanicalPort,
                name.clone(),
                vec![vec![var("torque")], vec![var("speed")]],
            ),
            PortKind::Mount { force, moment, .. } => {
                let motion = |j: usize| {
                    (j..j + 3)
                        .map(|j| by_probe(model, Probe::MountMotion(k, j)))
                        .collect::<Vec<_>>()
                };
                let slots = |ids: [fmu_runtime::model::ParamId; 3]| {
                    ids.iter().map(|id| by_slot(model, *id)).collect::<Vec<_>>()
                };
                push(
                    Kind::Generic,
                    format!("{name}.orientation"),
                    vec![
                        (3..7)
                            .map(|j| by_probe(model, Probe::MountMotion(k, j)))
                            .collect(),
                    ],
                );
                push(
                    Kind::LinearDisplacement,
                    format!("{name}.position"),
                    vec![motion(0)],
                );
                push(
                    Kind::LinearAcceleration,
                    format!("{name}.acceleration"),
                    vec![motion(13)],
                );
                push(
                    Kind::AngularAcceleration,
                    format!("{name}.angular_acceleration"),
                    vec![motion(16)],
                );
                push(
                    Kind::LinearMechanicalPort,
                    format!("{name}.linear"),
                    vec![slots(force), motion(7)],
                );
                push(
                    Kind::AngularMechanicalPort,
                    format!("{name}.angular"),
                    vec![slots(moment), motion(10)],
                );
            }
        }
    }
    // Stable: within a kind, declaration order.
    groups.sort_by_key(|g| g.kind);
    groups
}
