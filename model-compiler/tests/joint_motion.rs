//! Prescribed-motion joints (issue 15, item 2): a `joint-motion` port makes a revolute or
//! prismatic tree joint follow q, q̇, q̈ from outside and gives the torque/force the drive
//! applies. Checked against closed forms: a rod swung at a constant rate needs
//! `m g c cos θ`; a rod swung sinusoidally needs `J θ̈ + m g c cos θ`, exactly, at every
//! communication point; a free elbow carried by a driven shoulder conserves energy with the
//! drive's work; a slider lifted along a parabola needs `m(g + ÿ)`; a driven four-bar crank
//! keeps the loop closed and the balance with the drive's work.

mod common;

use common::Machine;

const G: f64 = 9.81;
/// The rod: 2 kg, 1 m, centre of mass at c = 0.5 m, J about the pivot = m L²/3.
const M: f64 = 2.0;
const C: f64 = 0.5;
const J: f64 = M * 1.0 / 3.0;

/// A rod on a driven shoulder (revolute about z, gravity −y) with a free elbow carrying
/// a second rod, and a slider on a driven vertical prismatic joint.
fn machine() -> String {
    r#"[model]
name = "driven"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "arm"
parent = "ground"
joint = { type = "revolute", name = "shoulder", origin = [0, 0, 0], axis = [0, 0, 1], initial = 0.3 }
parts = [{ shape = "rod", mass = 2, from = [0, 0, 0], to = [1, 0, 0] }]
[[bodies]]
name = "forearm"
parent = "arm"
joint = { type = "revolute", name = "elbow", origin = [1, 0, 0], axis = [0, 0, 1], initial = -0.5 }
parts = [{ shape = "rod", mass = 1, from = [0, 0, 0], to = [0.8, 0, 0] }]
[[bodies]]
name = "slider"
parent = "ground"
joint = { type = "prismatic", name = "lift", origin = [3, 0, 0], axis = [0, 1, 0], initial = 0 }
mass = 40
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[interface.ports]]
name = "servo"
type = "joint-motion"
on = "shoulder"
[[interface.ports]]
name = "jack"
type = "joint-motion"
on = "lift"
[[interface.outputs]]
name = "shoulder.q"
quantity = "shoulder.q"
[[interface.outputs]]
name = "shoulder.qd"
quantity = "shoulder.qd"
[[interface.outputs]]
name = "elbow.q"
quantity = "elbow.q"
[[interface.outputs]]
name = "lift.q"
quantity = "lift.q"
"#
    .to_string()
}

/// The rod alone (no forearm), for the closed forms.
fn rod() -> String {
    let text = machine();
    let start = text.find("[[bodies]]\nname = \"forearm\"").unwrap();
    let end = text.find("[[bodies]]\nname = \"slider\"").unwrap();
    let text = format!("{}{}", &text[..start], &text[end..]);
    text.replace(
        "[[interface.outputs]]\nname = \"elbow.q\"\nquantity = \"elbow.q\"\n",
        "",
    )
}

/// Sets the servo's q, q̇, q̈.
fn servo(m: &mut Machine, [q, qd, qdd]: [f64; 3]) {
    m.set("servo.q", q);
    m.set("servo.qd", qd);
    m.set("servo.qdd", qdd);
}

#[test]
fn a_rod_swung_at_a_constant_rate_needs_the_torque_of_its_weight() {
    let mut m = Machine::from_model(common::compile_text("rod.toml", rod()));
    assert_eq!(
        m.start("servo.q"),
        0.3,
        "q starts at the joint's initial coordinate"
    );
    let omega = 0.8;
    servo(&mut m, [0.3, omega, 0.0]);
    m.inst.initialize(0.0).unwrap();
    let (mut worst, mut worst_q) = (0.0f64, 0.0f64);
    let h = 0.01;
    for k in 1..=200 {
        // The master sends the motion's state at every communication point.
        servo(&mut m, [0.3 + omega * (k - 1) as f64 * h, omega, 0.0]);
        m.inst.advance(k as f64 * h).unwrap();
        let t = k as f64 * h;
        let theta = 0.3 + omega * t;
        worst_q = worst_q.max((m.get("shoulder.q") - theta).abs());
        let tau = M * G * C * theta.cos();
        worst = worst.max((m.get("servo.torque") - tau).abs());
    }
    println!("constant rate: angle within {worst_q:.2e} rad, torque within {worst:.2e} N·m");
    assert!(worst_q < 1e-10, "{worst_q}");
    assert!(worst < 1e-6 * M * G * C, "{worst}");
    // The drive's work is the rod's potential energy gain (its kinetic energy is constant).
    let theta = 0.3 + omega * 2.0;
    let gain = M * G * C * (theta.sin() - 0.3f64.sin());
    let work = m.get("servo.work");
    println!("servo work {work:.9} J, potential energy gain {gain:.9} J");
    assert!((work - gain).abs() < 1e-5 * gain.abs(), "{work} vs {gain}");
    assert!(m.get("energy.balance_error").abs() < 1e-5);
}

#[test]
fn a_rod_swung_sinusoidally_needs_inertia_and_weight_at_every_communication_point() {
    let mut m = Machine::from_model(common::compile_text("rod.toml", rod()));
    let (a, w) = (0.6, 3.0);
    let motion = |t: f64| {
        let (s, c) = (w * t).sin_cos();
        [a * s, a * w * c, -a * w * w * s]
    };
    servo(&mut m, motion(0.0));
    m.inst.initialize(0.0).unwrap();
    let h = 0.01;
    let mut worst = 0.0f64;
    for k in 1..=300 {
        let t0 = (k - 1) as f64 * h;
        servo(&mut m, motion(t0));
        m.inst.advance(k as f64 * h).unwrap();
        // The torque at the FMU's own coordinate and acceleration (the Taylor arc of the
        // step, q + q̇τ + q̈τ²/2, ends a little off the sine: O(h³)).
        let q = m.get("shoulder.q");
        let qdd = motion(t0)[2];
        let tau = J * qdd + M * G * C * q.cos();
        worst = worst.max((m.get("servo.torque") - tau).abs());
        let taylor = motion(t0)[0] + h * motion(t0)[1] + 0.5 * h * h * qdd;
        assert!((q - taylor).abs() < 1e-10, "t = {t0}: {q} vs {taylor}");
    }
    println!("sinusoid: torque within {worst:.2e} N·m of J θ̈ + m g c cos θ");
    assert!(worst < 1e-6 * (J * a * w * w + M * G * C), "{worst}");
}

#[test]
fn a_driven_shoulder_carries_a_free_elbow_and_the_balance_closes_with_its_work() {
    let mut m = Machine::from_model(common::compile_text("arm.toml", machine()));
    // Constant θ̈ = 1.5 rad/s²: the motion is quadratic over every step. (A q̈ that changes
    // at a communication point makes the accelerations and the drive's force jump there,
    // and the trapezoidal sum of the drive's power misses half a step of the jump: with a
    // ±2 rad/s² bang-bang 3.9e-3 J of 7.8 J at 1 ms, 2.0e-3 J at 0.5 ms — bookkeeping of
    // the port's work, first order in the step.)
    let motion = |t: f64| [0.3 + 0.75 * t * t, 1.5 * t, 1.5];
    servo(&mut m, motion(0.0));
    m.inst.initialize(0.0).unwrap();
    let elbow0 = m.get("elbow.q");
    let h = 1e-3;
    for k in 1..=2000 {
        let t0 = (k - 1) as f64 * h;
        servo(&mut m, motion(t0));
        m.inst.advance(k as f64 * h).unwrap();
    }
    let (balance, work, swing) = (
        m.get("energy.balance_error"),
        m.get("servo.work"),
        (m.get("elbow.q") - elbow0).abs(),
    );
    println!(
        "2 s: shoulder {:.9} rad (closed form {:.9}), elbow moved {swing:.3} rad, servo work {work:.4} J, balance error {balance:.2e} J",
        m.get("shoulder.q"),
        motion(2.0)[0]
    );
    assert!((m.get("shoulder.q") - motion(2.0)[0]).abs() < 1e-9);
    assert!(swing > 0.1, "the carried elbow swings: {swing}");
    assert!(balance.abs() < 1e-5 * work.abs().max(1.0), "{balance}");
}

#[test]
fn a_slider_lifted_along_a_parabola_needs_its_weight_and_inertia() {
    let mut m = Machine::from_model(common::compile_text("arm.toml", machine()));
    let acc = 1.5;
    m.set("jack.qdd", acc);
    servo(&mut m, [0.3, 0.0, 0.0]);
    m.inst.initialize(0.0).unwrap();
    for k in 1..=100 {
        let t0 = (k - 1) as f64 * 0.01;
        m.set("jack.q", 0.5 * acc * t0 * t0);
        m.set("jack.qd", acc * t0);
        m.inst.advance(k as f64 * 0.01).unwrap();
    }
    let (y, f) = (m.get("lift.q"), m.get("jack.force"));
    println!("1 s at {acc} m/s²: lift {y:.12} m, force {f:.9} N");
    assert!((y - 0.5 * acc).abs() < 1e-10, "{y}");
    assert!((f - 40.0 * (G + acc)).abs() < 1e-6 * 40.0 * G, "{f}");
}

#[test]
fn a_driven_joint_is_refused_with_the_double_step_formulation() {
    let text = machine().replace("[solver]\n", "[solver]\nformulation = \"double-step\"\n");
    let source = model_compiler::diagnostic::Source::new("double.toml", text);
    let errors = model_compiler::check(&source).unwrap_err();
    let text: Vec<String> = errors.iter().map(|d| source.render(d)).collect();
    assert!(
        text.iter().any(|t| t.contains("augmented-Lagrangian")),
        "{text:?}"
    );
}

/// A four-bar (crank 0.5 m, coupler 2 m, rocker 1 m, ground pivots 2 m apart) closed by a
/// cut joint, its crank driven.
fn four_bar() -> String {
    r#"[model]
name = "driven-four-bar"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "crank"
parent = "ground"
joint = { type = "revolute", name = "crank_joint", origin = [0, 0, 0], axis = [0, 0, 1], initial = 1.5707963267948966 }
parts = [{ shape = "rod", mass = 1, from = [0, 0, 0], to = [0.5, 0, 0] }]
[[bodies]]
name = "coupler"
parent = "crank"
joint = { type = "revolute", name = "knee", origin = [0.5, 0, 0], axis = [0, 0, 1], initial = -1.3191416343 }
parts = [{ shape = "rod", mass = 4, from = [0, 0, 0], to = [2, 0, 0] }]
[[bodies]]
name = "rocker"
parent = "ground"
joint = { type = "revolute", name = "rocker_joint", origin = [2, 0, 0], axis = [0, 0, 1], initial = 1.6338346331 }
parts = [{ shape = "rod", mass = 2, from = [0, 0, 0], to = [1, 0, 0] }]
[[cut_joints]]
name = "tip"
type = "revolute"
body_a = "coupler"
point_a = [2, 0, 0]
body_b = "rocker"
point_b = [1, 0, 0]
axis_a = [0, 0, 1]
axis_b = [0, 0, 1]
[[interface.ports]]
name = "motor"
type = "joint-motion"
on = "crank_joint"
[[interface.outputs]]
name = "rocker.q"
quantity = "rocker_joint.q"
"#
    .to_string()
}

#[test]
fn a_driven_crank_keeps_the_four_bar_closed_and_its_work_balances_the_energy() {
    let mut m = Machine::from_model(common::compile_text("four-bar.toml", four_bar()));
    let (q0, omega) = (std::f64::consts::FRAC_PI_2, 2.0);
    let h = 1e-3;
    m.set("motor.q", q0);
    m.set("motor.qd", omega);
    m.inst.initialize(0.0).unwrap();
    let rocker0 = m.get("rocker.q");
    let (mut worst_phi, mut rocker_range) = (0.0f64, (f64::MAX, f64::MIN));
    // The largest work done so far: the energy the drive moves in and out over a turn.
    let mut swing = 0.0f64;
    for k in 1..=3000 {
        m.set("motor.q", q0 + omega * (k - 1) as f64 * h);
        m.inst.advance(k as f64 * h).unwrap();
        worst_phi = worst_phi.max(m.get("constraints.phi_norm"));
        swing = swing.max(m.get("motor.work").abs());
        let r = m.get("rocker.q");
        rocker_range = (rocker_range.0.min(r), rocker_range.1.max(r));
    }
    let (balance, work) = (m.get("energy.balance_error"), m.get("motor.work"));
    println!(
        "crank turned {:.3} rad: rocker {:.3}…{:.3} rad (from {rocker0:.3}), |Φ| ≤ {worst_phi:.1e}, motor work {work:.4} J, balance error {balance:.2e} J, torque now {:.3} N·m",
        omega * 3.0,
        rocker_range.0,
        rocker_range.1,
        m.get("motor.torque")
    );
    assert!(rocker_range.1 - rocker_range.0 > 0.3, "the rocker rocks");
    assert!(worst_phi < 1e-8, "{worst_phi}");
    println!("largest work so far {swing:.3} J");
    // The augmented-Lagrangian scheme's own energy error (the undriven spatial linkage of
    // tests/formulations.rs drifts 1.3e-3 J): 1.8e-3 J of the 31 J the drive moves.
    assert!(balance.abs() < 1e-4 * swing, "{balance} of {swing}");
}
