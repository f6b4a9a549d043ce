//! `[init]`: what the static-equilibrium solve computes (`solve_for`) and which joint
//! coordinates it keeps where the description puts them (`hold`).
//!
//! The solve settles every joint coordinate nothing else holds (a chassis on its springs);
//! a coordinate is therefore never an unknown of `solve_for`, and `hold` is how a user keeps
//! one at its `initial` (a pendulum released from an angle).

use crate::description::{Description, Name};
use crate::lower::Ctx;
use fmu_runtime::model::{Binding, Causality, CompiledModel, ParamId};

/// The joint coordinates (indices in z) a name means: a joint's name means all its
/// coordinates (`truck` → `truck.x` … `truck.roll`), a coordinate's name (`truck.y`, or its
/// output `truck.y.q`) that one. Empty if it names none.
fn coordinates_named(model: &CompiledModel, text: &str) -> Vec<usize> {
    let bodies = &model.mechanism.bodies;
    let text = text.strip_suffix(".q").unwrap_or(text);
    (bodies.iter().zip(model.mechanism.coordinate_indices()))
        .filter_map(|(b, c)| {
            let named = b.joint_name == text
                || b.joint_name
                    .strip_prefix(text)
                    .is_some_and(|r| r.starts_with('.'));
            c.filter(|_| named)
        })
        .collect()
}

/// A joint coordinate's initial-value slot (`<body>.q0`).
fn is_initial_value(model: &CompiledModel, id: ParamId) -> bool {
    model.mechanism.bodies.iter().any(|b| b.q0 == id)
}

/// `init.solve_for`: interface variable names (inputs/parameters) or slot names.
pub(super) fn solve_for_targets(
    cx: &mut Ctx,
    d: &Description,
    model: &CompiledModel,
) -> Vec<ParamId> {
    let Some(list) = d.init.as_ref().and_then(|i| i.solve_for.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in list {
        let text = n.get_ref();
        let by_var = model.variables.iter().find(|v| &v.name == text);
        let slot = cx.slot_ids.get(text).copied();
        let coordinate = !coordinates_named(model, text).is_empty()
            || slot.is_some_and(|id| is_initial_value(model, id));
        let id = match by_var {
            _ if coordinate => {
                cx.error(
                    n.span(),
                    format!(
                        "'{text}' is a joint coordinate, not an input or parameter: the static \
                         equilibrium settles by itself every joint coordinate that no pressure, \
                         loop or solved-for input holds (a chassis on its springs)"
                    ),
                    "remove it from solve_for; to keep the coordinate where `initial` puts it, \
                     list it in [init] hold instead",
                );
                None
            }
            Some(v) => match (v.causality, v.binding) {
                (Causality::Input | Causality::Parameter, Binding::Param(p)) => Some(p),
                _ => {
                    cx.error(
                        n.span(),
                        format!(
                            "'{text}' is an output; only inputs and parameters can be solved for"
                        ),
                        "name an input, a parameter or a parameter slot",
                    );
                    None
                }
            },
            None => match slot {
                Some(p) => Some(p),
                None => {
                    let mut c: Vec<String> = model
                        .variables
                        .iter()
                        .filter(|v| v.causality != Causality::Output)
                        .map(|v| v.name.clone())
                        .collect();
                    c.extend(cx.slot_ids.keys().cloned());
                    cx.unknown(
                        n,
                        "input, parameter or slot",
                        c.iter().map(String::as_str).collect(),
                    );
                    None
                }
            },
        };
        if let Some(id) = id {
            if out.contains(&id) {
                cx.error(
                    n.span(),
                    format!("'{text}' is listed twice"),
                    "list each unknown once",
                );
            } else {
                out.push(id);
            }
        }
    }
    out
}

/// The joint coordinates the static equilibrium keeps at their `initial`: those `init.hold`
/// names, and those whose initial value is an FMI parameter or input (a load's initial
/// swing set by the importer: settling it would make the parameter do nothing).
pub(super) fn held_coordinates(cx: &mut Ctx, d: &Description, model: &CompiledModel) -> Vec<usize> {
    let mut out = named_holds(cx, d, model);
    let exposed = |id: ParamId| {
        (model.variables.iter()).any(|v| {
            v.binding == Binding::Param(id)
                && matches!(v.causality, Causality::Parameter | Causality::Input)
        })
    };
    let bodies = model.mechanism.bodies.iter();
    for (b, c) in bodies.zip(model.mechanism.coordinate_indices()) {
        if let Some(c) = c.filter(|c| exposed(b.q0) && !out.contains(c)) {
            out.push(c);
        }
    }
    out.sort_unstable();
    out
}

fn named_holds(cx: &mut Ctx, d: &Description, model: &CompiledModel) -> Vec<usize> {
    let Some(init) = d.init.as_ref() else {
        return Vec::new();
    };
    let Some(list) = init.hold.as_ref() else {
        return Vec::new();
    };
    if init.static_equilibrium == Some(false) {
        if let Some(first) = list.first() {
            cx.error(
                first.span(),
                "[init] hold keeps coordinates out of the static equilibrium, but \
                 static_equilibrium = false: every coordinate starts at its `initial` already",
                "remove hold, or set static_equilibrium = true",
            );
        }
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in list {
        let coordinates = coordinates_named(model, n.get_ref());
        if coordinates.is_empty() {
            hold_unknown(cx, n, model);
        } else if coordinates.iter().any(|c| out.contains(c)) {
            cx.error(
                n.span(),
                format!("'{}' is held twice", n.get_ref()),
                "list each joint or coordinate once",
            );
        } else {
            out.extend(coordinates);
        }
    }
    out
}

fn hold_unknown(cx: &mut Ctx, n: &Name, model: &CompiledModel) {
    let text = n.get_ref();
    let bodies = &model.mechanism.bodies;
    if bodies
        .iter()
        .any(|b| b.joint_name == *text && b.joint.dof() == 0)
    {
        cx.error(
            n.span(),
            format!("'{text}' is a fixed joint: it has no coordinate to hold"),
            "remove it from hold",
        );
        return;
    }
    let names: Vec<&str> = (bodies.iter())
        .filter(|b| b.joint.dof() == 1)
        .map(|b| b.joint_name.as_str())
        .collect();
    cx.unknown(n, "joint or joint coordinate", names);
}
