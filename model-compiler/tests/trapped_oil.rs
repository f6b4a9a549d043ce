//! Trapped oil at the start (issue 14, item 4): a load held by a cylinder whose closed-centre
//! valve is centred. The static equilibrium fixes only the cylinder's net force; the chamber
//! that does not carry the load starts at the make-up (tank) pressure and the other at the
//! load pressure, whatever the starting guesses and the load.

mod common;

/// A slide of `mass` on a vertical prismatic joint, lifted by a cylinder (bore 63, rod 40 mm)
/// through a closed-centre 4/3 valve (centred: every edge shut) between a 200 bar supply and a
/// 1 bar tank; the chambers' starting guesses are `guesses` (cap, rod).
fn lift(mass: f64, guesses: (&str, &str)) -> String {
    format!(
        r#"[model]
name = "trapped-lift"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = true
[[bodies]]
name = "carriage"
parent = "ground"
joint = {{ type = "prismatic", name = "lift", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = {mass}
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "supply"
pressure = "200 bar"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "cap_side"
volume = "0.5 L"
initial_guess = "{cap}"
[[hydraulics.volumes]]
name = "rod_side"
volume = "0.5 L"
initial_guess = "{rod}"
[[hydraulics.valves]]
name = "valve"
P = "supply"
T = "tank"
A = "cap_side"
B = "rod_side"
spool = {{ range = [-1, 1], time_constant = "10 ms", command = 0 }}
edges.PA = {{ coefficient = [[0, 0], [0.1, 0], [1, 2e-7]] }}
edges.BT = {{ coefficient = [[0, 0], [0.1, 0], [1, 2e-7]] }}
edges.PB = {{ coefficient = [[-1, 2e-7], [-0.1, 0], [0, 0]] }}
edges.AT = {{ coefficient = [[-1, 2e-7], [-0.1, 0], [0, 0]] }}
[[hydraulics.cylinders]]
name = "lift_cyl"
cap = {{ body = "ground", point = [0, -1.0, 0] }}
rod = {{ body = "carriage", point = [0, 0, 0] }}
bore = "63 mm"
rod_diameter = "40 mm"
stroke = "0.8 m"
retracted_length = "0.5 m"
cap_volume = "cap_side"
rod_volume = "rod_side"
[[interface.inputs]]
name = "valve.command"
target = "valve.command"
[[interface.outputs]]
name = "p_cap"
quantity = "lift_cyl.p_cap"
[[interface.outputs]]
name = "p_rod"
quantity = "lift_cyl.p_rod"
[[interface.outputs]]
name = "height"
quantity = "lift.q"
"#,
        cap = guesses.0,
        rod = guesses.1
    )
}

const TANK: f64 = 1e5;

fn areas() -> (f64, f64) {
    let cap = std::f64::consts::PI / 4.0 * 0.063f64.powi(2);
    (cap, cap - std::f64::consts::PI / 4.0 * 0.040f64.powi(2))
}

#[test]
fn a_blocked_cylinder_starts_with_its_lower_chamber_at_tank_pressure() {
    blocked_cylinder_cases(lift);
}

/// The same with anti-cavitation checks from the tank into both chambers (issue 48, item
/// 8): the lower chamber starts at tank pressure as documented, not at the checks' edge
/// (tank − cracking, 0.80 bar) where the solve's search for it stops.
#[test]
fn make_up_checks_leave_the_lower_chamber_at_tank_pressure() {
    blocked_cylinder_cases(|mass, guesses| {
        lift(mass, guesses).replace(
            "rod_volume = \"rod_side\"\n",
            "rod_volume = \"rod_side\"\nmake_up = \"tank\"\n",
        )
    });
}

fn blocked_cylinder_cases(lift: impl Fn(f64, (&str, &str)) -> String) {
    let (a_cap, a_rod) = areas();
    // The issue's cases: starting guesses that used to decide the split, and two loads.
    for (mass, guesses) in [
        (500.0, ("10 bar", "10 bar")),
        (500.0, ("59.73 bar", "1.52 bar")),
        (500.0, ("1 bar", "100 bar")),
        (1000.0, ("10 bar", "10 bar")),
        // 1 kg: both chambers at tank pressure would push the rod out with
        // p_t (A_cap − A_rod) = 126 N > 9.8 N, so the cap side is the lower one.
        (1.0, ("10 bar", "10 bar")),
    ] {
        let (inst, v) = common::started(
            "trapped-lift.toml",
            lift(mass, guesses),
            &["p_cap", "p_rod"],
        );
        let (p_cap, p_rod) = (inst.value(&v[0]), inst.value(&v[1]));
        // Closed form: the lower chamber at p_t, p_cap A_cap − p_rod A_rod = m g.
        let mut expected_cap = (mass * 9.81 + TANK * a_rod) / a_cap;
        let mut expected_rod = TANK;
        if expected_cap < TANK {
            (expected_cap, expected_rod) = (TANK, (TANK * a_cap - mass * 9.81) / a_rod);
        }
        println!(
            "{mass} kg, guesses {guesses:?}: p_cap {:.4} bar (closed form {:.4}), p_rod {:.4} bar (closed form {:.4}); held at make-up: {:?}",
            p_cap / 1e5,
            expected_cap / 1e5,
            p_rod / 1e5,
            expected_rod / 1e5,
            inst.held_at_make_up()
        );
        assert!(
            (p_rod - expected_rod).abs() < 1e-6 * expected_rod,
            "{mass} kg {guesses:?}: p_rod {p_rod} vs {expected_rod}"
        );
        assert!(
            (p_cap - expected_cap).abs() < 1e-6 * expected_cap,
            "{mass} kg {guesses:?}: p_cap {p_cap} vs {expected_cap}"
        );
    }
}

#[test]
fn a_load_pulling_on_the_rod_is_held_by_the_rod_chamber() {
    // Gravity reversed: the load pulls the rod out, the rod chamber carries it and the cap
    // chamber sits at tank pressure.
    let (a_cap, a_rod) = areas();
    let text = lift(500.0, ("10 bar", "10 bar"))
        .replace("gravity = [0, -9.81, 0]", "gravity = [0, 9.81, 0]");
    let (inst, v) = common::started("trapped-lift.toml", text, &["p_cap", "p_rod"]);
    let (p_cap, p_rod) = (inst.value(&v[0]), inst.value(&v[1]));
    let expected_rod = (500.0 * 9.81 + TANK * a_cap) / a_rod;
    println!(
        "pulled: p_cap {:.4} bar, p_rod {:.4} bar (closed form {:.4})",
        p_cap / 1e5,
        p_rod / 1e5,
        expected_rod / 1e5
    );
    assert!((p_cap - TANK).abs() < 1.0, "p_cap {p_cap}");
    assert!(
        (p_rod - expected_rod).abs() < 1e-6 * expected_rod,
        "p_rod {p_rod}"
    );
}

#[test]
fn a_stated_precharge_wins_over_the_make_up_default() {
    // Trapped oil at a pressure the user states: the rod chamber precharged to 20 bar, the
    // cap chamber then carries load and precharge.
    let (a_cap, a_rod) = areas();
    let text = lift(500.0, ("10 bar", "10 bar")).replace(
        "name = \"rod_side\"\nvolume = \"0.5 L\"",
        "name = \"rod_side\"\nvolume = \"0.5 L\"\nprecharge = \"20 bar\"",
    );
    let (inst, v) = common::started("trapped-lift.toml", text, &["p_cap", "p_rod"]);
    let (p_cap, p_rod) = (inst.value(&v[0]), inst.value(&v[1]));
    let expected_cap = (500.0 * 9.81 + 20e5 * a_rod) / a_cap;
    assert!((p_rod - 20e5).abs() < 1.0, "p_rod {p_rod}");
    assert!(
        (p_cap - expected_cap).abs() < 1e-6 * expected_cap,
        "p_cap {p_cap}"
    );
    assert!(inst.held_at_make_up().is_empty());
}

#[test]
fn the_held_load_stays_put_and_moves_when_the_valve_opens() {
    // Started at rest: the trapped split is an equilibrium, so nothing moves for 1 s;
    // then the spool opens and the load rises.
    let (mut inst, v) = common::started(
        "trapped-lift.toml",
        lift(500.0, ("10 bar", "10 bar")),
        &["height", "p_rod", "valve.command"],
    );
    for k in 1..=1000 {
        inst.advance(k as f64 * 1e-3).unwrap();
    }
    let h = inst.value(&v[0]);
    assert!(h.abs() < 1e-9, "drifted {h} m");
    assert!((inst.value(&v[1]) - TANK).abs() < 1.0);
    inst.set_param(common::slot_of(&v[2]), 0.5);
    for k in 1001..=1500 {
        inst.advance(k as f64 * 1e-3).unwrap();
    }
    assert!(inst.value(&v[0]) > 0.01, "{}", inst.value(&v[0]));
}

#[test]
fn check_prints_the_initial_pressures_it_will_use() {
    let dir = common::temp_dir("trapped-check");
    let file = dir.join("trapped-lift.toml");
    std::fs::write(&file, lift(500.0, ("10 bar", "10 bar"))).unwrap();
    let (ok, out, err) = common::hydromech(&["check".as_ref(), file.as_os_str()]);
    assert!(ok, "{err}");
    assert!(
        out.contains(
            "  initial pressures (static equilibrium):\n    cap_side 16.3319 bar\n    rod_side 1.0000 bar (trapped: held at the make-up pressure)\n"
        ),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
