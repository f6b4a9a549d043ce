//! Joint end stops (`limits`, issue 14, item 3): a 500 kg slide dropped 10 mm onto its lower
//! stop comes to rest on it, pressed in by m·g/k, and never pulled past its upper stop.

mod common;

fn settle(text: String, seconds: f64) -> (f64, f64) {
    let (mut inst, v) = common::started("end-stop.toml", text, &["lift.q"]);
    let q = &v[0];
    let mut extreme = f64::INFINITY;
    for k in 1..=(seconds * 1e3) as usize {
        inst.advance(k as f64 * 1e-3).unwrap();
        extreme = extreme.min(inst.value(q));
    }
    (inst.value(q), extreme)
}

#[test]
fn a_slide_comes_to_rest_on_its_stop_pressed_in_by_its_weight() {
    let (m, g, k) = (500.0, 9.81, 1e8);
    let (rest, deepest) = settle(common::end_stop_slide("10 mm", -g), 2.0);
    let sag = m * g / k; // 49 µm
    println!(
        "at rest {rest:.3e} m (−m·g/k = {:.3e}), deepest {deepest:.3e} m",
        -sag
    );
    assert!((rest + sag).abs() < 1e-3 * sag, "{rest} vs {}", -sag);
    // The 10 mm drop (0.44 m/s at contact) goes a few millimetres into the stop, no further.
    assert!(deepest < -sag && deepest > -5e-3, "{deepest}");
}

#[test]
fn the_upper_stop_holds_a_slide_pushed_up() {
    // Gravity upwards: the slide rests on the upper stop at 200 mm + m·g/k.
    let (m, g, k) = (500.0, 9.81, 1e8);
    let (rest, _) = settle(common::end_stop_slide("190 mm", g), 2.0);
    assert!(
        (rest - (0.2 + m * g / k)).abs() < 1e-3 * m * g / k,
        "{rest}"
    );
}

#[test]
fn limits_are_refused_where_they_cannot_act() {
    let text = common::end_stop_slide("10 mm", -9.81).replace(
        "limit_stiffness = \"1e8 N/m\"",
        "limit_stiffness = \"-1 N/m\"",
    );
    let source = model_compiler::diagnostic::Source::new("s.toml", text);
    let e = source.render(&model_compiler::compile(&source).unwrap_err()[0]);
    assert!(
        e.contains("limit_stiffness") && e.contains("positive"),
        "{e}"
    );
    let text = common::end_stop_slide("10 mm", -9.81).replace(
        "limit_damping = \"2e5 N s/m\"",
        "limit_damping = \"2e5 N m s/rad\"",
    );
    let source = model_compiler::diagnostic::Source::new("s.toml", text);
    assert!(
        model_compiler::compile(&source).is_err(),
        "a torsional damping on a prismatic joint"
    );
}
