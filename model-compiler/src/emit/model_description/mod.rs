//! `modelDescription.xml`, written from the compiled model: what FMI 2.0 ([`fmi2`]) and
//! FMI 3.0 ([`fmi3`]) write alike lives here (the document, the root's attributes, each
//! variable's common attributes, units, log categories, the default experiment, the
//! structure's index sets), what differs in their modules.
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

/// The `dependencies` attribute of output `i` (1-based): empty in Co-Simulation (no direct
/// feedthrough), the analysed knowns in Model Exchange, each named by `name` (a 1-based
/// index in FMI 2.0, a value reference in FMI 3.0); `None` (omitted: every known) when the
/// machine could not be analysed.
pub(crate) fn dependency_list(
    dependencies: &Option<Vec<Option<Vec<usize>>>>,
    model_exchange: bool,
    i: usize,
    name: impl Fn(usize) -> String,
) -> Option<String> {
    if !model_exchange {
        return Some(String::new());
    }
    let on = dependencies.as_ref()?[i - 1].as_ref()?;
    Some(on.iter().map(|&k| name(k)).collect::<Vec<_>>().join(" "))
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

/// A document: the XML declaration, what `body` writes, a final newline.
pub(crate) fn document(
    body: impl FnOnce(&mut Writer<Vec<u8>>) -> io::Result<()>,
) -> io::Result<Vec<u8>> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    body(&mut w)?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// `<fmiModelDescription>` with the attributes both versions give it, in the order both
/// schemas list them: the version, the model's name, its token under `token` (`guid` in
/// 2.0, `instantiationToken` in 3.0), the metadata that is given, the tool, the date, the
/// naming convention.
pub(crate) fn root(
    model: &CompiledModel,
    fmi_version: &str,
    token: &str,
    generation_date_and_time: &str,
) -> BytesStart<'static> {
    let md = &model.metadata;
    let tool = format!("hydromech {}", env!("CARGO_PKG_VERSION"));
    let mut root = BytesStart::new("fmiModelDescription");
    root.push_attribute(("fmiVersion", fmi_version));
    root.push_attribute(("modelName", model.name.as_str()));
    root.push_attribute((token, model.guid.as_str()));
    for (key, value) in [
        ("description", &md.description),
        ("author", &md.author),
        ("version", &md.version),
        ("copyright", &md.copyright),
        ("license", &md.license),
    ] {
        if !value.is_empty() {
            root.push_attribute((key, value.as_str()));
        }
    }
    root.push_attribute(("generationTool", tool.as_str()));
    root.push_attribute(("generationDateAndTime", generation_date_and_time));
    root.push_attribute(("variableNamingConvention", "structured"));
    root
}

/// An element with the attributes every variable has, in the order both schemas list
/// them: name, value reference, description, causality, variability, initial.
pub(crate) fn variable_element<'a>(tag: &'a str, v: &Variable) -> BytesStart<'a> {
    let mut e = start(tag);
    e.push_attribute(("name", v.name.as_str()));
    e.push_attribute(("valueReference", v.value_reference.to_string().as_str()));
    if !v.description.is_empty() {
        e.push_attribute(("description", v.description.as_str()));
    }
    e.push_attribute(("causality", causality(v.causality)));
    e.push_attribute(("variability", variability(v.variability)));
    if let Some(i) = v.initial {
        e.push_attribute(("initial", initial(i)));
    }
    e
}

/// The element name of a variable of type `t` among `tags` (Real, Integer, Boolean).
pub(crate) fn type_tag(t: VarType, tags: [&'static str; 3]) -> &'static str {
    match t {
        VarType::Real => tags[0],
        VarType::Integer => tags[1],
        VarType::Boolean => tags[2],
    }
}

/// How a value of the type is written (`start`, `min`, `max`, `nominal`).
pub(crate) fn value_text(t: VarType) -> fn(f64) -> String {
    match t {
        VarType::Real => real,
        VarType::Integer => |x| format!("{}", x.round() as i64),
        VarType::Boolean => |x| {
            if x != 0.0 {
                "true".into()
            } else {
                "false".into()
            }
        },
    }
}

/// An empty element with the given attributes in order (the interface types'
/// capability flags).
pub(crate) fn write_flags(
    w: &mut Writer<Vec<u8>>,
    tag: &str,
    attributes: &[(&str, &str)],
) -> io::Result<()> {
    let mut e = start(tag);
    for &(key, value) in attributes {
        e.push_attribute((key, value));
    }
    w.write_event(Event::Empty(e))?;
    Ok(())
}

/// `<ModelStructure>`, the last element: empty where no list has an entry, else what
/// `lists` writes; then the end of the document's root.
pub(crate) fn write_model_structure_and_close(
    w: &mut Writer<Vec<u8>>,
    empty: bool,
    lists: impl FnOnce(&mut Writer<Vec<u8>>) -> io::Result<()>,
) -> io::Result<()> {
    if empty {
        w.write_event(Event::Empty(start("ModelStructure")))?;
    } else {
        w.write_event(Event::Start(start("ModelStructure")))?;
        lists(w)?;
        w.write_event(Event::End(BytesEnd::new("ModelStructure")))?;
    }
    w.write_event(Event::End(BytesEnd::new("fmiModelDescription")))?;
    Ok(())
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

pub mod fmi2;
pub mod fmi3;

pub use fmi2::{render, render_for};

#[cfg(test)]
mod tests;
