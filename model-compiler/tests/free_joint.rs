//! The `free` joint (issue 15, item 1: a free base is a free rigid body): six coordinates,
//! x, y, z then yaw, pitch, roll. A body on one, pushed through a mount by a constant
//! wrench, follows the closed forms of a free rigid body.

mod common;

use common::Machine;

fn free_body(gravity: &str, initial: &str) -> String {
    format!(
        r#"[model]
name = "free-body"
gravity = {gravity}
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "hull"
parent = "ground"
joint = {{ type = "free", name = "float", origin = [0, 0, 0], initial = {initial} }}
mass = 500
com = [0, 0, 0]
inertia = [100, 200, 250, 0, 0, 0]
[interface.mount]
body = "hull"
name = "deck"
[[interface.outputs]]
name = "x"
quantity = "float.x.q"
[[interface.outputs]]
name = "y"
quantity = "float.y.q"
[[interface.outputs]]
name = "z"
quantity = "float.z.q"
[[interface.outputs]]
name = "yaw"
quantity = "float.yaw.q"
"#
    )
}

#[test]
fn a_free_body_under_a_constant_wrench_follows_the_closed_forms() {
    let text = free_body("[0, -9.81, 0]", "[1, 2, 3, 0.3, 0, 0]");
    let mut m = Machine::from_model(common::compile_text("free.toml", text));
    // Body axes at yaw 0.3: a push along body x is along (cos 0.3, sin 0.3, 0) in the
    // world, and keeps that direction while the body only yaws.
    m.set("deck.force.x", 1000.0);
    m.set("deck.moment.z", 50.0);
    m.inst.initialize(0.0).unwrap();
    let t_end: f64 = 1.0;
    for k in 1..=1000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let alpha = 50.0 / 250.0;
    let yaw = 0.3 + 0.5 * alpha * t_end * t_end;
    // The push turns with the body, a(t) = F/m (cos ψ, sin ψ) with ψ = 0.3 + α t²/2, on top
    // of the fall: check the yaw, the out-of-plane coordinate and the accelerations.
    let got_yaw = m.get("yaw");
    println!(
        "free body after 1 s: yaw {got_yaw:.9} (closed form {yaw:.9}), z {:.9} (3)",
        m.get("z")
    );
    assert!((got_yaw - yaw).abs() < 1e-9);
    assert!((m.get("z") - 3.0).abs() < 1e-12);
    let acc = [
        m.get("deck.acceleration.x"),
        m.get("deck.acceleration.y"),
        m.get("deck.angular_acceleration.z"),
    ];
    let expected = [2.0 * yaw.cos(), 2.0 * yaw.sin() - 9.81, alpha];
    for (g, e) in acc.iter().zip(expected) {
        assert!((g - e).abs() < 1e-9, "{acc:?} vs {expected:?}");
    }
    // Work through the mount = kinetic energy gained minus what gravity gave.
    let v = [m.get("deck.velocity.x"), m.get("deck.velocity.y")];
    let w = m.get("deck.angular_velocity.z");
    let ke = 0.5 * 500.0 * (v[0] * v[0] + v[1] * v[1]) + 0.5 * 250.0 * w * w;
    let by_gravity = 500.0 * 9.81 * (2.0 - m.get("y"));
    let work = m.get("deck.work");
    println!(
        "work through the mount {work:.6} J, ΔKE − gravity's work {:.6} J",
        ke - by_gravity
    );
    assert!((work - (ke - by_gravity)).abs() < 1e-6 * work.abs());
}
