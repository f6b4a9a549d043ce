//! `modelDescription.xml` for FMI 2.0 Co-Simulation and/or Model Exchange: the
//! capabilities, `<ScalarVariable>` with a typed child, `ModelStructure` by 1-based index
//! (the rules it follows: [`super`]).

use super::{
    dependency_list, derivative_indices, document, root, start, structure_indices, type_tag,
    used_units, value_text, variable_element, write_flags, write_log_categories_and_experiment,
    write_model_structure_and_close, write_unit_definitions,
};
use crate::Interface;
use fmu_runtime::model::{CompiledModel, VarType, Variable};
use quick_xml::Writer;
use quick_xml::events::{BytesEnd, BytesText, Event};
use std::io;

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
    let bytes = document(|w| write(w, model, generation_date_and_time, interface))
        .expect("writing to a Vec cannot fail");
    String::from_utf8(bytes).expect("quick-xml writes UTF-8")
}

fn write(
    w: &mut Writer<Vec<u8>>,
    model: &CompiledModel,
    generation_date_and_time: &str,
    interface: Interface,
) -> io::Result<()> {
    let model_exchange = interface.model_exchange() && model.continuous_states() > 0;
    let mut root = root(model, "2.0", "guid", generation_date_and_time);
    root.push_attribute(("numberOfEventIndicators", "0"));
    w.write_event(Event::Start(root))?;

    if model_exchange {
        write_flags(
            w,
            "ModelExchange",
            &[
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
            ],
        )?;
    }
    if interface.co_simulation() {
        write_flags(
            w,
            "CoSimulation",
            &[
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
            ],
        )?;
    }

    write_unit_definitions(w, &used_units(model))?;
    write_log_categories_and_experiment(w, model)?;

    let (derivatives, derivative_of) = derivative_indices(model);
    w.write_event(Event::Start(start("ModelVariables")))?;
    for (i, v) in model.variables.iter().enumerate() {
        w.write_event(Event::Comment(BytesText::new(&format!(
            " index {} ",
            i + 1
        ))))?;
        write_variable(w, v, derivative_of[i])?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    let (outputs, initial_unknowns) = structure_indices(model);
    let empty = outputs.is_empty() && initial_unknowns.is_empty();
    let dependencies = model_exchange
        .then(|| crate::emit::dependencies::of_outputs(model))
        .flatten();
    write_model_structure_and_close(w, empty, |w| {
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
                // Co-Simulation: no direct feedthrough: outputs are computed at the end of
                // each step from the inputs held over it, so setting an input at a
                // communication point changes no output until the next fmi2DoStep
                // (masters may break loops here). Model Exchange (and both): the states
                // and inputs each output depends on (`emit::dependencies`; omitted, i.e.
                // all of them, when the machine could not be analysed). At
                // initialization every output depends on everything (omitted).
                if list == "Outputs" {
                    let on =
                        dependency_list(&dependencies, model_exchange, *i, |k| (k + 1).to_string());
                    if let Some(on) = on {
                        u.push_attribute(("dependencies", on.as_str()));
                    }
                }
                w.write_event(Event::Empty(u))?;
            }
            w.write_event(Event::End(BytesEnd::new(list)))?;
        }
        Ok(())
    })
}

/// `<ScalarVariable>` and its typed child (`Real`, `Integer`, `Boolean`), which carries the
/// unit, the state it is the derivative of, start, bounds and nominal.
fn write_variable(
    w: &mut Writer<Vec<u8>>,
    v: &Variable,
    derivative_of: Option<usize>,
) -> io::Result<()> {
    w.write_event(Event::Start(variable_element("ScalarVariable", v)))?;
    let tag = type_tag(v.var_type, ["Real", "Integer", "Boolean"]);
    let number = value_text(v.var_type);
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
