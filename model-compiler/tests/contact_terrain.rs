//! Contact with a heightfield ground (issue 49): a heightfield sampling a slope is that
//! slope (a ball rolls down it as on the plane, at 5/7 g sin θ), and a ball in a bowl
//! rolls to and fro at the closed-form period.

mod common;

use common::Machine;

const G: f64 = 9.81;

/// A 1 kg ball (r 0.1 m) on a free joint at (x, 0, z) over `ground`.
fn ball_over(ground: &str, x: f64, z: f64) -> String {
    format!(
        r#"[model]
name = "terrain-ball"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "ball"
parent = "ground"
joint = {{ type = "free", name = "drop", origin = [0, 0, 0], initial = [{x}, 0, {z}, 0, 0, 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.004, 0.004, 0.004, 0, 0, 0]
collision = [{{ shape = "sphere", radius = "0.1 m", stiffness = "1e6 N/m", restitution = 0.3 }}]
[contact]
ground = {ground}
[[markers]]
name = "center"
body = "ball"
point = [0, 0, 0]
[[interface.outputs]]
name = "x"
quantity = "center.position.x"
[[interface.outputs]]
name = "z"
quantity = "center.position.z"
[[interface.outputs]]
name = "vx"
quantity = "center.velocity.x"
[[interface.outputs]]
name = "normal"
quantity = "contact.ball.normal_force"
"#
    )
}

/// Writes the heights `h(x, y)` sampled on a grid into `dir/name.csv` and compiles the
/// description `text` from `dir`.
fn compile_with_heights(
    dir: &std::path::Path,
    text: String,
    grid: (usize, usize, f64, f64, f64),
    h: impl Fn(f64, f64) -> f64,
) -> Machine {
    let (columns, rows, x0, y0, step) = grid;
    let mut csv = String::from("# heights [m], a row per y\n");
    for j in 0..rows {
        let row: Vec<String> = (0..columns)
            .map(|i| format!("{:e}", h(x0 + i as f64 * step, y0 + j as f64 * step)))
            .collect();
        csv += &row.join(", ");
        csv += "\n";
    }
    std::fs::write(dir.join("terrain.csv"), csv).unwrap();
    Machine::from_model(common::compile_at(&dir.join("terrain-ball.toml"), text).model)
}

/// x and z after `t` s at 1 ms.
fn run(m: &mut Machine, t: f64) -> (f64, f64) {
    m.inst.initialize(0.0).unwrap();
    for k in 1..=(t / 1e-3).round() as usize {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    (m.get("x"), m.get("z"))
}

#[test]
fn a_ball_rolls_down_a_heightfield_slope_as_down_the_plane_at_five_sevenths_g_sin_theta() {
    let dir = common::temp_dir("terrain-slope");
    let theta = 10f64.to_radians();
    let slope = theta.tan();
    // The plane z = −x tan θ, sampled every 0.25 m from x = −2 to 3.
    let surface = |x: f64, _y: f64| -slope * x;
    let (s, c) = theta.sin_cos();
    // Centre on the slope at x = 0, 0.25 mm deep (5× the static penetration): it lands
    // hard and stops slipping within a step. (With the law's slope as the tangent past
    // the stiction speed, Newton failed this landing at every step size.)
    let (x0, z0) = (0.1 * s, 0.1 * c - 2.5e-4);
    let heightfield = r#"{ shape = "heightfield", file = "terrain.csv", spacing = ["0.25 m", "0.25 m"], origin = [-2, -1, 0] }"#;
    let mut on_field = compile_with_heights(
        &dir,
        ball_over(heightfield, x0, z0),
        (21, 9, -2.0, -1.0, 0.25),
        surface,
    );
    let plane = format!("{{ shape = \"plane\", point = [0, 0, 0], normal = [{s}, 0, {c}] }}");
    let mut on_plane = Machine::from_model(common::compile_text(
        "plane.toml",
        ball_over(&plane, x0, z0),
    ));
    let t = 1.0;
    let (xf, zf) = run(&mut on_field, t);
    let (xp, zp) = run(&mut on_plane, t);
    println!("after {t} s: heightfield x {xf:.12}, z {zf:.12}; plane x {xp:.12}, z {zp:.12}");
    assert!((xf - xp).abs() < 1e-9 && (zf - zp).abs() < 1e-9);
    // Rolling from rest: s = a t²/2 along the slope with a = 5/7 g sin θ (after the
    // first milliseconds' settling).
    let travelled = (xf - x0) / c;
    let a = 5.0 / 7.0 * G * s;
    assert!(
        (travelled - 0.5 * a * t * t).abs() < 0.01 * 0.5 * a * t * t,
        "{travelled} against {}",
        0.5 * a * t * t
    );
    assert!(on_field.get("normal") > 0.0);
}

#[test]
fn a_ball_in_a_heightfield_bowl_rolls_at_the_closed_form_period() {
    let dir = common::temp_dir("terrain-bowl");
    // A paraboloid of curvature radius R = 2 m at its bottom, sampled every 5 cm.
    let big_r = 2.0;
    let surface = |x: f64, y: f64| (x * x + y * y) / (2.0 * big_r);
    let heightfield = r#"{ shape = "heightfield", file = "terrain.csv", spacing = ["5 cm", "5 cm"], origin = [-1, -1, 0] }"#;
    let x0 = 0.1;
    let mut m = compile_with_heights(
        &dir,
        ball_over(heightfield, x0, surface(x0, 0.0) + 0.1 - 1e-4),
        (41, 41, -1.0, -1.0, 0.05),
        surface,
    );
    m.inst.initialize(0.0).unwrap();
    // Times the ball passes the bottom moving in +x.
    let mut crossings = Vec::new();
    let mut x_prev = m.get("x");
    for k in 1..=12000 {
        let t = k as f64 * 1e-3;
        m.inst.advance(t).unwrap();
        let x = m.get("x");
        if x_prev < 0.0 && x >= 0.0 {
            crossings.push(t - 1e-3 * x / (x - x_prev));
        }
        x_prev = x;
    }
    // Small rolling oscillations of a ball of radius r in a bowl of radius R:
    // ω² = 5 g / (7 (R − r)).
    let period = 2.0 * std::f64::consts::PI * (7.0 * (big_r - 0.1) / (5.0 * G)).sqrt();
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    println!(
        "bowl: period {measured:.4} s against {period:.4} s over {} periods",
        crossings.len() - 1
    );
    assert!(crossings.len() >= 3, "{crossings:?}");
    assert!(
        (measured - period).abs() < 0.01 * period,
        "{measured} against {period}"
    );
}

/// The 0.2 m cube given as `collision` on 30°, μ 0.3 (the material in `[contact]`).
fn cube_on_incline(collision: &str) -> String {
    common::cube_on_incline(
        30.0,
        collision,
        "stiffness = \"1e6 N/m\"\nrestitution = 0.5\nfriction = 0.3",
    )
}

/// Collision meshes (issue 49): a cube's mesh — ASCII STL, binary STL in millimetres
/// (scale 0.001), and an OBJ dented into its top (not convex: warned, its hull touches) —
/// slides down 30° at μ = 0.3 as the box of its size does, at g (sin θ − μ cos θ).
#[test]
fn a_mesh_cube_slides_down_an_incline_as_the_box_of_its_size() {
    let meshes = common::workspace().join("tests/descriptions/meshes");
    let dir = common::temp_dir("mesh-incline");
    let run_case = |collision: &str| {
        let lowered =
            common::compile_at(&dir.join("mesh-incline.toml"), cube_on_incline(collision));
        let warned = !lowered.warnings.is_empty();
        let mut m = Machine::from_model(lowered.model);
        let (x1, z1) = run(&mut m, 1.0);
        assert_eq!(m.get("points"), 4.0, "{collision}");
        let mut speeds = Vec::new();
        let (s, c) = 30f64.to_radians().sin_cos();
        let mut last = (x1, z1);
        for k in 1001..=2000 {
            m.inst.advance(k as f64 * 1e-3).unwrap();
            let now = (m.get("x"), m.get("z"));
            if k == 1500 || k == 2000 {
                speeds.push(-((now.0 - last.0) * c + (now.1 - last.1) * s) / 1e-3);
            }
            last = now;
        }
        let a = (speeds[1] - speeds[0]) / 0.5;
        (a, last, warned)
    };
    let (a_box, at_box, _) = run_case(r#"{ shape = "box", size = [0.2, 0.2, 0.2] }"#);
    let (s, c) = 30f64.to_radians().sin_cos();
    let expected = G * (s - 0.3 * c);
    for (file, extra, dented) in [
        ("cube.stl", "", false),
        ("cube-mm.stl", ", scale = 0.001", false),
        ("dented.obj", "", true),
    ] {
        let collision = format!(
            r#"{{ shape = "mesh", file = "{}"{extra} }}"#,
            meshes.join(file).display()
        );
        let (a, at, warned) = run_case(&collision);
        println!(
            "{file}: a = {a:.5} m/s² (closed form {expected:.5}, box {a_box:.5}), position {:.2e} m from the box's after 2 s",
            ((at.0 - at_box.0).powi(2) + (at.1 - at_box.1).powi(2)).sqrt()
        );
        assert!((a - expected).abs() < 0.01 * expected, "{file}: {a}");
        assert!(
            (at.0 - at_box.0).abs() < 1e-9 && (at.1 - at_box.1).abs() < 1e-9,
            "{file}"
        );
        assert_eq!(warned, dented, "{file}");
    }
}

/// Four 1 kg balls with friction (μ 0.5, restitution 0.5) dropped in a row into a bowl
/// `z = 0.15 (x² + y²)`: they roll together at its bottom and press on each other while
/// rolling, their contact points slipping slowly. Newton once circled there for 25
/// iterations at 1 ms and every halving (the tangent's secant along the slip converged at
/// 0.86 per iteration); with the law's slope and the slip limiter it converges. The row is
/// symmetric about x = 0, and so must the run be.
#[test]
fn four_balls_with_friction_roll_together_in_a_bowl_and_newton_converges() {
    let dir = common::temp_dir("terrain-balls");
    // The pile's first row of four.
    let mut text = pile(4);
    for (name, quantity) in [
        ("steps", "solver.steps"),
        ("balance", "energy.balance_error"),
        ("kinetic", "energy.kinetic"),
        ("middle", "contact.b1.b2.normal_force"),
    ] {
        text += &format!("[[interface.outputs]]\nname = \"{name}\"\nquantity = \"{quantity}\"\n");
    }
    let mut m = compile_with_heights(&dir, text, (31, 31, -1.5, -1.5, 0.1), |x, y| {
        0.15 * (x * x + y * y)
    });
    m.inst.initialize(0.0).unwrap();
    let drop = m.get("kinetic") + 4.0 * G * 0.2;
    let (mut worst, mut total, mut asymmetry, mut balance, mut pressed) =
        (0.0f64, 0.0, 0.0f64, 0.0f64, 0usize);
    let steps = 3000;
    for k in 1..=steps {
        m.inst.advance(k as f64 * 1e-3).unwrap();
        let it = m.get("iterations");
        worst = worst.max(it);
        total += it;
        for (a, b) in [(0, 3), (1, 2)] {
            asymmetry = asymmetry
                .max((m.get(&format!("x{a}")) + m.get(&format!("x{b}"))).abs())
                .max((m.get(&format!("y{a}")) - m.get(&format!("y{b}"))).abs())
                .max((m.get(&format!("z{a}")) - m.get(&format!("z{b}"))).abs());
        }
        balance = balance.max(m.get("balance").abs());
        pressed += usize::from(m.get("middle") > 0.0);
    }
    let internal = m.get("steps");
    println!(
        "four balls in a bowl, 3 s at 1 ms: {internal} internal steps, Newton iterations mean {:.2}, worst {worst}; mirror asymmetry {asymmetry:.2e} m; balance error {balance:.2e} J of {drop:.3} J; middle pair pressed in {pressed} steps",
        total / steps as f64
    );
    // Not one step halved, and none near the budget of 25 iterations.
    assert_eq!(internal, steps as f64);
    assert!(worst <= 20.0, "{worst} iterations");
    assert!(asymmetry < 1e-9, "{asymmetry}");
    assert!(balance < 1e-2 * drop, "{balance}");
    assert!(
        pressed > 100,
        "the middle balls never pressed on each other"
    );
}

/// `n` balls of `bench/pile.py` (1 kg, r 0.1 m, μ 0.5, restitution 0.5, 1e5 N/m) in layers
/// of 4 × 4, 0.22 m apart, dropped into the bowl `z = 0.15 (x² + y²)`, all in one group.
fn pile(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|k| format!("\"b{k}\"")).collect();
    let mut text = format!(
        r#"[model]
name = "terrain-ball"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[contact]
ground = {{ shape = "heightfield", file = "terrain.csv", spacing = ["0.1 m", "0.1 m"], origin = [-1.5, -1.5, 0] }}
{}
[[interface.outputs]]
name = "iterations"
quantity = "solver.iterations"
[[interface.outputs]]
name = "points"
quantity = "contact.points"
"#,
        // (One ball has no group: a group needs two bodies.)
        if n > 1 {
            format!("groups = [{{ bodies = [{}] }}]", names.join(", "))
        } else {
            String::new()
        }
    );
    for k in 0..n {
        let (layer, at) = (k / 16, k % 16);
        let shift = 0.01 * (layer % 2) as f64;
        let x = -0.33 + 0.22 * (at % 4) as f64 + shift;
        let y = -0.33 + 0.22 * (at / 4) as f64 + shift;
        let z = 0.2 + 0.21 * layer as f64;
        text += &format!(
            r#"[[bodies]]
name = "b{k}"
parent = "ground"
joint = {{ type = "free", name = "j{k}", origin = [0, 0, 0], initial = [{x:.4}, {y:.4}, {z:.4}, 0, 0, 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.004, 0.004, 0.004, 0, 0, 0]
collision = [{{ shape = "sphere", radius = "0.1 m", stiffness = "1e5 N/m", restitution = 0.5, friction = 0.5 }}]
[[markers]]
name = "c{k}"
body = "b{k}"
point = [0, 0, 0]
"#
        );
        for axis in ["x", "y", "z"] {
            text += &format!(
                "[[interface.outputs]]\nname = \"{axis}{k}\"\nquantity = \"c{k}.position.{axis}\"\n"
            );
        }
    }
    text
}

/// A pile of 20 balls in one group, 190 pairs that may touch: the sparse tangent holds
/// only the pairs whose bounding spheres are near (`solver::near_pairs`), so its LU stays
/// far from the dense 120 × 120; every pair pressing when a tangent is formed is in its
/// pattern; and a state saved mid-run, serialized and restored into a fresh instance (which
/// starts with no pair planned) continues bit for bit.
#[test]
fn a_piles_sparse_tangent_follows_the_pairs_that_are_near_and_restores_bit_for_bit() {
    let dir = common::temp_dir("terrain-pile");
    let balls = 20;
    let mut m = compile_with_heights(&dir, pile(balls), (31, 31, -1.5, -1.5, 0.1), |x, y| {
        0.15 * (x * x + y * y)
    });
    let model = m.inst.model().clone();
    // The balls of each body pair, by name (`b<k>`), in the model's pair order.
    let body_index = |name: &str| name[1..].parse::<usize>().unwrap();
    let pairs: Vec<(usize, usize)> = model
        .mechanism
        .contacts
        .pairs
        .iter()
        .filter(|p| p.other.is_some())
        .map(|p| {
            let (a, b) = p.name.split_once('.').unwrap();
            (body_index(a), body_index(b))
        })
        .collect();
    assert_eq!(pairs.len(), balls * (balls - 1) / 2);
    let n = m.inst.tangent_plan().pattern.n;
    m.inst.initialize(0.0).unwrap();
    let (mut most_planned, mut most_fill, mut formed, mut missed, mut halved) =
        (0, 0usize, 0, 0, 0);
    let mut saved = Vec::new();
    let (half, steps) = (400, 800);
    for k in 1..=steps {
        let before = m.inst.state().steps;
        let plan_before: Vec<bool> = m.inst.state().tangent_near.clone();
        m.inst.advance(k as f64 * 1e-3).unwrap();
        let st = m.inst.state();
        // (A step Newton failed is taken again in halves from the saved start, whose
        // factors may have another pattern than the plan: `plan_near` restores it.)
        halved += usize::from(st.steps > before + 1);
        assert!(st.tangent_sparse, "the pile takes the sparse path");
        let plan = m.inst.tangent_plan();
        let near = plan.near.as_ref().expect("a group's pairs are near-only");
        assert_eq!(near.planned(), &st.tangent_near[..]);
        let planned = st.tangent_near.iter().filter(|&&on| on).count();
        most_planned = most_planned.max(planned);
        let fill = plan.sparse.as_ref().unwrap().tangent.nonzeros();
        most_fill = most_fill.max(fill);
        // Where this step formed a tangent with another pattern, every pair pressing at
        // its end was near when it was formed.
        if st.tangent_near != plan_before {
            formed += 1;
            let centre = |b: usize| ["x", "y", "z"].map(|axis| m.get(&format!("{axis}{b}")));
            for (i, (a, b)) in pairs.iter().enumerate() {
                let (ca, cb) = (centre(*a), centre(*b));
                let d2: f64 = (0..3).map(|j| (ca[j] - cb[j]).powi(2)).sum();
                let pressing = d2 < 0.2 * 0.2;
                missed += usize::from(pressing && !st.tangent_near[i]);
            }
        }
        if k == half {
            let mut bytes = Vec::new();
            m.inst.snapshot().encode(&model.guid, &mut bytes);
            saved = bytes;
        }
    }
    let end: Vec<f64> = m.inst.state().z.clone();
    let snap = fmu_runtime::Snapshot::decode(&saved, &model).unwrap();
    let mut fresh = Machine::from_model(model.clone());
    fresh.inst.restore(&snap).unwrap();
    for k in half + 1..=steps {
        fresh.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let same = fresh
        .inst
        .state()
        .z
        .iter()
        .zip(&end)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    println!(
        "{balls} balls, {} pairs: at most {most_planned} pairs near at once, L + U at most {most_fill} entries of {} dense; the pattern changed in {formed} of {steps} steps, {missed} pressing pairs outside it then; {halved} steps taken in halves; restored at {half} ms: {}",
        pairs.len(),
        n * n,
        if same {
            "bit for bit equal"
        } else {
            "DIFFERENT"
        }
    );
    assert!(same, "the restored run ends elsewhere");
    // The landing's reversing contacts are held at stick together (`stick_projection`):
    // with the slip limiter alone two steps were taken in halves.
    assert_eq!(halved, 0, "steps taken in halves");
    assert!(most_planned > balls / 2, "the balls touch: {most_planned}");
    assert!(most_planned < pairs.len() / 3, "{most_planned} pairs near");
    assert!(most_fill * 2 < n * n, "{most_fill} of {}", n * n);
    assert!(formed > 0);
    assert_eq!(missed, 0);
}

/// Probe (by hand): `PILE_BALLS=100 PILE_SECONDS=0.2 cargo test --release --test
/// contact_terrain pile_probe -- --ignored --nocapture` steps the pile and prints Newton's
/// iterations per 10 ms, and the mean number of active contact points (what the cost per
/// active contact in docs/contact.md divides by).
#[test]
#[ignore]
fn pile_probe() {
    let var = |k: &str, d: f64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let balls = var("PILE_BALLS", 100.0) as usize;
    let seconds = var("PILE_SECONDS", 0.2);
    let dir = common::temp_dir("terrain-pile-probe");
    let mut m = compile_with_heights(&dir, pile(balls), (31, 31, -1.5, -1.5, 0.1), |x, y| {
        0.15 * (x * x + y * y)
    });
    m.inst.initialize(0.0).unwrap();
    let steps = (seconds / 1e-3).round() as usize;
    let (mut total, mut worst, mut points) = (0.0, 0.0f64, 0.0);
    for k in 1..=steps {
        if let Err(e) = m.inst.advance(k as f64 * 1e-3) {
            println!("failed at step {k}: {e}");
            break;
        }
        points += m.get("points");
        let it = m.get("iterations");
        total += it;
        worst = worst.max(it);
        if k % 10 == 0 {
            println!(
                "{:.3} s: points {}, iterations mean {:.2} worst {worst}, internal steps {}",
                k as f64 * 1e-3,
                m.get("points"),
                total / 10.0,
                m.inst.state().steps
            );
            (total, worst) = (0.0, 0.0);
        }
    }
    println!(
        "{balls} balls: {:.1} contact points active per step on average",
        points / steps as f64
    );
}
