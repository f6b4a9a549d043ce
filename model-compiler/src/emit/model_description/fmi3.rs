//! `modelDescription.xml` for FMI 3.0 Co-Simulation and/or Model Exchange, from the same
//! compiled model as the FMI 2.0 one ([`super::render_for`]).
//!
//! Model Exchange adds `<ModelExchange>` (with `needsCompletedIntegratorStep="true"`: the
//! step event that re-chooses the independent coordinates comes from it), `nominal` on the
//! continuous states, `derivative="<value reference of the state>"` on their derivatives,
//! `<ContinuousStateDerivative>` in `ModelStructure`, and both in `<InitialUnknown>`.
//!
//! What differs from FMI 2.0 (fmi-standard `docs/2_4_common_schema.adoc`,
//! `4_4_co-simulation_schema.adoc`; FMPy's `schema/fmi3` is what the tests validate
//! against):
//! - `instantiationToken` instead of `guid`; no `numberOfEventIndicators`;
//! - one element per variable named after its type (`Float64`, `Int32`, `Boolean`) with
//!   the type's attributes on it, and one value-reference space for all types;
//! - the independent variable `time` is declared (exactly one is required), at the value
//!   reference [`fmu_runtime::fmi3::time_value_reference`] gives the runtime;
//! - `ModelStructure` lists `Output` and `InitialUnknown` by value reference;
//! - the Co-Simulation capabilities: intermediate update and early return after it, no
//!   Event Mode, FMU state, `fixedInternalStepSize` = the default of `solver.step` (the
//!   internal step; a communication step that is not a multiple ends with a shorter one).
//!
//! Continuous Real inputs and outputs carry `intermediateUpdate="true"`: a master may set
//! and read them in the intermediate-update callback (the runtime uses the same rule,
//! [`fmu_runtime::fmi3::component::intermediate_role`]).

use super::{
    dependency_list, derivative_indices, document, real, root, start, structure_indices, type_tag,
    used_units, value_text, variable_element, write_flags, write_model_structure_and_close,
};
use crate::Interface;
use fmu_runtime::fmi3::component::intermediate_role;
use fmu_runtime::model::{Causality, CompiledModel, VarType, Variable};
use quick_xml::Writer;
use quick_xml::events::{BytesEnd, Event};
use std::io;

/// Renders the FMI 3.0 document of a Co-Simulation FMU.
pub fn render(model: &CompiledModel, generation_date_and_time: &str) -> Result<String, String> {
    render_for(model, generation_date_and_time, Interface::CoSimulation)
}

/// Renders the FMI 3.0 document for the interface types (Model Exchange needs the model's
/// continuous states, [`crate::emit::model_exchange::declare_states`]).
pub fn render_for(
    model: &CompiledModel,
    generation_date_and_time: &str,
    interface: Interface,
) -> Result<String, String> {
    let time_vr = fmu_runtime::fmi3::time_value_reference(model);
    if model.variables.iter().any(|v| v.name == "time") {
        return Err(
            "a variable is named \"time\", which FMI 3.0 reserves here for the independent variable; rename it"
                .into(),
        );
    }
    let bytes = document(|w| write(w, model, generation_date_and_time, time_vr, interface))
        .map_err(|e| format!("writing modelDescription.xml: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("modelDescription.xml is not UTF-8: {e}"))
}

fn write(
    w: &mut Writer<Vec<u8>>,
    model: &CompiledModel,
    generation_date_and_time: &str,
    time_vr: u32,
    interface: Interface,
) -> io::Result<()> {
    let model_exchange = interface.model_exchange() && model.continuous_states() > 0;
    let root = root(model, "3.0", "instantiationToken", generation_date_and_time);
    w.write_event(Event::Start(root))?;

    if model_exchange {
        write_flags(
            w,
            "ModelExchange",
            &[
                ("modelIdentifier", model.model_identifier.as_str()),
                ("canBeInstantiatedOnlyOncePerProcess", "false"),
                ("canGetAndSetFMUState", "true"),
                ("canSerializeFMUState", "true"),
                ("providesDirectionalDerivatives", "true"),
                ("providesAdjointDerivatives", "false"),
                ("providesPerElementDependencies", "false"),
                ("needsCompletedIntegratorStep", "true"),
                ("providesEvaluateDiscreteStates", "false"),
            ],
        )?;
    }
    if interface.co_simulation() {
        let internal_step = real(model.params[model.solver.step.index()].default);
        write_flags(
            w,
            "CoSimulation",
            &[
                ("modelIdentifier", model.model_identifier.as_str()),
                ("canBeInstantiatedOnlyOncePerProcess", "false"),
                ("canGetAndSetFMUState", "true"),
                ("canSerializeFMUState", "true"),
                ("providesDirectionalDerivatives", "false"),
                ("providesAdjointDerivatives", "false"),
                ("providesPerElementDependencies", "false"),
                ("canHandleVariableCommunicationStepSize", "true"),
                ("fixedInternalStepSize", internal_step.as_str()),
                ("maxOutputDerivativeOrder", "0"),
                ("providesIntermediateUpdate", "true"),
                ("mightReturnEarlyFromDoStep", "false"),
                ("canReturnEarlyAfterIntermediateUpdate", "true"),
                ("hasEventMode", "false"),
                ("providesEvaluateDiscreteStates", "false"),
            ],
        )?;
    }

    let mut units = used_units(model);
    if !units.iter().any(|u| u == "s") {
        units.push("s".into());
    }
    super::write_unit_definitions(w, &units)?;
    let types = UnitTypes::of(model);
    types.write(w)?;
    super::write_log_categories_and_experiment(w, model)?;

    w.write_event(Event::Start(start("ModelVariables")))?;
    let mut time = start("Float64");
    time.push_attribute(("name", "time"));
    time.push_attribute(("valueReference", time_vr.to_string().as_str()));
    time.push_attribute(("description", "Simulation time"));
    time.push_attribute(("causality", "independent"));
    time.push_attribute(("variability", "continuous"));
    time.push_attribute(("declaredType", types.name(Some("s"), None)));
    w.write_event(Event::Empty(time))?;
    let (derivatives, derivative_of) = derivative_indices(model);
    let vr_of = |index: &usize| model.variables[index - 1].value_reference.to_string();
    for (v, of) in model.variables.iter().zip(&derivative_of) {
        write_variable(w, v, &types, of.as_ref().map(vr_of))?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    // The same sets as FMI 2.0, by value reference.
    let (outputs, initial_unknowns) = structure_indices(model);
    let empty = outputs.is_empty() && initial_unknowns.is_empty();
    let dependencies = model_exchange
        .then(|| crate::emit::dependencies::of_outputs(model))
        .flatten();
    write_model_structure_and_close(w, empty, |w| {
        for i in &outputs {
            let mut u = start("Output");
            u.push_attribute(("valueReference", vr_of(i).as_str()));
            // As in FMI 2.0: no direct feedthrough in Co-Simulation (an input set at a
            // communication point changes no output before the next fmi3DoStep); in
            // Model Exchange the states and inputs found by `emit::dependencies`.
            let on = dependency_list(&dependencies, model_exchange, *i, |k| vr_of(&(k + 1)));
            if let Some(on) = on {
                u.push_attribute(("dependencies", on.as_str()));
            }
            w.write_event(Event::Empty(u))?;
        }
        for (list, indices) in [
            ("ContinuousStateDerivative", &derivatives),
            ("InitialUnknown", &initial_unknowns),
        ] {
            for i in indices {
                let mut u = start(list);
                u.push_attribute(("valueReference", vr_of(i).as_str()));
                w.write_event(Event::Empty(u))?;
            }
        }
        Ok(())
    })
}

fn write_variable(
    w: &mut Writer<Vec<u8>>,
    v: &Variable,
    types: &UnitTypes,
    derivative_of: Option<String>,
) -> io::Result<()> {
    let tag = type_tag(v.var_type, ["Float64", "Int32", "Boolean"]);
    let number = value_text(v.var_type);
    let mut e = variable_element(tag, v);
    if matches!(
        intermediate_role(v),
        Some(Causality::Input | Causality::Output)
    ) {
        e.push_attribute(("intermediateUpdate", "true"));
    }
    if v.var_type == VarType::Real && v.unit.is_some() {
        let name = types.name(v.unit.as_deref(), v.display_unit.as_deref());
        e.push_attribute(("declaredType", name));
    }
    if v.var_type != VarType::Boolean {
        if let Some(m) = v.min {
            e.push_attribute(("min", number(m).as_str()));
        }
        if let Some(m) = v.max {
            e.push_attribute(("max", number(m).as_str()));
        }
    }
    if let Some(s) = v.start {
        e.push_attribute(("start", number(s).as_str()));
    }
    if let Some(state) = &derivative_of {
        e.push_attribute(("derivative", state.as_str()));
    }
    if let Some(n) = v.nominal {
        e.push_attribute(("nominal", number(n).as_str()));
    }
    w.write_event(Event::Empty(e))?;
    Ok(())
}

/// The units of Float64 variables as `<Float64Type>` definitions that the variables name in
/// `declaredType` (as the Reference-FMUs and Dymola write them), rather than `unit` on each
/// variable: both are valid FMI 3.0, but importers such as the `fmi` crate 0.8.0 refuse
/// `unit`/`displayUnit` on a `<Float64>` element. One type per (unit, display unit), named
/// after them in structured-naming identifiers (`m3_per_s`, `Pa_in_bar`).
struct UnitTypes {
    /// (unit, display unit, type name), in order of first use.
    types: Vec<(String, Option<String>, String)>,
}

impl UnitTypes {
    fn of(model: &CompiledModel) -> UnitTypes {
        let mut t = UnitTypes { types: Vec::new() };
        t.add("s", None);
        for v in &model.variables {
            if let (VarType::Real, Some(u)) = (v.var_type, &v.unit) {
                t.add(u, v.display_unit.as_deref());
            }
        }
        t
    }

    fn add(&mut self, unit: &str, display: Option<&str>) {
        if self
            .types
            .iter()
            .any(|(u, d, _)| u == unit && d.as_deref() == display)
        {
            return;
        }
        let base = match display {
            Some(d) => format!("{}_in_{}", identifier(unit), identifier(d)),
            None => identifier(unit),
        };
        let mut name = base.clone();
        let mut k = 2;
        while self.types.iter().any(|(_, _, n)| *n == name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.types
            .push((unit.to_string(), display.map(str::to_string), name));
    }

    fn name(&self, unit: Option<&str>, display: Option<&str>) -> &str {
        self.types
            .iter()
            .find(|(u, d, _)| Some(u.as_str()) == unit && d.as_deref() == display)
            .map(|(_, _, n)| n.as_str())
            .unwrap_or_default()
    }

    fn write(&self, w: &mut Writer<Vec<u8>>) -> io::Result<()> {
        w.write_event(Event::Start(start("TypeDefinitions")))?;
        for (unit, display, name) in &self.types {
            let mut t = start("Float64Type");
            t.push_attribute(("name", name.as_str()));
            t.push_attribute(("unit", unit.as_str()));
            if let Some(d) = display {
                t.push_attribute(("displayUnit", d.as_str()));
            }
            w.write_event(Event::Empty(t))?;
        }
        w.write_event(Event::End(BytesEnd::new("TypeDefinitions")))
    }
}

/// A unit as a structured-naming identifier: `/` → `_per_`, anything else that is not a
/// letter or digit → `_`, a leading digit prefixed with `u`.
fn identifier(unit: &str) -> String {
    let mut out = String::new();
    for c in unit.chars() {
        match c {
            c if c.is_ascii_alphanumeric() => out.push(c),
            '/' => out.push_str("_per_"),
            _ => out.push('_'),
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'u');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(name: &str) -> CompiledModel {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models")
            .join(name);
        let source = crate::diagnostic::Source::new(&path, std::fs::read_to_string(&path).unwrap());
        crate::compile(&source).unwrap().model
    }

    #[test]
    fn the_fmi3_document_declares_time_and_lists_by_value_reference() {
        let m = built("naya-rod.toml");
        let xml = render(&m, "2026-11-26T00:00:00Z").unwrap();
        assert!(xml.contains(r#"fmiVersion="3.0""#));
        assert!(xml.contains(&format!(r#"instantiationToken="{}""#, m.guid)));
        assert!(!xml.contains("guid="));
        assert!(xml.contains(r#"<Float64 name="time" valueReference="0""#));
        assert_eq!(xml.matches(r#"causality="independent""#).count(), 1);
        assert_eq!(xml.matches("<ScalarVariable").count(), 0);
        let outputs = m
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Output)
            .count();
        assert_eq!(xml.matches("<Output ").count(), outputs);
        // Every continuous input carries intermediateUpdate.
        for v in m
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
        {
            let line = xml
                .lines()
                .find(|l| l.contains(&format!(r#"name="{}""#, v.name)))
                .unwrap();
            assert!(line.contains(r#"intermediateUpdate="true""#), "{line}");
        }
        let step = real(m.params[m.solver.step.index()].default);
        assert!(xml.contains(&format!(r#"fixedInternalStepSize="{step}""#)));
        // Units through declared types, each defined once.
        assert!(xml.contains(r#"<Float64Type name="s" unit="s"/>"#), "{xml}");
        let variables = xml
            .lines()
            .filter(|l| l.trim_start().starts_with("<Float64 "));
        assert!(
            variables.clone().all(|l| !l.contains(" unit=")),
            "no unit on variables"
        );
        assert!(variables.clone().count() > 10);
        for line in xml.lines().filter(|l| l.contains("declaredType=")) {
            let name = line
                .split("declaredType=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let def = format!(r#"<Float64Type name="{name}""#);
            assert_eq!(xml.matches(&def).count(), 1, "{name}");
        }
    }

    #[test]
    fn unit_identifiers_follow_structured_naming() {
        assert_eq!(identifier("m3/s"), "m3_per_s");
        assert_eq!(identifier("N.m"), "N_m");
        assert_eq!(identifier("1/s"), "u1_per_s");
        let mut t = UnitTypes { types: Vec::new() };
        t.add("N.m", None);
        t.add("N_m", None);
        t.add("Pa", Some("bar"));
        assert_eq!(t.name(Some("N_m"), None), "N_m_2");
        assert_eq!(t.name(Some("Pa"), Some("bar")), "Pa_in_bar");
    }
}
