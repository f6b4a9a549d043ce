//! A body carried on spring–dampers starts in static equilibrium (issue 48, item 2): the
//! coordinates nothing else holds settle where the springs carry the weight, `[init] hold`
//! keeps one where it is drawn, and `solve_for` refuses what the solve cannot use.
//!
//! The machine is ours: a 4 t chassis (a box, its centre of mass 0.1 m ahead of the chassis
//! origin) on a free joint, on four vertical tyre springs 1.5 m ahead and behind, 0.9 m to
//! each side, 2.5e5 N/m each, unloaded where the description draws them (1 m long). The closed form is the rigid body on four vertical springs: the axle
//! loads from the moments about the other axle, the heave and pitch from the deflections.

mod common;

const MASS: f64 = 4000.0;
const G: f64 = 9.81;
/// Centre of mass ahead of the chassis origin; axles' distances ahead and behind it.
const C: f64 = 0.1;
const A: f64 = 1.5;
const B: f64 = 1.5;
const K_FRONT: f64 = 2.5e5;
const K_REAR: f64 = 2.5e5;

fn chassis(init: &str) -> String {
    let spring = |name: &str, x: f64, z: f64, k: f64| {
        format!(
            r#"
[[spring_dampers]]
name = "{name}"
a = {{ body = "ground", point = [{x}, 0, {z}] }}
b = {{ body = "chassis", point = [{x}, 0, {z}] }}
stiffness = "{k} N/m"
damping = "5e3 N s/m"
free_length = "1 m"
"#
        )
    };
    let mut text = format!(
        r#"
[model]
name = "sprung-chassis"
gravity = [0, -9.81, 0]
[experiment]
stop_time = 1.0
step_size = 0.001
[init]
{init}
[[bodies]]
name = "chassis"
parent = "ground"
joint = {{ type = "free", name = "car", origin = [0, 1.0, 0] }}
parts = [{{ shape = "box", mass = "{MASS} kg", center = [{C}, 0, 0], size = [4.0, 0.5, 2.0] }}]
[[interface.outputs]]
name = "heave"
quantity = "car.y.q"
[[interface.outputs]]
name = "pitch"
quantity = "car.yaw.q"
[[interface.outputs]]
name = "roll"
quantity = "car.roll.q"
"#
    );
    for (name, x, z, k) in [
        ("front_left", A, 0.9, K_FRONT),
        ("front_right", A, -0.9, K_FRONT),
        ("rear_left", -B, 0.9, K_REAR),
        ("rear_right", -B, -0.9, K_REAR),
    ] {
        text.push_str(&spring(name, x, z, k));
    }
    text
}

/// Axle loads from the moments about the other axle, each axle's spring deflection.
fn deflections() -> (f64, f64) {
    let weight = MASS * G;
    let front = weight * (B + C) / (A + B);
    let rear = weight * (A - C) / (A + B);
    (front / (2.0 * K_FRONT), rear / (2.0 * K_REAR))
}

#[test]
fn a_chassis_on_four_tyre_springs_starts_where_they_carry_its_weight() {
    let names = ["heave", "pitch", "roll"];
    let (mut inst, v) = common::started("sprung.toml", chassis(""), &names);
    let report = inst.equilibrium_report().expect("static equilibrium");
    let weight = MASS * G;
    // Closed form: front points sink by δf, rear by δr; heave y and pitch θ (about z, nose
    // up positive) from y + A sinθ = −δf, y − B sinθ = −δr. Left out: the springs' tilt, from
    // the points' sideways travel A(1 − cosθ) = 2.3e-6 m, whose horizontal forces (0.05 N)
    // turn the chassis by about 1e-7 of its pitch (2e-6 at a 0.3 m offset: it grows as θ²).
    let (df, dr) = deflections();
    let sin = (dr - df) / (A + B);
    let (heave, pitch) = (-df - A * sin, sin.asin());
    let (y, theta, roll) = (inst.value(&v[0]), inst.value(&v[1]), inst.value(&v[2]));
    println!(
        "heave {y:.9e} m vs {heave:.9e} ({:.1e}); pitch {theta:.9e} rad vs {pitch:.9e} ({:.1e}); \
         roll {roll:.1e}; unbalanced {:.2e} N of the weight {weight:.4e} N; settled {:?}",
        (y / heave - 1.0).abs(),
        (theta / pitch - 1.0).abs(),
        report.force,
        inst.settled_coordinates()
    );
    assert!(report.force <= 1e-6 * weight, "{report:?}");
    assert!(report.reached(), "{report:?}");
    assert!((y / heave - 1.0).abs() < 1e-6, "heave {y} vs {heave}");
    assert!(
        (theta / pitch - 1.0).abs() < 1e-6,
        "pitch {theta} vs {pitch}"
    );
    assert!(roll.abs() < 1e-9, "symmetric side to side: roll {roll}");
    // All six coordinates of the free joint are the solve's (nothing else holds them).
    assert_eq!(inst.settled_coordinates().len(), 6);
    // Started at rest: it stays there (0.3 s; the compressed struts' sideways instability
    // grows from rounding only).
    for k in 1..=300 {
        inst.advance(k as f64 * 1e-3).unwrap();
    }
    let moved = (inst.value(&v[0]) - y)
        .abs()
        .max((inst.value(&v[1]) - theta).abs());
    println!("moved {moved:.1e} in 0.3 s");
    assert!(moved < 1e-9, "moved {moved}");
}

#[test]
fn held_coordinates_stay_where_they_are_drawn() {
    let names = ["heave", "pitch"];
    let (inst, v) = common::started("held.toml", chassis("hold = [\"car.y\"]"), &names);
    let report = inst.equilibrium_report().expect("static equilibrium");
    assert_eq!(inst.value(&v[0]), 0.0, "held heave");
    // The weight is unbalanced on the held heave; pitch still settles (the moment of the
    // unloaded springs balances the offset weight only with the axles' deflections, which
    // heave held at zero forces to be ±A sinθ).
    assert!(!report.reached(), "{report:?}");
    assert_eq!(inst.settled_coordinates().len(), 5);
    let whole = common::started("held-joint.toml", chassis("hold = [\"car\"]"), &names).0;
    assert!(whole.settled_coordinates().is_empty());
    assert!(!whole.equilibrium_report().unwrap().reached());
    assert_eq!(whole.value(&v[1]), 0.0);
}

#[test]
fn solved_free_lengths_preload_the_springs_where_the_chassis_is_drawn() {
    let names = ["heave", "pitch"];
    let lengths = [
        "front_left.free_length",
        "front_right.free_length",
        "rear_left.free_length",
        "rear_right.free_length",
    ];
    let list = lengths.map(|n| format!("\"{n}\"")).join(", ");
    let text = chassis(&format!("solve_for = [{list}]"));
    let (inst, v) = common::started("preloaded.toml", text.clone(), &names);
    let model = common::compile_text("preloaded.toml", text);
    let (df, dr) = deflections();
    for (name, want) in lengths.iter().zip([1.0 + df, 1.0 + df, 1.0 + dr, 1.0 + dr]) {
        let got = (model.params.iter())
            .find(|p| p.name == *name)
            .unwrap()
            .default;
        println!("{name} {got:.9} m vs {want:.9} m");
        assert!((got - want).abs() < 1e-9, "{name}: {got} vs {want}");
    }
    assert!(inst.value(&v[0]).abs() < 1e-12 && inst.value(&v[1]).abs() < 1e-12);
    assert!(inst.equilibrium_report().unwrap().reached());
}

fn errors(init: &str) -> String {
    common::compile_errors("sprung.toml", chassis(init))
}

#[test]
fn solve_for_refuses_what_the_solve_cannot_use() {
    let coordinate = errors("solve_for = [\"car.y\"]");
    println!("{coordinate}");
    assert!(
        coordinate.contains("'car.y' is a joint coordinate, not an input or parameter"),
        "{coordinate}"
    );
    assert!(
        coordinate.contains("list it in [init] hold instead"),
        "{coordinate}"
    );
    let damping = errors("solve_for = [\"front_left.damping\"]");
    println!("{damping}");
    assert!(
        damping.contains("'front_left.damping' cannot be solved for: no force, flow or set-point"),
        "{damping}"
    );
    let unknown = errors("hold = [\"car.heave\"]");
    assert!(
        unknown.contains("unknown joint or joint coordinate 'car.heave'"),
        "{unknown}"
    );
    let idle = errors("static_equilibrium = false\nhold = [\"car\"]");
    assert!(idle.contains("static_equilibrium = false"), "{idle}");
}

#[test]
fn check_lists_the_settled_coordinates() {
    let dir = common::temp_dir("sprung-check");
    let file = dir.join("sprung.toml");
    std::fs::write(&file, chassis("")).unwrap();
    let (ok, out, err) = common::hydromech(&["check".as_ref(), file.as_os_str()]);
    assert!(ok, "{err}");
    println!("{out}");
    assert!(out.contains("  settled by the static equilibrium"), "{out}");
    // The closed form's heave, −(δf + δr)/2 at equal stiffness = −39.24 mm.
    assert!(
        out.contains("    car.y -0.039240 m (initial 0.000000 m)"),
        "{out}"
    );
    assert!(out.contains("  static equilibrium met"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
