//! Parses our own XML back with quick-xml and checks the FMI rules of notes §1.4.

use super::*;
use crate::diagnostic::Source;
use quick_xml::Reader;
use quick_xml::events::Event as E;
use std::collections::{HashMap, HashSet};

fn compiled(name: &str) -> CompiledModel {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let (_, mut l) = crate::check(&Source::new(&path, text)).unwrap_or_else(|e| panic!("{e:?}"));
    l.model.guid = crate::lower::compute_guid(&l.model);
    l.model
}

#[derive(Debug, Default)]
struct Parsed {
    root_attrs: HashMap<String, String>,
    /// Children of the root, in order.
    top: Vec<String>,
    units: Vec<String>,
    display_units: HashSet<(String, String)>,
    /// (name, causality, type, attributes of the type element)
    variables: Vec<(String, String, String, HashMap<String, String>)>,
    outputs: Vec<usize>,
    initial_unknowns: Vec<usize>,
    empty_lists: Vec<String>,
    co_simulation: HashMap<String, String>,
}

fn attrs(e: &quick_xml::events::BytesStart) -> HashMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.unwrap();
            (
                String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                a.unescape_value().unwrap().into_owned(),
            )
        })
        .collect()
}

fn parse(xml: &str) -> Parsed {
    let mut r = Reader::from_str(xml);
    let mut p = Parsed::default();
    let mut stack: Vec<String> = Vec::new();
    let mut current_unit = String::new();
    let mut children = 0usize;
    let mut child_counts: Vec<usize> = Vec::new();
    loop {
        let ev = r.read_event().unwrap();
        let (start, empty) = match &ev {
            E::Start(s) => (Some(s.clone()), false),
            E::Empty(s) => (Some(s.clone()), true),
            _ => (None, false),
        };
        if let Some(s) = start {
            let name = String::from_utf8(s.name().as_ref().to_vec()).unwrap();
            let a = attrs(&s);
            if let Some(c) = child_counts.last_mut() {
                *c += 1;
            }
            match (stack.last().map(String::as_str), name.as_str()) {
                (None, "fmiModelDescription") => p.root_attrs = a.clone(),
                (Some("fmiModelDescription"), _) => p.top.push(name.clone()),
                _ => {}
            }
            match name.as_str() {
                "CoSimulation" => p.co_simulation = a.clone(),
                "Unit" => {
                    current_unit = a["name"].clone();
                    p.units.push(current_unit.clone());
                }
                "DisplayUnit" => {
                    p.display_units
                        .insert((current_unit.clone(), a["name"].clone()));
                }
                "ScalarVariable" => p.variables.push((
                    a["name"].clone(),
                    a.get("causality").cloned().unwrap_or_default(),
                    String::new(),
                    HashMap::new(),
                )),
                "Real" | "Integer" | "Boolean"
                    if stack.last().map(String::as_str) == Some("ScalarVariable") =>
                {
                    let v = p.variables.last_mut().unwrap();
                    v.2 = name.clone();
                    v.3 = a.clone();
                }
                "Unknown" => {
                    let i: usize = a["index"].parse().unwrap();
                    match stack.last().map(String::as_str) {
                        Some("Outputs") => {
                            assert_eq!(
                                a.get("dependencies").map(String::as_str),
                                Some(""),
                                "output {i}: no direct feedthrough declared"
                            );
                            p.outputs.push(i)
                        }
                        Some("InitialUnknowns") => {
                            assert!(!a.contains_key("dependencies"), "initial unknown {i}");
                            p.initial_unknowns.push(i)
                        }
                        other => panic!("Unknown in {other:?}"),
                    }
                }
                _ => {}
            }
            if empty {
                if [
                    "Outputs",
                    "InitialUnknowns",
                    "UnitDefinitions",
                    "LogCategories",
                    "ModelVariables",
                    "Derivatives",
                ]
                .contains(&name.as_str())
                {
                    p.empty_lists.push(name);
                }
            } else {
                stack.push(name);
                child_counts.push(0);
            }
            continue;
        }
        match ev {
            E::End(_) => {
                let name = stack.pop().unwrap();
                let n = child_counts.pop().unwrap();
                if n == 0
                    && [
                        "Outputs",
                        "InitialUnknowns",
                        "UnitDefinitions",
                        "LogCategories",
                        "ModelVariables",
                        "Unit",
                    ]
                    .contains(&name.as_str())
                {
                    p.empty_lists.push(name);
                }
                children += 1;
            }
            E::Eof => break,
            _ => {}
        }
    }
    let _ = children;
    p
}

fn check_rules(model: &CompiledModel) -> Parsed {
    let xml = render(model, "2026-11-01T12:00:00Z");
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
        "{}",
        &xml[..60]
    );
    let p = parse(&xml);

    // Element order (xs:sequence).
    assert_eq!(
        p.top,
        [
            "CoSimulation",
            "UnitDefinitions",
            "LogCategories",
            "DefaultExperiment",
            "ModelVariables",
            "ModelStructure"
        ]
    );
    assert!(
        p.empty_lists.is_empty(),
        "empty list elements: {:?}",
        p.empty_lists
    );

    // Root attributes.
    let r = &p.root_attrs;
    assert_eq!(r["fmiVersion"], "2.0");
    assert_eq!(r["guid"], model.guid);
    assert_eq!(r["variableNamingConvention"], "structured");
    assert_eq!(r["numberOfEventIndicators"], "0");
    assert_eq!(r["generationDateAndTime"], "2026-11-01T12:00:00Z");
    assert!(r["generationTool"].starts_with("hydromech "));
    assert_eq!(p.co_simulation["modelIdentifier"], model.model_identifier);
    assert_eq!(
        p.co_simulation["canNotUseMemoryManagementFunctions"],
        "true"
    );
    assert_eq!(p.co_simulation["canGetAndSetFMUstate"], "true");
    assert_eq!(p.co_simulation["canSerializeFMUstate"], "true");

    // Outputs == all outputs, InitialUnknowns == all outputs (all are calculated), 1-based.
    let outputs: Vec<usize> = p
        .variables
        .iter()
        .enumerate()
        .filter(|(_, v)| v.1 == "output")
        .map(|(i, _)| i + 1)
        .collect();
    assert!(!outputs.is_empty());
    assert_eq!(p.outputs, outputs);
    assert_eq!(p.initial_unknowns, outputs);

    // Every unit and display unit used is defined; every defined unit is used.
    let defined: HashSet<&String> = p.units.iter().collect();
    assert_eq!(defined.len(), p.units.len(), "duplicate units");
    let mut used = HashSet::new();
    for (name, causality, ty, a) in &p.variables {
        if let Some(u) = a.get("unit") {
            assert!(defined.contains(u), "{name}: unit {u} undefined");
            used.insert(u);
            if let Some(d) = a.get("displayUnit") {
                assert!(
                    p.display_units.contains(&(u.clone(), d.clone())),
                    "{name}: display unit {d} of {u} undefined"
                );
            }
        } else {
            assert!(
                !a.contains_key("displayUnit"),
                "{name}: displayUnit without unit"
            );
        }
        // Parameters and inputs have a start; outputs (calculated) have none.
        match causality.as_str() {
            "parameter" | "input" => assert!(a.contains_key("start"), "{name}: no start"),
            "output" => assert!(!a.contains_key("start"), "{name}: output with start"),
            _ => panic!("{name}: unexpected causality {causality}"),
        }
        assert!(["Real", "Integer"].contains(&ty.as_str()), "{name}: {ty}");
    }
    assert_eq!(used.len(), defined.len(), "unused unit definitions");
    // Names are unique.
    let names: HashSet<&String> = p.variables.iter().map(|v| &v.0).collect();
    assert_eq!(names.len(), p.variables.len());
    p
}

#[test]
fn naya_rod_model_description() {
    let m = compiled("naya-rod.toml");
    let p = check_rules(&m);
    let xml = render(&m, "2026-11-01T12:00:00Z");
    assert!(
        xml.contains("<DisplayUnit name=\"bar\" factor=\"1e-5\"/>"),
        "{xml}"
    );
    assert!(xml.contains("<DisplayUnit name=\"deg\" factor=\"57.29577951308232\"/>"));
    assert!(xml.contains("<BaseUnit kg=\"1\" m=\"-1\" s=\"-2\"/>"));
    assert!(xml.contains("<DefaultExperiment startTime=\"0.0\" stopTime=\"10.0\" tolerance=\"0.0001\" stepSize=\"0.01\"/>"));
    assert!(xml.contains("license=\"MIT OR Apache-2.0\""));
    assert!(!xml.contains("copyright="));
    let step = p.variables.iter().find(|v| v.0 == "solver.step").unwrap();
    assert_eq!(step.3["start"], "0.01");
    let iters = p
        .variables
        .iter()
        .find(|v| v.0 == "solver.iterations")
        .unwrap();
    assert_eq!(iters.2, "Integer");
    assert_eq!(p.outputs.len(), 20);
}

#[test]
fn jaiswal_fourbar_model_description() {
    let m = compiled("jaiswal-fourbar.toml");
    let p = check_rules(&m);
    let cmd = p.variables.iter().find(|v| v.0 == "valve.command").unwrap();
    assert_eq!(
        (
            cmd.1.as_str(),
            cmd.3["unit"].as_str(),
            cmd.3["min"].as_str(),
            cmd.3["max"].as_str()
        ),
        ("input", "V", "-10.0", "10.0")
    );
    assert!(p.units.contains(&"V".to_string()));
    let xml = render(&m, "2026-11-01T12:00:00Z");
    assert!(xml.contains("<BaseUnit kg=\"1\" m=\"2\" s=\"-3\" A=\"-1\"/>"));
}

#[test]
fn numbers_round_trip() {
    for x in [
        1e-5,
        0.01,
        850.0,
        1e10,
        2.138e-7,
        -0.25,
        57.29577951308232,
        1.0 / 3.0,
    ] {
        let s = real(x);
        assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
    }
    assert_eq!(real(1e-5), "1e-5");
    assert_eq!(real(0.01), "0.01");
}

#[test]
fn special_characters_are_escaped() {
    let mut m = compiled("naya-rod.toml");
    m.metadata.description = "a < b & \"c\"".into();
    m.variables[0].description = "<x>".into();
    let xml = render(&m, "2026-11-01T12:00:00Z");
    let p = parse(&xml);
    assert_eq!(p.root_attrs["description"], "a < b & \"c\"");
    assert!(xml.contains("&lt;x&gt;"));
}

#[test]
fn model_metadata_reaches_the_xml_and_the_documentation() {
    let text = "[model]\nname = \"crane-1\"\ndescription = \"A crane\"\nauthor = \"Ada\"\nversion = \"2.1\"\nlicense = \"MIT\"\ncopyright = \"© 2026 Ada\"\n\n[[bodies]]\nname = \"arm\"\nparent = \"ground\"\njoint = { type = \"revolute\", axis = [0, 0, 1] }\nparts = [{ shape = \"rod\", mass = 1, from = [0, 0, 0], to = [1, 0, 0] }]\n";
    let (_, l) = crate::check(&Source::new("m.toml", text)).unwrap_or_else(|e| panic!("{e:?}"));
    let xml = render(&l.model, "2026-11-01T12:00:00Z");
    let p = parse(&xml);
    for (k, v) in [
        ("modelName", "crane-1"),
        ("description", "A crane"),
        ("author", "Ada"),
        ("version", "2.1"),
        ("license", "MIT"),
        ("copyright", "© 2026 Ada"),
    ] {
        assert_eq!(p.root_attrs[k], v, "{k}");
    }
    assert_eq!(p.co_simulation["modelIdentifier"], "crane_1");
    let html = crate::emit::documentation::render_lowered(&l);
    for v in ["A crane", "Ada", "2.1", "MIT", "© 2026 Ada"] {
        assert!(html.contains(v), "{v}");
    }
}
