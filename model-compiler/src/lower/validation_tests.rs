//! Validation rules whose accepted side needs checking in Rust (computed inertia, composite
//! joints, warnings, tunability tables). The rejected descriptions, one per rule with the
//! message and its exact position, are the corpus in tests/descriptions
//! (model-compiler/tests/description_corpus.rs).

use super::*;
use crate::description::Description;
use crate::diagnostic::{Severity, Source};
use fmu_runtime::mechanics::Kinematics;
use fmu_runtime::model::{Binding, JointKind, Probe, Variability};

fn lower_text(text: &str) -> Result<Lowered, Vec<Diagnostic>> {
    let d = Description::parse(text).map_err(|e| vec![e])?;
    lower(&d)
}

fn ok(text: &str) -> Lowered {
    lower_text(text).unwrap_or_else(|errors| {
        let s = Source::new("t.toml", text);
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

fn errors(text: &str) -> Vec<String> {
    let s = Source::new("t.toml", text);
    match lower_text(text) {
        Ok(_) => panic!("expected errors in:\n{text}"),
        Err(errors) => errors.iter().map(|e| s.render(e)).collect(),
    }
}

/// `line:column` of the `nth` (0-based) occurrence of `needle`.
fn pos(text: &str, needle: &str, nth: usize) -> String {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {needle:?} #{nth} in the text"))
        .0;
    let (l, c) = Source::new("t.toml", text).line_column(offset);
    format!("{l}:{c}")
}

/// Asserts that some error starts with `t.toml:<position of needle>: error: <message>`.
#[track_caller]
fn assert_error(text: &str, needle: &str, nth: usize, message: &str) -> String {
    let e = errors(text);
    let head = format!("t.toml:{}: error: {message}", pos(text, needle, nth));
    e.iter()
        .find(|e| e.starts_with(&head))
        .unwrap_or_else(|| panic!("no error starting with\n{head}\nin\n{}", e.join("\n\n")))
        .clone()
}

const ARM: &str = r#"[model]
name = "t"

[[bodies]]
name = "arm"
parent = "ground"
joint = { type = "revolute", name = "hinge", axis = [0, 0, 1] }
parts = [{ shape = "rod", mass = "2 kg", from = [0, 0, 0], to = [1, 0, 0] }]
"#;

// ---- keys and names -------------------------------------------------------------------

// ---- masses and inertia ---------------------------------------------------------------

const EXPLICIT: &str = r#"[model]
name = "t"

[[bodies]]
name = "arm"
parent = "ground"
joint = { type = "revolute", axis = [0, 0, 1] }
mass = 2
com = [0.5, 0, 0]
inertia = [0.1, 0.1, 0.1, 0, 0, 0]
"#;

/// The rejected tensors are in tests/descriptions (inertia-*.toml).
#[test]
fn explicit_inertia_is_accepted_up_to_the_triangle_limit() {
    ok(EXPLICIT);
    // A thin plate is the limit case and is accepted.
    ok(&EXPLICIT.replace("[0.1, 0.1, 0.1, 0, 0, 0]", "[0.1, 0.2, 0.3, 0, 0, 0]"));
}

/// A massless leaf is rejected (tests/descriptions/massless-leaf.toml); with a massive child
/// it is fine: the link carries the child.
#[test]
fn a_massless_link_carries_its_child() {
    let text = ARM.replace(
        "parts = [{ shape = \"rod\", mass = \"2 kg\", from = [0, 0, 0], to = [1, 0, 0] }]",
        "massless = true",
    ) + "[[bodies]]\nname = \"tip\"\nparent = \"arm\"\njoint = { type = \"fixed\", origin = [1, 0, 0] }\nparts = [{ shape = \"point\", mass = 1, at = [0, 0, 0] }]\n";
    let l = ok(&text);
    assert_eq!(l.model.default_param(l.model.mechanism.bodies[0].mass), 0.0);
}

#[test]
fn cylinder_parts_compute_their_inertia() {
    let text = ARM.replace(
        "{ shape = \"rod\", mass = \"2 kg\", from = [0, 0, 0], to = [1, 0, 0] }",
        "{ shape = \"cylinder\", mass = 12, center = [0, 0, 0], axis = [0, 0, 1], length = 2, radius = \"500 mm\" }",
    );
    let l = ok(&text);
    let b = &l.model.mechanism.bodies[0];
    assert!((b.inertia[2] - 1.5).abs() < 1e-12, "{:?}", b.inertia);
    assert!((b.inertia[0] - 4.75).abs() < 1e-12, "{:?}", b.inertia);
    // Between two points: the same cylinder laid along x.
    let text2 = ARM.replace(
        "{ shape = \"rod\", mass = \"2 kg\", from = [0, 0, 0], to = [1, 0, 0] }",
        "{ shape = \"cylinder\", mass = 12, from = [-1, 0, 0], to = [1, 0, 0], radius = 0.5 }",
    );
    let b2 = ok(&text2).model.mechanism.bodies[0].clone();
    assert!((b2.inertia[0] - 1.5).abs() < 1e-12 && (b2.inertia[2] - 4.75).abs() < 1e-12);
}

// ---- joints ---------------------------------------------------------------------------

const BALL: &str = r#"[model]
name = "t"

[[bodies]]
name = "ball"
parent = "ground"
joint = { type = "spherical", name = "socket", origin = [0, 1, 0], initial = ["30 deg", "20 deg", "10 deg"] }
parts = [{ shape = "box", mass = 3, center = [0.5, 0, 0], size = [1, 0.2, 0.1] }]
"#;

#[test]
fn a_spherical_joint_is_three_revolutes_through_massless_links() {
    let l = ok(BALL);
    let m = &l.model.mechanism;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["socket.yaw", "socket.pitch", "ball"]);
    let axes: Vec<JointKind> = m.bodies.iter().map(|b| b.joint).collect();
    assert_eq!(
        axes,
        [
            JointKind::Revolute {
                axis: [0.0, 0.0, 1.0]
            },
            JointKind::Revolute {
                axis: [0.0, 1.0, 0.0]
            },
            JointKind::Revolute {
                axis: [1.0, 0.0, 0.0]
            },
        ]
    );
    assert_eq!(m.bodies[1].parent, Some(0));
    assert_eq!(m.bodies[2].parent, Some(1));
    assert_eq!(m.bodies[0].joint_frame.origin, [0.0, 1.0, 0.0]);
    assert_eq!(m.bodies[1].joint_frame.origin, [0.0; 3]);
    for b in &m.bodies[..2] {
        assert_eq!(l.model.default_param(b.mass), 0.0);
    }
    assert_eq!(l.analysis.dof, 3);
    // The body frame is R_z(yaw) R_y(pitch) R_x(roll) at the joint point.
    let (y, p, r) = (30f64.to_radians(), 20f64.to_radians(), 10f64.to_radians());
    let z: Vec<f64> = m
        .bodies
        .iter()
        .map(|b| l.model.default_param(b.q0))
        .collect();
    assert!((z[0] - y).abs() < 1e-15 && (z[1] - p).abs() < 1e-15 && (z[2] - r).abs() < 1e-15);
    let mut kin = Kinematics::new(m);
    kin.update(m, |_| 1.0, &z, &[0.0; 3], &[0.0; 3]);
    let rz = nalgebra::Rotation3::from_axis_angle(&nalgebra::Vector3::z_axis(), y);
    let ry = nalgebra::Rotation3::from_axis_angle(&nalgebra::Vector3::y_axis(), p);
    let rx = nalgebra::Rotation3::from_axis_angle(&nalgebra::Vector3::x_axis(), r);
    let expected = (rz * ry * rx).into_inner();
    assert!((kin.bodies[2].rotation - expected).norm() < 1e-14);
    assert!((kin.bodies[2].origin - nalgebra::Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-15);
    // Outputs name the part: socket.yaw.q ...
    let out = format!(
        "{BALL}[[interface.outputs]]\nname = \"roll\"\nquantity = \"socket.roll.q\"\n[[interface.outputs]]\nname = \"yaw_rate\"\nquantity = \"socket.yaw.qd\"\n"
    );
    let l = ok(&out);
    let v = l.model.variables.iter().find(|v| v.name == "roll").unwrap();
    assert_eq!(v.binding, Binding::Probe(Probe::JointPosition(2)));
    let v = l
        .model
        .variables
        .iter()
        .find(|v| v.name == "yaw_rate")
        .unwrap();
    assert_eq!(v.binding, Binding::Probe(Probe::JointVelocity(0)));
    // The initial slots are named by part.
    let id = l
        .model
        .params
        .iter()
        .position(|p| p.name == "ball.q0.pitch")
        .unwrap();
    assert!((l.model.params[id].default - p).abs() < 1e-15);
}

const CARDAN: &str = r#"[model]
name = "t"

[[bodies]]
name = "shaft"
parent = "ground"
joint = { type = "universal", name = "cross", axes = [[0, 0, 1], [0, 1, 0]], initial = ["10 deg", "-5 deg"] }
parts = [{ shape = "cylinder", mass = 3, from = [0, 0, 0], to = [1, 0, 0], radius = 0.05 }]
"#;

#[test]
fn a_universal_joint_is_two_revolutes_through_a_massless_cross() {
    let l = ok(CARDAN);
    let m = &l.model.mechanism;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["cross.axis1", "shaft"]);
    assert_eq!(
        m.bodies[0].joint,
        JointKind::Revolute {
            axis: [0.0, 0.0, 1.0]
        }
    );
    assert_eq!(
        m.bodies[1].joint,
        JointKind::Revolute {
            axis: [0.0, 1.0, 0.0]
        }
    );
    assert_eq!(m.bodies[1].joint_name, "cross.axis2");
    assert!((l.model.default_param(m.bodies[1].q0) + 5f64.to_radians()).abs() < 1e-15);
    assert_eq!(l.analysis.dof, 2);
}

#[test]
fn frames_take_axis_angle_or_a_quaternion() {
    let aa = ARM.replace(
        "axis = [0, 0, 1] }",
        "axis = [0, 0, 1], rotation = { axis = [1, 0, 0], angle = \"90 deg\" } }",
    );
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let quat = ARM.replace(
        "axis = [0, 0, 1] }",
        &format!("axis = [0, 0, 1], rotation = {{ quaternion = [{h}, {h}, 0, 0] }} }}"),
    );
    let a = ok(&aa).model.mechanism.bodies[0].joint_frame.rotation;
    let q = ok(&quat).model.mechanism.bodies[0].joint_frame.rotation;
    for k in 0..4 {
        assert!((a[k] - q[k]).abs() < 1e-15, "{a:?} {q:?}");
    }
    // Quaternions are normalised.
    let unnormalised = ARM.replace(
        "axis = [0, 0, 1] }",
        "axis = [0, 0, 1], rotation = { quaternion = [2, 0, 0, 0] } }",
    );
    assert_eq!(
        ok(&unnormalised).model.mechanism.bodies[0]
            .joint_frame
            .rotation,
        [1.0, 0.0, 0.0, 0.0]
    );
}

// ---- loops and degrees of freedom -----------------------------------------------------

#[test]
fn redundant_loop_equations_are_a_warning_and_dof_are_counted() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/jaiswal-fourbar.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let l = ok(&text);
    assert_eq!(
        (
            l.analysis.coordinates,
            l.analysis.constraint_equations,
            l.analysis.rank,
            l.analysis.dof,
            l.analysis.redundant
        ),
        (3, 5, 2, 1, 3)
    );
    assert_eq!(l.warnings.len(), 1);
    assert_eq!(l.warnings[0].severity, Severity::Warning);
    let s = Source::new("t.toml", text.clone());
    let w = s.render(&l.warnings[0]);
    assert!(
        w.starts_with(&format!(
            "t.toml:{}: warning: 3 of the 5 loop-closure equations are redundant at the initial configuration (1 degree of freedom)",
            pos(&text, "\"E\"", 0)
        )),
        "{w}"
    );
    assert!(
        w.contains("equations a plane needs only 2 of: 'E' (revolute, 5 equations)"),
        "{w}"
    );
    assert!(l.analysis.closure < 1e-9);
    // The same loop closed by a spherical cut joint: the warning names a spherical joint
    // (issue 48, item 6: it said "3D revolute" whatever the kind).
    let spherical = text.replace(
        "type = \"revolute\"\nbody_a = \"rocker\"",
        "type = \"spherical\"\nbody_a = \"rocker\"",
    );
    let spherical = spherical.replace("axis_a = [0, 0, 1]\naxis_b = [0, 0, 1]\n", "");
    let ls = ok(&spherical);
    assert_eq!((ls.analysis.rank, ls.analysis.redundant), (2, 1));
    let w = Source::new("t.toml", spherical.clone()).render(&ls.warnings[0]);
    assert!(
        w.contains("1 of the 3 loop-closure equations are redundant"),
        "{w}"
    );
    assert!(
        w.contains("'E' (spherical, 3 equations)") && !w.contains("revolute"),
        "{w}"
    );
    // The summary of `hydromech check` reports them.
    let report = crate::summary::report(&l);
    assert!(
        crate::summary::headline(&l).starts_with("3 bodies, 3 coordinates, 5 constraints, 3 pressures, 1 DOF, 18 variables (1 inputs, 1 parameters, 16 outputs)"),
        "{}",
        crate::summary::headline(&l)
    );
    assert!(
        report.contains("degrees of freedom: 1 = 3 coordinates − 2 independent"),
        "{report}"
    );
    assert!(report.contains("└─ crank  (revolute O"), "{report}");
    assert!(
        report.contains("valve valve: P pump, T tank, A hose, B rod_side"),
        "{report}"
    );
    assert!(report.contains("input     valve.command [V]"), "{report}");
}

#[test]
fn a_slider_crank_closed_by_a_prismatic_cut_has_one_dof() {
    let text = r#"[model]
name = "t"

[[bodies]]
name = "crank"
parent = "ground"
joint = { type = "revolute", axis = [0, 0, 1], initial = "90 deg" }
parts = [{ shape = "rod", mass = 1, from = [0, 0, 0], to = [1, 0, 0] }]

[[bodies]]
name = "coupler"
parent = "crank"
joint = { type = "revolute", origin = [1, 0, 0], axis = [0, 0, 1], initial = "-120 deg" }
parts = [{ shape = "rod", mass = 2, from = [0, 0, 0], to = [2, 0, 0] }]

[[bodies]]
name = "slider"
parent = "coupler"
joint = { type = "revolute", origin = [2, 0, 0], axis = [0, 0, 1], initial = "30 deg" }
parts = [{ shape = "point", mass = 5, at = [0, 0, 0] }]

[[cut_joints]]
name = "guide"
type = "prismatic"
body_a = "slider"
point_a = [0, 0, 0]
body_b = "ground"
point_b = [0, 0, 0]
axis_b = [1, 0, 0]
"#;
    let l = ok(text);
    let a = &l.analysis;
    assert_eq!(
        (a.coordinates, a.constraint_equations, a.rank, a.dof),
        (3, 5, 2, 1)
    );
    assert!(a.closure < 1e-9, "{}", a.closure);
    // A point force on the slider is an input.
    let forced = format!(
        "{text}[[point_forces]]\nname = \"load\"\nbody = \"slider\"\npoint = [0, 0, 0]\n[[interface.inputs]]\nname = \"load.fx\"\ntarget = \"load.force.x\"\nunit = \"N\"\n"
    );
    let l = ok(&forced);
    let v = l
        .model
        .variables
        .iter()
        .find(|v| v.name == "load.fx")
        .unwrap();
    assert_eq!(
        (v.causality, v.unit.as_deref(), v.display_unit.as_deref()),
        (fmu_runtime::model::Causality::Input, Some("N"), Some("kN"))
    );
}

// ---- hydraulics -----------------------------------------------------------------------

const RIG: &str = r#"[model]
name = "t"

[[bodies]]
name = "boom"
parent = "ground"
joint = { type = "revolute", axis = [0, 0, 1] }
parts = [{ shape = "rod", mass = 100, from = [0, 0, 0], to = [2, 0, 0] }]

[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"

[[hydraulics.pressure_sources]]
name = "supply"
pressure = "200 bar"

[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"

[[hydraulics.volumes]]
name = "cap"
volume = 0

[[hydraulics.volumes]]
name = "rod"
volume = 0

[[hydraulics.valves]]
name = "dcv"
P = "supply"
T = "tank"
A = "cap"
B = "rod"
spool = { range = [-1, 1] }
edges.PA = { area = [[0, 0], [1, "20 mm2"]], discharge_coefficient = 0.7 }

[[hydraulics.cylinders]]
name = "lift"
cap = { body = "ground", point = [1, -1, 0] }
rod = { body = "boom", point = [1, 0, 0] }
bore = "80 mm"
rod_diameter = "40 mm"
stroke = "0.5 m"
retracted_length = "0.8 m"
cap_volume = "cap"
rod_volume = "rod"
"#;

#[test]
fn the_rig_is_valid() {
    let l = ok(RIG);
    assert_eq!(l.analysis.dof, 1);
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
}

/// Disconnected and empty volumes are errors (tests/descriptions); an unused pressure source
/// is only a warning.
#[test]
fn an_unused_pressure_source_is_a_warning() {
    let text = format!(
        "{RIG}\n[[hydraulics.pressure_sources]]\nname = \"pilot\"\npressure = \"30 bar\"\n"
    );
    let l = ok(&text);
    assert_eq!(l.warnings.len(), 1);
    assert!(l.warnings[0].message.contains("'pilot' is not connected"));
}

// ---- interface ------------------------------------------------------------------------

#[test]
fn tunable_only_where_it_makes_physical_sense() {
    let p = |target: &str| {
        format!(
            "{RIG}\n[[interface.parameters]]\nname = \"x\"\ntarget = \"{target}\"\nvariability = \"tunable\"\n"
        )
    };
    for target in [
        "boom.mass",
        "supply.pressure",
        "dcv.command",
        "lift.friction.coefficient",
    ] {
        let l = ok(&p(target));
        let v = l.model.variables.iter().find(|v| v.name == "x").unwrap();
        assert_eq!(v.variability, Variability::Tunable, "{target}");
    }
    for (target, why) in [
        ("lift.stroke", "it is geometry or a component property"),
        ("lift.cap_area", "it is geometry or a component property"),
        ("cap.volume", "it is geometry or a component property"),
        ("boom.q0", "it only acts when the FMU initializes"),
        ("solver.step", "solver settings set up the integrator"),
        ("oil.bulk_modulus", "oil properties are fixed for a run"),
        (
            "dcv.time_constant",
            "it is geometry or a component property",
        ),
    ] {
        let text = p(target);
        let e = assert_error(
            &text,
            "\"tunable\"",
            0,
            &format!("'{target}' cannot be tunable: {why}"),
        );
        assert!(
            e.contains("as a fixed parameter it can still be set"),
            "{e}"
        );
        // As a fixed parameter it is fine.
        ok(&text.replace("variability = \"tunable\"\n", ""));
    }
}

#[test]
fn tunable_slots_can_be_inputs() {
    let input = |target: &str| {
        format!("{RIG}\n[[interface.inputs]]\nname = \"u\"\ntarget = \"{target}\"\n")
    };
    for target in [
        "dcv.command",
        "boom.mass",
        "supply.pressure",
        "lift.friction.coefficient",
    ] {
        ok(&input(target));
    }
}

#[test]
fn display_units_are_set_per_quantity() {
    let text = format!(
        "{RIG}\n[[interface.outputs]]\nname = \"f\"\nquantity = \"lift.force\"\n[[interface.outputs]]\nname = \"v\"\nquantity = \"lift.speed\"\n[[interface.outputs]]\nname = \"p\"\nquantity = \"cap.p\"\n[[interface.outputs]]\nname = \"w\"\nquantity = \"boom.qd\"\n[[interface.parameters]]\nname = \"a\"\ntarget = \"lift.cap_area\"\n"
    );
    let l = ok(&text);
    let du = |n: &str| {
        l.model
            .variables
            .iter()
            .find(|v| v.name == n)
            .and_then(|v| v.display_unit.clone())
    };
    assert_eq!(du("f").as_deref(), Some("kN"));
    assert_eq!(du("v").as_deref(), Some("mm/s"));
    assert_eq!(du("p").as_deref(), Some("bar"));
    assert_eq!(du("w").as_deref(), Some("deg/s"));
    assert_eq!(du("a").as_deref(), Some("cm2"));
    assert_eq!(du("energy.total"), None);
    let pump = format!(
        "{RIG}\n[[hydraulics.pumps]]\nname = \"pump\"\ninlet = \"tank\"\noutlet = \"supply\"\ndisplacement = \"28 cm3/rev\"\nspeed = \"1500 rpm\"\n[[interface.inputs]]\nname = \"n\"\ntarget = \"pump.speed\"\n"
    );
    let l = ok(&pump);
    let n = l.model.variables.iter().find(|v| v.name == "n").unwrap();
    assert_eq!(
        (n.unit.as_deref(), n.display_unit.as_deref()),
        (Some("rad/s"), Some("rpm"))
    );
}

// ---- visual geometry ------------------------------------------------------------------

#[test]
fn visual_geometry_is_checked_and_documented() {
    let text = ARM.replace(
        "parent = \"ground\"",
        "parent = \"ground\"\nvisual = [{ shape = \"box\", center = [0.5, 0, 0], size = [1, 0.1, 0.1], color = \"#f0a000\" }, { shape = \"mesh\", file = \"arm.stl\" }]",
    );
    let l = ok(&text);
    assert_eq!(l.visuals.len(), 2);
    let html = crate::emit::documentation::render_lowered(&l);
    assert!(
        html.contains("box at [0.5, 0, 0] m, size [1, 0.1, 0.1] m"),
        "{html}"
    );
    assert!(html.contains("mesh arm.stl, scale 1"), "{html}");
    assert!(html.contains("Degrees of freedom: 1"), "{html}");
    // The solver does not see it: the same mass properties as without.
    assert_eq!(l.model, ok(ARM).model);
}

// ---- units and many errors ------------------------------------------------------------
