//! `modelDescription.xml` (FMI 2.0 Co-Simulation and/or Model Exchange), written from the
//! compiled model.
//!
//! Rules followed (fmi-standard v2.0.5 `2_2_common_schema.adoc`, see
//! shared/reference/fmi-export-notes.md §1.4): xs:sequence element order; no empty list
//! elements; every unit and display unit used is defined; `<Outputs>` holds exactly the
//! outputs and `<InitialUnknowns>` exactly the outputs with initial approx/calculated
//! (all of ours), with 1-based indices in ModelVariables order; outputs declared without
//! direct feedthrough (`dependencies=""`) in a Co-Simulation-only FMU; numbers in shortest
//! round-trip form. Model Exchange adds the continuous states and their derivatives
//! ([`crate::emit::model_exchange`]): `derivative="<index of the state>"`, `nominal`, the
//! `<Derivatives>` list, and both in `<InitialUnknowns>`.

use crate::Interface;
use crate::units;
use fmu_runtime::model::{
    Binding, Causality, CompiledModel, Initial, Probe, VarType, Variability, Variable,
};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use std::io;

/// Shortest round-trip text of a double (`1e-5`, `0.01`, `850.0`).
pub fn real(x: f64) -> String {
    format!("{x:?}")
}

pub(crate) fn causality(c: Causality) -> &'static str {
    match c {
        Causality::Parameter => "parameter",
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::Local => "local",
    }
}

pub(crate) fn variability(v: Variability) -> &'static str {
    match v {
        Variability::Constant => "constant",
        Variability::Fixed => "fixed",
        Variability::Tunable => "tunable",
        Variability::Discrete => "discrete",
        Variability::Continuous => "continuous",
    }
}

pub(crate) fn initial(i: Initial) -> &'static str {
    match i {
        Initial::Exact => "exact",
        Initial::Approx => "approx",
        Initial::Calculated => "calculated",
    }
}

/// Units used by the variables, in order of first use.
pub fn used_units(model: &CompiledModel) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in &model.variables {
        if let Some(u) = &v.unit
            && !out.contains(u)
        {
            out.push(u.clone());
        }
    }
    out
}

/// The 1-based ModelVariables indices of the outputs, and of the initial unknowns.
pub fn structure_indices(model: &CompiledModel) -> (Vec<usize>, Vec<usize>) {
    let outputs: Vec<usize> = model
        .variables
        .iter()
        .enumerate()
        .filter(|(_, v)| v.causality == Causality::Output)
        .map(|(i, _)| i + 1)
        .collect();
    // Outputs with initial approx or calculated (absent = calculated for non-constant
    // outputs), plus calculated parameters (there are none), plus the continuous states
    // and their derivatives (all calculated).
    let mut initial_unknowns: Vec<usize> = model
        .variables
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            (v.causality == Causality::Output
                && v.variability != Variability::Constant
                && matches!(
                    v.initial,
                    None | Some(Initial::Approx | Initial::Calculated)
                ))
                || v.is_continuous_state()
        })
        .map(|(i, _)| i + 1)
        .collect();
    initial_unknowns.sort_unstable();
    (outputs, initial_unknowns)
}

pub(crate) fn start(name: &str) -> BytesStart<'_> {
    BytesStart::new(name)
}

/// The 1-based ModelVariables indices of the state derivatives, and for each variable
/// the index of the state it is the derivative of.
pub fn derivative_indices(model: &CompiledModel) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut state_index = vec![0; model.continuous_states()];
    for (i, v) in model.variables.iter().enumerate() {
        if let Binding::Probe(Probe::ContinuousState(k)) = v.binding {
            state_index[k] = i + 1;
        }
    }
    let of: Vec<Option<usize>> = model
        .variables
        .iter()
        .map(|v| match v.binding {
            Binding::Probe(Probe::StateDerivative(k)) => Some(state_index[k]),
            _ => None,
        })
        .collect();
    let derivatives = (0..of.len())
        .filter(|&i| of[i].is_some())
        .map(|i| i + 1)
        .collect();
    (derivatives, of)
}

/// Renders the XML document of a Co-Simulation FMU.
pub fn render(model: &CompiledModel, generation_date_and_time: &str) -> String {
    render_for(model, generation_date_and_time, Interface::CoSimulation)
}

/// Renders the XML document for the interface types (Model Exchange needs the model's
/// continuous states, [`crate::emit::model_exchange::declare_states`]).
pub fn render_for(
    model: &CompiledModel,
    generation_date_and_time: &str,
    interface: Interface,
) -> String {
    let bytes =
        write(model, generation_date_and_time, interface).expect("writing to a Vec cannot fail");
    String::from_utf8(bytes).expect("quick-xml writes UTF-8")
}

fn write(
    model: &CompiledModel,
    generation_date_and_time: &str,
    interface: Interface,
) -> io::Result<Vec<u8>> {
    let model_exchange = interface.model_exchange() && model.continuous_states() > 0;
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;

    let md = &model.metadata;
    let tool = format!("hydromech {}", env!("CARGO_PKG_VERSION"));
    let mut root = start("fmiModelDescription");
    root.push_attribute(("fmiVersion", "2.0"));
    root.push_attribute(("modelName", model.name.as_str()));
    root.push_attribute(("guid", model.guid.as_str()));
    for (key, value) in [
        ("description", &md.description),
        ("author", &md.author),
        ("version", &md.version),
    ] {
        if !value.is_empty() {
            root.push_attribute((key, value.as_str()));
        }
    }
    for (key, value) in [("copyright", &md.copyright), ("license", &md.license)] {
        if !value.is_empty() {
            root.push_attribute((key, value.as_str()));
        }
    }
    root.push_attribute(("generationTool", tool.as_str()));
    root.push_attribute(("generationDateAndTime", generation_date_and_time));
    root.push_attribute(("variableNamingConvention", "structured"));
    root.push_attribute(("numberOfEventIndicators", "0"));
    w.write_event(Event::Start(root))?;

    if model_exchange {
        let mut me = start("ModelExchange");
        for (k, v) in [
            ("modelIdentifier", model.model_identifier.as_str()),
            ("needsExecutionTool", "false"),
            ("completedIntegratorStepNotNeeded", "false"),
            ("canBeInstantiatedOnlyOncePerProcess", "false"),
            ("canNotUseMemoryManagementFunctions", "true"),
            ("canGetAndSetFMUstate", "true"),
            ("canSerializeFMUstate", "true"),
            // Of the derivatives and outputs with respect to states and inputs
            // (fmu-runtime/src/fmi2/directional.rs).
            ("providesDirectionalDerivative", "true"),
        ] {
            me.push_attribute((k, v));
        }
        w.write_event(Event::Empty(me))?;
    }
    let mut cs = start("CoSimulation");
    for (k, v) in [
        ("modelIdentifier", model.model_identifier.as_str()),
        ("canHandleVariableCommunicationStepSize", "true"),
        ("canGetAndSetFMUstate", "true"),
        ("canSerializeFMUstate", "true"),
        ("canNotUseMemoryManagementFunctions", "true"),
        ("canBeInstantiatedOnlyOncePerProcess", "false"),
        ("canInterpolateInputs", "true"),
        ("maxOutputDerivativeOrder", "0"),
        ("canRunAsynchronuously", "false"),
        ("providesDirectionalDerivative", "false"),
    ] {
        cs.push_attribute((k, v));
    }
    if interface.co_simulation() {
        w.write_event(Event::Empty(cs))?;
    }

    write_unit_definitions(&mut w, &used_units(model))?;
    write_log_categories_and_experiment(&mut w, model)?;

    let (derivatives, derivative_of) = derivative_indices(model);
    w.write_event(Event::Start(start("ModelVariables")))?;
    for (i, v) in model.variables.iter().enumerate() {
        w.write_event(Event::Comment(quick_xml::events::BytesText::new(&format!(
            " index {} ",
            i + 1
        ))))?;
        write_variable(&mut w, v, derivative_of[i])?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    let (outputs, initial_unknowns) = structure_indices(model);
    if outputs.is_empty() && initial_unknowns.is_empty() {
        w.write_event(Event::Empty(start("ModelStructure")))?;
    } else {
        w.write_event(Event::Start(start("ModelStructure")))?;
        for (list, indices) in [
            ("Outputs", &outputs),
            ("Derivatives", &derivatives),
            ("InitialUnknowns", &initial_unknowns),
        ] {
            if indices.is_empty() {
                continue;
            }
            w.write_event(Event::Start(start(list)))?;
            for i in indices {
                let mut u = start("Unknown");
                u.push_attribute(("index", i.to_string().as_str()));
                // No direct feedthrough: outputs are computed at the end of each step from
                // the inputs held over it, so setting an input at a communication point
                // changes no output until the next fmi2DoStep (masters may break loops
                // here). At initialization every output depends on everything (omitted).
                // Model Exchange outputs are functions of the states and inputs (left
                // undeclared: they depend on all of them).
                if list == "Outputs" && !model_exchange {
                    u.push_attribute(("dependencies", ""));
                }
                w.write_event(Event::Empty(u))?;
            }
            w.write_event(Event::End(BytesEnd::new(list)))?;
        }
        w.write_event(Event::End(BytesEnd::new("ModelStructure")))?;
    }
    w.write_event(Event::End(BytesEnd::new("fmiModelDescription")))?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// `<UnitDefinitions>` of the given units, the same in FMI 2.0 and 3.0.
pub(crate) fn write_unit_definitions(
    w: &mut Writer<Vec<u8>>,
    units_used: &[String],
) -> io::Result<()> {
    if !units_used.is_empty() {
        w.write_event(Event::Start(start("UnitDefinitions")))?;
        for name in units_used {
            let mut u = start("Unit");
            u.push_attribute(("name", name.as_str()));
            w.write_event(Event::Start(u))?;
            if units::parse_unit(name).is_ok() {
                let mut base = start("BaseUnit");
                for (key, value) in units::base_unit_attributes(name) {
                    base.push_attribute((key, value.as_str()));
                }
                w.write_event(Event::Empty(base))?;
            }
            for (display, factor, offset) in units::display_units(name) {
                let mut d = start("DisplayUnit");
                d.push_attribute(("name", *display));
                d.push_attribute(("factor", real(*factor).as_str()));
                if *offset != 0.0 {
                    d.push_attribute(("offset", real(*offset).as_str()));
                }
                w.write_event(Event::Empty(d))?;
            }
            w.write_event(Event::End(BytesEnd::new("Unit")))?;
        }
        w.write_event(Event::End(BytesEnd::new("UnitDefinitions")))?;
    }
    Ok(())
}

/// `<LogCategories>` and `<DefaultExperiment>`, the same in FMI 2.0 and 3.0 (both follow
/// them with `<ModelVariables>`).
pub(crate) fn write_log_categories_and_experiment(
    w: &mut Writer<Vec<u8>>,
    model: &CompiledModel,
) -> io::Result<()> {
    w.write_event(Event::Start(start("LogCategories")))?;
    for (name, description) in log_categories() {
        let mut c = start("Category");
        c.push_attribute(("name", name));
        c.push_attribute(("description", description));
        w.write_event(Event::Empty(c))?;
    }
    w.write_event(Event::End(BytesEnd::new("LogCategories")))?;

    let e = &model.default_experiment;
    let mut de = start("DefaultExperiment");
    de.push_attribute(("startTime", real(e.start_time).as_str()));
    de.push_attribute(("stopTime", real(e.stop_time).as_str()));
    de.push_attribute(("tolerance", real(e.tolerance).as_str()));
    de.push_attribute(("stepSize", real(e.step_size).as_str()));
    w.write_event(Event::Empty(de))?;

    Ok(())
}

/// The log categories the FMI layer uses (one list, owned by fmu-runtime).
fn log_categories() -> impl Iterator<Item = (&'static str, &'static str)> {
    fmu_runtime::fmi2::LOG_CATEGORIES
        .iter()
        .map(|c| (c.name, c.description))
}

fn write_variable(
    w: &mut Writer<Vec<u8>>,
    v: &Variable,
    derivative_of: Option<usize>,
) -> io::Result<()> {
    let mut sv = start("ScalarVariable");
    sv.push_attribute(("name", v.name.as_str()));
    sv.push_attribute(("valueReference", v.value_reference.to_string().as_str()));
    if !v.description.is_empty() {
        sv.push_attribute(("description", v.description.as_str()));
    }
    sv.push_attribute(("causality", causality(v.causality)));
    sv.push_attribute(("variability", variability(v.variability)));
    if let Some(i) = v.initial {
        sv.push_attribute(("initial", initial(i)));
    }
    w.write_event(Event::Start(sv))?;
    let (tag, number): (&str, fn(f64) -> String) = match v.var_type {
        VarType::Real => ("Real", real),
        VarType::Integer => ("Integer", |x| format!("{}", x.round() as i64)),
        VarType::Boolean => ("Boolean", |x| {
            if x != 0.0 {
                "true".into()
            } else {
                "false".into()
            }
        }),
    };
    let mut t = start(tag);
    if v.var_type == VarType::Real {
        if let Some(u) = &v.unit {
            t.push_attribute(("unit", u.as_str()));
        }
        if let Some(d) = &v.display_unit {
            t.push_attribute(("displayUnit", d.as_str()));
        }
        if let Some(state) = derivative_of {
            t.push_attribute(("derivative", state.to_string().as_str()));
        }
    }
    if let Some(s) = v.start {
        t.push_attribute(("start", number(s).as_str()));
    }
    if v.var_type != VarType::Boolean {
        if let Some(m) = v.min {
            t.push_attribute(("min", number(m).as_str()));
        }
        if let Some(m) = v.max {
            t.push_attribute(("max", number(m).as_str()));
        }
        if let Some(n) = v.nominal {
            t.push_attribute(("nominal", number(n).as_str()));
        }
    }
    w.write_event(Event::Empty(t))?;
    w.write_event(Event::End(BytesEnd::new("ScalarVariable")))
}

pub mod fmi3;

#[cfg(test)]
mod tests;
