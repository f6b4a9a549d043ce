//! The base port (issue 15, item 1): a carrier moves the machine's ground frame. The
//! machine must feel the exact inertial loads of that motion (transport, centripetal,
//! Coriolis) and report the wrench it exerts on the carrier. Each case is checked against
//! a closed form or an independent RK4 integration of the textbook equation, at 0.1 ms
//! with the inputs set to their values at the end of each step.

mod common;

use common::Machine;
use std::f64::consts::{PI, TAU};

const G: f64 = 9.81;
const MASS: f64 = 2.0;
const LENGTH: f64 = 1.0;
const H: f64 = 1e-4;

/// A thin rod of `MASS` and `LENGTH` on a revolute hinge at the base origin; its body x
/// axis runs along the rod unless `hanging` (then it hangs along −z from a hinge about x).
fn rod(gravity: &str, hinge: &str, com: &str, inertia: &str, q0: f64, reference: &str) -> String {
    format!(
        r#"[model]
name = "rod-on-carrier"
gravity = {gravity}
[solver]
step = "0.1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "rod"
parent = "ground"
joint = {{ type = "revolute", name = "hinge", origin = [0, 0, 0], axis = {hinge}, initial = {q0} }}
mass = {MASS}
com = {com}
inertia = {inertia}
[interface.base]
motion = "carrier"
reference = {reference}
[[interface.outputs]]
name = "q"
quantity = "hinge.q"
"#
    )
}

/// Thin-rod inertia about the centre of mass, rod along x: `[0, mL²/12, mL²/12]`.
fn rod_inertia_x() -> String {
    let t = MASS * LENGTH * LENGTH / 12.0;
    format!("[1e-9, {t}, {t}, 0, 0, 0]")
}

/// Classical RK4 of `ẍ = f(t, x, ẋ)` from `(x0, v0)` to `t_end` with step `h`, sampled at
/// every `every` steps: `(t, x, ẋ, ẍ)`.
fn rk4(
    f: impl Fn(f64, f64, f64) -> f64,
    x0: f64,
    v0: f64,
    t_end: f64,
    h: f64,
    every: usize,
) -> Vec<(f64, f64, f64, f64)> {
    let (mut x, mut v) = (x0, v0);
    let n = (t_end / h).round() as usize;
    let mut out = vec![(0.0, x, v, f(0.0, x, v))];
    for k in 0..n {
        let t = k as f64 * h;
        let (k1x, k1v) = (v, f(t, x, v));
        let (k2x, k2v) = (
            v + 0.5 * h * k1v,
            f(t + 0.5 * h, x + 0.5 * h * k1x, v + 0.5 * h * k1v),
        );
        let (k3x, k3v) = (
            v + 0.5 * h * k2v,
            f(t + 0.5 * h, x + 0.5 * h * k2x, v + 0.5 * h * k2v),
        );
        let (k4x, k4v) = (v + h * k3v, f(t + h, x + h * k3x, v + h * k3v));
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        if (k + 1) % every == 0 {
            let t1 = (k + 1) as f64 * h;
            out.push((t1, x, v, f(t1, x, v)));
        }
    }
    out
}

/// Sets the base's rotation about world z by `angle` at rate `rate` (steady: no angular
/// acceleration).
fn spin_about_z(m: &mut Machine, angle: f64, rate: f64) {
    m.set("base.orientation.w", (angle / 2.0).cos());
    m.set("base.orientation.z", (angle / 2.0).sin());
    m.set("base.angular_velocity.z", rate);
}

/// Pendulum on a harmonically heaving base: `I θ̈ = −m (g + ÿ_b) (L/2) cos θ` (θ from the
/// horizontal, y up). The heave `y_b = A sin Ωt` makes the effective gravity `g + ÿ_b`
/// swing between 0.6 g and 1.4 g (a Mathieu-type parametric drive), so any error in the
/// transport load shows in the phase of the swing.
#[test]
fn pendulum_on_a_heaving_base_follows_the_effective_gravity() {
    let (amp, w) = (0.1, TAU);
    let q0 = 0.3;
    let text = rod(
        "[0, -9.81, 0]",
        "[0, 0, 1]",
        &format!("[{}, 0, 0]", LENGTH / 2.0),
        &rod_inertia_x(),
        q0,
        "[0.5, 0, 0]",
    );
    let mut m = Machine::from_model(common::compile_text("heave.toml", text));
    let heave = |t: f64| {
        (
            amp * (w * t).sin(),
            amp * w * (w * t).cos(),
            -amp * w * w * (w * t).sin(),
        )
    };
    let set_heave = |m: &mut Machine, t: f64| {
        let (y, v, a) = heave(t);
        m.set("base.position.y", y);
        m.set("base.velocity.y", v);
        m.set("base.acceleration.y", a);
    };
    set_heave(&mut m, 0.0);
    m.inst.initialize(0.0).unwrap();

    let inertia = MASS * LENGTH * LENGTH / 3.0;
    let f = |t: f64, q: f64, _: f64| -MASS * (G + heave(t).2) * 0.5 * LENGTH * q.cos() / inertia;
    let t_end = 2.0;
    let reference = rk4(f, q0, 0.0, t_end, 1e-5, 1000);
    let (mut worst_q, mut worst_force, mut worst_moment) = (0.0f64, 0.0f64, 0.0f64);
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    let steps_per_sample = 100;
    for (i, &(t, q, qd, qdd)) in reference.iter().enumerate().skip(1) {
        for k in 1..=steps_per_sample {
            let tk = (i - 1) as f64 * 0.01 + k as f64 * H;
            set_heave(&mut m, tk);
            m.inst.advance(tk).unwrap();
        }
        assert!((m.inst.time() - t).abs() < 1e-12);
        let got = m.get("q");
        worst_q = worst_q.max((got - q).abs());
        (lo, hi) = (lo.min(q), hi.max(q));
        // The carrier carries the rod's weight and inertia: F = −m (a_com − g).
        let half = 0.5 * LENGTH;
        let a_com = [
            -half * (qdd * q.sin() + qd * qd * q.cos()),
            half * (qdd * q.cos() - qd * qd * q.sin()) + heave(t).2,
        ];
        let expected = [-MASS * a_com[0], -MASS * (a_com[1] + G)];
        let got_force = [m.get("base.force.x"), m.get("base.force.y")];
        for (e, g) in expected.iter().zip(got_force) {
            worst_force = worst_force.max((e - g).abs() / (MASS * G));
        }
        // A free hinge passes no moment about its axis: about the reference point
        // (0.5, 0, 0) the carrier feels only r × F.
        let moment = m.get("base.moment.z");
        let expected_moment = -(0.5 * got_force[1]);
        worst_moment = worst_moment.max((moment - expected_moment).abs() / (MASS * G * 0.5));
    }
    let range = hi - lo;
    let balance = m.get("energy.balance_error");
    let work = m.get("base.work");
    println!(
        "heaving base, {t_end} s at 0.1 ms: angle range {range:.4} rad, max |θ − θ_RK4| = {worst_q:.3e} rad ({:.3e} of the range); force error ≤ {worst_force:.3e} m g; moment error ≤ {worst_moment:.3e}; base work {work:.4} J, energy balance error {balance:.3e} J",
        worst_q / range
    );
    assert!(range > 1.0, "the rod must swing (range {range})");
    assert!(
        worst_q / range < 1e-6,
        "angle error {worst_q} of range {range}"
    );
    assert!(worst_force < 1e-6, "force error {worst_force} m g");
    assert!(worst_moment < 1e-6, "moment error {worst_moment}");
    assert!(
        work.abs() > 0.1,
        "the heave does work on the rod ({work} J)"
    );
    assert!(
        balance.abs() < 1e-4 * work.abs(),
        "energy balance {balance} J vs base work {work} J"
    );
}

/// The heaving base sent by a master at a 5 ms communication step: held inputs lag the
/// motion, inputs with their first and second derivatives (FMI
/// `fmi2SetRealInputDerivatives`) follow it inside the step and recover the 0.1 ms
/// accuracy.
#[test]
fn input_derivatives_make_a_sampled_base_motion_smooth() {
    let (amp, w, q0) = (0.1, TAU, 0.3);
    let text = rod(
        "[0, -9.81, 0]",
        "[0, 0, 1]",
        &format!("[{}, 0, 0]", LENGTH / 2.0),
        &rod_inertia_x(),
        q0,
        "[0, 0, 0]",
    );
    let model = common::compile_text("heave-sampled.toml", text);
    let inertia = MASS * LENGTH * LENGTH / 3.0;
    // Position, velocity, acceleration of the heave and their time derivatives.
    let heave = |t: f64| {
        let (s, c) = (w * t).sin_cos();
        [
            [amp * s, amp * w * c, -amp * w * w * s],
            [amp * w * c, -amp * w * w * s, -amp * w * w * w * c],
            [-amp * w * w * s, -amp * w * w * w * c, amp * w.powi(4) * s],
        ]
    };
    let f =
        |t: f64, q: f64, _: f64| -MASS * (G + heave(t)[0][2]) * 0.5 * LENGTH * q.cos() / inertia;
    let reference = rk4(f, q0, 0.0, 2.0, 1e-5, 500);
    let names = ["base.position.y", "base.velocity.y", "base.acceleration.y"];
    let run = |derivatives: bool| -> f64 {
        let mut m = Machine::from_model(model.clone());
        let slots = names.map(|n| common::slot_of(&m.var(n)));
        let send = |m: &mut Machine, t: f64| {
            let h = heave(t);
            for (i, slot) in slots.iter().enumerate() {
                m.inst.set_param(*slot, h[0][i]);
                if derivatives {
                    m.inst.set_input_derivative(*slot, 1, h[1][i]).unwrap();
                    m.inst.set_input_derivative(*slot, 2, h[2][i]).unwrap();
                }
            }
        };
        send(&mut m, 0.0);
        m.inst.initialize(0.0).unwrap();
        let mut worst = 0.0f64;
        for &(t, q, _, _) in reference.iter().skip(1) {
            send(&mut m, t - 5e-3);
            m.inst.advance(t).unwrap();
            worst = worst.max((m.get("q") - q).abs());
        }
        worst
    };
    let (held, interpolated) = (run(false), run(true));
    println!(
        "heave sent every 5 ms (internal 0.1 ms): max |θ − θ_RK4| held {held:.3e} rad, with 1st+2nd input derivatives {interpolated:.3e} rad"
    );
    assert!(interpolated < 5e-6, "interpolated error {interpolated}");
    assert!(
        held > 1000.0 * interpolated,
        "held {held} vs interpolated {interpolated}"
    );
}

/// A slider on a radial guide of a turntable spinning at Ω: `r̈ = Ω² r`, so released at
/// rest in the turntable it moves out as `r₀ cosh Ωt`; the guide pushes it sideways with
/// the Coriolis force `2 m Ω ṙ`, which the turntable feels back.
#[test]
fn slider_on_a_spinning_turntable_moves_out_as_cosh() {
    let (omega, r0) = (1.5, 0.4);
    let text = format!(
        r#"[model]
name = "turntable"
gravity = [0, 0, -9.81]
[solver]
step = "0.1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "slider"
parent = "ground"
joint = {{ type = "prismatic", name = "guide", origin = [0, 0, 0], axis = [1, 0, 0], initial = {r0} }}
mass = {MASS}
com = [0, 0, 0]
inertia = [0.01, 0.02, 0.03, 0, 0, 0]
[interface.base]
motion = "carrier"
[[interface.outputs]]
name = "r"
quantity = "guide.q"
"#
    );
    let mut m = Machine::from_model(common::compile_text("turntable.toml", text));
    spin_about_z(&mut m, 0.0, omega);
    m.inst.initialize(0.0).unwrap();
    let (mut worst_r, mut worst_f, mut worst_m) = (0.0f64, 0.0f64, 0.0f64);
    let steps = 10_000;
    for k in 1..=steps {
        let t = k as f64 * H;
        spin_about_z(&mut m, omega * t, omega);
        m.inst.advance(t).unwrap();
        if k % 100 != 0 {
            continue;
        }
        let r = r0 * (omega * t).cosh();
        let rd = r0 * omega * (omega * t).sinh();
        worst_r = worst_r.max((m.get("r") - r).abs() / r);
        // On the carrier, base axes: −2 m Ω ṙ sideways, the weight down, nothing radial.
        let expected = [0.0, -2.0 * MASS * omega * rd, -MASS * G];
        for (i, a) in ["x", "y", "z"].iter().enumerate() {
            worst_f = worst_f.max((m.get(&format!("base.force.{a}")) - expected[i]).abs());
        }
        // About the origin: the sideways force at radius r, and the weight at radius r.
        let expected_mz = r * expected[1];
        let expected_my = -r * expected[2];
        worst_m = worst_m
            .max((m.get("base.moment.z") - expected_mz).abs())
            .max((m.get("base.moment.y") - expected_my).abs());
    }
    let t_end = steps as f64 * H;
    let ke = m.get("energy.kinetic");
    let r = r0 * (omega * t_end).cosh();
    let rd = r0 * omega * (omega * t_end).sinh();
    let ke_expected = 0.5 * MASS * (rd * rd + omega * omega * r * r) + 0.5 * 0.03 * omega * omega;
    let (work, balance) = (m.get("base.work"), m.get("energy.balance_error"));
    println!(
        "turntable Ω = {omega} rad/s, 1 s: max |r − r₀ cosh Ωt|/r = {worst_r:.3e}, force error ≤ {worst_f:.3e} N, moment error ≤ {worst_m:.3e} N·m; kinetic energy {ke:.6} J (closed form {ke_expected:.6}), base work {work:.6} J, energy balance error {balance:.3e} J"
    );
    assert!(worst_r < 1e-6, "radius error {worst_r}");
    assert!(worst_f < 1e-5 * MASS * G, "force error {worst_f} N");
    assert!(worst_m < 1e-5 * MASS * G, "moment error {worst_m} N·m");
    assert!(
        (ke - ke_expected).abs() < 1e-6 * ke_expected,
        "kinetic energy {ke} vs {ke_expected}"
    );
    // All the kinetic energy gained came through the port.
    assert!(
        (work - (ke - 0.5 * MASS * omega * omega * r0 * r0 - 0.5 * 0.03 * omega * omega)).abs()
            < 1e-6 * work
    );
    assert!(
        balance.abs() < 1e-6 * work,
        "energy balance {balance} J of {work} J"
    );
}

/// A rod hanging from a hinge on the axis of a base spinning at Ω rides out to the conical
/// angle where gravity balances the centrifugal moment of its inertia:
/// `cos θ* = m g (L/2) / (Ω² (I_h − J))` (I_h about the hinge, J about the rod's own axis).
/// Started there at rest in the base, it must stay; the carrier feels the centripetal pull.
#[test]
fn rod_on_a_spinning_base_rides_at_the_conical_angle() {
    let omega = 5.0;
    let j = 0.05;
    let t = MASS * LENGTH * LENGTH / 12.0;
    let i_h = MASS * LENGTH * LENGTH / 3.0;
    let theta = (MASS * G * 0.5 * LENGTH / (omega * omega * (i_h - j))).acos();
    let text = rod(
        "[0, 0, -9.81]",
        "[1, 0, 0]",
        &format!("[0, 0, {}]", -LENGTH / 2.0),
        &format!("[{t}, {t}, {j}, 0, 0, 0]"),
        theta,
        "[0, 0, 0]",
    );
    let mut m = Machine::from_model(common::compile_text("conical.toml", text));
    spin_about_z(&mut m, 0.0, omega);
    m.inst.initialize(0.0).unwrap();
    let mut worst = 0.0f64;
    for k in 1..=10_000 {
        let tk = k as f64 * H;
        spin_about_z(&mut m, omega * tk, omega);
        m.inst.advance(tk).unwrap();
        worst = worst.max((m.get("q") - theta).abs());
    }
    // Centripetal pull toward the axis on the rod's centre of mass, seen by the carrier as
    // an outward pull; the weight down.
    let radius = 0.5 * LENGTH * theta.sin();
    let expected = [0.0, MASS * omega * omega * radius, -MASS * G];
    let got = [
        m.get("base.force.x"),
        m.get("base.force.y"),
        m.get("base.force.z"),
    ];
    println!(
        "conical rod Ω = {omega} rad/s: θ* = {theta:.6} rad, max |θ − θ*| over 1 s = {worst:.3e} rad; carrier force {got:?} N (closed form {expected:?})"
    );
    assert!(worst < 1e-6 * theta, "drift {worst} rad from {theta}");
    for (e, g) in expected.iter().zip(got) {
        assert!((e - g).abs() < 1e-6 * MASS * G, "force {g} vs {e}");
    }
    // Free hinge about x: no moment about the hinge axis reaches the carrier.
    assert!(
        m.get("base.moment.x").abs() < 1e-6,
        "hinge moment {}",
        m.get("base.moment.x")
    );
}

/// Displaced from the conical angle, the rod swings about it:
/// `I_h θ̈ = Ω² (I_h − J) sin θ cos θ − m g (L/2) sin θ` (the Coriolis loads of the swing
/// act across the hinge and reach the carrier, not the angle).
#[test]
fn rod_on_a_spinning_base_swings_about_the_conical_angle() {
    let (omega, j) = (5.0, 0.05);
    let t = MASS * LENGTH * LENGTH / 12.0;
    let i_h = MASS * LENGTH * LENGTH / 3.0;
    let q0 = 0.4;
    let text = rod(
        "[0, 0, -9.81]",
        "[1, 0, 0]",
        &format!("[0, 0, {}]", -LENGTH / 2.0),
        &format!("[{t}, {t}, {j}, 0, 0, 0]"),
        q0,
        "[0, 0, 0]",
    );
    let mut m = Machine::from_model(common::compile_text("conical-swing.toml", text));
    spin_about_z(&mut m, 0.0, omega);
    m.inst.initialize(0.0).unwrap();
    let f = |_: f64, q: f64, _: f64| {
        (omega * omega * (i_h - j) * q.sin() * q.cos() - MASS * G * 0.5 * LENGTH * q.sin()) / i_h
    };
    let reference = rk4(f, q0, 0.0, 2.0, 1e-5, 1000);
    let (mut worst, mut lo, mut hi) = (0.0f64, f64::MAX, f64::MIN);
    for (i, &(tr, q, _, _)) in reference.iter().enumerate().skip(1) {
        for k in 1..=100 {
            let tk = (i - 1) as f64 * 0.01 + k as f64 * H;
            spin_about_z(&mut m, omega * tk, omega);
            m.inst.advance(tk).unwrap();
        }
        assert!((m.inst.time() - tr).abs() < 1e-12);
        worst = worst.max((m.get("q") - q).abs());
        (lo, hi) = (lo.min(q), hi.max(q));
    }
    println!(
        "conical swing Ω = {omega} rad/s from {q0} rad, 2 s: range {:.4} rad, max |θ − θ_RK4| = {worst:.3e} rad",
        hi - lo
    );
    assert!(hi - lo > 0.5, "the rod must swing");
    assert!(worst < 1e-6 * (hi - lo), "angle error {worst}");
}

/// A base rolled by 30° about world x tilts the gravity the machine feels: the rod of the
/// heave test, hinged about base z, finds its static equilibrium hanging along the rolled
/// gravity, and the carrier feels its weight in base axes.
#[test]
fn a_rolled_base_tilts_the_load() {
    let roll = PI / 6.0;
    let text = rod(
        "[0, -9.81, 0]",
        "[0, 0, 1]",
        &format!("[{}, 0, 0]", LENGTH / 2.0),
        &rod_inertia_x(),
        -PI / 2.0,
        "[0, 0, 0]",
    )
    .replace("static_equilibrium = false", "static_equilibrium = true");
    let mut m = Machine::from_model(common::compile_text("rolled.toml", text));
    m.set("base.orientation.w", (roll / 2.0).cos());
    m.set("base.orientation.x", (roll / 2.0).sin());
    m.inst.initialize(0.0).unwrap();
    m.inst.advance(0.01).unwrap();
    // Gravity in base axes: Rᵀ g = −9.81 (0, cos 30°, −sin 30°); the base-z hinge only
    // sees its x–y part, so the rod stays hanging along −y, and the carrier carries the
    // whole weight: F = m Rᵀ g.
    let expected = [0.0, -MASS * G * roll.cos(), MASS * G * roll.sin()];
    let got = [
        m.get("base.force.x"),
        m.get("base.force.y"),
        m.get("base.force.z"),
    ];
    println!("rolled 30°: carrier force {got:?} N (closed form {expected:?})");
    for (e, g) in expected.iter().zip(got) {
        assert!((e - g).abs() < 1e-9 * MASS * G, "force {g} vs {e}");
    }
    assert!((m.get("q") + PI / 2.0).abs() < 1e-9);
}

#[test]
fn an_unusable_base_orientation_is_an_error_not_a_panic() {
    let text = rod(
        "[0, -9.81, 0]",
        "[0, 0, 1]",
        "[0.5, 0, 0]",
        &rod_inertia_x(),
        0.0,
        "[0, 0, 0]",
    );
    let mut m = Machine::from_model(common::compile_text("bad.toml", text));
    m.set("base.orientation.w", 0.0);
    let e = m.inst.initialize(0.0).unwrap_err();
    assert!(e.message.contains("unit quaternion"), "{}", e.message);
    // Roll, pitch, yaw angles sent as the quaternion's x, y, z (a convention mix-up): the
    // norm is off by 1.2e-2, a different rotation, refused at initialization.
    m.set("base.orientation.w", 1.0);
    m.set("base.orientation.x", 0.1);
    m.set("base.orientation.y", 0.1);
    m.set("base.orientation.z", 0.0);
    let e = m.inst.initialize(0.0).unwrap_err();
    assert!(e.message.contains("norm 1.00995"), "{}", e.message);
    m.set("base.orientation.x", 0.0);
    m.set("base.orientation.y", 0.0);
    m.inst.initialize(0.0).unwrap();
    m.set("base.orientation.w", 3.0);
    let e = m.inst.advance(0.01).unwrap_err();
    assert!(e.message.contains("unit quaternion"), "{}", e.message);
    assert_eq!(e.last_successful_time, 0.0);
}
