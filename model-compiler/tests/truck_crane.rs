//! `models/truck-crane.toml` (issue 15, item 9): the knuckle crane of
//! `models/knuckle-crane.toml` carried on a truck's deck through `[carries]`, as one machine
//! and split at the crane's base (`hydromech build --split base`). The truck at rest is
//! checked against the closed form of a rigid body on four vertical springs loaded by its
//! own weight and the crane's wrench (the crane alone on a fixed base, an independent
//! model); the split's crane starts with the whole's pressures. The co-simulation of the
//! split through FMI is in tests/python/test_cosimulation.py.

mod common;

use common::Machine;
use model_compiler::diagnostic::Source;
use std::sync::Arc;

const G: f64 = 9.81;
/// Suspension stiffness, spring x positions and free lengths (models/truck-crane.toml).
const K: f64 = 4e5;
const A: f64 = 2.2;
const FRONT: f64 = 0.600265;
const REAR: f64 = 0.525818;
/// Spring length at the start (chassis point 0.5 m above the ground point).
const L_START: f64 = 0.5;
/// The truck's own parts: (mass, x, y) of the chassis box and the cab.
const TRUCK: [(f64, f64, f64); 2] = [(6500.0, 0.0, 0.0), (1500.0, 2.8, 1.0)];
/// The deck point (mount origin) in chassis coordinates.
const DECK: [f64; 3] = [1.5, 0.3, 0.0];

fn source() -> Source {
    let path = common::workspace().join("models/truck-crane.toml");
    Source::new(&path, std::fs::read_to_string(&path).unwrap())
}

fn mass(model: &fmu_runtime::model::CompiledModel) -> f64 {
    model
        .mechanism
        .bodies
        .iter()
        .map(|b| model.default_param(b.mass))
        .sum()
}

#[test]
fn the_truck_at_rest_stands_where_its_springs_balance_its_weight_and_the_cranes_wrench() {
    let whole = common::compile("truck-crane.toml");
    let crane = common::compile("knuckle-crane.toml");
    let truck_mass: f64 = TRUCK.iter().map(|p| p.0).sum();
    assert!((mass(&whole) - truck_mass - mass(&crane)).abs() < 1e-9);

    // The crane alone on a fixed base at the deck: the wrench it puts on the deck (base
    // axes = chassis axes at the start, moment about the deck point).
    let split =
        model_compiler::assembly::compose::split(&source()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut alone = Machine::from_model(split.carried.model);
    alone.inst.initialize(0.0).unwrap();
    let f = ["x", "y", "z"].map(|a| alone.get(&format!("base.force.{a}")));
    let m = ["x", "y", "z"].map(|a| alone.get(&format!("base.moment.{a}")));
    assert!(
        (f[1] + mass(&crane) * G).abs() < 1e-6 * mass(&crane) * G,
        "the crane at rest weighs on the deck: {f:?}"
    );

    // Small-angle closed form: heave y and pitch φ (about z) of the chassis on four vertical
    // springs F_i = k(L0_i − L − y − φ x_i): ΣF_i = weight, Σ x_i F_i = moment of the loads
    // about the chassis origin.
    let truck_weight = truck_mass * G;
    let truck_moment: f64 = TRUCK.iter().map(|&(m, x, _)| -m * G * x).sum();
    let crane_moment = m[2] + DECK[0] * f[1] - DECK[1] * f[0];
    let load = truck_weight - f[1];
    let springs = [(A, FRONT), (A, FRONT), (-A, REAR), (-A, REAR)];
    let preload: f64 = springs.iter().map(|&(_, l0)| K * (l0 - L_START)).sum();
    let preload_moment: f64 = springs.iter().map(|&(x, l0)| K * x * (l0 - L_START)).sum();
    let heave = (preload - load) / (4.0 * K);
    let pitch = (preload_moment + truck_moment + crane_moment) / (4.0 * K * A * A);

    let mut truck = Machine::from_model(whole);
    truck.inst.initialize(0.0).unwrap();
    let h = 1e-3;
    for k in 1..=8000 {
        truck.inst.advance(k as f64 * h).unwrap();
    }
    let (y, phi, roll) = (
        truck.get("truck.heave"),
        truck.get("truck.pitch"),
        truck.get("truck.roll"),
    );
    println!(
        "at rest after 8 s: heave {y:.6e} m (closed form {heave:.6e}), pitch {phi:.6e} rad \
         ({pitch:.6e}), roll {roll:.2e} rad; crane on the deck: force {f:?} N, moment {m:?} N·m"
    );
    // The free lengths were chosen to balance the start (heave and pitch ~1e-8): a deck 1 cm
    // off, or a crane load lost, would pitch the truck by 3e-5 rad or sink it by 14 mm.
    // The linear form leaves out the tilts (second order in angles of 1e-8).
    assert!((y - heave).abs() < 1e-7, "heave {y} vs {heave}");
    assert!((phi - pitch).abs() < 1e-7, "pitch {phi} vs {pitch}");
    assert!(
        roll.abs() < 1e-9,
        "the truck is symmetric about its length: roll {roll}"
    );
}

#[test]
fn the_split_crane_starts_with_the_pressures_of_the_whole() {
    let whole = common::compile("truck-crane.toml");
    let split =
        model_compiler::assembly::compose::split(&source()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut a = fmu_runtime::Instance::new(Arc::new(whole));
    let mut b = fmu_runtime::Instance::new(Arc::new(split.carried.model.clone()));
    a.initialize(0.0).unwrap();
    b.initialize(0.0).unwrap();
    let outputs: Vec<_> = b
        .model()
        .variables
        .iter()
        .filter(|v| v.unit.as_deref() == Some("Pa"))
        .cloned()
        .collect();
    assert!(outputs.len() >= 8, "{} pressure outputs", outputs.len());
    for v in &outputs {
        let w = a
            .model()
            .variables
            .iter()
            .find(|w| w.name == v.name)
            .unwrap_or_else(|| panic!("the whole lacks {}", v.name))
            .clone();
        let (pa, pb) = (a.value(&w), b.value(v));
        assert!(
            (pa - pb).abs() <= 1e-6 * pa.abs().max(1e5),
            "{}: whole {pa} Pa, split {pb} Pa",
            v.name
        );
    }
    // The carrier alone: the truck's outputs and the deck's mount port, no crane inside.
    let names: Vec<_> = split
        .carrier
        .model
        .variables
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert!(names.contains(&"truck.roll") && names.contains(&"deck.force.y"));
    assert!(!names.iter().any(|n| n.starts_with("boom")), "{names:?}");
    assert_eq!(split.carrier.model.name, "truck-crane-carrier");
    assert_eq!(split.carried.model.name, "truck-crane-crane");
}

/// A carrier and a carried description written to a temporary directory.
fn pair(tag: &str, carried: &str) -> Source {
    let dir = common::temp_dir(tag);
    std::fs::write(dir.join("arm.toml"), carried).unwrap();
    let carrier = "[model]\nname = \"cart\"\n\
        [[bodies]]\nname = \"cart\"\nparent = \"ground\"\n\
        joint = { type = \"prismatic\", axis = [1, 0, 0] }\nmass = 100\ncom = [0, 0, 0]\n\
        inertia = [1, 1, 1, 0, 0, 0]\n\
        [interface.mount]\nbody = \"cart\"\norigin = [0, 0.5, 0]\n\
        [carries]\nmodel = \"arm.toml\"\nname = \"arm\"\n";
    let path = dir.join("cart.toml");
    std::fs::write(&path, carrier).unwrap();
    Source::new(&path, carrier)
}

const ARM: &str = "[model]\nname = \"arm\"\n\
    [[bodies]]\nname = \"arm\"\nparent = \"ground\"\n\
    joint = { type = \"revolute\", axis = [0, 0, 1] }\nmass = 2\ncom = [0.5, 0, 0]\n\
    inertia = [0.01, 0.2, 0.2, 0, 0, 0]\n\
    [[interface.outputs]]\nname = \"arm.q\"\nquantity = \"arm.q\"\n";

#[test]
fn a_carried_machine_stands_on_the_mount_frame() {
    let source = pair("carries-ok", ARM);
    let l = model_compiler::compile(&source).unwrap_or_else(|e| panic!("{e:?}"));
    // cart (1 coordinate) + the mount body (fixed) + arm (1).
    assert_eq!(l.model.mechanism.bodies.len(), 3);
    let mut m = Machine::from_model(l.model);
    m.inst.initialize(0.0).unwrap();
    // The arm hangs from the mount point 0.5 m above the cart: it swings down from
    // horizontal and pushes the free cart back and forth, momentum conserved along x.
    for k in 1..=500 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let q = m.get("arm.q");
    assert!(q < -0.5, "the arm fell: {q}");
}

/// The rendered errors of checking the cart carrying `carried`.
fn errors(tag: &str, carried: &str) -> String {
    let source = pair(tag, carried);
    model_compiler::check(&source)
        .unwrap_err()
        .iter()
        .map(|d| source.render(d))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn errors_of_the_carried_file_point_into_it_and_clashes_are_named() {
    let text = errors("carries-broken", &ARM.replace("mass = 2", "mass = \"2 m\""));
    assert!(text.contains("arm.toml:7:8: expected a mass"), "{text}");

    let text = errors("carries-clash", &ARM.replace("\"arm", "\"cart"));
    assert!(
        text.contains("'cart'") && text.contains("carrying"),
        "{text}"
    );

    let carried_base = format!("{ARM}[interface.base]\nmotion = \"carrier\"\n");
    let text = errors("carries-base", &carried_base);
    assert!(
        text.contains("cart.toml:") && text.contains("base port"),
        "{text}"
    );
}
