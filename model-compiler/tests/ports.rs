//! Joint, hydraulic and shaft ports (issue 15, items 2, 3, 6): each exchanges one side of an
//! effort/flow pair with another model and reports the power it delivers into the machine
//! and its work. Checked against closed forms: a torque spinning up a wheel, a flow port
//! feeding a volume drained by a laminar leakage, a pressure port driving that leakage, a
//! TLM line end, a pump shaft.

mod common;

use common::Machine;

/// A wheel of inertia `J` on a revolute joint, and a slider of `M` on a vertical prismatic
/// joint (gravity −y), each with a joint-force port.
fn joints() -> String {
    r#"[model]
name = "joint-ports"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "wheel"
parent = "ground"
joint = { type = "revolute", name = "axle", origin = [0, 0, 0], axis = [0, 0, 1], initial = 0 }
mass = 10
com = [0, 0, 0]
inertia = [1.5, 1.5, 2.5, 0, 0, 0]
[[bodies]]
name = "slider"
parent = "ground"
joint = { type = "prismatic", name = "lift", origin = [2, 0, 0], axis = [0, 1, 0], initial = 0 }
mass = 40
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[interface.ports]]
name = "drive"
type = "joint-force"
on = "axle"
[[interface.ports]]
name = "jack"
type = "joint-force"
on = "lift"
[[interface.outputs]]
name = "axle.q"
quantity = "axle.q"
[[interface.outputs]]
name = "lift.q"
quantity = "lift.q"
"#
    .to_string()
}

#[test]
fn a_torque_port_spins_a_wheel_and_a_force_port_lifts_a_slider() {
    let mut m = Machine::from_model(common::compile_text("joints.toml", joints()));
    let (tau, j) = (5.0, 2.5);
    let (force, mass, g) = (40.0 * 9.81 + 20.0, 40.0, 9.81);
    m.set("drive.torque", tau);
    m.set("jack.force", force);
    m.inst.initialize(0.0).unwrap();
    for k in 1..=1000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let t: f64 = 1.0;
    let (w, q) = (tau / j * t, 0.5 * tau / j * t * t);
    let a = (force - mass * g) / mass;
    let (v, y) = (a * t, 0.5 * a * t * t);
    let got = [
        m.get("drive.speed"),
        m.get("axle.q"),
        m.get("jack.speed"),
        m.get("lift.q"),
    ];
    println!(
        "1 s: wheel ω {:.9} (τt/J = {w}), angle {:.9} ({q}); slider v {:.9} ({v}), y {:.9} ({y}); drive power {:.6} W, work {:.6} J (½Jω² = {:.6}); jack work {:.6} J (F·y = {:.6}); balance {:.3e} J",
        got[0],
        got[1],
        got[2],
        got[3],
        m.get("drive.power"),
        m.get("drive.work"),
        0.5 * j * w * w,
        m.get("jack.work"),
        force * y,
        m.get("energy.balance_error"),
    );
    // Constant acceleration: the trapezoidal rule is exact.
    for (g, e) in got.iter().zip([w, q, v, y]) {
        assert!((g - e).abs() < 1e-9 * e.abs().max(1.0), "{g} vs {e}");
    }
    assert!((m.get("drive.power") - tau * w).abs() < 1e-9);
    assert!((m.get("drive.work") - 0.5 * j * w * w).abs() < 1e-9);
    assert!((m.get("jack.work") - force * y).abs() < 1e-9);
    assert!(m.get("energy.balance_error").abs() < 1e-9);
}

#[test]
fn a_torque_and_a_force_stepped_every_communication_step_are_integrated_exactly() {
    // Issue 16, item 1: an input that changes at a communication point acts from that
    // point. Piecewise-constant torque and force give piecewise-constant accelerations,
    // which the trapezoidal rule integrates exactly when each step starts from the
    // accelerations of the new input (half a step late otherwise: first order).
    let mut m = Machine::from_model(common::compile_text("joints.toml", joints()));
    let (j, mass, g) = (2.5, 40.0, 9.81);
    m.inst.initialize(0.0).unwrap();
    let (mut w, mut q, mut v, mut y, mut jack_work) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0);
    let (mut worst, mut balance) = (0.0f64, 0.0f64);
    let h = 1e-3;
    // Communication steps of 1 ms (the internal step) and of 5 ms (five internal steps
    // under one held input).
    for (k, comm) in (0..400).map(|k| (k, if k < 200 { 1 } else { 5 })) {
        let t0 = if k < 200 {
            k as f64
        } else {
            200.0 + 5.0 * (k - 200) as f64
        } * h;
        let tau = 5.0 * (0.37 * k as f64).sin();
        let force = mass * g + 30.0 * (0.23 * k as f64).cos();
        m.set("drive.torque", tau);
        m.set("jack.force", force);
        m.inst.advance(t0 + comm as f64 * h).unwrap();
        for _ in 0..comm {
            let (alpha, a) = (tau / j, (force - mass * g) / mass);
            q += w * h + 0.5 * alpha * h * h;
            w += alpha * h;
            let dy = v * h + 0.5 * a * h * h;
            y += dy;
            v += a * h;
            jack_work += force * dy;
        }
        for (got, exact) in [
            (m.get("drive.speed"), w),
            (m.get("axle.q"), q),
            (m.get("jack.speed"), v),
            (m.get("lift.q"), y),
            (m.get("jack.work"), jack_work),
        ] {
            worst = worst.max((got - exact).abs());
        }
        balance = balance.max(m.get("energy.balance_error").abs());
    }
    println!(
        "torque and force stepped every communication step (1 ms, then 5 ms), 1.2 s: max |Δ| against the exact piecewise parabolas {worst:.2e} (rates, angles, positions, jack work); max |energy balance| {balance:.2e} J"
    );
    assert!(worst < 1e-10, "{worst}");
    assert!(balance < 1e-9, "{balance}");
}

/// A 1 L volume drained to a 1 bar tank by a laminar leakage G, fed through `port`.
fn drained(ports: &str) -> String {
    format!(
        r#"[model]
name = "hydraulic-ports"
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.pressure_sources]]
name = "supply"
pressure = "100 bar"
[[hydraulics.volumes]]
name = "line"
volume = "1 L"
initial_guess = "20 bar"
[[hydraulics.leakages]]
name = "drain"
from = "line"
to = "tank"
conductance = 1e-10
[[hydraulics.leakages]]
name = "feed"
from = "supply"
to = "tank"
conductance = 2e-10
[[hydraulics.pumps]]
name = "pump"
inlet = "tank"
outlet = "line"
displacement = "1 cm3/rev"
speed = 0
[[interface.outputs]]
name = "line.p"
quantity = "line.p"
{ports}"#
    )
}

fn settle(m: &mut Machine, seconds: f64) {
    let t0 = m.inst.time();
    let n = (seconds / 1e-3).round() as usize;
    for k in 1..=n {
        m.inst.advance(t0 + k as f64 * 1e-3).unwrap();
    }
}

#[test]
fn a_flow_port_fills_a_volume_to_the_pressure_its_drain_allows() {
    let text = drained(
        r#"[[interface.ports]]
name = "inlet"
type = "flow"
on = "line"
flow = "6 L/min"
"#,
    );
    let mut m = Machine::from_model(common::compile_text("flow.toml", text));
    m.inst.initialize(0.0).unwrap();
    settle(&mut m, 5.0);
    let q = 1e-4;
    let expected = 1e5 + q / 1e-10;
    let (p, out) = (m.get("line.p"), m.get("inlet.pressure"));
    println!(
        "flow port 6 L/min: line {p:.3} Pa (1 bar + q/G = {expected}), port pressure {out:.3} Pa, power {:.4} W",
        m.get("inlet.power")
    );
    assert!((p - expected).abs() < 1e-6 * expected, "{p} vs {expected}");
    assert_eq!(out, p);
    assert!((m.get("inlet.power") - p * q).abs() < 1e-9 * p * q);
}

#[test]
fn a_pressure_port_gives_the_flow_its_load_draws() {
    let text = drained(
        r#"[[interface.ports]]
name = "source"
type = "pressure"
on = "supply"
"#,
    );
    let mut m = Machine::from_model(common::compile_text("pressure.toml", text));
    m.inst.initialize(0.0).unwrap();
    settle(&mut m, 0.01);
    // The supply feeds the tank through `feed` (G = 2e-10): q = G (p − 1 bar) at once.
    let q = m.get("source.flow");
    assert!((q - 2e-10 * 99e5).abs() < 1e-15, "{q}");
    m.set("source.pressure", 200e5);
    settle(&mut m, 0.001);
    let q = m.get("source.flow");
    println!(
        "pressure port at 200 bar: flow {q:.6e} m³/s (G Δp = {:.6e}), power {:.3} W",
        2e-10 * 199e5,
        m.get("source.power")
    );
    assert!((q - 2e-10 * 199e5).abs() < 1e-15, "{q}");
    assert!((m.get("source.power") - 200e5 * q).abs() < 1e-9);
}

#[test]
fn a_tlm_end_settles_where_the_line_and_the_drain_agree() {
    let text = drained(
        r#"[[interface.ports]]
name = "hose"
type = "tlm"
on = "line"
wave = "150 bar"
impedance = "1e10 Pa s/m3"
"#,
    );
    let mut m = Machine::from_model(common::compile_text("tlm.toml", text));
    m.inst.initialize(0.0).unwrap();
    settle(&mut m, 2.0);
    // (c − p)/Zc = G (p − p_t)  ⇒  p = (c/Zc + G p_t)/(1/Zc + G).
    let (c, zc, g, pt) = (150e5, 1e10, 1e-10, 1e5);
    let p = (c / zc + g * pt) / (1.0 / zc + g);
    let q = (c - p) / zc;
    println!(
        "TLM c = 150 bar, Zc = 1e10: pressure {:.3} Pa (closed form {p:.3}), flow {:.6e} m³/s ({q:.6e})",
        m.get("hose.pressure"),
        m.get("hose.flow")
    );
    assert!((m.get("hose.pressure") - p).abs() < 1e-6 * p);
    assert!((m.get("hose.flow") - q).abs() < 1e-6 * q);
    assert!((m.get("hose.power") - p * q).abs() < 1e-6 * p * q);
    m.set("hose.impedance", 0.0);
    let e = m.inst.advance(2.1).unwrap_err();
    assert!(
        e.message.contains("hose.impedance must be positive"),
        "{}",
        e.message
    );
}

#[test]
fn a_shaft_port_turns_the_pump_and_gives_its_torque() {
    let text = drained(
        r#"[[interface.ports]]
name = "engine"
type = "shaft"
on = "pump"
"#,
    );
    let mut m = Machine::from_model(common::compile_text("shaft.toml", text));
    let omega = 1500.0 * std::f64::consts::TAU / 60.0;
    m.set("engine.speed", omega);
    m.inst.initialize(0.0).unwrap();
    settle(&mut m, 5.0);
    // Q = D ω/2π = 25 cm³/s into the line, drained by G: p = 1 bar + Q/G.
    let q = 1e-6 * omega / std::f64::consts::TAU;
    let p = 1e5 + q / 1e-10;
    let torque = 1e-6 * (p - 1e5) / std::f64::consts::TAU;
    println!(
        "shaft at 1500 rpm: line {:.3} Pa ({p:.3}), torque {:.6} N·m (D Δp/2π = {torque:.6}), power {:.4} W",
        m.get("line.p"),
        m.get("engine.torque"),
        m.get("engine.power")
    );
    assert!((m.get("line.p") - p).abs() < 1e-6 * p);
    assert!((m.get("engine.torque") - torque).abs() < 1e-6 * torque);
    assert!((m.get("engine.power") - torque * omega).abs() < 1e-6 * torque * omega);
}

/// A motor's shaft as a port (the motor side of issue 15, item 3): a motor drives a small
/// rotor whose joint carries a `joint-force` port, so the load comes in as a torque and the
/// shaft's speed goes out. A fixed pump feeds it through a 1 L line.
#[test]
fn a_motor_shaft_port_takes_the_load_torque_and_gives_the_speed() {
    let text = r#"[model]
name = "motor-shaft"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "rotor"
parent = "ground"
joint = { type = "revolute", name = "shaft", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }
mass = 5
com = [0, 0, 0]
inertia = [0.05, 0.05, 0.05, 0, 0, 0]
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "line"
volume = "1 L"
initial_guess = "1 bar"
[[hydraulics.pumps]]
name = "pump"
inlet = "tank"
outlet = "line"
displacement = "10 cm3/rev"
speed = "1500 rpm"
[[hydraulics.motors]]
name = "motor"
joint = "shaft"
A = "line"
B = "tank"
displacement = "20 cm3/rev"
friction = "0.5 N m s/rad"
[[interface.ports]]
name = "load"
type = "joint-force"
on = "shaft"
[[interface.outputs]]
name = "line.p"
quantity = "line.p"
"#;
    let mut m = Machine::from_model(common::compile_text("motor-shaft.toml", text.into()));
    m.inst.initialize(0.0).unwrap();
    settle(&mut m, 3.0);
    let turn = m.get("load.speed").signum();
    let (load, c, d) = (20.0, 0.5, 20e-6);
    m.set("load.torque", -turn * load);
    settle(&mut m, 5.0);
    // All the pump's flow through the motor: ω = Q 2π/D; the line carries the load and
    // the friction: Δp = (T + c ω) 2π/D.
    let q = 10e-6 * 1500.0 / 60.0;
    let omega = q * std::f64::consts::TAU / d;
    let dp = (load + c * omega) * std::f64::consts::TAU / d;
    let (speed, p, power) = (m.get("load.speed"), m.get("line.p"), m.get("load.power"));
    println!(
        "motor shaft: {speed:.6} rad/s ({:.6}), line {:.1} Pa above tank ({dp:.1}), load power {power:.3} W",
        turn * omega,
        p - 1e5
    );
    assert!((speed - turn * omega).abs() < 1e-6 * omega);
    assert!((p - 1e5 - dp).abs() < 1e-6 * dp);
    assert!(
        (power + load * omega).abs() < 1e-6 * load * omega,
        "the load takes T ω"
    );
}
