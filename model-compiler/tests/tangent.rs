//! The Newton tangent against full forward differences of the whole residual (issue 7:
//! cheaper Jacobians), on machines with cylinders, loops, friction states (LuGre), a
//! spherical joint and a rotary motor, in motion:
//!
//! - the first-order columns (pressures, spools, friction states), formed by partial
//!   evaluations — no kinematics, inverse dynamics or constraints, the mechanical rows
//!   moved linearly by the change of the cylinder forces and motor torques — equal them;
//! - the joint-coordinate columns *assembled* from the structure (`solver::assembled`: mass
//!   matrix, penalty term, actuator and spring slopes through their lines of action; the
//!   default) differ from them only by the terms the assembly leaves out (gyroscopic,
//!   inertial, gravity and geometric stiffness), which the bound below measures against
//!   central differences; dropping any assembled term (an actuator's damping, a chamber's
//!   stiffness, the `J̇` of a pin line) is O(1e-2) to O(1) there;
//! - in `tangent = "finite-difference"` mode the joint-coordinate columns equal them too.

mod common;

use common::Machine;
use fmu_runtime::model::{CompiledModel, TangentMethod};

/// Largest column-relative difference the assembled joint-coordinate columns may have
/// against central differences (measured: 7.4e-3 on the knuckle crane, column of its hook's
/// spherical pitch while the column slews: the gyroscopic terms the assembly leaves out,
/// larger with the slew rate; 2.5e-5 on the hydraulic crane's swinging 3D pendulum; 5.8e-6
/// on the excavator, whose own forward-difference tangent is 8e-3 off there — see the test
/// output). An approximate tangent costs Newton iterations, not accuracy.
const ASSEMBLED_BOUND: f64 = 1e-2;

/// Largest column-relative differences of the solver's tangent: its first-order columns
/// against full forward differences (the same increments), its joint-coordinate columns
/// against those and against central differences (see `Instance::tangent_probe`).
struct Differences {
    first_order: f64,
    joint_forward: f64,
    joint_central: f64,
}

fn worst(a: &[f64], b: &[f64], n: usize, columns: std::ops::Range<usize>) -> f64 {
    let mut worst = 0.0f64;
    for k in columns {
        let scale = (0..n).map(|i| b[i * n + k].abs()).fold(0.0, f64::max);
        assert!(scale > 0.0, "column {k} of the reference tangent is zero");
        for i in 0..n {
            worst = worst.max((a[i * n + k] - b[i * n + k]).abs() / scale);
        }
    }
    worst
}

fn compare(name: &str, m: &mut Machine, h: f64) -> Differences {
    let nz = m.inst.state().z.len();
    let probe = m.inst.tangent_probe(h).expect("tangent");
    let (solver, full, central) = (probe.solver, probe.forward, probe.central);
    let n = (solver.len() as f64).sqrt() as usize;
    assert_eq!(n * n, solver.len());
    let d = Differences {
        first_order: worst(&solver, &full, n, nz..n),
        joint_forward: worst(&solver, &full, n, 0..nz),
        joint_central: worst(&solver, &central, n, 0..nz),
    };
    println!(
        "{name}: {n} unknowns, worst column-relative difference: first-order columns {:.2e}, \
         joint-coordinate columns {:.2e} (forward), {:.2e} (central)",
        d.first_order, d.joint_forward, d.joint_central
    );
    d
}

fn run_to(m: &mut Machine, inputs: &[(&str, f64)], t_end: f64, h: f64) {
    for &(name, v) in inputs {
        m.set(name, v);
    }
    m.inst.initialize(0.0).unwrap();
    let steps = (t_end / h).round() as usize;
    for k in 1..=steps {
        m.inst.advance(k as f64 * h).unwrap();
    }
}

/// Both tangents of a machine, about the same state: the first-order columns exact in
/// both modes, the joint-coordinate columns within [`ASSEMBLED_BOUND`] (assembled) or
/// exact (finite differences). Returns the assembled joint-column difference.
fn check_both(name: &str, model: CompiledModel, settle: impl Fn(&mut Machine) -> f64) -> f64 {
    let mut assembled = 0.0;
    for method in [TangentMethod::Assembled, TangentMethod::FiniteDifference] {
        let mut model = model.clone();
        model.solver.tangent = method;
        let mut m = Machine::from_model(model);
        let h = settle(&mut m);
        let d = compare(&format!("{name} ({method:?})"), &mut m, h);
        assert!(
            d.first_order < 1e-6,
            "{name}: first-order columns {:e}",
            d.first_order
        );
        match method {
            TangentMethod::Assembled => {
                assert!(
                    d.joint_central < ASSEMBLED_BOUND,
                    "{name}: assembled columns {:e}",
                    d.joint_central
                );
                assembled = d.joint_central;
            }
            TangentMethod::FiniteDifference => assert!(
                d.joint_forward < 1e-6,
                "{name}: finite-difference columns {:e}",
                d.joint_forward
            ),
        }
    }
    assembled
}

#[test]
fn tangents_match_full_differences_on_the_shipped_cranes() {
    check_both("patu-crane", common::compile("patu-crane.toml"), |m| {
        run_to(
            m,
            &[("lift_valve.command", 8.0), ("tilt_valve.command", -6.0)],
            0.3,
            1e-3,
        );
        assert!(m.get("lift.rate").abs() > 1e-3, "the crane moves");
        1e-3
    });
    check_both(
        "hydraulic-crane",
        common::compile("hydraulic-crane.toml"),
        |m| {
            run_to(m, &[("valve.command", 1.0)], 0.3, 1e-3);
            1e-3
        },
    );
}

#[test]
fn tangents_match_full_differences_with_friction_states() {
    // Pub II four-bar with each friction model (LuGre and modified LuGre carry states).
    for k in 0..4 {
        check_both(
            &format!("jaiswal-fourbar-friction model {k}"),
            common::compile("jaiswal-fourbar-friction.toml"),
            |m| {
                m.set("cylinder.friction_model", k as f64);
                run_to(m, &[("valve.command", 10.0)], 1.2, 1e-3);
                1e-3
            },
        );
    }
}

#[test]
fn tangents_match_full_differences_with_a_rotary_motor() {
    let text = r#"
[model]
name = "motor-tangent"
gravity = [0, -9.81, 0]
[experiment]
stop_time = 1.0
step_size = 0.001
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "arm"
parent = "ground"
joint = { type = "revolute", name = "shaft", origin = [0, 0, 0], axis = [0, 0, 1], initial = "10 deg" }
mass = 50.0
com = [0.5, 0, 0]
inertia = [1.0, 5.0, 5.0, 0, 0, 0]
[hydraulics.oil]
density = 850
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "supply"
pressure = "100 bar"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "port_a"
volume = "1e-3 m3"
initial_guess = "10 bar"
[[hydraulics.volumes]]
name = "port_b"
volume = "1e-3 m3"
initial_guess = "10 bar"
[[hydraulics.valves]]
name = "valve"
P = "supply"
T = "tank"
A = "port_a"
B = "port_b"
spool = { range = [-1, 1], time_constant = "20 ms", dead_band = 0.0, command = 0.0 }
edges.PA = { coefficient = [[-1, 0], [0, 0], [1, 2e-7]] }
edges.BT = { coefficient = [[-1, 0], [0, 0], [1, 2e-7]] }
edges.PB = { coefficient = [[-1, 2e-7], [0, 0], [1, 0]] }
edges.AT = { coefficient = [[-1, 2e-7], [0, 0], [1, 0]] }
[[hydraulics.motors]]
name = "motor"
joint = "shaft"
A = "port_a"
B = "port_b"
displacement = "20 cm3/rev"
gear_ratio = 50
leakage = 1e-12
friction = 0.1
[[interface.inputs]]
name = "valve.command"
target = "valve.command"
min = -1
max = 1
"#;
    let model = common::compile_text("motor-tangent.toml", text.into());
    let d = check_both("rotary motor", model, |m| {
        run_to(m, &[("valve.command", 0.7)], 0.2, 1e-3);
        1e-3
    });
    // A motor on its own joint: the assembly is exact up to the arm's gravity stiffness.
    assert!(d < 1e-6, "{d:e}");
}

/// Every shipped machine under the bench's generic manoeuvre at its own internal step
/// (the rod at 10 ms, where the left-out terms are largest), and the scaling families.
#[test]
fn tangents_match_full_differences_on_every_machine_in_motion() {
    for file in common::SHIPPED_MODELS {
        if file == "grapple-log.toml" {
            // Its log creeps below friction's knee, where differences are no reference:
            // checked with a wider knee in the next test.
            continue;
        }
        let model = common::compile(file);
        let h = model.params[model.solver.step.index()].default;
        check_both(file, model, |m| {
            m.drive(0.3, h);
            h
        });
    }
    use model_compiler::bench::family::{self, Family};
    for f in Family::ALL {
        let model = common::compile_text(&f.model_name(4), family::description(f, 4));
        check_both(&f.model_name(4), model, |m| {
            m.drive(0.05, 1e-3);
            1e-3
        });
    }
}

/// A slide resting on its lower end stop (issue 14): the stop's stiffness and faded-in
/// damping on the coordinate's diagonal of the assembled tangent match central differences.
#[test]
fn tangents_match_full_differences_on_an_end_stop() {
    let model = common::compile_text("end-stop.toml", common::end_stop_slide("1 mm", -9.81));
    let d = check_both("end-stop slide", model, |m| {
        run_to(m, &[], 0.5, 1e-3);
        1e-3
    });
    assert!(d < 1e-6, "{d}");
}

/// Contacts carrying force (issue 49), on the ball of `models/ball-drop.toml`. Without
/// friction (resting, and sliding down a 30° slope) the normal law's slopes along the
/// penetration's Jacobian match central differences like every other element. With
/// friction (resting, rolling down the slope, sliding on μ = 0.05) the assembled columns
/// match forward differences — the residual's slope along each increment — within the
/// bound of the terms the assembly leaves out (rolling: 6.7e-3, friction's geometric
/// stiffness as the contact point moves over the sphere; at rest 1.6e-9). Central
/// differences are no reference there: their increment, 1e-6 in the coordinates, moves
/// the rates by 2/h·1e-6 = 2 cm/s at 0.1 ms, past friction's knee (they disagree by 1.6e-2
/// at rest). The stiction speed is raised to 10 mm/s for the same reason: the forward
/// increments move the rates by 3e-4 m/s, which at the default 0.1 mm/s would sample the
/// knee instead of the slope.
#[test]
fn tangents_match_full_differences_on_contacts() {
    let text = std::fs::read_to_string(common::workspace().join("models/ball-drop.toml"))
        .unwrap()
        .replace(
            "restitution = 0.7 }",
            "restitution = 0.7, stiction_velocity = \"10 mm/s\", friction = MU }",
        );
    let slope = "normal = [-0.5, 0, 0.8660254037844386]";
    let tilted = text.replace("normal = [0, 0, 1]", slope);
    let cases = [
        (
            "resting, no friction",
            text.replace("MU", "0.0"),
            3.0,
            false,
        ),
        (
            "sliding, no friction",
            tilted.replace("MU", "0.0"),
            4.0,
            false,
        ),
        ("resting", text.replace("MU", "0.6"), 3.0, true),
        ("rolling", tilted.replace("MU", "0.6"), 4.0, true),
        ("sliding", tilted.replace("MU", "0.05"), 4.0, true),
    ];
    for (name, text, t_end, friction) in cases {
        let model = common::compile_text("ball-drop.toml", text);
        let settle = |m: &mut Machine| {
            run_to(m, &[], t_end, 1e-3);
            assert!(m.get("normal_force") > 0.0, "{name}: not touching");
            1e-4
        };
        if friction {
            let mut m = Machine::from_model(model);
            let h = settle(&mut m);
            let d = compare(&format!("ball {name}"), &mut m, h);
            assert!(
                d.joint_forward < ASSEMBLED_BOUND,
                "ball {name}: {:e}",
                d.joint_forward
            );
        } else {
            // (Sliding, the finite-difference tangent itself is 6e-4 from central ones.)
            let d = check_both(&format!("ball {name}"), model, settle);
            assert!(d < 1e-3, "ball {name}: {d:e}");
        }
    }
}

/// Two bodies in contact: a cube resting on a twisted cube on the edge crossings, the
/// lower one on the ground (4e-5), and `models/grapple-log.toml`'s jaws holding the log
/// (1.1e-3). The assembled tangent couples both bodies' coordinates (the sparsity pattern
/// holds the pair) and matches forward differences; the normal is held fixed, which at
/// rest costs nothing. Stiction raised to 10 mm/s as for the ball.
#[test]
fn tangents_match_full_differences_on_contacts_between_bodies() {
    for mu in ["0.0", "0.6"] {
        let extra = format!("friction = {mu}\nstiction_velocity = \"10 mm/s\"");
        let model = common::compile_text("stack.toml", common::cube_stack(17.0, &extra));
        let mut m = Machine::from_model(model);
        run_to(&mut m, &[], 0.5, 1e-3);
        let d = compare(&format!("cube stack, mu {mu}"), &mut m, 1e-3);
        assert!(
            d.joint_forward < ASSEMBLED_BOUND,
            "cube stack, mu {mu}: {:e}",
            d.joint_forward
        );
    }
    // The same stack with the cubes as meshes (hull against hull).
    let file = common::workspace().join("tests/descriptions/meshes/cube.stl");
    let mesh = format!(r#"{{ shape = "mesh", file = "{}" }}"#, file.display());
    let text = common::cube_stack_of(17.0, "friction = 0.6", [&mesh, &mesh]);
    let path = common::temp_dir("tangent-meshes").join("stack.toml");
    let mut m = Machine::from_model(common::compile_file(&path, text));
    run_to(&mut m, &[], 0.5, 1e-3);
    let d = compare("mesh cube stack", &mut m, 1e-3);
    assert!(
        d.joint_forward < ASSEMBLED_BOUND,
        "mesh cube stack: {:e}",
        d.joint_forward
    );
    // The grapple holding its log (tines' capsules crossing the log's), closing.
    let text = std::fs::read_to_string(common::workspace().join("models/grapple-log.toml"))
        .unwrap()
        .replace(
            "friction = 0.4 ",
            "stiction_velocity = \"10 mm/s\"\nfriction = 0.4 ",
        );
    let mut m = Machine::from_model(common::compile_text("grapple-log.toml", text));
    run_to(&mut m, &[], 0.3, 1e-3);
    let d = compare("grapple holding its log", &mut m, 1e-3);
    assert!(
        d.joint_forward < ASSEMBLED_BOUND,
        "grapple: {:e}",
        d.joint_forward
    );
}

/// LuGre bristles at the contacts (issue 49): their first-order columns (partial
/// evaluations moving the mechanical rows by the change of the bristle forces at the kept
/// kinematics) equal full forward differences, and the assembled joint-coordinate columns
/// — the bristle rows' `−P (2/h J + J̇)`, the damper `F_n σ1` along the slip — match them
/// within the bound of the terms left out (the motion of the relaxation rate and of the
/// normal). Holding (the cube stack, a ball at rest) and sliding (a ball on 30°, μ 0.05).
/// Rolling is left out: the slip there is the creep of the smoothed |v_t| (µm/s), and the
/// forward increments move the rates by 3e-4 m/s, far past that smoothing — no reference
/// (the rolling ball's acceleration is checked in `tests/contact.rs`).
#[test]
fn tangents_match_full_differences_with_lugre_bristles() {
    let extra = "friction = 0.6\nfriction_model = \"lugre\"";
    let model = common::compile_text("stack.toml", common::cube_stack(17.0, extra));
    let mut m = Machine::from_model(model);
    run_to(&mut m, &[], 0.5, 1e-3);
    let mut cases = vec![("cube stack", compare("lugre cube stack", &mut m, 1e-3))];
    let text = std::fs::read_to_string(common::workspace().join("models/ball-drop.toml"))
        .unwrap()
        .replace(
            "restitution = 0.7 }",
            "restitution = 0.7, friction_model = \"lugre\", friction = MU }",
        );
    let tilted = text.replace(
        "normal = [0, 0, 1]",
        "normal = [-0.5, 0, 0.8660254037844386]",
    );
    for (name, text) in [
        ("ball resting", text.replace("MU", "0.6")),
        ("ball sliding", tilted.replace("MU", "0.05")),
    ] {
        let mut m = Machine::from_model(common::compile_text("ball-drop.toml", text));
        run_to(&mut m, &[], 4.0, 1e-3);
        assert!(m.get("normal_force") > 0.0, "{name}: not touching");
        cases.push((name, compare(&format!("lugre {name}"), &mut m, 1e-4)));
    }
    for (name, d) in cases {
        assert!(
            d.first_order < 1e-6,
            "{name}: first-order {:e}",
            d.first_order
        );
        assert!(
            d.joint_forward < ASSEMBLED_BOUND,
            "{name}: {:e}",
            d.joint_forward
        );
    }
}
