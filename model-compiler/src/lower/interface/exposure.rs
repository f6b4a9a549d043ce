//! Which slots an importer may change, and when; which description fields have no slot.

use crate::lower::Ctx;
use fmu_runtime::model::ParamId;

/// Whether a slot may change while the FMU runs (`tunable` parameters and inputs), only
/// before initialization (`fixed` parameters), or not be exposed at all.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Exposure {
    Tunable,
    /// Why it cannot be tunable.
    Fixed(&'static str),
    /// Why it cannot be exposed.
    Hidden(String),
}

/// The rule: operating conditions and loads that change on a real machine while it runs
/// or that calibration adjusts are tunable (masses/payload, supply and tank pressures,
/// valve commands, external forces, pump speed, displacement and regulator settings
/// (LS margin, cut-off), relief settings,
/// throttle and leakage coefficients, friction coefficients, spring stiffness and
/// damping); geometry, volumes, areas, stroke, fluid and wall properties, initial
/// conditions, valve characteristics, friction model choice and solver settings are fixed.
pub(crate) fn exposure(cx: &Ctx, id: ParamId) -> Exposure {
    use Exposure::*;
    if let Some(reason) = cx.hidden.get(&id) {
        return Hidden(reason.clone());
    }
    let name = cx.params[id.index()].name.as_str();
    let (head, field) = name.split_once('.').unwrap_or((name, ""));
    const GEOMETRY: &str = "it is geometry or a component property, which is fixed for a run";
    const INITIAL: &str = "it only acts when the FMU initializes";
    if head == "solver" {
        return Fixed("solver settings set up the integrator when the FMU initializes");
    }
    if head == "oil" {
        if field == "density" {
            return Hidden(
                "the oil density only converts valve and orifice areas into flow coefficients when the FMU is built; the solver does not read it, so exposing it would change nothing".into(),
            );
        }
        return Fixed("oil properties are fixed for a run");
    }
    let kind = cx.components.get(head).map(|(k, _)| *k).unwrap_or("");
    let tunable = match kind {
        "body" if field == "q0" || field.starts_with("q0.") => return Fixed(INITIAL),
        "body" => field == "mass",
        "pressure source" => field == "pressure",
        "volume" if field == "precharge" => return Fixed(INITIAL),
        "valve" => field == "command",
        "orifice" => field == "coefficient",
        "relief valve" => matches!(field, "cracking_pressure" | "gain"),
        "check valve" => matches!(field, "cracking_pressure" | "coefficient"),
        "counterbalance valve" => matches!(field, "setting" | "pilot_ratio" | "coefficient"),
        "pump" => matches!(
            field,
            "speed" | "displacement" | "volumetric_efficiency" | "margin" | "cutoff"
        ),
        "leakage" => field == "conductance",
        "cylinder" if field == "friction.model" => {
            return Fixed(
                "the friction model chooses the friction states when the FMU initializes",
            );
        }
        "cylinder" => field.starts_with("friction."),
        "spring-damper" => matches!(field, "stiffness" | "damping"),
        "point force" => field.starts_with("force."),
        "force actuator" => field == "force",
        _ => false,
    };
    if tunable { Tunable } else { Fixed(GEOMETRY) }
}

/// Numeric fields of the description that the compiled model stores inline (geometry the
/// kinematics are built from, tables, solver tolerances), so they have no slot.
/// Per component kind: its schema definition and the fields the compiled model stores
/// inline (checked against the definition by a test).
const INLINE: &[(&str, &str, &[&str])] = &[
    ("body", "body", &["com", "inertia", "parts", "joint"]),
    ("marker", "marker", &["point", "body"]),
    (
        "cylinder",
        "cylinder",
        &["cap", "rod", "bore", "rod_diameter"],
    ),
    ("spring-damper", "spring_damper", &["a", "b"]),
    ("rope", "rope", &["path", "drum"]),
    ("point force", "point_force", &["point", "body"]),
    ("valve", "valve", &["spool", "edges"]),
    ("relief valve", "relief_valve", &["smoothing"]),
    ("volume", "volume", &["initial_guess"]),
    ("orifice", "orifice", &["area", "discharge_coefficient"]),
    (
        "check valve",
        "check_valve",
        &["area", "discharge_coefficient"],
    ),
    (
        "counterbalance valve",
        "counterbalance_valve",
        &["area", "discharge_coefficient"],
    ),
];

pub(super) fn inline_field(cx: &Ctx, target: &str) -> Option<&'static str> {
    let (head, field) = target.split_once('.')?;
    let field = field.split('.').next().unwrap_or(field);
    if head == "model" && field == "gravity" || head == "solver" {
        return Some("it is a setting of the compiled model, not a parameter of the runtime");
    }
    let kind = cx.components.get(head).map(|(k, _)| *k)?;
    let inline = INLINE
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or(&[][..], |(_, _, fields)| *fields);
    inline
        .contains(&field)
        .then_some("the runtime stores this field inline in the compiled model (geometry, tables, settings), not as a parameter")
}

#[cfg(test)]
mod tests {
    use super::INLINE;

    /// Every field the interface calls inline is a field of its component's description
    /// table (a renamed or removed field fails here instead of never matching).
    #[test]
    fn inline_fields_are_fields_of_their_tables() {
        let schema = crate::schema::schema();
        for (kind, def, fields) in INLINE {
            let props = schema["$defs"][*def]["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{kind}: no schema definition '{def}'"));
            for f in *fields {
                assert!(
                    props.contains_key(*f),
                    "{kind}: '{f}' is no field of $defs/{def}"
                );
            }
        }
    }
}
