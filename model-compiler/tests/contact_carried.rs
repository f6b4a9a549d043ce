//! Contact under a carried base (issue 49): the ground stays in the world while a carrier
//! moves the machine's frame. A block carried along at 1 m/s and set down slides to rest
//! in the world at μ g; a ball under a base raised and turned 30° rests on the world's
//! ground at the law's static penetration, straight below where it started.

mod common;

use common::Machine;

const G: f64 = 9.81;

/// One body `thing` on a free joint from the carried frame, at `initial` (base
/// coordinates, angles in degrees), with `collision`; outputs its centre's position and
/// velocity (base frame), its contact's points and the energy balance.
fn carried(collision: &str, initial: [f64; 3], friction: f64) -> String {
    machine(
        collision,
        initial,
        friction,
        "[interface.base]\nmotion = \"carrier\"",
    )
}

/// [`carried`] with `base` for its base section (empty: fixed in the world).
fn machine(collision: &str, initial: [f64; 3], friction: f64, base: &str) -> String {
    let [x, y, z] = initial;
    format!(
        r#"[model]
name = "carried-contact"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "thing"
parent = "ground"
joint = {{ type = "free", name = "loose", origin = [0, 0, 0], initial = [{x}, {y}, {z}, 0, 0, 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.006667, 0.006667, 0.006667, 0, 0, 0]
collision = [{collision}]
[contact]
stiffness = "1e6 N/m"
restitution = 0.2
friction = {friction}
{base}
[[markers]]
name = "center"
body = "thing"
point = [0, 0, 0]
[[interface.outputs]]
name = "x"
quantity = "center.position.x"
[[interface.outputs]]
name = "y"
quantity = "center.position.y"
[[interface.outputs]]
name = "z"
quantity = "center.position.z"
[[interface.outputs]]
name = "vx"
quantity = "center.velocity.x"
[[interface.outputs]]
name = "points"
quantity = "contact.thing.points"
[[interface.outputs]]
name = "balance"
quantity = "energy.balance_error"
"#
    )
}

/// A 1 kg, 0.2 m box resting on the ground while the carrier moves at v0 = 1 m/s along x:
/// it slides on the world's ground, its world speed falling at μ g (μ = 0.3) until it
/// stops after v0/(μ g) = 0.340 s, v0²/(2 μ g) = 0.170 m from where it was set down; in
/// the carrier's frame it then runs backwards at −v0.
#[test]
fn a_block_set_down_from_a_moving_carrier_slides_to_rest_on_the_world_ground() {
    let (v0, mu) = (1.0, 0.3);
    let depth = G / (4.0 * 1e6);
    let text = carried(
        r#"{ shape = "box", size = [0.2, 0.2, 0.2] }"#,
        [0.0, 0.0, 0.1 - depth],
        mu,
    );
    let mut m = Machine::from_model(common::compile_text("carried.toml", text));
    let carry = |m: &mut Machine, t: f64| {
        m.set("base.position.x", v0 * t);
        m.set("base.velocity.x", v0);
    };
    carry(&mut m, 0.0);
    m.inst.initialize(0.0).unwrap();
    let mut world_speed = Vec::new();
    for k in 1..=1000 {
        let t = k as f64 * 1e-3;
        carry(&mut m, t);
        m.inst.advance(t).unwrap();
        if k == 100 || k == 250 {
            world_speed.push(m.get("vx") + v0);
        }
    }
    let a = (world_speed[1] - world_speed[0]) / 0.15;
    let travelled = m.get("x") + v0 * 1.0;
    let (a_ref, x_ref) = (-mu * G, v0 * v0 / (2.0 * mu * G));
    println!(
        "carried block: deceleration {a:.5} m/s² against {a_ref:.5}, world speed at 1 s {:.2e} m/s, slid {travelled:.5} m against {x_ref:.5} m, {} corners, balance error {:.2e} J of {:.3} J dissipated",
        m.get("vx") + v0,
        m.get("points"),
        m.get("balance"),
        0.5 * v0 * v0
    );
    assert_eq!(m.get("points"), 4.0);
    assert!((a - a_ref).abs() < 0.01 * a_ref.abs(), "{a}");
    assert!((m.get("vx") + v0).abs() < 1e-3);
    assert!((travelled - x_ref).abs() < 0.01 * x_ref, "{travelled}");
    assert!(m.get("balance").abs() < 1e-3 * 0.5 * v0 * v0);
}

/// A 1 kg ball of radius 0.1 m under a base at (0.3, −0.2, 1.0) m turned 30° about world
/// x, dropped from 2 cm: it rests on the world's ground (z = 0) at the Hertz law's static
/// penetration `d_ref (m g/(k d_ref))^(2/3)`, where it started in x and y; and its run is
/// the same drop's on a fixed base (height and energy balance error to round-off: the
/// frame a carrier holds still changes nothing).
#[test]
fn a_ball_under_a_raised_and_turned_base_rests_on_the_world_ground() {
    let origin = [0.3, -0.2, 1.0];
    let half = 15f64.to_radians();
    let (s, c) = (2.0 * half).sin_cos();
    // World → base for a turn about x: (x, c y + s z, −s y + c z) of the offset.
    let to_base = |w: [f64; 3]| {
        let d = [w[0] - origin[0], w[1] - origin[1], w[2] - origin[2]];
        [d[0], c * d[1] + s * d[2], -s * d[1] + c * d[2]]
    };
    let to_world = |b: [f64; 3]| {
        [
            origin[0] + b[0],
            origin[1] + c * b[1] - s * b[2],
            origin[2] + s * b[1] + c * b[2],
        ]
    };
    let start = [0.3, -0.2, 0.12];
    let text = carried(r#"{ shape = "sphere", radius = 0.1 }"#, to_base(start), 0.5);
    let mut m = Machine::from_model(common::compile_text("carried.toml", text));
    for (axis, v) in ["x", "y", "z"].iter().zip(origin) {
        m.set(&format!("base.position.{axis}"), v);
    }
    m.set("base.orientation.w", half.cos());
    m.set("base.orientation.x", half.sin());
    m.inst.initialize(0.0).unwrap();
    m.inst.advance(2.0).unwrap();
    let world = to_world([m.get("x"), m.get("y"), m.get("z")]);
    let d_ref = 1e-3;
    let depth = d_ref * (G / (1e6 * d_ref)).powf(2.0 / 3.0);
    let sunk = 0.1 - world[2];
    println!(
        "ball under a turned base: penetration {sunk:.6e} m against {depth:.6e} m, moved {:.1e} m across, balance error {:.2e} J",
        ((world[0] - start[0]).powi(2) + (world[1] - start[1]).powi(2)).sqrt(),
        m.get("balance")
    );
    assert_eq!(m.get("points"), 1.0);
    assert!((sunk - depth).abs() < 0.01 * depth, "{sunk}");
    assert!((world[0] - start[0]).abs() < 1e-9 && (world[1] - start[1]).abs() < 1e-9);
    let fixed = machine(r#"{ shape = "sphere", radius = 0.1 }"#, start, 0.5, "");
    let mut f = Machine::from_model(common::compile_text("fixed.toml", fixed));
    f.inst.initialize(0.0).unwrap();
    f.inst.advance(2.0).unwrap();
    println!(
        "the same drop on a fixed base: height {:.1e} m, balance error {:.1e} J from the carried run's",
        f.get("z") - world[2],
        f.get("balance") - m.get("balance")
    );
    assert!((f.get("z") - world[2]).abs() < 1e-12);
    assert!((f.get("balance") - m.get("balance")).abs() < 1e-8);
}
