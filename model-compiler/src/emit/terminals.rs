//! `terminalsAndIcons/terminalsAndIcons.xml` of an FMI 3.0 FMU: a terminal per element of
//! the machine, so that tools which read terminals offer an element's variables as one
//! bus (a cylinder's length, speed, pressures and force; a base port's motion and wrench;
//! a joint's command, angle and rate).
//!
//! The elements are the first level of the structured names (`boom_cylinder` of
//! `boom_cylinder.p_cap`; the FMU declares `variableNamingConvention="structured"`), so a
//! terminal holds what the description groups under one name. Members are the inputs and
//! outputs of that element, matched by name (`matchingRule="bus"`), each a causal signal;
//! an element with a single variable needs no terminal, and the run's diagnostics
//! (`energy`, `constraints`, `solver`) are not connectors.

use fmu_runtime::model::{Causality, CompiledModel};
use quick_xml::escape::escape;
use std::fmt::Write;

/// Not connectors: the energy balance, the constraint norms, the solver's counters.
const DIAGNOSTICS: [&str; 3] = ["energy", "constraints", "solver"];

/// A terminal: the element's name and its members (variable name, member name).
pub type Terminal<'a> = (&'a str, Vec<(&'a str, &'a str)>);

/// The terminals of `model`, in the order of its variables.
pub fn terminals(model: &CompiledModel) -> Vec<Terminal<'_>> {
    let mut elements: Vec<Terminal<'_>> = Vec::new();
    for v in &model.variables {
        if !matches!(v.causality, Causality::Input | Causality::Output) {
            continue;
        }
        let Some((element, member)) = v.name.split_once('.') else {
            continue;
        };
        if DIAGNOSTICS.contains(&element) {
            continue;
        }
        match elements.iter_mut().find(|(e, _)| *e == element) {
            Some((_, members)) => members.push((v.name.as_str(), member)),
            None => elements.push((element, vec![(v.name.as_str(), member)])),
        }
    }
    elements.retain(|(_, members)| members.len() >= 2);
    elements
}

/// The XML, or `None` when there is neither an icon (`terminalsAndIcons/icon.png`, drawn
/// in the coordinate system −100..100 as the Modelica icon layer) nor an element with two
/// or more inputs and outputs.
pub fn render(model: &CompiledModel, icon: bool) -> Option<String> {
    let elements = terminals(model);
    if elements.is_empty() && !icon {
        return None;
    }
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiTerminalsAndIcons fmiVersion=\"3.0\">\n",
    );
    if icon {
        s.push_str(
            "  <GraphicalRepresentation>\n    <CoordinateSystem x1=\"-100\" y1=\"-100\" x2=\"100\" y2=\"100\" suggestedScalingFactorTo_mm=\"0.1\"/>\n    <Icon x1=\"-100\" y1=\"-100\" x2=\"100\" y2=\"100\"/>\n  </GraphicalRepresentation>\n",
        );
    }
    if elements.is_empty() {
        s.push_str("</fmiTerminalsAndIcons>\n");
        return Some(s);
    }
    s.push_str("  <Terminals>\n");
    for (element, members) in &elements {
        let listed: Vec<&str> = members.iter().map(|m| m.1).collect();
        let _ = writeln!(
            s,
            "    <Terminal name=\"{}\" matchingRule=\"bus\" description=\"{}\">",
            escape(*element),
            escape(format!("{element}: {}", listed.join(", ")))
        );
        for (variable, member) in members {
            let _ = writeln!(
                s,
                "      <TerminalMemberVariable variableName=\"{}\" memberName=\"{}\" variableKind=\"signal\"/>",
                escape(*variable),
                escape(*member)
            );
        }
        s.push_str("    </Terminal>\n");
    }
    s.push_str("  </Terminals>\n</fmiTerminalsAndIcons>\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_per_element_with_its_inputs_and_outputs() {
        let l = crate::compile_shipped("excavator.toml");
        let xml = render(&l.model, true).unwrap();
        assert!(xml.contains("<Icon x1=\"-100\""));
        // The boom: its lever (input) with its angle and rate (outputs).
        assert!(xml.contains("<Terminal name=\"boom\" matchingRule=\"bus\" description=\"boom: command, angle, rate\">"), "{xml}");
        assert!(xml.contains(
            "<TerminalMemberVariable variableName=\"boom_cylinder.p_cap\" memberName=\"p_cap\" variableKind=\"signal\"/>"
        ));
        assert!(!xml.contains("energy.") && !xml.contains("solver."));
        // The FMI 3.0 documentation page lists them; FMI 2.0 has no terminals.
        let page = |version| {
            crate::emit::documentation::render_lowered_for(
                &l,
                crate::Flavour {
                    version,
                    ..Default::default()
                },
            )
        };
        assert!(page(crate::FmiVersion::Fmi3).contains("<h2>Terminals</h2>"));
        assert!(!page(crate::FmiVersion::Fmi2).contains("<h2>Terminals</h2>"));
        // Every member is an input or output of the FMU.
        for line in xml.lines().filter(|l| l.contains("variableName=")) {
            let name = line.split('"').nth(1).unwrap();
            let v = l.model.variables.iter().find(|v| v.name == name).unwrap();
            assert!(matches!(v.causality, Causality::Input | Causality::Output));
        }
    }
}
