//! `<model>_OspModelDescription.xml` (issue 15, item 8): every port as an OSP-IS variable
//! group, checked against the rules of osp-validator's `OspModelDescription-1.0.1.xsd` and
//! OSP-IS: the schema's element order, at most three variables per quantity group, every
//! `ref` an FMI variable with that unit, effort and flow of opposite causality in a port,
//! unique group names. (The document was also validated against the XSD itself with lxml;
//! the schema is not vendored.)

mod common;

use fmu_runtime::model::Causality;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashSet;

/// `VariableGroupsType`'s sequence, as far as hydromech uses it.
const SCHEMA_ORDER: [&str; 7] = [
    "Generic",
    "LinearDisplacement",
    "LinearAcceleration",
    "AngularAcceleration",
    "LinearMechanicalPort",
    "AngularMechanicalPort",
    "HydraulicPort",
];

/// A machine with every kind of port: a carrier-driven base, a mount, joint forces on a
/// revolute and a prismatic joint, flow, TLM and pressure ports, a pump shaft.
const MACHINE: &str = include_str!("osp_all_ports.toml");

struct Element {
    depth: usize,
    name: String,
    attrs: Vec<(String, String)>,
}

impl Element {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn element(e: &BytesStart, depth: usize) -> Element {
    Element {
        depth,
        name: String::from_utf8(e.name().as_ref().to_vec()).unwrap(),
        attrs: e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.unescape_value().unwrap().into_owned(),
                )
            })
            .collect(),
    }
}

fn elements(xml: &str) -> Vec<Element> {
    let mut r = Reader::from_str(xml);
    let (mut out, mut depth) = (Vec::new(), 0);
    loop {
        match r.read_event().unwrap() {
            Event::Start(e) => {
                out.push(element(&e, depth));
                depth += 1;
            }
            Event::Empty(e) => out.push(element(&e, depth)),
            Event::End(_) => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

#[test]
fn ports_become_osp_variable_groups_by_the_schema_rules() {
    let model = common::compile_text("all-ports.toml", MACHINE.to_string());
    let xml = model_compiler::emit::osp::render(&model).expect("a model with ports has one");
    let els = elements(&xml);
    assert_eq!(els[0].name, "OspModelDescription");
    assert_eq!(
        els[0].attr("xmlns"),
        Some("https://open-simulation-platform.com/OspModelDescription/1.0.1")
    );
    assert_eq!(els[0].attr("version"), Some("1.0"));
    assert_eq!(els[1].name, "VariableGroups");
    let var = |name: &str| {
        model
            .variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("ref {name} is not an FMI variable"))
    };
    // Top-level groups in the schema's order, names unique.
    let groups: Vec<usize> = (0..els.len()).filter(|&i| els[i].depth == 2).collect();
    let order: Vec<usize> = groups
        .iter()
        .map(|&i| {
            SCHEMA_ORDER
                .iter()
                .position(|k| *k == els[i].name)
                .unwrap_or_else(|| panic!("{} is not a group hydromech writes", els[i].name))
        })
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "schema order: {order:?}"
    );
    let mut names = HashSet::new();
    for e in els.iter().filter(|e| e.depth >= 2 && e.name != "Variable") {
        assert!(
            names.insert(e.attr("name").unwrap().to_string()),
            "duplicate group name"
        );
    }
    // Variables: refs exist with the unit given; vector groups carry axes.
    let mut ports = 0;
    for (n, &g) in groups.iter().enumerate() {
        let end = groups.get(n + 1).copied().unwrap_or(els.len());
        let inside = &els[g + 1..end];
        let causalities = |depth: usize| -> Vec<Vec<Causality>> {
            let mut lists: Vec<Vec<Causality>> = Vec::new();
            for e in inside {
                if e.depth == depth && e.name != "Variable" {
                    lists.push(Vec::new());
                }
                if e.name == "Variable" {
                    let v = var(e.attr("ref").unwrap());
                    assert_eq!(e.attr("unit"), v.unit.as_deref(), "{}", v.name);
                    if lists.is_empty() {
                        lists.push(Vec::new());
                    }
                    lists.last_mut().unwrap().push(v.causality);
                }
            }
            lists
        };
        if els[g].name.ends_with("Port") {
            ports += 1;
            let parts = causalities(3);
            assert_eq!(
                parts.len(),
                2,
                "{}: effort and flow",
                els[g].attr("name").unwrap()
            );
            for p in &parts {
                assert!(!p.is_empty() && p.len() <= 3);
                assert!(p.iter().all(|c| *c == p[0]), "one causality per quantity");
            }
            assert_ne!(
                parts[0][0],
                parts[1][0],
                "{}: effort and flow of opposite causality",
                els[g].attr("name").unwrap()
            );
        } else if els[g].name != "Generic" {
            let vars: Vec<&Element> = inside.iter().filter(|e| e.name == "Variable").collect();
            assert_eq!(vars.len(), 3);
            for (e, axis) in vars.iter().zip(["x", "y", "z"]) {
                assert_eq!(e.attr("axis"), Some(axis));
            }
        }
    }
    // base (2) + mount (2) + two joint forces + flow + pressure + shaft.
    assert_eq!(ports, 9, "{xml}");
    assert!(
        xml.contains("<Generic name=\"hose\">"),
        "the TLM end is generic"
    );
}

#[test]
fn a_model_without_ports_has_no_osp_description() {
    let model = common::compile("naya-rod.toml");
    assert!(model_compiler::emit::osp::render(&model).is_none());
}

#[test]
fn build_writes_the_osp_description_next_to_the_fmu() {
    let dir = common::temp_dir("osp-build");
    let source = model_compiler::diagnostic::Source::new(
        std::path::Path::new("all-ports.toml"),
        MACHINE.to_string(),
    );
    let fmu = model_compiler::build_for(&source, &dir, &["linux64".to_string()]).unwrap();
    assert!(fmu.ends_with("all-ports.fmu"));
    let osp = std::fs::read_to_string(dir.join("all-ports_OspModelDescription.xml")).unwrap();
    let model = common::compile_text("all-ports.toml", MACHINE.to_string());
    assert_eq!(Some(osp), model_compiler::emit::osp::render(&model));
}
