use super::*;
use crate::description::Description;
use crate::diagnostic::Source;
use fmu_runtime::model::{
    Binding, BulkModulus, Causality, Element, JointKind, Node, Probe, VarType, Variability,
};

fn model_file(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lower_text(text: &str) -> Result<Lowered, Vec<Diagnostic>> {
    let d = Description::parse(text).map_err(|e| vec![e])?;
    lower(&d)
}

fn lowered(name: &str) -> Lowered {
    let text = model_file(name);
    lower_text(&text).unwrap_or_else(|errors| {
        let s = Source::new(name, text.clone());
        panic!(
            "{}",
            errors
                .iter()
                .map(|e| s.render(e))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Errors of a description, rendered with positions.
fn errors(text: &str) -> Vec<String> {
    let s = Source::new("t.toml", text);
    match lower_text(text) {
        Ok(_) => panic!("expected errors"),
        Err(errors) => errors.iter().map(|e| s.render(e)).collect(),
    }
}

fn var<'a>(l: &'a Lowered, name: &str) -> &'a fmu_runtime::model::Variable {
    l.model
        .variables
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn slot(l: &Lowered, name: &str) -> f64 {
    let id = l
        .model
        .params
        .iter()
        .position(|p| p.name == name)
        .unwrap_or_else(|| panic!("no slot {name}"));
    l.model.params[id].default
}

const AUTO: [&str; 11] = [
    "energy.kinetic",
    "energy.potential",
    "energy.total",
    "energy.actuator_work",
    "energy.parameter_work",
    "energy.balance_error",
    "constraints.phi_norm",
    "constraints.dphi_norm",
    "constraints.ddphi_norm",
    "solver.iterations",
    "solver.steps",
];

#[test]
fn naya_rod_lowers() {
    let l = lowered("naya-rod.toml");
    let m = &l.model;
    assert_eq!(m.model_identifier, "naya_rod");
    assert_eq!(m.mechanism.bodies.len(), 1);
    assert_eq!(m.mechanism.coordinates(), 1);
    assert_eq!(m.mechanism.constraint_equations(), 0);
    assert_eq!(m.circuit.volumes(), 2);
    assert_eq!(m.circuit.nodes.len(), 4);
    let rod = &m.mechanism.bodies[0];
    assert_eq!(rod.joint_name, "pivot");
    assert_eq!(
        rod.joint,
        JointKind::Revolute {
            axis: [0.0, 0.0, 1.0]
        }
    );
    assert_eq!(m.default_param(rod.mass), 450.0);
    assert!((m.default_param(rod.q0) - std::f64::consts::PI / 6.0).abs() < 1e-15);
    // Inertia about the pivot = M + m/3 = 316.67 kg·m² (seed 002 eq 33).
    let props = mass::MassProps {
        mass: 450.0,
        com: rod.com,
        inertia: rod.inertia,
    };
    let izz = props.inertia_about([0.0; 3])[2];
    assert!((izz - 316.6666666666667).abs() < 1e-9, "{izz}");
    assert!(matches!(
        m.circuit.oil.bulk_modulus,
        BulkModulus::PressureDependent { .. }
    ));
    // Valve edges: K = Cd·A·sqrt(2/ρ) at full opening.
    let Element::DirectionalValve(v) = &m.circuit.elements[0] else {
        panic!()
    };
    let k = 0.67 * 0.0005 * (2.0f64 / 850.0).sqrt();
    assert!((v.edges[fmu_runtime::model::EDGE_PA].table[1].1 - k).abs() < 1e-18);
    let pb = &v.edges[fmu_runtime::model::EDGE_PB].table;
    assert_eq!(pb.len(), 2);
    assert!((pb[0].1 - k).abs() < 1e-18 && pb[1] == (1.0, 0.0));
    let c = &m.circuit.cylinders[0];
    assert_eq!(m.default_param(c.cap_area), 0.0065);
    assert_eq!(m.default_param(c.rod_area), 0.0065);
    assert_eq!(m.circuit.nodes[c.rod_node].name(), "chamber_a");
    assert_eq!(m.circuit.nodes[c.cap_node].name(), "chamber_b");
    assert_eq!(slot(&l, "cylinder.friction.coefficient"), 1e5);
    assert_eq!(slot(&l, "solver.step"), 0.01);
    assert_eq!(slot(&l, "solver.penalty"), 1e10);
    assert_eq!(l.solve_for.len(), 1);
    assert_eq!(m.params[l.solve_for[0].index()].name, "valve.command");

    // Interface: 1 input, 9 user outputs, then solver.step and the 10 automatic outputs.
    let names: Vec<&str> = m.variables.iter().map(|v| v.name.as_str()).collect();
    let mut expected = vec![
        "valve.command",
        "cylinder.length",
        "cylinder.speed",
        "cylinder.p_a",
        "cylinder.p_b",
        "cylinder.force",
        "rod.angle",
        "valve.spool",
        "rod.tip.x",
        "rod.tip.y",
        "solver.step",
    ];
    expected.extend(AUTO);
    assert_eq!(names, expected);
    for (i, v) in m.variables.iter().enumerate() {
        assert_eq!(v.value_reference as usize, i + 1);
    }
    let input = var(&l, "valve.command");
    assert_eq!(
        (input.causality, input.variability, input.initial),
        (Causality::Input, Variability::Continuous, None)
    );
    assert_eq!(
        (input.min, input.max, input.unit.as_deref()),
        (Some(0.0), Some(1.0), None)
    );
    assert_eq!(input.start, Some(0.5));
    assert_eq!(
        var(&l, "cylinder.p_a").binding,
        Binding::Probe(Probe::NodePressure(2))
    );
    assert_eq!(var(&l, "cylinder.p_a").unit.as_deref(), Some("Pa"));
    assert_eq!(var(&l, "cylinder.p_a").display_unit.as_deref(), Some("bar"));
    assert_eq!(
        var(&l, "rod.angle").binding,
        Binding::Probe(Probe::JointPosition(0))
    );
    assert_eq!(var(&l, "rod.angle").display_unit.as_deref(), Some("deg"));
    assert_eq!(
        var(&l, "rod.tip.y").binding,
        Binding::Probe(Probe::MarkerPosition(0, fmu_runtime::model::Axis::Y))
    );
    let step = var(&l, "solver.step");
    assert_eq!(
        (step.causality, step.variability, step.initial),
        (
            Causality::Parameter,
            Variability::Fixed,
            Some(fmu_runtime::model::Initial::Exact)
        )
    );
    assert_eq!(step.start, Some(0.01));
    let it = var(&l, "solver.iterations");
    assert_eq!(
        (it.var_type, it.variability, it.start),
        (VarType::Integer, Variability::Discrete, None)
    );
    for v in m
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
    {
        assert_eq!((v.initial, v.start), (None, None), "{}", v.name);
    }
    m.validate().unwrap();
}

#[test]
fn jaiswal_fourbar_lowers() {
    let l = lowered("jaiswal-fourbar.toml");
    let m = &l.model;
    assert_eq!(m.model_identifier, "jaiswal_fourbar");
    assert_eq!(m.mechanism.bodies.len(), 3);
    assert_eq!(m.mechanism.coordinates(), 3);
    assert_eq!(m.mechanism.cut_joints.len(), 1);
    assert_eq!(m.mechanism.constraint_equations(), 5);
    assert_eq!(m.circuit.volumes(), 3);
    assert_eq!(m.circuit.elements.len(), 2);
    let names: Vec<&str> = m.mechanism.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["crank", "coupler", "rocker"]);
    assert_eq!(
        m.mechanism
            .bodies
            .iter()
            .map(|b| b.parent)
            .collect::<Vec<_>>(),
        [None, Some(0), Some(1)]
    );
    let crank = &m.mechanism.bodies[0];
    assert!((crank.inertia[2] - 1518.75).abs() < 1e-9);
    assert_eq!(crank.com, [4.5, 0.0, 0.0]);
    assert!(
        (m.default_param(m.mechanism.bodies[1].q0) + 0.75 * std::f64::consts::PI).abs() < 1e-15
    );
    let c = &m.circuit.cylinders[0];
    let a2 = std::f64::consts::PI * 0.08 * 0.08 / 4.0;
    assert!((m.default_param(c.cap_area) - a2).abs() < 1e-15);
    assert!(
        (m.default_param(c.rod_area)
            - std::f64::consts::PI * (0.08f64.powi(2) - 0.035f64.powi(2)) / 4.0)
            .abs()
            < 1e-15
    );
    assert_eq!(slot(&l, "rod_side.precharge"), 3.5e6);
    assert_eq!(slot(&l, "valve.time_constant"), 4.55e-3);
    assert_eq!(slot(&l, "solver.step"), 1e-3);
    assert_eq!(slot(&l, "solver.penalty"), 1e11);
    let Element::Orifice(o) = &m.circuit.elements[1] else {
        panic!()
    };
    assert!(
        (m.default_param(o.coefficient) - 1.0982e-6).abs() < 1e-10,
        "C_vt of digest §3.1"
    );
    assert!(matches!(&m.circuit.nodes[0], Node::Pressure { name, .. } if name == "pump"));
    assert!(l.solve_for.is_empty());

    let input = var(&l, "valve.command");
    assert_eq!(
        (input.unit.as_deref(), input.min, input.max, input.start),
        (Some("V"), Some(-10.0), Some(10.0), Some(0.0))
    );
    assert_eq!(
        var(&l, "valve.command").binding,
        Binding::Param(m.circuit.spools[0].command)
    );
    assert_eq!(
        var(&l, "crank.angle").binding,
        Binding::Probe(Probe::JointPosition(0))
    );
    let names: Vec<&str> = m.variables.iter().map(|v| v.name.as_str()).collect();
    let mut expected = vec![
        "valve.command",
        "crank.angle",
        "cylinder.length",
        "cylinder.p_cap",
        "cylinder.p_rod",
        "hose.p",
        "solver.step",
    ];
    expected.extend(AUTO);
    assert_eq!(names, expected);
    m.validate().unwrap();
}

#[test]
fn guid_is_stable_and_content_dependent() {
    let a = lowered("jaiswal-fourbar.toml");
    let b = lowered("jaiswal-fourbar.toml");
    let ga = compute_guid(&a.model);
    assert_eq!(ga, compute_guid(&b.model));
    assert_eq!(ga.len(), 38);
    assert!(ga.starts_with('{') && ga.ends_with('}'));
    assert_eq!(ga.matches('-').count(), 4);
    let mut c = a.model.clone();
    c.params[0].default *= 2.0;
    assert_ne!(ga, compute_guid(&c));
    // The GUID field itself does not enter the hash.
    let mut d = a.model.clone();
    d.guid = ga.clone();
    assert_eq!(ga, compute_guid(&d));
}

const MINIMAL: &str = r#"
[model]
name = "m"

[[bodies]]
name = "arm"
parent = "ground"
joint = { type = "revolute", name = "hinge", axis = [0, 0, 1] }
mass = "2 kg"
com = [0.5, 0, 0]
inertia = [0, 0.1, 0.1, 0, 0, 0]
"#;

#[test]
fn minimal_model_gets_defaults() {
    let l = lower_text(MINIMAL).unwrap();
    let m = &l.model;
    assert_eq!(m.gravity, [0.0, -9.81, 0.0]);
    assert_eq!(m.solver.max_iterations, 25);
    assert_eq!(m.solver.tol_position, 1e-10);
    assert_eq!(m.solver.tol_pressure, 1.0);
    assert_eq!(m.solver.tol_state, 1e-9);
    assert_eq!(m.solver.max_step_halvings, 4);
    assert_eq!(m.solver.penalty, None);
    assert_eq!(m.solver.penalty_ratio, 1e3);
    assert!(m.init.static_equilibrium);
    assert_eq!(m.variables.len(), 12);
    assert_eq!(m.variables[0].name, "solver.step");
}

#[test]
fn unknown_key_reports_its_position() {
    let text = "[model]\nname = \"m\"\ncolour = \"red\"\n";
    let e = errors(text);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("t.toml:3:1: error: unknown field `colour`"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("\nhelp: "), "{}", e[0]);
    // Inside an inline table, deep in the file.
    let text = MINIMAL.replace("axis = [0, 0, 1] }", "axis = [0, 0, 1], axiss = 1 }");
    let e = errors(&text);
    assert!(
        e[0].starts_with("t.toml:8:64: error: unknown field `axiss`"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("help: did you mean `axis`?"), "{}", e[0]);
}

#[test]
fn missing_body_reference_reports_the_reference() {
    let text =
        format!("{MINIMAL}\n[[markers]]\nname = \"tip\"\nbody = \"amr\"\npoint = [1, 0, 0]\n");
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("t.toml:15:8: error: unknown body 'amr'"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("help: did you mean 'arm'?"), "{}", e[0]);
    // A joint parent naming a missing body.
    let text = MINIMAL.replace("parent = \"ground\"", "parent = \"base\"");
    let e = errors(&text);
    assert!(
        e[0].starts_with("t.toml:7:10: error: unknown body 'base'"),
        "{}",
        e[0]
    );
}

#[test]
fn wrong_dimension_is_explained() {
    let text = MINIMAL.replace("mass = \"2 kg\"", "mass = \"2 mm\"");
    let e = errors(&text);
    assert!(
        e[0].starts_with("t.toml:9:8: error: expected a mass, got 'mm'"),
        "{}",
        e[0]
    );
    let text = MINIMAL.replace("mass = \"2 kg\"", "mass = \"2 kgg\"");
    assert!(errors(&text)[0].contains("unknown unit 'kgg'"));
}

#[test]
fn structural_errors() {
    // Non-positive mass.
    let e = errors(&MINIMAL.replace("mass = \"2 kg\"", "mass = 0"));
    assert!(e[0].contains("error: mass must be positive"), "{}", e[0]);
    // Duplicate names.
    let dup =
        format!("{MINIMAL}\n[[markers]]\nname = \"arm\"\nbody = \"arm\"\npoint = [1, 0, 0]\n");
    let e = errors(&dup);
    assert!(
        e[0].starts_with("t.toml:14:8: error: duplicate name 'arm': already used by a body"),
        "{}",
        e[0]
    );
    // Zero axis.
    let e = errors(&MINIMAL.replace("axis = [0, 0, 1]", "axis = [0, 0, 0]"));
    assert!(e[0].contains("must not be the zero vector"), "{}", e[0]);
}

#[test]
fn bodies_are_sorted_and_cycles_found() {
    let two = r#"
[model]
name = "m"
[[bodies]]
name = "b"
parent = "a"
joint = { type = "revolute", axis = [0, 0, 1] }
parts = [{ shape = "point", mass = 1, at = [1, 0, 0] }]
[[bodies]]
name = "a"
parent = "ground"
joint = { type = "prismatic", axis = [1, 0, 0], initial = "10 mm" }
parts = [{ shape = "box", mass = 12, center = [0, 0, 0], size = [1, 2, 3] }]
"#;
    let l = lower_text(two).unwrap();
    let names: Vec<&str> = l
        .model
        .mechanism
        .bodies
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(l.model.mechanism.bodies[1].parent, Some(0));
    assert_eq!(slot(&l, "a.q0"), 0.01);
    assert_eq!(l.model.mechanism.bodies[0].inertia[..3], [13.0, 10.0, 5.0]);
    let cyclic = two.replace("parent = \"ground\"", "parent = \"b\"");
    let e = errors(&cyclic);
    assert!(
        e[0].contains("the parents of bodies form a cycle: b → a → b"),
        "{}",
        e[0]
    );
}

#[test]
fn interface_names_are_checked() {
    let bad =
        format!("{MINIMAL}\n[[interface.outputs]]\nname = \"arm angle\"\nquantity = \"hinge.q\"\n");
    let e = errors(&bad);
    assert!(
        e[0].starts_with("t.toml:14:8: error: 'arm angle' is not a valid FMI structured name"),
        "{}",
        e[0]
    );
    let clash = format!(
        "{MINIMAL}\n[[interface.outputs]]\nname = \"a.q\"\nquantity = \"hinge.q\"\n[[interface.outputs]]\nname = \"a.q\"\nquantity = \"hinge.qd\"\n"
    );
    let e = errors(&clash);
    assert!(
        e[0].starts_with("t.toml:17:8: error: duplicate interface variable 'a.q'"),
        "{}",
        e[0]
    );
    let body_q =
        format!("{MINIMAL}\n[[interface.outputs]]\nname = \"a.q\"\nquantity = \"arm.q\"\n");
    let e = errors(&body_q);
    assert!(e[0].contains("write \"hinge.q\""), "{}", e[0]);
    let target =
        format!("{MINIMAL}\n[[interface.parameters]]\nname = \"m\"\ntarget = \"arm.mas\"\n");
    let e = errors(&target);
    assert!(
        e[0].contains("unknown parameter slot 'arm.mas'")
            && e[0].contains("did you mean 'arm.mass'?"),
        "{}",
        e[0]
    );
    // A user variable named like an automatic one replaces it.
    let own = format!(
        "{MINIMAL}\n[[interface.outputs]]\nname = \"energy.total\"\nquantity = \"energy.kinetic\"\n"
    );
    let l = lower_text(&own).unwrap();
    assert_eq!(
        l.model
            .variables
            .iter()
            .filter(|v| v.name == "energy.total")
            .count(),
        1
    );
    assert_eq!(
        var(&l, "energy.total").binding,
        Binding::Probe(Probe::KineticEnergy)
    );
}

#[test]
fn parameters_and_units() {
    let text = format!(
        "{MINIMAL}\n[[interface.parameters]]\nname = \"payload.mass\"\ntarget = \"arm.mass\"\nvariability = \"tunable\"\nmin = \"1 kg\"\n"
    );
    let l = lower_text(&text).unwrap();
    let p = var(&l, "payload.mass");
    assert_eq!(
        (p.causality, p.variability),
        (Causality::Parameter, Variability::Tunable)
    );
    assert_eq!(
        (p.start, p.min, p.unit.as_deref()),
        (Some(2.0), Some(1.0), Some("kg"))
    );
    let bar = text.replace("variability = \"tunable\"", "unit = \"g\"");
    let e = errors(&bar);
    assert!(e[0].contains("not a coherent SI unit"), "{}", e[0]);
    let wrong = text.replace("variability = \"tunable\"", "unit = \"m\"");
    assert!(errors(&wrong)[0].contains("does not fit this slot, which holds a mass"));
    let outside = text.replace("min = \"1 kg\"", "min = \"3 kg\"");
    assert!(errors(&outside)[0].contains("outside [min, max]"));
}

#[test]
fn dotted_tables_are_accepted() {
    let text = model_file("naya-rod.toml").replace(
        "edges.PA = { area = [[0, 0], [1, 0.0005]], discharge_coefficient = 0.67 }",
        "edges.PA.area = [[0, 0], [1, 0.0005]]\nedges.PA.discharge_coefficient = 0.67",
    );
    assert!(text.contains("edges.PA.area"));
    let l = lower_text(&text).unwrap();
    let reference = lowered("naya-rod.toml");
    assert_eq!(l.model, reference.model);
    // An error inside a dotted table (no span of its own) points at a neighbour.
    let bad = text.replace("edges.PA.discharge_coefficient = 0.67", "");
    let s = Source::new("t.toml", bad.clone());
    let e = lower_text(&bad).unwrap_err();
    assert!(
        s.render(&e[0]).contains(
            "error: edge PA of valve 'valve' gives `area` without `discharge_coefficient`"
        )
    );
}

#[test]
fn hydraulic_reference_errors() {
    let text = model_file("jaiswal-fourbar.toml");
    let bad = text.replace("to = \"cap_side\"", "to = \"capside\"");
    let e = errors(&bad);
    assert!(
        e[0].contains("unknown hydraulic node 'capside'")
            && e[0].contains("did you mean 'cap_side'?"),
        "{}",
        e[0]
    );
    // One chamber may be vented to a pressure source (single-acting), not both.
    let bad = text
        .replace("cap_volume = \"cap_side\"", "cap_volume = \"pump\"")
        .replace("rod_volume = \"rod_side\"", "rod_volume = \"tank\"");
    let e = errors(&bad);
    assert!(
        e.iter()
            .any(|e| e.contains("has both chambers on pressure sources ('pump', 'tank')")),
        "{e:?}"
    );
    let bad = text.replace("quantity = \"hose.p\"", "quantity = \"hose.q\"");
    assert!(errors(&bad)[0].contains("hydraulic node 'hose' has no quantity 'q'"));
    let bad = text.replace(
        "[[-10, 0], [0, 0], [10, 2.138e-7]] }\nedges.BT",
        "[[-10, 0], [10, 0], [0, 2.138e-7]] }\nedges.BT",
    );
    assert!(errors(&bad)[0].contains("spool positions must increase"));
    let bad = text.replace("bulk_modulus = \"1500 MPa\"", "bulk_modulus = \"1500 mm\"");
    let e = errors(&bad);
    assert!(e[0].contains("expected a pressure, got 'mm'"), "{}", e[0]);
}

const CIRCUIT: &str = r#"
[model]
name = "circuit"

[[bodies]]
name = "boom"
parent = "ground"
joint = { type = "revolute", name = "hinge", axis = [0, 0, 2], rotation = { axis = [0, 0, 1], angle = "90 deg" } }
parts = [{ shape = "rod", mass = "100 kg", from = [0, 0, 0], to = [2, 0, 0] }]

[[spring_dampers]]
name = "spring"
a = { body = "ground", point = [0, 1, 0] }
b = { body = "boom", point = [1, 0, 0] }
stiffness = "1e4 N/m"
damping = "100 N s/m"
free_length = "1 m"

[[point_forces]]
name = "load"
body = "boom"
point = [2, 0, 0]
force = [0, "-2 kN", 0]

[hydraulics.oil]
density = 870
bulk_modulus = "1.5 GPa"

[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"

[[hydraulics.volumes]]
name = "supply"
volume = "0.5 L"

[[hydraulics.volumes]]
name = "cap"
volume = 0

[[hydraulics.volumes]]
name = "rod"
volume = 0

[[hydraulics.pumps]]
name = "pump"
inlet = "tank"
outlet = "supply"
displacement = "28 cm3/rev"
speed = "1500 rpm"
volumetric_efficiency = 0.95

[[hydraulics.relief_valves]]
name = "relief"
from = "supply"
to = "tank"
cracking_pressure = "200 bar"
gain = "1e-9 m3/s/Pa"

[[hydraulics.leakages]]
name = "leak"
from = "cap"
to = "rod"
conductance = 1e-13

[[hydraulics.valves]]
name = "dcv"
P = "supply"
T = "tank"
A = "cap"
B = "rod"
spool = { range = ["-10 V", "10 V"], time_constant = "20 ms" }
edges.PA = { coefficient = [[0, 0], [10, 1e-7]] }

[[hydraulics.cylinders]]
name = "lift"
cap = { body = "ground", point = [0.5, -1, 0] }
rod = { body = "boom", point = [1, 0, 0] }
bore = "100 mm"
rod_diameter = "60 mm"
stroke = "0.8 m"
retracted_length = "1.5 m"
cap_volume = "cap"
rod_volume = "rod"
friction = { model = "brown-mcphee", coulomb = "210 N", stiction = "830 N", stribeck_velocity = "12.5 mm/s", viscous = "330 N s/m" }
cushion = { length = "10 mm" }

[[interface.inputs]]
name = "dcv.u"
target = "dcv.command"

[[interface.outputs]]
name = "pump.power"
quantity = "pump.power"

[[interface.outputs]]
name = "dcv.spool"
quantity = "dcv.spool"

[[interface.outputs]]
name = "relief.flow"
quantity = "relief.flow"

[[interface.outputs]]
name = "lift.friction"
quantity = "lift.friction"

[init]
solve_for = ["dcv.u", "spring.stiffness"]
"#;

#[test]
fn all_component_kinds_lower() {
    let l = lower_text(CIRCUIT).unwrap_or_else(|e| panic!("{e:?}"));
    let m = &l.model;
    let b = &m.mechanism.bodies[0];
    // Axis normalised; 90° about z as a unit quaternion [w, x, y, z].
    assert_eq!(
        b.joint,
        JointKind::Revolute {
            axis: [0.0, 0.0, 1.0]
        }
    );
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let q = b.joint_frame.rotation;
    assert!(
        (q[0] - h).abs() < 1e-15 && q[1] == 0.0 && q[2] == 0.0 && (q[3] - h).abs() < 1e-15,
        "{q:?}"
    );
    assert_eq!(slot(&l, "load.force.y"), -2000.0);
    assert_eq!(slot(&l, "spring.damping"), 100.0);
    assert!((slot(&l, "pump.displacement") - 28e-6).abs() < 1e-18);
    assert!((slot(&l, "pump.speed") - 50.0 * std::f64::consts::PI).abs() < 1e-12);
    assert_eq!(slot(&l, "relief.cracking_pressure"), 2e7);
    assert_eq!(slot(&l, "oil.bulk_modulus"), 1.5e9);
    assert_eq!(slot(&l, "lift.friction.stiction"), 830.0);
    assert!((slot(&l, "lift.friction.stribeck_velocity") - 0.0125).abs() < 1e-15);
    assert_eq!(slot(&l, "lift.cushion.length"), 0.01);
    assert_eq!(slot(&l, "lift.cushion.stiffness"), 1e8);
    assert!(matches!(
        m.circuit.cylinders[0].friction,
        fmu_runtime::model::Friction::BrownMcPhee { .. }
    ));
    // Absent edges never open; the spool defaults to the centre of its range.
    let Element::DirectionalValve(v) = &m.circuit.elements[0] else {
        panic!()
    };
    assert_eq!(
        v.edges[fmu_runtime::model::EDGE_BT].table,
        vec![(-10.0, 0.0), (10.0, 0.0)]
    );
    assert_eq!(m.circuit.spools[0].dead_band_centre, 0.0);
    // The spool's unit comes from its range ("V").
    assert_eq!(var(&l, "dcv.u").unit.as_deref(), Some("V"));
    assert_eq!(var(&l, "dcv.spool").unit.as_deref(), Some("V"));
    assert_eq!(
        (var(&l, "dcv.u").min, var(&l, "dcv.u").max),
        (Some(-10.0), Some(10.0))
    );
    assert_eq!(var(&l, "pump.power").unit.as_deref(), Some("W"));
    assert_eq!(
        var(&l, "relief.flow").display_unit.as_deref(),
        Some("L/min")
    );
    // solve_for takes interface names and slot names.
    let names: Vec<&str> = l
        .solve_for
        .iter()
        .map(|id| m.params[id.index()].name.as_str())
        .collect();
    assert_eq!(names, ["dcv.command", "spring.stiffness"]);
    m.validate().unwrap();
}

#[test]
fn friction_model_keys_are_checked() {
    let missing = CIRCUIT.replace(", viscous = \"330 N s/m\" }", " }");
    let e = errors(&missing);
    assert!(
        e[0].contains("brown-mcphee friction needs `viscous`"),
        "{}",
        e[0]
    );
    let extra = CIRCUIT.replace(
        "viscous = \"330 N s/m\" }",
        "viscous = \"330 N s/m\", coefficient = 1 }",
    );
    let e = errors(&extra);
    assert!(
        e[0].contains("brown-mcphee friction has no `coefficient`"),
        "{}",
        e[0]
    );
    let lugre = CIRCUIT.replace(
        "model = \"brown-mcphee\",",
        "model = \"modified-lugre\", exponent = 0.5, bristle_stiffness = \"7.348e6 N/m\", bristle_damping = \"3.162e4 N s/m\", threshold_velocity = \"0.7 m/s\", tau_acceleration = \"0.25 s\", tau_deceleration = \"1.5 s\", tau_dwell = \"40 s\",",
    );
    let l = lower_text(&lugre).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(slot(&l, "lift.friction.dwell_velocity"), 1e-4);
    assert_eq!(slot(&l, "lift.friction.tau_dwell"), 40.0);
    assert_eq!(l.model.circuit.friction_states(), 2);
    let ba = CIRCUIT.replace(
        "model = \"brown-mcphee\",",
        "model = \"bengisu-akay\", shape = \"50 s/m\",",
    );
    assert_eq!(slot(&lower_text(&ba).unwrap(), "lift.friction.shape"), 50.0);
}

#[test]
fn solve_for_and_range_errors() {
    let e = errors(&CIRCUIT.replace(
        "solve_for = [\"dcv.u\", \"spring.stiffness\"]",
        "solve_for = [\"pump.power\"]",
    ));
    assert!(e[0].contains("'pump.power' is an output"), "{}", e[0]);
    let e = errors(&CIRCUIT.replace(
        "solve_for = [\"dcv.u\", \"spring.stiffness\"]",
        "solve_for = [\"dcv.x\"]",
    ));
    assert!(
        e[0].contains("unknown input, parameter or slot 'dcv.x'"),
        "{}",
        e[0]
    );
    let e = errors(&CIRCUIT.replace(
        "range = [\"-10 V\", \"10 V\"]",
        "range = [\"10 V\", \"-10 V\"]",
    ));
    assert!(
        e[0].contains("the spool range [10, -10] is empty"),
        "{}",
        e[0]
    );
    let e = errors(&CIRCUIT.replace("rod_diameter = \"60 mm\"", "rod_diameter = \"100 mm\""));
    assert!(e[0].contains("is not thinner than the bore"), "{}", e[0]);
    let e = errors(&CIRCUIT.replace("rod_volume = \"rod\"", "rod_volume = \"cap\""));
    assert!(
        e[0].contains("both chambers belong to the same volume"),
        "{}",
        e[0]
    );
    let e = errors(&CIRCUIT.replace("volume = \"0.5 L\"", "volume = \"0.5 bar\""));
    assert!(e[0].contains("expected a volume, got 'bar'"), "{}", e[0]);
}

#[test]
fn cut_joint_errors() {
    let text = model_file("jaiswal-fourbar.toml");
    let e = errors(&text.replace("axis_a = [0, 0, 1]\n", ""));
    assert!(
        e[0].contains("revolute cut joint 'E' needs axis_a and axis_b"),
        "{}",
        e[0]
    );
    let e = errors(&text.replace(
        "type = \"revolute\"\nbody_a",
        "type = \"spherical\"\nbody_a",
    ));
    assert!(
        e[0].contains("a spherical cut joint has no axes"),
        "{}",
        e[0]
    );
    let e = errors(&text.replace("name = \"E\"", "name = \"O\""));
    assert!(
        e[0].contains("duplicate name 'O': already used by a joint"),
        "{}",
        e[0]
    );
}

#[test]
fn texts_that_xml_or_windows_cannot_take() {
    let e = errors(&MINIMAL.replace("name = \"m\"", "name = \"Con\""));
    assert!(
        e[0].contains("the model identifier 'Con' is reserved"),
        "{}",
        e[0]
    );
    let e = errors(&MINIMAL.replace("name = \"m\"", "name = \"m\"\ndescription = \"a\\u0001b\""));
    assert!(e[0].contains("control characters"), "{}", e[0]);
    let e = errors(&MINIMAL.replace("name = \"m\"", "name = \"\""));
    assert!(e[0].contains("the model name is empty"), "{}", e[0]);
}

#[test]
fn chamber_pressures_by_cylinder_and_motor_name() {
    // The rod's chambers by the cylinder's name: the same probes as the volumes' `.p`.
    let text = model_file("naya-rod.toml")
        + "\n[[interface.outputs]]\nname = \"cyl.p_cap\"\nquantity = \"cylinder.p_cap\"\n\n[[interface.outputs]]\nname = \"cyl.p_rod\"\nquantity = \"cylinder.p_rod\"\n";
    let l = lower_text(&text).unwrap();
    let cyl = &l.model.circuit.cylinders[0];
    assert_eq!(
        var(&l, "cyl.p_cap").binding,
        Binding::Probe(Probe::NodePressure(cyl.cap_node))
    );
    assert_eq!(
        var(&l, "cyl.p_rod").binding,
        Binding::Probe(Probe::NodePressure(cyl.rod_node))
    );
    assert_eq!(
        var(&l, "cyl.p_cap").binding,
        var(&l, "cylinder.p_b").binding
    );
    assert_eq!(var(&l, "cyl.p_rod").unit.as_deref(), Some("Pa"));
    // A motor's ports.
    let text = model_file("excavator.toml")
        + "\n[[interface.outputs]]\nname = \"motor.pa\"\nquantity = \"swing_motor.p_a\"\n\n[[interface.outputs]]\nname = \"motor.pb\"\nquantity = \"swing_motor.p_b\"\n";
    let l = lower_text(&text).unwrap();
    let m = &l.model.circuit.motors[0];
    assert_eq!(
        var(&l, "motor.pa").binding,
        Binding::Probe(Probe::NodePressure(m.port_a))
    );
    assert_eq!(
        var(&l, "motor.pb").binding,
        Binding::Probe(Probe::NodePressure(m.port_b))
    );
    // A quantity a cylinder lacks lists the new ones.
    let e = errors(
        &(model_file("naya-rod.toml")
            + "\n[[interface.outputs]]\nname = \"x\"\nquantity = \"cylinder.p_a\"\n"),
    );
    assert!(e[0].contains("cylinder.p_cap, cylinder.p_rod"), "{e:?}");
}

#[test]
fn a_field_kept_as_another_slot_names_the_slots_to_use() {
    let text = model_file("jaiswal-fourbar.toml")
        .replace("target = \"valve.command\"", "target = \"cylinder.bore\"");
    let e = errors(&text);
    let bore = e.iter().find(|e| e.contains("'cylinder.bore'")).unwrap();
    assert!(
        bore.contains("'cylinder.cap_area'") && bore.contains("'cylinder.rod_area'"),
        "{bore}"
    );
}

#[test]
fn the_fmu_documentation_lists_the_rotary_motors() {
    let l = lowered("excavator.toml");
    let html = crate::emit::documentation::render_lowered(&l);
    assert!(
        html.contains("4 cylinders, 1 rotary motors."),
        "machine line"
    );
    let table = &html[html.find("Rotary motors").expect("a motor table")..];
    assert!(table.contains("swing_motor") && table.contains("joint swing"));
    assert!(table.contains("A → swing_a, B → swing_b"));
}
