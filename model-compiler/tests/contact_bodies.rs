//! Contact between bodies (issue 49) against closed forms: two balls' impact conserves
//! momentum and parts at the restitution, a box rests on a twisted box on its edge
//! crossings at the static penetration, mesh hulls touch as the shapes they outline,
//! joined bodies in a group do not touch, and the grapple of `models/grapple-log.toml`
//! lets its log slip at the holding threshold.

mod common;

use common::Machine;

const G: f64 = 9.81;

/// Two free balls, `a` (1 kg) at the origin and `b` (3 kg) 0.3 m along x, radius 0.1 m,
/// no gravity, the ground far below.
fn two_balls() -> String {
    let ball = |name: &str, mass: f64, x: f64| {
        let i = 0.4 * mass * 0.01;
        format!(
            r#"[[bodies]]
name = "{name}"
parent = "ground"
joint = {{ type = "free", name = "{name}_free", origin = [0, 0, 0], initial = [{x}, 0, 0, 0, 0, 0] }}
mass = "{mass} kg"
com = [0, 0, 0]
inertia = [{i}, {i}, {i}, 0, 0, 0]
collision = [{{ shape = "sphere", radius = "0.1 m" }}]
[[markers]]
name = "{name}_center"
body = "{name}"
point = [0, 0, 0]
[[interface.outputs]]
name = "{name}_vx"
quantity = "{name}_center.velocity.x"
"#
        )
    };
    format!(
        r#"[model]
name = "two-balls"
gravity = [0, 0, 0]
[solver]
step = "0.05 ms"
[init]
static_equilibrium = false
[contact]
ground = {{ shape = "plane", point = [0, 0, -10], normal = [0, 0, 1] }}
stiffness = "1e5 N/m"
restitution = 0.7
pairs = [{{ bodies = ["a", "b"] }}]
{}{}
[[interface.outputs]]
name = "force"
quantity = "contact.a.b.normal_force"
[[interface.outputs]]
name = "gap"
quantity = "contact.a.b.penetration"
"#,
        ball("a", 1.0, 0.0),
        ball("b", 3.0, 0.3)
    )
}

#[test]
fn two_balls_part_at_the_restitution_and_keep_their_momentum() {
    let mut m = Machine::from_model(common::compile_text("two-balls.toml", two_balls()));
    m.inst.initialize(0.0).unwrap();
    // Ball a moves at 1 m/s along x: its rate among the continuous states.
    let n = m.inst.ode_len().unwrap();
    let mut x = vec![0.0; n];
    m.inst.ode_states(&mut x).unwrap();
    let nf = 12;
    x[nf] = 1.0;
    m.inst.set_ode_states(&x).unwrap();
    let mut dx = vec![0.0; n];
    m.inst.ode_derivatives(&mut dx).unwrap();
    assert_eq!((m.get("a_vx"), m.get("b_vx")), (1.0, 0.0));
    assert!((m.get("gap") + 0.1).abs() < 1e-12, "{}", m.get("gap"));
    let h = 1e-3;
    let mut peak: f64 = 0.0;
    for k in 1..=300 {
        m.inst.advance(k as f64 * h).unwrap();
        peak = peak.max(m.get("force"));
    }
    let (va, vb) = (m.get("a_vx"), m.get("b_vx"));
    // v_a' = (m_a − e m_b)/(m_a + m_b) v, v_b' = (1 + e) m_a/(m_a + m_b) v.
    let (ea, eb) = ((1.0 - 0.7 * 3.0) / 4.0, 1.7 / 4.0);
    println!(
        "two balls: v_a' {va:.6} m/s against {ea:.6}, v_b' {vb:.6} m/s against {eb:.6}, momentum {:.3e} off, peak force {peak:.1} N",
        va + 3.0 * vb - 1.0
    );
    assert!(peak > 0.0 && m.get("force") == 0.0);
    assert!((va - ea).abs() < 0.01 * ea.abs(), "{va} against {ea}");
    assert!((vb - eb).abs() < 0.01 * eb, "{vb} against {eb}");
    assert!(
        (va + 3.0 * vb - 1.0).abs() < 1e-7,
        "momentum {}",
        va + 3.0 * vb
    );
}

#[test]
fn a_cube_rests_on_a_twisted_cube_on_its_edge_crossings_at_the_static_penetration() {
    for (twist, points) in [(0.0, 4.0), (17.0, 8.0)] {
        let mut m = Machine::from_model(common::compile_text(
            "stack.toml",
            common::cube_stack(twist, ""),
        ));
        m.inst.initialize(0.0).unwrap();
        m.inst.advance(2.0).unwrap();
        // Four ground corners carry 2 m g, k each; between the cubes the stiffnesses in
        // series (k/2) carry m g on four corners, or on eight edge crossings when turned.
        let low = 2.0 * G / (4.0 * 1e6);
        let top = G / (points * 0.5e6);
        let (zl, zt) = (m.get("low_z"), m.get("top_z"));
        assert_eq!(m.get("points"), points, "twist {twist}");
        assert!(
            ((0.1 - zl) - low).abs() < 0.01 * low,
            "{} against {low}",
            0.1 - zl
        );
        let gap = 0.2 - (zt - zl);
        println!(
            "cube stack, twist {twist}°: {} points, gap {gap:.4e} m against {top:.4e} m, ground {:.4e} m against {low:.4e} m",
            m.get("points"),
            0.1 - zl
        );
        assert!(
            (gap - top).abs() < 0.02 * top,
            "twist {twist}: {gap} against {top}"
        );
    }
}

/// The lower and upper cube after 2 s at rest: points in contact between them, and the
/// heights of both centres.
fn rest_stack(path: &std::path::Path, twist: f64, shapes: [&str; 2]) -> [f64; 3] {
    let text = common::cube_stack_of(twist, "", shapes);
    let mut m = Machine::from_model(common::compile_file(path, text));
    m.inst.initialize(0.0).unwrap();
    m.inst.advance(2.0).unwrap();
    [m.get("points"), m.get("low_z"), m.get("top_z")]
}

fn mesh_cube() -> String {
    let file = common::workspace().join("tests/descriptions/meshes/cube.stl");
    format!(r#"{{ shape = "mesh", file = "{}" }}"#, file.display())
}

const BOX: &str = r#"{ shape = "box", size = [0.2, 0.2, 0.2] }"#;

/// Collision hulls between bodies: the cube's mesh (`tests/descriptions/meshes/cube.stl`,
/// 0.2 m) on a box, a box on it, and two of them rest as the two boxes do — on four
/// corners, or turned 17° on the eight edge crossings (the closed form is the box test's
/// above) — and end within 1e-9 m of the boxes' run.
#[test]
fn mesh_cubes_rest_on_each_other_as_boxes_do() {
    let path = common::temp_dir("mesh-stack").join("stack.toml");
    let mesh = mesh_cube();
    for twist in [0.0, 17.0] {
        let [points, zl, zt] = rest_stack(&path, twist, [BOX, BOX]);
        for (what, shapes) in [
            ("mesh on box", [BOX, mesh.as_str()]),
            ("box on mesh", [mesh.as_str(), BOX]),
            ("mesh on mesh", [mesh.as_str(), mesh.as_str()]),
        ] {
            let [p, l, t] = rest_stack(&path, twist, shapes);
            println!(
                "twist {twist}°, {what}: {p} points (boxes {points}), heights {:.1e} and {:.1e} m from the boxes'",
                l - zl,
                t - zt
            );
            assert_eq!(p, points, "{what}, twist {twist}");
            assert!(
                (l - zl).abs() < 1e-9 && (t - zt).abs() < 1e-9,
                "{what}, twist {twist}"
            );
        }
    }
}

/// A ball and a capsule resting on the cube's mesh as on the box: one point at the
/// Hertz law's static penetration (the stiffnesses in series, k/2 at 1 mm), and the
/// capsule on its two end spheres; heights within 1e-9 m of the box's run.
#[test]
fn a_ball_and_a_capsule_rest_on_a_mesh_as_on_its_box() {
    let path = common::temp_dir("mesh-ball").join("stack.toml");
    let mesh = mesh_cube();
    let ball = r#"{ shape = "sphere", radius = 0.1 }"#;
    let capsule = r#"{ shape = "capsule", from = [-0.08, 0, 0], to = [0.08, 0, 0], radius = 0.1 }"#;
    for (what, top, points) in [("ball", ball, 1.0), ("capsule", capsule, 2.0)] {
        let [p_box, l_box, t_box] = rest_stack(&path, 0.0, [BOX, top]);
        let [p, l, t] = rest_stack(&path, 0.0, [mesh.as_str(), top]);
        assert_eq!(p_box, points, "{what} on the box");
        assert_eq!(p, points, "{what} on the mesh");
        assert!(
            (l - l_box).abs() < 1e-9 && (t - t_box).abs() < 1e-9,
            "{what}: {} {}",
            l - l_box,
            t - t_box
        );
        // F = K δ^1.5 per point with K = (k/2) / d_ref^0.5 (k = 1e6 N/m at d_ref = 1 mm).
        let d_ref = 1e-3;
        let depth = d_ref * (G / points / (0.5e6 * d_ref)).powf(2.0 / 3.0);
        let gap = 0.2 - (t - l);
        println!(
            "{what} on the mesh cube: {p} points, penetration {gap:.6e} m against {depth:.6e} m"
        );
        assert!(
            (gap - depth).abs() < 0.01 * depth,
            "{what}: {gap} against {depth}"
        );
    }
}

/// A hull that is not a box: a square pyramid's mesh (`meshes/pyramid.obj`, base 0.2 m
/// at 0.05 m below its origin) set on the cube rests on its four base corners, each at the
/// flat law's static penetration `m g / (4 k/2)`, on the box and on the cube's mesh alike;
/// and turned 17° on the cube's mesh, on the crossings of their edges.
#[test]
fn a_pyramid_mesh_rests_on_its_base_corners() {
    let path = common::temp_dir("mesh-pyramid").join("stack.toml");
    let file = common::workspace().join("tests/descriptions/meshes/pyramid.obj");
    let pyramid = format!(r#"{{ shape = "mesh", file = "{}" }}"#, file.display());
    let mesh = mesh_cube();
    let depth = G / (4.0 * 0.5e6);
    for (what, low, twist, points) in [
        ("on the box", BOX, 0.0, 4.0),
        ("on the cube's mesh", mesh.as_str(), 0.0, 4.0),
        ("on the cube's mesh, turned", mesh.as_str(), 17.0, 8.0),
    ] {
        let [p, l, t] = rest_stack(&path, twist, [low, pyramid.as_str()]);
        // Its centre starts 0.05 m too high: it drops onto its base.
        let gap = 0.15 - (t - l);
        println!(
            "pyramid {what}: {p} points, penetration {gap:.6e} m against {:.6e} m",
            depth * 4.0 / points
        );
        assert_eq!(p, points, "{what}");
        assert!(
            (gap - depth * 4.0 / points).abs() < 0.01 * depth,
            "{what}: {gap}"
        );
    }
}

#[test]
fn joined_bodies_in_a_group_do_not_touch_unless_paired() {
    let text = |list: &str| {
        format!(
            r#"[model]
name = "jaws"
gravity = [0, 0, -9.81]
[init]
static_equilibrium = false
[[bodies]]
name = "head"
parent = "ground"
joint = {{ type = "revolute", name = "swing", origin = [0, 0, 2], axis = [0, 1, 0] }}
mass = "10 kg"
com = [0, 0, 0]
inertia = [0.1, 0.1, 0.1, 0, 0, 0]
collision = [{{ shape = "box", size = [0.2, 0.2, 0.2] }}]
[[bodies]]
name = "jaw"
parent = "head"
joint = {{ type = "spherical", name = "close", origin = [0.1, 0, 0] }}
mass = "2 kg"
com = [0, 0, -0.2]
inertia = [0.01, 0.01, 0.01, 0, 0, 0]
collision = [{{ shape = "capsule", from = [0, 0, 0], to = [0, 0, -0.4], radius = "0.03 m" }}]
[[bodies]]
name = "log"
parent = "ground"
joint = {{ type = "free", name = "log_free", origin = [0, 0, 0], initial = [0, 0, 0.2, 0, 0, 0] }}
mass = "500 kg"
com = [0, 0, 0]
inertia = [2.5, 40, 40, 0, 0, 0]
collision = [{{ shape = "capsule", from = [-1, 0, 0], to = [1, 0, 0], radius = "0.2 m" }}]
[contact]
{list}
"#
        )
    };
    let names = |list: &str| {
        let m = common::compile_text("jaws.toml", text(list));
        m.mechanism
            .contacts
            .pairs
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
    };
    let ground = ["head", "jaw", "log"].map(String::from).to_vec();
    let group = names("groups = [{ bodies = [\"head\", \"jaw\", \"log\"] }]");
    assert_eq!(group[..3], ground[..]);
    assert_eq!(group[3..], ["head.log", "jaw.log"].map(String::from));
    let paired = names(
        "groups = [{ bodies = [\"head\", \"jaw\", \"log\"] }]\npairs = [{ bodies = [\"jaw\", \"head\"] }]",
    );
    assert_eq!(
        paired[3..],
        ["head.jaw", "head.log", "jaw.log"].map(String::from)
    );
}

/// `models/grapple-log.toml` over its manoeuvre: the closing pressure held at 6 MPa for
/// 1 s, then lowered by 0.5 MPa/s. While it holds, the tines' friction carries the log's
/// weight and each jaw presses with the cylinder's force; the log starts to slip (1 mm/s,
/// ten stiction speeds) where 2 μ N = m g, N the cylinder's force: within 5 % of the
/// closed-form closing pressure p_s* = (m g/(2 μ) + p_t A_cap)/A_rod.
#[test]
fn the_grapple_holds_its_log_by_friction_and_lets_it_slip_at_the_closed_form_pressure() {
    let creep = grapple_holds_and_lets_slip(Machine::load("grapple-log.toml"), "coulomb");
    // Regularized friction creeps while holding (the log sinks at a fraction of v_ε).
    assert!(creep > 1e-6, "{creep}");
}

/// The same grapple with LuGre bristles on the tines: the threshold is the same (static =
/// kinetic friction), and while holding the log no longer creeps.
#[test]
fn with_lugre_bristles_the_grapple_holds_its_log_without_creep() {
    let text = std::fs::read_to_string(common::workspace().join("models/grapple-log.toml"))
        .unwrap()
        .replace(
            "friction = 0.4 ",
            "friction_model = \"lugre\"\nfriction = 0.4 ",
        );
    let m = Machine::from_model(common::compile_text("grapple-log.toml", text));
    let creep = grapple_holds_and_lets_slip(m, "lugre");
    assert!(creep < 1e-6, "{creep}");
}

/// Runs the closing-pressure ramp, checks the holding forces and the slip onset, and
/// returns how far the log sank while held at 6 MPa, from 0.5 s to 1 s [m].
fn grapple_holds_and_lets_slip(mut m: Machine, law: &str) -> f64 {
    let (mass, mu, p_tank) = (500.0, 0.4, 0.1e6);
    let cap = std::f64::consts::PI / 4.0 * 0.063f64.powi(2);
    let rod = cap - std::f64::consts::PI / 4.0 * 0.036f64.powi(2);
    let threshold = (mass * G / (2.0 * mu) + p_tank * cap) / rod;
    assert!((threshold - 3.069e6).abs() < 1e3, "{threshold}");
    let closing = |t: f64| {
        if t < 1.0 {
            6e6
        } else {
            6e6 - 0.5e6 * (t - 1.0)
        }
    };
    m.set("closing.p", closing(0.0));
    m.inst.initialize(0.0).unwrap();
    let h = 1e-3;
    let mut onset = None;
    let mut held = [0.0; 2];
    for k in 1..=9000 {
        let t = k as f64 * h;
        m.set("closing.p", closing(t));
        m.inst.advance(t).unwrap();
        if k == 500 || k == 1000 {
            held[k / 500 - 1] = m.get("log.z");
        }
        if t > 0.5 && onset.is_none() {
            // Holding: the friction of both jaws carries the weight (less the creep's
            // inertia, nil), each jaw presses with the cylinder's pull.
            let carried = m.get("left.friction_force") + m.get("right.friction_force");
            assert!(
                (carried - mass * G).abs() < 5e-3 * mass * G,
                "t {t}: {carried}"
            );
            let pull = -m.get("clamp.force");
            for side in ["left", "right"] {
                let n = m.get(&format!("{side}.normal_force"));
                assert!(
                    (n - pull).abs() < 1e-3 * pull,
                    "t {t}: {side} {n} against {pull}"
                );
            }
        }
        if t > 1.0 && onset.is_none() && m.get("slip_speed") > 1e-3 {
            onset = Some((t, m.get("clamp.p_rod"), -m.get("clamp.force")));
        }
    }
    let (t, p, pull) = onset.expect("the log never slipped");
    // At the onset the pull is the closed form's 2 μ N = m g (N within 1 %: the creep
    // law's 1 mm/s is r = 0.995 of the peak), the pressure within 5 % of p_s*.
    assert!(
        (pull - mass * G / (2.0 * mu)).abs() < 0.01 * mass * G / (2.0 * mu),
        "t {t}: pull {pull}"
    );
    assert!(
        (p - threshold).abs() < 0.05 * threshold,
        "t {t}: {p} against {threshold}"
    );
    let creep = held[0] - held[1];
    println!(
        "{law}: slip onset at t = {t:.3} s: closing pressure {:.4} MPa against {:.4} MPa ({:+.2} %); sank {creep:.3e} m while held from 0.5 s to 1 s",
        p / 1e6,
        threshold / 1e6,
        100.0 * (p / threshold - 1.0)
    );
    // Then it falls out onto the ground.
    assert!(m.get("log.z") < 0.21, "{}", m.get("log.z"));
    creep
}
