//! `[[force_actuators]]`: a linear actuator whose force is an input (issue 18, the
//! mechanical side of a cylinder split from its hydraulics). Checked against closed forms:
//! a vertical jack lifting a slider (constant acceleration, exact under the trapezoidal
//! rule), a rod held level by an inclined actuator (moment balance about the pin).

mod common;

use common::Machine;

/// A slider of 40 kg on a vertical prismatic joint (gravity −y) and a 2 m, 12 kg rod
/// pinned at x = 3, each with a force actuator: the jack vertical from 2 m below the
/// slider, the strut from (3.5, −1) on the ground to the rod's point 1 m out.
fn machine(strut_force: f64) -> String {
    format!(
        r#"[model]
name = "force-actuators"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "slider"
parent = "ground"
joint = {{ type = "prismatic", name = "lift", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = 40
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[bodies]]
name = "rod"
parent = "ground"
joint = {{ type = "revolute", name = "pin", origin = [3, 0, 0], axis = [0, 0, 1], initial = 0 }}
mass = 12
com = [1, 0, 0]
inertia = [0.1, 4, 4, 0, 0, 0]
[[force_actuators]]
name = "jack"
a = {{ body = "ground", point = [0, -2, 0] }}
b = {{ body = "slider", point = [0, 0, 0] }}
[[force_actuators]]
name = "strut"
a = {{ body = "ground", point = [3.5, -1, 0] }}
b = {{ body = "rod", point = [1, 0, 0] }}
force = "{strut_force} N"
[[interface.inputs]]
name = "jack.force"
target = "jack.force"
unit = "N"
[[interface.outputs]]
name = "jack.length"
quantity = "jack.length"
[[interface.outputs]]
name = "jack.speed"
quantity = "jack.speed"
[[interface.outputs]]
name = "lift.q"
quantity = "lift.q"
[[interface.outputs]]
name = "pin.q"
quantity = "pin.q"
[[interface.outputs]]
name = "strut.length"
quantity = "strut.length"
[[interface.outputs]]
name = "energy.actuator_work"
quantity = "energy.actuator_work"
[[interface.outputs]]
name = "energy.balance_error"
quantity = "energy.balance_error"
"#
    )
}

/// The strut's force that holds the rod level: its moment about the pin, `F e_y · 1 m`
/// with `e = (0.5, 1)/√1.25`, against the weight's `m g · 1 m`.
fn holding_force() -> f64 {
    12.0 * 9.81 * 1.25f64.sqrt()
}

#[test]
fn a_jack_lifts_a_slider_and_a_strut_holds_a_rod_level() {
    let mut m = Machine::from_model(common::compile_text(
        "force-actuators.toml",
        machine(holding_force()),
    ));
    let (force, mass, g) = (40.0 * 9.81 + 20.0, 40.0, 9.81);
    m.set("jack.force", force);
    m.inst.initialize(0.0).unwrap();
    assert!((m.get("jack.length") - 2.0).abs() < 1e-12);
    assert!((m.get("strut.length") - 1.25f64.sqrt()).abs() < 1e-12);
    for k in 1..=1000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let a = (force - mass * g) / mass;
    let (v, y) = (a, 0.5 * a);
    println!(
        "1 s: slider y {:.12} ({y}), v {:.12} ({v}); jack length {:.12}, speed {:.12}; rod angle {:.3e} rad; actuator work {:.9} J (F·y = {:.9}); balance {:.3e} J",
        m.get("lift.q"),
        m.get("jack.speed"),
        m.get("jack.length"),
        m.get("jack.speed"),
        m.get("pin.q"),
        m.get("energy.actuator_work"),
        force * y,
        m.get("energy.balance_error"),
    );
    // Constant acceleration: the trapezoidal rule is exact; the jack's length is the
    // slider's height above its ground point.
    assert!((m.get("lift.q") - y).abs() < 1e-9, "{}", m.get("lift.q"));
    assert!((m.get("jack.length") - (2.0 + y)).abs() < 1e-9);
    assert!((m.get("jack.speed") - v).abs() < 1e-9);
    // The strut's moment balances the weight's: the rod does not move.
    assert!(m.get("pin.q").abs() < 1e-12, "{}", m.get("pin.q"));
    // The jack's work is counted (the strut's is zero: its points do not move).
    assert!((m.get("energy.actuator_work") - force * y).abs() < 1e-9);
    assert!(m.get("energy.balance_error").abs() < 1e-9);
}

#[test]
fn a_strut_pushing_harder_than_the_weight_lifts_the_rod_and_its_work_is_counted() {
    // 10 % above the holding force: the rod swings up; its energy comes from the strut.
    let mut m = Machine::from_model(common::compile_text(
        "force-actuators.toml",
        machine(1.1 * holding_force()),
    ));
    m.set("jack.force", 40.0 * 9.81);
    m.inst.initialize(0.0).unwrap();
    for k in 1..=500 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let (angle, work) = (m.get("pin.q"), m.get("energy.actuator_work"));
    println!(
        "0.5 s: rod {angle:.6} rad, actuator work {work:.6} J, balance {:.3e} J",
        m.get("energy.balance_error")
    );
    assert!(angle > 0.01, "the rod rises: {angle}");
    assert!(work > 0.0);
    assert!(
        m.get("energy.balance_error").abs() < 1e-6 * work,
        "{}",
        m.get("energy.balance_error")
    );
}

#[test]
fn a_force_actuator_output_that_does_not_exist_is_refused_with_the_ones_that_do() {
    let text = machine(0.0).replace(
        "quantity = \"strut.length\"",
        "quantity = \"strut.force_out\"",
    );
    let source = model_compiler::diagnostic::Source::new("bad.toml", text);
    let errors = model_compiler::compile(&source).expect_err("unknown output");
    let shown: Vec<String> = errors.iter().map(|e| source.render(e)).collect();
    let all = shown.join("\n");
    println!("{all}");
    assert!(all.contains("bad.toml:"), "located: {all}");
    assert!(all.contains("length") && all.contains("speed"), "{all}");
}
