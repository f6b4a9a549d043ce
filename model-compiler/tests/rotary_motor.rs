//! Hydraulic rotary motor (issue 6's swing drive) against closed forms, through the
//! description language: constant-pressure start-up and the pump-fed steady speed.

mod common;

use fmu_runtime::Instance;
use fmu_runtime::model::Binding;
use std::f64::consts::TAU;
use std::sync::Arc;

/// A rotor of inertia J about z driven by a motor (displacement D per rev, gear ratio i,
/// leakage G, shaft friction c) between `supply` and the tank.
fn machine(supply: &str, extra: &str) -> Instance {
    let text = format!(
        r#"
[model]
name = "motor-test"
gravity = [0, 0, 0]
[experiment]
stop_time = 20.0
step_size = 0.01
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "rotor"
parent = "ground"
joint = {{ type = "revolute", name = "shaft", origin = [0, 0, 0], axis = [0, 0, 1], initial = 0 }}
mass = 10.0
com = [0, 0, 0]
inertia = [1.0, 1.0, 2.0, 0, 0, 0]
[hydraulics.oil]
density = 850
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "0.1 MPa"
{supply}
[[hydraulics.motors]]
name = "motor"
joint = "shaft"
A = "line"
B = "tank"
displacement = "100 cm3/rev"
gear_ratio = 3
{extra}
[[interface.outputs]]
name = "motor.speed"
quantity = "motor.speed"
[[interface.outputs]]
name = "motor.torque"
quantity = "motor.torque"
[[interface.outputs]]
name = "motor.flow"
quantity = "motor.flow"
[[interface.outputs]]
name = "rotor.rate"
quantity = "shaft.qd"
"#
    );
    let model = common::compile_text("motor-test.toml", text);
    Instance::new(Arc::new(model))
}

fn get(inst: &Instance, name: &str) -> f64 {
    let v = inst
        .model()
        .variables
        .iter()
        .find(|v| v.name == name)
        .unwrap()
        .clone();
    assert!(matches!(v.binding, Binding::Probe(_)));
    inst.value(&v)
}

#[test]
fn constant_pressure_accelerates_the_rotor_uniformly() {
    // Δp = 10.1 − 0.1 = 10 MPa, D = 1e-4 m³/rev, i = 3, J = 2 kg·m², no friction:
    // q̈ = i·Δp·D/(2π·J) = 3·1e7·1e-4/(2π·2) = 238.73 rad/s².
    let mut inst = machine(
        "[[hydraulics.pressure_sources]]\nname = \"line\"\npressure = \"10.1 MPa\"",
        "",
    );
    inst.initialize(0.0).unwrap();
    for k in 1..=500 {
        inst.advance(k as f64 * 1e-3).unwrap();
    }
    let expected = 3.0 * 1e7 * 1e-4 / (TAU * 2.0) * 0.5;
    let rate = get(&inst, "rotor.rate");
    assert!(
        (rate / expected - 1.0).abs() < 1e-9,
        "rate {rate} vs {expected}"
    );
    assert!((get(&inst, "motor.speed") - 3.0 * rate).abs() < 1e-9 * rate);
    assert!((get(&inst, "motor.torque") - 3.0 * 1e7 * 1e-4 / TAU).abs() < 1e-6);
    assert!((get(&inst, "motor.flow") - 1e-4 * 3.0 * rate / TAU).abs() < 1e-15);
    // All actuator work went into kinetic energy.
    let balance = get(&inst, "energy.balance_error");
    assert!(
        balance.abs() < 1e-6 * get(&inst, "energy.kinetic"),
        "balance {balance}"
    );
}

#[test]
fn pump_fed_motor_reaches_its_steady_speed() {
    // Steady state: Q = D ω/2π + G Δp and Δp·D/2π = c ω (no load) give
    // ω = Q / (D/2π + 2π G c / D).
    let (q, d, g, c) = (1e-4, 1e-4, 1e-12, 0.5);
    let mut inst = machine(
        "[[hydraulics.volumes]]\nname = \"line\"\nvolume = \"1e-3 m3\"\n\
         [[hydraulics.pumps]]\nname = \"pump\"\ninlet = \"tank\"\noutlet = \"line\"\n\
         displacement = \"10 cm3/rev\"\nspeed = \"600 rpm\"",
        &format!("leakage = {g}\nfriction = {c}"),
    );
    inst.initialize(0.0).unwrap();
    for k in 1..=200 {
        inst.advance(k as f64 * 0.1).unwrap();
    }
    let omega = q / (d / TAU + TAU * g * c / d);
    let speed = get(&inst, "motor.speed");
    println!("steady motor speed {speed} rad/s, closed form {omega} rad/s");
    assert!(
        (speed / omega - 1.0).abs() < 1e-6,
        "speed {speed} vs {omega}"
    );
}
