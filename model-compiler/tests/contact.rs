//! Contact with the ground (issue 49) against closed forms: a bouncing ball's apexes and
//! resting penetration, a block that sticks or slides on an incline, a cylinder that rolls
//! or slips down a ramp.

mod common;

use common::Machine;

const G: f64 = 9.81;

/// `models/ball-drop.toml` with its solver step replaced.
fn ball_drop(step: &str) -> Machine {
    let path = common::workspace().join("models/ball-drop.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.replace("step = \"0.1 ms\"", &format!("step = \"{step}\""));
    Machine::from_model(common::compile_text("ball-drop.toml", text))
}

/// Apexes of the ball's centre (interpolated at the velocity's sign change) and the
/// balance error at each, sampled every `h` up to `t_end`.
fn apexes(m: &mut Machine, h: f64, t_end: f64) -> Vec<(f64, f64, f64)> {
    m.inst.initialize(0.0).unwrap();
    let mut out = Vec::new();
    let (mut z0, mut v0) = (m.get("height"), m.get("velocity"));
    for k in 1..=(t_end / h).round() as usize {
        m.inst.advance(k as f64 * h).unwrap();
        let (z, v) = (m.get("height"), m.get("velocity"));
        if v0 > 0.0 && v <= 0.0 {
            // The apex of the parabola through the two samples: z0 + v0²/(2g).
            let apex = z0 + v0 * v0 / (2.0 * G);
            out.push((k as f64 * h, apex.max(z), m.get("balance_error")));
        }
        (z0, v0) = (z, v);
    }
    out
}

#[test]
fn a_dropped_ball_bounces_to_e_squared_of_each_apex_and_rests_at_the_static_penetration() {
    let e: f64 = 0.7;
    let mut m = ball_drop("0.1 ms");
    let found = apexes(&mut m, 1e-4, 4.0);
    // Resting height: radius less the law's static penetration, δ = d_ref (mg/(k d_ref))^(1/n).
    let rest_depth = 1e-3 * (1.0 * G / (1e5 * 1e-3)).powf(1.0 / 1.5);
    let depth = m.get("penetration");
    println!("resting penetration {depth:.6e} m (closed form {rest_depth:.6e} m)");
    assert!((depth - rest_depth).abs() < 0.01 * rest_depth);
    // Heights above where the ball first touches (centre one radius up): the impact speed
    // is √(2 g h), the rebound e times it.
    let touch = 0.1;
    let mut last = 1.0;
    let drop_energy = 1.0 * G * 1.0;
    let mut last_error = 0.0;
    for (k, (t, apex, balance)) in found.iter().take(4).enumerate() {
        let h = apex - touch;
        let ratio = h / last;
        let per_bounce = (balance - last_error).abs() / drop_energy;
        println!(
            "bounce {}: apex at {t:.4} s, {h:.5} m above rest, ratio {ratio:.4} (e² = {:.4}), balance error {:.2e} of the drop energy",
            k + 1,
            e * e,
            per_bounce
        );
        assert!(
            (ratio - e * e).abs() < 0.03 * e * e,
            "bounce {}: {ratio}",
            k + 1
        );
        last = h;
        last_error = *balance;
    }
    assert_eq!(m.get("contact_points"), 1.0);
}

#[test]
fn the_energy_balance_error_of_a_bounce_is_the_integrators_and_falls_with_the_step() {
    // The contact's elastic energy is potential energy and its damping power work: what
    // remains is the integrator's error, O(h²) — a bookkeeping slip would not fall.
    let first = |step: &str, h: f64| {
        let mut m = ball_drop(step);
        apexes(&mut m, h, 0.8)[0].2.abs()
    };
    let coarse = first("0.1 ms", 1e-4);
    let fine = first("0.05 ms", 5e-5);
    println!(
        "balance error after the first bounce: {coarse:.3e} J at 0.1 ms, {fine:.3e} J at 0.05 ms (ratio {:.2}); drop energy {G} J",
        coarse / fine
    );
    assert!(coarse < 1e-4 * G, "{coarse}");
    // The damper's δ^(1/4) at touch-down and the clamp's release are kinks the rule
    // crosses: the order falls below 2 (3.3× from 0.1 to 0.05 ms, 2.7× to 0.025 ms).
    assert!((2.5..4.5).contains(&(coarse / fine)), "{coarse} / {fine}");
}

/// A 1 kg, 0.2 m cube on a plane tilted by `slope` about y, resting flat on it.
fn block(slope_deg: f64, friction: &str, stiction: &str) -> String {
    block_with(slope_deg, friction, stiction, "")
}

/// [`block`] with more keys of the box's material (`extra`, starting with a comma).
fn block_with(slope_deg: f64, friction: &str, stiction: &str, extra: &str) -> String {
    common::cube_on_incline(
        slope_deg,
        &format!(
            r#"{{ shape = "box", size = [0.2, 0.2, 0.2], stiffness = "1e6 N/m", restitution = 0.5, friction = {friction}, stiction_velocity = "{stiction}"{extra} }}"#
        ),
        "",
    )
}

/// Distance travelled down the slope and speed along it.
fn along_slope(m: &Machine, slope_deg: f64) -> (f64, f64) {
    let (s, c) = slope_deg.to_radians().sin_cos();
    // Downhill: −(cos θ, 0, sin θ).
    let down = |x: f64, z: f64| -(x * c + z * s);
    (down(m.get("x"), m.get("z")), down(m.get("vx"), m.get("vz")))
}

#[test]
fn a_block_holds_on_a_30_degree_incline_with_static_friction_and_slides_with_less() {
    let theta = 30.0;
    // μ_s = 0.7 > tan 30° = 0.577: it holds, creeping at the regularized law's speed
    // v_ε r/√(1 − r²), r = tan θ/μ_s = 0.82: 1.46 v_ε, 0.15 mm/s at the default v_ε.
    let mut m = Machine::from_model(common::compile_text(
        "block-incline.toml",
        block(theta, "{ static = 0.7, kinetic = 0.6 }", "0.1 mm/s"),
    ));
    m.inst.initialize(0.0).unwrap();
    let (x0, _) = along_slope(&m, theta);
    for k in 1..=5000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let (x, v) = along_slope(&m, theta);
    println!(
        "μ_s 0.7 on 30°: drift {:.3e} m in 5 s, speed {v:.2e} m/s, {} corners touching, friction {:.4} N (m g sin θ = {:.4} N)",
        x - x0,
        m.get("points"),
        m.get("friction"),
        G * 0.5
    );
    assert!((x - x0).abs() < 1e-3);
    assert_eq!(m.get("points"), 4.0);
    assert!((m.get("friction") - G * 0.5).abs() < 1e-3 * G);

    // μ = 0.3: it slides at g (sin θ − μ cos θ).
    let (s, c) = theta.to_radians().sin_cos();
    let expected = G * (s - 0.3 * c);
    let a = sliding_acceleration(theta, "");
    println!("μ 0.3 on 30°: a = {a:.5} m/s² (closed form {expected:.5})");
    assert!((a - expected).abs() < 0.01 * expected);
}

/// The block's acceleration down the slope with μ = 0.3 (`extra`: more material keys),
/// from its speeds at 1 s and 2 s.
fn sliding_acceleration(theta: f64, extra: &str) -> f64 {
    let mut m = Machine::from_model(common::compile_text(
        "block-incline.toml",
        block_with(theta, "0.3", "0.1 mm/s", extra),
    ));
    m.inst.initialize(0.0).unwrap();
    let mut speeds = Vec::new();
    for k in 1..=2000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
        if k == 1000 || k == 2000 {
            speeds.push(along_slope(&m, theta).1);
        }
    }
    speeds[1] - speeds[0]
}

/// The material key that chooses LuGre bristles (default σ0, σ1).
const LUGRE: &str = r#", friction_model = "lugre""#;

#[test]
fn lugre_bristles_hold_a_block_on_a_30_degree_incline_without_creep() {
    let theta: f64 = 30.0;
    let (s, c) = theta.to_radians().sin_cos();
    // μ_s = 0.7 > tan 30°: the bristles (default σ0 = 1e5/m) take the load at
    // z = tan θ/σ0 = 5.8 µm and hold; the creep left is the smoothed |v|'s,
    // ε r/√(1 − r²) = 1.5 µm/s, r = tan θ/μ_s.
    let lugre = LUGRE;
    let mut m = Machine::from_model(common::compile_text(
        "block-incline.toml",
        block_with(theta, "{ static = 0.7, kinetic = 0.6 }", "0.1 mm/s", lugre),
    ));
    m.inst.initialize(0.0).unwrap();
    let (x0, _) = along_slope(&m, theta);
    let mut at_1s = 0.0;
    let mut snap = None;
    for k in 1..=5000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
        if k == 1000 {
            at_1s = along_slope(&m, theta).0;
        }

        if k == 2500 {
            snap = Some(m.inst.snapshot());
        }
    }
    let (x, v) = along_slope(&m, theta);
    println!(
        "LuGre μ_s 0.7 on 30°: drift {:.3e} m in 5 s ({:.3e} m from 1 s to 5 s), speed {v:.2e} m/s, friction {:.4} N (m g sin θ = {:.4} N)",
        x - x0,
        x - at_1s,
        m.get("friction"),
        G * s
    );
    assert!((x - x0).abs() < 3e-5, "drift {}", x - x0);
    assert!((x - at_1s).abs() < 1e-5, "creep {}", x - at_1s);
    assert_eq!(m.get("points"), 4.0);
    assert!((m.get("friction") - G * s).abs() < 1e-3 * G);
    // The bristles are in the FMU state: a run restored at 2.5 s ends bit for bit equal.
    let end = m.get("x");
    m.inst.restore(&snap.unwrap()).unwrap();
    for k in 2501..=5000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    assert_eq!(m.get("x").to_bits(), end.to_bits());

    // μ = 0.3: it slides at g (sin θ − μ cos θ), the bristles at their steady deflection.
    let expected = G * (s - 0.3 * c);
    let a = sliding_acceleration(theta, lugre);
    println!("LuGre μ 0.3 on 30°: a = {a:.5} m/s² (closed form {expected:.5})");
    assert!((a - expected).abs() < 0.01 * expected);
}

/// Model Exchange: the bristles are continuous states (three per candidate point, the
/// cube's 8 corners), their rates the state equation's; a master's explicit integrator
/// (RK4 at 0.2 ms, inside the bristles' ω = √(g σ0) ≈ 990 rad/s) holds the block as the
/// co-simulation step does.
#[test]
fn lugre_bristles_are_model_exchange_states_and_hold_the_block_there_too() {
    let theta: f64 = 30.0;
    let text = block_with(theta, "{ static = 0.7, kinetic = 0.6 }", "0.1 mm/s", LUGRE);
    let mut cs = Machine::from_model(common::compile_text("block-incline.toml", text.clone()));
    cs.inst.initialize(0.0).unwrap();
    let mut m = Machine::from_model(common::compile_text("block-incline.toml", text));
    m.inst.initialize(0.0).unwrap();
    let n = m.inst.ode_len().unwrap();
    // Six coordinates, six rates, 24 bristle states and the actuator work.
    assert_eq!(n, 6 + 6 + 24 + 1);
    let (x0, _) = along_slope(&m, theta);
    let mut x = vec![0.0; n];
    m.inst.ode_states(&mut x).unwrap();
    let f = |x: &[f64], m: &mut Machine| {
        m.inst.set_ode_states(x).unwrap();
        let mut dx = vec![0.0; x.len()];
        m.inst.ode_derivatives(&mut dx).unwrap();
        dx
    };
    let h = 2e-4;
    for k in 1..=5000 {
        let k1 = f(&x, &mut m);
        let at =
            |k: &[f64], c: f64| -> Vec<f64> { x.iter().zip(k).map(|(a, b)| a + c * b).collect() };
        let k2 = f(&at(&k1, 0.5 * h), &mut m);
        let k3 = f(&at(&k2, 0.5 * h), &mut m);
        let k4 = f(&at(&k3, h), &mut m);
        for i in 0..n {
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        if k % 5 == 0 {
            cs.inst.advance(k as f64 * h).unwrap();
        }
    }
    f(&x, &mut m);
    let (x_me, _) = along_slope(&m, theta);
    let (x_cs, _) = along_slope(&cs, theta);
    println!(
        "LuGre block, 1 s: drift {:.3e} m (Model Exchange, RK4 0.2 ms), {:.3e} m (co-simulation, 1 ms); friction {:.4} N",
        x_me - x0,
        x_cs - x0,
        m.get("friction")
    );
    assert!((x_me - x0).abs() < 3e-5);
    assert!((x_me - x_cs).abs() < 2e-6, "{x_me} vs {x_cs}");
    assert!((m.get("friction") - G * 0.5).abs() < 1e-3 * G);
}

/// A solid cylinder (r 0.2 m, 0.5 m long, 10 kg) on a plane tilted by `slope` about y, its
/// axis across the slope; `extra` adds keys to its material (starting with a comma).
fn cylinder_with(slope_deg: f64, friction: f64, extra: &str) -> String {
    let (s, c) = slope_deg.to_radians().sin_cos();
    let (m, r, l) = (10.0, 0.2, 0.5);
    let d = r - m * G * c / (2.0 * 1e7);
    let (ia, it) = (0.5 * m * r * r, m * (3.0 * r * r + l * l) / 12.0);
    format!(
        r#"[model]
name = "rolling-cylinder"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "roller"
parent = "ground"
joint = {{ type = "free", name = "roll", origin = [0, 0, 0], initial = [{x}, 0, {z}, 0, 0, 0] }}
mass = "{m} kg"
com = [0, 0, 0]
inertia = [{it}, {ia}, {it}, 0, 0, 0]
collision = [{{ shape = "cylinder", from = [0, -0.25, 0], to = [0, 0.25, 0], radius = "0.2 m", stiffness = "1e7 N/m", restitution = 0.3, friction = {friction}{extra} }}]
[contact]
ground = {{ shape = "plane", point = [0, 0, 0], normal = [{nx}, 0, {nz}] }}
[[markers]]
name = "axle"
body = "roller"
point = [0, 0, 0]
[[interface.outputs]]
name = "x"
quantity = "axle.position.x"
[[interface.outputs]]
name = "z"
quantity = "axle.position.z"
[[interface.outputs]]
name = "vx"
quantity = "axle.velocity.x"
[[interface.outputs]]
name = "vz"
quantity = "axle.velocity.z"
[[interface.outputs]]
name = "slip"
quantity = "contact.roller.slip_speed"
[[interface.outputs]]
name = "points"
quantity = "contact.roller.points"
"#,
        x = -s * d,
        z = c * d,
        nx = -s,
        nz = c,
    )
}

#[test]
fn a_cylinder_rolls_down_a_10_degree_ramp_at_two_thirds_g_sin_theta_and_slips_on_ice() {
    let theta: f64 = 10.0;
    let (s, c) = theta.to_radians().sin_cos();
    // Both friction laws: regularized Coulomb and LuGre bristles.
    for (mu, expected, rolls, extra) in [
        (0.5, 2.0 / 3.0 * G * s, true, ""),
        // μ below tan θ / 3 = 0.0588: it slips, sliding friction μ m g cos θ.
        (0.03, G * (s - 0.03 * c), false, ""),
        (0.5, 2.0 / 3.0 * G * s, true, LUGRE),
        (0.03, G * (s - 0.03 * c), false, LUGRE),
    ] {
        let mut m = Machine::from_model(common::compile_text(
            "rolling-cylinder.toml",
            cylinder_with(theta, mu, extra),
        ));
        m.inst.initialize(0.0).unwrap();
        let mut speeds = Vec::new();
        for k in 1..=2000 {
            m.inst.advance(k as f64 * 1e-3).unwrap();
            if k == 1000 || k == 2000 {
                speeds.push(along_slope(&m, theta).1);
            }
        }
        let a = speeds[1] - speeds[0];
        let slip = m.get("slip");
        println!(
            "μ {mu}{extra}: a = {a:.5} m/s² (closed form {expected:.5}), slip speed {slip:.2e} m/s, {} points",
            m.get("points")
        );
        assert!((a - expected).abs() < 0.01 * expected, "μ {mu}: {a}");
        assert_eq!(m.get("points"), 2.0);
        if rolls {
            assert!(slip < 1e-3, "{slip}");
        } else {
            assert!(slip > 0.5, "{slip}");
        }
    }
}

/// A 500 kg sphere on a linear 1e8 N/m contact, dropped from 1 cm, at solver step `step`.
fn heavy_sphere(step: &str) -> String {
    format!(
        r#"[model]
name = "heavy-sphere"
gravity = [0, 0, -9.81]
[solver]
step = "{step}"
[init]
static_equilibrium = false
[[bodies]]
name = "mass"
parent = "ground"
joint = {{ type = "free", name = "drop", origin = [0, 0, 0], initial = [0, 0, 0.51, 0, 0, 0] }}
mass = "500 kg"
com = [0, 0, 0]
inertia = [50, 50, 50, 0, 0, 0]
collision = [{{ shape = "sphere", radius = "0.5 m", stiffness = "1e8 N/m", exponent = 1, restitution = 0.5 }}]
[[interface.outputs]]
name = "penetration"
quantity = "contact.mass.penetration"
[[interface.outputs]]
name = "kinetic"
quantity = "energy.kinetic"
[[interface.outputs]]
name = "balance"
quantity = "energy.balance_error"
"#
    )
}

#[test]
fn a_stiff_contact_under_500_kg_settles_at_steps_far_beyond_the_explicit_limit() {
    // ω = √(k/m) = 447 rad/s: an explicit integrator needs h < 2/ω = 4.5 ms (central
    // differences; less with damping). The implicit trapezoidal step settles up to 2.2× that;
    // at 20 ms (4.5×) the touch-down, 9 mm into the spring within one step, throws the
    // sphere back up (measured: 1.2e4 J gained), so it is not among these.
    let omega = (1e8f64 / 500.0).sqrt();
    let rest = 500.0 * G / 1e8;
    println!("explicit limit 2/ω = {:.2} ms", 2e3 / omega);
    for (step, h) in [("1 ms", 1e-3f64), ("5 ms", 5e-3), ("10 ms", 1e-2)] {
        let mut m = Machine::from_model(common::compile_text(
            "heavy-sphere.toml",
            heavy_sphere(step),
        ));
        m.inst.initialize(0.0).unwrap();
        let n = (3.0 / h).round() as usize;
        let mut peak_kinetic: f64 = 0.0;
        for k in 1..=n {
            m.inst.advance(k as f64 * h).unwrap();
            peak_kinetic = peak_kinetic.max(m.get("kinetic"));
        }
        let (depth, kinetic) = (m.get("penetration"), m.get("kinetic"));
        println!(
            "h = {step} ({:.1}× 2/ω): resting penetration {depth:.4e} m (m g/k = {rest:.4e}), kinetic energy after 3 s {kinetic:.1e} J (peak {peak_kinetic:.1} J), balance error {:.2e} J",
            h * omega / 2.0,
            m.get("balance"),
        );
        assert!((depth - rest).abs() < 0.01 * rest, "h {step}: {depth}");
        assert!(kinetic < 1e-6 * peak_kinetic, "h {step}: {kinetic}");
    }
}

/// `models/excavator.toml` with its bucket's cutting edge as a frictionless sphere above a
/// ground plane, gravity off (so the moment balance about the boom pivot has two terms),
/// and outputs of the tip and the contact.
fn excavator_over_ground(ground_z: f64) -> String {
    let text = std::fs::read_to_string(common::workspace().join("models/excavator.toml"))
        .unwrap()
        .replace("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, 0.0, 0.0]");
    let bucket = "inertia = [2566.7, 3257.0, 2174.9, 0, 703.3, 0]";
    assert!(text.contains(bucket));
    let text = text.replace(
        bucket,
        &format!(
            "{bucket}\ncollision = [{{ shape = \"sphere\", center = [1.3969, 0, -1.3925], radius = \"0.1 m\", stiffness = \"1e8 N/m\", restitution = 0.3, friction = 0 }}]"
        ),
    );
    text.replace(
        "# FMI interface.",
        r#"[contact]
ground = { shape = "plane", point = [0, 0, TIP_Z], normal = [0, 0, 1] }

# FMI interface.
[[interface.outputs]]
name = "tip.x"
quantity = "bucket_tip.position.x"
[[interface.outputs]]
name = "tip.z"
quantity = "bucket_tip.position.z"
[[interface.outputs]]
name = "ground.force"
quantity = "contact.bucket.normal_force"
[[interface.outputs]]
name = "relief.flow"
quantity = "boom_rod_side_relief.flow"
"#,
    )
    .replace("TIP_Z", &format!("{ground_z}"))
}

/// The excavator's bucket pressed against the ground (issue 49): the stick cylinder crowds
/// the cutting edge into the ground with the boom valve closed; the ground's push turns the
/// boom up against its cylinders' rod sides, whose pressure rises until the 400 bar port
/// relief (note §7.4) opens and the boom yields. Moments about the boom pivot (the stick and
/// its cylinder inside the balanced subtree; the contact frictionless, so its force is
/// vertical): `F_n (x_c − x_pivot) = 2 (p_rod A_rod − p_cap A_cap) r_cyl`, with r_cyl the
/// boom cylinders' arm from the §4 pins at the boom angle reached. The relief opens at
/// the closed-form force where p_rod = 400 bar.
#[test]
fn the_excavator_presses_its_bucket_on_the_ground_until_the_boom_relief_opens() {
    // The idle pose's cutting edge, with the ground far below; then the ground 5 cm under
    // the sphere around it.
    let mut m = Machine::from_model(common::compile_text(
        "excavator.toml",
        excavator_over_ground(-100.0),
    ));
    m.inst.initialize(0.0).unwrap();
    let tip_z = m.get("tip.z");
    let mut m = Machine::from_model(common::compile_text(
        "excavator.toml",
        excavator_over_ground(tip_z - 0.15),
    ));
    m.inst.initialize(0.0).unwrap();
    assert_eq!(m.get("ground.force"), 0.0);
    m.set("stick.command", 1.0);
    let h = 1e-3;
    // Closed form from the pins (note §4): boom foot (0, 0.7), rod eye (3.3498, 0.2207) on
    // the boom, barrel pin (0.9, 0.475) on the upper structure; the boom turns by q about
    // −y (x towards z). The arm of the cylinders' line about the pivot, |(eye − pivot) × e|.
    let arm = |q: f64| {
        let (s, c) = q.sin_cos();
        let eye = (3.3498 * c - 0.2207 * s, 3.3498 * s + 0.2207 * c);
        let (dx, dz) = (eye.0 - 0.9, eye.1 + 0.7 - 0.475);
        (eye.0 * dz - eye.1 * dx).abs() / (dx * dx + dz * dz).sqrt()
    };
    let area = |d: f64| std::f64::consts::PI / 4.0 * d * d;
    let (a_cap, a_rod) = (area(0.22), area(0.22) - area(0.15));
    let (mut opened, mut sums, mut samples) = (None, [0.0; 2], 0);
    for k in 1..=2000 {
        let t = k as f64 * h;
        m.inst.advance(t).unwrap();
        let (p_rod, p_cap) = (m.get("boom_cylinder.p_rod"), m.get("boom_cylinder.p_cap"));
        let pull = 2.0 * (p_rod * a_rod - p_cap * a_cap);
        let expected = pull * arm(m.get("boom.angle")) / m.get("tip.x");
        let force = m.get("ground.force");
        if opened.is_none() && m.get("relief.flow") > 0.0 {
            opened = Some((t, p_rod, force, expected));
        }
        // The boom yielding through the relief: the force swings about the balance with
        // the bucket's touch-down ringing (±5 % at 1 s, decaying); compared as means.
        if t > 1.0 {
            assert!(m.get("relief.flow") > 0.0, "t {t}: the relief closed");
            assert!((p_rod - 400e5).abs() < 0.005 * 400e5, "t {t}: {p_rod}");
            assert!(
                (force - expected).abs() < 0.05 * expected,
                "t {t}: {force} vs {expected}"
            );
            sums[0] += force;
            sums[1] += expected;
            samples += 1;
        }
    }
    let (t, p, force, expected) = opened.expect("the boom relief never opened");
    let (mean, balance) = (sums[0] / samples as f64, sums[1] / samples as f64);
    println!(
        "bucket crowded into the ground: the boom rod-side relief opens at t = {t:.3} s, {:.2} bar (setting 400 bar), ground force {:.1} kN against {:.1} kN through the linkage ({:+.2} %); yielding 1–2 s: mean ground force {:.1} kN against {:.1} kN ({:+.3} %), boom turned up to {:.4} rad",
        p / 1e5,
        force / 1e3,
        expected / 1e3,
        100.0 * (force / expected - 1.0),
        mean / 1e3,
        balance / 1e3,
        100.0 * (mean / balance - 1.0),
        m.get("boom.angle")
    );
    assert!(
        (mean - balance).abs() < 0.01 * balance,
        "{mean} vs {balance}"
    );
}
