//! A machine split at its base (issue 15, items 1, 7, 9): a rocking carrier with a boom on
//! its deck, once as one description (monolithic) and once as two models coupled by a
//! master loop: the carrier with a mount (the boom's wrench in, the deck's motion out) and
//! the boom with a carrier-driven base (the deck's motion in, its wrench out). The split
//! must converge to the monolithic run as the communication step falls.

mod common;

use common::Machine;

/// The machine and its two halves (`tests/cosim/`, shared with the FMPy master test).
const WHOLE: &str = include_str!("../../tests/cosim/carrier-boom.toml");
const CARRIER: &str = include_str!("../../tests/cosim/carrier.toml");
const BOOM: &str = include_str!("../../tests/cosim/boom.toml");

fn monolithic() -> Machine {
    Machine::from_model(common::compile_text("carrier-boom.toml", WHOLE.into()))
}

fn carrier() -> Machine {
    Machine::from_model(common::compile_text("carrier.toml", CARRIER.into()))
}

fn carried_boom() -> Machine {
    Machine::from_model(common::compile_text("boom.toml", BOOM.into()))
}

/// The base port's motion inputs, which the mount's outputs feed one to one, and the
/// wrench it returns.
const MOTION: [&str; 19] = {
    let mut names = [""; 19];
    let mut i = 0;
    while i < 19 {
        names[i] = model_compiler::lower::base::MOTION[i].0;
        i += 1;
    }
    names
};
const WRENCH: [&str; 6] = model_compiler::lower::base::WRENCH;

fn exchange(carrier: &mut Machine, boom: &mut Machine) {
    for s in MOTION {
        let v = carrier.get(&format!("deck.{s}"));
        boom.set(&format!("base.{s}"), v);
    }
    for s in WRENCH {
        let v = boom.get(&format!("base.{s}"));
        carrier.set(&format!("deck.{s}"), v);
    }
}

/// Input derivatives of the deck motion for the next step (FMI
/// `fmi2SetRealInputDerivatives`): position and velocity rise at the rates the carrier
/// reports, the accelerations as they changed since the last exchange (`previous`, `h`
/// ago); the orientation and the wrench are held.
fn extrapolate(carrier: &Machine, boom: &mut Machine, previous: &mut [f64; 19], h: f64) {
    let rate_of = |s: &str| match s.split_once('.') {
        Some(("position", a)) => Some(format!("deck.velocity.{a}")),
        Some(("velocity", a)) => Some(format!("deck.acceleration.{a}")),
        Some(("angular_velocity", a)) => Some(format!("deck.angular_acceleration.{a}")),
        _ => None,
    };
    for (i, s) in MOTION.iter().enumerate() {
        let now = carrier.get(&format!("deck.{s}"));
        let rate = match rate_of(s) {
            Some(r) => carrier.get(&r),
            None if s.starts_with("orientation") => 0.0,
            None => (now - previous[i]) / h,
        };
        previous[i] = now;
        let slot = common::slot_of(&boom.var(&format!("base.{s}")));
        if rate != 0.0 {
            boom.inst.set_input_derivative(slot, 1, rate).unwrap();
        }
    }
}

/// Runs the split pair to `t_end` at communication step `h`; returns the sampled
/// (roll, luff) every 10 ms and the work exchanged through the port (boom side, carrier
/// side).
fn split(h: f64, t_end: f64, interpolate: bool) -> (Vec<(f64, f64)>, f64, f64) {
    let (mut c, mut b) = (carrier(), carried_boom());
    // Initialization handshake: motion one way, wrench the other, until both agree.
    for _ in 0..3 {
        c.inst.initialize(0.0).unwrap();
        exchange(&mut c, &mut b);
        b.inst.initialize(0.0).unwrap();
        exchange(&mut c, &mut b);
    }
    let steps = (t_end / h).round() as usize;
    let every = (0.01 / h).round() as usize;
    let mut out = Vec::new();
    let mut previous = [0.0; 19];
    for (i, s) in MOTION.iter().enumerate() {
        previous[i] = c.get(&format!("deck.{s}"));
    }
    for k in 1..=steps {
        let t = k as f64 * h;
        if interpolate {
            extrapolate(&c, &mut b, &mut previous, h);
        }
        c.inst.advance(t).unwrap();
        b.inst.advance(t).unwrap();
        exchange(&mut c, &mut b);
        if k % every == 0 {
            out.push((c.get("roll"), b.get("luff")));
        }
    }
    (out, b.get("base.work"), c.get("deck.work"))
}

#[test]
fn the_split_machine_converges_to_the_monolithic_one() {
    let t_end = 3.0;
    let mut mono = monolithic();
    mono.inst.initialize(0.0).unwrap();
    let mut reference = Vec::new();
    for k in 1..=300 {
        mono.inst.advance(k as f64 * 0.01).unwrap();
        reference.push((mono.get("roll"), mono.get("luff")));
    }
    let range = |f: fn(&(f64, f64)) -> f64| {
        let v: Vec<f64> = reference.iter().map(f).collect();
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    let (roll_range, luff_range) = (range(|r| r.0), range(|r| r.1));
    assert!(
        roll_range > 0.01 && luff_range > 1.0,
        "the machine must move"
    );
    let max_diff = |run: &[(f64, f64)], f: fn(&(f64, f64)) -> f64| {
        run.iter()
            .zip(&reference)
            .map(|(a, b)| (f(a) - f(b)).abs())
            .fold(0.0, f64::max)
    };
    for interpolate in [false, true] {
        let mut errors = Vec::new();
        for h in [0.01, 0.005, 0.002, 0.001] {
            let (run, boom_work, carrier_work) = split(h, t_end, interpolate);
            let (roll, luff) = (max_diff(&run, |r| r.0), max_diff(&run, |r| r.1));
            // What the boom gives the carrier should arrive: the mismatch is the coupling's
            // energy error.
            let leak = boom_work + carrier_work;
            println!(
                "{} inputs, communication step {:>4.1} ms: max roll difference {roll:.3e} rad ({:.3} % of its range {roll_range:.4}), luff {luff:.3e} rad ({:.3} % of {luff_range:.4}); work through the port: boom side {boom_work:.3} J, carrier side {carrier_work:.3} J, mismatch {leak:.3} J",
                if interpolate { "interpolated" } else { "held" },
                h * 1e3,
                100.0 * roll / roll_range,
                100.0 * luff / luff_range
            );
            errors.push((h, roll, luff, leak.abs()));
        }
        for w in errors.windows(2) {
            let order = (w[0].1 / w[1].1).ln() / (w[0].0 / w[1].0).ln();
            println!(
                "  roll error order {:.0}→{:.0} ms: {order:.2}",
                w[0].0 * 1e3,
                w[1].0 * 1e3
            );
            assert!(
                w[1].1 < w[0].1 && w[1].2 < w[0].2,
                "errors must fall with the step: {errors:?}"
            );
            assert!(
                w[1].3 < w[0].3,
                "the port energy mismatch must fall: {errors:?}"
            );
        }
        let roll_1ms = errors[3].1;
        assert!(
            roll_1ms <= 0.01 * roll_range,
            "at 1 ms the roll differs by {roll_1ms}"
        );
    }
}

/// The mount's motion outputs on a turntable spun up by a constant torque from rest
/// (α = τ/J): a point at radius 1 m has position (cos θ, sin θ), velocity ω ẑ × r,
/// acceleration α ẑ × r − ω² r, orientation a rotation by θ about z; a wrench put on the
/// mount acts on the table (here a force opposing nothing but adding its moment r × F).
#[test]
fn a_mount_reports_the_motion_of_its_frame_and_takes_the_wrench() {
    let text = r#"[model]
name = "turntable"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "table"
parent = "ground"
joint = { type = "revolute", name = "spin", origin = [0, 0, 0], axis = [0, 0, 1], initial = 0 }
mass = 100
com = [0, 0, 0]
inertia = [25, 25, 50, 0, 0, 0]
[interface.mount]
body = "table"
origin = [1, 0, 0]
"#;
    let mut m = Machine::from_model(common::compile_text("turntable.toml", text.into()));
    // 20 N tangential on the mount (mount axes = table axes: +y at the point (1, 0)) and
    // 5 N·m about z: 25 N·m on a 50 kg·m² table.
    m.set("mount.force.y", 20.0);
    m.set("mount.moment.z", 5.0);
    m.inst.initialize(0.0).unwrap();
    for k in 1..=1000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let alpha: f64 = 25.0 / 50.0;
    let (w, th) = (alpha * 1.0, 0.5 * alpha);
    let (s, c) = th.sin_cos();
    let expected = [
        ("position.x", c),
        ("position.y", s),
        ("orientation.w", (th / 2.0).cos()),
        ("orientation.z", (th / 2.0).sin()),
        ("velocity.x", -w * s),
        ("velocity.y", w * c),
        ("angular_velocity.z", w),
        ("acceleration.x", -alpha * s - w * w * c),
        ("acceleration.y", alpha * c - w * w * s),
        ("angular_acceleration.z", alpha),
    ];
    for (name, e) in expected {
        let got = m.get(&format!("mount.{name}"));
        assert!(
            (got - e).abs() < 1e-9,
            "mount.{name} = {got}, closed form {e}"
        );
    }
    // Work through the mount = kinetic energy of the table.
    let work = m.get("mount.work");
    assert!((work - 0.5 * 50.0 * w * w).abs() < 1e-9, "work {work}");
}
