//! A slew (motor) brake valve built from the elements of issue 14, as the docs describe:
//! two relief valves crosswise between the motor lines and make-up check valves from tank
//! (`make_up = "tank"`). When the closed-centre spool centres, the outlet line is shut in,
//! its pressure rises to the setting and relieves across into the inlet: the slewing mass
//! stops under the torque the setting gives, and no line cavitates.

mod common;

const SETTING: f64 = 150e5;
/// Relief gain [m³/(s·Pa)]: the full slewing flow (2.2e-4 m³/s) passes 2.2 bar over the setting.
const GAIN: f64 = 1e-9;
/// Displacement per radian of the motor, gear ratio, upper-structure inertia.
const D_RAD: f64 = 100e-6 / std::f64::consts::TAU;
const GEAR: f64 = 20.0;
const J: f64 = 2000.0;

fn slew() -> String {
    format!(
        r#"[model]
name = "slew-brake"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = true
[[bodies]]
name = "house"
parent = "ground"
joint = {{ type = "revolute", name = "slew", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = 2000
com = [0, 0, 0]
inertia = [{J}, {J}, {J}, 0, 0, 0]
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
name = "motor_a"
volume = "0.5 L"
[[hydraulics.volumes]]
name = "motor_b"
volume = "0.5 L"
[[hydraulics.valves]]
name = "valve"
P = "supply"
T = "tank"
A = "motor_a"
B = "motor_b"
spool = {{ range = [-1, 1], time_constant = "20 ms", command = 0 }}
edges.PA = {{ coefficient = [[-1, 0], [0.1, 0], [1, 1e-7]] }}
edges.PB = {{ coefficient = [[-1, 1e-7], [-0.1, 0], [1, 0]] }}
edges.AT = {{ coefficient = [[-1, 1e-6], [-0.1, 0], [1, 0]] }}
edges.BT = {{ coefficient = [[-1, 0], [0.1, 0], [1, 1e-6]] }}
# The brake valve: cross-port reliefs and make-up (on the motor).
[[hydraulics.relief_valves]]
name = "cross_ab"
from = "motor_a"
to = "motor_b"
cracking_pressure = "{setting} Pa"
gain = {gain}
[[hydraulics.relief_valves]]
name = "cross_ba"
from = "motor_b"
to = "motor_a"
cracking_pressure = "{setting} Pa"
gain = {gain}
[[hydraulics.motors]]
name = "motor"
joint = "slew"
A = "motor_a"
B = "motor_b"
displacement = "100 cm3/rev"
gear_ratio = {GEAR}
make_up = "tank"
[[interface.inputs]]
name = "valve.command"
target = "valve.command"
[[interface.outputs]]
name = "rate"
quantity = "slew.qd"
[[interface.outputs]]
name = "torque"
quantity = "motor.torque"
[[interface.outputs]]
name = "p_a"
quantity = "motor_a.p"
[[interface.outputs]]
name = "p_b"
quantity = "motor_b.p"
"#,
        setting = SETTING,
        gain = GAIN
    )
}

#[test]
fn centring_the_spool_stops_the_slew_at_the_torque_of_the_brake_setting() {
    let (mut inst, v) = common::started(
        "slew-brake.toml",
        slew(),
        &["rate", "torque", "p_a", "p_b", "valve.command"],
    );
    let n = inst.model().circuit.volumes();
    let mut lowest = f64::INFINITY;
    let step = |inst: &mut fmu_runtime::Instance, k: usize, lowest: &mut f64| {
        inst.advance(k as f64 * 1e-3).unwrap();
        *lowest = inst.state().w[..n].iter().fold(*lowest, |a, &p| a.min(p));
    };
    inst.set_param(common::slot_of(&v[4]), 0.6);
    for k in 1..=3000 {
        step(&mut inst, k, &mut lowest);
    }
    let rate0 = inst.value(&v[0]);
    assert!(rate0 > 0.1, "the house does not slew: {rate0} rad/s");
    // Centre: the outlet (B) is shut in and relieves across into A at the setting.
    inst.set_param(common::slot_of(&v[4]), 0.0);
    let (mut peak_b, mut stop, mut decel) = (0.0f64, None, Vec::new());
    let mut last = rate0;
    for k in 3001..=8000 {
        step(&mut inst, k, &mut lowest);
        let rate = inst.value(&v[0]);
        peak_b = peak_b.max(inst.value(&v[3]));
        if rate > 0.2 * rate0 && rate < 0.8 * rate0 {
            decel.push((last - rate) / 1e-3);
        }
        if stop.is_none() && rate <= 1e-3 {
            stop = Some(k);
        }
        last = rate;
    }
    let mean = decel.iter().sum::<f64>() / decel.len() as f64;
    // Brake torque: the relief's drop p_b − p_a = setting + Q/gain, Q ≤ the slewing flow,
    // times D·i, over J.
    let q0 = D_RAD * GEAR * rate0;
    let low = SETTING * D_RAD * GEAR / J;
    let high = (SETTING + q0 / GAIN) * D_RAD * GEAR / J;
    println!(
        "slewing at {rate0:.4} rad/s; centred: mean deceleration {mean:.4} rad/s² (setting gives {low:.4} … {high:.4}), peak p_b {:.1} bar, stopped after {} ms, lowest volume {:.3} bar",
        peak_b / 1e5,
        stop.map_or(0, |s| s - 3000),
        lowest / 1e5
    );
    assert!(
        mean > 0.99 * low && mean < 1.01 * high,
        "{mean} vs {low} … {high}"
    );
    assert!(peak_b < SETTING + q0 / GAIN + 20e5, "peak {peak_b}");
    assert!(stop.is_some(), "the house does not stop");
    assert!(
        lowest > 0.3e5,
        "a line fell to {lowest} Pa: the make-up did not feed it"
    );
}
