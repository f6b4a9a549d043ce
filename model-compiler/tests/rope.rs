//! Winch and rope (issue 14, item 3): a drum on a revolute joint, held by a hydraulic motor
//! with blocked lines, pays a rope over a sheave to a 500 kg hook on a vertical slide. A
//! taut rope holds the hook at the tension the weight gives; a slack rope carries nothing
//! (the hook falls freely) until it is taut again.

mod common;

// The values `common::winch` writes into the description.
const G: f64 = 9.81;
const MASS: f64 = 500.0;
const EA: f64 = 10e6;
const RADIUS: f64 = 0.2;
/// Motor displacement [m³/rev] and motor turns per drum turn.
const D: f64 = 100e-6;
const GEAR: f64 = 10.0;

/// Path length: from (0, 0.2) where the rope leaves the drum to the sheave at (2, 3), then
/// down to the hook at (2, 0).
fn path_length() -> f64 {
    (2.0f64.powi(2) + 2.8f64.powi(2)).sqrt() + 3.0
}

fn winch(length: f64) -> String {
    common::winch(length, "assembled")
}

const NAMES: [&str; 9] = [
    "hook.y",
    "hook.a",
    "drum.angle",
    "hoist.length",
    "hoist.tension",
    "p_a",
    "p_b",
    "energy_error",
    "iterations",
];

#[test]
fn a_taut_rope_holds_the_hook_at_its_weight() {
    // Unstretched length such that the weight stretches the rope to the path exactly:
    // L − ℓ = m g ℓ / EA.
    let length = path_length() / (1.0 + MASS * G / EA);
    let (mut inst, v) = common::started("winch.toml", winch(length), &NAMES);
    let at = |inst: &fmu_runtime::Instance, i: usize| inst.value(&v[i]);
    let mut worst_y = 0.0f64;
    for k in 1..=2000 {
        inst.advance(k as f64 * 1e-3).unwrap();
        worst_y = worst_y.max(at(&inst, 0).abs());
    }
    let (tension, length_out) = (at(&inst, 4), at(&inst, 3));
    let dp = at(&inst, 6) - at(&inst, 5);
    // The motor holds the drum: i·Δp·D/2π = T·r.
    let expected_dp = MASS * G * RADIUS * std::f64::consts::TAU / (D * GEAR);
    println!(
        "held 2 s: hook moved ≤ {worst_y:.3e} m, tension {tension:.4} N (m g = {:.4}), path {length_out:.6} m (closed form {:.6}), motor Δp {:.4} bar (closed form {:.4}), p_a {:.4} bar",
        MASS * G,
        path_length(),
        dp / 1e5,
        expected_dp / 1e5,
        at(&inst, 5) / 1e5
    );
    assert!(worst_y < 1e-6, "hook drifted {worst_y} m");
    assert!(
        (tension / (MASS * G) - 1.0).abs() < 1e-6,
        "tension {tension}"
    );
    assert!((length_out - path_length()).abs() < 1e-6);
    assert!(
        (dp / expected_dp - 1.0).abs() < 1e-6,
        "Δp {dp} vs {expected_dp}"
    );
}

#[test]
fn a_slack_rope_carries_nothing_until_it_is_taut_again() {
    let slack = 0.1;
    let (mut inst, v) = common::started("winch.toml", winch(path_length() + slack), &NAMES);
    let at = |inst: &fmu_runtime::Instance, i: usize| inst.value(&v[i]);
    // Free fall until the hook has dropped by the slack (plus the small stretch).
    let catch = (2.0 * slack / G).sqrt();
    let (mut peak, mut lowest_tension) = (0.0f64, f64::INFINITY);
    let mut worst_fall = 0.0f64;
    for k in 1..=3000 {
        let t = k as f64 * 1e-3;
        inst.advance(t).unwrap();
        let (y, a, tension) = (at(&inst, 0), at(&inst, 1), at(&inst, 4));
        lowest_tension = lowest_tension.min(tension);
        peak = peak.max(tension);
        if t < catch - 2e-3 {
            // Slack: no tension at all, the hook in free fall, the drum at rest.
            assert_eq!(tension, 0.0, "t = {t}: slack rope pulls {tension} N");
            worst_fall = worst_fall
                .max((y + 0.5 * G * t * t).abs())
                .max((a + G).abs() * 1e-3);
            assert_eq!(at(&inst, 2), 0.0, "t = {t}: drum turned");
        }
    }
    let tension = at(&inst, 4);
    println!(
        "slack {slack} m: free fall until t = {catch:.4} s, largest deviation from −g t²/2 {worst_fall:.3e} m; peak tension {peak:.1} N ({:.2} m g), lowest {lowest_tension} N; after 3 s {tension:.2} N, path {:.5} m, energy error {:.3e} J",
        peak / (MASS * G),
        at(&inst, 3),
        at(&inst, 7)
    );
    assert!(worst_fall < 1e-9, "free fall off by {worst_fall}");
    assert!(lowest_tension >= 0.0);
    assert!(
        peak > 2.0 * MASS * G,
        "the catch should jerk the rope: {peak} N"
    );
    assert!(
        (tension / (MASS * G) - 1.0).abs() < 0.01,
        "settled at {tension} N"
    );
    assert!(
        at(&inst, 7).abs() < 1.0,
        "energy balance error {} J",
        at(&inst, 7)
    );
}

#[test]
fn the_assembled_tangent_carries_the_rope_stiffness() {
    // The catch run with the rope's columns assembled and with finite differences: the
    // same motion, and no more Newton iterations for the assembled one.
    let run = |tangent: &str| {
        let text = common::winch(path_length() + 0.1, tangent);
        let (mut inst, v) = common::started("winch.toml", text, &NAMES);
        let (mut y, mut iterations) = (Vec::new(), 0.0);
        for k in 1..=1000 {
            inst.advance(k as f64 * 1e-3).unwrap();
            y.push(inst.value(&v[0]));
            iterations += inst.value(&v[8]) / 1000.0;
        }
        (y, iterations)
    };
    let (y_a, it_a) = run("assembled");
    let (y_f, it_f) = run("finite-difference");
    let gap = y_a
        .iter()
        .zip(&y_f)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "assembled: {it_a:.3} iterations per step; finite differences: {it_f:.3}; hook paths within {gap:.3e} m"
    );
    // Both converge each step to Newton's tolerance; the bounces on the rope's damping
    // fade part them by micrometres (a 30 kN catch, 0.03 m stretch).
    assert!(gap < 1e-5, "{gap}");
    assert!(it_a <= 1.05 * it_f, "{it_a} vs {it_f}");
}

#[test]
fn check_says_whether_the_static_equilibrium_is_met() {
    let dir = common::temp_dir("rope-check");
    let run = |length: f64| {
        let file = dir.join(format!("winch-{length}.toml"));
        std::fs::write(&file, winch(length)).unwrap();
        let (ok, out, err) = common::hydromech(&["check".as_ref(), file.as_os_str()]);
        assert!(ok, "{err}");
        out
    };
    // Taut at the weight: met, the motor's B line at the holding pressure.
    let held = run(path_length() / (1.0 + MASS * G / EA));
    assert!(
        held.contains("  static equilibrium met: largest unbalanced force"),
        "{held}"
    );
    // Slack: nothing holds the hook, the whole weight is unbalanced on its joint.
    let slack = run(path_length() + 0.1);
    let line = slack
        .lines()
        .find(|l| l.contains("warning: the static equilibrium is not met"))
        .unwrap_or_else(|| panic!("{slack}"));
    assert!(line.contains("4.9050e3 unbalanced on hook_y"), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}
