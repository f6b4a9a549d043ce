//! The Newton tangent's first-order columns (pressures, spools, friction states) are formed
//! by partial evaluations — no kinematics, inverse dynamics or constraints, the mechanical
//! rows moved linearly by the change of the cylinder forces and motor torques (issue 7:
//! cheaper Jacobians). They must equal full forward differences of the whole residual, on
//! machines with cylinders, loops, friction states (LuGre), a spherical joint and a rotary
//! motor, in motion.

mod common;

use common::Machine;

/// Largest column-relative difference between the two tangents.
fn compare(name: &str, m: &mut Machine, h: f64) -> f64 {
    let (solver, full) = m.inst.tangent_pair(h).expect("tangent");
    let n = (solver.len() as f64).sqrt() as usize;
    assert_eq!(n * n, solver.len());
    let mut worst = 0.0f64;
    for k in 0..n {
        let scale = (0..n).map(|i| full[i * n + k].abs()).fold(0.0, f64::max);
        assert!(
            scale > 0.0,
            "{name}: column {k} of the full tangent is zero"
        );
        for i in 0..n {
            let d = (solver[i * n + k] - full[i * n + k]).abs() / scale;
            worst = worst.max(d);
        }
    }
    println!("{name}: {n} unknowns, worst column-relative difference {worst:.2e}");
    worst
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

#[test]
fn first_order_columns_equal_full_differences_on_the_shipped_cranes() {
    let mut m = Machine::load("patu-crane.toml");
    run_to(
        &mut m,
        &[("lift_valve.command", 8.0), ("tilt_valve.command", -6.0)],
        0.3,
        1e-3,
    );
    assert!(m.get("lift.rate").abs() > 1e-3, "the crane moves");
    assert!(compare("patu-crane", &mut m, 1e-3) < 1e-6);

    let mut m = Machine::load("hydraulic-crane.toml");
    run_to(&mut m, &[("valve.command", 1.0)], 0.3, 1e-3);
    assert!(compare("hydraulic-crane", &mut m, 1e-3) < 1e-6);
}

#[test]
fn first_order_columns_equal_full_differences_with_friction_states() {
    // Pub II four-bar with each friction model (LuGre and modified LuGre carry states).
    for k in 0..4 {
        let mut m = Machine::load("jaiswal-fourbar-friction.toml");
        m.set("cylinder.friction_model", k as f64);
        run_to(&mut m, &[("valve.command", 10.0)], 1.2, 1e-3);
        let d = compare(&format!("jaiswal-fourbar-friction model {k}"), &mut m, 1e-3);
        assert!(d < 1e-6, "friction model {k}: {d}");
    }
}

#[test]
fn first_order_columns_equal_full_differences_with_a_rotary_motor() {
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
    let mut m = Machine::from_model(common::compile_text("motor-tangent.toml", text.into()));
    run_to(&mut m, &[("valve.command", 0.7)], 0.2, 1e-3);
    assert!(compare("rotary motor", &mut m, 1e-3) < 1e-6);
}
