//! Single-acting (plunger) cylinder (issue 14, item 3): the rod side vented to tank, a
//! 500 kg load lowers under gravity through a throttle at the speed the metered flow sets.

mod common;

use fmu_runtime::model::Variable;

const DESCRIPTION: &str = r#"
[model]
name = "plunger-test"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "load"
parent = "ground"
joint = { type = "prismatic", name = "lift", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }
mass = 500
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "cap_side"
volume = "0.1 L"
initial_guess = "20 bar"
[[hydraulics.orifices]]
name = "throttle"
from = "cap_side"
to = "tank"
coefficient = 2e-8
[[hydraulics.cylinders]]
name = "plunger"
cap = { body = "ground", point = [0, -1.0, 0] }
rod = { body = "load", point = [0, 0, 0] }
bore = "63 mm"
rod_diameter = "40 mm"
stroke = "0.8 m"
retracted_length = "0.5 m"
cap_volume = "cap_side"
rod_volume = "tank"
friction = { model = "viscous", coefficient = "100 N s/m" }
[[interface.outputs]]
name = "plunger.length"
quantity = "plunger.length"
[[interface.outputs]]
name = "plunger.p_cap"
quantity = "plunger.p_cap"
[[interface.outputs]]
name = "plunger.p_rod"
quantity = "plunger.p_rod"
"#;

#[test]
fn a_plunger_lowers_at_the_metered_flow() {
    let (mut inst, v) = common::started(
        "plunger.toml",
        DESCRIPTION.to_string(),
        &["plunger.length", "plunger.p_cap", "plunger.p_rod"],
    );
    let [length, p_cap, p_rod] = <[Variable; 3]>::try_from(v).unwrap();
    // The load rides its oil spring (≈ 21 Hz, lightly damped): the mean speed over many
    // periods (1–3 s) is what continuity fixes, and the mean cap pressure.
    let (mut start, mut pc, mut samples) = (0.0, 0.0, 0);
    for k in 1..=3000 {
        inst.advance(k as f64 * 1e-3).unwrap();
        if k == 1000 {
            start = inst.value(&length);
        }
        if k > 1000 {
            pc += inst.value(&p_cap);
            samples += 1;
        }
    }
    let v = (inst.value(&length) - start) / 2.0;
    let pc = pc / samples as f64;
    let pr = inst.value(&p_rod);
    // Closed form of the steady descent: the cap pressure carries the load less the tank
    // pressure on the annulus and the viscous friction (which pushes up while lowering),
    // and the throttle passes the flow the plunger displaces.
    let (k, pt, m, g, c) = (2e-8, 1e5, 500.0, 9.81, 100.0);
    let (a_cap, a_rod) = (
        std::f64::consts::PI / 4.0 * 0.063f64.powi(2),
        std::f64::consts::PI / 4.0 * (0.063f64.powi(2) - 0.040f64.powi(2)),
    );
    // Fixed point of v = −K√(p_cap − p_t)/A_cap with p_cap = (m g + p_t A_rod + c v)/A_cap.
    let mut v_ref = 0.0;
    for _ in 0..50 {
        let p = (m * g + pt * a_rod + c * v_ref) / a_cap;
        v_ref = -k * (p - pt).sqrt() / a_cap;
    }
    let p_ref = (m * g + pt * a_rod + c * v_ref) / a_cap;
    println!(
        "descent {v:.6} m/s (closed form {v_ref:.6}), p_cap {pc:.1} Pa ({p_ref:.1}), p_rod {pr}"
    );
    assert_eq!(pr, pt, "the rod side is the tank");
    assert!((v / v_ref - 1.0).abs() < 1e-3, "{v} vs {v_ref}");
    assert!((pc / p_ref - 1.0).abs() < 1e-3, "{pc} vs {p_ref}");
}

#[test]
fn both_chambers_on_pressure_sources_is_an_error() {
    let text = DESCRIPTION.replace("cap_volume = \"cap_side\"", "cap_volume = \"tank\"");
    let source = model_compiler::diagnostic::Source::new("p.toml", text);
    let errors = model_compiler::compile(&source).unwrap_err();
    let e: Vec<String> = errors.iter().map(|e| source.render(e)).collect();
    assert!(
        e.iter().any(|e| e
            .contains("cylinder 'plunger' has both chambers on pressure sources ('tank', 'tank')")),
        "{e:?}"
    );
}
